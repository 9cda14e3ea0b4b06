"""Shared runs (``sttui run --run-id R [--shard i/n]``): workers claim a run's planned episodes
from the record with leases; a dead worker's claims expire and are taken again; each item
counts one episode; ``report --run-id`` merges the workers."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest
from click.testing import CliRunner
from sqlalchemy import text

from sttui.cli import main
from sttui.config import model_aliases
from sttui.store.runs import Shard
from sttui.store.store import Store
from tests.conftest import ROOT
from tests.helpers.stub_openai import StubServer, calls, planner, say, tool_call

TASK = ROOT / "tasks" / "stt" / "logistics" / "insulin-reefer-fault-st2-easy.yaml"
LOGISTICS = ROOT / "tasks" / "stt" / "logistics"
KEY = "sk-stub-0123456789abcdef"


def cli(db: str, *args: str) -> tuple[int, str, str]:
    out = CliRunner().invoke(main, ["--db", db, *args])
    return out.exit_code, out.stdout, out.stderr


def oracle_steps() -> list[dict]:
    from sttui.core.loader import load_task

    loaded = load_task(TASK)
    steps = [
        calls(tool_call(s.tool, s.args, f"call_{i}")) if s.tool else say(s.say)
        for i, s in enumerate(loaded.task.solution, 1)
    ]
    return [*steps, calls(tool_call("end_episode", {"reason": "done"}, "call_end"))]


def _rows(db: str, sql: str, **params: object) -> list:
    store = Store(db)
    try:
        with store.engine.connect() as conn:
            return list(conn.execute(text(sql), params))
    finally:
        store.close()


@pytest.mark.timeout(300)  # four interpreters importing litellm on two shared cores
def test_four_workers_and_a_sigkill_finish_every_item_exactly_once(db_url, tmp_path):
    """Four real worker processes share one run of a model agent (the local stub server, slowed
    so episodes take a while); one is SIGKILLed mid-episode. Its claim lapses after the lease
    (6 s) and another worker takes the item; the half-run episode is abandoned; every item ends
    with exactly one completed episode, and ``report --run-id`` counts each once."""
    # a lease of 6 s renewed every 2 s: a live worker starved of the CPU for up to 4 s (CI runs
    # this beside another test process) keeps its claims
    trials, lease = 8, 6.0
    # 8 model calls of 0.85 s: an episode outlasts a lease, so only renewal keeps its claim
    with StubServer(planner(oracle_steps(), delay=0.85)) as stub:
        (tmp_path / "sttui.yaml").write_text(
            f"models:\n  stub: {{model: openai/stub-model, api_base: '{stub.base}', retries: 1, backoff: 0.01}}\n"
        )
        env = {
            **os.environ,
            "PYTHONPATH": str(ROOT),
            "OPENAI_API_KEY": KEY,
            "STTUI_TRUST_CWD": "1",  # the working directory's sttui.yaml points the model at the stub
            "STTUI_LEASE_SECONDS": str(lease),
        }
        command = [sys.executable, "-m", "sttui", "--db", db_url, "run", str(TASK), "--agent", "model:stub"]
        command += ["--trials", str(trials), "--concurrency", "1", "--run-id", "exp1", "--json"]
        procs = [
            subprocess.Popen(command, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for _ in range(4)
        ]
        victim = procs[0]
        try:
            # wait until the victim is mid-episode: it holds a claim whose episode has events
            deadline, killed_at, held = time.time() + 120, None, None
            while time.time() < deadline and killed_at is None:
                time.sleep(0.2)
                with_events = _victim_claim(db_url, victim.pid)
                if with_events is not None:
                    held = with_events
                    os.kill(victim.pid, signal.SIGKILL)
                    killed_at = time.time()
            assert killed_at is not None, "the victim never got mid-episode"
            outs = [p.communicate(timeout=240) for p in procs[1:]]
            victim.wait(timeout=10)
        finally:
            for p in procs:
                if p.poll() is None:
                    p.kill()
                    p.wait()
    assert victim.returncode == -signal.SIGKILL
    for p, (_out, err) in zip(procs[1:], outs, strict=True):
        assert p.returncode == 0, err
        assert "Traceback" not in err
    # every planned item done, each by exactly one completed episode
    items = _rows(
        db_url, "SELECT idx, trial, seed, status, episode_id, attempts, claimed_by, claimed_at FROM run_items"
    )
    assert len(items) == trials and all(i.status == "done" for i in items)
    completed = _rows(db_url, "SELECT id, seed FROM episodes WHERE status = 'completed'")
    assert sorted(e.id for e in completed) == sorted(i.episode_id for i in items)
    assert sorted(e.seed for e in completed) == sorted(i.seed for i in items)  # one per trial, none twice
    assert not _rows(db_url, "SELECT id FROM episodes WHERE status = 'running'")
    # the victim's claim was taken over, and only after its lease ran out
    idx, victim_episode, lease_seen = held
    taken = next(i for i in items if i.idx == idx)
    assert taken.attempts == 2 and f":{victim.pid}:" not in taken.claimed_by
    assert taken.episode_id != victim_episode
    # not before the lease seen just before the kill ran out (renewals only ever extend it)
    assert taken.claimed_at > lease_seen > killed_at - lease, (taken.claimed_at, lease_seen, killed_at)
    abandoned = _rows(db_url, "SELECT end_reason FROM episodes WHERE id = :id", id=victim_episode)
    assert abandoned and "superseded" in abandoned[0].end_reason and f":{victim.pid}:" in abandoned[0].end_reason
    # live workers renewed their leases: episodes longer than a lease kept their claims, and
    # every episode ever abandoned was the victim's
    lengths = _rows(db_url, "SELECT ended_at - started_at AS secs FROM episodes WHERE status = 'completed'")
    assert max(r.secs for r in lengths) > lease
    assert all(i.attempts == 1 for i in items if i.idx != idx)
    for r in _rows(db_url, "SELECT end_reason FROM episodes WHERE status = 'abandoned'"):
        assert f":{victim.pid}:" in r.end_reason
    # the workers' JSON: together they ran every item once; the last one printed the whole run
    reports = [json.loads(out) for out, _ in outs]
    complete = [rep for rep in reports if rep["run"]["complete"]]
    assert complete and all(rep["summary"]["episodes"] == trials for rep in complete)
    assert complete[0]["summary"]["stt"]["overall"] == 1.0  # the stub plays the oracle: every episode passes
    code, out, err = cli(db_url, "report", "--run-id", "exp1", "--json")
    assert code == 0, err
    rows = json.loads(out)["controllers"]
    assert [(r["controller"], r["episodes"]) for r in rows] == [("model:stub", trials)]


def _victim_claim(db: str, pid: int) -> tuple[int, str, float] | None:
    """The victim's claim (item, episode, lease end) once its episode has recorded a few events."""
    rows = _rows(
        db,
        "SELECT r.idx, r.episode_id, r.lease_until, count(e.id) AS n FROM run_items r "
        "JOIN events e ON e.episode_id = r.episode_id "
        "WHERE r.status = 'claimed' AND r.claimed_by LIKE :holder GROUP BY r.idx, r.episode_id, r.lease_until",
        holder=f"%:{pid}:%",
    )
    return next(((r.idx, r.episode_id, r.lease_until) for r in rows if r.n >= 3), None)


def test_a_stalled_worker_loses_its_claim_and_its_episode_never_counts(db_url):
    """Store level: A's lease lapses, B takes the item (A's episode is abandoned at once); A's
    late finish leaves the item B's and A's episode abandoned, not completed."""
    from sttui.core.loader import load_task
    from sttui.running.plan import RunPlan
    from sttui.running.sharding import plan_rows

    store = Store(db_url)
    plan = RunPlan.build([load_task(TASK)], trials=1)
    digest, spec, items = plan_rows(plan)
    assert store.open_run("r", digest, spec, items) is True
    assert store.open_run("r", digest, spec, items) is False  # a second worker joins
    a = store.claim_item("r", "host:1", 0.3, Shard())
    assert a is not None and a.taken_from is None
    assert store.claim_item("r", "host:2", 0.3, Shard()) is None  # held, lease running
    store.write(store.episode_items(plan.tasks[0], a.seed, "baseline:oracle", None, a.episode_id))
    time.sleep(0.5)
    b = store.claim_item("r", "host:2", 30, Shard())
    assert b is not None and b.idx == a.idx and b.taken_from == "host:1" and b.episode_id != a.episode_id
    assert store.episode(a.episode_id).status == "abandoned"
    assert store.renew_claims("r", "host:1", 30) == 0  # A holds nothing now
    late = store.finish_items(a.episode_id, "completed", steps=3)
    store.write([("run_item_done", "r", a.idx, late[0][1], late[0][2])])
    record = store.episode(a.episode_id)
    assert record.status == "abandoned" and "superseded" in (record.end_reason or "")
    assert store.run_progress("r") == {"pending": 0, "claimed": 1, "done": 0}
    store.write(store.episode_items(plan.tasks[0], b.seed, "baseline:oracle", None, b.episode_id))
    mine = store.finish_items(b.episode_id, "completed", steps=3)
    store.write([("run_item_done", "r", b.idx, mine[0][1], mine[0][2])])
    assert store.episode(b.episode_id).status == "completed"
    assert [i.episode_id for i in store.run_items("r")] == [b.episode_id]
    assert [e.id for e in store.run_episodes("r")] == [b.episode_id]


def test_shards_split_the_items_and_the_last_prints_the_run(db_url):
    """--shard 0/2 runs the even items only and says the rest are elsewhere; 1/2 completes the
    run and prints its summary over all items; a rerun finds nothing to do and prints it again."""
    args = ["run", str(LOGISTICS), "--agent", "baseline:oracle", "--run-id", "split", "--json"]
    code, out, err = cli(db_url, *args, "--shard", "0/2")
    assert code == 0, err
    first = json.loads(out)
    assert first["run"]["complete"] is False and first["summary"] is None
    assert {e["run_item"] % 2 for e in first["episodes"]} == {0}
    store = Store(db_url)
    assert store.run_progress("split", Shard(0, 2))["done"] == len(first["episodes"])
    assert store.run_progress("split", Shard(1, 2))["done"] == 0
    code, out, err = cli(db_url, "report", "--run-id", "split", "--json")
    assert code == 0 and f"has {len(first['episodes'])} of {first['run']['items']} items done" in err
    assert sum(r["episodes"] for r in json.loads(out)["controllers"]) == len(first["episodes"])
    code, out, err = cli(db_url, *args, "--shard", "1/2")
    assert code == 0, err
    second = json.loads(out)
    total = second["run"]["items"]
    assert second["run"]["complete"] and second["run"]["ran_here"] == total - len(first["episodes"])
    assert second["summary"]["episodes"] == total and second["summary"]["stt"]["overall"] == 1.0
    code, out, err = cli(db_url, *args)
    again = json.loads(out)
    assert code == 0 and again["run"]["ran_here"] == 0 and again["summary"]["episodes"] == total


def test_report_run_id_counts_only_that_run(db_url):
    code, _, err = cli(db_url, "run", str(TASK), "--agent", "baseline:oracle", "--trials", "2", "--run-id", "one")
    assert code == 0, err
    code, _, err = cli(db_url, "run", str(TASK), "--agent", "baseline:random", "--trials", "3")
    assert code == 0, err
    code, out, err = cli(db_url, "report", "--run-id", "one", "--json")
    assert code == 0, err
    assert [(r["controller"], r["episodes"]) for r in json.loads(out)["controllers"]] == [("baseline:oracle", 2)]
    code, out, _ = cli(db_url, "report", "--json")
    assert sum(r["episodes"] for r in json.loads(out)["controllers"]) == 5
    code, _, err = cli(db_url, "report", "--run-id", "nope")
    assert code == 1 and "no run 'nope'" in err and "Traceback" not in err


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--run-id", "r", "--shard", "3/2"], "the index must be below the count"),
        (["--run-id", "r", "--shard", "x/y"], "--shard takes i/n"),
        (["--run-id", "r", "--shard", "0/0"], "the index must be below the count"),
        (["--shard", "0/2"], "give it a --run-id"),
        (["--run-id", "bad id"], "use up to 100 letters"),
        (["--run-id", "r", "--no-record"], "cannot run with --no-record"),
        (["--run-id", "r", "--judge", "human"], "needs rule or model:M"),
    ],
)
def test_bad_shared_run_options_get_one_line(tmp_path, extra, message):
    code, out, err = cli(f"sqlite:///{tmp_path / 'x.db'}", "run", str(TASK), *extra)
    assert code == 2 and message in err and "Traceback" not in err + out


def test_a_worker_with_another_plan_is_refused(tmp_path, monkeypatch):
    db = f"sqlite:///{tmp_path / 'x.db'}"
    code, _, err = cli(db, "run", str(TASK), "--trials", "2", "--run-id", "r")
    assert code == 0, err
    code, _, err = cli(db, "run", str(TASK), "--trials", "3", "--run-id", "r")
    assert code == 2 and "another plan (differs in: trials)" in err and "Traceback" not in err
    code, _, err = cli(db, "run", str(TASK), "--trials", "2", "--agent", "baseline:random", "--run-id", "r")
    assert code == 2 and "differs in: agent" in err
    monkeypatch.setenv("STTUI_LEASE_SECONDS", "soon")
    code, _, err = cli(db, "run", str(TASK), "--trials", "2", "--run-id", "r")
    assert code == 2 and "STTUI_LEASE_SECONDS must be a number" in err


def test_an_alias_that_names_another_model_on_another_node_is_refused(tmp_path):
    """Nodes may reach a model at different endpoints, but an alias must name the same model."""
    from sttui.core.loader import load_task
    from sttui.running.plan import RunPlan
    from sttui.running.sharding import plan_rows
    from sttui.store.runs import RunMismatch

    def plan(entry: dict) -> tuple:
        return plan_rows(RunPlan.build([load_task(TASK)], agent="model:fast", models=model_aliases({"fast": entry})))

    here = plan({"model": "openai/gpt-4o-mini", "api_base": "http://10.0.0.1:8000"})
    there = plan({"model": "openai/gpt-4o-mini", "api_base": "http://10.0.0.2:8000", "retries": 5})
    other = plan({"model": "openai/gpt-4o"})
    assert here[0] == there[0] and here[0] != other[0]
    store = Store(f"sqlite:///{tmp_path / 'x.db'}")
    assert store.open_run("r", *here) is True
    assert store.open_run("r", *there) is False
    with pytest.raises(RunMismatch, match=r"differs in: models"):
        store.open_run("r", *other)


def test_concurrent_claims_never_take_the_same_item(db_url):
    """A claim in progress (its transaction open) holds its item: another worker gets the next
    item, at once on PostgreSQL (SKIP LOCKED), after the first commits on SQLite (BEGIN
    IMMEDIATE). Without the lock both would take item 0."""
    import threading

    from sttui.core.loader import load_task
    from sttui.running.plan import RunPlan
    from sttui.running.sharding import plan_rows
    from sttui.store import runs

    store = Store(db_url)
    store.open_run("r", *plan_rows(RunPlan.build([load_task(TASK)], trials=3)))
    conn = store.engine.connect()
    if db_url.startswith("sqlite"):
        conn.exec_driver_sql("BEGIN IMMEDIATE")
    first = runs.claim(conn, "r", "host:a", 30, Shard(), "e-a")
    got: list = []
    other = threading.Thread(target=lambda: got.append(store.claim_item("r", "host:b", 30, Shard())))
    other.start()
    other.join(timeout=1.0)
    if db_url.startswith("postgresql"):
        assert got, "the second claim waited for the first instead of skipping its row"
    else:
        assert not got  # SQLite: claims take turns on the write lock
    conn.commit()
    conn.close()
    other.join(timeout=15)
    assert first is not None and got and got[0] is not None
    assert (first.idx, got[0].idx) == (0, 1)
    assert {i.claimed_by for i in store.run_items("r") if i.status == "claimed"} == {"host:a", "host:b"}


def test_a_shared_runs_summary_read_back_matches_an_ordinary_runs(tmp_path):
    """The summary the last worker prints is built from the record; it gives the same figures
    as the same plan run in one process (stt and explore), bar the tool-call mean it lacks."""
    explore = ROOT / "tasks" / "explore" / "finance"
    args = ["run", str(LOGISTICS), str(explore), "--agent", "baseline:random", "--trials", "2", "--json"]
    code, out, err = cli(f"sqlite:///{tmp_path / 'a.db'}", *args)
    assert code == 0, err
    alone = json.loads(out)["summary"]
    code, out, err = cli(f"sqlite:///{tmp_path / 'b.db'}", *args, "--run-id", "r")
    assert code == 0, err
    shared = json.loads(out)["summary"]
    alone["stt"].pop("mean_tool_calls")
    assert shared == alone


@pytest.mark.timeout(200)
def test_ctrl_c_hands_a_workers_items_back_at_once(tmp_path):
    """SIGINT on a worker mid-episode: it exits 130 and its claim is pending again at once (no
    wait for the lease); the next worker takes it, abandons the left episode and finishes."""
    db = f"sqlite:///{tmp_path / 'x.db'}"
    with StubServer(planner(oracle_steps(), delay=0.3)) as stub:
        (tmp_path / "sttui.yaml").write_text(
            f"models:\n  stub: {{model: openai/stub-model, api_base: '{stub.base}', retries: 1, backoff: 0.01}}\n"
        )
        env = {**os.environ, "PYTHONPATH": str(ROOT), "OPENAI_API_KEY": KEY, "STTUI_TRUST_CWD": "1"}
        command = [sys.executable, "-m", "sttui", "--db", db, "run", str(TASK), "--agent", "model:stub"]
        command += ["--run-id", "r", "--json"]
        proc = subprocess.Popen(
            command, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        try:
            deadline, held = time.time() + 120, None
            while time.time() < deadline and held is None:
                time.sleep(0.2)
                held = _victim_claim(db, proc.pid)
            assert held is not None, "the worker never got mid-episode"
            proc.send_signal(signal.SIGINT)
            _, err = proc.communicate(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        assert proc.returncode == 130 and "1 item(s) of run r handed back" in err and "Traceback" not in err
        assert [i.status for i in Store(db).run_items("r")] == ["pending"]
        again = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["summary"]["stt"]["overall"] == 1.0
    assert Store(db).episode(held[1]).status == "abandoned"


def test_a_record_made_before_shared_runs_upgrades_and_keeps_its_episodes(db_url):
    """Migration 0006 on a record at 0005 (both backends): the run tables appear, nothing is lost."""
    from sqlalchemy import inspect

    from sttui.core.loader import load_task
    from sttui.store import db as dbmod

    engine = dbmod.make_engine(db_url)
    dbmod.migrate(engine, db_url, revision="0005_scale_indexes")
    with engine.connect() as conn:
        assert not inspect(conn).has_table("run_items")
        conn.execute(
            text(
                "INSERT INTO episodes (id, task_id, task_hash, kind, seed, setting, status, agent, steps, started_at, "
                "clean_baseline) VALUES ('old1', 't', 'h', 'stt', 1, 'default', 'completed', 'baseline:oracle', 3, 1.0, "
                ":yes)"
            ),
            {"yes": True},
        )
        conn.commit()
    engine.dispose()
    store = Store(db_url)
    assert store.episode("old1").steps == 3
    code, _, err = cli(db_url, "run", str(TASK), "--run-id", "after", "--json")
    assert code == 0, err
    assert [i.status for i in store.run_items("after")] == ["done"]
    assert load_task(TASK).id in {e.task_id for e in store.run_episodes("after")}


def test_a_worker_whose_record_fails_hands_the_item_back_and_stops(tmp_path):
    """A finishing write that can never succeed: the worker stops claiming, does not wait for
    the item it still holds, and gives it back (pending) for another worker; its record says
    the write was lost."""
    import asyncio

    from sttui.core.loader import load_task
    from sttui.errors import StoreError
    from sttui.running.plan import RunPlan
    from sttui.running.sharding import run_worker

    store = Store(f"sqlite:///{tmp_path / 'x.db'}")
    original = store.write

    def refuse_the_finish(items):  # type: ignore[no-untyped-def]
        if any(item[0] == "run_item_done" for item in items):
            raise StoreError("the disk is gone")
        original(items)

    store.write = refuse_the_finish  # type: ignore[method-assign]
    plan = RunPlan.build([load_task(TASK)], trials=3, concurrency=1)
    records = asyncio.run(asyncio.wait_for(run_worker(plan, store, "r", worker="w", lease=30), 60))
    assert len(records) == 1 and records[0]["record_failed"] and "the disk is gone" in records[0]["error"]
    assert [i.status for i in store.run_items("r")] == ["pending", "pending", "pending"]
