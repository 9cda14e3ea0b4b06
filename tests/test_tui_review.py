"""The milestone review in the workbench (Pilot): the frontier panel in the god view, signals
as warnings only for those allowed to see the review, replay's timeline and first error, and
the first error offered to annotators."""

from __future__ import annotations

import asyncio

import pytest
from textual.widgets import DataTable, Input

from sttui.controllers.baselines import PlanAgent, ScriptedUser
from sttui.core.loader import load_task
from sttui.running.recording import run_recorded
from sttui.store.store import Store
from sttui.tui.app import SttuiApp
from sttui.tui.launch import Launch
from tests.conftest import ROOT
from tests.tui_helpers import open_play, ready, wait_for

CARDIO = ROOT / "tasks" / "stt" / "clinic" / "cardiology-rota-s1-easy.yaml"


@pytest.fixture
def db(tmp_path):
    return f"sqlite:///{tmp_path / 'review.db'}"


def app_for(db, **kw):
    return SttuiApp(Launch.build(ROOT / "tasks", db_url=db, human="ana", **kw))


def record_naive(db) -> str:
    store = Store(db)
    loaded = load_task(CARDIO)
    eid, _ = asyncio.run(
        run_recorded(store, loaded, PlanAgent("baseline:naive", loaded.task.naive_plan), ScriptedUser())
    )
    return eid


def notes(app) -> list[str]:
    return [n.message for n in app._notifications]


async def say(pilot, screen, text: str) -> None:
    steps = screen.episode.steps
    screen.query_one("#entry", Input).value = f"> {text}"
    await pilot.press("enter")
    await wait_for(pilot, lambda: screen.episode.steps == steps + 1)
    await pilot.pause()


async def test_signals_are_not_shown_to_a_person_in_the_agent_seat_but_are_in_the_god_view(db):
    async with app_for(db).run_test(size=(130, 40)) as pilot:
        screen = await open_play(pilot, CARDIO, "agent", "PlayScreen")
        await pilot.press("f5")
        # telling the user about Westbrook before anything is booked: a predecessor gap
        await say(pilot, screen, "Dr Okafor is at Westbrook today.")
        assert any(e.type == "stop_signal" for e in screen.episode.events)
        assert not any("predecessor gap" in n for n in notes(pilot.app))  # fidelity: nothing leaks
        await wait_for(pilot, lambda: screen.episode.turn == "agent")
        await pilot.press("f2", "y")
        await wait_for(pilot, lambda: screen.god)
        panel = str(screen.query_one("#god-frontier").render())
        assert "sees-swap" in panel and "waits on" in panel and "predecessor gap" in panel
        # why the ready milestone has not settled: its constraints, each held or not
        assert "✗ state.clinicians.CL-OKAFOR.shifts.2024-09-12.site equals 'WESTBROOK'" in panel
        # texting the patient before the booking: another gap, now warned about
        screen.query_one(
            "#entry", Input
        ).value = 'notify_patient(patient_id="P-ONEILL", message="See you at Westbrook")'
        await pilot.press("enter")
        await wait_for(pilot, lambda: any("told-patient" in n for n in notes(pilot.app)))
        assert any("predecessor gap" in n for n in notes(pilot.app))


async def test_replay_shows_the_frontier_the_timeline_and_jumps_to_the_first_error(db):
    eid = await asyncio.to_thread(record_naive, db)
    async with app_for(db).run_test(size=(130, 40)) as pilot:
        app = await ready(pilot)
        await pilot.press("f6")  # the sessions list shows each episode's stage score and milestones
        await wait_for(
            pilot, lambda: bool(app.screen.query("#sessions")) and app.screen.query_one("#sessions").row_count
        )
        sessions = app.screen.query_one("#sessions", DataTable)
        assert "0.25 · 1/4" in [str(c) for c in sessions.get_row_at(0)]
        from sttui.tui.replay import ReplayScreen

        app.push_screen(ReplayScreen(app.store, eid))
        await pilot.pause()
        await wait_for(pilot, lambda: bool(app.screen.query("#events")))
        screen = app.screen
        await wait_for(pilot, lambda: screen.query_one("#events", DataTable).row_count > 0)
        # the refused Harbourside booking showed the move (sees-swap settles there); texting
        # Margaret the old site right after is where the naive run goes wrong
        assert screen.first_error == {"step": 3, "why": "no milestone reached from here on"}
        timeline = str(screen.query_one("#replay-timeline").render())
        assert "First error: step 3" in timeline and "open stage" in timeline and "sees-swap" in timeline
        assert "after step 0" in str(screen.query_one("#replay-frontier").render())
        await pilot.press("e")
        await pilot.pause()
        row = screen.query_one("#events", DataTable).cursor_row
        event = screen.events[row]
        assert event.type == "tool_call" and event.payload["tool"] == "notify_patient"
        frontier = str(screen.query_one("#replay-frontier").render())
        assert "after step 3" in frontier and "✓ sees-swap" in frontier and "▶ booked-westbrook" in frontier
        assert "✗ state.appointments added" in frontier  # the state at step 3, from the rebuilt record


async def test_the_annotator_is_offered_the_first_error_and_confirms_it(db):
    eid = await asyncio.to_thread(record_naive, db)
    store = Store(db)
    async with app_for(db, annotate=("episodes", None)).run_test(size=(130, 40)) as pilot:
        await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "AnnotateScreen")
        screen = pilot.app.screen
        await wait_for(pilot, lambda: screen.item is not None and len(screen.events) > 5)
        await pilot.pause()
        table = screen.query_one("#episode-events", DataTable)
        suggested = screen.events[table.cursor_row]
        assert suggested.type == "tool_call" and suggested.payload["tool"] == "notify_patient"
        assert f"◇ suggested first wrong step: #{suggested.seq} " in str(screen.query_one("#feedback").render())
        # the row keeps its call, marked ◇, in what the column shows (26 cells at 80 columns)
        what = str(table.get_row_at(table.cursor_row)[2])
        assert what.startswith("◇ notify_patient("), what
        await pilot.press("f")
        await pilot.pause()
    assert store.labels(eid, "ana")[0]["first_error_seq"] == suggested.seq
    # the agreement report compares annotators' marks with the suggestions
    import json

    from click.testing import CliRunner

    from sttui.cli import main

    report = json.loads(CliRunner().invoke(main, ["--db", db, "agreement", "--json"]).output)
    assert report["first_error"] == {
        "marked": 1,
        "with_suggestion": 1,
        "confirmed": 1,
        "within_one_step": 1,
        "annotator_earlier": 0,
        "annotator_later": 0,
        "confirmed_share": 1.0,
    }


def test_suggestion_agreement_counts():
    from sttui.annotate.first_errors import suggestion_agreement

    out = suggestion_agreement([(3, 3), (2, 3), (6, 3), (4, None)])
    assert (out["marked"], out["with_suggestion"], out["confirmed"], out["within_one_step"]) == (4, 3, 1, 2)
    assert (out["annotator_earlier"], out["annotator_later"]) == (1, 1)


async def test_a_failed_call_in_a_passing_stage_is_not_called_the_first_error(db):
    """The timeline names a flag as what it is ("failed call @1"); with no stage below the
    threshold, e says why there is no first error rather than contradicting the timeline."""
    from sttui.core.task import Step
    from sttui.tui.replay import ReplayScreen
    from tests.tui_helpers import ScreenApp

    loaded = load_task(CARDIO)
    query = next(s for s in loaded.task.solution if s.tool)
    bogus = Step(tool=query.tool, args={k: "NOPE-0" for k in query.args})
    store = Store(db)
    plan = PlanAgent("baseline:oracle", [bogus, *loaded.task.solution])
    eid, _ = await asyncio.to_thread(lambda: asyncio.run(run_recorded(store, loaded, plan, ScriptedUser())))
    app = ScreenApp(lambda: ReplayScreen(store, eid), store=store)
    async with app.run_test(size=(130, 40)) as pilot:
        screen = app.screen
        await wait_for(pilot, lambda: screen.review is not None)
        await pilot.pause()
        assert screen.first_error is None
        timeline = str(screen.query_one("#replay-timeline").render())
        assert "failed call @1" in timeline and "error @" not in timeline
        await pilot.press("e")
        await pilot.pause()
        (note,) = list(app._notifications)
        assert note.message.startswith("no first error: no stage scored below the threshold (0.50)")
