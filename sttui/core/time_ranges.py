"""Times given as ranges ("open banking at 14:30-15:30", "13:30 to 14:30", "from 13:30 until
14:30"): a fact read from a start field (``STARTS``) takes a range's first time only, and a
range's first time is given as the time in force, even when it is one of the user's own
(``core.reports``). Task format §5, *The conflict rule*."""

from __future__ import annotations

import re

from sttui.core import facts

STARTS = frozenset({"start", "starts", "start_time", "starts_at", "start_at", "begins"})
# between the two times of a range: "13:30-14:30", "13:30 to 14:30", "from 13:30 until 14:30"
_RANGE_GAP = re.compile(r"\s*(?:-|\u2013|\u2014|to|until|till|through)\s*", re.IGNORECASE)
# a range's first time, in folded text: "open banking at 14:30-15:30" gives 14:30 as its time
_RANGE_START = re.compile(r"\b\d{1,2}[:.]\d{2}(?=\s*(?:-|\u2013|\u2014|to|until|till)\s*\d{1,2}[:.]\d{2}\b)")


def first_of_ranges(text: str, found: list[facts.Found]) -> list[facts.Found]:
    """``found`` (times, in the text's order) without the second time of each range: a start
    is the first ("open banking at 13:30-14:30" starts at 13:30, not at 14:30)."""
    out: list[facts.Found] = []
    pos, prev_end = 0, -1
    for f in found:
        at = text.find(f.written, pos)
        if at < 0:  # (not found as written: kept)
            out.append(f)
            continue
        pos = at + len(f.written)
        if prev_end >= 0 and _RANGE_GAP.fullmatch(text, prev_end, at):
            prev_end = -1  # a range's end; a time after it starts anew
            continue
        out.append(f)
        prev_end = pos
    return out


def range_starts(folded: str) -> set[int]:
    """Where the first time of each range of times begins in ``folded`` (folded text)."""
    return {m.start() for m in _RANGE_START.finditer(folded)}
