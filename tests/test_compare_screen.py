"""The side-by-side compare screen: ``sttui compare EP_A EP_B`` in a terminal, and c in replay.
Both episodes' steps aligned by tool and arguments, the first step where they differ in kind
marked (▶, bold) and under the cursor; readable at 80×24."""

from __future__ import annotations

import pytest
from textual.widgets import DataTable, Input

from sttui.store.store import Store
from sttui.tui.compare import CompareApp
from tests import test_tui_snapshots as snaps
from tests.conftest import ROOT
from tests.test_tui_snapshots import SMALL, app_for, record
from tests.tui_helpers import ready, steady, wait_for

db = snaps.db  # the fixture: a fixed working time, a fresh record
DIALYSIS = ROOT / "tasks" / "stt" / "clinic" / "dialysis-urgent-t2-easy.yaml"


@pytest.fixture
def pair(db) -> tuple[str, str]:
    """The oracle's and the naive plan's episodes of one task, under fixed ids."""
    return record(db, DIALYSIS, "compare00001"), record(db, DIALYSIS, "compare00002", "baseline:naive")


def cells(screen, row: int) -> list[str]:
    table = screen.query_one("#compare-rows", DataTable)
    return [str(c) for c in table.get_row_at(row)]


async def test_the_first_divergence_is_marked_and_under_the_cursor(db, pair):
    a, b = pair
    app = CompareApp(db, a, b)
    async with app.run_test(size=SMALL) as pilot:
        await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "CompareScreen")
        screen = pilot.app.screen
        table = screen.query_one("#compare-rows", DataTable)
        await wait_for(pilot, lambda: table.row_count > 0)
        # the oracle and the naive plan share their first step, then part ways at step 2
        assert cells(screen, 0)[2].strip() == "" and "▶" not in "".join(cells(screen, 0))
        assert cells(screen, 1)[0] == "2" and cells(screen, 1)[2] == "▶≠"
        assert cells(screen, 1)[1].startswith("list_requests(") and cells(screen, 1)[4].startswith("book_appointment(")
        assert table.cursor_row == 1
        detail = str(screen.query_one("#compare-detail").render())
        assert detail.startswith("A 2: list_requests(") and "\nB 2: book_appointment(" in detail
        first = str(screen.query_one("#compare-first").render())
        assert "First divergence after 1 common step(s)" in first
        await pilot.press("end")
        await pilot.press("d")  # back to it
        assert table.cursor_row == 1
        # every column inside 80 columns: both sides readable without scrolling sideways
        assert sum(c.get_render_width(table) for c in table.columns.values()) <= 80
        await pilot.press("escape")
        await wait_for(pilot, lambda: not app.is_running)


async def test_replay_opens_it_beside_the_other_players_episode(db, pair):
    a, b = pair
    app = app_for(db)
    async with app.run_test(size=SMALL) as pilot:
        from sttui.tui.replay import ReplayScreen

        await ready(pilot)
        pilot.app.push_screen(ReplayScreen(Store(db), a))
        await wait_for(pilot, lambda: pilot.app.screen.query_one("#events", DataTable).row_count > 0)
        await pilot.press("c")
        await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "EditValue")
        assert pilot.app.screen.query_one(Input).value == b  # the other player's episode, offered
        await pilot.press("enter")
        await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "CompareScreen")
        screen = pilot.app.screen
        await wait_for(pilot, lambda: screen.query_one("#compare-rows", DataTable).row_count > 0)
        assert (screen.episode_a, screen.episode_b) == (a, b)
        await pilot.press("escape")
        await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "ReplayScreen")
        commands = [c.title for c in pilot.app.get_system_commands(pilot.app.screen)]
        assert "Compare side by side" in commands  # in the command palette too


def test_compare_screen_at_80x24(snap_compare, db, pair):
    a, b = pair

    async def run_before(pilot):
        await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "CompareScreen")
        await wait_for(pilot, lambda: pilot.app.screen.query_one("#compare-rows", DataTable).row_count > 0)
        await steady(pilot)

    assert snap_compare(CompareApp(db, a, b), terminal_size=SMALL, run_before=run_before)
