"""Playing a dynamic tool-use task in the agent seat: the conversation, the tools, the call
entry, the header, the human clock, and the god view for task authors.

Layout: the conversation beside the tool pane; the god view, when open, takes the tool
pane's place at half the width (a class on the screen, set by the ``god`` reactive, and the
stylesheet decide). The newest tool result is unfolded, older ones fold to their summary;
every result wraps to the pane's width, and F4 unfolds them all, so every character a model
in the seat reads is on screen (tests/test_fidelity.py)."""

from __future__ import annotations

from typing import Any

from rich.markup import escape
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.notifications import SeverityLevel
from textual.reactive import reactive
from textual.widgets import OptionList, Static, Tree
from textual.widgets.option_list import Option

from sttui.controllers.human import HumanController
from sttui.core.callsyntax import entry_action
from sttui.core.checklist import evaluate_checklist
from sttui.core.episode import Episode
from sttui.core.state import canonical
from sttui.running.session import PlaySession
from sttui.tui.footer import Footer
from sttui.tui.handoff import SeatScreen
from sttui.tui.lifecycle import gone, while_shown
from sttui.tui.modals import Confirm, ToolForm, type_words
from sttui.tui.review import frontier_text, signal_line
from sttui.tui.toasts import withdraw
from sttui.tui.widgets import CallEntry, CallSuggester, ResultFold, StatusLine, Transcript, transcript_item

MAX_REFUSED_TEXT = 10_000  # of a refused entry, as recorded (a pasted page is not kept whole)
LIVE_ITEMS = 30  # transcript items kept as widgets; older ones fold into a note
TRIM_BATCH = 10  # the older items leave together once this many are over: one removal per ten items


def status_line(session: PlaySession) -> Text:
    ep = session.episode
    parts: list[Any] = []
    if isinstance(ep, Episode):
        if session.in_study or (session.people and not session.peeked):
            # a person in a seat is told what a model there is told: neither the simulated time
            # nor the step budget (outside a study the god view, recorded, shows them here)
            parts += [("step ", "dim"), str(ep.steps), "  "]
        else:
            parts += [("sim ", "dim"), (ep.now.strftime("%Y-%m-%d %H:%M"), "bold"), "  "]
            parts += [("step ", "dim"), f"{ep.steps}/{ep.task.max_steps}", "  "]
        if ep.ended is not None:
            parts += [("ended ", "bold"), ep.ended["reason"], "  "]
    parts += [("agent ", "dim"), session.agent.name, "  "]
    if session.oversight:
        parts += [("oversight ", "dim"), ("on", "bold"), "  "]
    if session.user is not None:
        parts += [("user ", "dim"), session.user.name, "  "]
    if session.clock is not None:
        secs = int(session.clock.active_seconds)
        lent = any(not session.holds(seat) for seat in session.people)
        if session.clock.running:
            state = ("▶ running", "bold green")
        elif lent:
            state = ("⏸ paused while a model holds your seat", "bold yellow")
        else:
            state = ("⏸ paused (F5 starts)", "bold yellow")
        parts += [("clock ", "dim"), state, f" {secs // 60:02d}:{secs % 60:02d}"]
        if session.time_limit is not None:  # a study's limit on this clock, in sight all along
            limit = int(session.time_limit[0])
            parts += [("/", "dim"), f"{limit // 60:02d}:{limit % 60:02d}"]
        parts += ["  "]
    if session.peeked:
        parts += [("god view used: not a clean baseline", "bold red")]
    line = Text.assemble(*parts)
    line.rstrip()  # the parts' gaps are two spaces (where StatusLine may break it), none at the end
    return line


def state_tree(tree: Tree[Any], data: Any) -> None:
    tree.clear()

    def add(node: Any, value: Any) -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                if isinstance(v, dict | list) and v:
                    add(node.add(str(k)), v)
                else:
                    node.add_leaf(f"{k}: {v!r}")
        elif isinstance(value, list):
            for i, v in enumerate(value):
                if isinstance(v, dict | list) and v:
                    add(node.add(f"[{i}]"), v)
                else:
                    node.add_leaf(f"[{i}] {v!r}")

    add(tree.root, data)
    tree.root.expand()


class PlayScreen(SeatScreen):
    """A human in the agent seat of an stt episode (which a model can take over and give back)."""

    oversees = True
    ENTRY = "#entry"

    HELP_TITLE = "playing the agent seat"
    # The footer shows the clock and the keys that end or hand over the episode first, so they
    # fit at 80 columns; the rest are in the help (F1) and the command palette.
    BINDINGS = [
        Binding("f5", "toggle_clock", "Clock", id="play.clock"),
        Binding("f8", "end_episode", "End", id="play.end"),
        Binding("f2", "god_view", "God view", show=False, id="play.god_view"),
        Binding("f3", "open_form", "Form for a tool", show=False, id="play.form"),
        Binding("ctrl+o", "toggle_fold", "Fold/unfold the newest result", show=False, id="play.fold"),
        Binding("f4", "unfold_all", "Unfold every result (again: fold the older)", show=False, id="play.unfold"),
        Binding("f9", "show_earlier", "Show earlier items", show=False, id="play.earlier"),
        *SeatScreen.HANDOFF_BINDINGS,
        Binding("f7", "toggle_oversight", "Oversight", id="play.oversight"),
        Binding("escape", "leave", "Leave", id="play.leave"),
    ]

    god: reactive[bool] = reactive(False, toggle_class="-god")
    """The god view is open (the stylesheet shows it in the tool pane's place)."""

    class ReviewSignal(Message):
        """The milestone review raised a signal (stagnation, a minefield, a predecessor gap)."""

        def __init__(self, payload: dict[str, Any]):
            super().__init__()
            self.payload = payload

    def __init__(self, session: PlaySession, human: HumanController):
        super().__init__()
        self.session = session
        self.human = human
        self.episode: Episode = session.episode  # type: ignore[assignment]  # the play screen plays stt
        self._shown = 0  # view items on screen (or folded into the note of earlier ones)
        self._pending = 0  # view items built, being mounted
        self._hidden = 0
        self._live_limit = LIVE_ITEMS
        self._sent: str | None = None  # the entry's text sent, until its call is shown
        self._god_drawn: dict[str, Any] = {}  # what each part of the god view shows now
        self.god = False

    def compose(self) -> ComposeResult:
        yield StatusLine(status_line(self.session), id="status-bar")
        with Horizontal(id="play-main"):
            yield Transcript(id="conversation")
            with Vertical(id="side"):
                yield Static(f"[b]Tools[/b] ({len(self.episode.tools)})  · F3 form", classes="pane-title")
                yield OptionList(*[Option(name, id=name) for name in self.episode.tools], id="tools")
                with VerticalScroll(id="tool-detail-pane"):
                    yield Static("", id="tool-detail")
            yield from self.compose_debug()
            with VerticalScroll(id="god"):
                yield Static("[b]God view[/b]  F2 closes", classes="pane-title")
                yield Static("", id="god-checklist")
                yield Static("", id="god-triggers")
                yield Static("", id="god-frontier")
                yield Tree("state", id="god-state")
        yield Static("", id="feedback", markup=False)  # (a problem quotes what was typed)
        yield CallEntry(
            placeholder="tool(arg=value, …)   ·   > message to the user   ·   tab completes",
            suggester=CallSuggester(self.episode.tools),
            id="entry",
        )
        yield Footer()

    def on_mount(self) -> None:
        self.start_episode("#entry")
        self.refresh_view()

    def on_episode_event(self, event: Any) -> None:
        super().on_episode_event(event)
        if event.type == "stop_signal":
            self.post_message(self.ReviewSignal(event.payload))

    def on_play_screen_review_signal(self, message: ReviewSignal) -> None:
        """Signals are warnings in play, never stops. They go to whoever may see the review: the
        god view's user, or a person watching another controller in the agent seat; a person
        in the agent seat without the god view gets what a model would get: nothing."""
        if self.god or not isinstance(self.session.agent, HumanController):
            severity: SeverityLevel = "error" if message.payload.get("stops") else "warning"
            self.notify(signal_line(message.payload), title="Milestone review", severity=severity, timeout=8)

    def on_seat_screen_changed(self, _message: SeatScreen.Changed) -> None:
        self.refresh_view()

    @while_shown
    def refresh_view(self) -> None:
        """Show what the episode added since the last redraw. New transcript items are built and
        mounted (``_place``); those on screen stay as they are."""
        new = self.episode.view[self._shown + self._pending :]
        if new:
            self._pending += len(new)
            self.run_worker(self._place(new), group="transcript", exit_on_error=False)
        else:
            self._redraw_rest()

    async def _place(self, new: list[dict[str, Any]]) -> None:
        """Mount the widgets of ``new`` items under one batch: the screen is laid out once for
        the fold, the mount, the emptied entry, the removal of older items and the status line,
        not once for each (a layout costs more than the rest of a key press)."""
        conversation = self.query_one("#conversation", VerticalScroll)
        going_on = self._shown > 0
        try:
            async with conversation.batch():
                if gone(self) or gone(conversation):
                    return
                # the result that was newest folds; the newest result is built unfolded, so no
                # widget changes twice in one event
                results = [i for i, item in enumerate(new) if item["type"] == "tool_result"]
                fills = self._fills_pane(conversation, len(new), fold=bool(results))
                if results:
                    self.fold_results(conversation, keep_last=False)
                widgets = [
                    transcript_item(item, collapsed=False if results and i == results[-1] else None)
                    for i, item in enumerate(new)
                ]
                for widget in widgets[results[0] : results[-1]] if results else []:
                    if isinstance(widget, ResultFold):
                        widget.collapsed = True
                # Anchored at the end while the conversation fills its pane: new items are laid
                # out in sight in the frame that mounts them, not painted where they land and then
                # scrolled to in a second frame. (Not otherwise: an anchored pane that is not full
                # sits its items at the bottom.)
                conversation.anchor(fills)
                await conversation.mount_all(widgets)
                self._shown += len(new)
                self._clear_sent()
                await self._trim(conversation)
                self._redraw_rest()
        finally:
            self._pending -= len(new)
        self.call_after_refresh(self._scroll_to_new, widgets[0])
        if going_on and any(item["type"] != "notice" for item in new):
            # the conversation has moved on past a trigger's notice, which it shows: at 80x24 its
            # toast lay over the newest lines and the entry (the user's reply to the next message)
            withdraw(self.app, lambda n: n.title == "Notice")
        for item in new if going_on else ():  # (under a long result it lands below the fold: said
            if item["type"] == "notice":  # where it is seen too; not again for a resumed episode's past)
                self.notify(str(item["text"]), title="Notice", timeout=20, markup=False)

    def _redraw_rest(self) -> None:
        """The status line, the debug pane, the session's notices and the god view."""
        self._tick()
        self.refresh_debug()
        self.show_notices()
        if self.god:
            self.refresh_god()
        if self.session.writer.errors:
            self.notify(f"recording failed: {self.session.writer.errors[-1]}", severity="error", timeout=10)
            self.session.writer.errors.clear()

    def _fills_pane(self, conversation: VerticalScroll, adding: int, fold: bool) -> bool:
        """Whether the conversation still fills its pane after ``adding`` items, once the
        results on screen fold (``fold``) and older items leave (``_trim``); counted low: a
        margin more for each item that leaves."""
        height = conversation.virtual_size.height
        if fold:
            height -= sum(w.outer_size.height - 1 for w in _results(conversation) if not w.collapsed)
        items = [w for w in conversation.children if w.id != "earlier"]
        extra = len(items) + adding - self._live_limit
        if extra >= TRIM_BATCH:
            height -= sum(w.outer_size.height + 1 for w in items[:extra])
        return height > conversation.scrollable_content_region.height

    @while_shown
    def _scroll_to_new(self, first: Any) -> None:
        """The end of the conversation; but new items taller than the view (a long result
        unfolded) are shown from their start, the call and its result's summary first. Once
        the pane is full it is anchored at the end, so the end is in sight already and
        nothing moves."""
        conversation = self.query_one("#conversation", VerticalScroll)
        if not first.is_attached:
            return
        top = first.virtual_region.y
        if conversation.virtual_size.height - top > conversation.scrollable_content_region.height:
            conversation.scroll_to(y=top, animate=False)  # lets go of the anchor until the next item
        else:
            conversation.scroll_end(animate=False)

    @staticmethod
    def fold_results(conversation: VerticalScroll, keep_last: bool = True) -> None:
        """The newest tool result unfolded (or, ``keep_last`` false, none: a newer one is
        coming), the older ones folded to their one-line summary."""
        results = _results(conversation)
        for widget in results[:-1] if keep_last else results:
            widget.collapsed = True
        if results and keep_last:
            results[-1].collapsed = False

    async def _trim(self, conversation: VerticalScroll) -> None:
        """Keep the newest items on screen; layout cost grows with every widget kept. They leave
        TRIM_BATCH at a time: each removal re-lays out the screen.

        Older items stay in the record and in the replay; F9 brings them back here."""
        items = [w for w in conversation.children if w.id != "earlier"]
        extra = len(items) - self._live_limit
        if extra < TRIM_BATCH:
            return
        await conversation.remove_children(items[:extra])  # one removal, not one per widget
        self._hidden += extra
        note = f"↑ {self._hidden} earlier item(s) not shown: F9 shows more (all are in the record and the replay)"
        earlier = conversation.query("#earlier")
        if earlier:
            earlier.first(Static).update(note)
        else:
            await conversation.mount(Static(note, id="earlier", classes="muted"), before=0)

    def action_show_earlier(self) -> None:
        conversation = self.query_one("#conversation", VerticalScroll)
        if not self._hidden:
            return
        start = max(0, self._hidden - LIVE_ITEMS)
        older = [transcript_item(item) for item in self.episode.view[start : self._hidden]]
        self._live_limit += len(older)
        self._hidden = start
        earlier = conversation.query("#earlier").first(Static)
        conversation.mount_all(older, after=earlier)
        if start:
            earlier.update(f"↑ {start} earlier item(s) not shown: F9 shows more")
        else:
            earlier.remove()

    # -- the entry --------------------------------------------------------------------
    def _clear_sent(self) -> None:
        """Empty the entry of the call just sent, in the frame that shows it; what the person
        has typed since stays (typed after the sent text, it is all that is left: a hurried
        next call is not joined to the last one)."""
        if self._sent is not None:
            entry = self.query_one("#entry", CallEntry)
            sent, value = self._sent, entry.value
            if value.startswith(sent):
                cursor = entry.cursor_position
                entry.value = value[len(sent) :].lstrip()
                entry.cursor_position = max(0, min(len(entry.value), cursor - (len(value) - len(entry.value))))
            self._sent = None

    def feedback(self, text: str, error: bool = True) -> None:
        widget = self.query_one("#feedback", Static)
        if str(widget.render()) != text:
            widget.update(text)
        widget.set_class(error, "error")

    @on(CallEntry.Submitted, "#entry")
    def submit(self, event: CallEntry.Submitted) -> None:
        text = event.value.strip()
        if not text:
            return
        problem = self.not_now()
        action = None
        if problem is None:
            problem, action = entry_action(text, self.episode.tools)
            if problem:  # kept in the entry to fix, and recorded, as a model's unusable answer is
                self.session.meta(
                    "input_refused", self.human.name, {"reason": problem, "text": text[:MAX_REFUSED_TEXT]}
                )
        if problem or action is None:
            self.feedback(problem or "")
            return
        self.feedback("")
        self._sent = event.value  # the entry empties when the call is shown: one re-layout, not two
        self.human.submit(action)

    def not_now(self) -> str | None:
        """Why nothing typed can be taken now (the episode, the clock, the seat, the turn)."""
        ep = self.episode
        if ep.ended is not None:
            return "the episode has ended"
        if self.session.clock is not None and not self.session.clock.running:
            return "the clock is paused: press F5 to start it (your time is only counted while it runs)"
        if self.session.seats["agent"] is not self.human:
            return f"the agent seat is held by {self.session.agent.name}: F11 takes it back"
        if ep.turn != "agent" or not self.human.waiting:
            return "wait: the user is replying"
        return None

    # -- actions ------------------------------------------------------------------------
    @on(OptionList.OptionHighlighted, "#tools")
    def show_tool(self, event: OptionList.OptionHighlighted) -> None:
        spec = self.episode.tools[str(event.option.id)]
        params = spec.parameters.get("properties", {})
        required = set(spec.parameters.get("required", []))
        lines = [f"[b]{escape(spec.name)}[/b] ({spec.kind})", escape(spec.description), ""]
        for name, schema in params.items():  # (a task's words, shown as written)
            opt = "" if name in required else ", optional"
            about = escape(f"({type_words(schema)}{opt}) {schema.get('description', '')}")
            lines.append(f"• [b]{escape(name)}[/b] {about}")
        self.query_one("#tool-detail", Static).update("\n".join(lines))

    @on(OptionList.OptionSelected, "#tools")
    def pick_tool(self, event: OptionList.OptionSelected) -> None:
        entry = self.query_one("#entry", CallEntry)
        entry.value = f"{event.option.id}("
        entry.cursor_position = len(entry.value)
        entry.focus()

    def action_open_form(self) -> None:
        entry = self.query_one("#entry", CallEntry)
        name = entry.value.split("(", 1)[0].strip()
        tools = self.query_one("#tools", OptionList)
        if name not in self.episode.tools and tools.highlighted is not None:
            name = str(tools.get_option_at_index(tools.highlighted).id)
        if name not in self.episode.tools:
            self.feedback("type a tool name, or highlight one in the tool pane, then press F3")
            return

        def fill(text: str | None) -> None:
            if text:
                entry.value = text
                entry.cursor_position = len(text)
            entry.focus()

        self.app.push_screen(ToolForm(self.episode.tools[name]), fill)

    def action_toggle_fold(self) -> None:
        results = list(self.query(ResultFold))
        if results:
            results[-1].action_toggle_fold()

    def action_unfold_all(self) -> None:
        """Every result on screen unfolded (F9 brings back the earlier ones); pressed again
        when none is folded, the older ones fold back to their summaries."""
        results = list(self.query(ResultFold))
        if any(widget.collapsed for widget in results):
            for widget in results:
                widget.collapsed = False
        else:
            self.fold_results(self.query_one("#conversation", VerticalScroll))
        if results:
            self.call_after_refresh(self._scroll_to_new, results[-1])  # the newest result in sight, from its title

    def action_god_view(self) -> None:
        if self.god:
            self.god = False
            return

        def open_it(yes: bool | None) -> None:
            if yes:
                self.session.peek()
                self.god = True
                self.refresh_god()
                self._tick()

        if self.session.peeked or not self.session.humans():
            open_it(True)
        else:
            self.app.push_screen(
                Confirm(
                    "Open the god view? It shows the hidden state and triggers, is recorded, "
                    "and marks this episode as not a clean baseline.",
                    "Open it",
                    "Cancel",
                ),
                open_it,
            )

    def refresh_god(self) -> None:
        ep = self.episode
        fired = ep.triggers.fired
        lines = ["[b]Triggers[/b]"]
        diffs = {e.payload["trigger"]: e.payload["diff"] for e in ep.events if e.type == "trigger_fired"}
        for trig in ep.task.triggers:
            mark = "[green]fired[/green]" if trig.id in fired else "[yellow]pending[/yellow]"
            lines.append(f"{mark} {escape(trig.id)} ({trig.when.kind}{', announced' if trig.announce else ', silent'})")
            for d in diffs.get(trig.id, [])[:6]:
                lines.append(escape(f"    {d['op']} {d['path']}: {d.get('old', '')!r} → {d.get('new', '')!r}"))
        self._god_update("#god-triggers", "\n".join(lines))
        frontier = self.query_one("#god-frontier", Static)
        frontier.display = ep.review is not None
        if ep.review is not None:
            self._god_update("#god-frontier", frontier_text(ep.review, state=ep.env.state))
        if ep.task.level == "impossible":
            check = "[b]Checklist[/b] (goal state; the judge decides impossible tasks)"
        else:
            check = "[b]Checklist[/b] (live)"
        items = [
            f"{'[green]✓[/green]' if i.passed else '[red]✗[/red]'} {escape(f'{i.id}: {i.detail}')}"
            for i in evaluate_checklist(ep)
        ]
        self._god_update("#god-checklist", "\n".join([check, *items]))
        state = canonical(ep.env.state)
        if self._god_drawn.get("#god-state") != state:  # a rebuilt tree repaints the whole pane
            self._god_drawn["#god-state"] = state
            state_tree(self.query_one("#god-state", Tree), ep.env.state)

    def _god_update(self, selector: str, content: Any) -> None:
        """A part of the god view updated only when it changed: each update re-lays out the
        screen, and the god view is redrawn on every event while it is open."""
        key = content.plain if isinstance(content, Text) else content
        if self._god_drawn.get(selector) != key:
            self._god_drawn[selector] = key
            self.query_one(selector, Static).update(content)

    def action_end_episode(self) -> None:
        if self.episode.ended is not None:
            return

        def end(yes: bool | None) -> None:
            if yes:  # a model holding the seat gives it back first; the user's reply under way comes first
                self.session.end_now()

        self.app.push_screen(
            Confirm("End the episode now? It will be scored as it stands.", "End it", "Keep going"), end
        )


def _results(conversation: VerticalScroll) -> list[ResultFold]:
    """The results in the conversation, oldest first: its own children (a transcript item is
    never nested), read without a CSS query, which walks and matches every node at each press."""
    return [w for w in conversation.children if isinstance(w, ResultFold)]
