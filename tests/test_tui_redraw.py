"""Render only what changed: an event that changes none of the explore screen's tables or help
lines refills no table and updates no help line (each update re-lays out the screen)."""

from __future__ import annotations

from textual.widgets import DataTable, Static

from sttui.tui.app import SttuiApp
from sttui.tui.launch import Launch
from tests.conftest import ROOT
from tests.tui_helpers import open_play, wait_for

EXPLORE = ROOT / "tasks" / "explore" / "finance" / "additive-1.yaml"


async def test_an_event_that_changes_nothing_shown_redraws_nothing(tmp_path, monkeypatch):
    app = SttuiApp(Launch.build(ROOT / "tasks", db_url=f"sqlite:///{tmp_path / 'r.db'}", human="ana"))
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_play(pilot, EXPLORE, "agent", "ExploreScreen")
        await pilot.press("f5")
        await pilot.pause(0.2)
        cleared: list[str | None] = []
        updated: list[str | None] = []
        clear, update = DataTable.clear, Static.update
        monkeypatch.setattr(
            DataTable, "clear", lambda self, *a, **k: (cleared.append(self.id), clear(self, *a, **k))[1]
        )
        monkeypatch.setattr(Static, "update", lambda self, *a, **k: (updated.append(self.id), update(self, *a, **k))[1])
        for _ in range(3):  # the episode moved on, but nothing on these panes changed
            screen.post_message(screen.Changed())
        await pilot.pause(0.2)
        assert cleared == [] and [u for u in updated if u in ("probe-help", "batch-help", "batch-feedback")] == []
        await pilot.press("f6", "f6", "f6")  # → probe
        await pilot.press("p")  # a probe: its rows are added to the results table, and the help says it is used
        await wait_for(pilot, lambda: len(screen.episode.probes) == 1)
        await pilot.pause(0.2)
        results = screen.query_one("#probe-results", DataTable)
        assert results.row_count == len(screen.episode.probes[0]["cases"]) and "probe-help" in updated
        assert cleared == []  # no table is cleared and refilled, the one that changed included
