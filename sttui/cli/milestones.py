"""``sttui milestones``: draft a task's milestone graph by consensus, show a draft, review it
in the workbench, and accept it into the task file."""

from __future__ import annotations

import asyncio
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import click

from sttui.cli.app import echo_json, main


def _fail(message: str, code: int = 1) -> None:
    click.echo(f"error: {message}", err=True)
    sys.exit(code)


def _stt_task(task: str) -> Any:
    """TASK (an id or a file) loaded; only stt tasks have milestones."""
    from sttui.cli.tasks import _one_task

    loaded = _one_task(task)
    if loaded.kind != "stt":
        _fail(f"{loaded.id} is an {loaded.kind} task; only stt tasks have milestones")
    return loaded


def _read(path: str) -> dict[str, Any]:
    from sttui.drafting.record import DraftError, read_draft

    try:
        return read_draft(path)
    except DraftError as exc:
        _fail(str(exc))
        raise


def _task_and_draft(path: str, task: str | None) -> tuple[Any, dict[str, Any]]:
    """TASK, or without it the draft's task id looked up in the tasks folder (never the file
    path the draft names: a draft is data), and the draft, which must be of that task."""
    draft = _read(path)
    loaded = _stt_task(task if task is not None else str(draft["task"].get("id")))
    return loaded, _draft_for(path, loaded, draft)


def _draft_for(path: str, loaded: Any, draft: dict[str, Any] | None = None) -> dict[str, Any]:
    draft = draft if draft is not None else _read(path)
    if draft["task"].get("id") != loaded.id:
        _fail(f"{path} is a draft of {draft['task'].get('id')}, not of {loaded.id}")
    return draft


@main.group()
def milestones() -> None:
    """Draft, review and accept a task's milestone graph (DynSTEER's consensus of candidates)."""


@milestones.command()
@click.argument("task")
@click.option("--model", "model_name", default=None, help="The model (an alias from sttui.yaml or a litellm model).")
@click.option(
    "--candidates", type=click.IntRange(1, 32), default=6, show_default=True, help="Candidate graphs to ask for."
)
@click.option("--seed", type=int, default=0, show_default=True, help="Candidate i is sampled with seed S+i.")
@click.option(
    "--temperature", type=click.FloatRange(0, 2), default=0.8, show_default=True, help="Sampling temperature."
)
@click.option("--from-solution", is_flag=True, help="Derive a sequential graph from the reference solution instead.")
@click.option(
    "-o",
    "output",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="The draft file (default TASK-ID.draft.json).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the draft as JSON.")
def draft(
    task: str,
    model_name: str | None,
    candidates: int,
    seed: int,
    temperature: float,
    from_solution: bool,
    output: Path | None,
    as_json: bool,
) -> None:
    """Ask a model for K candidate graphs from what an agent knows, validate them, merge them by
    majority and check the result; everything goes into the draft file."""
    from sttui.drafting.record import DraftError, summary_lines, write_draft
    from sttui.drafting.record import from_solution as derive

    if from_solution == (model_name is not None):
        _fail("give --model M, or --from-solution for the graph derived from the reference solution", 2)
    loaded = _stt_task(task)
    try:
        record = derive(loaded) if from_solution else _ask(loaded, model_name or "", candidates, seed, temperature)
    except DraftError as exc:
        _fail(f"{loaded.id}: {exc}; no draft written")
    out = output or Path(f"{loaded.id}.draft.json")
    write_draft(out, record)
    if as_json:
        echo_json(record)
    else:
        click.echo("\n".join(summary_lines(record)))
        click.echo(f"\nwritten to {out}")


def _ask(loaded: Any, model_name: str, count: int, seed: int, temperature: float) -> dict[str, Any]:
    from sttui.config import ConfigError, load_config
    from sttui.controllers.model import ModelFailure, resolve_model
    from sttui.drafting.ask import PROMPT_VERSION, ask_candidates, draft_prompt
    from sttui.drafting.record import new_draft

    try:
        models = load_config().models
        config = resolve_model(model_name.removeprefix("model:"), models)
    except (ConfigError, ValueError) as exc:
        _fail(str(exc), 2)
    config = replace(config, temperature=temperature, max_tokens=max(config.max_tokens or 0, 4096))
    text = draft_prompt(loaded.task, loaded.env_cls)
    try:
        answers = asyncio.run(ask_candidates(config, text, count, seed))
    except ModelFailure as exc:
        _fail(f"the model failed, no draft written: {exc}")
    return new_draft(
        loaded,
        answers,
        method="consensus",
        model=config.label,
        prompt_version=PROMPT_VERSION,
        seed=seed,
        prompt_text=text,
    )


@milestones.command()
@click.argument("draft_file", metavar="DRAFT.json")
@click.option("--json", "as_json", is_flag=True, help="Print the draft as JSON.")
def show(draft_file: str, as_json: bool) -> None:
    """Show a draft: each candidate and why it was dropped or flagged, the vote, the consensus
    and its checks, as recorded (nothing is called or run)."""
    from sttui.drafting.record import DraftError, read_draft, summary_lines

    try:
        record = read_draft(draft_file)
    except DraftError as exc:
        _fail(str(exc))
    if as_json:
        echo_json(record)
    else:
        click.echo("\n".join(summary_lines(record)))


@milestones.command()
@click.argument("draft_file", metavar="DRAFT.json")
@click.argument("task", required=False)
@click.option(
    "-o",
    "output",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Write here instead of DRAFT.json.",
)
def merge(draft_file: str, task: str | None, output: Path | None) -> None:
    """Judge and vote again on the recorded candidates (no model call), with TASK as it is now
    (default: the draft's task id in the tasks folder)."""
    from sttui.drafting.record import remerge, summary_lines, write_draft

    loaded, record = _task_and_draft(draft_file, task)
    record = remerge(loaded, record)
    write_draft(output or Path(draft_file), record)
    click.echo("\n".join(summary_lines(record)))


@milestones.command()
@click.argument("draft_file", metavar="DRAFT.json")
@click.argument("task")
@click.option(
    "--only", default=None, help="Comma-separated ids of the milestones and minefields to accept (default: all)."
)
def accept(draft_file: str, task: str, only: str | None) -> None:
    """Write the draft's consensus graph (or the --only part of it) into TASK's file, in place:
    only its milestones, minefields and milestones_origin blocks change."""
    from sttui.core.problems import TaskFileError
    from sttui.drafting.record import DraftError, choose, consensus_rules
    from sttui.drafting.record import accept as write

    loaded = _stt_task(task)
    record = _draft_for(draft_file, loaded)
    try:
        ms, mf = choose(*consensus_rules(record), [k.strip() for k in only.split(",") if k.strip()] if only else None)
        written, _ = write(loaded, record, ms, mf, Path(draft_file).name)
    except DraftError as exc:
        _fail(str(exc))
    except TaskFileError as exc:
        _fail(f"the task would not load, left as it was: {exc.problems[0]}")
    click.echo(f"{written.path}: {len(ms)} milestone(s), {len(mf)} minefield(s) written; the checks pass")


@milestones.command()
@click.argument("draft_file", metavar="DRAFT.json")
@click.argument("task", required=False)
def review(draft_file: str, task: str | None) -> None:
    """Review a draft in the workbench: candidates beside the consensus; accept, edit or drop each
    milestone and minefield; the checks re-run on every change; w writes the accepted graph.
    TASK defaults to the draft's task id in the tasks folder."""
    from sttui.config import ConfigError, load_config
    from sttui.tui.drafting import run_review

    loaded, record = _task_and_draft(draft_file, task)
    try:
        config = load_config()
    except ConfigError as exc:
        _fail(str(exc), 2)
    run_review(loaded, record, Path(draft_file).name, config)
