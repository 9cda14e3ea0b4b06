"""A progress line on the terminal for a command that reads or writes a large record (report,
export, import-ratings): it appears only once the work has taken more than a second, only when
stderr is a terminal (never in a pipe, a file or a test's captured output), and is wiped before
the command prints its result."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TextIO, TypeVar

from sttui.store.secrets import unscrubbed

T = TypeVar("T")

DELAY = 1.0  # seconds of work before the line appears
EVERY = 0.1  # seconds between redraws
WIDTH = 30  # characters of the bar


class Progress:
    """``Progress("report", total)``: ``track(items)`` counts items as they pass, or ``at(n)``
    says how many are done; ``step(label)`` names a stage after the reading; ``done()`` wipes
    the line. ``unit`` and ``verb`` name what is counted ("episodes", "read")."""

    def __init__(
        self,
        what: str,
        total: int | None,
        stream: TextIO | None = None,
        clock: Callable[[], float] = time.monotonic,
        *,
        unit: str = "episodes",
        verb: str = "read",
    ) -> None:
        self.what, self.total, self.unit, self.verb = what, total, unit, verb
        stream = stream if stream is not None else sys.stderr
        self.stream = unscrubbed(stream)  # (the line is this module's own words and numbers)
        self.clock = clock
        self.start = clock()
        self.shown = False
        self.count = 0
        self._last = 0.0
        self.live = _is_terminal(self.stream)

    def track(self, items: Iterable[T]) -> Iterator[T]:
        for item in items:
            self.count += 1
            if self.live and not self.count % 500:
                self._draw(self._bar())
            yield item

    def at(self, count: int | None) -> None:
        """``count`` done so far; None: the work is over (the line is wiped)."""
        if count is None:
            self.done()
            return
        self.count = count
        if self.live:
            self._draw(self._bar())

    def step(self, label: str) -> None:
        if self.live:
            self._draw(f"{self.what}: {label}…", force=True)

    def done(self) -> None:
        if self.shown:
            self.stream.write("\r\x1b[2K")
            self.stream.flush()
            self.shown = False

    def _bar(self) -> str:
        if not self.total:
            return f"{self.what}: {self.count:,} {self.unit} {self.verb}"
        share = min(1.0, self.count / self.total)
        filled = int(share * WIDTH)
        return f"{self.what}: [{'#' * filled}{'.' * (WIDTH - filled)}] {self.count:,}/{self.total:,} {self.unit}"

    def _draw(self, text: str, force: bool = False) -> None:
        now = self.clock()
        if now - self.start < DELAY or (not force and now - self._last < EVERY):
            return
        self._last = now
        self.stream.write("\r\x1b[2K" + text)
        self.stream.flush()
        self.shown = True


def _is_terminal(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False
