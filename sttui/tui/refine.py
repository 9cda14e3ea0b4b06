"""The refinement editor: a recorded episode's agent steps, edited and re-verified after every
edit (in a worker; the result comes back as a message), shown beside the original run with
each step's outcome, the milestones it settled and whether the state still matches."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import Input, Static
from textual.worker import Worker, WorkerState

from sttui.core.actions import Say
from sttui.core.callsyntax import entry_action
from sttui.core.checklist import checklist_for
from sttui.core.task import SttTask
from sttui.lineage.refining import Edit, EditError, Refinement, Step, Verification, save, step_text, verify
from sttui.running.recording import recorded_settings
from sttui.tui.footer import Footer
from sttui.tui.modals import Confirm
from sttui.tui.safetable import DataTable
from sttui.tui.screen import SttuiScreen
from sttui.tui.widgets import CallEntry, CallSuggester
from sttui.tui.workers import failure_notice


@dataclass
class Pending:
    """What the entry is open for: replacing step ``at``, or inserting before it."""

    mode: str  # "edit" | "insert"
    at: int


class RefineScreen(SttuiScreen[None]):
    """Edit an episode's agent steps; every edit is verified on replay of the recorded version."""

    HELP_TITLE = "refine"
    BINDINGS = [
        # (short words: the footer holds every key at 120 columns; F1 and ctrl+p say more)
        Binding("d,delete", "drop", "Drop", id="refine.drop"),
        Binding("shift+up", "move(-1)", "Move", key_display="⇧↑↓", id="refine.move_up"),
        Binding("shift+down", "move(1)", "Move down", show=False, id="refine.move_down"),
        Binding("a", "edit", "Edit", id="refine.edit"),
        Binding("i", "insert", "Insert call", id="refine.insert"),
        Binding("m", "insert_message", "Message", id="refine.insert_message"),
        Binding("u", "undo", "Undo", id="refine.undo"),
        Binding("y", "redo", "Redo", id="refine.redo"),
        Binding("ctrl+s", "save", "Save", id="refine.save"),
        Binding("escape", "back", "Back", id="refine.back"),
    ]

    class Verified(Message):
        """A verification finished (``generation`` says for which edits)."""

        def __init__(self, generation: int, verification: Verification, original: bool = False):
            super().__init__()
            self.generation, self.verification, self.original = generation, verification, original

    class Saved(Message):
        def __init__(self, episode_id: str, demonstration: bool, edits: list[Any]):
            super().__init__()
            self.episode_id, self.demonstration, self.edits = episode_id, demonstration, edits

    def __init__(self, refinement: Refinement, store: Any, editor: str):
        super().__init__()
        self.refinement, self.store, self.editor = refinement, store, editor
        self.generation = 0
        self.verification: Verification | None = None
        self.original: Verification | None = None
        self.pending: Pending | None = None
        self._saved_edits: list[Any] = []  # the edits as last saved: leaving loses what differs

    def compose(self) -> ComposeResult:
        yield Static("", id="refine-status")
        with Horizontal(id="refine-main"):
            with Vertical(id="refine-left"):
                yield Static("[b]Refined[/b]", classes="pane-title")
                yield DataTable(id="refine-steps", cursor_type="row", zebra_stripes=True)
            with Vertical(id="refine-right"):
                yield Static("[b]Original[/b]", classes="pane-title")
                yield DataTable(id="refine-original", cursor_type="row", zebra_stripes=True)
        yield Static("", id="refine-checklist")
        yield Static("", id="refine-feedback")
        yield CallEntry(
            placeholder="tool(arg=value, …)   ·   > message to the user   ·   tab completes  ·  esc cancels",
            suggester=CallSuggester(self.refinement.tools),
            id="refine-entry",
        )
        yield Footer()

    def on_mount(self) -> None:
        steps = self.query_one("#refine-steps", DataTable)
        steps.add_columns("#", "step", "outcome", "settled", "state", "checklist")
        self.query_one("#refine-original", DataTable).add_columns("#", "step", "outcome", "settled")
        self.query_one("#refine-entry").display = False
        steps.focus()
        self.redraw(original=True)
        self.run_verify(original=True)
        self.run_verify()

    # -- verification --------------------------------------------------------------------
    @work(thread=True, group="refine-verify", exit_on_error=False)
    def run_verify(self, original: bool = False) -> None:
        r = self.refinement
        generation = self.generation
        steps = r.original if original else r.steps
        self.post_message(self.Verified(generation, verify(r.loaded, r.record, r.events, steps), original))

    @on(Verified)
    def verified(self, message: Verified) -> None:
        if message.original:
            self.original = message.verification
        elif message.generation == self.generation:
            self.verification = message.verification
        self.redraw(original=message.original)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state == WorkerState.ERROR:
            doing = "save" if event.worker.group == "refine-save" else "verify"
            self.feedback(failure_notice(doing, event.worker.error))

    def _edited(self) -> None:
        self.generation += 1
        self.verification = None
        self.redraw()
        self.run_verify()

    # -- drawing -------------------------------------------------------------------------
    def redraw(self, original: bool = False) -> None:
        """The status, the edited steps and the checklist; ``original``: the original run's
        table too, which changes only when its verification arrives (on a 10,000-step episode
        each table's refill is about a second on the UI's thread)."""
        r = self.refinement
        v, o = self.verification, self.original
        status = f"Refining {r.record.id}: {r.record.task_id}  ·  {len(r.edits)} edit(s)  ·  "
        if v is None:
            status += "verifying…"
        else:
            score = "-" if v.stage_score is None else f"{v.stage_score:.2f}"
            refused = f"  ·  {len(v.refusals)} refused" if v.refusals else ""
            status += f"{'PASSED' if v.passed else 'FAILED'}  ·  stage score {score}{refused}"
        self.query_one("#refine-status", Static).update(status)
        self._fill(self.query_one("#refine-steps", DataTable), r.steps, v, o)
        if original:
            self._fill(self.query_one("#refine-original", DataTable), r.original, o, None)
        self.query_one("#refine-checklist", Static).update(checklist_text(o, v))

    def _fill(self, table: DataTable[Any], steps: list[Step], v: Verification | None, o: Verification | None) -> None:
        row = table.cursor_row
        table.clear()
        with_state = table.id == "refine-steps"
        ids = self._checklist_ids() if with_state else []
        for i, step in enumerate(steps):
            outcome = v.steps[i] if v is not None and i < len(v.steps) else None
            cells: list[Any] = [
                str(i + 1),
                step_text(step),
                outcome_cell(outcome),
                ", ".join(outcome.settled) if outcome else "",
            ]
            if with_state:
                before = o.steps[i] if o is not None and i < len(o.steps) else None
                cells.append(state_cell(outcome, before))
                cells.append(holding_cell(outcome, before, ids))
            table.add_row(*cells)
        if steps:
            table.move_cursor(row=min(max(row, 0), len(steps) - 1))

    def _checklist_ids(self) -> list[str]:
        """The ids of the checklist the recorded episode is judged by (its setting's)."""
        task = self.refinement.loaded.task
        if not isinstance(task, SttTask):
            return []
        return [item.id for item in checklist_for(task, recorded_settings(self.refinement.events))]

    def feedback(self, text: str | Text) -> None:
        """A line under the steps; a string is shown as written (an edit's words quote steps)."""
        self.query_one("#refine-feedback", Static).update(Text(text) if isinstance(text, str) else text)

    # -- edits ---------------------------------------------------------------------------
    @property
    def cursor(self) -> int:
        """The highlighted step, 1-based (0 with no steps)."""
        table = self.query_one("#refine-steps", DataTable)
        return table.cursor_row + 1 if table.row_count else 0

    def apply(self, edit: Edit) -> bool:
        try:
            self.refinement.edit(edit)
        except EditError as exc:
            self.feedback(str(exc))
            return False
        self.feedback(f"{edit.describe()}")
        self._edited()
        return True

    def action_drop(self) -> None:
        if self.cursor:
            self.apply(Edit("drop", self.cursor))

    def action_move(self, by: int) -> None:
        at = self.cursor
        if at and 1 <= at + by <= len(self.refinement.steps) and self.apply(Edit("move", at, to=at + by)):
            self.query_one("#refine-steps", DataTable).move_cursor(row=at + by - 1)

    def action_edit(self) -> None:
        if self.cursor:
            self._open(Pending("edit", self.cursor), step_text(self.refinement.steps[self.cursor - 1]))

    def action_insert(self) -> None:
        self._open(Pending("insert", self.cursor + 1), "")

    def action_insert_message(self) -> None:
        self._open(Pending("insert", self.cursor + 1), "> ")

    def _open(self, pending: Pending, text: str) -> None:
        self.pending = pending
        entry = self.query_one("#refine-entry", CallEntry)
        entry.display = True
        entry.value = text
        entry.cursor_position = len(text)
        entry.focus()
        what = f"editing step {pending.at}" if pending.mode == "edit" else f"inserting as step {pending.at}"
        self.feedback(f"{what}: enter applies, esc cancels")

    def _close(self) -> None:
        self.pending = None
        entry = self.query_one("#refine-entry", CallEntry)
        entry.value = ""
        entry.display = False
        self.query_one("#refine-steps", DataTable).focus()

    @on(Input.Submitted, "#refine-entry")
    def submitted(self, event: Input.Submitted) -> None:
        pending = self.pending
        if pending is None:
            return
        why, action = entry_action(event.value, self.refinement.tools)  # the call entry's checks
        if why:
            self.feedback(Text(why, style="red"))  # (it quotes what was typed)
            return
        if pending.mode == "insert":
            edit = Edit("insert", pending.at, step=action)
        elif isinstance(action, Say) and isinstance(self.refinement.steps[pending.at - 1], Say):
            edit = Edit("say", pending.at, text=action.text)
        else:
            edit = Edit("replace", pending.at, step=action)
        self._close()
        if self.apply(edit) and pending.mode == "insert":
            self.query_one("#refine-steps", DataTable).move_cursor(row=pending.at - 1)

    def action_undo(self) -> None:
        if self.refinement.undo():
            self.feedback("undone")
            self._edited()
        else:
            self.feedback("nothing to undo")

    def action_redo(self) -> None:
        if self.refinement.redo():
            self.feedback("redone")
            self._edited()
        else:
            self.feedback("nothing to redo")

    def action_back(self) -> None:
        if self.pending is not None:
            self._close()
            self.feedback("")
            return
        unsaved = self.refinement.edits != self._saved_edits
        if not unsaved:
            self._leave()
            return

        def answered(leave: bool | None) -> None:
            if leave:
                self._leave()

        question = f"Leave and lose {len(self.refinement.edits)} edit(s) not saved? (ctrl+s saves them)"
        self.app.push_screen(Confirm(question, yes="Leave", no="Stay"), answered)

    def _leave(self) -> None:
        from sttui.tui.app import has_screen_below

        if has_screen_below(self.app):
            self.app.pop_screen()
        else:
            self.app.exit()

    # -- saving --------------------------------------------------------------------------
    def action_save(self) -> None:
        if not self.refinement.edits:
            self.feedback("no edits to save")
            return
        self.feedback("saving…")
        self.save_worker()

    @work(thread=True, exclusive=True, group="refine-save", exit_on_error=False)
    def save_worker(self) -> None:
        """A new episode; a verified demonstration when it passes (the original is kept)."""
        edits = list(self.refinement.edits)
        passes = self.refinement.verify().passed
        episode_id, _ = save(self.store, self.refinement, self.editor, demonstration=passes)
        self.post_message(self.Saved(episode_id, passes, edits))

    @on(Saved)
    def saved(self, message: Saved) -> None:
        self._saved_edits = message.edits
        kind = "a verified demonstration" if message.demonstration else "it fails, so not a demonstration"
        self.feedback(f"saved as episode {message.episode_id} ({kind})")
        self.app.notify(f"saved refined episode {message.episode_id}")


def outcome_cell(o: Any) -> Text:
    if o is None:
        return Text("…", style="dim")
    if o.refused:
        return Text(f"refused: {o.refused}", style="bold red")
    if o.error:
        return Text(f"failed: {o.error}", style="yellow")
    if not o.reached:
        return Text("not reached", style="dim")
    return Text("ok", style="green")


def state_cell(refined: Any, original: Any) -> Text:
    """Whether the state after this step is the original run's after the same step number."""
    if refined is None or not refined.reached or original is None or not original.reached:
        return Text("")
    same = refined.state_hash == original.state_hash
    return Text("=" if same else "≠", style="dim" if same else "bold yellow")


def holding_cell(refined: Any, original: Any, ids: list[str]) -> Text:
    """The checklist after this step, one mark per item (✓ holds, · not yet), bold where it
    differs from the original run's after the same step number."""
    if refined is None or refined.holding is None or not ids:
        return Text("")
    marks = "".join("✓" if i in refined.holding else "·" for i in ids)
    was = None if original is None or original.holding is None else set(original.holding)
    changed = was is not None and was != set(refined.holding)
    return Text(marks, style="bold yellow" if changed else "")


def checklist_text(original: Verification | None, refined: Verification | None) -> Text:
    """Each checklist item, original → refined, and the stage scores."""
    out = Text()
    if original is None or refined is None:
        return Text("checklist: verifying…", style="dim")
    before = {i["id"]: i for i in original.checklist}
    for item in refined.checklist:
        was = before.get(item["id"], {}).get("passed")
        mark = "✓" if item.get("passed") else "✗"
        changed = was is not None and was != item.get("passed")
        out.append(f"{'✓' if was else '✗'} → {mark} {item['id']}", style="bold" if changed else "")
        out.append(f"  {item.get('detail', '')}\n", style="dim")
    o, r = original.stage_score, refined.stage_score
    if o is not None and r is not None:
        out.append(f"stage score {o:.2f} → {r:.2f}")
    return out


def run_editor(refinement: Refinement, editor: str, db_url: str | None) -> None:
    """`sttui refine EP` without edits: the editor alone on the workbench's app."""
    from sttui.tui.app import run_app

    run_app(db_url=db_url, human=editor, refine=refinement)
