"""A run's planned episodes as rows that workers claim: the database is the queue, so several
processes (on one machine or many) split one run and no item is counted twice.

- **Joining.** The first worker writes the run (its plan's digest) and all its items in one
  transaction; a later worker with the same digest joins, one with another digest is refused.
- **Claiming.** A worker takes the first claimable item (pending, or claimed under a lease that
  has expired) and gives it a fresh episode id. PostgreSQL: ``SELECT … FOR UPDATE SKIP LOCKED``,
  so workers never wait on each other's rows. SQLite: ``BEGIN IMMEDIATE`` (claims take turns on
  the write lock; one machine only). Taking an expired claim marks the dead claim's episode
  ``abandoned`` in the same transaction.
- **Leases** are on the database's clock (machines' clocks never disagree about them); the
  holder renews them while it works.
- **Finishing** is conditional: an episode ends ``completed`` (or ``errored``) and its item
  ``done`` only while the item is still its claim; a worker that lost its claim (it stalled past
  its lease and the item went to another) has its episode marked ``abandoned`` instead, in the
  same transaction. So each item has exactly one finished episode.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from sqlalchemy import and_, func, insert, or_, select, update

from sttui.store.tables import EpisodeRow, RunItemRow, RunRow, table_of

ITEMS = table_of(RunItemRow)
RUNS = table_of(RunRow)
EPISODES = table_of(EpisodeRow)


class RunMismatch(ValueError):
    """A worker's plan differs from the plan its run id was started with."""


@dataclass(frozen=True)
class Shard:
    """Items whose index is ``index`` modulo ``count`` (``0/1``: every item)."""

    index: int = 0
    count: int = 1

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


@dataclass(frozen=True)
class Claim:
    run_id: str
    idx: int
    episode_id: str
    task_id: str
    trial: int
    seed: int
    taken_from: str | None  # the worker whose expired claim this one replaced


def db_now(conn: Any) -> float:
    """Seconds since the epoch on the database's clock (shared by every worker)."""
    if conn.engine.url.get_backend_name() == "postgresql":
        return float(conn.exec_driver_sql("SELECT EXTRACT(EPOCH FROM clock_timestamp())::float8").scalar())
    return float(conn.exec_driver_sql("SELECT (julianday('now') - 2440587.5) * 86400.0").scalar())


def _changed(stored: dict[str, Any], mine: dict[str, Any]) -> list[str]:
    return sorted(k for k in set(stored) | set(mine) if k != "items" and stored.get(k) != mine.get(k))


def open_run(conn: Any, run_id: str, digest: str, spec: dict[str, Any], items: list[dict[str, Any]]) -> bool:
    """Write the run and its items unless it exists (True: this call created it); refuse a
    different plan under the same id. The caller's transaction must serialise openers."""
    row = conn.execute(select(RUNS.c.plan_digest, RUNS.c.plan).where(RUNS.c.id == run_id)).first()
    if row is not None:
        if row.plan_digest != digest:
            fields = ", ".join(_changed(row.plan, spec)) or "the planned items"
            raise RunMismatch(
                f"run '{run_id}' was started with another plan (differs in: {fields}); every worker of a run "
                "needs the same tasks (same files), agent, user, trials, seed, judge and settings. "
                "Use the run's exact command, or a new --run-id"
            )
        return False
    conn.execute(
        insert(RUNS).values(id=run_id, plan_digest=digest, plan=spec, items=len(items), created_at=time.time())
    )
    rows = [{**item, "run_id": run_id, "status": "pending", "attempts": 0} for item in items]
    for start in range(0, len(rows), 1000):
        conn.execute(insert(ITEMS), rows[start : start + 1000])
    return True


def _mine(query: Any, run_id: str, shard: Shard) -> Any:
    query = query.where(ITEMS.c.run_id == run_id)
    if shard.count > 1:
        query = query.where(ITEMS.c.idx % shard.count == shard.index)
    return query


def claim(conn: Any, run_id: str, worker: str, lease: float, shard: Shard, episode_id: str) -> Claim | None:
    """Take the first claimable item of ``shard`` for ``worker`` (None: nothing to take now)."""
    now = db_now(conn)
    query = _mine(
        select(ITEMS.c.idx, ITEMS.c.episode_id, ITEMS.c.claimed_by, ITEMS.c.task_id, ITEMS.c.trial, ITEMS.c.seed),
        run_id,
        shard,
    ).where(or_(ITEMS.c.status == "pending", and_(ITEMS.c.status == "claimed", ITEMS.c.lease_until < now)))
    query = query.order_by(ITEMS.c.idx).limit(1)
    if conn.engine.url.get_backend_name() == "postgresql":
        query = query.with_for_update(skip_locked=True)
    row = conn.execute(query).first()
    if row is None:
        return None
    conn.execute(
        update(ITEMS)
        .where(ITEMS.c.run_id == run_id, ITEMS.c.idx == row.idx)
        .values(
            status="claimed",
            claimed_by=worker,
            claimed_at=now,
            lease_until=now + lease,
            attempts=ITEMS.c.attempts + 1,
            episode_id=episode_id,
        )
    )
    if row.episode_id is not None:  # the dead (or stalled) holder's episode never counts
        conn.execute(
            update(EPISODES)
            .where(EPISODES.c.id == row.episode_id, EPISODES.c.status == "running")
            .values(
                status="abandoned",
                ended_at=time.time(),
                end_reason=f"superseded: the lease of {row.claimed_by} on run {run_id} item {row.idx} expired; "
                f"the item went to {worker}",
            )
        )
    return Claim(run_id, row.idx, episode_id, row.task_id, row.trial, row.seed, row.claimed_by)


def renew(conn: Any, run_id: str, worker: str, lease: float) -> int:
    """Extend every claim ``worker`` still holds in the run; how many it holds."""
    now = db_now(conn)
    done = conn.execute(
        update(ITEMS)
        .where(ITEMS.c.run_id == run_id, ITEMS.c.claimed_by == worker, ITEMS.c.status == "claimed")
        .values(lease_until=now + lease)
    )
    return int(done.rowcount or 0)


def release(conn: Any, run_id: str, worker: str) -> int:
    """Give back every claim ``worker`` holds (it was interrupted): the items are pending again
    at once, and whoever takes one abandons the episode it left running."""
    done = conn.execute(
        update(ITEMS)
        .where(ITEMS.c.run_id == run_id, ITEMS.c.claimed_by == worker, ITEMS.c.status == "claimed")
        .values(status="pending", lease_until=None)
    )
    return int(done.rowcount or 0)


def finish(conn: Any, run_id: str, idx: int, episode_id: str, values: dict[str, Any], update_episode: Any) -> bool:
    """End ``episode_id`` with ``values`` and its item done, if the item is still its claim;
    else end it ``abandoned`` (superseded). True when it counts."""
    won = conn.execute(
        update(ITEMS)
        .where(
            ITEMS.c.run_id == run_id,
            ITEMS.c.idx == idx,
            ITEMS.c.episode_id == episode_id,
            ITEMS.c.status == "claimed",
        )
        .values(status="done", lease_until=None, done_at=db_now(conn))
    ).rowcount
    if not won:
        values = {
            **values,
            "status": "abandoned",
            "end_reason": f"superseded: its claim on run {run_id} item {idx} expired and went to another worker",
        }
    conn.execute(update_episode(tuple(values)), {**values, "_episode": episode_id})
    return bool(won)


def progress(conn: Any, run_id: str, shard: Shard = Shard()) -> dict[str, int]:
    """Items of ``shard`` by status (pending, claimed, done)."""
    query = _mine(select(ITEMS.c.status, func.count()), run_id, shard).group_by(ITEMS.c.status)
    counts = {"pending": 0, "claimed": 0, "done": 0}
    counts.update({status: int(n) for status, n in conn.execute(query)})
    return counts


def run_plan(conn: Any, run_id: str) -> dict[str, Any] | None:
    row = conn.execute(select(RUNS.c.plan, RUNS.c["items"]).where(RUNS.c.id == run_id)).first()
    return None if row is None else {"plan": row.plan, "items": row.items}


def items(conn: Any, run_id: str) -> list[Any]:
    """Every item of the run, in plan order."""
    return list(conn.execute(select(ITEMS).where(ITEMS.c.run_id == run_id).order_by(ITEMS.c.idx)))


def done_episodes(run_id: str) -> Any:
    """A subquery: the one counted episode of each done item of the run."""
    return select(ITEMS.c.episode_id).where(ITEMS.c.run_id == run_id, ITEMS.c.status == "done")
