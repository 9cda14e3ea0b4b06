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
        **_judges([r["judges"] for r in reviews if r.get("judges")]),
    }


def _judges(judges: list[dict[str, Any]]) -> dict[str, Any]:
    if not judges:
        return {}
    scores = [j["milestone_score"] for j in judges if j.get("milestone_score") is not None]
    return {
        "judges": {
            "episodes": len(judges),
            "mean_milestone_score": fmean(scores) if scores else None,
            "unjudged_stages": sum(j.get("unjudged", 0) for j in judges),
            "tiers": judge_tiers(judges),
        }
    }


def judge_tiers(judges: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per judge tier and model over many episodes' judge records: calls, tokens,
    cost (unknown as soon as one call had no price: never a partial sum shown as the whole),
    escalations, cache hits, seconds."""
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    for j in judges:
        for tier, t in (j.get("tiers") or {}).items():
            row = rows.setdefault(
                (tier, t["model"]),
                {
                    "tier": tier,
                    "model": t["model"],
                    "calls": 0,
                    "tokens": 0,
                    "cost": 0.0,
                    "escalations": 0,
                    "cache hits": 0,
                    "seconds": 0.0,
                },
            )
            row["calls"] += t["calls"]
            row["tokens"] += t["prompt_tokens"] + t["completion_tokens"]
            unpriced = t["cost"] is None and t["calls"] > 0
            row["cost"] = None if row["cost"] is None or unpriced else row["cost"] + (t["cost"] or 0.0)
            row["escalations"] += t["escalations"]
            row["cache hits"] += t["cache_hits"]
            row["seconds"] = round(row["seconds"] + t["seconds"], 3)
    return list(rows.values())


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
