"""sttui's tasks as an OpenEnv environment (sttui/bridges/openenv_env.py, `sttui rl serve`),
played with the real openenv-core client over WebSocket and with plain HTTP against a server the
test starts on 127.0.0.1: the oracle's actions get reward 1, the naive plan's 0, as in `sttui run`."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

pytest.importorskip("openenv")

from sttui.bridges.episodes import action_data, baseline_actions, select_tasks
from sttui.bridges.openenv_env import GymEnv, ServeConfig, SttuiAction, SttuiEnv
from sttui.config import model_aliases

ROOT = Path(__file__).resolve().parent.parent
TASK = "air-ams-connection-t3-easy"


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _serve(tmp_path):
    """`sttui rl serve` on 127.0.0.1 serving one stt and one explore task."""
    port = _port()
    explore_id = select_tasks("explore")[0].id
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    log = (tmp_path / "server.log").open("wb")  # a file, not a pipe nobody reads (it would fill and block)
    proc = subprocess.Popen(
        [sys.executable, "-m", "sttui", "rl", "serve", TASK, explore_id, "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=log,
        cwd=tmp_path,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            urllib.request.urlopen(url + "/health", timeout=2).read()
            break
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                raise AssertionError((tmp_path / "server.log").read_text()[-2000:]) from None
            time.sleep(0.2)
    return url, proc, explore_id


def _stop(proc) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:  # open sessions hold a graceful shutdown
            proc.kill()
            proc.wait(timeout=10)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    started = _serve(tmp_path_factory.mktemp("rl"))
    yield started
    _stop(started[1])


@pytest.fixture
def own_server(tmp_path):
    started = _serve(tmp_path)
    yield started
    _stop(started[1])


def _post(url: str, path: str, body: dict) -> dict:
    req = urllib.request.Request(
        url + path, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.loads(r.read())


async def _play_ws(url: str, task: str, actions, seed=None) -> list:
    results = []
    async with SttuiEnv(base_url=url) as client:
        first = await client.reset(task=task, **({} if seed is None else {"seed": seed}))
        results.append(first)
        for a in actions:
            r = await client.step(SttuiAction(**action_data(a)))
            results.append(r)
            if r.done:
                break
        results.append(await client.step(SttuiAction(message="one more")))  # after the end
    return results


def test_oracle_gets_1_and_naive_0_over_websocket_and_http(server):
    url, _, _ = server
    [loaded] = select_tasks("stt", task=TASK)
    for baseline, reward in (("oracle", 1.0), ("naive", 0.0)):
        actions, expected = baseline_actions(loaded, baseline, loaded.task.seed)
        got = asyncio.run(_play_ws(url, TASK, actions))
        first, *steps, after = got
        assert first.observation.tools and first.observation.text.startswith("user:")
        assert first.observation.error is None and first.done is False
        last = steps[-1]
        assert last.done and last.reward == reward
        assert all(s.reward == 0.0 for s in steps[:-1])
        assert last.observation.outcome["checklist"] == [i.as_dict() for i in expected.outcome.items]
        assert after.observation.error == "the episode has ended: reset to start another"
        # plain HTTP: the episode found by the id reset returned
        opened = _post(url, "/reset", {"task": TASK})
        eid = opened["observation"]["episode_id"]
        for a in actions:
            out = _post(url, "/step", {"action": {**action_data(a), "episode_id": eid}})
            if out["done"]:
                break
        assert out["done"] and out["reward"] == reward
        gone = _post(url, "/step", {"action": {"message": "more", "episode_id": eid}})
        assert gone["observation"]["error"] == f"no live episode '{eid}' (it ended, or was never begun here)"
        # the id beside the action, where a request's own fields go, finds the episode too
        eid = _post(url, "/reset", {"task": TASK})["observation"]["episode_id"]
        for a in actions:
            out = _post(url, "/step", {"action": action_data(a), "episode_id": eid})
            assert out["observation"]["error"] is None and out["observation"]["episode_id"] == eid
            if out["done"]:
                break
        assert out["done"] and out["reward"] == reward


def test_explore_reward_is_the_calibrated_accuracy(server):
    url, _, explore_id = server
    [loaded] = select_tasks("explore", task=explore_id)
    actions, expected = baseline_actions(loaded, "oracle", loaded.task.seed)
    *_, last, _after = asyncio.run(_play_ws(url, explore_id, actions))
    assert last.done and last.reward == pytest.approx(expected.metrics["calibrated_accuracy"])
    assert last.observation.outcome["metrics"] == json.loads(json.dumps(expected.metrics))


def test_concurrent_episodes_are_isolated(server):
    """Sixteen WebSocket sessions at once, oracle and naive interleaved: each gets its own verdict."""
    url, _, _ = server
    [loaded] = select_tasks("stt", task=TASK)
    oracle, _ = baseline_actions(loaded, "oracle", loaded.task.seed)
    naive, _ = baseline_actions(loaded, "naive", loaded.task.seed)

    async def all_at_once():
        plays = [_play_ws(url, TASK, oracle if i % 2 == 0 else naive) for i in range(16)]
        return await asyncio.gather(*plays)

    finals = [r[-2].reward for r in asyncio.run(all_at_once())]
    assert finals == [1.0, 0.0] * 8


def test_bad_input_gets_error_observations_not_a_dropped_session(server):
    url, _, _ = server

    async def go():
        async with SttuiEnv(base_url=url) as client:
            await client.reset(task=TASK)
            both = await client.step(SttuiAction(tool="lookup_booking", message="and a message"))
            args = await client.step(SttuiAction(tool="lookup_booking", args=[1, 2]))
            state = await client.state()
            unknown = await client.reset(task="air-ams-connection-t3-eas")
            return both, args, unknown, state

    both, args, unknown, state = asyncio.run(go())
    assert (state.task, state.step_count, state.done) == (TASK, 0, False)  # nothing was executed
    assert both.observation.error.startswith("an action is one tool call or one message") and not both.done
    assert args.observation.error == "The arguments of lookup_booking must be a JSON object. Nothing was executed."
    assert unknown.done and unknown.observation.error == (
        "no task 'air-ams-connection-t3-eas' is served here (2 are) (did you mean air-ams-connection-t3-easy?)"
    )
    bad = _post(url, "/step", {"action": {"message": "hi", "episode_id": "nope"}})
    assert bad["observation"]["error"] == "no live episode 'nope' (it ended, or was never begun here)"
    nameless = _post(url, "/step", {"action": {"message": "hi"}})  # HTTP keeps no episode between requests
    assert nameless["observation"]["error"] == (
        "no episode: reset first (over HTTP, each step names the episode_id its reset returned)"
    )


def test_killing_the_server_mid_episode_gives_the_client_a_clear_error(own_server):
    url, proc, _ = own_server

    async def go():
        async with SttuiEnv(base_url=url) as client:
            await client.reset(task=TASK)
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=10)
            with pytest.raises(Exception) as caught:
                await client.step(SttuiAction(message="hello?"))
            return caught.value

    exc = asyncio.run(go())
    assert isinstance(exc, ConnectionError), repr(exc)
    assert "closed the connection during step" in str(exc) and "connect again and reset" in str(exc)


def test_unknown_task_on_the_command_line_is_one_line(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "sttui", "rl", "serve", "no-such-task"],
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert done.returncode != 0
    assert done.stderr.strip().count("\n") == 0 and done.stderr.startswith("error: no task 'no-such-task'")


def test_gym_wrapper_seeds_trials_shaping_and_recording(tmp_path):
    from sttui.store.store import Store

    [loaded] = select_tasks("stt", task=TASK)
    oracle, expected = baseline_actions(loaded, "oracle", 7)
    url = f"sqlite:///{tmp_path / 'rl.db'}"
    env = GymEnv(ServeConfig([loaded], seed=6, shaped=True, record=url))
    obs, _ = env.reset(options={"trial": 1})  # base 6 + trial 1 = seed 7, as in sttui run
    rewards = []
    for a in oracle:
        obs, reward, terminated, _, _ = env.step(action_data(a))
        rewards.append(reward)
        if terminated:
            break
    assert terminated and rewards[-1] >= 1.0  # the verdict, plus the last step's shaping
    assert sum(rewards) == pytest.approx(1.0 + expected.review["score"])  # the shaping's changes add up
    assert any(0 < r < 1 for r in rewards[:-1])
    record = Store(url).episode(obs["episode_id"])
    assert record.seed == 7 and record.status == "completed" and record.outcome["passed"] is True
    bad, reward, terminated, _, _ = env.step({"bogus": 1})
    assert "bogus" in bad["error"] and reward == 0.0 and not terminated


def test_a_model_user_answers_through_the_async_steps(monkeypatch):
    """The user seat held by a model (an OpenAI-compatible stub on 127.0.0.1): its request is a
    real wait, passed on to the caller's event loop by ``astep``; the plain ``step`` says it
    needs one."""
    from sttui.bridges.episodes import NeedsEventLoop, Stepper
    from sttui.bridges.openenv_env import SttuiEnvironment
    from sttui.core.actions import Say
    from tests.helpers.stub_openai import StubServer, completion, say

    monkeypatch.setenv("OPENAI_API_KEY", "sk-stub-0123456789")  # the stub's; litellm wants one
    [loaded] = select_tasks("stt", task=TASK)
    with StubServer(lambda request: (200, completion(say("Yes, please go ahead.")), 0.0)) as stub:
        models = {"stub": {"model": "openai/stub-model", "api_base": stub.base, "retries": 0}}

        async def go():
            env = SttuiEnvironment(ServeConfig([loaded], user="model:stub", models=model_aliases(models)))
            await env.reset_async(task=TASK)
            return await env.step_async(SttuiAction(message="Shall I rebook you?"))

        obs = asyncio.run(go())
        assert obs.error is None and not obs.done
        assert obs.items[-1] == {"type": "message", "from": "user", "text": "Yes, please go ahead."}
        assert stub.requests  # the model was asked
        blocking = Stepper(loaded, loaded.task.seed, user="model:stub", models=model_aliases(models))
        blocking.reset()
        with pytest.raises(NeedsEventLoop, match="step with astep"):
            blocking.step(Say("Shall I rebook you?"))


@pytest.mark.parametrize("kind", ["stt", "explore"])
def test_every_bundled_task_steps_to_sttui_runs_episode(kind):
    """Every bundled task, its oracle's (and for stt the naive plan's) actions stepped through
    the environment: the same verdict, metrics and state hash as `sttui run` on them."""
    env = GymEnv(ServeConfig(select_tasks(kind)))
    for loaded in env.env.config.tasks:
        for baseline in ("oracle", "naive") if kind == "stt" else ("oracle",):
            actions, expected = baseline_actions(loaded, baseline, loaded.task.seed)
            env.reset(options={"task": loaded.id})
            for a in actions:
                obs, reward, done, _, _ = env.step(action_data(a))
                if done:
                    break
            assert done, (loaded.id, baseline)
            ended = env.env.session.stepper.result
            assert ended.episode.state_hash() == expected.episode.state_hash(), (loaded.id, baseline)
            if kind == "stt":
                assert reward == (1.0 if expected.passed else 0.0), (loaded.id, baseline)
            else:
                assert obs["outcome"]["metrics"] == expected.metrics, loaded.id
