"""Home's read-only look at a SQLite record (``sttui.store.peek``): the same sessions as the
store lists, with neither SQLAlchemy nor pydantic loaded, and the full store whenever it cannot."""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

from sqlalchemy import insert

from sttui.store import peek as peek_module
from sttui.store.peek import SESSIONS_SQL, Peek, listing_query, schema_head, sqlite_file
from sttui.store.store import Store
from sttui.store.tables import EpisodeRow, EventRow
from tests.conftest import ROOT
from tests.test_scale_store import _fill, _varied


def _compiled_listing(store: Store, **page: Any) -> str:
    """Store.summaries()'s query for SQLite, its parameters bound as literals."""
    captured = []

    def keep(query, convert):
        captured.append(query)
        return iter(())

    store._stream = keep  # type: ignore[method-assign]
    list(store.summaries(**page))
    del store._stream
    sql = str(captured[0].compile(dialect=store.engine.dialect, compile_kwargs={"literal_binds": True}))
    return " ".join(sql.split())


def test_the_query_is_the_stores_own(tmp_path):
    """Change the store's listing and this fails until peek's copy is changed with it."""
    store = Store(f"sqlite:///{tmp_path / 'r.db'}")
    assert " ".join(SESSIONS_SQL.split()) == _compiled_listing(store)
    # and the page after a (started_at, id) is the store's page after it
    after = peek_module.SESSIONS_SQL.replace(peek_module._ORDER, f"{peek_module._AFTER} {peek_module._ORDER}")
    bound = after.replace("?", "1.5", 2).replace("?", "'x'", 1)
    assert " ".join(bound.split()) == _compiled_listing(store, after=(1.5, "x"))


def _record(tmp_path: Path) -> tuple[str, Store]:
    url = f"sqlite:///{tmp_path / 'r.db'}"
    store = Store(url)
    rows = _varied(60)
    for r in rows[:6]:
        r["started_at"] = 1_800_000_000.0  # ties on the start time: the id decides the order
    rows[4]["clean_baseline"] = False
    rows[9]["scores"] = {"lineage": {"forked_from": {"episode": rows[1]["id"], "seq": 3}}, "calibrated_accuracy": 0.5}
    _fill(store, rows)
    with store.engine.begin() as conn:  # a running fork: its lineage is in its start event
        running = next(r["id"] for r in rows if r["status"] == "running")
        started = {"task_id": "t", "forked_from": {"episode": rows[2]["id"], "seq": 5}}
        events = [
            {"episode_id": running, "seq": 1, "type": "episode_started", "payload": started},
            {"episode_id": running, "seq": 2, "type": "tool_call", "payload": {"name": "x"}},
            {"episode_id": running, "seq": 3, "type": "message", "payload": {"from": "agent", "text": "hi"}},
            {"episode_id": running, "seq": 4, "type": "forked", "payload": {"forked_from": started["forked_from"]}},
        ]
        base = {"wall_time": 0.0, "sim_time": "", "actor": "system"}
        conn.execute(insert(EventRow.__table__), [{**base, **e} for e in events])  # type: ignore[arg-type]
        conn.execute(EpisodeRow.__table__.update().where(EpisodeRow.id == rows[7]["id"]).values(outcome=None))
    return url, store


def test_pages_are_the_stores_rows(tmp_path):
    from sttui.lineage.forks import forks_among

    url, store = _record(tmp_path)
    peek = Peek.open(url)
    assert peek is not None
    listed = list(store.summaries())
    ties = [r for r in listed if sum(o.started_at == r.started_at for o in listed) > 1]
    assert ties  # a page that ends inside a run of equal start times: the id decides
    afters = [None, *((r.started_at, r.id) for r in (listed[0], listed[9], listed[49], ties[0], listed[-1]))]
    for limit, after in ((200, None), *((10, a) for a in afters), (25, afters[3])):
        mine, theirs = (
            list(peek.summaries(limit=limit, after=after)),
            list(store.summaries(limit=limit, after=after)),
        )
        if after is not None and after != afters[-1]:
            start = next(i for i, r in enumerate(listed) if r.id == after[1]) + 1
            assert [r.id for r in theirs] == [r.id for r in listed[start : start + limit]]
        assert [r.id for r in mine] == [r.id for r in theirs]
        for a, b in zip(mine, theirs, strict=True):
            for name in b.__slots__:  # every field, with its type (booleans as booleans)
                x, y = getattr(a, name), getattr(b, name)
                if name in ("outcome", "scores") and y is not None:
                    assert (dict(x), bool(x)) == (dict(y), bool(y)), (name, b.id)
                else:
                    assert (x, type(x)) == (y, type(y)), (name, b.id)
    ids = [r.id for r in store.summaries()]
    assert forks_among(peek, ids) == forks_among(store, ids) != {}
    running = [r for r in peek.summaries() if r.status == "running"]
    assert any(r.steps == 2 for r in running)  # counted from the events while it runs, as the store does
    # of one status (home lists every running episode, whatever its age), alone and with a page
    for status in ("running", "completed"):
        for limit, after in (
            (None, None),
            (3, None),
            (5, afters[2]),
            (5, ties[0] and (ties[0].started_at, ties[0].id)),
        ):
            mine_ids = [r.id for r in peek.summaries(limit=limit, after=after, status=status)]
            theirs_ids = [r.id for r in store.summaries(limit=limit, after=after, status=status)]
            assert mine_ids == theirs_ids and mine_ids, (status, limit, after)
    assert {r.id for r in peek.summaries(status="running")} == {r.id for r in running}


def test_it_stands_aside_for_the_full_store(tmp_path):
    """No file yet, an older schema, another database or URL form: None, and the store opens."""
    assert Peek.open(f"sqlite:///{tmp_path / 'none.db'}") is None  # the store makes it (or says why not)
    assert not (tmp_path / "none.db").exists()
    assert sqlite_file("postgresql+psycopg://u@h/db") is None
    assert sqlite_file("sqlite://") is None and sqlite_file("sqlite:///:memory:") is None
    assert sqlite_file(f"sqlite:///{tmp_path}/a.db?mode=ro") is None
    assert sqlite_file(f"sqlite:///{tmp_path}/a%20b.db") is None  # (the store reads it as "a b.db")
    from sqlalchemy.engine import make_url

    for url in ("sqlite:////tmp/odd dir #1/r.db", "sqlite:///rel/x.db", "sqlite:////tmp/a+b.db", "sqlite:///./é.db"):
        assert sqlite_file(url) == make_url(url).database, url  # the file the store would open
    url = f"sqlite:///{tmp_path / 'old.db'}"
    Store(url).engine.dispose()
    with sqlite3.connect(tmp_path / "old.db") as conn:
        conn.execute("UPDATE alembic_version SET version_num = 'older'")
    assert Peek.open(url) is None  # the store migrates it
    (tmp_path / "junk.db").write_bytes(b"not a database at all" * 100)
    assert Peek.open(f"sqlite:///{tmp_path / 'junk.db'}") is None  # the store explains it
    assert schema_head()


def test_home_lists_sessions_without_sqlalchemy_or_pydantic(tmp_path):
    """Plain home on a record with sessions: they are listed, and neither library is loaded
    (pydantic only while the task index is first filled, when each task is loaded once)."""
    url, store = _record(tmp_path)
    store.engine.dispose()
    script = f"""
import json, os, sys
from pathlib import Path
from typing import Any
from sttui.tui.app import SttuiApp
from sttui.tui.launch import Launch
class Probe(SttuiApp):
    def on_mount(self):
        super().on_mount()
        self.set_interval(0.02, self.check)
        self.set_timer(60, lambda: os._exit(3))
    def check(self):
        home = self.screen
        if getattr(home, "rows", None) and getattr(home, "sessions", None):
            out = [len(home.sessions), "sqlalchemy" in sys.modules, "pydantic" in sys.modules, self.store is None]
            Path(sys.argv[1]).write_text(json.dumps(out))
            os._exit(0)
Probe(Launch.build(Path({str(ROOT / "tasks")!r}), db_url={url!r})).run(headless=True, size=(120, 40))
"""
    out = tmp_path / "out.json"
    env = {**os.environ, "STTUI_CACHE_DIR": str(tmp_path / "cache")}
    seen = []
    for _ in range(2):  # the first run fills the task index (loading each task once), as any first use does
        done = subprocess.run(
            [sys.executable, "-c", script, str(out)], env=env, cwd=tmp_path, capture_output=True, timeout=120
        )
        assert done.returncode == 0, done.stderr.decode()[-2000:]
        seen.append(json.loads(out.read_text()))
    assert seen[0][:2] == [60, False] and seen[0][3] is True
    assert seen[1] == [60, False, False, True]


def _without_listing_indexes(conn: sqlite3.Connection) -> None:
    """As a record damaged before migration 0012 is: with its listing indexes, SQLite refuses a
    value that is not JSON (tests/test_listing_indexes.py), and a record already holding one
    migrates without them."""
    for name in ("ix_episodes_listing", "ix_episodes_report"):
        conn.execute(f"DROP INDEX {name}")


def test_a_damaged_record_is_one_line(tmp_path):
    import pytest

    from sttui.errors import StoreError

    url, store = _record(tmp_path)
    store.engine.dispose()
    with sqlite3.connect(tmp_path / "r.db") as conn:
        _without_listing_indexes(conn)
        conn.execute("UPDATE episodes SET scores = '{not json' WHERE id = (SELECT min(id) FROM episodes)")
    peek = Peek.open(url)
    assert peek is not None
    with pytest.raises(StoreError, match=r"cannot read the record .*: malformed JSON; the file may be damaged"):
        list(peek.summaries(limit=10))


def _literal(value: Any) -> str:
    """A parameter as SQLAlchemy writes it with literal binds (SQLite)."""
    return "'" + value.replace("'", "''") + "'" if isinstance(value, str) else repr(value)


def _compiled(store: Store, method: str, **filters: Any) -> str:
    """One of the store's streamed listings' query for SQLite, its parameters bound as literals."""
    captured = []

    def keep(query, convert):
        captured.append(query)
        return iter(())

    store._stream = keep  # type: ignore[method-assign]
    list(getattr(store, method)(**filters))
    del store._stream
    sql = str(captured[0].compile(dialect=store.engine.dialect, compile_kwargs={"literal_binds": True}))
    return " ".join(sql.split())


# the filters ``sttui sessions`` takes, alone and together (a quote and LIKE's wildcards among them)
SESSIONS_FILTERS: list[dict[str, Any]] = [
    {},
    {"task": "task-3"},
    {"task": "it's_%"},
    {"controller": "agent1"},
    {"controller": "scripted"},
    {"status": "running"},
    {"since": datetime(2023, 11, 14, 22, 14)},
    {"until": datetime(2023, 11, 14, 22, 14)},
    {"limit": 7},
    {"task": "task", "controller": "agent", "status": "completed", "since": datetime(2020, 1, 1), "limit": 3},
    {"task": "task-1", "until": datetime(2030, 1, 1), "since": datetime(2023, 11, 14, 22, 13, 40)},
]


def test_the_sessions_listing_is_the_stores_own(tmp_path):
    """``sttui sessions``' query on the standard-library reader, under every filter, is the text
    of the store's own (change ``listings._listing`` or ``_filtered`` and this fails until
    ``peek.LISTING_SQL`` or ``_FILTERS`` is changed with it)."""
    store = Store(f"sqlite:///{tmp_path / 'r.db'}")
    for filters in SESSIONS_FILTERS:
        sql, params = listing_query(**filters)
        values = iter(params)
        mine = " ".join(re.sub(r"\?", lambda _, given=values: _literal(next(given)), sql).split())
        assert mine == _compiled(store, "listing_rows", **filters), filters


def test_the_sessions_listing_gives_the_stores_rows(tmp_path):
    url, store = _record(tmp_path)
    peek = Peek.open(url)
    assert peek is not None
    for filters in SESSIONS_FILTERS:
        mine, theirs = list(peek.listing_rows(**filters)), list(store.listing_rows(**filters))
        assert [tuple(r) for r in mine] == [tuple(r) for r in theirs], filters
        assert [[type(v) for v in r] for r in mine] == [[type(v) for v in r] for r in theirs]
    assert len(list(peek.listing_rows())) == 60 and len(list(peek.listing_rows(limit=7))) == 7
    assert {r[0] for r in peek.listing_rows(status="running")} == {r[0] for r in store.listing_rows(status="running")}
    for kind in ("forked", "seat_changed"):
        assert peek.episodes_with_event(kind) == store.episodes_with_event(kind)
    assert peek.episodes_with_event("forked")


def _reported(tmp_path: Path) -> tuple[str, str]:
    """``_record``, with a seat change recorded before control summaries were kept, and stored
    versions of some tasks (the report's level and conflict columns)."""
    from sttui.store.tables import TaskRow

    url, store = _record(tmp_path)
    with store.engine.begin() as conn:
        handed = next(r.id for r in store.summaries() if r.status == "completed" and "control" not in (r.scores or {}))
        events = [
            {"episode_id": handed, "seq": 1, "type": "tool_call", "payload": {"name": "x"}, "actor": "human:ana"},
            {"episode_id": handed, "seq": 2, "type": "seat_changed", "payload": {"seat": "agent", "to": "model:m"}},
            {"episode_id": handed, "seq": 3, "type": "tool_call", "payload": {"name": "y"}, "actor": "model:m"},
        ]
        base = {"wall_time": 0.0, "sim_time": "", "actor": "system"}
        conn.execute(insert(EventRow.__table__), [{**base, **e} for e in events])  # type: ignore[arg-type]
        versions = [
            {"task_id": f"task-{i}", "content_hash": f"h{i % 3}", "meta": {"level": i % 4 + 1, "conflict": f"c{i}"}}
            for i in range(5)
        ]
        versions.append({"task_id": "task-5", "content_hash": "other", "meta": {"level": 2, "conflict": "x"}})
        common = {"kind": "stt", "title": "t", "source": "s", "created_at": 0.0}
        conn.execute(insert(TaskRow.__table__), [{**common, **v} for v in versions])  # type: ignore[arg-type]
    store.engine.dispose()
    return url, handed


def test_sessions_reads_through_peek_and_prints_what_the_store_would(tmp_path, monkeypatch):
    """``sttui sessions`` on a plain SQLite record: the standard-library reader, and exactly the
    table the full store gives (forks marked, seat changes counted from the events)."""
    from click.testing import CliRunner

    from sttui.cli import main

    url, handed = _reported(tmp_path)
    opened: list[str] = []
    real_open = Peek.open

    def spy(cls: Any, url: str) -> Peek | None:
        found = real_open(url)
        opened.append("peek" if found is not None else "store")
        return found

    args_list = [["sessions"], ["sessions", "--task", "task-3"], ["sessions", "--controller", "agent1", "--limit", "4"]]
    args_list += [["sessions", "--status", "running"], ["sessions", "--since", "2023-11-14 22:14:00"]]
    for args in args_list:
        monkeypatch.setattr(Peek, "open", classmethod(spy))
        through_peek = CliRunner().invoke(main, ["--db", url, *args])
        monkeypatch.setattr(Peek, "open", classmethod(lambda cls, url: None))
        through_store = CliRunner().invoke(main, ["--db", url, *args])
        assert through_peek.exit_code == through_store.exit_code == 0, through_peek.output + through_store.output
        assert through_peek.output == through_store.output, args
    assert opened == ["peek"] * len(args_list)
    table = CliRunner().invoke(main, ["--db", url, "sessions"]).output
    assert "(fork of " in table and "60 episode(s)" in table
    row = next(line for line in table.splitlines() if line.startswith(handed))
    assert "mixed (human:ana 1, model:m 1)" in row  # counted from its events, on the reader's lookup


def test_sessions_loads_neither_sqlalchemy_nor_pydantic(tmp_path):
    url, store = _record(tmp_path)
    store.engine.dispose()
    script = """
import sys
from sttui.cli import main
try:
    main(["--db", sys.argv[1], "sessions", "--limit", "5"])
except SystemExit as exit:
    assert not exit.code, exit.code
print(sorted({m.split(".")[0] for m in sys.modules} & {"sqlalchemy", "sqlmodel", "pydantic", "textual", "asyncio"}))
"""
    env = {**os.environ, "HOME": str(tmp_path), "STTUI_CACHE_DIR": str(tmp_path / "cache")}
    done = subprocess.run(
        [sys.executable, "-c", script, url], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    assert lines[-1] == "[]" and lines[-2] == "5 episode(s)", done.stdout


def test_sessions_on_a_damaged_record_is_one_line(tmp_path):
    from click.testing import CliRunner

    from sttui.cli import main

    url, store = _record(tmp_path)
    store.engine.dispose()
    with sqlite3.connect(tmp_path / "r.db") as conn:
        _without_listing_indexes(conn)
        conn.execute("UPDATE episodes SET scores = '{not json' WHERE id = (SELECT max(id) FROM episodes)")
    done = CliRunner().invoke(main, ["--db", url, "sessions"])
    assert done.exit_code == 2 and "Traceback" not in done.output
    assert "error: cannot read the record" in done.output and "malformed JSON" in done.output


def test_the_report_query_is_the_stores_own(tmp_path):
    store = Store(f"sqlite:///{tmp_path / 'r.db'}")
    for status in ("completed", "errored"):
        mine = " ".join(peek_module.REPORT_SQL.replace("?", _literal(status)).split())
        assert mine == _compiled(store, "report_rows", statuses=(status,))


def test_the_report_reads_the_stores_rows(tmp_path):
    url, _ = _reported(tmp_path)
    store, peek = Store(url), Peek.open(url)
    assert peek is not None
    statuses = ("completed", "errored")
    mine, theirs = list(peek.report_rows(statuses)), list(store.report_rows(statuses))
    assert mine and [tuple(r) for r in mine] == [tuple(r) for r in theirs]
    assert [[type(v) for v in r] for r in mine] == [[type(v) for v in r] for r in theirs]
    for status in (None, "running", statuses, ("stopped",)):
        assert peek.count_episodes(status=status) == store.count_episodes(status=status)
    wanted = [(f"task-{i}", f"h{i % 3}") for i in range(7)] + [("task-5", "other"), ("task-1", "h0")]
    assert peek.task_metas(wanted) == store.task_metas(wanted) != {}


def test_report_through_peek_is_the_stores_report(tmp_path, monkeypatch):
    """``sttui report`` on a plain SQLite record reads it through the standard-library reader,
    and prints exactly what the full store gives: as text, as JSON, with forks counted."""
    from click.testing import CliRunner

    from sttui.cli import main

    url, _ = _reported(tmp_path)
    opened: list[bool] = []
    real_open = Peek.open
    for args in (["report"], ["report", "--json"], ["report", "--with-forks", "--json"]):
        monkeypatch.setattr(Peek, "open", classmethod(lambda cls, url: opened.append(True) or real_open(url)))
        through_peek = CliRunner().invoke(main, ["--db", url, *args])
        monkeypatch.setattr(Peek, "open", classmethod(lambda cls, url: None))
        through_store = CliRunner().invoke(main, ["--db", url, *args])
        assert through_peek.exit_code == through_store.exit_code == 0, through_peek.output + through_store.output
        assert through_peek.output == through_store.output, args
    assert len(opened) == 3
    figures = json.loads(CliRunner().invoke(main, ["--db", url, "report", "--json"]).output)
    assert any(r["controller"] == "mixed" for r in figures["controllers"])  # the seat change, from its events
    assert figures["common_stt_tasks"]


def test_report_loads_neither_sqlalchemy_nor_pydantic(tmp_path):
    url, _ = _reported(tmp_path)
    script = """
import sys
from sttui.cli import main
try:
    main(["--db", sys.argv[1], "report"])
except SystemExit as exit:
    assert not exit.code, exit.code
print(sorted({m.split(".")[0] for m in sys.modules} & {"sqlalchemy", "sqlmodel", "pydantic", "textual"}))
"""
    env = {**os.environ, "HOME": str(tmp_path), "STTUI_CACHE_DIR": str(tmp_path / "cache")}
    done = subprocess.run(
        [sys.executable, "-c", script, url], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.splitlines()[-1] == "[]" and "controller" in done.stdout, done.stdout
