"""The workbench's tables: Textual's DataTable, with every cell passed through
``sttui.safetext.visible`` as it goes in, so a name or a message from a record, a task file or a
model is shown as text (``\\x1b]0;…``) and never reaches the terminal as a control sequence."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.coordinate import Coordinate
from textual.widgets import DataTable as _DataTable
from textual.widgets.data_table import CellType, ColumnKey, RowKey

from sttui.safetext import control_free, visible


def safe_cell(value: Any) -> Any:
    """A cell's value with its control characters made visible (a Rich ``Text`` keeps its
    style; its spans go only when there was something to escape)."""
    if isinstance(value, str):
        return visible(value)
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
