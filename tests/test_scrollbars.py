"""The conversation pane's scrollbar keeps the lines it drew while it would draw the same ones:
a twin pane with Textual's own scrollbar, driven through the same states, shows the same cells
in every one of them; and a pane that grows with its thumb in place is not repainted line by
line again."""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.geometry import Offset, Region
from textual.scrollbar import ScrollBar
from textual.widgets import Static

from sttui.tui.scrollbars import SteadyScrollBar, steady_vertical_scrollbar
from tests.conftest import ROOT
from tests.tui_helpers import play_alone, started

INSULIN = ROOT / "tasks/stt/logistics/insulin-reefer-fault-st2-easy.yaml"


class Steady(VerticalScroll):
    @property
    def vertical_scrollbar(self) -> ScrollBar:
        return steady_vertical_scrollbar(self)


class Twins(App[None]):
    """Two panes side by side, the same items in each: one with the steady scrollbar, one
    with Textual's."""

    CSS = "Horizontal { height: 1fr; } VerticalScroll { width: 1fr; height: 1fr; }"

    def compose(self) -> ComposeResult:
        from textual.containers import Horizontal

        with Horizontal():
            yield Steady(*[Static(f"item {i}") for i in range(60)], id="steady")
            yield VerticalScroll(*[Static(f"item {i}") for i in range(60)], id="plain")


def cells(bar: ScrollBar) -> list[list[tuple[str, object]]]:
    lines = bar.render_lines(Region(0, 0, bar.size.width, bar.size.height))
    return [[(segment.text, segment.style) for segment in strip] for strip in lines]


@pytest.mark.parametrize("no_color", [False, True])
async def test_the_steady_scrollbar_draws_what_textuals_draws_in_every_state(monkeypatch, no_color):
    """In colour, and under NO_COLOR (the app's Monochrome line filter takes the colours out)."""
    if no_color:
        monkeypatch.setenv("NO_COLOR", "1")  # (Textual reads it once, as the app is made)
    app = Twins()
    async with app.run_test(size=(60, 20)) as pilot:
        await pilot.pause()
        steady, plain = app.query_one("#steady"), app.query_one("#plain")
        assert type(steady.vertical_scrollbar) is SteadyScrollBar
        assert type(plain.vertical_scrollbar) is ScrollBar
        assert bool(app.get_line_filters()) and any(type(f).__name__ == "Monochrome" for f in app._filters) is no_color

        async def both(change) -> None:
            for pane in (steady, plain):
                await change(pane)
            await pilot.pause()
            assert cells(steady.vertical_scrollbar) == cells(plain.vertical_scrollbar)

        async def nothing(pane):
            return None

        async def grow(pane):
            await pane.mount_all([Static(f"more {i}") for i in range(3)])

        async def grow_a_lot(pane):
            await pane.mount_all([Static(f"lots {i}") for i in range(200)])

        async def to_end(pane):
            pane.scroll_end(animate=False)

        async def to_top(pane):
            pane.scroll_home(animate=False)

        async def down_a_line(pane):
            pane.scroll_relative(y=1, animate=False)

        async def hover(pane):
            pane.vertical_scrollbar.mouse_over = True

        async def unhover(pane):
            pane.vertical_scrollbar.mouse_over = False

        async def grab(pane):
            pane.vertical_scrollbar.grabbed = Offset(0, 0)

        async def let_go(pane):
            pane.vertical_scrollbar.grabbed = None

        async def tint(pane):  # added by the styles cache, after the bar's own segments
            pane.vertical_scrollbar.styles.tint = "red 40%"

        async def untint(pane):
            pane.vertical_scrollbar.styles.tint = "red 0%"

        async def shrink(pane):
            await pane.remove_children(list(pane.children)[:250])

        states = [nothing, grow, to_end, grow, to_end, down_a_line, to_top, hover, grab, let_go, unhover, tint, untint]
        creeping = [grow, to_end] * 12  # the thumb shrinks and moves by eighths of a cell
        for change in [*states, *creeping, grow_a_lot, to_end, shrink, to_end]:
            await both(change)
        for theme in ("textual-light", "nord"):  # the colours the bar is drawn in
            app.theme = theme
            await pilot.pause()
            assert cells(steady.vertical_scrollbar) == cells(plain.vertical_scrollbar)
        await pilot.resize_terminal(50, 14)
        await pilot.pause()
        assert cells(steady.vertical_scrollbar) == cells(plain.vertical_scrollbar)


async def test_a_line_the_bar_has_drawn_before_is_not_drawn_again(monkeypatch):
    """Growth with the thumb in place draws nothing; a thumb that moves draws its new lines once,
    and moving back, or there again, draws nothing (the lines are those Textual drew)."""
    drawn: list[int] = []
    textual_path = ScrollBar.render_lines

    def counted(self, crop):  # (the plain twin's bar is drawn again at every layout)
        if isinstance(self, SteadyScrollBar):
            drawn.append(crop.height)
        return textual_path(self, crop)

    monkeypatch.setattr(ScrollBar, "render_lines", counted)
    app = Twins()
    async with app.run_test(size=(60, 20)) as pilot:
        await pilot.pause()
        steady = app.query_one("#steady", Steady)
        await steady.mount_all([Static(f"lots {i}") for i in range(400)])
        steady.anchor()  # as the play screen's full conversation is: new items land in sight
        await pilot.pause()
        bar = steady.vertical_scrollbar
        crop = Region(0, 0, bar.size.width, bar.size.height)
        at_end = cells(bar)
        drawn.clear()
        await steady.mount(Static("one more"))  # the thumb, one cell at the end, stays put
        await pilot.pause()
        assert cells(bar) == at_end
        assert drawn == []
        app.theme = "nord"  # every line in new colours: drawn Textual's way, once
        await pilot.pause()
        at_end = cells(bar)
        assert drawn
        drawn.clear()
        steady.scroll_home(animate=False)  # the thumb at the top: the track below it is new
        await pilot.pause()
        at_top = cells(bar)
        assert drawn and at_top != at_end
        drawn.clear()
        for _ in range(2):  # back and forth: every line seen before
            steady.scroll_end(animate=False)
            await pilot.pause()
            assert cells(bar) == at_end
            steady.scroll_home(animate=False)
            await pilot.pause()
            assert cells(bar) == at_top
        assert drawn == []
        assert [s.text for s in bar.render_lines(crop.intersection(Region(0, 3, 1, 4)))] == [" "] * 4


async def test_the_play_screens_conversation_has_the_steady_scrollbar(tmp_path):
    async with play_alone(f"sqlite:///{tmp_path / 'p.db'}", INSULIN).run_test(size=(80, 24)) as pilot:
        screen = await started(pilot, "PlayScreen")
        assert type(screen.query_one("#conversation").vertical_scrollbar) is SteadyScrollBar


async def test_a_new_line_is_drawn_from_the_state_its_key_was_read_from():
    """A state Textual has not been told of yet (a reactive set without a repaint) still draws
    the bar afresh: lines Textual kept from the earlier state are not filed under the new one."""
    app = Twins()
    async with app.run_test(size=(60, 20)) as pilot:
        await pilot.pause()
        steady, plain = app.query_one("#steady"), app.query_one("#plain")
        steady.scroll_end(animate=False)
        plain.scroll_home(animate=False)
        await pilot.pause()
        app.theme = "nord"  # new lines for the bar at the end: Textual draws them, and keeps them
        await pilot.pause()
        bar = steady.vertical_scrollbar
        at_end = cells(bar)
        bar.set_reactive(ScrollBar.position, 0)  # (no refresh: Textual's caches still hold the end)
        at_top = cells(bar)
        assert at_top == cells(plain.vertical_scrollbar) and at_top != at_end
