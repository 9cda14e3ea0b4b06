"""Agreement among annotators, per dimension and overall, as AdaExploreBench's human-study
table reports it: Krippendorff's alpha (ordinal, from the krippendorff package), percent
exact and within-1 agreement, the mean, the share of positive ratings, and the number of
items with all their ratings."""

from __future__ import annotations

import math
from collections import defaultdict
from itertools import combinations
from typing import Any

import krippendorff
import numpy as np

from sttui.core.stats import bootstrap

Ratings = dict[str, dict[str, int]]  # item -> annotator -> value


def pairwise(ratings: Ratings, within: int) -> float | None:
    """Share of agreeing pairs (|a - b| <= within) over items with two or more ratings, item-averaged."""
    shares = []
    for by_annotator in ratings.values():
        values = list(by_annotator.values())
        pairs = list(combinations(values, 2))
        if pairs:
            shares.append(sum(abs(a - b) <= within for a, b in pairs) / len(pairs))
    return sum(shares) / len(shares) if shares else None


def alpha(ratings: Ratings) -> tuple[float | None, str | None]:
    """(alpha, None), or (None, why it is undefined) for degenerate data."""
    annotators = sorted({a for by in ratings.values() for a in by})
    items = [i for i, by in ratings.items() if len(by) >= 2]
    if len(annotators) < 2 or not items:
        return None, "fewer than two raters on any item: alpha is undefined"
    values = {v for i in items for v in ratings[i].values()}
    if len(values) < 2:
        return None, f"every rating is {values.pop()}: no variation, alpha is undefined (agreement is total)"
    matrix = np.array([[ratings[i].get(a, np.nan) for i in items] for a in annotators], dtype=float)
    value = float(
        krippendorff.alpha(reliability_data=matrix, level_of_measurement="ordinal", value_domain=[1, 2, 3, 4, 5])
    )
    if math.isnan(value):
        return None, "alpha is undefined for these ratings"
    return value, None


ALPHA_ROUNDS = 1000  # each resample recomputes alpha; 1,000 keep a dimension's interval under a second


def alpha_interval(ratings: Ratings) -> list[float] | None:
    """A 95 % percentile interval for alpha from resampling the rated items (seeded)."""
    units = [by for by in ratings.values() if len(by) >= 2]

    def statistic(sample: list[dict[str, int]]) -> float | None:
        return alpha({str(i): by for i, by in enumerate(sample)})[0]

    found = bootstrap(units, statistic, rounds=ALPHA_ROUNDS)
    return [round(found[0], 6), round(found[1], 6)] if found else None


def summarise(ratings: Ratings, positive: tuple[int, ...], cap: int) -> dict[str, Any]:
    values = [v for by in ratings.values() for v in by.values()]
    a, note = alpha(ratings)
    return {
        "items": len(ratings),
        "ratings": len(values),
        "complete_items": sum(len(by) >= cap for by in ratings.values()),
        "alpha": a,
        "alpha_ci": alpha_interval(ratings) if a is not None else None,
        "alpha_note": note,
        "exact_agreement": pairwise(ratings, 0),
        "within_1_agreement": pairwise(ratings, 1),
        "mean": sum(values) / len(values) if values else None,
        "positive_share": sum(v in positive for v in values) / len(values) if values else None,
    }


def agreement(rows: list[dict[str, Any]], positive: tuple[int, ...] = (4, 5), cap: int = 3) -> dict[str, Any]:
    """``rows``: current ratings ({item_kind, item_id, dimension, annotator, value})."""
    per_dim: dict[str, Ratings] = defaultdict(lambda: defaultdict(dict))
    overall: Ratings = defaultdict(dict)
    for r in rows:
        item = f"{r['item_kind']}:{r['item_id']}"
        per_dim[r["dimension"]][item][r["annotator"]] = int(r["value"])
        overall[f"{item}:{r['dimension']}"][r["annotator"]] = int(r["value"])
    return {
        "dimensions": {d: summarise(dict(r), positive, cap) for d, r in sorted(per_dim.items())},
        "overall": summarise(dict(overall), positive, cap),
    }


def disputes(rows: list[dict[str, Any]], spread: int = 2) -> list[dict[str, Any]]:
    """Items whose ratings on a dimension spread ``spread`` points or more (for adjudication)."""
    groups: dict[tuple[str, str, str], list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        groups[(r["item_kind"], r["item_id"], r["dimension"])].append(r)
    out = []
    for (kind, item, dim), rs in sorted(groups.items()):
        values = [r["value"] for r in rs]
        if len(values) >= 2 and max(values) - min(values) >= spread:
            out.append(
                {
                    "item_kind": kind,
                    "item_id": item,
                    "dimension": dim,
                    "ratings": [
                        {"annotator": r["annotator"], "value": r["value"], "comment": r["comment"]} for r in rs
                    ],
                }
            )
    return out
