"""Issue 24 (2): text from a record, a task file or a model never reaches the terminal as a
control sequence. A corpus of escape sequences goes into an imported episode's names and
reasons and into a task file's title, then through ``sessions``, ``replay``, ``report``,
``tasks``, ``check`` and the workbench's tables; each shows it as visible text."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from sttui.cli import main
from sttui.safetext import visible, visible_lines
from sttui.tui.app import SttuiApp
from sttui.tui.launch import Launch
from tests.conftest import ROOT
from tests.tui_helpers import ready, wait_for

STT = ROOT / "tasks" / "stt" / "logistics" / "insulin-reefer-fault-st2-easy.yaml"
MINI = ROOT / "tests" / "fixtures" / "mini"
CORPUS = [
    "\x1b]0;PWNED-TITLE\x07",  # OSC: the window's title, ended by BEL
    "\x1b]52;c;cHduZWQ=\x1b\\",  # OSC 52: the clipboard, ended by ST
    "\x1b]8;;http://evil.example\x1b\\link\x1b]8;;\x1b\\",  # OSC 8: a hyperlink
    "\x1b[2J\x1b[H\x1b[31m",  # CSI: clear, home, red
    "\x9b31m\x9d0;C1-TITLE\x9c",  # C1 CSI and OSC
    "\x1bP+q544e\x1b\\",  # DCS
    "\x07\x08\x0b\x0c\x7f",  # BEL, BS, VT, FF, DEL
    "ESC-INJECT\r",  # CR: overwrite the line
    "\nfake-row  pass  baseline:oracle",  # LF inside a field: a forged row
    "\u202eevil\u202c",  # a right-to-left override
]
HOSTILE = "human:" + "".join(CORPUS) + "tail"
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def test_visible_escapes_every_control_and_keeps_the_rest():
    assert visible("human:\x1b]0;X\x07ok\r\n") == "human:\\x1b]0;X\\x07ok\\r\\n"
    assert visible("é🙂 plain\u00a0text") == "é🙂 plain\u00a0text"
    assert visible_lines("a\tb\nc\x1b[31m\r") == "a\tb\nc\\x1b[31m\\r"
    assert visible("\x9b\u202e\x00") == "\\x9b\\u202e\\x00"
    for text in CORPUS:
        assert not RAW.search(visible(text)) and "\n" not in visible(text)


@pytest.fixture(scope="module")
def hostile_record(tmp_path_factory) -> str:
    """An imported episode whose agent, user, actors and end reason carry the corpus."""
    d = tmp_path_factory.mktemp("escapes")
    src, dst = f"sqlite:///{d}/src.db", f"sqlite:///{d}/r.db"
    runner = CliRunner()
    assert runner.invoke(main, ["--db", src, "run", str(STT)]).exit_code == 0
    assert runner.invoke(main, ["--db", src, "export", "--all", "-o", str(d / "e.jsonl")]).exit_code == 0
    objs = [json.loads(line) for line in (d / "e.jsonl").read_text().splitlines()]
    for obj in objs:
        if obj.get("record") == "episode":
            obj["episode"]["agent"] = HOSTILE
            obj["episode"]["end_reason"] = "gave up " + "".join(CORPUS)
        if obj.get("record") == "event" and obj.get("actor") == "baseline:oracle":
            obj["actor"] = HOSTILE
    (d / "hostile.jsonl").write_text("".join(json.dumps(o) + "\n" for o in objs))
    result = runner.invoke(main, ["--db", dst, "import", str(d / "hostile.jsonl")])
    assert result.exit_code == 0, result.output
    return dst


def _sttui(db: str, *argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "HOME": str(cwd), "XDG_CONFIG_HOME": str(cwd)}
    return subprocess.run(
        [sys.executable, "-m", "sttui", "--db", db, *argv], cwd=cwd, env=env, capture_output=True, text=True
    )


def _harmless(text: str) -> None:
    assert not RAW.search(text), repr(RAW.search(text).group())  # type: ignore[union-attr]
    assert not any(line.startswith("fake-row") for line in text.splitlines()), text


@pytest.mark.parametrize("command", ["sessions", "replay", "report", "sessions --tree"])
def test_record_fields_print_harmless(hostile_record, tmp_path, command):
    argv = command.split()
    if command == "replay":
        listing = _sttui(hostile_record, "sessions", "--json", cwd=tmp_path)
        argv = ["replay", json.loads(listing.stdout)[0]["id"]]
    done = _sttui(hostile_record, *argv, cwd=tmp_path)
    text = done.stdout + done.stderr
    assert "Traceback" not in text, text
    _harmless(text)
    if command == "sessions":
        assert "\\x1b]0;PWNED-TITLE\\x07" in done.stdout and "ESC-INJECT\\r\\nfake-row" in done.stdout  # shown
        assert len([ln for ln in done.stdout.splitlines() if ln.strip()]) == 4  # header, rule, one row, the count


@pytest.mark.parametrize("command", ["tasks", "check"])
def test_task_file_text_prints_harmless(tmp_path, command):
    folder = tmp_path / "t"
    folder.mkdir()
    (folder / "warehouse.py").write_text((MINI / "warehouse.py").read_text())
    good = (MINI / "good.yaml").read_text()
    title = json.dumps("Crates " + "".join(CORPUS))  # a YAML double-quoted string holds any escape
    assert re.search(r"^title: .*$", good, flags=re.M)
    (folder / "task.yaml").write_text(re.sub(r"^title: .*$", lambda m: f"title: {title}", good, count=1, flags=re.M))
    done = _sttui(
        f"sqlite:///{tmp_path}/r.db", command, str(folder), *(["-v"] if command == "check" else []), cwd=tmp_path
    )
    text = done.stdout + done.stderr
    assert "Traceback" not in text, text
    _harmless(text)
    if command == "tasks":
        assert "\\x1b]0;PWNED-TITLE" in text


async def test_the_workbench_tables_show_the_names_as_text(hostile_record):
    app = SttuiApp(Launch.build(ROOT / "tasks", db_url=hostile_record, human="ana"))
    async with app.run_test(size=(160, 40)) as pilot:
        await ready(pilot)
        home = app.screen
        await wait_for(pilot, lambda: bool(home.query("#sessions")) and home.sessions_table().row_count == 1)
        table = home.sessions_table()
        cells = [str(c) for c in table.get_row_at(0)]
        assert any("\\x1b]0;PWNED-TITLE\\x07" in c and "ESC-INJECT\\r\\nfake-row" in c for c in cells), cells
        for cell in cells:
            assert not RAW.search(cell) and "\n" not in cell, repr(cell)


@pytest.mark.parametrize(
    "argv",
    [["annotate"], ["adjudicate"], ["play", str(STT)], ["refine", "nosuch", "--drop", "1"], ["serve-session"]],
    ids=["annotate", "adjudicate", "play", "refine", "serve-session"],
)
def test_a_name_with_control_characters_is_refused_at_entry(tmp_path, argv):
    result = CliRunner().invoke(main, ["--db", f"sqlite:///{tmp_path}/r.db", *argv, "--as", "\x1b[31mred\nnewline"])
    assert result.exit_code == 2, result.output
    lines = [ln for ln in result.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and "--as" in lines[0] and "control characters" in lines[0], result.output
    assert "\\x1b[31mred\\nnewline" in lines[0] and not RAW.search(result.output)


async def test_no_widget_draws_a_control_sequence_from_data():
    """Beyond the tables: a Static, a Label and a notice showing a hostile name draw it with
    visible pictures; the terminal's output holds no ESC or C1 that came from the text."""
    import io

    from rich.console import Console
    from textual.widgets import Label, Static

    from tests.tui_helpers import ScreenApp, started

    bad = "human:\x1b]0;PWNED-TITLE\x07ESC\x1b[2J\x9b31m-INJECT"

    def make():
        from textual.screen import Screen

        class Shows(Screen):
            def compose(self):
                yield Static(bad, markup=False)
                yield Label(bad, markup=False)

        return Shows()

    app = ScreenApp(make)
    async with app.run_test(size=(80, 10)) as pilot:
        await started(pilot)
        app.notify(bad, markup=False)
        await pilot.pause(0.3)
        console = Console(file=io.StringIO(), force_terminal=True, width=80, height=10, color_system="truecolor")
        update = app.screen._compositor.render_update(full=True, screen_stack=app._background_screens)
        out = update.render_segments(console)
    assert "PWNED-TITLE" in out and "␛]0;PWNED-TITLE" in out
    assert "\x1b]0;" not in out and "\x1b[2J" not in out and "\x9b" not in out and "\x07" not in out


async def test_a_transcript_draws_no_control_sequence_from_a_result():
    """A tool's result and its one-line title (``ResultFold``), a call and a message carrying
    a hostile value draw it with visible pictures; no ESC, C1 or BEL reaches the terminal."""
    import io

    from rich.console import Console
    from textual.screen import Screen

    from sttui.tui.widgets import Transcript, transcript_item
    from tests.tui_helpers import ScreenApp, started

    bad = "human:\x1b]0;PWNED-TITLE\x07ESC\x1b[2J\x9b31m-INJECT"

    class Shows(Screen):
        def compose(self):
            with Transcript():
                yield transcript_item(
                    {"type": "tool_result", "tool": "t" + bad, "result": {"success": True, "name": bad}},
                    collapsed=False,
                )
                yield transcript_item({"type": "tool_call", "tool": "x", "args": {"a": bad}})
                yield transcript_item({"type": "message", "from": "user", "text": bad})

    app = ScreenApp(Shows)
    async with app.run_test(size=(100, 14)) as pilot:
        await started(pilot)
        await pilot.pause(0.3)
        console = Console(file=io.StringIO(), force_terminal=True, width=100, height=14, color_system="truecolor")
        out = app.screen._compositor.render_update(full=True, screen_stack=app._background_screens).render_segments(
            console
        )
    assert out.count("␛]0;PWNED-TITLE") >= 2  # the title and the message, as pictures
    assert "\x1b]0;" not in out and "\x1b[2J" not in out and "\x9b" not in out and "\x07" not in out
