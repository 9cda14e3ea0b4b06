"""Which of a subject's ordered values a report gives where: a fact named by its place in a
sequence ("first flight", "second flight") and values the report runs together in order
("KL569 to Amsterdam, then BA430 to JRO"; "KL1143/SK271"). The order of mention says which is
which when the report names no fact's label (``core.reports``: labels decide first)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

from sttui.core.report_names import SENTENCE

if TYPE_CHECKING:
    from sttui.core import facts
    from sttui.core.report_facts import Resolved

# the words of a fact's name that give its place in a sequence
ORDINALS = {"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4}

# between two values, what runs them together in order ("then", "followed by", "connecting to",
# "KL1143/SK271", "KL1143 -> SK271") …
_SEQUENCE = re.compile(
    r"(?<!\w)(?:then|followed\s+by|connecting|connection|onward|on\s+to|onto)(?!\w)|->|\u2192|^\s*/\s*$", re.I
)
# … and what says the two are a change, not a sequence ("SK271, then moved to KL1143"), or the
# other way round ("KL569, connecting from BA430", "KL569 after BA430")
_A_CHANGE = re.compile(
    r"(?<!\w)(?:moved|moving|changed|switched|swapped|rebooked|replaced|instead|now|was|were|originally|"
    r"before|previously|cancell?ed|or|after|(?:connecting|connection|onward)\s+from)(?!\w)",
    re.I,
)
_MOST_BETWEEN = 80  # characters between two values of one sequence


def ordinal(label: Iterable[str]) -> int | None:
    """The place a fact's label gives it ("first" of "Ingrid's first flight": 1), or None when
    it gives none or more than one."""
    places = {ORDINALS[w] for w in label if w in ORDINALS}
    return places.pop() if len(places) == 1 else None


def runs(fact: Resolved, text: str) -> list[list[facts.Found]]:
    """The values of the fact's kind that ``text`` runs together in order, two or more at a time
    ("SK271 to Oslo, then KL1143 to Bergen"). None read when a value is not where it was found."""
    out: list[list[facts.Found]] = []
    run: list[facts.Found] = []
    end = 0
    for f in fact.found(text):
        at = text.find(f.written, end)
        if at < 0:
            return []
        between = text[end:at]
        joined = (
            bool(run)
            and len(between) <= _MOST_BETWEEN
            and not SENTENCE.search(between)  # (nor across a line: a list's items)
            and _SEQUENCE.search(between) is not None
            and not _A_CHANGE.search(between)
        )
        if not joined:
            if len(run) > 1:
                out.append(run)
            run = []
        run.append(f)
        end = at + len(f.written)
    if len(run) > 1:
        out.append(run)
    return out


def in_order(fact: Resolved, place: int, texts: Iterable[str]) -> tuple[bool, list[str]] | None:
    """What the order of mention in ``texts`` says of a fact at ``place`` of a sequence: True
    when a run has its value there; False, with the values there, when the runs holding its
    value all hold it elsewhere ("KL569, then BA430" of a first flight BA430); None when no run
    holds its value (nothing said of which is which)."""
    found = [r for t in texts for r in runs(fact, t)]
    if any(len(r) >= place and fact.matches(r[place - 1]) for r in found):
        return True, []
    wrong = [r[place - 1].written for r in found if len(r) >= place and any(fact.matches(f) for f in r)]
    return (False, list(dict.fromkeys(wrong))) if wrong else None
