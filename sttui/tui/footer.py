"""The workbench's footer: Textual's, without restyling each key two more times as it mounts.

Textual's ``FooterKey`` starts compact (its default), and all but the command palette's key are
then bound to their footer's ``compact`` (off by default): as it mounted, each key added the
``-compact`` class and had its styles applied, then removed the class and had them applied
again. Every screen mounts a footer, and a footer is composed again whenever a screen's keys
change (focus, a seat changing hands, the next item to annotate), so that was half of the style
work of showing a screen. Each key is given, before it mounts, the value and class it would end
with: it is styled once, and ends exactly as before."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import Footer as TextualFooter
from textual.widgets._footer import FooterKey


class Footer(TextualFooter):
    """``textual.widgets.Footer``, each key styled once as it mounts."""

    def compose(self) -> ComposeResult:
        for widget in super().compose():
            if isinstance(widget, FooterKey):
                # the palette's key keeps its default (compact); the others take the footer's
                compact = True if widget.has_class("-command-palette") else self.compact
                widget.set_reactive(FooterKey.compact, compact)
                widget.set_class(compact, "-compact", update=False)
            yield widget
