"""Leaving and coming back, the user seat's start, and `sttui play` opening one task."""

from __future__ import annotations

import pytest
from textual.widgets import Input

from sttui.config import Config, model_aliases
from sttui.core.callsyntax import format_call
from sttui.core.loader import load_task
from sttui.running.session import PlayPlan
from sttui.store.store import Store
from sttui.tui.app import SttuiApp
from sttui.tui.launch import Launch
from tests.conftest import ROOT
from tests.tui_helpers import open_play, wait_for

STT = ROOT / "tasks" / "stt" / "logistics" / "insulin-reefer-fault-st2-easy.yaml"


@pytest.fixture
def db(tmp_path):
    return f"sqlite:///{tmp_path / 'seats.db'}"


def app_for(db, **kwargs):
    return SttuiApp(Launch.build(ROOT / "tasks", db_url=db, human="ana", **kwargs))


async def two_steps(pilot, screen) -> None:
    await pilot.press("f5")
    for step in load_task(STT).task.solution[:2]:
        screen.query_one("#entry", Input).value = format_call(step.tool, step.args)
        await pilot.press("enter")
        await wait_for(pilot, lambda: screen.human.waiting)


async def test_ctrl_q_mid_episode_asks_first(db):
    async with app_for(db).run_test(size=(80, 24)) as pilot:
        screen = await open_play(pilot, STT, "agent", "PlayScreen")
        await two_steps(pilot, screen)
        await pilot.press("ctrl+q")
        await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "Confirm")
        assert "stays running" in str(pilot.app.screen.query_one(".question").render())
        await pilot.press("n")  # keep playing
        await wait_for(pilot, lambda: pilot.app.screen is screen)
        assert pilot.app.is_running
        await pilot.press("ctrl+q", "ctrl+q")  # ctrl+q in the question quits too
        session = screen.session
    session.writer.flush()
    store = Store(db)
    record = store.list_episodes()[0]
    assert record.status == "running"
    left = [e for e in store.events(record.id) if e.type == "left"]
    assert [e.payload["reason"] for e in left] == ["quit"] and left[0].actor == "human:ana"


async def test_escape_suspends_and_the_episode_resumes(db):
    async with app_for(db).run_test(size=(80, 24)) as pilot:
        screen = await open_play(pilot, STT, "agent", "PlayScreen")
        await two_steps(pilot, screen)
        await pilot.press("escape")
        await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "LeaveDialog")
        await pilot.press("escape")  # cancel: back to the episode
        await wait_for(pilot, lambda: pilot.app.screen is screen)
        await pilot.press("escape", "s")
        await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "HomeScreen")
        record = pilot.app.store.list_episodes()[0]
        assert record.status == "running"
        events = pilot.app.store.events(record.id)
        left = [e for e in events if e.type == "left"]
        assert [(e.actor, e.payload["reason"], e.payload["steps"]) for e in left] == [("human:ana", "suspended", 2)]
        worked = [e for e in events if e.type == "clock_paused"][-1].payload["active_seconds"]
        pilot.app.resume_play(record)  # what r on home does
        await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "PlayScreen")
        await wait_for(pilot, lambda: bool(pilot.app.screen.query("#model-activity")))  # mounted, not only pushed
        assert pilot.app.screen.episode.tool_calls == 2
        assert pilot.app.screen.session.clock.active_seconds == pytest.approx(worked)  # the time worked carries on


async def test_escape_can_end_the_episode(db):
    async with app_for(db).run_test(size=(120, 40)) as pilot:
        screen = await open_play(pilot, STT, "agent", "PlayScreen")
        await two_steps(pilot, screen)
        await pilot.press("escape", "e")
        await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "EndScreen")
    store = Store(db)
    record = store.list_episodes()[0]
    assert record.status == "completed"
    ended = [e for e in store.events(record.id) if e.type == "episode_ended"]
    assert ended[0].actor == "human:ana" and ended[0].payload["by"] == "agent"


async def test_in_the_user_seat_the_agent_waits_for_the_persons_clock(db):
    async with app_for(db).run_test(size=(120, 40)) as pilot:
        screen = await open_play(pilot, STT, "user", "UserSimScreen")
        await pilot.pause(0.3)  # time enough for the oracle to have run its whole plan
        assert screen.episode.steps == 0
        assert "starts when you do" in str(screen.query_one("#feedback").render())
        await pilot.press("f5")
        await wait_for(pilot, lambda: screen.episode.turn == "user" and screen.human.waiting)
        assert screen.episode.steps == len(load_task(STT).task.solution)
        started = [e.seq for e in screen.episode.events if e.type == "tool_call"]
        assert started  # (and the record has the clock start before the first call)
        screen.session.writer.flush()
        events = pilot.app.store.events(screen.session.episode_id)
        first_clock = next(e.seq for e in events if e.type == "clock_started")
        first_call = next(e.seq for e in events if e.type == "tool_call")
        assert first_clock < first_call


async def test_a_question_in_the_first_reply_is_answered_not_ended_on(db):
    async with app_for(db).run_test(size=(120, 40)) as pilot:
        screen = await open_play(pilot, STT, "user", "UserSimScreen")
        await pilot.press("f5")
        await wait_for(pilot, lambda: screen.episode.turn == "user" and screen.human.waiting)
        screen.query_one("#reply", Input).value = "Was the insulin kept below 8°C the whole way?"
        await pilot.press("enter")
        await wait_for(pilot, lambda: (screen.episode.turn == "user" and screen.human.waiting) or screen.episode.ended)
        assert screen.episode.ended is None
        answer = [i for i in screen.episode.view if i["type"] == "message"][-1]
        assert answer["from"] == "agent" and "TRK-9" in answer["text"]
        await pilot.press("ctrl+s", "y")
        await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "EndScreen")
    record = Store(db).list_episodes()[0]
    assert record.outcome["passed"] is True and record.end_reason == "the user is satisfied"


async def test_the_model_library_loads_in_the_background_when_a_model_is_configured(db, monkeypatch):
    import sttui.controllers.model as model

    imported = []
    monkeypatch.setattr(model, "litellm_module", lambda: imported.append("litellm"))
    config = Config(models=model_aliases({"m": {"model": "openai/m"}}), handoff_model="m")
    async with app_for(db, config=config).run_test(size=(120, 40)) as pilot:
        await open_play(pilot, STT, "agent", "PlayScreen")
        await wait_for(pilot, lambda: imported == ["litellm"])  # no F10 needed


async def test_without_a_configured_model_playing_never_imports_the_model_library(db, monkeypatch):
    import sttui.controllers.model as model

    imported = []
    monkeypatch.setattr(model, "litellm_module", lambda: imported.append("litellm"))
    async with app_for(db).run_test(size=(120, 40)) as pilot:
        screen = await open_play(pilot, STT, "agent", "PlayScreen")
        await two_steps(pilot, screen)
        assert imported == []
        await pilot.press("f10")  # the "which model?" dialog: now it is worth loading
        await wait_for(pilot, lambda: imported == ["litellm"])


async def test_play_from_the_command_line_opens_only_that_task(db, monkeypatch):
    from sttui.core.taskindex import TaskIndex

    read = []
    real_scan = TaskIndex.scan
    monkeypatch.setattr(TaskIndex, "scan", lambda self, paths: read.append(paths) or real_scan(self, paths))
    plan = PlayPlan.build(load_task(STT), "human:ana", "baseline:oracle", None)
    async with app_for(db, play=plan).run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "UserSimScreen")
        await pilot.pause(0.2)
        assert read == []  # home waits until it is shown again
        await pilot.press("escape", "s")
        await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "HomeScreen")
        await wait_for(pilot, lambda: len(read) == 1)
        # the episode just suspended is on the Sessions tab at once, not after a restart
        home = pilot.app.screen
        await wait_for(pilot, lambda: [r.status for r in home.sessions] == ["running"])
        assert home.sessions_table().row_count == 1


async def test_an_unknown_controller_from_the_command_line_exits_with_the_message(db, capsys):
    plan = PlayPlan(load_task(STT), "user", "human:ana", agent="baseline:nosuch")
    app = app_for(db, play=plan)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: not app.is_running or app.return_code == 2)
    assert app.return_code == 2
    assert "no stt agent baseline 'nosuch'" in capsys.readouterr().err


async def test_escape_on_a_hidden_rule_episode_offers_to_leave_and_suspends(db):
    explore = ROOT / "tasks" / "explore" / "finance" / "additive-1.yaml"
    async with app_for(db).run_test(size=(80, 24)) as pilot:
        await open_play(pilot, explore, "agent", "ExploreScreen")
        await pilot.press("escape")
        await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "LeaveDialog")
        told = str(pilot.app.screen.query_one(".muted").render())
        assert "last batch" in told and "ctrl+s" not in told  # how this kind of episode ends
        await pilot.press("s")
        await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "HomeScreen")
        record = pilot.app.store.list_episodes()[0]
        assert record.status == "running" and record.kind == "explore"
        left = [e for e in pilot.app.store.events(record.id) if e.type == "left"]
        assert [e.payload["reason"] for e in left] == ["suspended"]


async def test_the_user_seat_key_is_offered_on_stt_tasks_only(db):
    """Explore episodes have no user seat: the footer does not offer u there."""
    async with app_for(db).run_test(size=(120, 40)) as pilot:
        home = pilot.app.screen
        await wait_for(pilot, lambda: home.query_one("#tasks").row_count > 0)
        table = home.query_one("#tasks")

        def footer_offers_u() -> bool:
            return any(b.id == "home.play_user" for b, _ in _active(home))

        def go_to(kind: str) -> None:
            row = next(i for i, r in enumerate(home.visible_rows()) if r.kind == kind)
            table.move_cursor(row=row)

        go_to("explore")
        await pilot.pause()
        assert home.current_row().kind == "explore" and not footer_offers_u()
        go_to("stt")
        await pilot.pause()
        assert footer_offers_u()


def _active(screen):
    """The bindings the footer shows now, with whether each is enabled."""
    return [(b.binding, b.enabled) for b in screen.active_bindings.values() if b.binding.show]


async def test_the_sessions_table_pages_across_at_80x24(db):
    """Ten columns do not fit 80: → pages two thirds of the width, as the explore tables do."""
    import asyncio

    from sttui.controllers.baselines import PlanAgent, ScriptedUser
    from sttui.running.recording import run_recorded
    from sttui.tui.widgets import WideTable

    loaded = load_task(STT)
    naive = PlanAgent("baseline:naive", loaded.task.naive_plan)
    await asyncio.to_thread(lambda: asyncio.run(run_recorded(Store(db), loaded, naive, ScriptedUser())))
    async with app_for(db).run_test(size=(80, 24)) as pilot:
        home = pilot.app.screen
        await pilot.press("f6")
        await wait_for(pilot, lambda: bool(home.query("#sessions")) and home.sessions_table().row_count == 1)
        table = home.sessions_table()
        assert isinstance(table, WideTable) and table.has_focus and table.max_scroll_x > 0
        await pilot.press("right")
        await pilot.pause()
        assert table.scroll_x == min(table.max_scroll_x, table._page())
