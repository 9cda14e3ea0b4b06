"""`sttui check tasks` on the bundled suite: its CPU and wall time, where the time goes, and a
projection to a larger suite (target: under 60 s on two cores).

The whole command runs as a child process, measured alone (CPU from ``wait4``); then each
task file is checked on its own in this process (CPU per file), to show the slowest files and
the stt/explore split. The projection scales the stt share by ``--stt-tasks`` (default 80:
issue 28's suite) and keeps the explore share.

    python bench/check_suite.py [--stt-tasks 80] [--top 10]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import PYTHON, ROOT, header, loadavg, run_child

from sttui.authoring.checking import check_paths
from sttui.core.taskindex import discover


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stt-tasks", type=int, default=80, help="suite size to project to")
    parser.add_argument("--top", type=int, default=10, help="slowest files to list")
    args = parser.parse_args()
    header("sttui check tasks on the bundled suite")
    print(loadavg())
    whole = run_child([PYTHON, "-m", "sttui", "check", "tasks"], cwd=ROOT)
    last = whole.stdout.decode(errors="replace").strip().splitlines()[-1:]
    print(f"whole command: {whole.cpu:.1f} s CPU, {whole.wall:.1f} s wall, exit {whole.status} ({' '.join(last)})")
    rows = []
    for f in discover([ROOT / "tasks"]):
        start = time.process_time()
        check_paths([f])
        rows.append((time.process_time() - start, f.relative_to(ROOT)))
    stt = [(t, f) for t, f in rows if f.parts[1] == "stt"]
    explore = [(t, f) for t, f in rows if f.parts[1] == "explore"]
    stt_cpu, explore_cpu = sum(t for t, _ in stt), sum(t for t, _ in explore)
    print(
        f"per file, in process: stt {stt_cpu:.1f} s CPU over {len(stt)} files; explore {explore_cpu:.1f} s over {len(explore)}"
    )
    impossible = [(t, f) for t, f in stt if f.stem.endswith("impossible")]
    print(
        f"  of which impossible stt tasks (the one-operation search): {sum(t for t, _ in impossible):.1f} s over {len(impossible)}"
    )
    for t, f in sorted(rows, reverse=True)[: args.top]:
        print(f"  {t:6.2f} s  {f}")
    if stt:
        projected = stt_cpu / len(stt) * args.stt_tasks + explore_cpu
        print(
            f"projected at {args.stt_tasks} stt tasks and these {len(explore)} explore episodes: "
            f"{projected:.0f} s CPU on one core (the command checks files one after another)"
        )


if __name__ == "__main__":
    main()
