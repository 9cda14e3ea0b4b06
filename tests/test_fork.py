"""Forking a recorded episode from one of its rows: the prefix replayed and checked, the rest
played by other controllers, the lineage recorded."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from sttui.cli import main
from sttui.controllers.baselines import ScriptedUser
from sttui.controllers.model import ModelAgent, ModelConfig
from sttui.core.events import Event
from sttui.core.loader import load_task
from sttui.core.replaying import engine_events
from sttui.running.recording import run_recorded
from sttui.store.store import Store
from tests.conftest import ROOT
from tests.helpers.stub_openai import StubServer, calls, planner, tool_call

STT = ROOT / "tasks" / "stt" / "logistics" / "insulin-reefer-fault-st2-easy.yaml"


@pytest.fixture(autouse=True)
def _key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-stub-0123456789")


def cli(db: str, *args: object):
    return CliRunner().invoke(main, ["--db", db, *map(str, args)])


def model_episode(db: str, task: Path = STT) -> str:
    """A model (the local stub server) plays the task's naive plan and ends: a failed run."""
    loaded = load_task(task)
    steps = [calls(tool_call(s.tool, s.args, f"call_{i}")) for i, s in enumerate(loaded.task.naive_plan, 1) if s.tool]
    steps.append(calls(tool_call("end_episode", {"reason": "done"}, "call_end")))
    store = Store(db)
    with StubServer(planner(steps)) as stub:
        config = ModelConfig(model="openai/stub-model", api_base=stub.base, backoff=0.01, timeout=5)
        agent = ModelAgent("model:stub", config, loaded.env_cls.tool_specs)
        episode_id, _ = asyncio.run(run_recorded(store, loaded, agent, ScriptedUser()))
    store.close()
    return episode_id


def second_call_row(store: Store, episode_id: str) -> int:
    """The row of the episode's second tool call (a fork point inside the run)."""
    return [e.seq for e in store.events(episode_id) if e.type == "tool_call"][1]


def test_a_model_episode_forked_at_a_row_is_finished_by_a_baseline_with_its_lineage(tmp_path):
    db = f"sqlite:///{tmp_path / 'f.db'}"
    original = model_episode(db)
    store = Store(db)
    row = second_call_row(store, original)
    result = cli(db, "fork", original, "--at", row, "--headless", "--agent", "baseline:oracle", "--json")
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["forked_from"] == {"episode": original, "seq": row} and out["replayed_actions"] == 2
    assert "step 2 was create_shipment(…)" in out["plan_cannot_continue"]  # said: the oracle goes on blind
    fork = store.episode(out["episode"])
    assert fork.status == "completed" and fork.clean_baseline is False
    assert fork.scores["lineage"] == {"forked_from": {"episode": original, "seq": row}}
    events = store.events(fork.id)
    started = next(e for e in events if e.type == "episode_started")
    assert started.payload["forked_from"] == {"episode": original, "seq": row}
    # the prefix is the original's, event for event (through the second call's result)
    old = [e for e in engine_events("stt", store.events(original)) if e.seq <= row + 1]
    new = [e for e in engine_events("stt", events) if e.seq <= row + 1]
    assert [(e.seq, e.type, e.actor) for e in new] == [(e.seq, e.type, e.actor) for e in old]
    assert [e.payload for e in new[1:]] == [e.payload for e in old[1:]]
    assert new[-1].actor == "model:stub"  # the prefix stays the model's
    later = [e for e in events if e.seq > row + 1 and e.type == "tool_call"]
    assert later and all(e.actor == "baseline:oracle" for e in later)
    assert any(e.type == "forked" for e in events) and any(e.type == "resumed" for e in events)
    # the fork replays as recorded (its lineage is no difference), and re-scores as it finished
    replayed = json.loads(cli(db, "replay", fork.id, "--json").stdout)
    assert replayed["reproduces_record"] is True and replayed["mismatch"] is None
    # the original is untouched
    assert store.episode(original).clean_baseline is True
    assert "lineage" not in (store.episode(original).scores or {})


def test_sessions_show_the_lineage_and_report_leaves_forks_out(tmp_path):
    db = f"sqlite:///{tmp_path / 'f.db'}"
    original = model_episode(db)
    store = Store(db)
    row = second_call_row(store, original)
    forked = json.loads(
        cli(db, "fork", original, "--at", row, "--headless", "--agent", "baseline:oracle", "--json").stdout
    )
    listing = cli(db, "sessions")
    assert f"fork of {original}@{row}" in listing.stdout
    rows = {r["id"]: r for r in json.loads(cli(db, "sessions", "--json").stdout)}
    assert rows[forked["episode"]]["forked_from"] == {"episode": original, "seq": row}
    assert rows[original]["forked_from"] is None
    report = json.loads(cli(db, "report", "--json").stdout)
    assert sum(r["episodes"] for r in report["controllers"]) == 1  # the fork is left out by default
    with_forks = json.loads(cli(db, "report", "--json", "--with-forks").stdout)
    assert sum(r["episodes"] for r in with_forks["controllers"]) == 2


def test_a_record_whose_state_hash_was_tampered_is_refused_with_where(tmp_path):
    db = f"sqlite:///{tmp_path / 'f.db'}"
    original = model_episode(db)
    store = Store(db)
    record = store.episode(original)
    events = store.events(original)
    # a copy of the episode, with one tool result's state hash changed
    target = next(e for e in events if e.type == "tool_result")
    copy_id = store.create_episode(load_task(STT), record.seed, record.agent, record.user)
    for e in events:
        payload = {**e.payload, "state_hash": "0" * 64} if e.seq == target.seq else e.payload
        store.append_event(copy_id, Event(e.seq, e.type, e.actor, payload, e.sim_time, e.wall_time))
    before = len(store.list_episodes())
    result = cli(
        db, "fork", copy_id, "--at", second_call_row(store, copy_id), "--headless", "--agent", "baseline:oracle"
    )
    assert result.exit_code == 1
    assert f"diverges from its replay at row {target.seq} (step 1, tool_result): state_hash" in result.stderr
    assert "Traceback" not in result.output
    assert len(store.list_episodes()) == before  # nothing was written


def test_a_task_changed_since_recording_is_forked_on_the_recorded_version_and_says_so(tmp_path):
    folder = tmp_path / "tasks" / "stt" / "logistics"
    folder.mkdir(parents=True)
    shutil.copy(STT.parent / "env.py", folder / "env.py")
    task = folder / STT.name
    own = STT.read_text().replace("id: logistics-insulin-reefer-st2-easy", "id: own-insulin", 1)
    task.write_text(own)
    db = f"sqlite:///{tmp_path / 'f.db'}"
    original = model_episode(db, task)
    task.write_text(own.replace("\ntitle: ", "\ntitle: (edited) ", 1))
    store = Store(db)
    row = second_call_row(store, original)
    result = cli(
        db, "fork", original, "--at", row, "--headless", "--agent", "baseline:oracle", "--tasks", tmp_path / "tasks"
    )
    assert result.exit_code == 0, result.output
    notes = [line for line in result.stderr.splitlines() if "changed since" in line]
    assert len(notes) == 1 and store.episode(original).task_hash[:12] in notes[0]
    fork = next(r for r in store.list_episodes() if r.id != original)
    assert fork.task_hash == store.episode(original).task_hash


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--at", 9999], "out of range"),
        (["--at", 0], "out of range"),
        (["--at", -1], "ended at row"),  # (replaced by the end row below)
    ],
)
def test_bad_rows_get_one_line_and_exit_2(tmp_path, args, says):
    db = f"sqlite:///{tmp_path / 'f.db'}"
    original = model_episode(db)
    if args[1] == -1:
        store = Store(db)
        args = ["--at", next(e.seq for e in store.events(original) if e.type == "episode_ended")]
    result = cli(db, "fork", original, *args, "--headless", "--agent", "baseline:oracle")
    assert result.exit_code == 2 and says in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.output


def test_an_unknown_episode_gets_one_line_and_exit_2(tmp_path):
    db = f"sqlite:///{tmp_path / 'f.db'}"
    Store(db).close()
    result = cli(db, "fork", "no-such-episode", "--at", 3, "--headless")
    assert result.exit_code == 2 and len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.output


async def test_k_on_a_replay_row_forks_and_opens_the_play_screen_with_the_prefix_done(tmp_path):
    from textual.widgets import DataTable

    from sttui.tui.modals import EditValue
    from sttui.tui.replay import ReplayScreen
    from tests.tui_helpers import ScreenApp, wait_for

    db = f"sqlite:///{tmp_path / 'f.db'}"
    original = await asyncio.to_thread(model_episode, db)
    store = Store(db)
    row = second_call_row(store, original)
    app = ScreenApp(lambda: ReplayScreen(store, original), store=store)
    async with app.run_test(size=(130, 40)) as pilot:
        screen = app.screen
        table = screen.query_one("#events", DataTable)
        await wait_for(pilot, lambda: table.row_count > 0)
        table.move_cursor(row=next(i for i, e in enumerate(screen.events) if e.seq == row))
        await pilot.press("k")
        await wait_for(pilot, lambda: isinstance(app.screen, EditValue))
        await pilot.press("enter")  # the default: you take the agent seat
        await wait_for(pilot, lambda: type(app.screen).__name__ == "PlayScreen")
        session = app.screen.session
        assert session.episode_id != original
        assert session.episode.steps == 2 and session.episode.ended is None
        assert session.episode.turn == "agent" and session.agent.name == "human:ana"  # the person's move
        # what the person sees is the agent's masked view: never the silent trigger's name
        assert all("reefer-fault" not in json.dumps(item) for item in session.episode.view)
        fork = store.episode(session.episode_id)
        assert fork.status == "running" and fork.clean_baseline is False
        started = store.events(fork.id, 1, 1)[0]
        assert started.payload["forked_from"] == {"episode": original, "seq": row}
        session.leave("closed")
        # the fork's own replay names its lineage
        app.push_screen(ReplayScreen(store, fork.id))
        await wait_for(pilot, lambda: isinstance(app.screen, ReplayScreen) and bool(app.screen.events))
        await pilot.pause()
        assert f"fork of {original}@{row}" in str(app.screen.query_one("#status-bar").render())


async def test_a_person_finishes_a_fork_taken_from_a_model_episode(tmp_path):
    """The model's first two calls kept, the person plays on to a pass; the finished fork
    records its lineage in its scores and is no clean baseline."""
    from textual.widgets import DataTable, Input

    from sttui.tui.modals import EditValue
    from sttui.tui.replay import ReplayScreen
    from tests.tui_helpers import ScreenApp, wait_for

    db = f"sqlite:///{tmp_path / 'f.db'}"
    original = await asyncio.to_thread(model_episode, db)
    store = Store(db)
    row = second_call_row(store, original)
    app = ScreenApp(lambda: ReplayScreen(store, original), store=store)
    async with app.run_test(size=(130, 40)) as pilot:
        table = app.screen.query_one("#events", DataTable)
        await wait_for(pilot, lambda: table.row_count > 0)
        table.move_cursor(row=next(i for i, e in enumerate(app.screen.events) if e.seq == row))
        await pilot.press("k")
        await wait_for(pilot, lambda: isinstance(app.screen, EditValue))
        await pilot.press("enter")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "PlayScreen")
        play = app.screen
        session = play.session
        await pilot.press("f5")
        for line in (
            "assign_vehicle(shipment_id=SHP-1, vehicle_id=TRK-9)",
            "dispatch(shipment_id=SHP-1)",
            "> TRK-7's refrigeration failed, so the insulin went on reefer TRK-9; it reached the clinic cold.",
        ):
            await wait_for(pilot, lambda: play.human.waiting or session.episode.ended is not None)
            if session.episode.ended is not None:
                break
            play.query_one("#entry", Input).value = line
            await pilot.press("enter")
        await wait_for(pilot, lambda: session.episode.ended is not None)
        fork_id = session.episode_id
        await wait_for(pilot, lambda: store.episode(fork_id).status == "completed")
    fork = store.episode(fork_id)
    assert fork.outcome["passed"] is True and fork.clean_baseline is False
    assert fork.scores["lineage"] == {"forked_from": {"episode": original, "seq": row}}
    holders = fork.scores["control"]["agent_steps"]
    assert holders.get("human:ana", 0) >= 2 and any(h.startswith("model:") for h in holders)  # both took steps


@pytest.mark.parametrize(
    ("args", "agent", "user"),
    [([], "human:ana", "baseline:scripted-user"), (["--user", "human"], "model:stub", "human:ana")],
)
def test_the_workbench_fork_seats_the_person_as_asked(tmp_path, monkeypatch, args, agent, user):
    """Without --headless the fork is written and the workbench opens it: you in the agent seat,
    or with --user human in the user seat (the agent seat goes on as recorded)."""
    import sttui.tui.app

    db = f"sqlite:///{tmp_path / 'f.db'}"
    original = model_episode(db)
    store = Store(db)
    opened: list[str] = []
    monkeypatch.setattr(sttui.tui.app, "run_app", lambda **kw: opened.append(kw["resume_episode"]))
    monkeypatch.setenv("USER", "ana")
    monkeypatch.setattr("getpass.getuser", lambda: "ana")
    result = cli(db, "fork", original, "--at", second_call_row(store, original), *args)
    assert result.exit_code == 0, result.output
    fork = store.episode(opened[0])
    assert (fork.agent, fork.user) == (agent, user) and fork.status == "running"


def test_an_imported_version_whose_code_is_not_trusted_is_refused_as_resume_refuses(tmp_path):
    folder = tmp_path / "tasks" / "stt" / "logistics"
    folder.mkdir(parents=True)
    shutil.copy(STT.parent / "env.py", folder / "env.py")
    task = folder / STT.name
    task.write_text(STT.read_text().replace("id: logistics-insulin-reefer-st2-easy", "id: own-insulin", 1))
    db = f"sqlite:///{tmp_path / 'f.db'}"
    original = model_episode(db, task)
    store = Store(db)
    row = second_call_row(store, original)
    assert cli(db, "export", original, "-o", tmp_path / "ep.jsonl").exit_code == 0
    other = f"sqlite:///{tmp_path / 'other.db'}"
    assert cli(other, "import", tmp_path / "ep.jsonl").exit_code == 0
    result = cli(other, "fork", original, "--at", row, "--headless", "--agent", "baseline:oracle")
    assert result.exit_code == 1 and "its environment code is not trusted; nothing was run" in result.stderr
    assert len(Store(other).list_episodes()) == 1  # nothing was written
    trusted = cli(other, "fork", original, "--at", row, "--headless", "--agent", "baseline:oracle", "--trust")
    assert trusted.exit_code == 0, trusted.output
    # the fork did not make the imported version "recorded here": its code is still not trusted
    again = cli(other, "fork", original, "--at", row, "--headless", "--agent", "baseline:oracle")
    assert again.exit_code == 1 and "not trusted" in again.stderr


def test_an_explore_episode_forks_too_counting_its_actions_as_steps(tmp_path):
    from sttui.controllers.registry import make_agent

    db = f"sqlite:///{tmp_path / 'f.db'}"
    loaded = load_task(ROOT / "tasks" / "explore" / "finance" / "additive-1.yaml")
    store = Store(db)
    original, _ = asyncio.run(run_recorded(store, loaded, make_agent("baseline:random", loaded, 1)))
    row = [e.seq for e in store.events(original) if e.type == "batch_submitted"][1]
    result = cli(db, "fork", original, "--at", row, "--headless", "--agent", "baseline:oracle", "--json")
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["step"] == out["replayed_actions"] >= 2
    fork = store.episode(out["episode"])
    assert fork.status == "completed" and fork.scores["lineage"]["forked_from"] == {"episode": original, "seq": row}


async def test_naming_a_baseline_for_the_agent_seat_puts_the_person_in_the_user_seat(tmp_path):
    from textual.widgets import DataTable, Input

    from sttui.tui.modals import EditValue
    from sttui.tui.replay import ReplayScreen
    from tests.tui_helpers import ScreenApp, wait_for

    db = f"sqlite:///{tmp_path / 'f.db'}"
    original = await asyncio.to_thread(model_episode, db)
    store = Store(db)
    row = second_call_row(store, original)
    app = ScreenApp(lambda: ReplayScreen(store, original), store=store)
    async with app.run_test(size=(130, 40)) as pilot:
        screen = app.screen
        table = screen.query_one("#events", DataTable)
        await wait_for(pilot, lambda: table.row_count > 0)
        table.move_cursor(row=next(i for i, e in enumerate(screen.events) if e.seq == row))
        await pilot.press("k")
        await wait_for(pilot, lambda: isinstance(app.screen, EditValue))
        app.screen.query_one("#value", Input).value = "nobody:x"
        await pilot.press("enter")  # refused in the dialog, which stays open
        assert isinstance(app.screen, EditValue) and "expected human" in str(
            app.screen.query_one("#edit-error").render()
        )
        app.screen.query_one("#value", Input).value = "baseline:oracle"
        await pilot.press("enter")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "UserSimScreen")
        session = app.screen.session
        assert session.agent.name == "baseline:oracle" and session.user.name == "human:ana"
        assert session.episode.steps == 2 and session.waits_for_person()  # the agent waits for the person
        session.leave("closed")


def test_a_plan_baseline_taking_over_a_fork_it_cannot_continue_says_so(tmp_path):
    """The oracle resumes by position in its plan: after steps that are not its own it would play
    the rest blind, and the fork says so (a model can recover; a fixed plan cannot)."""
    db = f"sqlite:///{tmp_path / 'f.db'}"
    original = model_episode(db)
    store = Store(db)
    row = [e.seq for e in store.events(original) if e.type == "tool_call"][2]
    result = cli(db, "fork", original, "--at", row, "--headless", "--agent", "baseline:oracle")
    assert result.exit_code == 0, result.output
    assert (
        "note: baseline:oracle plays a fixed plan and cannot recover from this fork (step 2 was create_shipment(…) "
        in result.stderr
    )
    out = json.loads(
        cli(db, "fork", original, "--at", row, "--headless", "--agent", "baseline:oracle", "--json").stdout
    )
    assert out["plan_cannot_continue"].startswith("baseline:oracle plays a fixed plan")
    # its own episode it continues from anywhere, silently
    ok = cli(db, "run", STT, "--agent", "baseline:oracle", "--json")
    mine = json.loads(ok.stdout)["episodes"][0]["episode"]
    row = [e.seq for e in store.events(mine) if e.type == "tool_call"][3]
    again = cli(db, "fork", mine, "--at", row, "--headless", "--agent", "baseline:oracle")
    assert again.exit_code == 0 and "cannot recover" not in again.stderr and "finished: pass" in again.output
