"""Agreement among annotators, per dimension and overall, as AdaExploreBench's human-study
table reports it: Krippendorff's alpha (ordinal, from the krippendorff package), percent
exact and within-1 agreement, the mean, the share of positive ratings, and the number of
items with all their ratings."""

from __future__ import annotations

import math
import random
from collections import defaultdict
from itertools import combinations
from typing import Any

import krippendorff
import numpy as np

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
DOMAIN = (1, 2, 3, 4, 5)


def alpha_interval(ratings: Ratings) -> list[float] | None:
    """A 95 % percentile interval for alpha from resampling the rated items (seeded).

    The same interval as ``bootstrap(units, alpha)``: the same resamples, drawn from the same
    seeded sequence, and alpha computed as ``krippendorff.alpha`` computes it (ordinal, from
    the coincidences), but for a block of resamples at once: each item's coincidences are found
    once, and a resample's are their sum weighted by how often it drew each item."""
    import numpy as np

    from sttui.core.stats import LEVEL, SEED, _quantile

    units = [by for by in ratings.values() if len(by) >= 2]
    n = len(units)
    if n < 2:
        return None
    # each unit's coincidence matrix (krippendorff's _coincidences, one unit at a time)
    rows = []
    for by in units:
        row = [0] * len(DOMAIN)
        for v in by.values():
            row[DOMAIN.index(int(v))] += 1
        rows.append(row)
    counts = np.array(rows, dtype=float)
    pairable = np.maximum(counts.sum(axis=1), 2)
    per_unit = (counts[:, :, None] * counts[:, None, :] - counts[:, None, :] * np.eye(len(DOMAIN))[None]) / (
        pairable - 1
    ).reshape(-1, 1, 1)
    flat = per_unit.reshape(n, -1)
    # the resamples bootstrap() draws: rng.choices(units, k=n) is floor(random() * n), and numpy's
    # legacy Mersenne Twister set to the same state draws the same doubles
    state = random.Random(SEED).getstate()[1]
    draws = np.random.RandomState()
    draws.set_state(("MT19937", np.array(state[:624], dtype=np.uint32), state[624], 0, 0.0))  # no cached gauss
    values: list[float | None] = []
    block = max(1, min(ALPHA_ROUNDS, 250_000 // n))  # a few MB at a time, whatever the items
    # a for over the blocks' starts, not a while on a count: no slip in the bounds can make it spin
    for start in range(0, ALPHA_ROUNDS, block):
        rounds = min(block, ALPHA_ROUNDS - start)
        picks = np.floor(draws.random_sample(rounds * n) * float(n)).astype(np.int64)
        picks += np.repeat(np.arange(rounds, dtype=np.int64) * n, n)  # (round, item) -> one index
        weights = np.bincount(picks, minlength=rounds * n).reshape(rounds, n).astype(float)
        o = (weights @ flat).reshape(rounds, len(DOMAIN), len(DOMAIN))
        values.extend(_ordinal_alpha(o))
    kept = [v for v in values if v is not None and not math.isnan(v)]
    if len(kept) < ALPHA_ROUNDS / 2:
        return None
    kept.sort()
    tail = (1 - LEVEL) / 2
    return [round(_quantile(kept, tail), 6), round(_quantile(kept, 1 - tail), 6)]


def _ordinal_alpha(o: Any) -> list[float | None]:
    """Ordinal alpha of each coincidence matrix in ``o`` (rounds x V x V), as krippendorff.alpha
    computes it; None where every rating is the same value (alpha is undefined)."""
    import numpy as np

    n_v = o.sum(axis=1)  # (rounds, V): o.sum(axis=0) of each matrix
    total = n_v.sum(axis=1)
    e = (n_v[:, :, None] * n_v[:, None, :] - n_v[:, :, None] * np.eye(n_v.shape[1])[None]) / (total - 1)[:, None, None]
    v = n_v.shape[1]
    idx = np.arange(v)
    lo, hi = np.minimum(idx[:, None], idx[None, :]), np.maximum(idx[:, None], idx[None, :])
    cum = np.concatenate([np.zeros((n_v.shape[0], 1)), np.cumsum(n_v, axis=1)], axis=1)
    between = cum[:, hi + 1] - cum[:, lo]  # n_v summed from the lower value to the higher
    d = (between - (n_v[:, lo] + n_v[:, hi]) / 2) ** 2
    with np.errstate(invalid="ignore", divide="ignore"):
        a = 1 - (o * d).sum(axis=(1, 2)) / (e * d).sum(axis=(1, 2))
    varied = (n_v > 0).sum(axis=1) >= 2
    return [float(x) if ok else None for x, ok in zip(a, varied, strict=True)]


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
