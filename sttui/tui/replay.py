"""Replay: step through a recorded episode's events with ← and →, each with the state
diff it caused; triggers are highlighted and every step names the controller that acted.
For stt episodes the milestone review is rebuilt from the record: the frontier as it stood
at the highlighted step, the stage timeline, and the first error (``e`` jumps to it)."""

from __future__ import annotations

import json
from typing import Any, ClassVar, Literal

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Static

from sttui.core.events import Event
from sttui.core.replaying import seq_of_step, step_of_events
from sttui.core.review.tracker import Review
from sttui.exports.versions import load_version
from sttui.running.recording import rebuild
from sttui.store.store import Store
from sttui.tui.footer import Footer
from sttui.tui.modals import EditValue
from sttui.tui.review import frontier_text, signal_line, timeline_text
from sttui.tui.safetable import DataTable
from sttui.tui.screen import SttuiScreen


def summary(event: Event) -> str:
    p = event.payload
    kind = event.type
    if kind == "tool_call":
        return f"{p['tool']}({', '.join(f'{k}={v!r}' for k, v in p['args'].items())})"
    if kind == "tool_result":
        r = p["result"]
        return "ok" if r.get("success") else f"failed: {r.get('error', '')}"
    if kind == "message":
        return f"{p['from']}: {p['text']}"
    if kind == "trigger_fired":
        return f"{p['trigger']} ({'announced' if p.get('announce') else 'silent'}), {len(p['diff'])} change(s)"
    if kind in ("batch_submitted", "batch_feedback"):
        return f"batch {p['batch']}: " + (
            ", ".join(map(str, p.get("actions", []))) or f"total {p.get('total', 0):+.2f}"
        )
    if kind == "episode_ended":
        return f"{p['by']}: {p['reason']}"
    if kind == "milestone_settled":
        return f"{p['milestone']} settled at step {p['step']} (stage {p['score']:.2f})"
    if kind == "stop_signal":
        return signal_line(p)
    return ", ".join(f"{k}={v}" for k, v in list(p.items())[:3])


def detail(event: Event) -> Text:
    out = Text()
    out.append(f"#{event.seq} {event.type}", style="bold")
    out.append(f"  by {event.actor}  ·  {event.sim_time}\n\n")
    diff = event.payload.get("state_diff") or event.payload.get("diff")
    if diff:
        out.append("state diff\n", style="bold")
        for d in diff:
            style = {"added": "green", "removed": "red"}.get(d["op"], "yellow")
            old = f"{d['old']!r} → " if "old" in d else ""
            new = repr(d["new"]) if "new" in d else "(removed)"
            out.append(f"  {d['op']:<8} {d['path']}: {old}{new}\n", style=style)
        out.append("\n")
    rest = {k: v for k, v in event.payload.items() if k not in ("state_diff", "diff")}
    out.append(json.dumps(rest, indent=2, ensure_ascii=False, default=str))
    return out


class ReplayScreen(SttuiScreen[None]):
    """A recorded episode, event by event."""

    HELP_TITLE = "replay"
    BINDINGS = [
        Binding("right,j", "step(1)", "Next", priority=True, id="replay.next"),
        Binding("left", "step(-1)", "Previous", priority=True, id="replay.previous"),
        Binding("ctrl+home,home", "edge(0)", "First event", show=False, priority=True, id="replay.first"),
        Binding("ctrl+end,end", "edge(1)", "Last event", show=False, priority=True, id="replay.last"),
        Binding("e", "first_error", "First error", id="replay.first_error"),
        Binding("k", "fork", "Fork from here", id="replay.fork"),
        Binding("E", "refine", "Refine", id="replay.refine"),  # e was taken by the first error
        Binding("c", "compare", "Compare side by side", id="replay.compare"),
        Binding("escape", "app.pop_to_home", "Home", id="replay.home"),
    ]

    def __init__(self, store: Store, episode_id: str):
        super().__init__()
        self.store, self.episode_id = store, episode_id
        self.events: list[Event] = []
        self.review: Review | None = None
        self.first_error: dict[str, Any] | None = None
        self.threshold = 0.5
        self._steps: dict[int, int] = {}
        self.rebuilt_episode: Any = None
        # a long episode (more than WHOLE events): every event without payload, and the window
        # of rows shown (``events`` holds the shown ones, in full, from ``_offset`` on)
        self._heads: list[Event] = []
        self._offset = 0
        self._record: Any = None

    def compose(self) -> ComposeResult:
        yield Static(f"Replay of {self.episode_id}: loading…", id="status-bar")
        with Horizontal(id="replay-main"):
            yield DataTable(id="events", cursor_type="row", zebra_stripes=True)
            with Vertical(id="replay-side"):
                with VerticalScroll(id="replay-review"):
                    yield Static("", id="replay-frontier")
                    yield Static("", id="replay-timeline")
                with VerticalScroll(id="replay-detail-pane"):
                    yield Static("", id="replay-detail")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one("#events", DataTable)
        # what happened before who did it: at 80 columns the "what" is in sight
        table.add_columns("#", "event", "what", "actor")
        table.focus()
        self.load()

    WORKERS: ClassVar[dict[str, str]] = {
        "replay-load": "load the episode",
        "replay-refine": "open the refinement editor",
    }

    class Loaded(Message):
        """The whole episode, rebuilt with its review (``why``: why there is no review)."""

        def __init__(self, record: Any, events: list[Event], episode: Any, why: str | None) -> None:
            super().__init__()
            self.record, self.events, self.episode, self.why = record, events, episode, why

    class HeadsLoaded(Message):
        """A long episode's rows, before it is rebuilt."""

        def __init__(self, record: Any, heads: list[Event]) -> None:
            super().__init__()
            self.record, self.heads = record, heads

    class ReviewReady(Message):
        """A long episode's review, once it is rebuilt."""

        def __init__(self, episode: Any, why: str | None) -> None:
            super().__init__()
            self.episode, self.why = episode, why

    class Refusal(Message):
        """Why this episode cannot be refined, for a notice."""

        def __init__(self, text: str, severity: Literal["warning", "error"]) -> None:
            super().__init__()
            self.text, self.severity = text, severity

    class RefinementReady(Message):
        """The refinement editor's model, built off the UI thread."""

        def __init__(self, refinement: Any) -> None:
            super().__init__()
            self.refinement = refinement

    @work(thread=True, exclusive=True, group="replay-load", exit_on_error=False)
    def load(self) -> None:
        record = self.store.episode(self.episode_id)
        heads = self.store.event_heads(record.id)  # every event, without its payload
        if len(heads) <= WHOLE:  # everything at once, as always
            events = self.store.events(record.id)
            episode, why = reviewed(self.store, record, events, keep_history=True)
            self.post_message(self.Loaded(record, events, episode, why))
            return
        # a long episode: its rows at once, a window of them at a time (scrolling pages the
        # window); the review comes when the episode is rebuilt, in this worker
        self.post_message(self.HeadsLoaded(record, heads))
        events = self.store.events(record.id)
        episode, why = reviewed(self.store, record, events, keep_history=True, keep_events=False)
        del events
        self.post_message(self.ReviewReady(episode, why))

    @on(Loaded)
    def _loaded(self, message: Loaded) -> None:
        self.show(message.record, message.events, message.episode, message.why or "")

    @on(HeadsLoaded)
    def _heads_loaded(self, message: HeadsLoaded) -> None:
        self.show_heads(message.record, message.heads)

    @on(ReviewReady)
    def _review_ready(self, message: ReviewReady) -> None:
        self.show_review(message.episode, message.why or "")

    @on(Refusal)
    def _refused(self, message: Refusal) -> None:
        self.notify(message.text, severity=message.severity, timeout=15)

    def action_refine(self) -> None:
        self.open_refinement()

    @work(thread=True, exclusive=True, group="replay-refine", exit_on_error=False)
    def open_refinement(self) -> None:
        """The refinement editor on this episode (stt episodes whose version may run)."""
        from sttui.exports.versions import VersionProblem
        from sttui.lineage.refining import Refinement

        record = self.store.episode(self.episode_id)
        if record.kind != "stt":
            self.post_message(self.Refusal("only stt episodes (tool calls) can be refined", "warning"))
            return
        try:
            refinement = Refinement.of(load_version(self.store, record), record, self.store.events(record.id))
        except VersionProblem as exc:
            self.post_message(self.Refusal(str(exc), "error"))
            return
        self.post_message(self.RefinementReady(refinement))

    @on(RefinementReady)
    def _refinement_ready(self, message: RefinementReady) -> None:
        from sttui.tui.refine import RefineScreen

        self.app.push_screen(RefineScreen(message.refinement, self.store, self.app.human))

    def show_heads(self, record: Any, heads: list[Event]) -> None:
        """A long episode's rows: the first window of them, before its review is ready."""
        self._heads = heads
        self._steps = step_of_events(heads)
        self._record = record
        self._status(record, len(heads))
        self._goto(0)

    def show_review(self, episode: Any, why: str) -> None:
        self.rebuilt_episode = episode
        self.review = episode.review if episode is not None else None
        if self.review is not None:
            self.threshold = self.review.settings.stage_threshold
            self.first_error = self.review.first_error()
        pane = self.query_one("#replay-review")
        pane.display = self.review is not None or bool(why)
        if self.review is None and why:
            self.query_one("#replay-frontier", Static).update(Text(f"No milestone review: {why}", style="dim"))
        table = self.query_one("#events", DataTable)
        self._goto(self._offset + table.cursor_row, refill=True)  # (marks the first error)

    def _status(self, record: Any, count: int) -> None:
        outcome = ("pass" if record.outcome.get("passed") else "fail") if record.outcome else record.status
        seats = f"agent {record.agent}" + (f", user {record.user}" if record.user else "")
        clean = "" if record.clean_baseline else "  ·  not a clean baseline (god view used)"
        self.query_one("#status-bar", Static).update(
            f"Replay of {record.id}: {record.task_id}  ·  {outcome}  ·  {seats}  ·  {count} events{clean}"
        )

    def _goto(self, index: int, refill: bool = False) -> None:
        """Put the cursor on the long episode's event ``index``, moving the window of rows there
        when it lies outside (or near an edge of) the one shown."""
        heads = self._heads
        index = max(0, min(len(heads) - 1, index))
        table = self.query_one("#events", DataTable)
        first, end = self._offset, self._offset + len(self.events)
        at_edge = (index == first and first > 0) or (index == end - 1 and end < len(heads))
        if refill or not first <= index < end or at_edge:
            self._offset = max(0, min(len(heads) - WINDOW, index - WINDOW // 2))
            shown = heads[self._offset : self._offset + WINDOW]
            self.events = self.store.events(self._record.id, shown[0].seq, shown[-1].seq)
            first_seq = seq_of_step(heads, self.first_error["step"]) if self.first_error else None
            table.clear()
            for e in self.events:
                table.add_row(*_cells(e, first_seq), key=str(e.seq))
        table.move_cursor(row=index - self._offset)
        self.show_event(index - self._offset)

    def show(self, record: Any, events: list[Event], episode: Any = None, why: str = "") -> None:
        self.events = events
        kinds = {e.type for e in events}
        self.rebuilt_episode = episode
        review = episode.review if episode is not None else None
        self._steps = step_of_events(events)
        self.review = review
        self.refresh_bindings()
        first_seq = None
        if review is not None:
            self.threshold = review.settings.stage_threshold
            self.first_error = review.first_error()
            if self.first_error:
                first_seq = seq_of_step(events, self.first_error["step"])
        pane = self.query_one("#replay-review")
        pane.display = review is not None or bool(why)
        if review is None and why:
            self.query_one("#replay-frontier", Static).update(Text(f"No milestone review: {why}", style="dim"))
        outcome = ("pass" if record.outcome.get("passed") else "fail") if record.outcome else record.status
        seats = f"agent {record.agent}" + (f", user {record.user}" if record.user else "")
        marks = [w for t, w in (("god_view", "god view used"), ("seat_changed", "seat handed over")) if t in kinds]
        started = next((e for e in events if e.type == "episode_started"), None)
        lineage = started.payload.get("forked_from") if started else None
        if lineage:
            marks.insert(0, f"fork of {lineage.get('episode')}@{lineage.get('seq')}")
        clean = "" if record.clean_baseline else f"  ·  not a clean baseline ({', '.join(marks) or 'derived'})"
        self.query_one("#status-bar", Static).update(
            f"Replay of {record.id}: {record.task_id}  ·  {outcome}  ·  {seats}  ·  {len(events)} events{clean}"
        )
        table = self.query_one("#events", DataTable)
        for e in events:
            table.add_row(*_cells(e, first_seq), key=str(e.seq))
        if events:
            self.show_event(0)

    @on(DataTable.RowHighlighted, "#events")
    def highlighted(self, event: DataTable.RowHighlighted) -> None:
        if self._heads and self.events:  # a long episode: at an edge of the window, page it
            row = event.cursor_row
            if row != event.data_table.cursor_row:
                return  # (a highlight from before the window moved)
            if (row == 0 and self._offset > 0) or (
                row == len(self.events) - 1 and self._offset + len(self.events) < len(self._heads)
            ):
                self._goto(self._offset + row)
                return
        if self.events and event.cursor_row < len(self.events):
            self.show_event(event.cursor_row)

    def show_event(self, row: int) -> None:
        event = self.events[row]
        self.query_one("#replay-detail", Static).update(detail(event))
        if self.review is not None:
            step = self._steps.get(event.seq, 0)
            episode = self.rebuilt_episode
            state = episode.state_at(step) if episode is not None else None
            self.query_one("#replay-frontier", Static).update(frontier_text(self.review, at=step, state=state))
            self.query_one("#replay-timeline", Static).update(
                timeline_text(self.review, self.threshold, self.first_error)
            )

    def action_edge(self, last: int) -> None:
        """The episode's first or last event, however long it is (a long one shows a window of
        its rows: ctrl+end had reached only the window's end, 101 presses for 20,000 events)."""
        if self._heads:
            self._goto(len(self._heads) - 1 if last else 0)
        elif self.events:
            table = self.query_one("#events", DataTable)
            table.move_cursor(row=len(self.events) - 1 if last else 0)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """'e' only where there is a milestone review to jump in (stt episodes with milestones)."""
        if action == "first_error":
            return self.review is not None
        return True

    def action_first_error(self) -> None:
        if self.first_error is None:
            assert self.review is not None  # (the key is offered only with a review)
            self.notify(
                f"no first error: no stage scored below the threshold ({self.threshold:.2f}) and no "
                "minefield was touched; flags in the timeline (a failed call, a blind retry) are marked "
                "there but did not bring their stage below it"
            )
            return
        if self._heads:
            seq = seq_of_step(self._heads, self.first_error["step"])
            index = next((i for i, e in enumerate(self._heads) if e.seq == seq), None)
            if index is not None:
                self._goto(index)
            return
        seq = seq_of_step(self.events, self.first_error["step"])
        row = next((i for i, e in enumerate(self.events) if e.seq == seq), None)
        if row is not None:
            self.query_one("#events", DataTable).move_cursor(row=row)

    def action_fork(self) -> None:
        """Fork a live episode from the highlighted row: asks who takes the agent seat (you, by
        default; a model or baseline puts you in the user seat), then opens the play screen."""
        table = self.query_one("#events", DataTable)
        if not self.events or table.cursor_row >= len(self.events):
            return
        seq = self.events[table.cursor_row].seq
        me = getattr(self.app, "human", "human")

        def check(text: str) -> str | None:
            from sttui.controllers.registry import ControllerSpecError, parse_spec

            spec = text.strip()
            if not spec or spec.startswith("human"):
                return None
            try:
                parse_spec(spec)
            except ControllerSpecError as exc:
                return str(exc)
            return None

        def chosen(value: str | None) -> None:
            if value is not None:
                self.app.fork_play(self.episode_id, seq, value.strip() or me)

        hint = (
            f"you ({me}), model:NAME or baseline:oracle|naive|random; a model or baseline puts you in the "
            "user seat. Enter forks, escape cancels."
        )
        self.app.push_screen(
            EditValue(f"Fork {self.episode_id} at row {seq}: who takes the agent seat?", me, hint, check), chosen
        )

    def action_compare(self) -> None:
        """This episode beside another (asked for; the latest other player's on the task offered)."""
        self.suggest_partner()

    @work(thread=True, exclusive=True, group="replay-compare", exit_on_error=False)
    def suggest_partner(self) -> None:
        from sttui.study.pairing import partner_for

        partner = partner_for(self.store, self.store.episode(self.episode_id)) or ""
        self.post_message(self.PartnerFound(partner))

    class PartnerFound(Message):
        """The episode offered to compare with ("" when there is none)."""

        def __init__(self, partner: str) -> None:
            super().__init__()
            self.partner = partner

    @on(PartnerFound)
    def _partner_found(self, message: PartnerFound) -> None:
        self._ask_partner(message.partner)

    def _ask_partner(self, partner: str) -> None:
        from sttui.tui.compare import CompareScreen

        def chosen(value: str | None) -> None:
            if value and value.strip():
                self.app.push_screen(CompareScreen(self.store, self.episode_id, value.strip()))

        hint = "An episode id (the latest other player's on this task is filled in). Enter compares, escape cancels."
        self.app.push_screen(
            EditValue(
                f"Compare {self.episode_id} side by side with which episode?",
                partner,
                hint,
                lambda text: None if text.strip() else "an episode id",
            ),
            chosen,
        )

    def action_step(self, delta: int) -> None:
        table = self.query_one("#events", DataTable)
        if self._heads and self.events:
            self._goto(self._offset + table.cursor_row + delta)
        elif table.row_count:
            table.move_cursor(row=max(0, min(table.row_count - 1, table.cursor_row + delta)))


STYLES = {"trigger_fired": "bold magenta", "milestone_settled": "green", "stop_signal": "bold red"}
WHOLE = 2000  # up to this many events, the rows and the review show at once, all rows in the table
WINDOW = 400  # a longer episode's rows are shown this many at a time, paged as the cursor moves


def _cells(e: Event, first_seq: int | None) -> tuple[Any, ...]:
    style = STYLES.get(e.type, "dim" if e.actor in ("system",) else "")
    what = summary(e)[:64]
    if e.seq == first_seq:
        what = f"◀ first error: {what}"[:64]
        style = "bold red reverse"
    return str(e.seq), Text(e.type, style=style), what, e.actor


def reviewed(
    store: Store, record: Any, events: list[Event], keep_history: bool = False, keep_events: bool = True
) -> tuple[Any, str]:
    """The episode rebuilt from the exact task version it ran on, with its milestone review
    (``episode.review``), or None and why not. ``keep_events=False``: the rebuilt episode keeps
    no events of its own (the record has them)."""
    if record.kind != "stt":
        return None, ""
    try:
        loaded = load_version(store, record)
        rebuilt = rebuild(loaded, record, events, keep_history=keep_history, keep_events=keep_events)
    except Exception as exc:  # a missing or unloadable task version: replay the events anyway
        return None, f"{type(exc).__name__}: {exc}"
    if not rebuilt.matches:
        return None, f"the record does not rebuild ({rebuilt.mismatch})"
    if getattr(rebuilt.episode, "review", None) is None:
        return None, "this task has nothing to review"
    return rebuilt.episode, ""
