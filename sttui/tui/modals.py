"""Small dialogs: confirm, a form generated from a tool's JSON Schema, a one-value editor."""

from __future__ import annotations

import json
from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Static

from sttui.core.callsyntax import format_call
from sttui.core.env import ToolSpec
from sttui.core.schema import check_args


class Confirm(ModalScreen[bool]):
    """Yes or no; y/n or enter/escape."""

    BINDINGS = [
        Binding("y", "answer(True)", "Yes", id="confirm.yes"),
        Binding("n,escape", "answer(False)", "No", id="confirm.no"),
    ]

    def __init__(self, question: str, yes: str = "Yes", no: str = "No"):
        super().__init__()
        self.question, self.yes, self.no = question, yes, no

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(self.question, classes="question")
            yield Button(f"{self.yes} (y)", variant="warning", id="yes")
            yield Button(f"{self.no} (n)", id="no")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_answer(self, value: bool) -> None:
        self.dismiss(value)


def _coerce(text: str, schema: dict[str, Any]) -> Any:
    """A typed field's text as the schema's type; JSON for lists and objects."""
    kind = schema.get("type")
    kinds = kind if isinstance(kind, list) else [kind]
    if text == "" and "null" in kinds:
        return None
    if "integer" in kinds or "number" in kinds or "array" in kinds or "object" in kinds or "boolean" in kinds:
        try:
            return json.loads(text)
        except json.JSONDecodeError:
            return text
    return text


class ToolForm(ModalScreen[str | None]):
    """One field per parameter, from the JSON Schema; returns the call as text for the entry."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="form.cancel")]

    def __init__(self, spec: ToolSpec):
        super().__init__()
        self.spec = spec

    def compose(self) -> ComposeResult:
        props = self.spec.parameters.get("properties", {})
        required = set(self.spec.parameters.get("required", []))
        with VerticalScroll(classes="dialog form"):
            yield Label(f"[b]{self.spec.name}[/b]  ({self.spec.kind})", classes="question")
            yield Static(self.spec.description, classes="muted")
            for name, schema in props.items():
                kind = schema.get("type", "any")
                label = f"{name}{'' if name in required else ' (optional)'}: {kind}"
                if "enum" in schema:
                    label += f" — one of {', '.join(map(str, schema['enum']))}"
                yield Label(label)
                if schema.get("description"):
                    yield Static(schema["description"], classes="muted")
                yield Input(
                    id=f"param-{name}", placeholder=json.dumps(schema.get("default")) if "default" in schema else ""
                )
            yield Static("", id="form-error", classes="error")
            yield Button("Put in the entry (enter)", variant="primary", id="ok")

    def on_input_submitted(self) -> None:
        self._done()

    def on_button_pressed(self) -> None:
        self._done()

    def _done(self) -> None:
        props = self.spec.parameters.get("properties", {})
        args = {}
        for name, schema in props.items():
            text = self.query_one(f"#param-{name}", Input).value.strip()
            if text:
                args[name] = _coerce(text, schema)
        problem = check_args(args, self.spec.parameters, self.spec.name)
        if problem:
            self.query_one("#form-error", Static).update(problem)
            return
        self.dismiss(format_call(self.spec.name, args))

    def action_cancel(self) -> None:
        self.dismiss(None)


class EditValue(ModalScreen[str | None]):
    """Edit one value; the caller checks it and may reopen with the reason."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="edit.cancel")]

    def __init__(self, title: str, value: str, hint: str = ""):
        super().__init__()
        self.title_text, self.value, self.hint = title, value, hint

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(self.title_text, classes="question")
            if self.hint:
                yield Static(self.hint, classes="muted")
            yield Input(self.value, id="value")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value)

    def action_cancel(self) -> None:
        self.dismiss(None)
