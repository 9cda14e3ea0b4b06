"""A guard for callbacks that can outlive their screen, and the heap a playing screen keeps
out of the garbage collector's way.

Timers, ``call_later``/``call_after_refresh`` callbacks and messages posted from the episode
worker arrive on the screen's queue; when the app exits or the screen is switched away in
between, the widgets they query are already gone. Such a callback has nothing left to draw,
so it returns instead of raising ``NoMatches`` into the app (which ends the whole session).
"""

from __future__ import annotations

import functools
import gc
from collections.abc import Callable
from typing import Any, TypeVar

from textual.dom import DOMNode

F = TypeVar("F", bound=Callable[..., Any])


def gone(node: DOMNode) -> bool:
    """The node is on its way out: the app is exiting, or the node is removed or being removed."""
    return (
        not node.is_attached
        or getattr(node, "_closing", False)
        or getattr(node, "_closed", False)
        or getattr(node, "_pruning", False)
    )


def while_shown(method: F) -> F:
    """Run a screen's drawing callback only while the screen and its widgets are still there."""

    @functools.wraps(method)
    def guarded(self: DOMNode, *args: Any, **kwargs: Any) -> Any:
        if gone(self) or any(gone(a) for a in args if isinstance(a, DOMNode)):
            return None
        return method(self, *args, **kwargs)

    return guarded  # type: ignore[return-value]  # wraps keeps the signature F


_held = 0  # seat screens open that froze the heap


def freeze_heap() -> None:
    """Move every object alive now out of the cyclic collector's sight (``gc.freeze``) while a
    seat screen is open. A full collection walks every tracked object: on an episode of 500
    events (the task, the episode, the record's engine, every module) that is ~80 ms, once every
    dozen key presses, about 6 ms a press on average. Frozen, it walks only what came since.
    Reference counting still frees frozen objects; what stays until ``release_heap`` is only
    cyclic garbage that existed at the freeze."""
    global _held
    _held += 1
    gc.freeze()


def release_heap() -> None:
    """The last seat screen closed: the frozen objects go back to the collector (the oldest
    generation), so cyclic garbage among them is freed by the next full collection."""
    global _held
    if _held == 0:
        return
    _held -= 1
    if _held == 0:
        gc.unfreeze()
