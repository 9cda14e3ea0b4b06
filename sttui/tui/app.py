"""The workbench application: screens, theme, command palette entries."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.screen import Screen

from sttui.paths import tasks_root
from sttui.tui.home import HomeScreen


class SttuiApp(App[None]):
    """sttui: play, record, score and rate agent-benchmark episodes."""

    TITLE = "sttui"
    SUB_TITLE = "agent-benchmark workbench"
    CSS_PATH = "sttui.tcss"
    BINDINGS = [
        Binding("q", "quit", "Quit", id="app.quit"),
        Binding("ctrl+t", "toggle_theme", "Theme", id="app.toggle_theme"),
    ]

    def __init__(self, tasks_dir: Path | None = None):
        super().__init__()
        self.tasks_dir = tasks_dir or tasks_root()

    def on_mount(self) -> None:
        self.push_screen(HomeScreen(self.tasks_dir))

    def action_toggle_theme(self) -> None:
        self.theme = "textual-light" if self.theme == "textual-dark" else "textual-dark"

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        yield SystemCommand(
            "Toggle light/dark theme", "Switch between the dark and light themes", self.action_toggle_theme
        )
        if isinstance(screen, HomeScreen):
            yield SystemCommand("Filter tasks", "Type to narrow the task list", screen.action_focus_filter)
            yield SystemCommand("Sort tasks by next column", "Cycle the sort column", screen.action_cycle_sort)
            yield SystemCommand("Clear the task filter", "Show every task", screen.action_clear_filter)


def run_app(tasks_dir: Path | None = None, db_url: str | None = None, resume_episode: str | None = None) -> None:
    SttuiApp(tasks_dir).run()
