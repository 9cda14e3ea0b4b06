"""The stt engine: trigger activation and effects, the protocol, fidelity of the agent's view."""

from __future__ import annotations

import copy
import hashlib

import pytest
import yaml

from sttui.core import state as st
from sttui.core.actions import EndEpisode, Reply, Satisfied, Say, ToolCall
from sttui.core.chat import openai_messages
from sttui.core.checklist import RuleJudge, score
from sttui.core.envload import import_env
from sttui.core.episode import Episode, ProtocolError
from sttui.core.task import SttTask
from tests.conftest import FIXTURES

GOOD = FIXTURES / "mini" / "good.yaml"
BASE = yaml.safe_load(GOOD.read_text())
ENV, _ = import_env(BASE["env"], GOOD)


def episode(triggers=None, **overrides) -> Episode:
    data = copy.deepcopy(BASE)
    if triggers is not None:
        data["triggers"] = triggers
    data.update(overrides)
    ep = Episode(SttTask.model_validate(data), ENV)
    ep.start()
    return ep


def fired(ep: Episode) -> list[str]:
    return [e.payload["trigger"] for e in ep.events if e.type == "trigger_fired"]


def trig(when, *effects, **kw):
    return {"id": kw.pop("id", "t"), "when": when, "effects": list(effects), **kw}


def test_tool_trigger_fires_before_call_so_the_query_sees_the_change():
    ep = episode([trig({"tool": "get_crate", "args": {"crate_id": "CR-1"}}, {"move": "crates.CR-1", "to": "BAY-B"})])
    result = ep.apply(ToolCall("get_crate", {"crate_id": "CR-1"}))
    assert result["location"] == "BAY-B"
    event = next(e for e in ep.events if e.type == "trigger_fired")
    assert event.payload["diff"] == [{"op": "changed", "path": "crates.CR-1.location", "old": "BAY-A", "new": "BAY-B"}]


def test_timing_after_and_argument_mismatch():
    ep = episode(
        [
            trig({"tool": "get_crate", "args": {"crate_id": "CR-9"}}, {"set": "flag", "value": 1}, id="a"),
            trig({"tool": "get_crate", "timing": "after"}, {"move": "crates.CR-1", "to": "BAY-B"}, id="b"),
        ]
    )
    result = ep.apply(ToolCall("get_crate", {"crate_id": "CR-1"}))
    assert result["location"] == "BAY-A"  # fired after the call
    assert fired(ep) == ["b"]
    assert ep.env.state["crates"]["CR-1"]["location"] == "BAY-B"


def test_nth_call_and_after_calls():
    ep = episode(
        [
            trig({"tool": "get_crate", "nth": 2}, {"set": "second", "value": True}, id="nth"),
            trig({"after_calls": 3}, {"set": "third", "value": True}, id="count"),
        ]
    )
    for expected in ([], ["nth"], ["nth", "count"]):
        ep.apply(ToolCall("get_crate", {"crate_id": "CR-1"}))
        assert fired(ep) == expected


def test_time_trigger_and_state_trigger_cascade():
    ep = episode(
        [
            trig({"at": "2024-03-04T08:15:00"}, {"set": "crates.CR-1.contents", "value": "empty"}, id="time"),
            trig(
                {"state": {"path": "crates.CR-1.contents", "equals": "empty"}},
                {"set": "alarm", "value": "raised"},
                id="cascade",
            ),
        ]
    )
    ep.apply(ToolCall("move_crate", {"crate_id": "CR-1", "to": "DISPATCH"}))  # 10 + 4 minutes
    assert fired(ep) == []
    ep.apply(ToolCall("get_crate", {"crate_id": "CR-1"}))  # 08:15
    assert fired(ep) == ["time", "cascade"]
    assert ep.env.state["alarm"] == "raised"


def test_disable_enable_and_fail_tool():
    ep = episode(
        [
            trig({"tool": "get_crate", "nth": 1}, {"disable_tool": "move_crate", "for": {"to": "DISPATCH"}}, id="off"),
            trig(
                {"tool": "get_crate", "nth": 2},
                {"enable_tool": "move_crate", "for": {"to": "DISPATCH"}},
                {"fail_tool": "count_stock", "error": "scanner offline", "times": 1},
                id="on",
            ),
        ]
    )
    ep.apply(ToolCall("get_crate", {"crate_id": "CR-1"}))
    blocked = ep.apply(ToolCall("move_crate", {"crate_id": "CR-1", "to": "DISPATCH"}))
    assert blocked == {"success": False, "error": "move_crate is currently unavailable for to=DISPATCH"}
    assert ep.apply(ToolCall("move_crate", {"crate_id": "CR-1", "to": "BAY-B"}))["success"]
    ep.apply(ToolCall("get_crate", {"crate_id": "CR-1"}))
    assert ep.apply(ToolCall("move_crate", {"crate_id": "CR-1", "to": "DISPATCH"}))["success"]
    assert ep.apply(ToolCall("count_stock", {"bay": "BAY-A", "counts": [1]})) == {
        "success": False,
        "error": "scanner offline",
    }
    assert ep.apply(ToolCall("count_stock", {"bay": "BAY-A", "counts": [1]}))["success"]


def test_list_match_blocks_any_argument():
    ep = episode([trig({"after_calls": 1}, {"disable_tool": "move_crate", "for": ["CR-1"]})])
    ep.apply(ToolCall("get_crate", {"crate_id": "CR-1"}))
    assert not ep.apply(ToolCall("move_crate", {"crate_id": "CR-1", "to": "BAY-B"}))["success"]


def test_set_delete_append_shift_clock_and_closed_route():
    ep = episode(
        [
            trig(
                {"tool": "get_crate"},
                {"set": "travel.0.closed", "value": True},
                {"append": "crates.CR-1.tags", "value": "fragile"},
                {"delete": "crates.CR-1.contents"},
                {"shift_clock": 30},
            )
        ]
    )
    ep.apply(ToolCall("get_crate", {"crate_id": "CR-1"}))
    crate = ep.env.state["crates"]["CR-1"]
    assert crate["tags"] == ["fragile"] and "contents" not in crate
    assert ep.now.isoformat() == "2024-03-04T08:31:00"
    # BAY-A -> DISPATCH is closed; the route goes through BAY-B (3 + 6 minutes) plus 10 for the move
    ep.apply(ToolCall("move_crate", {"crate_id": "CR-1", "to": "DISPATCH"}))
    assert ep.now.isoformat() == "2024-03-04T08:50:00"


def test_refused_calls_cost_nothing_and_never_trigger():
    ep = episode([trig({"tool": "get_crate"}, {"set": "x", "value": 1})])
    start, state = ep.now, copy.deepcopy(ep.env.state)
    for bad in (
        ToolCall("get_crates", {"crate_id": "CR-1"}),
        ToolCall("get_crate", {"crate": "CR-1"}),
        ToolCall("get_crate", {"crate_id": 5}),
        ToolCall("get_crate", "CR-1"),
    ):
        result = ep.apply(bad)
        assert result["success"] is False and result["error"]
    assert ep.now == start and ep.env.state == state and fired(ep) == []
    assert ep.steps == 4  # each attempt still used the agent's turn


def test_unknown_tool_message_suggests():
    ep = episode()
    result = ep.apply(ToolCall("get_crates", {}))
    assert "unknown tool 'get_crates' (did you mean get_crate?)" in result["error"]


def test_silent_trigger_never_reaches_the_agent_view_but_announced_does():
    ep = episode(
        [
            trig(
                {"tool": "get_crate", "nth": 1}, {"set": "secret", "value": 1}, id="quiet", description="secret change"
            ),
            trig(
                {"tool": "get_crate", "nth": 2},
                {"set": "public", "value": 1},
                id="loud",
                announce="Aisle 3 is closed for cleaning",
            ),
        ]
    )
    ep.apply(ToolCall("get_crate", {"crate_id": "CR-1"}))
    text = repr(ep.view) + repr(openai_messages(ep.view, ""))
    assert "secret" not in text and "quiet" not in text
    ep.apply(ToolCall("get_crate", {"crate_id": "CR-1"}))
    assert {"type": "notice", "text": "Aisle 3 is closed for cleaning"} in ep.view
    assert openai_messages(ep.view, "")[-1] == {"role": "user", "content": "[Notice] Aisle 3 is closed for cleaning"}


def test_protocol_turns_messages_and_endings():
    ep = episode()
    assert ep.view[0] == {"type": "message", "from": "user", "text": BASE["query"]}
    ep.apply(Say("Which bay?"))
    with pytest.raises(ProtocolError, match="user's turn"):
        ep.apply(ToolCall("get_crate", {"crate_id": "CR-1"}))
    ep.apply(Reply("Bay A"))
    with pytest.raises(ProtocolError, match="agent's turn"):
        ep.apply(Reply("again"))
    ep.apply(Say("Done."))
    ep.apply(Satisfied("Thanks"))
    assert ep.ended == {"by": "user", "reason": "the user is satisfied"}
    with pytest.raises(ProtocolError, match="ended"):
        ep.apply(EndEpisode())


def test_step_limit_ends_the_episode():
    ep = episode(max_steps=2)
    ep.apply(ToolCall("get_crate", {"crate_id": "CR-1"}))
    ep.apply(ToolCall("get_crate", {"crate_id": "CR-1"}))
    assert ep.ended == {"by": "limit", "reason": "step limit of 2 reached"}
    assert ep.events[-1].type == "episode_ended"


def test_tool_diff_excludes_trigger_changes_and_events_are_numbered():
    ep = episode([trig({"tool": "move_crate"}, {"set": "crates.CR-1.contents", "value": "spilled"})])
    ep.apply(ToolCall("move_crate", {"crate_id": "CR-1", "to": "DISPATCH"}))
    result_event = next(e for e in ep.events if e.type == "tool_result")
    assert [d["path"] for d in result_event.payload["state_diff"]] == ["crates.CR-1.location"]
    assert [e.seq for e in ep.events] == list(range(1, len(ep.events) + 1))


def test_environment_exception_becomes_a_failure():
    ep = episode()
    del ep.env.state["places"]  # make move_crate raise inside the environment
    result = ep.apply(ToolCall("move_crate", {"crate_id": "CR-1", "to": "DISPATCH"}))
    assert result["success"] is False and result["error"].startswith("internal error in move_crate: KeyError")


def test_a_trigger_at_clock_start_has_fired_when_the_episode_opens():
    start = BASE["clock"]["start"]
    ep = episode([trig({"at": start}, {"move": "crates.CR-1", "to": "BAY-B"})])
    assert fired(ep) == ["t"] and ep.env.state["crates"]["CR-1"]["location"] == "BAY-B"
    assert ep.steps == 0 and not [i for i in ep.view if i["type"] == "notice"]  # silent: the agent must look


def test_same_actions_same_hash():
    actions = [
        ToolCall("get_crate", {"crate_id": "CR-1"}),
        ToolCall("move_crate", {"crate_id": "CR-1", "to": "DISPATCH"}),
    ]
    hashes = set()
    for _ in range(2):
        ep = episode([trig({"tool": "get_crate"}, {"move": "crates.CR-1", "to": "BAY-B"})])
        for a in actions:
            ep.apply(a)
        hashes.add(ep.state_hash())
    assert len(hashes) == 1


def test_rule_judge_needs_conflict_cause_and_telling():
    judge = {"reason": "crate is lost", "evidence": ["bay-b"]}
    data = {"level": "impossible", "judge": judge}
    ep = episode([trig({"tool": "get_crate"}, {"move": "crates.CR-1", "to": "BAY-B"})], **data)
    ep.apply(Say("I cannot do it."))
    ep.apply(Reply("why?"))
    items = {i.id: i for i in RuleJudge().judge(ep)}
    assert not items["recognised_infeasibility"].passed and "never met" in items["recognised_infeasibility"].detail
    ep.apply(ToolCall("get_crate", {"crate_id": "CR-1"}))
    ep.apply(Say("It is now in BAY-B and I am unable to move it to dispatch."))
    outcome = score(ep)
    assert outcome.judged_by == "rule" and outcome.passed, outcome


def test_a_query_that_changes_state_is_caught_by_check(tmp_path):
    import shutil

    from click.testing import CliRunner

    from sttui.cli import main

    shutil.copy(FIXTURES / "mini" / "good.yaml", tmp_path / "good.yaml")
    env = (FIXTURES / "mini" / "warehouse.py").read_text()
    env = env.replace(
        '        crate = self.state["crates"].get(crate_id)\n        return self.ok(',
        '        crate = self.state["crates"].get(crate_id)\n        self.state["peeked"] = True\n'
        "        return self.ok(",
        1,
    )
    (tmp_path / "warehouse.py").write_text(env)
    out = CliRunner().invoke(main, ["check", str(tmp_path)]).output
    assert "query tool get_crate changed state in naive_plan; declare it an operation" in out


def test_cached_state_hash_follows_every_change():
    ep = episode([trig({"tool": "get_crate", "nth": 2}, {"set": "x", "value": 1})])
    seen = {ep.state_hash()}
    ep.apply(ToolCall("get_crate", {"crate_id": "CR-1"}))  # clock moves: new hash
    h1 = ep.state_hash()
    ep.apply(ToolCall("get_crate", {"crate_id": "CR-1"}))  # trigger changes state
    h2 = ep.state_hash()
    ep.apply(ToolCall("move_crate", {"crate_id": "CR-1", "to": "BAY-B"}))
    h3 = ep.state_hash()
    assert len(seen | {h1, h2, h3}) == 4
    # the cached hash equals one computed from scratch over the same snapshot
    snapshot = {"clock": ep.now.isoformat(), "triggers": ep.triggers.snapshot()}
    scratch = hashlib.sha256(f"{st.canonical(ep.env.state)}|{st.canonical(snapshot)}".encode()).hexdigest()
    assert h3 == scratch


def test_diff_between_any_two_steps():
    data = copy.deepcopy(BASE)
    data["triggers"] = [trig({"tool": "get_crate", "nth": 2}, {"set": "crates.CR-1.contents", "value": "gears"})]
    ep = Episode(SttTask.model_validate(data), ENV, keep_history=True)
    ep.start()
    ep.apply(ToolCall("get_crate", {"crate_id": "CR-1"}))  # step 1: nothing changes
    ep.apply(ToolCall("move_crate", {"crate_id": "CR-1", "to": "BAY-B"}))  # step 2
    ep.apply(ToolCall("get_crate", {"crate_id": "CR-1"}))  # step 3: the trigger fires
    assert ep.diff_between(0, 1) == []
    assert ep.diff_between(1, 2) == [{"op": "changed", "path": "crates.CR-1.location", "old": "BAY-A", "new": "BAY-B"}]
    assert {d["path"] for d in ep.diff_between(0, 3)} == {"crates.CR-1.location", "crates.CR-1.contents"}
    assert ep.diff_between(3, 0)[0]["new"] in ("BAY-A", "bearings")
    assert len(ep.history) == 3  # the start, step 2 and step 3: snapshots only when the state changed
    with pytest.raises(ValueError, match="keeps no history"):
        episode().state_at(0)


def test_the_incremental_hash_equals_a_hash_from_scratch_at_every_step_of_every_solution():
    from sttui.core.actions import Reply
    from sttui.core.loader import load_all
    from tests.conftest import ROOT

    tasks, _ = load_all([ROOT / "tasks" / "stt"])

    def scratch(ep: Episode) -> str:
        snapshot = {"clock": ep.now.isoformat(), "triggers": ep.triggers.snapshot()}
        return hashlib.sha256(f"{st.canonical(ep.env.state)}|{st.canonical(snapshot)}".encode()).hexdigest()

    for t in tasks:
        ep = Episode(t.task, t.env_cls)
        ep.start()
        for step in t.task.solution:
            if ep.ended is not None:
                break
            if ep.turn == "user":
                ep.apply(Reply("go on"))
            ep.apply(Say(step.say) if step.say is not None else ToolCall(step.tool, step.args))
            assert ep.state_hash() == scratch(ep), (t.id, step)


def test_history_snapshots_share_what_a_step_did_not_change():
    """A step that changes one record keeps that record anew and shares the rest with the
    snapshot before it, so a long episode's history costs what changed, not a copy per step."""
    data = copy.deepcopy(BASE)
    data["initial_state"]["crates"]["CR-2"] = {"contents": "gears", "location": "BAY-B"}
    ep = Episode(SttTask.model_validate(data), ENV, keep_history=True)
    ep.start()
    ep.apply(ToolCall("move_crate", {"crate_id": "CR-1", "to": "BAY-B"}))
    (_, before), (_, after) = ep.history[-2], ep.history[-1]
    assert after["crates"]["CR-1"]["location"] == "BAY-B" and before["crates"]["CR-1"]["location"] == "BAY-A"
    assert after["crates"]["CR-2"] is before["crates"]["CR-2"]  # shared, not copied
    assert after["places"] is before["places"]
    ep.apply(ToolCall("move_crate", {"crate_id": "CR-1", "to": "BAY-A"}))
    assert after["crates"]["CR-1"]["location"] == "BAY-B"  # a snapshot never changes afterwards
    assert ep.state_at(1) == after and ep.state_at(2)["crates"]["CR-1"]["location"] == "BAY-A"


def test_the_agent_view_is_the_episodes_own_bounded_and_read_only():
    """The agent's view is passed without a copy: a window on the episode's view, fixed at the
    length it had when the seat was asked, which nothing can change through it."""
    from sttui.controllers.base import Window, agent_view, user_view

    ep = episode()
    view = agent_view(ep)
    n = len(view.items)
    assert isinstance(view.items, Window) and view.items == ep.view
    ep.apply(ToolCall("get_crate", {"crate_id": "CR-1"}))
    assert len(view.items) == n and view.items == ep.view[:n]  # later items are outside it
    assert list(view.items[-1:]) == [ep.view[n - 1]] and view.items[-1] is ep.view[n - 1]
    with pytest.raises(TypeError):
        view.items[0] = {}  # type: ignore[index]
    assert not hasattr(view.items, "append")
    with pytest.raises(IndexError):
        view.items[n]
    ep.apply(Say("Where to?"))
    seen = user_view(ep)
    assert [m["text"] for m in seen.messages] == [i["text"] for i in ep.view if i["type"] == "message"]
    assert list(seen.agent_actions) == [i for i in ep.view if i["type"] == "tool_call"]
    assert openai_messages(view.items, "s") == openai_messages(ep.view[:n], "s")


def test_a_result_is_the_callers_own_and_the_runner_takes_none():
    """``apply`` gives the caller a copy of the recorded result (changing it changes neither the
    view nor the record); the runner, which reads results from the seats' views, asks for none
    and gets None, with the same record."""
    ep, quiet = episode(), episode()
    got = ep.apply(ToolCall("get_crate", {"crate_id": "CR-1"}))
    assert quiet.apply(ToolCall("get_crate", {"crate_id": "CR-1"}), result=False) is None
    recorded = ep.events[-1].payload["result"]
    assert got == recorded and got is not recorded and got is not ep.view[-1]["result"]
    got.clear()
    assert ep.view[-1]["result"] == recorded and recorded
    assert [(e.type, e.payload) for e in ep.events] == [(e.type, e.payload) for e in quiet.events]
    assert ep.view == quiet.view


def test_the_runner_asks_the_engine_for_no_result(monkeypatch):
    from sttui.bridges.episodes import Stepper, baseline_actions, select_tasks

    asked: list[bool] = []
    apply = Episode.apply

    def spy(self, action, actor=None, *, result=True):
        asked.append(result)
        return apply(self, action, actor, result=result)

    [loaded] = select_tasks("stt", task="air-ams-connection-t3-easy")
    actions, _ = baseline_actions(loaded, "oracle", loaded.task.seed)
    monkeypatch.setattr(Episode, "apply", spy)
    s = Stepper(loaded, loaded.task.seed)  # sttui's runner, stepped
    s.reset()
    for action in actions:
        if not s.done:
            s.step(action)
    assert any(isinstance(a, ToolCall) for a in actions) and len(asked) >= len(actions)
    assert not any(asked)


def test_the_hash_resumed_from_kept_digests_equals_one_from_scratch_under_any_changes():
    """The digest is kept only before the parts of keys that have changed (the parts between are
    fed as one): changes to keys cold and hot, before and after one another, and keys added and
    removed, hash as from scratch every time."""
    import random

    ep = episode()
    rng = random.Random(7)

    def scratch() -> str:
        snapshot = {"clock": ep.now.isoformat(), "triggers": ep.triggers.snapshot()}
        return hashlib.sha256(f"{st.canonical(ep.env.state)}|{st.canonical(snapshot)}".encode()).hexdigest()

    ep.apply(ToolCall("move_crate", {"crate_id": "CR-1", "to": "BAY-B"}))
    assert ep.state_hash() == scratch()
    kept = ep._hashing
    assert kept.hot == {"crates"} and kept.mids.count(None) == len(kept.mids) - 1  # one key changed: one kept
    for name in "abcdefghij":
        ep.env.state[name] = {"n": 0, "tags": [name]}
    ep._sync()
    assert ep.state_hash() == scratch()
    for i in range(300):
        keys = sorted(ep.env.state)
        pick = rng.random()
        if pick < 0.1 and len(keys) > 4:
            del ep.env.state[rng.choice(keys)]
        elif pick < 0.2:
            ep.env.state[f"k{rng.randrange(40)}"] = [i]
        else:
            key = rng.choice(keys[: rng.randrange(1, len(keys) + 1)])  # early keys more often
            value = ep.env.state[key]
            if isinstance(value, dict):
                value[f"f{rng.randrange(5)}"] = i
            else:
                ep.env.state[key] = {"was": value, "at": i}
        ep._sync()
        assert ep.state_hash() == scratch(), i
        if i % 7 == 0:
            assert ep.state_hash() == scratch()  # (asked again, unchanged)
