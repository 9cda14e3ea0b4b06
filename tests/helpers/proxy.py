"""A reverse proxy in front of a server, as a lab puts one before ``sttui serve``: pages and
websockets forwarded to it, with the browser's ``Host`` passed on (nginx's ``proxy_set_header
Host $host``). Run on its own event loop in a thread; ``base`` is its address."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Iterator

import aiohttp
from aiohttp import WSMsgType, web

# what a page's answer keeps on its way back (the body is passed as read, already decoded)
KEPT = ("content-type", "content-security-policy", "referrer-policy", "cache-control", "x-content-type-options")


async def _pump(source: aiohttp.ClientWebSocketResponse | web.WebSocketResponse, sink: object) -> None:
    async for message in source:
        if message.type == WSMsgType.TEXT:
            await sink.send_str(message.data)  # type: ignore[attr-defined]
        elif message.type == WSMsgType.BINARY:
            await sink.send_bytes(message.data)  # type: ignore[attr-defined]
        else:
            break


def _app(target: str, open_sockets: set[web.WebSocketResponse]) -> web.Application:
    async def forward(request: web.Request) -> web.StreamResponse:
        headers = {"Host": request.host}
        async with aiohttp.ClientSession() as http:
            if request.headers.get("Upgrade", "").lower() == "websocket":
                inner = web.WebSocketResponse()
                await inner.prepare(request)
                open_sockets.add(inner)
                url = target.replace("http://", "ws://") + request.path_qs
                async with http.ws_connect(url, headers=headers) as outer:
                    both = [asyncio.ensure_future(_pump(inner, outer)), asyncio.ensure_future(_pump(outer, inner))]
                    await asyncio.wait(both, return_when=asyncio.FIRST_COMPLETED)
                    for task in both:
                        task.cancel()
                open_sockets.discard(inner)
                return inner
            async with http.get(target + request.path_qs, headers=headers, allow_redirects=False) as answer:
                body = await answer.read()
                kept = {k: v for k, v in answer.headers.items() if k.lower() in KEPT}
                return web.Response(body=body, status=answer.status, headers=kept)

    app = web.Application()
    app.router.add_route("GET", "/{tail:.*}", forward)
    return app


@contextlib.contextmanager
def proxy(target: str) -> Iterator[str]:
    """A proxy to ``target`` (``http://127.0.0.1:PORT``) on a free port; yields its base URL."""
    loop = asyncio.new_event_loop()
    started: list[str] = []
    ready = threading.Event()
    open_sockets: set[web.WebSocketResponse] = set()
    runner = web.AppRunner(_app(target, open_sockets))

    async def start() -> None:
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        started.append(f"http://127.0.0.1:{port}")
        ready.set()

    def run() -> None:
        asyncio.set_event_loop(loop)
        loop.run_until_complete(start())
        loop.run_forever()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    assert ready.wait(30), "the proxy did not start"
    try:
        yield started[0]
    finally:

        async def stop() -> None:  # (an open websocket would hold the cleanup)
            for socket in list(open_sockets):
                await socket.close()
            await runner.cleanup()

        asyncio.run_coroutine_threadsafe(stop(), loop).result(30)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(30)
