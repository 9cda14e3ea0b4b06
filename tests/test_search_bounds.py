"""The one-operation search of impossible tasks is bounded by its own CPU time, not the wall
clock: on a machine busy with other jobs it covers as much as on an idle one."""

from __future__ import annotations

import itertools

from sttui import reachability
from sttui.core.loader import load_task
from tests.conftest import ROOT

TASK = ROOT / "tasks" / "stt" / "logistics" / "digifab-stock-inverness-s1-impossible.yaml"


def test_a_slow_wall_clock_does_not_cut_the_search_short(monkeypatch):
    loaded = load_task(TASK)
    idle = reachability.search(loaded)
    assert idle.cut is None and idle.calls > 100 and not idle.found
    ticks = itertools.count(0.0, 60.0)  # each look at the wall clock: a minute has gone by
    monkeypatch.setattr(reachability.time, "monotonic", lambda: next(ticks))
    monkeypatch.setattr(reachability.time, "time", lambda: next(ticks))
    busy = reachability.search(loaded)
    assert (busy.calls, busy.states, busy.cut) == (idle.calls, idle.states, None)


def test_the_cpu_time_limit_still_stops_a_long_search(monkeypatch):
    loaded = load_task(TASK)
    ticks = itertools.count(0.0, 4.0)  # four CPU seconds per look: the 10 s limit after three
    monkeypatch.setattr(reachability.time, "process_time", lambda: next(ticks))
    cut = reachability.search(loaded)
    assert cut.cut == "the 10 s CPU time limit" and cut.calls == 2
    assert cut.note().endswith("(stopped: the 10 s CPU time limit)")
