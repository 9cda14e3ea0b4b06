"""A study under another setting than the default: the participants' episodes run under it
(``setting: static``: the task's triggers never fire), the record and the report name it, and the
report pairs only model runs under the same setting, saying when a run's setting differs.
A setting that does not fit the study's tasks or seat is one file:line error."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from sttui.cli import main
from sttui.config import Config
from sttui.core.problems import TaskFileError
from sttui.store.store import Store
from sttui.study.running import start
from sttui.study.sitting import Sitting, next_sitting
from sttui.tui.study import StudyApp
from tests.conftest import ROOT
from tests.test_study_end_to_end import play_screen, screen_name
from tests.tui_helpers import wait_for

TASK = "clinic-cardiology-rota-s1-easy"  # its rota swap fires on the first booking, unless static
STUDY = f"""\
study: 1
id: still
tasks: [{TASK}]
setting: static
replication: 1
participants: [ana]
instructions: Play the agent seat.
"""


def cli(db: str, *args: str) -> tuple[int, str, str]:
    out = CliRunner().invoke(main, ["--db", db, *args], env={"STTUI_TASKS": str(ROOT / "tasks")})
    return out.exit_code, out.stdout, out.stderr


async def test_a_static_study_plays_static_and_the_report_pairs_only_static_runs(tmp_path: Path):
    db = f"sqlite:///{tmp_path / 's.db'}"
    path = tmp_path / "study.yaml"
    path.write_text(STUDY, encoding="utf-8")
    store = Store(db)
    start(store, path, ROOT / "tasks")
    sitting = next_sitting(store, "still", "ana")
    assert isinstance(sitting, Sitting) and sitting.plan.settings.static
    app = StudyApp(db, sitting, Config())
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: screen_name(pilot) == "StudyIntro")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: screen_name(pilot) == "PlayScreen")
        await play_screen(pilot, pilot.app.screen, "solution")
        await wait_for(pilot, lambda: screen_name(pilot) == "EndScreen", timeout=30)
    record = store.episode(sitting.assignment.episode_id)
    events = store.events(record.id)
    assert record.setting == "static"
    assert events[0].payload["settings"] == {"static": True}
    assert not any(e.type == "trigger_fired" for e in events)  # the same booking fires it by default
    for extra in ([], ["--static"]):  # the oracle under the default setting, then under the humans'
        code, _, err = await asyncio.to_thread(cli, db, "run", TASK, "--agent", "baseline:oracle", *extra)
        assert code in (0, 1), err
    code, out, err = cli(db, "study", "report", "still", "--json")
    assert code == 0, err
    oracle = next(v for v in json.loads(out)["versus"] if v["controller"] == "baseline:oracle")
    assert oracle["tasks"] == 1 and oracle["episodes"] == 1  # the static run, paired; the default one not
    assert (
        f"under another setting than the humans' (default; the humans played static) on {TASK}: not paired"
        in oracle["notes"]
    )
    text = cli(db, "study", "report", "still")[1]
    assert "the humans played static" in text


@pytest.mark.parametrize(
    ("setting", "seat", "why"),
    [
        ("stationary", "agent", f"setting: {TASK}: stationary is an AdaExploreBench setting: it applies to explore"),
        ("no-user", "user", "setting no-user leaves the user seat empty: a study in the user seat needs one"),
    ],
)
def test_a_setting_that_does_not_fit_is_one_line(tmp_path: Path, setting: str, seat: str, why: str):
    path = tmp_path / "study.yaml"
    path.write_text(STUDY.replace("setting: static", f"setting: {setting}\nseat: {seat}"), encoding="utf-8")
    with pytest.raises(TaskFileError) as caught:
        start(Store(f"sqlite:///{tmp_path / 's.db'}"), path, ROOT / "tasks")
    assert len(caught.value.problems) == 1
    assert why in str(caught.value.problems[0]) and ":4:" in str(caught.value.problems[0])


async def test_a_no_user_study_opens_with_the_whole_goal_and_no_user_seat(tmp_path: Path):
    db = f"sqlite:///{tmp_path / 's.db'}"
    path = tmp_path / "study.yaml"
    path.write_text(STUDY.replace("setting: static", "setting: no-user"), encoding="utf-8")
    store = Store(db)
    start(store, path, ROOT / "tasks")
    sitting = next_sitting(store, "still", "ana")
    app = StudyApp(db, sitting, Config())
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: screen_name(pilot) == "StudyIntro")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: screen_name(pilot) == "PlayScreen")
        session = pilot.app.screen.session
        assert session.user is None
        await pilot.press("f5")
        await wait_for(pilot, lambda: pilot.app.screen.human.waiting)
        await pilot.press("escape")
        await wait_for(pilot, lambda: screen_name(pilot) == "LeaveDialog")
        await pilot.press("s")  # left running: the next join resumes it, still without a user
        await wait_for(pilot, lambda: screen_name(pilot) == "StudyHome")
    again = next_sitting(store, "still", "ana")
    assert again.assignment.resume
    async with StudyApp(db, again, Config()).run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: screen_name(pilot) == "PlayScreen")
        assert pilot.app.screen.session.user is None
    record = store.episode(sitting.assignment.episode_id)
    assert (record.setting, record.user) == ("no-user", None)
    assert store.events(record.id)[0].payload["settings"] == {"no_user": True}
