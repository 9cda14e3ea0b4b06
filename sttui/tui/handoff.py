"""What the play screens share: the clock, handing a seat to a model and taking it back,
oversight reviews, and the debug panel."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Static

from sttui.controllers.oversight import Decision, Overseen
from sttui.core.actions import Action, Say, ToolCall, action_payload
from sttui.core.callsyntax import CallSyntaxError, format_call, parse_call
from sttui.core.schema import check_args


def describe(action: Action) -> str:
    if isinstance(action, ToolCall):
        return format_call(action.tool, action.args)
    if isinstance(action, Say):
        return f"> {action.text}"
    return f"{type(action).__name__} {json.dumps(action_payload(action))}"


class ReviewCall(ModalScreen[Decision]):
    """A model's proposed action: approve (a), edit (e) or reject with a reason (r)."""

    BINDINGS = [
        Binding("a", "approve", "Approve", id="review.approve"),
        Binding("e", "edit", "Edit", id="review.edit"),
        Binding("r", "reject", "Reject", id="review.reject"),
        Binding("f11", "take_back", "Take seat back", id="review.take_back"),
    ]

    def __init__(self, proposed: Action, context: str, tools: dict[str, Any] | None):
        super().__init__()
        self.proposed, self.context, self.tools = proposed, context, tools
        self.mode = "choose"

    def compose(self) -> ComposeResult:
        with VerticalScroll(classes="dialog form"):
            yield Label("[b]The model proposes[/b]", classes="question")
            yield Static(describe(self.proposed), id="proposed")
            yield Static(self.context, classes="muted")
            yield Input(id="review-input", placeholder="")
            yield Static("", id="review-error", classes="error")
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

    def _ask(self, mode: str, placeholder: str, value: str) -> None:
        self.mode = mode
        box = self.query_one("#review-input", Input)
        box.display = True
        box.placeholder = placeholder
        box.value = value
        box.focus()

    def action_edit(self) -> None:
        self._ask("edit", "the call to make instead: tool(arg=value, …) or > message", describe(self.proposed))

    def action_reject(self) -> None:
        self._ask("reject", "why? (goes back to the model)", "")

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
            self.query_one("#review-error", Static).update(f"not a call: {exc}")
            return
        if self.tools is not None:
            problem = None if name in self.tools else f"no tool '{name}'"
            problem = problem or check_args(args, self.tools[name].parameters, name)
            if problem:
                self.query_one("#review-error", Static).update(problem)
                return
        self.dismiss(Decision("edit", ToolCall(name, args)))


class DebugPanel(Static):
    """The exact message list the model in the seat received last."""

    def show(self, controller: Any) -> None:
        messages = getattr(controller, "last_messages", None)
        if not messages:
            self.update("[b]Debug[/b]: no model has been asked yet in this seat.")
            return
        self.update(
            f"[b]Debug[/b]: the {len(messages)} messages {controller.name} received last\n"
            + json.dumps(messages, indent=1, ensure_ascii=False)[:20000]
        )


class SeatMixin:
    """What every play screen shares: the person's clock, lending the seat to a model and
    taking it back, the model's debug panel, and notices from the session."""

    HANDOFF_BINDINGS = [
        Binding("f10", "hand_to_model", "Hand seat to model", id="handoff.give"),
        Binding("f11", "take_back", "Take seat back", id="handoff.take"),
        Binding("f12", "toggle_debug", "Model debug", show=False, id="handoff.debug"),
    ]
    seat = "agent"

    def _model_name(self) -> str | None:
        config = self.app.config  # type: ignore[attr-defined]
        models = config.extra.get("models") or {}
        return config.extra.get("handoff_model") or (next(iter(models)) if models else None)

    def action_toggle_clock(self) -> None:
        clock = self.session.clock  # type: ignore[attr-defined]
        if clock is not None:
            clock.toggle()
            self._tick()  # type: ignore[attr-defined]

    def show_notices(self) -> None:
        """Say what the session had to do on its own, e.g. give back a seat a model failed in."""
        notices = self.session.notices  # type: ignore[attr-defined]
        while notices:
            self.notify(notices.pop(0), severity="warning", timeout=10)  # type: ignore[attr-defined]

    def action_hand_to_model(self) -> None:
        name = self._model_name()
        if name is None:
            from sttui.tui.modals import EditValue

            self.app.push_screen(  # type: ignore[attr-defined]
                EditValue(
                    "Hand the seat to which model?",
                    "",
                    "a litellm model (openai/gpt-4o-mini) or an alias from sttui.yaml",
                ),
                lambda value: value and self._hand(value.strip()),
            )
            return
        self._hand(name)

    def _hand(self, name: str) -> None:
        from sttui.controllers.model import ModelAgent, ModelUser, resolve_model

        session = self.session  # type: ignore[attr-defined]
        config = self.app.config  # type: ignore[attr-defined]
        try:
            model_config = resolve_model(name, config.extra.get("models") or {})
        except ValueError as exc:
            self.notify(str(exc), severity="error")  # type: ignore[attr-defined]
            return
        spec = f"model:{name}"
        if self.seat == "user":
            model: Any = ModelUser(spec, model_config)
        else:
            tools = session.loaded.env_cls.tool_specs if session.loaded.env_cls is not None else None
            model = ModelAgent(spec, model_config, tools)
            if getattr(self, "oversight", False):
                model = Overseen(model, self.review, self.human.name)  # type: ignore[attr-defined]
        session.hand(self.seat, model)
        self.notify(f"the {self.seat} seat is now held by {spec}; F11 takes it back")  # type: ignore[attr-defined]

    def action_take_back(self) -> None:
        session = self.session  # type: ignore[attr-defined]
        person = session.people.get(self.seat)
        if person is None or session.seats[self.seat] is person:
            return
        session.hand(self.seat, person)
        self.notify(f"the {self.seat} seat is yours again")  # type: ignore[attr-defined]

    def action_toggle_debug(self) -> None:
        pane = self.query_one("#debug-pane")  # type: ignore[attr-defined]
        pane.display = not pane.display
        self.refresh_debug()

    async def review(self, proposed: Action, view: Any) -> Decision:
        """Show a model's proposal to the person and wait for their decision."""
        future: asyncio.Future[Decision] = asyncio.get_running_loop().create_future()
        context = "Approve to execute it as is; edit to make a different call; reject to send a reason back."
        tools = self.session.loaded.env_cls.tool_specs if self.session.loaded.env_cls else None  # type: ignore
        self.app.push_screen(
            ReviewCall(proposed, context, tools),  # type: ignore[attr-defined]
            lambda decision: future.done() or future.set_result(decision),
        )
        return await future

    def compose_debug(self) -> ComposeResult:
        panel = DebugPanel("", id="debug")
        yield VerticalScroll(panel, id="debug-pane")

    def refresh_debug(self) -> None:
        if self.query_one("#debug-pane").display:  # type: ignore[attr-defined]
            self.query_one("#debug", DebugPanel).show(self.session.seats[self.seat])  # type: ignore[attr-defined]
