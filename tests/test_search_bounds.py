"""The one-operation search of impossible tasks: bounded by its own CPU time, not the wall
clock (on a machine busy with other jobs it covers as much as on an idle one), and the copy
of an episode it may start from instead of a replay goes on exactly as the replay."""

from __future__ import annotations

import itertools

import pytest

from sttui.authoring import reachability
from sttui.core.actions import ToolCall
from sttui.core.checklist import evaluate_checklist
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


IMPOSSIBLE = sorted((ROOT / "tasks" / "stt").glob("*/*-impossible.yaml"))


@pytest.mark.parametrize("path", IMPOSSIBLE, ids=lambda p: p.stem)
def test_a_copied_episode_goes_on_exactly_as_a_replayed_one(path):
    """The search may copy the episode after a costly prefix instead of replaying it: for the
    first 60 candidate calls after two naive-plan steps, the copy and the replay reach the same
    state, clock, fired triggers and checklist verdicts, and the original is left as it was."""
    loaded = load_task(path)
    steps = [ToolCall(s.tool, dict(s.args)) for s in loaded.task.naive_plan if s.tool is not None][:2]
    base = reachability._replay(loaded, steps)
    before = base.state_hash()
    for call in reachability.candidate_calls(loaded.task, loaded.env_cls.tool_specs, base.env.state)[:60]:
        replayed = reachability._replay(loaded, [*steps, call])
        copied = reachability._fork(base)
        copied.apply(ToolCall(call.tool, dict(call.args)))
        assert copied.state_hash() == replayed.state_hash(), call
        assert copied.env.now == replayed.env.now and copied.triggers.fired == replayed.triggers.fired
        verdicts = [(i.id, i.passed) for i in evaluate_checklist(copied)]
        assert verdicts == [(i.id, i.passed) for i in evaluate_checklist(replayed)], call
    assert base.state_hash() == before
