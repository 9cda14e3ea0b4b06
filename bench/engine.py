"""Engine throughput: oracle steps per second over the bundled stt suite.

Each step is a full engine step — argument validation, trigger evaluation, the tool,
the clock, the state diff and the event — through the same runner every agent uses,
with no storage. As a reference in the same run, the same tool calls are made directly
on a bare environment (no validation, triggers, diffs or events), and the engine is run
with the milestone review switched off, alternating rounds with and without it, so the
review's own cost per step shows.

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
from sttui.running import runner
from sttui.running.runner import run_episode

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

    with_review = runner.review_for

    async def timed_engine() -> tuple[int, float, int, float]:
        """Alternating rounds: with the review (as shipped), then without it."""
        steps = plain_steps = 0
        elapsed = plain_elapsed = 0.0
        while elapsed + plain_elapsed < args.seconds:
            t0 = time.perf_counter()
            steps += await engine_round()
            elapsed += time.perf_counter() - t0
            runner.review_for = lambda *a, **k: None  # type: ignore[assignment]
            t0 = time.perf_counter()
            plain_steps += await engine_round()
            plain_elapsed += time.perf_counter() - t0
            runner.review_for = with_review
        return steps, elapsed, plain_steps, plain_elapsed

    steps, elapsed, plain_steps, plain_elapsed = asyncio.run(timed_engine())
    plain_rate = plain_steps / plain_elapsed
    bare_steps, bare_start = 0, time.perf_counter()
    while time.perf_counter() - bare_start < args.seconds / 2:
        bare_steps += bare_round()
    bare_elapsed = time.perf_counter() - bare_start
    rate, bare_rate = steps / elapsed, bare_steps / bare_elapsed
    print(f"tasks: {len(stt)}  oracle steps per round: {sum(len(t.task.solution) for t in stt)}")
    print(f"engine (runner + triggers + diffs + events): {rate:,.0f} steps/s  ({steps} steps in {elapsed:.1f} s)")
    print(f"same engine without the milestone review:    {plain_rate:,.0f} steps/s")
    print(f"reference: bare tool methods, same calls:    {bare_rate:,.0f} steps/s")
    print(f"milestone review cost per step: {1e6 / rate - 1e6 / plain_rate:.1f} us")
    print(
        f"engine cost per step: {1e6 / rate:.1f} us (bare {1e6 / bare_rate:.1f} us); target >= 5,000 steps/s: "
        f"{'met' if rate >= 5000 else 'NOT met'}"
    )


if __name__ == "__main__":
    main()
