"""The person's working clock (``running.session.HumanClock``): what each start and pause records."""

from __future__ import annotations

import itertools

from sttui.running import session
from sttui.running.session import HumanClock


def test_a_start_records_the_time_worked_so_far_and_none_since(monkeypatch):
    """A start after a pause records exactly the total the pause recorded: no time is worked
    between the start and its record (a read of the clock a moment later, rounded, said 0.454
    against the pause's 0.453)."""
    ticks = itertools.count(0.0, 0.0006)  # every read of the monotonic clock is 0.6 ms later
    monkeypatch.setattr(session.time, "monotonic", lambda: next(ticks))
    recorded: list[tuple[str, float]] = []
    clock = HumanClock(lambda kind, seconds, reason: recorded.append((kind, seconds)))
    clock.start()
    clock.pause()
    clock.start()
    clock.pause()
    starts = [s for k, s in recorded if k == "clock_started"]
    pauses = [s for k, s in recorded if k == "clock_paused"]
    assert starts == [0.0, pauses[0]]
    assert pauses[1] > pauses[0] > 0
