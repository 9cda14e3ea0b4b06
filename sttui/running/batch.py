"""Headless batch runs: the trials of a run plan at bounded concurrency, every event in the
store, and the run's report: Pass@1, Pass@k and pass^k with bootstrap intervals, tool calls,
tokens and cost, explore metrics. An errored episode is a failure in every rate, never a gap."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable, Set
from typing import Any

from sttui.controllers.registry import make_agent, make_judge, make_user
from sttui.controllers.stage_judge import JudgeCache, make_stage_judge
from sttui.core.explore.episode import ExploreEpisode
from sttui.core.explore.metrics import metrics as explore_metrics
from sttui.core.explore.metrics import summarise
from sttui.core.review.judging import JudgeSpec
from sttui.core.review.summary import totals
from sttui.core.scoring import pass_at_1
from sttui.core.stats import by_unit, pass_at_k, pass_at_k_table, pass_hat_k, pooled_interval
from sttui.running.plan import RunPlan, Trial
from sttui.running.recording import Recorder, finish_items
from sttui.running.runner import AnyEpisode, Seats, drive, open_episode
from sttui.store.loop_writer import headless_writer
from sttui.store.runs import Claim
from sttui.store.store import Store, new_episode_id
from sttui.store.writer import Committer, mark_unrecorded

__all__ = ["pass_at_k", "pass_at_k_table", "pass_hat_k", "report", "run_batch"]


async def run_batch(
    plan: RunPlan,
    *,
    store: Store | None,
    progress: Callable[[dict[str, Any]], None] | None = None,
    judge: Any = None,
) -> list[dict[str, Any]]:
    """Run every trial of ``plan``; each finished or failed episode becomes one record.
    ``judge`` overrides the plan's judge with a live object (the person at the terminal).

    Once a write has failed past the writer's deadline the record is not usable, and the run
    stops: trials not started yet are not started (they have no record; the caller sees fewer
    records than planned), so a full disk costs one deadline, not one per trial."""
    gate = asyncio.Semaphore(plan.concurrency)
    writer = headless_writer(store, waits_on_a_person=judge is not None) if store is not None else None
    chosen_judge = judge if judge is not None else make_judge(plan.judge, plan.models)
    judge_cache = JudgeCache(store=store)  # the stage judges' answers, shared by the run's episodes

    async def one(trial: Trial) -> dict[str, Any] | None:
        async with gate:
            if (
                writer is not None and store is not None and writer.failed
            ):  # (a writer records into the store)  # the record failed: start nothing more
                return None
            out = await _run_trial(plan, trial, store, writer, chosen_judge, judge_cache=judge_cache)
            if progress:
                progress(out)
            return out

    finished: list[dict[str, Any]] = []

    async def kept(trial: Trial) -> dict[str, Any] | None:
        out = await one(trial)
        if out is not None:
            finished.append(out)
        return out

    try:
        records = [r for r in await asyncio.gather(*(kept(t) for t in plan.all_trials())) if r is not None]
    except asyncio.CancelledError:  # Ctrl-C: each episode in flight marked itself stopped (_run_trial)
        interrupted = True
        records = list(finished)
    else:
        interrupted = False
    finally:
        if writer is not None:
            await asyncio.to_thread(writer.flush)
            writer.close()
        if plan.record:
            _save_judgements(judge_cache)
    if writer is not None and store is not None and writer.failed:  # (a writer records into the store)
        marked = await asyncio.to_thread(mark_unrecorded, store, dict(writer.failed))
        _record_failures(records, writer, marked)
    if interrupted:
        raise RunInterrupted(records)
    return records


class RunInterrupted(Exception):
    """The run was interrupted (Ctrl-C): ``records`` are the episodes that finished before it;
    those in flight were marked ``stopped`` ("interrupted") in the record, never left running."""

    def __init__(self, records: list[dict[str, Any]]):
        super().__init__(f"interrupted after {len(records)} episode(s)")
        self.records = records


async def _run_trial(
    plan: RunPlan,
    trial: Trial,
    store: Store | None,
    writer: Committer | None,
    judge: Any,
    claim: Claim | None = None,
    judge_cache: JudgeCache | None = None,
) -> dict[str, Any]:
    """One trial as one record. ``claim``: a run item this worker holds (sttui/running/sharding.py); the
    episode takes the claim's id, and ends with its item done only while the claim is still its."""
    loaded = trial.loaded
    models = plan.models
    controller = make_agent(plan.agent, loaded, trial.seed, models, store, plan.settings)
    user_spec = plan.user_for(loaded)
    seat_user = make_user(user_spec, models, seed=trial.seed) if user_spec else None
    actors = {"agent": controller.name, "user": seat_user.name if seat_user else "none"}
    stage_judge = (
        make_stage_judge(JudgeSpec.parse(plan.review.judge_stages), models, judge_cache)
        if loaded.kind == "stt"
        else None
    )
    episode = open_episode(
        loaded,
        trial.seed,
        actors,
        review=plan.review,
        settings=plan.settings,
        external_scores=stage_judge is not None,
    )
    setting = plan.setting_label(loaded)
    episode_id = None
    recorder: Recorder | None = None
    if store is not None and writer is not None:
        episode_id = claim.episode_id if claim is not None else new_episode_id()
        recorder = Recorder(store, episode_id, 1, writer)
        user_name = seat_user.name if seat_user else None
        # created in the same transaction as its first events (the writer's group commit)
        recorder.submit_write(
            lambda: store.episode_items(loaded, trial.seed, controller.name, user_name, episode_id, setting)
        )
        episode.listeners.append(recorder)
        for c in (controller, seat_user):
            if c is not None and hasattr(c, "record"):
                c.record = lambda kind, payload, who=c.name, rec=recorder: rec.meta(kind, who, payload)
    base = {"episode": episode_id, "trial": trial.index, "seed": trial.seed, "setting": setting}
    try:
        episode.start()
        result = await drive(
            episode,
            Seats(controller, seat_user),
            judge,
            checkpoint=recorder.durable if recorder else None,
            stage_judge=stage_judge,
        )
    except asyncio.CancelledError:
        # Ctrl-C: stopped at its last step, never left running in the record. A shared run's
        # item is handed back instead (cli/runs.py), and whoever takes it abandons this episode.
        if recorder is not None and store is not None and episode_id is not None and claim is None:
            steps = episode.steps
            reason = f"interrupted (Ctrl-C) at step {steps}"
            recorder.submit_write(lambda: store.finish_items(episode_id, "stopped", end_reason=reason, steps=steps))
        raise
    except Exception as exc:  # the run goes on; this episode is errored, and counts as a failure
        reason = f"{type(exc).__name__}: {exc}"
        out = {**base, **_partial(episode, controller.name), "status": "errored", "error": reason}
        if recorder is not None and store is not None and episode_id is not None:
            scores = {k: out[k] for k in ("review",) if out.get(k)} | (out.get("metrics") or {})
            steps = episode.steps
            recorder.submit_write(
                lambda: _claimed(
                    claim,
                    store.finish_items(episode_id, "errored", end_reason=reason, scores=scores or None, steps=steps),
                )
            )
        return out | _usage(controller, seat_user)
    if recorder is not None and store is not None and episode_id is not None:
        recorder.submit_write(lambda: _claimed(claim, finish_items(store, episode_id, result)))
    return {**base, "status": "completed", **result.as_dict()} | _usage(controller, seat_user)


def _save_judgements(cache: JudgeCache) -> None:
    """The run's new stage judgements into the database's cache. A cache that cannot be
    written costs only future calls: said on stderr, never a failed run."""
    try:
        cache.save()
    except Exception as exc:
        print(f"note: the stage judges' cache was not saved: {exc}", file=sys.stderr)


def _claimed(claim: Claim | None, items: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """An episode's finishing update, made conditional on its run item's claim when it has one."""
    if claim is None:
        return items
    return [
        ("run_item_done", claim.run_id, claim.idx, item[1], item[2]) if item[0] == "update" else item for item in items
    ]


def _record_failures(records: list[dict[str, Any]], writer: Committer, marked: Set[str] = frozenset()) -> None:
    """An episode whose record stopped is errored here too, whatever it did: the run reports
    no success over a lost write. ``marked``: those the record itself now says are errored
    (``mark_unrecorded``); the others stay ``running`` there."""
    for r in records:
        reason = writer.failed.get(r.get("episode") or "")
        if reason is not None:
            r["status"] = "errored"
            r["error"] = reason
            r["record_failed"] = True
            r["record_marked"] = r["episode"] in marked
            if r.get("kind") == "stt":
                r["passed"] = False


def _partial(episode: AnyEpisode, agent: str) -> dict[str, Any]:
    """What an errored episode achieved before it failed: a failure for stt, with the review so
    far; the explore metrics with every unplayed batch at a random policy's score."""
    task = episode.task
    out: dict[str, Any] = {"task": task.id, "kind": task.kind, "agent": agent, "steps": episode.steps}
    if isinstance(episode, ExploreEpisode):
        out |= {"family": episode.task.rule.family, "metrics": explore_metrics(episode)}
        return out
    stt = episode.task
    out |= {"level": stt.level, "conflict": stt.conflict, "passed": False}
    review = episode.review
    if review is not None:
        out["review"] = review.summary(episode.steps, stt.max_steps)
    return out


def _usage(*controllers: Any) -> dict[str, Any]:
    usage = [c.usage for c in controllers if c is not None and hasattr(c, "usage")]
    if not usage:
        return {}
    costs = [u.cost for u in usage if u.cost is not None]
    return {
        "model_calls": sum(u.calls for u in usage),
        "tokens": sum(u.prompt_tokens + u.completion_tokens for u in usage),
        "cost": sum(costs) if costs else None,
    }


def report(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Pass@1 (overall by level, per level, per subtype), Pass@k and pass^k for every k up to
    the trials run, means, explore metrics; each headline figure with a 95 % bootstrap interval
    over tasks. Errored episodes are failures and are counted as such."""
    stt = [r for r in records if r.get("kind") == "stt"]
    explore = [r for r in records if r.get("kind") == "explore" and r.get("metrics")]
    errored = [r for r in records if r.get("status") == "errored"]
    out: dict[str, Any] = {
        "episodes": len(records),
        "errored": len(errored),
        "errored_episodes": [
            {"task": r["task"], "trial": r.get("trial"), "episode": r.get("episode"), "error": r.get("error")}
            for r in errored
        ],
    }
    if stt:
        out["stt"] = stt_summary(stt)
    if explore:
        out["explore"] = explore_summary(explore)
    tokens = [r["tokens"] for r in records if r.get("tokens") is not None]
    if tokens:
        out["tokens"] = sum(tokens)
        costs = [r["cost"] for r in records if r.get("cost") is not None]
        out["cost"] = sum(costs) if costs else None
    return out


def stt_summary(stt: list[dict[str, Any]]) -> dict[str, Any]:
    """The stt half of the report. ``passed`` is False for an errored episode."""
    summary = pass_at_1(stt)
    summary["errored"] = sum(r.get("status") == "errored" for r in stt)
    groups = by_unit((r["task"], bool(r.get("passed"))) for r in stt)
    summary["overall_ci"] = pooled_interval([sum(g) for g in groups], [len(g) for g in groups])
    summary.update(pass_at_k_table(groups))
    # a completed episode without a count made no calls; a run's summary read back from the
    # record has no counts at all: then no mean is made
    done = [r for r in stt if r.get("status") == "completed"]
    calls = [r.get("tool_calls", 0) for r in done] if any("tool_calls" in r for r in done) else []
    if calls:
        summary["mean_tool_calls"] = sum(calls) / len(calls)
    reviewed = [r for r in stt if r.get("review")]
    if reviewed:
        review = totals([r["review"] for r in reviewed], [r["steps"] for r in reviewed])
        scores = by_unit((r["task"], r["review"]["score"]) for r in reviewed)
        review["mean_score_ci"] = pooled_interval([sum(g) for g in scores], [len(g) for g in scores])
        summary["review"] = review
    return summary


def explore_summary(explore: list[dict[str, Any]]) -> dict[str, Any]:
    summary = summarise([r["metrics"] for r in explore])
    cas = by_unit(
        (r["task"], r["metrics"]["calibrated_accuracy"])
        for r in explore
        if r["metrics"].get("calibrated_accuracy") is not None
    )
    summary["calibrated_accuracy_ci"] = pooled_interval([sum(g) for g in cas], [len(g) for g in cas])
    summary["errored"] = sum(r.get("status") == "errored" for r in explore)
    return summary
