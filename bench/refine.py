"""Re-verifying a refinement after one edit, on a 200-step episode (the editor does this after
every edit; target: a median at or under 50 ms).

The episode is recorded once in a temporary SQLite file by the long-episode agent
(``bench/_long.py``) on a copy of the insulin task whose step limit is STEPS. Each round makes
one edit (dropping a step, in turn further down the list), re-verifies (the whole replay:
engine, scripted user, triggers, milestone review, checklist), then undoes it.

    .venv/bin/python bench/refine.py [--steps 200] [--rounds 9]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from _common import cpu, fmt, loadavg, median  # noqa: E402
from _long import CyclicAgent  # noqa: E402
from gen import long_task  # noqa: E402

from sttui.controllers.baselines import ScriptedUser  # noqa: E402
from sttui.core.loader import load_task  # noqa: E402
from sttui.exports.versions import load_version  # noqa: E402
from sttui.lineage.refining import Edit, Refinement  # noqa: E402
from sttui.running.recording import run_recorded  # noqa: E402
from sttui.store.store import Store  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=9)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(f"sqlite:///{Path(tmp) / 'refine.db'}")
        loaded = load_task(long_task(Path(tmp) / "tasks", args.steps))
        eid, result = asyncio.run(run_recorded(store, loaded, CyclicAgent(), ScriptedUser()))
        record = store.episode(eid)
        r = Refinement.of(load_version(store, record), record, store.events(eid))
        print(f"episode {eid}: {result.steps} steps, {len(r.original)} agent steps to refine; {loadavg()}")
        r.verify()  # warm: imports, the first replay's caches
        cpus, walls = [], []
        for n in range(args.rounds):
            r.edit(Edit("drop", 1 + (n * 17) % len(r.original)))
            c, w = cpu(), time.perf_counter()
            v = r.verify()
            cpus.append(cpu() - c)
            walls.append(time.perf_counter() - w)
            r.undo()
        print(f"re-verify after one edit ({len(v.steps)} steps): CPU {fmt(cpus)}; wall {fmt(walls)}")
        print(f"median {median(walls) * 1000:.1f} ms wall (target <= 50 ms)")


if __name__ == "__main__":
    main()
