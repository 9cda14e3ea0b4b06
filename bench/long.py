"""Long episodes: the cost of a step as an episode grows, and opening the replay screen on a
10,000-step episode.

1. Per-step CPU time through the runner (views, the scripted user, the milestone review; no
   store), measured inside one 10,000-step episode over steps 100-199 and over steps
   9,900-9,999, in the same rounds. Target: the late steps cost at most 1.1x the early ones.
2. The replay screen on a recorded 10,000-step episode, in a fresh workbench process (task
   folder empty, so home loads nothing): CPU time and peak memory from pushing the screen to
   its rows on screen, and to its milestone review shown. Target: at most 1 s and 150 MB.

    python bench/gen.py long sqlite:////tmp/sttui-long.db        # prints the episode id
    python bench/long.py --db sqlite:////tmp/sttui-long.db --episode ID [--rounds 5]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import PYTHON, cpu, fmt, header, median, run_child, scratch, verdict
from _long import CyclicAgent

REPLAY = """
import json, os, resource, sys, time
from pathlib import Path
from sttui.tui.app import SttuiApp
from sttui.tui.launch import Launch
from sttui.tui.replay import ReplayScreen
marks = {}
def mark(name):
    if name not in marks:
        marks[name] = [time.process_time(), resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024]
def leave():
    with open(os.environ["MARKS"], "w") as f:
        json.dump(marks, f)
    os._exit(0)
class Probe(SttuiApp):
    def _store_ready(self, store):
        super()._store_ready(store)
        mark("push")
        self.push_screen(ReplayScreen(store, sys.argv[3]))
        self.set_interval(0.005, self.poll)
        self.set_timer(300, leave)
    def poll(self):
        screen = self.screen
        if not isinstance(screen, ReplayScreen):
            return
        if screen.query_one("#events").row_count:
            mark("rows")
        if getattr(screen, "review", None) is not None:
            mark("review")
        if "rows" in marks and "review" in marks:
            leave()
Probe(Launch.build(Path(sys.argv[1]), db_url=sys.argv[2], human="bench")).run(headless=True, size=(120, 40))
"""


def per_step_round(loaded: object) -> tuple[float, float]:
    """(CPU per step over steps 100-199, over steps 9,900-9,999) of one long episode."""
    from sttui.controllers.baselines import ScriptedUser
    from sttui.running.runner import run_episode

    marks: dict[int, float] = {}
    agent = CyclicAgent()
    act = agent.act

    async def timed(view: object) -> object:
        marks.setdefault(view.steps, cpu())  # type: ignore[attr-defined]
        return await act(view)

    agent.act = timed  # type: ignore[method-assign]
    asyncio.run(run_episode(loaded, agent, ScriptedUser()))  # type: ignore[arg-type]
    last = max(marks)
    late = last - 100
    return (marks[200] - marks[100]) / 100, (marks[last] - marks[late]) / (last - late)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--db", help="a record holding a long episode (bench/gen.py long)")
    parser.add_argument("--episode", help="its id")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--steps", type=int, default=10_000)
    args = parser.parse_args()
    header("long episodes")
    from gen import long_task

    from sttui.core.loader import load_task

    loaded = load_task(long_task(scratch("sttui-long-"), args.steps))
    per_step_round(loaded)  # warm: the review's graph, imports
    early, late = [], []
    for _ in range(args.rounds):
        a, b = per_step_round(loaded)
        early.append(a)
        late.append(b)
    ratios = [b / a for a, b in zip(early, late, strict=True)]
    print(f"   per step, steps 100-199:        {fmt(early, 'us', 1e6)} CPU")
    print(f"   per step, last 100 of {args.steps:,}: {fmt(late, 'us', 1e6)} CPU")
    print(
        f"   late / early: {median(ratios):.2f}x ({min(ratios):.2f}-{max(ratios):.2f}); target <= 1.1x: "
        f"{verdict(median(ratios) <= 1.1)}"
    )
    if not (args.db and args.episode):
        return
    work = scratch("sttui-bench-replay-")
    script, empty = work / "replay.py", work / "tasks"
    script.write_text(REPLAY)
    empty.mkdir()
    rows: list[list[float]] = []
    for _ in range(args.rounds):
        marks = work / "marks.json"
        child = run_child(
            [PYTHON, str(script), str(empty), args.db, args.episode],
            env={"MARKS": str(marks), "STTUI_CACHE_DIR": str(work / "cache")},
        )
        assert child.status == 0, child.stderr.decode()[-2000:]
        got = json.loads(marks.read_text())
        push = got["push"]
        rows.append(
            [got["rows"][0] - push[0], got["review"][0] - push[0], got["rows"][1], got["review"][1], child.peak_mb]
        )
    cols = list(zip(*rows, strict=True))
    print(f"   replay screen, push to rows shown:   {fmt(cols[0])} CPU; peak then {fmt(cols[2], 'MB', 1, 0)}")
    print(f"   replay screen, push to review shown: {fmt(cols[1])} CPU; peak then {fmt(cols[3], 'MB', 1, 0)}")
    ok = median(cols[0]) <= 1.0 and median(cols[4]) <= 150
    print(
        f"replay screen on a {args.steps:,}-step episode: rows in {median(cols[0]) * 1000:.0f} ms CPU, process peak "
        f"{median(cols[4]):.0f} MB; target <= 1 s and 150 MB: {verdict(ok)}"
    )


if __name__ == "__main__":
    main()
