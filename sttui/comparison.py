"""``sttui report``: each controller side by side on the same tasks, from the record:
humans, each model, each baseline; with each human's working time per episode, the
milestone review's stage scores, and how far those separate the controllers against
pass/fail alone."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from sttui.core.review.summary import separation
from sttui.core.scoring import pass_at_1


def family(controller: str) -> str:
    return controller.split(":", 1)[0]


def compare(records: list[Any], task_meta: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """``records``: completed episodes; ``task_meta``: task id -> {level, conflict} for stt tasks."""
    by_controller: dict[str, list[Any]] = defaultdict(list)
    for r in records:
        if r.status == "completed":
            by_controller[r.agent].append(r)
    stt_tasks = {c: {r.task_id for r in rs if r.kind == "stt"} for c, rs in by_controller.items()}
    explore_tasks = {c: {r.task_id for r in rs if r.kind == "explore"} for c, rs in by_controller.items()}
    with_stt = [t for t in stt_tasks.values() if t]
    common_stt = set.intersection(*with_stt) if with_stt else set()
    with_explore = [t for t in explore_tasks.values() if t]
    common_explore = set.intersection(*with_explore) if with_explore else set()
    rows = []
    per_task: dict[str, dict[str, dict[str, list[float]]]] = {"pass_fail": {}, "stage_scores": {}}
    for controller, rs in sorted(by_controller.items(), key=lambda kv: (family(kv[0]), kv[0])):
        row: dict[str, Any] = {"controller": controller, "family": family(controller), "episodes": len(rs)}
        stt = [
            {"passed": bool(r.outcome and r.outcome.get("passed")), **task_meta.get(r.task_id, {})}
            for r in rs
            if r.kind == "stt" and r.task_id in common_stt and r.task_id in task_meta
        ]
        if stt:
            summary = pass_at_1(stt)
            row["stt_common_pass_at_1"] = summary["overall"]
            row["stt_common_n"] = summary["n"]
        reviewed = [
            r for r in rs if r.kind == "stt" and r.task_id in common_stt and r.scores and r.scores.get("review")
        ]
        if reviewed:
            reviews = [r.scores["review"] for r in reviewed]
            row["stage_score"] = sum(v["score"] for v in reviews) / len(reviews)
            row["milestone_completion"] = sum(v["completion"] for v in reviews) / len(reviews)
            row["early_stops"] = sum(1 for v in reviews if v.get("stop"))
            row["steps_saved"] = sum(v["stop"]["steps_saved"] for v in reviews if v.get("stop"))
            for r in reviewed:
                passed = 1.0 if r.outcome and r.outcome.get("passed") else 0.0
                per_task["pass_fail"].setdefault(controller, {}).setdefault(r.task_id, []).append(passed)
                per_task["stage_scores"].setdefault(controller, {}).setdefault(r.task_id, []).append(
                    r.scores["review"]["score"]
                )
        explore = [
            r.scores["calibrated_accuracy"]
            for r in rs
            if r.kind == "explore"
            and r.task_id in common_explore
            and r.scores
            and r.scores.get("calibrated_accuracy") is not None
        ]
        if explore:
            row["explore_common_ca"] = sum(explore) / len(explore)
            row["explore_common_n"] = len(explore)
        row["mean_steps"] = sum(r.steps for r in rs) / len(rs)
        times = [r.scores["human_active_seconds"] for r in rs if r.scores and "human_active_seconds" in r.scores]
        if times:
            row["human_seconds_per_episode"] = sum(times) / len(times)
        row["clean_baselines"] = sum(r.clean_baseline for r in rs)
        rows.append(row)
    means = {
        metric: {c: {t: sum(v) / len(v) for t, v in tasks.items()} for c, tasks in by.items()}
        for metric, by in per_task.items()
    }
    return {
        "common_stt_tasks": sorted(common_stt),
        "common_explore_tasks": sorted(common_explore),
        "controllers": rows,
        "separation": {metric: separation(m) for metric, m in means.items()},
    }
