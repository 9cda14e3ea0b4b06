"""Key press to rendered result in a real pseudo-terminal, as a person sees it, against a minimal
Textual app with an input box measured the same way in the same run.

Each app runs in its own child process on a pty (120x40, xterm-256color), driven through the
pty as a person at a keyboard drives it. sttui shows the play screen of the bundled insulin task
with an episode that already holds 500 events (a tool call repeated), the person in the agent
seat; the minimal app has an Input and a Log that gets one line per submitted entry. For each
press the text of a call is typed (``get_vehicle_status(vehicle_id=TRK-9)``), the output is let
settle, then enter is sent: the latency is from enter to the last byte of the output burst it
causes once the app has handled it (the burst ends at 40 ms of silence), the CPU per press the child's CPU time
(``/proc/PID/stat``) from enter to that silence. Rounds of presses alternate between the apps.
Targets: median latency at most 16.7 ms (one 60 Hz frame), CPU per press at most 1.5x the
minimal app's. Also printed, without a target: the CPU per key of typing the call's first
characters one at a time, each drawn before the next, as a person types (the rest arrive together).

    python bench/keys.py [--presses 20] [--rounds 3]
"""

from __future__ import annotations

import argparse
import fcntl
import os
import select
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import PYTHON, ROOT, fmt, header, median, result, scratch

CALL = b"get_vehicle_status(vehicle_id=TRK-9)"
ONE_BY_ONE = 8  # its first characters are typed one at a time, each let settle
QUIET = 0.04
TICK = os.sysconf("SC_CLK_TCK")

MINIMAL = """
import os
from textual.app import App
from textual.widgets import Input, Log
class Minimal(App):
    def compose(self):
        yield Log(); yield Input(id="entry")
    def on_mount(self):
        self.query_one(Input).focus()
        os.write(int(os.environ["READY_FD"]), b"r")
    def on_input_submitted(self, event):
        self.query_one(Log).write_line(f"result of {event.value}: ok")
        event.input.value = ""
        os.write(int(os.environ["READY_FD"]), b"r")
Minimal().run()
"""

# The play screen with 500 events already in the episode, as bench/tui.py builds it; a byte on
# READY_FD each time the person's controller is asked for an action after new events (from the
# seat itself: a poll running in the measured process would be counted as sttui's CPU).
STTUI = """
import os, sys, threading
from pathlib import Path
from sttui.controllers.baselines import ScriptedUser
from sttui.controllers.human import HumanController
from sttui.core.actions import ToolCall
from sttui.core.loader import load_task
from sttui.running.session import PlaySession
from sttui.tui.app import SttuiApp
from sttui.tui.launch import Launch
from sttui.tui.play import PlayScreen

ready = int(os.environ["READY_FD"])
loaded = load_task(Path("tasks/stt/logistics/insulin-reefer-fault-st2-easy.yaml"))
loaded.task = loaded.task.model_copy(update={"max_steps": 10_000})

class Asked(HumanController):
    # the person's seat, saying "ready" on READY_FD whenever it is asked for an action after new
    # events (the press's events are in): as the minimal app says it from its own handler, with
    # no poll running in the measured process

    events = None
    was = -1

    async def act(self, view):
        n = len(self.events)
        if n != self.was:
            self.was = n
            os.write(ready, b"r")
        return await super().act(view)

class Keys(SttuiApp):
    def on_mount(self):
        super().on_mount()
        self.with_record(lambda: None)  # (plain home opens the record when first needed: now)
        self._poll = self.set_interval(0.02, self.setup)  # until the record is open; then stopped
    def setup(self):
        if self.store is None:
            return
        self._poll.stop()
        human = Asked("bench")
        session = PlaySession(self.store, loaded, human, ScriptedUser())
        session.episode.start()
        session.episode.start = lambda: None
        while len(session.episode.events) < 500:
            session.episode.apply(ToolCall("get_vehicle_status", {"vehicle_id": "TRK-9"}), human.name)
        session.writer.flush()
        human.events = session.episode.events
        self.push_screen(PlayScreen(session, human))
        session.clock.start()

Keys(Launch.build(Path("tasks"), db_url=sys.argv[1], human="bench")).run()
"""


class Pty:
    """One app in a child process on a pseudo-terminal."""

    def __init__(self, code: str, args: list[str], work: Path, name: str) -> None:
        script = work / f"app_{name}.py"
        script.write_text(code)
        self.master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
        self.ready_r, ready_w = os.pipe()
        env = {
            **os.environ,
            "TERM": "xterm-256color",
            "COLORTERM": "truecolor",
            "READY_FD": str(ready_w),
            "STTUI_CACHE_DIR": str(work / "cache"),
        }
        self.name, self.tail, self.last = name, b"", 0.0
        self.proc = subprocess.Popen(
            [PYTHON, str(script), *args],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            cwd=ROOT,
            env=env,
            pass_fds=(ready_w,),
            start_new_session=True,
        )
        os.close(slave)
        os.close(ready_w)

    def cpu(self) -> float:
        """CPU seconds of the child's threads so far, to the nanosecond (the sum of
        ``/proc/PID/task/*/schedstat``). A thread that has ended drops out of the sum: ``main``
        compares the whole run's CPU with the process's own count in clock ticks."""
        total = 0
        for task in os.listdir(f"/proc/{self.proc.pid}/task"):
            try:
                with open(f"/proc/{self.proc.pid}/task/{task}/schedstat") as f:
                    total += int(f.read().split()[0])
            except (FileNotFoundError, ProcessLookupError):  # (a thread that ended just now)
                continue
        return total / 1e9

    def ticks(self) -> float:
        with open(f"/proc/{self.proc.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / TICK

    def drain(self, quiet: float = QUIET, limit: float = 5.0) -> float:
        """Read the output until ``quiet`` seconds pass without any; the time of its last byte."""
        end = time.perf_counter() + limit
        while time.perf_counter() < end:
            r, _, _ = select.select([self.master], [], [], quiet)
            if not r:
                break
            self.read()
        return self.last

    def read(self) -> None:
        try:
            data = os.read(self.master, 65536)
        except OSError:
            data = b""
        if not data:
            raise SystemExit(f"{self.name} ended early: {self.tail[-2000:].decode(errors='replace')}")
        self.tail = (self.tail + data)[-4000:]
        self.last = time.perf_counter()

    def wait_ready(self, limit: float = 60.0) -> None:
        end = time.perf_counter() + limit
        while time.perf_counter() < end:
            r, _, _ = select.select([self.master, self.ready_r], [], [], 0.5)
            if self.master in r:
                self.read()
            if self.ready_r in r:
                os.read(self.ready_r, 64)
                return
        raise SystemExit(f"{self.name} never became ready: {self.tail[-1500:].decode(errors='replace')}")

    def press(self) -> tuple[float, float, float]:
        """Type a call, let it settle, press enter: (latency to the end of its output, CPU, and
        the CPU per key of typing its first characters one at a time)."""
        typing = self.cpu()
        for i in range(ONE_BY_ONE):  # as a person types: each key drawn before the next
            os.write(self.master, CALL[i : i + 1])
            self.drain()
        typing = (self.cpu() - typing) / ONE_BY_ONE
        os.write(self.master, CALL[ONE_BY_ONE:])
        self.drain()
        c0 = self.cpu()
        t0 = self.last = time.perf_counter()
        os.write(self.master, b"\r")
        self.wait_ready()  # the press handled (its events in), then its output to the end
        last = self.drain()
        return last - t0, self.cpu() - c0, typing

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait()
        os.close(self.master)
        os.close(self.ready_r)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--presses", type=int, default=20, help="presses per app per round")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    header("key press to rendered result, real pseudo-terminal")
    work = scratch("sttui-bench-keys-")
    apps = {
        "minimal": Pty(MINIMAL, [], work, "minimal"),
        "sttui": Pty(STTUI, [f"sqlite:///{work / 'keys.db'}"], work, "sttui"),
    }
    try:
        for app in apps.values():
            app.wait_ready()
            app.drain(quiet=0.3)
        begun = {n: (app.cpu(), app.ticks()) for n, app in apps.items()}
        lat: dict[str, list[float]] = {n: [] for n in apps}
        cpu: dict[str, list[float]] = {n: [] for n in apps}
        typed: dict[str, list[float]] = {n: [] for n in apps}
        for r in range(args.rounds):
            for name in list(apps) if r % 2 == 0 else list(apps)[::-1]:
                spent = typing = 0.0
                for _ in range(args.presses):
                    latency, c, t = apps[name].press()
                    lat[name].append(latency)
                    spent += c
                    typing += t
                cpu[name].append(spent / args.presses)
                typed[name].append(typing / args.presses)
        # the threads' sum against the process's own count over the whole run: a thread that
        # ran and ended (dropping out of the sum) would show as a gap
        whole = {n: (app.cpu() - begun[n][0], app.ticks() - begun[n][1]) for n, app in apps.items()}
    finally:
        for app in apps.values():
            app.close()
    for name in apps:
        print(f"   {name:<8} latency {fmt(lat[name])}  CPU per press {fmt(cpu[name])}")
    for name, (threads, ticks) in whole.items():
        print(f"   {name:<8} whole run: threads' CPU {threads:.2f} s, process's own count {ticks:.2f} s")
    for name in apps:
        print(f"   {name:<8} CPU per key typed, one at a time {fmt(typed[name])}")
    ours, ref = median(lat["sttui"]) * 1000, median(lat["minimal"]) * 1000
    per = median(cpu["sttui"]) / max(median(cpu["minimal"]), 1e-3)
    result(
        "key press -> rendered, 500+ events, real terminal",
        f"median {ours:.1f} ms (minimal app {ref:.1f} ms); CPU per press {per:.2f}x the minimal app's",
        "<= 16.7 ms; CPU <= 1.5x",
        ours <= 16.7 and per <= 1.5,
    )


if __name__ == "__main__":
    main()
