"""Gold items: ratings an adjudicator knows (a value, or an accepted range) on some items. They
are mixed into every annotator's queue at a rate and look like any other item; each annotator's
ratings on them measure the annotator, not the item.

- **Qualification:** an annotator counts in ``agreement`` for a kind of item once they rated
  ``min_items`` gold items of that kind with ``min_accuracy`` of them inside the accepted range.
- **Drift:** a qualified annotator whose latest ``window`` gold ratings fall below that accuracy
  is left out as drifting, until they are back above it.

Kinds of item without gold leave every annotator in. Plain data in and out; no I/O."""

from __future__ import annotations

import random
from collections import defaultdict, deque
from collections.abc import Iterable
from dataclasses import asdict
from typing import Any

from sttui.annotate.dimensions import GoldSettings

Key = tuple[str, str, str]  # item kind, item id, dimension


def gold_keys(gold: Iterable[dict[str, Any]]) -> dict[Key, tuple[int, int]]:
    """The gold in force as (kind, item, dimension) -> (low, high)."""
    return {(g["item_kind"], g["item_id"], g["dimension"]): (int(g["low"]), int(g["high"])) for g in gold}


def mix(ordinary: list[Any], gold: list[Any], rate: int, done: int, gold_done: int, seed: str = "") -> list[Any]:
    """The order an annotator meets their items in: ``ordinary`` as given, with one gold item in
    each run of ``rate`` items, at a place in the run drawn from ``seed`` (the annotator), so no
    fixed position gives gold away. ``done`` items, ``gold_done`` of them gold, were rated
    already: the share of gold stays 1 in ``rate`` wherever the annotator stops. Gold left when
    the ordinary items run out comes last; ``rate`` 0 mixes in none."""
    if rate <= 0:
        return list(ordinary)
    out: list[Any] = []
    plain, golden = deque(ordinary), deque(gold)
    n, g = done, gold_done
    run, place = -1, 0
    while plain or golden:
        if n // rate != run:  # a new run of ``rate`` items: where in it its gold item goes
            run = n // rate
            place = random.Random(f"gold:{seed}:{run}").randrange(rate)
        due = run + (n % rate >= place)
        if golden and (g < due or not plain):
            out.append(golden.popleft())
            g += 1
        else:
            out.append(plain.popleft())
        n += 1
    return out


def gold_order(items: list[Any], annotator: str) -> list[Any]:
    """Gold items in an order of this annotator's own (seeded by the name): annotators do not
    all meet the same gold item at the same place, so none can tell it by where it comes."""
    ordered = sorted(items, key=lambda i: i.id)
    random.Random(f"gold:{annotator}").shuffle(ordered)
    return ordered


def accuracy(
    rows: Iterable[dict[str, Any]], gold: dict[Key, tuple[int, int]], settings: GoldSettings
) -> dict[str, Any]:
    """Each annotator's gold accuracy per kind of item, over time, and whom that leaves out.

    ``rows``: current ratings ({item_kind, item_id, dimension, annotator, value, created_at, id}).
    Returns {"settings", "kinds": {kind: {"gold": n, "annotators": {name: …}}}, "left_out": […]}.
    A rating on gold is right when it falls inside the accepted range; ``windows`` splits an
    annotator's gold ratings, oldest first, into runs of ``window``; ``latest`` is the last
    ``window`` of them."""
    judged: dict[tuple[str, str], list[tuple[float, int, bool]]] = defaultdict(list)
    for r in rows:
        found = gold.get((r["item_kind"], r["item_id"], r["dimension"]))
        if found is not None:
            ok = found[0] <= int(r["value"]) <= found[1]
            judged[(r["item_kind"], r["annotator"])].append((float(r["created_at"]), int(r.get("id") or 0), ok))
    kinds: dict[str, dict[str, Any]] = {}
    for kind in sorted({k for k, _, _ in gold}):
        kinds[kind] = {"gold": sum(1 for k, _, _ in gold if k == kind), "annotators": {}}
    everyone: dict[str, set[str]] = defaultdict(set)
    for r in rows:
        if r["item_kind"] in kinds:
            everyone[r["item_kind"]].add(r["annotator"])
    left_out = []
    for kind in kinds:
        for name in sorted(everyone[kind]):
            marks = [ok for _, _, ok in sorted(judged.get((kind, name), []))]
            standing = _one(marks, settings)
            kinds[kind]["annotators"][name] = standing
            if standing["status"] != "qualified":
                left_out.append(
                    {"annotator": name, "item_kind": kind, "status": standing["status"], "why": standing["why"]}
                )
    return {"settings": asdict(settings), "kinds": kinds, "left_out": left_out}


def _share(marks: list[bool]) -> float | None:
    return sum(marks) / len(marks) if marks else None


def _one(marks: list[bool], s: GoldSettings) -> dict[str, Any]:
    """One annotator's standing on one kind's gold (``marks``: right or not, oldest first)."""
    n, right = len(marks), sum(marks)
    overall = _share(marks)
    windows = [
        {"from": i + 1, "to": i + len(chunk), "accuracy": _share(chunk)}
        for i in range(0, n, s.window)
        for chunk in [marks[i : i + s.window]]
    ]
    latest = _share(marks[-s.window :]) if n >= s.window else None
    if n < s.min_items:
        status, why = "unqualified", f"rated {n} gold item(s); {s.min_items} needed to qualify"
    elif overall is not None and overall < s.min_accuracy:
        status, why = "unqualified", f"{overall:.0%} right on gold ({right} of {n}); {s.min_accuracy:.0%} needed"
    elif latest is not None and latest < s.min_accuracy:
        status = "drifting"
        why = f"{latest:.0%} right on their latest {s.window} gold items, below {s.min_accuracy:.0%} ({overall:.0%} overall)"
    else:
        status, why = "qualified", None
    return {
        "gold_rated": n,
        "right": right,
        "accuracy": overall,
        "latest": latest,
        "windows": windows,
        "status": status,
        "why": why,
    }


def counted(
    rows: list[dict[str, Any]], gold: dict[Key, tuple[int, int]], found: dict[str, Any]
) -> list[dict[str, Any]]:
    """The ratings that count towards agreement and consensus: not on gold (those measure the
    annotator), and not by an annotator left out on that kind of item."""
    out = {(x["item_kind"], x["annotator"]) for x in found["left_out"]}
    return [
        r
        for r in rows
        if (r["item_kind"], r["item_id"], r["dimension"]) not in gold and (r["item_kind"], r["annotator"]) not in out
    ]
