"""Nothing is lost: a SIGKILL mid-episode keeps every event, and resume goes on from there;
three processes writing at once lose and duplicate nothing."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time

from sttui.store.store import Store
from sttui.tui.launch import Launch
from tests.conftest import ROOT

TASK = ROOT / "tasks" / "stt" / "logistics" / "insulin-reefer-fault-st2-easy.yaml"
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


def test_sigkill_mid_episode_then_resume(db_url):
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.helpers.slow_episode", db_url, str(TASK)],
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env=ENV,
    )
    seen = []
    deadline = time.time() + 60
    while time.time() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        seen.append(line.split())
        if len(seen) >= 9:  # a few tool calls in: kill it between two steps' events
            break
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert len(seen) >= 9, "the episode did not get far enough before the deadline"
    episode_id = seen[0][0]
    store = Store(db_url)
    record = store.episode(episode_id)
    events = store.events(episode_id)
    assert record.status == "running"
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    assert len(events) >= len(seen)  # everything acknowledged before the kill is there

    result = subprocess.run(
        [sys.executable, "-m", "sttui", "--db", db_url, "resume", episode_id, "--headless", "--json"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=ENV,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["state_hash_matches"] is True and out["passed"] is True
    after = store.events(episode_id)
    assert [e.seq for e in after] == list(range(1, len(after) + 1))
    assert any(e.type == "resumed" for e in after)
    assert store.episode(episode_id).status == "completed"
    # the resumed record replays to the same outcome
    replay = subprocess.run(
        [sys.executable, "-m", "sttui", "--db", db_url, "replay", episode_id, "--json"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=ENV,
        timeout=120,
    )
    assert json.loads(replay.stdout)["reproduces_record"] is True


def test_three_writers_at_once_lose_nothing(db_url):
    n = 40
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "tests.helpers.writer", db_url, name, str(n), str(TASK)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
            env=ENV,
        )
        for name in ("ana", "ben", "chloe")
    ]
    ids = []
    for p in procs:
        out, err = p.communicate(timeout=180)
        assert p.returncode == 0, err
        ids.append(out.strip())
    store = Store(db_url)
    for eid in ids:
        events = store.events(eid)
        assert [e.seq for e in events] == list(range(1, n + 1))
        assert len({e.payload["i"] for e in events}) == n
    ratings = store.ratings("task")
    assert len(ratings) == 3 * n
    assert len({(r["annotator"], r["item_id"]) for r in ratings}) == 3 * n


def test_a_kill_mid_run_loses_at_most_the_step_in_progress(db_url):
    """SIGKILL a run of 4 concurrent episodes: every episode's record is a gapless prefix, and
    holds every action its agent was asked for before the one in progress."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.helpers.durable_run", db_url, str(TASK), "40"],
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env=ENV,
    )
    asked: dict[str, int] = {}
    deadline = time.time() + 60
    while time.time() < deadline and sum(asked.values()) < 60:
        line = proc.stdout.readline()
        if not line:
            break
        _, episode, n = line.split()
        asked[episode] = max(asked.get(episode, 0), int(n))
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert sum(asked.values()) >= 60, "the run did not get far enough before the deadline"
    store = Store(db_url)
    episodes = store.list_episodes()
    assert len(episodes) >= len(asked)
    for record in episodes:
        events = store.events(record.id)
        assert [e.seq for e in events] == list(range(1, len(events) + 1)), record.id
        assert events and events[0].type == "episode_started", record.id
        actions = sum(1 for e in events if e.type in ("tool_call", "episode_ended") and e.actor != "system")
        actions += sum(1 for e in events if e.type == "message" and e.payload["from"] == "agent")
        # asked for action n means actions 1..n-1 were committed before the ask
        assert actions >= asked.get(record.id, 0) - 1, (record.id, actions, asked.get(record.id))
    running = [r for r in episodes if r.status == "running"]
    assert len(running) <= 4  # only the episodes in flight at the kill


def _hold_lock(db_url: str, seconds: float, ready: threading.Event) -> None:
    """Block every writer of the record for ``seconds``, as another process holding it would."""
    if db_url.startswith("sqlite"):
        import sqlite3

        conn = sqlite3.connect(db_url.split("///", 1)[1], isolation_level=None, timeout=30)
        conn.execute("BEGIN IMMEDIATE")
    else:
        import psycopg
        from sqlalchemy.engine import make_url

        url = make_url(db_url)
        conn = psycopg.connect(host=url.host, port=url.port, user=url.username, dbname=url.database)
        conn.execute("LOCK TABLE events IN ACCESS EXCLUSIVE MODE")
    ready.set()
    time.sleep(seconds)
    conn.rollback() if not db_url.startswith("sqlite") else conn.execute("ROLLBACK")
    conn.close()


def _run_under_lock(
    db_url: str, seconds: float, deadline: str, trials: int = 6
) -> tuple[subprocess.CompletedProcess, Store]:
    Store(db_url).close()  # the schema exists before anyone locks it
    env = {**ENV, "STTUI_WRITE_DEADLINE": deadline, "STTUI_BUSY_TIMEOUT_MS": "500"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "sttui", "--db", db_url, "run", str(TASK), "--trials", str(trials), "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env=env,
    )
    store = Store(db_url)
    until = time.time() + 60
    while time.time() < until and not store.list_episodes():  # the run has started writing
        time.sleep(0.005)
    ready = threading.Event()
    holder = threading.Thread(target=_hold_lock, args=(db_url, seconds, ready))
    holder.start()
    out, err = proc.communicate(timeout=180)
    holder.join()
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err), store


def test_a_lock_shorter_than_the_deadline_is_waited_out(db_url):
    done, store = _run_under_lock(db_url, 2.0, "30")
    assert done.returncode == 0, done.stderr
    episodes = json.loads(done.stdout)["episodes"]
    assert all(e["status"] == "completed" and e["passed"] for e in episodes)
    for record in store.list_episodes():
        events = store.events(record.id)
        assert record.status == "completed" and [e.seq for e in events] == list(range(1, len(events) + 1))


def test_a_lock_longer_than_the_deadline_fails_the_run_and_loses_nothing_silently(db_url):
    # 600 trials take ~25 s alone, and the run stops at the lock's failure: it is still writing
    # when the lock is taken, even on a loaded machine (60 once finished first on CI, exit 0)
    done, store = _run_under_lock(db_url, 6.0, "1", trials=600)
    assert done.returncode == 3, done.stderr
    assert "could not be recorded in full" in done.stderr and "Traceback" not in done.stderr
    episodes = json.loads(done.stdout)["episodes"]
    failed = [e for e in episodes if e.get("record_failed")]
    assert failed and all(e["status"] == "errored" and e["passed"] is False for e in failed)
    for record in store.list_episodes():
        events = store.events(record.id)
        assert [e.seq for e in events] == list(range(1, len(events) + 1))  # never a gap
        if record.id in {e["episode"] for e in failed}:
            assert record.status != "completed"
    # the message says truly what the record holds of them: a prefix, or nothing at all (unless
    # the record could not even be read at that moment: PostgreSQL's lock blocks reads too)
    if "Each stops at its last committed step, if any reached the record" in done.stderr:
        return
    marked = [e for e in failed if e["record_marked"]]
    for e in marked:  # the record took one more write at the end: it says errored, and why
        record = store.episode(e["episode"])
        assert record.status == "errored" and record.end_reason.startswith("recording failed: "), record
    running = [e for e in failed if not e["record_marked"] and store.events(e["episode"])]
    assert all(store.episode(e["episode"]).status == "running" for e in running)
    absent = len(failed) - len(marked) - len(running)
    assert (f"{len(marked)} are marked errored in the record" in done.stderr) == bool(marked), done.stderr
    assert (f"{len(running)} stop at their last committed step, still running" in done.stderr) == bool(running)
    assert (f"{absent} never reached the record" in done.stderr) == (absent > 0), done.stderr


def test_closing_the_writer_syncs_its_last_commits_to_the_disk():
    """The power-cut bound ("about the last second") holds at the end of a run too: the writer's
    last commits are synced when it closes, not whenever the OS gets to them."""
    from sttui.core.events import Event
    from sttui.store.writer import Writer

    class Record:
        def __init__(self):
            self.log: list[str] = []

        def write(self, items):
            self.log.append("write")

        def sync(self):
            self.log.append("sync")

    record = Record()
    writer = Writer(record)
    writer._synced = time.monotonic() + 3600  # a sync just happened: no periodic one is due
    writer.submit_event("e1", Event(seq=1, type="episode_started", actor="system", sim_time="", payload={}))
    writer.close()
    assert record.log == ["write", "sync"]


async def test_a_failed_write_in_the_workbench_stops_the_episode_and_says_so(tmp_path, monkeypatch):
    """In the workbench a write that fails past the deadline neither crashes the app nor goes
    unseen: the episode stops, the person is told why and taken home, and the workbench exits 3."""
    import pytest

    import sttui.store.writer as writer_mod
    from sttui.core.actions import ToolCall
    from sttui.core.loader import load_task
    from sttui.errors import StoreError
    from sttui.tui import app as tui
    from sttui.tui.home import HomeScreen
    from tests.tui_helpers import open_play, wait_for

    monkeypatch.setattr(writer_mod, "WRITE_DEADLINE", 0.1)
    app = tui.SttuiApp(Launch.build(ROOT / "tasks", db_url=f"sqlite:///{tmp_path / 'w.db'}", human="ana"))
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_play(pilot, TASK, "agent", "PlayScreen")
        episode = screen.session.episode_id

        def full(items):
            raise StoreError("the disk holding it is full", transient=True)

        monkeypatch.setattr(app.store, "write", full)
        step = load_task(TASK).task.solution[0]
        screen.session.agent.submit(ToolCall(step.tool, dict(step.args)))
        await wait_for(pilot, lambda: bool(app.record_failures) and isinstance(app.screen, HomeScreen))
        shown = " ".join(str(n.message) for n in app._notifications)
        assert "the disk holding it is full" in shown and f"sttui resume {episode}" in shown
    assert app.return_code in (0, None)  # no crash

    monkeypatch.setattr(tui.SttuiApp, "run", lambda self: self.record_failures.append(f"episode {episode}: x"))
    with pytest.raises(SystemExit) as info:
        tui.run_app(db_url=f"sqlite:///{tmp_path / 'x.db'}")
    assert info.value.code == 3


def test_resume_headless_of_a_persons_episode_says_whom_to_name_not_waits(tmp_path):
    """Headless, nobody can answer for the person who held the seat: one line naming the seat to
    give, at once (it waited for them with no screen, silently, until killed)."""
    from sttui.core.loader import load_task

    db = f"sqlite:///{tmp_path / 'h.db'}"
    store = Store(db)
    eid = store.create_episode(load_task(TASK), 0, "human:ana", "baseline:scripted-user")
    store.close()
    result = subprocess.run(
        [sys.executable, "-m", "sttui", "--db", db, "resume", eid, "--headless"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=ENV,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 2
    assert result.stderr.strip() == "error: the recorded agent is a person (human:ana): name --agent"
