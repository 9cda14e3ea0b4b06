"""Widgets shared by the play screens: the call entry, the status line, transcript items."""

from __future__ import annotations

import json
from typing import Any

from rich.console import RenderableType
from rich.json import JSON
from rich.text import Text
from textual.binding import Binding
from textual.suggester import Suggester
from textual.widgets import Collapsible, Input, Static

from sttui.core.callsyntax import complete
from sttui.core.env import ToolSpec
from sttui.tui.safetable import DataTable

FOLD_LINES = 8


class CallSuggester(Suggester):
    """Completes tool names, then parameter names, from the episode's tools."""

    def __init__(self, tools: dict[str, ToolSpec]):
        super().__init__(use_cache=False, case_sensitive=True)
        self.params = {name: list(spec.parameters.get("properties", {})) for name, spec in tools.items()}

    async def get_suggestion(self, value: str) -> str | None:
        if value.startswith(">"):
            return None
        return complete(value, self.params)


class CallEntry(Input):
    """The call entry: tab accepts the completion shown in grey."""

    BINDINGS = [Binding("tab", "accept_completion", "Complete", show=False, id="entry.complete")]

    def action_accept_completion(self) -> None:
        if self._suggestion:
            self.value = self._suggestion
            self.cursor_position = len(self.value)
        else:
            self.screen.focus_next()


def result_text(result: dict[str, Any]) -> RenderableType:
    return JSON(json.dumps(result, ensure_ascii=False), indent=2)


def result_summary(result: dict[str, Any], width: int = 90) -> str:
    """A folded result in one line: its top-level plain values (``status cancelled``), then
    how many lists and objects it holds, so folding hides no headline."""
    if not result.get("success"):
        return f"failed: {result.get('error', '')}"
    plain, nested = [], []
    for key, value in result.items():
        if key == "success":
            continue
        if isinstance(value, dict | list):
            nested.append(f"{key} ({len(value)})")
        else:
            plain.append(f"{key} {value}")
    text = ", ".join(plain + nested) or "ok"
    return text if len(text) <= width else text[: width - 1] + "…"


def transcript_item(item: dict[str, Any], me: str = "agent", collapsed: bool | None = None) -> Static | Collapsible:
    """A widget for one item of a seat's view. A tool result folds when ``collapsed`` says
    so, or by default when it is longer than FOLD_LINES; folded, its title summarises it."""
    kind = item["type"]
    if kind == "message":
        sender = item["from"]
        label = "you" if sender == me else sender
        widget = Static(Text.assemble((f"{label}: ", "bold"), item["text"]), classes=f"msg from-{sender}")
        return widget
    if kind == "tool_call":
        args = ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in item["args"].items())
        return Static(Text.assemble(("▶ ", "bold"), (item["tool"], "bold cyan"), f"({args})"), classes="call")
    if kind == "tool_result":
        result = item["result"]
        ok = result.get("success")
        if collapsed is None:
            collapsed = json.dumps(result, indent=2, ensure_ascii=False).count("\n") + 1 > FOLD_LINES
        title = f"{'✓' if ok else '✗'} {item['tool']}: {result_summary(result)}"
        body = Static(result_text(result), classes="result-body")
        return Collapsible(body, title=title, collapsed=collapsed, classes="result ok" if ok else "result failed")
    return Static(Text.assemble(("notice: ", "bold"), item["text"]), classes="notice")


class WideTable(DataTable):  # type: ignore[type-arg]
    """A row table wider than the screen (a case's many fields at 80 columns): ← and → move
    two thirds of the visible width at a time instead of one character, so the last column is
    a few presses away rather than dozens."""

    BINDINGS = [
        Binding("right", "page_right", "Scroll right", show=False, id="table.page_right"),
        Binding("left", "page_left", "Scroll left", show=False, id="table.page_left"),
    ]

    def _page(self) -> int:
        return max(8, self.scrollable_content_region.width * 2 // 3)

    def action_page_right(self) -> None:
        self.scroll_to(x=self.scroll_x + self._page(), animate=False)

    def action_page_left(self) -> None:
        self.scroll_to(x=max(0, self.scroll_x - self._page()), animate=False)
