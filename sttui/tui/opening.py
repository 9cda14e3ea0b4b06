"""What ``sttui play TASK`` shows first: the task named, and "opening the record…" while the
record, the task and its seats are made ready off the UI thread. It takes no action: the play
screen replaces it once the record is open and the episode's start is committed, so nothing a
person does can go unrecorded. Light on purpose (no SQLAlchemy, no pydantic): it is the first
paint."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.widgets import Header, Static

from sttui.tui.footer import Footer
from sttui.tui.screen import SttuiScreen


class OpeningScreen(SttuiScreen[None]):
    """The task about to be played, until its play screen is ready."""

    HELP_TITLE = "opening"

    def __init__(self, task: Any) -> None:
        """``task``: the task index's entry (or the loaded task): its id, title and kind."""
        super().__init__()
        self.task_id = str(getattr(task, "id", "") or "")
        title = getattr(task, "title", None)
        if title is None and getattr(task, "task", None) is not None:
            title = getattr(task.task, "title", None)
        self.task_title = str(title or "")

    def compose(self) -> ComposeResult:
        from rich.markup import escape

        yield Header()
        heading = f"[b]{escape(self.task_title)}[/b]\n" if self.task_title else ""
        yield Static(f"{heading}[dim]{escape(self.task_id)}[/dim]", id="opening-task")
        yield Static("opening the record…", id="opening-status")
        yield Footer()

    def say(self, text: str) -> None:
        """Show where the opening is (a step done, or why it stopped)."""
        found = self.query("#opening-status")
        if found:
            found.first(Static).update(text)
