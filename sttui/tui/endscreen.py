"""The end of an stt episode: the checklist item by item, the user's verdict beside it, steps,
simulated and human time, and the milestone review (shown now the episode is over, so it
cannot steer the play). The table cuts long details at the screen's edge; the highlighted
item's detail is shown whole beneath it (the first failed item's to begin with), so every
word of the verdict is readable at 80x24. In a study it says only that the task ended: the
outcome is the researcher's, and would teach the participant before their next task."""

from __future__ import annotations

from rich.markup import escape
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Static

from sttui.core import verdicts
from sttui.core.control import holders_text, is_mixed
from sttui.core.episode import Episode
from sttui.tui.episode_over import EpisodeOverScreen
from sttui.tui.footer import Footer
from sttui.tui.safetable import DataTable


class EndScreen(EpisodeOverScreen):
    AUTO_FOCUS = "#checklist"  # the arrow keys walk the items (the page scrolls with pgup/pgdn)
    BINDINGS = [
        Binding("r", "replay", "Replay it", id="end.replay"),
        Binding("escape,enter", "home", "Home", id="end.home"),
    ]

    def compose(self) -> ComposeResult:
        ep = self.result.episode
        assert isinstance(ep, Episode) and self.result.outcome is not None
        if self.session.in_study:
            yield from self.study_ending(ep.steps)
            return
        outcome = self.result.outcome
        verdict = "[b green]PASSED[/]" if outcome.passed else "[b red]FAILED[/]"
        sim = (ep.now - ep.task.clock.start).total_seconds() / 60
        clock = self.session.clock
        # as the play screen's clock shows it (mm:ss): one word, never cut in two at the edge
        secs = int(clock.active_seconds) if clock else 0
        human = f"{secs // 60:02d}:{secs % 60:02d}" if clock else "-"
        with VerticalScroll(id="end"):
            yield Static(
                f"{escape(ep.task.title)}\n{verdict}  judged by {outcome.judged_by}  ·  {escape(self.result.end_reason)}",
                id="end-title",
            )
            yield Static(  # (lines that fit 80 columns: a figure is never cut from its name)
                f"steps {ep.steps}  ·  tool calls {ep.tool_calls}  ·  simulated time {sim:.0f} min\n"
                f"your working time {human}  ·  episode {self.session.episode_id}"
                + ("\n[red]not a clean baseline (god view used)[/red]" if self.session.peeked else ""),
                id="end-stats",
            )
            user = self.result.user_verdict
            if user is not None:
                yield Static(escape(verdicts.describe(user, outcome.passed)), id="end-user")
            control = self.session.control.summary()
            if is_mixed(control):  # who took the agent's steps; this episode is credited to no one of them
                yield Static(
                    f"mixed control: agent steps {holders_text(control['agent_steps'])}"
                    + ("  ·  your working time leaves out the model's turns" if clock else ""),
                    id="end-control",
                )
            table: DataTable[str] = DataTable(id="checklist", cursor_type="row")
            yield table
            yield Static("", id="end-detail")
            review = self.result.review
            if review is not None:
                first = review["first_error"]
                yield Static(
                    f"milestones {review['settled']} of {review['milestones']}  ·  stage score {review['score']:.2f}"
                    + (f"  ·  first error at step {first['step']}: {first['why']}" if first else "")
                    + (
                        f"  ·  would have stopped at step {review['would_stop']['step']}"
                        if review["would_stop"]
                        else ""
                    ),
                    id="end-review",
                )
            yield Static(f"r replays this episode step by step; escape goes {self.home_words}.", classes="muted")
        yield Footer()

    def on_mount(self) -> None:
        assert self.result.outcome is not None
        # (none when the app closes while the screen opens: its children are gone, not an error)
        for table in self.query("#checklist").results(DataTable):
            table.add_columns("item", "result", "detail")
            for item in self.result.outcome.items:
                table.add_row(item.id, "pass" if item.passed else "FAIL", item.detail)
            items = self.result.outcome.items
            first = next((i for i, item in enumerate(items) if not item.passed), 0)
            if items:
                table.move_cursor(row=first)
                self._show(first)
        self.session.close()

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show(event.cursor_row)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        if self.check_action("home", ()):  # enter on the focused table goes home, as it does on the screen
            self.action_home()

    def _show(self, row: int) -> None:
        """The highlighted item's whole detail, under the table (its cell is cut at the edge)."""
        assert self.result.outcome is not None
        items = self.result.outcome.items
        if 0 <= row < len(items):
            item = items[row]
            said = item.detail.lower().startswith(("pass:", "fail:"))  # (a tell item's detail says it)
            status = "" if said else ("pass: " if item.passed else "[red]FAIL[/red]: ")
            self.query_one("#end-detail", Static).update(f"[b]{escape(item.id)}[/b]  {status}{escape(item.detail)}")
