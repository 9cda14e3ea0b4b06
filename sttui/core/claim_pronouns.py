"""Whom a claim's pronoun stands for ("… and I've texted him", "texted them both"): the people,
or records, a message names around it. Read only for a claim that names no record itself
(``core.report_claims``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sttui.core.expect import is_records
from sttui.core.report_facts import _tables
from sttui.core.report_names import written_as_names

if TYPE_CHECKING:
    from sttui.core.claim_record import _Record

PERSONAL = frozenset({"he", "she", "he's", "she's", "him", "her", "his"})  # a person, not a thing
PRONOUNS = frozenset({"him", "her", "them"})  # the objects that stand for someone named elsewhere
# the words by which a claim stands for what its sentence named before it: without one, it
# borrows no one ("…to collect Marta at 11:45; the talk at 12:30 is confirmed": not of Marta)
STANDS_FOR = PERSONAL | PRONOUNS | {"they", "they've", "they're", "it", "its", "their"}
STANDS_FOR |= {"all", "both", "everyone", "everybody", "each", "every"}
WINDOW = 2000  # how far back (and on) a pronoun's name is looked for
_STOPS = (". ", "! ", "? ", "\n")


def whom(rec: _Record, text: str, clause: list[str], at: int) -> list[str]:
    """The records a claim's pronoun stands for, the claim quoted from ``at`` in ``text``: whom
    its sentence named before it ("Tomasz is in at 17:00, and I've texted him"); people only for
    he, she, him, her ("Keynote confirmed, she's…"); and for *them* after fewer than two people,
    the group :func:`plural` finds, in place of the one person before it."""
    lo = max(0, at - WINDOW)
    cut = max(text.rfind(mark, lo, at) for mark in _STOPS)
    before = text[cut + 1 if cut >= 0 else lo : at]
    named = [n for w in written_as_names(before, first=True) if (n := rec.name_of(w)) is not None]
    if PERSONAL.intersection(clause):
        named = [i for i in named if i in rec.people]
    if "them" in clause and len({i for i in named if i in rec.people}) < 2:
        group = plural(rec, text, lo, cut, at)
        if len(set(group)) >= 2:  # the two or more it stands for, not the one before it
            named = [i for i in named if i not in rec.people]
        named += group
    return named


def plural(rec: _Record, text: str, lo: int, cut: int, at: int) -> list[str]:
    """The people "them" stands for when its own sentence names fewer than two before it: those
    of the sentence before ("Orla is on 14:00 and Imran on 14:30. I booked both with Tariq Aziz
    and texted them"), and those named after it in its sentence ("… texted them both: Orla at
    14:00, Imran at 14:30"); or, when neither names anyone, in the sentence after it ("Both at
    Westbrook with Tariq Aziz, texted them both. Orla and Imran: 14:00 and 14:30.")."""
    end = min(len(text), at + WINDOW)
    stop = [i for mark in _STOPS if (i := text.find(mark, at, end)) >= 0]
    after = text[at : min(stop) if stop else end]
    prev = text[max(lo, text.rfind(". ", lo, cut) + 1) : cut] if cut > lo else ""
    found = _people(rec, prev) + _people(rec, after)
    if not found and stop:  # the sentence after it
        start = min(stop) + 1
        more = [i for mark in _STOPS if (i := text.find(mark, start, end)) >= 0]
        found = _people(rec, text[start : min(more) if more else end])
    return found


def _people(rec: _Record, part: str) -> list[str]:
    return [n for w in written_as_names(part, first=True) if (n := rec.name_of(w)) is not None and n in rec.people]


def of_its_kind(rec: _Record, ids: set[object], claimed: set[str]) -> set[object]:
    """Of whom a claim's pronoun may stand for, those of a kind the claimed operations act on: in
    a table beside a record a successful call of them named ("It's with Dr Okafor, and I texted
    her": a patient is texted, not the clinician, so *her* is the patient; none left: the claim
    names no one, and one success bears it out). Without a success, all of them."""
    if rec.state is None or not any(rec.done.get(tool) for tool in claimed):
        return ids
    key = (frozenset(claimed), rec.support)
    beside = rec.beside.get(key)
    if beside is None:  # (once per claimed tools and record: a message may claim the same thousands of times)
        done = {str(d) for tool in claimed for d in rec.done.get(tool, ())}
        beside = rec.beside[key] = {id(t) for d in done for t in _tables(rec.state, d, rec.kept) if is_records(t)}
        while len(rec.beside) > 64:
            rec.beside.pop(next(iter(rec.beside)))
    return {i for i in ids if any(id(t) in beside for t in _tables(rec.state, str(i), rec.kept))}
