"""``sttui serve``: the workbench in a browser, and the hidden command each browser session runs."""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import os
import socket
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import click

from sttui.cli.app import checked_name, main

if TYPE_CHECKING:
    from sttui.web.access import Tokens

INSTALL_HINT = "pip install 'sttui[serve]'"
STUDY_TOKEN_VAR = "STTUI_STUDY_TOKEN"  # as sttui.web.server names it (that module needs textual-serve)


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        return socket.create_server((host, port), family=family, backlog=64)
    except OSError as exc:
        reason = "the port is in use" if exc.errno in (98, 48, 10048) else (exc.strerror or str(exc))
        click.echo(f"error: cannot listen on {host}:{port}: {reason} (choose another with --port)", err=True)
        sys.exit(2)


def _url(host: str, port: int) -> str:
    shown = socket.gethostname() if host in ("0.0.0.0", "::", "") else host
    return f"http://[{shown}]:{port}/" if ":" in shown else f"http://{shown}:{port}/"


@main.command()
@click.option("--annotate", is_flag=True, help="Each session opens the annotation queue (else the home screen).")
@click.option(
    "--items",
    type=click.Choice(["tasks", "explore", "episodes", "verdicts"]),
    default="tasks",
    show_default=True,
    help="With --annotate: what is rated.",
)
@click.option(
    "--filter", "text_filter", default=None, help="With --annotate: only items whose id or title contains this."
)
@click.option(
    "--gold-rate",
    type=click.IntRange(0, 1000),
    default=None,
    help="With --annotate: one item in N is gold (0: none); default: gold.rate in dimensions.yaml (10).",
)
@click.option(
    "--host", default="127.0.0.1", show_default=True, help="Address to listen on; anything but loopback warns."
)
@click.option("--port", default=8000, show_default=True, type=click.IntRange(0, 65535), help="0: any free port.")
@click.option(
    "--token-file",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="YAML 'name: token' per annotator; the record names the token's owner.",
)
@click.option("--allow-models", is_flag=True, help="Pass API keys to the sessions, so a seat can go to a model.")
@click.option(
    "--max-sessions",
    default=32,
    show_default=True,
    type=click.IntRange(1, 10_000),
    help="Sessions (app processes) running at once, in all.",
)
@click.option(
    "--sessions-per-token",
    default=8,
    show_default=True,
    type=click.IntRange(1, 10_000),
    help="Sessions running at once on one token (the shared token counts as one).",
)
@click.option(
    "--study", "study_arg", default=None, metavar="STUDY", help="Each participant plays their next task of STUDY."
)
@click.pass_context
def serve(
    ctx: click.Context,
    annotate: bool,
    items: str,
    text_filter: str | None,
    gold_rate: int | None,
    host: str,
    port: int,
    token_file: Path | None,
    allow_models: bool,
    max_sessions: int,
    sessions_per_token: int,
    study_arg: str | None,
) -> None:
    """The workbench in a browser: one sttui per browser session, behind a token."""
    if gold_rate is not None and not annotate:
        click.echo("error: --gold-rate mixes gold into the annotation queue: it needs --annotate", err=True)
        sys.exit(2)
    try:
        from sttui.web.server import Limits, Mode, SttuiServer
    except ImportError as exc:
        click.echo(f"error: sttui serve needs textual-serve ({exc.name} is missing): {INSTALL_HINT}", err=True)
        sys.exit(2)
    if annotate:
        from sttui.cli.ratings import _dims

        _dims()  # a broken dimensions file is said here, once, not in every browser
    tokens, shared = _tokens(token_file)
    db_url = (ctx.find_root().obj or {}).get("db")
    open_check = _check_store(ctx)
    study_id, study_tokens = _study_access(ctx, study_arg, token_file)
    sock = _bind(host, port)
    port = sock.getsockname()[1]
    _warn_exposure(host, port, allow_models)

    def say(name: str, event: str) -> None:
        click.echo(f"session {event}: {name}")

    server = SttuiServer(
        tokens,
        Mode(annotate=annotate, items=items, text_filter=text_filter, study=study_id, gold_rate=gold_rate),
        db_url=db_url,
        allow_models=allow_models,
        environ=os.environ,
        on_session=say,
        limits=Limits(per_token=sessions_per_token, total=max_sessions),
        host=host,
        study_tokens=study_tokens,
    )

    def ready() -> None:
        what = f"the annotation queue ({items})" if annotate else "the workbench"
        if study_id is not None:
            what = f"study {study_id}"
        click.echo(f"sttui serve: {what} on {open_check}")
        if study_tokens is not None:
            click.echo(
                f"participants open {_url(host, port)}?token=<their study token>  "
                f"(printed once by `sttui study start`; `sttui study tokens {study_id} --reissue NAME` replaces one)"
            )
        if shared:
            click.echo(f"open {_url(host, port)}?token={shared}")
        else:
            click.echo(f"open {_url(host, port)}?token=<your token>  ({len(tokens)} annotators in {token_file})")
        click.echo("ctrl+c stops it", nl=True)
        sys.stdout.flush()

    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    logging.getLogger("sttui.serve").setLevel(logging.INFO)
    asyncio.run(server.run_on(sock, ready))


def _tokens(token_file: Path | None) -> tuple[Tokens, str | None]:
    """The annotators' tokens from ``token_file``, else one shared token made now (and it)."""
    from sttui.web.access import TokenFileError, Tokens

    if token_file is not None:
        try:
            tokens, shared = Tokens.from_file(token_file), None
        except TokenFileError as exc:
            click.echo(f"error: {exc}", err=True)
            sys.exit(2)
    else:
        tokens, shared = Tokens.generate()
    return tokens, shared


def _study_access(
    ctx: click.Context, study_arg: str | None, token_file: Path | None
) -> tuple[str | None, Callable[[str], str | None] | None]:
    """The study served (its id), and for an anonymous study how a participant's own token
    finds their slot."""
    study_id: str | None = None
    study_tokens: Callable[[str], str | None] | None = None
    if study_arg is not None:
        from sttui.cli.app import open_store
        from sttui.cli.study import study_for_serving
        from sttui.store.studies import Studies

        study_id, anonymous = study_for_serving(ctx, study_arg, token_file)
        if anonymous:  # each participant's own study token opens their session too
            studies, sid = Studies(open_store(ctx)), study_id
            study_tokens = lambda token: studies.slot_of_token(sid, token)  # noqa: E731
    return study_id, study_tokens


def _warn_exposure(host: str, port: int, allow_models: bool) -> None:
    """Say what is exposed beyond this machine, and that sessions get API keys."""
    if not _loopback(host):
        click.echo(
            f"warning: listening on {host}, not only this machine: anyone who can reach port {port} and holds a "
            "token can open the workbench, and plain HTTP carries tokens and ratings unencrypted; beyond a trusted "
            "network put it behind HTTPS",
            err=True,
        )
    if allow_models:
        click.echo("warning: --allow-models: browser sessions get this environment's API keys", err=True)


def _check_store(ctx: click.Context) -> str:
    """Open the record once before listening, so a bad --db fails here with its message, not in
    each browser; returns how to name it."""
    from sttui.cli.app import open_store
    from sttui.store.db import describe

    store = open_store(ctx, write=True)
    return describe(store.url)


# Textual's web driver reads keys on a thread that posts each to the app's loop. When the app
# ends while keys are still arriving (a session closed mid-flood), those posts are coroutines
# the closed loop never runs, and Python warns of each on the server's output.
DRIVER_POST = r"coroutine 'MessagePump\._post_message' was never awaited"


def quiet_driver_shutdown() -> None:
    """In a session's app process: no warning for keys posted after the app ended (above), and
    ``tracemalloc`` imported up front. Formatting a warning imports it, and two threads' first
    warnings at once once found it half-imported and printed a traceback into ``serve``'s log."""
    import tracemalloc  # noqa: F401
    import warnings

    warnings.filterwarnings("ignore", message=DRIVER_POST, category=RuntimeWarning)


@main.command("serve-session", hidden=True)
@click.option("--as", "as_name", callback=checked_name, required=True)
@click.option("--annotate", "items", type=click.Choice(["tasks", "explore", "episodes", "verdicts"]), default=None)
@click.option("--filter", "text_filter", default=None)
@click.option("--gold-rate", type=click.IntRange(0, 1000), default=None)
@click.option("--study", "study_id", default=None)
def serve_session(
    as_name: str, items: str | None, text_filter: str | None, gold_rate: int | None, study_id: str | None
) -> None:
    """What one browser session runs (started by ``sttui serve``, not by hand)."""
    from sttui.tui.app import run_app

    quiet_driver_shutdown()

    ctx = click.get_current_context()
    db_url = (ctx.find_root().obj or {}).get("db")
    if study_id is not None:
        from sttui.config import ConfigError, load_config
        from sttui.tui.study import StudyApp

        try:
            config = load_config()
        except ConfigError as exc:
            raise SystemExit(f"error: {exc}") from None
        # an anonymous participant's study token comes in the environment, never on the command line
        token = os.environ.pop(STUDY_TOKEN_VAR, None) or None
        app = StudyApp(db_url, None, config, study_id=study_id, name=None if token else as_name, token=token)
        app.run()
        raise SystemExit(app.return_code or 0)
    run_app(db_url=db_url, human=as_name, annotate=(items, text_filter, gold_rate) if items else None)
