"""A scrollbar that is repainted only when it would look different.

A conversation pane grows by an item or two at every key press. Textual then repaints the
pane's scrollbar whole (every line through the styles cache, about 1.5 ms for a 34-line pane),
though a long conversation's thumb sits at the same cell at the end of the pane press after
press. ``SteadyScrollBar`` draws the bar's segments first (a few microseconds), and where they,
its size and what the styles cache applies to them are as they were, hands back the lines it
drew last time; anything else goes through Textual's own path, so what is on screen is always
what Textual would draw.
"""

from __future__ import annotations

from typing import Any

from textual.geometry import Region
from textual.scrollbar import ScrollBar
from textual.strip import Strip
from textual.widget import Widget


class SteadyScrollBar(ScrollBar):
    """Textual's scrollbar, the lines of its last few looks kept for as long as it would draw
    the same ones again."""

    KEPT = 4
    """Looks kept: a pane scrolled away and back (a fold, then the end again) finds its lines."""

    def __init__(self, vertical: bool = True, name: str | None = None, *, thickness: int = 1) -> None:
        super().__init__(vertical, name, thickness=thickness)
        self._drawn: dict[tuple[Any, ...], list[Strip]] = {}

    def look(self) -> tuple[Any, ...]:
        """Everything the bar's lines are made of: its own segments at its size, and what the
        styles cache adds to them (backgrounds, tint, opacity, the app's line filters and
        colour theme)."""
        width, height = self.size
        console = self.app.console
        options = console.options.update_dimensions(width, height)
        segments = tuple(console.render(self.render(), options))
        styles = self.styles
        return (
            self.size,
            segments,
            self.background_colors,
            styles.tint,
            styles.text_opacity,
            self.opacity,
            tuple(self.get_line_filters()),
            id(self.app.ansi_theme),
        )

    def render_lines(self, crop: Region) -> list[Strip]:
        """The lines of ``crop``, cut from the whole bar's, drawn again only if it looks
        different (the compositor asks for the part of the bar a repaint covers)."""
        look = self.look()
        lines = self._drawn.pop(look, None)  # (and put back last: the least recently drawn leaves)
        if lines is None:
            lines = super().render_lines(self.size.region)
            if len(self._drawn) >= self.KEPT:
                del self._drawn[next(iter(self._drawn))]
        self._drawn[look] = lines
        if crop == self.size.region:
            return lines
        x1, x2 = crop.column_span
        return [strip.crop(x1, x2) for strip in lines[crop.y : crop.bottom]]


def steady_vertical_scrollbar(widget: Widget) -> ScrollBar:
    """``widget``'s vertical scrollbar, made a ``SteadyScrollBar`` when first asked for: as
    Textual's ``Widget.vertical_scrollbar`` makes its own, with the same settings."""
    if widget._vertical_scrollbar is not None:
        return widget._vertical_scrollbar
    widget._vertical_scrollbar = bar = SteadyScrollBar(
        vertical=True, name="vertical", thickness=widget.scrollbar_size_vertical
    )
    bar.display = False
    widget.app._start_widget(widget, bar)
    return bar
