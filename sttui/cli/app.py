"""The ``sttui`` command group and what its commands share: the database, JSON output, and the
guard on every way out (no secret printed, no traceback)."""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import sys
import traceback
from collections.abc import Iterable
from typing import Any

import click

from sttui.store.secrets import ScrubbingStream, scrub, scrub_json, scrub_stored, scrub_text, secret_values


def say(text: str, hang: int = 4) -> None:
    """``click.echo`` for lines of prose: on a terminal, a line wider than it is broken between
    its parts or words (``textout.fit``, the rest ``hang`` columns in), never inside a word; to
    a pipe or a file, as it is."""
    from sttui.textout import fit, terminal_width

    click.echo(fit(text, terminal_width(), hang))


def echo_json(data: Any) -> None:
    click.echo(json.dumps(scrub(data), indent=2, default=str))


def echo_json_list(items: Iterable[Any], pretty: bool | None = None) -> int:
    """``items`` as one JSON list, written as they come (a chunk at a time), so a listing of any
    length is never held whole. ``pretty`` (default: when stdout is a terminal) gives
    ``echo_json(list(items))``'s text, indented; otherwise each item is one compact line, as
    ``gh --json`` writes for a pipe: the same JSON (ASCII, as indented), from the C encoder (an indented
    dump is pure Python). Returns how many."""
    if pretty is None:
        pretty = sys.stdout.isatty()
    n = 0
    chunk: list[str] = []
    secrets = secret_values()  # (once: read from the environment, not once an item)
    for item in items:
        # scrub_stored and scrub_json: scrub's value and text, found from the item's JSON text,
        # walked only where it holds a key's shape, a secret's value or a secret-named field
        if pretty:
            text = "  " + json.dumps(scrub_stored(item, secrets), indent=2, default=str).replace("\n", "\n  ")
        else:
            text = scrub_json(item, secrets)
            if not text.isascii():  # escaped as the indented form is: no raw control or bidi character
                text = json.dumps(json.loads(text))
        if len(chunk) >= 200:  # more follow: this chunk ends with the comma before the next
            click.echo(",\n".join(chunk) + ",")
            chunk.clear()
        chunk.append(("[\n" if n == 0 else "") + text)
        n += 1
    click.echo(",\n".join(chunk) + "\n]" if n else "[]")
    return n


# Each command and the module under sttui/cli that defines it: a command's module is imported
# only when that command runs (or help lists them all), so `sttui` and `sttui play` start
# without the rest (tests/test_startup_imports.py checks this table against the modules).
COMMANDS: dict[str, str] = {
    "adjudicate": "ratings",
    "agreement": "ratings",
    "annotate": "ratings",
    "check": "tasks",
    "compare": "compare",
    "export": "exports",
    "export-ratings": "ratings",
    "fork": "fork",
    "generate": "tasks",
    "gold": "gold",
    "import": "exports",
    "import-ratings": "ratings",
    "milestones": "milestones",
    "new": "new",
    "pipeline": "pipeline",
    "play": "tasks",
    "refine": "refine",
    "replay": "records",
    "report": "report",
    "resume": "records",
    "rl": "rl",
    "run": "run",
    "serve": "serve",
    "serve-session": "serve",
    "sessions": "records",
    "study": "study",
    "tasks": "tasks",
}


class GuardedGroup(click.Group):
    """The command group, with a last line of defence: a command that fails unexpectedly prints
    one scrubbed line (``STTUI_DEBUG=1`` adds the scrubbed traceback) and exits 1, never a raw
    traceback, which could carry a key (a provider's 401 echoing ``Bearer sk-…``).

    Commands load lazily: ``COMMANDS`` names each one's module, imported on first use (its
    ``@main.command()`` registers it)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*self.commands, *COMMANDS})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in COMMANDS:
            importlib.import_module(f"sttui.cli.{COMMANDS[cmd_name]}")
        return self.commands.get(cmd_name)

    def invoke(self, ctx: click.Context) -> Any:
        from sttui.errors import StoreError

        try:
            return super().invoke(ctx)
        except (click.exceptions.ClickException, click.exceptions.Exit, click.exceptions.Abort):
            raise
        except StoreError as exc:  # a database problem met inside any command: what to check, exit 2
            click.echo(f"error: {scrub_text(str(exc))}", err=True)
            ctx.exit(2)
        except Exception as exc:
            if isinstance(exc, BrokenPipeError) and _output_gone():  # the reader went away (`sttui
                # sessions | head`): stop quietly, as other tools do, with the status a shell gives
                # them (128 + SIGPIPE); what is still buffered goes nowhere, not into a second error
                with contextlib.suppress(OSError):
                    os.dup2(os.open(os.devnull, os.O_WRONLY), _output_fd())
                ctx.exit(141)
            if os.environ.get("STTUI_DEBUG"):
                click.echo(scrub_text("".join(traceback.format_exception(exc))), err=True, nl=False)
            from sttui.errors import where_raised

            click.echo(f"error: {scrub_text(where_raised(exc))} (STTUI_DEBUG=1 shows where)", err=True)
            ctx.exit(1)


def _output_fd() -> int:
    return sys.__stdout__.fileno() if sys.__stdout__ is not None else 1


def _output_gone() -> bool:
    """Whether standard output's reader has gone (the other end of its pipe closed): a broken
    pipe anywhere else (a model's connection, a child process) is an error to report."""
    import select

    try:
        poller = select.poll()
        poller.register(_output_fd(), select.POLLOUT)
        return any(events & (select.POLLERR | select.POLLHUP) for _, events in poller.poll(0))
    except (OSError, ValueError, AttributeError):  # (no poll here, or no descriptor)
        return False


def checked_name(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """A name given on the command line (``--as``), refused at entry when it holds a control
    character or a line break: it goes into the record, and from there onto every listing."""
    from sttui.safetext import control_free, visible

    if value is not None and (not value.strip() or not control_free(value) or len(value) > 200):
        option = (param.opts or [param.name or "name"])[0]
        why = (
            "is empty"
            if not value.strip()
            else "is over 200 characters"
            if len(value) > 200
            else "holds control characters"
        )
        click.echo(f"error: {option} {visible(value)!s}: a name {why}; give plain text", err=True)
        ctx.exit(2)
    return value


def _guard_streams(ctx: click.Context) -> None:
    """Scrub everything this command writes to stdout and stderr, until it ends."""
    saved = sys.stdout, sys.stderr
    if not isinstance(sys.stdout, ScrubbingStream):
        sys.stdout = ScrubbingStream(sys.stdout)
    if not isinstance(sys.stderr, ScrubbingStream):
        sys.stderr = ScrubbingStream(sys.stderr)

    def restore() -> None:
        sys.stdout, sys.stderr = saved

    ctx.call_on_close(restore)


@click.group(cls=GuardedGroup, invoke_without_command=True)
@click.version_option(package_name="sttui")
@click.option(
    "--db",
    "db_url",
    envvar="STTUI_DB",
    default=None,
    metavar="URL",
    help="SQLAlchemy URL of the record, or a SQLite file's path ending .db (env STTUI_DB; default "
    "sqlite:///sessions/sttui.db).",
)
@click.option(
    "--durable",
    is_flag=True,
    envvar="STTUI_DURABLE",
    help="SQLite: sync every commit to the disk (synchronous=FULL), safe even from a power cut; "
    "slower (env STTUI_DURABLE=1).",
)
@click.pass_context
def main(ctx: click.Context, db_url: str | None, durable: bool) -> None:
    """sttui: play, record, score and rate interactive agent-benchmark episodes.

    Run with no command to open the workbench.
    """
    ctx.ensure_object(dict)
    ctx.obj["db"] = db_url
    if durable:  # read where each engine is made (the workbench's and workers' too)
        os.environ["STTUI_DURABLE"] = "1"
    _guard_streams(ctx)
    if ctx.invoked_subcommand is None:
        from sttui.tui.app import run_app

        run_app(db_url=db_url)


def open_listing(ctx: click.Context | None = None) -> Any:
    """A reader for a listing of the record: on a plain SQLite file at this version's schema,
    the standard-library reader home uses (``sttui.store.peek``: no SQLAlchemy or pydantic to
    load, most of a second sooner); otherwise the full store, which migrates, explains or
    refuses as ``open_store`` does."""
    from sttui.store.peek import Peek, resolve_url

    ctx = ctx or click.get_current_context()
    peek = Peek.open(resolve_url((ctx.find_root().obj or {}).get("db")))
    return peek if peek is not None else open_store(ctx)


def open_store(ctx: click.Context | None = None, write: bool = False) -> Any:
    """The store named by --db / STTUI_DB, or a clear message and exit 2. ``write``: the
    command records, so a database that can only be read is refused before anything runs."""
    from sttui.store.db import StoreError, describe
    from sttui.store.store import Store

    ctx = ctx or click.get_current_context()
    url = (ctx.find_root().obj or {}).get("db")
    try:
        store = Store(url, create=write)
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
