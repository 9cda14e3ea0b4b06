"""Recording's commits on SQLite through one raw connection of the store's own engine.

Recording commits a transaction per step, and most of those hold events alone (the rest add an
episode's row or its end). Through
SQLAlchemy such a commit cost more than the commit itself: a pool checkout and check-in (with
its rollback), an execution context and a result set. This connection is taken once from the
same engine, so it has the same settings (the engine's connect hook: WAL, ``synchronous``, busy
timeout, foreign keys, and any hook added later), and runs the same statements with the same
parameters as ``Store.write``'s SQLAlchemy path (``run``: the episode rows' as SQLAlchemy compiles
them), then commits before it returns: the same rows,
as durable. Errors come out as the SQLAlchemy path's do (``IntegrityError``, or ``explain``'s
``StoreError``), so the writer retries and fails episodes exactly as before.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
from typing import Any

from sqlalchemy import Engine, event
from sqlalchemy.exc import DBAPIError, IntegrityError, OperationalError

from sttui.store.db import explain

INSERT_EVENTS = (
    "INSERT INTO events (episode_id, seq, wall_time, sim_time, actor, type, payload) VALUES (?, ?, ?, ?, ?, ?, ?)"
)
# a task version's origin (``Store._recorded``'s look-up, asked once per task a store records)
ORIGIN_OF = "SELECT origin FROM tasks WHERE task_id = ? AND content_hash = ?"


class EventAppender:
    """One held SQLite connection for committing events; thread-safe (one commit at a time)."""

    def __init__(self, engine: Engine, url: str) -> None:
        self._engine = engine
        self._url = url
        self._lock = threading.Lock()
        self._proxy: Any = None  # the pool's wrapper of the connection, detached from the pool
        self._conn: sqlite3.Connection | None = None
        self._cursor: sqlite3.Cursor | None = None  # kept: not a new cursor for every commit
        self._pid = 0
        # the engine's connections are made again after a dispose (new settings, a test's hook):
        # this one too
        event.listen(engine, "engine_disposed", self._on_dispose)

    def append(self, rows: list[tuple[Any, ...]]) -> None:
        """Insert ``rows`` (``INSERT_EVENTS``'s parameters) and commit: all or none."""
        self.run([(INSERT_EVENTS, rows)])

    def run(self, steps: list[tuple[str, list[tuple[Any, ...]]]]) -> None:
        """Run each statement with its rows of parameters, in order, and commit: all or none."""
        with self._lock:
            conn, cursor = self._conn, self._cursor
            if conn is None or cursor is None or self._pid != os.getpid():  # (never a parent's, after a fork)
                conn, cursor = self._open()
            statement, rows = steps[0]
            try:
                for statement, rows in steps:
                    if len(rows) == 1:
                        cursor.execute(statement, rows[0])
                    else:
                        cursor.executemany(statement, rows)
                conn.commit()
            except sqlite3.IntegrityError as exc:  # can never succeed: as SQLAlchemy reports it
                with contextlib.suppress(sqlite3.Error):
                    conn.rollback()
                raise IntegrityError(statement, rows[0] if len(rows) == 1 else rows, exc) from None
            except sqlite3.Error as exc:  # locked, full, unwritable: the next try starts afresh
                self._close()
                raise explain(exc, self._url) from None
            except BaseException:  # (an interrupt mid-way: nothing of it may join a later commit)
                self._close()
                raise

    def scalar(self, statement: str, params: tuple[Any, ...]) -> Any:
        """The first value of the first row ``statement`` gives, or None: a look-up made where
        the writes are (the writer thread), without a pool checkout and check-in for it. The rows
        are read to the end, so no statement is left holding a read snapshot open."""
        with self._lock:
            conn, cursor = self._conn, self._cursor
            if conn is None or cursor is None or self._pid != os.getpid():
                conn, cursor = self._open()
            try:
                rows = cursor.execute(statement, params).fetchall()
            except sqlite3.Error as exc:
                self._close()
                raise explain(exc, self._url) from None
            except BaseException:
                self._close()
                raise
        return rows[0][0] if rows else None

    def _open(self) -> tuple[sqlite3.Connection, sqlite3.Cursor]:
        try:
            proxy = self._engine.raw_connection()
        except (OperationalError, DBAPIError) as exc:
            raise explain(exc, self._url) from None
        conn = proxy.driver_connection
        proxy.detach()  # held for the store's life, not the pool's to hand out or reset
        assert isinstance(conn, sqlite3.Connection)
        self._proxy, self._conn, self._cursor, self._pid = proxy, conn, conn.cursor(), os.getpid()
        return conn, self._cursor

    def _close(self) -> None:
        proxy, self._proxy, self._conn, self._cursor = self._proxy, None, None, None
        if proxy is not None and self._pid == os.getpid():
            with contextlib.suppress(Exception):  # (rolls back anything open, then closes)
                proxy.close()

    def _on_dispose(self, _engine: Any) -> None:
        with self._lock:
            self._close()

    def close(self) -> None:
        with self._lock:
            self._close()
