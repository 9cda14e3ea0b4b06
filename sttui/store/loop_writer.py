"""Committing in the event loop itself, for headless runs on SQLite.

A recorded headless run spent as much CPU handing its events to the writer thread (a lock and
a wake-up per event, the thread's wake-ups, one more wake-up of the loop per commit) as on the
writing itself. On SQLite at the default ``synchronous=NORMAL`` a commit is CPU alone (no wait
for the disk), so ``LoopWriter`` commits where the events are made: the first event waiting
schedules one commit for when the steps ready to run on the loop have run (so theirs join it,
as the thread's group commit does), and ``durable`` returns once it has run. The guarantees are
``Committer``'s, unchanged: every event committed in order before the next action is asked
for, the same transactions, the same retries and failures.

What it gives up: while a locked or full record is retried (up to the write deadline), the
loop waits too, where the thread let other episodes' steps go on until they needed the record
themselves. A record across a network (PostgreSQL) keeps the thread, whose round trips the
steps then overlap (``headless_writer``), and so does a run whose loop waits on a person (``sttui
run --judge human`` asks at the terminal): commits must not wait for their answer.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from typing import Any

from sttui.store.writer import Committer, Writer, _settle


class LoopWriter(Committer):
    """A writer whose commits run in the event loop that submits (or, outside one, at once)."""

    def __init__(self, store: Any = None, deadline: float | None = None) -> None:
        super().__init__(store, deadline)
        self._scheduled_on: asyncio.AbstractEventLoop | None = None  # a commit is due on this loop
        # one commit at a time (``flush`` may come from a thread); re-entered only by a job that
        # submits another, which then waits for the next commit instead of joining this one
        self._committing = threading.RLock()
        self._inside = False

    def _queued(self) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # submitted outside a loop (a synchronous caller): committed at once
            self._commit()
            return
        if self._scheduled_on is not loop:
            self._scheduled_on = loop
            loop.call_soon(self._due)

    def _due(self) -> None:
        self._scheduled_on = None
        self._commit()

    async def durable(self, ticket: int, episode: str | None = None) -> None:
        if self._done >= ticket:
            self._raise_if_failed(episode)
            return
        loop = asyncio.get_running_loop()
        future: asyncio.Future[None] = loop.create_future()
        with self._lock:
            self._waiters.append((ticket, episode, loop, future))
        if self._scheduled_on is not loop:  # (a commit due on this loop settles this waiter too)
            self._scheduled_on = loop
            loop.call_soon(self._due)
        await future

    def flush(self) -> None:
        self._commit()

    def close(self) -> None:
        self._commit()
        with self._committing:  # the last commits are synced too, not left to the OS for a power cut
            self._maybe_sync(now=True)

    def _commit(self) -> None:
        """Commit every job waiting, then settle the waiters it covers. A job leaves the queue
        only once tried: an interrupt mid-commit (its transaction rolled back) leaves it for the
        next commit, as ``flush`` at the end of a run."""
        with self._committing:
            if self._inside:
                return
            with self._lock:
                work = [job for job in self._jobs if job is not None]
                count = len(self._jobs)
            if count:
                self._inside = True
                try:
                    self._write(work)
                except Exception as exc:  # a fault fails these writes, as on the thread
                    self._fail([j.episode for j in work], f"{type(exc).__name__}: {exc}")
                finally:
                    self._inside = False
                with self._lock:
                    for _ in range(count):
                        self._jobs.popleft()
                    if work:
                        self._done = max(self._done, work[-1].ticket)
                self._maybe_sync()
        self._settle()

    def _settle(self) -> None:
        """Wake the waiters whose tickets are committed: at once on this loop, else through theirs."""
        with self._lock:
            done = self._done
            ready = [w for w in self._waiters if w[0] <= done]
            if not ready:
                return
            self._waiters = [w for w in self._waiters if w[0] > done]
            failed = dict(self.failed)
        try:
            running: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        for _, episode, loop, future in ready:
            reason = failed.get(episode) if episode is not None else None
            if loop is running:
                _settle(future, reason)
            else:
                with contextlib.suppress(RuntimeError):  # (a loop closed meanwhile: nobody waits any more)
                    loop.call_soon_threadsafe(_settle, future, reason)


def headless_writer(store: Any, waits_on_a_person: bool = False) -> Committer:
    """The writer for a headless run into ``store``: in the loop on SQLite (a commit is CPU
    alone), on a thread across a network (PostgreSQL: other episodes' steps overlap the trips)
    or when the run's loop waits on a person (``sttui run --judge human`` asks at the terminal,
    and what other episodes did meanwhile must not wait for the answer)."""
    engine = getattr(store, "engine", None)
    if not waits_on_a_person and engine is not None and engine.url.get_backend_name() == "sqlite":
        return LoopWriter(store)
    return Writer(store)
