"""Commands about tasks: list, check, run, generate."""

from __future__ import annotations

import asyncio
import re
import sys
from pathlib import Path
from typing import Any

import click

from sttui.cli.app import checked_name, echo_json, main, open_store
from sttui.core.checklist import HumanJudge
from sttui.core.settings import EXPLORE_SETTINGS
from sttui.paths import tasks_root


def task_record(t: Any) -> dict[str, Any]:
    """The stable listing record of a task (a loaded task, or the task index's entry for its
    file): stt tasks have conflict and level, explore ones a family."""
    if hasattr(t, "opening"):  # an index entry: the same fields, without loading the task
        return {
            "id": t.id,
            "kind": t.kind,
            "domain": t.domain,
            "conflict": t.conflict,
            "level": t.level,
            "family": t.family,
            "title": t.title,
            "file": str(t.path),
        }
    stt = t.kind == "stt"
    return {
        "id": t.id,
        "kind": t.kind,
        "domain": t.task.domain,
        "conflict": t.task.conflict if stt else None,
        "level": t.task.level if stt else None,
        "family": None if stt else t.task.rule.family,
        "title": t.task.title,
        "file": str(t.path),
    }


def _select(selection: tuple[str, ...]) -> list[Any]:
    """Task files, folders or ids -> the task index's entries of the tasks chosen (nothing is
    loaded that the index holds); exits with a clear report on bad files."""
    from sttui.core.taskindex import discover, index

    root = tasks_root()
    paths: list[str | Path] = []
    wanted_ids: list[str] = []
    for item in selection or (str(root),):
        if Path(item).exists():
            paths.append(item)
        else:
            wanted_ids.append(item)
    if wanted_ids:
        paths.append(root)
    entries = index().scan(paths)
    chosen = [e for e in entries if e.ok]
    errors = [e for e in entries if not e.ok]
    if wanted_ids:
        by_id = {e.id: e for e in chosen if e.id is not None}
        unknown = [i for i in wanted_ids if i not in by_id]
        if unknown:
            from sttui.core.problems import did_you_mean

            for i in unknown:
                click.echo(f"error: no task '{i}' under {root}{did_you_mean(i, by_id)}", err=True)
            sys.exit(1)
        explicit_files = {str(p) for p in discover(paths[:-1])}
        explicit = [e for e in chosen if str(e.path) in explicit_files]
        chosen = explicit + [by_id[i] for i in wanted_ids]
    if errors:
        for e in errors:
            for problem in e.problems or ():
                click.echo(f"error: {problem}", err=True)
        sys.exit(1)
    return _unique(chosen)


def _unique(chosen: list[Any]) -> list[Any]:
    """Each task once, in the order first named: overlapping selections (a folder and a task
    inside it) would otherwise run a task twice and count the copies as trials."""
    seen: set[str] = set()
    out: list[Any] = []
    repeated: list[str] = []
    for entry in chosen:
        if entry.id in seen:
            if entry.id not in repeated:
                repeated.append(entry.id)
            continue
        seen.add(entry.id)
        out.append(entry)
    if repeated:
        shown = ", ".join(repeated[:5]) + (f" and {len(repeated) - 5} more" if len(repeated) > 5 else "")
        click.echo(f"note: {len(repeated)} task(s) named more than once, taken once each: {shown}", err=True)
    return out


def _load_selection(selection: tuple[str, ...]) -> list[Any]:
    """Task files, folders or ids -> loaded tasks; exits with a clear report on bad files."""
    from sttui.core.loader import load_task

    return [load_task(e.path) for e in _select(selection)]


@main.command()
@click.argument("paths", nargs=-1)
@click.option("--json", "as_json", is_flag=True, help="Print records as JSON.")
@click.option(
    "--coverage",
    is_flag=True,
    help="Print what the tasks cover: stt subtypes × levels by domain and in total, explore "
    "episodes by rule family × drift kind.",
)
@click.option("--markdown", is_flag=True, help="With --coverage: as the README's Markdown tables.")
@click.option(
    "--difficulty",
    is_flag=True,
    help="Play the naive plan and the random baseline on each stt task and print their outcomes "
    "and stage scores, per task and per level, and the tasks whose level does not order them.",
)
@click.option(
    "--random-seeds",
    type=click.IntRange(min=1),
    default=10,
    show_default=True,
    help="With --difficulty: runs of the random baseline per task (seeds 0 to N-1).",
)
def tasks(
    paths: tuple[str, ...], as_json: bool, coverage: bool, markdown: bool, difficulty: bool, random_seeds: int
) -> None:
    """List tasks: id, kind, domain, conflict subtype, level."""
    if markdown and not coverage:
        click.echo("error: --markdown goes with --coverage", err=True)
        sys.exit(2)
    if markdown and as_json:
        click.echo("error: --markdown and --json are two formats; ask for one", err=True)
        sys.exit(2)
    if coverage and difficulty:
        click.echo("error: --coverage and --difficulty are two reports; ask for one", err=True)
        sys.exit(2)
    if difficulty:
        _print_difficulty(_select(paths), as_json, random_seeds)
        return
    if coverage:
        _print_coverage(_select(paths), as_json, markdown)
        return
    rows = [task_record(t) for t in _select(paths)]  # from the task index: nothing loaded that it holds
    if as_json:
        echo_json(rows)
        return
    from sttui.textout import table

    shown = [{**r, "subtype": r["conflict"] or r["family"], "level": r["level"] or "-"} for r in rows]
    click.echo(table(shown, ["id", "kind", "domain", "subtype", "level", "title"]))


def _print_coverage(entries: list[Any], as_json: bool, markdown: bool) -> None:
    """The coverage of the chosen tasks (stt rows from the task index; an explore episode is
    loaded, through the index's cache, for its drift)."""
    from sttui.core.coverage import coverage, drift_kind, render_markdown, render_text
    from sttui.core.explore.task import ExploreTask
    from sttui.core.taskindex import index

    stt = [task_record(e) for e in entries if e.kind == "stt"]
    explore = []
    for e in entries:
        if e.kind != "explore":
            continue
        task = index().load(e.path).task
        assert isinstance(task, ExploreTask)  # the index's kind says so
        after = task.drift.after_batch if task.drift is not None else None
        explore.append({"domain": task.domain, "family": task.rule.family, "drift": drift_kind(after, task.setting)})
    cov = coverage(stt, explore)
    if as_json:
        echo_json(cov)
    else:
        click.echo(render_markdown(cov) if markdown else render_text(cov))


def _print_difficulty(entries: list[Any], as_json: bool, random_seeds: int) -> None:
    """The baselines' difficulty of each chosen stt task (explore episodes are left out: their
    baselines' figures are the metrics of `sttui run`)."""
    from sttui.authoring.difficulty import measure_task, report
    from sttui.core.taskindex import index
    from sttui.textout import table

    stt = [e for e in entries if e.kind == "stt"]
    if not stt:
        click.echo("error: no stt tasks among those chosen", err=True)
        sys.exit(1)
    measured = [measure_task(index().load(e.path), random_seeds) for e in stt]
    rep = report(measured)
    if as_json:
        echo_json(rep | {"random_seeds": random_seeds})
        return

    def num(v: float | None) -> str:
        return "-" if v is None else f"{v:.2f}"

    rows = [
        {
            "id": t["task_id"],
            "level": t["level"],
            "naive": "pass" if t["naive"]["passed"] else "fail",
            "naive items": num(t["naive"]["items"]),
            "naive stage": num(t["naive"]["stage"]),
            "random pass": f"{t['random']['passed']}/{t['random']['runs']}",
            "random items": num(t["random"]["items"]),
            "random stage": num(t["random"]["stage"]),
        }
        for t in rep["tasks"]
    ]
    cols = ["id", "level", "naive", "naive items", "naive stage", "random pass", "random items", "random stage"]
    click.echo(table(rows, cols))
    levels = [
        {
            "level": lvl,
            "tasks": str(v["tasks"]),
            "naive passes": str(v["naive_passed"]),
            "naive items": num(v["naive_items"]),
            "naive stage": num(v["naive_stage"]),
            "random items": num(v["random_items"]),
            "random stage": num(v["random_stage"]),
        }
        for lvl, v in rep["levels"].items()
    ]
    click.echo("\nper level:")
    click.echo(
        table(levels, ["level", "tasks", "naive passes", "naive items", "naive stage", "random items", "random stage"])
    )
    click.echo("\nlevel order (easy >= medium >= hard, by the means above):")
    solvable = [lvl for lvl in ("easy", "medium", "hard") if lvl in rep["levels"]]
    fallback = (
        "holds for both baselines' stage scores" if len(solvable) > 1 else "fewer than two solvable levels to order"
    )
    for line in rep["level_order_breaks"] or [fallback]:
        click.echo(f"  {line}")
    flagged = rep["out_of_order"]
    click.echo(f"\ntasks whose level does not order the baselines' stage scores: {len(flagged)}")
    for f in flagged:
        click.echo(f"  {f['task']} ({f['level']}): {f['why']}")
    click.echo(f"\nrandom baseline: seeds 0-{random_seeds - 1} per task; naive plan: once (deterministic)")


@main.command()
@click.argument("paths", nargs=-1)
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.option(
    "-v", "--verbose", is_flag=True, help="Print each task's notes and controls too: plans, stages, the naive review."
)
@click.option(
    "--random-seeds",
    type=click.IntRange(min=1),
    default=20,
    show_default=True,
    help="Runs of the random baseline per stt task (its pass-rate control).",
)
def check(paths: tuple[str, ...], as_json: bool, verbose: bool, random_seeds: int) -> None:
    """Validate tasks: schema, naive plan breaks, solution works, determinism, milestones, and
    adversarial controls (idle agents, the naive plan without its lookups, the random baseline,
    scripted endings) that must fail."""
    from sttui.authoring.checking import GRAPH_NOTES, check_paths, controls_line

    reports = check_paths(list(paths) or [tasks_root()], random_seeds)
    bad = [r for r in reports if not r.ok]
    if as_json:
        echo_json({"ok": not bad, "tasks": [r.as_dict() for r in reports]})
    else:
        for r in reports:
            mark = "ok  " if r.ok else "FAIL"
            click.echo(f"{mark} {r.task_id or '-':45} {r.file}")
            for p in r.problems:
                click.echo(f"     - {p}")
            if r.graph in GRAPH_NOTES:
                click.echo(f"       {GRAPH_NOTES[r.graph]}")
            if r.controls:
                click.echo(f"       {controls_line(r.controls)}")
            if verbose:
                for c in r.controls:
                    click.echo(f"       control {c.control}: {c.outcome}{'' if c.ok else ' (must not)'}: {c.detail}")
                for n in r.notes:
                    click.echo(f"       {n}")
        click.echo(f"\n{len(reports) - len(bad)} of {len(reports)} task files pass")
    if not reports:
        click.echo("error: no task files found", err=True)
        sys.exit(1)
    sys.exit(1 if bad else 0)


def _ask_at_terminal(episode: Any, item_id: str, question: str) -> tuple[bool, str]:
    """The human judge at the terminal: the agent's messages, then the question."""
    if not getattr(episode, "_shown_to_judge", False):
        click.echo(f"\n== {episode.task.id}: {episode.task.judge.reason}", err=True)
        for item in episode.view:
            if item["type"] == "message":
                click.echo(f"  {item['from']}: {item['text']}", err=True)
        episode._shown_to_judge = True
    passed = click.confirm(question, err=True)
    note = click.prompt("note (optional)", default="", show_default=False, err=True)
    return passed, note


@main.command()
@click.argument("selection", nargs=-1)
@click.option("--agent", default="baseline:oracle", show_default=True, help="Controller for the agent seat.")
@click.option("--user", default=None, help="Controller for the user seat (stt)  [default: baseline:scripted]")
@click.option(
    "--seed", type=int, default=None, help="Base seed, 0 to 2^63-1 (default: each task's); trial i runs on base + i."
)
@click.option("--trials", type=click.IntRange(min=1), default=1, show_default=True, help="Episodes per task (Pass@k).")
@click.option("--concurrency", type=click.IntRange(min=1), default=4, show_default=True, help="Episodes at once.")
@click.option(
    "--judge",
    default="rule",
    show_default=True,
    help="Who judges impossible tasks: rule, human (you, at the terminal) or model:MODEL.",
)
@click.option("--record/--no-record", default=True, show_default=True, help="Keep every event in the store.")
@click.option(
    "--early-stop",
    is_flag=True,
    help="End stt episodes on a review stop signal (frontier stagnation, fatal minefield; "
    "fatal calls are intercepted before they run). Records the reason and the steps saved.",
)
@click.option(
    "--stagnation",
    type=click.IntRange(min=1),
    default=None,
    help="Closed actions without milestone progress that count as stagnation (default: the task's, else 8).",
)
@click.option(
    "--judge-stages",
    default="rule",
    show_default=True,
    metavar="SPEC",
    help="Who scores each closed milestone stage: rule, model:M, or adaptive:CHEAP,STANDARD,SPECIALIST "
    "(the cheap judge first, escalating on low confidence, disagreeing samples or a minefield).",
)
@click.option(
    "--low-quality",
    default=None,
    metavar="N:THRESHOLD",
    help="With --early-stop: N consecutive stages scored below THRESHOLD end the run "
    "(signal low_quality; default 3:0.5 under --early-stop).",
)
@click.option("--static", is_flag=True, help="STT-Arena's static setting: triggers never fire (impossible tasks skip).")
@click.option(
    "--no-user",
    is_flag=True,
    help="STT-Arena's no-user setting: the whole goal, withheld details included, in the first message; "
    "no user answers.",
)
@click.option(
    "--setting",
    "explore_setting",
    type=click.Choice(EXPLORE_SETTINGS),
    default=None,
    help="AdaExploreBench setting for every explore episode, overriding the file's.",
)
@click.option(
    "--run-id",
    default=None,
    metavar="R",
    help="Name a run that several workers (processes, machines) share on one database: each claims its "
    "planned episodes from the record until all are done. Start every worker with the same command.",
)
@click.option(
    "--shard",
    default=None,
    metavar="I/N",
    help="With --run-id: claim only the items whose index is I modulo N (rerun a shard to finish a dead one's items).",
)
@click.option("--json", "as_json", is_flag=True, help="Print episodes and summary as JSON.")
def run(
    selection: tuple[str, ...],
    agent: str,
    user: str | None,
    seed: int | None,
    trials: int,
    concurrency: int,
    judge: str,
    record: bool,
    early_stop: bool,
    stagnation: int | None,
    judge_stages: str,
    low_quality: str | None,
    static: bool,
    no_user: bool,
    explore_setting: str | None,
    run_id: str | None,
    shard: str | None,
    as_json: bool,
) -> None:
    """Run episodes headless: Pass@1, Pass@k and pass^k for stt tasks, the AdaExploreBench
    metrics for explore ones, with 95 % bootstrap intervals over tasks."""
    from sttui.config import ConfigError, load_config
    from sttui.core.settings import RunSettings
    from sttui.running.plan import PlanError, ReviewPlan, RunPlan

    try:
        models = load_config().models
    except ConfigError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)
    from sttui.core.review.judging import JudgeSpec, JudgeSpecError, parse_low_quality

    try:
        JudgeSpec.parse(judge_stages)
        quality = parse_low_quality(low_quality) if (early_stop or low_quality) else None
    except JudgeSpecError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)
    loaded = _load_selection(selection)
    try:
        plan = RunPlan.build(
            loaded,
            agent=agent,
            user=user,
            trials=trials,
            seed=seed,
            judge=judge,
            review=ReviewPlan(early_stop, stagnation, quality, judge_stages),
            settings=RunSettings(static, no_user, explore_setting),
            record=record,
            concurrency=concurrency,
            models=models,
        )
    except PlanError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)
    shared = _shared_run(plan, run_id, shard)
    for note in plan.skipped:
        click.echo(f"note: {note}", err=True)
    store = open_store(write=True) if plan.record else None
    _check_run_controllers(plan, store)
    if shared is not None:
        from sttui.cli.runs import run_shared

        run_shared(plan, store, *shared, as_json=as_json, printer=_print_run)
        return
    records, interrupted = _run_plan(plan, store, quiet=as_json)
    _finish_run(plan, store, records, interrupted, as_json)


def _finish_run(plan: Any, store: Any, records: list[dict[str, Any]], interrupted: bool, as_json: bool) -> None:
    """The run's summary, then its exit: 3 when a write was lost, 130 when interrupted, 1 when
    an episode errored."""
    from sttui.running.batch import report

    summary = report(records)
    if as_json:
        echo_json({"episodes": records, "summary": summary})
    else:
        _print_run(plan, records, summary)
    lost = [r for r in records if r.get("record_failed")]
    if lost:  # no success over a lost write
        click.echo(
            f"error: {len(lost)} episode(s) could not be recorded in full: {lost[0]['error']}. "
            + _where_lost_records_stop(store, lost)
            + _not_started(plan, records),
            err=True,
        )
        sys.exit(3)
    if interrupted:
        planned = sum(1 for _ in plan.all_trials())
        click.echo(
            f"interrupted: {len(records)} of {planned} planned episode(s) finished (summarised above); "
            "those in flight are marked stopped in the record",
            err=True,
        )
        sys.exit(130)
    _exit_if_errored(records)


def _check_run_controllers(plan: Any, store: Any) -> None:
    """Each controller the plan names, made once before anything runs (a bad name: one line, exit 2)."""
    from sttui.controllers.registry import ControllerSpecError, make_agent, make_judge, make_user
    from sttui.controllers.stage_judge import make_stage_judge
    from sttui.core.review.judging import JudgeSpec, JudgeSpecError

    models = plan.models
    try:  # check the controller names once, before anything runs
        make_agent(plan.agent, plan.tasks[0], None, models, store)
        if any(plan.user_for(t) for t in plan.tasks):
            make_user(plan.user, models)
        if plan.judge != "human":
            make_judge(plan.judge, models)
        make_stage_judge(JudgeSpec.parse(plan.review.judge_stages), models)
    except (ControllerSpecError, JudgeSpecError) as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)


def _exit_if_errored(records: list[dict[str, Any]]) -> None:
    """Exit 1 when an episode errored (a provider's refusal, a controller that failed): it is
    counted as a failure in every rate above, and a script must not read the run as clean."""
    errored = [r for r in records if r.get("status") == "errored"]
    if errored:
        first = errored[0]
        click.echo(
            f"error: {len(errored)} of {len(records)} episode(s) errored; the first, {first.get('task')} "
            f"trial {first.get('trial')}: {first.get('error') or 'no reason given'}",
            err=True,
        )
        sys.exit(1)


def _not_started(plan: Any, records: list[dict[str, Any]]) -> str:
    """The run stops at a failed write (sttui/running/batch.py): how many planned trials it never began."""
    planned = sum(1 for _ in plan.all_trials())
    left = planned - len(records)
    return f". The run stopped there: {left} of {planned} planned trial(s) were not started" if left else ""


def _where_lost_records_stop(store: Any, lost: list[dict[str, Any]]) -> str:
    """What the record holds of episodes whose writes failed: those it has stop at their last
    committed step, marked errored when the record took that one more write (else still
    running there); those whose first write failed are not in it at all."""
    marked = sum(1 for r in lost if r.get("record_marked"))
    absent = 0
    try:
        absent = sum(1 for r in lost if not r.get("record_marked") and store.next_seq(r["episode"]) == 1)
    except Exception:  # the record cannot even be read now: say what is always true
        return "Each stops at its last committed step, if any reached the record"
    running = len(lost) - marked - absent
    parts = []
    if marked:
        parts.append(
            f"{marked} are marked errored in the record at their last committed step "
            "(`sttui fork EP --at N` goes on from there)"
        )
    if running:
        parts.append(
            f"{running} stop at their last committed step, still running in the record, which refused the "
            "errored mark too (`sttui resume` goes on from there)"
        )
    if absent:
        parts.append(f"{absent} never reached the record (nothing of them was written)")
    return "; ".join(parts)


def _shared_run(plan: Any, run_id: str | None, shard: str | None) -> tuple[str, Any] | None:
    """(run id, shard) for a run shared by workers, checked; None for an ordinary run."""
    from sttui.running.plan import PlanError
    from sttui.running.sharding import check_run_id, lease_seconds, parse_shard
    from sttui.store.runs import Shard

    try:
        if run_id is None:
            if shard is not None:
                raise PlanError("--shard splits a shared run: give it a --run-id too")
            return None
        check_run_id(run_id)
        if not plan.record:
            raise PlanError("--run-id shares a run through the record; it cannot run with --no-record")
        if plan.judge == "human":
            raise PlanError("--judge human asks at one terminal; a shared run (--run-id) needs rule or model:M")
        lease_seconds()
        return run_id, parse_shard(shard) if shard is not None else Shard()
    except PlanError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)


def _print_run(plan: Any, records: list[dict[str, Any]], summary: dict[str, Any]) -> None:
    from sttui.textout import explore_report, pass_report, review_columns, review_report, table

    stt = [r for r in records if r["kind"] == "stt"]
    explore = [r for r in records if r["kind"] == "explore" and r.get("metrics")]
    for r in records:
        if r.get("status") == "errored":
            click.echo(f"errored: {r['task']} (trial {r['trial']}): {r['error']}", err=True)
    if stt:
        rows = [
            {
                **r,
                "passed": "ERRORED" if r.get("status") == "errored" else ("pass" if r.get("passed") else "FAIL"),
                "failed items": ", ".join(i["id"] for i in r.get("checklist", []) if not i["passed"]),
                **review_columns(r.get("review")),
            }
            for r in stt
        ]
        columns = ["task", "level", "conflict", "setting", "trial", "seed", "passed", "steps", "stages"]
        columns += ["milestones", "first error"]
        if plan.review.early_stop:
            columns.append("early stop")
        click.echo(table(rows, [*columns, "failed items"]))
        click.echo("")
        click.echo(pass_report(summary["stt"], plan.agent))
        if summary["stt"].get("review"):
            click.echo(review_report(summary["stt"]["review"]))
    if explore:
        if stt:
            click.echo("")
        click.echo(explore_report(explore, summary["explore"], plan.agent))
    if summary.get("tokens"):
        cost = summary.get("cost")
        click.echo(
            f"\ntokens {summary['tokens']:,}"
            + (f"  ·  cost ${cost:.4f}" if cost is not None else "  ·  cost unknown for this model")
        )


def _run_plan(plan: Any, store: Any, quiet: bool) -> tuple[list[dict[str, Any]], bool]:
    """Run the plan with a progress bar on a terminal; the human judge asks at the terminal.
    Returns the records and whether Ctrl-C cut the run short (the records are then those that
    finished before it)."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from sttui.controllers.registry import ControllerSpecError
    from sttui.running.batch import RunInterrupted, run_batch

    human = HumanJudge(_ask_at_terminal) if plan.judge == "human" else None
    console = Console(stderr=True)
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=True,
        disable=quiet or human is not None or not console.is_terminal,
    ) as bar:
        progress_task = bar.add_task(plan.agent, total=len(plan.tasks) * plan.trials)

        def advance(_record: dict[str, Any]) -> None:
            bar.advance(progress_task)

        try:
            return asyncio.run(run_batch(plan, store=store, progress=advance, judge=human)), False
        except RunInterrupted as stop:
            return stop.records, True
        except ControllerSpecError as exc:
            click.echo(f"error: {exc}", err=True)
            sys.exit(2)


@main.group()
def generate() -> None:
    """Generate episodes from catalogs."""


@generate.command("explore")
@click.option("--domain", required=True, help="Catalog name under tasks/explore/catalogs/ (or a catalog file).")
@click.option("--family", required=True, type=click.Choice(["additive", "conjunctive", "disjunctive", "lexicographic"]))
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), help="Write here instead of stdout.")
def generate_explore(domain: str, family: str, seed: int, output: Path | None) -> None:
    """A certified explore episode: relevant factors, distractors and a plausible drift that
    changes the optimal action for 25-75 % of post-change cases."""
    import yaml

    from sttui.core.explore.generate import GenerationError, command
    from sttui.core.explore.generate import generate as make
    from sttui.core.loader import load_catalog
    from sttui.core.problems import TaskFileError

    path = (
        Path(domain) if domain.endswith((".yaml", ".yml")) else tasks_root() / "explore" / "catalogs" / f"{domain}.yaml"
    )
    if not path.exists():
        known = sorted(p.stem for p in (tasks_root() / "explore" / "catalogs").glob("*.yaml"))
        click.echo(f"error: no catalog {path}; known domains: {', '.join(known) or 'none'}", err=True)
        sys.exit(1)
    try:
        catalog = load_catalog(path)
        data, share, attempts = make(catalog, family, seed, domain)  # type: ignore[arg-type]  # click checked family's choices
    except TaskFileError as exc:
        for problem in exc.problems:
            click.echo(f"error: {problem}", err=True)
        sys.exit(1)
    except GenerationError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(1)
    header = (
        f"# Generated by: {command(domain, family, seed)}\n"
        f"# Certified: the drift changes the optimal action for {share:.1%} of post-change cases "
        f"(draft {attempts}).\n"
    )
    text = header + yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100, default_flow_style=None)
    if output is None:
        click.echo(text, nl=False)
    else:
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(text, encoding="utf-8")
        click.echo(f"wrote {output} (drift share {share:.0%})", err=True)


_ID_LINE = re.compile(r"""^id:[ \t]*(["']?)([^"'#\s]+)\1[ \t]*(?:#.*)?$""", re.MULTILINE)


def find_task_file(task_id: str, root: Path) -> Path | None:
    """The task file under ``root`` whose ``id`` is ``task_id``, found by reading each file's
    top-level ``id:`` line, without loading (validating, importing) any task."""
    from sttui.core.loader import discover

    for path in discover([root]):
        try:
            head = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        found = _ID_LINE.search(head)
        if found and found.group(2) == task_id:
            return path
    return None


def _play_task(task: str) -> Any:
    """TASK (a file, or an id under the tasks folder) loaded, and only that one task."""
    path = Path(task) if Path(task).exists() else find_task_file(task, tasks_root())
    if path is None:  # not found cheaply: the task index tells the ids apart (and suggests one)
        path = _indexed_path(task)
    loaded = _load_or_exit(path)
    if not Path(task).exists() and loaded.id != task:  # an id line the quick look misread
        loaded = _load_or_exit(_indexed_path(task))
    return loaded


def _load_or_exit(path: Path) -> Any:
    from sttui.core.loader import load_task
    from sttui.core.problems import TaskFileError

    try:
        return load_task(path)
    except TaskFileError as exc:
        for problem in exc.problems:
            click.echo(f"error: {problem}", err=True)
        sys.exit(1)


def _indexed_path(task: str) -> Path:
    """The file of task id ``task`` under the tasks folder, found through the task index (no
    task it holds is loaded); exits naming the closest ids when there is none."""
    from sttui.core.taskindex import index

    entry = index().find(task, [tasks_root()])
    if entry is None:
        from sttui.core.problems import did_you_mean

        ids = {e.id for e in _select(())}
        click.echo(f"error: no task '{task}' under {tasks_root()}{did_you_mean(task, ids)}", err=True)
        sys.exit(1)
    return Path(entry.path)


@main.command()
@click.argument("task")
@click.option(
    "--agent",
    default=None,
    help="Agent seat: you (human[:NAME], the default), or a controller (baseline:oracle, model:M, …) "
    "and then you take the user seat.",
)
@click.option(
    "--user",
    default=None,
    help="User seat (stt): baseline:scripted (the default), model:M, or human[:NAME] to play it yourself.",
)
@click.option(
    "--as",
    "as_name",
    callback=checked_name,
    default=None,
    help="Your name in the record (default: the config's, or login).",
)
def play(task: str, agent: str | None, user: str | None, as_name: str | None) -> None:
    """Open the play screen on TASK (an id or a file) directly, loading only that task.

    \b
    Which seat is yours:
      play T                         you play the agent; the scripted user answers
      play T --user model:M          you play the agent; a model plays the user
      play T --agent baseline:naive  you play the user; the naive plan is the agent
      play T --user human            you play the user; baseline:oracle is the agent
    If --agent names a controller, its seat is taken and you take the user seat.
    Explore tasks have only the agent seat. With both seats taken, use `sttui run`.
    An unknown controller is an error (exit 2) before anything opens.
    """
    from sttui.config import ConfigError, human_name, load_config
    from sttui.controllers.registry import ControllerSpecError
    from sttui.running.session import PlanProblem, PlayPlan
    from sttui.tui.app import run_app

    ctx = click.get_current_context()
    db = (ctx.find_root().obj or {}).get("db")
    try:
        config = load_config()
    except ConfigError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)
    loaded = _play_task(task)
    try:
        plan = PlayPlan.build(loaded, human_name(as_name, config), agent, user)
        store = open_store() if "replay:" in f"{plan.agent} {plan.user}" else None
        plan.controllers(config.models, store)  # every controller exists
    except (PlanProblem, ControllerSpecError) as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)
    run_app(db_url=db, human=as_name, play=plan, config=config)
