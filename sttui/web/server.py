"""The server: textual-serve's, with a token on every door and one sttui process per session.

textual-serve starts its app command for anyone who opens its websocket. Here the page (``/``)
and the websocket (``/ws/{token}/{name}``) both check the token before anything starts; a wrong
or missing one gets 403. The token travels in the websocket's path because textual-serve's page
script appends its own ``?width=…`` to the URL it is given. Only the bundled static files (the
terminal's script, styles and font) are served without a token.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import json
import logging
import shlex
import signal
import socket
import sys
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import aiohttp_jinja2
import jinja2
from aiohttp import WSMsgType, web
from aiohttp.http_exceptions import HttpProcessingError
from textual_serve.app_service import AppService
from textual_serve.server import Server

from sttui.web.access import Owner, Tokens, valid_name
from sttui.web.childenv import child_environment

log = logging.getLogger("sttui.serve")
STUDY_TOKEN_VAR = "STTUI_STUDY_TOKEN"  # read (and dropped) by ``serve-session --study``
TEMPLATES = Path(__file__).parent / "templates"
# What textual-serve's AppService adds to the environment for its web driver; kept as it sets them.
DRIVER_VARS: tuple[str, ...] = (
    "TEXTUAL_DRIVER",
    "TEXTUAL_FPS",
    "TEXTUAL_COLOR_SYSTEM",
    "TERM_PROGRAM",
    "TERM_PROGRAM_VERSION",
)
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


# What one session may send: a frame of keys (a paste) at most FRAME characters, and at most
# RATE characters a second over a window of a few seconds. Beyond them the frame is dropped
# and said once in the log: a 200,000-character paste once kept its app process growing for
# minutes after everyone had left. MAX_MESSAGE bounds any websocket message before it is read.
FRAME = 16_384
RATE = 32_768
MAX_MESSAGE = 64 * 1024
BACKLOG = 256 * 1024  # bytes the app process has not read yet; beyond, what comes is dropped
GRACE = 3.0  # seconds an app process has to quit when asked, then SIGTERM, then SIGKILL
PR_SET_PDEATHSIG = 1


@dataclass(frozen=True)
class Limits:
    """How many sessions may run at once: per token and in all."""

    per_token: int = 8
    total: int = 32


class _OneLineLog(logging.Logger):
    """aiohttp's server log, where a request it cannot parse (a request line over 8,190 bytes,
    a bad header) is one warning line, not a traceback; anything else is logged as it was."""

    def exception(self, msg: object, *args: object, exc_info: Any = True, **kwargs: Any) -> None:
        error = exc_info if isinstance(exc_info, BaseException) else sys.exc_info()[1]
        if isinstance(error, HttpProcessingError):
            reason = " ".join(str(error.message or type(error).__name__).split())[:200]
            log.warning("refused a request it could not read: %s (%s)", type(error).__name__, reason)
            return
        super().exception(msg, *args, exc_info=exc_info, **kwargs)


def _die_with_parent() -> None:
    """In the app process, before it runs: the kernel kills it if the server dies, so even a
    SIGKILLed server leaves no session behind (Linux; elsewhere the server's own stop does)."""
    with contextlib.suppress(Exception):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


@dataclass(frozen=True)
class Mode:
    """What each browser session opens: the annotation queue (``items``, ``text_filter``) or home."""

    annotate: bool = False
    items: str = "tasks"
    text_filter: str | None = None
    gold_rate: int | None = None  # one item in N is gold; None: the dimensions file's rate
    study: str | None = None  # each session plays its participant's next task of this study


class _Session(AppService):
    """One app process, started with the environment it was given instead of the server's."""

    def __init__(self, command: str, env: Mapping[str, str], **kwargs: Any) -> None:
        super().__init__(command, **kwargs)
        self._env = dict(env)

    def _build_environment(self, width: int = 80, height: int = 24) -> dict[str, str]:
        driver = super()._build_environment(width, height)
        return self._env | {k: driver[k] for k in DRIVER_VARS if k in driver}

    async def _open_app_process(self, width: int = 80, height: int = 24) -> asyncio.subprocess.Process:
        self._process = process = await asyncio.create_subprocess_shell(
            self.command,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=self._build_environment(width=width, height=height),
            preexec_fn=_die_with_parent if sys.platform.startswith("linux") else None,
        )
        assert process.stdin is not None
        self._stdin = process.stdin
        return process

    def _write(self, packet: bytes) -> bool:
        """Hand a packet to the app process without waiting for it to read: a process busy with
        a flood of keys once held the session (and so the end of its websocket) in ``drain``.
        False when it is gone, or has ``BACKLOG`` bytes unread already."""
        stdin = self._stdin
        if stdin is None or stdin.is_closing() or stdin.transport.get_write_buffer_size() > BACKLOG:
            return False
        try:
            stdin.write(packet)
        except (RuntimeError, ConnectionError):
            return False
        return True

    async def send_bytes(self, data: bytes) -> bool:
        return self._write(self.encode_packet(b"D", data))

    async def send_meta(self, data: dict[str, str | int | bool | None]) -> bool:
        return self._write(self.encode_packet(b"M", json.dumps(data).encode("utf-8")))

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    async def stop(self, grace: float = GRACE) -> None:
        """Ask the app to quit; if it has not within ``grace`` seconds (busy with a flood of
        keys, or hung), SIGTERM, then SIGKILL. Returns once the process is gone."""
        process = self._process
        if process is None:
            return
        if process.returncode is None:
            await self.send_meta({"type": "quit"})
            for stop in (None, process.terminate, process.kill):
                if stop is not None:
                    with contextlib.suppress(ProcessLookupError):
                        stop()
                try:
                    await asyncio.wait_for(process.wait(), grace)
                    break
                except TimeoutError:
                    continue
        if self._task is not None:
            task, self._task = self._task, None
            try:
                await asyncio.wait_for(task, grace)
            except (TimeoutError, asyncio.CancelledError):
                task.cancel()


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
        limits: Limits = Limits(),
        host: str = "127.0.0.1",
        study_tokens: Callable[[str], str | None] | None = None,
    ) -> None:
        super().__init__("sttui", title="sttui", templates_path=TEMPLATES)
        self.tokens, self.mode, self.limits, self.host = tokens, mode, limits, host
        # an anonymous study's participant tokens, looked up in the record: the slot's name, or None
        self.study_tokens = study_tokens
        self.names: dict[_Session, str] = {}  # each running session: whose it is
        self.env = child_environment(environ, allow_models=allow_models, db_url=db_url)
        self.on_session = on_session or (lambda name, event: None)
        self.sessions: dict[_Session, str] = {}  # each running session: its token
        self.port = 0  # set when it listens

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
            if self.mode.gold_rate is not None:
                argv += ["--gold-rate", str(self.mode.gold_rate)]
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
            if owner is None and presented and self.study_tokens is not None:
                slot = await asyncio.to_thread(self.study_tokens, presented)
                if slot is not None:
                    owner = Owner(slot)
                    request["study_token"] = presented
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

    async def handle_index(self, request: web.Request) -> web.Response:
        """The terminal page, once the session has a name: the token's owner, else the ``name``
        field, asked for by a small form."""
        token = request.query["token"]
        name = self._name(request, request.query.get("name"))
        if name is None:
            given = request.query.get("name")
            problem = "ASCII letters, digits, '.', '_' or '-', 40 at most." if given else ""
            context: dict[str, Any] = {"token": token, "name": given or "", "problem": problem}
            return aiohttp_jinja2.render_template("name.html", request, context, status=400 if given else 200)
        full = self._full(token)
        if full:
            log.warning("refused a session of %s: %s", name, full)
            return web.Response(status=429, text=f"429: {full}; close another sttui tab, or try again later\n")
        # a path: the page's script makes it an address on the page's own origin, as the browser
        # loaded it (wss:// behind an HTTPS proxy, the proxy's name and port), so nothing from
        # the request's headers decides where the keys go
        ws_url = f"/ws/{quote(token, safe='')}/{quote(name, safe='')}"
        font_size = request.query.get("fontsize", "16")
        context = {
            "font_size": int(font_size) if font_size.isdigit() and 6 <= int(font_size) <= 40 else 16,
            "app_websocket_url": ws_url,
            "config": {"static": {"url": "/static/"}},
            "application": {"name": f"sttui: {name}"},
        }
        return aiohttp_jinja2.render_template("app_index.html", request, context)

    def _full(self, token: str) -> str | None:
        """Why one more session cannot start now, or None."""
        if len(self.sessions) >= self.limits.total:
            return f"this server runs {self.limits.total} sessions already (--max-sessions)"
        if sum(t == token for t in self.sessions.values()) >= self.limits.per_token:
            return f"this token has {self.limits.per_token} sessions open already (--sessions-per-token)"
        return None

    async def _process_messages(self, websocket: web.WebSocketResponse, app_service: AppService) -> None:
        """textual-serve's, with what a session accepts bounded: a frame of keys of at most
        ``FRAME`` characters, ``RATE`` a second; the rest is dropped and said once."""
        budget, last, said = float(RATE), time.monotonic(), False
        async for message in websocket:
            if message.type != WSMsgType.TEXT:
                continue
            try:
                envelope = message.json()
                kind, data = envelope[0], envelope[1] if len(envelope) > 1 else None
            except (ValueError, TypeError, IndexError, KeyError):
                continue
            if kind == "stdin" and isinstance(data, str):
                now = time.monotonic()
                budget, last = min(float(RATE) * 2, budget + (now - last) * RATE), now
                if len(data) > FRAME or len(data) > budget:
                    if not said:
                        log.warning(
                            "dropped keys: %d characters at once (at most %d, %d a second)", len(data), FRAME, RATE
                        )
                        said = True
                    continue
                budget -= len(data)
                if not await app_service.send_bytes(data.encode("utf-8", "replace")) and not said:
                    log.warning("dropped keys: the session has %d KB unread (it is not keeping up)", BACKLOG // 1024)
                    said = True
            elif kind == "resize" and isinstance(data, dict):
                width, height = _int(str(data.get("width")), 80), _int(str(data.get("height")), 24)
                await app_service.set_terminal_size(width, height)
            elif kind == "ping":
                await websocket.send_json(["pong", data])
            elif kind == "blur":
                await app_service.blur()
            elif kind == "focus":
                await app_service.focus()

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        """As textual-serve's, with the session's own command and environment, and its process
        ended (SIGKILL at the last) whenever the websocket closes."""
        name = self._name(request, request.match_info["name"])
        if name is None:
            raise web.HTTPBadRequest(text="400: a session needs a name (letters, digits, '.', '_' or '-')\n")
        websocket = web.WebSocketResponse(heartbeat=15, max_msg_size=MAX_MESSAGE)
        if not websocket.can_prepare(request).ok:
            log.warning("refused %s on a websocket's address without a websocket upgrade", request.method)
            raise web.HTTPBadRequest(text="400: this address is the terminal's websocket; open the page instead\n")
        token = request.match_info["token"]
        full = self._full(token)
        if full:
            log.warning("refused a session of %s: %s", name, full)
            raise web.HTTPTooManyRequests(text=f"429: {full}\n")
        width = _int(request.query.get("width"), 80)
        height = _int(request.query.get("height"), 24)
        service: _Session | None = None
        env = self.env
        if "study_token" in request:  # the participant's own token: the session joins the study by it
            env = {**env, STUDY_TOKEN_VAR: request["study_token"]}
        try:
            await websocket.prepare(request)
            if self.mode.study:
                await self._take_over(name)
            service = _Session(
                self.command_for(name),
                env,
                write_bytes=websocket.send_bytes,
                write_str=websocket.send_str,
                close=websocket.close,
                download_manager=self.download_manager,
                debug=False,
            )
            self.sessions[service] = token
            self.names[service] = name
            await service.start(width, height)
            self.on_session(name, "opened")
            await self._process_messages(websocket, service)
        except asyncio.CancelledError:
            with contextlib.suppress(Exception):
                await websocket.close()
        except Exception as error:
            log.error("session of %s failed: %s", name, " ".join(str(error).split())[:300])
        finally:
            if service is not None:
                await asyncio.shield(self._end(service))
                self.on_session(name, "closed")
        return websocket

    async def _end(self, service: _Session) -> None:
        try:
            await service.stop()
        finally:
            self.sessions.pop(service, None)
            self.names.pop(service, None)

    async def _take_over(self, name: str) -> None:
        """A study participant plays in one session at a time: a new one (a reload, or the page
        opened again after a dropped connection the server has not noticed yet) ends the old one
        first, so one process writes their episode, and the new one resumes it."""
        old = [service for service, who in self.names.items() if who == name]
        if old:
            log.info("session of %s opened again: the earlier one ends first", name)
            await asyncio.gather(*(self._end(service) for service in old), return_exceptions=True)

    async def run_on(self, sock: socket.socket, ready: Callable[[], None]) -> None:
        """Serve on a bound socket until SIGINT or SIGTERM, then stop every session's process."""
        server_log = _OneLineLog("sttui.serve.http")
        server_log.parent = log
        runner = web.AppRunner(await self._make_app(), access_log=None, handle_signals=False, logger=server_log)
        await runner.setup()
        self.port = sock.getsockname()[1]
        await web.SockSite(runner, sock).start()
        ready()
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        await stop.wait()
        # every session's process first (each asked, then SIGTERM, then SIGKILL), then the sockets
        await asyncio.gather(*(service.stop() for service in list(self.sessions)), return_exceptions=True)
        await runner.cleanup()


def _int(value: str | None, default: int) -> int:
    return int(value) if value and value.isdigit() and 0 < int(value) < 1000 else default
