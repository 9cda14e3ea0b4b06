"""`sttui refine`: edit a recorded episode's agent steps, verify them on replay, save the result."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from sttui.cli.app import checked_name, echo_json, main, open_store
from sttui.cli.records import _fail, _task_dirs, tasks_option, trust_option


def open_refinement(store: Any, ref: str, trust: bool, task_dirs: tuple[Path, ...]) -> Any:
    """The episode ready to refine, or a one-line error (exit 2)."""
    from sttui.exports.versions import VersionProblem, load_version
    from sttui.lineage.refining import EditError, Refinement
    from sttui.store.db import StoreError

    try:
        record = store.episode(ref)
    except StoreError as exc:
        _fail(str(exc), 2)
    if record.kind != "stt":
        _fail(f"episode {record.id} is an explore episode: only stt episodes (tool calls) can be refined", 2)
    try:
        loaded = load_version(store, record, trust=trust, task_dirs=_task_dirs(task_dirs))
        return Refinement.of(loaded, record, store.events(record.id))
    except (VersionProblem, EditError) as exc:
        _fail(str(exc), 2)


def terminal_attached() -> bool:
    """The editor is a full-screen app: without a terminal it would wait for keys forever."""
    return sys.stdin.isatty() and sys.stdout.isatty()


@main.command()
@click.argument("episode")
@click.option("--drop", metavar="N,M", help="Drop these steps (numbers as listed: 1 is the first agent step).")
@click.option("--move", multiple=True, metavar="FROM:TO", help="Move a step to another place; repeatable.")
@click.option("--set", "set_", multiple=True, metavar="N.args.KEY=VALUE", help="Set a call's argument (JSON or text).")
@click.option("--insert", multiple=True, metavar="N:CALL", help="Insert `tool(k=v)` or `> message` as step N.")
@click.option("--say", multiple=True, metavar="N:TEXT", help="Reword the agent message at step N.")
@click.option("--save", is_flag=True, help="Record the refined steps as a new episode (the original is kept).")
@click.option(
    "--demonstration", is_flag=True, help="With --save: mark it a verified demonstration (only if it passes)."
)
@click.option(
    "--as",
    "as_name",
    callback=checked_name,
    default=None,
    metavar="NAME",
    help="The editor's name (default: config, login).",
)
@trust_option
@tasks_option
@click.option("--json", "as_json", is_flag=True)
def refine(
    episode: str,
    drop: str | None,
    move: tuple[str, ...],
    set_: tuple[str, ...],
    insert: tuple[str, ...],
    say: tuple[str, ...],
    save: bool,
    demonstration: bool,
    as_name: str | None,
    trust: bool,
    task_dirs: tuple[Path, ...],
    as_json: bool,
) -> None:
    """Refine an episode's agent steps and verify them on the recorded task version.

    The steps are replayed on a fresh environment with the recorded seed and user; results,
    triggers, the checklist and the milestone review are recomputed. Edits apply in this order:
    --set and --say, then --drop, --insert, --move, each numbering the steps as they are then.
    Exits 1 if the refined run fails. Without edits or --save, opens the editor (TUI).
    """
    from sttui.config import ConfigError, human_name, load_config
    from sttui.lineage.refining import EditError, NotADemonstration, parse_edits
    from sttui.lineage.refining import save as save_refined

    if demonstration and not save:
        _fail("--demonstration marks a saved episode: add --save", 2)
    try:
        edits = parse_edits(drop, move, set_, insert, say)
    except EditError as exc:
        _fail(str(exc), 2)
    try:
        config = load_config()
    except ConfigError as exc:
        _fail(str(exc), 2)
    editor = human_name(as_name, config)
    store = open_store(write=save)
    refinement = open_refinement(store, episode, trust, task_dirs)
    if not edits and not save and not as_json:
        if not terminal_attached():
            _fail(
                "the refine editor needs a terminal; without one give edits (--drop, --move, --set, --insert, "
                "--say), or --json to verify the episode as it is",
                2,
            )
        from sttui.tui.refine import run_editor

        run_editor(refinement, editor, (click.get_current_context().find_root().obj or {}).get("db"))
        return
    try:
        for e in edits:
            refinement.edit(e)
    except EditError as exc:
        _fail(str(exc), 2)
    saved: str | None = None
    if save:
        try:
            saved, verification = save_refined(store, refinement, editor, demonstration=demonstration)
        except NotADemonstration as exc:
            _fail(str(exc), 1)
    else:
        verification = refinement.verify()
    report = {
        "episode": refinement.record.id,
        "task": refinement.record.task_id,
        "editor": editor,
        "edits": [e.as_dict() for e in refinement.edits],
        **verification.as_dict(),
        "saved": saved,
        "demonstration": bool(saved and demonstration),
    }
    if as_json:
        echo_json(report)
    else:
        click.echo(report_text(refinement, verification, saved, demonstration))
    sys.exit(0 if verification.passed else 1)


def report_text(refinement: Any, verification: Any, saved: str | None, demonstration: bool) -> str:
    """The verification as text: each step (refusals and failures inline), checklist, score."""
    record = refinement.record
    lines = [
        f"refining {record.id} (task {record.task_id}): {len(refinement.original)} step(s) -> "
        f"{len(verification.steps)} after {len(refinement.edits)} edit(s)"
    ]
    lines += [f"  edit: {e.describe()}" for e in refinement.edits]
    for s in verification.steps:
        note = ""
        if s.refused:
            note = f"  REFUSED: {s.refused}"
        elif s.error:
            note = f"  failed: {s.error}"
        elif not s.reached:
            note = "  (not reached: the run had ended)"
        lines.append(f"  {s.number:>3}  {s.text}{note}")
    d = verification.as_dict()
    lines.append("checklist:")
    for item in d["checklist"]:
        lines.append(f"  {'✓' if item.get('passed') else '✗'} {item.get('id')}: {item.get('detail', '')}")
    m = d["milestones"]
    score = "-" if d["stage_score"] is None else f"{d['stage_score']:.2f}"
    lines.append(
        f"stage score {score} · milestones {m['settled']}/{m['milestones']} · "
        f"triggers fired: {', '.join(d['triggers_fired']) or 'none'} · ended: {d['end_reason']}"
    )
    refused = len(verification.refusals)
    lines.append(("PASSED" if verification.passed else "FAILED") + (f" ({refused} refused step(s))" if refused else ""))
    if saved:
        lines.append(
            f"saved as episode {saved} (refined from {record.id}{', a demonstration' if demonstration else ''})"
        )
    return "\n".join(lines)
