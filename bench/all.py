"""Every figure of issue 26's table, each against its reference measured in the same run, in a
few minutes on 2 cores; prints one line per row with "met" or "NOT met".

Each figure comes from its own script (run here with fewer rounds; run one alone for more):

- bench/play.py      launch -> play prompt, against a minimal Textual app's first paint
- bench/home.py      launch -> home first paint; home's peak memory on the bundled tasks
- bench/keys.py      key press -> rendered result in a real pseudo-terminal, and CPU per press,
                     against a minimal app with an input box
- bench/records.py   ``sessions`` and ``report`` on a record of 100,000 episodes
- bench/recording.py a recorded run against the same run with ``--no-record``
- bench/commit.py    durable event commits against a bare sqlite3 loop, at synchronous=NORMAL
                     and at FULL

The 100,000-episode record is made once by bench/gen.py (about two minutes, not counted) at
``--records`` unless it is there already. Not a test: figures on a shared machine are noisy, so
every ratio is of paired, alternating rounds, and a row is judged on their median.

    python bench/all.py [--records sqlite:////tmp/sttui-bench-100k.db] [--quick]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _common import PYTHON, ROOT, header  # noqa: E402


def scripts(records: str, quick: bool) -> list[list[str]]:
    r = "2" if quick else "5"
    return [
        ["play.py", "--rounds", r],
        ["home.py", "--rounds", r],
        ["keys.py", "--rounds", "2" if quick else "3", "--presses", "10" if quick else "15"],
        ["records.py", records, "--rounds", "1" if quick else "3", "--only", "sessions", "report", "--no-lookups"],
        ["recording.py", "--rounds", "2" if quick else "3", "--trials", "1" if quick else "3"],
        ["commit.py", "--rounds", "3" if quick else "5", "--events", "500", "--full-events", "100"],
    ]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--records", default="sqlite:////tmp/sttui-bench-100k.db", help="the 100k-episode record")
    parser.add_argument("--quick", action="store_true", help="fewer rounds (a smoke run, not a verdict)")
    args = parser.parse_args()
    header("issue 26: every figure against its same-run reference")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    if args.records.startswith("sqlite:///") and not Path(args.records.removeprefix("sqlite:///")).exists():
        print(f"   making the 100k-episode record at {args.records} (once; not counted)", flush=True)
        subprocess.run([PYTHON, str(HERE / "gen.py"), "records", args.records], check=True, env=env, cwd=ROOT)
    rows: list[str] = []
    start = time.perf_counter()
    for cmd in scripts(args.records, args.quick):
        t0 = time.perf_counter()
        done = subprocess.run([PYTHON, str(HERE / cmd[0]), *cmd[1:]], capture_output=True, text=True, env=env, cwd=ROOT)
        print(done.stdout, end="", flush=True)
        if done.returncode:
            print(done.stderr[-2000:], end="")
            rows.append(f"{cmd[0]} | failed (exit {done.returncode}) | | NOT met")
        rows += [line[3:] for line in done.stdout.splitlines() if line.startswith("=> ")]
        print(f"   ({cmd[0]}: {time.perf_counter() - t0:.0f} s)", flush=True)
    print(f"\n== summary ({time.perf_counter() - start:.0f} s)")
    width = max(len(r.split(" | ")[0]) for r in rows)
    for row in rows:
        name, figure, goal, verdict = [*row.split(" | "), "", "", ""][:4]
        print(f"{verdict:<8} {name:<{width}}  {figure}  (goal {goal})")
    met = sum(r.endswith("| met") for r in rows)
    print(f"{met} of {len(rows)} rows met")


if __name__ == "__main__":
    main()
