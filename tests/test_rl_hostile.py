"""`sttui rl serve` under hostile input (an outside tester's findings): whatever a client sends
over HTTP or WebSocket gets an error observation in the API's own words, never a 500, a wedged
episode or a record `sttui import` refuses; HTTP episodes are bounded; a bad --record or a port
in use stops the server at once in one line; an ordinary WebSocket close logs nothing.

Most tests drive openenv-core's real app in-process through Starlette's test client; those about
the process itself (its start, its log) run `sttui rl serve` in a child on 127.0.0.1."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("openenv")

from starlette.testclient import TestClient

from sttui.bridges.episodes import BridgeError, Stepper, select_tasks
from sttui.bridges.openenv_env import GymEnv, ServeConfig, SttuiAction, SttuiEnv, SttuiEnvironment, make_app
from sttui.core.actions import Say
from sttui.core.settings import RunSettings
from sttui.errors import StoreError

ROOT = Path(__file__).resolve().parent.parent
TASK = "air-ams-connection-t3-easy"
MAX = 2**63 - 1
[STT] = select_tasks("stt", task=TASK)
EXPLORE = select_tasks("explore")[0]


def _db(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'rl.db'}"


def _client(config: ServeConfig) -> TestClient:
    return TestClient(make_app(config))


def _post(client: TestClient, path: str, body: dict[str, Any]) -> Any:
    """``body`` as JSON text with its escapes, as a client in any language may send a lone surrogate."""
    return client.post(path, content=json.dumps(body), headers={"Content-Type": "application/json"})


def _reset(client: TestClient, body: dict[str, Any]) -> dict[str, Any]:
    r = _post(client, "/reset", body)
    assert r.status_code == 200, r.text
    return r.json()["observation"]


def _step(client: TestClient, body: dict[str, Any]) -> dict[str, Any]:
    r = _post(client, "/step", body)
    assert r.status_code == 200, r.text
    return {**r.json()["observation"], "done": r.json()["done"]}


def _ws(ws: Any, kind: str, data: dict[str, Any]) -> dict[str, Any]:
    ws.send_text(json.dumps({"type": kind, "data": data}))
    reply = json.loads(ws.receive_text())
    assert reply["type"] == "observation", reply
    return reply["data"]["observation"]


def _recorded(url: str) -> list[tuple[str, int, str]]:
    from sttui.store.store import Store

    return [(e.id, e.seed, e.status) for e in Store(url).iter_episodes()]


# -- 1. what the record cannot hold is refused at reset and step, alike over HTTP and WebSocket --


def test_seeds_trials_and_episode_ids_outside_the_records_rules_are_refused_alike(tmp_path):
    url = _db(tmp_path)
    client = _client(ServeConfig([STT], seed=5, record=url))  # trial i plays seed 5 + i
    bad_resets = [
        ({"trial": -5}, f"trial must be a whole number within 0..{MAX}; got -5"),
        ({"trial": MAX + 1}, f"trial must be a whole number within 0..{MAX}; got {MAX + 1}"),
        ({"trial": 1.5}, f"trial must be a whole number within 0..{MAX}; got a fraction"),
        ({"seed": -3}, f"seed must be a whole number within 0..{MAX}; got -3"),
        ({"seed": MAX + 1}, f"seed must be a whole number within 0..{MAX}; got {MAX + 1}"),
        ({"seed": True}, f"seed must be a whole number within 0..{MAX}; got a boolean"),
        ({"trial": MAX - 4}, f"trial {MAX - 4} plays seed 5 + {MAX - 4}, past the largest seed, {MAX}"),
        ({"episode_id": "../x"}, "episode_id must be 1 to 64 letters, digits, '-' or '_' (as the record's ids are)"),
        ({"episode_id": "a\x1b[2Jb"}, "episode_id must be 1 to 64 letters"),
        ({"episode_id": "x" * 65}, "episode_id must be 1 to 64 letters"),
    ]
    with client.websocket_connect("/ws") as ws:
        for body, error in bad_resets:
            over_ws = _ws(ws, "reset", body)
            assert over_ws["error"].startswith(error), (body, over_ws["error"])
            if "seed" not in body or body["seed"] == MAX + 1:  # (openenv-core's model takes the rest first)
                over_http = _reset(client, body)
                assert over_http["error"] == over_ws["error"], body
        top = _ws(ws, "reset", {"trial": MAX - 5})  # the last trial that still plays a seed
    assert top["error"] is None
    assert [seed for _, seed, _ in _recorded(url)] == [MAX]  # nothing refused was recorded


@pytest.mark.parametrize(
    ("action", "error"),
    [
        ({"message": "a\x00b"}, "message holds a NUL character (\\u0000); nothing was executed"),
        ({"message": "a\ud800b"}, "message holds a lone surrogate (\\ud800), which is no character; nothing was"),
        ({"tool": "get_booking", "args": {"locator": ["QK7M2P", {"n": "\x00"}]}}, "args.locator[1].n holds a NUL"),
        ({"tool": "get_booking", "args": {"k\udc00": 1}}, "a key in args holds a lone surrogate (\\udc00)"),
        ({"tool": "get_booking", "args": '{"locator": "\\u0000"}'}, "args.locator holds a NUL character"),
        ({"tool": "get_booking", "args": '{"locator": "\\ud800"}'}, "args.locator holds a lone surrogate"),
        ({"tool": "get\x00booking", "args": {}}, "tool holds a NUL character"),
    ],
    ids=[
        "nul-message",
        "surrogate-message",
        "nul-arg",
        "surrogate-key",
        "nul-json-args",
        "surrogate-json-args",
        "nul-tool",
    ],
)
def test_nul_and_lone_surrogates_in_an_action_are_refused_unrecorded(tmp_path, action, error):
    """Refused before the engine or the record sees them, over HTTP and WebSocket; the episode
    goes on, and its record imports."""
    url = _db(tmp_path)
    client = _client(ServeConfig([STT], record=url))
    eid = _reset(client, {})["episode_id"]
    over_http = _step(client, {"action": action, "episode_id": eid})
    assert over_http["error"].startswith(error) and over_http["steps"] == 0 and not over_http["done"]
    with client.websocket_connect("/ws") as ws:
        _ws(ws, "reset", {"episode_id": "ws1"})
        over_ws = _ws(ws, "step", action)
        assert over_ws["error"] == over_http["error"] and over_ws["steps"] == 0
        assert _ws(ws, "step", {"message": "Let me check your booking."})["error"] is None
    assert _step(client, {"action": {"message": "Let me check."}, "episode_id": eid})["steps"] == 1
    _export_imports(url, tmp_path)


def _export_imports(url: str, tmp_path: Path) -> None:
    from click.testing import CliRunner

    from sttui.cli import main

    out = tmp_path / "out.jsonl"
    done = CliRunner().invoke(main, ["--db", url, "export", "--all", "-o", str(out)], catch_exceptions=False)
    assert done.exit_code == 0, done.output
    fresh = f"sqlite:///{tmp_path / 'fresh.db'}"
    done = CliRunner().invoke(main, ["--db", fresh, "import", str(out)], catch_exceptions=False)
    assert done.exit_code == 0 and "imported 2 episode(s)" in done.output, done.output


# -- 2. no 500, and no wedged episode ------------------------------------------------------


def test_hostile_resets_and_steps_get_error_observations_not_500s(tmp_path):
    url = _db(tmp_path)
    client = _client(ServeConfig([STT], record=url))
    assert _reset(client, {"seed": MAX + 1})["error"].startswith("seed must be a whole number")
    assert _reset(client, {"trial": 10**30})["error"].endswith("got a larger number")
    assert _reset(client, {"episode_id": "dup1"})["error"] is None
    assert _reset(client, {"episode_id": "dup1"})["error"] == "episode id dup1 is in use"
    assert _reset(client, {"task": "\ud800"})["error"] == "task holds a lone surrogate (\\ud800), which is no character"
    listed = _reset(client, {"task": ["a"]})
    assert listed["error"] == "task: expected a task id (text); got a list" and listed["task"] == ""
    stepped = _step(client, {"action": {"message": "hi"}, "episode_id": 5})
    assert stepped["error"] == "episode_id must be the id its reset returned (text); got 5" and stepped["done"]
    # an id the record holds already, from an earlier server on the same record
    again = _client(ServeConfig([STT], record=url))
    assert _reset(again, {"episode_id": "dup1"})["error"] == (
        "episode id dup1 is in use (the record holds an episode with it)"
    )
    assert [(eid, status) for eid, _, status in _recorded(url)] == [("dup1", "running")]


def _failing_store(session: Any, times: int = 1) -> None:
    """The session's record fails its next ``times`` event writes, as a full disk would."""
    real = session.store.append_event
    left = [times]

    def append_event(episode_id: str, event: Any) -> None:
        if left[0] > 0:
            left[0] -= 1
            raise StoreError("the disk holding rl.db is full; free some space and retry", transient=True)
        real(episode_id, event)

    session.store.append_event = append_event


def test_a_failure_inside_a_step_ends_the_episode_in_one_line_not_a_wedge(tmp_path):
    """Before: a 500, then "cannot reuse already awaited coroutine" for every later step."""
    url = _db(tmp_path)
    config = ServeConfig([STT], record=url)

    async def go() -> list[Any]:
        env = SttuiEnvironment(config)
        await env.reset_async(episode_id="failing")
        assert env.session is not None
        _failing_store(env.session)
        failed = await env.step_async(SttuiAction(message="Let me check."))
        later = await env.step_async(SttuiAction(message="Hello?"))
        fresh = await env.reset_async(episode_id="after")
        return [failed, later, fresh]

    failed, later, fresh = asyncio.run(go())
    why = "the disk holding rl.db is full; free some space and retry"
    assert failed.done and failed.reward == 0.0
    assert failed.error == f"the episode ended in an error ({why}): reset to start another"
    assert later.done and later.error == f"the episode has ended in an error ({why}): reset to start another"
    assert fresh.error is None and not fresh.done  # the environment serves on
    assert ("failing", "errored") in [(eid, status) for eid, _, status in _recorded(url)]
    # the in-process path, and the stepper itself: a finished coroutine is never resumed
    (tmp_path / "gym").mkdir()
    env = GymEnv(ServeConfig([STT], record=_db(tmp_path / "gym")))
    env.reset()
    assert env.env.session is not None
    _failing_store(env.env.session)
    obs, reward, done, _, _ = env.step({"message": "Let me check."})
    assert reward == 0.0
    assert done and obs["error"] == f"the episode ended in an error ({why}): reset to start another"
    obs, _, done, _, _ = env.step({"message": "Hello?"})
    assert done and obs["error"].startswith("the episode has ended in an error (the disk holding")


def test_a_stepper_whose_runner_failed_says_so_instead_of_resuming_it():
    stepper = Stepper(STT, STT.task.seed, on_event=lambda event: None)
    stepper.reset()
    assert stepper.episode is not None
    stepper.episode.listeners.append(lambda event: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        stepper.step(Say("Let me check."))
    from sttui.bridges.episodes import EpisodeOver

    with pytest.raises(
        EpisodeOver, match=r"ended in an error \(ZeroDivisionError: division by zero at test_rl_hostile.py line \d+\)"
    ):
        stepper.step(Say("Hello?"))


# -- 3. a record that cannot be used stops the server at its start -----------------------


def _cli(tmp_path: Path, *args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "sttui", "rl", "serve", TASK, *args],
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=tmp_path,
    )


def test_a_record_that_cannot_be_opened_stops_rl_serve_at_its_start(tmp_path):
    missing = tmp_path / "no-such-folder" / "x.db"
    done = _cli(tmp_path, "--port", "0", "--record", f"sqlite:///{missing}")
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("error: --record: the folder")
    assert "--db" not in done.stderr and "STTUI_DB" not in done.stderr and "http://" not in done.stderr
    assert not missing.parent.exists()


# -- 4. an ordinary WebSocket close logs nothing ----------------------------------------------


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_closing_websocket_sessions_logs_no_traceback(tmp_path):
    port = _port()
    log = tmp_path / "server.log"
    with log.open("wb") as err:
        proc = subprocess.Popen(
            [sys.executable, "-m", "sttui", "rl", "serve", TASK, "--port", str(port), "--record", _db(tmp_path)],
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            stdout=subprocess.DEVNULL,
            stderr=err,
            cwd=tmp_path,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert proc.poll() is None and time.monotonic() < deadline, log.read_text()
                time.sleep(0.2)

        async def sessions() -> None:
            for _ in range(3):  # the project's own client, closing as it does
                async with SttuiEnv(base_url=url) as client:
                    await client.reset(task=TASK)
                    await client.step(SttuiAction(message="Let me check."))
            from websockets.asyncio.client import connect

            ws = await connect(f"ws://127.0.0.1:{port}/ws")  # a client that just goes
            await ws.send(json.dumps({"type": "reset", "data": {}}))
            await ws.recv()
            ws.transport.abort()

        asyncio.run(sessions())
        time.sleep(1.0)
        text = log.read_text()
        assert "Traceback" not in text and "ERROR" not in text, text[-3000:]
        # a WebSocket session's episode is its own: it ends with the session, never waits in the
        # table (the client that only reset is one HTTP-like request: it waits, under the idle timeout)
        statuses = sorted(status for _, _, status in _recorded(_db(tmp_path)))
        assert statuses == ["running", "stopped", "stopped", "stopped"], statuses
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


# -- 5. HTTP episodes are bounded ------------------------------------------------------------


def test_http_episodes_are_dropped_past_the_cap_and_when_idle(tmp_path):
    url = _db(tmp_path)
    config = ServeConfig([STT], record=url, idle_timeout=2.0, max_episodes=3)
    client = _client(config)
    ids = [_reset(client, {})["episode_id"] for _ in range(4)]
    assert list(config.live) == ids[1:] and not config.held
    capped = _step(client, {"action": {"message": "hi"}, "episode_id": ids[0]})
    assert capped["done"] and capped["error"] == (
        f"episode {ids[0]} was dropped to make room: the server keeps at most 3 open HTTP episodes, "
        "and this one had gone longest without a step: reset to start another"
    )
    assert _step(client, {"action": {"message": "Let me check."}, "episode_id": ids[1]})["error"] is None
    time.sleep(1.2)
    assert _step(client, {"action": {"message": "Still there?"}, "episode_id": ids[1]})["error"] is None
    time.sleep(1.2)  # ids[2] and ids[3] now idle 2.4 s; ids[1] 1.2 s
    idle = _step(client, {"action": {"message": "hi"}, "episode_id": ids[2]})
    assert idle["done"] and idle["error"] == (
        f"episode {ids[2]} was dropped after 2 s without a step (the server's idle timeout): reset to start another"
    )
    assert list(config.live) == [ids[1]]
    status = {eid: status for eid, _, status in _recorded(url)}
    assert status[ids[0]] == status[ids[2]] == status[ids[3]] == "stopped" and status[ids[1]] == "running"
    # (a WebSocket session's episode ends with the session: test_closing_websocket_sessions_logs_no_traceback,
    # on a real server; the test client may cancel the server's handler before its cleanup runs)


def test_rl_serve_takes_the_bounds_of_http_episodes(monkeypatch):
    import uvicorn
    from click.testing import CliRunner

    from sttui.bridges import openenv_env
    from sttui.cli import main

    made: list[ServeConfig] = []
    real = openenv_env.make_app
    monkeypatch.setattr(openenv_env, "make_app", lambda config, n: made.append(config) or real(config, n))
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: None)
    args = ["rl", "serve", TASK, "--port", "0"]
    assert CliRunner().invoke(main, args).exit_code == 0
    assert CliRunner().invoke(main, [*args, "--idle-timeout", "0", "--max-episodes", "5"]).exit_code == 0
    assert [(c.idle_timeout, c.max_episodes) for c in made] == [(600, 1024), (None, 5)]


def test_rl_serve_says_it_is_not_recording_when_the_global_db_is_given(tmp_path, monkeypatch):
    """``sttui --db URL rl serve`` reads as "record there"; rl serve records only with
    ``--record``, and says so rather than leave the record silently empty."""
    import uvicorn
    from click.testing import CliRunner

    from sttui.cli import main

    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: None)
    monkeypatch.delenv("STTUI_DB", raising=False)
    db = _db(tmp_path)
    said = CliRunner().invoke(main, ["--db", db, "rl", "serve", TASK, "--port", "0"])
    assert said.exit_code == 0 and "note: not recording: rl serve records only with --record URL" in said.output
    for args in (
        ["rl", "serve", TASK, "--port", "0"],
        ["--db", db, "rl", "serve", TASK, "--port", "0", "--record", db],
    ):
        assert "not recording" not in CliRunner().invoke(main, args).output


# -- 6. an oversized reset field is refused at once, never echoed --------------------------------


def test_an_oversized_task_id_is_refused_at_once_without_an_echo():
    client = _client(ServeConfig([STT, EXPLORE]))
    huge = "air-ams-connection-t3-eas" + "y" * 5_000_000
    started = time.monotonic()
    r = client.post("/reset", json={"task": huge})
    assert time.monotonic() - started < 10
    assert r.status_code == 200 and len(r.content) < 2000
    assert r.json()["observation"]["error"] == "task: a task id has at most 200 characters; got 5,000,025"
    r = client.post("/reset", json={"task": EXPLORE.id, "setting": huge})
    assert len(r.content) < 2000 and r.json()["observation"]["error"].startswith("setting must be one of default")
    with pytest.raises(BridgeError, match="did you mean"):  # an id of a usual length still gets its hint
        ServeConfig([STT]).task(TASK[:-1])


# -- 7. paper cuts: the port in use, the API's own words --------------------------------------


def test_rl_serve_on_a_port_in_use_says_so_in_one_line_as_serve_does(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = _cli(tmp_path, "--port", str(port))
    assert done.returncode == 2
    assert done.stderr == (
        f"error: cannot listen on 127.0.0.1:{port}: the port is in use (choose another with --port)\n"
    )


def test_reset_errors_name_the_apis_fields_not_the_command_lines_flags():
    client = _client(ServeConfig([EXPLORE, STT]))  # the explore task is the default
    static = _reset(client, {"static": True})["error"]
    assert static == (
        f"static and no_user apply to stt tasks; task {EXPLORE.id} (the server's default: the reset names no task) "
        "is an explore task"
    )
    setting = _reset(client, {"task": TASK, "setting": "stationary"})["error"]
    assert setting == f"setting applies to explore tasks; task {TASK} is an stt task"
    assert _reset(client, {"static": "yes"})["error"] == "static must be true or false; got text"
    assert _reset(client, {"task": TASK, "static": True, "no_user": True})["error"] is None
    for said in (static, setting):
        assert "--" not in said
    # a server started with --static applies it to the stt tasks it serves, not to its explore ones
    mixed = _client(ServeConfig([EXPLORE, STT], settings=RunSettings(static=True)))
    assert _reset(mixed, {})["error"] is None and _reset(mixed, {"task": TASK})["error"] is None
