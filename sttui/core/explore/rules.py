"""Rule families, drift, calibration and utilities.

Every field value is first normalised to z in [0, 1] (numeric: position in its range;
categorical: index of its level over the number of levels minus one), then directed
(``decreasing`` factors use 1 - z), so that a larger directed value always calls for more
intervention. The families then combine the directed values of the relevant factors:

- additive (weighted compensation):  s = sum_f w_f z_f / sum_f w_f
- conjunctive (all conditions required): s = min_f (z_f - t_f)
- disjunctive (any condition suffices):  s = max_f (z_f - t_f)
- lexicographic (fixed priority): factors in priority order; all but the last are met or
  not met at their threshold, the last is graded:
  s = sum_{k<K} 2^(K-k) [z_k >= t_k] + z_K, so a higher-priority factor always outweighs
  everything below it.

Calibration (fitted once, on the pre-change rule, held fixed after drift): the quartiles of
the pre-change score distribution are the action boundaries. A score maps piecewise
linearly onto c in [0, 4] (min -> 0, Q1 -> 1, median -> 2, Q3 -> 3, max -> 4, clamped
outside), and action a (1..4) has its anchor at a - 0.5, so the nearest anchor is exactly
the action of the score's quartile. Utilities are u_a = -|c - anchor_a| centred to sum to
zero over the four actions; the optimal action is the one with the highest utility.
"""

from __future__ import annotations

import bisect
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sttui.core.caches import evict_oldest
from sttui.core.explore.task import ExploreTask, Factor, FieldSpec, Rule

Case = dict[str, Any]
ANCHORS = (0.5, 1.5, 2.5, 3.5)
CALIBRATION_SAMPLES = 4000


def normalise(spec: FieldSpec, value: Any) -> float:
    if spec.type == "numeric":
        lo, hi = spec.range  # type: ignore[misc]  # a numeric field has a range (validated)
        return min(1.0, max(0.0, (float(value) - lo) / (hi - lo)))
    levels = spec.levels or []
    return levels.index(value) / (len(levels) - 1)


def directed(spec: FieldSpec, factor: Factor, value: Any) -> float:
    z = normalise(spec, value)
    return z if factor.direction == "increasing" else 1.0 - z


def score(rule: Rule, fields: Mapping[str, FieldSpec], case: Case) -> float:
    """The rule's raw intervention score for one case."""
    zs = [directed(fields[f.field], f, case[f.field]) for f in rule.factors]
    if rule.family == "additive":
        weights = [f.weight or 0.0 for f in rule.factors]
        return sum(w * z for w, z in zip(weights, zs, strict=True)) / sum(weights)
    margins = [z - (f.threshold or 0.0) for z, f in zip(zs, rule.factors, strict=True)]
    if rule.family == "conjunctive":
        return min(margins)
    if rule.family == "disjunctive":
        return max(margins)
    k = len(zs)
    return sum((1 << (k - 1 - i)) * (m >= 0) for i, m in enumerate(margins[:-1])) + zs[-1]


def drifted(rule: Rule, task: ExploreTask) -> Rule:
    """The post-change rule: one factor replaced (inheriting its parameter), one reversed."""
    assert task.drift is not None
    rep, rev = task.drift.replace, task.drift.reverse
    factors = []
    for f in rule.factors:
        if f.field == rep.factor:
            f = f.model_copy(update={"field": rep.by, "direction": rep.direction})
        if f.field == rev:
            f = f.model_copy(update={"direction": "decreasing" if f.direction == "increasing" else "increasing"})
        factors.append(f)
    return rule.model_copy(update={"factors": factors})


@dataclass(frozen=True)
class Calibration:
    """Quartile knots of the pre-change score distribution: min, Q1, median, Q3, max."""

    knots: tuple[float, float, float, float, float]

    def calibrated(self, s: float) -> float:
        k = self.knots
        if s <= k[0]:
            return 0.0
        if s >= k[4]:
            return 4.0
        i = min(3, bisect.bisect_right(k, s) - 1)
        span = k[i + 1] - k[i]
        return i + ((s - k[i]) / span if span > 0 else 0.5)

    def utilities(self, s: float) -> list[float]:
        c = self.calibrated(s)
        raw = [-abs(c - a) for a in ANCHORS]
        mean = sum(raw) / 4
        return [r - mean for r in raw]


def quantile(sorted_values: Sequence[float], q: float) -> float:
    pos = q * (len(sorted_values) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


def sample_case(fields: Sequence[FieldSpec], rng: random.Random) -> Case:
    case: Case = {}
    for spec in fields:
        if spec.type == "numeric":
            lo, hi = spec.range  # type: ignore[misc]  # a numeric field has a range (validated)
            value = round(rng.uniform(lo, hi), spec.decimals)
            case[spec.name] = int(value) if spec.decimals == 0 else value
        else:
            case[spec.name] = rng.choice(spec.levels or [])
    return case


_CALIBRATIONS: dict[str, Calibration] = {}


def calibrate(task: ExploreTask) -> Calibration:
    """Fit the quartile knots on cases drawn with a seed derived from the task's.

    Depends only on the fields, the pre-change rule and the task seed, so it is cached:
    episodes of one task with different seeds share it.
    """
    key = task.model_dump_json(include={"fields", "rule", "seed"})
    found = _CALIBRATIONS.get(key)
    if found is None:
        evict_oldest(_CALIBRATIONS, 511)  # the generator drafts many rules; keep memory bounded
        found = _CALIBRATIONS[key] = _fit(task)
    return found  # (not read back: another thread may have let it go already)


def _fit(task: ExploreTask) -> Calibration:
    rng = random.Random(f"calibration:{task.seed}")
    fields = {f.name: f for f in task.fields}
    scores = sorted(score(task.rule, fields, sample_case(task.fields, rng)) for _ in range(CALIBRATION_SAMPLES))
    knots = (scores[0], quantile(scores, 0.25), quantile(scores, 0.5), quantile(scores, 0.75), scores[-1])
    return Calibration(knots)


def optimal(utilities: Sequence[float]) -> int:
    """Index of the best action; ties (a score exactly on a boundary) go to less intervention."""
    best = max(utilities)
    return next(i for i, u in enumerate(utilities) if u == best)
