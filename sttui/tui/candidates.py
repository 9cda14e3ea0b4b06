"""Reviewing model-drafted candidates (stt tasks from ``sttui pipeline draft``, explore episodes
from ``sttui pipeline rate``): a row per candidate; its diff, the audit's verdict or the model's
ratings, and the checks beside it. ``a`` accepts (the task is written beside the domain's and
checked, or the episode bundled), ``e`` edits in place (ctrl+s re-checks it), ``r`` rejects.
Accepting, editing and checking run in workers; every decision is saved in the record as made.
"""

from __future__ import annotations

from typing import Any, ClassVar

from textual import events, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Static, TextArea

from sttui.drafting.review import Review
from sttui.tui.app import Placeholder, SttuiApp
from sttui.tui.footer import Footer
from sttui.tui.launch import Launch
from sttui.tui.safetable import DataTable
from sttui.tui.screen import SttuiScreen


class Decided(Message):
    """A decision made (or refused) in a worker: what to say, and whether it failed."""

    def __init__(self, index: int, text: str, error: bool):
        super().__init__()
        self.index, self.text, self.error = index, text, error


class CandidatesScreen(SttuiScreen[None]):
    WORKERS: ClassVar[dict[str, str]] = {"candidates": "record the decision on the candidate"}
    HELP_TITLE = "candidate review"
    BINDINGS = [
        Binding("a", "accept", "Accept", id="candidates.accept"),
        Binding("e", "edit", "Edit", id="candidates.edit"),
        Binding("r", "reject", "Reject", id="candidates.reject"),
        Binding("ctrl+s", "apply", "Apply edit", id="candidates.apply"),
        Binding("escape", "leave", "Back", id="candidates.leave"),
    ]

    def __init__(self, review: Review):
        super().__init__()
        self.review = review
        self.busy = False
        self.editing: int | None = None
        self.said = ""

    def compose(self) -> ComposeResult:
        yield Static(self.review.title.replace("[", "\\["), id="cand-title")
        yield DataTable(id="cand-items", cursor_type="row", zebra_stripes=True)
        with VerticalScroll(id="cand-side"):
            yield Static("", id="cand-detail")
        yield TextArea("", id="cand-editor", language=None, show_line_numbers=False)
        yield Static("", id="cand-status")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one("#cand-items", DataTable)
        table.add_columns("candidate", "status", "failed at", "decision")
        for i in range(len(self.review.items)):
            table.add_row(*self.review.row(i), key=str(i))
        self.query_one("#cand-editor", TextArea).display = False
        table.focus()
        self._show()

    def current(self) -> int | None:
        row = self.query_one("#cand-items", DataTable).cursor_row
        return row if row is not None and 0 <= row < len(self.review.items) else None

    def _show(self) -> None:
        i = self.current()
        if i is None:
            return
        self.query_one("#cand-detail", Static).update("\n".join(self.review.detail(i)).replace("[", "\\["))

    def _redraw(self, i: int) -> None:
        table = self.query_one("#cand-items", DataTable)
        for col, value in zip(table.columns, self.review.row(i), strict=True):
            table.update_cell(str(i), col, value)
        self._show()

    def say(self, text: str, error: bool = False) -> None:
        self.said = text
        widget = self.query_one("#cand-status", Static)
        widget.update(text.replace("[", "\\["))
        widget.set_class(error, "failing")

    def on_data_table_row_highlighted(self, _event: DataTable.RowHighlighted) -> None:
        self._show()

    # -- decisions ----------------------------------------------------------------------

    def _ready(self) -> int | None:
        i = self.current()
        if i is None or self.editing is not None:
            return None
        if self.busy:
            self.say("still working on the last decision")
            return None
        if self.review.decision(i) != "pending":
            self.say(f"{self.review.row(i)[0]} is {self.review.decision(i)} already", error=True)
            return None
        return i

    def action_accept(self) -> None:
        i = self._ready()
        if i is not None:
            self.busy = True
            self.say(f"accepting {self.review.row(i)[0]}: writing it and running check…")
            self.decide(i, "accept", None)

    def action_reject(self) -> None:
        i = self._ready()
        if i is not None:
            self.busy = True
            self.decide(i, "reject", None)

    def action_edit(self) -> None:
        i = self._ready()
        if i is None:
            return
        text = self.review.text(i)
        if text is None:
            self.say("this candidate never became a task: nothing to edit; reject it", error=True)
            return
        self.editing = i
        editor = self.query_one("#cand-editor", TextArea)
        editor.load_text(text)
        editor.display = True
        self.query_one("#cand-side").display = False
        editor.focus()
        self.say("editing: ctrl+s applies and checks again, escape cancels")

    def action_apply(self) -> None:
        if self.editing is None or self.busy:
            return
        i, text = self.editing, self.query_one("#cand-editor", TextArea).text
        self._close_editor()
        self.busy = True
        self.say(f"checking the edited {self.review.row(i)[0]}…")
        self.decide(i, "edit", text)

    def _close_editor(self) -> None:
        self.editing = None
        self.query_one("#cand-editor", TextArea).display = False
        self.query_one("#cand-side").display = True
        self.query_one("#cand-items", DataTable).focus()

    @work(thread=True, exclusive=True, group="candidates", exit_on_error=False)
    def decide(self, i: int, what: str, text: str | None) -> None:
        try:
            if what == "accept":
                said = f"accepted: written to {self.review.accept(i)}; check passes it"
            elif what == "reject":
                self.review.reject(i)
                said = f"rejected {self.review.row(i)[0]}: nothing written"
            else:
                assert text is not None
                self.review.edit(i, text)
                said = f"edited {self.review.row(i)[0]}: " + (
                    "checks pass" if self.review.items[i]["status"] == "passed" else "checks FAIL"
                )
        except Exception as exc:  # a refused decision is said, never a crashed screen
            self.post_message(Decided(i, " ".join(str(exc).split())[:300], True))
            return
        self.post_message(Decided(i, said, False))

    def on_decided(self, message: Decided) -> None:
        self.busy = False
        self._redraw(message.index)
        self.say(message.text, error=message.error)

    def action_leave(self) -> None:
        if self.editing is not None:
            self._close_editor()
            self.say("edit cancelled")
            return
        from sttui.tui.app import has_screen_below

        if has_screen_below(self.app):
            self.dismiss(None)
        else:
            self.app.exit()


class CandidatesApp(SttuiApp):
    """The workbench's app (styles, keys, palette, keymap) with only the review screen."""

    def __init__(self, review: Review, config: Any = None):
        super().__init__(Launch.build(config=config))
        self.review = review

    def base_screen(self) -> Screen[Any]:
        return Placeholder()  # no home: leaving the one screen ends the app

    def on_mount(self, event: events.Mount) -> None:  # type: ignore[override]  # replaces the workbench's mount (no home, no record)
        event.prevent_default()
        if self.config.theme:
            self.theme = self.config.theme
        if self.config.keymap:
            self.set_keymap(self.config.keymap)
        self.push_screen(CandidatesScreen(self.review))


def run_review(review: Review, config: Any) -> None:
    CandidatesApp(review, config).run()
