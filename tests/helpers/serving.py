"""A real ``sttui serve`` for tests: started on a free port in its own process group, its URL read
from what it prints, its app processes found in /proc, and all of it killed at the end."""

from __future__ import annotations

import contextlib
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from tests.conftest import ROOT


@dataclass
class Served:
    proc: subprocess.Popen[str]
    url: str  # as printed, with ?token=… when one token was generated
    base: str  # http://127.0.0.1:PORT
    token: str | None
    lines: list[str] = field(default_factory=list)

    def children(self) -> list[int]:
        """Every process below the server (the app processes of its sessions)."""
        return descendants(self.proc.pid)

    def output(self) -> str:
        return "".join(self.lines)

    def ws(self, token: str, name: str) -> str:
        return self.base.replace("http://", "ws://") + f"/ws/{token}/{name}"


def descendants(pid: int) -> list[int]:
    parent: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            parent[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    found, frontier = [], [pid]
    while frontier:
        p = frontier.pop()
        kids = [c for c, pp in parent.items() if pp == p]
        found += kids
        frontier += kids
    return found


def proc_environ(pid: int) -> dict[str, str]:
    raw = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    return dict(item.decode(errors="replace").split("=", 1) for item in raw if b"=" in item)


def proc_argv(pid: int) -> list[str]:
    return [a.decode() for a in Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0") if a]


def wait_for(predicate, timeout: float = 60, every: float = 0.2, what: str = "condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(every)
    raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")


@contextlib.contextmanager
def serving(cwd: Path, db: str, *args: str, env: dict[str, str] | None = None) -> Iterator[Served]:
    """``sttui --db DB serve --port 0 ARGS`` from ``cwd``, this checkout's sttui on the path."""
    environ = dict(os.environ if env is None else env)
    environ["PYTHONPATH"] = str(ROOT)
    proc = subprocess.Popen(
        [sys.executable, "-m", "sttui", "--db", db, "serve", "--port", "0", *args],
        cwd=cwd,
        env=environ,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        text=True,
        start_new_session=True,  # its sessions' processes join its group: one killpg ends all
    )
    lines: list[str] = []
    seen: queue.Queue[str] = queue.Queue()

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.append(line)
            seen.put(line)

    threading.Thread(target=read, daemon=True).start()
    try:
        deadline, url = time.monotonic() + 60, None
        while url is None:
            try:
                line = seen.get(timeout=max(0.1, deadline - time.monotonic()))
            except queue.Empty:
                raise AssertionError(f"sttui serve printed no URL: {''.join(lines)}") from None
            if match := re.search(r"open (http://\S+)", line):
                url = match.group(1)
        parts = urlsplit(url)
        token = parse_qs(parts.query).get("token", [None])[0]
        if token == "<your":  # per-person tokens: none is printed
            token = None
        yield Served(proc, url, f"http://{parts.netloc}", token, lines)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=15)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)  # whatever of the group is left
        proc.wait(timeout=15)
