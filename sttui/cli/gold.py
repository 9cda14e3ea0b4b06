"""``sttui gold``: an adjudicator sets, lists and removes gold items (an item's known rating, or
accepted range, on one dimension), against which annotators are qualified and watched."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, NoReturn

import click

from sttui.cli.app import checked_name, echo_json, main, open_store


def _fail(message: str) -> NoReturn:
    click.echo(f"error: {message}", err=True)
    sys.exit(2)


def _item(spec: str) -> tuple[str, str]:
    """KIND:ID (``task:logistics-…``, ``explore:…``, ``episode:ID``, ``verdict:ID``)."""
    from sttui.annotate.ratings_io import ITEM_KINDS

    kind, sep, item_id = spec.partition(":")
    if not sep or kind not in ITEM_KINDS or not item_id.strip():
        _fail(
            f"ITEM is KIND:ID with KIND one of {', '.join(ITEM_KINDS)} "
            f"(e.g. task:logistics-insulin-reefer-st2-easy); got {spec!r}"
        )
    return kind, item_id


def _known(store: Any, kinds: set[str]) -> set[tuple[str, str]]:
    """The items of these kinds that exist: bundled tasks, finished episodes, judged episodes."""
    out: set[tuple[str, str]] = set()
    if kinds & {"task", "explore"}:
        from sttui.core.loader import load_all
        from sttui.paths import tasks_root

        loaded, _ = load_all([tasks_root()])
        out |= {("task" if t.kind == "stt" else "explore", t.id) for t in loaded}
    if "episode" in kinds:
        out |= {("episode", r.id) for r in store.list_episodes(status="completed")}
    if "verdict" in kinds:
        out |= {("verdict", eid) for eid, _ in store.judged_episodes()}
    return out


def check_gold(
    kind: str, item_id: str, dimension: str, value: str, known: set[tuple[str, str]], dims: Any
) -> tuple[int, int] | str:
    """(low, high) of a gold item as given, or what is wrong with it (one line)."""
    from sttui.annotate.queue import KIND_OF_ITEMS
    from sttui.annotate.ratings_io import ITEM_KINDS

    if kind not in ITEM_KINDS:
        return f"item_kind: expected one of {', '.join(ITEM_KINDS)}; got {kind!r}"
    rated = dims.of(next(k for k, v in KIND_OF_ITEMS.items() if v == kind))
    found = next((d for d in rated if d.id == dimension), None)
    if found is None:
        return f"dimension: {kind} items are rated on {', '.join(d.id for d in rated) or 'nothing'}; got {dimension!r}"
    low, sep, high = value.strip().partition("-")
    try:
        lo, hi = int(low), int(high) if sep else int(low)
    except ValueError:
        lo = hi = -1
    if lo not in found.values or hi not in found.values or lo > hi:
        allowed = ", ".join(map(str, found.values))
        return f"value: one rating or a range LOW-HIGH of {allowed} (e.g. 4 or 4-5); got {value!r}"
    if (kind, item_id) not in known:
        return f"item_id: no {kind} item '{item_id}' (a {kind} must exist to be gold)"
    return lo, hi


MAX_GOLD_FILE = 5_000_000  # a gold file lists items an adjudicator settled: far below this


def _read(file: Path) -> str:
    """A gold file's text; ValueError saying why it is not one (not a regular file, too big,
    not UTF-8, NUL bytes)."""
    from sttui.files import NotRegular, TooBig, read_bounded

    try:
        raw = read_bounded(file, MAX_GOLD_FILE)
    except NotRegular:
        raise ValueError(f"{file}: not a regular file") from None
    except TooBig:
        raise ValueError(f"{file}: over {MAX_GOLD_FILE:,} bytes; a gold file is a short CSV") from None
    if b"\0" in raw:
        raise ValueError(f"{file}: holds NUL bytes (binary, or UTF-16); a gold file is UTF-8 CSV")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise ValueError(f"{file}:{line}: not UTF-8 text") from None


@main.group()
def gold() -> None:
    """Gold items: known ratings that qualify and watch annotators (see `agreement`)."""


@gold.command("set")
@click.argument("item")
@click.argument("dimension")
@click.argument("value")
@click.option("--as", "as_name", callback=checked_name, required=True, help="The adjudicator's name.")
@click.option("--note", default=None, help="Why this is the right rating (never shown to annotators).")
def set_cmd(item: str, dimension: str, value: str, as_name: str, note: str | None) -> None:
    """Make ITEM (KIND:ID) gold on DIMENSION: VALUE is the known rating, or LOW-HIGH the accepted
    range. Setting it again replaces it (the earlier gold is kept as history)."""
    from sttui.cli.ratings import _dims

    kind, item_id = _item(item)
    store = open_store(write=True)
    found = check_gold(kind, item_id, dimension, value, _known(store, {kind}), _dims())
    if isinstance(found, str):
        _fail(found.split(": ", 1)[1])
    lo, hi = found
    store.set_gold(as_name, kind, item_id, dimension, lo, hi, note)
    click.echo(f"gold: {kind} {item_id} · {dimension} = {lo if lo == hi else f'{lo}-{hi}'}")


@gold.command("import")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--as", "as_name", callback=checked_name, required=True, help="The adjudicator's name.")
def import_cmd(file: Path, as_name: str) -> None:
    """Set many gold items from a CSV file with the header item_kind,item_id,dimension,value,note
    (value: a rating or LOW-HIGH; note may be empty): every bad row is listed as FILE:LINE, and
    then nothing is set; otherwise all of them are, at once."""
    import csv

    from sttui.cli.ratings import _dims

    header = ["item_kind", "item_id", "dimension", "value", "note"]
    try:
        rows = list(csv.reader(_read(file).splitlines()))
    except (ValueError, OSError, csv.Error) as exc:
        _fail(f"{exc}; no gold was set")
    if not rows or [c.strip() for c in rows[0]] != header:
        _fail(f"{file}:1: expected the header {','.join(header)}; no gold was set")
    store = open_store(write=True)
    known = _known(store, {r[0] for r in rows[1:] if r})
    dims, good, bad = _dims(), [], []
    for line, row in enumerate(rows[1:], 2):
        if not row:
            continue
        if len(row) != len(header):
            bad.append(f"{file}:{line}: expected {len(header)} fields ({','.join(header)}); got {len(row)}")
            continue
        kind, item_id, dimension, value, note = (c.strip() for c in row)
        found = check_gold(kind, item_id, dimension, value, known, dims)
        if isinstance(found, str):
            bad.append(f"{file}:{line}: {found}")
        else:
            good.append((kind, item_id, dimension, found[0], found[1], note or None))
    for problem in bad[:50]:
        click.echo(problem, err=True)
    if bad:
        _fail(f"{len(bad)} of {len(rows) - 1} row(s) refused; no gold was set. Fix them and import again")
    store.set_gold_many(as_name, good)
    click.echo(f"gold set on {len(good)} item dimension(s)")


@gold.command("unset")
@click.argument("item")
@click.argument("dimension")
@click.option("--as", "as_name", callback=checked_name, required=True, help="The adjudicator's name.")
def unset_cmd(item: str, dimension: str, as_name: str) -> None:
    """ITEM is no longer gold on DIMENSION (its history stays in the record)."""
    kind, item_id = _item(item)
    if not open_store(write=True).unset_gold(as_name, kind, item_id, dimension):
        _fail(f"{kind} {item_id} is not gold on {dimension}")
    click.echo(f"{kind} {item_id} · {dimension} is no longer gold")


@gold.command("list")
@click.option("--json", "as_json", is_flag=True)
@click.option(
    "--csv",
    "as_csv",
    is_flag=True,
    help="As `gold import` reads it (item_kind,item_id,dimension,value,note): gold moves with the ratings.",
)
def list_cmd(as_json: bool, as_csv: bool) -> None:
    """The gold in force, with who set it."""
    rows = open_store().gold()
    if as_csv:
        import csv

        out = csv.writer(sys.stdout, lineterminator="\n")
        out.writerow(["item_kind", "item_id", "dimension", "value", "note"])
        for r in rows:
            value = str(r["low"]) if r["low"] == r["high"] else f"{r['low']}-{r['high']}"
            out.writerow([r["item_kind"], r["item_id"], r["dimension"], value, r["note"] or ""])
        return
    if as_json:
        echo_json(
            [
                {k: r[k] for k in ("item_kind", "item_id", "dimension", "low", "high", "adjudicator", "note")}
                for r in rows
            ]
        )
        return
    if not rows:
        click.echo("no gold items (`sttui gold set KIND:ID DIMENSION VALUE --as NAME` makes one)")
        return
    from sttui.safetext import visible

    for r in rows:  # an id or note with control characters is shown, never acted on by the terminal
        value = r["low"] if r["low"] == r["high"] else f"{r['low']}-{r['high']}"
        note = f"  ({visible(r['note'])})" if r["note"] else ""
        click.echo(
            visible(f"{r['item_kind']} {r['item_id']} · {r['dimension']} = {value}  by {r['adjudicator']}") + note
        )
