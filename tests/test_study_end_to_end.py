"""A study of 4 participants × 8 tasks × 3 replications, end to end on the local workbench:
every participant plays every assigned task through the play screen (Textual Pilot: typing
calls into the entry), two following each task's solution and two its naive plan; a baseline
runs on the same tasks; the report comes out with clustered intervals and the pairing.

(The browser half of the issue's version of this test, two participants through
`sttui serve --study` in Chromium, is not here.)"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from click.testing import CliRunner
from textual.widgets import Input

from sttui.cli import main
from sttui.config import Config
from sttui.core.callsyntax import format_call
from sttui.store.store import Store
from sttui.store.studies import Studies
from sttui.study.running import start
from sttui.study.sitting import Sitting, next_sitting
from sttui.tui.study import StudyApp
from tests.conftest import ROOT
from tests.tui_helpers import wait_for

TASKS = [
    "clinic-discharge-handoff-st3-easy",
    "air-aircraft-swap-seats-st1-easy",
    "air-ams-connection-t3-easy",
    "clinic-petct-authorisation-t1-impossible",
    "clinic-cardiology-rota-s1-easy",
    "clinic-dialysis-urgent-t2-easy",
    "logistics-insulin-reefer-st2-easy",
    "air-held-fare-ttl-t1-medium",
]
STUDY = f"""\
study: 1
id: e2e
tasks: [{", ".join(TASKS)}]
replication: 3
participants: [ana, ben, chen, dev]
instructions: Play the agent seat; press F5 to start your clock.
time_limit: {{minutes: 30, warn_at: 25}}
"""
PLANS = {"ana": "solution", "ben": "solution", "chen": "naive_plan", "dev": "naive_plan"}


async def play_one(db: str, sitting: Sitting, plan: str) -> None:
    app = StudyApp(db, sitting, Config())
    async with app.run_test(size=(80, 24)) as pilot:
        if not sitting.assignment.acknowledged:
            await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "StudyIntro")
            await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "PlayScreen")
        screen = pilot.app.screen
        assert not screen.session.clock.running  # paused until the person starts it
        await pilot.press("f5")
        for step in getattr(screen.session.loaded.task, plan):
            if screen.session.episode.ended is not None:
                break
            await wait_for(pilot, lambda: screen.human.waiting or screen.session.episode.ended is not None)
            if screen.session.episode.ended is not None:
                break
            text = format_call(step.tool, step.args) if step.tool else f"> {step.say}"
            screen.query_one("#entry", Input).value = text
            await pilot.press("enter")
        await wait_for(pilot, lambda: screen.human.waiting or screen.session.episode.ended is not None)
        if screen.session.episode.ended is None:
            await pilot.press("f8")  # the person ends it
            if type(pilot.app.screen).__name__ == "Confirm":
                await pilot.press("y")
        await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "EndScreen", timeout=30)


async def test_a_whole_study_runs_end_to_end(tmp_path: Path):
    db = f"sqlite:///{tmp_path / 'e2e.db'}"
    path = tmp_path / "study.yaml"
    path.write_text(STUDY, encoding="utf-8")
    store = Store(db)
    start(store, path, ROOT / "tasks")
    for name, plan in PLANS.items():
        while isinstance(sitting := next_sitting(store, "e2e", name), Sitting):
            await play_one(db, sitting, plan)
    env = {"STTUI_TASKS": str(ROOT / "tasks")}
    args = ["--db", db, "run", *TASKS, "--agent", "baseline:oracle"]
    ran = await asyncio.to_thread(CliRunner().invoke, main, args, env=env)  # run has its own event loop
    assert ran.exit_code == 0, ran.output
    status = json.loads(CliRunner().invoke(main, ["--db", db, "study", "status", "e2e", "--json"]).stdout)
    assert [t["reached"] for t in status["tasks"]] == [3] * 8 and status["stuck"] == []
    assert all(p["done"] == p["total"] == 6 for p in status["participants"])
    found = json.loads(CliRunner().invoke(main, ["--db", db, "study", "report", "e2e", "--json"]).stdout)
    assert (found["human_episodes"], found["participants"]) == (24, 4)
    overall = next(r for r in found["pass_rate"] if r["level"] == "all")
    assert overall["clustered_ci"] and overall["plain_ci"]
    assert overall["clustered_ci"][1] - overall["clustered_ci"][0] >= overall["plain_ci"][1] - overall["plain_ci"][0]
    oracle = next(v for v in found["versus"] if v["controller"] == "baseline:oracle")
    assert oracle["tasks"] == 8 and oracle["difference_ci"] is not None
    # the humans who followed the solutions pass every possible task; the naive plans fail them
    by_person = {p["participant"]: p["outcomes"] for p in status["participants"]}
    assert by_person["chen"].get("pass", 0) < by_person["ana"].get("pass", 0)
    parts = [d for d in found["divergence"] if d["controller"] == "baseline:oracle"]
    assert len(parts) == 8 and any(d["most_common"] for d in parts)
    seconds = found["time_on_task"]["seconds"]
    assert seconds["n"] == 24 and seconds["median"] > 0
    ids = {s.episode_id for s in Studies(store).slots("e2e")}
    assert all(store.episode(i).agent.startswith("human:") for i in ids)
