"""The engine's module-level caches are shared by the threads that step episodes at once
(``sttui rl serve``, the Inspect bridge); bounding them must never raise there. Trimming with
``cache.pop(next(iter(cache)))`` raised ``KeyError`` or ``RuntimeError`` when another thread
changed the cache in between (six threads, each inserting and trimming, hit both)."""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

from sttui.core import report_facts
from sttui.core.caches import evict_oldest


def _hammer(work: Callable[[int], None], threads: int = 6) -> list[str]:
    """Run ``work(i)`` on ``threads`` threads switching as often as Python allows; the errors."""
    errors: list[str] = []

    def run(i: int) -> None:
        try:
            work(i)
        except Exception as exc:  # what the old trimming raised
            errors.append(f"{type(exc).__name__}: {exc}")

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        pool = [threading.Thread(target=run, args=(i,)) for i in range(threads)]
        for t in pool:
            t.start()
        for t in pool:
            t.join()
    finally:
        sys.setswitchinterval(interval)
    return errors


def test_evicting_the_oldest_while_other_threads_insert_and_evict_never_raises():
    cache: dict[Any, int] = {}

    def work(i: int) -> None:
        for n in range(20_000):
            cache[(i, n)] = n
            evict_oldest(cache, 4)

    assert _hammer(work) == []
    assert len(cache) <= 4


def test_evicting_keeps_the_newest_in_order():
    cache = {k: k for k in range(10)}
    evict_oldest(cache, 3)
    assert list(cache) == [7, 8, 9]
    evict_oldest(cache, 5)  # nothing over: nothing goes
    assert list(cache) == [7, 8, 9]


def test_a_tell_caches_first_readings_from_many_threads_at_once():
    """``report_facts._initial_found`` (one entry per task, at most 256) read from six threads for
    4,000 different tasks: every call answers, none raises."""

    def work(i: int) -> None:
        for n in range(4_000):
            task = SimpleNamespace(initial_state={"n": n})
            assert report_facts._initial_found(task) == {}

    assert _hammer(work) == []
    assert len(report_facts._INITIAL_FOUND) <= 256
