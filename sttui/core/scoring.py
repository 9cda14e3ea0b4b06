"""Pass@1 as STT-Arena reports it: overall weighted by level counts, per level, per subtype."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from sttui.core.taxonomy import CONFLICTS, LEVELS

# STT-Arena's own instance counts per level (appendix C.2): 71, 67, 59, 30 of 227.
PAPER_LEVEL_COUNTS = {"easy": 71, "medium": 67, "hard": 59, "impossible": 30}


def _rate(values: list[bool]) -> float:
    return sum(values) / len(values) if values else 0.0


def pass_at_1(records: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """Summarise records with ``level``, ``conflict`` and ``passed``.

    ``overall`` weights each level's pass rate by its share of the evaluated tasks, as the
    paper does (with the paper's own counts it gives 71/227, 67/227, ...).
    ``overall_paper_weights`` re-weights by the paper's counts, for comparison with its
    figures when the evaluated set is distributed differently.
    """
    by_level: dict[str, list[bool]] = defaultdict(list)
    by_conflict: dict[str, list[bool]] = defaultdict(list)
    for r in records:
        by_level[r["level"]].append(bool(r["passed"]))
        by_conflict[r["conflict"]].append(bool(r["passed"]))
    total = sum(len(v) for v in by_level.values())
    levels = {lv: {"n": len(by_level[lv]), "pass_at_1": _rate(by_level[lv])} for lv in LEVELS if by_level[lv]}
    overall = sum(len(by_level[lv]) / total * _rate(by_level[lv]) for lv in levels) if total else 0.0
    paper_total = sum(PAPER_LEVEL_COUNTS[lv] for lv in levels)
    paper = sum(PAPER_LEVEL_COUNTS[lv] / paper_total * _rate(by_level[lv]) for lv in levels) if levels else 0.0
    return {
        "n": total,
        "overall": overall,
        "overall_paper_weights": paper,
        "levels": levels,
        "conflicts": {
            c: {"n": len(by_conflict[c]), "pass_at_1": _rate(by_conflict[c])} for c in CONFLICTS if by_conflict[c]
        },
    }
