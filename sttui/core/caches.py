"""Bounded module-level caches that threads share: ``sttui rl serve`` and the Inspect bridge
step several episodes at once, on several threads, through the same engine caches."""

from __future__ import annotations

from typing import Any


def evict_oldest(cache: dict[Any, Any], keep: int) -> None:
    """Drop the oldest entries of ``cache`` until at most ``keep`` remain.

    ``cache.pop(next(iter(cache)))`` raises when another thread changes the cache in between:
    ``KeyError`` (it took that key first) or ``RuntimeError`` (an insert while the first key
    was read). Here neither is an error: the loop looks again."""
    while len(cache) > keep:
        try:
            cache.pop(next(iter(cache)), None)
        except (StopIteration, RuntimeError):  # emptied by another thread, or changed mid-read
            continue
