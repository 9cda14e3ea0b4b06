"""`sttui play`: the seat rule, controllers checked before the app starts, one task loaded."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from sttui.cli import main
from sttui.core.loader import load_task
from sttui.running.session import PlanProblem, PlayPlan
from tests.conftest import ROOT
from tests.conftest import cli_raising as cli

STT = ROOT / "tasks" / "stt" / "logistics" / "insulin-reefer-fault-st2-easy.yaml"
EXPLORE = ROOT / "tasks" / "explore" / "finance" / "additive-1.yaml"


def test_the_seat_rule():
    stt, explore = load_task(STT), load_task(EXPLORE)
    me = "human:ana"
    assert PlayPlan.build(stt, me).seat == "agent"
    taken = PlayPlan.build(stt, me, agent="baseline:oracle")
    assert (taken.seat, taken.agent, taken.person) == ("user", "baseline:oracle", me)
    named = PlayPlan.build(stt, me, user="human:bo")
    assert (named.seat, named.agent, named.person) == ("user", "baseline:oracle", "human:bo")
    assert PlayPlan.build(stt, me, agent="human:cy", user="model:m") == PlayPlan(
        stt, "agent", "human:cy", user="model:m"
    )
    for agent, user, task in (
        ("baseline:oracle", "model:m", stt),
        ("human", "human:bo", stt),
        ("baseline:oracle", None, explore),
        (None, "human", explore),
    ):
        with pytest.raises(PlanProblem):
            PlayPlan.build(task, me, agent, user)


@pytest.fixture
def no_app(monkeypatch):
    """`sttui play` up to the app: what it would have been asked to open."""
    import sttui.tui.app as app

    opened = []
    monkeypatch.setattr(app, "run_app", lambda **kwargs: opened.append(kwargs))
    return opened


def test_play_with_an_agent_puts_you_in_the_user_seat(tmp_path, no_app):
    db = f"sqlite:///{tmp_path / 'p.db'}"
    result = cli(db, "play", "logistics-insulin-reefer-st2-easy", "--agent", "baseline:oracle", "--as", "ana")
    assert result.exit_code == 0, result.output
    plan = no_app[0]["play"]
    assert (plan.seat, plan.agent, plan.person) == ("user", "baseline:oracle", "human:ana")
    assert "you take the user seat" in cli(db, "play", "--help").output


def test_play_with_an_unknown_controller_exits_with_the_message(tmp_path, no_app):
    db = f"sqlite:///{tmp_path / 'p.db'}"
    result = CliRunner().invoke(main, ["--db", db, "play", str(STT), "--agent", "baseline:nosuch"])
    assert result.exit_code == 2
    assert "no stt agent baseline 'nosuch'" in result.output and no_app == []
    both = CliRunner().invoke(main, ["--db", db, "play", str(STT), "--agent", "baseline:oracle", "--user", "model:m"])
    assert both.exit_code == 2 and "leave no seat for you" in both.output


def test_play_by_id_loads_only_that_task(tmp_path, no_app, monkeypatch):
    """The command line checks that one file through the task index and loads no task (no
    pydantic before the first paint); the workbench loads that one task, in a worker."""
    import sttui.core.loader as loader

    loaded = []
    real = loader.load_task
    monkeypatch.setattr(loader, "load_task", lambda path, *a, **k: loaded.append(path) or real(path, *a, **k))
    result = cli(f"sqlite:///{tmp_path / 'p.db'}", "play", "logistics-insulin-reefer-st2-easy")
    assert result.exit_code == 0, result.output
    assert loaded == []  # checked, not loaded
    plan = no_app[0]["play"]
    assert plan.loaded.id == "logistics-insulin-reefer-st2-easy" and Path(plan.loaded.path).name == STT.name
    ready = plan.with_task()  # what the workbench does after its first paint
    assert [Path(p).name for p in loaded] == [STT.name]
    assert ready.loaded.task.id == "logistics-insulin-reefer-st2-easy" and ready.seat == plan.seat


def test_play_on_a_broken_file_exits_with_its_problems_before_the_app(tmp_path, no_app):
    broken = tmp_path / "broken.yaml"
    broken.write_text(STT.read_text().replace("level:", "levle:", 1))
    result = CliRunner().invoke(main, ["--db", f"sqlite:///{tmp_path / 'p.db'}", "play", str(broken)])
    assert result.exit_code == 1 and no_app == []
    assert result.output.startswith("error: ") and "broken.yaml:6: levle: unknown field" in result.output
