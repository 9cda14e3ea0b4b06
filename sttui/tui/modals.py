"""Small dialogs: confirm, a form generated from a tool's JSON Schema, a one-value editor, a
reader for one long text.

Every dialog is a ``Dialog``: centred, its text wrapped (never cut off), its first field
focused when it opens, and its styles here with it."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, TypeVar

from rich.console import RenderableType
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Static

from sttui.core.callsyntax import format_call
from sttui.core.env import ToolSpec
from sttui.core.schema import check_args

T = TypeVar("T")

# The first of these in the dialog gets the focus: its first field, else its first button.
# (A dialog's scrolling container can take the focus too, which is never what one wants.)
FIELDS = "Input, Select, SelectionList, OptionList, TextArea, Button"


class Dialog(ModalScreen[T]):
    """A centred dialog whose first field has the focus."""

    DEFAULT_CSS = """
    Dialog { align: center middle; }
    Dialog .dialog {
        width: 76; max-width: 95%; height: auto; max-height: 90%;
        border: thick $primary; padding: 1 2; background: $surface;
    }
    Dialog .dialog.form { height: auto; max-height: 85%; }
    Dialog .question { width: 1fr; text-style: bold; margin-bottom: 1; }
    Dialog Label { width: 1fr; }
    Dialog .buttons { height: auto; width: 1fr; }
    Dialog Button { margin: 1 1 0 0; }
    Dialog .error { color: $error; height: auto; }
    ToolForm Input { margin-bottom: 1; background: $boost; }
    ToolForm Input:focus { background: $primary 30%; }
    """
    AUTO_FOCUS = ""  # Textual's own would scroll to the field before the dialog is laid out
    FIRST = FIELDS  # what gets the focus: the first of these

    def on_screen_resume(self) -> None:
        if self.focused is None:
            for widget in self.query(self.FIRST):
                if widget.focusable:
                    self.set_focus(widget, scroll_visible=False)  # the dialog opens at its top
                    break


class Confirm(Dialog[bool]):
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
            yield Static(self.question, classes="question", id="question")
            with Horizontal(classes="buttons"):
                yield Button(f"{self.yes} (y)", variant="warning", id="yes")
                yield Button(f"{self.no} (n)", id="no")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_answer(self, value: bool) -> None:
        self.dismiss(value)


class Reader(Dialog[None]):
    """One long text to read whole at any size (an event of an episode being rated): the
    arrows and page keys scroll it; escape or enter closes it."""

    DEFAULT_CSS = """
    Reader .dialog.reader { width: 100%; max-width: 100%; height: 100%; max-height: 100%; padding: 0 1; }
    Reader #reader-body { height: 1fr; }
    Reader .hint { color: $text-muted; }
    """
    BINDINGS = [Binding("escape,enter", "close", "Close", id="reader.close")]
    FIRST = "#reader-body"  # (the text scrolls with the keys from the start)

    def __init__(self, title: str, body: RenderableType):
        super().__init__()
        self.title_text, self.body = title, body

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog reader"):
            yield Label(self.title_text, classes="question", markup=False)
            with VerticalScroll(id="reader-body"):
                yield Static(self.body, id="reader-text")
            yield Label("↑↓ PgUp PgDn scroll · esc or enter closes", classes="hint")

    def action_close(self) -> None:
        self.dismiss(None)


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
            if "array" in kinds and text.startswith("["):  # bare words in a list, as on the call line
                from sttui.core.callsyntax import CallSyntaxError, parse_call

                try:
                    return parse_call(f"f(x={text})")[1]["x"]
                except CallSyntaxError:
                    return text
            return text
    return text


def type_words(schema: dict[str, Any]) -> str:
    """A parameter's JSON Schema type in words: ``['string', 'null']`` reads "string or null"."""
    kind = schema.get("type", "any")
    kinds = kind if isinstance(kind, list) else [kind]
    words = " or ".join(str(k) for k in kinds)
    items = schema.get("items")
    if "array" in kinds and isinstance(items, dict) and "type" in items:
        words = words.replace("array", f"list of {type_words(items)}")
    return words


class ToolForm(Dialog[str | None]):
    """One field per parameter, from the JSON Schema; returns the call as text for the call line."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="form.cancel")]

    def __init__(self, spec: ToolSpec):
        super().__init__()
        self.spec = spec

    def compose(self) -> ComposeResult:
        props = self.spec.parameters.get("properties", {})
        required = set(self.spec.parameters.get("required", []))
        with VerticalScroll(classes="dialog form"):
            # (a task's tool, its words as written: ``list[str]`` is not markup)
            yield Static(f"{self.spec.name}  ({self.spec.kind})", classes="question", markup=False)
            yield Static(self.spec.description, classes="muted", markup=False)
            for name, schema in props.items():
                label = f"{name}{'' if name in required else ' (optional)'}: {type_words(schema)}"
                if "enum" in schema:
                    label += f" — one of {', '.join(map(str, schema['enum']))}"
                yield Label(label, markup=False)
                if schema.get("description"):
                    yield Static(schema["description"], classes="muted", markup=False)
                yield Input(
                    id=f"param-{name}",
                    placeholder=json.dumps(schema.get("default")) if "default" in schema else "",
                    compact=True,  # one line a field: a form with many parameters fits at 80x24
                )
            yield Static("", id="form-error", classes="error", markup=False)  # (it quotes the values typed)
            yield Button("Fill the call line (enter)", variant="primary", id="ok")

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


class EditValue(Dialog[str | None]):
    """Edit one value. ``check`` (text -> why it is refused, or None) keeps the dialog open
    with the reason until the value is acceptable or the edit is cancelled."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="edit.cancel")]

    def __init__(self, title: str, value: str, hint: str = "", check: Callable[[str], str | None] | None = None):
        super().__init__()
        self.title_text, self.value, self.hint, self.check = title, value, hint, check

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            # the title, hint and problem name data (a drafted label, the value typed): as written
            yield Static(self.title_text, classes="question", markup=False)
            if self.hint:
                yield Static(self.hint, classes="muted", markup=False)
            yield Input(self.value, id="value")
            yield Static("", id="edit-error", classes="error", markup=False)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        problem = self.check(event.value) if self.check is not None else None
        if problem:
            self.query_one("#edit-error", Static).update(problem)
            return
        self.dismiss(event.value)

    def action_cancel(self) -> None:
        self.dismiss(None)
