"""Engine throughput: oracle steps per second over the bundled stt suite.

Each step is a full engine step — argument validation, trigger evaluation, the tool,
the clock, the state diff and the event — through the same runner every agent uses,
with no storage. As a reference in the same run, the same tool calls are made directly
on a bare environment (no validation, triggers, diffs or events).

    python bench/engine.py [--seconds 5]
"""

from __future__ import annotations

import argparse
import asyncio
import time
from pathlib import Path

from sttui.controllers.baselines import PlanAgent, ScriptedUser
from sttui.core import state as st
from sttui.core.loader import load_all
from sttui.runner import run_episode

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--tasks", default=str(ROOT / "tasks" / "stt"))
    args = parser.parse_args()
    tasks, errors = load_all([args.tasks])
    assert not errors, errors
    stt = [t for t in tasks if t.task.kind == "stt"]

    async def engine_round() -> int:
        steps = 0
        for t in stt:
            result = await run_episode(t, PlanAgent("baseline:oracle", t.task.solution), ScriptedUser())
            steps += result.steps
        return steps

    def bare_round() -> int:
        steps = 0
        for t in stt:
            env = t.env_cls(st.copy_state(t.task.initial_state), t.task.clock.start, t.task.seed)
            for step in t.task.solution:
                if step.tool:
                    getattr(env, step.tool)(**step.args)
                steps += 1
        return steps

    async def timed_engine() -> tuple[int, float]:
        steps, start = 0, time.perf_counter()
        while time.perf_counter() - start < args.seconds:
            steps += await engine_round()
        return steps, time.perf_counter() - start

    steps, elapsed = asyncio.run(timed_engine())
    bare_steps, bare_start = 0, time.perf_counter()
    while time.perf_counter() - bare_start < args.seconds / 2:
        bare_steps += bare_round()
    bare_elapsed = time.perf_counter() - bare_start
    rate, bare_rate = steps / elapsed, bare_steps / bare_elapsed
    print(f"tasks: {len(stt)}  oracle steps per round: {sum(len(t.task.solution) for t in stt)}")
    print(f"engine (runner + triggers + diffs + events): {rate:,.0f} steps/s  ({steps} steps in {elapsed:.1f} s)")
    print(f"reference: bare tool methods, same calls:    {bare_rate:,.0f} steps/s")
    print(
        f"engine cost per step: {1e6 / rate:.1f} us (bare {1e6 / bare_rate:.1f} us); target >= 5,000 steps/s: "
        f"{'met' if rate >= 5000 else 'NOT met'}"
    )


if __name__ == "__main__":
    main()
