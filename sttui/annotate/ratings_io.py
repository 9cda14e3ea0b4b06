"""Moving ratings: export one row per rating with stable columns; import the same, refusing
rows that name unknown items or carry scores out of range (each listed), keeping the rest."""

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
    rows: list[dict[str, Any]], known: set[tuple[str, str]], dimensions: set[str]
) -> tuple[list[dict[str, Any]], list[Refused]]:
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
        if not 1 <= value <= 5:
            refused.append(Refused(n, f"score {value} is out of range 1-5"))
        elif row["item_kind"] not in ITEM_KINDS or (row["item_kind"], row["item_id"]) not in known:
            refused.append(Refused(n, f"no {row['item_kind']} item '{row['item_id']}'"))
        elif row["dimension"] not in dimensions:
            refused.append(Refused(n, f"no dimension '{row['dimension']}'"))
        else:
            good.append({**row, "value": value, "comment": row.get("comment") or None})
    return good, refused
