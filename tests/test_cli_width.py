"""The command line's prose at the terminal's width: a line wider than the terminal is broken
between its parts or words (``textout.fit``), never inside a word as the terminal would break
it; to a pipe or a file every line stays whole, for the scripts that read it."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from sttui.cli import main
from sttui.textout import Narrow, cell_lines, cut, fit, table
from tests.helpers.terminal import in_a_terminal

ROOT = Path(__file__).resolve().parents[1]
TASK = ROOT / "tasks" / "stt" / "logistics" / "vaccine-truck-outbreak-st1-hard.yaml"

LINES = [
    "re-scored on the recorded version: pass   checklist: greenhill ✓  portview ✓  ashby ✓  cold-chain ✓  report ✓",
    "       controls: 5/5 adversarial agents fail it; random 0/20 passed (at most 2 of 20 may pass, 10% rounded down)",
    "ok   logistics-eculizumab-bodmin-handoff-st3-impossible tasks/stt/logistics/eculizumab-bodmin-handoff-st3-impossible.yaml",
    "  by subtype: T1 100%  T2 100%  T3 100%  S1 100%  S2 100%  S3 100%  ST1 100%  ST2 100%  ST3 100%",
    "  mean stage score 0.97 [0.93, 1.00]  ·  mean milestone completion 100.0%  ·  early stops none",
    "日本語の説明 " * 12,
]


@pytest.mark.parametrize("width", [30, 50, 80, 100])
@pytest.mark.parametrize("line", LINES)
def test_a_long_line_is_broken_between_words_within_the_width(line, width):
    fitted = fit(line, width)
    from rich.cells import cell_len

    lead = len(line) - len(line.lstrip())
    for piece in fitted.split("\n"):  # wider only where a word fits no line of its own
        assert cell_len(piece) <= width or any(cell_len(w) > width - lead - 4 for w in piece.split()), (width, piece)
    # every word whole, in order (a part's ``·`` goes where the line breaks, as on the status line)
    assert [w for w in fitted.split() if w != "·"] == [w for w in line.split() if w != "·"]
    if cell_len(line) > width:
        rest = fitted.split("\n")[1:]
        assert all(p.startswith(" " * (lead + 4)) for p in rest if width - lead - 4 >= 20), fitted
    else:
        assert fitted == line


def test_a_part_that_fits_on_a_line_of_its_own_is_not_cut():
    fitted = fit("  by subtype: T1 100%  T2 100%  T3 100%  S1 100%  S2 100%  S3 100%  ST1 100%  ST2 100%", 40)
    assert fitted.split("\n") == [
        "  by subtype: T1 100%  T2 100%  T3 100%",
        "      S1 100%  S2 100%  S3 100%",
        "      ST1 100%  ST2 100%",
    ]
    # "random 0/20 passed" is a phrase inside a part: the words break, the part is too wide
    assert fit("ok   a-task-id   tasks/stt/a/file.yaml", 30).split("\n") == [
        "ok   a-task-id",
        "    tasks/stt/a/file.yaml",
    ]


def test_a_word_wider_than_the_terminal_stays_whole_and_no_width_leaves_the_text():
    path = "tasks/" + "x" * 90 + ".yaml"
    assert fit(f"FAIL {path} (it did not load)", 80).split("\n") == [f"FAIL {path}", "    (it did not load)"]
    assert fit(f"     - {path}:6: level: expected", 80).split("\n") == [f"     - {path}:6:", "         level: expected"]
    text = "\n".join(LINES)
    assert fit(text, None) is text


def test_a_table_wider_than_the_terminal_is_shown_a_row_to_a_block():
    rows = [
        {"controller": "baseline:oracle", "stt Pass@1": "100.0%  [100.0%, 100.0%]", "user satisfied": "100.0% of 42"},
        {"controller": "model:x\x1b[2J\nforged  row", "stt Pass@1": "0.0%", "user satisfied": "word " * 30},
    ]
    columns = ["controller", "stt Pass@1", "user satisfied"]
    wide = table(rows, columns)
    assert table(rows, columns, 400) == wide and wide.split("\n")[1].startswith("----------")
    narrow = table(rows, columns, 60)
    assert narrow.split("\n")[:4] == [
        "controller      baseline:oracle",
        "stt Pass@1      100.0%  [100.0%, 100.0%]",
        "user satisfied  100.0% of 42",
        "",
    ]
    second = narrow.split("\n")[4:]
    assert second[0] == "controller      model:x\\x1b[2J\\nforged  row"  # a cell cannot forge a line
    assert len(second) == 6 and all(len(line) <= 60 for line in second)  # 30 words, 9 to a line
    assert second[2].split() == ["user", "satisfied", *["word"] * 9]
    assert all(line.startswith(" " * 16 + "word") for line in second[3:])  # under the first


def test_a_listing_wider_than_the_terminal_keeps_a_row_to_a_line_its_last_column_cut():
    rows = [{"id": f"task-{i}", "level": "easy", "title": f"A title of {i} words " + "and more " * i} for i in range(6)]
    columns = ["id", "level", "title"]
    assert table(rows, columns, 400, listing=True) == table(rows, columns)
    cut = table(rows, columns, 40, listing=True).split("\n")
    assert len(cut) == 8 and all(len(line) <= 40 for line in cut), cut
    assert cut[2] == "task-0  easy   A title of 0 words" and cut[-1].endswith("…")
    # no room left for 10 characters of the last column: whole lines, for the terminal to wrap
    assert table(rows, columns, 22, listing=True) == table(rows, columns)


def test_a_streamed_listing_cuts_then_leaves_out_columns_until_it_fits():
    rows = [
        (f"ep{i:010d}", f"logistics-vaccine-truck-outbreak-st{i}-hard", "completed", "baseline:scripted-user", "x" * 16)
        for i in range(3)
    ]
    columns = ["id", "task", "status", "user", "started"]
    whole = list(cell_lines(rows, columns))
    assert list(cell_lines(rows, columns, Narrow(400, {"task": 20, "user": 12}))) == whole
    # cut: the widest cuttable column first, one character at a time, to its minimum
    narrow = Narrow(80, {"task": 20, "user": 12}, frozenset({"task"}), ("started",))
    lines = list(cell_lines(rows, columns, narrow))
    assert max(map(len, lines)) == 80 and narrow.hidden == []
    assert lines[2].split()[1:4] == ["logistics-vac…0-hard", "completed", "baseline:scrip…"]  # (20: its least)
    # at the minimums and still too wide: a column left out, said, and the rest cut from full widths
    narrow = Narrow(60, {"task": 20, "user": 12}, frozenset({"task"}), ("started", "status"))
    lines = list(cell_lines(rows, columns, narrow))
    assert narrow.hidden == ["started"] and lines[0].split() == ["id", "task", "status", "user"]
    assert max(map(len, lines)) == 60 and lines[2].split()[1:] == ["logistics-vac…0-hard", "completed", "baseline:scr…"]
    # nothing fits: every column that may go is gone, the rest at their minimums (the ids whole)
    narrow = Narrow(10, {"task": 20, "user": 12}, frozenset({"task"}), ("started", "status"))
    lines = list(cell_lines(rows, columns, narrow))
    assert narrow.hidden == ["started", "status"] and lines[2].split()[0] == "ep0000000000"
    assert [len(c) for c in lines[2].split()] == [12, 20, 12]


@pytest.mark.parametrize(
    ("text", "width", "middle", "out"),
    [
        ("logistics-plasma-run-t1-easy", 40, True, "logistics-plasma-run-t1-easy"),
        ("logistics-vaccine-truck-outbreak-st1-hard", 22, True, "logistics-vacc…t1-hard"),
        ("baseline:scripted-user", 12, False, "baseline:sc…"),
        ("abcdef", 3, True, "ab…"),
    ],
)
def test_a_cell_is_cut_to_its_width_with_an_ellipsis(text, width, middle, out):
    assert cut(text, width, middle) == out and len(out) == min(len(text), width)


def _in_a_terminal(args: list[str], home: Path, columns: int = 80) -> str:
    """What ``sttui ARGS`` writes to a terminal ``columns`` wide (its size, not ``COLUMNS``)."""
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    env.update(HOME=str(home), STTUI_CACHE_DIR=str(home / "cache"), NO_COLOR="1")
    return in_a_terminal(args, env, columns)[1]


def test_replay_check_and_run_fit_an_80_column_terminal_and_a_pipe_gets_whole_lines(tmp_path):
    """As a person sees them in an 80-column terminal, and as a script reads them."""
    db = f"sqlite:///{tmp_path / 'r.db'}"
    assert CliRunner().invoke(main, ["--db", db, "run", str(TASK), "--trials", "2"]).exit_code == 0
    runner = CliRunner()
    episode, other = (e["id"] for e in json.loads(runner.invoke(main, ["--db", db, "sessions", "--json"]).output))
    piped = runner.invoke(main, ["--db", db, "replay", episode]).output
    whole = next(line for line in piped.splitlines() if line.startswith("re-scored on the recorded version"))
    assert len(whole) > 80  # the pipe's line is whole
    shown = _in_a_terminal(["--db", db, "replay", episode], tmp_path)
    assert "re-scored on the recorded version" in shown
    assert all(len(line) <= 80 for line in shown.splitlines()), shown
    assert [w for w in shown.split() if w != "·"] == [w for w in piped.split() if w != "·"]  # none cut

    compared = _in_a_terminal(["--db", db, "compare", episode, other, "--print"], tmp_path)
    assert "the same kinds of steps throughout" in compared
    assert all(len(line) <= 80 for line in compared.splitlines()), compared  # (48 a side had made 107)
    assert (
        max(map(len, runner.invoke(main, ["--db", db, "compare", episode, other, "--print"]).output.splitlines())) > 80
    )

    sessions = _in_a_terminal(["--db", db, "sessions"], tmp_path)
    assert all(len(line) <= 80 for line in sessions.splitlines()), sessions  # a row to a line
    assert f"\n{episode}  logistics-vacc…t1-hard  completed  pass     baseline:oracle" in sessions, sessions
    assert "2 episode(s)  ·  left out to fit: user verdict, user, started (--json has them)" in sessions
    piped = runner.invoke(main, ["--db", db, "sessions"]).output
    assert "baseline:scripted-user  satisfied" in piped and "left out" not in piped

    listed = _in_a_terminal(["tasks", str(TASK.parent)], tmp_path, 100)
    assert "logistics-vaccine-truck-outbreak-st1-hard" in listed and "…" in listed
    assert all(len(line) <= 100 for line in listed.splitlines()), listed  # a task to a line

    broken = tmp_path / "tasks" / "broken.yaml"
    broken.parent.mkdir()
    broken.write_text(TASK.read_text().replace("level: hard", "level: hardest", 1))
    failed = _in_a_terminal(["check", str(broken)], tmp_path)
    assert "     - " in failed, failed
    problem = failed[failed.index("     - ") :].split("\n")
    assert problem[0].startswith(f"     - {broken}:6:"), failed  # the path whole, beside its dash
    assert problem[1] == "       level: expected 'easy', 'medium', 'hard' or 'impossible'; got 'hardest'", failed

    checked = _in_a_terminal(["check", str(TASK)], tmp_path)
    assert "controls:" in checked and "1 of 1 task files pass" in checked
    assert f"\n     {TASK}\n" in checked  # the file under the task's id
    assert all(len(line) <= 80 for line in checked.splitlines()), checked

    ran = _in_a_terminal(["--db", db, "run", "--no-record", str(TASK)], tmp_path)
    # the progress bar draws with its own escape sequences, not shown as text (they were)
    assert "\x1b[" in ran and "\\x1b" not in ran and "baseline:oracle" in ran
    shown_run = ran[ran.index("task  ") :]  # (after the bar)
    assert all(len(line) <= 80 for line in shown_run.splitlines()), shown_run
    assert shown_run.startswith("task          logistics-vaccine-truck-outbreak-st1-hard\n")  # a block
    assert "\npassed        pass\n" in shown_run
    prose = ran[ran.index("Pass@1 for") :]
    assert "by subtype:" in prose and "ST1 100%" in prose
    assert all(len(line) <= 80 for line in prose.splitlines()), prose
