"""Recording: a recorded headless baseline run against the same run with ``--no-record``, at
concurrency 4, in alternating rounds, in one process.

Each round runs the oracle on every bundled task (stt and explore) for ``--trials`` trials
through ``run_batch``, as ``sttui run`` does: recorded (every event durable before the next
action, creation and finishing included) into one SQLite file that grows round by round, as a
lab's record does (the warm-up round stores the task versions; ``--fresh`` records each round
into a new file instead), or not recorded. Figures:
CPU time of the process (every thread: a writer thread's too, where one runs; on SQLite a
headless run commits in its event loop, sttui/store/loop_writer.py) and wall time per round, and
episodes per second. Target: recorded within 2x of --no-record.

    python bench/recording.py [--rounds 5] [--trials 3] [--db-dir DIR] [--pg URL]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import ROOT, cpu, fmt, header, median, paired, result, scratch


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--trials", type=int, default=3)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--db-dir", default=None, help="folder for the SQLite files (default: a temp dir)")
    parser.add_argument("--pg", default=None, help="record into this PostgreSQL database instead")
    parser.add_argument("--fresh", action="store_true", help="a new SQLite file for every recorded round")
    args = parser.parse_args()
    header(f"recording (concurrency {args.concurrency})")
    from sttui.core.loader import load_all
    from sttui.core.settings import RunSettings
    from sttui.running.batch import run_batch
    from sttui.running.plan import ReviewPlan, RunPlan
    from sttui.store.store import Store

    loaded, errors = load_all([ROOT / "tasks"])
    assert not errors
    plan = RunPlan.build(
        loaded,
        agent="baseline:oracle",
        user=None,
        trials=args.trials,
        seed=None,
        judge="rule",
        review=ReviewPlan(False, None),
        settings=RunSettings(False, False, None),
        record=True,
        concurrency=args.concurrency,
        models={},
    )
    episodes = len(plan.tasks) * plan.trials
    folder = Path(args.db_dir) if args.db_dir else scratch("sttui-bench-rec-")
    walls: dict[str, list[float]] = {"recorded": [], "unrecorded": []}
    made = [0]

    def one(record: bool) -> float:
        store = None
        if record:
            made[0] += 1
            store = Store(args.pg or f"sqlite:///{folder / f'r{made[0] if args.fresh else 0}.db'}")
        t0, w0 = cpu(), time.perf_counter()
        records = asyncio.run(run_batch(plan, store=store))
        spent, wall = cpu() - t0, time.perf_counter() - w0
        assert len(records) == episodes and not any(r.get("record_failed") for r in records)
        if store is not None:
            assert args.pg or store.count_episodes(status="completed") == episodes * (1 if args.fresh else made[0])
            store.close()
        walls["recorded" if record else "unrecorded"].append(wall)
        return spent

    res = paired({"recorded": lambda: one(True), "unrecorded": lambda: one(False)}, args.rounds)
    for name in ("unrecorded", "recorded"):
        w = walls[name][-args.rounds :]
        print(
            f"   {name:<10} CPU {fmt(res[name])}  wall {fmt(w)}  -> {episodes / median(res[name]):,.0f} episodes/s "
            f"of CPU ({episodes} episodes a round)"
        )
    ratios = [a / b for a, b in zip(res["recorded"], res["unrecorded"], strict=True)]
    wall_ratios = [
        a / b for a, b in zip(walls["recorded"][-args.rounds :], walls["unrecorded"][-args.rounds :], strict=True)
    ]
    result(
        "recorded run vs --no-record",
        f"CPU {median(ratios):.2f}x ({min(ratios):.2f}-{max(ratios):.2f}), wall "
        f"{median(wall_ratios):.2f}x ({min(wall_ratios):.2f}-{max(wall_ratios):.2f})",
        "<= 2x",
        median(ratios) <= 2,
    )


if __name__ == "__main__":
    main()
