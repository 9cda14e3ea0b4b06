"""Headless batch runs: many episodes at once with bounded concurrency, every event in the
store, and the report: Pass@1 and Pass@k, tool calls, tokens and cost, explore metrics."""

from __future__ import annotations

import asyncio
import math
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sttui.controllers.model import ModelFailure
from sttui.controllers.registry import make_agent, make_judge, make_user
from sttui.core.explore.metrics import summarise
from sttui.core.loader import LoadedTask
from sttui.core.review.summary import totals
from sttui.core.scoring import pass_at_1
from sttui.recording import Recorder, Writer, finish
from sttui.runner import Seats, drive, open_episode
from sttui.store.store import Store


@dataclass
class Job:
    loaded: LoadedTask
    trial: int


def pass_at_k(n: int, c: int, k: int) -> float:
    """The unbiased estimator of Pass@k from n trials with c successes: 1 - C(n-c, k) / C(n, k)."""
    if k > n:
        raise ValueError(f"Pass@{k} needs at least {k} trials; got {n}")
    if n - c < k:
        return 1.0
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


async def run_batch(
    jobs: list[Job],
    agent: str,
    user: str | None,
    *,
    store: Store | None,
    concurrency: int,
    seed: int | None = None,
    judge: str | None = None,
    models: dict[str, Any] | None = None,
    progress: Callable[[dict[str, Any]], None] | None = None,
    early_stop: bool = False,
    stagnation: int | None = None,
) -> list[dict[str, Any]]:
    """Run every job; each finished (or failed) episode becomes one record. With
    ``early_stop`` the milestone review's stop signals end an stt episode where they fire."""
    gate = asyncio.Semaphore(max(1, concurrency))
    writer = Writer(store) if store is not None else None
    chosen_judge = make_judge(judge, models)

    async def one(job: Job) -> dict[str, Any]:
        async with gate:
            loaded = job.loaded
            controller = make_agent(agent, loaded, seed, models, store)
            seat_user = make_user(user, models) if loaded.kind == "stt" else None
            seed_used = (loaded.task.seed if seed is None else seed) + job.trial
            actors = {"agent": controller.name, "user": seat_user.name if seat_user else "none"}
            episode = open_episode(loaded, seed_used, actors, early_stop=early_stop, stagnation=stagnation)
            episode_id = None
            if store is not None and writer is not None:
                episode_id = await asyncio.to_thread(
                    store.create_episode, loaded, seed_used, controller.name, seat_user.name if seat_user else None
                )
                recorder = Recorder(store, episode_id, 1, writer)
                episode.listeners.append(recorder)
                for c in (controller, seat_user):
                    if c is not None and hasattr(c, "record"):
                        c.record = lambda kind, payload, who=c.name, rec=recorder: rec.meta(kind, who, payload)
            episode.start()
            try:
                result = await drive(episode, Seats(controller, seat_user), chosen_judge)
            except (ModelFailure, ValueError) as exc:
                reason = f"{type(exc).__name__}: {exc}"
                if store is not None and writer is not None and episode_id is not None:
                    writer.submit(lambda: store.finish_episode(episode_id, "errored", end_reason=reason))
                out = {
                    "episode": episode_id,
                    "task": loaded.id,
                    "kind": loaded.kind,
                    "agent": controller.name,
                    "trial": job.trial,
                    "status": "errored",
                    "error": reason,
                    "passed": False if loaded.kind == "stt" else None,
                }
                if loaded.kind == "stt":
                    out |= {"level": loaded.task.level, "conflict": loaded.task.conflict}
                if progress:
                    progress(out)
                return out
            if store is not None and writer is not None and episode_id is not None:
                writer.submit(lambda: finish(store, episode_id, result))
            out = {"episode": episode_id, "trial": job.trial, "status": "completed", **result.as_dict()}
            usage = [c.usage for c in (controller, seat_user) if c is not None and hasattr(c, "usage")]
            if usage:
                out["model_calls"] = sum(u.calls for u in usage)
                out["tokens"] = sum(u.prompt_tokens + u.completion_tokens for u in usage)
                costs = [u.cost for u in usage if u.cost is not None]
                out["cost"] = sum(costs) if costs else None
            if progress:
                progress(out)
            return out

    try:
        return await asyncio.gather(*(one(j) for j in jobs))
    finally:
        if writer is not None:
            await asyncio.to_thread(writer.flush)
            writer.close()


def report(records: list[dict[str, Any]], ks: tuple[int, ...] = (1, 3, 5, 8)) -> dict[str, Any]:
    """Pass@1 (overall by level, per level, per subtype), Pass@k, means, and explore metrics."""
    stt = [r for r in records if r.get("kind") == "stt"]
    explore = [r for r in records if r.get("kind") == "explore" and r.get("metrics")]
    out: dict[str, Any] = {"episodes": len(records), "errored": sum(r.get("status") == "errored" for r in records)}
    if stt:
        out["stt"] = pass_at_1(stt)
        by_task: dict[str, list[bool]] = defaultdict(list)
        for r in stt:
            by_task[r["task"]].append(bool(r.get("passed")))
        trials = min(len(v) for v in by_task.values())
        out["stt"]["pass_at_k"] = {
            f"pass@{k}": sum(pass_at_k(len(v), sum(v), k) for v in by_task.values()) / len(by_task)
            for k in ks
            if k <= trials
        }
        done = [r for r in stt if r.get("status") == "completed"]
        if done:
            out["stt"]["mean_tool_calls"] = sum(r.get("tool_calls", 0) for r in done) / len(done)
            reviewed = [r for r in done if r.get("review")]
            if reviewed:
                out["stt"]["review"] = totals([r["review"] for r in reviewed], [r["steps"] for r in reviewed])
    if explore:
        out["explore"] = summarise([r["metrics"] for r in explore])
    tokens = [r["tokens"] for r in records if r.get("tokens") is not None]
    if tokens:
        out["tokens"] = sum(tokens)
        costs = [r["cost"] for r in records if r.get("cost") is not None]
        out["cost"] = sum(costs) if costs else None
    return out
