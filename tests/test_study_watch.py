"""`sttui study watch`: the experimenter's view updates by itself as participants play."""

from __future__ import annotations

from sttui.core.events import Event
from sttui.core.loader import load_task
from sttui.store.store import Store
from sttui.store.studies import Studies
from sttui.study.running import start
from sttui.tui.studywatch import StudyWatchApp
from tests.conftest import ROOT
from tests.tui_helpers import wait_for

STUDY = """\
study: 1
id: pilot
tasks: [clinic-dialysis-urgent-t2-easy, logistics-insulin-reefer-st2-easy]
replication: 1
participants: [ana, ben]
instructions: Play the agent.
"""


async def test_the_view_updates_live(tmp_path):
    db = f"sqlite:///{tmp_path / 'w.db'}"
    path = tmp_path / "study.yaml"
    path.write_text(STUDY, encoding="utf-8")
    store = Store(db)
    start(store, path, ROOT / "tasks")
    app = StudyWatchApp(db, "pilot")
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "StudyWatchScreen")
        screen = pilot.app.screen
        await wait_for(pilot, lambda: screen.found is not None)
        people = screen.query_one("#watch-people")
        assert [people.get_row_at(i)[2] for i in range(people.row_count)] == ["0/1", "0/1"]
        got = Studies(store).join("pilot", "ana")  # a participant plays meanwhile, elsewhere
        loaded = load_task(ROOT / "tasks/stt/clinic/dialysis-urgent-t2-easy.yaml")
        store.create_episode(loaded, 1, "human:ana", "baseline:scripted", episode_id=got.episode_id)
        store.append_event(got.episode_id, Event(1, "episode_started", "system", {}, "", 1.0))
        store.finish_episode(got.episode_id, "completed", outcome={"passed": True}, scores={"human_active_seconds": 90})
        await wait_for(pilot, lambda: people.row_count and people.get_row_at(0)[2] == "1/1", timeout=15)
        assert people.get_row_at(0)[4] == "pass 1" and people.get_row_at(0)[3] == "1.5"
        tasks = screen.query_one("#watch-tasks")
        assert tasks.get_row_at(0)[:2] == ["clinic-dialysis-urgent-t2-easy", "1/1"]
        assert "Study pilot: 1/2 scored tasks played" in str(screen.query_one("#watch-title").render())
