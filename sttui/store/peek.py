"""A look at a SQLite record through the standard library alone, read-only, with neither
SQLAlchemy nor pydantic loaded: home's sessions pane (its pages and their forks), and what
``sttui sessions`` and ``sttui report`` read (the listing; the finished episodes, their forks
and seat changes, the task versions' levels). Home is where people sit longest, and those
libraries are a third of its memory; the full record (``Store``) opens when an action first
needs it: play, resume, replay, annotate. For the two commands, loading them was most of a
second of every call: a quarter of ``sessions`` on 100,000 episodes, nearly all of it on a few.

``Peek.open`` answers None whenever the full store must open instead: not a plain SQLite file
URL, no file there yet (the store makes it, or says what is wrong with the path), a schema
other than this version's newest (the store migrates it), or any error from SQLite (the store
explains it). Each query is the store's own, compiled for SQLite; tests check the two are the
same text, and that both give the same rows (and the commands the same output)."""

from __future__ import annotations

import json
import os
import re
import sqlite3
import threading
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

from sttui.core.events import Event
from sttui.errors import StoreError
from sttui.store.indexed import episodes_with_event_sql
from sttui.store.summaries import Summary, listing_row, report_row, summary_reader

DEFAULT_URL = "sqlite:///sessions/sttui.db"
MIGRATIONS = Path(__file__).parent / "migrations"
BUSY_TIMEOUT_S = int(os.environ.get("STTUI_BUSY_TIMEOUT_MS", "10000")) / 1000

# Store.summaries() for SQLite (sttui/store/listings.py), its parameters bound as literals; the
# page is appended. tests/test_peek.py fails when the two differ.
SESSIONS_SQL = (
    "SELECT episodes.id, episodes.task_id, episodes.task_hash, episodes.kind, episodes.seed, "
    "episodes.setting, episodes.status, episodes.agent, episodes.user, episodes.end_reason, "
    "CASE WHEN (episodes.status = 'running') THEN (SELECT count(*) AS count_1 FROM events WHERE "
    "events.episode_id = episodes.id AND (events.type IN ('tool_call', 'probe', 'batch_submitted', "
    "'assessment', 'refused') OR events.type = 'message' AND CAST(JSON_EXTRACT(events.payload, "
    "'$.\"from\"') AS VARCHAR) = 'agent')) ELSE episodes.steps END AS steps, episodes.state_hash, "
    "episodes.started_at, episodes.ended_at, episodes.clean_baseline, json_type(episodes.outcome, "
    "'$') AS json_type_1, CAST(episodes.outcome AS VARCHAR) = '{}' AS anon_1, "
    "json_extract(episodes.outcome, '$.\"passed\"') AS json_extract_1, json_type(episodes.scores, "
    "'$') AS json_type_2, CAST(episodes.scores AS VARCHAR) = '{}' AS anon_2, "
    "json_extract(episodes.scores, '$.\"calibrated_accuracy\"') AS json_extract_2, CASE WHEN "
    "(json_type(episodes.scores, '$.\"control\"') = 'object') THEN json_extract(episodes.scores, "
    "'$.\"control\"') END AS anon_3, CASE WHEN (json_type(episodes.scores, '$.\"lineage\"') = "
    "'object') THEN json_extract(episodes.scores, '$.\"lineage\"') END AS anon_4, "
    'json_extract(episodes.scores, \'$."user_verdict"."verdict"\') AS json_extract_3, '
    "json_extract(episodes.scores, '$.\"incomplete\"') AS json_extract_4, "
    "json_extract(episodes.scores, '$.\"human_active_seconds\"') AS json_extract_5, "
    'json_extract(episodes.scores, \'$."review"."score"\') AS json_extract_6, '
    'json_extract(episodes.scores, \'$."review"."completion"\') AS json_extract_7, '
    'json_extract(episodes.scores, \'$."review"."settled"\') AS json_extract_8, '
    'json_extract(episodes.scores, \'$."review"."milestones"\') AS json_extract_9, '
    'json_extract(episodes.scores, \'$."review"."stop"."signal"\') AS json_extract_10, '
    'json_extract(episodes.scores, \'$."review"."stop"."step"\') AS json_extract_11, '
    'json_extract(episodes.scores, \'$."review"."stop"."steps_saved"\') AS json_extract_12 '
    "FROM episodes ORDER BY episodes.started_at DESC, episodes.id DESC"
)
_ORDER = "ORDER BY episodes.started_at DESC, episodes.id DESC"
# Store.listing_rows() for SQLite (what ``sttui sessions`` lists), its constant parameters bound
# as literals; the filters' WHERE and the limit are appended (``_FILTERS``, as ``listings._filtered``
# writes them). tests/test_peek.py fails when the two differ.
LISTING_SQL = (
    "SELECT episodes.id, episodes.task_id, episodes.status, episodes.agent, episodes.user, CASE WHEN "
    "(episodes.status = 'running') THEN (SELECT count(*) AS count_1 FROM events WHERE events.episode_id = "
    "episodes.id AND (events.type IN ('tool_call', 'probe', 'batch_submitted', 'assessment', 'refused') OR "
    "events.type = 'message' AND CAST(JSON_EXTRACT(events.payload, '$.\"from\"') AS VARCHAR) = 'agent')) ELSE "
    "episodes.steps END AS steps, episodes.started_at, episodes.outcome IS NOT NULL AND "
    "trim(CAST(episodes.outcome AS VARCHAR)) != 'null' AS anon_1, json_extract(episodes.outcome, "
    "'$.\"passed\"') AS json_extract_1, json_extract(episodes.scores, '$.\"calibrated_accuracy\"') AS "
    "json_extract_2, json_quote(json_extract(episodes.scores, '$.\"control\"')) AS json_quote_1, "
    'json_extract(episodes.scores, \'$."user_verdict"."verdict"\') AS json_extract_3 FROM episodes'
)
# each filter of ``listings.Filters`` as the store's query writes it, in the store's order
_FILTERS = (
    ("task", "(episodes.task_id LIKE '%' || ? || '%')"),
    ("controller", "(episodes.agent LIKE '%' || ? || '%') OR (episodes.user LIKE '%' || ? || '%')"),
    ("status", "episodes.status = ?"),
    ("since", "episodes.started_at >= ?"),
    ("until", "episodes.started_at < ?"),
)
_BATCH = 2000  # rows fetched at a time by a streamed listing
# Store.report_rows() for SQLite (what ``sttui report`` reads of each finished episode), for one
# status (bound as a parameter); tests/test_peek.py fails when the two differ.
REPORT_SQL = (
    "SELECT episodes.id, episodes.task_id, episodes.task_hash, episodes.kind, episodes.setting, "
    "episodes.status, episodes.agent, episodes.steps, episodes.started_at, episodes.clean_baseline, "
    "json_extract(episodes.outcome, '$.\"passed\"') AS json_extract_1, json_quote(json_extract(episodes.scores, "
    "'$.\"control\"')) AS json_quote_1, json_extract(episodes.scores, '$.\"calibrated_accuracy\"') AS "
    'json_extract_2, json_extract(episodes.scores, \'$."user_verdict"."verdict"\') AS json_extract_3, '
    "json_extract(episodes.scores, '$.\"incomplete\"') AS json_extract_4, json_extract(episodes.scores, "
    '\'$."human_active_seconds"\') AS json_extract_5, json_extract(episodes.scores, \'$."review"."score"\') '
    'AS json_extract_6, json_extract(episodes.scores, \'$."review"."completion"\') AS json_extract_7, '
    'json_extract(episodes.scores, \'$."review"."stop"."steps_saved"\') AS json_extract_8, '
    'json_quote(json_extract(episodes.scores, \'$."review"."judges"\')) AS json_quote_2 FROM episodes '
    "WHERE episodes.status = ? ORDER BY episodes.started_at DESC, episodes.id DESC"
)


def listing_query(
    task: str | None = None,
    controller: str | None = None,
    status: str | None = None,
    since: datetime | None = None,
    until: datetime | None = None,
    limit: int | None = None,
) -> tuple[str, tuple[Any, ...]]:
    """``Store.listing_rows``' query for these filters, and its parameters, as the store's query
    reads them (``listings._filtered``: each filter given is a condition, in the same order)."""
    given = {"task": task, "controller": controller, "status": status, "since": since, "until": until}
    where, params = [], []  # type: list[str], list[Any]
    for name, clause in _FILTERS:
        value = given[name]
        if value:  # (as the store's: an empty text is no filter)
            where.append(clause)
            params.extend([value.timestamp() if isinstance(value, datetime) else value] * clause.count("?"))
    if len(where) > 1:  # (the OR in parentheses beside others, as SQLAlchemy writes it)
        where = [f"({c})" if " OR " in c else c for c in where]
    sql = LISTING_SQL + (" WHERE " + " AND ".join(where) if where else "") + f" {_ORDER}"
    if limit:
        sql, params = sql + " LIMIT ? OFFSET 0", [*params, limit]
    return sql, tuple(params)


# the page after a (started_at, id), as ``listings._listing`` writes it
_AFTER = "WHERE episodes.started_at < ? OR episodes.started_at = ? AND episodes.id < ?"
# the columns SQLAlchemy hands back as booleans (clean_baseline, and the two "is {}" tests)
_BOOLEANS = (14, 16, 19)

_HEAD: str | None = None


def damaged_value(where: str, exc: json.JSONDecodeError) -> StoreError:
    """What a stored value that is not JSON says (a record edited or cut short by hand): the
    store and this reader word it alike."""
    return StoreError(
        f"the record {where} is damaged: a stored value is not valid JSON ({exc}); keep a copy, and "
        "record into a new file (--db) while you look at it"
    )


def schema_head() -> str | None:
    """The newest schema revision, read from the migration files' ``revision`` and
    ``down_revision`` lines without importing alembic (None when they do not name exactly one)."""
    global _HEAD
    if _HEAD is None:
        revisions, parents = set(), set()
        for path in (MIGRATIONS / "versions").glob("*.py"):
            text = path.read_text(encoding="utf-8")
            found = re.search(r'^revision\s*=\s*"([^"]+)"', text, re.M)
            parent = re.search(r'^down_revision\s*=\s*"([^"]+)"', text, re.M)
            if found:
                revisions.add(found.group(1))
            if parent:
                parents.add(parent.group(1))
        heads = revisions - parents
        _HEAD = heads.pop() if len(heads) == 1 else ""
    return _HEAD or None


SQLITE_SUFFIXES = (".db", ".sqlite", ".sqlite3", ".db3")


def resolve_url(url: str | None = None) -> str:
    """``--db`` first, then ``STTUI_DB``, then the default SQLite file. A SQLite file may be
    named by its path (``--db runs/pilot.db``), as Prodigy and Datasette take one: a path with
    a SQLite suffix, or an existing file (anything else stays a URL, so a mistyped URL is an
    error, not a new empty record)."""
    url = url or os.environ.get("STTUI_DB") or DEFAULT_URL
    if "://" not in url and not set("?%#") & set(url):
        path = os.path.expanduser(url)
        if path.lower().endswith(SQLITE_SUFFIXES) or os.path.isfile(path):
            return "sqlite:///" + path
    if url.startswith(("postgresql://", "postgres://")):
        url = "postgresql+psycopg://" + url.split("://", 1)[1]
    return url


def sqlite_file(url: str) -> str | None:
    """The file of a plain ``sqlite:///path`` URL (no driver named, no options, no escapes, not in
    memory): the file the store opens for it. Any other form is left to the store."""
    if not url.startswith("sqlite:///") or "?" in url or "%" in url:  # (SQLAlchemy unquotes %XX)
        return None
    path = url[len("sqlite:///") :]
    if not path or path == ":memory:" or path.startswith("file:"):
        return None
    return path


class Peek:
    """A read-only connection to a SQLite record at this version's newest schema: the listing
    home shows, and the few events it reads to mark forks. Home's workers may read at once: one
    at a time here, each read whole."""

    url: str

    def __init__(self, url: str, conn: sqlite3.Connection):
        self.url, self.conn = url, conn
        self._lock = threading.Lock()

    def _all(self, query: str, args: tuple[Any, ...] | list[Any] = ()) -> list[Any]:
        with self._lock:
            try:
                return self.conn.execute(query, args).fetchall()
            except sqlite3.Error as exc:  # (one line, as the store says it: never a traceback)
                raise self._unreadable(exc) from None

    @classmethod
    def open(cls, url: str) -> Peek | None:
        """The reader, or None when the full store has to open instead (see the module docstring)."""
        path = sqlite_file(url)
        head = schema_head()
        if path is None or head is None or not os.path.isfile(path):
            return None
        try:
            conn = sqlite3.connect(
                f"{Path(path).absolute().as_uri()}?mode=ro", uri=True, timeout=BUSY_TIMEOUT_S, check_same_thread=False
            )
        except (sqlite3.Error, ValueError):
            return None
        try:
            found = conn.execute("SELECT version_num FROM alembic_version").fetchall()
        except sqlite3.Error:
            found = []
        if [r[0] for r in found] != [head]:
            conn.close()
            return None
        return cls(url, conn)

    def close(self) -> None:
        with self._lock:
            self.conn.close()

    def summaries(
        self, limit: int | None = None, after: tuple[float, str] | None = None, status: str | None = None
    ) -> Iterator[Summary]:
        """A page of ``Store.summaries()``: the same rows, in the same order, as the same objects
        (``after``: the (started_at, id) the page follows, as ``listings.Page`` has it;
        ``status``: of that status only, as its ``status`` filter)."""
        light = summary_reader()
        sql, params = SESSIONS_SQL, [-1 if limit is None else limit]  # type: str, list[Any]
        if after is not None:
            sql, params = sql.replace(_ORDER, f"{_AFTER} {_ORDER}"), [after[0], after[0], after[1], *params]
        if status is not None:  # (the page's condition, if any, in brackets)
            sql = sql.replace(_AFTER, f"WHERE ({_AFTER.removeprefix('WHERE ')}) AND episodes.status = ?", 1)
            if after is None:
                sql = sql.replace(_ORDER, f"WHERE episodes.status = ? {_ORDER}")
            params = [*params[:-1], status, params[-1]]
        for row in self._all(f"{sql} LIMIT ?", tuple(params)):
            values = list(row)
            for i in _BOOLEANS:
                if values[i] is not None:
                    values[i] = bool(values[i])
            yield light(values)

    def listing_rows(self, **filters: Any) -> Iterator[tuple[Any, ...]]:
        """``Store.listing_rows`` (``listings.Filters`` and ``limit``): the same rows, in the
        same order, as the same plain tuples, streamed a batch at a time (a listing of 100,000
        episodes holds one batch)."""
        for row in self._stream(*listing_query(**filters)):
            yield listing_row(row)

    def report_rows(self, statuses: tuple[str, ...], run_id: None = None) -> Iterator[tuple[Any, ...]]:
        """``Store.report_rows`` (not for a run: the store reads those): the same rows, in the
        same order, as the same plain tuples, streamed a batch at a time."""
        if run_id is not None:
            raise ValueError("a run's episodes are read by the store")
        for status in statuses:
            for row in self._stream(REPORT_SQL, (status,)):
                values = list(row)
                if values[9] is not None:  # clean_baseline: SQLAlchemy gives a boolean
                    values[9] = bool(values[9])
                yield report_row(values)

    def count_episodes(self, status: str | tuple[str, ...] | None = None) -> int:
        """``Store.count_episodes`` by status alone (all, one, or any of several)."""
        statuses = (status,) if isinstance(status, str) else status
        if not statuses:
            return int(self._all("SELECT count(*) FROM episodes")[0][0])
        marks = ",".join("?" * len(statuses))
        return int(self._all(f"SELECT count(*) FROM episodes WHERE status IN ({marks})", statuses)[0][0])

    def task_metas(self, versions: list[tuple[str, str]]) -> dict[tuple[str, str], Any]:
        """``Store.task_metas``: the ``meta`` of each stored task version named."""
        out: dict[tuple[str, str], Any] = {}
        wanted = list(dict.fromkeys(versions))
        for start in range(0, len(wanted), 500):
            chunk = wanted[start : start + 500]
            ids = sorted({t for t, _ in chunk})
            keep = set(chunk)
            query = f"SELECT task_id, content_hash, meta FROM tasks WHERE task_id IN ({','.join('?' * len(ids))})"
            for task_id, content_hash, meta in self._all(query, ids):
                if (task_id, content_hash) in keep:
                    try:
                        out[(task_id, content_hash)] = None if meta is None else json.loads(meta)
                    except json.JSONDecodeError as exc:
                        raise damaged_value(self.url, exc) from None
        return out

    def episodes_with_event(self, event_type: str) -> set[str]:
        """``Store.episodes_with_event``: every episode holding an event of one of the rare types
        with their own partial index, its condition written as the index's own."""
        return {r[0] for r in self._all(episodes_with_event_sql(event_type))}

    def _stream(self, query: str, args: tuple[Any, ...]) -> Iterator[Any]:
        """``query``'s rows a batch at a time; the lock is held for each batch's read only, so the
        reader of the rows may look up events between them."""
        try:
            with self._lock:
                cursor = self.conn.execute(query, args)
            while True:
                with self._lock:
                    batch = cursor.fetchmany(_BATCH)
                if not batch:
                    return
                yield from batch
                del batch  # (let go before the next is read: one batch held, not two)
        except sqlite3.Error as exc:
            raise self._unreadable(exc) from None

    def _unreadable(self, exc: sqlite3.Error) -> StoreError:
        return StoreError(
            f"cannot read the record {self.url}: {exc}; the file may be damaged, or written by another program"
        )

    def episode_ids_with(self, event_type: str, among: list[str]) -> set[str]:
        """Which of the episodes ``among`` hold an event of ``event_type`` (``Store.episode_ids_with``)."""
        found: set[str] = set()
        for start in range(0, len(among), 500):
            chunk = among[start : start + 500]
            marks = ",".join("?" * len(chunk))
            query = f"SELECT DISTINCT episode_id FROM events WHERE type = ? AND episode_id IN ({marks})"
            found.update(r[0] for r in self._all(query, (event_type, *chunk)))
        return found

    def events(self, episode_id: str, first: int | None = None, last: int | None = None) -> list[Event]:
        """An episode's events, numbered ``first``..``last`` when given (``Store.events``)."""
        query = "SELECT seq, type, actor, payload, sim_time, wall_time FROM events WHERE episode_id = ?"
        args: list[Any] = [episode_id]
        if first is not None:
            query += " AND seq >= ?"
            args.append(first)
        if last is not None:
            query += " AND seq <= ?"
            args.append(last)
        rows = self._all(query + " ORDER BY seq", args)
        try:
            return [
                Event(seq, kind, actor, {} if payload is None else json.loads(payload), sim, wall)
                for seq, kind, actor, payload, sim, wall in rows
            ]
        except json.JSONDecodeError as exc:
            raise damaged_value(self.url, exc) from None
