"""The task versions the record keeps: each exact task file and environment source an episode
ran, where the record got it (``ORIGINS``) and so whether its code may run again. A mixin of
``Store`` (``sttui/store/store.py``), whose write path stores a version with the episode that
first runs it; it uses the store's transaction helpers, its secrets and its held connection.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from sqlalchemy import Executable, bindparam, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col
from sqlmodel import select as orm_select

from sttui.store.appends import ORIGIN_OF, EventAppender
from sttui.store.db import in_batches
from sttui.store.secrets import scrub_text
from sttui.store.tables import TaskRow, table_of

T = TypeVar("T")

ORIGINS = ("recorded", "trusted", "imported", "unknown")
RUNNABLE_ORIGINS = ("recorded", "trusted")  # versions whose code may run without asking


@dataclass
class TaskVersion:
    """A stored task version. ``content_hash`` names the original file and module; ``source`` and
    ``env_source`` are kept with secrets redacted (then ``meta["redacted"]`` is true)."""

    task_id: str
    kind: str
    content_hash: str
    title: str
    meta: dict[str, Any]
    source: str
    env_ref: str | None
    env_source: str | None
    tools: list[dict[str, Any]] | None = None
    origin: str = "imported"

    def portable(self) -> dict[str, Any]:
        """The version as an export carries it: everything but where this database got it."""
        data = asdict(self)
        del data["origin"]
        return data


def _save_version(conn: Any, version: TaskVersion, tolerate_race: bool = False) -> None:
    """``tolerate_race``: another process storing the same version at the same moment is no
    error (the row is theirs then), so a transaction that holds other writes goes through."""
    same = (col(TaskRow.task_id) == version.task_id, col(TaskRow.content_hash) == version.content_hash)
    row = conn.execute(select(col(TaskRow.id), col(TaskRow.origin)).where(*same)).first()
    if row is None and tolerate_race:
        dialect = conn.engine.url.get_backend_name()
        values, key = {**asdict(version), "created_at": time.time()}, ["task_id", "content_hash"]
        statement: Executable
        if dialect == "postgresql":
            from sqlalchemy.dialects.postgresql import insert as pg_insert

            statement = pg_insert(table_of(TaskRow)).values(**values).on_conflict_do_nothing(index_elements=key)
        else:
            from sqlalchemy.dialects.sqlite import insert as sqlite_insert

            statement = sqlite_insert(table_of(TaskRow)).values(**values).on_conflict_do_nothing(index_elements=key)
        conn.execute(statement)
    elif row is None:
        conn.execute(insert(TaskRow).values(**asdict(version), created_at=time.time()))
    elif version.origin == "recorded" and row.origin != "recorded":
        conn.execute(update(TaskRow).where(col(TaskRow.id) == row.id).values(**asdict(version)))


_ORIGIN_OF = select(table_of(TaskRow).c.origin).where(  # a task version's origin (built once, compiled once)
    table_of(TaskRow).c.task_id == bindparam("task_id"), table_of(TaskRow).c.content_hash == bindparam("content_hash")
)


class TaskVersions:
    """Storing and reading task versions (see the module docstring)."""

    _secrets: Any
    _registered: set[tuple[str, str]]  # task versions this store has stored
    _appender: EventAppender | None

    if TYPE_CHECKING:  # Store's transaction helpers, which this mixin's methods run in

        def _write(self, fn: Callable[[Any], T]) -> T: ...
        def _read(self, fn: Callable[[Session], T]) -> T: ...
        def _read_core(self, fn: Callable[..., T]) -> T: ...  # (task_metas binds its query as a default)

    def register_task(self, loaded: Any) -> None:
        """Keep this exact task version (file and environment source) if it is new.

        It was loaded from a task file this process ran, so it is marked ``recorded``: its code
        may run again on replay. Secrets in the file are redacted in the stored copy."""
        if (loaded.id, loaded.content_hash) in self._registered or self._recorded(loaded):
            return
        self.save_task_version(self.version_of(loaded))
        self._registered.add((loaded.id, loaded.content_hash))

    def version_of(self, loaded: Any) -> TaskVersion:
        """The version a task file this process ran is stored as (origin ``recorded``)."""
        task = loaded.task
        source = Path(loaded.path).read_text(encoding="utf-8")
        env_ref = getattr(task, "env", None)
        env_source = tools = None
        if loaded.env_cls is not None and isinstance(env_ref, str):  # a task's env is its module's path
            from sttui.core.envload import resolve_module

            env_source = resolve_module(env_ref, Path(loaded.path)).read_bytes().decode("utf-8")
            tools = [spec.openai_schema() for spec in loaded.env_cls.tool_specs.values()]
        meta = {"domain": task.domain, "path": str(loaded.path)}
        if task.kind == "stt":
            meta |= {"conflict": task.conflict, "level": task.level}
        else:
            meta |= {"family": task.rule.family, "setting": task.setting}
        return TaskVersion(
            task.id, task.kind, loaded.content_hash, task.title, meta, source, env_ref, env_source, tools, "recorded"
        )

    def save_task_version(self, version: TaskVersion) -> None:
        """Store a version unless it is here already; secrets in its text are redacted first.

        A ``recorded`` version, read from a task file this process ran, replaces a copy of the
        same id and hash that came from elsewhere (an import, or a row older than origins): the
        file it was read from is the authority on what that version is."""
        version = self._redacted(version)
        if version.origin not in ORIGINS:
            raise ValueError(f"origin must be one of {', '.join(ORIGINS)}")

        with contextlib.suppress(IntegrityError):  # another process registered it at the same moment
            self._write(lambda conn: _save_version(conn, version))

    def _redacted(self, version: TaskVersion) -> TaskVersion:
        source = scrub_text(version.source, self._secrets)
        env_source = scrub_text(version.env_source, self._secrets) if version.env_source is not None else None
        if (source, env_source) == (version.source, version.env_source):
            return version
        meta = {**version.meta, "redacted": True}
        return replace(version, source=source, env_source=env_source, meta=meta)

    def task_version(self, task_id: str, content_hash: str) -> TaskVersion | None:
        def go(s: Session) -> TaskVersion | None:
            row = s.exec(
                orm_select(TaskRow).where(col(TaskRow.task_id) == task_id, col(TaskRow.content_hash) == content_hash)
            ).first()
            if row is None:
                return None
            return TaskVersion(
                row.task_id,
                row.kind,
                row.content_hash,
                row.title,
                row.meta,
                row.source,
                row.env_ref,
                row.env_source,
                row.tools,
                row.origin,
            )

        return self._read(go)

    def _recorded(self, loaded: Any) -> bool:
        """Whether the record holds this version as recorded here already (then there is nothing
        to store: no file is read for it)."""
        key = (loaded.id, loaded.content_hash)
        if self._appender is not None:  # SQLite: on the held connection, without a pool checkout
            origin = self._appender.scalar(ORIGIN_OF, key)
        else:
            values = {"task_id": key[0], "content_hash": key[1]}
            origin = self._read_core(lambda conn: conn.execute(_ORIGIN_OF, values).scalar())
        if origin == "recorded":
            self._registered.add(key)
            return True
        return False

    def task_metas(self, versions: list[tuple[str, str]]) -> dict[tuple[str, str], dict[str, Any]]:
        """The ``meta`` of each stored task version named, in one query per batch of versions."""
        out: dict[tuple[str, str], dict[str, Any]] = {}
        wanted = list(dict.fromkeys(versions))
        for chunk in in_batches(wanted):
            ids = sorted({t for t, _ in chunk})
            query = select(col(TaskRow.task_id), col(TaskRow.content_hash), col(TaskRow.meta)).where(
                col(TaskRow.task_id).in_(ids)
            )
            keep = set(chunk)
            for row in self._read_core(lambda conn, q=query: conn.execute(q).all()):
                if (row.task_id, row.content_hash) in keep:
                    out[(row.task_id, row.content_hash)] = row.meta
        return out
