"""``sttui rl serve``: sttui's tasks as an OpenEnv reinforcement-learning environment server
(sttui/bridges/openenv_env.py; ``pip install 'sttui[rl]'``)."""

from __future__ import annotations

import re
import sys
from typing import TYPE_CHECKING

import click

from sttui.cli.app import main
from sttui.cli.tasks import _load_selection
from sttui.core.settings import EXPLORE_SETTINGS

if TYPE_CHECKING:
    from sttui.bridges.openenv_env import ServeConfig

INSTALL_HINT = "pip install 'sttui[rl]'"


@main.group()
def rl() -> None:
    """Reinforcement learning: serve tasks as OpenEnv environments."""


@rl.command()
@click.argument("selection", nargs=-1)
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True, help="Port to listen on.")
@click.option("--seed", type=int, default=None, help="Base seed (default: each task's); trial i plays base+i.")
@click.option("--user", default=None, metavar="SPEC", help="User seat: baseline:scripted (default) or model:M.")
@click.option("--static", is_flag=True, help="STT-Arena's static setting: triggers never fire.")
@click.option("--no-user", is_flag=True, help="STT-Arena's no-user setting: the whole goal in the first message.")
@click.option(
    "--setting", "explore_setting", type=click.Choice(EXPLORE_SETTINGS), default=None, help="Explore setting."
)
@click.option("--shaped", is_flag=True, help="Also reward each stt step with its change in the milestone stage score.")
@click.option("--record", "record_url", default=None, metavar="URL", help="Record every episode into this database.")
@click.option("--max-sessions", type=click.IntRange(min=1), default=64, show_default=True, help="WebSocket sessions.")
@click.option(
    "--idle-timeout",
    type=click.FloatRange(min=0),
    default=600,
    show_default=True,
    metavar="SECONDS",
    help="Drop an HTTP episode after this long without a step (0: never).",
)
@click.option(
    "--max-episodes",
    type=click.IntRange(min=1),
    default=1024,
    show_default=True,
    help="Open HTTP episodes kept at once; past it the one idle longest is dropped.",
)
@click.option(
    "--ws-compression/--no-ws-compression",
    default=False,
    show_default=True,
    help="Compress WebSocket messages (permessage-deflate): worth it over a slow network, not on one machine.",
)
def serve(
    selection: tuple[str, ...],
    host: str,
    port: int,
    seed: int | None,
    user: str | None,
    static: bool,
    no_user: bool,
    explore_setting: str | None,
    shaped: bool,
    record_url: str | None,
    max_sessions: int,
    idle_timeout: float,
    max_episodes: int,
    ws_compression: bool,
) -> None:
    """Serve the selected tasks (files, folders or ids; default: all bundled) as an OpenEnv
    environment: HTTP /reset, /step, /state and the /ws session. reset takes task, seed or
    trial; a step is one tool call or one message; the reward is the verdict at the end."""
    try:
        import uvicorn

        from sttui.bridges.openenv_env import ServeConfig, make_app
    except ImportError:
        click.echo(f"error: sttui rl serve needs openenv-core: {INSTALL_HINT}", err=True)
        sys.exit(2)
    from sttui.bridges.episodes import BridgeError, run_plan
    from sttui.config import ConfigError, load_config
    from sttui.controllers.registry import ControllerSpecError, make_user

    tasks = _load_selection(selection)
    try:
        models = load_config().models
        plan = run_plan(tasks, seed=seed, static=static, no_user=no_user, setting=explore_setting)
        if user is not None:
            make_user(user, models)
    except (BridgeError, ControllerSpecError, ConfigError) as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)
    config = ServeConfig(
        list(plan.tasks),
        seed,
        plan.settings,
        user,
        shaped,
        record_url,
        models,
        idle_timeout=idle_timeout or None,
        max_episodes=max_episodes,
    )
    if record_url is not None:
        _check_record(config)
    port = _free_port(host, port)
    app = make_app(config, max_sessions)
    click.echo(f"sttui rl: {len(config.tasks)} task(s) on http://{host}:{port} (ws://{host}:{port}/ws)", err=True)
    if record_url is None and click.get_current_context().find_root().obj.get("db"):
        click.echo(  # (--db, or STTUI_DB, names the record of every other command)
            "note: not recording: rl serve records only with --record URL (off by default, for speed)", err=True
        )
    # without compression each message costs no zlib work at either end (a step's is small)
    uvicorn.run(app, host=host, port=port, log_level="warning", ws_per_message_deflate=ws_compression)


def _check_record(config: ServeConfig) -> None:
    """Open the record once before listening, so a bad --record fails here in one line, not in
    every reset."""
    from sttui.store.db import StoreError, describe

    try:
        store = config.store()
    except StoreError as exc:
        said = re.sub(r"--db or STTUI_DB|--db\b", "--record", str(exc))
        click.echo(f"error: --record: {said}", err=True)
        sys.exit(2)
    if store.read_only:
        click.echo(
            f"error: --record: the database {describe(store.url)} is read-only here; copy it to a writable "
            "folder, or serve without --record",
            err=True,
        )
        sys.exit(2)


def _free_port(host: str, port: int) -> int:
    """The port to serve on, checked before the URL is printed: one that cannot be listened on
    is said as ``sttui serve`` says it (exit 2); port 0 becomes the free port found."""
    from sttui.cli.serve import _bind

    with _bind(host, port) as sock:  # (closed again for uvicorn, which binds it itself)
        return int(sock.getsockname()[1])
