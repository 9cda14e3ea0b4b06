"""Mutation score per module, from the last ``mutmut run`` (README, "Mutation testing").

Reads ``mutmut results --all true`` and the survivors judged equivalent in
``docs/mutation-equivalents.md`` (each named in backticks), and prints per module: mutants,
killed (a timeout counts: the mutant hung the tests), survived, survived but judged
equivalent, and the score killed / (mutants - equivalent). Survivors not on the list are
printed by name: each is a test to write, or an equivalent mutant to add to the list with why.

    python bench/mutation_score.py
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EQUIVALENTS = ROOT / "docs" / "mutation-equivalents.md"
DETECTED = {"killed", "timeout", "caught by type check", "segfault"}
NAME = re.compile(r"`(sttui\.[^`\s]+__mutmut_\d+)`")


def module_of(mutant: str) -> str:
    return re.split(r"\.x_|\.xǁ", mutant, maxsplit=1)[0]


def main() -> int:
    mutmut = Path(sys.executable).with_name("mutmut")
    out = subprocess.run([str(mutmut), "results", "--all", "true"], cwd=ROOT, capture_output=True, text=True)
    statuses = {}
    for line in out.stdout.splitlines():
        name, sep, status = line.strip().rpartition(": ")
        if sep and name.startswith("sttui."):
            statuses[name] = status
    if not statuses:
        print("no mutation results: run `.venv/bin/mutmut run` first", file=sys.stderr)
        return 1
    equivalent = set(NAME.findall(EQUIVALENTS.read_text(encoding="utf-8"))) if EQUIVALENTS.exists() else set()
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    unexplained = []
    for name, status in sorted(statuses.items()):
        c = counts[module_of(name)]
        c["mutants"] += 1
        if status in DETECTED:
            c["killed"] += 1
        elif status == "survived" and name in equivalent:
            c["equivalent"] += 1
        else:
            c[status] += 1
            unexplained.append(f"{name}: {status}")
    print(f"{'module':32} {'mutants':>8} {'killed':>7} {'equiv':>6} {'other':>6} {'score':>7}")
    total: Counter[str] = Counter()
    for module, c in sorted(counts.items()):
        total.update(c)
        print(_row(module, c))
    print(_row("all", total))
    stale = sorted(n for n in equivalent if statuses.get(n) not in (None, "survived"))
    for name in stale:
        print(f"listed as equivalent but now {statuses[name]}: {name}")
    for line in unexplained:
        print(f"not killed, not listed as equivalent: {line}")
    return 0


def _row(module: str, c: Counter[str]) -> str:
    other = c["mutants"] - c["killed"] - c["equivalent"]
    judged = c["mutants"] - c["equivalent"]
    score = f"{c['killed'] / judged:.1%}" if judged else "-"
    return f"{module:32} {c['mutants']:>8} {c['killed']:>7} {c['equivalent']:>6} {other:>6} {score:>7}"


if __name__ == "__main__":
    raise SystemExit(main())
