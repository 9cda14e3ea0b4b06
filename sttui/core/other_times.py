"""Times a message gives something other than a fact's own time: a bound ("leave before 13:45", "shut w fog til 22:00",
"before the 13:45 cut-off"), a place's hours ("the clinic opens at 13:00") or the plans of one
of the user's relatives ("Her son is coming at 13:45 to drive her"). Such a time is no rival of
an appointment's: a person finishing a report in a second message writes them around the fact
(task format §5). *by* is not a bound here: "the power will be back by 15:30" gives the time."""

from __future__ import annotations

import functools
import re
from bisect import bisect_right

from sttui.core import facts

# where a clause ends, for the rules read on folded text (not the colon of 14:00, the stop of 7.35)
CLAUSE_BREAK = re.compile(r"[;!?()]|[.:](?=\s|$)")

_BOUND_AT = re.compile(
    r"\b(?:(?:before|after|until|till|til|since|no\s+later\s+than)(?:\s+the)?"
    r"|(?:opens|closes|shuts|opening|closing)(?:\s+at)?)\s+"
)
_KIN = re.compile(
    r"\b(?:her|his|their|your|my)\s+(?:son|daughter|wife|husband|partner|mother|father|mum|mom|dad|carer|"
    r"friend|neighbou?r|brother|sister|family|grandson|granddaughter|grandchildren|children|kids)s?\b"
)
_TIMES = frozenset({"time", "date"})  # the kinds a bound or a relative's plans give values of


def others_time(kind: str, text: str, written: str) -> bool:
    """Whether every place ``text`` gives the value ``written`` (of a fact of ``kind``) is a
    bound's, a place's hours or a relative's: not a value that could conflict with the fact."""
    return kind in _TIMES and _elsewhere(text, written)


@functools.lru_cache(maxsize=1024)
def _elsewhere(text: str, written: str) -> bool:
    """Once per message and value: a message may repeat one value thousands of times."""
    starts, kin_from, kin_to = _marks(text)
    if not starts and not kin_from:
        return False
    folded, w = facts.fold(text), facts.fold(written)
    at = folded.find(w)
    seen = False
    while at >= 0:
        k = bisect_right(kin_from, at) - 1
        if at not in starts and not (k >= 0 and at < kin_to[k]):
            return False
        seen = True
        at = folded.find(w, at + 1)
    return seen


@functools.lru_cache(maxsize=256)
def _marks(text: str) -> tuple[frozenset[int], list[int], list[int]]:
    """Where a value may start right after a ``_BOUND_AT`` phrase, and the clauses (their starts
    and ends, in order) after a ``_KIN`` phrase, in ``text`` folded."""
    folded = facts.fold(text)
    starts = frozenset(m.end() for m in _BOUND_AT.finditer(folded))
    kin_from: list[int] = []
    kin_to: list[int] = []
    for m in _KIN.finditer(folded):
        if kin_to and m.start() < kin_to[-1]:
            continue  # (within the clause already taken)
        brk = CLAUSE_BREAK.search(folded, m.end())
        kin_from.append(m.end())
        kin_to.append(brk.start() if brk else len(folded))
    return starts, kin_from, kin_to
