"""Difficulty, measured: `sttui tasks --difficulty` plays the naive plan and the random
baseline on each stt task and lists the tasks whose level does not order their stage scores."""

from __future__ import annotations

import asyncio
import json
import shutil

from click.testing import CliRunner

from sttui.authoring.difficulty import Play, TaskDifficulty, level_order, out_of_order, per_level, report
from sttui.cli import main
from sttui.controllers.registry import make_agent, make_user
from sttui.core.loader import load_task
from sttui.running.runner import run_episode
from tests.conftest import ROOT


def _task(task_id: str, level: str, naive_stage: float, random_stage: float) -> TaskDifficulty:
    return TaskDifficulty(
        task_id,
        "d",
        "T1",
        level,
        Play(1, 0, 0.5, naive_stage, naive_stage),
        Play(10, 0, 0.2, random_stage, random_stage),
    )


def test_a_hard_task_the_baselines_reach_into_further_than_medium_ones_is_listed_with_why():
    tasks = [
        _task("e1", "easy", 0.6, 0.2),
        _task("e2", "easy", 0.5, 0.1),
        _task("m1", "medium", 0.3, 0.1),
        _task("m2", "medium", 0.3, 0.1),
        _task("h1", "hard", 0.0, 0.0),
        _task("h2", "hard", 0.7, 0.1),  # reaches further than the medium tasks
        _task("h3", "hard", 0.0, 0.0),
        _task("i1", "impossible", 0.9, 0.9),  # never ordered
    ]
    levels = per_level(tasks)
    assert levels["easy"]["naive_stage"] == 0.55 and levels["hard"]["tasks"] == 3
    flagged = {f["task"]: f for f in out_of_order(tasks, levels)}
    assert set(flagged) == {"h2"}
    assert "further into it (0.40) than into medium tasks on average (0.20)" in flagged["h2"]["why"]
    assert "Naive plan: fails, items 0.50, stage 0.70" in flagged["h2"]["why"]
    assert level_order(levels) == []
    backwards = per_level([_task("e", "easy", 0.1, 0.0), _task("m", "medium", 0.3, 0.0)])
    assert level_order(backwards) == ["the naive plan's stage score: easy 0.10 is below medium 0.30"]


def test_an_easy_task_harder_than_the_medium_ones_is_listed():
    tasks = [_task("e1", "easy", 0.0, 0.0), _task("e2", "easy", 0.8, 0.2), _task("m1", "medium", 0.4, 0.0)]
    flagged = out_of_order(tasks, per_level(tasks))
    assert [f["task"] for f in flagged] == ["e1"]
    assert "less far into it (0.00) than into medium tasks on average (0.20)" in flagged[0]["why"]
    assert report(tasks)["level_order_breaks"] == []


def test_the_command_measures_each_task_with_fixed_seeds(tmp_path):
    folder = tmp_path / "logistics"
    folder.mkdir()
    src = ROOT / "tasks" / "stt" / "logistics"
    names = ["insulin-reefer-fault-st2-easy.yaml", "chemo-release-slip-t3-hard.yaml"]
    for name in ["env.py", *names]:
        shutil.copy(src / name, folder / name)
    args = ["tasks", str(folder), "--difficulty", "--random-seeds", "3", "--json"]
    first = CliRunner().invoke(main, args, catch_exceptions=False)
    assert first.exit_code == 0, first.output
    rep = json.loads(first.output)
    assert [t["level"] for t in rep["tasks"]] == ["hard", "easy"]
    assert all(t["random"]["runs"] == 3 and t["naive"]["runs"] == 1 for t in rep["tasks"])
    assert set(rep["levels"]) == {"easy", "hard"}
    # the naive plan's figures are those of playing it through the runner
    loaded = load_task(folder / names[0])
    played = asyncio.run(run_episode(loaded, make_agent("baseline:naive", loaded), make_user(None)))
    easy = next(t for t in rep["tasks"] if t["level"] == "easy")
    assert easy["naive"]["passed"] == int(played.outcome.passed)
    assert easy["naive"]["stage"] == round(played.review["score"], 3)
    # fixed seeds: the same figures again
    again = CliRunner().invoke(main, args, catch_exceptions=False)
    assert json.loads(again.output) == rep
    text = CliRunner().invoke(main, ["tasks", str(folder), "--difficulty", "--random-seeds", "2"]).output
    assert "per level:" in text and "tasks whose level does not order the baselines' stage scores:" in text
    assert "random baseline: seeds 0-1 per task" in text


def test_difficulty_needs_stt_tasks_and_is_one_report():
    runner = CliRunner()
    explore = runner.invoke(main, ["tasks", str(ROOT / "tasks" / "explore" / "water"), "--difficulty"])
    assert explore.exit_code == 1 and "no stt tasks among those chosen" in explore.output
    one = ROOT / "tasks" / "stt" / "logistics" / "digifab-stock-inverness-s1-impossible.yaml"
    alone = runner.invoke(main, ["tasks", str(one), "--difficulty", "--random-seeds", "1"])
    assert alone.exit_code == 0 and "fewer than two solvable levels to order" in alone.output
    both = runner.invoke(main, ["tasks", "--difficulty", "--coverage"])
    assert both.exit_code == 2 and "two reports" in both.output
