"""Workbench responsiveness, each against a reference in the same run.

1. Cold start to the first paint of home (a fresh process each time), against a minimal
   Textual app started the same way. Target: at most 2x.
2. Key press to rendered result for a tool call in an episode that already has 500 events:
   enter in the call entry until the result is on screen. Target: median at most 50 ms.

    python bench/tui.py [--starts 5] [--presses 30]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from _common import scratch

ROOT = Path(__file__).resolve().parent.parent

# Each child prints the wall time of its first paint and leaves at once (os._exit), so the
# figure is spawn-to-first-paint, not counting work that runs after the paint.
MINIMAL = """
import os, time
def painted():
    with open(os.environ["PAINTED"], "w") as f:
        f.write(repr(time.time()))
    os._exit(0)
from textual.app import App
from textual.widgets import Footer, Header, Static
class Minimal(App):
    def compose(self):
        yield Header(); yield Static("hello"); yield Footer()
    def on_mount(self):
        self.call_after_refresh(painted)
Minimal().run(headless=True, size=(120, 40))
"""

STTUI = """
import os, sys, time
def painted():
    with open(os.environ["PAINTED"], "w") as f:
        f.write(repr(time.time()))
    os._exit(0)
from pathlib import Path
from sttui.tui.app import SttuiApp
from sttui.tui.launch import Launch
class FirstPaint(SttuiApp):
    def on_mount(self):
        super().on_mount()
        self.call_after_refresh(painted)
FirstPaint(Launch.build(Path("tasks"), db_url=sys.argv[1])).run(headless=True, size=(120, 40))
"""


def cold(code: str, *args: str, runs: int) -> float:
    script = scratch("sttui-bench-") / "start.py"
    script.write_text(code)
    painted = script.with_name("painted")
    env = {**os.environ, "PAINTED": str(painted)}
    times = []
    for _ in range(runs):
        start = time.time()
        subprocess.run([sys.executable, str(script), *args], cwd=ROOT, check=True, capture_output=True, env=env)
        times.append(float(painted.read_text()) - start)
    return statistics.median(times)


async def presses(n: int) -> list[float]:
    from sttui.controllers.baselines import ScriptedUser
    from sttui.controllers.human import HumanController
    from sttui.core.actions import ToolCall
    from sttui.core.loader import load_task
    from sttui.running.session import PlaySession
    from sttui.store.store import Store
    from sttui.tui.app import SttuiApp
    from sttui.tui.launch import Launch
    from sttui.tui.play import PlayScreen

    loaded = load_task(ROOT / "tasks" / "stt" / "logistics" / "insulin-reefer-fault-st2-easy.yaml")
    loaded.task = loaded.task.model_copy(update={"max_steps": 10_000})
    db = f"sqlite:///{scratch('sttui-bench-')}/tui.db"
    app = SttuiApp(Launch.build(ROOT / "tasks", db_url=db, human="bench"))
    out = []
    async with app.run_test(size=(120, 40)) as pilot:
        app.with_record(lambda: None)  # (plain home opens the record when first needed: now)
        while app.store is None:
            await pilot.pause(0.02)
        store = Store(db)
        human = HumanController("bench")
        session = PlaySession(store, loaded, human, ScriptedUser())
        session.episode.start()
        session.episode.start = lambda: None  # already started; the screen's run() must not start it again
        while len(session.episode.events) < 500:
            session.episode.apply(ToolCall("get_vehicle_status", {"vehicle_id": "TRK-9"}), human.name)
        session.writer.flush()
        screen = PlayScreen(session, human)
        painted: list[float] = []
        place = screen._place

        async def timed_place(new: list) -> None:  # note when the screen has painted the new items
            await place(new)
            screen.call_after_refresh(lambda: painted.append(time.perf_counter()))

        screen._place = timed_place  # type: ignore[method-assign]
        app.push_screen(screen)
        await pilot.pause(0.5)
        session.clock.start()
        entry = screen.query_one("#entry")
        for _ in range(n):
            while not human.waiting:
                await pilot.pause(0.005)
            entry.value = "get_vehicle_status(vehicle_id=TRK-9)"
            count = len(painted)
            start = time.perf_counter()
            await pilot.press("enter")
            while len(painted) == count:
                await pilot.pause(0.001)
            out.append(painted[-1] - start)
        session.writer.flush()
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--starts", type=int, default=5)
    parser.add_argument("--presses", type=int, default=30)
    args = parser.parse_args()
    db = f"sqlite:///{scratch('sttui-bench-')}/cold.db"
    minimal = cold(MINIMAL, runs=args.starts)
    ours = cold(STTUI, db, runs=args.starts)
    print(
        f"cold start to first paint: sttui home {ours * 1000:.0f} ms, minimal Textual app {minimal * 1000:.0f} ms "
        f"(median of {args.starts}) -> {ours / minimal:.2f}x (target <= 2x: {'met' if ours / minimal <= 2 else 'NOT met'})"
    )
    latencies = asyncio.run(presses(args.presses))
    med = statistics.median(latencies) * 1000
    p90 = sorted(latencies)[int(len(latencies) * 0.9) - 1] * 1000
    print(
        f"key press to rendered result, episode with 500+ events: median {med:.1f} ms, p90 {p90:.1f} ms "
        f"over {len(latencies)} presses (target median <= 50 ms: {'met' if med <= 50 else 'NOT met'})"
    )


if __name__ == "__main__":
    main()
