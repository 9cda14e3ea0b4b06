"""What a new user hit on the command line: a mistyped --db, Ctrl-C during a run, overlapping
task selections, early-stopped runs merged with full ones, and the other paper cuts."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time

import pytest
from click.testing import CliRunner

from sttui.cli import main
from tests.conftest import ROOT

CLINIC = ROOT / "tasks" / "stt" / "clinic"
PETCT = "clinic-petct-authorisation-t1-impossible"
ORACLE_TASK = "logistics-pembrolizumab-goods-in-t1-easy"


def cli(db: str, *args: str) -> tuple[int, str, str]:
    out = CliRunner().invoke(main, ["--db", db, *args])
    return out.exit_code, out.stdout, out.stderr


def test_a_reading_command_on_a_mistyped_path_says_so_and_creates_nothing(tmp_path):
    missing = tmp_path / "no" / "such" / "dir" / "x.db"
    for command in (["sessions"], ["report"], ["agreement"], ["sessions", "--json"]):
        code, out, err = cli(f"sqlite:///{missing}", *command)
        assert code == 2, (command, out, err)
        assert f"no database at {missing}" in err and "check the path" in err
    assert not (tmp_path / "no").exists()
    # an existing folder but no file: still nothing made by a command that only reads
    code, _, err = cli(f"sqlite:///{tmp_path / 'x.db'}", "sessions")
    assert code == 2 and "no database at" in err
    assert not (tmp_path / "x.db").exists()


def test_a_writing_command_makes_the_file_but_not_missing_folders(tmp_path):
    nested = tmp_path / "typo" / "x.db"
    code, _, err = cli(f"sqlite:///{nested}", "run", ORACLE_TASK, "--agent", "baseline:oracle")
    assert code == 2 and f"the folder {nested.parent} for the SQLite database does not exist" in err
    assert f"mkdir -p {nested.parent}" in err and not nested.parent.exists()
    db = tmp_path / "x.db"
    code, _, err = cli(f"sqlite:///{db}", "run", ORACLE_TASK, "--agent", "baseline:oracle")
    assert code == 0, err
    code, out, _ = cli(f"sqlite:///{db}", "sessions")
    assert code == 0 and "1 episode(s)" in out


@pytest.mark.parametrize("where", ["root", "elsewhere", "dotted"])
def test_overlapping_selections_run_each_task_once_and_say_so(tmp_path, monkeypatch, where):
    """Only the task named twice is said, however the folder and the tasks root are spelled:
    from the repository (``tasks/stt/clinic`` under ``./tasks``: the same spelling, which once
    said all twelve were named twice), from elsewhere (both absolute), or with ``STTUI_TASKS``
    spelled with a ".."."""
    monkeypatch.delenv("STTUI_TASKS", raising=False)
    folder = str(CLINIC)
    if where == "root":
        monkeypatch.chdir(ROOT)
        folder = "tasks/stt/clinic"
    elif where == "elsewhere":
        monkeypatch.chdir(tmp_path)
    else:
        monkeypatch.setenv("STTUI_TASKS", str(ROOT / "tasks" / "stt" / ".."))
    code, out, err = cli(f"sqlite:///{tmp_path / 'x.db'}", "run", folder, PETCT, "--agent", "baseline:naive", "--json")
    assert code == 0, err
    episodes = json.loads(out)["episodes"]
    tasks = [e["task"] for e in episodes]
    assert len(tasks) == len(set(tasks)) == len(list(CLINIC.glob("*.yaml")))
    assert f"note: 1 task(s) named more than once, taken once each: {PETCT}" in err
    # the same file named twice, and a folder inside a folder
    code, out, err = cli(
        f"sqlite:///{tmp_path / 'y.db'}", "run", str(CLINIC), str(CLINIC), "--agent", "baseline:naive", "--json"
    )
    assert code == 0 and len(json.loads(out)["episodes"]) == len(tasks)


def _statuses(db: str) -> dict[str, int]:
    conn = sqlite3.connect(db)
    try:
        return dict(conn.execute("SELECT status, count(*) FROM episodes GROUP BY status").fetchall())
    except sqlite3.OperationalError:  # not made yet
        return {}
    finally:
        conn.close()


@pytest.mark.timeout(200)
def test_ctrl_c_during_a_run_marks_what_was_in_flight_prints_the_summary_so_far_and_exits_130(tmp_path):
    db = tmp_path / "x.db"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "sttui", "--db", f"sqlite:///{db}", "run", str(ROOT / "tasks" / "stt")]
    command += ["--agent", "baseline:random", "--trials", "200", "--concurrency", "4"]
    proc = subprocess.Popen(command, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.time() + 120
        while time.time() < deadline and _statuses(str(db)).get("completed", 0) < 30:
            time.sleep(0.2)
        assert _statuses(str(db)).get("completed", 0) >= 30, "the run never got going"
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "Aborted!" not in err
    statuses = _statuses(str(db))
    assert "running" not in statuses, statuses  # nothing left running for good
    finished = statuses["completed"]
    planned = len(list((ROOT / "tasks" / "stt").glob("*/*.yaml"))) * 200  # every bundled stt task, 200 trials
    assert f"interrupted: {finished} of {planned} planned episode(s) finished" in err
    assert f"Pass@1 for baseline:random over {finished} episodes" in out  # the summary so far
    conn = sqlite3.connect(db)
    reasons = [r for (r,) in conn.execute("SELECT end_reason FROM episodes WHERE status = 'stopped'")]
    conn.close()
    assert all(r.startswith("interrupted (Ctrl-C) at step ") for r in reasons)


def test_report_keeps_early_stopped_runs_apart_from_full_runs(tmp_path):
    db = f"sqlite:///{tmp_path / 'x.db'}"
    logistics = str(ROOT / "tasks" / "stt" / "logistics")
    assert cli(db, "run", logistics, "--agent", "baseline:naive")[0] == 0
    code, out, err = cli(db, "run", logistics, "--agent", "baseline:naive", "--early-stop", "--json")
    assert code == 0, err
    assert {e["setting"] for e in json.loads(out)["episodes"]} == {"early-stop"}
    # static episodes are not stage-reviewed: --early-stop changes nothing there, so no label
    code, out, err = cli(db, "run", logistics, "--agent", "baseline:naive", "--early-stop", "--static", "--json")
    assert code == 0, err
    assert {e["setting"] for e in json.loads(out)["episodes"]} == {"static"}
    code, out, err = cli(db, "report", "--json")
    assert code == 0, err
    rows = {(r["controller"], r["setting"]): r["episodes"] for r in json.loads(out)["controllers"]}
    n = len(list((ROOT / "tasks" / "stt" / "logistics").glob("*.yaml")))
    assert rows[("baseline:naive", "default")] == n and rows[("baseline:naive", "early-stop")] == n


def test_sessions_count_the_steps_of_a_running_episode(db_url):
    """A running episode's row holds 0 steps until it ends; listings count them from its events."""
    from sttui.store.store import Store

    task = ROOT / "tasks" / "stt" / "logistics" / "insulin-reefer-fault-st2-easy.yaml"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.helpers.slow_episode", db_url, str(task)],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
        cwd=ROOT,
    )
    try:
        assert proc.stdout is not None
        for n, _line in enumerate(proc.stdout):
            if n >= 9:  # the id, then events: a few calls in
                break
    finally:
        proc.kill()
        proc.wait()
    store = Store(db_url)
    (record,) = store.list_episodes()
    taken = sum(
        e.type == "tool_call" or (e.type == "message" and e.payload["from"] == "agent") for e in store.events(record.id)
    )
    assert record.status == "running" and taken >= 2
    assert record.steps == taken
    assert [s.steps for s in store.summaries(review=False)] == [taken]
    code, out, err = cli(db_url, "sessions", "--json")
    assert code == 0, err
    assert [r["steps"] for r in json.loads(out)] == [taken]


def test_a_listing_piped_into_a_reader_that_stops_ends_quietly(tmp_path):
    """``sttui sessions | head`` (the reader gone before the listing is written): no error line,
    the status a shell gives a tool stopped by SIGPIPE; a broken pipe anywhere else is reported."""
    db = f"sqlite:///{tmp_path / 'r.db'}"
    assert cli(db, "run", str(CLINIC), "--agent", "baseline:naive")[0] == 0
    env = {**os.environ, "HOME": str(tmp_path), "STTUI_CACHE_DIR": str(tmp_path / "cache")}
    for args in (["sessions"], ["sessions", "--json"], ["report"]):
        read, write = os.pipe()
        os.close(read)  # (the reader is gone before a line is written)
        try:
            done = subprocess.run(
                [sys.executable, "-m", "sttui", "--db", db, *args],
                stdout=write,
                stderr=subprocess.PIPE,
                env=env,
                cwd=tmp_path,
                timeout=120,
            )
        finally:
            os.close(write)
        assert done.returncode == 141 and done.stderr == b"", (args, done.stderr)


def test_a_broken_pipe_that_is_not_the_output_is_an_error(tmp_path, monkeypatch):
    import sttui.cli.records as records

    def broken(*_a: object, **_k: object) -> None:
        raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(records, "open_listing", broken)
    code, _, err = cli(f"sqlite:///{tmp_path / 'r.db'}", "sessions")
    assert code == 1 and "error: BrokenPipeError" in err
