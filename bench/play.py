"""Open and play: ``sttui play TASK`` to its first interactive prompt, against a minimal Textual
app (a Static) to its first paint, both started the same way: a fresh child process (the
command line itself for sttui), headless, reporting the moment and leaving at once. Measured
in alternating rounds, as CPU time of the child up to that moment (``time.process_time``
there) and as wall time from spawn. The prompt counts when the play screen is up and the
person's controller is waiting for an action (the record is open and the start committed);
the first paint (the opening screen, naming the task) is printed beside it.
Target: sttui's prompt within 1.5x the minimal app's first paint.

    python bench/play.py [--rounds 7] [--task logistics-insulin-reefer-st2-easy] [--warm]
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
import json, os, sys, time
def painted():
    with open(os.environ["MARK"], "w") as f:
        json.dump([time.time(), time.process_time()], f)
    os._exit(0)
from textual.app import App
from textual.widgets import Static
class Minimal(App):
    def compose(self):
        yield Static("hello")
    def on_mount(self):
        self.call_after_refresh(painted)
Minimal().run(headless=True, size=(120, 40))
"""

# The first paint (the opening screen, naming the task) is marked too; the prompt counts once
# the play screen is up and waiting. The probe finds the play screen by name: importing its
# module here would load the record's libraries before the first paint.
PLAY = """
import json, os, sys, time
from sttui.tui import app as tui
paint = []
def ready():
    with open(os.environ["MARK"], "w") as f:
        json.dump([time.time(), time.process_time(), *paint], f)
    os._exit(0)
mount = tui.SttuiApp.on_mount
def on_mount(self):
    mount(self)
    self.call_after_refresh(lambda: paint.extend([time.time(), time.process_time()]))
    def poll():
        screen = self.screen
        if type(screen).__name__ == "PlayScreen" and screen.human.waiting and screen.is_mounted:
            self.call_after_refresh(ready)
    self.set_interval(0.005, poll)
    self.set_timer(120, lambda: os._exit(3))
tui.SttuiApp.on_mount = on_mount
run = tui.SttuiApp.run
tui.SttuiApp.run = lambda self, *a, **k: run(self, headless=True, size=(120, 40))
from sttui.cli import main
main(["--db", sys.argv[1], "play", sys.argv[2]])
"""


def child(script: Path, args: list[str], cache: Path) -> list[float]:
    mark = script.with_suffix(".mark")
    start = time.time()
    done = run_child([PYTHON, str(script), *args], env={"MARK": str(mark), "STTUI_CACHE_DIR": str(cache)})
    assert done.status == 0, done.stderr.decode()[-3000:]
    wall, cpu, *paint = json.loads(mark.read_text())
    return [wall - start, cpu, *([paint[0] - start, paint[1]] if paint else [])]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--task", default="logistics-insulin-reefer-st2-easy")
    args = parser.parse_args()
    header("open and play")
    work = scratch("sttui-bench-play-")
    minimal, play = work / "minimal.py", work / "play.py"
    minimal.write_text(MINIMAL)
    play.write_text(PLAY)
    db = f"sqlite:///{work / 'play.db'}"
    cache = work / "cache"
    child(play, [db, args.task], cache)  # the record made, the task index filled (as after any first use)
    child(minimal, [], cache)
    rows: dict[str, list[list[float]]] = {"minimal": [], "play": []}
    for i in range(args.rounds):
        order = [("minimal", minimal, []), ("play", play, [db, args.task])]
        for name, script, extra in order if i % 2 == 0 else order[::-1]:
            rows[name].append(child(script, extra, cache))
    for name, label in (("minimal", "minimal Textual app, first paint"), ("play", "sttui play, first prompt")):
        wall = [r[0] for r in rows[name]]
        cpu = [r[1] for r in rows[name]]
        print(f"   {label:<34} CPU {fmt(cpu)}  wall {fmt(wall)}")
    paints = [p[2] / m[0] for p, m in zip(rows["play"], rows["minimal"], strict=True)]
    print(
        f"   {'sttui play, first paint (opening)':<34} CPU {fmt([r[3] for r in rows['play']])}  "
        f"wall {fmt([r[2] for r in rows['play']])}: {median(paints):.2f}x the minimal app's "
        "(the record, the task and the episode open after it)"
    )
    ratios = [p[1] / m[1] for p, m in zip(rows["play"], rows["minimal"], strict=True)]
    walls = [p[0] / m[0] for p, m in zip(rows["play"], rows["minimal"], strict=True)]
    result(
        "launch -> play prompt",
        f"wall {median(walls):.2f}x ({min(walls):.2f}-{max(walls):.2f}), CPU {median(ratios):.2f}x "
        f"({min(ratios):.2f}-{max(ratios):.2f}) of the minimal app's "
        f"{median([r[0] for r in rows['minimal']]) * 1000:.0f} ms",
        "<= 1.5x",
        median(walls) <= 1.5,
    )


if __name__ == "__main__":
    main()
