"""Paint first, then connect: home lists the tasks while the record is still opening, and a
task chosen before the record is open waits for it, with a message (nothing is played, nothing
recorded, until it is open). Home on a record that exists lists its sessions without opening it;
the first action that needs it opens it."""

from __future__ import annotations

import threading

from sttui.store.store import Store
from sttui.tui.app import SttuiApp
from sttui.tui.home import HomeScreen
from sttui.tui.launch import Launch
from tests.conftest import ROOT
from tests.tui_helpers import wait_for


async def test_an_early_key_waits_for_the_record_to_open(tmp_path, monkeypatch):
    gate = threading.Event()
    opening = Store.__init__

    def slow_open(self, *args, **kwargs):  # the record takes its time (a slow disk, a far server)
        gate.wait(30)
        opening(self, *args, **kwargs)

    monkeypatch.setattr(Store, "__init__", slow_open)
    path = tmp_path / "r.db"
    app = SttuiApp(Launch.build(ROOT / "tasks", db_url=f"sqlite:///{path}", human="ana"))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: bool(getattr(app.screen, "rows", None)))
        assert app.store is None  # the task list is on screen before the record is open
        await pilot.press("enter")  # play the highlighted task: too early
        await pilot.press("enter")  # twice: still one episode
        await pilot.pause(0.2)
        assert type(app.screen).__name__ == "HomeScreen"
        said = [str(n.message) for n in app._notifications]
        # said once: enter twice (or a filter typed key by key) is one wait, not a notice a key
        assert said.count("opening the record; the episode starts once it is open") == 1, said
        assert not path.exists()  # nothing recorded, not even the file
        gate.set()
        await wait_for(pilot, lambda: type(app.screen).__name__ == "PlayScreen")  # with no key pressed again
        await wait_for(pilot, lambda: app.screen.human.waiting)
        # the notice is withdrawn once the record is open: it stayed over the play screen's first lines
        assert not [n for n in app._notifications if str(n.message).startswith("opening the record")]
    store = Store(f"sqlite:///{path}")
    episodes = store.list_episodes()
    assert [e.agent for e in episodes] == ["human:ana"]  # the second enter found the play screen in front
    store.close()


async def test_home_reads_an_existing_record_without_opening_it(tmp_path):
    """Sessions listed from the file (``sttui.store.peek``); enter on one opens the record, then
    its replay; the record stays open from then on."""
    from sttui.controllers.baselines import PlanAgent, ScriptedUser
    from sttui.core.loader import load_task
    from sttui.running.recording import run_recorded
    from sttui.tui.replay import ReplayScreen

    db = f"sqlite:///{tmp_path / 'r.db'}"
    loaded = load_task(ROOT / "tasks" / "stt" / "logistics" / "insulin-reefer-fault-st2-easy.yaml")
    store = Store(db)
    eid, _ = await run_recorded(store, loaded, PlanAgent("baseline:naive", loaded.task.naive_plan), ScriptedUser())
    store.close()
    app = SttuiApp(Launch.build(ROOT / "tasks", db_url=db, human="ana"))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: bool(getattr(app.screen, "sessions_read", False)))
        home = app.screen
        assert [r.id for r in home.sessions] == [eid] and app.store is None
        await pilot.press("f6")
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ReplayScreen))
        assert app.store is not None and app.screen.episode_id == eid


async def test_a_record_that_fails_to_open_is_one_line_and_home_stays(tmp_path, monkeypatch):
    def broken(self, *args, **kwargs):
        raise RuntimeError("disk on fire\nwith a second line")

    monkeypatch.setattr(Store, "__init__", broken)
    app = SttuiApp(Launch.build(ROOT / "tasks", db_url=f"sqlite:///{tmp_path / 'r.db'}", human="ana"))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: any("unavailable" in str(n.message) for n in app._notifications))
        messages = [str(n.message) for n in app._notifications]
        assert "the record is unavailable: RuntimeError: disk on fire with a second line" in messages
        await wait_for(pilot, lambda: bool(getattr(app.screen, "rows", None)))  # the tasks are listed still
        assert app.store is None and app.is_running
        await pilot.press("enter")  # nothing plays without the record
        await pilot.pause(0.2)
        assert type(app.screen).__name__ == "HomeScreen"


def _play_launch(path, human: str = "ana") -> Launch:
    """What `sttui play` hands the workbench: the plan on the task index's entry (not loaded)."""
    from sttui.core.taskindex import index
    from sttui.running.seats import PlayPlan

    (entry,) = index().scan([ROOT / "tasks" / "stt" / "logistics" / "insulin-reefer-fault-st2-easy.yaml"])
    return Launch.build(
        ROOT / "tasks", db_url=f"sqlite:///{path}", human=human, play=PlayPlan.build(entry, f"human:{human}")
    )


async def test_play_shows_the_task_opening_and_takes_no_action_until_the_record_is_open(tmp_path, monkeypatch):
    """`sttui play`: the first screen names the task and says the record is opening; keys typed
    then reach no episode (there is none yet, nothing is written); once the record is open the
    play screen takes its place (leaving it goes home) and the episode's start is committed."""
    gate = threading.Event()
    opening = Store.__init__

    def slow_open(self, *args, **kwargs):
        gate.wait(30)
        opening(self, *args, **kwargs)

    monkeypatch.setattr(Store, "__init__", slow_open)
    listed = []  # home, behind the episode, lists the sessions when it is shown again, not now
    monkeypatch.setattr(HomeScreen, "load_sessions", lambda self: self.app.store and listed.append(self))
    path = tmp_path / "r.db"
    app = SttuiApp(_play_launch(path))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: type(app.screen).__name__ == "OpeningScreen" and app.screen.is_mounted)
        text = " ".join(str(w.render()) for w in app.screen.query("Static"))
        assert "Insulin run after a refrigeration fault" in text and "opening the record…" in text
        for key in ("enter", "a", "f5", "ctrl+e", "escape", "enter"):  # a person typing before it is ready
            await pilot.press(key)
        await pilot.pause(0.2)
        assert type(app.screen).__name__ == "OpeningScreen" and app.store is None
        assert not path.exists()  # nothing recorded, not even the file
        assert list(app.screen_stack[0].children) == []  # home, under it, is built when first shown
        gate.set()
        await wait_for(pilot, lambda: type(app.screen).__name__ == "PlayScreen")
        await wait_for(pilot, lambda: app.screen.human.waiting)
        assert [type(s).__name__ for s in app.screen_stack] == ["HomeScreen", "PlayScreen"]
        assert listed == []
        await pilot.press("escape", "s")  # leave (suspend): home, with its tasks and sessions
        await wait_for(pilot, lambda: type(app.screen).__name__ == "HomeScreen" and bool(app.screen.rows))
        await wait_for(pilot, lambda: len(listed) == 1)
    store = Store(f"sqlite:///{path}")
    (episode,) = store.list_episodes()
    events = store.events(episode.id)
    assert episode.agent == "human:ana" and events[0].type == "episode_started"
    assert [e.type for e in events if e.actor == "human:ana"] == ["left"]  # no key of the opening reached it
    store.close()


async def test_play_in_a_window_too_small_says_so_over_the_play_screen(tmp_path):
    """`sttui play` at 60x20: the play screen opened over the too-small notice and hid it (a
    person saw a cramped screen and no reason). The notice stays on top until the window is
    large enough; then the play screen is there, and leaving it goes home."""
    app = SttuiApp(_play_launch(tmp_path / "r.db"))
    async with app.run_test(size=(60, 20)) as pilot:
        await wait_for(pilot, lambda: any(type(s).__name__ == "PlayScreen" for s in app.screen_stack))
        await pilot.pause(0.2)
        assert type(app.screen).__name__ == "TooSmall"
        assert "(now 60×20)" in str(app.screen.query_one("#too-small").render())
        await pilot.resize_terminal(120, 40)
        await wait_for(pilot, lambda: type(app.screen).__name__ == "PlayScreen")
        assert [type(s).__name__ for s in app.screen_stack] == ["HomeScreen", "PlayScreen"]
        await pilot.press("escape", "s")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "HomeScreen")
        assert [type(s).__name__ for s in app.screen_stack] == ["HomeScreen"]


async def test_play_whose_record_cannot_open_goes_home_with_the_reason(tmp_path, monkeypatch):
    def broken(self, *args, **kwargs):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(Store, "__init__", broken)
    app = SttuiApp(_play_launch(tmp_path / "r.db"))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: any("unavailable" in str(n.message) for n in app._notifications))
        await wait_for(pilot, lambda: type(app.screen).__name__ == "HomeScreen")
        await wait_for(pilot, lambda: bool(app.screen.rows))  # home lists the tasks instead
        assert app.is_running and app.store is None


async def test_home_lists_and_describes_the_tasks_without_loading_one(tmp_path, monkeypatch):
    """The table and the brief under it come from the task index's rows: no task is loaded
    (the task models, the environment module) on the UI thread until one is played."""
    import sttui.core.loader as loader

    loaded = []
    monkeypatch.setattr(loader, "load_task", lambda path, *a, **k: loaded.append(path))
    app = SttuiApp(Launch.build(ROOT / "tasks", db_url=f"sqlite:///{tmp_path / 'r.db'}", human="ana"))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: bool(getattr(app.screen, "rows", None)) and app.store is not None)
        home = app.screen
        for _ in range(3):
            await pilot.press("down")
        await pilot.pause()
        row = home.current_row()
        assert row is not None and str(home.query_one("#detail").render()).startswith(row.title)
    assert loaded == []


async def test_play_whose_episode_fails_to_open_goes_home_with_a_notice(tmp_path, monkeypatch):
    """An episode that cannot be opened (an unexpected failure in its worker) does not leave
    the opening screen saying "opening…" for ever: the notice says what failed, home is shown."""
    from sttui.running.session import PlaySession

    def broken(self, *args, **kwargs):
        raise RuntimeError("environment on fire")

    monkeypatch.setattr(PlaySession, "__init__", broken)
    app = SttuiApp(_play_launch(tmp_path / "r.db"))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: any("could not open the episode" in str(n.message) for n in app._notifications))
        await wait_for(pilot, lambda: type(app.screen).__name__ == "HomeScreen" and bool(app.screen.rows))
        assert app.is_running


async def test_home_opens_a_record_it_cannot_read_on_its_own(db_url):
    """PostgreSQL, or a SQLite file not made yet: home's sessions pane has no read of its own,
    so the record opens at once, with no action, and the sessions are listed from it."""
    app = SttuiApp(Launch.build(ROOT / "tasks", db_url=db_url, human="ana"))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.store is not None and getattr(app.screen, "sessions_read", False))
        assert app._peek is False  # (it looked, and stood aside)
