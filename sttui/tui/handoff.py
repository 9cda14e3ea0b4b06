"""What the play screens share (``SeatScreen``): the person's clock, lending the seat to a
model (F10) and taking it back (F11), oversight reviews, the model's messages (F12), what a
model is doing right now, and leaving a running episode (escape).

The seat changes themselves live in ``sttui.running.session``; this module only asks for them.

The model library (litellm) takes seconds to import. It is imported in a thread worker as
soon as a model seat is likely: when a play screen opens and the config names a model
(``handoff_model`` or ``models``), or else when F10's "which model?" dialog opens. Opening
home and playing without a configured model never imports it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from rich.markup import escape
from rich.text import Text
from textual import events, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.reactive import reactive
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, Input, Label, Static
from textual.worker import WorkerCancelled, WorkerFailed

from sttui.config import ModelAlias
from sttui.controllers.oversight import Decision
from sttui.core.actions import Action, Say, ToolCall, action_payload
from sttui.core.callsyntax import CallSyntaxError, format_call, parse_call
from sttui.core.schema import check_args
from sttui.tui.lifecycle import freeze_heap, gone, release_heap, while_shown
from sttui.tui.screen import SttuiScreen

if TYPE_CHECKING:
    from sttui.controllers.human import HumanController
    from sttui.running.session import PlaySession


def describe(action: Action) -> str:
    if isinstance(action, ToolCall):
        return format_call(action.tool, action.args)
    if isinstance(action, Say):
        return f"> {action.text}"
    return f"{type(action).__name__} {json.dumps(action_payload(action))}"


# What a study's participant cannot do (``StudyApp.barred``): lend their seat to a model, review
# one, or open the god view; each would make their episode something other than a human's own.
STUDY_BARRED = ("hand_to_model", "toggle_oversight", "god_view")


class ReviewCall(ModalScreen[Decision]):
    """A model's proposed action: approve (a), edit (e) or reject with a reason (r)."""

    DEFAULT_CSS = """
    ReviewCall { align: center middle; }
    ReviewCall > VerticalScroll { width: 76; max-width: 95%; height: auto; max-height: 90%;
                                  border: thick $primary; padding: 1 2; background: $surface; }
    ReviewCall .question { text-style: bold; margin-bottom: 1; }
    ReviewCall #proposed { margin-bottom: 1; }
    ReviewCall Horizontal { height: auto; }
    ReviewCall Button { margin: 1 1 0 0; min-width: 14; }
    """
    BINDINGS = [
        Binding("a", "approve", "Approve", id="review.approve"),
        Binding("e", "edit", "Edit", id="review.edit"),
        Binding("r", "reject", "Reject", id="review.reject"),
        Binding("f11", "take_back", "Take seat back", id="review.take_back"),
        Binding("escape", "back", "Back to the choice", id="review.back"),
    ]

    def __init__(self, proposed: Action, context: str, tools: dict[str, Any] | None):
        super().__init__()
        self.proposed, self.context, self.tools = proposed, context, tools
        self.mode = "choose"

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Label("The model proposes", classes="question")
            yield Static(describe(self.proposed), id="proposed", markup=False)  # (the model's words, as written)
            yield Static(self.context, classes="muted", id="review-context")
            yield Input(id="review-input", placeholder="")
            yield Static("", id="review-error", classes="error")
            with Horizontal():
                yield Button("Approve (a)", variant="success", id="approve")
                yield Button("Edit (e)", id="edit")
                yield Button("Reject (r)", variant="error", id="reject")

    def on_mount(self) -> None:
        self.query_one("#review-input").display = False

    def on_button_pressed(self, event: Button.Pressed) -> None:
        getattr(self, f"action_{event.button.id}")()

    def action_approve(self) -> None:
        self.dismiss(Decision("approve"))

    def action_take_back(self) -> None:
        self.dismiss(Decision("withdrawn"))
        self.app.call_later(self.app.screen.run_action, "take_back")

    def _ask(self, mode: str, placeholder: str, value: str, help_text: str) -> None:
        self.mode = mode
        box = self.query_one("#review-input", Input)
        box.display = True
        box.placeholder = placeholder
        box.value = value
        box.focus()
        self.query_one("#review-context", Static).update(help_text)

    def action_edit(self) -> None:
        self._ask(
            "edit",
            "the call to make instead: tool(arg=value, …) or > message",
            describe(self.proposed),
            "Enter runs your version, recorded as yours (with the model's proposal beside it); escape goes back.",
        )

    def action_reject(self) -> None:
        self._ask(
            "reject",
            "why? (goes back to the model)",
            "",
            "Enter sends the reason to the model, which proposes again; escape goes back.",
        )

    def action_back(self) -> None:
        if self.mode == "choose":
            return
        self.mode = "choose"
        self.query_one("#review-input", Input).display = False
        self.query_one("#review-error", Static).update("")
        self.query_one("#review-context", Static).update(self.context)
        self.query_one("#approve", Button).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        if self.mode == "reject":
            self.dismiss(Decision("reject", reason=text))
            return
        if text.startswith(">"):
            self.dismiss(Decision("edit", Say(text[1:].strip())))
            return
        try:
            name, args = parse_call(text)
        except CallSyntaxError as exc:
            self.query_one("#review-error", Static).update(f"not a call: {escape(str(exc))}")
            return
        if self.tools is not None:
            problem = None if name in self.tools else f"no tool '{name}'"
            problem = problem or check_args(args, self.tools[name].parameters, name)
            if problem:
                self.query_one("#review-error", Static).update(escape(problem))
                return
        self.dismiss(Decision("edit", ToolCall(name, args)))


class LeaveDialog(ModalScreen[str | None]):
    """Escape on a play screen: suspend (the episode stays running and resumable), end it
    (the agent seat only: scored as it stands), or cancel."""

    DEFAULT_CSS = """
    LeaveDialog { align: center middle; }
    LeaveDialog > Vertical { width: 64; max-width: 95%; height: auto; border: thick $primary;
                             padding: 1 2; background: $surface; }
    LeaveDialog .question { text-style: bold; margin-bottom: 1; }
    LeaveDialog Horizontal { height: auto; }
    LeaveDialog Button { margin: 1 1 0 0; min-width: 12; }
    """
    BINDINGS = [
        Binding("s", "choose('suspend')", "Suspend", id="leave.suspend"),
        Binding("e", "choose('end')", "End", id="leave.end"),
        Binding("escape,c", "choose('')", "Cancel", id="leave.cancel"),
    ]

    def __init__(self, can_end: bool, end_hint: str = "", resume_hint: str = ""):
        super().__init__()
        self.can_end = can_end
        self.end_hint = end_hint  # how the episode ends on this screen, when End is not offered
        # where a suspended episode is taken up again (the app says: home, or the study's screen)
        self.resume_hint = resume_hint or "`sttui resume` goes on with it"

    def compose(self) -> ComposeResult:
        end = "End scores the episode as it stands. " if self.can_end else self.end_hint
        with Vertical():
            yield Label("Leave this episode?", classes="question")
            yield Static(
                f"Suspend keeps it running: {self.resume_hint}. " + end + "Cancel goes back to it.",
                classes="muted",
            )
            with Horizontal():
                yield Button("Suspend (s)", variant="primary", id="leave-suspend")
                if self.can_end:
                    yield Button("End (e)", variant="warning", id="leave-end")
                yield Button("Cancel (esc)", id="leave-cancel")

    def on_mount(self) -> None:
        self.query_one("#leave-suspend", Button).focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return self.can_end or parameters != ("end",)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        choice = str(event.button.id).removeprefix("leave-")
        self.action_choose("" if choice == "cancel" else choice)

    def action_choose(self, choice: str) -> None:
        self.dismiss(choice or None)


class DebugPanel(Static):
    """The exact message list the model in the seat received last (or the model that held the
    seat last, once the person has taken it back)."""

    def show(self, holder: Any, last: Any = None) -> None:
        messages = getattr(holder, "last_messages", None)
        source, note = holder, ""
        if not messages and last is not None and getattr(last, "last_messages", None):
            source, messages = last, last.last_messages
            note = " (it held this seat before you took it back)"
        if not messages:
            self.update("[b]Debug[/b]: no model has been asked yet in this seat.")
            return
        self.update(  # (the messages quote the task, the people and the model: shown as written)
            Text.assemble(
                ("Debug", "bold"),
                f": the {len(messages)} messages {source.name} received last{note}\n",
                json.dumps(messages, indent=1, ensure_ascii=False)[:20000],
            )
        )


class ModelActivity(Static):
    """One line while a model call is in flight: ``model:x thinking… 12 s``; hidden otherwise."""

    DEFAULT_CSS = """
    ModelActivity { height: 1; padding: 0 1; color: $warning; text-style: bold; }
    ModelActivity.-idle { display: none; }
    """
    text: reactive[str] = reactive("", layout=True)

    def __init__(self, session: PlaySession, seat: str):
        super().__init__("", id="model-activity", classes="-idle")
        self.session, self.seat = session, seat

    def on_mount(self) -> None:
        self.set_interval(0.5, self.poll)

    @while_shown
    def poll(self) -> None:
        from sttui.controllers.model import litellm_ready

        parts = []
        for seat in ("agent", "user"):
            holder = self.session.seats[seat]
            since = getattr(holder, "thinking_since", None)
            if holder is None or since is None:
                continue
            mine = seat == self.seat and seat in self.session.people
            who = holder.name if mine else f"{holder.name} ({seat})"
            line = f"{who} thinking… {int(time.monotonic() - since)} s"
            if not litellm_ready():
                line += " · loading the model library"
            if mine:
                line += " · F11 takes it back"
            parts.append(line)
        self.text = "   ".join(parts)

    def watch_text(self, text: str) -> None:
        self.update(text)
        self.set_class(not text, "-idle")


class SeatScreen(SttuiScreen[None]):
    """A screen where a person holds a seat of a running episode (agent or user)."""

    WORKERS: ClassVar[dict[str, str]] = {
        "model-library": "load the model library",
        "episode": "go on with the episode (it stays in the record; resume it from home)",
        "leave": "suspend the episode",
        "transcript": "show the episode's new items",
    }

    HANDOFF_BINDINGS = [
        Binding("f10", "hand_to_model", "Hand seat to model", id="handoff.give"),
        Binding("f11", "take_back", "Take seat back", id="handoff.take"),
        Binding("f12", "toggle_debug", "Model debug", show=False, id="handoff.debug"),
    ]
    seat = "agent"
    oversees = False  # the screen offers oversight of a model in its seat (F7)
    typed_at = 0.0  # when the person last typed into, or sent from, an entry here (monotonic)

    ENTRY: ClassVar[str | None] = None
    """The screen's text entry (a selector): typing elsewhere on the screen goes there."""

    def on_input_changed(self, _event: Input.Changed) -> None:
        self.typed_at = time.monotonic()

    def on_key(self, event: events.Key) -> None:
        """A character typed where nothing takes text (a result, the transcript, the tool list)
        goes to the entry, focused, instead of being lost: no key binding in force takes it."""
        # (a text field stops the characters it takes: one that arrives here was typed elsewhere,
        # also when the focus has already moved to the entry, as keys typed in a burst do)
        if self.ENTRY is None or event.character is None or not event.is_printable or event.key in self.active_bindings:
            return
        found = self.query(self.ENTRY)
        entry = found.first(Input) if found else None
        if entry is None or not entry.focusable:
            return
        event.stop()
        event.prevent_default()
        entry.insert_text_at_cursor(event.character)
        # focused now, so the next key goes there too; not as tab or a click focuses it: the
        # text is not selected, so the next key does not replace what is there
        self.set_focus(entry, from_app_focus=True)

    def on_input_submitted(self, _event: Input.Submitted) -> None:
        self.typed_at = time.monotonic()

    class SeatsChanged(Message):
        """A seat changed hands: the usable keys changed."""

    class Changed(Message):
        """The episode moved on: redraw what changed. The several events of one step merge into
        one redraw (a newer Changed replaces one still waiting)."""

        def can_replace(self, message: Message) -> bool:
            return isinstance(message, SeatScreen.Changed)

    # -- the episode, the same on every seat screen ----------------------------------------
    def start_episode(self, focus: str) -> None:
        """Hide the debug pane, hear the episode's events, tick the status line each second,
        focus ``focus`` and run the episode. Nothing when the screen is already on its way out
        (the app quit before its mount was handled: its children may be gone)."""
        if gone(self) or not self.query("#debug-pane"):
            return
        self.query_one("#debug-pane").display = False
        self.session.listeners.append(self.on_episode_event)
        self.set_interval(1, self._tick)
        self.query_one(focus).focus()
        self.play()

    def on_episode_event(self, event: Any) -> None:
        self.post_message(self.Changed())

    def status_text(self) -> Text:
        from sttui.tui.play import status_line

        return status_line(self.session)

    @while_shown
    def _tick(self) -> None:
        from sttui.tui.widgets import StatusLine

        self.query_one("#status-bar", StatusLine).show(self.status_text())
        self._cover_task(self.covered())
        self.ticked()

    def covered(self) -> bool:
        """Under a study's time limit the task is out of sight while the person's clock stands
        (before F5 and when paused): time to read and think counts, as working time."""
        s = self.session
        return (
            s.time_limit is not None
            and s.clock is not None
            and not s.clock.running
            and s.holds(self.seat)
            and s.episode.ended is None
        )

    def _cover_task(self, covered: bool) -> None:
        if covered == self.has_class("-covered"):
            return
        if covered and not self.query("#paused-cover"):
            from textual.widgets import Static

            self.mount(
                Static(
                    "The clock is stopped, and the task is out of sight until it runs: the time limit counts "
                    "the time you spend reading and thinking too.\n\nF5 starts the clock.",
                    id="paused-cover",
                ),
                after=self.query_one("#status-bar"),
            )
        self.set_class(covered, "-covered")

    def ticked(self) -> None:
        """What else a screen updates each second (nothing by default)."""

    def end_screen(self, result: Any) -> Screen[Any]:
        from sttui.tui.endscreen import EndScreen
        from sttui.tui.episode_over import typing_on

        return EndScreen(self.session, result, typing=typing_on(self))

    @work(exclusive=True, group="episode", exit_on_error=False)
    async def play(self) -> None:
        from sttui.store.writer import WriteFailed

        try:
            result = await self.session.run()
        except WriteFailed as exc:
            self.app.recording_failed(self.session, str(exc))
            return
        self.app.switch_screen(self.end_screen(result))

    session: PlaySession
    human: HumanController

    def on_mount(self) -> None:
        feedback = self.query("#feedback")
        if feedback:
            self.mount(ModelActivity(self.session, self.seat), before=feedback.first())
        self.session.listeners.append(self._seat_event)
        if self._configured_models():
            self.preload_models()
        if self.session.time_limit is not None:
            self.set_interval(1, self._check_limit)
        freeze_heap()  # what the episode holds so far is long-lived: key presses stay short

    def on_unmount(self) -> None:
        release_heap()

    def _check_limit(self) -> None:
        """A study's time limit, checked on the clock's tick (``PlaySession.check_limit``)."""
        limit = self.session.time_limit
        found = self.session.check_limit()
        clock = self.session.clock
        if found == "warn" and limit is not None and clock is not None:
            left = max(0, round((limit[0] - clock.active_seconds) / 60, 1))
            from sttui.study.spec import minutes_text

            self.notify(f"{minutes_text(left)} left on this task", title="Time", severity="warning", timeout=15)
        elif found == "ended":
            self.notify("the time for this task is up", title="Time", severity="warning", timeout=15)

    def _seat_event(self, event: Any) -> None:
        if event.type == "seat_changed":  # the only change the usable keys depend on
            self.post_message(self.SeatsChanged())

    def on_seat_screen_seats_changed(self, _message: SeatsChanged) -> None:
        self.refresh_bindings()

    # -- keys that apply --------------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The footer shows the keys that do something now."""
        session: PlaySession | None = getattr(self, "session", None)
        if action in STUDY_BARRED and getattr(self.app, "barred", False):
            return False  # a study's participant plays alone, without the hidden state
        if session is None or session.episode.ended is not None:
            return action not in ("hand_to_model", "take_back", "toggle_oversight", "toggle_clock", "leave")
        mine = session.holds(self.seat)
        if action == "hand_to_model":
            return mine
        if action == "take_back":
            return not mine
        if action in ("toggle_clock", "satisfied", "not_satisfied", "gave_up"):
            return mine
        return True

    # -- the clock ---------------------------------------------------------------------------
    def action_toggle_clock(self) -> None:
        clock = self.session.clock
        if clock is not None and self.session.holds(self.seat):
            clock.toggle()
            self._tick()

    def show_notices(self) -> None:
        """Say what the session had to do on its own, e.g. give back a seat a model failed in."""
        notices = self.session.notices
        while notices:
            self.notify(notices.pop(0), severity="warning", timeout=10)

    # -- lending the seat --------------------------------------------------------------------
    def _configured_models(self) -> Mapping[str, ModelAlias]:
        return self.app.config.models

    @work(thread=True, exclusive=True, group="model-library", exit_on_error=False)
    def preload_models(self) -> None:
        """Import the model library now, so the first call after F10 does not wait for it."""
        from sttui.controllers.model import preload_litellm

        preload_litellm()

    def action_hand_to_model(self) -> None:
        if not self.session.holds(self.seat) or self.session.episode.ended is not None:
            return
        if self.app.config.handoff_model:
            self._hand(self.app.config.handoff_model)
            return
        from sttui.tui.modals import EditValue

        self.preload_models()  # while the person types the name
        models = self._configured_models()
        remembered = self.app.last_handoff_model or next(iter(models), "")
        hint = "a litellm model (openai/gpt-4o-mini)" + (
            f" or an alias from sttui.yaml: {', '.join(models)}" if models else " or an alias from sttui.yaml"
        )
        hint += ". Enter hands the seat over, escape cancels."
        self.app.push_screen(
            EditValue("Hand the seat to which model?", remembered, hint),
            lambda value: self._hand(value.strip()) if value and value.strip() else None,
        )

    def _hand(self, name: str) -> None:
        from sttui.controllers.model import ModelAgent, ModelUser, resolve_model

        session = self.session
        try:
            model_config = resolve_model(name, self._configured_models())
        except ValueError as exc:
            self.notify(str(exc), severity="error")
            return
        self.app.last_handoff_model = name
        spec = f"model:{name}"
        if self.seat == "user":
            model: Any = ModelUser(spec, model_config)
        else:
            tools = session.loaded.env_cls.tool_specs if session.loaded.env_cls is not None else None
            model = ModelAgent(spec, model_config, tools)
        session.hand_to_model(self.seat, model, review=self.review if self.oversees else None)
        watched = " under your oversight" if self.oversees and session.oversight else ""
        self.notify(f"the {self.seat} seat is now held by {spec}{watched}; F11 takes it back")

    def action_take_back(self) -> None:
        if self.session.take_back(self.seat):
            self.notify(f"the {self.seat} seat is yours again")

    # -- oversight -----------------------------------------------------------------------
    def action_toggle_oversight(self) -> None:
        if not self.oversees:
            return
        self.session.set_oversight(not self.session.oversight)
        state = "on: you approve each call the model proposes" if self.session.oversight else "off"
        self.notify(f"oversight {state}")

    async def review(self, proposed: Action, view: Any) -> Decision:
        """Show a model's proposal to the person and wait for their decision."""
        future: asyncio.Future[Decision] = asyncio.get_running_loop().create_future()
        context = (
            "Approve runs it as the model's; edit runs your version as yours; reject sends your reason "
            "back to the model. F11 takes the seat back."
        )
        env_cls = self.session.loaded.env_cls
        tools = env_cls.tool_specs if env_cls else None

        def decided(decision: Decision | None) -> None:
            if not future.done():
                future.set_result(decision or Decision("reject"))

        self.app.push_screen(ReviewCall(proposed, context, tools), decided)
        return await future

    # -- the model's messages ---------------------------------------------------------------
    def compose_debug(self) -> ComposeResult:
        panel = DebugPanel("", id="debug")
        yield VerticalScroll(panel, id="debug-pane")

    def action_toggle_debug(self) -> None:
        pane = self.query_one("#debug-pane")
        pane.display = not pane.display
        self.refresh_debug()

    def refresh_debug(self) -> None:
        if self.query_one("#debug-pane").display:
            self.query_one("#debug", DebugPanel).show(
                self.session.seats[self.seat], self.session.last_model.get(self.seat)
            )

    # -- leaving -------------------------------------------------------------------------------
    def action_leave(self) -> None:
        if self.session.episode.ended is not None:
            return
        can_end = self.seat == "agent" and "agent" in self.session.people and hasattr(self, "action_end_episode")

        def chosen(choice: str | None) -> None:
            if choice == "suspend":
                self.run_worker(self.suspend(), group="leave", exclusive=True, exit_on_error=False)
            elif choice == "end" and can_end:
                self.session.end_now()
                self.notify("ending the episode…")

        self.app.push_screen(LeaveDialog(can_end, getattr(self, "END_HINT", ""), self.app.resume_hint), chosen)

    async def suspend(self) -> None:
        """Let go of the episode: it stays running, recorded as left by the person (suspended)."""
        self.session.leave("suspended")
        for worker in [w for w in self.app.workers if w.node is self and w.group == "episode"]:
            worker.cancel()
            with contextlib.suppress(WorkerCancelled, WorkerFailed):
                await worker.wait()
        await asyncio.to_thread(self.session.close)
        self.app.notify(f"episode {self.session.episode_id} suspended: {self.app.resume_hint}")
        self.app.pop_to_home()
