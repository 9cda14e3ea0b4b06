"""An annotator's queue on a record that holds many other ratings and places: a rating, an
undo or a claim reads that item's rows again, not every row (on 242,000 ratings each key press
had frozen the screen for 8 s), and what the queue holds afterwards is what it would read
from scratch."""

from __future__ import annotations

from typing import Any

from sttui.annotate.dimensions import load_dimensions
from sttui.annotate.queue import Item, Queue
from sttui.store.store import Store


def _record(tmp_path) -> Store:
    store = Store(f"sqlite:///{tmp_path / 'q.db'}")
    for k in range(40):  # others' ratings and places
        for who in ("ben", "chen"):
            store.claim(who, "task", f"t{k:02d}", 3)
            store.rate(who, "task", f"t{k:02d}", "checklist_correctness", 1 + k % 5)
    return store


def _held(queue: Queue) -> tuple[dict, dict]:
    return (
        {k: (r["value"], r["comment"], r["withdrawn"]) for k, r in queue._mine.items()},
        {k: sorted(v) for k, v in queue._claims.items()},
    )


def test_a_rating_an_undo_and_a_claim_read_only_their_item(tmp_path, monkeypatch):
    store = _record(tmp_path)
    dims = load_dimensions()
    items = [Item("task", f"t{k:02d}", f"task {k}") for k in range(40)]
    queue = Queue(store, "ana", items, dims, "tasks")
    reads: list[dict[str, Any]] = []
    for name in ("ratings", "claims"):
        real = getattr(store, name)

        def spy(*args: Any, real: Any = real, name: str = name, **kw: Any) -> Any:
            reads.append({"what": name, "args": args, **kw})
            return real(*args, **kw)

        monkeypatch.setattr(store, name, spy)
    dim = queue.dimensions[0].id
    for item in queue.next_items()[:3]:
        assert queue.claim(item)
        queue.rate(item, dim, 4)
        queue.rate(item, dim, 2, "changed my mind")
        queue.undo(item, dim)
    unscoped = [r for r in reads if not (r.get("item_id") or (len(r["args"]) > 1 and r["args"][1]))]
    assert reads and unscoped == []
    # what it holds is what a queue opened now reads
    assert _held(queue) == _held(Queue(store, "ana", items, dims, "tasks"))
    assert queue.mine(queue.items[0], dim) is None or queue.mine(queue.items[0], dim)["value"] == 4


def test_a_claim_refused_because_others_filled_the_item_reads_every_place_again(tmp_path):
    store = _record(tmp_path)
    dims = load_dimensions()
    items = [Item("task", "t00", "task 0"), Item("task", "t01", "task 1")]
    queue = Queue(store, "ana", items, dims, "tasks")
    store.claim("dev", "task", "t00", 3)  # the third place, taken after the queue was read
    store.claim("eve", "task", "t01", 3)
    assert not queue.claim(items[0])
    assert sorted(queue._claims[("task", "t01")]) == ["ben", "chen", "eve"]  # seen now, too
    assert queue.next_items() == []
