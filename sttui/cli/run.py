"""`sttui run`: episodes headless, from a run plan, with their metrics and the run's exit code."""

from __future__ import annotations

import asyncio
import sys
from typing import Any

import click

from sttui.cli.app import echo_json, main, open_store, say
from sttui.cli.tasks import _load_selection
from sttui.core.checklist import HumanJudge
from sttui.core.settings import EXPLORE_SETTINGS


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
    metrics for explore ones, with 95 % bootstrap intervals over tasks.

    SELECTION: task ids, task files and folders (e.g. tasks/stt/clinic); with none, every bundled task."""
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
    from sttui.textout import (
        explore_summary,
        explore_table,
        pass_report,
        review_columns,
        review_report,
        table,
        terminal_width,
    )

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
        click.echo(table(rows, [*columns, "failed items"], terminal_width()))
        click.echo("")
        say(pass_report(summary["stt"], plan.agent))
        if summary["stt"].get("review"):
            say(review_report(summary["stt"]["review"]))
    if explore:
        if stt:
            click.echo("")
        click.echo(explore_table(explore, terminal_width()))
        click.echo("")
        say(explore_summary(summary["explore"], plan.agent))
    if summary.get("tokens"):
        cost = summary.get("cost")
        say(
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
    from sttui.safetext import visible
    from sttui.store.secrets import unscrubbed

    human = HumanJudge(_ask_at_terminal) if plan.judge == "human" else None
    # the bar's own escape sequences go to the terminal as they are; its words are the agent's
    # name, made visible here
    console = Console(file=unscrubbed(sys.stderr), stderr=True)
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=True,
        disable=quiet or human is not None or not console.is_terminal,
    ) as bar:
        progress_task = bar.add_task(visible(plan.agent), total=len(plan.tasks) * plan.trials)

        def advance(_record: dict[str, Any]) -> None:
            bar.advance(progress_task)

        try:
            return asyncio.run(run_batch(plan, store=store, progress=advance, judge=human)), False
        except RunInterrupted as stop:
            return stop.records, True
        except ControllerSpecError as exc:
            click.echo(f"error: {exc}", err=True)
            sys.exit(2)
