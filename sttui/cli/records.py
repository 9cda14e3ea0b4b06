"""Commands about the record: list sessions, resume, replay and re-score (export and import are in
cli/exports.py, report in cli/report.py)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import click

from sttui.cli.app import echo_json, echo_json_list, main, open_listing, open_store, say
from sttui.cli.listing import (
    _control_fields,
    _outcome,
    _when,
    _with_forks,
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
    # streamed, never held whole: the JSON as the records come, the table from light rows
    filters = {"task": task, "controller": controller, "status": status, "since": since, "until": until, "limit": limit}
    if tree:
        store = open_store()
        for line in family_tree(store, list(store.iter_episodes(**filters))):
            click.echo(line)
    elif as_json:
        store = open_store()
        echo_json_list(
            {
                **r.as_dict(),
                **_control_fields(r, controls),
                "forked_from": forks.get(r.id),
                "user_verdict": (r.scores or {}).get("user_verdict"),
            }
            for r, controls, forks in _with_forks(store, with_controls(store, store.iter_episodes(**filters)))
        )
    else:
        _echo_sessions(filters)


def _echo_sessions(filters: dict[str, Any]) -> None:
    """``sttui sessions``' table, from light rows (``Store.listing_rows``), streamed."""
    from sttui.core import verdicts
    from sttui.core.control import control_summary, seat_label
    from sttui.lineage.forks import forks_among
    from sttui.textout import Narrow, cell_lines, echo_lines, terminal_width

    store = open_listing()  # (the table's rows, forks and seat changes, without the full store when it can)
    # forks and seat changes are few and have their own indexes: found once, not per chunk
    forked, handed = store.episodes_with_event("forked"), store.episodes_with_event("seat_changed")
    seen: dict[tuple[Any, ...], tuple[Any, tuple[str, str]]] = {}

    def labels(agent: str, user: str | None, control: Any) -> tuple[str, str]:
        """The agent and user seats' labels, once per (seats, control summary): equal
        summaries are shared, so a listing of 100,000 episodes works out a few hundred."""
        key = (agent, user, id(control))
        hit = seen.get(key)
        if hit is not None and hit[0] is control:
            return hit[1]
        found = (
            seat_label(agent, control.get("agent_steps") if control else None),
            seat_label(user, control.get("user_turns") if control else None),
        )
        if len(seen) < 50_000:
            seen[key] = (control, found)  # (the summary kept alive, so its id is never reused)
        return found

    def rows() -> Iterator[tuple[Any, ...]]:
        for (
            episode_id,
            task,
            status,
            agent,
            user,
            steps,
            started,
            outcome,
            passed,
            ca,
            control,
            said,
        ) in store.listing_rows(**filters):
            if control is None and episode_id in handed:  # (recorded before control summaries were kept)
                control = control_summary(store.events(episode_id))
            fork = forks_among(store, [episode_id], forked).get(episode_id) if episode_id in forked else None
            agent_label, user_label = labels(agent, user, control)
            yield (
                episode_id + (f" (fork of {fork['episode']}@{fork['seq']})" if fork else ""),
                task,
                status,
                ("pass" if passed else "fail") if outcome else "-" if ca is None else f"CA {ca:.0%}",
                agent_label,
                user_label,
                verdicts.LABELS[said] if said in verdicts.VERDICTS else "-",
                steps,
                _when(started),
            )

    width = terminal_width()
    narrow = None if width is None else Narrow(width, SESSIONS_SHRINK, frozenset({"task"}), SESSIONS_DROP)
    lines = cell_lines(rows(), SESSIONS_COLUMNS, narrow)
    count = echo_lines(lines, click.echo) - 2  # (the header and its rule)
    click.echo()
    if narrow is not None and narrow.hidden:  # (said, so nothing is missed without a word)
        say(f"{count} episode(s)  ·  left out to fit: {', '.join(narrow.hidden)} (--json has them)")
    else:
        click.echo(f"{count} episode(s)")


SESSIONS_COLUMNS = ["id", "task", "status", "outcome", "agent", "user", "user verdict", "steps", "started"]
# on a terminal too narrow for the whole table: task ids cut in the middle (their level stays),
# the seats' labels at the end; then the columns a glance needs least left out, in this order
SESSIONS_SHRINK = {"task": 20, "agent": 12, "user": 12}
SESSIONS_DROP = ("user verdict", "user", "started")


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
    from sttui.cli.fork import headless_seats

    loaded = opened.loaded
    agent_spec, user_spec = headless_seats(record, loaded, agent, user)
    try:
        models = load_config().models
    except ConfigError as exc:
        _fail(str(exc), 2)
    recorded = store.events(record.id)
    try:
        agent_c = make_agent(agent_spec, loaded, record.seed, models, store, recorded_settings(recorded))
        user_c = make_user(user_spec, models, seed=record.seed) if user_spec else None
    except ControllerSpecError as exc:
        _fail(str(exc), 2)
    import asyncio  # (here: listing the record never needs an event loop)

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
            f"rebuilt {record.id} from {len(recorded)} recorded events; state hash "
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

    say(f"episode {record.id}: task {record.task_id} version {record.task_hash[:12]} ({record.status})")
    say(f"task code run as: {trusted_by}")
    say("replay reproduces the record" if rebuilt.matches else f"REPLAY DIFFERS: {rebuilt.mismatch}")
    if "rescored" in report:
        text = _rescored_text(report["rescored"])
        say(f"re-scored on the recorded version:{'' if text.startswith(chr(10)) else ' '}{text}")
    for key, label in (
        ("review", "milestone review"),
        ("review_on_current", "milestone review on the current version"),
    ):
        if report.get(key):
            say(f"{label}:")
            say(_review_lines(report[key]))
    if report.get("judges"):
        say(f"stage judges ({report['judges']['spec']}):")
        say(judge_lines(report["judges"]))
    if report["current_version"] == "changed":
        say(f"THE TASK FILE HAS CHANGED since this episode (now {report['current_hash'][:12]}).")
        if "rescored_on_current" in report:
            text = _rescored_text(report["rescored_on_current"])
            say(f"{report['rescored_note']}:{'' if text.startswith(chr(10)) else ' '}{text}")
        diffs = report.get("outcome_differences")
        if diffs:
            say("On the current version the outcome differs:")
            for d in diffs:
                say(f"  {d}")
        elif diffs is not None:
            say("On the current version the outcome is the same.")
    elif report["current_version"] != "unchanged":
        say(report["current_version"])


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
    from sttui.core.review.stages import flags_text

    lines = [f"  milestones {review['settled']}/{review['milestones']}  ·  stage score {review['score']:.2f}"]
    for stage in review["stages"]:
        first, last = stage["steps"]
        flags = flags_text([(s, f) for s, f in stage["flags"]])
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
