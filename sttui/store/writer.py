"""The writers: store writes in submission order, with a stated bound on what a kill can lose
and no silent loss at all. ``Writer`` commits on a thread of its own (the workbench, serve, a
record across a network); ``LoopWriter`` (sttui/store/loop_writer.py) in the event loop itself
(headless runs on SQLite, where a commit costs only CPU, and a hand-off to a thread cost as much
as the writing). Both share ``Committer``: the same commits, retries and failures.

- **Group commit.** Events waiting together are committed in one transaction, so a busy run
  never falls behind. The writer commits once someone waits for durability (``durable``: after
  the other episodes ready to run on that event loop have taken their steps, so theirs share the
  commit; ``flush``, ``close``: at once), and otherwise soon after the first waiting write (the
  thread within ``COALESCE`` seconds, the loop once the steps ready to run have run): the events
  of a step are committed together, not one by one as they come. Creating and finishing an
  episode (``submit_write``) go into the same transactions as the events around them, in order.
- **Durable before the next action.** Every submission gets a ticket; ``await durable(t)``
  returns once everything up to ``t`` is committed. The runner awaits it before asking any
  controller for its next action, so a kill loses at most the step in progress.
- **Bounded retry.** A write that fails for a reason that may pass (a locked database, a full
  disk, a dropped connection) is retried with backoff for up to ``deadline`` seconds. Past
  that, or at once for a write that can never succeed, the episode is marked failed: its
  later events are not written (so the record never has a gap), every waiter on it gets
  ``WriteFailed``, and the command that runs it fails.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqlalchemy.exc import IntegrityError

from sttui.core.events import Event
from sttui.errors import StoreError

if TYPE_CHECKING:
    from sttui.store.store import Store

WRITE_DEADLINE = float(os.environ.get("STTUI_WRITE_DEADLINE", "60"))
SYNC_INTERVAL = 1.0  # seconds between syncs to the disk itself (a power cut loses at most this)
COALESCE = 0.005  # seconds a write waits for others to join its commit, unless someone waits for it


class WriteFailed(Exception):
    """A write could not be committed within the deadline; the episode's record stops there."""


@dataclass(slots=True)  # (one per event: made and read quicker with slots)
class _Job:
    ticket: int
    episode: str | None
    event: Event | None = None
    fn: Callable[[], Any] | None = None
    items: Callable[[], list[tuple[Any, ...]]] | None = None  # builds store writes (Store.write's items)


class Committer:
    """What both writers share: jobs taken in submission order, committed together in one
    transaction per group, retried for a while when the record may come back, and failed per
    episode when it will not. The writers differ only in where the commits run: ``Writer`` in
    a thread of its own, ``LoopWriter`` (sttui/store/loop_writer.py) in the event loop."""

    def __init__(self, store: Any = None, deadline: float | None = None) -> None:
        self.store = store
        self.deadline = WRITE_DEADLINE if deadline is None else deadline
        self.errors: list[str] = []
        self.failed: dict[str, str] = {}  # episode id -> why its record stopped
        # the jobs, in submission order (a deque: cheaper per event than a queue.Queue)
        self._jobs: deque[_Job | None] = deque()
        self._lock = threading.Lock()
        self._tickets = 0
        self._put_count = 0  # jobs put (a thread writer's stop marker too)
        self._done = 0  # every ticket up to this one is committed (or failed)
        self._waiters: list[tuple[int, str | None, asyncio.AbstractEventLoop, asyncio.Future[None]]] = []
        self._synced = time.monotonic()

    # -- submitting ----------------------------------------------------------------------
    def _put(
        self,
        episode: str | None,
        event: Event | None = None,
        fn: Callable[[], Any] | None = None,
        items: Callable[[], list[tuple[Any, ...]]] | None = None,
    ) -> int:
        with self._lock:  # (queued under the lock: the jobs are in the order of their tickets)
            self._tickets += 1
            ticket = self._tickets
            self._put_count += 1
            self._jobs.append(_Job(ticket, episode, event, fn, items))
        self._queued()
        return ticket

    def _queued(self) -> None:
        """A job is waiting: see that it is committed soon."""
        raise NotImplementedError

    def submit(self, job: Callable[[], Any], episode: str | None = None) -> int:
        """Run ``job`` where the writer commits, in order; ``episode`` names whose record it is."""
        return self._put(episode, fn=job)

    def submit_event(self, episode_id: str, event: Event) -> int:
        return self._put(episode_id, event=event)

    def submit_write(self, items: Callable[[], list[tuple[Any, ...]]], episode: str | None = None) -> int:
        """Writes for ``Store.write`` (an episode's row, its end), built where the writer commits
        and committed in order, in the same transaction as the events waiting with them."""
        return self._put(episode, items=items)

    @property
    def submitted(self) -> int:
        """The latest submission's ticket: ``durable(submitted)`` waits for everything so far."""
        with self._lock:
            return self._tickets

    async def durable(self, ticket: int, episode: str | None = None) -> None:
        """Return once everything up to ``ticket`` is committed; raise WriteFailed if this
        episode's record has stopped."""
        raise NotImplementedError

    def flush(self) -> None:
        """Wait until everything submitted so far has been tried (committed or failed)."""
        raise NotImplementedError

    def close(self) -> None:
        """Flush, and sync the last commits to the disk: the end of the writer's use."""
        raise NotImplementedError

    def _raise_if_failed(self, episode: str | None) -> None:
        if episode is not None and episode in self.failed:
            raise WriteFailed(self.failed[episode])

    # -- committing (on whichever thread the writer commits) ----------------------------
    def _write(self, work: list[_Job]) -> None:
        """The jobs taken together, in order: the writes before a function are committed first."""
        events: list[_Job] = []
        for job in [*work, None]:
            if job is not None and (job.event is not None or job.items is not None):
                if job.episode not in self.failed:
                    events.append(job)
                continue
            if events:
                self._commit_events(events)
                events = []
            if job is not None and job.fn is not None:
                self._attempt(job.fn, [job.episode])

    def _commit_events(self, jobs: list[_Job]) -> None:
        """Commit events and episode writes waiting together in one transaction; when that can
        never succeed, each episode's own writes alone, so one bad write fails only its episode."""
        batch: list[tuple[str | None, tuple[Any, ...]]] = []
        for job in jobs:
            if job.episode in self.failed:
                continue
            if job.event is not None:
                batch.append((job.episode, ("event", job.episode, job.event)))
                continue
            assert job.items is not None
            try:
                built = list(job.items())  # (a builder that returns nothing fails here, not below)
            except Exception as exc:  # (reading the task file for its version, say)
                self._fail([job.episode], f"{type(exc).__name__}: {exc}")
                continue
            batch.extend((job.episode, item) for item in built)
        batch = [(e, item) for e, item in batch if e not in self.failed]
        if not batch:
            return
        episodes = list(dict.fromkeys(e for e, _ in batch))
        split = len(episodes) > 1
        outcome = self._attempt(lambda: self.store.write([item for _, item in batch]), episodes, quiet=split)
        if outcome is None or not split:
            return
        reason, permanent = outcome
        if not permanent:  # the record is unusable for everyone alike
            self._fail(episodes, reason)
            return
        for eid in episodes:  # one episode's bad write must not fail the others in the batch
            mine = [item for e, item in batch if e == eid]
            self._attempt(functools.partial(self.store.write, mine), [eid])

    def _attempt(
        self, fn: Callable[[], Any], episodes: list[str | None], quiet: bool = False
    ) -> tuple[str, bool] | None:
        """Run ``fn`` until it succeeds or the deadline passes: None, or (why it failed, whether
        it never could succeed)."""
        start = time.monotonic()
        wait = 0.05
        while True:
            try:
                fn()
                return None
            except StoreError as exc:  # may pass (locked, full, disconnected), or not (read-only)
                reason, permanent = str(exc), not exc.transient
                if permanent:
                    break
                if time.monotonic() - start + wait > self.deadline:
                    took = time.monotonic() - start
                    reason = f"{reason} (still failing after {took:.0f} s of retries)" if took >= 1 else reason
                    break
                time.sleep(wait)
                wait = min(wait * 2, 2.0)
            except IntegrityError as exc:  # can never succeed
                said = str(exc.orig).splitlines()[0] if str(exc.orig) else str(exc)
                reason = PLAYED_ELSEWHERE if _seq_taken(said) else f"the record refused the write: {said}"
                permanent = True
                break
            except Exception as exc:
                reason, permanent = f"{type(exc).__name__}: {exc}", True
                break
        if not quiet:
            self._fail(episodes, reason)
        return reason, permanent

    def _fail(self, episodes: list[str | None], reason: str) -> None:
        message = f"recording failed: {reason}"
        self.errors.append(message)
        with self._lock:
            for eid in episodes:
                if eid is not None:
                    self.failed.setdefault(eid, message)

    def _maybe_sync(self, now: bool = False) -> None:
        """Sync the disk if the last sync is SYNC_INTERVAL old (or ``now``, at close)."""
        at = time.monotonic()
        due = now or at - self._synced >= SYNC_INTERVAL
        if due and self.store is not None and hasattr(self.store, "sync"):
            self._synced = at
            with contextlib.suppress(Exception):  # the commits stay in the OS's hands; the next sync retries
                self.store.sync()


class Writer(Committer):
    """The writer thread: commits off the event loop, for a UI that must never wait on the
    disk, and for a record across a network (PostgreSQL), whose round trips other episodes'
    steps then overlap."""

    def __init__(self, store: Any = None, deadline: float | None = None) -> None:
        super().__init__(store, deadline)
        self._ready = threading.Event()  # set whenever jobs may be waiting and the writer may sleep
        self._tried = 0  # jobs tried by the writer: ``flush`` waits for it to reach ``_put_count``
        self._tried_changed = threading.Condition()
        self._wanted = threading.Event()  # someone waits for durability: commit now
        self._thread = threading.Thread(target=self._loop, name="sttui-writer", daemon=True)
        self._thread.start()

    def _queued(self) -> None:
        if not self._ready.is_set():
            self._ready.set()

    # -- waiting -------------------------------------------------------------------------
    async def durable(self, ticket: int, episode: str | None = None) -> None:
        """Return once everything up to ``ticket`` is committed; raise WriteFailed if this
        episode's record has stopped."""
        loop = asyncio.get_running_loop()
        with self._lock:
            if self._done >= ticket:
                self._raise_if_failed(episode)
                return
            future: asyncio.Future[None] = loop.create_future()
            self._waiters.append((ticket, episode, loop, future))
        # commit once the episodes ready to run have taken their steps too: their events then
        # share this commit (the callback runs after the tasks already scheduled on this loop)
        loop.call_soon(self._want)
        await future

    def _want(self) -> None:
        if not self._wanted.is_set():  # (set already by another waiter this round: no lock taken)
            self._wanted.set()

    def flush(self) -> None:
        with self._lock:
            target = self._put_count
        self._wanted.set()
        with self._tried_changed:
            self._tried_changed.wait_for(lambda: self._tried >= target)

    def close(self) -> None:
        with self._lock:
            self._put_count += 1
            self._jobs.append(None)
        self._ready.set()
        self._wanted.set()
        self._thread.join(timeout=self.deadline + 10)

    # -- the thread ----------------------------------------------------------------------
    def _loop(self) -> None:
        while True:
            first = self._take()
            if first is not None:  # let the rest of the step join this commit, unless someone waits
                self._wanted.wait(COALESCE)
            self._wanted.clear()
            jobs = [first]
            pending = self._jobs
            while pending:
                jobs.append(pending.popleft())
            stop = None in jobs
            work = [j for j in jobs if j is not None]
            try:
                self._write(work)
            except Exception as exc:  # a fault must fail these writes, not end the thread: flush and
                # every waiter would then wait forever, and a run would hang instead of failing
                self._fail([j.episode for j in work], f"{type(exc).__name__}: {exc}")
            if work:
                self._maybe_sync()
                self._finish(max(j.ticket for j in work))
            if stop:  # the last commits are synced too, not left to the OS for a power cut to take
                self._maybe_sync(now=True)
            with self._tried_changed:
                self._tried += len(jobs)
                self._tried_changed.notify_all()
            if stop:
                return

    def _take(self) -> _Job | None:
        """The first job waiting, once there is one. (A submitter appends, then sets ``_ready``
        unless it is set: cleared here before the jobs are looked at, so none is missed.)"""
        pending = self._jobs
        while not pending:
            self._ready.wait()
            self._ready.clear()
        return pending.popleft()

    def _finish(self, ticket: int) -> None:
        with self._lock:
            self._done = max(self._done, ticket)
            ready = [w for w in self._waiters if w[0] <= self._done]
            self._waiters = [w for w in self._waiters if w[0] > self._done]
            failed = dict(self.failed)
        by_loop: dict[asyncio.AbstractEventLoop, list[tuple[asyncio.Future[None], str | None]]] = {}
        for _, episode, loop, future in ready:
            by_loop.setdefault(loop, []).append((future, failed.get(episode) if episode is not None else None))
        for loop, settled in by_loop.items():  # one wake-up per loop, however many waited on it
            with contextlib.suppress(RuntimeError):  # (a loop closed meanwhile: nobody waits any more)
                loop.call_soon_threadsafe(_settle_all, settled)


def _settle_all(settled: list[tuple[asyncio.Future[None], str | None]]) -> None:
    for future, reason in settled:
        _settle(future, reason)


def _settle(future: asyncio.Future[None], reason: str | None) -> None:
    if future.done():
        return
    if reason is None:
        future.set_result(None)
    else:
        future.set_exception(WriteFailed(reason))


# why a write failed when another session wrote the episode's next event first: the same
# episode open twice (a participant in two terminals, a resume while it is still played)
PLAYED_ELSEWHERE = "another session is playing this episode: it wrote the episode's next step first"


def _seq_taken(said: str) -> bool:
    """Whether the database refused an event for a place in its episode already taken (the
    events' unique (episode, seq): SQLite names its columns, PostgreSQL the constraint)."""
    return "uq_events_episode_seq" in said or "events.episode_id, events.seq" in said


def played_elsewhere(reason: str) -> bool:
    """Whether an episode's recording stopped because another session plays it (its record is
    whole, and that session's to finish: nobody marks it errored)."""
    return reason.removeprefix("recording failed: ") == PLAYED_ELSEWHERE


def mark_unrecorded(store: Store, failed: dict[str, str]) -> set[str]:
    """After the writer has let go: one attempt to mark each episode whose write failed as
        ``errored`` with the reason, so the record says what happened rather than ``running``. Its
        events stop at the last committed step (``sttui fork EP --at N`` goes on from there). The
        record may still refuse (the lock is held, the disk is full): then the episodes stay
        ``running`` at that step, resumable, and the caller says so. An episode another session plays
    (``PLAYED_ELSEWHERE``) is left to it. Returns the ids marked."""
    failed = {eid: reason for eid, reason in failed.items() if not played_elsewhere(reason)}
    if not failed or store is None:
        return set()
    now = time.time()
    items = [
        ("update", eid, {"status": "errored", "ended_at": now, "end_reason": _failed(reason)})
        for eid, reason in failed.items()
    ]
    try:
        store.write(items)
    except Exception:  # the record is still failing; what it holds stands
        return set()
    return {eid for eid in failed if _recorded_errored(store, eid)}


def _failed(reason: str) -> str:
    """The end reason of an episode whose recording failed (the writer's reasons say so already)."""
    return reason if reason.startswith("recording failed: ") else f"recording failed: {reason}"


def _recorded_errored(store: Store, episode_id: str) -> bool:
    try:
        return store.episode(episode_id).status == "errored"
    except Exception:  # not in the record (its first write failed), or unreadable
        return False
