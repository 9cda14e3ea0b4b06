from __future__ import annotations

from typing import Literal

import pytest

from sttui.core import state as st
from sttui.core.expect import Expect
from sttui.core.schema import check_args, function_schema


def test_paths_set_delete_append_lookup():
    s = {"a": {"b": [1, {"c": 2}]}}
    assert st.lookup(s, "a.b.1.c") == 2
    st.set_path(s, "a.new.deep", "x")
    assert s["a"]["new"] == {"deep": "x"}
    st.append_path(s, "a.list", 5)
    st.append_path(s, "a.b", 3)
    assert s["a"]["list"] == [5] and s["a"]["b"][-1] == 3
    st.delete_path(s, "a.b.0")
    assert s["a"]["b"][0] == {"c": 2}
    with pytest.raises(st.PathError, match=r"no value at 'a\.zz\.q'"):
        st.lookup(s, "a.zz.q")
    assert st.lookup(s, "a.zz", None) is None
    with pytest.raises(st.PathError):
        st.delete_path(s, "a.missing")


def test_copy_is_deep_and_diff_reports_changes():
    before = {"v": {"T7": {"status": "ok", "stops": [1, 2]}}, "gone": 1}
    after = st.copy_state(before)
    after["v"]["T7"]["status"] = "failed"
    after["v"]["T7"]["stops"].append(3)
    after["v"]["T9"] = {"status": "ok"}
    del after["gone"]
    assert before["v"]["T7"]["status"] == "ok"
    d = st.diff(before, after)
    assert {"op": "changed", "path": "v.T7.status", "old": "ok", "new": "failed"} in d
    assert {"op": "changed", "path": "v.T7.stops", "old": [1, 2], "new": [1, 2, 3]} in d
    assert {"op": "added", "path": "v.T9", "new": {"status": "ok"}} in d
    assert {"op": "removed", "path": "gone", "old": 1} in d
    assert st.diff(before, st.copy_state(before)) == []
    assert st.state_hash(before) == st.state_hash(st.copy_state(before))
    assert st.state_hash(before) != st.state_hash(after)


def test_diff_distinguishes_types():
    assert st.diff({"a": 1}, {"a": 1.0}) == [{"op": "changed", "path": "a", "old": 1, "new": 1.0}]
    assert st.diff({"a": 1}, {"a": True}) != []


@pytest.mark.parametrize(
    ("spec", "state", "holds"),
    [
        ({"path": "x", "equals": 3}, {"x": 3}, True),
        ({"path": "x", "not_equals": 3}, {"x": 3}, False),
        ({"path": "x", "in": [1, 2]}, {"x": 2}, True),
        ({"path": "x", "contains": "ice"}, {"x": "office"}, True),
        ({"path": "x", "contains": {"id": 2}}, {"x": [{"id": 1}, {"id": 2, "n": 0}]}, True),
        ({"path": "x", "contains": 5}, {"x": [4]}, False),
        # a mapping of records: contains looks into each record
        ({"path": "x", "contains": {"ward": 7}}, {"x": {"P-1": {"ward": 3}, "P-2": {"ward": 7, "n": 1}}}, True),
        ({"path": "x", "contains": {"ward": 7}}, {"x": {"P-1": {"ward": 3}, "P-2": {"bed": 7}}}, False),
        ({"path": "x", "contains": {"ward": 7, "n": 1}}, {"x": {"P-1": {"ward": 7}, "P-2": {"n": 1}}}, False),
        ({"path": "x", "contains": {"ward": 7}}, {"x": {"ward": 7, "bed": {"n": 1}}}, True),  # the mapping itself
        ({"path": "x", "contains": {"ward": 7}}, {"x": {"P-1": {"ward": 7}, "note": "x"}}, False),  # not all records
        ({"path": "x", "contains": "P-1"}, {"x": {"P-1": {"ward": 7}}}, True),  # a key
        ({"path": "x", "gte": 10}, {"x": 10}, True),
        ({"path": "x", "lte": "2024-08-15T10:00"}, {"x": "2024-08-15T09:59"}, True),
        ({"path": "x", "lte": "2024-08-15T10:00"}, {"x": "2024-08-15T10:01"}, False),
        ({"path": "x.y", "exists": True}, {"x": {"y": None}}, True),
        ({"path": "x.y", "absent": True}, {"x": {}}, True),
        ({"path": "x.y", "equals": 1}, {"x": {}}, False),
    ],
)
def test_expect_operators(spec, state, holds):
    assert Expect.model_validate(spec).evaluate(state)[0] is holds


def _tool(
    a: str, n: int, ratio: float = 1.0, flags: list[str] | None = None, mode: Literal["fast", "slow"] = "fast"
) -> dict:
    """Do a thing.

    Longer text.

    Args:
        a: The a value,
            continued here.
        n: How many.
        mode: Speed.
    """
    return {}


def test_schema_from_signature_and_docstring():
    desc, params = function_schema(_tool)
    assert desc == "Do a thing. Longer text."
    props = params["properties"]
    assert props["a"] == {"type": "string", "description": "The a value, continued here."}
    assert props["n"]["type"] == "integer"
    assert props["ratio"] == {"type": "number", "default": 1.0}
    assert props["flags"]["type"] == ["array", "null"]
    assert props["mode"]["enum"] == ["fast", "slow"]
    assert params["required"] == ["a", "n"]
    assert params["additionalProperties"] is False


@pytest.mark.parametrize(
    ("args", "problem"),
    [
        ({"a": "x", "n": 1}, None),
        ({"a": "x", "n": 1, "ratio": 2}, None),
        ({"a": "x"}, "missing required parameter n"),
        ({"a": "x", "n": "1"}, "n must be an integer, got '1'"),
        ({"a": "x", "n": True}, "n must be an integer"),
        ({"a": "x", "n": 1, "nn": 2}, "no parameter 'nn' (did you mean n?)"),
        ({"a": "x", "n": 1, "mode": "warp"}, "mode must be one of 'fast', 'slow'"),
        ({"a": "x", "n": 1, "flags": ["a", 2]}, "flags[1] must be a string"),
        (["x"], "must be an object"),
    ],
)
def test_argument_validation(args, problem):
    _, params = function_schema(_tool)
    got = check_args(args, params, "_tool")
    if problem is None:
        assert got is None
    else:
        assert got is not None and problem in got


def test_diff_values_do_not_alias_the_live_state():
    before = {"s": {}}
    after = {"s": {"SHP-1": {"status": "booked"}}}
    d = st.diff(before, after)
    after["s"]["SHP-1"]["status"] = "delivered"
    assert d[0]["new"] == {"status": "booked"}


def test_shortest_route_with_a_leg_filter():
    from sttui.core.env import shortest_route

    legs = [
        {"from": "A", "to": "B", "minutes": 10, "max_t": 3.5},
        {"from": "B", "to": "C", "minutes": 10},
        {"from": "A", "to": "C", "minutes": 45},
        {"from": "C", "to": "D", "minutes": 5, "closed": True},
    ]
    assert shortest_route(legs, "A", "C") == (20.0, ["A", "B", "C"])
    heavy = shortest_route(legs, "A", "C", lambda leg: leg.get("max_t", 99) >= 12)
    assert heavy == (45.0, ["A", "C"])
    assert shortest_route(legs, "A", "D") is None


def _mutate(rng, state: dict, depth: int = 0) -> None:
    """One random change somewhere in a JSON-shaped state, in place."""
    keys = list(state)
    choice = rng.random()
    if not keys or choice < 0.15:
        state[f"k{rng.randint(0, 99)}"] = rng.choice([1, "x", [1, 2], {"a": 1}, None, 2.5, False])
        return
    key = rng.choice(keys)
    value = state[key]
    if choice < 0.25:
        del state[key]
    elif isinstance(value, dict) and depth < 3 and rng.random() < 0.7:
        _mutate(rng, value, depth + 1)
    elif isinstance(value, list) and value and rng.random() < 0.5:
        if rng.random() < 0.5:
            value.append(rng.randint(0, 9))
        else:
            value[rng.randrange(len(value))] = {"n": rng.randint(0, 9)}
    elif choice < 0.35 and depth == 0:  # a key taken out and put back: the state's key order changes
        state[key] = state.pop(key)
    else:
        # (no 1 -> True or 1 -> 1.0: a change of type alone, inside an equal mapping, is
        # invisible to diff itself, before or after this work)
        state[key] = rng.choice([0, 7, 2.5, "y", [3], {"b": {"c": 1}}, None])


def test_sync_reports_exactly_what_diff_reports_and_never_alters_what_it_replaced():
    """The episode diffs an operation against a private shadow of the state instead of a copy
    taken before it: the records must be diff's, the shadow must end equal to the state (in the
    state's key order at the top), and a value it replaced must stay as it was (history
    snapshots share them). (Keys reordered without a change below the top level keep the
    shadow's order until they change, which can order a later diff's records differently.)"""
    import random

    rng = random.Random(7)
    for _ in range(300):
        state = {"a": {"x": 1, "y": [1, 2], "z": {"q": "r"}}, "b": [1, {"c": 2}], "c": "s", "d": {}}
        shadow = st.copy_state(state)
        for _ in range(12):
            held = dict(shadow)  # a snapshot sharing the shadow's values, as history keeps one
            frozen = st.copy_state(held)
            before = st.copy_state(state)
            for _ in range(rng.randint(0, 3)):
                _mutate(rng, state)
            records, changed = st.sync(shadow, state)
            assert records == st.diff(before, state)
            assert shadow == state and list(shadow) == list(state)
            assert set(changed) == {d["path"].split(".")[0] for d in records}
            assert held == frozen  # replaced, never mutated
            assert shadow is not state and all(
                shadow[k] is not state[k] for k in state if isinstance(state[k], dict | list)
            )


def test_sync_shares_unchanged_records_of_a_changed_mapping():
    state = {"vehicles": {"T1": {"at": "A"}, "T2": {"at": "B"}}, "other": [1]}
    shadow = st.copy_state(state)
    old = dict(shadow)
    state["vehicles"]["T2"]["at"] = "C"
    records, changed = st.sync(shadow, state)
    assert records == [{"op": "changed", "path": "vehicles.T2.at", "old": "B", "new": "C"}]
    assert changed == {"vehicles": {"T2"}}
    assert shadow["vehicles"] is not old["vehicles"]  # a new mapping...
    assert shadow["vehicles"]["T1"] is old["vehicles"]["T1"]  # ...sharing what did not change
    assert shadow["other"] is old["other"]


def test_a_text_argument_for_a_plain_string_parameter_is_let_through_as_the_full_checks_do():
    """Text for a ``{"type": "string"}`` parameter skips the checks (most arguments are such);
    every bundled tool's every parameter answers text as the full checks do (a str subclass
    takes them), with an enum, anyOf and other types included."""
    from sttui.core.loader import load_all
    from sttui.core.schema import check_value
    from tests.conftest import ROOT

    class Text(str):
        pass

    tasks, _ = load_all([ROOT / "tasks" / "stt"])
    schemas = [
        p for t in tasks for spec in t.env_cls.tool_specs.values() for p in spec.parameters["properties"].values()
    ]
    schemas += [
        {"type": "string", "enum": ["a"]},
        {"anyOf": [{"type": "string"}, {"type": "null"}]},
        {"type": ["string"]},
    ]
    assert any(s.get("type") == "string" and "enum" not in s for s in schemas)
    for schema in schemas:
        for text in ("", "a", "2024-09-12", "TRK-9"):
            assert check_value(text, schema, "x") == check_value(Text(text), schema, "x"), schema
