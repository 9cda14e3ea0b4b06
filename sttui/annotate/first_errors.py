"""How annotators' first wrong steps compare with the milestone review's suggestion: a check
on automatic first-error localisation against people, per DynSTEER's claim that stage-wise
review localises failures. Plain data in, plain data out."""

from __future__ import annotations

from typing import Any


def suggestion_agreement(marks: list[tuple[int, int | None]]) -> dict[str, Any]:
    """``marks``: (the annotator's first wrong step, the review's suggested step or None), both
    as agent steps. Counts where the person confirmed the suggestion, came within one step,
    or put the error earlier or later."""
    rated = [(mine, sug) for mine, sug in marks if sug is not None]
    out: dict[str, Any] = {
        "marked": len(marks),
        "with_suggestion": len(rated),
        "confirmed": sum(1 for mine, sug in rated if mine == sug),
        "within_one_step": sum(1 for mine, sug in rated if abs(mine - sug) <= 1),
        "annotator_earlier": sum(1 for mine, sug in rated if mine < sug),
        "annotator_later": sum(1 for mine, sug in rated if mine > sug),
    }
    out["confirmed_share"] = out["confirmed"] / len(rated) if rated else None
    return out
