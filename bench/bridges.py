"""Throughput of the OpenEnv bridge (sttui/bridges/openenv_env.py) with a scripted policy: every
bundled stt task's oracle actions, replayed episode after episode.

1. In-process, on one core: environment steps per CPU second through ``GymEnv`` (observations
   as dicts, as a trainer gets them) and through the bare ``Stepper`` (sttui's runner stepped
   from outside), against the bare engine in the same rounds (``Episode.apply`` for the same
   agent actions, the scripted user's turns in between; and with the verdict computed at the
   end, which the reward needs). Target: 10,000 steps/s. Also GymEnv over every bundled explore
   task's oracle (no target of its own).
2. Over HTTP on 127.0.0.1: ``sttui rl serve`` in a child process and 16 WebSocket sessions
   (openenv-core's client) playing at once for a fixed time, in wall-clock steps per second.
   Target: 1,000 steps/s on 2 cores (the clients share the machine with the server).

3. ``--profile``: where the in-process step's CPU goes (cProfile on CPU time over the GymEnv
   rounds): the engine, the scripted user's view of the record, the bridge's own work.

    python bench/bridges.py [--rounds 5] [--seconds 10] [--sessions 16] [--profile]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import PYTHON, ROOT, cpu, header, loadavg, median, paired, verdict

from sttui.bridges.episodes import Stepper, action_data, baseline_actions, select_tasks
from sttui.controllers.base import user_view
from sttui.controllers.baselines import ScriptedUser
from sttui.core.checklist import score
from sttui.core.settings import RunSettings
from sttui.running.runner import open_episode


def scripted(kind: str = "stt") -> list[tuple]:
    """(task, its oracle's agent actions, the same as dicts) for every bundled task of ``kind``."""
    out = []
    for t in select_tasks(kind, folder=ROOT / "tasks" / kind):
        actions, _ = baseline_actions(t, "oracle", t.task.seed)
        out.append((t, actions, [action_data(a) for a in actions]))
    return out


def _now(coro):  # a coroutine that never waits (the scripted user's act), run to its end
    try:
        coro.send(None)
    except StopIteration as stop:
        return stop.value
    raise RuntimeError("the coroutine waited")


def bare_round(plays: list[tuple], scored: bool = False) -> tuple[float, int]:
    """The engine alone: the same agent actions applied, the scripted user answering between;
    ``scored``: and the episode's verdict computed at its end (the checklist, the judge)."""
    steps = 0
    t0 = cpu()
    for t, actions, _ in plays:
        ep = open_episode(t, t.task.seed, {"agent": "a", "user": "u"}, settings=RunSettings())
        ep.start()
        user = ScriptedUser()
        for a in actions:
            while ep.ended is None and ep.turn == "user":
                ep.apply(_now(user.act(user_view(ep))), user.name)
            if ep.ended is not None:
                break
            ep.apply(a, "a")
            steps += 1
        if scored:
            score(ep)
    return cpu() - t0, steps


def stepper_round(plays: list[tuple]) -> tuple[float, int]:
    steps = 0
    t0 = cpu()
    for t, actions, _ in plays:
        s = Stepper(t, t.task.seed)
        s.reset()
        for a in actions:
            if s.done:
                break
            s.step(a)
            s.new_items()
            steps += 1
    return cpu() - t0, steps


def gym_round(plays: list[tuple], env) -> tuple[float, int]:
    steps = 0
    t0 = cpu()
    for t, _, dicts in plays:
        env.reset(options={"task": t.id})
        for d in dicts:
            _, _, done, _, _ = env.step(d)
            steps += 1
            if done:
                break
    return cpu() - t0, steps


def in_process(rounds: int) -> dict[str, float]:
    from sttui.bridges.openenv_env import GymEnv, ServeConfig

    plays = scripted()
    env = GymEnv(ServeConfig([p[0] for p in plays]))
    counts: dict[str, int] = {}

    def side(name, fn):
        def run() -> float:
            seconds, steps = fn()
            counts[name] = steps
            return seconds / steps  # CPU seconds per step

        return run

    per_step = paired(
        {
            "engine": side("engine", lambda: bare_round(plays)),
            "scored": side("scored", lambda: bare_round(plays, scored=True)),
            "stepper": side("stepper", lambda: stepper_round(plays)),
            "gym": side("gym", lambda: gym_round(plays, env)),
        },
        rounds,
    )
    rates = {k: 1 / median(v) for k, v in per_step.items()}
    print(
        f"scripted policy: {len(plays)} stt tasks' oracle actions, {counts['gym']} agent steps a round, {rounds} rounds"
    )
    for name, label in (
        ("engine", "bare engine (Episode.apply + scripted user)"),
        ("scored", "bare engine + the verdict at the end"),
        ("stepper", "Stepper (sttui's runner, stepped)"),
        ("gym", "GymEnv (the bridge, dict observations)"),
    ):
        lo, hi = 1 / max(per_step[name]), 1 / min(per_step[name])
        print(f"  {label:46s} {rates[name]:>9,.0f} steps/s CPU  ({lo:,.0f}-{hi:,.0f})")
    print(f"  gym / engine: {rates['gym'] / rates['engine']:.2f}x the bare engine's rate")
    print(f"  gym / engine + verdict: {rates['gym'] / rates['scored']:.2f}x")
    print(f"  target >= 10,000 steps/s in-process: {verdict(rates['gym'] >= 10_000)}")
    explore = scripted("explore")
    xenv = GymEnv(ServeConfig([p[0] for p in explore]))
    xrate = paired({"explore": side("explore", lambda: gym_round(explore, xenv))}, rounds)["explore"]
    print(
        f"  GymEnv on explore tasks ({len(explore)} tasks' oracle, {counts['explore']} steps a round)"
        f"    {1 / median(xrate):>9,.0f} steps/s CPU  ({1 / max(xrate):,.0f}-{1 / min(xrate):,.0f})"
    )
    return rates


# (label, file suffix, function names): cumulative CPU of the functions, nested rows indented
PROFILE_ROWS = (
    ("GymEnv.step + reset (the whole loop)", "openenv_env.py", ("step", "reset")),
    ("  Stepper.step: sttui's runner (engine, user seat)", "bridges/episodes.py", ("step",)),
    ("    Episode.apply: the engine", "core/episode.py", ("apply",)),
    ("      state sync and hash", "core/episode.py", ("_sync", "state_hash")),
    ("      milestone review", "review/tracker.py", ("close",)),
    ("    user_view: the scripted user's view of the record", "controllers/base.py", ("user_view",)),
    ("      contradicted", "controllers/base.py", ("contradicted",)),
    ("    checklist.score (the user's view, the verdict at the end)", "core/checklist.py", ("score",)),
    ("      tell items", "core/reports.py", ("evaluate_tell",)),
    ("      rule judge", "core/checklist.py", ("judge",)),
    ("    ScriptedUser.act", "controllers/baselines.py", ("act",)),
    ("  bridge: parse_action", "bridges/episodes.py", ("parse_action",)),
    ("  bridge: observation fields", "openenv_sessions.py", ("fields",)),
    ("  bridge: observation dump", "openenv_wire.py", ("plain_observation",)),
)


def profile(rounds: int) -> None:
    """cProfile (CPU time) over GymEnv rounds: each row's cumulative share of the loop."""
    import cProfile
    import pstats

    from sttui.bridges.openenv_env import GymEnv, ServeConfig

    plays = scripted()
    env = GymEnv(ServeConfig([p[0] for p in plays]))
    gym_round(plays, env)  # warm: tasks' vocabularies, readings
    prof = cProfile.Profile(time.process_time)
    prof.enable()
    steps = sum(gym_round(plays, env)[1] for _ in range(rounds))
    prof.disable()
    stats = pstats.Stats(prof).stats
    total = sum(tt for _, _, tt, _, _ in stats.values())

    def cum(suffix: str, names: tuple[str, ...]) -> float:
        return sum(ct for (f, _, n), (_, _, _, ct, _) in stats.items() if f.endswith(suffix) and n in names)

    # the tasks' own tool methods, as the engine calls them (a tool calling its helpers counts once)
    tools = sum(
        c[3]
        for (f, _, _), (_, _, _, _, callers) in stats.items()
        if "/tasks/" in f
        for (cf, _, _), c in callers.items()
        if cf.endswith("core/episode.py")
    )
    print(f"profile: {steps:,} GymEnv steps, {total:.2f} s CPU under cProfile (its overhead included)")
    for label, suffix, names in PROFILE_ROWS:
        share = cum(suffix, names)
        print(f"  {label:62s} {share:6.2f} s  {100 * share / total:5.1f}%")
        if names == ("apply",):
            label = "      the tasks' own tool methods"
            print(f"  {label:62s} {tools:6.2f} s  {100 * tools / total:5.1f}%")


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def _session(url: str, plays: list[tuple], until: float, counter: list[int], offset: int) -> None:
    from sttui.bridges.openenv_env import SttuiAction, SttuiEnv

    async with SttuiEnv(base_url=url) as client:
        i = offset
        while time.monotonic() < until:
            t, _, dicts = plays[i % len(plays)]
            i += 1
            await client.reset(task=t.id)
            for d in dicts:
                r = await client.step(SttuiAction(**d))
                counter[0] += 1
                if r.done or time.monotonic() >= until:
                    break


def _cpu_of(pid: int) -> float:
    """CPU seconds (user + system) of a child so far, from /proc (Linux)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def over_http(seconds: float, sessions: int) -> float:
    import sttui.bridges.openenv_env  # noqa: F401  (imported before the clock starts: seconds)

    plays = scripted()
    port = _port()
    url = f"http://127.0.0.1:{port}"
    proc = subprocess.Popen(
        [PYTHON, "-m", "sttui", "rl", "serve", str(ROOT / "tasks" / "stt"), "--port", str(port)],
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(url + "/health", timeout=2).read()
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit("the server did not start") from None
                time.sleep(0.2)
        counter = [0]
        server_before = _cpu_of(proc.pid)
        client_before = cpu()

        async def run() -> float:
            start = time.monotonic()
            until = start + seconds
            await asyncio.gather(*(_session(url, plays, until, counter, i) for i in range(sessions)))
            return time.monotonic() - start

        wall = asyncio.run(run())
        server_cpu = _cpu_of(proc.pid) - server_before
        client_cpu = cpu() - client_before
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
    rate = counter[0] / wall
    print(f"{sessions} WebSocket sessions for {wall:.1f} s: {counter[0]:,} steps, {rate:,.0f} steps/s wall")
    print(
        f"  server CPU {server_cpu:.1f} s ({counter[0] / server_cpu:,.0f} steps per server CPU second), "
        f"clients' CPU {client_cpu:.1f} s, in the same {wall:.1f} s"
    )
    print(f"  target >= 1,000 steps/s over HTTP on 2 cores: {verdict(rate >= 1_000)}")
    return rate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--sessions", type=int, default=16)
    parser.add_argument("--profile", action="store_true", help="where the in-process step's CPU goes")
    args = parser.parse_args()
    header("bridges: OpenEnv environment steps with a scripted policy")
    print(loadavg())
    if args.profile:
        profile(args.rounds)
        return
    in_process(args.rounds)
    over_http(args.seconds, args.sessions)


if __name__ == "__main__":
    main()
