"""The in-process wrapper's fast path (issue 27's throughput): ``GymEnv`` hands on the session's
observation fields without validating a model it built itself, and reads a plain action dict
without building ``SttuiAction``. Its observations must be exactly what the server's path gives
(``SttuiEnvironment.step`` on the model, then ``model_dump``), key order included, on every
bundled task's oracle and naive plans, and for actions the model would refuse."""

from __future__ import annotations

import json
from typing import Any

import pytest

pytest.importorskip("openenv")

from sttui.bridges.episodes import action_data, baseline_actions, select_tasks
from sttui.bridges.openenv_env import GymEnv, ServeConfig, SttuiAction, SttuiEnvironment, SttuiObservation
from sttui.controllers.model import MAX_ANSWER_CHARS, too_long


def _dump(obs: SttuiObservation) -> dict[str, Any]:
    return obs.model_dump(exclude={"metadata"})


def _reference_step(env: SttuiEnvironment, action: Any) -> dict[str, Any]:
    """What ``GymEnv.step`` gave before the fast path: the model, the server's step, its dump."""
    try:
        act = SttuiAction(**action)
    except Exception as exc:
        return _dump(SttuiObservation(error=f"malformed action: {exc}"))
    return _dump(env.step(act))


def _same(got: dict[str, Any], want: dict[str, Any]) -> None:
    assert list(got) == list(want)
    assert json.dumps(got, default=repr) == json.dumps(want, default=repr)
    assert got == want


@pytest.mark.parametrize("kind", ["stt", "explore"])
def test_every_bundled_plan_observes_the_same_as_the_servers_path(kind):
    tasks = select_tasks(kind)
    fast, ref = GymEnv(ServeConfig(tasks)), SttuiEnvironment(ServeConfig(tasks))
    for loaded in tasks:
        for plan in ("oracle", "naive") if kind == "stt" else ("oracle",):
            actions, _ = baseline_actions(loaded, plan, loaded.task.seed)
            got, _ = fast.reset(options={"task": loaded.id})
            _same(got, _dump(ref.reset(task=loaded.id, episode_id=got["episode_id"])))
            for a in actions:
                got, reward, done, _, _ = fast.step(action_data(a))
                want = _reference_step(ref, action_data(a))
                _same(got, want)
                assert (reward, done) == (float(want["reward"] or 0.0), want["done"])
                if done:
                    break
            assert done, (loaded.id, plan)
            after, *_ = fast.step(action_data(actions[0]))  # a step after the end is refused the same way
            _same(after, _reference_step(ref, action_data(actions[0])))


@pytest.mark.parametrize(
    "action",
    [
        {"bogus": 1},
        {"tool": 5},
        {"tool": b"lookup"},
        {"message": ["hi"]},
        {"tool": "x", "message": "y"},
        {},
        {"tool": None, "message": "Hello", "args": None},
        {"tool": "no_such_tool", "args": {"a": 1}},
        {"tool": "end_episode", "args": "not json"},
        {"message": "Hello", "episode_id": None},
        {"message": "Hello", "episode_id": 7},
        {"message": 3},
        {"tool": "x", "message": None, "args": {}},
        {"message": "Hello", "metadata": {"a": 1}},
        ["not", "a", "dict"],
    ],
)
def test_odd_actions_get_the_models_answer(action):
    [loaded] = select_tasks("stt", task="air-ams-connection-t3-easy")
    fast, ref = GymEnv(ServeConfig([loaded])), SttuiEnvironment(ServeConfig([loaded]))
    got, _ = fast.reset()
    ref.reset(episode_id=got["episode_id"])
    try:
        want = _reference_step(ref, action)
    except TypeError:  # not a mapping: the model cannot even be called with it
        want = _dump(SttuiObservation(error="malformed action: x"))
        got, *_ = fast.step(action)
        assert got["error"].startswith("malformed action:")
        return
    got, *_ = fast.step(action)
    _same(got, want)


def test_the_observation_is_the_callers_own():
    """Changing what ``reset`` and ``step`` returned changes neither the episode, its record
    nor the tools the next episode is offered."""
    [loaded] = select_tasks("stt", task="air-ams-connection-t3-easy")
    env = GymEnv(ServeConfig([loaded]))
    obs, _ = env.reset()
    tools = json.dumps(obs["tools"])
    obs["tools"][0]["function"]["parameters"]["properties"].clear()
    actions, _ = baseline_actions(loaded, "oracle", loaded.task.seed)
    call = next(a for a in actions if action_data(a).get("tool"))
    obs, *_ = env.step(action_data(call))
    ep = env.env.session.stepper.episode
    seen = json.dumps(ep.view, default=str)
    events = json.dumps([e.payload for e in ep.events], default=str)
    for item in obs["items"]:
        for value in item.values():
            if isinstance(value, dict):
                value.clear()
                value["changed"] = True
    assert json.dumps(ep.view, default=str) == seen
    assert json.dumps([e.payload for e in ep.events], default=str) == events
    again, _ = env.reset()
    assert json.dumps(again["tools"]) == tools


@pytest.mark.parametrize(("flag", "deflate"), [((), False), (("--ws-compression",), True)])
def test_rl_serve_compresses_websocket_messages_only_when_asked(monkeypatch, flag, deflate):
    """On one machine permessage-deflate costs zlib work at both ends of every step and saves
    nothing: ``sttui rl serve`` turns it off unless asked."""
    import uvicorn
    from click.testing import CliRunner

    from sttui.cli.app import main

    started: list[dict[str, Any]] = []
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: started.append(kw))
    out = CliRunner().invoke(main, ["rl", "serve", "air-ams-connection-t3-easy", "--port", "0", *flag])
    assert out.exit_code == 0, out.output
    assert [kw["ws_per_message_deflate"] for kw in started] == [deflate]


def _round_trip(kind: str, data: dict[str, Any]) -> Any:
    """What ``parse_action`` gave before its shortcut: the arguments as JSON text, read back by
    ``sttui run``'s parser."""
    from sttui.controllers.model import _parse_stt

    args = data.get("args", {})
    arguments = args if isinstance(args, str) else json.dumps(args, ensure_ascii=False, default=str)
    assert kind == "stt"
    return _parse_stt({"content": None, "tool_calls": [{"function": {"name": data["tool"], "arguments": arguments}}]})


def _deep(n: int) -> Any:
    value: Any = "x"
    for i in range(n):
        value = {"k": value} if i % 2 else [value]
    return value


class _Text(str):
    pass


_ODD_ARGS = [
    {},
    {"a": 1, "b": 1.0, "c": True, "d": None, "e": "é ☃ \ud83d", "f": -0.0, "g": 10**30, "h": 1e308},
    {"z": 1, "a": {"y": [1, {"x": []}], "b": {}}},  # key order kept, empty containers nested
    {"t": (1, 2)},
    {"n": float("nan")},
    {"i": float("inf")},
    {"j": -float("inf")},
    {1: "int key"},
    {"s": _Text("a str subclass")},
    {"o": object()},
    {"d": _deep(30)},  # 31 levels with the arguments' own: allowed
    {"d": _deep(31)},  # 32
    {"d": _deep(32)},  # 33: refused, with the parser's message
    {"d": _deep(40)},
    {"reason": "done here"},
    {"reason": ""},
    {"reason": 5},
]


@pytest.mark.parametrize("tool", ["lookup", "end_episode"])
@pytest.mark.parametrize("args", _ODD_ARGS, ids=range(len(_ODD_ARGS)))
def test_parse_action_reads_arguments_as_their_json_round_trip(tool, args):
    """``parse_action`` copies plain JSON arguments instead of writing and parsing them: the
    action (its arguments' types and key order included) or the error is the round trip's."""
    from sttui.bridges.episodes import parse_action

    data = {"tool": tool, "args": args}
    got, want = parse_action("stt", data), _round_trip("stt", data)
    assert type(got) is type(want)
    assert repr(got) == repr(want)
    if hasattr(want, "args"):
        assert _typed(got.args) == _typed(want.args)
        assert got.args is not args


def _typed(value: Any) -> Any:
    """The value with every type named (a str subclass is no str; 1, 1.0 and True differ)."""
    if isinstance(value, dict):
        return ("dict", [(_typed(k), _typed(v)) for k, v in value.items()])
    if isinstance(value, list | tuple):
        return (type(value).__name__, [_typed(v) for v in value])
    return (type(value).__name__, repr(value))


def test_parse_action_reads_every_bundled_plans_actions_as_their_round_trip():
    from sttui.bridges.episodes import parse_action

    seen = 0
    for loaded in select_tasks("stt"):
        for plan in ("oracle", "naive"):
            actions, _ = baseline_actions(loaded, plan, loaded.task.seed)
            for a in actions:
                data = action_data(a)
                if "tool" in data:
                    assert repr(parse_action("stt", data)) == repr(_round_trip("stt", data))
                    seen += 1
    assert seen > 500


def test_an_observation_made_directly_is_the_one_model_construct_makes():
    """``plain_observation`` makes the observation without ``model_construct`` when every field is given:
    the same instance (fields, their order, what was set, no extra, no private) and the same
    dump; a partial set of fields goes through ``model_construct`` itself."""
    from sttui.bridges import openenv_wire as wire

    [loaded] = select_tasks("stt", task="air-ams-connection-t3-easy")
    env = GymEnv(ServeConfig([loaded]))
    env.reset()
    session = env.env.session
    assert session is not None
    for fields in (session.fields(first=True), session.fields(), session.fields(error="bad")):
        got = wire.construct_observation(dict(fields))
        want = SttuiObservation.model_construct(metadata={}, **fields)
        assert list(got.__dict__.items()) == list(want.__dict__.items())
        assert got.__pydantic_fields_set__ == want.__pydantic_fields_set__
        assert (got.__pydantic_extra__, got.__pydantic_private__) == (
            want.__pydantic_extra__,
            want.__pydantic_private__,
        )
        _same(got.model_dump(exclude={"metadata"}), want.model_dump(exclude={"metadata"}))
    partial = {"episode_id": "e", "error": "x"}
    got = wire.construct_observation(partial)
    assert got.__pydantic_fields_set__ == {"episode_id", "error", "metadata"}
    assert got.model_dump() == SttuiObservation.model_construct(metadata={}, **partial).model_dump()


def test_the_encoders_made_once_write_what_json_dumps_writes():
    """``texts`` and ``state.canonical`` keep their JSON encoders instead of making one per call
    (as ``json.dumps`` with options does): the same text, for odd values too."""
    from datetime import datetime

    from sttui.bridges.episodes import texts
    from sttui.core import state as st

    plain: list[Any] = [{"b": 1, "a": [1.5, None, True, "é ☃"], "c": {"y": float("nan")}}, [], "text"]
    odd: list[Any] = [{"z": datetime(2024, 1, 2, 3, 4), "x": (1, 2)}, {1: "int key"}, *plain]
    for value in odd:
        assert st.canonical(value) == json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)
        got = texts([{"type": "tool_result", "result": value}])
        assert got == f"result {json.dumps(value, ensure_ascii=False, default=str)}"
    for value in plain:  # a call's arguments (plain JSON: no default)
        got = texts([{"type": "tool_call", "tool": "t", "args": value}])
        assert got == f"call t {json.dumps(value, ensure_ascii=False)}"


def test_a_message_longer_than_a_models_answer_may_be_is_refused_unsent():
    """A client's runaway message is refused as ``sttui run`` refuses a model's answer of that
    length (judging it would hold the served episode's event loop for seconds): nothing is sent,
    and the episode goes on."""
    [loaded] = select_tasks("stt", task="air-ams-connection-t3-easy")
    env = GymEnv(ServeConfig([loaded]))
    env.reset()
    runaway = "I rebooked you on KL1183. " * (MAX_ANSWER_CHARS // 26 + 1)
    got, reward, done, *_ = env.step({"message": runaway})
    assert got["error"] == too_long(len(runaway)) and "200,000" in got["error"]
    assert (got["steps"], got["items"], done, reward) == (0, [], False, 0.0)
    got, *_ = env.step({"message": runaway[: MAX_ANSWER_CHARS - 1]})  # at the limit: sent
    assert (
        got["error"] is None
        and got["steps"] == 1
        and got["items"][0]["text"] == runaway[: MAX_ANSWER_CHARS - 1].strip()
    )
