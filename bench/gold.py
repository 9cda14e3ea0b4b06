"""Gold at scale: one annotator's queue over N task items (one in ten gold) in a real SQLite
record, as the screen asks it after each rating; and ``agreement``'s gold standing over the
ratings of 50 annotators. Prints the times.

    .venv/bin/python bench/gold.py [--items 20000]
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sttui.annotate.dimensions import load_dimensions  # noqa: E402
from sttui.annotate.gold import accuracy, counted, gold_keys  # noqa: E402
from sttui.annotate.queue import Item, Queue  # noqa: E402
from sttui.store.store import Store  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=20_000)
    n = parser.parse_args().items
    dims = load_dimensions()
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(f"sqlite:///{Path(tmp) / 'gold.db'}")
        for i in range(0, n, 10):
            store.set_gold("lead", "task", f"t{i:06d}", "checklist_correctness", 4, 5)
        items = [Item("task", f"t{i:06d}", f"task {i}") for i in range(n)]
        t0 = time.perf_counter()
        queue = Queue(store, "ana", items, dims, "tasks")
        t1 = time.perf_counter()
        for _ in range(20):  # rate twenty items as the screen does: the queue asked after each
            item = queue.next_items()[0]
            queue.claim(item)
            for d in queue.dimensions:
                queue.rate(item, d.id, 4)
        t2 = time.perf_counter()
        print(
            f"queue of {n:,} items ({n // 10:,} gold): opened in {t1 - t0:.2f} s; "
            f"{(t2 - t1) / 20:.3f} s per item rated (next item, claim, three ratings)"
        )
        rng = random.Random(0)
        gold = gold_keys(store.gold())
        rows = [
            {
                "item_kind": "task",
                "item_id": f"t{i:06d}",
                "dimension": "checklist_correctness",
                "annotator": f"a{a:02d}",
                "value": rng.randint(1, 5),
                "created_at": float(i),
                "id": i,
            }
            for a in range(50)
            for i in range(0, n, 5)
        ]
        t3 = time.perf_counter()
        standing = accuracy(rows, gold, dims.gold)
        kept = counted(rows, gold, standing)
        t4 = time.perf_counter()
        print(
            f"gold standing over {len(rows):,} ratings by 50 annotators: {t4 - t3:.2f} s "
            f"({len(standing['left_out'])} left out, {len(kept):,} ratings counted)"
        )


if __name__ == "__main__":
    main()
