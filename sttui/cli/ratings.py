"""Commands about ratings: annotate, agreement, adjudicate, export-ratings, import-ratings."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from sttui.cli.app import checked_name, echo_json, main, open_store, say


def _dims() -> Any:
    from sttui.annotate.dimensions import DimensionsError, load_dimensions

    try:
        return load_dimensions()
    except DimensionsError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)


@main.command()
@click.option("--as", "as_name", callback=checked_name, required=True, help="Your annotator name.")
@click.option(
    "--items",
    "kind",
    type=click.Choice(["tasks", "explore", "episodes", "verdicts"]),
    default="tasks",
    show_default=True,
)
@click.option("--filter", "text_filter", default=None, help="Only items whose id or title contains this.")
@click.option(
    "--gold-rate",
    type=click.IntRange(0, 1000),
    default=None,
    help="One item in N is gold (0: none); default: gold.rate in dimensions.yaml (10).",
)
def annotate(as_name: str, kind: str, text_filter: str | None, gold_rate: int | None) -> None:
    """Rate items by keyboard: least-rated first, at most three annotators per item, blind."""
    from sttui.tui.app import run_app

    _dims()
    ctx = click.get_current_context()
    run_app(db_url=(ctx.find_root().obj or {}).get("db"), human=as_name, annotate=(kind, text_filter, gold_rate))


@main.command()
@click.option("--json", "as_json", is_flag=True)
def agreement(as_json: bool) -> None:
    """Krippendorff's alpha (ordinal), exact and within-1 agreement, mean, positive share; and
    the judge's accuracy and Cohen's kappa against the people's majority on its verdicts."""
    from sttui.annotate.agreement import agreement as compute
    from sttui.annotate.judge_agreement import judge_agreement
    from sttui.textout import table, terminal_width

    dims = _dims()
    store = open_store()
    rows, standing = counted_ratings(store, dims)
    categorical = {d.id for ds in dims.by_kind.values() for d in ds if d.categorical}
    # unordered choices have no place in an ordinal alpha or a mean: they are reported below
    result = compute([r for r in rows if r["dimension"] not in categorical], dims.positive, dims.cap)
    out = frozenset(x["annotator"] for x in standing["left_out"] if x["item_kind"] == "episode")
    result["first_error"] = _first_error_agreement(store, left_out=out)
    result["first_error_judges"] = _first_error_agreement(store, ("review", "judges"), out)
    rated = sorted({r["item_id"] for r in rows if r["item_kind"] == "verdict"})
    result["judge"] = judge_agreement(rows, store.verdicts_of(rated)) if rated else None
    result["gold"] = standing
    if as_json:
        echo_json(result)
        return
    for line in _gold_lines(standing):
        click.echo(line)
    if result["judge"] is not None:
        click.echo(_judge_lines(result["judge"]) + "\n")
    fe = result["first_error"]
    if fe["marked"]:
        click.echo(
            f"first wrong steps marked: {fe['marked']}; with a review suggestion: {fe['with_suggestion']}; "
            f"confirmed {fe['confirmed']}, within one step {fe['within_one_step']}, "
            f"marked earlier {fe['annotator_earlier']}, later {fe['annotator_later']}\n"
        )
        fj = result["first_error_judges"]
        if fj["with_suggestion"]:
            click.echo(
                f"against the stage judges' suggestion (first stage judged below the threshold): "
                f"{fj['with_suggestion']} with one; confirmed {fj['confirmed']}, within one step "
                f"{fj['within_one_step']}, marked earlier {fj['annotator_earlier']}, later {fj['annotator_later']}\n"
            )
    if not result["dimensions"]:
        if result["judge"] is None:
            click.echo("no ratings yet")
        return

    def num(v: Any, pct: bool = False) -> str:
        if v is None:
            return "-"
        return f"{v:.1%}" if pct else f"{v:.2f}"

    rows = []
    for name, s in [*result["dimensions"].items(), ("overall", result["overall"])]:
        d = dims.find(name)
        rows.append(
            {
                "dimension": d.name if d else name,
                "mean": num(s["mean"]),
                "positive (4-5)": num(s["positive_share"], True),
                "alpha [95% CI]": num(s["alpha"])
                + (f" [{s['alpha_ci'][0]:.2f}, {s['alpha_ci'][1]:.2f}]" if s.get("alpha_ci") else ""),
                "exact": num(s["exact_agreement"], True),
                "within 1": num(s["within_1_agreement"], True),
                f"items with {dims.cap}": s["complete_items"],
                "ratings": s["ratings"],
            }
        )
    click.echo(table(rows, list(rows[0]), terminal_width()))
    for name, s in [*result["dimensions"].items(), ("overall", result["overall"])]:
        if s["alpha_note"]:
            say(f"note ({name}): {s['alpha_note']}")


def counted_ratings(store: Any, dims: Any) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The ratings that count towards agreement and consensus, and the gold standing that
    decided it: ratings on gold items, and those of annotators unqualified or drifting on gold
    of that kind of item, are left out (``annotate.gold``)."""
    from sttui.annotate.gold import accuracy, counted, gold_keys

    rows = store.ratings()
    gold = gold_keys(store.gold())
    standing = accuracy(rows, gold, dims.gold)
    return counted(rows, gold, standing), standing


def _gold_lines(standing: dict[str, Any], table: bool = True) -> list[str]:
    """Each annotator's accuracy on gold, by window of gold items, and whom that leaves out."""
    from sttui.textout import table as draw

    if not standing["kinds"]:
        return []
    s = standing["settings"]
    lines: list[str] = []
    if table:
        rows = []
        for kind, found in standing["kinds"].items():
            for name, a in found["annotators"].items():
                windows = " ".join("-" if w["accuracy"] is None else f"{w['accuracy']:.0%}" for w in a["windows"])
                rows.append(
                    {
                        "annotator": name,
                        "items": kind,
                        "gold rated": a["gold_rated"],
                        "right": "-" if a["accuracy"] is None else f"{a['accuracy']:.0%}",
                        f"by {s['window']} gold, oldest first": windows or "-",
                        "standing": a["status"],
                    }
                )
        counts = ", ".join(f"{found['gold']} {kind} item(s)" for kind, found in standing["kinds"].items())
        lines.append(
            f"gold: {counts}; an annotator "
            f"counts after {s['min_items']} gold items with {s['min_accuracy']:.0%} right, and not while their "
            f"latest {s['window']} fall below it"
        )
        if rows:
            lines.append(draw(rows, list(rows[0])))
    for x in standing["left_out"]:
        lines.append(f"left out: {x['annotator']} on {x['item_kind']} items, {x['status']}: {x['why']}")
    if table or standing["left_out"]:
        lines.append("")
    return lines


def _judge_lines(found: dict[str, Any]) -> str:
    """The judge against the people's majority, one row per judge, with what was left out."""
    from sttui.textout import table

    def ci(v: Any, pct: bool) -> str:
        return "" if not v else (f" [{v[0]:.1%}, {v[1]:.1%}]" if pct else f" [{v[0]:.2f}, {v[1]:.2f}]")

    rows = []
    for j in found["judges"]:
        t = j["table"]
        rows.append(
            {
                "judge": j["judge"],
                "compared": j["compared"],
                "accuracy [95% CI]": ("-" if j["accuracy"] is None else f"{j['accuracy']:.1%}")
                + ci(j["accuracy_ci"], True),
                "kappa [95% CI]": (
                    "-" if not j["compared"] else "undefined" if j["kappa"] is None else f"{j['kappa']:.2f}"
                )
                + ci(j["kappa_ci"], False),
                "judge pass: people pass/fail": f"{t['judge_pass_people_pass']}/{t['judge_pass_people_fail']}",
                "judge fail: people pass/fail": f"{t['judge_fail_people_pass']}/{t['judge_fail_people_fail']}",
                "left out": sum(j["left_out"].values()),
            }
        )
    a = found["annotators"]
    lines = [
        f"The judge against the people's majority ({found['items']} verdict item(s), {found['ratings']} rating(s); "
        "annotators among themselves: alpha (nominal) "
        + ("-" if a["alpha_nominal"] is None else f"{a['alpha_nominal']:.2f}")
        + ", exact "
        + ("-" if a["exact_agreement"] is None else f"{a['exact_agreement']:.1%}")
        + "):",
        table(rows, list(rows[0])) if rows else "  no rated item has a recorded verdict",
    ]
    for j in found["judges"]:
        out = j["left_out"]
        if any(out.values()):
            lines.append(
                f"left out ({j['judge']}): {out['fewer_than_two_ratings']} with fewer than two ratings, "
                f"{out['no_majority']} without a majority, {out['majority_cant_tell']} whose majority can't tell"
            )
        if j["kappa_note"]:
            lines.append(f"note ({j['judge']}): {j['kappa_note']}")
    if found["ignored_ratings"]:
        lines.append(f"{found['ignored_ratings']} rating(s) are none of right, wrong, can't tell (1-3): ignored")
    if found["without_verdict"]:
        lines.append(f"{found['without_verdict']} rated item(s) have no recorded verdict (left out)")
    return "\n".join(lines)


def _first_error_agreement(
    store: Any, localiser: tuple[str, ...] = ("review",), left_out: frozenset[str] = frozenset()
) -> dict[str, Any]:
    """Each annotator's first wrong step against a localiser's suggestion (the rule review's, or
    the stage judges' with ``("review", "judges")``), in agent steps; ``left_out``: annotators
    whose marks do not count (unqualified or drifting on episode gold). The
    steps are counted by the database's index from each label's episode and event (no episode
    looked up one by one, no whole event log read)."""
    from sttui.annotate.first_errors import suggestion_agreement

    labels = [
        (label["episode_id"], label["first_error_seq"])
        for label in store.labels()
        if label["annotator"] not in left_out
    ]
    labels = [(eid, seq) for eid, seq in labels if seq is not None]
    steps = store.agent_steps_at(labels)
    suggested = store.suggested_first_errors([eid for eid, _ in labels], localiser)
    return suggestion_agreement([(steps[(eid, seq)], suggested.get(eid)) for eid, seq in labels])


@main.command()
@click.option("--as", "as_name", callback=checked_name, required=True, help="The adjudicator's name.")
@click.option("--spread", type=int, default=2, show_default=True, help="Disputed when ratings differ this much.")
def adjudicate(as_name: str, spread: int) -> None:
    """Settle items whose ratings spread two points or more (a verdict: any two that differ); names
    are visible only here."""
    from sttui.annotate.agreement import disputes

    store = open_store(write=True)
    dims = _dims()
    categorical = {d.id: d for ds in dims.by_kind.values() for d in ds if d.categorical}
    rows, standing = counted_ratings(store, dims)
    for line in _gold_lines(standing, table=False):
        click.echo(line)
    # unordered choices are disputed whenever two annotators chose differently
    items = disputes([r for r in rows if r["dimension"] not in categorical], spread)
    items += disputes([r for r in rows if r["dimension"] in categorical], 1)
    settled = {(a["item_kind"], a["item_id"], a["dimension"]) for a in store.adjudications()}
    pending = [i for i in items if (i["item_kind"], i["item_id"], i["dimension"]) not in settled]
    if not pending:
        click.echo(f"no disputed items ({len(items)} disputed, all adjudicated)" if items else "no disputed items")
        return
    for item in pending:
        click.echo(f"\n{item['item_kind']} {item['item_id']} · {item['dimension']}")
        for r in item["ratings"]:
            click.echo(f"  {r['annotator']}: {r['value']}" + (f"  ({r['comment']})" if r["comment"] else ""))
        choice = categorical.get(item["dimension"])
        if choice is not None:
            for k, text in sorted(choice.anchors.items()):
                click.echo(f"  {k}: {text}")
        top = max(choice.values) if choice is not None else 5
        value = click.prompt(f"adjudicated value (1-{top}, or 0 to leave it)", type=click.IntRange(0, top))
        if value:
            note = click.prompt("note", default="", show_default=False)
            store.adjudicate(as_name, item["item_kind"], item["item_id"], item["dimension"], value, note or None)
            click.echo("recorded")


@main.command("export-ratings")
@click.option("--format", "fmt", type=click.Choice(["csv", "jsonl"]), default="csv", show_default=True)
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), required=True)
def export_ratings(fmt: str, output: Path) -> None:
    """One row per current rating: item_kind, item_id, dimension, annotator, value, comment, created_at."""
    from sttui.annotate.ratings_io import export_ratings as render
    from sttui.cli.exports import check_folder, write_whole

    check_folder(output)
    rows = open_store().ratings()
    text = render(rows, fmt)
    write_whole(output, lambda path: path.write_text(text, encoding="utf-8"))  # (whole, or the old file as it was)
    click.echo(f"wrote {len(rows)} rating(s) to {output}", err=True)


@main.command("import-ratings")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
def import_ratings(file: Path) -> None:
    """Load ratings gathered elsewhere, all or nothing. Every refused row is listed with its
    number and why (unknown item, a score that is not a whole 1-5, a dimension not rated on
    the item's kind, a rating that would give an item more annotators than the cap, malformed
    fields), and then nothing is loaded: fix or remove those rows and import again."""
    from sttui.annotate.queue import KIND_OF_ITEMS
    from sttui.annotate.ratings_io import RatingsFileError, Refused, check_rows, read_rows, require_rows
    from sttui.cli.progress import Progress
    from sttui.core.loader import load_all
    from sttui.paths import tasks_root

    try:
        rows = read_rows(file)
        require_rows(file, rows)
    except (RatingsFileError, OSError) as exc:
        click.echo(f"error: {exc}; nothing was imported", err=True)
        sys.exit(1)
    store = open_store(write=True)
    progress = Progress("import-ratings", None)  # (shown once the work has taken a second)
    try:
        dims = _dims()
        loaded, _ = load_all([tasks_root()])
        known = {("task", t.id) for t in loaded if t.kind == "stt"} | {
            ("explore", t.id) for t in loaded if t.kind == "explore"
        }
        known |= {("episode", r.id) for r in store.list_episodes()}
        known |= {("verdict", eid) for eid, _ in store.judged_episodes()}
        by_kind = {item: {d.id for d in dims.of(kinds)} for kinds, item in KIND_OF_ITEMS.items()}
        raters: dict[tuple[str, str], set[str]] = {}
        progress.step("reading the record's ratings")
        for r in store.ratings():
            raters.setdefault((r["item_kind"], r["item_id"]), set()).add(r["annotator"])
        holders = {k: set(v) for k, v in store.claims().items()}
        for key, names in raters.items():
            holders.setdefault(key, set()).update(names)
        choices = {d.id: d.values for ds in dims.by_kind.values() for d in ds if d.categorical}
        progress.step(f"checking {len(rows):,} row(s)")
        good, refused = check_rows(rows, known, by_kind, holders, dims.cap, choices)
        progress.step("finding the rows the record holds already")
        good, present = _not_present(good, store.ratings(include_history=True))
        if not refused and good:  # claimed as the queue claims, in the same transaction as the ratings
            progress.total, progress.unit = len(good), "ratings written"
            refused = [Refused(n, why) for n, why in store.import_ratings(good, dims.cap, progress.at)]
    finally:
        progress.done()
    if refused:
        for r in sorted(refused, key=lambda r: r.row)[:50]:
            click.echo(f"refused row {r.row}: {r.reason}", err=True)
        if len(refused) > 50:
            click.echo(f"… and {len(refused) - 50} more refused rows", err=True)
        click.echo(
            f"error: {len(refused)} of {len(rows)} row(s) refused; nothing was imported. Fix or remove them and "
            "import again",
            err=True,
        )
        sys.exit(1)
    click.echo(f"imported {len(good)} rating(s)" + (f"; {present} already present" if present else ""))


def _not_present(rows: list[dict[str, Any]], held: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], int]:
    """The rows the record does not hold yet, and how many it does: the same annotator, item,
    dimension, value, comment and time (a file imported twice adds nothing the second time); a
    row without a time, when it is the annotator's current rating already."""

    def key(r: dict[str, Any], timed: bool = True) -> tuple[Any, ...]:
        at = r.get("created_at")
        what = (r["annotator"], r["item_kind"], r["item_id"], r["dimension"], r["value"], r.get("comment") or None)
        return (*what, None if at is None or not timed else round(float(at), 3))

    have = {key(r) for r in held}
    current = {key(r, timed=False) for r in held if r.get("superseded_by") is None and not r.get("withdrawn")}
    fresh = [r for r in rows if key(r) not in have and (r.get("created_at") is not None or key(r) not in current)]
    return fresh, len(rows) - len(fresh)
