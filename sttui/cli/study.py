"""`sttui study`: check a study file, start it, join it as a participant, watch it, report it."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from sttui.cli.app import echo_json, main, open_store


@main.group()
def study() -> None:
    """Human-baseline studies: a study file names tasks, participants, order, instructions and
    time limits; participants join and play their assigned tasks; the report compares them
    with models on the same tasks (README: "Running a human-baseline study")."""


def _fail(message: str, code: int = 2) -> None:
    click.echo(f"error: {message}", err=True)
    sys.exit(code)


@study.command("check")
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--no-tasks", is_flag=True, help="Skip `sttui check` of the tasks (it plays their plans).")
@click.option("--json", "as_json", is_flag=True)
def check_cmd(file: Path, no_tasks: bool, as_json: bool) -> None:
    """Validate a study file (file:line errors), say whether its design can be met and who sees
    each task, and run `sttui check` on its tasks. Exit 1 when anything is wrong."""
    from sttui.core.problems import TaskFileError
    from sttui.paths import tasks_root
    from sttui.study.design import design, resolve, summary
    from sttui.study.spec import load_study

    try:
        loaded = load_study(file)
        resolved = resolve(loaded, tasks_root())
    except TaskFileError as exc:
        for problem in exc.problems:
            click.echo(str(problem), err=True)
        sys.exit(1)
    plan = design(loaded.study, resolved.ids)
    out = summary(loaded.study, resolved, plan)
    failing: list[str] = []
    if not no_tasks:
        from sttui.authoring.checking import check_paths

        reports = check_paths([t.path for t in [*resolved.practice, *resolved.tasks]])
        failing = [f"{r.task_id or r.file}: {r.problems[0]}" for r in reports if not r.ok]
    out["task_check"] = "skipped" if no_tasks else (failing or "ok")
    if as_json:
        echo_json(out)
    else:
        s = loaded.study
        click.echo(
            f"study {s.id}: {out['tasks']} task(s) × {s.replication} replication(s), {out['participants']} "
            f"participant(s) ({'anonymous slots' if s.anonymous else 'named'}), order {s.order.design}"
        )
        if plan.problems:
            for p in plan.problems:
                click.echo(f"design cannot be met: {p}")
        else:
            tpp = out["tasks_per_participant"]
            click.echo(f"design ok: {out['slots']} scored slots; {tpp['min']}–{tpp['max']} task(s) per participant")
            for task, who in out["who_sees"].items():
                click.echo(f"  {task}: {', '.join(who)}")
        if out["practice"]:
            click.echo(f"practice (not scored): {', '.join(out['practice'])}")
        if no_tasks:
            click.echo("tasks: not checked (--no-tasks)")
        elif failing:
            for line in failing:
                click.echo(f"task fails check: {line}")
        else:
            click.echo("tasks: every task passes `sttui check`")
    if plan.problems or failing:
        sys.exit(1)


@study.command("start")
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--no-check", is_flag=True, help="Start without running `sttui check` on the tasks first.")
@click.option(
    "--token-file",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Anonymous slots: also write their tokens here (YAML 'p01: TOKEN'), for `serve --study --token-file`.",
)
def start_cmd(file: Path, no_check: bool, token_file: Path | None) -> None:
    """Store the study (its file and task versions) in the record and assign its slots. Later
    edits of the file change nothing in the started study. Tasks that fail `sttui check` are
    refused (one line each) unless --no-check. An anonymous study's tokens are printed (and
    written to --token-file) this once: the record keeps only their hashes."""
    from sttui.core.problems import TaskFileError
    from sttui.paths import tasks_root
    from sttui.store.studies import StudyProblem
    from sttui.study.running import start

    store = open_store(write=True)
    if not no_check:
        from sttui.authoring.checking import check_paths
        from sttui.study.design import resolve
        from sttui.study.spec import load_study

        try:
            resolved = resolve(load_study(file), tasks_root())
        except TaskFileError as exc:
            for problem in exc.problems:
                click.echo(str(problem), err=True)
            sys.exit(1)
        reports = check_paths([t.path for t in [*resolved.practice, *resolved.tasks]])
        failing = [r for r in reports if not r.ok]
        for r in failing:
            click.echo(f"error: task {r.task_id or r.file} fails `sttui check`: {r.problems[0]}", err=True)
        if failing:
            sys.exit(1)
    try:
        started = start(store, file, tasks_root())
    except TaskFileError as exc:
        for problem in exc.problems:
            click.echo(str(problem), err=True)
        sys.exit(1)
    except StudyProblem as exc:
        _fail(str(exc))
    s = started.loaded.study
    verb = "started" if started.created else "already started (same file)"
    click.echo(f"study {s.id} {verb}: {len(started.plan.slots)} slots for {len(s.names)} participant(s)")
    if started.tokens:
        click.echo(
            "tokens (give one to each participant; shown only now: the record keeps their hashes, "
            "`sttui study tokens STUDY --reissue NAME` replaces a lost one):"
        )
        for name, token in started.tokens.items():
            click.echo(f"  {name}  {token}")
        if token_file is not None:
            _write_tokens(token_file, started.tokens)
            click.echo(f"tokens written to {token_file} (for `sttui serve --study {s.id} --token-file {token_file}`)")
    elif token_file is not None:
        click.echo(
            "note: no tokens written: "
            + (
                "the study has named participants"
                if not s.anonymous
                else "it was started before, and its tokens were shown then (--reissue makes new ones)"
            ),
            err=True,
        )


def _write_tokens(path: Path, tokens: dict[str, str]) -> None:
    """A token file of ``sttui serve``'s kind (name: token), readable by its owner only."""
    import os

    import yaml

    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(yaml.safe_dump(tokens, default_flow_style=False, sort_keys=False))
    except FileExistsError:
        _fail(f"{path} exists and is left as it is; the tokens are printed above")
    except OSError as exc:
        _fail(f"cannot write the token file {path}: {exc.strerror}; the tokens are printed above")


def _resolve_study(store: Any, arg: str) -> str:
    """A started study's id from STUDY (a file or an id); a file changed since the start is noted."""
    from sttui.core.problems import TaskFileError
    from sttui.store.studies import StudyProblem
    from sttui.study.running import stored_study, study_id_of

    try:
        study_id, loaded = study_id_of(arg)
        _, row = stored_study(store, study_id)
    except TaskFileError as exc:
        click.echo(str(exc.problems[0]), err=True)
        sys.exit(1)
    except StudyProblem as exc:
        _fail(str(exc))
    if loaded is not None and loaded.digest != row.digest:
        click.echo(f"note: {arg} changed since study {study_id} started; the study runs as it started", err=True)
    return study_id


def _episode(store: Any, episode_id: str) -> Any:
    """The episode with exactly this id, or None (a slot's episode may not exist yet)."""
    from sttui.store.db import StoreError

    try:
        record = store.episode(episode_id)
    except StoreError:
        return None
    return record if record.id == episode_id else None


@study.command("tokens")
@click.argument("study_arg", metavar="STUDY")
@click.option(
    "--reissue",
    "reissue",
    default=None,
    metavar="NAME",
    help="Make a new token for slot NAME (the old one stops working).",
)
def tokens_cmd(study_arg: str, reissue: str | None) -> None:
    """The anonymous slots (name, who took it). Their tokens are stored hashed, so they are shown
    only when made: at the start, or with --reissue NAME, which replaces a lost one."""
    from sttui.store.studies import Studies, StudyProblem

    store = open_store(write=reissue is not None)
    sid = _resolve_study(store, study_arg)
    studies = Studies(store)
    if reissue is not None:
        try:
            token = studies.reissue(sid, reissue)
        except StudyProblem as exc:
            _fail(str(exc))
        click.echo(f"{reissue}\t{token}")
        return
    from sttui.study.running import stored_study

    if not stored_study(store, sid)[0].anonymous:  # (each line read "ana\t-\t")
        click.echo(
            f"study {sid} names its participants: it has no anonymous slots or study tokens; in a browser, "
            f"`sttui serve --study {sid} --token-file tokens.yaml` gives each named participant a token"
        )
        return
    for p in studies.people(sid):
        click.echo(f"{p.name}\t{'token (hashed)' if p.token else '-'}\t{p.joined_as or ''}")


@study.command("withdraw")
@click.argument("study_arg", metavar="STUDY")
@click.argument("participant")
def withdraw_cmd(study_arg: str, participant: str) -> None:
    """Withdraw a participant: their data stays in the record, marked withdrawn, out of the report."""
    from sttui.store.studies import Studies, StudyProblem

    store = open_store(write=True)
    sid = _resolve_study(store, study_arg)
    try:
        n = Studies(store).withdraw(sid, participant)
    except StudyProblem as exc:
        _fail(str(exc))
    click.echo(f"{participant} withdrawn from {sid}; {n} unfinished slot(s) marked withdrawn, data kept")


@study.command("join")
@click.argument("study_arg", metavar="STUDY")
@click.option(
    "--as", "as_name", default=None, help="Your name (a named participant, or any name for an anonymous slot)."
)
@click.option("--token", default=None, help="Your token, for a study of anonymous participants.")
def join_cmd(study_arg: str, as_name: str | None, token: str | None) -> None:
    """Play your assigned tasks of STUDY (a started study's id or file): the instructions first
    (once), practice tasks first, then your tasks in your order; each opens in the play screen
    with its clock paused until you press F5. Between tasks: enter goes on, w withdraws,
    ctrl+q stops for now. A task you left resumes where it was."""
    from sttui.study.spec import PERSON

    if not as_name and not token:
        _fail("say who you are: --as NAME (or --token TOKEN for an anonymous slot)")
    if as_name is not None and not PERSON.fullmatch(as_name):
        _fail(f"--as {as_name[:60]!r}: a name is 1 to 40 letters, digits, '.', '_' or '-'")
    play_study(study_arg, as_name, token)


def play_study(study_arg: str, as_name: str | None, token: str | None) -> None:
    """The participant's tasks in one workbench (``StudyApp``: the same one a browser session
    runs): the first slot is taken here, so a full study or an unknown name is one line."""
    from sttui.config import ConfigError, load_config
    from sttui.core.problems import TaskFileError
    from sttui.store.studies import StudyProblem
    from sttui.study.sitting import Sitting, next_sitting
    from sttui.tui.study import StudyApp

    try:
        config = load_config()
    except ConfigError as exc:
        _fail(str(exc))
    store = open_store(write=True)
    sid = _resolve_study(store, study_arg)
    try:
        found = next_sitting(store, sid, as_name, token)
    except (StudyProblem, TaskFileError) as exc:
        _fail(str(exc))
    if not isinstance(found, Sitting):
        click.echo(f"{found.participant}: all {found.total} task(s) of study {sid} are done. Thank you!")
        return
    app = StudyApp(store.url, found, config, study_id=sid, name=as_name, token=token)
    app.run()
    if app.return_code:
        raise SystemExit(app.return_code)
    if app.problem:
        _fail(app.problem)
    if app.phase == "withdrawn":
        click.echo(f"You have withdrawn from study {sid}; what you played is kept, marked withdrawn.")
    elif app.phase == "done":
        click.echo(f"All {app.finished.total} task(s) of study {sid} are done. Thank you!")
    elif app.acknowledged or found.assignment.acknowledged:
        again = f"sttui study join {study_arg} " + (f"--as {as_name}" if as_name else "--token …")
        click.echo(f"Stopped after {app.played} task(s). `{again}` goes on where you left off.")


def study_for_serving(ctx: click.Context, study_arg: str, token_file: Path | None) -> tuple[str, bool]:
    """The started study ``sttui serve --study`` serves, and whether its participants are
    anonymous slots; a token file naming people who are not its participants is refused in one line."""
    from sttui.store.studies import Studies
    from sttui.study.running import stored_study

    store = open_store(ctx)
    sid = _resolve_study(store, study_arg)
    spec, _ = stored_study(store, sid)
    if token_file is not None and not spec.anonymous:
        import yaml

        names = yaml.safe_load(token_file.read_text(encoding="utf-8")) or {}  # checked by serve already
        known = {p.name for p in Studies(store).people(sid)}
        unknown = sorted(str(n) for n in names if str(n) not in known)
        if unknown:
            _fail(f"the token file names people who are not participants of study {sid}: {', '.join(unknown)}")
    return sid, spec.anonymous


@study.command("status")
@click.argument("study_arg", metavar="STUDY")
@click.option("--json", "as_json", is_flag=True)
def status_cmd(study_arg: str, as_json: bool) -> None:
    """Each participant's progress, time on task and outcomes, each task's replication reached,
    and the slots that are stuck."""
    from sttui.store.studies import Studies
    from sttui.study.progress import progress, render
    from sttui.study.running import stored_study

    store = open_store()
    sid = _resolve_study(store, study_arg)
    spec, _ = stored_study(store, sid)
    studies = Studies(store)
    found = progress(spec, studies.people(sid), studies.slots(sid))
    if as_json:
        echo_json(found)
    else:
        for line in render(found):
            click.echo(line)


@study.command("report")
@click.argument("study_arg", metavar="STUDY")
@click.option("--json", "as_json", is_flag=True)
def report_cmd(study_arg: str, as_json: bool) -> None:
    """Human pass rate by level with clustered (by participant) and plain bootstrap intervals;
    each model or baseline on the same tasks, paired by task; time on task and learning effect."""
    from sttui.analysis.comparison import holder
    from sttui.store.studies import Studies
    from sttui.study.analysis import render, report
    from sttui.study.running import stored_study

    store = open_store()
    sid = _resolve_study(store, study_arg)
    spec, row = stored_study(store, sid)
    studies = Studies(store)
    slots = studies.slots(sid)
    ids = {s.episode_id for s in slots if s.episode_id}
    records = {i: r for i in ids if (r := _episode(store, i)) is not None}
    others = [
        r
        for t in sorted({s.task_id for s in slots})
        for r in store.iter_episodes(task=t)
        if r.task_id == t and r.id not in ids
    ]
    levels = {}
    for task_id, digest in row.tasks.items():
        version = store.task_version(task_id, digest)
        levels[task_id] = (version.meta.get("level") if version else None) or (
            "explore" if version and version.kind == "explore" else "?"
        )
    from sttui.core.divergence import agent_steps

    def steps_of(episode_id: str, kind: str) -> Any:
        return agent_steps(kind, store.events(episode_id))

    found = report(spec, slots, studies.people(sid), records, others, levels, holder, steps_of)
    if as_json:
        echo_json(found)
    else:
        for line in render(found):
            click.echo(line)


@study.command("export")
@click.argument("study_arg", metavar="STUDY")
@click.option("-o", "output", type=click.Path(path_type=Path), required=True, help="The bundle file to write.")
def export_cmd(study_arg: str, output: Path) -> None:
    """One bundle of the study: its manifest (study file, task versions and hashes, settings,
    participants without tokens, slots), its episodes and the other episodes on its tasks.
    `sttui import FILE` elsewhere gives the same `sttui study report`."""
    from sttui.cli.exports import check_folder, write_whole
    from sttui.study.bundle import bundle_lines

    check_folder(output)
    store = open_store()
    sid = _resolve_study(store, study_arg)

    def write(path: Path) -> int:
        n = 0
        with open(path, "w", encoding="utf-8") as f:
            for line in bundle_lines(store, sid):
                f.write(line + "\n")
                n += 1
        return n

    n = write_whole(output, write)  # (a bundle that fails leaves the file it was to replace as it was)
    click.echo(f"wrote study {sid} to {output} ({n} lines)")


@study.command("watch")
@click.argument("study_arg", metavar="STUDY")
def watch_cmd(study_arg: str) -> None:
    """The experimenter's live view: `study status`, read again from the record every 2 s."""
    from sttui.tui.studywatch import StudyWatchApp

    store = open_store()
    sid = _resolve_study(store, study_arg)
    StudyWatchApp(store.url, sid).run()
