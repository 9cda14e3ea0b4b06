"""Moving ratings: export one row per rating with stable columns; import the same.

An import is checked whole before anything is written: every row that is not a rating of a
known item by a named annotator with a whole score 1-5 (not 3.7, not ``true``), a dimension
of that item's kind, within the annotator cap, with text fields of sane size, is listed with
its row number and why, and then nothing is loaded."""

from __future__ import annotations

import csv
import io
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sttui.safetext import control_free

COLUMNS = ("item_kind", "item_id", "dimension", "annotator", "value", "comment", "created_at")
ITEM_KINDS = ("task", "explore", "episode", "verdict")
MAX_FILE_BYTES = 50_000_000
MAX_FIELD = 200  # characters of a kind, id, dimension or annotator name
MAX_COMMENT = 10_000


class RatingsFileError(ValueError):
    """The file as a whole cannot be read (not UTF-8, too big): one line, nothing loaded."""


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
    """Rows of a ratings file (``.jsonl``: one JSON object per line; else CSV with a header).
    A line that is not a JSON object becomes a row saying so, to be refused with its number."""
    from sttui.files import NotRegular, TooBig, read_bounded

    try:
        raw = read_bounded(path, MAX_FILE_BYTES)
    except NotRegular:
        raise RatingsFileError(f"{path}: not a regular file") from None
    except TooBig:
        raise RatingsFileError(f"{path} is over {MAX_FILE_BYTES:,} bytes; split it") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise RatingsFileError(f"{path}:{line}: not UTF-8 text (byte {exc.start}); save the file as UTF-8") from None
    if path.suffix == ".jsonl":
        rows: list[dict[str, Any]] = []
        for n, row_text in enumerate(text.splitlines(), 1):
            if not row_text.strip():
                continue
            try:
                data = json.loads(row_text)
            except (json.JSONDecodeError, RecursionError):
                rows.append({"_bad": f"line {n} is not JSON"})
                continue
            if not isinstance(data, dict):
                rows.append({"_bad": f"line {n} is a JSON {_json_kind(data)}, not an object with the columns"})
            else:
                rows.append(data)
        return rows
    try:
        reader = csv.DictReader(io.StringIO(text))
        header = reader.fieldnames or []
        missing = [c for c in COLUMNS[:5] if c not in header]
        if missing:  # a header-less file would read its first rating as the header, and load nothing
            if not text.strip():
                raise RatingsFileError(f"{path}: the file is empty (expected the header {','.join(COLUMNS)})")
            shown = ", ".join(str(h)[:40] for h in header[:8]) or "nothing"
            raise RatingsFileError(
                f"{path}:1: not a ratings file: the header must name {', '.join(COLUMNS[:5])} "
                f"(missing {', '.join(missing)}; line 1 holds {shown})"
            )
        rows = [row if None not in row else {"_bad": "more fields than the header has columns"} for row in reader]
    except csv.Error as exc:
        raise RatingsFileError(f"{path}: not a CSV file the reader understands: {exc}") from None
    return rows


def _json_kind(value: Any) -> str:
    """What JSON calls the kind of ``value`` (not Python's name for it: ``NoneType``, ``str``)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    return {"str": "string", "list": "array"}.get(type(value).__name__, type(value).__name__)


def require_rows(path: Path, rows: list[dict[str, Any]]) -> None:
    """A file that holds no rating at all is not a ratings file (an empty file, only a header)."""
    if not rows:
        raise RatingsFileError(f"{path}: holds no ratings (expected {', '.join(COLUMNS[:5])} on each row)")


def _score(value: Any) -> int | None:
    """A whole score: an integer (never a boolean or a float like 3.7), or its digits as text."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return None


def _text_problem(row: dict[str, Any]) -> str | None:
    for c in COLUMNS[:4]:
        v = row.get(c)
        if not isinstance(v, str):
            return f"{c} must be text, got {type(v).__name__}"
        if len(v) > MAX_FIELD:
            return f"{c} is {len(v):,} characters; at most {MAX_FIELD}"
        if not control_free(v):  # a NUL (which PostgreSQL cannot store), an escape, a line break
            return f"{c} holds control characters; names and ids are plain text"
    comment = row.get("comment")
    if comment not in (None, "") and not isinstance(comment, str):
        return f"comment must be text, got {type(comment).__name__}"
    if isinstance(comment, str) and len(comment) > MAX_COMMENT:
        return f"comment is {len(comment):,} characters; at most {MAX_COMMENT:,}"
    if isinstance(comment, str) and "\x00" in comment:  # the same refusal on SQLite as on PostgreSQL
        return "comment holds a NUL character"
    created = row.get("created_at")
    if created not in (None, ""):
        try:
            stamp = float(created) if not isinstance(created, bool) else float("nan")
        except (TypeError, ValueError):
            return f"created_at {created!r} is not a Unix time in seconds"
        if not math.isfinite(stamp) or not 0 <= stamp < 32_503_680_000:  # before the year 3000
            return f"created_at {created!r} is not a Unix time in seconds"
    return None


def check_rows(
    rows: list[dict[str, Any]],
    known: set[tuple[str, str]],
    dimensions: dict[str, set[str]],
    holders: dict[tuple[str, str], set[str]] | None = None,
    cap: int | None = None,
    choices: dict[str, tuple[int, ...]] | None = None,
) -> tuple[list[dict[str, Any]], list[Refused]]:
    """Split rows into those to load and those refused, each refusal with its row and reason.

    ``dimensions`` maps an item kind (task, explore, episode) to the dimensions rated on it;
    a dimension of another kind is refused. ``holders`` are the annotators who already hold a
    place on each item (claims and ratings); with ``cap``, a row that would make an item's
    annotators more than ``cap`` is refused. ``choices``: the scores a categorical dimension
    takes (``verdict_correct``: 1, 2, 3). Accepted rows take their places in order."""
    holders = {k: set(v) for k, v in (holders or {}).items()}
    every = {d for ds in dimensions.values() for d in ds}
    good, refused = [], []
    for n, row in enumerate(rows, 1):
        if "_bad" in row:
            refused.append(Refused(n, row["_bad"]))
            continue
        missing = [c for c in COLUMNS[:5] if row.get(c) is None or row.get(c) == ""]
        if missing:
            refused.append(Refused(n, f"missing {', '.join(missing)}"))
            continue
        problem = _text_problem(row)
        if problem:
            refused.append(Refused(n, problem))
            continue
        value = _score(row["value"])
        if value is None:
            refused.append(Refused(n, f"score {row['value']!r} is not a whole number 1-5"))
            continue
        kind, item, dim, who = row["item_kind"], row["item_id"], row["dimension"], row["annotator"]
        if not 1 <= value <= 5:
            refused.append(Refused(n, f"score {value} is out of range 1-5"))
        elif kind not in ITEM_KINDS or (kind, item) not in known:
            refused.append(Refused(n, f"no {kind} item '{item}'"))
        elif dim not in every:
            refused.append(Refused(n, f"no dimension '{dim}'"))
        elif choices and dim in choices and value not in choices[dim]:
            allowed = ", ".join(map(str, choices[dim]))
            refused.append(Refused(n, f"score {value} is not one of {dim}'s choices {allowed}"))
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
            created = row.get("created_at")
            good.append(
                {
                    **row,
                    "value": value,
                    "comment": row.get("comment") or None,
                    "created_at": float(created) if created not in (None, "") else None,
                    "_row": n,
                }
            )
    return good, refused
