"""Home's read-only look at a SQLite record (``sttui.store.peek``): the same sessions as the
store lists, with neither SQLAlchemy nor pydantic loaded, and the full store whenever it cannot."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

from sqlalchemy import insert

from sttui.store import peek as peek_module
from sttui.store.peek import SESSIONS_SQL, Peek, schema_head, sqlite_file
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


def test_a_damaged_record_is_one_line(tmp_path):
    import pytest

    from sttui.errors import StoreError

    url, store = _record(tmp_path)
    store.engine.dispose()
    with sqlite3.connect(tmp_path / "r.db") as conn:
        conn.execute("UPDATE episodes SET scores = '{not json' WHERE id = (SELECT min(id) FROM episodes)")
    peek = Peek.open(url)
    assert peek is not None
    with pytest.raises(StoreError, match=r"cannot read the record .*: malformed JSON; the file may be damaged"):
        list(peek.summaries(limit=10))
