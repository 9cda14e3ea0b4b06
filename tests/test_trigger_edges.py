"""The trigger runtime's boundaries, table by table: which calls match, how often a counted
failure fails, what enabling lifts, what each effect does to state and clock, and the nth
matching call. Written to kill the mutants that survived in ``core/triggers.py``."""

from __future__ import annotations

import itertools
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


@pytest.mark.parametrize(
    ("effect", "message"),
    [
        ({"set": "v.TRK-9.status", "value": "x"}, "set v.TRK-9.status: no such key 'TRK-9' in v;"),
        ({"append": "v.TRK-9.log", "value": "x"}, "append v.TRK-9.log: no such key 'TRK-9' in v;"),
        ({"move": "v.TRK-9", "to": "B"}, "move v.TRK-9.location: no such key 'TRK-9' in v;"),
    ],
)
def test_a_missing_record_is_named_with_the_effect_that_wanted_it(effect, message):
    with pytest.raises(st.PathError) as caught:
        apply_effects(trig(effect), Env({"v": {"TRK-7": {}}}), TriggerState())
    assert str(caught.value).startswith(message)
    assert str(caught.value).endswith("an effect changes records that exist, it does not create them")


def test_a_top_level_key_can_be_set_as_it_has_no_parent_record():
    env = Env({"weather": "clear", "v": {}})
    apply_effects(trig({"set": "weather", "value": "storm"}), env, TriggerState())
    assert env.state == {"weather": "storm", "v": {}}


def test_a_shift_past_the_calendar_says_so_exactly():
    env = Env({})
    env.now = datetime(9999, 12, 31)
    with pytest.raises(st.PathError) as caught:
        apply_effects(trig({"shift_clock": 2_000}), env, TriggerState())
    assert str(caught.value) == "shift_clock would move the clock outside the years 1-9999"


@pytest.mark.parametrize(
    ("effect", "error"),
    [
        ({"disable_tool": "assign", "for": ["TRK-7", "TRK-9"]}, "assign is currently unavailable for TRK-7, TRK-9"),
        (
            {"disable_tool": "assign", "for": {"vehicle_id": "TRK-7", "slot": 2}},
            "assign is currently unavailable for vehicle_id=TRK-7, slot=2",
        ),
        ({"disable_tool": "assign"}, "assign is currently unavailable"),
    ],
)
def test_a_disabled_tool_says_for_what_by_default(effect, error):
    ts = TriggerState()
    apply_effects(trig(effect), Env({}), ts)
    assert ts.blocks[0].error == error


def test_a_counted_failure_for_some_arguments_fails_only_those_calls():
    ts = TriggerState()
    apply_effects(trig({"fail_tool": "get", "for": {"id": "A"}, "error": "timeout", "times": 1}), Env({}), ts)
    assert ts.blocked("get", {"id": "B"}) is None
    assert ts.blocked("get", {"id": "A"}) == "timeout"
    assert ts.blocked("get", {"id": "A"}) is None


def test_every_change_moves_the_version_past_every_earlier_one():
    """The episode reuses the triggers' JSON while the version is unchanged: a change that
    left it at a value seen before would hash a stale snapshot."""
    ts = TriggerState(version=5)
    seen = [ts.version]
    t = trig({"fail_tool": "get", "error": "down", "times": 2}, when={"tool": "get", "nth": 2})
    activated_by_call(t, "get", {}, ts, "before")  # counted, not firing
    seen.append(ts.version)
    apply_effects(t, Env({}), ts)
    seen.append(ts.version)
    ts.blocked("get", {})  # one use of the counted failure
    seen.append(ts.version)
    assert all(b > a for a, b in itertools.pairwise(seen)), seen


def test_the_snapshot_names_what_it_holds():
    """The snapshot is hashed into every recorded state_hash, so its shape is part of the record."""
    ts = TriggerState(fired={"t": 1}, matching_calls={"t": 2}, blocks=[Block("get", None, "down", True)])
    assert ts.snapshot() == {
        "fired": {"t": 1},
        "matching_calls": {"t": 2},
        "blocks": [{"tool": "get", "for": None, "error": "down", "disabled": True, "remaining": None}],
    }


def test_a_mistyped_field_in_a_path_is_named_with_the_close_one():
    """An outside tester's `tell` path said `delivery` for `delivery_time` and was told only
    "no such key 'delivery'"; an id is not guessed at (CR-9 is no typo of CR-1)."""
    state = {"orders": {"ORD-1": {"delivery_time": "10:30", "batch": "AMX-2307"}}, "crates": {"CR-1": {}}}
    assert st.missing(state, "orders.ORD-1.delivery") == (
        "no such key 'delivery' in orders.ORD-1 (did you mean delivery_time?)"
    )
    assert st.missing(state, "order.ORD-1") == "no such key 'order' in the state (did you mean orders?)"
    assert st.missing(state, "crates.CR-9.location") == "no such key 'CR-9' in crates"
