"""The trigger runtime's boundaries, table by table: which calls match, how often a counted
failure fails, what enabling lifts, what each effect does to state and clock, and the nth
matching call. Written to kill the mutants that survived in ``core/triggers.py``."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from sttui.core import state as st
from sttui.core.task import Trigger
from sttui.core.triggers import Block, TriggerState, activated_by_call, apply_effects, args_match


@pytest.mark.parametrize(
    ("match", "args", "expected"),
    [
        (None, {}, True),
        (None, {"x": 1}, True),
        (["TRK-7"], {"vehicle_id": "TRK-7"}, True),
        (["TRK-7"], {"vehicle_id": "TRK-8"}, False),
        (["TRK-7", "TRK-9"], {"a": "TRK-9"}, True),
        ([7], {"n": 7}, True),
        ([True], {"flag": True}, True),
        (["TRK-7"], {"ids": ["TRK-7"]}, False),  # a list argument is not looked into
        (["TRK-7"], {}, False),
        ({"vehicle_id": "TRK-7"}, {"vehicle_id": "TRK-7", "other": 1}, True),
        ({"vehicle_id": "TRK-7"}, {"vehicle_id": "TRK-8"}, False),
        ({"vehicle_id": "TRK-7"}, {}, False),
        ({"vehicle_id": ["TRK-7", "TRK-8"]}, {"vehicle_id": "TRK-8"}, True),
        ({"vehicle_id": ["TRK-7", "TRK-8"]}, {"vehicle_id": "TRK-9"}, False),
        ({"ids": ["a", "b"]}, {"ids": ["a", "b"]}, True),  # a list value against a list: equal
        ({"ids": ["a", "b"]}, {"ids": ["a"]}, False),
        ({"a": 1, "b": 2}, {"a": 1, "b": 2}, True),
        ({"a": 1, "b": 2}, {"a": 1, "b": 3}, False),
        ({}, {"a": 1}, True),
    ],
)
def test_args_match(match, args, expected):
    assert args_match(match, args) is expected


@pytest.mark.parametrize("times", [1, 2, 3, 5])
def test_a_counted_failure_fails_exactly_n_times(times):
    ts = TriggerState(blocks=[Block("book", None, "down", False, times)])
    results = [ts.blocked("book", {}) for _ in range(times + 2)]
    assert results == ["down"] * times + [None, None]
    assert ts.blocks == []


def test_a_disabled_tool_stays_blocked_and_blocks_only_matching_calls():
    ts = TriggerState(blocks=[Block("assign", {"vehicle_id": "TRK-7"}, "gone", True)])
    assert [ts.blocked("assign", {"vehicle_id": "TRK-7"}) for _ in range(4)] == ["gone"] * 4
    assert ts.blocked("assign", {"vehicle_id": "TRK-8"}) is None
    assert ts.blocked("other", {"vehicle_id": "TRK-7"}) is None
    assert len(ts.blocks) == 1


def test_the_first_matching_block_answers_and_only_it_is_counted():
    ts = TriggerState(blocks=[Block("t", ["A"], "first", False, 2), Block("t", None, "second", False, 5)])
    assert ts.blocked("t", {"x": "A"}) == "first"
    assert [b.remaining for b in ts.blocks] == [1, 5]
    assert ts.blocked("t", {"x": "B"}) == "second"
    assert [b.remaining for b in ts.blocks] == [1, 4]
    snap = ts.snapshot()
    assert snap["blocks"][0] == {"tool": "t", "for": ["A"], "error": "first", "disabled": False, "remaining": 1}


class Env:
    def __init__(self, state):
        self.state = state
        self.now = datetime(2024, 1, 1, 8, 0)


def trig(*effects, when=None):
    return Trigger.model_validate({"id": "t", "when": when or {"tool": "x"}, "effects": list(effects)})


def test_each_effect_on_state_clock_and_tools():
    env = Env({"v": {"TRK-7": {"status": "ok", "log": []}}, "places": {"A": {}, "B": {}}})
    ts = TriggerState()
    apply_effects(
        trig(
            {"set": "v.TRK-7.status", "value": {"state": "broken"}},
            {"append": "v.TRK-7.log", "value": "fault"},
            {"shift_clock": 90},
            {"move": "v.TRK-7", "to": "B"},
            {"disable_tool": "assign", "for": {"vehicle_id": "TRK-7"}},
            {"fail_tool": "get", "error": "timeout", "times": 2},
        ),
        env,
        ts,
    )
    assert env.state["v"]["TRK-7"] == {"status": {"state": "broken"}, "log": ["fault"], "location": "B"}
    assert env.now == datetime(2024, 1, 1, 9, 30)
    assert [(b.tool, b.disabled, b.remaining, b.error) for b in ts.blocks] == [
        ("assign", True, None, "assign is currently unavailable for vehicle_id=TRK-7"),
        ("get", False, 2, "timeout"),
    ]
    apply_effects(trig({"delete": "v.TRK-7.log"}, {"shift_clock": -30}), env, ts)
    assert "log" not in env.state["v"]["TRK-7"] and env.now == datetime(2024, 1, 1, 9, 0)


def test_a_set_value_is_copied_so_later_changes_do_not_reach_the_task():
    env = Env({"v": {"a": {}}})
    t = trig({"set": "v.a.tags", "value": ["x"]})
    apply_effects(t, env, TriggerState())
    env.state["v"]["a"]["tags"].append("y")
    assert t.effects[0].value == ["x"]


@pytest.mark.parametrize(
    "effect",
    [
        {"set": "v.TRK-9.status", "value": "x"},
        {"append": "v.TRK-9.log", "value": "x"},
        {"move": "v.TRK-9", "to": "B"},
    ],
)
def test_an_effect_never_creates_a_missing_record(effect):
    env = Env({"v": {"TRK-7": {}}})
    with pytest.raises(st.PathError, match="no such key 'TRK-9' in v"):
        apply_effects(trig(effect), env, TriggerState())
    assert env.state == {"v": {"TRK-7": {}}}


@pytest.mark.parametrize(
    ("enable", "left"),
    [
        ({"enable_tool": "assign"}, ["other", "assign-fail"]),
        ({"enable_tool": "assign", "for": {"vehicle_id": "TRK-7"}}, ["assign-8", "other", "assign-fail"]),
        ({"enable_tool": "assign", "for": {"vehicle_id": "TRK-9"}}, ["assign-7", "assign-8", "other", "assign-fail"]),
    ],
)
def test_enabling_lifts_only_matching_disables_never_failures(enable, left):
    ts = TriggerState(
        blocks=[
            Block("assign", {"vehicle_id": "TRK-7"}, "assign-7", True),
            Block("assign", {"vehicle_id": "TRK-8"}, "assign-8", True),
            Block("other", None, "other", True),
            Block("assign", None, "assign-fail", False, 1),
        ]
    )
    apply_effects(trig(enable), Env({}), ts)
    assert [b.error for b in ts.blocks] == left


@pytest.mark.parametrize(
    ("when", "calls", "fires"),
    [
        ({"tool": "get"}, [("get", {}, "before")], [True]),
        ({"tool": "get"}, [("put", {}, "before")], [False]),
        ({"tool": "get", "timing": "after"}, [("get", {}, "before"), ("get", {}, "after")], [False, True]),
        ({"tool": "get", "nth": 2}, [("get", {}, "before")] * 3, [False, True, False]),
        (
            {"tool": "get", "args": {"id": "A"}, "nth": 2},
            [("get", {"id": "B"}, "before"), ("get", {"id": "A"}, "before"), ("get", {"id": "A"}, "before")],
            [False, False, True],
        ),
    ],
)
def test_activation_by_call(when, calls, fires):
    t = trig({"shift_clock": 1}, when=when)
    ts = TriggerState()
    assert [activated_by_call(t, tool, args, ts, timing) for tool, args, timing in calls] == fires


def test_matching_calls_are_counted_only_when_they_match():
    t = trig({"shift_clock": 1}, when={"tool": "get", "args": {"id": "A"}})
    ts = TriggerState()
    activated_by_call(t, "get", {"id": "B"}, ts, "before")
    activated_by_call(t, "get", {"id": "A"}, ts, "after")
    assert ts.matching_calls == {}
    activated_by_call(t, "get", {"id": "A"}, ts, "before")
    assert ts.matching_calls == {"t": 1}


def test_a_shift_past_the_calendar_is_an_error_not_a_crash():
    env = Env({})
    env.now = datetime(9999, 12, 31) - timedelta(minutes=10)
    with pytest.raises(st.PathError, match="outside the years"):
        apply_effects(trig({"shift_clock": 525_600}), env, TriggerState())
