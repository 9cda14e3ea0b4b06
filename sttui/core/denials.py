"""The goal denied in its own words, for the rule judge (``core.checklist``): "You won't be in
Reykjavik tonight", "Nothing will reach Ynys Fach by 14:00", "No chair for Ahmed today". A
person says a goal cannot be met this way more often than in a set phrase
(``statement_words.INFEASIBLE``). The words the rule counts are in ``core.statement_words``;
task format §5 ("The goal denied in its own words") states the rule."""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from sttui.core.statement_words import (
    AFFIRM_AFTER,
    BE_OFF,
    BY_THE_AGENT,
    DEADLINE_WORDS,
    DENIAL_FILLERS,
    DENIALS,
    GIVEN_UP,
    MISS,
    NEGATORS,
    NO_COMPOUNDS,
    NO_PROBLEM_AFTER,
    NOBODY,
    NOBODY_DID,
    NOT_AFFIRMING,
    NOT_NAMES,
    NOT_THINGS,
    TIME_WORDS,
    UNDONE,
)
from sttui.core.statements import _HEDGE_TERMS, _SENTENCE_END, Clause, Found, Term, _where, tokens

_CAPITALISED = re.compile(r"(?<![\w'-])[A-Z][\w'-]*[\w]|(?<![\w'-])[A-Z]\b")
_ID_SHAPED = re.compile(
    r"(?<![\w-])(?=[\w-]*\d)(?=[\w-]*[A-Za-z])[A-Za-z0-9]+(?:-[A-Za-z0-9]+)+(?![\w-])|\b[A-Z]{2,}\d+\b"
)
_CLOCK = re.compile(r"\b\d{1,2}:\d{2}\b")
# the denial and the goal's name within this many words of each other ("There's no generator
# that can power Maelor"; not "Meridian's authorisation expires at 09:30 and the scanner isn't free")
DENIAL_REACH = 5


@dataclass(frozen=True)
class Goal:
    """The user's goal as the rule judge reads a denial of it: its names (the words written
    with a capital letter other than to open a sentence, in the goal or the task's query, and
    the goal's ids: "Reykjavik", "KEF", "F-90"; then the goal's other words its records or
    query hold: "forum", "dinner") and when it is due (its clock times and ``DEADLINE_WORDS``)."""

    names: tuple[Term, ...]
    due: tuple[Term, ...]


def goal_of(goal: str, context: str = "", records: Iterable[str] = ()) -> Goal:
    """The :class:`Goal` of a task's goal text. What shows which of its words are names: the
    ``context`` (its query), where a capital letter that opens no sentence marks a name, and
    the ``records``' words (the task's state: "Maelor Community Hospital"), capitalised anywhere."""
    records = list(records)
    named = {m.group() for text in records for m in _CAPITALISED.finditer(text)}
    for text in (goal, context):
        for sentence in _SENTENCE_END.split(text):
            opening = len(sentence) - len(sentence.lstrip(" \t\"'(["))
            named |= {m.group() for m in _CAPITALISED.finditer(sentence) if m.start() > opening}
    words = {w.removesuffix("'s") for w in _CAPITALISED.findall(goal) if w in named}
    words |= set(_ID_SHAPED.findall(goal))
    names = [w for w in words if len(w) >= 3 and w.lower() not in NOT_NAMES]
    # and what the goal is about, in the records' or the query's own words ("the forum", "the dinner");
    # not a state or a doing ("confirmed", "opening")
    held = {t for text in (*records, context) for t in tokens(text)}
    things = {
        t
        for t in tokens(goal)
        if len(t) >= 4 and t.isalpha() and t in held and t not in NOT_THINGS and not t.endswith(("ed", "ing"))
    }
    things -= {n.lower() for n in names}
    due = [form for clock in _CLOCK.findall(goal) for form in _clock_forms(clock)] + list(DEADLINE_WORDS)
    return Goal(tuple(_possessive(w) for w in sorted(names) + sorted(things)), tuple(Term.of(d) for d in due))


def _clock_forms(clock: str) -> list[str]:
    """A goal's clock time as a person may write it: "14:00" (or "14.00"), "2pm", "2 pm", "2:30pm",
    and "noon" or "midnight"."""
    hours, minutes = (int(part) for part in clock.split(":"))
    if hours > 23 or minutes > 59:
        return [clock]
    half = "am" if hours < 12 else "pm"
    twelve = hours % 12 or 12
    at = f"{twelve}" if minutes == 0 else f"{twelve}:{minutes:02d}"
    named = {(12, 0): ["noon", "midday"], (0, 0): ["midnight"]}.get((hours, minutes), [])
    return [clock, f"{at}{half}", f"{at} {half}", *named]


def _possessive(name: str) -> Term:
    """A name's term that also finds its possessive ("Mull's")."""
    return Term(name, tuple(frozenset({t}) for t in tokens(name)))


def find_denials(clause_list: Sequence[Clause], goal: Goal, skip: Iterable[int] = ()) -> list[Found]:
    """Clauses that deny the goal in its own words: a denial (``_denies``, not of a problem:
    "with no delay"), one of the goal's names within ``DENIAL_REACH`` words of it, and when the
    goal is due, all in one clause ("Mull's not reachable today"), or nothing of when at all
    (``_timeless``: "There's no BSL interpreter for the forum"). Void as a phrase is (a
    question, a condition, a hedge), and as a double negative. ``skip``: clauses read by the
    phrases already."""
    out: list[Found] = []
    skipped = set(skip)
    due_in: set[int] | None = None  # the sentences with a clause saying when the goal is due (read once)

    def due(clause: Clause) -> bool:
        """When the goal is due, in the clause or its sentence ("All chairs are full today, so
        there's no slot for Ahmed")."""
        nonlocal due_in
        if any(d.find(clause) for d in goal.due) or _till_tomorrow(clause):
            return True
        if due_in is None:
            due_in = {c.sentence for c in clause_list if any(d.find(c) for d in goal.due)}
        return clause.sentence in due_in

    for ci, clause in enumerate(clause_list):
        if ci in skipped:
            continue
        denials = [i for i in range(len(clause)) if _denies(clause, i)]
        negs = [i for i in denials if not _of_a_problem(clause, i)]
        missed = _missed(clause, goal)
        if not negs and missed is None:
            continue
        named = sorted((i, len(n.words)) for n in goal.names for i in n.find(clause))
        rank = _counted(clause)
        near = _nearest(negs, named, rank)
        if near is None or not (due(clause) or _timeless(clause)):
            given = [i for i in negs if _given_up(clause, i)]  # (given up: whenever it was due)
            near = _nearest(given, named, rank) if given else None
            near = near or missed  # ("We'll miss 14:00": the time it is due, and no name, is enough)
            if near is None:
                continue
        neg, (at, n) = near
        start, end = min(neg, at), max(neg + 1, at + n)
        asks, condition = _where(clause)
        hedge = next((h.text for h in _HEDGE_TERMS if h.find(clause)), None)
        # a double negative ("Penrhos won't be off by 11:00"), or a problem denied before it ("there's
        # no reason Maelor won't have power"): it says the goal will be met
        twice = [
            j
            for j in denials
            if (j != neg and abs(j - neg) <= 3 and _joined(clause, j, neg)) or (j < neg and j not in negs)
        ]
        if asks:
            void: str | None = "a question"
        elif condition is not None:
            void = f"hypothetical ('{condition}')"
        elif hedge is not None:
            void = f"hedged by '{hedge}'"
        elif twice:
            void = f"a double negative ('{clause[min(twice[0], neg)]} … {clause[max(twice[0], neg)]}')"
        else:
            void = None
        out.append(Found(ci, " ".join(clause[start:end]), void, start))
    return out


# what may stand between the two denials of a double negative ("won't be off", "won't stay
# dark", "isn't no…"); a thing named between is two denials of two things ("no ferries, no blood")
_DOUBLE_LINKS = frozenset(
    {"be", "been", "being", "stay", "stays", "remain", "remains", "go", "going", "get", "have", "is", "are", "was",
     "were", "to", "a", "any", "just", "really", "still", "actually"}
)  # fmt: skip


def _joined(clause: Sequence[str], a: int, b: int) -> bool:
    """Whether only linking words (``_DOUBLE_LINKS``) stand between the denials at ``a`` and ``b``."""
    lo, hi = min(a, b), max(a, b)
    return all(t in _DOUBLE_LINKS for t in clause[lo + 1 : hi])


def _counted(clause: Sequence[str]) -> list[int]:
    """Each word's place in the clause counting no ``DENIAL_FILLERS`` (nor *at all*) before it:
    how far a denial is from a name."""
    n = len(clause)
    counts = (
        t not in DENIAL_FILLERS
        and not (t == "at" and i + 1 < n and clause[i + 1] == "all")
        and not (t == "all" and i and clause[i - 1] == "at")
        for i, t in enumerate(clause)
    )
    return list(itertools.accumulate(counts, initial=0))[:-1]


def _nearest(
    negs: list[int], named: list[tuple[int, int]], rank: Sequence[int] | None = None
) -> tuple[int, tuple[int, int]] | None:
    """The denial and the name nearest each other, within ``DENIAL_REACH`` (the first such pair
    in the clause on a tie), or None; ``rank``: the words' places as counted (``_counted``).
    Each name looks at the denials either side of it only: a hostile clause of thousands of
    both stays linear."""
    best: tuple[int, int, tuple[int, int]] | None = None
    for i, n in named:
        k = bisect.bisect_left(negs, i)
        for j in negs[max(0, k - 1) : k + 1]:
            gap = abs(rank[i] - rank[j]) if rank is not None else abs(i - j)
            if gap <= DENIAL_REACH and (best is None or (gap, j) < best[:2]):
                best = (gap, j, (i, n))
    return None if best is None else (best[1], best[2])


def _denies(clause: Sequence[str], at: int) -> bool:
    """A denial of what can or will be (``DENIALS``; *nobody*, but not before what was done:
    ``NOBODY_DID``), *miss* ("Professor Vance misses the dinner tonight"), or *off* or *dark*
    after a *be* ("Adaeze's evening is off tonight", "F-90 stays off", "Maelor stays dark"); not
    right after the agent's own *I* or *we* (but *won't get, have, make, restore*: "we won't
    get Maelor back on by 12:00"), nor a compound of *no* ("a no-brainer", "a no-show":
    ``NO_COMPOUNDS``)."""
    t = clause[at]
    if at > 0 and clause[at - 1] in BY_THE_AGENT:
        # the agent's own: "I'm not sure", "we won't know"; but "we won't get Maelor back on by
        # 12:00" says what the goal needs will not be done
        return t in ("won't", "wont") and clause[at + 1 : at + 2] in (["get"], ["have"], ["make"], ["restore"])
    if t == "no" and at + 1 < len(clause) and clause[at + 1] in NO_COMPOUNDS:
        return False  # ("keeping the dinner tonight is a no-brainer")
    if t in DENIALS or t in MISS or _given_up(clause, at):
        return True
    if t in NOBODY:  # of what can be, not of what was done: not "nobody has replied", "nobody answered"
        after = clause[at + 1] if at + 1 < len(clause) else ""
        return after not in NOBODY_DID and not after.endswith("ed")
    return t in ("off", "dark") and at > 0 and (clause[at - 1] in BE_OFF or clause[at - 1].endswith("'s"))


_DEADLINE = Term.of("deadline")
_WHOSE = frozenset({"the", "your", "our", "their", "its"})


def _missed(clause: Sequence[str], goal: Goal) -> tuple[int, tuple[int, int]] | None:
    """*Miss* right before when the goal is due or its deadline ("We'll miss 14:00", "we're
    going to miss the deadline", "we'll miss today's slot"), whoever says it: the goal
    denied with no name needed; not after a negation ("we won't miss 14:00"). (The denial and
    what it denies, as ``_nearest`` gives them.)"""
    plain: list[str] | None = None  # (a possessive as its word: "miss today's slot")
    for i, t in enumerate(clause):
        if t not in MISS or any(w in NEGATORS or w.endswith("n't") for w in clause[max(0, i - 3) : i]):
            continue  # ("we won't miss 14:00": it will be met)
        j = i + 1 + (clause[i + 1 : i + 2] != [] and clause[i + 1] in _WHOSE)
        plain = plain or [w.removesuffix("'s") for w in clause]
        for term in (*goal.due, _DEADLINE):
            if j in term.find(plain):
                return i, (j, len(term.words))
    return None


def _timeless(clause: Sequence[str]) -> bool:
    """Whether a clause says nothing of when (no ``TIME_WORDS``, no hour): a denial there is of
    the goal whenever it is due ("There's no BSL interpreter for the forum"), not of a moment
    ("no interpreter free right now", "nothing until 15:00")."""
    return not any(t in TIME_WORDS or t.isdigit() or _HOUR.fullmatch(t) for t in clause)


_HOUR = re.compile(r"\d{1,2}(?:[:.]\d{2})?(?:am|pm)")


def _till_tomorrow(clause: Sequence[str]) -> bool:
    """*until*, *till* or *til* before *tomorrow*: all of the day the goal is due ("Ynys Fach
    stays off till tomorrow")."""
    return any(a in ("until", "till", "til") and b in ("tomorrow", "tomorrow's") for a, b in itertools.pairwise(clause))


def _given_up(clause: Sequence[str], at: int) -> bool:
    """*Cancelled, postponed, called off…* (``GIVEN_UP``) after *have/has/need(s) to be*: the
    goal given up whenever it was due ("the plenary will have to be cancelled"), when it is the
    goal's name that is near (not "your old booking will have to be cancelled first")."""
    return (
        clause[at] in GIVEN_UP
        and at >= 3
        and clause[at - 1] == "be"
        and clause[at - 2] == "to"
        and clause[at - 3] in ("have", "has", "need", "needs")
        and (clause[at] != "called" or clause[at + 1 : at + 2] == ["off"])
    )


def _of_a_problem(clause: Sequence[str], at: int) -> bool:
    """Whether the denial at ``at`` is of a problem or of what the agent knows
    (``NO_PROBLEM_AFTER`` in the three words after it: "no delay", "no news"), or of work not
    done or heard of yet (``UNDONE`` in the two after it: "isn't confirmed", "not heard")."""
    after = clause[at + 1 : at + 4]
    return any(t in NO_PROBLEM_AFTER for t in after) or any(t in UNDONE for t in after[:2])


def find_affirmations(clause_list: Sequence[Clause], goal: Goal, skip: Iterable[int] = ()) -> list[Found]:
    """Clauses that say the goal is met after all, in its own words: one of the goal's names and
    when it is due, after a contrast or a way round in the same sentence (``AFFIRM_AFTER``: *but,
    however, instead*, …; or *after all*), with no denial, no phrase (``skip``) and nothing that
    makes it a need, a might-have-been or a problem (``NOT_AFFIRMING``); not in a question,
    hypothetical or hedged.
    The rule judge counts one as a claim that the goal was met: "GEN-41 can't be used, so I sent
    GEN-44 instead: Maelor has power by 12:00" states nothing that cannot be done."""
    out: list[Found] = []
    skipped = set(skip)
    marked: set[int] = set()  # sentences in which a contrast has been met, so far
    for ci, clause in enumerate(clause_list):
        if clause.turn in AFFIRM_AFTER or any(t in AFFIRM_AFTER for t in clause) or _after_all(clause):
            marked.add(clause.sentence)
        if ci in skipped or clause.sentence not in marked or clause.question or clause.condition is not None:
            continue
        if any(t in NEGATORS or t in DENIALS or t in MISS or t.endswith("n't") or t in NOT_AFFIRMING for t in clause):
            continue
        if any(h.find(clause) for h in _HEDGE_TERMS):
            continue
        named = [(i, i + len(n.words)) for n in goal.names for i in n.find(clause)]
        due = [(i, i + len(d.words)) for d in goal.due for i in d.find(clause)]
        if named and due:  # (quoted from the first of them to the last)
            start, end = min(a for a, _ in named + due), max(b for _, b in named + due)
            out.append(Found(ci, " ".join(clause[start:end]), None, start))
    return out


def _after_all(clause: Sequence[str]) -> bool:
    return any(a == "after" and b == "all" for a, b in itertools.pairwise(clause))
