"""Events alone on SQLite are committed through the store's held raw connection
(sttui/store/appends.py): the same rows as the SQLAlchemy path writes, committed before the call
returns, with the engine's own settings and the same errors."""

from __future__ import annotations

import asyncio
import datetime
import os
import sqlite3

import pytest
from sqlalchemy import create_engine
from sqlalchemy import event as sa_event
from sqlalchemy.exc import IntegrityError

from sttui.core.events import Event
from sttui.store.store import Store
from sttui.store.writer import Writer

KEY = "sk-" + "Zq9x" * 8  # key-shaped: redacted on the way in


def _events() -> list[Event]:
    """Payloads that take every branch of the encoding: plain, non-ASCII, odd types (tuples,
    dates, keys that are not text), a key-shaped string, a secret's value, a secret-named field."""
    payloads: list[dict] = [
        {"tool": "get_vehicle_status", "result": {"success": True, "n": 3, "x": 2.5, "none": None}},
        {"from": "user", "text": "naïve café – «ok» 東京 \U0001f600", "escapes": 'quote " back \\ tab \t nl \n'},
        {"when": datetime.datetime(2024, 8, 15, 6, 0), "pair": (1, 2), 7: "seven", "big": 2**70, "neg": -0.0},
        {"message": f"my key is {KEY}", "headers": {"Authorization": f"Bearer {KEY}"}},
        {"note": "the env value verysecretvalue123 leaked", "password": "hunter22", "api_key": "abc"},
        {},
    ]
    return [
        Event(i, kind, actor, p, f"2024-08-15T06:0{i}:00", 1_700_000_000.0 + i / 7)
        for i, (kind, actor, p) in enumerate(
            zip(
                ["episode_started", "message", "tool_result", "message", "note", "episode_ended"],
                ["system", "user", "env", "agent", f"agent {KEY}", "system"],
                payloads,
                strict=True,
            ),
            start=1,
        )
    ]


COLUMNS = (
    "seq, typeof(seq), wall_time, typeof(wall_time), sim_time, actor, type, payload, typeof(payload), "
    "typeof(episode_id)"
)


def _rows(path, episode_id: str) -> list[tuple]:
    con = sqlite3.connect(path)
    try:
        return con.execute(f"select {COLUMNS} from events where episode_id = ? order by seq", (episode_id,)).fetchall()
    finally:
        con.close()


def _sqlalchemy_inserts(store: Store) -> list[str]:
    """The INSERTs into events that go through SQLAlchemy from now on."""
    seen: list[str] = []

    @sa_event.listens_for(store.engine, "before_cursor_execute")
    def _seen(_conn, _cursor, statement, *_rest):  # type: ignore[no-untyped-def]
        if statement.startswith("INSERT INTO events"):
            seen.append(statement)

    return seen


def test_the_fast_path_writes_the_same_rows_as_the_sqlalchemy_path(tmp_path, stt_task, monkeypatch):
    monkeypatch.setenv("SOME_SECRET_TOKEN", "verysecretvalue123")
    path = tmp_path / "r.db"
    store = Store(f"sqlite:///{path}")
    events = _events()
    inserts = _sqlalchemy_inserts(store)

    # the SQLAlchemy path: events in one transaction with an episode's row (as the writer
    # commits an episode's creation with its first events)
    orm = "orm000000001"
    store.write([*store.episode_items(stt_task, 0, "a", None, orm), *(("event", orm, e) for e in events)])
    assert len(inserts) == 1
    # the fast path: the same events alone, as one batch, and one at a time
    batch, single = (store.create_episode(stt_task, 0, "a", None) for _ in range(2))
    inserts.clear()
    store.write([("event", batch, e) for e in events])
    for e in events:
        store.append_event(single, e)
    assert inserts == []  # neither went through SQLAlchemy

    expected = _rows(path, orm)
    assert len(expected) == len(events)
    assert _rows(path, batch) == expected
    assert _rows(path, single) == expected
    text = "".join(str(r) for r in expected)
    assert KEY not in text and "verysecretvalue123" not in text and "hunter22" not in text  # scrubbed alike
    assert [e.payload for e in store.events(single)] == [e.payload for e in store.events(orm)]
    store.close()


def test_an_event_is_readable_from_another_connection_as_soon_as_the_call_returns(db_url, stt_task):
    store = Store(db_url)
    other = create_engine(store.url)  # a connection of its own, not the store's pool

    def count(eid: str) -> int:
        with other.connect() as conn:
            return conn.exec_driver_sql(f"select count(*) from events where episode_id = '{eid}'").scalar()

    eid = store.create_episode(stt_task, 0, "a", None)
    for i, e in enumerate(_events()[:3], start=1):
        store.append_event(eid, e)
        assert count(eid) == i
    store.write([("event", eid, Event(i, "note", "x", {"i": i}, "")) for i in (4, 5)])
    assert count(eid) == 5

    writer = Writer(store)  # and through the writer: durable() returns once it is committed

    async def through_writer() -> None:
        ticket = writer.submit_event(eid, Event(6, "note", "x", {}, ""))
        await writer.durable(ticket, eid)
        assert count(eid) == 6

    asyncio.run(through_writer())
    writer.close()
    other.dispose()
    store.close()


def test_the_fast_path_refuses_as_sqlalchemy_does_and_goes_on(tmp_path, stt_task):
    store = Store(f"sqlite:///{tmp_path / 'r.db'}")
    eid = store.create_episode(stt_task, 0, "a", None)
    store.append_event(eid, Event(1, "note", "x", {}, ""))
    with pytest.raises(IntegrityError, match="UNIQUE"):  # the writer takes this as never going to succeed
        store.append_event(eid, Event(1, "note", "x", {}, ""))
    with pytest.raises(IntegrityError, match="FOREIGN KEY"):  # the engine's foreign_keys=ON holds here too
        store.append_event("no-such-episode", Event(1, "note", "x", {}, ""))
    with pytest.raises(IntegrityError):  # a batch is all or none
        store.write([("event", eid, Event(2, "note", "x", {}, "")), ("event", eid, Event(1, "note", "x", {}, ""))])
    store.append_event(eid, Event(2, "note", "x", {"after": True}, ""))  # no transaction was left open
    assert [(e.seq, e.payload) for e in store.events(eid)] == [(1, {}), (2, {"after": True})]
    store.close()


def test_the_fast_path_has_the_engines_settings_and_follows_them(tmp_path, stt_task):
    """Event commits are as durable as the engine's other commits: the connection is the engine's
    (its connect hook), and is made again when the engine's connections are."""
    store = Store(f"sqlite:///{tmp_path / 'r.db'}")
    eid = store.create_episode(stt_task, 0, "a", None)
    store.append_event(eid, Event(1, "note", "x", {}, ""))
    conn = store._appender._conn  # type: ignore[union-attr]
    assert conn.execute("pragma journal_mode").fetchone() == ("wal",)
    assert conn.execute("pragma synchronous").fetchone() == (1,)  # NORMAL, as the store's default
    assert conn.execute("pragma foreign_keys").fetchone() == (1,)
    assert conn.execute("pragma busy_timeout").fetchone()[0] > 0

    @sa_event.listens_for(store.engine, "connect")
    def _full(dbapi_conn, _record):  # type: ignore[no-untyped-def]
        dbapi_conn.execute("PRAGMA synchronous=FULL")

    store.engine.dispose()  # (as a change of settings takes effect)
    store.append_event(eid, Event(2, "note", "x", {}, ""))
    conn = store._appender._conn  # type: ignore[union-attr]
    assert conn.execute("pragma synchronous").fetchone() == (2,)  # FULL now, as the engine's
    store.close()
    assert store._appender._conn is None  # type: ignore[union-attr]


def test_the_held_connection_never_holds_back_the_sync(tmp_path, stt_task):
    """The power-cut bound: ``Store.sync`` (a passive checkpoint, which syncs the log and the
    database file) takes in every event the held connection committed; an idle held connection
    keeps no read open that would leave part of the log waiting for a later sync."""
    path = tmp_path / "r.db"
    store = Store(f"sqlite:///{path}")
    eid = store.create_episode(stt_task, 0, "a", None)
    for i in range(1, 50):
        store.append_event(eid, Event(i, "note", "x", {"i": i}, ""))
    store.write([("event", eid, Event(i, "note", "x", {}, "")) for i in range(50, 60)])
    store.sync()
    con = sqlite3.connect(path)
    busy, frames, checkpointed = con.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
    assert busy == 0 and frames > 0 and checkpointed == frames  # nothing left behind by the sync
    assert con.execute("select count(*) from events where episode_id = ?", (eid,)).fetchone() == (59,)
    con.close()
    store.close()


def test_durable_flag_syncs_every_commit(tmp_path, stt_task, monkeypatch):
    """``sttui --durable`` (or STTUI_DURABLE=1) makes every SQLite commit a synced one (FULL), the
    event path's held connection included; without it the store stays at NORMAL."""
    from click.testing import CliRunner

    from sttui.cli.app import main

    monkeypatch.delenv("STTUI_DURABLE", raising=False)  # restored after the test, whatever the CLI sets
    db = tmp_path / "r.db"
    plain = Store(f"sqlite:///{db}")
    with plain.engine.connect() as conn:
        assert conn.exec_driver_sql("pragma synchronous").scalar() == 1  # NORMAL by default
    plain.close()

    result = CliRunner().invoke(main, ["--db", f"sqlite:///{db}", "--durable", "sessions"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert os.environ.get("STTUI_DURABLE") == "1"  # read where each engine is made, workers' too
    store = Store(f"sqlite:///{db}")
    with store.engine.connect() as conn:
        assert conn.exec_driver_sql("pragma synchronous").scalar() == 2  # FULL
    eid = store.create_episode(stt_task, 0, "a", None)
    store.append_event(eid, Event(1, "note", "x", {}, ""))
    assert store._appender._conn.execute("pragma synchronous").fetchone() == (2,)  # type: ignore[union-attr]
    store.close()
    monkeypatch.setenv("STTUI_DURABLE", "0")  # an explicit off is off
    store = Store(f"sqlite:///{db}")
    with store.engine.connect() as conn:
        assert conn.exec_driver_sql("pragma synchronous").scalar() == 1
    store.close()
