"""One run split across processes and machines on one database (``sttui run --run-id R``).

The run plan's trials become rows of ``run_items`` the first time any worker starts the run
(sttui/store/runs.py); every worker, on any node, then claims items one at a time, runs each
as an ordinary episode, and renews its leases while it works. A worker that dies leaves its
claims to expire (``STTUI_LEASE_SECONDS``, default 60): a live worker of the run takes them
again, and the dead worker's half-run episode is marked abandoned. ``--shard i/n`` limits a
worker to the items whose index is i modulo n; a shard's items are then taken over only by a
worker of the same shard (rerun its command). A worker leaves once every item it may claim
is done, and the last one prints the run's summary.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import os
import re
import socket
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import asdict
from typing import Any

from sttui.controllers.registry import make_judge
from sttui.errors import StoreError
from sttui.running.batch import _record_failures, _run_trial
from sttui.running.plan import PlanError, RunPlan, Trial
from sttui.store.loop_writer import headless_writer
from sttui.store.runs import Claim, Shard
from sttui.store.store import Store
from sttui.store.writer import WRITE_DEADLINE, WriteFailed

RUN_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,99}$")


def lease_seconds() -> float:
    """How long a claim lasts without renewal (``STTUI_LEASE_SECONDS``, default 60): how long a
    dead worker's items wait before someone else takes them."""
    text = os.environ.get("STTUI_LEASE_SECONDS", "60")
    try:
        value = float(text)
    except ValueError:
        raise PlanError(f"STTUI_LEASE_SECONDS must be a number of seconds; got {text!r}") from None
    if not 0.5 <= value <= 86400:
        raise PlanError(f"STTUI_LEASE_SECONDS must be between 0.5 and 86400; got {text}")
    return value


def parse_shard(text: str) -> Shard:
    """``i/n`` with 0 <= i < n, or a one-line PlanError."""
    found = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", text)
    if not found:
        raise PlanError(f"--shard takes i/n (this worker's share of n, counted from 0), e.g. 0/4; got {text!r}")
    index, count = int(found.group(1)), int(found.group(2))
    if count < 1 or index >= count:
        raise PlanError(f"--shard {text}: the index must be below the count (0/{count} to {count - 1}/{count})")
    return Shard(index, count)


def check_run_id(run_id: str) -> str:
    if not RUN_ID.match(run_id):
        raise PlanError(
            f"--run-id {run_id!r}: use up to 100 letters, digits, '.', '_', ':' or '-', starting with a letter or digit"
        )
    return run_id


def plan_rows(plan: RunPlan) -> tuple[str, dict[str, Any], list[dict[str, Any]]]:
    """The plan's digest, its description (stored with the run, to say what differs) and its
    items in plan order. Everything that decides what an episode is goes into the digest;
    how a worker runs them (concurrency) does not."""
    items = [
        {"idx": k, "task_id": t.loaded.id, "task_hash": t.loaded.content_hash, "trial": t.index, "seed": t.seed}
        for k, t in enumerate(plan.all_trials())
    ]
    spec: dict[str, Any] = {
        "tasks": [[t.id, t.content_hash] for t in plan.tasks],
        "agent": plan.agent,
        "user": plan.user,
        "trials": plan.trials,
        "seed": plan.seed,
        "judge": plan.judge,
        "review": [plan.review.early_stop, plan.review.stagnation],
        "settings": asdict(plan.settings),
        "models": _models(plan),
    }
    whole = {**spec, "items": [[i["task_id"], i["task_hash"], i["trial"], i["seed"]] for i in items]}
    digest = hashlib.sha256(json.dumps(whole, sort_keys=True).encode()).hexdigest()
    return digest, spec, items


def _models(plan: RunPlan) -> dict[str, Any]:
    """What each ``model:`` seat or judge resolves to on this node (model and sampling), so two
    nodes whose ``sttui.yaml`` give an alias different models are refused; endpoints, timeouts
    and retries may differ by node and are left out."""
    out: dict[str, Any] = {}
    for spec in (plan.agent, plan.user, plan.judge):
        if not spec or not spec.startswith("model:"):
            continue
        name = spec.split(":", 1)[1]
        alias = plan.models.get(name)
        if alias is None:
            out[name] = {"model": name}
        else:
            out[name] = {"model": alias.model, "temperature": alias.temperature, "max_tokens": alias.max_tokens}
    return out


def worker_name() -> str:
    """Who holds a claim, as claims and superseded episodes name it: host, process, and a
    random tag (containers on different nodes can share a host name and a process id)."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"


async def _patient(fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)`` on a thread, retried with backoff while the database is unreachable or
    locked for a while (up to the write deadline), as the writer does: a worker on a cluster
    outlives a database restart."""
    start, wait = time.monotonic(), 0.1
    while True:
        try:
            return await asyncio.to_thread(fn, *args)
        except StoreError as exc:
            if not exc.transient or time.monotonic() - start + wait > WRITE_DEADLINE:
                raise
            await asyncio.sleep(wait)
            wait = min(wait * 2, 5.0)


class _Heartbeat:
    """Renews this worker's leases every third of a lease, on its own thread (an episode's
    step never delays it). A renewal that fails is tried again at the next beat."""

    def __init__(self, store: Store, run_id: str, worker: str, lease: float):
        self.args = (run_id, worker, lease)
        self.store = store
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._beat, name="sttui-lease", daemon=True)

    def _beat(self) -> None:
        while not self.stop.wait(self.args[2] / 3):
            try:
                self.store.renew_claims(*self.args)
            except Exception:  # (a dropped connection: the next beat retries)
                continue

    def __enter__(self) -> _Heartbeat:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop.set()
        self.thread.join(timeout=10)


async def run_worker(
    plan: RunPlan,
    store: Store,
    run_id: str,
    shard: Shard | None = None,
    *,
    worker: str | None = None,
    lease: float | None = None,
    progress: Callable[[dict[str, Any]], None] | None = None,
) -> list[dict[str, Any]]:
    """Join (or start) the run and work on it until every item of ``shard`` is done: claim,
    run, finish, with ``plan.concurrency`` items at a time. Returns this worker's records; one
    whose claim was taken over meanwhile has status ``superseded`` (it does not count)."""
    shard = shard or Shard()
    worker = worker or worker_name()
    lease = lease_seconds() if lease is None else lease
    poll = min(max(lease / 4, 0.2), 5.0)
    digest, spec, items = plan_rows(plan)
    await _patient(store.open_run, run_id, digest, spec, items)
    tasks = {t.id: t for t in plan.tasks}
    judge = make_judge(plan.judge, plan.models)
    writer = headless_writer(store)

    async def slot() -> list[dict[str, Any]]:
        mine: list[dict[str, Any]] = []
        while not writer.failed:  # a record that failed: take no more (its item goes back below)
            claim: Claim | None = await _patient(store.claim_item, run_id, worker, lease, shard)
            if claim is None:
                left = await _patient(store.run_progress, run_id, shard)
                if left["pending"] + left["claimed"] == 0:
                    return mine
                await asyncio.sleep(poll)  # others hold the rest: wait for them, or for their leases to lapse
                continue
            trial = Trial(tasks[claim.task_id], claim.trial, claim.seed)
            record = await _run_trial(plan, trial, store, writer, judge, claim)
            with contextlib.suppress(WriteFailed):  # its item is done before the next is claimed
                await writer.durable(writer.submitted, record["episode"])
            record["run_item"] = claim.idx
            if claim.taken_from:
                record["taken_from"] = claim.taken_from
            mine.append(record)
            if progress:
                progress(record)
        return mine

    try:
        with _Heartbeat(store, run_id, worker, lease):
            done = await asyncio.gather(*(slot() for _ in range(plan.concurrency)))
            await asyncio.to_thread(writer.flush)  # finishes committed before the leases stop
    finally:
        await asyncio.to_thread(writer.flush)
        writer.close()
    if writer.failed:  # claims still held are items whose record failed: give them back now
        with contextlib.suppress(StoreError):  # (the database gone: the leases lapse instead)
            store.release_claims(run_id, worker)
    records = [r for group in done for r in group]
    _record_failures(records, writer)
    counted = {i.episode_id for i in store.run_items(run_id) if i.status == "done"}
    for r in records:
        if r["episode"] not in counted and not r.get("record_failed"):
            r["status"] = "superseded"
            r["error"] = "its claim expired and the item went to another worker; this episode does not count"
    return records


def run_records(store: Store, run_id: str, plan: RunPlan) -> list[dict[str, Any]] | None:
    """The run's records, one per item, read back from the record as ``sttui run`` reports
    them; None while an item is not done."""
    items = store.run_items(run_id)
    if not items or any(i.status != "done" for i in items):
        return None
    episodes = {e.id: e for e in store.run_episodes(run_id)}
    tasks = {t.id: t for t in plan.tasks}
    return [_as_record(i, episodes[i.episode_id], tasks.get(i.task_id)) for i in items if i.episode_id in episodes]


def _as_record(item: Any, ep: Any, loaded: Any) -> dict[str, Any]:
    status = "completed" if ep.status == "completed" else "errored"
    out: dict[str, Any] = {
        "episode": ep.id,
        "task": ep.task_id,
        "kind": ep.kind,
        "trial": item.trial,
        "seed": item.seed,
        "setting": ep.setting,
        "status": status,
        "agent": ep.agent,
        "steps": ep.steps,
        "end_reason": ep.end_reason,
        "run_item": item.idx,
    }
    if status == "errored":
        out["error"] = ep.end_reason
    scores = ep.scores or {}
    if ep.kind == "stt":
        outcome = ep.outcome or {}
        task = loaded.task if loaded is not None else None
        out |= {
            "level": getattr(task, "level", None),
            "conflict": getattr(task, "conflict", None),
            "user": ep.user,
            "passed": status == "completed" and bool(outcome.get("passed")),
            "judged_by": outcome.get("judged_by"),
            "checklist": outcome.get("items", []),
            "review": scores.get("review"),
        }
    else:
        family = loaded.task.rule.family if loaded is not None else None
        metrics = {k: v for k, v in scores.items() if k not in ("control", "review", "human_active_seconds")}
        out |= {"family": family, "metrics": metrics}
    return out
