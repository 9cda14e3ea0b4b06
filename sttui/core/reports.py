"""What the agent told the user, checked against the state and the record.

A ``tell`` checklist item lists facts the user must be told (task format §5). Each fact is
judged by visible rules a person can apply by hand (``RULE_TELL``):

- **Which message counts.** The last agent message that states a value of the fact's kind:
  a later report supersedes an earlier one (a corrected report passes, a report later
  contradicted fails), and a closing "anything else?" that states no such value does not
  erase the report before it.
- **Stated.** That message states the expected value, written any common way (``core.facts``).
- **Conflict.** That message states only other values of the kind: another id of the same
  table (``TRK-7`` when ``TRK-9`` is expected), another time or date (values the user's own
  request gives, and the item's other facts, are not counted), another name of the same list.
  Stating the expected value anywhere in the message is enough: a report may name what
  failed ("TRK-7's unit failed, so it went on TRK-9").
- **Claims.** An agent message that claims, in the first person or to "you", an operation that
  the record shows never succeeded fails every ``tell`` item: a past form of an operation
  tool's verb (``I have rebooked you on LH401``, ``you're booked on BA582``) in a clause that is
  not a question, not negated and not conditional, naming known ids none of which a
  successful call of a tool with that verb names (``RULE_CLAIMS``).
"""

from __future__ import annotations

import functools
import re
import weakref
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sttui.core import events as ev
from sttui.core import facts, statements
from sttui.core import state as st
from sttui.core.caches import evict_oldest
from sttui.core.expect import is_records

if TYPE_CHECKING:
    from sttui.core.episode import Episode
    from sttui.core.task import ChecklistItem, Fact

RULE_TELL = (
    "the last agent message stating a value of a fact's kind decides: it passes when it states the expected "
    "value, however written (trk9, truck 9; 9.30am, half past nine), and conflicts when it states only "
    "other ones (another id of the table, another time not from the user's request)"
)
RULE_CLAIMS = "I/we/you + a past operation verb (rebooked, assigned…) on ids no successful call of it names fails"


@dataclass(frozen=True)
class Mismatch:
    """One thing a report got wrong: a fact stated with a conflicting value (``said``), or
    never stated (``said`` None), or an unsupported claim (``kind`` "claim")."""

    fact: str
    expected: str
    said: str | None
    seq: int | None
    kind: str


@dataclass(frozen=True)
class _Msg:
    seq: int | None
    text: str


def agent_messages(episode: Episode) -> list[_Msg]:
    """The agent's messages to the user, in order, with their event numbers when recorded.
    Read incrementally (only the events since the last call): the scripted user and the live
    checklist ask after every step, and a rescan would make a long episode's steps quadratic."""
    if not episode.events:
        return [_Msg(None, m["text"]) for m in episode.messages if m.get("from") == "agent"]
    seen = _MESSAGES.get(episode)
    events = episode.events
    if seen is None or seen[0] is not events or seen[1] > len(events):
        seen = _MESSAGES[episode] = (events, 0, [])
    _, start, msgs = seen
    msgs.extend(
        _Msg(e.seq, e.payload["text"])
        for e in events[start:]
        if e.type == ev.MESSAGE and e.payload.get("from") == "agent"
    )
    _MESSAGES[episode] = (events, len(events), msgs)
    return list(msgs)


# (sig, text) -> the values of a kind the text states (see ``Resolved.found``)
_FOUND: dict[tuple[Any, str], list[facts.Found]] = {}

# -- facts as of the current state ---------------------------------------------------------


@dataclass
class Resolved:
    """A fact read from the current state: its kind, the expected value, how it is shown, and
    how values of its kind are found in text; ``problem`` when it cannot be read."""

    name: str
    kind: str
    expected: Any = None
    shown: str = ""
    problem: str | None = None
    rivals: list[Any] = field(default_factory=list)  # ids, surnames or phrases of the same list
    excused: list[Any] = field(default_factory=list)  # times or dates not counted against it
    _ids: facts.IdMatcher | None = None
    sig: Any = None  # what ``found`` depends on besides the text (equal across state versions)

    def found(self, text: str) -> list[facts.Found]:
        """The values of the fact's kind that ``text`` states. Remembered by (``sig``, text): the
        fact is resolved anew at each change of state, and the last report is looked for after
        every step, so without it a long episode would read its every message again and again."""
        key = (self.sig, text)
        hit = _FOUND.get(key)
        if hit is None:
            hit = _FOUND[key] = self._find(text)
            evict_oldest(_FOUND, 20_000)
        return hit

    def _find(self, text: str) -> list[facts.Found]:
        if self.kind == "id":
            return self._ids.find(text) if self._ids is not None else []
        if self.kind == "time":
            return facts.find_times(text)
        if self.kind == "date":
            return facts.find_dates(text)
        ws = facts.words(text)
        if self.kind == "person":
            return [facts.Found(frozenset({r}), r) for r in self.rivals if r in ws]
        return [facts.Found(frozenset({" ".join(r)}), " ".join(r)) for r in self.rivals if facts.phrase_in(r, ws)]

    def matches(self, f: facts.Found) -> bool:
        if self.kind == "date":
            return any(facts.same_date(v, self.expected) for v in f.values)
        if self.kind == "text":
            return " ".join(self.expected) in f.values
        return self.expected in f.values

    def excuses(self, f: facts.Found) -> bool:
        if self.kind == "date":
            return any(facts.same_date(v, x) for v in f.values for x in self.excused)
        return bool(f.values & set(self.excused))


def read_fact(value: Any, kind: str) -> tuple[Any, str] | None:
    """(comparable value, as shown) of a state or literal value of ``kind``, or None."""
    if value is None or isinstance(value, dict | list | bool):
        return None
    if kind == "time":
        t = facts.time_of(value)
        return None if t is None else (t, facts.show_time(t))
    if kind == "date":
        d = facts.date_of(value)
        return None if d is None else (d, facts.show_date(d))
    text = str(value)
    if kind == "id":
        c = facts.canon_id(text)
        return (c, text) if c else None
    if kind == "person":
        s = facts.surname(text)
        return (s, text) if s else None
    ws = facts.words(text)
    return (ws, text) if ws else None


def _walk(state: Any, holds: Any, depth: int = 4) -> Iterator[dict[str, Any]]:
    if not isinstance(state, dict) or depth == 0:
        return
    if holds(state):
        yield state
    for v in state.values():
        if isinstance(v, dict):
            yield from _walk(v, holds, depth - 1)


def _tables(state: Any, value: str, kept: _Kept | None = None) -> list[dict[str, Any]]:
    """Mappings in ``state`` (four levels deep) with ``value`` as a key: written exactly, or
    else of the same canonical form (a literal ``trk9`` finds ``vehicles``' ``TRK-9``).
    ``kept``: what was found under each top-level key, kept while its value is unchanged."""
    found = _tables_by(state, value, False, kept)
    if found:
        return found
    return _tables_by(state, value, True, kept)


def _tables_by(state: Any, value: str, canon: bool, kept: _Kept | None) -> list[dict[str, Any]]:
    if canon:
        key = facts.canon_id(value)

        def holds(d: dict[Any, Any]) -> bool:
            return any(isinstance(k, str) and facts.canon_id(k) == key for k in d)
    else:

        def holds(d: dict[Any, Any]) -> bool:
            return value in d

    if kept is None or not isinstance(state, dict):
        return list(_walk(state, holds))
    # ``_walk``'s order: the state itself, then under each top-level key in turn
    out = [state] if holds(state) else []
    for k, v in state.items():
        if isinstance(v, dict):
            out += kept.under(k, v, canon, value, holds)
    return out


class _Kept:
    """The mappings found under each top-level key of an episode's state (``_tables``), kept
    while the engine has seen no change under that key (``Episode._key_versions``) and the
    value there is the same object: a ``tell`` fact is resolved again after every change of
    state, and most changes leave most of the state as it was. (Like the engine's own record of
    change, this sees values, not the order of keys: a mapping only reordered is no change.)
    Under a key unchanged since an episode began at the task's initial state, the mappings are
    found where they were found in that state (``_INITIAL_FOUND``), for every episode of the task."""

    def __init__(self, episode: Episode):
        self.versions: dict[Any, int] = episode._key_versions
        self.found: dict[tuple[Any, bool, str], tuple[int, Any, list[dict[str, Any]]]] = {}
        # every mapping under a key (``_walk``'s order), read once per change of it: each value
        # looked for there is then a filter over them, not a walk of its own
        self.nodes: dict[Any, tuple[int, Any, list[dict[str, Any]]]] = {}
        self.task = episode.task
        self.initial = _initial_found(episode.task) if episode._from_initial else None

    def under(self, key: Any, value: dict[Any, Any], canon: bool, looked: str, holds: Any) -> list[dict[str, Any]]:
        at = (key, canon, looked)
        version = self.versions.get(key, 0)
        hit = self.found.get(at)
        if hit is not None and hit[0] == version and hit[1] is value:
            return hit[2]
        if self.initial is not None and key not in self.versions:  # as it began: where it was found then
            paths = self.initial.get(at)
            if paths is None:
                paths = self.initial[at] = [p for p, _ in _walk_paths(self.task.initial_state[key], holds, 3, ())]
                while len(self.initial) > 4096:
                    self.initial.pop(next(iter(self.initial)))
            found = [_follow(value, p) for p in paths]
        else:
            found = [d for d in self._nodes(key, value, version) if holds(d)]
        self.found[at] = (version, value, found)  # (the value held: ``is`` compares this object)
        while len(self.found) > 4096:
            self.found.pop(next(iter(self.found)))
        return found

    def _nodes(self, key: Any, value: dict[Any, Any], version: int) -> list[dict[str, Any]]:
        hit = self.nodes.get(key)
        if hit is not None and hit[0] == version and hit[1] is value:
            return hit[2]
        nodes = list(_walk(value, _every, 3))
        self.nodes[key] = (version, value, nodes)
        while len(self.nodes) > 4096:
            self.nodes.pop(next(iter(self.nodes)))
        return nodes


def _every(_: Any) -> bool:
    return True


def _walk_paths(state: Any, holds: Any, depth: int, path: tuple[Any, ...]) -> Iterator[tuple[tuple[Any, ...], Any]]:
    """``_walk`` with the keys that lead to each mapping."""
    if not isinstance(state, dict) or depth == 0:
        return
    if holds(state):
        yield path, state
    for k, v in state.items():
        if isinstance(v, dict):
            yield from _walk_paths(v, holds, depth - 1, (*path, k))


def _follow(value: Any, path: tuple[Any, ...]) -> Any:
    for k in path:
        value = value[k]
    return value


# per task (held, so the id it is filed under stays its own): (top-level key, canonical?, value
# looked for) -> the key paths of the mappings ``_tables`` finds under that key of its initial
# state; every episode that begins there finds them at the same places while the key is unchanged
_INITIAL_FOUND: dict[int, tuple[Any, dict[tuple[Any, bool, str], list[tuple[Any, ...]]]]] = {}


def _initial_found(task: Any) -> dict[tuple[Any, bool, str], list[tuple[Any, ...]]]:
    found = _INITIAL_FOUND.get(id(task))
    if found is None or found[0] is not task:
        found = _INITIAL_FOUND[id(task)] = (task, {})
        evict_oldest(_INITIAL_FOUND, 256)
    return found[1]


def _named_record(state: Any, value: str, kept: _Kept | None = None) -> tuple[str, list[str]] | None:
    """When ``value`` is the key of a record with a ``name`` (a clinician's id): its name and
    the names of the records beside it."""
    for table in _tables(state, value, kept):
        if is_records(table):
            for k, rec in table.items():
                if facts.canon_id(k) == facts.canon_id(value) and isinstance(rec.get("name"), str):
                    return rec["name"], [r["name"] for r in table.values() if isinstance(r.get("name"), str)]
    return None


def _record_of(state: Any, value: Any, kept: _Kept | None = None) -> dict[str, Any] | None:
    """The record whose key is ``value`` (an id) in a mapping of records of the state."""
    if not isinstance(value, str) or not facts.canon_id(value):
        return None
    key = facts.canon_id(value)
    for table in _tables(state, value, kept):
        if is_records(table):
            for k, rec in table.items():
                if facts.canon_id(k) == key:
                    return rec
    return None


def _siblings(state: Any, path: str) -> list[Any]:
    """The same field of the records beside the fact's record (``shipments.*.vehicle`` for
    ``shipments.SHP-1.vehicle``)."""
    parts = st.split(path)
    if len(parts) < 3:
        return []
    table = st.lookup(state, ".".join(parts[:-2]), None)
    if not is_records(table):
        return []
    return [r[parts[-1]] for r in table.values() if r.get(parts[-1]) is not None]


def resolve(fact: Fact, state: Any, task_words: str, kept: _Kept | None = None) -> Resolved:
    """The fact as of ``state``: its value from its path (or literal), its kind, its rivals.
    ``kept``: the episode's mappings found so far (``_Kept``), for a state the engine tracks."""
    raw = fact.value if fact.path is None else st.lookup(state, fact.path, None)
    where = f"{fact.path}" if fact.path is not None else "its value"
    if fact.path is not None:
        gone = st.missing(state, fact.path)
        if gone is not None:
            return Resolved(fact.fact, fact.kind or "text", problem=f"{fact.path}: {gone}")
    siblings = _siblings(state, fact.path) if fact.path is not None else []
    if fact.field is not None:
        record = _record_of(state, raw, kept)
        if record is None or fact.field not in record:
            what = "no record" if record is None else f"no field '{fact.field}' in the record"
            return Resolved(fact.fact, fact.kind or "text", problem=f"{where} holds {raw!r}: {what}")
        raw, siblings = record[fact.field], []
    kind = fact.kind or facts.infer_kind(raw)
    if kind == "person" and isinstance(raw, str) and fact.path is not None:
        named = _named_record(state, raw, kept)
        if named is not None:
            raw, siblings = named[0], named[1] + siblings
    got = read_fact(raw, kind)
    if got is None:
        return Resolved(
            fact.fact, kind, problem=f"{where} holds {raw!r}, not {'an' if kind[0] in 'aeiou' else 'a'} {kind}"
        )
    expected, shown = got
    out = Resolved(fact.fact, kind, expected, shown, sig=(kind,))
    if kind == "id":
        rivals = {expected}
        for table in _tables(state, str(raw), kept):
            rivals |= {facts.canon_id(k) for k in table if isinstance(k, str)}
        rivals |= {facts.canon_id(str(s)) for s in siblings if isinstance(s, str)}
        out.rivals = sorted(r for r in rivals if r)
        out._ids = facts.IdMatcher(out.rivals, fact.aliases)
        out.sig = (kind, tuple(out.rivals), tuple(sorted(fact.aliases.items())))
    elif kind in ("person", "text"):
        if kind == "text" and isinstance(raw, str):  # a key of a table (a site): the other keys
            siblings = siblings + [k for t in _tables(state, raw, kept) for k in t if isinstance(k, str)]
        read = [read_fact(s, kind) for s in siblings]
        listed = [expected] + [r[0] for r in read if r is not None and r[0] != expected]
        out.rivals = [r for i, r in enumerate(listed) if r not in listed[:i]]
        out.sig = (kind, repr(out.rivals))
    else:
        out.excused = list(_excused(kind, task_words))
    return out


@functools.lru_cache(maxsize=1024)
def _excused(kind: str, task_words: str) -> tuple[Any, ...]:
    """The times (or dates) the user's own request states: the same for every fact and state
    of a task, so read once."""
    finder = facts.find_times if kind == "time" else facts.find_dates
    return tuple(v for f in finder(task_words) for v in f.values)


# -- judging one fact ---------------------------------------------------------------------


@dataclass(frozen=True)
class Told:
    """How a fact fared: ``ok``, the message that decided it (None: never stated) and what it
    said (the expected value as written, or the conflicting values)."""

    ok: bool
    seq: int | None
    said: str | None
    at: int | None = None  # the deciding message's index among the agent's messages


def states(fact: Resolved, text: str, others: Iterable[Resolved] = ()) -> tuple[bool, list[str]] | None:
    """What one message says of a fact: None when it states no value of the fact's kind, else
    (states the expected value, the other values it states as written)."""
    found = fact.found(text)
    if not found:
        return None
    if any(fact.matches(f) for f in found):
        return True, []
    theirs = [o for o in others if o.kind == fact.kind and o.problem is None and o is not fact]
    rivals = [f for f in found if not fact.excuses(f) and not any(o.matches(f) for o in theirs)]
    if not rivals:
        return None
    return False, list(dict.fromkeys(f.written for f in rivals))


def judge_fact(fact: Resolved, messages: list[_Msg], others: Iterable[Resolved] = ()) -> Told:
    others = list(others)
    for i in range(len(messages) - 1, -1, -1):
        said = states(fact, messages[i].text, others)
        if said is None:
            continue
        ok, rivals = said
        return Told(ok, messages[i].seq, fact.shown if ok else ", ".join(rivals), i)
    return Told(False, None, None)


# -- claims ----------------------------------------------------------------------------

_SUBJECTS = frozenset({"i", "i've", "i'd", "we", "we've", "you", "you're", "you've", "you'd"})
_CONDITIONAL = frozenset(
    {"if", "unless", "once", "would", "could", "should", "might", "will", "shall", "whether", "can", "cannot", "may"}
)
_IRREGULAR = {"send": ("sent",), "hold": ("held",), "make": ("made",), "put": ("put",), "set": ("set",),
              "give": ("gave", "given"), "take": ("took", "taken"), "get": ("got", "gotten"), "pay": ("paid",),
              "buy": ("bought",), "find": ("found",), "leave": ("left",), "run": ("ran",)}  # fmt: skip
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")


def past_forms(verb: str) -> set[str]:
    """The past forms of a verb a report might use: regular -ed/-d/-ied, a doubled final
    consonant (cancelled, planned), the common irregular ones."""
    out = set(_IRREGULAR.get(verb, ()))
    if verb.endswith("e"):
        out.add(verb + "d")
    elif verb.endswith("y") and len(verb) > 2 and verb[-2] not in "aeiou":
        out.add(verb[:-1] + "ied")
    else:
        out.add(verb + "ed")
        if verb[-1] not in "aeiouwxy":
            out.add(verb + verb[-1] + "ed")
    return out


def claim_verbs(tools: dict[str, Any]) -> dict[str, set[str]]:
    """Past form -> the operation tools it claims (the verb is the tool name's first word,
    with or without a "re": "booked" claims book_flight and rebook)."""
    out: dict[str, set[str]] = {}
    for name, spec in tools.items():
        if getattr(spec, "kind", "operation") != "operation":
            continue
        verb = name.split("_", 1)[0].lower()
        stems = {verb, "re" + verb} | ({verb[2:]} if verb.startswith("re") and len(verb) > 4 else set())
        for stem in stems:
            for form in past_forms(stem):
                out.setdefault(form, set()).add(name)
    return out


def _claim_verbs_of(tools: dict[str, Any]) -> _Verbs:
    """:func:`claim_verbs`, made once per set of tool names and kinds (every episode of a task
    would otherwise make it again); shared: read it, never change it."""
    return _claim_verbs_cached(tuple((name, getattr(spec, "kind", "operation")) for name, spec in tools.items()))


@functools.lru_cache(maxsize=256)
def _claim_verbs_cached(named: tuple[tuple[str, Any], ...]) -> _Verbs:
    return _Verbs(claim_verbs({name: _Kind(kind) for name, kind in named}))


class _Verbs(dict[str, set[str]]):
    """Claim verbs (past form -> tools), with what each message text was read to claim in
    their terms (``_candidates``): shared by every episode with the same tools."""

    def __init__(self, verbs: dict[str, set[str]]):
        super().__init__(verbs)
        self.clauses: dict[str, list[tuple[list[str], set[str]]]] = {}


@dataclass(frozen=True)
class _Kind:
    kind: Any


def _ids_in(value: Any, out: set[str]) -> set[str]:
    """The canonical ids among the strings in ``value`` (keys included, at any depth), added to
    ``out``. A loop over a stack, not a call per value: every result the agent is shown is read."""
    stack = [value]
    pop, push, add = stack.pop, stack.append, out.add
    while stack:
        v = pop()
        if isinstance(v, str):
            c = _canon_if_id(v)
            if c is not None:
                add(c)
        elif isinstance(v, dict):
            push(list(v))
            push(list(v.values()))
        elif isinstance(v, list | tuple):
            stack.extend(v)
    return out


@functools.lru_cache(maxsize=65536)
def _canon_if_id(text: str) -> str | None:
    return facts.canon_id(text) if facts.is_id(text) else None


_INITIAL_IDS: dict[int, tuple[Any, frozenset[str]]] = {}


def _initial_ids(task: Any) -> frozenset[str]:
    """The ids in a task's initial state, read once per task (the task is held, so the id it
    is filed under stays its own)."""
    found = _INITIAL_IDS.get(id(task))
    if found is None or found[0] is not task:
        found = _INITIAL_IDS[id(task)] = (task, frozenset(_ids_in(task.initial_state, set())))
        evict_oldest(_INITIAL_IDS, 256)
    return found[1]


class _Record:
    """What the record shows, brought up to date (:meth:`update`) only when a message claims
    something: ids known (the state's at the start, and every call's), and the ids each
    successful operation named. Reading every call's arguments and result is most of what a
    ``tell`` item costs, and most reports claim nothing (``_candidates``)."""

    def __init__(self, episode: Episode):
        self.known: set[str] = set(_initial_ids(episode.task))
        self.done: dict[str, set[str]] = {}  # tool -> ids a successful call of it named
        self.seen = 0  # view items read
        self.verbs = _claim_verbs_of(episode.tools)
        self.words = f"{episode.task.query}\n{episode.task.user.goal}"
        self.matcher: facts.IdMatcher | None = None
        self.version: Any = None
        self.parsed: dict[str, list[tuple[str, set[str], set[object]]]] = {}  # message text -> its claims
        self.clauses = self.verbs.clauses  # message text -> its claiming clauses
        self.support = 0  # moves on whenever what the record supports may have changed
        self.unsupported: tuple[int, int, list[Mismatch]] = (-1, 0, [])  # (support, messages read, claims)
        self.facts: dict[tuple[str, int], Resolved] = {}
        self.kept = _Kept(episode) if hasattr(episode, "_key_versions") else None  # (an engine episode)
        # the alias words of the tell facts ("crew 8" names CREW-8 in a claim too)
        self.aliases: dict[str, str] = {
            w: p for item in _tell_items(episode) for fact in item.tell or [] for w, p in fact.aliases.items()
        }

    def update(self, episode: Episode) -> None:
        view = episode.view
        args: dict[str, Any] = {}
        grew = False
        for item in view[self.seen :]:
            if item.get("type") == "tool_call":
                args[item.get("id", "")] = item.get("args")
                grew = True
            elif item.get("type") == "tool_result":
                named = _ids_in(args.get(item.get("id", ""), {}), set()) | _ids_in(item.get("result"), set())
                self.known |= named
                result = item.get("result")
                tool = item.get("tool", "")
                spec = episode.tools.get(tool)
                if isinstance(result, dict) and result.get("success") and getattr(spec, "kind", "") == "operation":
                    done = self.done.setdefault(tool, set())
                    if not named <= done:
                        done.update(named)
                        self.support += 1
        self.seen = len(view)
        if self.matcher is None or (grew and len(self.known) != len(self.matcher.ids)):
            self.matcher = facts.IdMatcher(self.known, self.aliases)
            self.parsed.clear()
            self.support += 1


_RECORDS: weakref.WeakKeyDictionary[Any, _Record] = weakref.WeakKeyDictionary()
# per episode: (its events list, how many of them were read, the agent messages among them)
_MESSAGES: weakref.WeakKeyDictionary[Any, tuple[list[Any], int, list[_Msg]]] = weakref.WeakKeyDictionary()


def _record(episode: Episode) -> _Record:
    """The episode's record, as last brought up to date (:func:`_synced` reads what is new)."""
    rec = _RECORDS.get(episode)
    if rec is None:
        rec = _RECORDS[episode] = _Record(episode)
    return rec


def _synced(episode: Episode) -> _Record:
    rec = _record(episode)
    rec.update(episode)
    return rec


def _candidates(rec: _Record, text: str) -> list[tuple[list[str], set[str]]]:
    """The clauses of a message that claim an operation, before any id is looked for in them:
    (the clause's words, the tools claimed). A function of the text and the tools' verbs only,
    so read once per text and set of tools; a message with none claims nothing, whatever the
    record holds."""
    found = rec.clauses.get(text)
    if found is not None:
        return found
    out: list[tuple[list[str], set[str]]] = []
    for sentence in _SENTENCE.split(facts.fold(text)):
        if not sentence.strip() or sentence.strip().endswith("?"):
            continue
        for clause in statements.clauses(sentence):
            verbs = [(i, rec.verbs[t]) for i, t in enumerate(clause) if t in rec.verbs]
            if not verbs or any(t in _CONDITIONAL or t.endswith("'ll") for t in clause):
                continue
            claimed: set[str] = set()
            for at, tools in verbs:
                if not any(t in _SUBJECTS for t in clause[:at]) or statements._negated(clause, at):
                    continue
                claimed |= tools
            if claimed:
                out.append((clause, claimed))
    rec.clauses[text] = out
    while len(rec.clauses) > 4096:
        rec.clauses.pop(next(iter(rec.clauses)))
    return out


def _claimed(rec: _Record, text: str) -> list[tuple[str, set[str], set[object]]]:
    """The clauses of a message that claim an operation: (words, tools claimed, ids named)."""
    assert rec.matcher is not None
    out = []
    for clause, claimed in _candidates(rec, text):
        ids = {v for f in rec.matcher.find(" ".join(clause)) for v in f.values}
        if ids:
            out.append((" ".join(clause), claimed, ids))
    return out


def claims(episode: Episode, text: str, seq: int | None = None) -> list[Mismatch]:
    """The unsupported claims of one agent message (``RULE_CLAIMS``). What a message claims is
    read once while the known ids stay the same; only the record's support is checked again.
    A message with no claiming clause is answered without reading the record."""
    if not _candidates(_record(episode), text):
        return []
    return _unsupported(_synced(episode), text, seq)


def all_claims(episode: Episode, messages: list[_Msg]) -> list[Mismatch]:
    """The unsupported claims of all ``messages`` (the agent's, in order): only the messages
    new since the last call are read while the record's support stays the same, so asking after
    every step of a long episode does not read its every message again. While no message has a
    claiming clause there is none, and the record is not read."""
    rec = _record(episode)
    if not any(_candidates(rec, m.text) for m in messages):
        return []
    rec.update(episode)
    support, read, found = rec.unsupported
    if support != rec.support or read > len(messages):
        read, found = 0, []
    found = found + [c for m in messages[read:] for c in _unsupported(rec, m.text, m.seq)]
    rec.unsupported = (rec.support, len(messages), found)
    return list(found)


def _unsupported(rec: _Record, text: str, seq: int | None) -> list[Mismatch]:
    found = rec.parsed.get(text)
    if found is None:
        found = rec.parsed[text] = _claimed(rec, text)
        while len(rec.parsed) > 4096:
            rec.parsed.pop(next(iter(rec.parsed)))
    out: list[Mismatch] = []
    for words, claimed, ids in found:
        if any(ids & rec.done.get(tool, set()) for tool in claimed):
            continue
        shown = ", ".join(sorted(map(str, ids)))
        out.append(
            Mismatch(
                f"claim '{words if len(words) <= 80 else words[:79] + '…'}'",
                f"a successful {' or '.join(sorted(claimed))} call naming {shown}",
                None,
                seq,
                "claim",
            )
        )
    return out


# -- the checklist item and the public checks ----------------------------------------------


def _tell_items(episode: Episode) -> list[ChecklistItem]:
    from sttui.core.checklist import checklist_for

    return [item for item in checklist_for(episode.task, episode.settings) if item.tell]


def resolved_facts(episode: Episode, item: ChecklistItem) -> list[Resolved]:
    """The item's facts as of the current state (recomputed only when the state changed)."""
    rec = _record(episode)
    version = (getattr(episode, "_state_version", None), id(episode.env.state))
    if rec.version != version or version[0] is None:
        rec.facts.clear()
        rec.version = version
    out = []
    for i, fact in enumerate(item.tell or []):
        key = (item.id, i)
        found = rec.facts.get(key)
        if found is None:
            found = rec.facts[key] = resolve(fact, episode.env.state, rec.words, rec.kept)
        out.append(found)
    return out


def _all_facts(episode: Episode) -> list[tuple[ChecklistItem, list[Resolved]]]:
    return [(item, resolved_facts(episode, item)) for item in _tell_items(episode)]


def evaluate_tell(episode: Episode, item: ChecklistItem) -> tuple[bool, str]:
    """(passed, detail) of a ``tell`` item: every fact told (``RULE_TELL``), no unsupported
    claim (``RULE_CLAIMS``). The detail names each fact, the value expected and what was said."""
    messages = agent_messages(episode)
    resolved = [r for _, rs in _all_facts(episode) for r in rs]
    parts: list[str] = []
    ok = True
    unread: list[Resolved] = []
    for fact in resolved_facts(episode, item):
        if fact.problem is not None:
            ok = False
            unread.append(fact)
            continue
        told = judge_fact(fact, messages, resolved)
        where = f"message {told.seq}" if told.seq is not None else f"agent message {(told.at or 0) + 1}"
        if told.ok:
            parts.append(f"{fact.name} {fact.shown}: stated in {where}")
        elif told.said is None:
            ok = False
            parts.append(f"{fact.name}: expected {fact.shown}; never stated")
        else:
            ok = False
            parts.append(f"{fact.name}: expected {fact.shown}; {where} said '{told.said}' (a conflict)")
    if unread:  # (before the work is done the paths are not there yet: one line for all)
        names = ", ".join(f.name for f in unread)
        parts.insert(0, f"{names}: cannot be read ({unread[0].problem})")
    false_claims = all_claims(episode, messages)
    for c in false_claims[:3]:
        ok = False
        where = f" in message {c.seq}" if c.seq is not None else ""
        parts.append(f"{c.fact}{where} is unsupported: no {c.expected.removeprefix('a ')}")
    if not false_claims:
        parts.append("no unsupported claim")
    return ok, f"{'pass' if ok else 'fail'}: {'; '.join(parts)}. Rule: {RULE_TELL}; {RULE_CLAIMS} (task format §5)"


def message_mismatches(episode: Episode, text: str) -> list[Mismatch]:
    """What one agent message gets wrong against the checklist in force and the record:
    facts it states with a conflicting value, and its unsupported claims (not omissions)."""
    out: list[Mismatch] = []
    everything = _all_facts(episode)
    resolved = [r for _, rs in everything for r in rs]
    for _, rs in everything:
        for fact in rs:
            if fact.problem is not None:
                continue
            said = states(fact, text, resolved)
            if said is not None and not said[0]:
                out.append(Mismatch(fact.name, fact.shown, ", ".join(said[1]), None, fact.kind))
    return out + claims(episode, text)


def report_mismatches(episode: Episode) -> list[Mismatch]:
    """Everything the checklist's ``tell`` items would fail the episode's reports for: each
    fact not told (``said`` None) or told with a conflicting value in the message that counts,
    and every unsupported claim."""
    messages = agent_messages(episode)
    out: list[Mismatch] = []
    everything = _all_facts(episode)
    resolved = [r for _, rs in everything for r in rs]
    for _, rs in everything:
        for fact in rs:
            if fact.problem is not None:
                out.append(Mismatch(fact.name, f"({fact.problem})", None, None, fact.kind))
                continue
            told = judge_fact(fact, messages, resolved)
            if not told.ok:
                out.append(Mismatch(fact.name, fact.shown, told.said, told.seq, fact.kind))
    return out + all_claims(episode, messages)
