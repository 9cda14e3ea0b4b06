"""The judge's agreement with people at scale: ``judge_agreement`` over N verdict items rated by
three annotators each (two judges), with both 95 % intervals; the time and peak memory.

    .venv/bin/python bench/judge_agreement.py [--items 10000]
"""

from __future__ import annotations

import argparse
import random
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sttui.annotate.judge_agreement import judge_agreement  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=10_000)
    n = parser.parse_args().items
    rng = random.Random(0)
    rows = [
        {"item_kind": "verdict", "item_id": f"e{i}", "dimension": "verdict_correct", "annotator": a,
         "value": rng.choice([1, 1, 1, 2, 3])}
        for i in range(n) for a in ("ana", "ben", "cy")
    ]  # fmt: skip
    verdicts = {f"e{i}": (rng.random() < 0.5, rng.choice(["rule", "model:m"])) for i in range(n)}
    start = time.perf_counter()
    found = judge_agreement(rows, verdicts)
    took = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{n} items, {len(rows)} ratings: {took:.2f} s, peak memory {peak:.0f} MB")
    for j in found["judges"]:
        print(f"  {j['judge']}: {j['compared']} compared, accuracy {j['accuracy']:.3f} {j['accuracy_ci']}, "
              f"kappa {j['kappa']:.3f} {j['kappa_ci']}")  # fmt: skip


if __name__ == "__main__":
    main()
