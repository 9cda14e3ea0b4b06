"""``sttui gold``: an adjudicator sets, lists and removes gold items (an item's known rating, or
accepted range, on one dimension), against which annotators are qualified and watched."""

from __future__ import annotations

import sys
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
            f"ITEM is KIND:ID with KIND one of {', '.join(ITEM_KINDS)} (e.g. task:logistics-insulin-reefer-st2-easy); got {spec!r}"
        )
    return kind, item_id


def _known(store: Any, kind: str, item_id: str) -> bool:
    if kind in ("task", "explore"):
        from sttui.core.loader import load_all
        from sttui.paths import tasks_root

        loaded, _ = load_all([tasks_root()])
        return any(t.id == item_id and (t.kind == "stt") == (kind == "task") for t in loaded)
    if kind == "episode":
        return any(r.id == item_id for r in store.list_episodes(status="completed"))
    return any(eid == item_id for eid, _ in store.judged_episodes())


def _dimension(kind: str, dimension: str) -> Any:
    from sttui.annotate.queue import KIND_OF_ITEMS
    from sttui.cli.ratings import _dims

    plural = next(k for k, v in KIND_OF_ITEMS.items() if v == kind)
    dims = _dims().of(plural)
    found = next((d for d in dims if d.id == dimension), None)
    if found is None:
        _fail(f"{kind} items are rated on {', '.join(d.id for d in dims) or 'no dimension'}; got {dimension!r}")
    return found


def _range(value: str, allowed: tuple[int, ...]) -> tuple[int, int]:
    low, sep, high = value.partition("-")
    try:
        lo, hi = int(low), int(high) if sep else int(low)
    except ValueError:
        lo = hi = -1
    if lo not in allowed or hi not in allowed or lo > hi:
        _fail(
            f"VALUE is one rating or a range LOW-HIGH of {', '.join(map(str, allowed))} (e.g. 4 or 4-5); got {value!r}"
        )
    return lo, hi


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
    kind, item_id = _item(item)
    lo, hi = _range(value, _dimension(kind, dimension).values)
    store = open_store(write=True)
    if not _known(store, kind, item_id):
        _fail(f"no {kind} item '{item_id}' (a {kind} must exist to be gold)")
    store.set_gold(as_name, kind, item_id, dimension, lo, hi, note)
    click.echo(f"gold: {kind} {item_id} · {dimension} = {lo if lo == hi else f'{lo}-{hi}'}")


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
def list_cmd(as_json: bool) -> None:
    """The gold in force, with who set it."""
    rows = open_store().gold()
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
