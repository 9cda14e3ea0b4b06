"""The store: the only code that talks to the database. Plain data in and out.

Every event is committed the moment it is appended, so a crash or a kill loses nothing
that was already recorded. Episodes, events and shared runs are here; the task versions
episodes ran are in ``sttui/store/task_versions.py``, the stage judges' cache in
``sttui/store/stage_judgements.py``, annotators, ratings, the queue's claims, labels and notes
in ``sttui/store/annotations.py``, and the streamed listings (``sessions``, ``report``, home) in
``sttui/store/listings.py`` (mixins of ``Store``).

``Store``'s sections, in order: the connection; writing episodes and events; reading them;
importing; runs split across workers.
"""

from __future__ import annotations

import functools
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, TypeVar, Unpack

from sqlalchemy import Connection, bindparam, func, insert, select, update
from sqlalchemy.exc import DBAPIError, IntegrityError, OperationalError
from sqlmodel import Session, col
from sqlmodel import select as orm_select

from sttui.core.events import Event
from sttui.store import runs
from sttui.store.annotations import AnnotationRecords
from sttui.store.appends import INSERT_EVENTS, EventAppender
from sttui.store.db import READ_ERRORS, StoreError, describe, explain, in_batches, make_engine, migrate, resolve_url
from sttui.store.finite import finite
from sttui.store.indexed import INDEXED_EVENTS
from sttui.store.listings import EpisodeListings, Page, _listing
from sttui.store.secrets import scrub, scrub_json, scrub_stored, scrub_text, secret_values
from sttui.store.stage_judgements import StageJudgements
from sttui.store.tables import EpisodeRow, EventRow, table_of
from sttui.store.task_versions import TaskVersion, TaskVersions, _save_version

T = TypeVar("T")  # what a transaction's function gives back

STATUSES = ("running", "completed", "stopped", "errored", "abandoned")


@dataclass
class EpisodeRecord:
    id: str
    task_id: str
    task_hash: str
    kind: str
    seed: int
    setting: str
    status: str
    agent: str
    user: str | None
    outcome: dict[str, Any] | None
    scores: dict[str, Any] | None
    end_reason: str | None
    steps: int
    state_hash: str | None
    started_at: float
    ended_at: float | None
    clean_baseline: bool

    def as_dict(self) -> dict[str, Any]:
        """The fields as a dict; ``outcome`` and ``scores`` are the record's own (a listing of
        100k episodes made a deep copy of each, then encoded it: every reader only reads)."""
        return {name: getattr(self, name) for name in _EPISODE_FIELDS}


_EPISODE_FIELDS = tuple(f.name for f in fields(EpisodeRecord))


def _record(row: Any) -> EpisodeRecord:
    return EpisodeRecord(**{f: getattr(row, f) for f in EpisodeRecord.__dataclass_fields__})


_INSERT_EPISODE = insert(table_of(EpisodeRow))  # built once, compiled once


@functools.lru_cache(maxsize=32)
def _update_episode(columns: tuple[str, ...]) -> Any:
    """An update of these columns of one episode (``_episode``), built once per set of columns."""
    table = table_of(EpisodeRow)
    return update(table).where(table.c.id == bindparam("_episode")).values({c: bindparam(c) for c in columns})


@functools.lru_cache(maxsize=64)
def _compiled_episode_write(
    dialect: Any, update_columns: tuple[str, ...] | None, keys: tuple[str, ...]
) -> tuple[str, tuple[str, ...], tuple[Any, ...]] | None:
    """An episode row's insert (``update_columns`` None) or an update of those columns, as
    SQLAlchemy compiles it for ``dialect`` with ``keys`` as its values: the SQL, the values' names
    in order, and each one's conversion (JSON text, booleans as integers) or None. None when the
    statement needs anything SQLAlchemy fills in at execution (a column's default)."""
    statement = _INSERT_EPISODE if update_columns is None else _update_episode(update_columns)
    compiled = statement.compile(dialect=dialect, column_keys=list(keys))
    if compiled.insert_prefetch or compiled.update_prefetch or compiled.positiontup is None:
        return None
    names = tuple(compiled.positiontup)
    bind = compiled._bind_processors
    return compiled.string, names, tuple(bind.get(n) for n in names)


def new_episode_id() -> str:
    return uuid.uuid4().hex[:12]


class Store(TaskVersions, StageJudgements, AnnotationRecords, EpisodeListings):
    """A connection to the record: SQLite by default, PostgreSQL for teams."""

    # -- the connection: opening, closing, one write or read with its errors explained ---------
    def __init__(self, url: str | None = None, create: bool = True):
        """``create=False`` for commands that only read: a missing SQLite file is an error."""
        self.url = resolve_url(url)
        self.engine = make_engine(self.url, create)
        migrate(self.engine, self.url)
        self._secrets = secret_values()
        self._registered: set[tuple[str, str]] = set()  # task versions this store has stored
        self._actors: dict[str, Any] = {}  # actor -> as scrubbed
        # event-only commits on SQLite go through one held raw connection (sttui/store/appends.py)
        self._appender: EventAppender | None = None
        if self.engine.url.get_backend_name() == "sqlite":
            self._appender = EventAppender(self.engine, self.url)

    @property
    def read_only(self) -> bool:
        """An SQLite file that can only be read here (a read-only mount, no write permission)."""
        return bool(getattr(self.engine, "sttui_read_only", None))

    def __repr__(self) -> str:
        return f"Store({describe(self.url)})"

    def close(self) -> None:
        if self._appender is not None:
            self._appender.close()
        self.engine.dispose()

    def sync(self) -> None:
        """Make committed transactions safe from a power cut too. SQLite runs its WAL with
        synchronous=NORMAL (a commit is safe from a crash or kill of sttui at once; the disk
        itself is synced here, about once a second, by the writer); PostgreSQL syncs each commit."""
        if self.engine.url.get_backend_name() == "sqlite" and not getattr(self.engine, "sttui_read_only", None):
            with self.engine.connect() as conn:
                conn.exec_driver_sql("PRAGMA wal_checkpoint(PASSIVE)")

    def _write(self, fn: Callable[[Connection], T]) -> T:
        """Run ``fn(connection)`` in one committed transaction, explaining driver errors."""
        try:
            with self.engine.begin() as conn:
                return fn(conn)
        except IntegrityError:
            raise
        except (OperationalError, DBAPIError) as exc:
            raise explain(exc, self.url) from None

    def _read(self, fn: Callable[[Session], T]) -> T:
        try:
            with Session(self.engine) as session:
                return fn(session)
        except READ_ERRORS as exc:
            raise explain(exc, self.url) from None

    # -- writing episodes and events -----------------------------------------------------------
    def create_episode(
        self,
        loaded: Any,
        seed: int,
        agent: str,
        user: str | None,
        episode_id: str | None = None,
        setting: str | None = None,
        store_version: bool = True,
    ) -> str:
        """A new running episode. ``setting`` names the evaluation setting it runs under
        (``dynamic``, ``static/no-user``, an explore setting); default: the file's.
        ``store_version=False``: ``loaded`` is a version this record holds already (see
        ``episode_items``)."""
        eid = episode_id or new_episode_id()
        self.write(self.episode_items(loaded, seed, agent, user, eid, setting, store_version))
        return eid

    def episode_items(
        self,
        loaded: Any,
        seed: int,
        agent: str,
        user: str | None,
        episode_id: str,
        setting: str | None = None,
        store_version: bool = True,
    ) -> list[tuple[Any, ...]]:
        """What creating an episode writes, for ``write`` (so a writer can commit it with the
        events around it): its task version, unless this store has stored it already, and its
        row. ``store_version=False``: the version is a stored one (a fork's), kept as it is, so
        an imported version never becomes "recorded here". A version loaded from sttui's cache
        of stored versions is never stored either, whoever asks: it came from the record."""
        task = loaded.task
        if setting is None:
            setting = task.setting if task.kind == "explore" else "default"
        items: list[tuple[Any, ...]] = []
        if (  # (the set first: a version stored already needs neither a path resolved nor a query)
            store_version
            and (loaded.id, loaded.content_hash) not in self._registered
            and not self._recorded(loaded)  # (first: a version recorded already needs no path resolved)
            and not _from_the_record(loaded)
        ):
            items.append(("version", self._redacted(self.version_of(loaded))))
        row = {
            "id": episode_id,
            "task_id": task.id,
            "task_hash": loaded.content_hash,
            "kind": task.kind,
            "seed": seed,
            "setting": setting,
            "status": "running",
            "agent": scrub_text(agent, self._secrets),
            "user": scrub_text(user, self._secrets) if user else None,
            "steps": 0,
            "started_at": time.time(),
            "clean_baseline": True,
        }
        items.append(("episode", row))
        return items

    def finish_items(self, episode_id: str, status: str, **values: Any) -> list[tuple[Any, ...]]:
        """What finishing an episode writes, for ``write``: its status, end time and results."""
        return [("update", episode_id, self._update_values(status=status, ended_at=time.time(), **values))]

    def write(self, items: list[tuple[Any, ...]]) -> None:
        """Commit, in one transaction and in their order, task versions (``("version", v)``),
        new episodes (``("episode", row)``), events (``("event", episode_id, event)``: runs of them
        inserted at once), episode updates (``("update", episode_id, values)``) and the end of a
        claimed run item (``("run_item_done", run_id, idx, episode_id, values)``): all or none."""
        if not items:
            return
        if self._appender is not None:
            if all(item[0] == "event" for item in items):
                # the hot path, events alone on SQLite: the same rows, through a held raw connection
                self._appender.append([self._event_params(item[1], item[2]) for item in items])
                return
            steps = self._raw_steps(items)
            if steps is not None:  # events with an episode's row or its end: the same, the same way
                self._appender.run(steps)
                return
        prepared: list[tuple[Any, ...]] = []
        for item in items:  # the slow part (scrubbing, JSON) outside the transaction
            prepared.append(("event", self._event_params(item[1], item[2])) if item[0] == "event" else item)

        def go(conn: Any) -> None:
            events: list[tuple[Any, ...]] = []
            for item in [*prepared, None]:
                if item is not None and item[0] == "event":
                    events.append(item[1])
                    continue
                if events:
                    conn.exec_driver_sql(self._insert_events_sql, events)
                    events = []
                if item is None:
                    break
                if item[0] == "version":
                    _save_version(conn, item[1], tolerate_race=True)
                elif item[0] == "episode":
                    conn.execute(_INSERT_EPISODE, item[1])
                elif item[0] == "update":
                    conn.execute(_update_episode(tuple(item[2])), {**item[2], "_episode": item[1]})
                elif item[0] == "run_item_done":  # (run_id, idx, episode_id, values): only while claimed
                    runs.finish(conn, item[1], item[2], item[3], item[4], _update_episode)
                else:
                    raise ValueError(f"unknown write {item[0]!r}")

        self._write(go)
        for item in prepared:
            if item[0] == "version":
                self._registered.add((item[1].task_id, item[1].content_hash))

    def _raw_steps(self, items: list[tuple[Any, ...]]) -> list[tuple[str, list[tuple[Any, ...]]]] | None:
        """``items`` as the statements and parameters the SQLAlchemy path below executes (runs of
        events at once, each episode row or update as SQLAlchemy compiles it, its values through
        the columns' own conversions), for the held connection; None when any item is not one of
        those or its statement needs more than its values (a column default)."""
        steps: list[tuple[str, list[tuple[Any, ...]]]] = []
        for item in items:
            kind = item[0]
            if kind == "event":
                row = self._event_params(item[1], item[2])
                if steps and steps[-1][0] is INSERT_EVENTS:
                    steps[-1][1].append(row)
                else:
                    steps.append((INSERT_EVENTS, [row]))
                continue
            if kind == "episode":
                values = item[1]
                compiled = _compiled_episode_write(self.engine.dialect, None, tuple(values))
            elif kind == "update":
                values = {**item[2], "_episode": item[1]}
                compiled = _compiled_episode_write(self.engine.dialect, tuple(item[2]), tuple(values))
            else:
                return None
            if compiled is None:
                return None
            sql, names, processors = compiled
            if any(name not in values for name in names):
                return None
            steps.append(
                (sql, [tuple(processors[i](values[n]) if processors[i] else values[n] for i, n in enumerate(names))])
            )
        return steps

    @property
    def _insert_events_sql(self) -> str:
        if self.engine.url.get_backend_name() == "postgresql":
            return (
                "INSERT INTO events (episode_id, seq, wall_time, sim_time, actor, type, payload) "
                "VALUES (%s, %s, %s, %s, %s, %s, %s::json)"
            )
        return INSERT_EVENTS

    def _event_params(self, episode_id: str, event: Event) -> tuple[Any, ...]:
        """An event's row as the driver takes it: the payload as its scrubbed JSON text."""
        actor = self._actors.get(event.actor)
        if actor is None:  # (a handful of actors write every event: each scrubbed once)
            actor = scrub(event.actor, self._secrets)
            if len(self._actors) < 1000:
                self._actors[event.actor] = actor
        return (
            episode_id,
            event.seq,
            event.wall_time,
            event.sim_time,
            actor,
            event.type,
            scrub_json(event.payload, self._secrets),
        )

    def _event_row(self, episode_id: str, event: Event) -> dict[str, Any]:
        return {
            "episode_id": episode_id,
            "seq": event.seq,
            "wall_time": event.wall_time,
            "sim_time": event.sim_time,
            "actor": scrub(event.actor, self._secrets),
            "type": event.type,
            "payload": scrub(event.payload, self._secrets),
        }

    def append_event(self, episode_id: str, event: Event) -> None:
        """Commit one event now. Its seq is the record's, unique per episode."""
        if self._appender is not None:  # (``write``'s path for events alone, called directly)
            self._appender.append([self._event_params(episode_id, event)])
        else:
            self.write([("event", episode_id, event)])

    def next_seq(self, episode_id: str) -> int:
        def go(s: Session) -> int:
            return (
                s.exec(orm_select(func.max(col(EventRow.seq))).where(col(EventRow.episode_id) == episode_id)).first()
                or 0
            ) + 1

        return self._read(go)

    def update_episode(self, episode_id: str, **values: Any) -> None:
        values = self._update_values(**values)
        self._write(
            lambda conn: conn.execute(update(EpisodeRow).where(col(EpisodeRow.id) == episode_id).values(**values))
        )

    def _update_values(self, **values: Any) -> dict[str, Any]:
        if "status" in values and values["status"] not in STATUSES:
            raise ValueError(f"status must be one of {', '.join(STATUSES)}")
        for key in ("outcome", "scores", "end_reason"):  # (values only stored: scrub_stored)
            if values.get(key) is not None:
                values[key] = scrub_stored(values[key], self._secrets)
        for key in ("outcome", "scores"):
            if values.get(key) is not None:
                values[key] = finite(values[key])
        return values

    def finish_episode(self, episode_id: str, status: str, **values: Any) -> None:
        self.update_episode(episode_id, status=status, ended_at=time.time(), **values)

    # -- reading episodes and events ----------------------------------------------------
    def episode(self, ref: str) -> EpisodeRecord:
        """An episode by id or unique id prefix: an exact match first, then a range on the key
        (an index either way: SQLite's primary key, PostgreSQL's pattern index), never a scan."""
        if not ref:
            raise StoreError(f"no episode '{ref}' in {describe(self.url)}; `sttui sessions` lists them")

        def go(conn: Any) -> list[Any]:
            exact = conn.execute(select(table_of(EpisodeRow)).where(col(EpisodeRow.id) == ref)).first()
            if exact is not None:
                return [exact]
            found = conn.execute(
                select(table_of(EpisodeRow)).where(self._prefix(ref)).order_by(col(EpisodeRow.id)).limit(3)
            )
            return [r for r in found if r.id.startswith(ref)]

        rows = self._read_core(go)
        if not rows:
            raise StoreError(f"no episode '{ref}' in {describe(self.url)}; `sttui sessions` lists them")
        if len(rows) > 1:
            raise StoreError(f"'{ref}' matches several episodes ({', '.join(r.id for r in rows)}…); type more of it")
        return _record(rows[0])

    def _prefix(self, ref: str) -> Any:
        """Ids that start with ``ref``, as a condition an index answers."""
        if self.engine.url.get_backend_name() == "postgresql":
            escaped = ref.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
            return col(EpisodeRow.id).like(f"{escaped}%", escape="\\")
        # SQLite compares text by its bytes (UTF-8, so by code point): the ids with this prefix
        # are the first ones from the prefix on, in the primary key's order
        return col(EpisodeRow.id) >= ref

    def _read_core(self, fn: Callable[[Connection], T]) -> T:
        try:
            with self.engine.connect() as conn:
                return fn(conn)
        except READ_ERRORS as exc:
            raise explain(exc, self.url) from None

    def events(self, episode_id: str, first: int | None = None, last: int | None = None) -> list[Event]:
        """An episode's events in order (those numbered ``first``..``last`` when given: a window
        of a long episode, read by the index on (episode, seq))."""
        table = table_of(EventRow)
        query = select(table.c.seq, table.c.type, table.c.actor, table.c.payload, table.c.sim_time, table.c.wall_time)
        query = query.where(table.c.episode_id == episode_id)
        if first is not None:
            query = query.where(table.c.seq >= first)
        if last is not None:
            query = query.where(table.c.seq <= last)
        query = query.order_by(table.c.seq)
        shared: dict[str, str] = {}  # types, actors and times repeat: one string each

        def event(row: Any) -> Event:
            seq, kind, actor, payload, sim, wall = row
            return Event(seq, shared.setdefault(kind, kind), shared.setdefault(actor, actor), payload, sim, wall)

        return self._read_core(lambda conn: [event(row) for row in conn.execute(query)])

    def event_heads(self, episode_id: str) -> list[Event]:
        """An episode's events without their payloads, but for who sent a message or ended the
        episode (``from``, ``by``: what counting agent steps reads), taken out by the database:
        a long episode's list of events, light enough to hold whole."""
        table = table_of(EventRow)
        frm = col(EventRow.payload)["from"].as_string()
        by = col(EventRow.payload)["by"].as_string()
        query = (
            select(table.c.seq, table.c.type, table.c.actor, table.c.sim_time, table.c.wall_time, frm, by)
            .where(table.c.episode_id == episode_id)
            .order_by(table.c.seq)
        )

        shared: dict[Any, Any] = {}
        empty: dict[str, Any] = {}

        def head(row: Any) -> Event:
            seq, kind, actor, sim, wall, sender, ender = row
            payload = empty  # (shared, read-only by use: a head's payload is never written)
            if sender is not None or ender is not None:
                payload = shared.setdefault((sender, ender), {k: v for k, v in (("from", sender), ("by", ender)) if v})
            return Event(seq, shared.setdefault(kind, kind), shared.setdefault(actor, actor), payload, sim, wall)

        return self._read_core(lambda conn: [head(row) for row in conn.execute(query)])

    def episode_ids_with(self, event_type: str, among: list[str]) -> set[str]:
        """Which of the episodes ``among`` hold an event of ``event_type``: for the rare types
        that have their own partial index (``INDEXED_EVENTS``: forks, seat changes) one query
        reads that index whatever the size of the record; else a query per 500 ids, each
        reading only those episodes' events."""
        if event_type in INDEXED_EVENTS:
            return self.episodes_with_event(event_type).intersection(among) if among else set()

        def go(s: Session) -> set[str]:
            found: set[str] = set()
            for chunk in in_batches(among):
                query = orm_select(col(EventRow.episode_id)).where(
                    col(EventRow.episode_id).in_(chunk),
                    col(EventRow.type) == event_type,
                )
                found.update(s.exec(query.distinct()).all())
            return found

        return self._read(go) if among else set()

    def list_episodes(self, **page: Unpack[Page]) -> list[EpisodeRecord]:
        """Episodes, newest first, in full. A listing of many should stream them instead
        (``iter_episodes``, or ``summaries`` for the fields a listing shows)."""
        return list(self.iter_episodes(**page))

    def iter_episodes(self, **page: Unpack[Page]) -> Iterator[EpisodeRecord]:
        """Episodes, newest first, in full, streamed from the database a batch at a time."""
        query = _listing(list(table_of(EpisodeRow).columns), page)
        return self._stream(query, _record)

    # -- importing (``sttui import``: all or nothing) ------------------------------------
    def import_episodes(
        self,
        items: Iterable[tuple[EpisodeRecord, TaskVersion | None, list[Event]]],
        also: Any = None,
        present: Any = None,
    ) -> tuple[int, int]:
        """Insert episodes with their task versions and events in one transaction: all or none.
        An episode the record already holds is left as it is when the copy is the same, and
        else unless ``present(copy, held)`` (each the episode's row and events as the record
        stores them, scrubbed) returns the row's new values and how many of the copy's events
        the record holds: then the rest are added (the copy goes on from the held one). It
        raises to refuse the whole import.
        ``also(connection)`` writes more in that transaction (a study bundle's manifest).
        Returns (added or continued, already present)."""
        # (taken one at a time: an import streams its file's episodes through the transaction)
        prepared = ((r, self._redacted(t) if t is not None else None, events) for r, t, events in items)
        table = table_of(EpisodeRow)

        def go(conn: Any) -> tuple[int, int]:
            added = skipped = 0
            for record, version, events in prepared:
                if version is not None:
                    _save_version(conn, version)
                held = conn.execute(select(table).where(table.c.id == record.id)).first()
                if held is None:
                    conn.execute(insert(EpisodeRow).values(**self._as_stored(record.as_dict(), [])[0]))
                    start = 0
                else:
                    change = None
                    if present is not None:
                        kept = (_record(held).as_dict(), self._held_events(conn, record.id))
                        if (record.as_dict(), events) != kept:  # (the same copy, the common case, costs no scrub)
                            change = present(self._as_stored(record.as_dict(), events), self._as_stored(*kept))
                    if change is None:
                        skipped += 1
                        continue
                    values, start = change
                    conn.execute(update(EpisodeRow).where(col(EpisodeRow.id) == record.id).values(**values))
                if events[start:]:
                    conn.execute(insert(EventRow), [self._event_row(record.id, e) for e in events[start:]])
                added += 1
            if also is not None:
                also(conn)
            return added, skipped

        return self._serialised(go)  # (SQLite: the write lock first, as it reads what it then writes)

    def _as_stored(self, row: dict[str, Any], events: list[Event]) -> tuple[dict[str, Any], list[Event]]:
        """An episode's row and events as the record would store them: scrubbed, NaN as null
        (a copy the record holds too: data from an older sttui may not be scrubbed)."""
        secrets = self._secrets
        row = scrub(row, secrets)
        row.update({key: finite(row.get(key)) for key in ("outcome", "scores")})
        kept = [
            Event(e.seq, e.type, scrub(e.actor, secrets), scrub(e.payload, secrets), e.sim_time, e.wall_time)
            for e in events
        ]
        return row, kept

    def _held_events(self, conn: Any, episode_id: str) -> list[Event]:
        """An episode's events, read in ``conn``'s transaction."""
        table = table_of(EventRow)
        columns = (table.c.seq, table.c.type, table.c.actor, table.c.payload, table.c.sim_time, table.c.wall_time)
        query = select(*columns).where(table.c.episode_id == episode_id).order_by(table.c.seq)
        return [Event(*row) for row in conn.execute(query)]

    # -- runs split across workers (sttui/store/runs.py) ------------------------------
    def _serialised(self, fn: Callable[[Connection], T]) -> T:
        """``fn(connection)`` in one transaction that takes the write lock first on SQLite
        (BEGIN IMMEDIATE: read-then-write transactions take turns); PostgreSQL locks rows."""
        try:
            with self.engine.connect() as conn:
                if self.engine.url.get_backend_name() == "sqlite":
                    conn.exec_driver_sql("BEGIN IMMEDIATE")
                out = fn(conn)
                conn.commit()
                return out
        except IntegrityError:
            raise
        except (OperationalError, DBAPIError) as exc:
            raise explain(exc, self.url) from None

    def open_run(self, run_id: str, digest: str, spec: dict[str, Any], items: list[dict[str, Any]]) -> bool:
        """Start the run (True) or join it; ``runs.RunMismatch`` for another plan under its id."""
        spec = scrub(spec, self._secrets)
        for attempt in range(2):
            try:
                return bool(self._serialised(lambda conn: runs.open_run(conn, run_id, digest, spec, items)))
            except IntegrityError:  # (PostgreSQL) another worker started it at the same moment
                if attempt:
                    raise
        return False

    def claim_item(self, run_id: str, worker: str, lease: float, shard: runs.Shard) -> runs.Claim | None:
        return self._serialised(lambda conn: runs.claim(conn, run_id, worker, lease, shard, new_episode_id()))

    def renew_claims(self, run_id: str, worker: str, lease: float) -> int:
        return int(self._write(lambda conn: runs.renew(conn, run_id, worker, lease)))

    def release_claims(self, run_id: str, worker: str) -> int:
        return int(self._write(lambda conn: runs.release(conn, run_id, worker)))

    def run_progress(self, run_id: str, shard: runs.Shard | None = None) -> dict[str, int]:
        return self._read_core(lambda conn: runs.progress(conn, run_id, shard or runs.Shard()))

    def run_info(self, run_id: str) -> dict[str, Any] | None:
        return self._read_core(lambda conn: runs.run_plan(conn, run_id))

    def run_items(self, run_id: str) -> list[Any]:
        return self._read_core(lambda conn: runs.items(conn, run_id))

    def run_episodes(self, run_id: str) -> list[EpisodeRecord]:
        """The episodes the run counts, one per done item, in full."""
        table = table_of(EpisodeRow)
        query = select(*table.columns).where(table.c.id.in_(runs.done_episodes(run_id)))
        return list(self._stream(query, _record))


def _from_the_record(loaded: Any) -> bool:
    """Whether ``loaded`` is a stored version's copy in sttui's cache (``sttui.exports.versions``), not
    a task file: storing it would mark whatever the record held, an import too, recorded here."""
    from sttui.paths import cache_root

    path = getattr(loaded, "path", None)
    if path is None:
        return False
    return Path(path).resolve().is_relative_to((cache_root() / "versions").resolve())
