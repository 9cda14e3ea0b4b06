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
with: it is styled once, and ends exactly as before."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.widgets import Footer as TextualFooter
from textual.widgets._footer import FooterKey

if TYPE_CHECKING:
    from textual.screen import Screen


class Footer(TextualFooter):
    """``textual.widgets.Footer``, composed once for a burst of key changes, each key styled once."""

    _queued = False  # a recompose is waiting for the next refresh

    def bindings_changed(self, screen: Screen) -> None:
        """Textual's, but a change while a recompose is queued is left to that recompose."""
        self._bindings_ready = True
        if not screen.app.app_focus or not self.is_attached or screen is not self.screen or self._queued:
            return
        self._queued = True
        self.call_after_refresh(self._recompose_queued)

    async def _recompose_queued(self) -> None:
        self._queued = False  # (a change from here on queues the next one)
        await self.recompose()

    def compose(self) -> ComposeResult:
        for widget in super().compose():
            if isinstance(widget, FooterKey):
                # the palette's key keeps its default (compact); the others take the footer's
                compact = True if widget.has_class("-command-palette") else self.compact
                widget.set_reactive(FooterKey.compact, compact)
                widget.set_class(compact, "-compact", update=False)
            yield widget
