"""The coverage table: `sttui tasks --coverage` counts stt tasks by subtype × level for each
domain and explore episodes by family × drift kind, and the README shows its output."""

from __future__ import annotations

import json
import shutil

from click.testing import CliRunner

from sttui.cli import main
from sttui.core.coverage import coverage, drift_kind, render_markdown
from tests.conftest import ROOT

START, END = "<!-- coverage:start -->\n", "\n<!-- coverage:end -->"


def _invoke(*args: str) -> str:
    result = CliRunner().invoke(main, ["tasks", *args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def test_counts_by_domain_subtype_level_and_by_family_drift_kind():
    stt = [
        {"domain": "air", "conflict": "T1", "level": "easy"},
        {"domain": "air", "conflict": "T1", "level": "easy"},
        {"domain": "clinic", "conflict": "ST3", "level": "impossible"},
    ]
    explore = [
        {"domain": "finance", "family": "additive", "drift": drift_kind(6)},
        {"domain": "water", "family": "additive", "drift": drift_kind(6)},
        {"domain": "water", "family": "lexicographic", "drift": drift_kind(7, "stationary")},
    ]
    cov = coverage(stt, explore)
    assert cov["stt"]["domains"]["air"]["T1"] == {"easy": 2, "medium": 0, "hard": 0, "impossible": 0}
    assert cov["stt"]["domains"]["clinic"]["ST3"]["impossible"] == 1
    assert cov["stt"]["totals"]["T1"]["easy"] == 2 and cov["stt"]["tasks"] == 3
    assert len(cov["stt"]["empty_cells"]) == 34 and "T1-easy" not in cov["stt"]["empty_cells"]
    assert "T1-easy" not in cov["stt"]["cells_below_target"]["cells"]
    assert "ST3-impossible" in cov["stt"]["cells_below_target"]["cells"]
    assert cov["explore"]["cells"]["additive"]["after batch 6"] == 2
    assert cov["explore"]["cells"]["lexicographic"]["none"] == 1
    assert cov["explore"]["domains"] == {"finance": 1, "water": 2}
    md = render_markdown(cov)
    assert "| T1 | 2 | 0 | 0 | 0 | 2 |" in md and "| T1 | 2/0/0/0 | 0/0/0/0 |" in md
    assert "| additive | 0 | 2 | 0 | 0 | 2 |" in md


def test_the_command_counts_a_folder_of_tasks(tmp_path):
    """Two stt tasks of one domain and one explore episode, copied with their environment and
    catalog: the JSON counts exactly them."""
    stt = tmp_path / "stt" / "clinic"
    stt.mkdir(parents=True)
    src = ROOT / "tasks" / "stt" / "clinic"
    for name in ("env.py", "dialysis-urgent-t2-easy.yaml", "holiday-dialysis-bumped-t2-impossible.yaml"):
        shutil.copy(src / name, stt / name)
    (tmp_path / "explore" / "water").mkdir(parents=True)
    shutil.copy(ROOT / "tasks" / "explore" / "water" / "additive-1.yaml", tmp_path / "explore" / "water")
    cov = json.loads(_invoke(str(tmp_path), "--coverage", "--json"))
    assert cov["stt"]["tasks"] == 2
    assert cov["stt"]["domains"]["clinic"]["T2"] == {"easy": 1, "medium": 0, "hard": 0, "impossible": 1}
    assert len(cov["stt"]["empty_cells"]) == 34
    assert cov["explore"]["episodes"] == 1 and cov["explore"]["domains"] == {"water": 1}
    text = _invoke(str(tmp_path), "--coverage")
    assert "T2       1     0       0     1           2" in text
    assert "2 stt tasks in 1 domains; 2 of 36 subtype × level cells covered" in text


def test_the_bundled_tasks_fill_every_cell_and_48_explore_episodes():
    cov = json.loads(_invoke(str(ROOT / "tasks"), "--coverage", "--json"))
    assert cov["stt"]["empty_cells"] == []
    assert cov["explore"]["episodes"] >= 48
    assert all(sum(kinds.values()) >= 12 for kinds in cov["explore"]["cells"].values())


def test_the_readme_table_is_the_commands_output():
    """Regenerate with `python bench/coverage_readme.py` after changing the bundled tasks."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.partition(START)[2].partition(END)[0]
    assert block, "README.md has no coverage block"
    assert block == _invoke(str(ROOT / "tasks"), "--coverage", "--markdown").rstrip("\n")


def test_markdown_without_coverage_or_with_json_is_refused():
    result = CliRunner().invoke(main, ["tasks", "--markdown"])
    assert result.exit_code == 2 and "--markdown goes with --coverage" in result.output
    both = CliRunner().invoke(main, ["tasks", "--coverage", "--markdown", "--json"])
    assert both.exit_code == 2 and "two formats" in both.output
