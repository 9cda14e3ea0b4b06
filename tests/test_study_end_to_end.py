"""The issue's "done when": a study of 4 participants × 8 tasks × 3 replications, end to end.
Two participants play in headless Chromium through ``sttui serve --study``, each logging in with
their own study token (anonymous slots) and typing their actions into the page; two play locally
through Textual Pilot, in the same study workbench (``StudyApp``) going task to task. One of each
follows each task's solution, the other its naive plan. One browser participant's connection
drops mid-task: the page opened again resumes the same episode. A baseline runs on the same
tasks, and the report comes out with clustered intervals and the human–model pairing."""

from __future__ import annotations

import asyncio
import json
import os
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from click.testing import CliRunner
from textual.widgets import Input

from sttui.cli import main
from sttui.config import Config
from sttui.core.callsyntax import format_call
from sttui.core.divergence import agent_steps
from sttui.core.loader import load_all
from sttui.store.store import Store
from sttui.store.studies import Studies
from sttui.study.running import start
from sttui.study.sitting import Sitting, next_sitting
from sttui.tui.study import StudyApp
from tests.conftest import ROOT
from tests.helpers import chromium
from tests.helpers.serving import serving, wait_for
from tests.tui_helpers import wait_for as pilot_wait

browser = chromium.browser  # the fixture

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
participants: {{anonymous: 4}}
instructions: Play the agent seat; press F5 to start your clock.
time_limit: {{minutes: 30, warn_at: 25}}
"""
LOCAL = {"chen": "solution", "dev": "naive_plan"}  # join by name: they take the first two slots
BROWSER = {"p03": "solution", "p04": "naive_plan"}  # log in with their slot's token
PER_PERSON = 6  # 8 tasks × 3 replications over 4 participants


def step_text(step) -> str:
    return format_call(step.tool, step.args) if step.tool else f"> {step.say}"


def screen_name(pilot) -> str:
    return type(pilot.app.screen).__name__


async def play_screen(pilot, screen, plan: str) -> None:
    """One task on its play screen: the clock paused until F5, then the plan typed in, then F8."""
    assert not screen.session.clock.running  # paused until the person starts it
    await pilot.press("f5")
    ep = screen.session.episode
    for step in getattr(screen.session.loaded.task, plan):
        await pilot_wait(pilot, lambda: screen.human.waiting or ep.ended is not None)
        if ep.ended is not None:
            break
        screen.query_one("#entry", Input).value = step_text(step)
        await pilot.press("enter")
    await pilot_wait(pilot, lambda: screen.human.waiting or ep.ended is not None)
    if ep.ended is None:
        await pilot.press("f8")  # the person ends it
        await pilot_wait(pilot, lambda: screen_name(pilot) == "Confirm")
        await pilot.press("y")


async def play_locally(db: str, store: Store, name: str, plan: str) -> None:
    """Every task of one participant, in one StudyApp: acknowledge, F5, type the plan, end,
    then back on the study's screen enter opens the next."""
    sitting = next_sitting(store, "e2e", name)
    assert isinstance(sitting, Sitting)
    app = StudyApp(db, sitting, Config(), study_id="e2e", name=name)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot_wait(pilot, lambda: screen_name(pilot) == "StudyIntro")
        await pilot.press("ctrl+s")
        for played in range(PER_PERSON):
            await pilot_wait(pilot, lambda: screen_name(pilot) == "PlayScreen", timeout=30)
            await play_screen(pilot, pilot.app.screen, plan)
            await pilot_wait(pilot, lambda: screen_name(pilot) == "EndScreen", timeout=30)
            # (its last message was typed a moment ago: the end screen's keys wait for a pause)
            await pilot_wait(pilot, lambda: not pilot.app.screen.holding)
            await pilot.press("escape")
            await pilot_wait(pilot, lambda: screen_name(pilot) == "StudyHome")
            await pilot_wait(pilot, lambda: "Task done" in str(pilot.app.screen.query_one("#study-status").render()))
            assert f"{played + 1} of {PER_PERSON} scored" in str(pilot.app.screen.query_one("#study-status").render())
            await pilot.press("enter")
        await pilot_wait(pilot, lambda: app.phase == "done", timeout=30)
        assert "That was your last task of study e2e. Thank you!" in str(
            pilot.app.screen.query_one("#study-status").render()
        )


class InBrowser:
    """One participant at a page of ``sttui serve --study``; what happened is read from the record."""

    def __init__(self, browser, served, store: Store, name: str, token: str, tasks: dict, shots: Path):
        self.browser, self.served, self.store, self.name, self.token = browser, served, store, name, token
        self.shots = Path(os.environ.get("STTUI_SERVE_SHOTS") or shots)  # the page, when a step fails
        self.tasks, self.context, self.page = tasks, None, None

    def open(self) -> None:
        self.context = self.browser.new_context(viewport={"width": 1280, "height": 800})
        self.page = self.context.new_page()
        self.page.goto(f"{self.served.base}/?token={self.token}")
        self.page.wait_for_selector("body.-first-byte", state="attached", timeout=60_000)
        self.page.click("#terminal")

    def drop(self) -> None:
        """The connection goes, as when a laptop closes: the page is gone without a word."""
        self.context.close()

    def current(self):
        """The slot being played now: assigned, its episode running."""
        mine = [s for s in Studies(self.store).slots("e2e") if s.participant == self.name]
        return next((s for s in mine if s.status == "assigned" and s.episode_status == "running"), None)

    def events(self, episode_id: str) -> list:
        return self.store.events(episode_id)

    def steps(self, episode_id: str) -> int:
        return len(agent_steps("stt", self.events(episode_id)))

    def status(self, episode_id: str) -> str:
        return next(s.episode_status for s in Studies(self.store).slots("e2e") if s.episode_id == episode_id)

    def fail(self, why: str) -> None:
        shot = self.shots / f"e2e-{self.name}.png"
        self.page.screenshot(path=str(shot))
        raise AssertionError(f"{why} (the page: {shot})\n{self.served.output()}")

    def key(self, key: str) -> None:
        self.page.keyboard.press(key)

    def clock_running(self, episode_id: str) -> bool:
        clock = [e.type for e in self.events(episode_id) if e.type in ("clock_started", "clock_paused")]
        return bool(clock) and clock[-1] == "clock_started"

    def start_clock(self, episode_id: str) -> None:
        """F5 until the clock runs (a key sent before the play screen is drawn is lost)."""
        deadline = time.monotonic() + 30
        while not self.clock_running(episode_id):
            if time.monotonic() > deadline:
                self.fail(f"F5 never started the clock of {episode_id}")
            self.key("F5")
            for _ in range(8):
                time.sleep(0.25)
                if self.clock_running(episode_id):
                    return

    def play_steps(self, episode_id: str, steps: list, upto: int | None = None) -> None:
        """Type the plan's steps not yet taken, each once the previous one is in the record (an
        entry refused while the user replies keeps its text: enter again sends it)."""
        for k, step in enumerate(steps[:upto]):
            if k < self.steps(episode_id):
                continue
            if self.status(episode_id) != "running":
                return
            self.start_clock(episode_id)
            self.page.keyboard.type(step_text(step))
            self.key("Enter")
            sent, deadline = time.monotonic(), time.monotonic() + 60
            while self.steps(episode_id) <= k and self.status(episode_id) == "running":
                if time.monotonic() > deadline:
                    self.fail(f"step {k + 1} of {episode_id} never reached the record")
                time.sleep(0.3)
                if self.steps(episode_id) <= k and time.monotonic() - sent > 1.5:
                    self.key("Enter")  # refused (the user was replying): the text waits in the entry
                    sent = time.monotonic()

    def end(self, episode_id: str) -> None:
        if self.status(episode_id) == "running":
            time.sleep(0.5)  # the user's last reply, drawn
            self.key("F8")
            time.sleep(0.5)
            self.key("y")
        wait_for(lambda: self.status(episode_id) != "running", 30, 0.2, f"{episode_id} ended")

    def next_task(self, played: set[str]) -> str:
        time.sleep(1.0)  # the end screen, drawn
        self.key("Escape")  # to the study's screen
        deadline = time.monotonic() + 60
        while (slot := self.current()) is None or slot.episode_id in played:
            assert time.monotonic() < deadline, f"{self.name}'s next task never opened"
            time.sleep(0.7)
            self.key("Enter")
        return slot.episode_id


def play_in_browser(who: InBrowser, plan: str, drop_at: int | None = None) -> None:
    """All of one participant's tasks; at task ``drop_at`` the page is lost after two steps and
    opened again."""
    who.open()
    deadline = time.monotonic() + 90
    while (slot := who.current()) is None:  # the instructions, acknowledged once they are drawn
        assert time.monotonic() < deadline, f"{who.name}'s first task never opened:\n{who.served.output()}"
        who.key("Control+s")
        time.sleep(1.0)
    episode_id = slot.episode_id
    played: set[str] = set()
    for i in range(PER_PERSON):
        assert not any(e.type == "clock_started" for e in who.events(episode_id))  # paused until F5
        task = who.tasks[next(s.task_id for s in Studies(who.store).slots("e2e") if s.episode_id == episode_id)]
        steps = list(getattr(task, plan))
        who.start_clock(episode_id)
        if i == drop_at:
            who.play_steps(episode_id, steps, upto=2)
            who.drop()
            time.sleep(1.0)
            who.open()  # the same token: the same slot, the same episode, paused again
            again = wait_for(lambda: (s := who.current()) and s.episode_id, 60, 0.3, "the resumed task")
            assert again == episode_id and who.steps(episode_id) == 2
            time.sleep(1.5)  # the play screen, drawn
            who.start_clock(episode_id)
        who.play_steps(episode_id, steps)
        who.end(episode_id)
        played.add(episode_id)
        if i + 1 < PER_PERSON:
            episode_id = who.next_task(played)
    who.drop()


@pytest.mark.timeout(1200)
def test_a_whole_study_runs_in_chromium_and_locally(tmp_path: Path, browser):
    db = f"sqlite:///{tmp_path / 'e2e.db'}"
    path = tmp_path / "study.yaml"
    path.write_text(STUDY, encoding="utf-8")
    store = Store(db)
    tokens = start(store, path, ROOT / "tasks").tokens  # shown once: the record keeps their hashes

    async def locals_() -> None:
        for name, plan in LOCAL.items():
            await play_locally(db, store, name, plan)

    with ThreadPoolExecutor(1) as pool:  # Playwright's sync API holds this thread's event loop
        pool.submit(asyncio.run, locals_()).result()
    people = {p.name: p for p in Studies(store).people("e2e")}
    assert (people["p01"].joined_as, people["p02"].joined_as) == ("chen", "dev")
    loaded, _ = load_all([ROOT / "tasks"])
    tasks = {t.id: t.task for t in loaded if t.id in TASKS}
    env = {"STTUI_TASKS": str(ROOT / "tasks")}
    with serving(tmp_path, db, "--study", "e2e", env={**os.environ, **env}) as served:
        for i, (name, plan) in enumerate(BROWSER.items()):
            who = InBrowser(browser, served, store, name, tokens[name], tasks, tmp_path)
            play_in_browser(who, plan, drop_at=1 if i == 0 else None)
        assert "participants open" in served.output()
    with ThreadPoolExecutor(1) as pool:  # `run` has an event loop of its own
        ran = pool.submit(CliRunner().invoke, main, ["--db", db, "run", *TASKS, "--agent", "baseline:oracle"], env=env)
        ran = ran.result()
    assert ran.exit_code == 0, ran.output
    status = json.loads(CliRunner().invoke(main, ["--db", db, "study", "status", "e2e", "--json"]).stdout)
    assert [t["reached"] for t in status["tasks"]] == [3] * 8 and status["stuck"] == []
    assert all(p["done"] == p["total"] == PER_PERSON for p in status["participants"])
    found = json.loads(CliRunner().invoke(main, ["--db", db, "study", "report", "e2e", "--json"]).stdout)
    assert (found["human_episodes"], found["participants"]) == (24, 4)
    overall = next(r for r in found["pass_rate"] if r["level"] == "all")
    assert overall["clustered_ci"] and overall["plain_ci"]
    assert overall["clustered_ci"][1] - overall["clustered_ci"][0] >= overall["plain_ci"][1] - overall["plain_ci"][0]
    oracle = next(v for v in found["versus"] if v["controller"] == "baseline:oracle")
    assert oracle["tasks"] == 8 and oracle["difference_ci"] is not None
    # who followed the solutions passes every possible task, in the browser as locally; the naive plans fail
    by_person = {p["participant"]: p["outcomes"] for p in status["participants"]}
    assert by_person["p03"].get("pass", 0) == by_person["p01"].get("pass", 0) > by_person["p04"].get("pass", 0)
    parts = [d for d in found["divergence"] if d["controller"] == "baseline:oracle"]
    assert len(parts) == 8 and any(d["most_common"] for d in parts)
    assert found["time_on_task"]["seconds"]["n"] == 24
    slots = Studies(store).slots("e2e")
    assert {store.episode(s.episode_id).agent for s in slots} == {f"human:{n}" for n in ("p01", "p02", "p03", "p04")}
