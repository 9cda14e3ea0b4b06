"""An OpenAI-compatible chat-completions server on 127.0.0.1 for the tests (standard library only).

It plays a script: for each request it asks ``respond(request_json)`` for (status, body, delay),
or (status, body, delay, headers).
``planner`` builds the usual script: it answers with the next step of a plan, counted from
the tool results already in the conversation, and can be told to fail first.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Response = tuple[int, dict[str, Any], float]


def completion(message: dict[str, Any], prompt_tokens: int = 120, completion_tokens: int = 20) -> dict[str, Any]:
    return {
        "id": "chatcmpl-stub",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": "stub-model",
        "choices": [
            {"index": 0, "message": message, "finish_reason": "tool_calls" if message.get("tool_calls") else "stop"}
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


def tool_call(name: str, args: dict[str, Any] | str, call_id: str = "call_1") -> dict[str, Any]:
    arguments = args if isinstance(args, str) else json.dumps(args)
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def say(text: str) -> dict[str, Any]:
    return {"role": "assistant", "content": text}


def calls(*items: dict[str, Any]) -> dict[str, Any]:
    return {"role": "assistant", "content": None, "tool_calls": list(items)}


class StubServer:
    def __init__(self, respond: Callable[[dict[str, Any]], Response]):
        self.respond = respond
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                with stub.lock:
                    stub.requests.append(body)
                status, payload, delay, *extra = stub.respond(body)
                if delay:
                    time.sleep(delay)
                data = json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    for name, value in (extra[0] if extra else {}).items():  # e.g. Retry-After
                        self.send_header(name, value)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def __enter__(self) -> StubServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()


def error(status: int, message: str) -> Response:
    return status, {"error": {"message": message, "type": "server_error", "code": status}}, 0.0


def planner(
    steps: list[dict[str, Any]], failures: list[Response] | None = None, delay: float = 0.0
) -> Callable[[dict[str, Any]], Response]:
    """Answer each request with plan step N, where N counts the agent's turns so far.

    ``steps`` are assistant messages (``calls(...)`` or ``say(...)``); ``failures`` are returned
    first, one per request, before the plan starts (429s, 500s, slow or malformed answers).
    """
    pending = list(failures or [])
    lock = threading.Lock()

    def respond(request: dict[str, Any]) -> Response:
        with lock:
            if pending:
                return pending.pop(0)
        done = sum(1 for m in request["messages"] if m["role"] == "assistant")
        if done >= len(steps):
            return 200, completion(say("All done.")), delay
        return 200, completion(steps[done]), delay

    return respond
