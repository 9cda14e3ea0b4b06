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
