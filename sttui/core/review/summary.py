"""Review figures over many episodes: means, early stops and the steps they save, and how far
stage scores separate controllers compared with pass/fail alone (DynSTEER's argument)."""

from __future__ import annotations

from collections import Counter
from itertools import combinations
from statistics import fmean, pstdev
from typing import Any


def totals(reviews: list[dict[str, Any]], steps: list[int]) -> dict[str, Any]:
    """``reviews``: per-episode review summaries; ``steps``: each episode's agent steps."""
    if not reviews:
        return {}
    stopped = [r["stop"] for r in reviews if r.get("stop")]
    would = [r["would_stop"] for r in reviews if r.get("would_stop")]
    ran = sum(steps)
    saved = sum(s["steps_saved"] for s in stopped)
    would_saved = sum(w["steps_saved"] for w in would)
    return {
        "n": len(reviews),
        "mean_score": fmean(r["score"] for r in reviews),
        "mean_completion": fmean(r["completion"] for r in reviews),
        "early_stops": dict(Counter(s["signal"] for s in stopped)),
        "steps_saved": saved,
        "steps_saved_share": saved / (ran + saved) if ran + saved else 0.0,
        "would_stop": dict(Counter(w["signal"] for w in would)),
        "would_save_share": would_saved / ran if ran else 0.0,
        "first_error_found": sum(1 for r in reviews if r.get("first_error")),
    }


def separation(per_task: dict[str, dict[str, float]]) -> dict[str, Any]:
    """How well one metric tells controllers apart on common tasks.

    ``per_task``: controller -> task -> value (averaged over trials). ``spread`` is the
    population standard deviation of the controllers' means; ``distinguished`` is the share
    of (task, controller pair) comparisons where the two values differ, so ties (two
    failures under pass/fail) count against the metric.
    """
    controllers = sorted(per_task)
    tasks = sorted(set.intersection(*(set(v) for v in per_task.values()))) if per_task else []
    if len(controllers) < 2 or not tasks:
        return {"controllers": len(controllers), "tasks": len(tasks), "spread": None, "distinguished": None}
    means = [fmean(per_task[c][t] for t in tasks) for c in controllers]
    pairs = list(combinations(controllers, 2))
    differ = sum(1 for t in tasks for a, b in pairs if abs(per_task[a][t] - per_task[b][t]) > 1e-9)
    return {
        "controllers": len(controllers),
        "tasks": len(tasks),
        "spread": pstdev(means),
        "distinguished": differ / (len(tasks) * len(pairs)),
    }
