"""The task index: listing, checking and the workbench's home on many task files.

Every figure is a fresh child process, measured alone (its CPU time from ``wait4``), in
alternating rounds against its reference:

1. ``sttui tasks`` on a warm index against ``sttui --help`` (target: at most 3x), on the
   bundled tasks and on a large folder;
2. ``sttui tasks`` on a cold index (a fresh empty cache each round): CPU per file, with the
   cost of ``sttui --help`` taken off (target: at most 8 ms per file);
3. the workbench's home on the large folder: its first paint, the task table filled, and the
   sessions pane filled (CPU and wall from spawn), warm and cold; the sessions pane must not
   wait for the tasks (target: table filled within 2 s warm, first paint unchanged).

    python bench/gen.py tasks /tmp/sttui-2000 --count 2000
    python bench/taskindex.py --big /tmp/sttui-2000 [--rounds 5]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import PYTHON, ROOT, STTUI, fmt, header, median, paired, ratio_line, run_child, scratch, verdict

HOME = """
import json, os, sys, time
from pathlib import Path
from sttui.tui.app import SttuiApp
from sttui.tui.launch import Launch
from sttui.tui.home import HomeScreen
marks = {}
def mark(name):
    if name not in marks:
        marks[name] = [time.time(), time.process_time()]
def leave():
    with open(os.environ["MARKS"], "w") as f:
        json.dump(marks, f)
    os._exit(0)
class Probe(SttuiApp):
    def on_mount(self):
        super().on_mount()
        self.call_after_refresh(lambda: mark("paint"))
        self.set_interval(0.005, self.poll)
        self.set_timer(300, leave)
    def poll(self):
        home = next((s for s in self.screen_stack if isinstance(s, HomeScreen)), None)
        if home is None:
            return
        if home.query_one("#tasks").row_count:
            mark("tasks")
        found = home.query("#sessions")
        if found and found.first().row_count:
            mark("sessions")
        if "tasks" in marks and "sessions" in marks:
            leave()
Probe(Launch.build(Path(sys.argv[1]), db_url=sys.argv[2], human="bench")).run(headless=True, size=(120, 40))
"""


def cli(args: list[str], cache: Path) -> float:
    child = run_child([STTUI, *args], env={"STTUI_CACHE_DIR": str(cache)})
    assert child.status == 0, child.stderr.decode()[-2000:]
    return child.cpu


def count_files(folder: Path) -> int:
    return sum(1 for p in folder.rglob("*.y*ml") if "catalogs" not in p.parts)


def home(folder: Path, db: str, cache: Path, script: Path) -> dict[str, list[float]]:
    marks = script.with_name("marks.json")
    start = time.time()
    child = run_child([PYTHON, str(script), str(folder), db], env={"STTUI_CACHE_DIR": str(cache), "MARKS": str(marks)})
    assert child.status == 0, child.stderr.decode()[-2000:]
    got = json.loads(marks.read_text())
    return {k: [v[0] - start, v[1]] for k, v in got.items()}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--big", type=Path, help="a large task folder (bench/gen.py tasks)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--db", default=None, help="a record for home's sessions pane (default: a small new one)")
    parser.add_argument("--skip-home", action="store_true")
    args = parser.parse_args()
    header("task index")
    work = scratch("sttui-bench-index-")
    warm_cache = work / "warm-cache"
    bundled = ROOT / "tasks"
    folders = [bundled] + ([args.big] if args.big else [])
    for folder in folders:
        n = count_files(folder)
        cli(["tasks", str(folder)], warm_cache)  # fill the index
        res = paired(
            {
                "help": lambda: cli(["--help"], warm_cache),
                "warm": lambda folder=folder: cli(["tasks", str(folder)], warm_cache),
            },
            args.rounds,
        )
        print(f"-- {folder} ({n} task files)")
        print(f"   sttui --help:            {fmt(res['help'])} CPU")
        print(f"   sttui tasks, warm index: {fmt(res['warm'])} CPU")
        print("   " + ratio_line("warm tasks / --help", res["warm"], res["help"], target=3))

        def cold(folder: Path = folder) -> float:
            fresh = scratch("cache-", dir=work)
            cpu = cli(["tasks", str(folder)], fresh)
            return cpu

        rounds = args.rounds if n < 500 else max(3, args.rounds // 2)
        res = paired({"help": lambda: cli(["--help"], warm_cache), "cold": cold}, rounds, warmup=0)
        per_file = [(c - h) / n for c, h in zip(res["cold"], res["help"], strict=True)]
        print(f"   sttui tasks, cold index: {fmt(res['cold'])} CPU")
        print(
            f"   cold CPU per file (less --help): {fmt(per_file, digits=2)}; target <= 8 ms: "
            f"{verdict(median(per_file) <= 0.008)}"
        )
    if args.skip_home or not args.big:
        return
    db = args.db or f"sqlite:///{work / 'home.db'}"
    if args.db is None:  # a few real sessions, so the pane has rows to show
        import asyncio

        from sttui.controllers.baselines import PlanAgent, ScriptedUser
        from sttui.core.loader import load_task
        from sttui.running.recording import run_recorded
        from sttui.store.store import Store

        store = Store(db)
        t = load_task(bundled / "stt" / "logistics" / "insulin-reefer-fault-st2-easy.yaml")
        for _ in range(3):
            asyncio.run(run_recorded(store, t, PlanAgent("baseline:oracle", t.task.solution), ScriptedUser()))
        store.close()
    script = work / "home.py"
    script.write_text(HOME)
    big_cache = work / "big-cache"
    cli(["tasks", str(args.big)], big_cache)

    def run_home(cache: Path) -> dict[str, list[float]]:
        return home(args.big, db, cache, script)

    results: dict[str, list[dict[str, list[float]]]] = {"warm": [], "cold": []}
    for i in range(max(3, args.rounds // 2)):
        results["warm"].append(run_home(big_cache))
        results["cold"].append(run_home(scratch("cache-", dir=work)))
        print(f"   home round {i + 1}: warm {results['warm'][-1]}, cold {results['cold'][-1]}", flush=True)
    n = count_files(args.big)
    for kind in ("warm", "cold"):
        rs = results[kind]
        print(f"-- home on {n} task files, {kind} index (wall from spawn / CPU at that moment)")
        for mark in ("paint", "tasks", "sessions"):
            walls = [r[mark][0] for r in rs if mark in r]
            cpus = [r[mark][1] for r in rs if mark in r]
            if walls:
                print(f"   {mark:<9} wall {fmt(walls)}  CPU {fmt(cpus)}")
        order = sum(r["sessions"][0] < r["tasks"][0] for r in rs if "sessions" in r and "tasks" in r)
        print(f"   sessions pane filled before the task table in {order} of {len(rs)} rounds")
    filled = [r["tasks"][0] for r in results["warm"]]
    print(f"home table filled, warm: {fmt(filled)} wall; target <= 2 s: {verdict(median(filled) <= 2.0)}")


if __name__ == "__main__":
    main()
