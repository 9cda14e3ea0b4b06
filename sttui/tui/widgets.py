"""Widgets shared by the play screens: the call entry, the status line, transcript items."""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any, Self

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.highlighter import JSONHighlighter
from rich.measure import Measurement
from rich.padding import Padding
from rich.segment import Segment
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.geometry import Region, Size
from textual.reactive import reactive
from textual.scrollbar import ScrollBar
from textual.strip import Strip
from textual.suggester import Suggester
from textual.visual import Visual, visualize
from textual.widget import Widget, _RenderCache
from textual.widgets import Input, Static

from sttui.core.callsyntax import complete, result_summary
from sttui.core.env import ToolSpec
from sttui.textout import PART_GAP
from sttui.tui.safetable import DataTable
from sttui.tui.scrollbars import steady_vertical_scrollbar

FOLD_LINES = 8

if TYPE_CHECKING:
    _WidgetBase = Widget
else:
    _WidgetBase = object


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

    _typed = False

    def _watch_value(self, value: str) -> None:
        """As Input's, without the layout of the whole screen that its new ``virtual_size`` (the
        text's width) asks for on every key typed: the entry's size is fixed (100% by 3), and
        it scrolls its text with the size as it is set."""
        self._typed = True
        try:
            super()._watch_value(value)
        finally:
            self._typed = False

    def refresh(self, *regions: Region, repaint: bool = True, layout: bool = False, recompose: bool = False) -> Self:
        return super().refresh(*regions, repaint=repaint, layout=layout and not self._typed, recompose=recompose)

    def action_accept_completion(self) -> None:
        if self._suggestion:
            self.value = self._suggestion
            self.cursor_position = len(self.value)
        else:
            self.screen.focus_next()


def wrap_shape(text: str) -> tuple[int, ...]:
    """The cell widths of the words and the spaces between them: two texts of the same shape
    wrap to the same lines at any width (a clock's ``00:12`` becomes ``00:13``)."""
    return tuple(cell_len(part) for part in re.split(r"(\s+)", text))


def fit_parts(line: Text, width: int) -> Text:
    """``line`` broken only where its parts meet, so a phrase such as ``paused (F5 starts)``
    is never cut in two at 80 columns: each part starts a new line when it would not fit
    beside the one before (the gap is dropped there). A part wider than the line still wraps."""
    plain = line.plain
    if width <= 0 or cell_len(plain) <= width:
        return line
    parts: list[tuple[Text, Text]] = []  # (the gap before it, a part)
    gap, pos = Text(), 0
    for m in PART_GAP.finditer(plain):
        parts.append((gap, line[pos : m.start()]))
        gap, pos = line[m.start() : m.end()], m.end()
    parts.append((gap, line[pos:]))
    out, used = Text(), 0
    for gap, part in parts:
        size = cell_len(part.plain)
        if not size:
            continue
        if used and used + cell_len(gap.plain) + size > width:
            out.append("\n")
            used = 0
        elif used:
            out.append_text(gap)
            used += cell_len(gap.plain)
        out.append_text(part)
        used += size
    return out


class StatusLine(Static):
    """A seat screen's status line, broken only between its parts (``fit_parts``). Updated on
    every event and each second, but re-laid out only when its wrapping can change: a Static's
    update re-lays out the whole screen, which costs more than the rest of a key press. Same
    text: nothing at all."""

    def __init__(self, line: Text, *, id: str | None = None) -> None:
        super().__init__(line, id=id)
        self._line, self._plain, self._shape = line, line.plain, wrap_shape(line.plain)

    def show(self, line: Text) -> bool:
        """Show ``line`` at the width there is; whether what is shown changed."""
        self._line = line
        shown = fit_parts(line, self.content_size.width)
        plain = shown.plain
        if plain == self._plain:
            return False
        shape = wrap_shape(plain)
        self.update(shown, layout=shape != self._shape)
        self._plain, self._shape = plain, shape
        return True

    def on_resize(self) -> None:
        self.show(self._line)


class WrappedJSON:
    """A tool result pretty-printed as JSON, every line wrapped at the width it is given.

    A model in the seat reads the result whole, so a person must too: a long value wraps
    under its key (a word longer than the line folds), never cropped at the pane's edge. The
    indentation of a wrapped line is kept, up to half the width, so nesting stays legible."""

    highlighter = JSONHighlighter()

    def __init__(self, data: Any):
        self.lines = json.dumps(data, indent=2, ensure_ascii=False).splitlines()

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = max(1, options.max_width)
        for line in self.lines:
            body = line.lstrip(" ")
            indent = min(len(line) - len(body), width // 2)
            text = self.highlighter(Text(body, overflow="fold", no_wrap=False))
            # a line that fits is its own row: as ``wrap`` gives it, without dividing it
            rows = [text] if cell_len(body) <= width - indent else text.wrap(console, width - indent, overflow="fold")
            for row in rows:
                if indent:
                    yield Segment(" " * indent)
                yield from row.render(console)
                yield Segment.line()

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        longest = max((len(line) for line in self.lines), default=1)
        return Measurement(1, min(longest, options.max_width))


def result_text(result: dict[str, Any]) -> WrappedJSON:
    return WrappedJSON(result)


def field_value(value: Any) -> str:
    """A plain value as a person reads it: text as it is, numbers and dates as written,
    yes/no for a flag."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def fields_text(fields: dict[str, Any], depth: int = 0) -> Text:
    """Labelled fields, one a line (the user's profile and withheld details), not a JSON dict:
    a nested mapping indents under its label, a list of plain values joins with commas, and
    a trait with no value (``wants reassurance:``) is its label alone. Labels are the keys a
    model is given, unchanged; nothing is markup, so a value is shown as it is written."""
    out = Text()
    pad = "  " * depth
    for key, value in fields.items():
        if out:
            out.append("\n")
        out.append(f"{pad}{key}", "bold")
        if isinstance(value, dict) and value:
            out.append("\n")
            out.append_text(fields_text(value, depth + 1))
        elif isinstance(value, list) and any(isinstance(v, dict | list) for v in value):
            out.append("\n")
            out.append_text(fields_text({f"{i + 1}.": v for i, v in enumerate(value)}, depth + 1))
        elif isinstance(value, list):
            out.append(": " + ", ".join(field_value(v) for v in value))
        elif value is not None and value != {}:
            out.append(": " + field_value(value))
    return out


class LaidOutOnce(_WidgetBase):
    """A widget whose new size needs no second layout of the screen.

    Textual lays the screen out again after any widget's size changes (its ``virtual_size``
    is a layout reactive), yet a transcript item, or the pane holding them, was sized by the
    layout that reports the change: nothing moves in the second one. So a key press that adds
    a call and its result lays the screen out and paints it once, not twice. (A scrollbar that
    appears still lays it out again: the content is narrower.)

    Nor a second frame: a widget whose size the layout changed (a new item, the result that
    folds) is painted whole in the layout's own frame (its region is among the regions that
    frame repaints), so a repaint it asked for before the layout is already on screen; and the
    pane's scrollbar, which the layout moves, is painted in that frame too, not in one of its own.

    A mixin, listed before the widget class: Textual takes a widget's styles from its first
    widget base, which must stay the widget (a Static, a VerticalScroll)."""

    def _size_updated(self, size: Size, virtual_size: Size, container_size: Size, layout: bool = True) -> bool:
        resized = self._size != size
        changed = super()._size_updated(size, virtual_size, container_size, layout=False)
        if resized:
            self._repaint_required = False
        for bar in (self._vertical_scrollbar, self._horizontal_scrollbar):
            if bar is not None and bar._repaint_required:
                shown = self.screen._compositor.visible_widgets.get(bar)
                if shown is not None:
                    self.screen._compositor._dirty_regions.add(shown[0].intersection(shown[1]))
                    bar._repaint_required = False
        return changed


class Transcript(LaidOutOnce, VerticalScroll):
    """A seat's conversation pane: its items, newest last.

    ``BLANK`` (Textual's switch for a container with no border and no content of its own): its
    background is drawn as plain blank lines, not through the styles cache, which every item
    mounted clears; at every key press that redrew each line of the pane beneath its items."""

    BLANK = True

    @property
    def vertical_scrollbar(self) -> ScrollBar:
        """A ``SteadyScrollBar``: the pane grows at every key press, its thumb mostly does not
        move."""
        return steady_vertical_scrollbar(self)


class TranscriptText(LaidOutOnce, Static):
    """A message, a call or a notice in a transcript."""


class RenderedOnce:
    """A renderable that does not change, rendered once for the width it is given: Textual
    renders a widget's content to measure its height and again to paint it, and a result's
    highlighted JSON is the costliest part of a key press's rendering."""

    def __init__(self, renderable: RenderableType) -> None:
        self.renderable = renderable
        self._width = -1
        self._lines: list[list[Segment]] = []

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        line_end = Segment.line()
        for line in self.lines(console, options):
            yield from line
            yield line_end

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement.get(console, options, self.renderable)

    def lines(self, console: Console, options: ConsoleOptions) -> list[list[Segment]]:
        """Its lines at ``options.max_width``, rendered once for that width (whole: whoever
        renders it crops it to its height)."""
        if options.max_width != self._width:
            self._lines = console.render_lines(self.renderable, options.update(height=None), pad=False)
            self._width = options.max_width
        return self._lines

    def forget(self) -> None:
        """Let the lines go (a folded result keeps none: a long one's are megabytes)."""
        self._width, self._lines = -1, []


class ResultFold(LaidOutOnce, Widget, can_focus=True):
    """A tool result that folds to its one-line title (``▶ ✓ tool: summary``); unfolded
    (``▼``), its body follows, whole. Enter or a click on it toggles it.

    One widget where Textual's ``Collapsible`` mounts four (itself, its title, its contents
    and the body): a key press that adds a result builds, styles and lays out one widget, and
    a fold is one repaint. A fold made by the screen (the newest result's predecessor) does
    not scroll; one the person asks for brings the result into sight."""

    COMPONENT_CLASSES = {"result-fold--title"}
    BINDINGS = [Binding("enter", "toggle_fold", "Fold or unfold this result", show=False, id="result.toggle")]

    collapsed: reactive[bool] = reactive(True, layout=True, init=False)
    """Only the title shows (the body is one key away)."""

    def __init__(self, result: dict[str, Any], title: str, *, collapsed: bool, classes: str | None = None) -> None:
        super().__init__(classes=classes)
        self.title = title
        self.body = RenderedOnce(Padding(WrappedJSON(result), (1, 1, 0, 4)))  # (where Collapsible's contents sat)
        self.set_reactive(ResultFold.collapsed, collapsed)

    def render_title(self) -> Text:
        symbol = "▶" if self.collapsed else "▼"
        style = self.get_component_rich_style("result-fold--title")
        return Text(f" {symbol} {self.title} ", style=style, no_wrap=True, overflow="ellipsis")  # (the body has it all)

    def render(self) -> RenderableType:
        """(What the paint shows, as one renderable: ``_render_content`` paints it line by line.)"""
        title = self.render_title()
        return Group(title) if self.collapsed else Group(title, self.body)  # (rich lays out the title: one line)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        """The title's line, and unfolded the body's lines: counted from the lines the body
        keeps for its width, not by rendering it whole to count them (Textual's way), which
        rendered a long result once more at every key press that adds one."""
        if not width:
            return 0
        return 1 if self.collapsed else 1 + len(self._body_lines(width))

    def _body_lines(self, width: int) -> list[list[Segment]]:
        app = self.app
        return self.body.lines(app.console, app.console_options.update(highlight=False, width=width, height=None))

    def _render_content(self) -> None:
        """Its strips for the paint: the title rendered as Textual renders it, the body's
        lines taken as kept, each under the widget's style (as ``Visual.to_strips`` gives
        them, without splitting a rendering of the whole body into lines again)."""
        width = self.size.width
        base = self.visual_style.rich_style
        visual = visualize(self, Group(self.render_title()), markup=False)  # (as rich lays it out)
        strips = Visual.to_strips(self, visual, width, 1, self.visual_style)
        if not self.collapsed:
            strips += [Strip(list(Segment.apply_style(line, base))) for line in self._body_lines(width)]
        self._render_cache = _RenderCache(self.size, strips)
        self._dirty_regions.clear()

    def watch_collapsed(self, collapsed: bool) -> None:
        if collapsed:
            self.body.forget()

    def action_toggle_fold(self) -> None:
        self.collapsed = not self.collapsed
        self.call_after_refresh(self.scroll_visible)

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.action_toggle_fold()


def transcript_item(
    item: dict[str, Any], me: str = "agent", collapsed: bool | None = None
) -> TranscriptText | ResultFold:
    """A widget for one item of a seat's view. A tool result folds when ``collapsed`` says
    so, or by default when it is longer than FOLD_LINES; folded, its title summarises it."""
    kind = item["type"]
    if kind == "message":
        sender = item["from"]
        label = "you" if sender == me else sender
        widget = TranscriptText(Text.assemble((f"{label}: ", "bold"), item["text"]), classes=f"msg from-{sender}")
        return widget
    if kind == "tool_call":
        args = ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in item["args"].items())
        return TranscriptText(Text.assemble(("▶ ", "bold"), (item["tool"], "bold cyan"), f"({args})"), classes="call")
    if kind == "tool_result":
        result = item["result"]
        ok = result.get("success")
        if collapsed is None:
            collapsed = json.dumps(result, indent=2, ensure_ascii=False).count("\n") + 1 > FOLD_LINES
        title = f"{'✓' if ok else '✗'} {item['tool']}: {result_summary(result)}"
        return ResultFold(result, title, collapsed=collapsed, classes="result ok" if ok else "result failed")
    return TranscriptText(Text.assemble(("notice: ", "bold"), item["text"]), classes="notice")


class WideTable(DataTable[Any]):
    """A row table wider than the screen (a case's many fields at 80 columns): ← and → move
    two thirds of the visible width at a time instead of one character, so the last column is
    a few presses away rather than dozens."""

    BINDINGS = [
        Binding("right", "page_right", "Scroll right", show=False, id="table.page_right"),
        Binding("left", "page_left", "Scroll left", show=False, id="table.page_left"),
    ]

    def _page(self) -> int:
        """Two thirds of what scrolls: the width less the fixed columns (none has row labels)."""
        fixed = sum(c.get_render_width(self) for c in self.ordered_columns[: self.fixed_columns])
        return max(8, (self.scrollable_content_region.width - fixed) * 2 // 3)

    def action_page_right(self) -> None:
        self.scroll_to(x=self.scroll_x + self._page(), animate=False)

    def action_page_left(self) -> None:
        self.scroll_to(x=max(0, self.scroll_x - self._page()), animate=False)


class SessionTable(WideTable):
    """Home's sessions: enter opens the replay of the episode under the cursor, and the footer
    says so (a table's own enter is hidden there)."""

    BINDINGS = [Binding("enter", "select_cursor", "Replay", id="home.replay")]
