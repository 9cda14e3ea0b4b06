"""``sttui report``: each controller side by side on the same tasks, from the record:
humans, each model, each baseline, under each setting (dynamic against static, user against
no user, the explore settings); with each human's working time per episode, the milestone
review's stage scores, and how far those separate the controllers against pass/fail alone.

Errored episodes are failures in every pass rate and are counted in their own column; an
errored explore episode scores its unplayed batches as a random policy would.

An episode belongs to the controller that took its agent steps. One whose steps were taken by
several (a person handed the seat to a model, or took it back), or whose model was steered by
a person's rejections under oversight, is **mixed**: it goes in a ``mixed`` row of its own,
never credited to a single person or model, with the share of agent steps each holder took.
The mixed rows are shown beside the controllers; they do not narrow the common tasks the
controllers are compared on, nor enter the settings comparison or the separation figures.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from sttui.core.control import agent_holder, valid_control
from sttui.core.review.summary import separation
from sttui.core.scoring import pass_at_1
from sttui.core.stats import by_unit, mean_of, pooled_interval

FINISHED = ("completed", "errored")
BASE = "default"  # stt: dynamic, with a user; explore: the file's default setting
MIXED = "mixed"


def family(controller: str) -> str:
    return controller.split(":", 1)[0]


def setting_of(record: Any) -> str:
    return record.setting or BASE


def _passed(r: Any) -> bool:
    return r.status == "completed" and bool(r.outcome and r.outcome.get("passed"))


def _label(controller: str, setting: str) -> str:
    return controller if setting == BASE else f"{controller} [{setting}]"


def control_of(record: Any, controls: dict[str, dict[str, Any]] | None = None) -> dict[str, Any] | None:
    """The episode's control summary: ``controls[id]`` (tallied from its events by the caller,
    for records from before summaries were kept), else the one its scores carry."""
    if controls and record.id in controls:
        return controls[record.id]
    return valid_control((record.scores or {}).get("control"))


_UNSET: Any = object()


def holder(record: Any, controls: dict[str, dict[str, Any]] | None = None, control: Any = _UNSET) -> str:
    """Whom the episode's agent results belong to: a controller, or ``mixed`` (``control``: the
    record's ``control_of``, when the caller has it already)."""
    if control is _UNSET:
        control = control_of(record, controls)
    return agent_holder(control, record.agent) if control is not None else record.agent


def compare(
    records: list[Any], task_meta: dict[str, dict[str, Any]], controls: dict[str, dict[str, Any]] | None = None
) -> dict[str, Any]:
    """``records``: finished episodes (completed or errored); ``task_meta``: task id ->
    {level, conflict} for stt tasks; ``controls``: control summaries by episode id for
    records whose scores lack one (see ``control_of``)."""
    groups: dict[tuple[str, str], list[Any]] = defaultdict(list)
    for r in records:
        if r.status in FINISHED:
            groups[(holder(r, controls), setting_of(r))].append(r)
    compared = {g: rs for g, rs in groups.items() if g[0] != MIXED}
    stt_tasks = {g: {r.task_id for r in rs if r.kind == "stt"} for g, rs in compared.items()}
    explore_tasks = {g: {r.task_id for r in rs if r.kind == "explore"} for g, rs in compared.items()}
    with_stt = [t for t in stt_tasks.values() if t]
    common_stt = set.intersection(*with_stt) if with_stt else set()
    with_explore = [t for t in explore_tasks.values() if t]
    common_explore = set.intersection(*with_explore) if with_explore else set()
    rows = []
    per_task: dict[str, dict[str, dict[str, list[float]]]] = {"pass_fail": {}, "stage_scores": {}}
    for (controller, setting), rs in sorted(groups.items(), key=lambda kv: (family(kv[0][0]), kv[0])):
        label = _label(controller, setting)
        row = _row(controller, setting, rs, common_stt, common_explore, task_meta)
        if controller == MIXED:
            row["stt_passed"] = sum(_passed(r) for r in rs if r.kind == "stt")
            row["stt_episodes"] = sum(r.kind == "stt" for r in rs)
            row.update(_holders(rs, controls))
            rows.append(row)
            continue
        for r in rs:
            if r.kind == "stt" and r.task_id in common_stt and r.scores and r.scores.get("review"):
                per_task["pass_fail"].setdefault(label, {}).setdefault(r.task_id, []).append(float(_passed(r)))
                per_task["stage_scores"].setdefault(label, {}).setdefault(r.task_id, []).append(
                    r.scores["review"]["score"]
                )
        rows.append(row)
    means = {
        metric: {c: {t: sum(v) / len(v) for t, v in tasks.items()} for c, tasks in by.items()}
        for metric, by in per_task.items()
    }
    return {
        "common_stt_tasks": sorted(common_stt),
        "common_explore_tasks": sorted(common_explore),
        "controllers": rows,
        "settings": settings_comparison(compared),
        "separation": {metric: separation(m) for metric, m in means.items()},
    }


def _row(
    controller: str,
    setting: str,
    rs: list[Any],
    common_stt: set[str],
    common_explore: set[str],
    task_meta: dict[str, dict[str, Any]],
) -> dict[str, Any]:
    row: dict[str, Any] = {
        "controller": controller,
        "setting": setting,
        "family": family(controller),
        "episodes": len(rs),
        "errored": sum(r.status == "errored" for r in rs),
    }
    stt = [r for r in rs if r.kind == "stt" and r.task_id in common_stt and r.task_id in task_meta]
    if stt:
        summary = pass_at_1([{"passed": _passed(r), **task_meta[r.task_id]} for r in stt])
        row["stt_common_pass_at_1"] = summary["overall"]
        row["stt_common_n"] = summary["n"]
        row.update(_pass_at_k(stt))
    reviewed = [r for r in rs if r.kind == "stt" and r.task_id in common_stt and r.scores and r.scores.get("review")]
    if reviewed:
        reviews = [r.scores["review"] for r in reviewed]
        row["stage_score"] = sum(v["score"] for v in reviews) / len(reviews)
        row["stage_score_ci"] = _pooled_ci(reviewed, lambda r: r.scores["review"]["score"])
        row["milestone_completion"] = sum(v["completion"] for v in reviews) / len(reviews)
        row["early_stops"] = sum(1 for v in reviews if v.get("stop"))
        row["steps_saved"] = sum(v["stop"]["steps_saved"] for v in reviews if v.get("stop"))
    explore = [
        r
        for r in rs
        if r.kind == "explore"
        and r.task_id in common_explore
        and r.scores
        and r.scores.get("calibrated_accuracy") is not None
    ]
    if explore:
        row["explore_common_ca"] = sum(r.scores["calibrated_accuracy"] for r in explore) / len(explore)
        row["explore_common_ca_ci"] = _pooled_ci(explore, lambda r: r.scores["calibrated_accuracy"])
        row["explore_common_n"] = len(explore)
        row["explore_incomplete"] = sum(bool(r.scores.get("incomplete")) for r in explore)
    row.update(user_verdicts(rs))
    row["mean_steps"] = sum(r.steps for r in rs) / len(rs)
    times = [r.scores["human_active_seconds"] for r in rs if r.scores and "human_active_seconds" in r.scores]
    if times:
        row["human_seconds_per_episode"] = sum(times) / len(times)
    row["clean_baselines"] = sum(r.clean_baseline for r in rs)
    return row


def user_verdicts(rs: list[Any]) -> dict[str, Any]:
    """Beside the pass rate: of the stt episodes whose user gave a verdict (``scores.user_verdict``),
    the share satisfied, and how often user and checklist disagree (satisfied on a failed
    episode, or not satisfied or given up on a passed one). Nothing when none has a verdict."""
    from sttui.core import verdicts

    pairs = [
        (kind, _passed(r))
        for r in rs
        if r.kind == "stt" and r.scores and (kind := verdicts.kind_of(r.scores.get("user_verdict"))) is not None
    ]
    if not pairs:
        return {}
    satisfied = sum(v == verdicts.SATISFIED for v, _ in pairs)
    return {
        "user_verdicts": len(pairs),
        "user_satisfied": satisfied / len(pairs),
        "user_checklist_disagree": sum(verdicts.disagrees(v, p) for v, p in pairs),
        "satisfied_but_failed": sum(v == verdicts.SATISFIED and not p for v, p in pairs),
        "unsatisfied_but_passed": sum(v != verdicts.SATISFIED and p for v, p in pairs),
    }


def _holders(rs: list[Any], controls: dict[str, dict[str, Any]] | None) -> dict[str, Any]:
    """The mixed row's holders: agent steps each controller took over its episodes, their
    shares, and how many of those episodes each took part in."""
    steps: dict[str, int] = defaultdict(int)
    episodes: dict[str, int] = defaultdict(int)
    for r in rs:
        control = control_of(r, controls) or {}
        for actor, n in control.get("agent_steps", {}).items():
            if n > 0:
                steps[actor] += n
                episodes[actor] += 1
    total = sum(steps.values())
    order = sorted(steps, key=lambda a: (-steps[a], a))
    return {
        "holders": [
            {"controller": a, "agent_steps": steps[a], "share": steps[a] / total, "episodes": episodes[a]}
            for a in order
        ]
    }


def _pooled_ci(rs: list[Any], value: Any) -> list[float] | None:
    groups = by_unit((r.task_id, value(r)) for r in rs)
    return pooled_interval([sum(g) for g in groups], [len(g) for g in groups])


def _pass_at_k(stt: list[Any]) -> dict[str, Any]:
    """Pass@k and pass^k for every k up to the fewest trials any common task had, with intervals."""
    from sttui.running.batch import pass_at_k_table

    groups = by_unit((r.task_id, _passed(r)) for r in stt)
    table = pass_at_k_table(groups)
    out: dict[str, Any] = {
        "trials": table["trials"],
        "pass_at_1_ci": pooled_interval([sum(g) for g in groups], [len(g) for g in groups]),
    }
    if table["trials"] >= 2:
        out |= {k: table[k] for k in ("pass_at_k", "pass_at_k_ci", "pass_hat_k", "pass_hat_k_ci")}
    return out


def _figure(episodes: list[Any], tasks: set[str], kind: str) -> float | None:
    """Pass@1 (stt) or mean CA (explore) over the episodes of ``tasks``."""
    chosen = [r for r in episodes if r.task_id in tasks]
    if kind == "stt":
        return mean_of([float(_passed(r)) for r in chosen])
    return mean_of([r.scores["calibrated_accuracy"] for r in chosen if r.scores])


def settings_comparison(groups: dict[tuple[str, str], list[Any]]) -> list[dict[str, Any]]:
    """For each controller run under the base setting and another: both on their common tasks
    (Pass@1 for stt, CA for explore) and the difference (other minus base)."""
    out = []
    for (controller, setting), rs in sorted(groups.items()):
        if setting == BASE or (controller, BASE) not in groups:
            continue
        for kind in sorted({r.kind for r in rs}):
            base = [r for r in groups[(controller, BASE)] if r.kind == kind]
            other = [r for r in rs if r.kind == kind]
            common = {r.task_id for r in base} & {r.task_id for r in other}
            if not common:
                continue
            a, b = _figure(base, common, kind), _figure(other, common, kind)
            out.append(
                {
                    "controller": controller,
                    "measure": "pass@1" if kind == "stt" else "calibrated_accuracy",
                    "base": BASE,
                    "setting": setting,
                    "tasks": len(common),
                    "base_value": a,
                    "value": b,
                    "difference": None if a is None or b is None else b - a,
                }
            )
    return out
