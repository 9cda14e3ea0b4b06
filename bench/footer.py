"""The footer's share of showing a screen: sttui's ``Footer`` (``sttui/tui/footer.py``) against
Textual's own, in the same process, in alternating rounds.

1. A screen with nine keys in its footer is pushed and popped again: style applications and CPU
   per screen.
2. That screen's keys change five times in one handler (as when a screen opens: mounted,
   focused, its seat's keys settled): how many times the footer is composed, and the CPU.

No target of its own: the footer is a part of the first paint and the play prompt (issue 26).

    python bench/footer.py [--rounds 5] [--screens 20]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import cpu, fmt, header, median
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.css.stylesheet import Stylesheet
from textual.screen import Screen
from textual.widgets import Footer as TextualFooter
from textual.widgets import Static
from textual.widgets._footer import FooterKey

from sttui.tui.footer import Footer

APPLIED = [0]
_apply = Stylesheet.apply


def _counted(self: Stylesheet, node: Any, *args: Any, **kwargs: Any) -> Any:
    APPLIED[0] += 1
    return _apply(self, node, *args, **kwargs)


class Keys(Screen[None]):
    BINDINGS = [Binding(f"f{i}", f"a{i}", f"Act {i}") for i in range(1, 10)]  # (all fit: nothing dropped)

    def __init__(self, footer: type[TextualFooter]) -> None:
        super().__init__()
        self.footer = footer

    def compose(self) -> ComposeResult:
        yield Static("x")
        yield self.footer()


async def _settled(screen: Screen[None]) -> None:
    while len(screen.query(FooterKey)) < 10:
        await asyncio.sleep(0.002)
    await asyncio.sleep(0.02)


class Bench(App[dict[str, list[float]]]):
    def __init__(self, rounds: int, screens: int) -> None:
        super().__init__()
        self.rounds, self.screens = rounds, screens

    async def on_mount(self) -> None:
        out: dict[str, list[float]] = {}
        Stylesheet.apply = _counted  # type: ignore[method-assign]
        for i in range(self.rounds + 1):  # (the first round warms up)
            sides = (("textual", TextualFooter), ("sttui", Footer))
            for name, footer in sides if i % 2 else sides[::-1]:
                APPLIED[0], t0 = 0, cpu()
                for _ in range(self.screens):
                    screen = Keys(footer)
                    await self.push_screen(screen)
                    await _settled(screen)
                    await self.pop_screen()
                spent, applied = cpu() - t0, APPLIED[0]
                screen = Keys(footer)
                await self.push_screen(screen)
                await _settled(screen)
                composed = [0]
                compose = type(screen.query_one(footer)).compose

                def counting(widget: Any, compose: Any = compose, composed: list[int] = composed) -> Any:
                    composed[0] += 1
                    return compose(widget)

                type(screen.query_one(footer)).compose = counting  # type: ignore[method-assign]
                t1 = cpu()
                for _ in range(5):
                    screen.refresh_bindings()
                await asyncio.sleep(0.1)
                burst = cpu() - t1
                type(screen.query_one(footer)).compose = compose  # type: ignore[method-assign]
                await self.pop_screen()
                if i:
                    for key, value in (
                        (f"{name} cpu", spent / self.screens),
                        (f"{name} applied", applied / self.screens),
                        (f"{name} composed", composed[0]),
                        (f"{name} burst", burst),
                    ):
                        out.setdefault(key, []).append(value)
        Stylesheet.apply = _apply  # type: ignore[method-assign]
        self.exit(out)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--screens", type=int, default=20)
    args = parser.parse_args()
    header("the footer: sttui's against Textual's")
    out = Bench(args.rounds, args.screens).run(headless=True, size=(120, 20))
    assert out is not None
    for name in ("textual", "sttui"):
        print(
            f"   {name:<8} a screen with a 9-key footer: CPU {fmt(out[f'{name} cpu'])}, "
            f"{median(out[f'{name} applied']):.0f} style applications; five key changes in one handler: "
            f"composed {median(out[f'{name} composed']):.0f} time(s), CPU {fmt(out[f'{name} burst'])}"
        )
    ratio = median(out["sttui cpu"]) / median(out["textual cpu"])
    print(f"=> a screen with a footer: {ratio:.2f}x the CPU of one with Textual's footer")


if __name__ == "__main__":
    main()
