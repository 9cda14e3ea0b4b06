"""A bounded, seeded fuzzer: hostile mutations of every bundled task file and of a recorded
export. Each case ends in a clean outcome (it loads, or it is refused with a TaskFileError /
a one-line import error), within a few seconds, and an import that is refused writes nothing.

    STTUI_FUZZ_CASES=5000 STTUI_FUZZ_SEED=7 python -m pytest tests/test_fuzz.py   # a longer campaign
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import shutil
import signal
from contextlib import contextmanager

import pytest
from click.testing import CliRunner

from sttui.cli import main
from sttui.controllers.baselines import PlanAgent, ScriptedUser
from sttui.core.loader import discover, load_task
from sttui.core.problems import TaskFileError
from sttui.running.runner import run_episode
from sttui.store.store import Store
from tests.conftest import ROOT

CASES = int(os.environ.get("STTUI_FUZZ_CASES", "500"))
SEED = int(os.environ.get("STTUI_FUZZ_SEED", "20261130"))
PER_CASE_SECONDS = 5

HOSTILE = [
    "",
    "~",
    "null",
    "-1",
    "0",
    "1e400",
    ".nan",
    "-.inf",
    "123456789012345678901234567890",
    "9999-12-31T23:59:59",
    "2024-02-30T25:61:00",
    '"2024-08-15T06:00:00+05:00"',
    "[]",
    "{}",
    "[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]",
    "&a [*a]",
    "*undefined",
    "!!python/object:os.system",
    "'unterminated",
    '"\\u0000"',
    "é🙂\u202e",
    "x" * 5000,
    "{a: 1, a: 2}",
    "true",
    "NO",
    "a.b.c",
]


class Hang(Exception):
    pass


@contextmanager
def deadline(seconds: int):
    """Fail the case that runs longer than ``seconds`` (a hang), instead of the whole suite."""

    def alarm(signum, frame):
        raise Hang(f"over {seconds} s")

    old = signal.signal(signal.SIGALRM, alarm)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def mutate_text(text: str, rng: random.Random) -> str:
    lines = text.splitlines() or [""]
    if not text:
        return rng.choice(HOSTILE)
    op = rng.randrange(9)
    i = rng.randrange(len(lines))
    if op == 0:
        del lines[i]
    elif op == 1:
        lines.insert(i, lines[rng.randrange(len(lines))])
    elif op == 2:
        j = rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
    elif op == 3 and ":" in lines[i]:  # a value replaced by something hostile
        key = lines[i].split(":", 1)[0]
        lines[i] = f"{key}: {rng.choice(HOSTILE)}"
    elif op == 4:
        lines[i] = " " * rng.randrange(1, 6) + lines[i]
    elif op == 5:
        return text[: rng.randrange(len(text))]  # cut anywhere
    elif op == 6:
        pos = rng.randrange(len(lines[i]) + 1)
        lines[i] = lines[i][:pos] + rng.choice(["{", "[", ":", "- ", "&x ", "*x", "#", "'", '"', "\t"]) + lines[i][pos:]
    elif op == 7:
        lines[i] = lines[i].replace("-", "_") if "-" in lines[i] else lines[i] + "  # " + rng.choice(HOSTILE)
    else:
        key_line = next((k for k in range(len(lines)) if lines[k].startswith(("seed:", "max_steps:", "id:"))), i)
        lines[key_line] = lines[key_line].split(":", 1)[0] + ": " + rng.choice(HOSTILE)
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def task_copies(tmp_path_factory):
    """Every bundled task file with its environment module, in a folder of its own."""
    root = tmp_path_factory.mktemp("tasks")
    shutil.copytree(ROOT / "tasks", root / "tasks")
    return [p for p in discover([root / "tasks"]) if "catalogs" not in p.parts]


def test_mutated_task_files_load_or_are_refused_cleanly(task_copies, tmp_path):
    rng = random.Random(SEED)
    outcomes = {"loaded": 0, "refused": 0, "played": 0}
    for case in range(CASES):
        source = rng.choice(task_copies)
        text = source.read_text()
        for _ in range(rng.randrange(1, 4)):
            text = mutate_text(text, rng)
        path = source.with_name(f"fuzz-{case}.yaml")
        if rng.random() < 0.05:  # not UTF-8
            path.write_bytes(text.encode()[:50] + b"\xff\xfe\x80" + text.encode()[50:])
        else:
            path.write_text(text)
        try:
            with deadline(PER_CASE_SECONDS):
                try:
                    loaded = load_task(path)
                except TaskFileError as exc:
                    assert exc.problems and all(str(p).startswith(p.file) for p in exc.problems)
                    outcomes["refused"] += 1
                    continue
                outcomes["loaded"] += 1
                if loaded.kind == "stt":  # what loads must play without an exception
                    agent = PlanAgent("baseline:oracle", loaded.task.solution)
                    asyncio.run(run_episode(loaded, agent, ScriptedUser()))
                    outcomes["played"] += 1
        except Exception as exc:
            pytest.fail(f"case {case} ({source.name}, seed {SEED}): {type(exc).__name__}: {exc}\n{text[:2000]}")
        finally:
            path.unlink(missing_ok=True)
    assert outcomes["refused"] > CASES // 4 and outcomes["loaded"] > 0, outcomes


@pytest.fixture(scope="module")
def export_lines(tmp_path_factory):
    folder = tmp_path_factory.mktemp("export")
    db = f"sqlite:///{folder / 'src.db'}"
    runner = CliRunner()
    for task in (
        ROOT / "tasks" / "stt" / "logistics" / "insulin-reefer-fault-st2-easy.yaml",
        ROOT / "tasks" / "explore" / "finance" / "additive-1.yaml",
    ):
        assert runner.invoke(main, ["--db", db, "run", str(task)]).exit_code == 0
    path = folder / "e.jsonl"
    assert runner.invoke(main, ["--db", db, "export", "--all", "-o", str(path)]).exit_code == 0
    return path.read_text().splitlines()


JSON_HOSTILE = [None, True, -1, 0, 10**30, 1e308, "", "x" * 10_000, [], {}, [[[[]]]], {"a": {"b": {}}}, "NaN"]


def mutate_export(lines: list[str], rng: random.Random) -> str:
    lines = list(lines) or ["{}"]
    op = rng.randrange(8)
    i = rng.randrange(len(lines))
    if op == 0:
        del lines[i]
    elif op == 1:
        lines.insert(i, lines[rng.randrange(len(lines))])
    elif op == 2:
        j = rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
    elif op == 3 and len(lines) > 1:
        lines = lines[: rng.randrange(1, len(lines))]
    elif op == 4 and lines[i]:
        lines[i] = lines[i][: rng.randrange(len(lines[i]))]
    elif op in (5, 6):  # a field somewhere replaced by something hostile
        try:
            obj = json.loads(lines[i])
        except ValueError:
            return "\n".join(lines) + "\n"
        if not isinstance(obj, dict):
            return "\n".join(lines) + "\n"
        target = obj
        for _ in range(rng.randrange(3)):
            inner = [k for k, v in target.items() if isinstance(v, dict) and v]
            if not inner:
                break
            target = target[rng.choice(inner)]
        if target:
            target[rng.choice(sorted(target))] = rng.choice(JSON_HOSTILE)
        lines[i] = json.dumps(obj)
    else:
        lines[i] = lines[i].replace('"seq": ', '"seq": NaN, "x": ', 1) if rng.random() < 0.5 else "[" * 50_000
    return "\n".join(lines) + "\n"


def _counts(store: Store) -> tuple[int, int]:
    with store.engine.connect() as conn:
        episodes = conn.exec_driver_sql("select count(*) from episodes").scalar()
        events = conn.exec_driver_sql("select count(*) from events").scalar()
    return episodes, events


def test_mutated_exports_import_whole_or_not_at_all(export_lines, tmp_path):
    rng = random.Random(SEED + 1)
    db = f"sqlite:///{tmp_path / 'fuzz.db'}"
    store = Store(db)
    runner = CliRunner()
    path = tmp_path / "m.jsonl"
    imported = refused = 0
    for case in range(CASES):
        text = export_lines
        body = mutate_export(text, rng)
        for _ in range(rng.randrange(0, 2)):
            body = mutate_export(body.splitlines(), rng)
        path.write_text(body)
        before = _counts(store)
        try:
            with deadline(PER_CASE_SECONDS):
                out = runner.invoke(main, ["--db", db, "import", str(path)])
        except Hang as exc:
            pytest.fail(f"case {case}: import hung ({exc})")
        assert out.exception is None or isinstance(out.exception, SystemExit), (case, out.exception)
        assert "Traceback" not in out.output and "STTUI_DEBUG=1 shows where" not in out.output, (case, out.output)
        after = _counts(store)
        if out.exit_code == 0:
            imported += 1
        else:
            refused += 1
            assert "nothing was imported" in out.output, (case, out.output)
            assert after == before, f"case {case}: a refused import wrote {after} over {before}"
    assert refused > CASES // 2 and imported > 0, (imported, refused)


# -- issue 24: escapes, round trips, and the browser server ---------------------------------------

ESCAPES = [
    "\x1b]0;PWNED\x07",
    "\x1b]52;c;eA==\x1b\\",
    "\x1b[2J",
    "\x1b[31m",
    "\x9b1m",
    "\x9d0;x\x9c",
    "\x07",
    "\r",
    "\n",
    "\x08",
    "\x7f",
    "\u202e",
    "\x1bP+q\x1b\\",
]
RAW = __import__("re").compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e]")


def inject(value: str, rng: random.Random) -> str:
    pos = rng.randrange(len(value) + 1)
    return value[:pos] + "".join(rng.choice(ESCAPES) for _ in range(rng.randrange(1, 4))) + value[pos:]


def test_escape_sequences_in_any_text_field_print_harmless(export_lines, tmp_path):
    """Escape sequences put into the names and reasons of an export (agent, user, actors, end
    reason, a message's text): every listing that shows them prints them as visible text."""
    rng = random.Random(SEED + 2)
    runner = CliRunner()
    cases = max(3, CASES // 100)
    for case in range(cases):
        db = f"sqlite:///{tmp_path / f'esc{case}.db'}"
        objs = [json.loads(line) for line in export_lines]
        for obj in objs:
            if obj.get("record") == "episode":
                for key in ("agent", "user", "end_reason"):
                    if isinstance(obj["episode"].get(key), str) and rng.random() < 0.7:
                        obj["episode"][key] = inject(obj["episode"][key], rng)
            elif obj.get("record") == "event" and rng.random() < 0.3:
                obj["actor"] = inject(obj["actor"], rng)
        (tmp_path / "e.jsonl").write_text("".join(json.dumps(o) + "\n" for o in objs))
        out = runner.invoke(main, ["--db", db, "import", str(tmp_path / "e.jsonl")])
        assert out.exit_code == 0, (case, out.output)
        for argv in (["sessions"], ["sessions", "--tree"], ["report"], ["report", "--json"]):
            out = runner.invoke(main, ["--db", db, *argv])
            assert out.exit_code == 0 and "Traceback" not in out.output, (case, argv, out.output)
            assert not RAW.search(out.output), (case, argv, repr(RAW.search(out.output).group()))


def test_forks_at_every_row_survive_export_import_export(export_lines, tmp_path):
    """A fork at each row the tool accepts (and a fork of a fork), exported with its original,
    imports and exports again byte for byte."""
    runner = CliRunner()
    src, dst = f"sqlite:///{tmp_path / 'src.db'}", f"sqlite:///{tmp_path / 'dst.db'}"
    (tmp_path / "e.jsonl").write_text("\n".join(export_lines) + "\n")
    assert runner.invoke(main, ["--db", src, "import", str(tmp_path / "e.jsonl")]).exit_code == 0
    store = Store(src)
    stt = next(r.id for r in store.list_episodes() if r.kind == "stt")
    last = max(e.seq for e in store.events(stt))
    forks = []
    for row in range(1, last + 1):
        before = {r.id for r in store.list_episodes()}
        out = runner.invoke(main, ["--db", src, "fork", stt, "--at", str(row), "--headless", "--trust"])
        assert "Traceback" not in out.output, out.output
        forks += sorted({r.id for r in store.list_episodes()} - before)
    assert forks, "no row could be forked"
    rng = random.Random(SEED + 3)
    grand = rng.choice(forks)
    rows = [e.seq for e in store.events(grand) if e.type in ("tool_result", "message")]
    for row in rows[-3:]:
        runner.invoke(main, ["--db", src, "fork", grand, "--at", str(row), "--headless", "--trust"])
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    assert runner.invoke(main, ["--db", src, "export", "--all", "-o", str(first)]).exit_code == 0
    out = runner.invoke(main, ["--db", dst, "import", str(first)])
    assert out.exit_code == 0, out.output
    assert runner.invoke(main, ["--db", dst, "export", "--all", "-o", str(second)]).exit_code == 0
    assert first.read_bytes() == second.read_bytes()


async def test_hostile_websocket_frames_end_cleanly(tmp_path):
    """Random frames (not JSON, wrong shapes, huge pastes, garbage sizes) on live sessions: the
    server stays up, refuses what it should, logs no traceback, and leaves no process behind."""
    import aiohttp

    from tests.helpers.serving import serving, wait_for

    rng = random.Random(SEED + 4)
    frames = [
        "not json",
        "[]",
        "{}",
        '["stdin"]',
        '["stdin", 5]',
        '["resize", "x"]',
        '["resize", {"width": -1, "height": 1e309}]',
        '["ping"]',
        '["blur", 1, 2]',
        json.dumps(["stdin", "\x1b" * 3000]),
        json.dumps(["stdin", "x" * 20_000]),
        json.dumps(["stdin", "y" * 70_000]),
        "[" * 5000,
    ]
    with serving(tmp_path, f"sqlite:///{tmp_path / 's.db'}", "--annotate") as served:
        async with aiohttp.ClientSession() as http:
            for case in range(max(2, CASES // 250)):
                ws = await http.ws_connect(served.ws(served.token, f"fuzz{case}"))
                for _ in range(8):
                    try:
                        await ws.send_str(rng.choice(frames))
                    except (ConnectionError, RuntimeError):
                        break  # the server closed it (a message over the limit)
                    await asyncio.sleep(0.05)
                await ws.close()
            async with http.get(served.url) as response:
                assert response.status == 200  # still serving
        await asyncio.to_thread(wait_for, lambda: not served.children(), 30, 0.2, "every session's process gone")
    assert "Traceback" not in served.output(), served.output()[-3000:]
