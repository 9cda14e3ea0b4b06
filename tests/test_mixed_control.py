"""Who did what: control summaries, and mixed episodes in `sessions` and `report`."""

from __future__ import annotations

import asyncio
import json

import pytest
from click.testing import CliRunner

from sttui.cli import main
from sttui.controllers.baselines import PlanAgent, ScriptedUser
from sttui.controllers.human import HumanController
from sttui.core.actions import Say, ToolCall
from sttui.core.control import agent_holder, control_summary, is_mixed
from sttui.core.events import Event
from sttui.core.loader import load_task
from sttui.running.session import PlaySession
from sttui.store.store import Store
from sttui.tui.launch import Launch
from tests.conftest import ROOT
from tests.conftest import cli_raising as cli

STT = ROOT / "tasks" / "stt" / "logistics" / "insulin-reefer-fault-st2-easy.yaml"


def ev(seq, type_, actor, **payload):
    return Event(seq, type_, actor, payload, "")


# -- the control summary --------------------------------------------------------------------


def test_control_summary_counts_steps_per_holder_and_reads_old_edits():
    events = [
        ev(1, "episode_started", "system"),
        ev(2, "message", "baseline:scripted-user", **{"from": "user", "text": "please"}),  # the query
        ev(3, "tool_call", "human:dana"),
        ev(4, "seat_changed", "human:dana", seat="agent", **{"from": "human:dana", "to": "model:x"}),
        ev(5, "tool_call", "model:x"),
        # the format before oversight_* events: an edit was recorded, the call credited to the model
        ev(6, "oversight", "model:x", decision="edit", by="human:dana"),
        ev(7, "tool_call", "model:x"),
        ev(8, "message", "model:x", **{"from": "agent", "text": "done"}),
        ev(9, "message", "baseline:scripted-user", **{"from": "user", "text": "thanks"}),
        ev(10, "episode_ended", "baseline:scripted-user", by="user"),
    ]
    control = control_summary(events)
    assert control == {
        "agent_steps": {"human:dana": 2, "model:x": 2},
        "user_turns": {"baseline:scripted-user": 1},
        "oversight": {"edited": 1},
    }
    assert is_mixed(control) and agent_holder(control, "human:dana") == "mixed"
    alone = {"agent_steps": {"model:x": 4}, "user_turns": {}}
    assert agent_holder(alone, "human:dana") == "model:x"
    assert is_mixed({"agent_steps": {"model:x": 4}, "oversight": {"rejected": 1}})  # steered by a person


# -- a mixed episode, played headless through the session -----------------------------------------


async def _human_then_model(db: str, handed_at: int = 2) -> str:
    loaded = load_task(STT)
    steps = loaded.task.solution
    store = Store(db)
    human = HumanController("dana")
    session = PlaySession(store, loaded, human, ScriptedUser())
    run = asyncio.ensure_future(session.run())
    session.clock.start()
    for i, step in enumerate(steps[:handed_at]):
        while not (human.waiting and session.episode.steps == i):
            await asyncio.sleep(0.005)
        human.submit(ToolCall(step.tool, dict(step.args)) if step.tool else Say(step.say))
    while not (human.waiting and session.episode.steps == handed_at):
        await asyncio.sleep(0.005)
    session.hand("agent", PlanAgent("model:x", steps[handed_at:]))
    await run
    session.close()
    return session.episode_id


@pytest.fixture
def mixed_db(tmp_path):
    db = f"sqlite:///{tmp_path / 'mixed.db'}"
    asyncio.run(_human_then_model(db))
    return db


def test_a_mixed_episode_is_mixed_in_sessions_and_report(mixed_db):
    store = Store(mixed_db)
    record = store.list_episodes()[0]
    assert record.agent == "human:dana" and record.outcome["passed"] is True
    assert record.scores["control"]["agent_steps"] == {"human:dana": 2, "model:x": 5}

    listing = cli(mixed_db, "sessions")
    assert "mixed (model:x 5, human:dana 2)" in listing.output
    rows = json.loads(cli(mixed_db, "sessions", "--json").output)
    assert rows[0]["agent_holder"] == "mixed" and rows[0]["agent"] == "human:dana"

    report = json.loads(cli(mixed_db, "report", "--json").output)
    assert [r["controller"] for r in report["controllers"]] == ["mixed"]  # never human:dana at 100 %
    holders = report["controllers"][0]["holders"]
    assert [(h["controller"], h["agent_steps"]) for h in holders] == [("model:x", 5), ("human:dana", 2)]
    assert holders[0]["share"] == pytest.approx(5 / 7)
    text = cli(mixed_db, "report").output
    assert "mixed [default]" in text and "model:x 71%" in text and "human:dana 29%" in text


def test_records_from_before_control_summaries_are_read_from_their_events(mixed_db):
    store = Store(mixed_db)
    record = store.list_episodes()[0]
    old = {k: v for k, v in record.scores.items() if k != "control"}
    store.update_episode(record.id, scores=old)
    assert "mixed (model:x 5, human:dana 2)" in cli(mixed_db, "sessions").output
    report = json.loads(cli(mixed_db, "report", "--json").output)
    assert [r["controller"] for r in report["controllers"]] == ["mixed"]


def test_the_mixed_row_does_not_narrow_the_tasks_the_controllers_are_compared_on(mixed_db, tmp_path):
    assert cli(mixed_db, "run", ROOT / "tasks" / "stt" / "clinic", "--agent", "baseline:oracle").exit_code == 0
    report = json.loads(cli(mixed_db, "report", "--json").output)
    assert len(report["common_stt_tasks"]) > 1  # the clinic tasks, not the one mixed episode's
    assert {r["controller"] for r in report["controllers"]} == {"baseline:oracle", "mixed"}


async def test_home_sessions_pane_names_a_mixed_seat_as_sessions_does(mixed_db):
    from sttui.tui.app import SttuiApp
    from tests.tui_helpers import wait_for

    app = SttuiApp(Launch.build(ROOT / "tasks", db_url=mixed_db, human="ana"))
    async with app.run_test(size=(160, 40)) as pilot:
        home = app.screen
        await wait_for(pilot, lambda: bool(home.query("#sessions")) and home.sessions_table().row_count == 1)
        table = home.sessions_table()
        row = [str(c) for c in table.get_row_at(0)]
        assert "mixed (model:x 5, human:dana 2)" in row


@pytest.mark.parametrize("command", [["sessions"], ["sessions", "--json"], ["report"], ["report", "--json"]])
def test_a_control_summary_with_one_seat_lists(tmp_path, command):
    """A stored control summary may name one seat only (an imported or hand-made record: a
    summary is valid without the other); listings read the missing seat as nobody's turns
    (before: ``error: KeyError: 'user_turns'``)."""
    from tests.test_scale_store import _fill, _row

    url = f"sqlite:///{tmp_path / 'r.db'}"
    store = Store(url)
    _fill(store, [_row("aa01", 1, scores={"control": {"agent_steps": {"human:ana": 2}}})])
    _fill(store, [_row("aa02", 2, scores={"control": {"user_turns": {"human:bo": 1}}})])
    store.close()
    done = CliRunner().invoke(main, ["--db", url, *command])
    assert done.exit_code == 0, done.output
    if command == ["sessions"]:
        assert "human:ana (from baseline:agent1)" in done.output
        assert "human:bo (from baseline:scripted-user)" in done.output
