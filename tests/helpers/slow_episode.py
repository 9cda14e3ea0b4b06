"""Plays the oracle on a task slowly, recording into the store, until killed.

    python -m tests.helpers.slow_episode DB_URL TASK_FILE
Prints the episode id first, then one line per recorded event.
"""

from __future__ import annotations

import asyncio
import sys

from sttui.controllers.baselines import PlanAgent, ScriptedUser
from sttui.core.loader import load_task
from sttui.running.recording import run_recorded
from sttui.store.store import Store


class SlowOracle(PlanAgent):
    async def act(self, view):  # type: ignore[no-untyped-def]
        await asyncio.sleep(0.15)
        return await super().act(view)


def main() -> None:
    url, path = sys.argv[1], sys.argv[2]
    store = Store(url)
    loaded = load_task(path)
    original = store.append_event

    def announce(episode_id, event):  # type: ignore[no-untyped-def]
        original(episode_id, event)
        print(f"{episode_id} {event.seq}", flush=True)

    store.append_event = announce  # type: ignore[method-assign]
    asyncio.run(run_recorded(store, loaded, SlowOracle("baseline:oracle", loaded.task.solution), ScriptedUser()))


if __name__ == "__main__":
    main()
