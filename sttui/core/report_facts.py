"""The facts of ``tell`` checklist items as of the current state (``core.reports`` judges them).

A fact is read from its path (or literal) in the state, with its kind and its rivals: the other
ids of its table, the other names of its list. It is resolved again at every change of state,
so what a resolution finds is kept while the state under it is unchanged (``_Kept``) and what a
text states is remembered (``_FOUND``): a long episode would otherwise walk its state and read
its messages again and again.

In order: ``Resolved`` (a fact as read, and the values of its kind a text states); the state's
mappings found by the keys they hold (``_tables``, ``_Kept``, ``_record_of``, ``_siblings``);
``resolve`` (a fact read from the state, ``_read``, with its rivals: ``_as_id``, ``_as_name``);
the records' names a fact's ids go by. How a value is written short or placed is ``core.written_forms``.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Container, Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sttui.core import facts
from sttui.core import state as st
from sttui.core.attach import Subject, subject_of
from sttui.core.caches import evict_oldest
from sttui.core.expect import is_records
from sttui.core.id_forms import cues_of, id_form, ids_of_forms
from sttui.core.report_names import by_name, written_as_names
from sttui.core.statements import name_typed
from sttui.core.time_ranges import STARTS, first_of_ranges
from sttui.core.written_forms import by_first_name, by_short_name, first_names, placed, short_names
from sttui.core.written_times import find_times

if TYPE_CHECKING:
    from sttui.core.episode import Episode
    from sttui.core.task import Fact

# (sig, text) -> the values of a kind the text states (see ``Resolved.found``)
_FOUND: dict[tuple[Any, str], list[facts.Found]] = {}


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
    _forms: frozenset[tuple[str, ...]] = frozenset()  # (id) the forms of its rivals: an unknown code of one is one too
    _cues: frozenset[str] = frozenset()  # (id) the words it is named by ("seat"), before a code of a plain form
    _names: re.Pattern[str] | None = None  # (id) the records' names: "the Harbour Suite" is R-312
    _named: dict[str, str] = field(default_factory=dict)  # folded name -> canonical id
    _first: dict[str, str] = field(default_factory=dict)  # (person) folded first name -> surname
    # (text) rivals the user's own request names its subject by ("Kestrel Lane", the outage): a
    # value only where placed (``written_forms.placed``: "sent CR-2 to Kestrel Lane"), not as the subject
    # ("Kestrel Lane is back on at 10:41" says nothing of where the fault is)
    _asked: frozenset[tuple[str, ...]] = frozenset()
    # (text) a rival's first word where it is the rival's alone: "from Ardmore" is Ardmore Quay
    _short: dict[str, tuple[str, ...]] = field(default_factory=dict)
    sig: Any = None  # what ``found`` depends on besides the text (equal across state versions)
    starts: bool = False  # (time) a start: of a range ("13:30-14:30") only its first time counts
    about: Subject = ()  # what the fact belongs to (``core.attach``); () for a fact of no one
    about_shown: str = ""
    bystanders: tuple[Subject, ...] = ()  # the task's other people (``report_names.bystanders``)

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
            found = self._ids.find(text) if self._ids is not None else []
            if self._ids is not None and self._forms:
                found = found + ids_of_forms(text, self._ids.ids, self._forms, self._cues)
            if self._names is None:
                return found
            return found + by_name(self._names, self._named, text, self._ids)
        if self.kind == "time":
            found = find_times(text)
            return first_of_ranges(text, found) if self.starts else found
        if self.kind == "date":
            return facts.find_dates(text)
        ws = facts.words(text) if self.kind == "person" else facts.text_words(text)
        rivals = tuple(map(str, self.rivals)) if self.kind == "person" else tuple(map(tuple, self.rivals))
        vocabulary = _vocabulary(self.kind, rivals)
        capitals = None if text.islower() else written_as_names(text, first=True)  # (typed all in lower case: any)
        meant = [_as_meant(w, vocabulary) if capitals is None or w.removesuffix("'s") in capitals else w for w in ws]
        typed = {m.removesuffix("'s"): w.removesuffix("'s") for w, m in zip(ws, meant, strict=True) if m != w}
        ws = meant
        if self.kind == "person":  # (a possessive too: "Webb's on the kit", "Qureshi's list")
            owned = {w.removesuffix("'s") for w in ws if w.endswith("'s")}
            found = [facts.Found(frozenset({r}), typed.get(r, r)) for r in self.rivals if r in ws or r in owned]
            return found + by_first_name(self._first, text) if self._first else found
        found = [
            facts.Found(frozenset({" ".join(r)}), " ".join(r))
            for r in self.rivals
            if facts.phrase_in(r, ws) and (tuple(r) not in self._asked or placed(r, ws))
        ]
        return found + by_short_name(self._short, text, found) if self._short else found

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


@functools.lru_cache(maxsize=1024)
def _vocabulary(kind: str, rivals: tuple[Any, ...]) -> frozenset[str]:
    """The words of the names a fact's value is told among: its rivals' surnames or words."""
    if kind == "person":
        return frozenset(rivals)
    return frozenset(w for r in rivals for w in r)


def _as_meant(word: str, vocabulary: frozenset[str]) -> str:
    """``word`` (a possessive's *'s* kept), or the word of ``vocabulary`` it is typed with one
    typo (``statements.name_typed``). (The caller reads only a word written with a capital, as a
    name is, unless the message has none: "a brand new van" names no Brandt.)"""
    bare = word.removesuffix("'s")
    meant = name_typed(bare, vocabulary)
    return word if meant is None else word.replace(bare, meant, 1)


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
    ws = facts.text_words(text)
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
            out += kept.under(k, v, canon, value)
    return out


# the mappings under a top-level key by the keys they hold: (key -> them, canonical key -> them),
# each list in ``_walk``'s order; of the mappings themselves, or of their key paths
_Index = tuple[dict[Any, list[Any]], dict[str, list[Any]]]


def _index(pairs: Iterable[tuple[Any, dict[Any, Any]]]) -> _Index:
    """``pairs``: (what to file, the mapping whose keys file it), in ``_walk``'s order."""
    exact: dict[Any, list[Any]] = {}
    canonical: dict[str, list[Any]] = {}
    for item, d in pairs:
        seen: set[str] = set()
        for k in d:
            exact.setdefault(k, []).append(item)
            if isinstance(k, str):
                c = facts.canon_id(k)
                if c not in seen:  # (a mapping holding TRK-9 and trk9 is found once)
                    seen.add(c)
                    canonical.setdefault(c, []).append(item)
    return exact, canonical


class _Kept:
    """The mappings found under each top-level key of an episode's state (``_tables``), kept
    while the engine has seen no change under that key (``Episode._key_versions``) and the
    value there is the same object: a ``tell`` fact is resolved again after every change of
    state, and most changes leave most of the state as it was. (Like the engine's own record of
    change, this sees values, not the order of keys: a mapping only reordered is no change.)
    Under a key unchanged since an episode began at the task's initial state, the mappings are
    found where they were found in that state (``_INITIAL_FOUND``), for every episode of the task.
    Either way they are filed by the keys they hold (``_index``), so a value looked for is a
    lookup, not a walk: the claims look up every argument of every operation."""

    def __init__(self, episode: Episode):
        self.versions: dict[Any, int] = episode._key_versions
        self.found: dict[tuple[Any, bool, str], tuple[int, Any, list[dict[str, Any]]]] = {}
        # the mappings under a key by the keys they hold, made once per change of it
        self.indexes: dict[Any, tuple[int, Any, _Index]] = {}
        self.task = episode.task
        self.initial = _initial_found(episode.task) if episode._from_initial else None

    def under(self, key: Any, value: dict[Any, Any], canon: bool, looked: str) -> list[dict[str, Any]]:
        at = (key, canon, looked)
        version = self.versions.get(key, 0)
        hit = self.found.get(at)
        if hit is not None and hit[0] == version and hit[1] is value:
            return hit[2]
        if self.initial is not None and key not in self.versions:  # as it began: where it was found then
            paths = self.initial.get(key)
            if paths is None:
                paths = self.initial[key] = _index(_walk_paths(self.task.initial_state[key], _every, 3, ()))
            exact, canonical = paths
            got = canonical.get(facts.canon_id(looked), ()) if canon else exact.get(looked, ())
            found = [_follow(value, p) for p in got]
        else:
            exact, canonical = self._index(key, value, version)
            found = list(canonical.get(facts.canon_id(looked), ()) if canon else exact.get(looked, ()))
        self.found[at] = (version, value, found)  # (the value held: ``is`` compares this object)
        while len(self.found) > 4096:
            self.found.pop(next(iter(self.found)))
        return found

    def _index(self, key: Any, value: dict[Any, Any], version: int) -> _Index:
        hit = self.indexes.get(key)
        if hit is not None and hit[0] == version and hit[1] is value:
            return hit[2]
        index = _index((d, d) for d in _walk(value, _every, 3))
        self.indexes[key] = (version, value, index)
        while len(self.indexes) > 4096:
            self.indexes.pop(next(iter(self.indexes)))
        return index


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


# per task (held, so the id it is filed under stays its own): top-level key -> the key paths of
# the mappings under that key of its initial state, by the keys they hold (``_index``); every
# episode that begins there finds them at the same places while the key is unchanged
_INITIAL_FOUND: dict[int, tuple[Any, dict[Any, _Index]]] = {}


def _initial_found(task: Any) -> dict[Any, _Index]:
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


def _named_beside(state: Any, value: str, name: str) -> list[str]:
    """For a fact given by its value ("Corn Exchange", "Bramble"): the names of the other
    records of the mappings of records the fact's name names (``venue``: ``venues``; four
    levels deep) where a record's ``name`` holds the value: the other venues, the other
    caterers ("Saltmarsh Catering" beside "Bramble & Co"). None where the name names no such
    mapping: a place named in passing ("from the Royal Hotel") is no venue."""
    want = facts.words(value)
    kinds = {w.removesuffix("s") for w in facts.words(name)}
    out: list[str] = []
    stack: list[tuple[Any, Any, int]] = [(state, None, 4)]
    while stack:
        node, key, depth = stack.pop()
        if not isinstance(node, dict) or depth == 0:
            continue
        if isinstance(key, str) and facts.fold(key).removesuffix("s") in kinds and is_records(node):
            named = [n for r in node.values() if isinstance(n := r.get("name"), str) and len(n) <= 200]
            holds = [facts.phrase_in(want, facts.words(n)) for n in named]
            if any(holds):
                out += [n for n, h in zip(named, holds, strict=True) if not h]
        stack.extend((v, k, depth - 1) for k, v in node.items())
    return out


def _siblings(state: Any, path: str, kept: _Kept | None = None) -> list[Any]:
    """The same field of the records beside the fact's record (``shipments.*.vehicle`` for
    ``shipments.SHP-1.vehicle``); or, in a mapping keyed by records' keys, the values beside
    the fact's (``seats: {P-HG: 31A, P-MG: 31B}``: Michael's 31B beside Hannah's 31A)."""
    parts = st.split(path)
    if len(parts) < 2:
        return []
    parent = st.lookup(state, ".".join(parts[:-1]), None)
    if _keyed_by_records(state, parent, kept):
        return [v for k, v in parent.items() if k != parts[-1] and v is not None]
    if len(parts) < 3:
        return []
    table = st.lookup(state, ".".join(parts[:-2]), None)
    if not is_records(table):
        return []
    return [r[parts[-1]] for r in table.values() if r.get(parts[-1]) is not None]


def _keyed_by_records(state: Any, mapping: Any, kept: _Kept | None) -> bool:
    """A mapping of two or more plain values whose keys are all keys of one table of records
    elsewhere in the state (passengers' seats by passenger): its values are alike, one per record."""
    if not isinstance(mapping, dict) or len(mapping) < 2 or len(mapping) > 200:
        return False
    if any(isinstance(v, dict | list) or not isinstance(k, str) or k.islower() for k, v in mapping.items()):
        return False  # (a record's fields are lower-case names: goods, vehicle; records' keys are not)
    first = next(iter(mapping))  # (one lookup: the table of the first key must hold them all)
    return any(t is not mapping and is_records(t) and all(k in t for k in mapping) for t in _tables(state, first, kept))


def resolve(
    fact: Fact,
    state: Any,
    task_words: str,
    kept: _Kept | None = None,
    held: Held | None = None,
    one_name: Container[str] = (),
) -> Resolved:
    """The fact as of ``state``: its value from its path (or literal), its kind, its rivals,
    what it is about. ``kept``: the episode's mappings found so far (``_Kept``), for a state
    the engine tracks. ``held``: the values a path held earlier in the episode; an id the
    fact's own path held is one of its rivals ("I moved you to 27E", the seat the change gave
    Daniel before he was moved to 33G, states his seat, and not the one his app shows).
    ``one_name``: the first words of records' names that are in no other's
    (``report_names.first_words``), which may name a place alone ("from Ardmore")."""
    out = _resolve(fact, state, task_words, kept, held, one_name)
    out.about, out.about_shown = subject_of(fact.about), fact.about[0] if fact.about else ""
    return out


def picked(state: Any, path: str, where: dict[str, Any]) -> tuple[str | None, str | None]:
    """(the path with its ``*`` replaced by the key of the record that ``where`` picks, or
    why there is none): the last record in the table's order whose fields all equal
    ``where``'s and whose ``status`` does not say it is gone (``GONE``: cancelled, void…), so
    a record made again after a cancellation is the one read, and so is the first of two
    when the second was made by mistake and cancelled. When every match is gone, the last."""
    parts = st.split(path)
    i = parts.index("*")
    table_path = ".".join(parts[:i])
    table = st.lookup(state, table_path, None) if table_path else state
    if not isinstance(table, dict | list):
        return None, f"{table_path or 'the state'} is not a table or list of records"
    rows = table.items() if isinstance(table, dict) else enumerate(table)
    keys = [
        k
        for k, r in rows
        if isinstance(r, dict) and all(f in r and (r[f] == v or str(r[f]) == str(v)) for f, v in where.items())
    ]
    if not keys:
        said = ", ".join(f"{f} {v}" for f, v in where.items())
        return None, f"no {table_path} with {said}"
    table_rows = table if isinstance(table, dict) else dict(enumerate(table))
    live = [k for k in keys if str(table_rows[k].get("status", "")).strip().lower() not in GONE]
    return ".".join([*parts[:i], str((live or keys)[-1]), *parts[i + 1 :]]), None


# a record's ``status`` that says it no longer stands: ``where`` reads another match first
GONE = frozenset({"cancelled", "canceled", "void", "voided", "withdrawn", "deleted"})


# a path -> the values it held earlier in the episode (``claim_record._Record.held``)
Held = Callable[[str], Iterable[Any]]


@dataclass
class _Read:
    """A fact's value as read from the state, before it is judged as a value of its kind."""

    fact: Fact  # (with the record ``where`` picked written into its path)
    raw: Any
    kind: str
    siblings: list[Any]  # the values beside it: of the records beside its record, or its table's
    where: str  # where it was read, for a problem's words


def _resolve(
    fact: Fact, state: Any, task_words: str, kept: _Kept | None, held: Held | None, one_name: Container[str]
) -> Resolved:
    read = _read(fact, state, kept)
    if isinstance(read, Resolved):  # (it cannot be read: why)
        return read
    kind, raw = read.kind, read.raw
    got = read_fact(raw, kind)
    if got is None:
        return Resolved(
            read.fact.fact,
            kind,
            problem=f"{read.where} holds {raw!r}, not {'an' if kind[0] in 'aeiou' else 'a'} {kind}",
        )
    expected, shown = got
    out = Resolved(read.fact.fact, kind, expected, shown, sig=(kind,))
    if kind == "id":
        _as_id(out, read, state, kept, held)
    elif kind in ("person", "text"):
        _as_name(out, read, state, kept, task_words, one_name)
    else:
        out.excused = list(_excused(kind, task_words))
        last = read.fact.field or (read.fact.path or "").rsplit(".", 1)[-1]
        out.starts = kind == "time" and last.lower() in STARTS
        out.sig = (kind, out.starts)
    return out


def _read(fact: Fact, state: Any, kept: _Kept | None) -> _Read | Resolved:
    """The fact's value and the values beside it, from its path (the record ``where`` picks,
    the ``field`` of the record it names) or its literal; or the fact with why it cannot be read."""
    if fact.path is not None and fact.where:
        path, why = picked(state, fact.path, fact.where)
        if path is None:
            return Resolved(fact.fact, fact.kind or "text", problem=why)
        fact = fact.model_copy(update={"path": path, "where": {}})
    raw = fact.value if fact.path is None else st.lookup(state, fact.path, None)
    where = f"{fact.path}" if fact.path is not None else "its value"
    if fact.path is not None:
        gone = st.missing(state, fact.path)
        if gone is not None:
            return Resolved(fact.fact, fact.kind or "text", problem=f"{fact.path}: {gone}")
    siblings = _siblings(state, fact.path, kept) if fact.path is not None else []
    if fact.field is not None:
        record = _record_of(state, raw, kept)
        if record is None or fact.field not in record:
            what = "no record" if record is None else f"no field '{fact.field}' in the record"
            return Resolved(fact.fact, fact.kind or "text", problem=f"{where} holds {raw!r}: {what}")
        where = f"{where} → {raw}.{fact.field}"  # (what "holds" is said of: the field, not the path)
        # the same field of the records beside it ("West Room 2" beside the seminar's "West Room 1")
        siblings = [
            other[fact.field]
            for table in _tables(state, str(raw), kept)
            if is_records(table)
            for other in table.values()
            if other is not record and fact.field in other
        ]
        raw = record[fact.field]
    kind = fact.kind or facts.infer_kind(raw)
    if kind == "person" and isinstance(raw, str) and fact.path is not None:
        named = _named_record(state, raw, kept)
        if named is not None:
            raw, siblings = named[0], named[1] + siblings
    return _Read(fact, raw, kind, siblings, where)


def _as_id(out: Resolved, read: _Read, state: Any, kept: _Kept | None, held: Held | None) -> None:
    """An id's rivals (the keys of its tables, the ids beside it, those its path held before)
    and how it is named in text (its aliases, cues and its records' names)."""
    fact, raw = read.fact, read.raw
    rivals = {out.expected}
    for table in _tables(state, str(raw), kept):
        rivals |= {facts.canon_id(k) for k in table if isinstance(k, str)}
    rivals |= {facts.canon_id(str(s)) for s in read.siblings if isinstance(s, str)}
    if held is not None and fact.path is not None and fact.field is None:
        rivals |= {facts.canon_id(v) for v in held(fact.path) if isinstance(v, str)}
    out.rivals = sorted(r for r in rivals if r)
    out._ids = facts.IdMatcher(out.rivals, fact.aliases)
    out._forms = frozenset(id_form(r) for r in out.rivals)
    out._cues = cues_of(fact.fact, fact.about, fact.path)
    out._named = _record_names(state, str(raw), set(out.rivals), kept)
    out._names = _names_pattern(tuple(sorted(out._named)))
    out.sig = (
        read.kind,
        tuple(out.rivals),
        tuple(sorted(fact.aliases.items())),
        tuple(sorted(out._named.items())),
        tuple(sorted(out._cues)),
    )


def _as_name(
    out: Resolved, read: _Read, state: Any, kept: _Kept | None, task_words: str, one_name: Container[str]
) -> None:
    """A person's or a text's rivals (the names beside it, a table's other keys) and how it is
    named in text: a person by first name, a place by its first word alone."""
    fact, raw, kind, siblings = read.fact, read.raw, read.kind, read.siblings
    if fact.path is None and isinstance(raw, str):  # given by value: the names beside its record's
        siblings = _named_beside(state, raw, fact.fact)
    if kind == "text" and isinstance(raw, str):  # a key of a table (a site): the other keys
        siblings = siblings + [k for t in _tables(state, raw, kept) for k in t if isinstance(k, str)]
    values = [read_fact(s, kind) for s in siblings]
    listed = [out.expected] + [v[0] for v in values if v is not None and v[0] != out.expected]
    out.rivals = [r for i, r in enumerate(listed) if r not in listed[:i]]
    if kind == "person":
        out._first = first_names([raw, *siblings], out.rivals)
    else:
        asked = facts.text_words(task_words)
        out._asked = frozenset(tuple(r) for r in out.rivals if r != out.expected and facts.phrase_in(r, asked))
        out._short = {w: r for w, r in short_names(out.rivals).items() if w in one_name}
    out.sig = (
        kind,
        repr(out.rivals),
        tuple(sorted(out._first.items())),
        tuple(sorted(out._asked)),
        tuple(sorted(out._short)),
    )


_BRACKETED = re.compile(r"\([^)]*(?:\)|$)")
_NAME_MAX = 60  # longer text in a ``name`` field is a description, not what people call it


def _record_names(state: Any, value: str, ids: set[str], kept: _Kept | None) -> dict[str, str]:
    """Folded name -> canonical id, for the records of ``value``'s tables whose ``name`` is how
    people call them ("Harbour Suite" for ``R-312: {name: Harbour Suite}``): a name of two
    records, or of four letters or fewer in all, names neither."""
    owners: dict[str, set[str]] = {}
    for table in _tables(state, value, kept):
        if not is_records(table):
            continue
        for key, record in table.items():
            name = record.get("name") if isinstance(key, str) else None
            canon = facts.canon_id(key) if isinstance(key, str) else ""
            if canon in ids and isinstance(name, str) and len(name) <= _NAME_MAX:
                whole = " ".join(facts.fold(name).split())
                for folded in {whole, " ".join(_BRACKETED.sub(" ", whole).split())}:  # and without "(Dean Marsh)"
                    if sum(c.isalnum() for c in folded) > 4 and facts.canon_id(folded) != canon:
                        owners.setdefault(folded, set()).add(canon)
    return {name: next(iter(keys)) for name, keys in owners.items() if len(keys) == 1}


@functools.lru_cache(maxsize=1024)
def _names_pattern(names: tuple[str, ...]) -> re.Pattern[str] | None:
    if not names:
        return None
    words = sorted(names, key=len, reverse=True)  # the longest first: "harbour suite east" before "harbour suite"
    return re.compile(
        r"(?<![^\W_])(?:" + "|".join(r"\s+".join(map(re.escape, n.split())) for n in words) + r")(?![^\W_])"
    )


@functools.lru_cache(maxsize=1024)
def _excused(kind: str, task_words: str) -> tuple[Any, ...]:
    """The times (or dates) the user's own request states: the same for every fact and state
    of a task, so read once."""
    finder = find_times if kind == "time" else facts.find_dates
    return tuple(v for f in finder(task_words) for v in f.values)
