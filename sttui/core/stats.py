"""Estimators over repeated trials, and seeded bootstrap intervals for every headline figure.

- ``pass_at_k``: the unbiased estimator of Pass@k (Chen et al. 2021) from n trials with c
  successes: 1 - C(n-c, k) / C(n, k), the chance that at least one of k trials passes.
- ``pass_hat_k``: τ²-bench's reliability, pass^k = C(c, k) / C(n, k), the chance that all k of
  k trials drawn without replacement pass.
- ``bootstrap``: a percentile interval from resampling units (tasks, or rated items for α)
  with replacement, with a fixed seed so a rerun prints the same interval.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

T = TypeVar("T")

ROUNDS = 2000
SEED = 0
LEVEL = 0.95


def pass_at_k(n: int, c: int, k: int) -> float:
    """The unbiased estimator of Pass@k from n trials with c successes."""
    if not 0 <= c <= n:
        raise ValueError(f"successes must be within 0..{n}; got {c}")
    if k > n:
        raise ValueError(f"Pass@{k} needs at least {k} trials; got {n}")
    if n - c < k:
        return 1.0
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def pass_hat_k(n: int, c: int, k: int) -> float:
    """pass^k: the chance that k trials drawn without replacement all pass."""
    if not 0 <= c <= n:
        raise ValueError(f"successes must be within 0..{n}; got {c}")
    if k > n:
        raise ValueError(f"pass^{k} needs at least {k} trials; got {n}")
    return math.comb(c, k) / math.comb(n, k)


def bootstrap(
    units: Sequence[T],
    statistic: Callable[[list[T]], float | None],
    *,
    rounds: int = ROUNDS,
    seed: int = SEED,
    level: float = LEVEL,
) -> tuple[float, float] | None:
    """A percentile interval for ``statistic`` from resampling ``units`` with replacement.

    None with fewer than two units (nothing to resample) or when the statistic is undefined on
    most resamples. Resamples on which it is undefined are left out."""
    if len(units) < 2:
        return None
    rng = random.Random(seed)
    n = len(units)
    units = list(units)
    values: list[float] = []
    for _ in range(rounds):
        sample = rng.choices(units, k=n)
        value = statistic(sample)
        if value is not None and not math.isnan(value):
            values.append(value)
    if len(values) < rounds / 2:
        return None
    values.sort()
    tail = (1 - level) / 2
    return _quantile(values, tail), _quantile(values, 1 - tail)


def _quantile(ordered: list[float], q: float) -> float:
    """Linear interpolation between order statistics (numpy's default)."""
    pos = q * (len(ordered) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


def mean_of(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def ratio_of(pairs: list[tuple[float, int]]) -> float | None:
    """Pooled mean of clustered data: sum of values over sum of counts (episodes per task)."""
    total = sum(n for _, n in pairs)
    return sum(v for v, _ in pairs) / total if total else None


def by_unit(pairs: Iterable[tuple[str, T]]) -> list[list[T]]:
    """Values grouped by their unit (a task id), in the units' sorted order. The bootstrap's
    resamples are drawn over positions, so the same episodes must give the same groups in the
    same order wherever they are reported (``run`` and ``report`` print one interval)."""
    groups: dict[str, list[T]] = {}
    for unit, value in pairs:
        groups.setdefault(unit, []).append(value)
    return [groups[u] for u in sorted(groups)]


def interval(units: Sequence[Any], statistic: Callable[[list[Any]], float | None]) -> list[float] | None:
    """``bootstrap`` with the house defaults, as a JSON-friendly ``[low, high]``."""
    found = bootstrap(units, statistic)
    return [round(found[0], 6), round(found[1], 6)] if found else None


def pooled_interval(totals: Sequence[float], counts: Sequence[int] | None = None) -> list[float] | None:
    """The interval of a pooled mean, sum(totals) / sum(counts) over resampled units (tasks),
    computed in one vectorised pass: the same percentile bootstrap as ``interval`` for the
    figures a run reports many of (Pass@k and pass^k for every k)."""
    n = len(totals)
    if n < 2:
        return None
    import numpy as np

    idx = _indices(n)
    totals_, counts_ = (
        np.asarray(totals, dtype=float),
        np.asarray(counts if counts is not None else [1] * n, dtype=float),
    )
    t, c = np.empty(ROUNDS), np.empty(ROUNDS)
    # a block of resamples at a time: each resample's sum is the same whatever the block (numpy
    # sums along a row on its own), and a few thousand tasks never make a ROUNDS x n array
    step = max(1, _BLOCK // n)
    for first in range(0, ROUNDS, step):
        rows = idx[first : first + step]
        t[first : first + step] = totals_[rows].sum(axis=1)
        c[first : first + step] = counts_[rows].sum(axis=1)
    values = np.sort(t / c)
    tail = (1 - LEVEL) / 2
    lo, hi = _quantile(values.tolist(), tail), _quantile(values.tolist(), 1 - tail)
    return [round(lo, 6), round(hi, 6)]


_INDEX_CACHE: dict[int, Any] = {}
_CACHED = 8  # index tables kept (the latest drawn); a report over many task counts keeps a few
_BLOCK = 1 << 17  # resampled values gathered at a time by ``pooled_interval``


def _indices(n: int) -> Any:
    """ROUNDS resamples of n units, drawn once per n with the house seed (numpy's PCG64): the
    values one ``integers(0, n, size=(ROUNDS, n))`` call gives, drawn a block of rows at a time
    into the table kept (never a second copy of it)."""
    if n not in _INDEX_CACHE:
        import numpy as np

        if len(_INDEX_CACHE) >= _CACHED:
            del _INDEX_CACHE[next(iter(_INDEX_CACHE))]
        rng = np.random.default_rng(SEED)
        drawn = np.empty((ROUNDS, n), dtype=np.intp)  # (numpy's own index type: gathers by it are fastest)
        step = max(1, _BLOCK // n)  # drawn a block of rows at a time: the same stream, in order
        for lo in range(0, ROUNDS, step):
            drawn[lo : lo + step] = rng.integers(0, n, size=(min(step, ROUNDS - lo), n))
        _INDEX_CACHE[n] = drawn
    return _INDEX_CACHE[n]


def clustered_bootstrap(
    clusters: Sequence[Sequence[float]],
    *,
    rounds: int = ROUNDS,
    seed: int = SEED,
    level: float = LEVEL,
) -> tuple[float, float] | None:
    """A percentile interval for the pooled mean of values grouped in clusters (a participant's
    episodes), resampled in two stages: clusters with replacement, then each drawn cluster's
    values with replacement. Episodes of one person are not independent (skill, strategy,
    fatigue), so resampling episodes alone understates the spread; this does not.

    None with fewer than two clusters."""
    groups = [list(c) for c in clusters if len(c)]
    if len(groups) < 2:
        return None
    rng = random.Random(seed)
    n = len(groups)
    values: list[float] = []
    for _ in range(rounds):
        total = count = 0.0
        for group in rng.choices(groups, k=n):
            drawn = rng.choices(group, k=len(group))
            total += sum(drawn)
            count += len(drawn)
        values.append(total / count)
    values.sort()
    tail = (1 - level) / 2
    return _quantile(values, tail), _quantile(values, 1 - tail)


def pass_at_k_table(groups: list[list[bool]]) -> dict[str, Any]:
    """Pass@k and pass^k for every k up to the fewest trials of any task: each the mean over
    tasks of the task's estimate, with its bootstrap interval over tasks. (Here, beside its
    estimators, so ``report`` reads it without importing the runner.)"""
    trials = min(len(g) for g in groups)
    out: dict[str, Any] = {"trials": trials, "pass_at_k": {}, "pass_hat_k": {}, "pass_at_k_ci": {}, "pass_hat_k_ci": {}}
    for k in range(1, trials + 1):
        for name, mark, estimator in (("pass_at_k", "@", pass_at_k), ("pass_hat_k", "^", pass_hat_k)):
            per_task = [estimator(len(g), sum(g), k) for g in groups]
            out[name][f"pass{mark}{k}"] = mean_of(per_task)
            out[f"{name}_ci"][f"pass{mark}{k}"] = pooled_interval(per_task)
    return out
