"""Two views of a long episode, on the UI's side:

1. ``compare``'s alignment (``core.divergence.compare_steps``) of two episodes of a repeating
   cycle of eight calls that part once, halfway, at 1,000 to 10,000 steps each.
2. The refine editor's redraw: the editor alone on an app (Textual's Pilot, headless) over an
   episode of STEPS agent steps, recorded once by the long-episode agent (``bench/_long.py``);
   the time of one redraw (the edited steps' table and the checklist), and of the UI's thread
   on a drop (the edit and its table), each the median of ROUNDS. The verification itself runs
   in a worker and is not counted.

    .venv/bin/python bench/long_views.py [--steps 2000] [--rounds 5]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from _common import fmt, header, median, scratch  # noqa: E402
from _long import CyclicAgent  # noqa: E402
from gen import long_task  # noqa: E402

from sttui.controllers.baselines import ScriptedUser  # noqa: E402
from sttui.core.divergence import Step, compare_steps  # noqa: E402
from sttui.core.loader import load_task  # noqa: E402
from sttui.exports.versions import load_version  # noqa: E402
from sttui.lineage.refining import Refinement  # noqa: E402
from sttui.running.recording import run_recorded  # noqa: E402
from sttui.store.store import Store  # noqa: E402


def _cyclic(n: int, changed_at: int | None = None) -> list[Step]:
    out = []
    for i in range(n):
        key = ("say",) if i == changed_at else ("call", f"tool{i % 8}", "{}")
        out.append(Step(i + 1, i, key, " ".join(key)))
    return out


def alignment() -> None:
    for n in (1_000, 2_000, 5_000, 10_000):
        a, b = _cyclic(n), _cyclic(n, n // 2)
        walls = []
        for _ in range(3):
            t = time.perf_counter()
            found = compare_steps(a, b)
            walls.append(time.perf_counter() - t)
        assert found["first_divergence"]["a_step"] == n // 2 + 1
        print(f"  compare, two {n:>6,}-step episodes parting once: {fmt(walls)}")


async def editor(steps: int, rounds: int) -> None:
    from textual.app import App

    from sttui.tui.refine import RefineScreen

    tmp = scratch("sttui-bench-views-")
    store = Store(f"sqlite:///{tmp / 'refine.db'}")
    loaded = load_task(long_task(tmp / "tasks", steps))
    eid, _ = await run_recorded(store, loaded, CyclicAgent(), ScriptedUser())
    record = store.episode(eid)
    refinement = Refinement.of(load_version(store, record), record, store.events(eid))

    class Editor(App[None]):
        def on_mount(self) -> None:
            self.push_screen(RefineScreen(refinement, store, "bench"))

    app = Editor()
    async with app.run_test(size=(100, 30)) as pilot:
        screen = app.screen
        while screen.verification is None or screen.original is None:
            await pilot.pause(0.05)
        redraws, drops = [], []
        for _ in range(rounds):
            t = time.perf_counter()
            screen.redraw()
            redraws.append(time.perf_counter() - t)
            await pilot.pause()
        for _ in range(rounds):
            await pilot.press("down")
            t = time.perf_counter()
            screen.action_drop()
            drops.append(time.perf_counter() - t)
            while screen.verification is None:
                await pilot.pause(0.05)
            screen.action_undo()
            while screen.verification is None:
                await pilot.pause(0.05)
    print(f"  refine editor, {len(refinement.original):,} agent steps: one redraw {fmt(redraws, 's', 1, 2)}")
    print(f"  refine editor, the UI's thread on a drop: {fmt(drops, 's', 1, 2)} (median {median(drops):.2f} s)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    header("long views: compare's alignment and the refine editor's redraw")
    alignment()
    asyncio.run(editor(args.steps, args.rounds))


if __name__ == "__main__":
    main()
