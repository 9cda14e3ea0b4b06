"""``sttui new``: scaffolds for authors."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from sttui.cli.app import main


@main.group()
def new() -> None:
    """Start a new domain from a skeleton that passes `sttui check`."""


@new.command("domain")
@click.argument("name")
@click.argument("folder", required=False, type=click.Path(file_okay=False, path_type=Path))
def new_domain(name: str, folder: Path | None) -> None:
    """A new domain NAME in FOLDER (default: ./NAME): env.py with one query tool, one operation
    tool and one check, and one task with a milestone graph drafted from its solution."""
    from sttui.authoring.scaffold import ScaffoldError
    from sttui.authoring.scaffold import new_domain as make
    from sttui.core.problems import TaskFileError
    from sttui.drafting.record import DraftError

    try:
        made = make(name, folder if folder is not None else Path(name))
    except ScaffoldError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(1)
    except OSError as exc:
        click.echo(f"error: cannot write the domain: {exc}", err=True)
        sys.exit(1)
    except (TaskFileError, DraftError) as exc:  # the skeleton itself is broken: a bug, said plainly
        click.echo(f"error: the skeleton does not check: {exc}", err=True)
        sys.exit(1)
    click.echo(f"wrote {made.env}")
    click.echo(f"wrote {made.task} ({made.milestones} milestone drafted from its solution)")
    click.echo(f"next: sttui check {made.folder}")
