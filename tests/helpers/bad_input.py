"""The bad-input sweep of issue 13: every hostile case, run as a real `sttui` command in a fresh
folder, with its exit code and the first line it printed. tests/test_bad_input_sweep.py runs
each as a test (non-zero exit, or the exit stated; no traceback; no key; no hang).

    python -m tests.helpers.bad_input          # the table: case, exit, first line of stderr
"""

from __future__ import annotations

import contextlib
import json
import os
import pty
import re
import select
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
MINI = ROOT / "tests" / "fixtures" / "mini"
GOOD = (MINI / "good.yaml").read_text()
STT = ROOT / "tasks" / "stt" / "logistics" / "insulin-reefer-fault-st2-easy.yaml"
EXPLORE = ROOT / "tasks" / "explore" / "finance" / "additive-1.yaml"
INSULIN = "logistics-insulin-reefer-st2-easy"
KEY = "sk-sweep-0123456789abcdefABCDEF"
TIMEOUT = 60  # a hang guard only: every case ends within seconds


@dataclass
class Case:
    name: str
    build: Callable[[Path], list[str]]  # writes its inputs into the folder; the argv after `sttui`
    expect: int | None = None  # the exit code; None: any non-zero
    says: str = ""  # a fragment the output must hold (stderr, else stdout)
    env: dict[str, str] = field(default_factory=dict)
    stub: Callable[[dict[str, Any]], Any] | None = None  # a model provider answering like this
    lock: bool = False  # another process holds the record's write lock meanwhile
    mount: str = ""  # a tmpfs of this size at ./fs ("ro" after the first command: read-only)
    pty: bool = False  # the workbench, in a terminal: quit with ctrl+q once it is up


@dataclass
class Outcome:
    code: int | None  # None: it hung, or the case could not be set up here (skipped)
    stdout: str
    stderr: str
    skipped: str = ""

    def line(self, fragment: str = "") -> str:
        """The first line holding ``fragment`` (stderr first), else the first line printed."""
        for text in (self.stderr, self.stdout):
            for line in text.splitlines():
                if fragment and fragment in line:
                    return line.strip()
        return self.first_line

    @property
    def first_line(self) -> str:
        for text in (self.stderr, self.stdout):
            for line in text.splitlines():
                if line.strip():
                    return line.strip()
        return ""


# -- building inputs -------------------------------------------------------------------------


def task(folder: Path, old: str = "", new: str = "", name: str = "task.yaml", text: str | None = None) -> Path:
    """The mini warehouse task, changed, with its environment beside it."""
    shutil.copy(MINI / "warehouse.py", folder / "warehouse.py")
    if text is None:
        assert old in GOOD, old
        text = GOOD.replace(old, new, 1)
    path = folder / name
    path.write_text(text)
    return path


def check(old: str, new: str) -> Callable[[Path], list[str]]:
    return lambda d: ["check", str(task(d, old, new))]


def explore(old: str, new: str, count: int = 1) -> Callable[[Path], list[str]]:
    def build(d: Path) -> list[str]:
        source = EXPLORE.read_text()
        changed = re.sub(old, new, source, count=count)
        assert changed != source
        (d / "e.yaml").write_text(changed)
        return ["check", str(d / "e.yaml")]

    return build


def laughs(d: Path) -> list[str]:
    bomb = 'lol: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
    bomb += "".join(f"l{i}: &{chr(98 + i)} [" + ",".join([f"*{chr(97 + i)}"] * 9) + "]\n" for i in range(9))
    return [
        "check",
        str(task(d, "kind: stt", "kind: stt\nextra:\n" + "".join(f"  {ln}\n" for ln in bomb.splitlines()))),
    ]


def big(d: Path) -> list[str]:
    return ["check", str(task(d, "domain: warehouse", "domain: warehouse\n# " + "x" * 50_000_000))]


def fifo_folder(d: Path) -> Path:
    folder = d / "tasks"
    folder.mkdir()
    task(folder, text=GOOD, name="good.yaml")
    os.mkfifo(folder / "x.yaml")
    return folder


def broken_folder(d: Path) -> Path:
    """A task folder with one good task and every kind of broken file beside it."""
    folder = fifo_folder(d)
    laughs(folder)  # task.yaml: the bomb
    (folder / "dup.yaml").write_text(GOOD.replace("domain: warehouse", "domain: warehouse\ndomain: again"))
    (folder / "deep.yaml").write_text("x: " + "[" * 10_000 + "]" * 10_000)
    (folder / "alias.yaml").write_text("a: &a [*a]\n")
    (folder / "nul.yaml").write_bytes(b"id: x\n\xff\xfe\x00")
    (folder / "tz.yaml").write_text(
        GOOD.replace('start: "2024-03-04T08:00:00"', 'start: "2024-03-04T08:00:00+00:00"').replace(
            "when: {tool: get_crate, args: {crate_id: CR-1}}", 'when: {at: "2024-03-04T09:00:00"}'
        )
    )
    return folder


_EXPORT: dict[str, list[str]] = {}


def export_lines() -> list[str]:
    """A recorded export of one stt episode (made once per process)."""
    if "lines" not in _EXPORT:
        with tempfile.TemporaryDirectory(prefix="sttui-sweep-") as tmp:
            db = f"sqlite:///{tmp}/src.db"
            env = environment(Path(tmp))
            for argv in (["run", str(STT)], ["export", "--all", "-o", f"{tmp}/e.jsonl"]):
                done = subprocess.run(
                    [sys.executable, "-m", "sttui", "--db", db, *argv], env=env, cwd=tmp, capture_output=True
                )
                assert done.returncode == 0, done.stderr
            _EXPORT["lines"] = Path(tmp, "e.jsonl").read_text().splitlines()
    return list(_EXPORT["lines"])


def imported(change: Callable[[list[dict[str, Any]]], None] | None = None, raw: str | None = None):
    """`import` of the recorded export, changed."""

    def build(d: Path) -> list[str]:
        if raw is not None:
            text = raw
        else:
            objs = [json.loads(line) for line in export_lines()]
            assert change is not None
            change(objs)
            text = "".join(json.dumps(o) + "\n" for o in objs)
        (d / "in.jsonl").write_text(text)
        return ["import", "in.jsonl"]

    return build


def first(kind: str) -> Callable[[list[dict[str, Any]]], dict[str, Any]]:
    return lambda objs: next(o for o in objs if o.get("record") == kind)


def set_in(kind: str, key: str, value: Any) -> Callable[[list[dict[str, Any]]], None]:
    def change(objs: list[dict[str, Any]]) -> None:
        obj = first(kind)(objs)
        obj[key] = value

    return change


def nan_seq(d: Path) -> list[str]:
    lines = export_lines()
    i = next(i for i, line in enumerate(lines) if '"record": "event"' in line)
    lines[i] = re.sub(r'"seq": \d+', '"seq": NaN', lines[i], count=1)
    (d / "in.jsonl").write_text("\n".join(lines) + "\n")
    return ["import", "in.jsonl"]


def truncated(d: Path) -> list[str]:
    lines = export_lines()
    (d / "in.jsonl").write_text("\n".join(lines[:-3]) + "\n")  # cut at a line boundary
    return ["import", "in.jsonl"]


RATING = {"item_kind": "task", "item_id": INSULIN, "dimension": "checklist_correctness", "annotator": "ana", "value": 4}


def ratings(line: str | bytes) -> Callable[[Path], list[str]]:
    def build(d: Path) -> list[str]:
        good = json.dumps(RATING).encode() + b"\n"
        bad = line if isinstance(line, bytes) else line.encode()
        (d / "r.jsonl").write_bytes(good + bad + b"\n")
        return ["import-ratings", "r.jsonl"]

    return build


def rating(**changes: Any) -> Callable[[Path], list[str]]:
    return ratings(json.dumps({**RATING, **changes}))


def prepare(d: Path, argv: list[str]) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "sttui", "--db", db_of(d), *argv], env=environment(d), cwd=d, capture_output=True
    )
    assert done.returncode == 0, done.stderr


def no_longer_loads(command: str) -> Callable[[Path], list[str]]:
    """An episode whose environment read a file beside it that is gone now."""

    def build(d: Path) -> list[str]:
        folder = d / "fragile"
        folder.mkdir()
        path = task(folder, text=GOOD)
        (folder / "rates.json").write_text("{}")
        env = folder / "warehouse.py"
        env.write_text(
            env.read_text() + "\nimport pathlib\npathlib.Path(__file__).with_name('rates.json').read_text()\n"
        )
        prepare(d, ["run", str(path)])
        shutil.rmtree(folder)
        eid = sqlite3.connect(d / "r.db").execute("select id from episodes").fetchone()[0]
        return ["replay", eid] if command == "replay" else ["export", eid, "-o", "out.jsonl"]

    return build


def locked_run(d: Path) -> list[str]:
    from sttui.store.store import Store

    Store(db_of(d)).close()  # an empty record (a command that only reads makes none)
    return ["run", str(STT)]


def locked_read(d: Path) -> list[str]:
    prepare(d, ["run", str(STT)])
    return ["sessions"]


def model_run(d: Path) -> list[str]:
    return ["run", str(STT), "--agent", "model:stub", "--json"]


def answer(message: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {
        "id": "x",
        "object": "chat.completion",
        "created": 0,
        "model": "stub-model",
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        **extra,
    }


def refusing(status: int) -> Callable[[dict[str, Any]], Any]:
    return lambda r: (status, {"error": {"message": f"no: Bearer {KEY}", "type": "x", "code": status}}, 0.0)


def retry_after_then_end() -> Callable[[dict[str, Any]], Any]:
    seen = []

    def respond(request: dict[str, Any]) -> Any:
        seen.append(1)
        if len(seen) == 1:
            return 429, {"error": {"message": "slow down", "type": "x", "code": 429}}, 0.0, {"Retry-After": "1"}
        end = {"id": "c", "type": "function", "function": {"name": "end_episode", "arguments": '{"reason": "done"}'}}
        return 200, answer({"role": "assistant", "content": None, "tool_calls": [end]}), 0.0

    return respond


def through_a_file(d: Path) -> list[str]:
    (d / "plain").write_text("not a folder")
    return ["--db", f"sqlite:///{d}/plain/x.db", "sessions"]


def token_file(content: bytes | None) -> Callable[[Path], list[str]]:
    """`serve --token-file` of this content (None: a FIFO no one writes to)."""

    def build(d: Path) -> list[str]:
        path = d / "tokens.yaml"
        if content is None:
            os.mkfifo(path)
        else:
            path.write_bytes(content)
        return ["serve", "--port", "0", "--token-file", str(path)]

    return build


TOKEN = b"aaaaaaaaaaaaaaaaaaaa1"


def home(d: Path) -> list[str]:
    broken_folder(d)
    return []


# -- the cases -------------------------------------------------------------------------------

START = 'start: "2024-03-04T08:00:00"'
CASES: list[Case] = [
    # task files
    Case(
        "task: tz-aware clock.start, naive when.at",
        lambda d: ["check", str(task(d, text=_tz_text()))],
        says="without a UTC offset",
    ),
    Case("task: year-9999 clock", check("2024-03-04T08:00:00", "9999-12-31T23:00:00"), says="clock"),
    Case(
        "task: shift_clock 1e15",
        check("- {move: crates.CR-1, to: BAY-B}", "- {shift_clock: 1.0e+15}"),
        says="shift_clock",
    ),
    Case("task: NaN minutes", check(START, START + "\n  tool_minutes: {default: .nan}"), says="finite number"),
    Case("task: negative tool_minutes", check(START, START + "\n  tool_minutes: {default: -5}"), says=">= 0"),
    Case("task: infinite tool_minutes", check(START, START + "\n  tool_minutes: {default: .inf}"), says="finite"),
    Case("task: 30-digit seed", check("kind: stt", "kind: stt\nseed: 123456789012345678901234567890"), says="seed"),
    Case(
        "task: recursive alias",
        check("withheld: {crate_weight: 40 kg}", "withheld: &w {crate_weight: 40 kg, again: *w}"),
        says="contains it",
    ),
    Case(
        "task: 10,000-deep nesting",
        check("domain: warehouse", "domain: warehouse\nextra: " + "[" * 10_000 + "]" * 10_000),
        says="nested deeper",
    ),
    Case("task: billion laughs", laughs, says="aliases are expanded"),
    Case(
        "task: explore batches 1000000000",
        explore(r"batches: 12", "batches: 1000000000"),
        says="batches",
    ),
    Case("task: infinite explore range", explore(r"range: \[[^\]]*\]", "range: [0, .inf]"), says="finite"),
    Case(
        "task: explore range wider than a float",
        explore(r"range: \[[^\]]*\]", "range: [-1.0e+308, 1.0e+308]"),
        says="wider than a float holds",
    ),
    Case("task: 50 MB file", big, says="limited to 2,000,000"),
    Case("task: duplicate keys", check("domain: warehouse", "domain: warehouse\ndomain: depot"), says="duplicate key"),
    Case(
        "task: dotted state key",
        check(
            "CR-1: {contents: bearings, location: BAY-A}",
            "CR-1: {contents: bearings, location: BAY-A}\n    CR.2: {contents: x, location: BAY-A}",
        ),
        says="contains a dot",
    ),
    Case("task: FIFO x.yaml, tasks", lambda d: ["tasks", str(fifo_folder(d))], expect=0, says="mini-crate-s1-easy"),
    # (the folder's good task fails `check` for a reason of its own: its naive plan passes; the FIFO is skipped)
    Case("task: FIFO x.yaml, check", lambda d: ["check", str(fifo_folder(d))], expect=1, says="0 of 1 task files"),
    Case("task: FIFO x.yaml, check it by name", lambda d: ["check", str(fifo_folder(d) / "x.yaml")], says="regular"),
    Case("home: every broken file at once", home, pty=True, expect=0, says="dup.yaml:5"),
    # serve's token file
    Case("serve: token file is a FIFO", token_file(None), expect=2, says="not a regular file"),
    Case("serve: token file /dev/zero", lambda d: ["serve", "--token-file", "/dev/zero"], expect=2, says="regular"),
    Case("serve: token file of 40 MB", token_file(b"ana: " + TOKEN + b"\n#" + b"x" * 40_000_000), expect=2, says="KB"),
    Case("serve: token file names ana twice", token_file(b"ana: " + TOKEN + b"\nana: " + TOKEN[::-1]), says="twice"),
    Case("serve: token file in UTF-16", token_file(("ana: " + TOKEN.decode()).encode("utf-16")), says="UTF-8"),
    Case("serve: token file of binary", token_file(b"\x89PNG\r\n\x1a\n\xff\xfe\xfd"), says="not UTF-8"),
    Case("serve: token file name with ESC", token_file(b'"\\e[31mred": ' + TOKEN), says="a name is letters"),
    # ratings
    Case("import-ratings: score 3.7", rating(value=3.7), says="not a whole number"),
    Case("import-ratings: score true", rating(value=True), says="not a whole number"),
    Case("import-ratings: a JSON array line", ratings("[1, 2, 3]"), says="JSON array, not an object"),
    Case("import-ratings: a bare number", ratings("7"), says="JSON number, not an object"),
    Case("import-ratings: latin-1 bytes", ratings('{"annotator": "Jos\xe9"}'.encode("latin-1")), says="r.jsonl:2"),
    Case("import-ratings: a 200 KB comment", rating(comment="x" * 200_000), says="at most 10,000"),
    Case("import-ratings: a list id", rating(item_id=[INSULIN]), says="item_id must be text"),
    # imports
    Case("import: seq 10**30", imported(set_in("event", "seq", 10**30)), says="nothing was imported"),
    Case("import: string timestamp", imported(set_in("event", "wall_time", "yesterday")), says="wall_time"),
    Case("import: a dict field", imported(set_in("event", "actor", {"a": 1})), says="actor"),
    Case("import: NaN", nan_seq, says="nothing was imported"),
    Case("import: 100,000-deep JSON", imported(raw="[" * 100_000 + "]" * 100_000 + "\n"), says="nothing was"),
    Case("import: cut at a line boundary", truncated, says="nothing was imported"),
    # the database
    Case("--db: parent path is a file", through_a_file, says="is a file, not a folder"),
    Case("--db: mysql://", lambda d: ["--db", "mysql://u@127.0.0.1/db", "sessions"], says="supported: SQLite"),
    Case(
        "--db: locked, run",
        locked_run,
        lock=True,
        expect=3,
        says="locked by another process",
        env={"STTUI_WRITE_DEADLINE": "1", "STTUI_BUSY_TIMEOUT_MS": "500"},
    ),
    Case("--db: locked, sessions", locked_read, lock=True, expect=0),
    Case(
        "--db: read-only filesystem, sessions",
        lambda d: ["--db", f"sqlite:///{d}/fs/r.db", "sessions"],
        mount="ro",
        expect=0,
    ),
    Case(
        "--db: read-only filesystem, run",
        lambda d: ["--db", f"sqlite:///{d}/fs/r.db", "run", str(STT)],
        mount="ro",
        says="read-only",
    ),
    Case(
        "--db: full disk",
        lambda d: ["--db", f"sqlite:///{d}/fs/r.db", "run", str(STT), "--trials", "40"],
        mount="400k",
        says="full",
        env={"STTUI_WRITE_DEADLINE": "2"},
    ),
    # a stored version that no longer loads
    Case("replay: version no longer loads", no_longer_loads("replay"), expect=1, says="no longer loads"),
    Case("export: version no longer loads", no_longer_loads("export"), expect=0, says="wrote 1 episode(s)"),
    # model answers
    Case("model: 401", model_run, stub=refusing(401), expect=0, says="AuthenticationError"),
    Case("model: 404", model_run, stub=refusing(404), expect=0, says="NotFoundError"),
    Case("model: 400", model_run, stub=refusing(400), expect=0, says="BadRequestError"),
    Case(
        "model: 200 with no choices",
        model_run,
        stub=lambda r: (200, answer({}, choices=[]), 0.0),
        expect=0,
        says="no choices",
    ),
    Case(
        "model: a 30 MB answer",
        model_run,
        stub=lambda r: (200, answer({"role": "assistant", "content": "x" * 30_000_000}), 0.0),
        expect=0,
        says="limited to 200,000",
    ),
    Case("model: 429 with Retry-After", model_run, stub=retry_after_then_end(), expect=0, says='"completed"'),
]


def _tz_text() -> str:
    return GOOD.replace(START, 'start: "2024-03-04T08:00:00+00:00"').replace(
        "when: {tool: get_crate, args: {crate_id: CR-1}}", 'when: {at: "2024-03-04T09:00:00"}'
    )


# -- running ---------------------------------------------------------------------------------


def db_of(d: Path) -> str:
    return f"sqlite:///{d}/r.db"


def environment(d: Path) -> dict[str, str]:
    """No user config, cache or home of the person running it; this checkout's sttui."""
    home = d / ".home"
    home.mkdir(exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("STTUI_")}
    env |= {
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "PYTHONPATH": str(ROOT),
        "STTUI_DB": db_of(d),
    }
    return env


@contextlib.contextmanager
def _held_lock(path: Path) -> Iterator[None]:
    ready, stop = threading.Event(), threading.Event()

    def hold() -> None:
        conn = sqlite3.connect(path, isolation_level=None, timeout=30)
        conn.execute("BEGIN EXCLUSIVE")
        ready.set()
        stop.wait(TIMEOUT)
        conn.execute("ROLLBACK")
        conn.close()

    thread = threading.Thread(target=hold, daemon=True)
    thread.start()
    ready.wait(30)
    try:
        yield
    finally:
        stop.set()
        thread.join()


@contextlib.contextmanager
def _mounted(d: Path, size: str) -> Iterator[str]:
    """A tmpfs at d/fs ("ro": made writable, given a record, then remounted read-only); yields
    why it could not be made, or ''."""
    fs = d / "fs"
    fs.mkdir()
    made = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={'8m' if size == 'ro' else size}", "tmpfs", str(fs)], capture_output=True
    )
    if made.returncode != 0:
        yield f"cannot mount a tmpfs here: {made.stderr.decode().strip()}"
        return
    try:
        if size == "ro":
            prepare(d, ["--db", f"sqlite:///{fs}/r.db", "run", str(STT)])
            if subprocess.run(["mount", "-o", "remount,ro", str(fs)], capture_output=True).returncode != 0:
                yield "cannot remount read-only here"
                return
        yield ""
    finally:
        subprocess.run(["umount", "-l", str(fs)], capture_output=True)


def _in_terminal(argv: list[str], env: dict[str, str], cwd: Path) -> Outcome:
    """The workbench in a pseudo-terminal: wait until it draws its home, then ctrl+q."""
    pid, fd = pty.fork()
    if pid == 0:  # the child
        os.chdir(cwd)
        os.execve(
            sys.executable,
            [sys.executable, "-m", "sttui", *argv],
            {**env, "TERM": "xterm-256color", "COLUMNS": "120", "LINES": "40"},
        )
    screen = b""
    deadline = time.monotonic() + TIMEOUT
    quit_sent = 0.0
    drawn: float | None = None
    code: int | None = None
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.2)
        if ready:
            with contextlib.suppress(OSError):  # (the terminal closed as it quit)
                screen += os.read(fd, 65536)
        if drawn is None and b"mini-crate" in screen:
            drawn = time.monotonic()
        shown = b"dup.yaml" in screen or (drawn is not None and time.monotonic() - drawn > 15)
        if drawn is not None and shown and time.monotonic() - quit_sent > 2:  # home and its notice are up
            os.write(fd, b"\x11")  # ctrl+q
            quit_sent = time.monotonic()
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            code = os.waitstatus_to_exitcode(status)
            break
    else:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    os.close(fd)
    text = re.sub(rb"\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][A-Z0-9]|\x1b\][^\x07]*\x07", b"", screen).decode(
        "utf-8", "replace"
    )
    return Outcome(code, "", text)


def run_case(case: Case, d: Path) -> Outcome:
    env = environment(d) | case.env
    argv = case.build(d)
    if argv and argv[0] != "--db":
        argv = ["--db", db_of(d), *argv]
    with contextlib.ExitStack() as stack:
        if case.mount:
            why = stack.enter_context(_mounted(d, case.mount))
            if why:
                return Outcome(None, "", "", skipped=why)
            if case.mount != "ro":
                (d / "fs" / "filler").write_bytes(b"\0")
        if case.lock:
            stack.enter_context(_held_lock(d / "r.db"))
        if case.stub is not None:
            from tests.helpers.stub_openai import StubServer

            stub = stack.enter_context(StubServer(case.stub))
            (d / "sttui.yaml").write_text(
                f"models:\n  stub: {{model: openai/stub-model, api_base: '{stub.base}', retries: 2, backoff: 0.01}}\n"
            )
            env |= {"OPENAI_API_KEY": KEY, "STTUI_TRUST_CWD": "1"}
        if case.pty:
            return _in_terminal(argv, env | {"STTUI_TASKS": str(d / "tasks")}, d)
        try:
            done = subprocess.run(
                [sys.executable, "-m", "sttui", *argv], env=env, cwd=d, capture_output=True, timeout=TIMEOUT
            )
        except subprocess.TimeoutExpired as exc:
            return Outcome(
                None, (exc.stdout or b"").decode(errors="replace"), (exc.stderr or b"").decode(errors="replace")
            )
    return Outcome(done.returncode, done.stdout.decode(errors="replace"), done.stderr.decode(errors="replace"))


def main() -> None:
    width = max(len(c.name) for c in CASES)
    for case in CASES:
        with tempfile.TemporaryDirectory(prefix="sttui-sweep-") as tmp:
            start = time.monotonic()
            out = run_case(case, Path(tmp))
            took = time.monotonic() - start
        shown = out.skipped or out.line(case.says)
        code = "skip" if out.skipped else ("HANG" if out.code is None else str(out.code))
        print(f"{case.name:<{width}}  {code:>4}  {took:5.1f}s  {shown[:150]}", flush=True)


if __name__ == "__main__":
    main()
