"""The annotation queue of one annotator: items still needing ratings, least-rated first,
at most ``cap`` annotators per item (claimed atomically in the database). An annotator only
ever sees their own ratings: never another's values, comments or names.

Gold items (``annotate.gold``) are mixed in at one in ``rate``; every annotator rates them (no
cap), and nothing the queue hands out says which they are."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sttui.annotate.dimensions import Dimension, Dimensions
from sttui.annotate.gold import gold_order, mix

if TYPE_CHECKING:
    from sttui.store.store import Store

KIND_OF_ITEMS = {"tasks": "task", "explore": "explore", "episodes": "episode", "verdicts": "verdict"}


@dataclass
class Item:
    kind: str  # task | explore | episode | verdict
    id: str
    title: str
    body: dict[str, Any] = field(default_factory=dict)


def _user(user: Any) -> dict[str, Any]:
    """The user as an annotator reads it: withheld details by value, without their cues."""
    data = user.model_dump(mode="json")
    return {**data, "withheld": {k: w["value"] for k, w in data["withheld"].items()}}


def task_items(loaded: list[Any], kind: str) -> list[Item]:
    """Bundled tasks as items, with what an annotator reads: for stt tasks the query, the user
    profile, the checklist, the triggers, and the naive plan beside the solution."""
    out = []
    for t in loaded:
        task = t.task
        if kind == "task" and t.kind == "stt":
            body = {
                "query": task.query,
                "user": _user(task.user),
                "checklist": [
                    c.model_dump(mode="json", exclude_none=True, exclude_defaults=True) for c in task.checklist
                ],
                "triggers": [
                    tr.model_dump(mode="json", exclude_none=True, exclude_defaults=True, by_alias=True)
                    for tr in task.triggers
                ],
                "naive_plan": [
                    s.model_dump(mode="json", exclude_none=True, exclude_defaults=True) for s in task.naive_plan
                ],
                "solution": [
                    s.model_dump(mode="json", exclude_none=True, exclude_defaults=True) for s in task.solution
                ],
                "level": task.level,
                "conflict": task.conflict,
            }
            out.append(Item("task", task.id, task.title, body))
        elif kind == "explore" and t.kind == "explore":
            body = {
                "scenario": task.scenario,
                "fields": [f.model_dump(exclude_none=True) for f in task.fields],
                "rule": task.rule.model_dump(exclude_none=True),
                "drift": task.drift.model_dump() if task.drift else None,
            }
            out.append(Item("explore", task.id, task.title, body))
    return out


def verdict_items(judged: list[tuple[str, str]]) -> list[Item]:
    """Recorded verdicts as items (``Store.judged_episodes``); the screen reads each one's
    messages and verdict when it is shown (``annotate.verdicts.verdict_body``)."""
    return [Item("verdict", eid, f"verdict on {task}") for eid, task in judged]


class Queue:
    """What one annotator still has to rate, in order."""

    def __init__(
        self, store: Store, annotator: str, items: list[Item], dims: Dimensions, kind: str, gold_rate: int | None = None
    ):
        self.store, self.annotator, self.items, self.dims = store, annotator, items, dims
        self.kind = kind  # tasks | explore | episodes | verdicts
        self.dimensions: list[Dimension] = dims.of(kind)
        self.gold_rate = dims.gold.rate if gold_rate is None else gold_rate
        mine = {d.id for d in self.dimensions}
        golden = {(g["item_kind"], g["item_id"]) for g in store.gold(KIND_OF_ITEMS[kind]) if g["dimension"] in mine}
        self._gold = gold_order([i for i in items if (i.kind, i.id) in golden], annotator) if self.gold_rate else []
        self._gold_ids = {(i.kind, i.id) for i in items if (i.kind, i.id) in golden}
        self.refresh()

    def refresh(self) -> None:
        mine = self.store.ratings_by(self.annotator)
        self._mine = {(r["item_kind"], r["item_id"], r["dimension"]): r for r in mine}
        self._claims = self.store.claims(KIND_OF_ITEMS[self.kind])

    def required(self) -> list[Dimension]:
        return [d for d in self.dimensions if not d.optional] or self.dimensions

    def done(self, item: Item) -> bool:
        return all((item.kind, item.id, d.id) in self._mine for d in self.required())

    def mine(self, item: Item, dimension: str) -> dict[str, Any] | None:
        return self._mine.get((item.kind, item.id, dimension))

    def assigned(self) -> list[Item]:
        """Items I hold a place on, or could still get one; least-rated first, then by id."""

        def holders(item: Item) -> list[str]:
            return self._claims.get((item.kind, item.id), [])

        open_items = [
            i
            for i in self.items
            if (i.kind, i.id) not in self._gold_ids
            and (self.annotator in holders(i) or len(holders(i)) < self.dims.cap)
        ]
        ordinary = sorted(open_items, key=lambda i: (self.annotator not in holders(i), len(holders(i)), i.id))
        return ordinary + self._gold

    def progress(self) -> tuple[int, int]:
        assigned = self.assigned()
        return sum(self.done(i) for i in assigned), len(assigned)

    def next_items(self, skipped: set[str] | None = None) -> list[Item]:
        skipped = skipped or set()
        ordinary: list[Item] = []
        gold: list[Item] = []
        done = gold_done = 0
        for i in self.assigned():  # each item's state read once: a queue may hold tens of thousands
            is_gold = (i.kind, i.id) in self._gold_ids
            if self.done(i):
                done += 1
                gold_done += is_gold
            elif i.id not in skipped:
                (gold if is_gold else ordinary).append(i)
        return mix(ordinary, gold, self.gold_rate, done, gold_done, self.annotator)

    def claim(self, item: Item) -> bool:
        """Take a place on ``item``. Only that item's places are read again, unless it was full:
        then others have been claiming, and every item's are (a record may hold 100,000s)."""
        # every annotator rates a gold item: its place is recorded like any other, without the cap
        cap = 1_000_000_000 if (item.kind, item.id) in self._gold_ids else self.dims.cap
        granted = self.store.claim(self.annotator, item.kind, item.id, cap)
        if granted:
            key = (item.kind, item.id)
            self._claims[key] = self.store.claims(KIND_OF_ITEMS[self.kind], item.id).get(key, [])
        else:
            self._claims = self.store.claims(KIND_OF_ITEMS[self.kind])
        return granted

    def rate(self, item: Item, dimension: str, value: int, comment: str | None = None) -> None:
        """Committed on the key press. A categorical dimension takes only its choices' numbers."""
        dim = next((d for d in self.dimensions if d.id == dimension), None)
        if dim is not None and value not in dim.values:
            raise ValueError(f"{dim.name} takes {', '.join(map(str, dim.values))}; got {value}")
        self.store.rate(self.annotator, item.kind, item.id, dimension, value, comment)
        self._reread(item)

    def _reread(self, item: Item) -> None:
        """My ratings of ``item`` read again after I changed one (the rest cannot have moved:
        only I write mine), not every rating I ever made."""
        for key in [k for k in self._mine if k[:2] == (item.kind, item.id)]:
            del self._mine[key]
        for r in self.store.ratings_by(self.annotator, item_kind=item.kind, item_id=item.id):
            self._mine[(r["item_kind"], r["item_id"], r["dimension"])] = r

    def undo(self, item: Item, dimension: str) -> None:
        """Take back my current rating: the previous one comes back, or it is withdrawn.
        Either way a new row supersedes it; nothing is deleted."""
        history = [
            r
            for r in self.store.ratings_by(self.annotator, include_history=True, item_kind=item.kind, item_id=item.id)
            if r["dimension"] == dimension
        ]
        current = next((r for r in reversed(history) if r["superseded_by"] is None), None)
        if current is None or current["withdrawn"]:
            return
        earlier = [r for r in history if r["id"] < current["id"]]
        if earlier:
            previous = earlier[-1]
            if previous["withdrawn"]:
                self.store.rate(self.annotator, item.kind, item.id, dimension, 0, None, withdrawn=True)
            else:
                self.store.rate(self.annotator, item.kind, item.id, dimension, previous["value"], previous["comment"])
        else:
            self.store.rate(self.annotator, item.kind, item.id, dimension, 0, None, withdrawn=True)
        self._reread(item)
