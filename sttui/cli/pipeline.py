"""``sttui pipeline``: draft stt tasks from a static scenario with a model (STT-Arena's stages),
rate explore episodes with a model (AdaExploreBench's review), and review either in the
workbench, where a person accepts, edits or rejects each candidate."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import click

from sttui.cli.app import echo_json, main
from sttui.core.taxonomy import CONFLICTS, LEVELS


def _fail(message: str, code: int = 1) -> None:
    click.echo(f"error: {message}", err=True)
    sys.exit(code)


def _model(model_name: str, temperature: float) -> Any:
    from sttui.config import ConfigError, load_config
    from sttui.controllers.model import resolve_model

    try:
        config = resolve_model(model_name.removeprefix("model:"), load_config().models)
    except (ConfigError, ValueError) as exc:
        _fail(str(exc), 2)
        raise
    return replace(config, temperature=temperature, max_tokens=max(config.max_tokens or 0, 4096))


@main.group()
def pipeline() -> None:
    """Model-drafted tasks and episodes, each reviewed by a person before it is bundled."""


@pipeline.command()
@click.argument("scenario", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--domain",
    "domain_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="The domain's folder: its environment, and where accepted tasks go (default: the scenario's folder).",
)
@click.option("--subtype", required=True, type=click.Choice(CONFLICTS), help="The conflict subtype to inject.")
@click.option("--level", required=True, type=click.Choice(LEVELS), help="The level to aim at.")
@click.option("--model", "model_name", required=True, help="The model (an alias from sttui.yaml or a litellm model).")
@click.option("--candidates", type=click.IntRange(1, 32), default=3, show_default=True, help="Candidates to ask for.")
@click.option("--seed", type=int, default=0, show_default=True, help="Candidate i is sampled with seed S+i.")
@click.option("--temperature", type=click.FloatRange(0, 2), default=0.8, show_default=True)
@click.option(
    "--random-seeds",
    type=click.IntRange(min=1),
    default=20,
    show_default=True,
    help="Runs of the random baseline in each candidate's assessment (as in check).",
)
@click.option(
    "-o",
    "output",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Default SCENARIO-ID.tasks.json.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the record as JSON.")
def draft(
    scenario: Path,
    domain_dir: Path | None,
    subtype: str,
    level: str,
    model_name: str,
    candidates: int,
    seed: int,
    temperature: float,
    random_seeds: int,
    output: Path | None,
    as_json: bool,
) -> None:
    """Propose candidate tasks: conflict injection, checklist generation, dual-agent assessment
    (check's own code) and a consistency audit. Every candidate is kept, with the stage it
    failed and why."""
    from sttui.controllers.model import ModelFailure
    from sttui.drafting.record import _run
    from sttui.drafting.tasks import PipelineError, draft_tasks, read_scenario, summary_lines, write_record

    try:
        scen = read_scenario(scenario, domain_dir)
    except PipelineError as exc:
        _fail(str(exc))
        raise
    config = _model(model_name, temperature)
    try:
        record = _run(lambda: draft_tasks(scen, config, subtype, level, candidates, seed, random_seeds))
    except ModelFailure as exc:
        _fail(f"the model failed, no draft written: {exc}")
    out = output or Path(f"{scen.data['id']}.tasks.json")
    write_record(out, record)
    if as_json:
        echo_json(record)
        return
    click.echo("\n".join(summary_lines(record)))
    click.echo(
        f"\nwritten to {out}; review it: sttui pipeline review {out} --scenario {scenario}"
        + (f" --domain {domain_dir}" if domain_dir else "")
    )


@pipeline.command()
@click.argument("episodes", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option("--model", "model_name", required=True, help="The model that rates each episode.")
@click.option(
    "--into",
    type=click.Path(file_okay=False, path_type=Path),
    required=True,
    help="The folder accepted episodes are bundled into (e.g. tasks/explore/finance).",
)
@click.option("--seed", type=int, default=0, show_default=True, help="Episode i is rated with seed S+i.")
@click.option("--temperature", type=click.FloatRange(0, 2), default=0.0, show_default=True)
@click.option("-o", "output", type=click.Path(dir_okay=False, path_type=Path), default=Path("episodes.review.json"))
def rate(episodes: tuple[Path, ...], model_name: str, into: Path, seed: int, temperature: float, output: Path) -> None:
    """Rate explore episodes (realism, plausibility of the change, distractors) and check them;
    a person then reviews them (sttui pipeline review). Nothing is bundled here."""
    from sttui.controllers.model import ModelFailure
    from sttui.core.taskindex import discover
    from sttui.drafting.episodes import rate_episodes, summary_lines
    from sttui.drafting.record import _run
    from sttui.drafting.tasks import write_record

    files = discover(list(episodes))
    if not files:
        _fail("no episode files found")
    config = _model(model_name, temperature)
    try:
        record = _run(lambda: rate_episodes(files, config, into, seed))
    except ModelFailure as exc:
        _fail(f"the model failed, no review written: {exc}")
    write_record(output, record)
    click.echo("\n".join(summary_lines(record)))
    click.echo(f"\nwritten to {output}; review it: sttui pipeline review {output} --into {into}")


def _read(path: Path) -> dict[str, Any]:
    from sttui.drafting.episodes import read_episode_review
    from sttui.drafting.tasks import FORMAT, PipelineError, read_task_draft

    try:
        import json

        head = json.loads(path.read_text(encoding="utf-8")).get("format")
    except (OSError, ValueError, AttributeError):
        head = None
    try:
        return read_task_draft(path) if head == FORMAT or head is None else read_episode_review(path)
    except PipelineError as exc:
        _fail(str(exc))
        raise


@pipeline.command()
@click.argument("record_file", metavar="RECORD.json", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True)
def show(record_file: Path, as_json: bool) -> None:
    """Show a task draft or an episode review as recorded (nothing is called or run)."""
    from sttui.drafting import episodes, tasks

    record = _read(record_file)
    if as_json:
        echo_json(record)
        return
    lines = tasks.summary_lines(record) if record["format"] == tasks.FORMAT else episodes.summary_lines(record)
    click.echo("\n".join(lines))


@pipeline.command()
@click.argument("record_file", metavar="RECORD.json", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--scenario",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="A task draft's scenario file (the record's own paths are data, never followed).",
)
@click.option(
    "--domain",
    "domain_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="The domain's folder: its environment, and where accepted tasks go (default: the scenario's folder).",
)
@click.option(
    "--into",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="An episode review's bundle folder: accepted episodes are copied there.",
)
def review(record_file: Path, scenario: Path | None, domain_dir: Path | None, into: Path | None) -> None:
    """Review each candidate in the workbench: its diff, the audit or the ratings, the checks;
    accept (written beside the domain's tasks, or bundled), edit, or reject. Every decision is
    saved in RECORD.json as it is made."""
    from sttui.config import ConfigError, load_config
    from sttui.drafting.review import ReviewError, open_review
    from sttui.tui.candidates import run_review

    record = _read(record_file)
    try:
        subject = open_review(record, record_file, scenario, domain_dir, into)
        config = load_config()
    except (ReviewError, ConfigError) as exc:
        _fail(str(exc))
        raise
    run_review(subject, config)
