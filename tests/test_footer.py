"""The workbench's footer (``sttui.tui.footer``): each key styled once as it mounts, and the
footer drawn exactly as Textual's own."""

from __future__ import annotations

import asyncio
from collections import Counter

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.css.stylesheet import Stylesheet
from textual.screen import Screen
from textual.widgets import Footer as TextualFooter
from textual.widgets import Static
from textual.widgets._footer import FooterKey

from sttui.tui.footer import Footer


class Keys(Screen[None]):
    BINDINGS = [Binding(f"f{i}", f"a{i}", f"Action {i}", id=f"test.a{i}") for i in range(1, 9)]

    def __init__(self, footer: type[TextualFooter], compact: bool = False) -> None:
        super().__init__()
        self.footer, self.compact = footer, compact

    def compose(self) -> ComposeResult:
        yield Static("x")
        yield self.footer(compact=self.compact)


async def _shown(footer: type[TextualFooter], compact: bool = False) -> tuple[Counter[int], list[str], list[set[str]]]:
    """Style applications per footer key while a screen with ``footer`` mounts; the footer's line;
    each key's classes."""
    applied: Counter[int] = Counter()
    original = Stylesheet.apply

    def apply(self: Stylesheet, node, *args, **kwargs):  # type: ignore[no-untyped-def]
        if isinstance(node, FooterKey):
            applied[id(node)] += 1
        return original(self, node, *args, **kwargs)

    class Host(App[None]):
        async def on_mount(self) -> None:
            Stylesheet.apply = apply  # type: ignore[method-assign]
            try:
                screen = Keys(footer, compact)
                await self.push_screen(screen)
                while len(screen.query(FooterKey)) < 9:
                    await asyncio.sleep(0.005)
                await asyncio.sleep(0.05)
            finally:
                Stylesheet.apply = original  # type: ignore[method-assign]
            keys = list(screen.query(FooterKey))
            self.exit((applied, [str(k.render()) for k in keys], [set(k.classes) for k in keys]))

    result = await Host().run_async(headless=True, size=(120, 10))
    assert result is not None
    return result


async def test_each_key_is_styled_once_and_looks_as_textuals_own():
    ours, ours_text, ours_classes = await _shown(Footer)
    theirs, theirs_text, theirs_classes = await _shown(TextualFooter)
    assert len(ours) == len(theirs) == 9  # eight keys and the palette's
    assert max(theirs.values()) >= 3  # Textual's: the compact class added, removed, and the mount
    assert max(ours.values()) == 1
    assert ours_text == theirs_text and ours_classes == theirs_classes


async def test_a_compact_footer_is_left_as_textual_makes_it():
    _, ours_text, ours_classes = await _shown(Footer, compact=True)
    _, theirs_text, theirs_classes = await _shown(TextualFooter, compact=True)
    assert ours_text == theirs_text and ours_classes == theirs_classes
    assert all("-compact" in c for c in ours_classes)
    ours, _, _ = await _shown(Footer, compact=True)
    assert max(ours.values()) == 1


async def _burst(footer: type[TextualFooter]) -> tuple[int, list[str]]:
    """How often ``footer`` composes its keys again after five changes of a screen's keys in one
    handler (the last one hides a key); and the keys it shows after them."""

    class Counted(footer):  # type: ignore[valid-type,misc]
        composed = 0

        def compose(self) -> ComposeResult:
            type(self).composed += 1
            yield from super().compose()

    class Changing(Keys):
        hidden = False

        def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
            return not (self.hidden and action == "a1")

    class Host(App[None]):
        async def on_mount(self) -> None:
            screen = Changing(Counted)
            await self.push_screen(screen)
            while len(screen.query(FooterKey)) < 9:
                await asyncio.sleep(0.005)
            await asyncio.sleep(0.05)
            before = Counted.composed
            for i in range(5):
                screen.hidden = i == 4
                screen.refresh_bindings()
            await asyncio.sleep(0.2)
            self.exit((Counted.composed - before, [str(k.render()) for k in screen.query(FooterKey)]))

    result = await Host().run_async(headless=True, size=(120, 10))
    assert result is not None
    return result


async def test_a_burst_of_key_changes_composes_the_footer_once_with_the_last_keys():
    ours, ours_keys = await _burst(Footer)
    theirs, theirs_keys = await _burst(TextualFooter)
    assert theirs == 5 and ours == 1
    assert ours_keys == theirs_keys
    assert not any("Action 1" in k for k in ours_keys) and any("Action 2" in k for k in ours_keys)
