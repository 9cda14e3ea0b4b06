"""A database that cannot be used gets one line saying what to check, never a traceback:
a path through a file, an unsupported driver, a read-only filesystem (reading still works),
a full disk. Read-only and full filesystems are real tmpfs mounts, where the machine allows."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid

import pytest

from tests.conftest import ROOT

TASK = ROOT / "tasks" / "stt" / "logistics" / "insulin-reefer-fault-st2-easy.yaml"


def sttui(*args, cwd=ROOT):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "STTUI_WRITE_DEADLINE": "1"}
    return subprocess.run(
        [sys.executable, "-m", "sttui", *map(str, args)], capture_output=True, text=True, cwd=cwd, env=env, timeout=120
    )


def test_a_parent_path_that_is_a_file(tmp_path):
    (tmp_path / "plain").write_text("not a folder")
    proc = sttui("--db", f"sqlite:///{tmp_path / 'plain' / 'x.db'}", "sessions")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert f"{tmp_path / 'plain'} is a file, not a folder" in proc.stderr


def test_a_damaged_sqlite_file_is_called_damaged_not_a_folder_problem(tmp_path):
    """A record whose pages were overwritten opens, then fails on what it holds: the message
    says the file is damaged and what to do, not to check the folder's permissions."""
    db = tmp_path / "r.db"
    url = f"sqlite:///{db}"
    assert sttui("--db", url, "run", TASK, "--trials", "2").returncode == 0
    with db.open("r+b") as f:  # pages 4-6 (the episodes' rows and events) turned to noise
        f.seek(4096 * 3)
        f.write(b"\xff" * 4096 * 3)
    proc = sttui("--db", url, "run", TASK)
    assert "Traceback" not in proc.stderr, proc.stderr
    assert "is damaged (database disk image is malformed)" in proc.stderr, proc.stderr
    assert "check that the folder exists" not in proc.stderr


@pytest.mark.parametrize("url", ["mysql://u@127.0.0.1/db", "oracle://u@h/db", "mssql+pyodbc://u@h/db"])
def test_an_unsupported_driver_names_the_supported_ones(tmp_path, url):
    proc = sttui("--db", url, "sessions")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "supported: SQLite" in proc.stderr and "PostgreSQL" in proc.stderr


@pytest.fixture
def mount(tmp_path):
    """A fresh tmpfs mount of the given size; skipped where mounting is not allowed."""
    mounted = []

    def make(size: str) -> object:
        where = tmp_path / f"fs-{uuid.uuid4().hex[:6]}"
        where.mkdir()
        done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)], capture_output=True)
        if done.returncode != 0:
            pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
        mounted.append(where)
        return where

    yield make
    for where in mounted:
        subprocess.run(["umount", "-l", str(where)], capture_output=True)


def test_a_read_only_filesystem_still_reads_and_refuses_writes_clearly(mount):
    fs = mount("8m")
    db = f"sqlite:///{fs / 'r.db'}"
    assert sttui("--db", db, "run", TASK).returncode == 0
    done = subprocess.run(["mount", "-o", "remount,ro", str(fs)], capture_output=True)
    if done.returncode != 0:
        pytest.skip("cannot remount read-only here")
    listed = sttui("--db", db, "sessions", "--json")
    assert listed.returncode == 0 and "logistics-insulin-reefer-st2-easy" in listed.stdout
    assert sttui("--db", db, "report").returncode == 0
    wrote = sttui("--db", db, "run", TASK)
    assert wrote.returncode == 2 and "Traceback" not in wrote.stderr
    assert "read-only" in wrote.stderr and "reading works" in wrote.stderr
    assert sttui("--db", db, "run", TASK, "--no-record").returncode == 0


def test_a_full_disk_says_so_without_a_traceback(mount):
    fs = mount("600k")
    db = f"sqlite:///{fs / 'f.db'}"
    (fs / "filler").write_bytes(b"\0" * 1)
    outcome = None
    for _ in range(40):  # record until the disk fills
        outcome = sttui("--db", db, "run", TASK, "--trials", "4")
        if outcome.returncode != 0:
            break
    else:
        pytest.fail("the disk never filled")
    assert "Traceback" not in outcome.stderr, outcome.stderr
    assert "full" in outcome.stderr and outcome.returncode in (2, 3)


@pytest.mark.parametrize(
    ("url", "kind"),
    [("sqlite:////tmp/x.db", "the SQLite database"), ("postgresql+psycopg://u@h/db", "the database")],
)
def test_a_lock_message_names_the_right_kind_of_database(url, kind):
    from sttui.store.db import explain

    for text in ("database is locked", "canceling statement due to lock timeout"):
        message = str(explain(Exception(text), url))
        assert message.startswith(f"{kind} ") and "locked by another process" in message, message


def test_a_stored_value_that_is_not_json_is_called_damaged_by_both_readers(tmp_path):
    """An event payload edited by hand into broken JSON: the store and home's read-only reader
    both say the record is damaged and what to do, in one line, not a JSONDecodeError."""
    import sqlite3

    from sttui.errors import StoreError
    from sttui.store.peek import Peek
    from sttui.store.store import Store

    db = tmp_path / "r.db"
    url = f"sqlite:///{db}"
    assert sttui("--db", url, "run", TASK).returncode == 0
    with sqlite3.connect(db) as conn:
        (episode,) = conn.execute("SELECT id FROM episodes").fetchone()
        conn.execute("UPDATE events SET payload = '{not json' WHERE episode_id = ? AND seq = 1", (episode,))
    store, peek = Store(url), Peek.open(url)
    assert peek is not None
    for reader in (store, peek):
        with pytest.raises(StoreError, match=r"is damaged: a stored value is not valid JSON .*keep a copy"):
            reader.events(episode, 1, 1)
    assert len(store.events(episode, 2)) > 1  # the rest reads as before
    store.close()
    peek.close()
