"""The home screen through Textual's Pilot, and a snapshot at a fixed size."""

from __future__ import annotations

from textual.widgets import DataTable, Input

from sttui.tui.app import SttuiApp
from tests.conftest import FIXTURES, ROOT


async def _loaded(pilot) -> DataTable:
    table = pilot.app.screen.query_one("#tasks", DataTable)
    for _ in range(100):
        await pilot.pause(0.02)
        if pilot.app.screen.rows:
            break
    return table


async def test_home_lists_filters_and_sorts_bundled_tasks():
    app = SttuiApp(ROOT / "tasks")
    async with app.run_test(size=(120, 40)) as pilot:
        table = await _loaded(pilot)
        total = table.row_count
        assert total >= 1
        await pilot.press("slash")
        for ch in "logistics":
            await pilot.press(ch)
        await pilot.pause()
        assert 0 < table.row_count <= total
        assert all("logistics" in str(table.get_row_at(i)).lower() for i in range(table.row_count))
        await pilot.press("escape")
        assert table.row_count == total
        await pilot.press("s")  # sort by kind
        assert app.screen.sort_column == "kind"


async def test_home_reports_broken_task_files_without_crashing():
    app = SttuiApp(FIXTURES / "bad_tasks")
    async with app.run_test(size=(80, 24)) as pilot:
        table = await _loaded(pilot)
        for _ in range(100):
            await pilot.pause(0.02)
            if "problem" in str(app.screen.query_one("#status").render()):
                break
        assert table.row_count == 0
        assert "problem(s) in task files" in str(app.screen.query_one("#status").render())
        assert app.screen.query_one("#filter", Input) is not None


def test_home_snapshot(snap_compare):
    async def wait(pilot):
        await _loaded(pilot)
        await pilot.pause()

    assert snap_compare(SttuiApp(FIXTURES / "mini"), terminal_size=(100, 30), run_before=wait)
