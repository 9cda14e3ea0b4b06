"""Gold at scale: one annotator's queue over N task items (one in ten gold) in a real SQLite
record, as the screen asks it after each rating; and ``agreement``'s gold standing over the
ratings of 50 annotators. Prints the times.

``--others R``: first the record gets R ratings (and their places) by 50 other annotators, as
a lab's record does after months; each rating is then timed as the queue takes it now (its own
item read again) and, in the same run, as it took it before (every rating and place read again).

    .venv/bin/python bench/gold.py [--items 20000] [--others 200000]
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
    parser.add_argument("--others", type=int, default=0)
    args = parser.parse_args()
    n = args.items
    dims = load_dimensions()
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(f"sqlite:///{Path(tmp) / 'gold.db'}")
        if args.others:
            _others(store, n, args.others)
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
            f"queue of {n:,} items ({n // 10:,} gold), {args.others:,} ratings by others: opened in {t1 - t0:.2f} s; "
            f"{(t2 - t1) / 20:.3f} s per item rated (next item, claim, three ratings)"
        )
        if args.others:
            t5 = time.perf_counter()
            for _ in range(5):  # as before: every rating and place read again after each
                item = queue.next_items()[0]
                queue.claim(item)
                queue.refresh()
                for d in queue.dimensions:
                    queue.rate(item, d.id, 4)
                    queue.refresh()
            print(
                f"  the same, reading every rating and place again after each (before): {(time.perf_counter() - t5) / 5:.3f} s per item"
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


def _others(store: Store, n: int, count: int) -> None:
    """``count`` ratings of the items by 50 other annotators, three places taken on most items."""
    from sqlalchemy import insert

    from sttui.store.tables import ClaimRow, RatingRow

    who = [store.annotator_id(f"other{a:02d}") for a in range(50)]
    rng = random.Random(1)
    ratings, claims, seen = [], [], set()
    for k in range(count):
        i, a = rng.randrange(n), who[k % 50]
        ratings.append(
            {
                "item_kind": "task",
                "item_id": f"t{i:06d}",
                "dimension": "checklist_correctness",
                "annotator_id": a,
                "value": rng.randint(1, 5),
                "created_at": float(k),
                "withdrawn": False,
            }
        )
        if (i, a) not in seen and len([1 for x in range(3) if (i, who[x]) in seen]) < 3 and i % 3:
            seen.add((i, a))
            claims.append({"item_kind": "task", "item_id": f"t{i:06d}", "annotator_id": a, "created_at": float(k)})
    with store.engine.begin() as conn:
        conn.execute(insert(RatingRow), ratings)
        conn.execute(insert(ClaimRow), claims)


if __name__ == "__main__":
    main()
