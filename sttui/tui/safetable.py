"""The workbench's text from data, shown and never obeyed: its DataTable passes every cell
through ``sttui.safetext.visible`` as it goes in (``\\x1b]0;…``, measured as shown) and
escapes a string cell's markup, and ``guard_strips`` draws any control character left in any
widget's line as a visible picture."""

from __future__ import annotations

import re
from typing import Any

from rich.markup import escape
from rich.segment import Segment
from rich.text import Text
from textual.coordinate import Coordinate
from textual.strip import Strip
from textual.widgets import DataTable as _DataTable
from textual.widgets.data_table import CellType, ColumnKey, RowKey

from sttui.safetext import control_free, visible


def safe_cell(value: Any) -> Any:
    """A cell's value with its control characters made visible (a Rich ``Text`` keeps its
    style; its spans go only when there was something to escape). A string is shown as
    written: Textual reads a string cell as markup, so a title or a message holding ``[/]``
    stopped the screen, and ``[red]`` coloured it; its tag-like brackets are escaped."""
    if isinstance(value, str):
        return escape(visible(value))
    if isinstance(value, Text) and not control_free(value.plain):
        return Text(visible(value.plain), style=value.style, justify=value.justify)
    return value


class DataTable(_DataTable[CellType]):
    """Textual's DataTable; type selectors (``DataTable``) in the stylesheet still match it."""

    def add_row(self, *cells: CellType, height: int | None = 1, key: str | None = None, label: Any = None) -> RowKey:
        return super().add_row(*(safe_cell(c) for c in cells), height=height, key=key, label=label)

    def update_cell(
        self, row_key: RowKey | str, column_key: ColumnKey | str, value: CellType, *, update_width: bool = False
    ) -> None:
        super().update_cell(row_key, column_key, safe_cell(value), update_width=update_width)

    def update_cell_at(self, coordinate: Coordinate, value: CellType, *, update_width: bool = False) -> None:
        super().update_cell_at(coordinate, safe_cell(value), update_width=update_width)


# -- the last line of defence: whatever a widget draws ----------------------------------------------

_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _picture(match: re.Match[str]) -> str:
    """A control character as one visible cell: its Unicode control picture (␛ for ESC), or �."""
    code = ord(match.group())
    return chr(0x2400 + code) if code < 0x20 else "\u2421" if code == 0x7F else "\ufffd"


def guard_strips() -> None:
    """Every line a widget draws (a Static, a notice, a title, any text from a record) is drawn
    with its control characters as visible pictures, so none reaches the terminal, or the
    browser's terminal under ``sttui serve``, as a sequence it obeys. Textual strips BEL and CR
    but passes ESC and C1 through. Tables escape their cells before measuring them (above);
    this catches what other widgets show, at the one place text becomes terminal output
    (``Strip.render``). Installed once, when the workbench is imported."""
    if getattr(Strip.render, "_sttui_guarded", False):
        return
    original = Strip.render

    def render(self: Strip, console: Any) -> str:
        if self._render_cache is None and any(
            not control and _CONTROL.search(text) for text, _, control in self._segments
        ):
            clean = Strip(
                [
                    Segment(_CONTROL.sub(_picture, text), style, control)
                    if not control
                    else Segment(text, style, control)
                    for text, style, control in self._segments
                ],
                self.cell_length,
            )
            self._render_cache = original(clean, console)
        return original(self, console)

    render._sttui_guarded = True  # type: ignore[attr-defined]  # a mark on the patched function
    Strip.render = render  # type: ignore[method-assign]  # the guard patches rich's Strip once
