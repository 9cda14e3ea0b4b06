"""The workbench's footer: Textual's, composed once for a burst of key changes, each key styled
once as it mounts.

A screen's keys change several times as it opens (mounted, focused, its seat's keys settled):
Textual's footer queues a recompose for each change, and each builds and styles every key again.
Here a change while a recompose is queued joins it: the one recompose reads the keys as they
are by then, so it shows what the last of them would have shown.

Textual's ``FooterKey`` starts compact (its default), and all but the command palette's key are
then bound to their footer's ``compact`` (off by default): as it mounted, each key added the
``-compact`` class and had its styles applied, then removed the class and had them applied
again. Every screen mounts a footer, and a footer is composed again whenever a screen's keys
change (focus, a seat changing hands, the next item to annotate), so that was half of the style
work of showing a screen. Each key is given, before it mounts, the value and class it would end
with: it is styled once, and ends exactly as before.

Keys that do not fit the terminal's width give way to the way out (escape) and to F1, which
lists every key: Textual's footer cuts off whatever passes its right edge, and at 80 columns
that was "esc Home" and "f1 Keys" on the replay, the user seat and the explore screen. The
screen's own keys are dropped from the right until the rest fit; each is still in F1 and in
the palette. A change of width composes the footer again."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.cells import cell_len
from textual import events
from textual.app import ComposeResult
from textual.widget import Widget
from textual.widgets import Footer as TextualFooter
from textual.widgets._footer import FooterKey

if TYPE_CHECKING:
    from textual.screen import Screen


class Footer(TextualFooter):
    """``textual.widgets.Footer``, composed once for a burst of key changes, each key styled once."""

    _queued = False  # a recompose is waiting for the next refresh

    def bindings_changed(self, screen: Screen[Any]) -> None:
        """Textual's, but a change while a recompose is queued is left to that recompose."""
        self._bindings_ready = True
        if not screen.app.app_focus or not self.is_attached or screen is not self.screen or self._queued:
            return
        self._queued = True
        self.call_after_refresh(self._recompose_queued)

    async def _recompose_queued(self) -> None:
        self._queued = False  # (a change from here on queues the next one)
        await self.recompose()

    _width = 0  # the width the keys were last fitted to

    def compose(self) -> ComposeResult:
        widgets: list[Widget] = []
        for widget in super().compose():
            if isinstance(widget, FooterKey):
                # the palette's key keeps its default (compact); the others take the footer's
                compact = True if widget.has_class("-command-palette") else self.compact
                widget.set_reactive(FooterKey.compact, compact)
                widget.set_class(compact, "-compact", update=False)
            widgets.append(widget)
        self._width = self.size.width or self.app.size.width
        yield from fitted(widgets, self._width)

    def on_resize(self, event: events.Resize) -> None:
        if event.size.width != self._width and self._bindings_ready and not self._queued:
            self._queued = True
            self.call_after_refresh(self._recompose_queued)


# keys that stay when the footer is too narrow for all: the way out (by its key), and the list
# of every key (by its action, whichever key a keymap gives it)
KEPT_KEYS = frozenset({"escape"})
KEPT_ACTIONS = frozenset({"help", "app.help"})


def kept(key: FooterKey) -> bool:
    return key.has_class("-command-palette") or key.key.split(",")[0] in KEPT_KEYS or key.action in KEPT_ACTIONS


def key_width(key: FooterKey) -> int:
    """The cells a footer key takes, as Textual's styles draw it: the key padded by one cell
    each side and the description followed by one (compact: the description after one cell);
    the palette's key also has its border and a cell after it."""
    shown, said = cell_len(key.key_display), cell_len(key.description)
    if key.has_class("-command-palette"):
        return shown + (said + 1 if said else 0) + 2
    if key.has_class("-compact"):
        return shown + (said + 1 if said else 0)
    return shown + 2 + (said + 1 if said else 0)


def fitted(widgets: list[Widget], width: int) -> list[Widget]:
    """``widgets`` in order, less the screen's keys that leave no room for the rest, from the
    rightmost; the kept keys (``kept``: escape, F1's, the palette's) are never dropped. Anything but plain
    keys (a group of keys, a label) is left as Textual composes it."""
    keys = [w for w in widgets if isinstance(w, FooterKey)]
    if width <= 0 or len(keys) != len(widgets):
        return widgets
    over = sum(key_width(k) for k in keys) - width
    out = list(widgets)
    for key in reversed(keys):
        if over <= 0:
            break
        if kept(key):
            continue
        out.remove(key)
        over -= key_width(key)
    return out
