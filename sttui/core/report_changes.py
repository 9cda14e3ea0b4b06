"""What a report marks as changed from one value to another, without a word of changing: an
arrow ("TRK-9 → TRK-7") or, in a sentence saying what was, *now* and the value after it ("It
was on TRK-9, now it's on TRK-7"). The value changed from is not stated (``core.reports``
reads a fact from the text with it blanked); the arrow places the value after it
(``core.report_places``). The rules are in task format §5."""

from __future__ import annotations

import re
from bisect import bisect_right
from functools import lru_cache
from typing import TYPE_CHECKING

from sttui.core import facts

if TYPE_CHECKING:
    from sttui.core.report_facts import Resolved


# an arrow from one value to the one it was changed to: "TRK-9 → TRK-7", "TRK-9 -> TRK-7",
# "TRK-9 => TRK-7" (a remark in brackets may stand before it: "TRK-9 (reefer failed) → TRK-7")
_ARROWS = "\u2192\u21d2\u279c\u2794\u279d\u27f6\u27f9\u27a1"
_AN_ARROW = re.compile(rf"[{_ARROWS}]|[-=]>")
_ARROW_AFTER = re.compile(
    rf"[ \t]*(?:\([^()\n]{{0,60}}\)[ \t]*)?[:,]?[ \t]*(?:[{_ARROWS}]\ufe0f?|-+>|=+>)[ \t]*(?:the\s+|a\s+|an\s+)?",
    re.IGNORECASE,
)
# … and just before a value, what places it: "Vehicle: TRK-9 → TRK-7"
ARROW_BEFORE = re.compile(rf"(?:[{_ARROWS}]\ufe0f?|-+>|=+>)[ \t]*(?:the\s+|a\s+|an\s+)?$", re.IGNORECASE)


def unarrowed(fact: Resolved, text: str, theirs: list[Resolved]) -> str:
    """``text`` with each value of an id, a name or a person fact blanked that the message
    changes to another value of its kind, no other fact's: an arrow from it ("TRK-9 → TRK-7",
    "Vehicle changed: TRK-9 => TRK-7", "Bramble → Saltmarsh"), or, in a sentence saying what
    was (*was, were, had, originally, at first*), *now* and the other after it ("It was on
    TRK-9, now it's on TRK-7", "TRK-9 was the plan, now TRK-7"): what it was changed from. An
    arrow to another fact's value is a leg ("KL1143 → SK271", Ingrid's first and second
    flights): neither is blanked."""
    if fact.kind not in ("id", "text", "person"):
        return text
    arrows = _AN_ARROW.search(text) is not None
    nows = [m.start() for m in _NOW.finditer(text)]
    pasts = [m.start() for m in _PAST.finditer(text)] if nows else []
    if not pasts or pasts[0] > nows[-1]:
        nows = []  # (no *now* after what was: nothing to set aside by it)
    if not arrows and not nows:
        return text
    spots: list[tuple[int, int, facts.Found]] = []
    for f in {f.written: f for f in fact.found(text)}.values():  # (each as written once: one pass each)
        spots += [(m.start(), m.end(), f) for m in _written_at(f.written).finditer(text)]
    starts = {a: (b, f) for a, b, f in spots}
    stops = [m.end() for m in _STOP.finditer(text)] if nows else []

    def other(at: int, f: facts.Found, leg: bool) -> tuple[int, facts.Found] | None:
        """The other value at ``at``; ``leg``: none that is another fact's of the same subject (an
        arrow to it is a leg: Ingrid's first flight to her second; "Greenhill: TRK-22 → VAN-8",
        Portview's, is a change)."""
        hit = starts.get(at)
        if hit is None or hit[1].values == f.values or fact.excuses(hit[1]):
            return None
        return None if leg and any(o.about == fact.about and o.matches(hit[1]) for o in theirs) else hit

    out: list[str] | None = None
    for a, b, f in spots:
        arrow = _ARROW_AFTER.match(text, b) if arrows else None
        changed = arrow is not None and other(arrow.end(), f, True) is not None
        if not changed and nows:
            k = bisect_right(stops, a)
            opened, closed = (stops[k - 1] if k else 0), (stops[k] if k < len(stops) else len(text))
            j = bisect_right(nows, b)
            now = nows[j] if j < len(nows) and nows[j] < closed else None
            was = bisect_right(pasts, opened - 1)
            if now is not None and was < len(pasts) and pasts[was] < now:
                after = _NOW_AFTER.match(text, now)
                to = other(after.end(), f, False) if after is not None else None
                # (right after *now*, the value must end its clause: "now TRK-7." not "now TRK-7 is on standby")
                worded = after is not None and text[now + 3 : after.end()].strip() != ""
                changed = to is not None and (worded or _CLAUSE_ENDS.match(text, to[0]) is not None)
        if changed:
            out = out or list(text)
            out[a:b] = [" " if c.isalnum() else c for c in text[a:b]]
    return text if out is None else "".join(out)


# *now* and what puts the value after it in place: "now it's on TRK-7", "now on TRK-7", "now TRK-7."
_NOW = re.compile(r"\bnow\b", re.IGNORECASE)
_NOW_AFTER = re.compile(
    r"now(?:[ \t]+(?:it's|it\u2019s|it|is|they're|they|are|on|onto|with|via|in|at|aboard|using|goes|going|the))*[ \t]+",
    re.IGNORECASE,
)
_PAST = re.compile(r"\b(?:was|were|had|originally|initially|at\s+first)\b", re.IGNORECASE)
_STOP = re.compile(r"[.!?](?=\s|$)|\n")
_CLAUSE_ENDS = re.compile(r"[ \t]*(?:[.,;:!?\n)]|$)")  # (a value right after *now* ends its clause: "now TRK-7.")


@lru_cache(maxsize=4096)
def _written_at(written: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w-]){re.escape(written)}(?![\w-])", re.IGNORECASE)
