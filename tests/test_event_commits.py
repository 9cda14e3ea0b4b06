"""Events alone on SQLite are committed through the store's held raw connection
(sttui/store/appends.py): the same rows as the SQLAlchemy path writes, committed before the call
returns, with the engine's own settings and the same errors."""

from __future__ import annotations

import asyncio
import datetime
import os
import sqlite3
import threading
import time

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


def _sqlalchemy_only(path) -> Store:
    """A store of this file that writes everything through SQLAlchemy (the reference path)."""
    store = Store(f"sqlite:///{path}")
    assert store._appender is not None
    store._appender.close()
    store._appender = None
    return store


def test_the_fast_path_writes_the_same_rows_as_the_sqlalchemy_path(tmp_path, stt_task, monkeypatch):
    monkeypatch.setenv("SOME_SECRET_TOKEN", "verysecretvalue123")
    path = tmp_path / "r.db"
    store = Store(f"sqlite:///{path}")
    events = _events()
    inserts = _sqlalchemy_inserts(store)

    # the SQLAlchemy path (a store of the same file without the held connection): events in one
    # transaction with an episode's row (as the writer commits an episode's creation with its first events)
    reference = _sqlalchemy_only(path)
    orm = "orm000000001"
    reference.write([*reference.episode_items(stt_task, 0, "a", None, orm), *(("event", orm, e) for e in events)])
    reference.close()
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
    for off in ("0", "n", "F", " off "):  # an explicit off is off, in each spelling click reads as false
        monkeypatch.setenv("STTUI_DURABLE", off)
        assert CliRunner().invoke(main, ["--db", f"sqlite:///{db}", "sessions"]).exit_code == 0
        store = Store(f"sqlite:///{db}")
        with store.engine.connect() as conn:
            assert conn.exec_driver_sql("pragma synchronous").scalar() == 1, off
        store.close()


EPISODE_COLUMNS = (
    "id, task_id, task_hash, kind, seed, typeof(seed), setting, status, agent, user, outcome, typeof(outcome), "
    "scores, typeof(scores), end_reason, steps, typeof(steps), state_hash, started_at, typeof(started_at), "
    "ended_at, typeof(ended_at), clean_baseline, typeof(clean_baseline)"
)


def _episode_rows(path) -> list[tuple]:
    con = sqlite3.connect(path)
    try:
        return con.execute(f"select {EPISODE_COLUMNS} from episodes order by id").fetchall()
    finally:
        con.close()


def _finishes(store: Store, eid: str) -> list[list[tuple]]:
    """The ends an episode's row can get, each as its ``write`` items: scores with non-ASCII text,
    odd types and secrets, none at all, an end reason alone."""
    return [
        store.finish_items(
            eid,
            "completed",
            outcome={"success": True, "checks": [{"name": "naïve «ok» 東京", "passed": (1, 2)}], 3: None},
            scores={
                "reward": 0.5,
                "neg": -0.0,
                "big": 2**70,
                "control": {"agent": 3, "human": 0},
                "when": datetime.datetime(2024, 8, 15, 6, 0),
                "note": f"leaked {KEY} and verysecretvalue123",
                "api_key": "abc",
            },
            end_reason=f"done by agent {KEY}",
            steps=7,
            state_hash="f" * 64,
        ),
        store.finish_items(eid, "errored", end_reason="RuntimeError: boom", scores=None, steps=2),
        store.finish_items(eid, "stopped", end_reason="interrupted"),
    ]


def test_episode_rows_through_the_held_connection_are_the_sqlalchemy_paths(tmp_path, stt_task, monkeypatch):
    """An episode's creation and end, with the events around them, are committed through the held
    connection too: with the same SQL and values as SQLAlchemy runs, so the same rows."""
    monkeypatch.setenv("SOME_SECRET_TOKEN", "verysecretvalue123")
    fast_path, slow_path = tmp_path / "fast.db", tmp_path / "slow.db"
    fast, slow = Store(f"sqlite:///{fast_path}"), _sqlalchemy_only(slow_path)
    for store in (fast, slow):
        store.register_task(stt_task)  # (a batch that stores a task version still goes through SQLAlchemy)
    seen: list[tuple[str, object]] = []
    sa_event.listen(slow.engine, "before_cursor_execute", lambda _c, _cur, st, params, *_: seen.append((st, params)))
    fast_seen: list[str] = []
    sa_event.listen(fast.engine, "before_cursor_execute", lambda _c, _cur, st, *_: fast_seen.append(st))
    executed: list[tuple[str, object]] = []
    assert fast._appender is not None
    run = fast._appender.run
    monkeypatch.setattr(
        fast._appender, "run", lambda steps: (executed.extend((s, r) for s, rows in steps for r in rows), run(steps))
    )
    events = _events()
    for i, end in enumerate(range(3)):
        eid = f"ep{i:010d}"
        for store in (fast, slow):
            created = store.episode_items(stt_task, 5, f"agent {KEY}", "user", eid, None)
            created[0][1]["started_at"] = 1_700_000_000.0 + i  # (the same clock for both)
            store.write([*created, ("event", eid, events[0])])
            finish = _finishes(store, eid)[end]
            finish[0][2]["ended_at"] = 1_700_000_100.0 + i
            store.write([("event", eid, events[1]), *finish])
    assert not any(st.startswith(("INSERT", "UPDATE")) for st in fast_seen)  # none through SQLAlchemy
    written = [(st, p) for st, p in seen if st.startswith(("INSERT", "UPDATE"))]
    assert executed == written  # the very statements and values
    assert any(st.startswith("UPDATE episodes") for st, _ in executed)
    fast.close()
    slow.close()
    rows = _episode_rows(fast_path)
    assert len(rows) == 3 and rows == _episode_rows(slow_path)
    assert _rows(fast_path, "ep0000000000") == _rows(slow_path, "ep0000000000")
    text = str(rows)
    assert KEY not in text and "verysecretvalue123" not in text and '"abc"' not in text  # scrubbed alike


def test_an_episode_write_the_held_connection_cannot_run_goes_through_sqlalchemy(tmp_path, stt_task):
    """A task version, or a row that leaves a column to its default, is written as before."""
    store = Store(f"sqlite:///{tmp_path / 'r.db'}")
    seen: list[str] = []
    sa_event.listen(store.engine, "before_cursor_execute", lambda _c, _cur, st, *_: seen.append(st))
    eid = store.create_episode(stt_task, 0, "a", None)  # the first of its task: stores the version
    assert any(st.startswith("INSERT INTO episodes") for st in seen)
    seen.clear()
    row = {k: v for k, v in store.episode_items(stt_task, 0, "a", None, "nosteps00001")[-1][1].items() if k != "steps"}
    store.write([("episode", row)])  # steps left to the column's default
    assert any(st.startswith("INSERT INTO episodes") for st in seen)
    assert store.episode("nosteps00001").steps == 0 and store.episode(eid).status == "running"
    store.close()


def test_a_refused_episode_write_commits_nothing_of_its_transaction(tmp_path, stt_task):
    store = Store(f"sqlite:///{tmp_path / 'r.db'}")
    eid = store.create_episode(stt_task, 0, "a", None)
    again = store.episode_items(stt_task, 0, "a", None, eid)  # the same id: refused
    with pytest.raises(IntegrityError, match="UNIQUE"):
        store.write([("event", eid, Event(1, "note", "x", {}, "")), *again])
    assert store.events(eid) == []  # the event before it was rolled back with it
    store.write([("event", eid, Event(1, "note", "x", {}, "")), *store.finish_items(eid, "stopped")])
    assert [e.seq for e in store.events(eid)] == [1] and store.episode(eid).status == "stopped"
    store.close()


def test_the_writer_takes_every_job_from_every_thread_in_ticket_order():
    """The hand-off to the writer thread (a deque and a wake-up flag): no job is missed however
    submissions and the writer's sleeps interleave, jobs run in the order of their tickets, and
    ``flush`` returns only once every job submitted before it has run."""
    writer = Writer(None)
    ran: list[int] = []
    tickets: list[list[int]] = [[] for _ in range(4)]

    def submitter_keeping(mine: list[int]) -> None:
        for i in range(300):
            if i % 50 == 0:
                time.sleep(0.002)
            box: list[int] = []
            ticket = writer.submit(lambda b=box: ran.append(b[0]))
            box.append(ticket)
            mine.append(ticket)

    threads = [threading.Thread(target=submitter_keeping, args=(t,)) for t in tickets]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    writer.flush()  # every job submitted so far has run when this returns
    assert sorted(ran) == sorted(x for t in tickets for x in t) and len(ran) == 1200
    assert ran == sorted(ran)  # in ticket order
    ticket = writer.submit(lambda: ran.append(-1))  # and the writer still wakes for more, after a sleep
    writer.flush()
    assert ran[-1] == -1 and writer.submitted == ticket

    async def waits() -> None:
        await writer.durable(writer.submit(lambda: ran.append(-2)))
        assert ran[-1] == -2

    asyncio.run(waits())
    writer.close()
    assert not writer._thread.is_alive()
