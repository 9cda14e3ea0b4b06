"""The server: textual-serve's, with a token on every door and one sttui process per session.

textual-serve starts its app command for anyone who opens its websocket. Here the page (``/``)
and the websocket (``/ws/{token}/{name}``) both check the token before anything starts; a wrong
or missing one gets 403. The token travels in the websocket's path because textual-serve's page
script appends its own ``?width=…`` to the URL it is given. Only the bundled static files (the
terminal's script, styles and font) are served without a token.
"""

from __future__ import annotations

import asyncio
import logging
import shlex
import signal
import socket
import sys
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import aiohttp_jinja2
import jinja2
from aiohttp import web
from textual_serve.app_service import AppService
from textual_serve.server import Server

from sttui.web.access import Owner, Tokens, valid_name
from sttui.web.childenv import child_environment

log = logging.getLogger("sttui.serve")
TEMPLATES = Path(__file__).parent / "templates"
# What textual-serve's AppService adds to the environment for its web driver; kept as it sets them.
DRIVER_VARS = ("TEXTUAL_DRIVER", "TEXTUAL_FPS", "TEXTUAL_COLOR_SYSTEM", "TERM_PROGRAM", "TERM_PROGRAM_VERSION")
DRIVER_VARS += ("COLUMNS", "ROWS", "TEXTUAL", "TEXTUAL_LOG")
# The page loads only what this server serves: a missed outside reference fails in the browser.
SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; "
        "img-src 'self' data:; font-src 'self'; connect-src 'self'; frame-ancestors 'none'; form-action 'self'"
    ),
    "Referrer-Policy": "no-referrer",  # the token is in the page's URL
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
}


@dataclass(frozen=True)
class Mode:
    """What each browser session opens: the annotation queue (``items``, ``text_filter``) or home."""

    annotate: bool = False
    items: str = "tasks"
    text_filter: str | None = None
    study: str | None = None  # each session plays its participant's next task of this study


class _Session(AppService):
    """One app process, started with the environment it was given instead of the server's."""

    def __init__(self, command: str, env: Mapping[str, str], **kwargs: Any) -> None:
        super().__init__(command, **kwargs)
        self._env = dict(env)

    def _build_environment(self, width: int = 80, height: int = 24) -> dict[str, str]:
        driver = super()._build_environment(width, height)
        return self._env | {k: driver[k] for k in DRIVER_VARS if k in driver}


class SttuiServer(Server):
    """textual-serve's server with sttui's doors: the token guard, the name, the session's command
    and environment, and its own socket (so ``--port 0`` and a port in use are handled by the CLI)."""

    def __init__(
        self,
        tokens: Tokens,
        mode: Mode,
        *,
        db_url: str | None,
        allow_models: bool,
        environ: Mapping[str, str],
        on_session: Callable[[str, str], None] | None = None,
    ) -> None:
        super().__init__("sttui", title="sttui", templates_path=TEMPLATES)
        self.tokens, self.mode = tokens, mode
        self.env = child_environment(environ, allow_models=allow_models, db_url=db_url)
        self.on_session = on_session or (lambda name, event: None)

    def command_for(self, name: str) -> str:
        """The app process of one session: the hidden ``serve-session`` command, run by this
        interpreter (``exec``: the shell gives way, so the process textual-serve stops is sttui)."""
        argv = [sys.executable, "-m", "sttui", "serve-session", "--as", name]
        if self.mode.study:
            argv += ["--study", self.mode.study]
        if self.mode.annotate:
            argv += ["--annotate", self.mode.items]
            if self.mode.text_filter:
                argv += ["--filter", self.mode.text_filter]
        return "exec " + shlex.join(argv)

    @web.middleware
    async def guard(self, request: web.Request, handler: Callable[[web.Request], Awaitable[Any]]) -> Any:
        """The token check, before any handler: the page takes it from ``?token=``, the websocket
        from its path. Static files are textual-serve's own and carry nothing of ours."""
        if request.path.startswith("/static/") or request.path == "/favicon.ico":  # no favicon: a 404
            response = await handler(request)
        else:
            # the websocket's path token alone counts for it: a ?token= beside a wrong one opens nothing
            presented = request.match_info["token"] if "token" in request.match_info else request.query.get("token")
            owner = self.tokens.owner(presented)
            if owner is None:
                log.warning("refused %s %r: no valid token", request.method, request.path.split("/ws/")[0] or "/ws")
                raise web.HTTPForbidden(text="403: this sttui needs the token printed when it started (?token=…)\n")
            request["owner"] = owner
            response = await handler(request)
        if isinstance(response, web.StreamResponse) and not isinstance(response, web.WebSocketResponse):
            response.headers.update(SECURITY_HEADERS)
        return response

    async def _make_app(self) -> web.Application:
        app = web.Application(middlewares=[self.guard])
        aiohttp_jinja2.setup(app, loader=jinja2.FileSystemLoader(self.templates_path))
        app.add_routes(
            [
                web.get("/", self.handle_index, name="index"),
                web.get("/ws/{token}/{name}", self.handle_websocket, name="websocket"),
                web.static("/static", self.statics_path, name="static"),
            ]
        )
        # No /download route: sttui delivers no files to the browser.
        return app

    def _name(self, request: web.Request, given: str | None) -> str | None:
        owner: Owner = request["owner"]
        return owner.name if owner.name else (given if valid_name(given) else None)

    async def handle_index(self, request: web.Request) -> web.Response:  # type: ignore[override]
        """The terminal page, once the session has a name: the token's owner, else the ``name``
        field, asked for by a small form."""
        token = request.query["token"]
        name = self._name(request, request.query.get("name"))
        if name is None:
            given = request.query.get("name")
            problem = "Letters, digits, '.', '_' or '-', 40 at most." if given else ""
            context = {"token": token, "name": given or "", "problem": problem}
            return aiohttp_jinja2.render_template("name.html", request, context, status=400 if given else 200)
        # behind an HTTPS proxy the page is https: its websocket must be wss, or the browser blocks it
        secure = request.secure or request.headers.get("X-Forwarded-Proto", "").lower() == "https"
        scheme = "wss" if secure else "ws"
        ws_url = f"{scheme}://{request.host}/ws/{quote(token, safe='')}/{quote(name, safe='')}"
        font_size = request.query.get("fontsize", "16")
        context = {
            "font_size": int(font_size) if font_size.isdigit() and 6 <= int(font_size) <= 40 else 16,
            "app_websocket_url": ws_url,
            "config": {"static": {"url": "/static/"}},
            "application": {"name": f"sttui: {name}"},
        }
        return aiohttp_jinja2.render_template("app_index.html", request, context)

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        """As textual-serve's, with the session's own command and environment."""
        name = self._name(request, request.match_info["name"])
        if name is None:
            raise web.HTTPBadRequest(text="400: a session needs a name (letters, digits, '.', '_' or '-')\n")
        websocket = web.WebSocketResponse(heartbeat=15)
        width = _int(request.query.get("width"), 80)
        height = _int(request.query.get("height"), 24)
        service: _Session | None = None
        try:
            await websocket.prepare(request)
            service = _Session(
                self.command_for(name),
                self.env,
                write_bytes=websocket.send_bytes,
                write_str=websocket.send_str,
                close=websocket.close,
                download_manager=self.download_manager,
                debug=False,
            )
            await service.start(width, height)
            self.on_session(name, "opened")
            try:
                await self._process_messages(websocket, service)
            finally:
                await service.stop()
        except asyncio.CancelledError:
            await websocket.close()
        except Exception as error:
            log.error("session of %s failed: %s", name, error)
        finally:
            if service is not None:
                await service.stop()
                self.on_session(name, "closed")
        return websocket

    async def run_on(self, sock: socket.socket, ready: Callable[[], None]) -> None:
        """Serve on a bound socket until SIGINT or SIGTERM, then stop every session's process."""
        runner = web.AppRunner(await self._make_app(), access_log=None, handle_signals=False)
        await runner.setup()
        await web.SockSite(runner, sock).start()
        ready()
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        await stop.wait()
        await runner.cleanup()


def _int(value: str | None, default: int) -> int:
    return int(value) if value and value.isdigit() and 0 < int(value) < 1000 else default
