"""The controller protocol and the views each seat is given.

A seat sees only its view: the agent never sees state or silent triggers, the user
never sees tool results. Every controller returns the same action objects.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from itertools import islice
from typing import Any, Protocol, TypeVar, overload

from sttui.core.actions import Action
from sttui.core.checklist import checklist_for, read_statement, score
from sttui.core.env import ToolSpec
from sttui.core.episode import Episode
from sttui.core.facts import SPELLED
from sttui.core.report_claims import Mismatch
from sttui.core.report_names import key_name, plain_name
from sttui.core.reports import TAKEN_BACK, UNCLEAR, message_mismatches

T = TypeVar("T")


class Window(Sequence[T]):
    """The first ``n`` items of an append-only list, read-only: what a seat was shown when it
    was asked, passed without a copy. Items appended later lie outside the window, so it never
    changes; it has no way to change the list. Compares equal to a list of the same items."""

    __slots__ = ("_items", "_n")

    def __init__(self, items: list[T], n: int | None = None):
        self._items = items
        self._n = len(items) if n is None else n

    def __len__(self) -> int:
        return self._n

    @overload
    def __getitem__(self, i: int) -> T: ...
    @overload
    def __getitem__(self, i: slice) -> list[T]: ...
    def __getitem__(self, i: int | slice) -> T | list[T]:
        if isinstance(i, slice):
            return [self._items[j] for j in range(self._n)[i]]
        if i < 0:
            i += self._n
        if not 0 <= i < self._n:
            raise IndexError("window index out of range")
        return self._items[i]

    def __iter__(self) -> Iterator[T]:
        return islice(self._items, self._n)

    def __reversed__(self) -> Iterator[T]:
        return (self._items[j] for j in range(self._n - 1, -1, -1))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Window | list | tuple):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # unhashable, as list is

    def __repr__(self) -> str:
        return f"Window({list(self)!r})"


@dataclass(frozen=True)
class AgentView:
    """What the agent seat may know: the conversation and results so far, and the tools.

    ``items`` is a read-only window on the episode's view (no copy, whatever its length)."""

    items: Sequence[dict[str, Any]]
    tools: dict[str, ToolSpec]
    now: datetime
    steps: int
    max_steps: int


@dataclass(frozen=True)
class UserView:
    """What the user seat may know: its profile and the messages exchanged.

    ``withheld`` holds the details' values and ``asked_by`` the cues each may be asked by.
    ``solvable`` is part of the profile (STT-Arena tailors the user's clarification responses
    to whether the task can be done). What the scripted user learns from the record, in place
    of reading the agent's report as a person or a model user would, comes from the one
    scoring path (``checklist.score``, the rule judge on impossible tasks), never from rules of
    its own: ``accepted``, whether the episode would pass if it ended now; ``goal_met``, the
    same on a solvable task; ``unmet``, the items that fail now; ``contradicted``, what the
    user's own app shows against the agent's last message ("My app shows TRK-9, not TRK-7.");
    ``denied``, the agent's messages that state the goal cannot be met as the rule judge reads
    them ("F-90 won't be back by 14:00": ``checklist.read_statement``), a "cannot" beside the set
    phrases; ``both_ways``, whether the agent's last message states that and then claims the
    goal was met ("…can't be used, so I sent GEN-44 instead: Maelor has power by 12:00");
    ``only_told``, whether the items that fail now are all ``tell`` items on a solvable task:
    the work is done and only the report falls short of it. The model user is never shown
    these, the agent never sees them."""

    goal: str
    profile: dict[str, Any]
    withheld: dict[str, Any]
    messages: Sequence[dict[str, Any]]
    agent_actions: Sequence[dict[str, Any]]
    asked_by: dict[str, list[str]] = field(default_factory=dict)
    solvable: bool = True
    goal_met: bool = False
    accepted: bool = False
    unmet: tuple[str, ...] = ()
    contradicted: tuple[str, ...] = ()
    denied: frozenset[str] = frozenset()
    both_ways: bool = False
    only_told: bool = False


def agent_view(episode: Episode) -> AgentView:
    """The agent seat's view now: constant time, whatever the episode's length."""
    return AgentView(Window(episode.view), episode.tools, episode.now, episode.steps, episode.task.max_steps)


def user_view(episode: Episode, reads_record: bool = True) -> UserView:
    """The user seat's view now: windows on the episode's messages and calls, kept apart as
    they happen, so nothing is scanned. What the record would say (``accepted``, ``unmet``,
    ``contradicted``, ``goal_met``) is worked out only for a seat that ``reads_record`` (the
    scripted user): a person or a model user is never shown it."""
    user = episode.task.user
    messages = Window(episode.messages)
    actions = Window(episode.calls)
    solvable = episode.task.level != "impossible"
    if not reads_record:
        return UserView(user.goal, user.profile, user.withheld_values, messages, actions, user.withheld_cues, solvable)
    outcome = score(episode)  # the checklist in force, or the rule judge: what the record would say now
    read = {m["text"]: read_statement(episode, m["text"]) for m in messages if m["from"] == "agent"}
    last = next(
        (m["text"] for m in reversed(messages) if m["from"] == "agent"), None
    )  # (a dict keeps no order of repeats)
    failing = [i.id for i in outcome.items if not i.passed]
    told = {item.id for item in checklist_for(episode.task, episode.settings) if item.tell}
    return UserView(
        user.goal,
        user.profile,
        user.withheld_values,
        messages,
        actions,
        user.withheld_cues,
        solvable,
        solvable and outcome.passed,
        outcome.passed,
        tuple(i.id for i in outcome.items if not i.passed),
        contradicted(episode),
        frozenset(text for text, (states, _) in read.items() if states),
        last is not None and read[last][1],
        solvable and bool(failing) and told.issuperset(failing),
    )


def contradicted(episode: Episode) -> tuple[str, ...]:
    """What the user's app shows against the agent's last message, when that message is the
    newest: one line per fact it states with a conflicting value ("My app shows TRK-9, not
    TRK-7."; "For Westfield, my app shows VAN-42, not VAN-41." for a fact with ``about``) and
    per operation it claims that the record shows never succeeded, by the ``tell``
    rules (``core.reports.message_mismatches``). Omissions are left to the checklist."""
    last = episode.messages[-1] if episode.messages else None
    if last is None or last["from"] != "agent":
        return ()
    lines: list[str] = []
    unclear: list[str] = []  # whose value a pronoun left open ("She is 14:30 and he is 14:00")
    found = message_mismatches(episode, last["text"])
    # a subject (or no one) with two facts of a kind wrong: told apart by the facts' names ("For
    # Halima's MRI, …", "For the first flight, …")
    shared = Counter((m.about, m.kind) for m in found if not m.mine and m.kind not in (UNCLEAR, "claim", TAKEN_BACK))
    for m in found:
        if m.kind == UNCLEAR:
            who = "mine" if m.mine else f"{m.about}'s"
            if who not in unclear:
                unclear.append(who)
            continue
        if m.kind == "claim":
            said = m.fact.removeprefix("claim ")
            line = f"My app doesn't show that: {said}."
        elif m.kind == TAKEN_BACK:  # the report taken back, no new value given
            line = f"{_for(m)} {m.expected}{' for me' if m.mine else ''}. Which is it now?"
        else:
            expected, said = m.expected, m.said or ""
            if m.kind in ("text", "person"):  # as a person says them: a place's name, the words as written
                expected = key_name(episode.task, expected)
                said = ", ".join(as_written(last["text"], s, m.kind == "person") for s in said.split(", "))
            if m.kind == "person":  # a name without its note: "Marcus Webb", not "Marcus Webb (AV, hybrid)"
                expected = plain_name(expected)
            named = m.named or shared[(m.about, m.kind)] > 1
            opening = f"For {_the(m.fact)}, my app shows" if named and not m.mine else _for(m)
            line = f"{opening} {expected}{' for me' if m.mine else ''}, not {said}"
        line += "" if line.endswith((".", "?")) else "."  # ("not 4pm.", not "not 4pm..")
        if line not in lines:
            lines.append(line)
    if unclear:  # (asked once for all of them, without the values: the app's are not given away)
        whose = " and which ".join(unclear)
        lines.append(f"Which one is {whose}? Please give each with the name.")
    return tuple(lines)


def _for(m: Mismatch) -> str:
    """How a line about a fact's value opens: "For Westfield, my app shows", or for the user's
    own fact "My app shows" (the value then "… for me"): they do not name themselves."""
    return f"For {m.about}, my app shows" if m.about and not m.mine else "My app shows"


# words that open a fact's name as a person says it ("its departure", "Halima's MRI")
_DETERMINED = frozenset({"the", "a", "an", "its", "his", "her", "their", "your", "my", "our"})


def _the(name: str) -> str:
    """A fact's name as the user says it: "the first flight" of "first flight"; "Halima's MRI",
    "its departure" as they are."""
    first = name.split(" ", 1)[0]
    if not first[:1].islower() or first in _DETERMINED or "'s" in name or "\u2019s" in name:
        return name
    return f"the {name}"


def _spellings(word: str) -> str:
    """A pattern for a word as a person may write it ("room" or "rm": ``facts.SPELLED``)."""
    forms = [word, *(short for short, full in SPELLED.items() if full == word)]
    return "(?:" + "|".join(map(re.escape, forms)) + ")"


# a name's words before a surname, as written: "Grace " of "Grace Adeyemi", "Dr " of "Dr Feld"
_NAME_BEFORE = re.compile(r"(?:(?:[A-Z][\w'\u2019-]*\.?) ){1,2}$")


def as_written(text: str, phrase: str, person: bool = False) -> str:
    """``phrase`` (words as the judge reads them: folded) as ``text`` writes it: "Kelp Wharf"
    for "kelp wharf", or "Kelp" where the text names it by its first word alone; the phrase
    itself when the text writes it otherwise (accents). ``person``: a surname with the
    capitalised words written right before it ("Grace Adeyemi", "Dr Feld")."""
    words = phrase.split()
    if not words:
        return phrase
    for said in (words, words[:1]):  # the phrase whole, or its first word ("to Kestrel": Kestrel Lane)
        found = re.search(r"(?<!\w)" + r"\W+".join(map(_spellings, said)) + r"(?!\w)", text, re.IGNORECASE)
        if found:
            before = _NAME_BEFORE.search(text[max(0, found.start() - 40) : found.start()]) if person else None
            return (before.group(0) if before else "") + found.group(0)
    return phrase


@dataclass(frozen=True)
class Attributed:
    """An action a controller hands over on someone else's behalf: a model's proposal that a
    person edited under oversight is the person's action. The runner records ``actor``."""

    action: Action
    actor: str


class Controller(Protocol):
    """Anything that can hold a seat. ``name`` is how the record names it; ``act`` may hand
    over an action on someone else's behalf (``Attributed``: an overseen model's proposal as a
    person edited it)."""

    name: str

    async def act(self, view: Any) -> Action | Attributed: ...
