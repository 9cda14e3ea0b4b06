"""A tool's result is copied at the boundary (§2): an environment may return parts of its
state (``**vehicle``), and neither the state nor the record changes through the result."""

from __future__ import annotations

from sttui.core.actions import ToolCall
from sttui.running.runner import open_episode


def test_a_result_and_the_state_never_change_each_other(mini_task):
    ep = open_episode(mini_task, 0, {"agent": "a", "user": "u"})
    ep.start()
    result = ep.apply(ToolCall("get_crate", {"crate_id": "CR-1"}))
    seen = dict(result)
    recorded = next(e for e in ep.events if e.type == "tool_result").payload["result"]
    shown = next(v for v in ep.view if v["type"] == "tool_result")["result"]
    state_before = ep.state_hash()

    result["location"] = "NOWHERE"  # a controller that scribbles on what it was given
    result["extra"] = [1]
    assert ep.env.state["crates"]["CR-1"]["location"] == seen["location"]
    assert ep.state_hash() == state_before
    assert recorded == seen and shown == seen  # the record and the agent's view keep what was returned

    ep.apply(ToolCall("move_crate", {"crate_id": "CR-1", "to": "DISPATCH"}))  # the state moves on
    assert ep.env.state["crates"]["CR-1"]["location"] == "DISPATCH"
    assert recorded == seen and shown == seen and result["location"] == "NOWHERE"
