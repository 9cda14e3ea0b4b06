"""Rating items by keyboard: 1-5 on the current dimension (committed on the key press), tab
or the arrows between dimensions, a comment, skip, undo, progress, and for episodes the
failure-mode tags and the first wrong step. A judge's verdict is rated by its choices' keys
(1 right, 2 wrong, 3 can't tell). Annotators only ever see their own ratings, and an
episode's controllers are blinded to their seat names unless the dimension needs them."""

from __future__ import annotations

import json
from typing import Any, ClassVar

from rich.markup import escape
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Button, Input, Label, ProgressBar, SelectionList, Static

from sttui.annotate.blinding import blind_events, seat_labels
from sttui.annotate.dimensions import FAILURE_MODES
from sttui.annotate.queue import Item, Queue
from sttui.annotate.verdicts import verdict_body
from sttui.core import verdicts
from sttui.core.replaying import seq_of_step
from sttui.tui.footer import Footer
from sttui.tui.lifecycle import while_shown
from sttui.tui.modals import Dialog, EditValue, Reader
from sttui.tui.replay import detail, reviewed, summary
from sttui.tui.safetable import DataTable
from sttui.tui.screen import SttuiScreen
from sttui.tui.widgets import fields_text


def _steps(steps: list[dict[str, Any]]) -> str:
    """A plan's steps, one a line, as markup that shows them as written."""
    return escape(
        "\n".join(
            f"{i}. "
            + (
                f"{s['tool']}({json.dumps(s.get('args', {}), default=str)})"
                if "tool" in s
                else f"say: {s.get('say', '')}"
            )
            for i, s in enumerate(steps, 1)
        )
    )


def item_text(item: Item) -> str:
    b = item.body
    if item.kind == "task":
        checklist = "\n".join(
            f"• {escape(str(c['id']))}: "
            + escape(str(c.get("description") or json.dumps(c.get("expect") or c.get("check"), default=str)))
            for c in b["checklist"]
        )
        triggers = "\n".join(
            f"• {escape(str(t['id']))} ({'announced' if t.get('announce') else 'silent'}): "
            f"{escape(str(t.get('description', '')))}\n    when {escape(json.dumps(t['when'], default=str))}"
            for t in b["triggers"]
        )
        user = b["user"]
        return (
            f"[b]{escape(item.title)}[/b]  ({escape(str(b['conflict']))}, {escape(str(b['level']))})\n\n"
            f"[b]Query[/b]\n{escape(str(b['query']))}\n\n"
            f"[b]User[/b] goal: {escape(str(user['goal']))}\n[b]profile[/b]\n{fields_text(user.get('profile') or {}, 1).markup}\n"
            f"[b]withheld[/b]\n{fields_text(user.get('withheld') or {}, 1).markup}\n\n[b]Checklist[/b]\n{checklist}\n\n"
            f"[b]Triggers[/b]\n{triggers}"
        )
    if item.kind == "explore":
        fields = "\n".join(f"• {f['name']}: {f['description']}" for f in b["fields"])  # (escaped below)
        rule = b["rule"]
        factors = escape(", ".join(f"{f['field']} ({f['direction']})" for f in rule["factors"]))
        drift = b["drift"]
        change = (
            f"after batch {drift['after_batch']}: {drift['replace']['factor']} is replaced by "
            f"{drift['replace']['by']} ({drift['replace']['direction']}); {drift['reverse']} reverses"
            if drift
            else "no drift"
        )
        return (
            f"[b]{escape(item.title)}[/b]\n\n{escape(str(b['scenario']))}\n\n[b]Fields[/b]\n{escape(fields)}\n\n"
            f"[b]Rule[/b] {escape(str(rule['family']))}: {factors}\n[b]Change[/b] {escape(change)}"
        )
    if item.kind == "verdict":
        return verdict_text(b) if b else f"[b]The judge's verdict on episode {item.id}[/b] (reading the record…)"
    # an episode: its title names who played it, so it is shown blind once its record is read
    return f"[b]Episode {item.id}[/b]"


def verdict_text(body: dict[str, Any]) -> str:
    """A verdict item: the final messages with the calls among and after them, how the episode
    ended, and the judge's verdict with the detail of each item (``annotate.verdicts.verdict_body``,
    already blind)."""
    earlier = f" ({body['earlier_messages']} earlier not shown)" if body["earlier_messages"] else ""
    lines = [
        f"[b]The judge's verdict on episode {body['episode']}[/b] of task {escape(body['task'])}",
        "",
        f"[b]Final messages, and the calls among them[/b]{earlier}",
    ]
    if not body["messages"]:
        lines.append("  (no messages between agent and user)")
    lines += [turn_line(t) for t in body["turns"]]
    lines.append(f"\nended: {escape(body['end_reason'] or '-')}")
    uv = body.get("user_verdict")
    if uv:
        reason = f" ({escape(uv['reason'])})" if uv["reason"] else ""
        lines.append(f"the user seat's own verdict: {escape(str(uv['verdict']))}{reason}")
    lines.append(f"\n[b]Verdict: {'PASS' if body['passed'] else 'FAIL'}[/b]  judged by {escape(body['judged_by'])}")
    lines += [f"  {'✓' if i['passed'] else '✗'} {escape(i['id'])}: {escape(i['detail'])}" for i in body["items"]]
    return "\n".join(lines)


def turn_line(turn: dict[str, Any]) -> str:
    """One line of a verdict item's final turns: a message, a call with its result, or how many
    earlier calls are left out."""
    if "gap" in turn:
        return f"  [dim]… {turn['gap']} earlier call(s) not shown[/dim]"
    if "call" in turn:
        mark = "✓" if turn["ok"] else "✗"
        return f"  #{turn['seq']} call {escape(turn['call'])} {mark} {escape(turn['result'])}"
    return f"  #{turn['seq']} {escape(turn['from'])}: {escape(turn['text'])}"


class TagList(SelectionList[str]):
    """The failure modes: space ticks one, enter saves the dialog (as everywhere in it)."""

    BINDINGS = [Binding("enter", "screen.save", "Save", id="tags.save")]


class Tags(Dialog[tuple[list[str], str] | None]):
    """Failure-mode tags of an episode (STT-Arena's three modes, and other with text)."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="tags.cancel")]

    def __init__(self, current: list[str], other: str):
        super().__init__()
        self.current, self.other = current, other

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label("Failure modes: space ticks one, enter saves", classes="question")
            yield TagList(*[(m.replace("_", " "), m, m in self.current) for m in FAILURE_MODES], id="modes")
            yield Input(self.other, placeholder="other: describe", id="other")
            yield Button("Save (enter)", variant="primary", id="save")

    def action_save(self) -> None:
        self._save()

    def on_button_pressed(self) -> None:
        self._save()

    def on_input_submitted(self) -> None:
        self._save()

    def _save(self) -> None:
        self.dismiss(
            (list(self.query_one("#modes", SelectionList).selected), self.query_one("#other", Input).value.strip())
        )

    def action_cancel(self) -> None:
        self.dismiss(None)


class AnnotateScreen(SttuiScreen[None]):
    BINDINGS = [
        Binding("1", "rate(1)", "1", show=False, id="annotate.rate1"),
        Binding("2", "rate(2)", "2", show=False, id="annotate.rate2"),
        Binding("3", "rate(3)", "3", show=False, id="annotate.rate3"),
        Binding("4", "rate(4)", "4", show=False, id="annotate.rate4"),
        Binding("5", "rate(5)", "5", show=False, id="annotate.rate5"),
        # the rating pane says "tab moves": the footer keeps its room for the keys below
        Binding("tab", "dimension(1)", "Next dimension", priority=True, show=False, id="annotate.next_dimension"),
        Binding(
            "shift+tab", "dimension(-1)", "Previous dimension", priority=True, show=False, id="annotate.prev_dimension"
        ),
        # on an episode the arrows move through its events (f marks the one highlighted); else
        # through the dimensions, as tab does
        Binding("down", "arrow(1)", "Next event", priority=True, show=False, id="annotate.down"),
        Binding("up", "arrow(-1)", "Previous event", priority=True, show=False, id="annotate.up"),
        # (an episode of 20,000 events: its first wrong step may be thousands of rows down)
        Binding(
            "ctrl+home,home", "arrow(-1_000_000_000)", "First event", priority=True, show=False, id="annotate.first"
        ),
        Binding("ctrl+end,end", "arrow(1_000_000_000)", "Last event", priority=True, show=False, id="annotate.last"),
        Binding("pagedown", "arrow(20)", "20 events on", priority=True, show=False, id="annotate.page_down"),
        Binding("pageup", "arrow(-20)", "20 events back", priority=True, show=False, id="annotate.page_up"),
        Binding("enter", "read_event", "Read the event whole", show=False, id="annotate.read_event"),
        Binding("c", "comment", "Comment", id="annotate.comment"),
        Binding("s", "skip", "Skip", id="annotate.skip"),
        Binding("u", "undo", "Undo", id="annotate.undo"),
        Binding("t", "tags", "Failure tags", id="annotate.tags"),
        Binding("f", "first_error", "First wrong step", id="annotate.first_error"),
        Binding("escape", "leave", "Leave", id="annotate.home"),
    ]
    HELP_TITLE = "rating items"

    def __init__(self, queue: Queue):
        super().__init__()
        self.queue = queue
        self.skipped: set[str] = set()
        self.item: Item | None = None
        self.dim = 0
        self.events: list[Any] = []
        self.done_here: list[tuple[Item, int]] = []  # ratings made in this sitting, for undo
        self._episode: tuple[Any, list[Any], tuple[int, str] | None] | None = None  # record, events, suggestion
        self._blinded: bool | None = None  # how the episode's events are shown now

    def compose(self) -> ComposeResult:
        yield Static("", id="status-bar", markup=False)  # (names and item ids, as written)
        yield ProgressBar(id="progress", show_eta=False)
        with Horizontal(id="annotate-main"):
            with VerticalScroll(id="item-pane"):
                yield Static("", id="item")
                with Horizontal(id="plans"):
                    yield Static("", id="naive")
                    yield Static("", id="solution")
                yield DataTable(id="episode-events", cursor_type="row")
                yield Static("", id="event-detail")
            with VerticalScroll(id="rating-pane"):
                yield Static("", id="dimensions")
                yield Static("", id="anchors")
        yield Static("", id="feedback")
        yield Footer()

    def on_mount(self) -> None:
        # what happened before who did it, as in the replay: at 80 columns the "what" is in sight
        self.query_one("#episode-events", DataTable).add_columns("#", "event", "what", "actor")
        self.advance()

    # -- moving through the queue ---------------------------------------------------------
    def advance(self) -> None:
        for item in self.queue.next_items(self.skipped):
            if self.queue.claim(item):
                self.show(item)
                return
            self.skipped.add(item.id)  # its places were taken by others meanwhile
        self.item = None
        self.query_one("#item", Static).update("Nothing left to rate in this queue. Thank you! Escape leaves.")
        for pane in ("#plans", "#episode-events", "#event-detail"):
            self.query_one(pane).display = False
        self.events, self._episode = [], None
        self.redraw()

    def show(self, item: Item) -> None:
        self.item = item
        self.refresh_bindings()  # t and f are offered on episodes only
        self.dim = next((i for i, d in enumerate(self.queue.dimensions) if not self.queue.mine(item, d.id)), 0)
        self.query_one("#item", Static).update(item_text(item))
        plans = item.kind == "task"
        self.query_one("#plans").display = plans
        if plans:
            self.query_one("#naive", Static).update("[b]Naive plan[/b] (must fail)\n" + _steps(item.body["naive_plan"]))
            self.query_one("#solution", Static).update("[b]Solution[/b]\n" + _steps(item.body["solution"]))
        table = self.query_one("#episode-events", DataTable)
        table.display = item.kind == "episode"
        self.query_one("#event-detail").display = item.kind == "episode"
        self.events, self._episode, self._blinded = [], None, None
        if item.kind == "episode":
            table.clear()
            self.load_events(item.id)
        if item.kind == "verdict" and not item.body:
            self.load_verdict(item)
        self.redraw()

    WORKERS: ClassVar[dict[str, str]] = {"verdict": "load the verdict", "annotate-events": "load the episode"}

    class VerdictLoaded(Message):
        """A verdict item's body (None: the episode has no verdict to rate)."""

        def __init__(self, item: Item, body: dict[str, Any] | None) -> None:
            super().__init__()
            self.item, self.body = item, body

    class EventsLoaded(Message):
        """An episode item's events, with the suggested and the marked first error."""

        def __init__(
            self, events: list[Any], suggestion: tuple[int, str] | None, marked: int | None, record: Any
        ) -> None:
            super().__init__()
            self.events, self.suggestion, self.marked, self.record = events, suggestion, marked, record

    @work(thread=True, exclusive=True, group="verdict", exit_on_error=False)
    def load_verdict(self, item: Item) -> None:
        """The verdict's record and events, read off the UI thread; shown when they arrive."""
        store = self.queue.store
        record = store.episode(item.id)
        self.post_message(self.VerdictLoaded(item, verdict_body(record, store.events(item.id))))

    @on(VerdictLoaded)
    def _verdict_loaded(self, message: VerdictLoaded) -> None:
        self._show_verdict(message.item, message.body)

    def _show_verdict(self, item: Item, body: dict[str, Any] | None) -> None:
        if body is not None:
            item.body = body
        if self.item is item:  # the queue may have moved on meanwhile
            self.query_one("#item", Static).update(
                item_text(item) if body is not None else f"episode {item.id} has no verdict to rate"
            )

    def shows_controller(self) -> bool:
        """Whether the current dimension needs to know who held the seats."""
        return bool(self.queue.dimensions) and self.queue.dimensions[self.dim].shows_controller

    @work(thread=True, exclusive=True, group="annotate-events", exit_on_error=False)
    def load_events(self, episode_id: str) -> None:
        store = self.queue.store
        record = store.episode(episode_id)
        events = store.events(episode_id)
        mine = next(iter(store.labels(episode_id, self.queue.annotator)), None)
        marked = (mine or {}).get("first_error_seq")
        suggestion = suggested_first_error(store, episode_id, events)
        self.post_message(self.EventsLoaded(events, suggestion, marked, record))

    @on(EventsLoaded)
    def _events_loaded(self, message: EventsLoaded) -> None:
        self._show_events(message.events, message.suggestion, message.marked, message.record)

    def _show_events(
        self,
        events: list[Any],
        suggestion: tuple[int, str] | None = None,
        marked: int | None = None,
        record: Any = None,
    ) -> None:
        """The episode's events; the review's first-error localisation is offered as a suggestion
        (the cursor starts on it unless this annotator already marked a step)."""
        if self.item is None or (record is not None and record.id != self.item.id):
            return  # the queue moved on meanwhile
        self._episode = (record, events, suggestion)
        self._draw_events(cursor_on=marked or (suggestion[0] if suggestion else None))
        if suggestion and not marked:
            self.feedback(
                f"◇ suggested first wrong step: #{suggestion[0]} ({suggestion[1]}); f confirms it, "
                "or ↑↓ to another step and f; enter reads an event whole"
            )
        else:
            self.feedback("↑↓ move through the events, enter reads one whole, f marks the first wrong step")

    def _draw_events(self, cursor_on: int | None = None) -> None:
        """The episode's header and events, blind unless the current dimension needs the controllers."""
        if self._episode is None or self.item is None:
            return
        record, events, suggestion = self._episode
        blind = not self.shows_controller()
        self._blinded = blind
        if record is not None:
            labels = seat_labels(record.agent, record.user, events)
            if blind:
                events = blind_events(events, labels)
                seats = "agent" + (", user" if record.user else "")
                who = f"seats: {seats} (who held them is hidden while you rate)"
            else:
                who = f"agent {record.agent}" + (f", user {record.user}" if record.user else "")
            user = (record.scores or {}).get("user_verdict")
            said = f"\n{escape(verdicts.describe(user, by=not blind))}" if user else ""
            self.query_one("#item", Static).update(
                f"[b]Episode {record.id}[/b] of task {record.task_id}\n{who} · {record.status} · {record.steps} steps"
                + said
            )
        table = self.query_one("#episode-events", DataTable)
        row_now = table.cursor_row if cursor_on is None else None
        self.events = events
        table.clear()
        for e in events:
            what = summary(e)[:70]
            if suggestion and e.seq == suggestion[0]:
                what = f"◇ {what}"[:70]  # (the hint below says what ◇ marks: the call stays in sight at 80 columns)
            table.add_row(str(e.seq), e.type, what, e.actor)
        row = next((i for i, e in enumerate(events) if e.seq == cursor_on), row_now)
        if row is not None and table.row_count:
            table.move_cursor(row=min(row, table.row_count - 1))

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        """The highlighted event in full, with the state diff it caused, as in the replay."""
        if self.events and event.cursor_row < len(self.events):
            self.query_one("#event-detail", Static).update(detail(self.events[event.cursor_row]))

    @while_shown
    def redraw(self) -> None:
        done, total = self.queue.progress()
        bar = self.query_one("#progress", ProgressBar)
        bar.update(total=max(total, 1), progress=done)
        who = self.queue.annotator
        self.query_one("#status-bar", Static).update(
            f"annotating as {who} · {self.queue.kind} · {done} of {total} done"
            + (f" · item {self.item.id}" if self.item else "")
        )
        if self.item is None:
            self.query_one("#dimensions", Static).update("")
            self.query_one("#anchors", Static).update("")
            return
        if self._episode is not None and self._blinded != (not self.shows_controller()):
            self._draw_events()
        values = self.queue.dimensions[self.dim].values
        lines = [f"[b]Dimensions[/b] ({values[0]}-{values[-1]} rates, tab moves)"]
        for i, d in enumerate(self.queue.dimensions):
            mine = self.queue.mine(self.item, d.id)
            value = f"{mine['value']}" if mine else "·"
            mark = "▶" if i == self.dim else " "
            lines.append(f"{mark} {value}  {d.name}{' (optional)' if d.optional else ''}")
        self.query_one("#dimensions", Static).update("\n".join(lines))
        d = self.queue.dimensions[self.dim]
        mine = self.queue.mine(self.item, d.id)
        anchors = "\n".join(f"  {k}  {v}" for k, v in sorted(d.anchors.items()))
        comment = f"\n\nyour comment: {mine['comment']}" if mine and mine.get("comment") else ""
        words = escape(f"{d.question}\n\n{anchors}{comment}")  # (the lab's words and the annotator's)
        self.query_one("#anchors", Static).update(f"\n[b]{escape(d.name)}[/b]\n{words}")

    def feedback(self, text: str) -> None:
        self.query_one("#feedback", Static).update(Text(text))  # (it names dimensions and items)

    # -- actions ----------------------------------------------------------------------------
    def action_leave(self) -> None:
        """Home; or, in `sttui annotate` (the app was opened for rating), out of the app."""
        if getattr(self.app, "_annotate_request", None):
            self.app.exit()
        else:
            self.app.pop_to_home()

    def action_rate(self, value: int) -> None:
        if self.item is None:
            return
        d = self.queue.dimensions[self.dim]
        if value not in d.values:
            self.feedback(f"{d.name} takes {', '.join(map(str, d.values))}")
            return
        mine = self.queue.mine(self.item, d.id)
        self.queue.rate(self.item, d.id, value, mine.get("comment") if mine else None)
        self.done_here.append((self.item, self.dim))
        self.feedback(f"{d.name}: {value} (saved)")
        if (self.queue.done(self.item) and self.dim == len(self.queue.dimensions) - 1) or (
            self.queue.done(self.item) and all(self.queue.mine(self.item, x.id) for x in self.queue.dimensions)
        ):
            self.advance()
            return
        self.dim = min(self.dim + 1, len(self.queue.dimensions) - 1)
        self.redraw()

    def action_dimension(self, delta: int) -> None:
        if self.item is not None:
            self.dim = (self.dim + delta) % len(self.queue.dimensions)
            self.redraw()

    def action_arrow(self, delta: int) -> None:
        """Up or down: the episode's events when one is shown, else the dimensions."""
        table = self.query_one("#episode-events", DataTable)
        if self.item is None or self.item.kind != "episode" or not table.row_count:
            if abs(delta) == 1:
                self.action_dimension(delta)
            elif abs(delta) == 20:  # page keys scroll the item's text, as they did
                pane = self.query_one("#item-pane", VerticalScroll)
                pane.scroll_page_down() if delta > 0 else pane.scroll_page_up()
            else:
                pane = self.query_one("#item-pane", VerticalScroll)
                pane.scroll_end() if delta > 0 else pane.scroll_home()
            return
        table.move_cursor(row=max(0, min(table.cursor_row + delta, table.row_count - 1)))

    def action_read_event(self) -> None:
        """The highlighted event whole, in a reader: at 80×24 its row is cut at the edge and
        the pane under the table is out of sight."""
        table = self.query_one("#episode-events", DataTable)
        if self.item is None or self.item.kind != "episode" or not self.events:
            return
        event = self.events[min(table.cursor_row, len(self.events) - 1)]
        self.app.push_screen(Reader(f"Episode {self.item.id}, event #{event.seq}", detail(event)))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        """Enter on the focused table reads the event, as enter elsewhere on the screen does."""
        event.stop()
        self.action_read_event()

    def action_comment(self) -> None:
        if self.item is None:
            return
        d = self.queue.dimensions[self.dim]
        mine = self.queue.mine(self.item, d.id)
        if not mine:
            self.feedback("rate this dimension first, then comment on it")
            return
        item = self.item

        def save(text: str | None) -> None:
            if text is not None:
                self.queue.rate(item, d.id, mine["value"], text.strip() or None)
                self.feedback("comment saved")
                self.redraw()

        self.app.push_screen(EditValue(f"Comment on {d.name}", mine.get("comment") or ""), save)

    def action_skip(self) -> None:
        if self.item is not None:
            self.skipped.add(self.item.id)
            self.feedback(f"skipped {self.item.id}")
            self.advance()

    def action_undo(self) -> None:
        """Take back the last rating made here (even on an earlier item), and return to it."""
        if not self.done_here:
            self.feedback("nothing to undo")
            return
        item, dim = self.done_here.pop()
        d = self.queue.dimensions[dim]
        self.queue.undo(item, d.id)
        if self.item is None or item.id != self.item.id:
            self.show(item)
        self.dim = dim
        mine = self.queue.mine(item, d.id)
        self.feedback(f"{d.name}: undone" + (f", back to {mine['value']}" if mine else ", no rating now"))
        self.redraw()

    def action_tags(self) -> None:
        if self.item is None or self.item.kind != "episode":
            self.feedback("failure tags are for episodes")
            return
        item = self.item
        current = next(iter(self.queue.store.labels(item.id, self.queue.annotator)), None)

        def save(result: tuple[list[str], str] | None) -> None:
            if result is not None:
                tags, other = result
                self.queue.store.label_episode(
                    self.queue.annotator, item.id, tags, other or None, current["first_error_seq"] if current else None
                )
                self.feedback(f"tags saved: {', '.join(tags) or 'none'}")

        self.app.push_screen(Tags(current["tags"] if current else [], (current or {}).get("other") or ""), save)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Failure tags and the first wrong step are marks on episodes: not offered on tasks."""
        if action in ("tags", "first_error"):
            return self.item is not None and self.item.kind == "episode"
        return True

    def action_first_error(self) -> None:
        if self.item is None or self.item.kind != "episode" or not self.events:
            self.feedback("pick the first wrong step in an episode's event list")
            return
        event = self.events[self.query_one("#episode-events", DataTable).cursor_row]
        if not is_agent_step(event):
            self.feedback(
                f"#{event.seq} is {event.type.replace('_', ' ')}, not an agent step: pick the agent's call or "
                "message that went wrong"
            )
            return
        seq = event.seq
        current = next(iter(self.queue.store.labels(self.item.id, self.queue.annotator)), None)
        self.queue.store.label_episode(
            self.queue.annotator,
            self.item.id,
            current["tags"] if current else [],
            current["other"] if current else None,
            seq,
        )
        self.feedback(f"first wrong step: #{seq}")


_AGENT_STEPS = ("tool_call", "probe", "batch_submitted", "assessment")


def is_agent_step(event: Any) -> bool:
    """Whether an event is one of the agent's steps (what a first wrong step can be)."""
    p = event.payload or {}
    return (
        event.type in _AGENT_STEPS
        or (event.type == "message" and p.get("from") == "agent")
        or (event.type == "episode_ended" and p.get("by") == "agent")
    )


def suggested_first_error(store: Any, episode_id: str, events: list[Any]) -> tuple[int, str] | None:
    """(event seq, why) of the milestone review's first error: from the finished record, or
    rebuilt from the events for an episode that has none stored."""
    record = store.episode(episode_id)
    stored = (record.scores or {}).get("review") if record is not None else None
    if stored is not None:
        first = stored.get("first_error")
    else:
        episode, _why = reviewed(store, record, events) if record is not None else (None, "")
        first = episode.review.first_error() if episode is not None else None
    if not first:
        return None
    seq = seq_of_step(events, first["step"])
    return (seq, first["why"]) if seq is not None else None
