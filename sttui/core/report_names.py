"""How a report names records, read from a task and a record (``core.report_claims``): the
ids in a value, the words of the records' names ("tomasz" for ``P-NOWAK: {name: Tomasz Nowak}``),
a name written like an id ("Chair 2"), and the words a message writes as names. Each reading of
a task is made once per task (``per_task``)."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar

from sttui.core import facts
from sttui.core.attach import Subject, subject_of
from sttui.core.caches import evict_oldest

T = TypeVar("T")  # what a task is read as, once (per_task)

SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+|" + facts.GLUED_START)
WORD = re.compile(r"[^\W\d_]+")


def ids_in(value: Any, out: set[str]) -> set[str]:
    """The canonical ids among the strings in ``value`` (keys included, at any depth), added to
    ``out``. A loop over a stack, not a call per value: every result the agent is shown is read."""
    stack = [value]
    pop, extend, add = stack.pop, stack.extend, out.add
    while stack:
        v = pop()
        t = type(v)  # (the exact types first: JSON's, and a type check is cheaper than isinstance)
        if t is str or (t is not dict and t is not list and isinstance(v, str)):
            c = canon_if_id(v)
            if c is not None:
                add(c)
        elif t is dict or isinstance(v, dict):
            extend(v)
            extend(v.values())
        elif t is list or isinstance(v, list | tuple):
            extend(v)
    return out


@functools.lru_cache(maxsize=65536)
def canon_if_id(text: str) -> str | None:
    return facts.canon_id(text) if facts.is_id(text) else None


_NAMES: dict[int, tuple[Any, dict[str, str]]] = {}
_NAME_MAX = 200  # longer text in a ``name`` field is no one's name
_NAME_PART = re.compile(r"\([^)]*(?:\)|$)")  # a bracketed part of a name: "(renal nurse)"


def names(task: Any) -> dict[str, str]:
    """Word -> the id of the one record in the task's initial state whose ``name`` holds it
    ("tomasz" and "nowak" -> P-NOWAK for ``patients: {P-NOWAK: {name: Tomasz Nowak}}``): how
    people name what they acted on. A word in the names of two records names neither; titles,
    bracketed words and words under three letters name nothing. Read once per task."""
    return per_task(_NAMES, task, _read_names)


def _named_records(task: Any) -> Iterator[tuple[str, str]]:
    """(canonical key, name) of every record with a ``name`` in the first four levels of the
    task's initial state (a record's key, whatever its form: P-NOWAK, RIVERSIDE)."""
    for _, canon, name in _named_in_tables(task):
        yield canon, name


def _named_in_tables(task: Any) -> Iterator[tuple[int, str, str]]:
    """:func:`_named_records` with the table each is in (the mapping holding it, by ``id``)."""
    for table, _, canon, name in _named_with_keys(task):
        yield table, canon, name


def _named_with_keys(task: Any) -> Iterator[tuple[int, Any, str, str]]:
    """:func:`_named_in_tables` with the key the table is under (``events`` for its events)."""
    stack: list[tuple[Any, Any, int]] = [(task.initial_state, None, 4)]
    while stack:
        node, under, depth = stack.pop()
        if not isinstance(node, dict) or depth == 0:
            continue
        for key, value in node.items():
            if not isinstance(value, dict):
                continue
            name = value.get("name")
            canon = facts.canon_id(key) if isinstance(key, str) else ""
            if canon and isinstance(name, str) and len(name) <= _NAME_MAX:  # (a name, not a description)
                yield id(node), under, canon, name
            stack.append((value, key, depth - 1))


def _only_ones(pairs: Iterable[tuple[str, str]]) -> dict[str, str]:
    """Word -> key, for the words only one key has."""
    owners: dict[str, set[str]] = {}
    for word, key in pairs:
        owners.setdefault(word, set()).add(key)
    return {word: next(iter(keys)) for word, keys in owners.items() if len(keys) == 1}


def _read_names(task: Any) -> dict[str, str]:
    return _only_ones(_name_words(task))


def _name_words(task: Any) -> Iterator[tuple[str, str]]:
    """(word, canonical key) for every word that may name a record, of every record's ``name``;
    not the letters of a key with a number ("van" of "Wheelchair van 3" for VAN-3 is what it is,
    no name: "The Van was cancelled" is no claim about VAN-3)."""
    named = list(_named_records(task))
    kinds = {  # (of a key with a number: VAN-3, not CL-ADEYEMI)
        part.lower()
        for canon, _ in named
        if any(p.isdigit() for p in canon.split("-"))
        for part in canon.split("-")
        if part.isalpha()
    }
    for canon, name in named:
        for word in facts.words(_NAME_PART.sub(" ", name)):
            if (
                word.isalpha()
                and len(word) > 2
                and word not in facts.TITLES
                and word not in _FUNCTION_WORDS
                and word not in kinds
            ):
                yield word, canon


_BYSTANDERS: dict[int, tuple[Any, tuple[Subject, ...]]] = {}


def bystanders(task: Any) -> tuple[Subject, ...]:
    """The task's people as subjects a report may give values to (``core.attach``): each
    person's name whole, the surname, and the first name ("Grace Mensah has the 11:30" gives
    the time to Grace, not to the fact's subject). Read once per task."""
    return per_task(_BYSTANDERS, task, _read_bystanders)


def _read_bystanders(task: Any) -> tuple[Subject, ...]:
    return tuple(dict.fromkeys(people_by_key(task).values()))


_PEOPLE_BY_KEY: dict[int, tuple[Any, dict[str, Subject]]] = {}


def people_by_key(task: Any) -> dict[str, Subject]:
    """Each person's record key (canonical: ``CL-ADEYEMI``) -> the person as a subject
    (``bystanders``). Read once per task."""
    return per_task(_PEOPLE_BY_KEY, task, _read_people_by_key)


def _read_people_by_key(task: Any) -> dict[str, Subject]:
    who = people(task)
    out: dict[str, Subject] = {}
    for canon, name in _named_records(task):
        if canon not in who:
            continue
        words = [w for w in facts.words(_NAME_PART.sub(" ", name)) if w.isalpha() and w not in facts.TITLES]
        if words:
            first = [words[0]] if len(words) > 1 and len(words[0]) > 2 else []
            out.setdefault(canon, subject_of([" ".join(words), words[-1], *first]))
    return out


_SHARED: dict[int, tuple[Any, frozenset[str]]] = {}


def name_words(task: Any) -> frozenset[str]:
    """Every word of a record's name, those of several records' too ("lunch" of two lunches):
    a word that says which kind of thing is meant, if not which one. Read once per task."""
    return per_task(_SHARED, task, lambda t: frozenset(word for word, _ in _name_words(t)))


# words of a name that name nothing: "The Pavilion" is not named by every sentence's "The"
_FUNCTION_WORDS = frozenset(
    {"the", "and", "for", "with", "from", "into", "onto", "over", "under", "via", "its", "our", "your", "their"}
)


_KIND_NOUNS: dict[int, tuple[Any, dict[str, frozenset[str]]]] = {}


def kind_nouns(task: Any) -> dict[str, frozenset[str]]:
    """A table's key, as written, lowercased and singular ("events", "event") -> the last word
    of each of its records' names ("forum" for ``events: {EV-DEAF-FORUM: {name: Deaf community
    health forum}}``): what a person calls one of them ("I've confirmed the forum"). Read once
    per task."""
    return per_task(_KIND_NOUNS, task, _read_kind_nouns)


def _read_kind_nouns(task: Any) -> dict[str, frozenset[str]]:
    out: dict[str, set[str]] = {}
    for _, under, _, name in _named_with_keys(task):
        words = [w for w in facts.words(_NAME_PART.sub(" ", name)) if w.isalpha()]
        if isinstance(under, str) and words and len(words[-1]) > 2 and words[-1] not in _FUNCTION_WORDS:
            for k in {under.lower(), under.lower().removesuffix("s")}:
                out.setdefault(k, set()).add(words[-1])
    return {k: frozenset(v) for k, v in out.items()}


_PEOPLE: dict[int, tuple[Any, frozenset[str]]] = {}
_NAME_WORD = re.compile(r"[^\W\d_]+(?:['\u2019-][^\W\d_]+)*")  # O'Neill, Smith-Jones


def people(task: Any) -> frozenset[str]:
    """The keys of the records whose name is a person's: with a title ("Dr Funmi Adeyemi"), or
    in a table of people: one where most names look like a person's (two or three words each
    with a capital and no digit: "Kwame Osei"), and this one could be ("Pieter de Vries").
    Decided by table, not name by name: "Amsterdam Schiphol" among the airports and "Harbour
    Hall A" among the rooms are no one, "Jun Park" among the staff is someone. Not "Open Data
    Summit - opening keynote". What *he* and *she* may stand for. Read once per task."""
    return per_task(_PEOPLE, task, _read_people)


def _read_people(task: Any) -> frozenset[str]:
    tables: dict[int, list[tuple[str, list[str]]]] = {}
    for table, canon, name in _named_in_tables(task):
        tables.setdefault(table, []).append((canon, _NAME_PART.sub(" ", name).split()))
    out = set()
    for records in tables.values():
        looks = sum(_looks_like_a_person(words) for _, words in records)
        of_people = 2 * looks > len(records)
        for canon, words in records:
            if _titled(words) or (of_people and _could_be_a_person(words)):
                out.add(canon)
    return frozenset(out)


def _titled(words: list[str]) -> bool:
    return any(w.lower().rstrip(".") in facts.TITLES for w in words)


def _looks_like_a_person(words: list[str]) -> bool:
    """Two or three words, each with a capital and none in capitals alone (FDG), the last no
    place's word and no initial."""
    return _titled(words) or (
        2 <= len(words) <= 3
        and all(w[:1].isupper() and not w.isupper() and _NAME_WORD.fullmatch(w) for w in words)
        and len(words[-1]) > 1
        and words[-1].lower() not in PLACE_NOUNS
    )


def _could_be_a_person(words: list[str]) -> bool:
    """Two to four words of letters, the first and last with a capital ("Pieter de Vries")."""
    return (
        2 <= len(words) <= 4
        and all(_NAME_WORD.fullmatch(w) for w in words)
        and words[0][:1].isupper()
        and words[-1][:1].isupper()
    )


# the last word of a place's or an organisation's name, never a person's: "Northgate General
# Hospital", "Canal Quarter", "British Airways" (a title still makes a person: "Dr Ruth Hall")
PLACE_NOUNS = frozenset(
    {"hospital", "centre", "center", "clinic", "unit", "ward", "surgery", "infirmary", "outpatients",
     "hotel", "road", "lane", "street", "close", "row", "way", "walk", "drove", "cross", "rise", "copse",
     "quarter", "hill", "gate", "bridge", "mead", "green", "end", "bank", "park", "square", "station",
     "airport", "international", "domestic", "airways", "airlines", "states", "kingdom", "hall", "halls",
     "room", "rooms", "suite", "kitchen", "bakery", "catering", "mill", "exchange", "services", "gallery",
     "museum", "theatre", "chapel", "nave", "terrace", "library", "forum", "ballroom", "shed", "deck",
     "house", "court", "chamber", "salon", "floor", "studio", "studios", "works", "observatory", "dome",
     "loft", "orangery", "guildhall", "boathouse", "abbey", "cloister", "table", "depot", "yard", "store"}
)  # fmt: skip


_FIRST_WORDS: dict[int, tuple[Any, frozenset[str]]] = {}


def first_words(task: Any) -> frozenset[str]:
    """The first words of records' names that are in one record's name alone (``names``):
    "ardmore" of Ardmore Quay, not "wren" of Wren Lecture Theatre and Wren Seminar Room, nor
    "depot" of Alder depot. How a place may be named by its first word. Read once per task."""
    return per_task(_FIRST_WORDS, task, _read_first_words)


def _read_first_words(task: Any) -> frozenset[str]:
    one = names(task)
    named = [(canon, facts.words(_NAME_PART.sub(" ", name))) for canon, name in _named_records(task)]
    out = set()
    for canon, words in named:
        if words and one.get(words[0]) == canon:
            out.add(words[0])
    # … or else in the names of its own premises alone: "saltmarsh" of Saltmarsh Catering and
    # "Saltmarsh Catering depot" (not "kestrel" of Kestrel Lane and the feeder Kestrel Lane 11 kV)
    holding: dict[str, list[list[str]]] = {}
    for _, words in named:
        for word in set(words):
            holding.setdefault(word, []).append(words)
    for _, words in named:
        if not words or words[0] in out or not words[0].isalpha() or words[0] in facts.TITLES:
            continue
        others = [ws for ws in holding[words[0]] if ws != words]
        if others and all(ws[: len(words)] == words and set(ws[len(words) :]) <= _PREMISES for ws in others):
            out.add(words[0])
    return frozenset(out)


# the words that name where a named body works from: "Saltmarsh Catering depot"
_PREMISES = frozenset({"depot", "kitchen", "kitchens", "yard", "base", "office", "offices", "warehouse", "hub", "store",
                       "garage", "hq", "headquarters", "premises", "unit", "workshop"})  # fmt: skip


_KEY_NAMES: dict[int, tuple[Any, dict[str, str]]] = {}


def key_name(task: Any, value: str) -> str:
    """The name of the record ``value`` is the key of, when that key is no id: how a person
    says it ("Ardmore Quay" for ARDMORE-QUAY, "Ravens Copse" for RAVENS-COPSE); else ``value``
    (VAN-42 is said as it is)."""
    if canon_if_id(value) is not None:
        return value
    return per_task(_KEY_NAMES, task, _read_key_names).get(facts.canon_id(value), value)


def _read_key_names(task: Any) -> dict[str, str]:
    """Each key's one name; of a key named in two tables, the shorter name the other opens with
    ("Northgate General Hospital" beside "Northgate General Hospital Outpatients")."""
    named: dict[str, set[str]] = {}
    for canon, name in _named_records(task):
        named.setdefault(canon, set()).add(plain_name(name))
    out: dict[str, str] = {}
    for canon, ns in named.items():
        shortest = min(ns, key=len)
        if all(n == shortest or n.startswith(shortest + " ") for n in ns):
            out[canon] = shortest
    return out


def plain_name(name: str) -> str:
    """A record's name without its bracketed note: "Marcus Webb" for "Marcus Webb (AV,
    hybrid)"; the name as it is when nothing else is left."""
    return " ".join(_NAME_PART.sub(" ", name).split()) or name


_ID_NAMES: dict[int, tuple[Any, dict[str, str]]] = {}


def id_names(task: Any) -> dict[str, str]:
    """A record's id-shaped name, canonical -> its key ("Chair 2" -> RIV-CH2 for ``rooms:
    {RIV-CH2: {name: Chair 2}}``): a claim naming "Chair 2" names that record. Read once per task."""
    return per_task(_ID_NAMES, task, _read_id_names)


def _read_id_names(task: Any) -> dict[str, str]:
    return _only_ones(
        (named, canon)
        for canon, name in _named_records(task)
        if len(name) <= 40 and (named := canon_if_id(name)) and named != canon
    )


def named_in(value: Any, keys: frozenset[str], out: set[str]) -> set[str]:
    """The keys of named records (``keys``, canonical) among the strings in ``value``, added to
    ``out``: what an operation named of the records a claim may name by name."""
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            if len(v) <= 40:
                c = facts.canon_id(v)
                if c in keys:
                    out.add(c)
        elif isinstance(v, dict):
            stack.extend(v.values())
        elif isinstance(v, list | tuple):
            stack.extend(v)
    return out


def written_as_names(text: str, first: bool = False) -> set[str]:
    """The words of a message written as a name is: with a capital, not the letters of an id,
    and not where every word has one (a sentence's first word; ``first``: that too)."""
    out: set[str] = set()
    for sentence in SENTENCE.split(text):
        for i, m in enumerate(WORD.finditer(sentence)):
            word = m.group()
            spaced = word.isupper() and len(word) > 1 and _SPACED_ID.match(sentence, m.end())  # ("VAN 3")
            if (i or first) and word[0].isupper() and not _IN_ID.match(sentence, m.end()) and not spaced:
                out.add(facts.fold(m.group()))
    return out


_IN_ID = re.compile(r"[-_/#]?\d")  # the letters of an id ("VAN" of VAN-3) are no name
_SPACED_ID = re.compile(r" \d")  # … nor capitals before a space and a digit ("VAN" of "VAN 3"; "Room 3" is)


def per_task(cache: dict[int, tuple[Any, T]], task: Any, read: Callable[[Any], T]) -> T:
    """``read(task)``, once per task: filed under the task's id with the task held, so the id
    stays its own (the 256 newest tasks kept)."""
    found = cache.get(id(task))
    if found is None or found[0] is not task:
        found = cache[id(task)] = (task, read(task))
        evict_oldest(cache, 256)
    return found[1]


# an id, perhaps a bracketed aside, then where it is: "TIE-21 at Riverside Walk", "TIE-21 (…) at the Quay"
# (markdown's emphasis about either: "**TIE-21** at Riverside Walk")
_ID_AT = re.compile(r"([a-z]+[-_ ]?\d+[a-z]?)[*_`]*\s*(?:\([^()]{0,80}\)\s*)?(?:at|in|on|near|by)\s+(?:the\s+)?[*_`]*$")


_BRACKETED_ID = re.compile(r"\s*\(\s*([a-z]+[-_ ]?\d+[a-z]?)\s*[),]")
_ID_BRACKET = re.compile(r"([a-z]+[-_ ]?\d+[a-z]?)\s*\(\s*(?:the\s+)?$")


def another_beside(folded: str, start: int, end: int, canon: str, ids: facts.IdMatcher) -> re.Match[str] | None:
    """Another record's id beside the name at ``folded[start:end]`` in brackets (its group 1),
    or None: "the Solan (FB-2)" names FB-2 (the id is what is written exactly; the name a
    slip), and so does "FB-2 (the Solan)"."""
    beside = _BRACKETED_ID.match(folded, end) or _ID_BRACKET.search(folded, max(0, start - 40), start)
    if beside is None:
        return None
    there = {v for f in ids.find(beside.group(1)) for v in f.values}
    return beside if there and canon not in there else None


def by_name(
    pattern: re.Pattern[str], named: dict[str, str], text: str, ids: facts.IdMatcher | None = None
) -> list[facts.Found]:
    """The records named in ``text`` by their names, each as the id it names. Not a name that
    says where an id of the table just before it is ("closing TIE-21 at Riverside Walk": the
    id names the record; the place, another record's name, names none)."""
    folded = facts.fold(text)
    out = []
    for m in pattern.finditer(folded):
        canon = named.get(" ".join(m.group().split()))
        if canon is None:
            continue
        at = _ID_AT.search(folded, max(0, m.start() - 120), m.start()) if ids is not None else None
        if at is not None and ids is not None:
            there = {v for f in ids.find(at.group(1)) for v in f.values}
            if there and canon not in there:
                continue
        if ids is not None and another_beside(folded, m.start(), m.end(), canon, ids) is not None:
            continue
        out.append(facts.Found(frozenset({canon}), facts.written(text, folded, m.start(), m.end())))
    return out
