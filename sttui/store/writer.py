"""The writer thread: store writes in submission order, off the event loop, with a stated bound
on what a kill can lose and no silent loss at all.

- **Group commit.** Events waiting together are committed in one transaction, so a busy run
  never falls behind; a lone event is committed the moment the writer reaches it.
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
import os
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy.exc import IntegrityError

from sttui.core.events import Event
from sttui.errors import StoreError

WRITE_DEADLINE = float(os.environ.get("STTUI_WRITE_DEADLINE", "60"))
SYNC_INTERVAL = 1.0  # seconds between syncs to the disk itself (a power cut loses at most this)


class WriteFailed(Exception):
    """A write could not be committed within the deadline; the episode's record stops there."""


@dataclass
class _Job:
    ticket: int
    episode: str | None
    event: Event | None = None
    fn: Callable[[], Any] | None = None


class Writer:
    def __init__(self, store: Any = None, deadline: float | None = None) -> None:
        self.store = store
        self.deadline = WRITE_DEADLINE if deadline is None else deadline
        self.errors: list[str] = []
        self.failed: dict[str, str] = {}  # episode id -> why its record stopped
        self._jobs: queue.Queue[_Job | None] = queue.Queue()
        self._lock = threading.Lock()
        self._tickets = 0
        self._done = 0
        self._waiters: list[tuple[int, str | None, asyncio.AbstractEventLoop, asyncio.Future[None]]] = []
        self._synced = time.monotonic()
        self._thread = threading.Thread(target=self._loop, name="sttui-writer", daemon=True)
        self._thread.start()

    # -- submitting ----------------------------------------------------------------------
    def _put(self, episode: str | None, event: Event | None = None, fn: Callable[[], Any] | None = None) -> int:
        with self._lock:
            self._tickets += 1
            ticket = self._tickets
        self._jobs.put(_Job(ticket, episode, event, fn))
        return ticket

    def submit(self, job: Callable[[], Any], episode: str | None = None) -> int:
        """Run ``job`` on the writer thread, in order; ``episode`` names whose record it is."""
        return self._put(episode, fn=job)

    def submit_event(self, episode_id: str, event: Event) -> int:
        return self._put(episode_id, event=event)

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
        await future

    def _raise_if_failed(self, episode: str | None) -> None:
        if episode is not None and episode in self.failed:
            raise WriteFailed(self.failed[episode])

    def flush(self) -> None:
        """Wait until everything submitted so far has been tried (committed or failed)."""
        self._jobs.join()

    def close(self) -> None:
        self._jobs.put(None)
        self._thread.join(timeout=self.deadline + 10)

    # -- the thread ----------------------------------------------------------------------
    def _loop(self) -> None:
        while True:
            first = self._jobs.get()
            jobs = [first]
            while not self._jobs.empty():
                jobs.append(self._jobs.get_nowait())
            stop = None in jobs
            work = [j for j in jobs if j is not None]
            events: list[_Job] = []
            for job in [*work, None]:
                if job is not None and job.event is not None:
                    if job.episode not in self.failed:
                        events.append(job)
                    continue
                if events:  # the events before a job are committed first, in order
                    self._commit_events(events)
                    events = []
                if job is not None and job.fn is not None:
                    self._attempt(job.fn, [job.episode])
            if work:
                self._maybe_sync()
                self._finish(max(j.ticket for j in work))
            for _ in jobs:
                self._jobs.task_done()
            if stop:
                return

    def _commit_events(self, events: list[_Job]) -> None:
        batch = [(j.episode, j.event) for j in events]
        episodes = list(dict.fromkeys(j.episode for j in events))
        split = len(episodes) > 1
        outcome = self._attempt(lambda: self.store.append_events(batch), episodes, quiet=split)
        if outcome is None or not split:
            return
        reason, permanent = outcome
        if not permanent:  # the record is unusable for everyone alike
            self._fail(episodes, reason)
            return
        for eid in episodes:  # one episode's bad write must not fail the others in the batch
            mine = [(e, ev) for e, ev in batch if e == eid]
            self._attempt(lambda mine=mine: self.store.append_events(mine), [eid])

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
                if permanent or time.monotonic() - start + wait > self.deadline:
                    break
                time.sleep(wait)
                wait = min(wait * 2, 2.0)
            except IntegrityError as exc:  # can never succeed
                reason, permanent = f"the record refused the write: {str(exc.orig).splitlines()[0]}", True
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

    def _maybe_sync(self) -> None:
        now = time.monotonic()
        if now - self._synced >= SYNC_INTERVAL and self.store is not None and hasattr(self.store, "sync"):
            self._synced = now
            with contextlib.suppress(Exception):  # the commits stay in the OS's hands; the next sync retries
                self.store.sync()

    def _finish(self, ticket: int) -> None:
        with self._lock:
            self._done = max(self._done, ticket)
            ready = [w for w in self._waiters if w[0] <= self._done]
            self._waiters = [w for w in self._waiters if w[0] > self._done]
            failed = dict(self.failed)
        for _, episode, loop, future in ready:
            reason = failed.get(episode) if episode is not None else None
            loop.call_soon_threadsafe(_settle, future, reason)


def _settle(future: asyncio.Future[None], reason: str | None) -> None:
    if future.done():
        return
    if reason is None:
        future.set_result(None)
    else:
        future.set_exception(WriteFailed(reason))
