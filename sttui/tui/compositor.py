"""A compositor that, for a partial update, renders only the widgets that overlap what changed.

Textual's ``Compositor.render_partial_update`` crops to the bounding box of every changed region
and renders each widget in it: at a key press in the play screen the status line (the top row)
and the call entry (the bottom rows) change with the conversation, so the box is the whole
screen and the tool pane, which has not changed, is rendered too (from its line cache, then cut
into the frame's pieces and thrown away). What reaches the terminal is the same: only the
changed spans are written, and within them the same widget is in front."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual._compositor import ChopsUpdate, Compositor
from textual.geometry import Region

if TYPE_CHECKING:
    from textual.widget import Widget


class SparseCompositor(Compositor):
    """``Compositor`` whose partial update leaves out the widgets clear of every changed region."""

    def render_partial_update(self) -> ChopsUpdate | None:
        """As ``Compositor.render_partial_update``, with the visible widgets narrowed to those
        overlapping a changed region while the frame's pieces are rendered: a widget clear of
        them all would fill only pieces outside the changed spans, which are not written. The
        cuts (where each widget starts and ends on each line) are worked out from every widget
        first: they are kept for later frames."""
        changed = self._dirty_regions.copy()
        self._dirty_regions.clear()
        if not changed:
            return None
        crop = Region.from_union(changed).intersection(self.size.region)
        spans = list(self._regions_to_spans(changed))
        is_rendered_line = {y for y, _, _ in spans}.__contains__
        cuts = self.cuts
        every = self.visible_widgets
        narrowed: dict[Widget, tuple[Region, Region]] = {}
        for widget, (region, clip) in every.items():
            shown = region.intersection(clip)
            if any(shown.overlaps(r) for r in changed):
                narrowed[widget] = (region, clip)
        self._visible_widgets = narrowed
        try:
            chops = self._render_chops(crop, is_rendered_line)
        finally:
            if self._visible_widgets is narrowed:  # (as it was, unless something laid it out again)
                self._visible_widgets = every
        return ChopsUpdate(chops, spans, [cut_set[1:] for cut_set in cuts])
