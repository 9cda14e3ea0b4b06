"""The workbench's home screen, against a minimal Textual app (Header, a Static, Footer) in the
same run, both started the same way: a fresh headless child process each time, in alternating
rounds (bench/_common.py).

1. Launch to home's first paint (wall time from spawn, and the child's CPU time to that
   moment), against the minimal app's first paint. Target: at most 1.5x.
2. Peak resident memory of home once its task list of the bundled tasks and its sessions pane
   are shown (the child's own peak, from ``wait4``), against the minimal app's peak. The record
   holds an episode of every bundled task (``sttui run`` before the rounds). Home reads the
   sessions from the SQLite file; the full record opens when an action first needs it. Target:
   at most 60 MB.

    python bench/home.py [--rounds 5]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import PYTHON, fmt, header, median, result, run_child, scratch

MINIMAL = """
import json, os, time
def painted():
    with open(os.environ["MARK"], "w") as f:
        json.dump([time.time(), time.process_time()], f)
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

# The mark is written at the first paint; the child stays until the task list and the sessions
# are on screen, so its peak memory is home's as a person sees it, tasks and sessions listed.
HOME = """
import json, os, sys, time
from pathlib import Path
mark = [time.time(), time.process_time()]
def painted():
    mark[0], mark[1] = time.time(), time.process_time()
    with open(os.environ["MARK"], "w") as f:
        json.dump(mark, f)
from sttui.tui import app as tui
from sttui.tui.home import HomeScreen
from sttui.tui.launch import Launch
def settled(app):
    home = app.screen
    if isinstance(home, HomeScreen) and home.rows and home.sessions_read and home.sessions:
        os._exit(0)
class Home(tui.SttuiApp):
    def on_mount(self):
        super().on_mount()
        self.call_after_refresh(painted)
        self.set_interval(0.01, lambda: settled(self))
        self.set_timer(60, lambda: os._exit(3))
Home(Launch.build(Path("tasks"), db_url=sys.argv[1])).run(headless=True, size=(120, 40))
"""


def child(script: Path, args: list[str], cache: Path) -> list[float]:
    mark = script.with_suffix(".mark")
    mark.unlink(missing_ok=True)
    start = time.time()
    done = run_child([PYTHON, str(script), *args], env={"MARK": str(mark), "STTUI_CACHE_DIR": str(cache)})
    assert done.status == 0, done.stderr.decode()[-3000:]
    wall, cpu = json.loads(mark.read_text())
    return [wall - start, cpu, done.peak_mb]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    header("home: first paint and peak memory")
    work = scratch("sttui-bench-home-")
    minimal, home = work / "minimal.py", work / "home.py"
    minimal.write_text(MINIMAL)
    home.write_text(HOME)
    db = f"sqlite:///{work / 'home.db'}"
    cache = work / "cache"
    done = run_child(  # the record: an episode of every bundled task
        [PYTHON, "-m", "sttui", "--db", db, "run", "tasks"], env={"STTUI_CACHE_DIR": str(cache)}
    )
    assert done.status == 0, done.stderr.decode()[-3000:]
    child(home, [db], cache)  # the task index filled (as after any first use)
    child(minimal, [], cache)
    rows: dict[str, list[list[float]]] = {"minimal": [], "home": []}
    for i in range(args.rounds):
        order = [("minimal", minimal, []), ("home", home, [db])]
        for name, script, extra in order if i % 2 == 0 else order[::-1]:
            rows[name].append(child(script, extra, cache))
    for name, label in (("minimal", "minimal Textual app, first paint"), ("home", "sttui home, first paint")):
        wall, cpu, mem = ([r[k] for r in rows[name]] for k in range(3))
        print(f"   {label:<34} CPU {fmt(cpu)}  wall {fmt(wall)}  peak {fmt(mem, 'MB', 1, 0)}")
    walls = [h[0] / m[0] for h, m in zip(rows["home"], rows["minimal"], strict=True)]
    cpus = [h[1] / m[1] for h, m in zip(rows["home"], rows["minimal"], strict=True)]
    result(
        "launch -> home first paint",
        f"wall {median(walls):.2f}x ({min(walls):.2f}-{max(walls):.2f}), CPU {median(cpus):.2f}x of the minimal "
        f"app's {median([r[0] for r in rows['minimal']]) * 1000:.0f} ms",
        "<= 1.5x",
        median(walls) <= 1.5,
    )
    peak = median([r[2] for r in rows["home"]])
    result(
        "peak memory, home on the bundled tasks",
        f"{peak:.0f} MB (minimal app {median([r[2] for r in rows['minimal']]):.0f} MB)",
        "<= 60 MB",
        peak <= 60,
    )


if __name__ == "__main__":
    main()
