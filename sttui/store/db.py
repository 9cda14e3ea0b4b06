"""Opening a database: URL resolution, engine settings per backend, migrations, clear errors."""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from sqlalchemy import Engine, create_engine, event, inspect
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, NoSuchModuleError, OperationalError

from sttui.errors import StoreError
from sttui.store.peek import DEFAULT_URL, damaged_value, resolve_url
from sttui.store.peek import schema_head as _head_from_files

if TYPE_CHECKING:  # alembic is imported only when a database needs migrating
    from alembic.config import Config
    from alembic.script import ScriptDirectory

__all__ = ["StoreError", "describe", "durable", "explain", "make_engine", "migrate", "resolve_url"]

BACKENDS = ("sqlite", "postgresql")
MIGRATIONS = Path(__file__).parent / "migrations"
BUSY_TIMEOUT_MS = int(os.environ.get("STTUI_BUSY_TIMEOUT_MS", "10000"))  # one wait for a lock
ADVISORY_LOCK = 0x5717_0001  # serialises sttui migrations on PostgreSQL


def durable() -> bool:
    """``STTUI_DURABLE`` set (``sttui --durable``): SQLite syncs every commit to the disk
    (``synchronous=FULL``), so not even a power cut loses a committed event. Off by default:
    ``NORMAL`` is safe from a crash or kill and loses at most about a second to a power cut."""
    # (the values click's --durable reads as false: the flag and the variable agree)
    return os.environ.get("STTUI_DURABLE", "").strip().lower() not in ("", "0", "f", "false", "n", "no", "off")


def describe(url: str) -> str:
    """The URL without its password, safe to print."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except ArgumentError:
        return url


def make_engine(url: str, create: bool = True) -> Engine:
    """An engine for ``url``. ``create``: the caller records, so a missing SQLite file is made
    (its folder only for the default ``sessions/``: a mistyped path must not silently become a
    new, empty record); without it a missing file is an error, since reading makes nothing."""
    try:
        parsed = make_url(url)
    except ArgumentError:
        raise StoreError(
            f"'{url}' is not a database URL; expected e.g. sqlite:///sessions/sttui.db or "
            "postgresql+psycopg://user@host/db (a SQLite file may also be named by a path ending .db)"
        ) from None
    backend = parsed.get_backend_name()
    if backend not in BACKENDS:
        raise StoreError(
            f"sttui does not support {backend} databases ({describe(url)}); supported: SQLite "
            "(sqlite:///path/to/file.db) and PostgreSQL (postgresql+psycopg://user@host/db)"
        )
    if backend == "sqlite":
        return _sqlite_engine(url, parsed.database, create)
    try:
        # a lock held elsewhere fails a statement after the same wait as SQLite's busy timeout,
        # so the writer can retry it within its deadline instead of hanging
        options = f"-c lock_timeout={BUSY_TIMEOUT_MS}"
        return create_engine(url, pool_pre_ping=True, connect_args={"connect_timeout": 5, "options": options})
    except (NoSuchModuleError, ModuleNotFoundError, ImportError) as exc:
        if parsed.get_driver_name() == "psycopg" and "psycopg" in str(exc):
            raise StoreError(
                f"PostgreSQL needs the psycopg driver, which is not installed ({describe(url)}); "
                "install it with: pip install 'sttui[postgres]'"
            ) from None
        raise StoreError(f"no driver for {describe(url)}; for PostgreSQL use postgresql+psycopg://…") from None


def read_only_sqlite(db: str | None) -> str | None:
    """How an existing SQLite file can only be read: 'filesystem' (mounted read-only: nobody
    can write, so it is opened immutable) or 'file' (no write permission); None when writable."""
    if not db or db == ":memory:" or not os.path.exists(db):
        return None
    folder = os.path.dirname(os.path.abspath(db))
    if os.statvfs(folder).f_flag & os.ST_RDONLY:
        return "filesystem"
    if not os.access(db, os.W_OK) or not os.access(folder, os.W_OK):
        return "file"
    return None


def _file_in_the_way(folder: str) -> str | None:
    """The nearest existing part of ``folder``'s path when it is a file rather than a folder."""
    path = Path(folder)
    while not path.exists() and path != path.parent:
        path = path.parent
    return None if path.is_dir() else str(path)


def _sqlite_engine(url: str, db: str | None, create: bool = True) -> Engine:
    if db and db != ":memory:" and not db.startswith("file:") and not os.path.exists(db):
        folder = os.path.dirname(os.path.abspath(db))
        blocked = _file_in_the_way(folder)
        if blocked:
            raise StoreError(
                f"cannot use the SQLite database {db}: {blocked} is a file, not a folder; check the path "
                "(--db or STTUI_DB)"
            )
        if not create:
            raise StoreError(f"no database at {db}: nothing has been recorded there; check the path (--db or STTUI_DB)")
        if url != DEFAULT_URL and not os.path.isdir(folder):
            raise StoreError(
                f"the folder {folder} for the SQLite database does not exist; check the path (--db or "
                f"STTUI_DB), or make the folder first: mkdir -p {folder}"
            )
    read_only = read_only_sqlite(db)
    connect_args: dict[str, object] = {"timeout": BUSY_TIMEOUT_MS / 1000, "check_same_thread": False}
    if read_only:
        assert db is not None
        query = "mode=ro&immutable=1" if read_only == "filesystem" else "mode=ro"
        url = f"sqlite:///file:{os.path.abspath(db)}?{query}&uri=true"
    elif db and db != ":memory:":
        try:
            Path(db).parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(
                f"cannot make the folder for the SQLite database {db}: {exc.strerror or exc}; "
                "check that every part of the path above it is a folder you can write"
            ) from None
    engine = create_engine(url, connect_args=connect_args)
    synchronous = "FULL" if durable() else "NORMAL"
    engine.sttui_read_only = read_only  # type: ignore[attr-defined]  # sttui's mark on the engine

    @event.listens_for(engine, "connect")
    def _pragmas(dbapi_conn: Any, _record: Any) -> None:
        cur = dbapi_conn.cursor()
        if not read_only:
            cur.execute("PRAGMA journal_mode=WAL")
            # NORMAL in WAL: each commit is safe from a crash or kill at once; the writer syncs
            # the disk about once a second (Store.sync), so a power cut loses at most that.
            # FULL (--durable): every commit is on the disk before it returns.
            cur.execute(f"PRAGMA synchronous={synchronous}")
        cur.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        cur.execute("PRAGMA foreign_keys=ON")
        cur.close()

    return engine


# what a read turns into a StoreError through ``explain``: the driver's errors, and a stored value
# that is not JSON
READ_ERRORS = (OperationalError, DBAPIError, json.JSONDecodeError)


def explain(exc: Exception, url: str) -> StoreError:
    """Turn a driver error (or a stored value that will not decode) into a message that says
    what to check."""
    if isinstance(exc, json.JSONDecodeError):
        return damaged_value(describe(url), exc)
    text = str(getattr(exc, "orig", exc)).strip().splitlines()[0] if str(exc) else type(exc).__name__
    where = describe(url)
    if "readonly" in text or "read-only" in text:
        return StoreError(
            f"the database {where} is read-only ({text}); reading works, but nothing can be recorded; "
            "copy it to a writable folder to record into it"
        )
    if "disk is full" in text or "No space left" in text:
        return StoreError(
            f"the disk holding {where} is full ({text}); free some space and retry. "
            "Everything recorded before this is kept",
            transient=True,
        )
    if "locked" in text or "lock timeout" in text:
        kind = "SQLite database" if url.startswith("sqlite") else "database"
        return StoreError(
            f"the {kind} {where} is locked by another process and stayed locked for "
            f"{BUSY_TIMEOUT_MS / 1000:g} s; close the other sttui, or wait and retry",
            transient=True,
        )
    if url.startswith("sqlite") and "malformed" in text:  # the file opened; what it holds is damaged
        return StoreError(
            f"the SQLite database {where} is damaged ({text}); it may have been cut short or written by "
            "another program: keep a copy, and record into a new file (--db) while you look at it"
        )
    if url.startswith("sqlite"):
        return StoreError(
            f"cannot use the SQLite database {where}: {text}; check that the folder exists and is "
            "writable and that the file is an SQLite database"
        )
    if isinstance(exc, OperationalError):
        return StoreError(
            f"cannot reach the database {where}: {text}; check that the server is running, the host and "
            "port, the user and password, and that the database exists",
            transient=True,
        )
    return StoreError(f"the database {where} refused the operation: {text}")


def _config(connection: object) -> Config:
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.attributes["connection"] = connection
    return cfg


def head_revision() -> str:
    from alembic.script import ScriptDirectory

    head = ScriptDirectory(str(MIGRATIONS)).get_current_head()
    assert head is not None
    return head


def _at_head(engine: Engine) -> bool:
    """Whether the database is at the newest schema already: then nothing is migrated and alembic
    is not even imported (it costs a quarter of a second to start)."""
    head = _head_from_files()
    if head is None:
        return False
    try:
        with engine.connect() as conn:
            if not inspect(conn).has_table("alembic_version"):
                return False
            rows = conn.exec_driver_sql("SELECT version_num FROM alembic_version").all()
    except (OperationalError, DBAPIError):
        return False
    return [r[0] for r in rows] == [head]


@contextlib.contextmanager
def _sqlite_migration_lock(engine: Engine) -> Iterator[None]:
    """Several processes opening a new SQLite file at once migrate it one at a time (a lock
    file beside the database, through filelock: fcntl where there is one, else the platform's)."""
    db = engine.url.database
    if engine.url.get_backend_name() != "sqlite" or not db or db == ":memory:":
        yield
        return
    from filelock import FileLock, Timeout

    try:
        with FileLock(f"{db}.migrate-lock", timeout=120):
            yield
    except Timeout:
        raise StoreError(
            f"another sttui process has been migrating {db} for two minutes; if none is running, "
            f"remove {db}.migrate-lock"
        ) from None


def _check_read_only(engine: Engine, url: str, script: ScriptDirectory) -> None:
    """A read-only database can be read only if it needs no migration."""
    from alembic.runtime.migration import MigrationContext

    try:
        with engine.connect() as conn:
            current = MigrationContext.configure(conn).get_current_revision()
    except (OperationalError, DBAPIError) as exc:
        raise explain(exc, url) from None
    if current != script.get_current_head():
        raise StoreError(
            f"the database {describe(url)} is read-only and was made by another sttui version "
            f"(schema {current}, this one needs {script.get_current_head()}); open it once where it is "
            "writable to upgrade it"
        )


def migrate(engine: Engine, url: str, revision: str = "head") -> None:
    """Bring the schema to ``revision``; refuse a database made by a newer sttui.

    Concurrent openers take turns: a file lock beside an SQLite database, a transaction-level
    advisory lock on PostgreSQL.
    """
    if revision == "head" and _at_head(engine):
        return
    from alembic import command
    from alembic.runtime.migration import MigrationContext
    from alembic.script import ScriptDirectory

    script = ScriptDirectory(str(MIGRATIONS))
    if getattr(engine, "sttui_read_only", None):
        _check_read_only(engine, url, script)
        return
    try:
        with _sqlite_migration_lock(engine), engine.begin() as conn:
            if engine.url.get_backend_name() == "postgresql":
                conn.exec_driver_sql(f"SELECT pg_advisory_xact_lock({ADVISORY_LOCK})")
            current = MigrationContext.configure(conn).get_current_revision()
            if current is not None and current not in {r.revision for r in script.walk_revisions()}:
                raise StoreError(
                    f"the database {describe(url)} has schema version {current}, newer than this "
                    f"sttui knows (up to {head_revision()}); upgrade sttui to open it"
                )
            if current is None and inspect(conn).has_table("events"):
                raise StoreError(
                    f"the database {describe(url)} has sttui-like tables but no schema version; "
                    "it was not made by sttui's migrations"
                )
            command.upgrade(_config(conn), revision)
    except (OperationalError, DBAPIError) as exc:
        raise explain(exc, url) from None


T = TypeVar("T")
# Ids per ``IN (...)`` list: below SQLite's old limit of 999 bound variables, and short enough
# that PostgreSQL plans each query as quickly as one id at a time.
IN_BATCH = 500


def in_batches(items: Sequence[T], size: int = IN_BATCH) -> Iterator[Sequence[T]]:
    """``items`` a batch at a time, for queries that name them in an ``IN`` list."""
    for i in range(0, len(items), size):
        yield items[i : i + size]
