"""The progress line of a long report: on a terminal only, after a second, wiped before the
result; the report's own output is the same with it or without it."""

from __future__ import annotations

import io

from click.testing import CliRunner

from sttui.cli import main
from sttui.cli import progress as progress_mod
from sttui.cli.progress import Progress
from tests.conftest import ROOT

TASK = ROOT / "tasks" / "stt" / "logistics" / "insulin-reefer-fault-st2-easy.yaml"


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_nothing_is_drawn_off_a_terminal_or_in_the_first_second():
    now = [0.0]
    piped = io.StringIO()
    p = Progress("report", 2000, piped, clock=lambda: now[0])
    now[0] = 5.0
    assert sum(1 for _ in p.track(range(2000))) == 2000
    p.step("comparing")
    p.done()
    assert piped.getvalue() == ""
    tty = Tty()
    p = Progress("report", 2000, tty, clock=lambda: now[0])
    now[0] += 0.5
    list(p.track(range(1000)))
    assert tty.getvalue() == ""  # under a second: quick reports show no line


def test_after_a_second_the_bar_counts_and_is_wiped_at_the_end():
    now = [0.0]
    tty = Tty()
    p = Progress("report", 2000, tty, clock=lambda: now[0])
    for i in p.track(range(2000)):
        now[0] = 1.0 + i / 1000  # slow enough: a redraw every 0.1 s
    text = tty.getvalue()
    assert "report: [" in text and "2,000/2,000 episodes" in text and "1,500/2,000" in text
    p.step("comparing the controllers")
    assert tty.getvalue().endswith("report: comparing the controllers…")
    p.done()
    assert tty.getvalue().endswith("\r\x1b[2K") and not p.shown


def test_report_draws_its_progress_on_a_terminal_and_prints_the_same(tmp_path, monkeypatch):
    db = f"sqlite:///{tmp_path / 'r.db'}"
    for _ in range(2):
        assert CliRunner().invoke(main, ["--db", db, "run", str(TASK)]).exit_code == 0
    plain = CliRunner().invoke(main, ["--db", db, "report"])
    assert plain.exit_code == 0 and "\r" not in plain.output  # not a terminal: no progress line
    monkeypatch.setattr(progress_mod, "_is_terminal", lambda stream: True)
    monkeypatch.setattr(progress_mod, "DELAY", 0.0)
    shown = CliRunner().invoke(main, ["--db", db, "report"])
    assert shown.exit_code == 0
    assert "report: comparing the controllers…" in shown.stderr and shown.stderr.endswith("\r\x1b[2K")
    assert shown.stdout == plain.stdout


def test_import_ratings_counts_its_writes_on_a_terminal_and_prints_the_same(tmp_path, monkeypatch):
    """242,000 ratings took three minutes to import with nothing on the screen: on a terminal
    the checking is named and the writing counted; the command's output is the same."""
    import json

    from sttui.core.loader import load_all

    stt = sorted(t.id for t in load_all([ROOT / "tasks"])[0] if t.kind == "stt")
    dims = ("query_checklist_consistency", "checklist_correctness", "dynamics_plausibility")
    rows = [
        {"item_kind": "task", "item_id": t, "dimension": d, "annotator": a, "value": 4}
        for t in stt
        for d in dims
        for a in ("ana", "ben", "chen")
    ]
    assert len(rows) > 500
    path = tmp_path / "ratings.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    plain = CliRunner().invoke(main, ["--db", f"sqlite:///{tmp_path / 'a.db'}", "import-ratings", str(path)])
    assert plain.exit_code == 0 and "\r" not in plain.output, plain.output
    monkeypatch.setattr(progress_mod, "_is_terminal", lambda stream: True)
    monkeypatch.setattr(progress_mod, "DELAY", 0.0)
    monkeypatch.setattr(progress_mod, "EVERY", 0.0)
    shown = CliRunner().invoke(main, ["--db", f"sqlite:///{tmp_path / 'b.db'}", "import-ratings", str(path)])
    assert shown.exit_code == 0
    assert f"import-ratings: checking {len(rows):,} row(s)…" in shown.stderr
    assert f"500/{len(rows):,} ratings written" in shown.stderr and shown.stderr.endswith("\r\x1b[2K")
    assert shown.stdout == plain.stdout == f"imported {len(rows)} rating(s)\n"


def test_an_exports_line_counts_the_lines_written(tmp_path):
    """The export's progress is this same line, counting lines written."""
    now = [0.0]
    tty = Tty()
    p = Progress("exporting 3 episode(s) to x.jsonl", None, tty, clock=lambda: now[0], unit="lines", verb="written")
    now[0] = 2.0
    p.at(1000)
    assert tty.getvalue().endswith("exporting 3 episode(s) to x.jsonl: 1,000 lines written")
    p.at(None)
    assert tty.getvalue().endswith("\r\x1b[2K") and not p.shown
