from __future__ import annotations

import stat
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"

# Where a test must never write: the project's own record, tasks, ratings and docs.
GUARDED = ("sessions", "tasks", "annotations", "docs", "bench")
# A database URL that cannot be opened: a test that forgets to name its own database fails
# loudly instead of writing into sessions/sttui.db.
NO_DATABASE = "sqlite:////dev/null/name-a-database-inside-tmp_path.db"


def _tree(root: Path) -> dict[str, tuple[int, int]]:
    out = {}
    for top in GUARDED:
        for p in (root / top).rglob("*"):
            if "__pycache__" in p.parts:
                continue
            try:
                info = p.stat()
            except OSError:
                continue
            if stat.S_ISDIR(info.st_mode):  # files only: a folder's time changes when another
                continue  # process (a bench, an import writing __pycache__) adds an entry to it
            out[str(p.relative_to(root))] = (info.st_size, info.st_mtime_ns)
    return out


@pytest.fixture(scope="session", autouse=True)
def _sandbox(tmp_path_factory):
    """Keep the machine out: no user config, cache or home is read or written, and no default
    database exists (see NO_DATABASE)."""
    import os

    home = tmp_path_factory.mktemp("home")
    saved = {k: os.environ.get(k) for k in ("HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "STTUI_DB")}
    os.environ.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_CACHE_HOME=str(home / ".cache"),
        STTUI_DB=NO_DATABASE,
    )
    yield
    for k, v in saved.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


@pytest.fixture(autouse=True)
def _nothing_written_outside_tmp():
    """Fail the test that wrote into the project's own folders (its record above all)."""
    before = _tree(ROOT)
    yield
    after = _tree(ROOT)
    changed = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
    assert not changed, f"the test wrote outside its temporary directory: {', '.join(changed[:5])}"


@pytest.fixture(autouse=True)
def _private_dirs(tmp_path_factory, monkeypatch):
    """Tests never touch the user's cache or config: both live in a fresh temporary folder."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("STTUI_CACHE_DIR", str(home / "cache"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / "xdg-cache"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / "config"))
    monkeypatch.delenv("STTUI_TRUST_CWD", raising=False)
    monkeypatch.delenv("STTUI_CONFIG", raising=False)  # a config file named for the user is not the tests'
    return home


@pytest.fixture
def mini_task():
    from sttui.core.loader import load_task

    return load_task(FIXTURES / "mini" / "good.yaml")


PG_ENV = "STTUI_TEST_PG_URL"


def _fresh_pg_database(base_url: str) -> tuple[str, object]:
    import uuid

    import psycopg
    from sqlalchemy.engine import make_url

    url = make_url(base_url)
    name = f"sttui_t_{uuid.uuid4().hex[:10]}"
    admin = psycopg.connect(
        host=url.host,
        port=url.port,
        user=url.username,
        password=url.password or None,
        dbname=url.database,
        autocommit=True,
    )
    admin.execute(f'CREATE DATABASE "{name}"')

    def drop() -> None:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.close()

    return url.set(database=name).render_as_string(hide_password=False), drop


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request, tmp_path):
    """A fresh, empty database on each backend. PostgreSQL skips only when its URL variable is unset."""
    import os

    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'sttui.db'}"
        return
    base = os.environ.get(PG_ENV)
    if not base:
        pytest.skip(f"{PG_ENV} is not set")
    url, drop = _fresh_pg_database(base)
    yield url
    drop()


@pytest.fixture
def stt_task():
    from sttui.core.loader import load_task

    return load_task(ROOT / "tasks" / "stt" / "logistics" / "insulin-reefer-fault-st2-easy.yaml")


def cli(db: str, *args: object) -> Any:
    """``sttui --db DB ARGS…`` in-process through click's runner; an exception becomes the
    result's ``exception`` (and a non-zero exit), as a user would see it fail."""
    from click.testing import CliRunner

    from sttui.cli import main

    return CliRunner().invoke(main, ["--db", db, *map(str, args)])


def cli_raising(db: str, *args: object) -> Any:
    """:func:`cli`, but an exception is raised in the test, with its traceback."""
    from click.testing import CliRunner

    from sttui.cli import main

    return CliRunner().invoke(main, ["--db", db, *map(str, args)], catch_exceptions=False)


@pytest.fixture(scope="session")
def _two_episodes_jsonl(tmp_path_factory: pytest.TempPathFactory) -> str:
    folder = tmp_path_factory.mktemp("two-episodes")
    db = f"sqlite:///{folder / 'src.db'}"
    assert cli(db, "run", ROOT / "tasks" / "stt" / "logistics" / "insulin-reefer-fault-st2-easy.yaml").exit_code == 0
    assert cli(db, "run", ROOT / "tasks" / "explore" / "finance" / "additive-1.yaml").exit_code == 0
    path = folder / "two.jsonl"
    assert cli(db, "export", "--all", "-o", path).exit_code == 0
    return path.read_text(encoding="utf-8")


@pytest.fixture
def exported(_two_episodes_jsonl: str) -> list[dict[str, Any]]:
    """Two finished episodes (an stt one, then an explore one) exported with ``export --all``,
    as the file's objects: the test's own copy, to change as it likes (made once a session)."""
    import json

    return [json.loads(line) for line in _two_episodes_jsonl.splitlines()]
