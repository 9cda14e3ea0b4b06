"""Commands about the record: list sessions, resume, replay and re-score, export, import."""

from __future__ import annotations

import asyncio
import re
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

import click

from sttui.cli.app import echo_json, echo_json_list, main, open_store
from sttui.cli.listing import (
    _control_fields,
    _outcome,
    _when,
    _with_forks,
    episode_controls,
    family_tree,
    with_controls,
)


def _fail(message: str, code: int = 1) -> None:
    click.echo(f"error: {message}", err=True)
    sys.exit(code)


def _episode(store: Any, ref: str) -> Any:
    from sttui.store.db import StoreError

    try:
        return store.episode(ref)
    except StoreError as exc:
        _fail(str(exc))


TRUST_HELP = (
    "Run the stored task version's environment code even if it came from an import: you vouch "
    "for that code, and it runs with your permissions."
)
TASKS_HELP = (
    "A task folder whose files vouch for stored versions with the same hash (besides the bundled tasks); repeatable."
)
trust_option = click.option("--trust", is_flag=True, help=TRUST_HELP)
tasks_option = click.option(
    "--tasks",
    "task_dirs",
    multiple=True,
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    help=TASKS_HELP,
)


def _task_dirs(extra: tuple[Path, ...]) -> list[Path]:
    from sttui.paths import tasks_root

    return [tasks_root(), *extra]


@main.command()
@click.option("--task", help="Only episodes of tasks whose id contains this.")
@click.option("--controller", help="Only episodes where a seat was held by a controller containing this.")
@click.option("--status", type=click.Choice(["running", "completed", "stopped", "errored", "abandoned"]))
@click.option("--since", type=click.DateTime(), help="Started at or after (YYYY-MM-DD[ HH:MM:SS]).")
@click.option("--until", type=click.DateTime(), help="Started before.")
@click.option("--limit", type=int, default=None)
@click.option("--json", "as_json", is_flag=True, help="Print records as JSON.")
@click.option("--tree", is_flag=True, help="Forks and refinements under the episode they came from.")
def sessions(
    task: str | None,
    controller: str | None,
    status: str | None,
    since: datetime | None,
    until: datetime | None,
    limit: int | None,
    as_json: bool,
    tree: bool,
) -> None:
    """List recorded episodes, newest first.

    The agent and user columns name who held each seat: an episode whose seat changed hands
    shows ``mixed (human:dana 3, model:x 5)``, the steps each holder took. With --json each
    record also has ``control`` (those counts), ``agent_holder`` (a controller, or ``mixed``),
    ``agent_label`` and ``user_label``; ``agent``/``user`` stay the initial holders.

    The user verdict column is what the user seat concluded, beside the checklist's outcome:
    satisfied, not satisfied, gave up, or - (no verdict: a person whose episode the agent
    ended, an explore episode, a record from before verdicts); with --json each record has
    ``user_verdict`` ({verdict, reason, by}, or null).

    A fork's id is followed by ``(fork of EP@SEQ)``, the episode and row it was taken from;
    with --json every record has ``forked_from`` ({episode, seq}, or null). --tree shows the
    family tree: each fork and refinement indented under the episode it came from."""
    store = open_store()
    # streamed, never held whole: the JSON as the records come, the table from light rows
    filters = {"task": task, "controller": controller, "status": status, "since": since, "until": until, "limit": limit}
    if tree:
        for line in family_tree(store, list(store.iter_episodes(**filters))):
            click.echo(line)
        return
    if as_json:
        echo_json_list(
            {
                **r.as_dict(),
                **_control_fields(r, controls),
                "forked_from": forks.get(r.id),
                "user_verdict": (r.scores or {}).get("user_verdict"),
            }
            for r, controls, forks in _with_forks(store, with_controls(store, store.iter_episodes(**filters)))
        )
        return
    from sttui.core import verdicts
    from sttui.textout import echo_lines, table_lines

    seen: dict[tuple[Any, ...], tuple[Any, dict[str, Any]]] = {}

    def labels(r: Any, controls: dict[str, dict[str, Any]]) -> dict[str, Any]:
        """``_control_fields``, once per (seats, control summary): light rows share equal
        summaries, so a listing of 100,000 episodes works out a few hundred labels."""
        control = controls.get(r.id) or (r.scores or {}).get("control")
        key = (r.agent, r.user, id(control))
        hit = seen.get(key)
        if hit is not None and hit[0] is control:
            return hit[1]
        fields = _control_fields(r, controls)
        if len(seen) < 50_000:
            seen[key] = (control, fields)  # (the summary kept alive, so its id is never reused)
        return fields

    rows = (
        {
            "id": r.id + (f" (fork of {forks[r.id]['episode']}@{forks[r.id]['seq']})" if r.id in forks else ""),
            "task": r.task_id,
            "status": r.status,
            "outcome": _outcome(r),
            "agent": fields["agent_label"],
            "user": fields["user_label"],
            "user verdict": verdicts.label((r.scores or {}).get("user_verdict")),
            "steps": r.steps,
            "started": _when(r.started_at),
        }
        for r, controls, forks in _with_forks(store, with_controls(store, store.summaries(**filters, review=False)))
        for fields in (labels(r, controls),)
    )
    lines = table_lines(rows, ["id", "task", "status", "outcome", "agent", "user", "user verdict", "steps", "started"])
    count = echo_lines(lines, click.echo) - 2  # (the header and its rule)
    click.echo(f"\n{count} episode(s)")


@main.command()
@click.argument("episode")
@click.option("--agent", default=None, help="Controller for the agent seat from here (default: as recorded).")
@click.option("--user", default=None, help="Controller for the user seat from here (default: as recorded).")
@click.option("--headless", is_flag=True, help="Play on without the TUI (baselines and models).")
@trust_option
@tasks_option
@click.option("--json", "as_json", is_flag=True)
def resume(
    episode: str,
    agent: str | None,
    user: str | None,
    headless: bool,
    trust: bool,
    task_dirs: tuple[Path, ...],
    as_json: bool,
) -> None:
    """Rebuild an unfinished episode by replaying its actions, check its state hash, and go on."""
    from sttui.config import ConfigError, load_config
    from sttui.controllers.registry import ControllerSpecError, make_agent, make_user
    from sttui.exports.versions import VersionProblem, open_version
    from sttui.running.recording import recorded_settings
    from sttui.running.recording import resume as resume_episode

    store = open_store(write=True)
    record = _episode(store, episode)
    if record.status != "running":
        _fail(
            f"episode {record.id} is {record.status}; only running episodes resume (replay it with "
            f"`sttui replay {record.id}`)"
        )
    if not headless and (trust or task_dirs):
        _fail("--trust and --tasks work with --headless; the workbench resumes only trusted task versions", 2)
    try:
        opened = open_version(store, record, trust=trust, task_dirs=_task_dirs(task_dirs) if headless else None)
    except VersionProblem as exc:
        _fail(f"cannot resume {record.id}: {exc}")
    if not headless:
        from sttui.tui.app import run_app

        store.close()
        run_app(db_url=store.url, resume_episode=record.id)
        return
    loaded = opened.loaded
    try:
        models = load_config().models
    except ConfigError as exc:
        _fail(str(exc), 2)
    try:
        agent_c = make_agent(
            agent or record.agent, loaded, record.seed, models, store, recorded_settings(store.events(record.id))
        )
        wants_user = loaded.kind == "stt" and record.user
        user_c = make_user(user or record.user, models, seed=record.seed) if wants_user else None
    except ControllerSpecError as exc:
        _fail(str(exc), 2)
    rebuilt, result = asyncio.run(resume_episode(store, record, agent_c, user_c, loaded=loaded))
    if result is None:
        _fail(
            f"cannot resume {record.id}: {rebuilt.mismatch}. The task's environment no longer reproduces "
            "the record; replay it with `sttui replay` to see the difference"
        )
    assert result is not None
    out = {"episode": record.id, "state_hash": rebuilt.replayed_hash, "state_hash_matches": True, **result.as_dict()}
    if as_json:
        echo_json(out)
    else:
        click.echo(
            f"rebuilt {record.id} from {len(store.events(record.id))} recorded events; state hash "
            f"{rebuilt.replayed_hash[:12]} matches the record"
        )
        click.echo(f"finished: {_outcome(store.episode(record.id))} in {result.steps} steps ({result.end_reason})")


def _outcome_of(result: Any) -> dict[str, Any]:
    if result.outcome is not None:
        return {"passed": result.passed, "items": {i.id: i.passed for i in result.outcome.items}}
    return {"metrics": result.metrics}


# Scores read as percentages in the text output; other fractions to two decimals.
PERCENTS = (
    "calibrated_accuracy",
    "ca_played",
    "exact_accuracy",
    "factor_recognition",
    "fr_fields",
    "change_recognition",
)


def _readable(value: Any, key: str = "") -> str:
    """A value for a person: floats rounded (scores as percentages), lists and flags in words."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.0%}" if key in PERCENTS else f"{value:.2f}"
    if isinstance(value, list):
        return " ".join(_readable(v) for v in value) or "none"
    if isinstance(value, dict):
        return ", ".join(f"{k} {_readable(v, k)}" for k, v in value.items())
    return str(value)


def _rescored_text(outcome: dict[str, Any]) -> str:
    """The re-scored outcome in words: pass or fail with each checklist item, or the metrics."""
    if "passed" in outcome:
        items = "  ".join(f"{k} {'✓' if ok else '✗'}" for k, ok in outcome["items"].items())
        return f"{'pass' if outcome['passed'] else 'fail'}   checklist: {items or 'none'}"
    import textwrap

    metrics = outcome.get("metrics") or {}
    pairs = ", ".join(f"{k.replace('_', ' ')} {_readable(v, k)}" for k, v in metrics.items())
    return "\n" + textwrap.fill(pairs, width=100, initial_indent="  ", subsequent_indent="  ")


def _other_version_line(recorded: str, used: str) -> str:
    """What a re-score under another task version than the episode's says first."""
    return f"re-scored under task version {used[:12]}, not the recorded {recorded[:12]}"


def _differences(a: dict[str, Any], b: dict[str, Any], prefix: str = "") -> list[str]:
    out = []
    for key in sorted(set(a) | set(b)):
        va, vb = a.get(key), b.get(key)
        if isinstance(va, dict) and isinstance(vb, dict):
            out += _differences(va, vb, f"{prefix}{key}.")
        elif va != vb:
            out.append(f"{prefix}{key}: {_readable(va, key)} -> {_readable(vb, key)}")
    return out


JUDGE_STAGES_HELP = (
    "Re-judge the recorded episodes' closed stages: rule, model:M or adaptive:CHEAP,STANDARD,SPECIALIST. "
    "Judgements recorded with the episode are reused (cache), so re-judging the same way asks no model."
)


@main.command()
@click.argument("episode")
@trust_option
@tasks_option
@click.option("--judge-stages", default="rule", metavar="SPEC", help=JUDGE_STAGES_HELP)
@click.option("--json", "as_json", is_flag=True)
def replay(episode: str, trust: bool, task_dirs: tuple[Path, ...], judge_stages: str, as_json: bool) -> None:
    """Replay an episode's actions on a fresh environment of the recorded task version and re-score it.

    If the task file has changed since, says so and shows how the outcome differs on the current version.
    A version whose code is not trusted (imported, see --trust) or that no longer loads is not replayed:
    the episode and its events are listed, with the reason, and the command exits 1.
    """
    from sttui.cli.rejudging import judge_spec, rejudge
    from sttui.exports.versions import VersionProblem, open_version
    from sttui.running.recording import rebuild
    from sttui.running.runner import result_of

    spec = judge_spec(judge_stages)
    store = open_store()
    record = _episode(store, episode)
    events = store.events(record.id)
    dirs = _task_dirs(task_dirs)
    try:
        opened = open_version(store, record, trust=trust, task_dirs=dirs)
        rebuilt = rebuild(opened.loaded, record, events)
    except VersionProblem as exc:
        _not_replayed(record, events, str(exc), as_json)
    except Exception as exc:  # the stored environment loads but breaks while replaying
        _not_replayed(
            record,
            events,
            f"task {record.task_id} version {record.task_hash[:12]} no longer replays: {type(exc).__name__}: {exc}",
            as_json,
        )
    report: dict[str, Any] = {
        "episode": record.id,
        "task": record.task_id,
        "task_hash": record.task_hash,
        "status": record.status,
        "replayed": True,
        "trusted_by": opened.trusted_by,
        "reproduces_record": rebuilt.matches,
        "mismatch": rebuilt.mismatch,
    }
    if rebuilt.episode.ended is not None:
        report["rescored"] = _outcome_of(result_of(rebuilt.episode))
    report["review"] = _review_of(rebuilt.episode)
    if spec.mode != "rule" and report["review"] is not None:
        report["judges"] = rejudge(rebuilt.episode, record, spec, store)
    report.update(_on_current_version(record, events, dirs, report))
    if as_json:
        echo_json(report)
        return
    _print_replay(record, opened.trusted_by, rebuilt, report)


def _on_current_version(record: Any, events: list[Any], dirs: list[Path], report: dict[str, Any]) -> dict[str, Any]:
    """How the task's current file differs, and how the episode scores on it when it changed.

    The file is found through the task index: only this task is loaded, and only when it
    changed (its hash is in the index's entry)."""
    from sttui.core.loader import load_task
    from sttui.core.taskindex import index
    from sttui.running.recording import rebuild
    from sttui.running.runner import result_of

    entry = index().find(record.task_id, dirs)
    if entry is None:
        return {"current_version": "the task is no longer among the task files"}
    if entry.content_hash == record.task_hash:
        return {"current_version": "unchanged"}
    now = load_task(entry.path)
    again = rebuild(now, record, events)
    out: dict[str, Any] = {"current_version": "changed", "current_hash": now.content_hash}
    if again.episode.ended is not None and "rescored" in report:
        on_now = _outcome_of(result_of(again.episode))
        out["rescored_on_current"] = on_now
        out["rescored_note"] = _other_version_line(record.task_hash, now.content_hash)
        out["outcome_differences"] = _differences(report["rescored"], on_now)
    out["review_on_current"] = _review_of(again.episode)
    return out


def _print_replay(record: Any, trusted_by: str, rebuilt: Any, report: dict[str, Any]) -> None:
    """The replay's report as text."""
    from sttui.cli.rejudging import judge_lines

    click.echo(f"episode {record.id}: task {record.task_id} version {record.task_hash[:12]} ({record.status})")
    click.echo(f"task code run as: {trusted_by}")
    click.echo("replay reproduces the record" if rebuilt.matches else f"REPLAY DIFFERS: {rebuilt.mismatch}")
    if "rescored" in report:
        text = _rescored_text(report["rescored"])
        click.echo(f"re-scored on the recorded version:{'' if text.startswith(chr(10)) else ' '}{text}")
    for key, label in (
        ("review", "milestone review"),
        ("review_on_current", "milestone review on the current version"),
    ):
        if report.get(key):
            click.echo(f"{label}:")
            click.echo(_review_lines(report[key]))
    if report.get("judges"):
        click.echo(f"stage judges ({report['judges']['spec']}):")
        click.echo(judge_lines(report["judges"]))
    if report["current_version"] == "changed":
        click.echo(f"THE TASK FILE HAS CHANGED since this episode (now {report['current_hash'][:12]}).")
        if "rescored_on_current" in report:
            text = _rescored_text(report["rescored_on_current"])
            click.echo(f"{report['rescored_note']}:{'' if text.startswith(chr(10)) else ' '}{text}")
        diffs = report.get("outcome_differences")
        if diffs:
            click.echo("On the current version the outcome differs:")
            for d in diffs:
                click.echo(f"  {d}")
        elif diffs is not None:
            click.echo("On the current version the outcome is the same.")
    elif report["current_version"] != "unchanged":
        click.echo(report["current_version"])


def _not_replayed(record: Any, events: list[Any], reason: str, as_json: bool) -> None:
    """List the episode and its events without running anything, say why, and exit 1."""
    if as_json:
        echo_json(
            {
                "episode": record.id,
                "task": record.task_id,
                "task_hash": record.task_hash,
                "status": record.status,
                "replayed": False,
                "not_replayed": reason,
                "record": record.as_dict(),
                "events": [
                    {"seq": e.seq, "type": e.type, "actor": e.actor, "sim_time": e.sim_time, "payload": e.payload}
                    for e in events
                ],
            }
        )
    else:
        click.echo(
            f"episode {record.id}: task {record.task_id} version {record.task_hash[:12]} ({record.status}); "
            f"agent {record.agent}, user {record.user or '-'}, outcome {_outcome(record)}, {record.steps} steps"
        )
        for e in events:
            click.echo(_event_line(e))
        click.echo(f"{len(events)} event(s)")
    _fail(f"not replayed: {reason}")


def _event_line(e: Any) -> str:
    """One event in words: a call as it was typed, a result as ok or its error, a message as
    who said what; other events as their fields, shortened."""
    import json

    p = e.payload
    if e.type == "tool_call":
        what = f"{p.get('tool')}({', '.join(f'{k}={json.dumps(v, ensure_ascii=False)}' for k, v in p.get('args', {}).items())})"
    elif e.type == "tool_result" and isinstance(p.get("result"), dict):
        result = p["result"]
        what = f"{p.get('tool')}: " + ("ok" if result.get("success") else f"failed: {result.get('error', '')}")
    elif e.type == "message":
        what = f"{p.get('from')}: {p.get('text')}"
    else:
        what = ", ".join(
            f"{k} {_readable(v, k) if not isinstance(v, dict | list) else json.dumps(v, ensure_ascii=False, default=str)}"
            for k, v in p.items()
            if k not in ("state_hash", "state_diff")
        )
    if len(what) > 100:
        what = what[:99] + "…"
    return f"  {e.seq:>4}  {e.sim_time[-8:]:<8}  {e.type:<18} {e.actor:<20} {what}"


def _review_of(episode: Any) -> dict[str, Any] | None:
    review = getattr(episode, "review", None)
    return review.summary(episode.steps, episode.task.max_steps) if review is not None else None


def _review_lines(review: dict[str, Any]) -> str:
    lines = [f"  milestones {review['settled']}/{review['milestones']}  ·  stage score {review['score']:.2f}"]
    for stage in review["stages"]:
        first, last = stage["steps"]
        flags = ", ".join(f"{f} @{s}" for s, f in stage["flags"])
        name = stage["milestone"] or "open stage"
        lines.append(f"  {name:<24} steps {first}-{last}  {stage['score']:.2f}" + (f"  ({flags})" if flags else ""))
    if review["first_error"]:
        lines.append(f"  first error: step {review['first_error']['step']}: {review['first_error']['why']}")
    for key in ("stop", "would_stop"):
        if review.get(key):
            stop = review[key]
            verb = "stopped" if key == "stop" else "would have stopped"
            lines.append(f"  {verb}: {stop['signal']} at step {stop['step']}, saving {stop['steps_saved']} steps")
    return "\n".join(lines)


@main.command("export")
@click.argument("episodes", nargs=-1)
@click.option("--all", "everything", is_flag=True, help="Export every episode.")
@click.option(
    "--demonstrations",
    is_flag=True,
    help="Only verified demonstrations (`sttui refine --save --demonstration`), with their provenance.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["jsonl", "openai", "sharegpt", "hf", "inspect"]),
    default="jsonl",
    show_default=True,
)
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), required=True)
@click.option(
    "--push-to-hub",
    "repo_id",
    metavar="REPO",
    help="With --format hf: also upload the file and a dataset card to this Hugging Face dataset "
    "repository (created private if new; your huggingface_hub login).",
)
@trust_option
@tasks_option
def export_cmd(
    episodes: tuple[str, ...],
    everything: bool,
    demonstrations: bool,
    fmt: str,
    output: Path,
    repo_id: str | None,
    trust: bool,
    task_dirs: tuple[Path, ...],
) -> None:
    """Export episodes: the full event log (jsonl), training data (openai, sharegpt), a Parquet
    dataset (hf, needs sttui[hf]) or an Inspect AI .eval log (inspect, needs sttui[inspect]).

    Training data goes to FILE as a JSON array when its name ends in .json, else as JSON lines.
    --demonstrations keeps only verified refined episodes, with their provenance (refined_from,
    edits, editor) in each example's metadata.

    Never runs a task's code: the tools come from the record. Only task versions stored before
    tools were kept are opened, under the same trust rule as replay (--trust, --tasks).
    """
    from sttui.exports.jsonl import jsonl_lines
    from sttui.exports.rows import is_demonstration
    from sttui.exports.training import training_lines

    store = open_store()
    if not episodes and not everything and not demonstrations:
        _fail("name episodes to export, or pass --all (or --demonstrations)", 2)
    records = [_episode(store, e) for e in episodes] if episodes else store.list_episodes()
    if demonstrations:
        records = [r for r in records if is_demonstration(r.scores)]
        if not records:
            _fail("no verified demonstrations to export (`sttui refine EP ... --save --demonstration` makes one)")
    records = sorted(records, key=lambda r: (r.started_at, r.id))
    if repo_id is not None and fmt != "hf":
        _fail("--push-to-hub uploads the Parquet dataset: use it with --format hf", 2)
    if repo_id is not None and not _REPO_ID.fullmatch(repo_id):
        _fail(f"--push-to-hub {repo_id!r}: expected a repository id such as user/name", 2)
    if fmt in ("hf", "inspect"):
        _export_file(store, records, fmt, output, trust, _task_dirs(task_dirs), repo_id)
        return
    if fmt == "jsonl":
        lines, notes = list(jsonl_lines(store, records)), []
        for rec in records:
            if store.task_version(rec.task_id, rec.task_hash) is None:
                notes.append(f"{rec.id}: the record has no copy of its task version; its events are exported")
        written = len(records)
    else:
        lines, notes = training_lines(store, records, fmt, trust=trust, task_dirs=_task_dirs(task_dirs))
        written = len(lines)
    output.parent.mkdir(parents=True, exist_ok=True)
    if fmt != "jsonl" and output.suffix.lower() == ".json":
        # a .json file holds one JSON array (what LLaMA-Factory and most loaders read as json);
        # any other name gets one example per line (jsonl)
        output.write_text("[\n" + ",\n".join(lines) + "\n]\n", encoding="utf-8")
        layout = "a JSON array"
    else:
        output.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        layout = "one JSON object per line"
        if output.suffix.lower() == ".json":
            notes.append("the full record is always JSON lines (what `sttui import` reads), whatever the name")
    for note in notes:
        click.echo(f"note: {note}", err=True)
    click.echo(f"wrote {written} episode(s) to {output} ({fmt}, {layout})", err=True)


_REPO_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,95}/[A-Za-z0-9][A-Za-z0-9._-]{0,95}")


def _export_file(
    store: Any, records: list[Any], fmt: str, output: Path, trust: bool, task_dirs: Any, repo_id: str | None = None
) -> None:
    """A Parquet dataset (hf) or an Inspect log (inspect): one row or sample per episode; the
    Parquet file also to a Hugging Face dataset repository when ``repo_id`` names one."""
    from sttui.errors import MissingExtra
    from sttui.exports.transcripts import transcripts

    found, notes = transcripts(store, records, trust, task_dirs)
    output.parent.mkdir(parents=True, exist_ok=True)
    try:
        if fmt == "hf":
            from sttui.exports.hf import write_parquet

            written, layout = write_parquet(found, output), "Parquet, one row per episode"
        else:
            from sttui.exports.inspect_log import write_inspect_log

            if output.suffix != ".eval":
                notes.append("Inspect reads logs named *.eval; name the file so for `inspect view`")
            written, layout = write_inspect_log(found, output), "Inspect AI log, one sample per episode"
    except MissingExtra as exc:
        _fail(str(exc), 2)
    for note in notes:
        click.echo(f"note: {note}", err=True)
    click.echo(f"wrote {written} episode(s) to {output} ({fmt}, {layout})", err=True)
    if repo_id is not None:
        from sttui.exports.hub import push

        try:
            url = push(found, output, repo_id)
        except MissingExtra as exc:
            _fail(str(exc), 2)
        except Exception as exc:  # network, login, permissions: the Hub's reason in one line
            _fail(f"could not push to {repo_id}: {type(exc).__name__}: {' '.join(str(exc).split())[:300]}")
        click.echo(f"pushed {written} episode(s) and a dataset card to {repo_id}: {url}", err=True)


@main.command("import")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--trust",
    is_flag=True,
    help="Vouch for the file's task code: its versions then replay without --trust, with your permissions.",
)
def import_cmd(file: Path, trust: bool) -> None:
    """Read back a jsonl export (episodes, events and their task versions).

    The file is data: nothing in it is written to disk or run. Its task versions are kept as
    imported; their code runs only when trusted (see `sttui replay --help`).
    """
    from sttui.exports.importing import ImportProblem, import_jsonl

    store = open_store(write=True)
    try:
        added, skipped = import_jsonl(store, file, trust=trust)
    except ImportProblem as exc:
        _fail(f"{exc}; nothing was imported")
    click.echo(f"imported {added} episode(s); {skipped} already present")


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
    stored version has them. The versions are read in one query, not one per task."""
    versions: dict[str, dict[str, None]] = {}  # task -> its versions, in the records' order
    for r in records:
        if r.kind == "stt":
            versions.setdefault(r.task_id, {})[r.task_hash] = None
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
    store = open_store()
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
    """``report``'s figures, and the forks left out; a progress line on the terminal once this
    takes over a second (a large record)."""
    from sttui.analysis.comparison import FINISHED, compare
    from sttui.cli.progress import Progress

    progress = Progress("report", None)
    if progress.live and run_id is None:
        progress.total = store.count_episodes(status=FINISHED)
    try:
        # light rows (what compare reads, out of the JSON in SQL), and every task version's meta in
        # one query: the same records and the same meta as full records gave
        records = [r for status in FINISHED for r in progress.track(store.summaries(status=status, run_id=run_id))]
        forks: dict[str, Any] = {}
        if not with_forks:
            from sttui.lineage.forking import forks_among

            progress.step("finding forks")
            forks = forks_among(store, [r.id for r in records])
            if forks:
                records = [r for r in records if r.id not in forks]
        progress.step("comparing the controllers")
        controls = episode_controls(store, records)
        meta = _task_meta(store, records)
        result = compare(records, meta, controls)
        from sttui.analysis.version_shifts import version_shifts

        shifts = version_shifts(records, controls)
        if shifts:  # as "judges": present when there is something to say
            result["task_versions"] = shifts
        from sttui.cli.rejudging import judge_spec, report_judges

        spec = judge_spec(judge_stages) if judge_stages else None
        progress.step("stage judges")
        judges = report_judges(store, records, spec, trust)
        if judges is not None:
            result["judges"] = judges
    finally:
        progress.done()
    return result, forks


def _print_report(result: dict[str, Any]) -> None:
    """``report``'s figures as text."""
    from sttui.textout import ci, score_ci, table

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
    click.echo(table(rows, list(rows[0])))
    _print_report_notes(result, pct)


def _print_report_notes(result: dict[str, Any], pct: Any) -> None:
    """Below the table: task versions, mixed rows, pass@k, settings, stage judges, separation."""
    from sttui.analysis.comparison import MIXED
    from sttui.analysis.version_shifts import shift_line
    from sttui.textout import pass_k_lines, table

    judges = result.get("judges")
    if result.get("task_versions"):
        changed = sum(1 for v in result["task_versions"] if v["pass_rate_changed"])
        click.echo(
            f"\nEpisodes of one task recorded under more than one task version ({changed} with a pass rate that "
            "changed with the version; the rows above pool the versions):"
        )
        for shift in result["task_versions"]:
            click.echo(f"  {'CHANGED ' if shift['pass_rate_changed'] else ''}{shift_line(shift)}")
    for r in result["controllers"]:
        if r["controller"] == MIXED:
            shares = ", ".join(
                f"{h['controller']} {h['share']:.0%} ({h['agent_steps']} in {h['episodes']} ep.)" for h in r["holders"]
            )
            passed = f"; {r['stt_passed']} of {r['stt_episodes']} stt passed" if r["stt_episodes"] else ""
            click.echo(
                f"\nmixed [{r['setting']}]: {r['episodes']} episode(s) taken by more than one controller, "
                f"credited to none\n  (a model steered by a person's rejections counts too){passed}"
                f"\n  agent steps: {shares}"
            )
    for r in result["controllers"]:
        if r.get("pass_at_k"):
            click.echo(f"\n{r['controller']} [{r['setting']}] over {r['trials']} trials per common task:")
            click.echo("\n".join(pass_k_lines(r)))
    if result["settings"]:
        click.echo("\nThe same controller under two settings, on the tasks both ran:")
        for c in result["settings"]:
            diff = "-" if c["difference"] is None else f"{c['difference']:+.1%}"
            click.echo(
                f"  {c['controller']:<24} {c['measure']:<20} {c['base']} {pct(c['base_value'])}  ·  "
                f"{c['setting']} {pct(c['value'])}  ({diff}, {c['tasks']} tasks)"
            )
    if judges is not None:
        click.echo(f"\nStage judges over {judges['episodes']} episode(s) ({judges['judged_stages']} stages judged):")
        rows = [{**r, "cost": "unknown" if r["cost"] is None else f"{r['cost']:.6f}"} for r in judges["tiers"]]
        if rows:
            click.echo(table(rows, list(rows[0])))
        for note in judges["notes"]:
            click.echo(f"  note: {note}")
    sep = result["separation"]
    if sep["stage_scores"]["spread"] is not None:
        click.echo("\nHow far each measure separates the controllers on the common stt tasks:")
        for name, label in (("pass_fail", "pass/fail"), ("stage_scores", "stage scores")):
            s = sep[name]
            click.echo(
                f"  {label:<13} spread of means {s['spread']:.3f}  ·  task-and-pair comparisons told apart "
                f"{s['distinguished']:.1%}  ({s['controllers']} controllers, {s['tasks']} tasks)"
            )
