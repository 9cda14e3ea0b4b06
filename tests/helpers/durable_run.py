"""A headless run whose agent says, on stdout, each time it is asked for an action.

    python -m tests.helpers.durable_run DB_URL TASK_FILE TRIALS
Prints ``asked EPISODE N`` (flushed) just before the N-th action of an episode is returned;
the runner guarantees everything before that ask is committed, which the kill test checks.
"""

from __future__ import annotations

import asyncio
import sys

from sttui.controllers.baselines import PlanAgent
from sttui.core.loader import load_task
from sttui.running import batch
from sttui.running.plan import RunPlan
from sttui.store.store import Store


class Announcing(PlanAgent):
    episode = "?"

    async def act(self, view):  # type: ignore[no-untyped-def]
        await asyncio.sleep(0.02)
        action = await super().act(view)
        print(f"asked {self.episode} {self._next}", flush=True)
        return action


def main() -> None:
    url, path, trials = sys.argv[1], sys.argv[2], int(sys.argv[3])
    loaded = load_task(path)
    made = []

    def make_agent(spec, task, seed, models, store, settings=None):  # type: ignore[no-untyped-def]
        agent = Announcing("baseline:oracle", task.task.solution)
        made.append(agent)
        return agent

    batch.make_agent = make_agent  # type: ignore[assignment]
    original = batch.Recorder

    class Naming(original):  # type: ignore[misc, valid-type]
        def __init__(self, store, episode_id, *rest):  # type: ignore[no-untyped-def]
            super().__init__(store, episode_id, *rest)
            made[-1].episode = episode_id

    batch.Recorder = Naming  # type: ignore[misc]
    plan = RunPlan.build([loaded], trials=trials, concurrency=4)
    asyncio.run(batch.run_batch(plan, store=Store(url)))


if __name__ == "__main__":
    main()
