"""Regenerate the README's coverage tables from the bundled tasks.

Writes ``sttui tasks tasks --coverage --markdown`` between the ``coverage`` markers of
README.md (run it after adding or removing bundled tasks); with ``--check`` it changes
nothing and exits 1 when the README's block differs from the command's output.

    python bench/coverage_readme.py [--check]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
START, END = "<!-- coverage:start -->\n", "\n<!-- coverage:end -->"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only compare; exit 1 when the README is stale")
    args = parser.parse_args()
    table = subprocess.run(
        [sys.executable, "-m", "sttui", "tasks", str(ROOT / "tasks"), "--coverage", "--markdown"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.rstrip("\n")
    readme = ROOT / "README.md"
    text = readme.read_text(encoding="utf-8")
    head, start, rest = text.partition(START)
    old, end, tail = rest.partition(END)
    if not start or not end:
        print(f"error: {readme} has no {START.strip()} ... {END.strip()} block", file=sys.stderr)
        return 2
    if old == table:
        print("README coverage tables are up to date")
        return 0
    if args.check:
        print("README coverage tables differ from `sttui tasks --coverage --markdown`", file=sys.stderr)
        return 1
    readme.write_text(head + start + table + end + tail, encoding="utf-8")
    print(f"wrote the coverage tables into {readme}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
