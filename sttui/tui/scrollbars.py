"""A scrollbar whose lines are drawn once for each way a line can look.

A conversation pane grows by an item or two at every key press, and Textual repaints every
pane's scrollbar whole at every layout: each of its lines through the styles cache, about
1.5 ms for a 34-line pane. Yet a vertical bar is made of a handful of distinct lines (the
track above the thumb, the thumb, the track below, the two eighth-cell ends), and the thumb
moves by a line or two. ``SteadyScrollBar`` draws the bar's segments first (microseconds:
Textual's own renderer, at the bar's size), and each line whose segments, and whatever the
styles cache adds to them, it has drawn before is the line it drew then. A line never seen goes
through Textual's own path, so what is on screen is always what Textual would draw.
"""

from __future__ import annotations

from typing import Any

from rich.segment import Segment
from textual.geometry import Region, Spacing
from textual.scrollbar import ScrollBar
from textual.strip import Strip
from textual.widget import Widget

NO_GUTTER = Spacing(0, 0, 0, 0)


class SteadyScrollBar(ScrollBar):
    """Textual's scrollbar, each distinct line it has drawn kept for when it is drawn again."""

    KEPT = 64
    """Distinct lines kept (a bar has about five at a time; a new theme or size brings others)."""

    def __init__(self, vertical: bool = True, name: str | None = None, *, thickness: int = 1) -> None:
        super().__init__(vertical, name, thickness=thickness)
        self._lines: dict[tuple[Any, ...], Strip] = {}

    def setting(self) -> tuple[Any, ...]:
        """What the styles cache adds to every line's segments: the backgrounds, the widget's
        base style, tint, opacity, the app's line filters and its colour theme; and the width."""
        styles = self.styles
        return (
            self.size.width,
            self.background_colors,
            self.visual_style,
            styles.tint,
            styles.text_opacity,
            self.opacity,
            tuple(self.get_line_filters()),
            id(self.app.ansi_theme),
        )

    def segment_lines(self) -> list[tuple[Segment, ...]]:
        """The bar's segments, line by line, as Textual's renderer draws them at its size."""
        width, height = self.size
        console = self.app.console
        options = console.options.update_dimensions(width, height)
        return [tuple(line) for line in Segment.split_lines(console.render(self.render(), options))]

    def render_lines(self, crop: Region) -> list[Strip]:
        """The lines of ``crop``: each one drawn before is reused, and if any is new the bar is
        drawn whole Textual's way (the compositor asks for the part a repaint covers)."""
        if not self.vertical or self.styles.gutter != NO_GUTTER:  # (lines that differ by position)
            return super().render_lines(crop)
        setting = self.setting()
        keys = [(line, setting) for line in self.segment_lines()]
        known = self._lines
        whole = [known[key] for key in keys if key in known]
        if len(whole) != len(keys) or len(keys) != self.size.height:
            # drawn afresh, from the state the keys were read from: a line Textual kept from
            # an earlier state must not be filed under this one's key
            self._layout_cache.clear()  # (the visual Textual made of the bar last time)
            self._rich_style_cache.clear()
            self._styles_cache.clear()
            self._dirty_regions.add(self.size.region)
            whole = super().render_lines(self.size.region)
            seen = dict(zip(keys, whole, strict=False))  # (a bar's lines repeat: a few distinct)
            if len(known) + len(seen) > self.KEPT:
                known.clear()
            known.update(seen)
        if crop == self.size.region:
            return whole
        x1, x2 = crop.column_span
        return [strip.crop(x1, x2) for strip in whole[crop.y : crop.bottom]]


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
