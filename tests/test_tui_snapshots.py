"""Snapshots of the key screens at a fixed size (pytest-textual-snapshot).

Each ends with ``steady``: no blinking cursor (under load, as with ``-n 4``, whether the
cursor was on at the moment of the picture was left to a half-second timer) and nothing left
in the queue. The clock is fixed, and recorded episodes have fixed ids."""

from __future__ import annotations

import asyncio

import pytest
from textual.widgets import DataTable

from sttui.config import model_aliases
from sttui.controllers.baselines import PlanAgent, ScriptedUser
from sttui.controllers.explore_baselines import ExploreOracle
from sttui.core.callsyntax import format_call
from sttui.core.loader import load_task
from sttui.running.recording import Recorder, finish
from sttui.running.runner import run_episode
from sttui.running.session import HumanClock, PlaySession
from sttui.store.store import Store
from sttui.tui.app import SttuiApp
from sttui.tui.launch import Launch
from tests.conftest import ROOT
from tests.tui_helpers import open_play, ready, steady, wait_for

SIZE = (110, 34)
SMALL = (80, 24)
LARGE = (120, 40)
STT = ROOT / "tasks" / "stt" / "logistics" / "insulin-reefer-fault-st2-easy.yaml"
CARDIO = ROOT / "tasks" / "stt" / "clinic" / "cardiology-rota-s1-easy.yaml"
EXPLORE = ROOT / "tasks" / "explore" / "finance" / "additive-1.yaml"


def app_for(db: str, **kw) -> SttuiApp:
    return SttuiApp(Launch.build(ROOT / "tasks", db_url=db, human="ana", **kw))


def record(db: str, path, episode_id: str, agent: str = "baseline:oracle") -> str:
    """An episode of ``path`` played by a baseline, under a fixed id."""
    loaded = load_task(path)
    store = Store(db)
    plan = loaded.task.solution if agent == "baseline:oracle" else loaded.task.naive_plan
    eid = store.create_episode(loaded, 0, agent, "baseline:scripted-user", episode_id=episode_id)
    result = asyncio.run(run_episode(loaded, PlanAgent(agent, plan), ScriptedUser(), on_event=Recorder(store, eid)))
    finish(store, eid, result)
    return eid


@pytest.fixture
def db(tmp_path, monkeypatch):
    monkeypatch.setattr(HumanClock, "active_seconds", property(lambda self: 75.0))  # a fixed working time
    return f"sqlite:///{tmp_path / 'snap.db'}"


def test_home(snap_compare, db):
    async def run_before(pilot):
        await ready(pilot)
        await steady(pilot)

    assert snap_compare(app_for(db), terminal_size=SIZE, run_before=run_before)


@pytest.mark.parametrize("size", [SMALL, LARGE], ids=["80x24", "120x40"])
def test_home_shows_every_column(snap_compare, db, size):
    """At 80 columns the mine and title columns are on screen (the id gives way); at 120 the
    titles show far more than 32 characters."""

    async def run_before(pilot):
        await ready(pilot)
        await steady(pilot)
        table = pilot.app.screen.query_one("#tasks", DataTable)
        widths = {str(c.key.value): c.get_render_width(table) for c in table.columns.values()}
        assert sum(widths.values()) <= size[0] - 2, widths
        if size == LARGE:
            assert widths["title"] - 2 >= 40

    assert snap_compare(app_for(db), terminal_size=size, run_before=run_before)


def test_help(snap_compare, db):
    async def run_before(pilot):
        await ready(pilot)
        await pilot.press("f1")
        await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "KeysHelp")
        await steady(pilot)

    assert snap_compare(app_for(db), terminal_size=SIZE, run_before=run_before)


def test_play(snap_compare, db):
    loaded = load_task(STT)

    async def run_before(pilot):
        screen = await open_play(pilot, STT, "agent", "PlayScreen")
        await pilot.press("f5")
        for step in loaded.task.solution[:3]:
            screen.query_one("#entry").value = format_call(step.tool, step.args)
            await pilot.press("enter")
            await wait_for(pilot, lambda: screen.human.waiting)
        await pilot.press("f5")
        await steady(pilot)

    assert snap_compare(app_for(db), terminal_size=SIZE, run_before=run_before)


def test_play_at_80x24(snap_compare, db):
    """The tools in sight, the newest result unfolded, the keys that end or hand over in the footer."""
    loaded = load_task(STT)

    async def run_before(pilot):
        screen = await open_play(pilot, STT, "agent", "PlayScreen")
        await pilot.press("f5")
        for step in loaded.task.solution[:2]:
            screen.query_one("#entry").value = format_call(step.tool, step.args)
            await pilot.press("enter")
            await wait_for(pilot, lambda: screen.human.waiting)
        await pilot.press("f5")
        await steady(pilot)

    assert snap_compare(app_for(db), terminal_size=SMALL, run_before=run_before)


def test_god_view(snap_compare, db):
    """At 120x40: the live checklist first, constraints wrapped between words."""

    async def run_before(pilot):
        await open_play(pilot, CARDIO, "agent", "PlayScreen")
        await pilot.press("f2", "y")
        await wait_for(pilot, lambda: pilot.app.screen.god)
        await steady(pilot)

    assert snap_compare(app_for(db), terminal_size=LARGE, run_before=run_before)


def test_explore_batch(snap_compare, db):
    async def run_before(pilot):
        screen = await open_play(pilot, EXPLORE, "agent", "ExploreScreen")
        await pilot.press("f5")
        screen.query_one("#batch", DataTable).focus()
        await pilot.press("1", "2", "3")
        await pilot.press("f5")
        await steady(pilot)

    assert snap_compare(app_for(db), terminal_size=SIZE, run_before=run_before)


def test_reveal(snap_compare, db):
    loaded = load_task(EXPLORE)
    store = Store(db)
    session = PlaySession(store, loaded, ExploreOracle("baseline:oracle", loaded.task), None)
    result = asyncio.run(session.run())

    async def run_before(pilot):
        from sttui.tui.reveal import RevealScreen

        await ready(pilot)
        pilot.app.push_screen(RevealScreen(session, result))
        await steady(pilot)

    assert snap_compare(app_for(db), terminal_size=SIZE, run_before=run_before)


@pytest.mark.parametrize("size", [SMALL, LARGE], ids=["80x24", "120x40"])
def test_refine_editor(snap_compare, db, size):
    """The editor with one edit verified; at 120 columns the footer holds every key."""
    from sttui.exports.versions import load_version
    from sttui.lineage.refining import Refinement
    from sttui.tui.refine import RefineScreen

    eid = record(db, STT, "snapshot0003", agent="baseline:naive")
    store = Store(db)
    rec = store.episode(eid)
    refinement = Refinement.of(load_version(store, rec), rec, store.events(eid))

    async def run_before(pilot):
        await ready(pilot)
        pilot.app.push_screen(RefineScreen(refinement, store, "human:ana"))
        await wait_for(pilot, lambda: getattr(pilot.app.screen, "verification", None) is not None)
        await wait_for(pilot, lambda: pilot.app.screen.original is not None)
        await pilot.press("d")
        await wait_for(pilot, lambda: len(pilot.app.screen.refinement.edits) == 1)
        await wait_for(pilot, lambda: pilot.app.screen.verification is not None)
        await steady(pilot)

    assert snap_compare(app_for(db), terminal_size=size, run_before=run_before)


def test_replay(snap_compare, db):
    eid = record(db, STT, "snapshot0001")

    async def run_before(pilot):
        from sttui.tui.replay import ReplayScreen

        await ready(pilot)
        pilot.app.push_screen(ReplayScreen(pilot.app.store, eid))
        await pilot.pause()
        await wait_for(pilot, lambda: pilot.app.screen.query_one("#events", DataTable).row_count > 0)
        await pilot.press("right", "right", "right", "right")
        await steady(pilot)

    assert snap_compare(app_for(db), terminal_size=SIZE, run_before=run_before)


def test_annotate_an_episode_blind(snap_compare, db):
    """The seats, not who held them; the review's suggested first error under the cursor."""
    record(db, STT, "snapshot0002", agent="baseline:naive")

    async def run_before(pilot):
        await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "AnnotateScreen")
        screen = pilot.app.screen
        await wait_for(pilot, lambda: len(screen.events) > 5)
        await steady(pilot)

    assert snap_compare(app_for(db, annotate=("episodes", None)), terminal_size=LARGE, run_before=run_before)


def test_an_episode_event_read_whole_at_80x24(snap_compare, db):
    """Enter on the highlighted event: the whole of it, where its row is cut at the edge."""
    record(db, STT, "snapshot0003", agent="baseline:naive")

    async def run_before(pilot):
        await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "AnnotateScreen")
        screen = pilot.app.screen
        await wait_for(pilot, lambda: len(screen.events) > 5)
        await steady(pilot)
        screen.query_one("#episode-events").move_cursor(row=1)  # the trigger at the start, with its diff
        await pilot.press("enter")
        await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "Reader")
        await steady(pilot)

    assert snap_compare(app_for(db, annotate=("episodes", None)), terminal_size=SMALL, run_before=run_before)


def test_oversight_review_at_80x24(snap_compare, db, monkeypatch):
    """A model's proposal under oversight, at the smallest size the workbench supports."""
    from sttui.config import Config
    from tests.helpers.stub_openai import StubServer, calls, completion, tool_call

    monkeypatch.setenv("OPENAI_API_KEY", "sk-stub-0123456789")
    proposal = calls(tool_call("assign_vehicle", {"shipment_id": "SHP-1", "vehicle_id": "TRK-7"}, "p1"))
    with StubServer(lambda request: (200, completion(proposal), 0.0)) as stub:
        models = {"stub": {"model": "openai/stub-model", "api_base": stub.base}}
        app = SttuiApp(
            Launch.build(
                ROOT / "tasks",
                db_url=db,
                human="ana",
                config=Config(models=model_aliases(models), handoff_model="stub"),
            )
        )
        monkeypatch.setattr(app, "notify", lambda *args, **kwargs: None)  # no toasts timing into the picture

        async def run_before(pilot):
            screen = await open_play(pilot, STT, "agent", "PlayScreen")
            await wait_for(pilot, lambda: str(screen.query_one("#tool-detail").render()).strip())  # settled
            await pilot.pause()
            await pilot.wait_for_scheduled_animations()
            await pilot.press("f7", "f10")
            await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "ReviewCall")
            await wait_for(pilot, lambda: not screen.query_one("#model-activity").text)  # the call is over
            await steady(pilot)

        assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)


def test_leave_dialog_at_80x24(snap_compare, db):
    async def run_before(pilot):
        await open_play(pilot, STT, "agent", "PlayScreen")
        await pilot.press("escape")
        await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "LeaveDialog")
        await steady(pilot)

    assert snap_compare(app_for(db), terminal_size=(80, 24), run_before=run_before)


def test_user_seat_at_80x24(snap_compare, db):
    """The user seat at its turn: the agent's report, and the three endings in the footer."""

    async def run_before(pilot):
        screen = await open_play(pilot, STT, "user", "UserSimScreen")
        await pilot.press("f5")
        await wait_for(pilot, lambda: screen.episode.turn == "user" and screen.human.waiting)
        await pilot.press("f5")
        await steady(pilot)

    assert snap_compare(app_for(db), terminal_size=SMALL, run_before=run_before)
