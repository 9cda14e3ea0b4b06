"""The keys of the screen in front (F1 or ?): every binding of the screen, of the focused
field and of the app, as they are bound now (after the keymap in sttui.yaml), each with the
binding id that remaps it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Static

from sttui.tui.modals import Dialog
from sttui.tui.safetable import DataTable


@dataclass(frozen=True)
class KeyRow:
    where: str  # "this screen", "everywhere", or the focused field
    keys: str  # as displayed: "f8", "right, j"
    description: str
    id: str  # the binding id a keymap names
    usable: bool  # False: the key does nothing at this moment (check_action says so)


def _usable(node: object, action: str) -> bool:
    """Whether the node would run ``action`` now (its check_action), as the footer decides."""
    check = getattr(node, "check_action", None)
    if check is None or "(" in action or "." in action:  # parameterised or namespaced: assume so
        return True
    try:
        return check(action, ()) is not False
    except Exception:  # a check that needs parameters: it applies
        return True


def screen_keys(screen: Screen[Any]) -> list[KeyRow]:
    """Every key of ``screen`` as bound now: the screen's own first, then the focused field's
    (those with a description), then the app's. Keys bound to one binding are listed together."""
    app = screen.app
    grouped: dict[tuple[int, str], tuple[str, Binding, list[str], bool]] = {}
    order: list[tuple[int, str]] = []
    for node, bindings in screen._binding_chain:  # the keymap is applied here, as Textual does
        if node is screen:
            where, rank = "this screen", 0
        elif node is app:
            where, rank = "everywhere", 2
        else:
            where, rank = f"in the {type(node).__name__}", 1
        for _key, binding in bindings:
            if rank == 1 and not binding.description:
                continue
            name = binding.id or f"({binding.action})"
            slot = (rank, name)
            if slot not in grouped:
                grouped[slot] = (where, binding, [], _usable(node, binding.action))
                order.append(slot)
            shown = app.get_key_display(binding)
            if shown not in grouped[slot][2]:
                grouped[slot][2].append(shown)
    rows = []
    # within each group, ours (with an id) before Textual's own (focus next, copy, …)
    for slot in sorted(order, key=lambda s: (s[0], s[1].startswith("("), order.index(s))):
        where, binding, keys, usable = grouped[slot]
        rows.append(KeyRow(where, ", ".join(keys), binding.description or binding.action, slot[1], usable))
    return rows


DESCRIPTION_WIDTH = 34  # at most; less on a narrow terminal, so the binding id stays in sight
MIN_DESCRIPTION = 12
PADDING = 2  # a DataTable cell's padding, both sides


def description_width(available: int, rows: list[KeyRow]) -> int:
    """The description's width in a table ``available`` cells wide: what the key, binding id
    and where columns leave (a long description ends in "…", whole in the palette), at most
    ``DESCRIPTION_WIDTH``. The binding id, what a keymap needs, is never the column cut off,
    nor where a key works ("in the DataTable" had lost its last letters at 120 columns)."""
    keys = max([len("key"), *(len(r.keys) for r in rows)])
    ids = max([len("binding id"), *(len(r.id) for r in rows)])
    where = max([len("where"), *(len(r.where) for r in rows)])
    left = available - (keys + PADDING) - (ids + PADDING) - (where + PADDING) - PADDING
    return max(MIN_DESCRIPTION, min(DESCRIPTION_WIDTH, left))


def _fitted(description: str, style: str, width: int = DESCRIPTION_WIDTH) -> Text:
    if len(description) > width:
        description = description[: width - 1] + "…"
    return Text(description, style=style)


class KeysHelp(Dialog[None]):
    """The keys of the screen behind this dialog."""

    DEFAULT_CSS = """
    KeysHelp .dialog { width: 96; height: 85%; }
    KeysHelp #keys { height: 1fr; }
    KeysHelp #keys-note { height: auto; margin-top: 1; }
    """
    FIRST = "#keys"
    BINDINGS = [Binding("escape,f1,question_mark", "close", "Close", id="help.close")]

    def __init__(self, screen: Screen[Any]):
        super().__init__()
        self.for_screen = screen
        self.rows = screen_keys(screen)

    def compose(self) -> ComposeResult:
        title = getattr(self.for_screen, "HELP_TITLE", "") or type(self.for_screen).__name__
        with Vertical(classes="dialog"):
            yield Static(f"Keys: {title}", classes="question")
            yield DataTable(id="keys", cursor_type="row", zebra_stripes=True)
            yield Static(
                "Greyed keys do nothing at this moment. Remap any key in sttui.yaml by its binding id, "
                'e.g. keymap: {play.end: "ctrl+e"}. The command palette (ctrl+p) lists these too. '
                "Escape closes.",
                id="keys-note",
                classes="muted",
            )

    def on_mount(self) -> None:
        self.call_after_refresh(self._fill)  # (once the table has its width)

    def _fill(self) -> None:
        table = self.query_one("#keys", DataTable)
        width = description_width(table.size.width - table.styles.scrollbar_size_vertical, self.rows)
        table.add_column("key")
        table.add_column("what it does", width=width)
        table.add_column("binding id")
        table.add_column("where")
        for row in self.rows:
            style = "" if row.usable else "dim"
            table.add_row(
                Text(row.keys, style=f"bold {style}".strip()),
                _fitted(row.description, style, width),
                Text(row.id, style="dim"),
                Text(row.where, style="dim"),
            )

    def action_close(self) -> None:
        self.dismiss(None)
