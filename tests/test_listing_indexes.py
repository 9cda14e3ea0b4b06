"""The SQLite indexes ``sttui sessions`` and ``sttui report`` are answered from (migration
``0012_listing_indexes``): SQLite reads neither an episode's row nor its JSON; the rows are the
ones the table gives; a value that is not JSON can no longer be written; and a record that
already holds one migrates without them and is still called damaged."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from sttui.store import peek as peek_module
from sttui.store.peek import Peek, listing_query
from tests.test_peek import _reported

INDEXES = ("ix_episodes_listing", "ix_episodes_report")
# the plain indexes they begin with, dropped where they are made (the migration's ``REPLACED``)
REPLACED = ("ix_episodes_started", "ix_episodes_status_started", "ix_episodes_status")
FILTERS: list[dict[str, Any]] = [
    {},
    {"task": "task-1"},
    {"controller": "human"},
    {"status": "completed"},
    {"task": "task", "status": "running", "limit": 5},
]


def _queries() -> list[tuple[str, tuple[Any, ...]]]:
    found = [listing_query(**f) for f in FILTERS]
    return found + [(peek_module.REPORT_SQL, (status,)) for status in ("completed", "errored", "stopped")]


def _table_reads(conn: sqlite3.Connection, sql: str, args: tuple[Any, ...]) -> list[tuple[Any, ...]]:
    """The instructions of ``sql``'s program that read a column of the episodes table itself
    (rather than of an index): SQLite's own ``EXPLAIN``."""
    root = conn.execute("SELECT rootpage FROM sqlite_master WHERE type = 'table' AND name = 'episodes'").fetchone()[0]
    program = conn.execute(f"EXPLAIN {sql}", args).fetchall()
    cursors = {op[2] for op in program if op[1] == "OpenRead" and op[3] == root}
    return [op for op in program if op[1] in ("Column", "Rowid") and op[2] in cursors]


def _drop(path: Path) -> None:
    """The record as it was before 0012: the plain indexes, without the listing indexes."""
    with sqlite3.connect(path) as conn:
        for name in INDEXES:
            conn.execute(f"DROP INDEX {name}")
        conn.execute("CREATE INDEX ix_episodes_started ON episodes (started_at)")
        conn.execute("CREATE INDEX ix_episodes_status_started ON episodes (status, started_at)")
        conn.execute("CREATE INDEX ix_episodes_status ON episodes (status)")


def _indexes(path: Path) -> set[str]:
    with sqlite3.connect(path) as conn:
        return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}


def test_sessions_and_report_are_answered_from_the_indexes_alone(tmp_path):
    _reported(tmp_path)
    path = tmp_path / "r.db"
    assert set(INDEXES) <= _indexes(path) and not set(REPLACED) & _indexes(path)
    with sqlite3.connect(path) as conn:
        for sql, args in _queries():
            assert _table_reads(conn, sql, args) == [], sql
    _drop(path)
    with sqlite3.connect(path) as conn:  # without them, every query reads the rows (and their JSON)
        assert all(_table_reads(conn, sql, args) for sql, args in _queries())


def test_the_indexes_give_the_rows_the_table_gives(tmp_path):
    url, _ = _reported(tmp_path)
    path = tmp_path / "r.db"

    def read() -> list[Any]:
        peek = Peek.open(url)
        assert peek is not None
        try:
            rows: list[Any] = [list(peek.listing_rows(**f)) for f in FILTERS]
            rows.append(list(peek.report_rows(("completed", "errored", "stopped"))))
        finally:
            peek.close()
        return rows

    indexed = read()
    assert sum(map(len, indexed)) > 100 and any(r[10] is not None for r in indexed[0])  # control summaries
    _drop(path)
    assert read() == indexed


def test_a_hand_edit_that_is_not_json_is_refused(tmp_path):
    _reported(tmp_path)
    with sqlite3.connect(tmp_path / "r.db") as conn:
        before = conn.execute("SELECT scores FROM episodes ORDER BY id LIMIT 1").fetchone()
        for column in ("scores", "outcome"):
            with pytest.raises(sqlite3.OperationalError, match="malformed JSON"):
                conn.execute(f"UPDATE episodes SET {column} = '{{not json' WHERE id = (SELECT min(id) FROM episodes)")
        assert conn.execute("SELECT scores FROM episodes ORDER BY id LIMIT 1").fetchone() == before


def test_a_record_already_holding_a_value_that_is_not_json_migrates_without_them(tmp_path):
    """A record of the previous schema, edited by hand into broken JSON: it opens at the newest
    schema without these indexes (making them would fail), and both commands still say what is
    wrong in one line."""
    from sttui.cli import main
    from sttui.store import db as dbmod
    from sttui.store.store import Store

    url, _ = _reported(tmp_path)
    path = tmp_path / "r.db"
    _drop(path)
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE episodes SET scores = '{not json' WHERE id = (SELECT max(id) FROM episodes)")
        conn.execute("UPDATE alembic_version SET version_num = '0011_event_indexes'")
    Store(url).close()  # migrates
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT version_num FROM alembic_version").fetchone()[0] == dbmod.head_revision()
    assert not _indexes(path) & set(INDEXES) and set(REPLACED) <= _indexes(path)  # (the plain ones kept)
    for command in ("sessions", "report"):
        done = CliRunner().invoke(main, ["--db", url, command])
        assert done.exit_code == 2 and "Traceback" not in done.output, done.output
        assert "cannot read the record" in done.output and "malformed JSON" in done.output, done.output
    # and a record with nothing wrong gets them on the same migration
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE episodes SET scores = NULL WHERE id = (SELECT max(id) FROM episodes)")
        conn.execute("UPDATE alembic_version SET version_num = '0011_event_indexes'")
    Store(url).close()
    assert set(INDEXES) <= _indexes(path) and not set(REPLACED) & _indexes(path)


def test_a_score_json_cannot_hold_is_stored_as_null(db_url):
    """NaN and infinity are not JSON (Python's ``json`` writes them anyway): an episode's end or
    an imported episode holding one is stored, the odd float as null, on both backends, and
    ``sessions`` and ``report`` read it (before, SQLite's indexes refused the write, and
    PostgreSQL refused it always)."""
    import dataclasses
    import json

    from sttui.store.store import Store
    from tests.test_scale_store import _fill, _row

    nan, inf = float("nan"), float("inf")
    store = Store(db_url)
    _fill(store, [_row("aa01", 1, status="running", outcome=None, scores=None)])
    store.finish_episode(
        "aa01",
        "completed",
        outcome={"passed": True, "margin": -inf},
        scores={"calibrated_accuracy": nan, "ca_per_batch": [1.0, inf, 0.5], "control": {"agent_steps": {"x": 2}}},
    )
    record = store.episode("aa01")
    assert record.outcome == {"passed": True, "margin": None}
    assert record.scores == {
        "calibrated_accuracy": None,
        "ca_per_batch": [1.0, None, 0.5],
        "control": {"agent_steps": {"x": 2}},
    }
    copy = dataclasses.replace(record, id="aa02", scores={**(record.scores or {}), "human_active_seconds": nan})
    assert store.import_episodes([(copy, None, [])]) == (1, 0)
    assert (store.episode("aa02").scores or {})["human_active_seconds"] is None
    store.close()
    from sttui.cli import main

    for command in (["sessions", "--json"], ["report", "--json"]):
        done = CliRunner().invoke(main, ["--db", db_url, *command])
        assert done.exit_code == 0, done.output
        json.loads(done.output)


def test_a_value_with_nothing_odd_is_stored_as_it_is():
    from sttui.store.finite import finite

    value = {"a": [1, 2.5, None, "x"], "b": {"c": True}}
    assert finite(value) is value
    assert finite([float("-inf"), {"k": (float("nan"), 1)}]) == [None, {"k": [None, 1]}]
