"""The ``sttui`` command group and what its commands share: the database and JSON output."""

from __future__ import annotations

import json
import sys
from typing import Any

import click


def echo_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=2, default=str))


class Commands(click.Group):
    """The ``sttui`` group: a database problem met inside any command ends it with one line
    saying what to check (exit 2), never a traceback."""

    def invoke(self, ctx: click.Context) -> Any:
        from sttui.errors import StoreError

        try:
            return super().invoke(ctx)
        except StoreError as exc:
            click.echo(f"error: {exc}", err=True)
            ctx.exit(2)


@click.group(cls=Commands, invoke_without_command=True)
@click.version_option(package_name="sttui")
@click.option(
    "--db",
    "db_url",
    envvar="STTUI_DB",
    default=None,
    metavar="URL",
    help="SQLAlchemy URL of the record (env STTUI_DB; default sqlite:///sessions/sttui.db).",
)
@click.pass_context
def main(ctx: click.Context, db_url: str | None) -> None:
    """sttui: play, record, score and rate interactive agent-benchmark episodes.

    Run with no command to open the workbench.
    """
    ctx.ensure_object(dict)
    ctx.obj["db"] = db_url
    if ctx.invoked_subcommand is None:
        from sttui.tui.app import run_app

        run_app(db_url=db_url)


def open_store(ctx: click.Context | None = None, write: bool = False) -> Any:
    """The store named by --db / STTUI_DB, or a clear message and exit 2. ``write``: the
    command records, so a database that can only be read is refused before anything runs."""
    from sttui.store.db import StoreError, describe
    from sttui.store.store import Store

    ctx = ctx or click.get_current_context()
    url = (ctx.find_root().obj or {}).get("db")
    try:
        store = Store(url)
    except StoreError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)
    if write and store.read_only:
        click.echo(
            f"error: the database {describe(store.url)} is read-only here; reading works, but this command "
            "records: copy it to a writable folder, or pass --no-record where the command has it",
            err=True,
        )
        sys.exit(2)
    return store
