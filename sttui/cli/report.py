"""`sttui report`: each controller side by side on the same tasks, from the record."""

from __future__ import annotations

from typing import Any

import click

from sttui.cli.app import echo_json, main, open_listing, open_store, say
from sttui.cli.records import JUDGE_STAGES_HELP, _fail


def _run_state(store: Any, run_id: str) -> None:
    """A shared run's progress on stderr; an unknown run id exits 1 with what to do."""
    if store.run_info(run_id) is None:
        _fail(f"no run '{run_id}' in this record; `sttui run TASK... --run-id {run_id}` starts one")
    counts = store.run_progress(run_id)
    total = sum(counts.values())
    if counts["done"] < total:
        click.echo(
            f"note: run {run_id} has {counts['done']} of {total} items done ({counts['claimed']} in progress); "
            "this report covers the done ones",
            err=True,
        )


def _task_meta(store: Any, records: list[Any]) -> dict[str, dict[str, Any]]:
    """Per stt task: the level and conflict of the first of its records (in their order) whose
    stored version has them."""
    versions: dict[str, dict[str, None]] = {}  # task -> its versions, in the records' order
    for r in records:
        if r.kind == "stt":
            versions.setdefault(r.task_id, {})[r.task_hash] = None
    return _meta_of(store, versions)


def _meta_of(store: Any, versions: dict[str, dict[str, None]]) -> dict[str, dict[str, Any]]:
    """``_task_meta`` from each stt task's versions in the records' order (``Tally.stt_versions``):
    the versions are read in one query, not one per task."""
    metas = store.task_metas([(t, h) for t, hashes in versions.items() for h in hashes])
    meta: dict[str, dict[str, Any]] = {}
    for task_id, hashes in versions.items():
        for h in hashes:
            found = metas.get((task_id, h))
            if found is not None and "level" in found:
                meta[task_id] = {"level": found["level"], "conflict": found["conflict"]}
                break
    return meta


@main.command()
@click.option("--run-id", default=None, metavar="R", help="Only run R (all its workers): one episode per planned item.")
@click.option("--judge-stages", default=None, metavar="SPEC", help=JUDGE_STAGES_HELP)
@click.option("--trust", is_flag=True, help="With --judge-stages: run imported task versions' code to rebuild them.")
@click.option(
    "--with-forks", is_flag=True, help="Count forked episodes too (left out by default: a fork is no clean baseline)."
)
@click.option("--json", "as_json", is_flag=True)
def report(run_id: str | None, judge_stages: str | None, trust: bool, with_forks: bool, as_json: bool) -> None:
    """Each controller side by side on the same tasks, under each setting: humans, models,
    baselines; Pass@1, Pass@k and pass^k with 95 % intervals; errored episodes as failures.

    Episodes whose agent seat changed hands (a person and a model took turns) form a "mixed"
    row, credited to no single controller, with each holder's share of the agent steps.

    Beside the pass rate, "user satisfied": of the stt episodes whose user gave a verdict, the
    share satisfied, and how many of them user and checklist disagree on (satisfied on a failed
    episode, or not satisfied or given up on a passed one); in --json ``user_verdicts``,
    ``user_satisfied``, ``user_checklist_disagree``, ``satisfied_but_failed`` and
    ``unsatisfied_but_passed``.

    Forks (``sttui fork``) are left out: part of each was played by whoever made the original,
    so they are never baselines. --with-forks counts them (then they show as mixed rows)."""
    # the finished episodes, forks and task versions read without the full store when it can; a
    # run's items and a re-judge need the store
    store = open_store() if run_id is not None or judge_stages is not None else open_listing()
    if run_id is not None:
        _run_state(store, run_id)
    result, forks = _report_result(store, run_id, judge_stages, trust, with_forks)
    if forks and not as_json:
        click.echo(f"note: {len(forks)} forked episode(s) left out (--with-forks counts them)", err=True)
    if as_json:
        echo_json(result)
        return
    if not result["controllers"]:
        click.echo("no finished episodes in the record yet")
        return
    _print_report(result)


def _report_result(
    store: Any, run_id: str | None, judge_stages: str | None, trust: bool, with_forks: bool
) -> tuple[dict[str, Any], dict[str, Any]]:
    """``report``'s figures, and the forks left out. The finished episodes are streamed once as
    plain values (``Store.report_rows``) into a ``Tally``, never held: a report over 100,000
    episodes keeps its groups' counts and a few numbers per scored episode. A progress line
    shows on the terminal once this takes over a second (a large record)."""
    from sttui.analysis.comparison import FINISHED, Tally
    from sttui.analysis.version_shifts import shifts_of
    from sttui.cli.progress import Progress
    from sttui.cli.rejudging import judge_spec, report_judges
    from sttui.core.control import control_summary

    spec = judge_spec(judge_stages) if judge_stages else None
    rejudge = spec is not None and spec.mode != "rule"  # the episodes rebuilt, not read as recorded
    progress = Progress("report", None)
    if progress.live and run_id is None:
        progress.total = store.count_episodes(status=FINISHED)
    try:
        # forks and seat changes are few, each found by its own index: the forks to leave out, and
        # the episodes whose control summary is tallied from their events (older records lack one)
        candidates = set() if with_forks else store.episodes_with_event("forked")
        fork_origins: dict[str, Any] = {}
        if candidates:
            from sttui.lineage.forks import forks_among

            fork_origins = forks_among(store, sorted(candidates))
        handed = store.episodes_with_event("seat_changed")
        controls: dict[str, dict[str, Any]] = {}
        tally = Tally(controls)
        forks: dict[str, Any] = {}
        judged: list[dict[str, Any]] = []  # the stage judges recorded, in the episodes' order
        stt_ids: list[str] = []  # (only to re-judge)
        for row in progress.track(store.report_rows(FINISHED, run_id)):
            (episode_id, task, version, kind, setting, status, agent, steps, started, clean, passed, control) = row[:12]
            if episode_id in fork_origins:
                forks[episode_id] = fork_origins[episode_id]
                continue
            if control is None and episode_id in handed:
                control = controls[episode_id] = control_summary(store.events(episode_id))
            ca, verdict, incomplete, human, score, completion, saved, judges = row[12:]
            tally.add_values(
                episode_id, task, version, kind, setting, status, agent, steps, started, clean, passed, control,
                ca, verdict, incomplete, human, score, completion, saved,
            )  # fmt: skip
            if kind == "stt":
                if rejudge:
                    stt_ids.append(episode_id)
                elif judges is not None and judges != "null" and (recorded := _judges_of(judges)):
                    judged.append(recorded)
        progress.step("comparing the controllers")
        result = tally.result(_meta_of(store, tally.stt_versions))
        shifts = shifts_of(tally)
        if shifts:  # as "judges": present when there is something to say
            result["task_versions"] = shifts
        progress.step("stage judges")
        found = report_judges(store, stt_ids, spec, trust, judged)
        if found is not None:
            result["judges"] = found
    finally:
        progress.done()
    return result, forks


def _judges_of(text: str) -> dict[str, Any] | None:
    """An episode's recorded stage judges (``scores.review.judges``): an object that is not
    empty, else None (as data, a record may hold anything there)."""
    import json

    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) and value else None


def _print_report(result: dict[str, Any]) -> None:
    """``report``'s figures as text."""
    from sttui.textout import ci, score_ci, table, terminal_width

    def pct(v: Any) -> str:
        return "-" if v is None else f"{v:.1%}"

    rows = [
        {
            "controller": r["controller"],
            "setting": r["setting"],
            "episodes": r["episodes"],
            "errored": r["errored"] or "-",
            f"stt Pass@1 ({len(result['common_stt_tasks'])} common)": pct(r.get("stt_common_pass_at_1"))
            + ci(r.get("pass_at_1_ci")),
            f"explore CA ({len(result['common_explore_tasks'])} common)": pct(r.get("explore_common_ca"))
            + ci(r.get("explore_common_ca_ci")),
            "stage score": score_ci(r["stage_score"], r.get("stage_score_ci")) if "stage_score" in r else "-",
            "milestones": pct(r.get("milestone_completion")),
            "early stops": f"{r['early_stops']} (saved {r['steps_saved']})" if r.get("early_stops") else "-",
            "user satisfied": (
                f"{r['user_satisfied']:.1%} of {r['user_verdicts']}, {r['user_checklist_disagree']} disagree"
                if "user_satisfied" in r
                else "-"
            ),
            "mean steps": f"{r['mean_steps']:.1f}",
            "human time/episode": (
                f"{r['human_seconds_per_episode'] / 60:.1f} min" if "human_seconds_per_episode" in r else "-"
            ),
        }
        for r in result["controllers"]
    ]
    click.echo(table(rows, list(rows[0]), terminal_width()))
    _print_report_notes(result, pct)


def _print_report_notes(result: dict[str, Any], pct: Any) -> None:
    """Below the table: task versions, mixed rows, pass@k, settings, stage judges, separation."""
    from sttui.analysis.comparison import MIXED
    from sttui.analysis.version_shifts import shift_line
    from sttui.textout import pass_k_lines, table, terminal_width

    judges = result.get("judges")
    if result.get("task_versions"):
        changed = sum(1 for v in result["task_versions"] if v["pass_rate_changed"])
        say(
            f"\nEpisodes of one task recorded under more than one task version ({changed} with a pass rate that "
            "changed with the version; the rows above pool the versions):"
        )
        for shift in result["task_versions"]:
            say(f"  {'CHANGED ' if shift['pass_rate_changed'] else ''}{shift_line(shift)}")
    for r in result["controllers"]:
        if r["controller"] == MIXED:
            shares = ", ".join(
                f"{h['controller']} {h['share']:.0%} ({h['agent_steps']} in {h['episodes']} ep.)" for h in r["holders"]
            )
            passed = f"; {r['stt_passed']} of {r['stt_episodes']} stt passed" if r["stt_episodes"] else ""
            say(
                f"\nmixed [{r['setting']}]: {r['episodes']} episode(s) taken by more than one controller, "
                f"credited to none\n  (a model steered by a person's rejections counts too){passed}"
                f"\n  agent steps: {shares}"
            )
    for r in result["controllers"]:
        if r.get("pass_at_k"):
            say(f"\n{r['controller']} [{r['setting']}] over {r['trials']} trials per common task:")
            say("\n".join(pass_k_lines(r)))
    if result["settings"]:
        say("\nThe same controller under two settings, on the tasks both ran:")
        for c in result["settings"]:
            diff = "-" if c["difference"] is None else f"{c['difference']:+.1%}"
            say(
                f"  {c['controller']:<24} {c['measure']:<20} {c['base']} {pct(c['base_value'])}  ·  "
                f"{c['setting']} {pct(c['value'])}  ({diff}, {c['tasks']} tasks)"
            )
    if judges is not None:
        say(f"\nStage judges over {judges['episodes']} episode(s) ({judges['judged_stages']} stages judged):")
        rows = [{**r, "cost": "unknown" if r["cost"] is None else f"{r['cost']:.6f}"} for r in judges["tiers"]]
        if rows:
            click.echo(table(rows, list(rows[0]), terminal_width()))
        for note in judges["notes"]:
            say(f"  note: {note}")
    sep = result["separation"]
    if sep["stage_scores"]["spread"] is not None:
        say("\nHow far each measure separates the controllers on the common stt tasks:")
        for name, label in (("pass_fail", "pass/fail"), ("stage_scores", "stage scores")):
            s = sep[name]
            say(
                f"  {label:<13} spread of means {s['spread']:.3f}  ·  task-and-pair comparisons told apart "
                f"{s['distinguished']:.1%}  ({s['controllers']} controllers, {s['tasks']} tasks)"
            )
