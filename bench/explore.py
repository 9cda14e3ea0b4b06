"""Explore throughput: random-baseline episodes per second over the bundled explore set.

Each episode is the full protocol through the runner (12 batches of 8 cases, masking,
the drift, both assessments, then all metrics). As a reference in the same run, the bare
cost of scoring the same cases under the rule (no protocol, no metrics).

    python bench/explore.py [--seconds 5]
"""

from __future__ import annotations

import argparse
import asyncio
import time
from pathlib import Path

from sttui.controllers.explore_baselines import ExploreRandom
from sttui.core.explore import rules as rl
from sttui.core.explore.episode import ExploreEpisode
from sttui.core.loader import load_all
from sttui.running.runner import run_episode

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=5.0)
    args = parser.parse_args()
    tasks, errors = load_all([ROOT / "tasks" / "explore"])
    assert not errors, errors
    explore = [t for t in tasks if t.kind == "explore"]

    async def episodes() -> tuple[int, float]:
        n, seed, start = 0, 0, time.perf_counter()
        while time.perf_counter() - start < args.seconds:
            for t in explore:
                await run_episode(t, ExploreRandom("baseline:random", seed), seed=seed)
                seed += 1
                n += 1
        return n, time.perf_counter() - start

    n, elapsed = asyncio.run(episodes())
    cases_per_episode = explore[0].task.schedule.batches * explore[0].task.schedule.cases_per_batch

    bare, start = 0, time.perf_counter()
    while time.perf_counter() - start < args.seconds / 2:
        for t in explore:
            ep = ExploreEpisode(t.task, seed=bare)
            fields = ep.fields
            for b, cases in enumerate(ep.batches):
                rule = ep.rule_for_batch(b)
                for case in cases:
                    ep.calibration.utilities(rl.score(rule, fields, case))
            bare += 1
    bare_elapsed = time.perf_counter() - start
    print(f"episodes: {len(explore)} bundled, {cases_per_episode} evaluation cases each")
    print(f"random baseline, full protocol + metrics: {n / elapsed:,.0f} episodes/s ({n} in {elapsed:.1f} s)")
    print(f"reference: case generation + scoring only: {bare / bare_elapsed:,.0f} episodes/s")


if __name__ == "__main__":
    main()
