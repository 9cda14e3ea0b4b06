"""Runner overhead per step at concurrency 16, against the stub server's own round-trip time.

Both halves talk to the same OpenAI-compatible stub on 127.0.0.1 through litellm:
1. reference: 16 concurrent clients making the same chat-completion requests directly;
2. the runner: 16 concurrent episodes with a model agent on the stub, every event recorded
   into SQLite. Overhead = (time per model step - time per bare request) / time per bare request.
Target: at most 10 %.

    python bench/runner.py [--episodes 64] [--delay 0.0]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from _common import scratch  # noqa: E402

from sttui.config import model_aliases  # noqa: E402
from sttui.controllers.model import END_TOOL, litellm_module  # noqa: E402
from sttui.core.loader import load_task  # noqa: E402
from sttui.running.batch import run_batch  # noqa: E402
from sttui.running.plan import RunPlan  # noqa: E402
from sttui.store.store import Store  # noqa: E402
from tests.helpers.stub_openai import calls, say, tool_call  # noqa: E402

TASK = ROOT / "tasks" / "stt" / "logistics" / "insulin-reefer-fault-st2-easy.yaml"
CONCURRENCY = 16


def turn_requests(loaded: object) -> list[list[dict]]:
    """The message list of each agent turn of the oracle's episode, as a model would be sent it."""
    from sttui.controllers.baselines import PlanAgent, ScriptedUser
    from sttui.core.chat import openai_messages
    from sttui.prompts import prompt
    from sttui.running.runner import Seats, drive, open_episode

    seen: list[list[dict]] = []

    class Capture(PlanAgent):
        async def act(self, view):  # type: ignore[no-untyped-def]
            seen.append(openai_messages(view.items, prompt("agent_stt.md")))
            return await super().act(view)

    episode = open_episode(loaded, None, {"agent": "a", "user": "u"})  # type: ignore[arg-type]
    episode.start()
    asyncio.run(drive(episode, Seats(Capture("a", loaded.task.solution), ScriptedUser())))  # type: ignore
    return seen


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--episodes", type=int, default=64)
    parser.add_argument("--delay", type=float, default=0.0, help="the stub's think time per answer, seconds")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    os.environ.setdefault("OPENAI_API_KEY", "sk-bench-0123456789")
    loaded = load_task(TASK)
    steps = [
        calls(tool_call(s.tool, s.args, f"call_{i}")) if s.tool else say(s.say)
        for i, s in enumerate(loaded.task.solution, 1)
    ]
    steps.append(calls(tool_call("end_episode", {"reason": "done"}, "call_end")))
    plan = scratch("sttui-bench-") / "plan.json"
    plan.write_text(json.dumps(steps))
    # The stub runs in a process of its own, so its work never competes with the runner's.
    server = subprocess.Popen(
        [sys.executable, "-m", "tests.helpers.stub_process", str(plan), str(args.delay)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        base = f"http://127.0.0.1:{int(server.stdout.readline())}/v1"
        models = model_aliases({"stub": {"model": "openai/stub-model", "api_base": base, "backoff": 0.01}})
        litellm = litellm_module()
        tools = [spec.openai_schema() for spec in loaded.env_cls.tool_specs.values()] + [END_TOOL]
        conversations = turn_requests(loaded)  # the very requests an episode's turns make, in order

        async def bare(n: int) -> None:
            for i in range(n):
                await litellm.acompletion(
                    model="openai/stub-model",
                    api_base=base,
                    tools=tools,
                    num_retries=0,
                    messages=conversations[i % len(conversations)],
                )

        per_client = max(1, args.episodes * (len(steps) - 1) // CONCURRENCY)
        asyncio.run(bare(3))  # warm up

        async def bare_all() -> float:
            start = time.perf_counter()
            await asyncio.gather(*(bare(per_client) for _ in range(CONCURRENCY)))
            return time.perf_counter() - start

        rounds = []
        for _ in range(args.rounds):  # alternate the halves: this machine's noise hits both alike
            bare_time = asyncio.run(bare_all()) / per_client
            store = Store(f"sqlite:///{scratch('sttui-bench-')}/runner.db")
            run_plan = RunPlan.build(
                [loaded], agent="model:stub", trials=args.episodes, concurrency=CONCURRENCY, models=models
            )
            start = time.perf_counter()
            records = asyncio.run(run_batch(run_plan, store=store))
            elapsed = time.perf_counter() - start
            assert all(r.get("passed") for r in records), "the runner half did not pass every episode"
            model_calls = sum(r.get("model_calls", 0) for r in records)
            step_time = elapsed / (model_calls / CONCURRENCY)
            rounds.append((bare_time, step_time, model_calls))
    finally:
        server.kill()
    overheads = sorted((step - bare_) / bare_ for bare_, step, _ in rounds)
    overhead = statistics.median(overheads)
    for n, (bare_, step, calls_) in enumerate(rounds, 1):
        print(
            f"round {n}: bare request {bare_ * 1000:.1f} ms; runner model step {step * 1000:.1f} ms "
            f"({calls_} steps, {args.episodes} episodes, every event recorded in SQLite); "
            f"overhead {(step - bare_) / bare_:+.1%}"
        )
    print(
        f"runner overhead per step at concurrency {CONCURRENCY}: median {overhead:+.1%} over {len(rounds)} rounds "
        f"(target <= 10%: {'met' if overhead <= 0.10 else 'NOT met'})"
    )


if __name__ == "__main__":
    main()
