"""Moving ratings: export one row per rating with stable columns; import the same, refusing
rows that name unknown items, carry scores out of range, rate a dimension of another kind
of item, or would exceed the annotator cap (each listed), keeping the rest."""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

COLUMNS = ("item_kind", "item_id", "dimension", "annotator", "value", "comment", "created_at")
ITEM_KINDS = ("task", "explore", "episode")


@dataclass
class Refused:
    row: int
    reason: str


def export_ratings(rows: list[dict[str, Any]], fmt: str) -> str:
    rows = sorted(rows, key=lambda r: (r["item_kind"], r["item_id"], r["dimension"], r["annotator"]))
    if fmt == "jsonl":
        return "".join(json.dumps({c: r.get(c) for c in COLUMNS}, ensure_ascii=False) + "\n" for r in rows)
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    for r in rows:
        writer.writerow({c: "" if r.get(c) is None else r.get(c) for c in COLUMNS})
    return out.getvalue()


def read_rows(path: Path) -> list[dict[str, Any]]:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".jsonl":
        rows = []
        for n, line in enumerate(text.splitlines(), 1):
            if line.strip():
                try:
                    rows.append(json.loads(line))
                except json.JSONDecodeError:
                    rows.append({"_bad": f"line {n} is not JSON"})
        return rows
    return list(csv.DictReader(io.StringIO(text)))


def check_rows(
    rows: list[dict[str, Any]],
    known: set[tuple[str, str]],
    dimensions: dict[str, set[str]],
    holders: dict[tuple[str, str], set[str]] | None = None,
    cap: int | None = None,
) -> tuple[list[dict[str, Any]], list[Refused]]:
    """Split rows into those to load and those refused, each refusal with its row and reason.

    ``dimensions`` maps an item kind (task, explore, episode) to the dimensions rated on it;
    a dimension of another kind is refused. ``holders`` are the annotators who already hold a
    place on each item (claims and ratings); with ``cap``, a row that would make an item's
    annotators more than ``cap`` is refused. Accepted rows take their places in order."""
    holders = {k: set(v) for k, v in (holders or {}).items()}
    every = {d for ds in dimensions.values() for d in ds}
    good, refused = [], []
    for n, row in enumerate(rows, 1):
        if "_bad" in row:
            refused.append(Refused(n, row["_bad"]))
            continue
        missing = [c for c in COLUMNS[:5] if not str(row.get(c) or "").strip()]
        if missing:
            refused.append(Refused(n, f"missing {', '.join(missing)}"))
            continue
        try:
            value = int(row["value"])
        except (TypeError, ValueError):
            refused.append(Refused(n, f"score {row['value']!r} is not a whole number"))
            continue
        kind, item, dim, who = row["item_kind"], row["item_id"], row["dimension"], row["annotator"]
        if not 1 <= value <= 5:
            refused.append(Refused(n, f"score {value} is out of range 1-5"))
        elif kind not in ITEM_KINDS or (kind, item) not in known:
            refused.append(Refused(n, f"no {kind} item '{item}'"))
        elif dim not in every:
            refused.append(Refused(n, f"no dimension '{dim}'"))
        elif dim not in dimensions.get(kind, set()):
            owners = [k for k, ds in dimensions.items() if dim in ds]
            refused.append(
                Refused(n, f"dimension '{dim}' is rated on {' and '.join(owners)} items, not on {kind} items")
            )
        elif cap is not None and who not in (place := holders.setdefault((kind, item), set())) and len(place) >= cap:
            refused.append(
                Refused(
                    n, f"{kind} '{item}' already has {len(place)} annotators (the cap is {cap}); '{who}' is not one"
                )
            )
        else:
            holders.setdefault((kind, item), set()).add(who)
            good.append({**row, "value": value, "comment": row.get("comment") or None, "_row": n})
    return good, refused
