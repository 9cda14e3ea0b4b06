"""A worker whose store call fails shows a notice that says what to check, and the app runs on.

Each screen's worker is made to fail where it reads or writes the record (a real SQLite
store whose method raises what a database would: ``sqlite3.OperationalError``). Textual's
default, ``exit_on_error=True``, would end the app with the person's episode in it.
"""

from __future__ import annotations

import asyncio
import sqlite3
from typing import Any

import pytest

from sttui.controllers.human import HumanController
from sttui.controllers.registry import make_user
from sttui.core.loader import load_task
from sttui.running.batch import run_batch
from sttui.running.plan import RunPlan
from sttui.store.store import Store
from sttui.tui.app import SttuiApp
from sttui.tui.launch import Launch
from sttui.tui.workers import failure_notice
from tests.conftest import ROOT
from tests.tui_helpers import ScreenApp, started, wait_for

STT = ROOT / "tasks" / "stt" / "logistics" / "insulin-reefer-fault-st2-easy.yaml"
LOCKED = "database is locked"


def _locked(*_args: Any, **_kwargs: Any) -> Any:
    raise sqlite3.OperationalError(LOCKED)


def _notices(app: Any) -> str:
    return " | ".join(str(n.message) for n in app._notifications)


async def _says(pilot: Any, doing: str) -> str:
    app = pilot.app
    await wait_for(pilot, lambda: f"could not {doing}" in _notices(app))
    shown = _notices(app)
    assert LOCKED in shown and "--db or STTUI_DB" in shown  # what failed, and what to check
    assert app.is_running and app._exit_renderables == []  # the app runs on
    return shown


@pytest.fixture
def store(tmp_path):
    return Store(f"sqlite:///{tmp_path / 'w.db'}")


@pytest.fixture
def episode(store):
    """One recorded episode of the insulin task, by the oracle."""
    plan = RunPlan.build([load_task(STT)], agent="baseline:oracle")
    asyncio.run(run_batch(plan, store=store))
    return store.list_episodes()[0].id


def test_the_notice_names_the_failure_and_what_to_check():
    text = failure_notice("list the sessions", sqlite3.OperationalError(LOCKED))
    assert text == (
        "could not list the sessions: OperationalError: database is locked. Check the record: --db or "
        "STTUI_DB, that the file or server is reachable, and the disk has room."
    )
    assert failure_notice("x", ValueError("bad\nsecond line")) == (
        "could not x: ValueError: bad. The rest of the app still works; STTUI_DEBUG=1 shows where it failed."
    )


async def test_home_sessions_worker(tmp_path, monkeypatch):
    monkeypatch.setattr(Store, "summaries", _locked)
    app = SttuiApp(Launch.build(ROOT / "tasks", db_url=f"sqlite:///{tmp_path / 'h.db'}", human="ana"))
    async with app.run_test(size=(100, 30)) as pilot:
        await _says(pilot, "list the sessions")
        await pilot.press("f6")  # keys still work
        assert app.is_running


async def test_replay_load_worker(store, episode, monkeypatch):
    from sttui.tui.replay import ReplayScreen

    monkeypatch.setattr(Store, "event_heads", _locked)
    app = ScreenApp(lambda: ReplayScreen(store, episode), store=store)
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot, "ReplayScreen")
        await _says(pilot, "load the episode")


async def test_annotate_events_worker(store, episode, monkeypatch):
    from sttui.annotate.dimensions import load_dimensions
    from sttui.annotate.queue import Item, Queue
    from sttui.tui.annotate import AnnotateScreen

    queue = Queue(store, "ana", [Item("episode", episode, "insulin")], load_dimensions(), "episodes")
    monkeypatch.setattr(Store, "events", _locked)
    app = ScreenApp(lambda: AnnotateScreen(queue), store=store)
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot, "AnnotateScreen")
        await _says(pilot, "load the episode")


async def test_app_annotation_queue_worker(tmp_path, monkeypatch):
    monkeypatch.setattr(Store, "list_episodes", _locked)
    app = SttuiApp(Launch.build(ROOT / "tasks", db_url=f"sqlite:///{tmp_path / 'a.db'}", human="ana"))
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.store is not None)
        app.open_annotation("episodes", None)
        await _says(pilot, "open the annotation queue")


async def test_app_session_worker(tmp_path, monkeypatch):
    from sttui.running.session import PlaySession

    monkeypatch.setattr(PlaySession, "__init__", _locked)
    app = SttuiApp(Launch.build(ROOT / "tasks", db_url=f"sqlite:///{tmp_path / 's.db'}", human="ana"))
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.store is not None and getattr(app.screen, "rows", None))
        app.start_play(load_task(STT), "agent")
        await _says(pilot, "open the episode")
        assert type(app.screen).__name__ == "HomeScreen"


async def test_play_episode_worker(tmp_path, monkeypatch):
    """The episode's own worker: the record fails under it mid-episode. The person is told the
    episode stays in the record, and the workbench stays up."""
    from sttui.running.session import PlaySession
    from sttui.tui.play import PlayScreen

    store = Store(f"sqlite:///{tmp_path / 'p.db'}")
    loaded = load_task(STT)
    human = HumanController("human:ana")
    session = PlaySession(store, loaded, human, make_user(None))
    monkeypatch.setattr(PlaySession, "run", lambda self: _fail_async())
    app = ScreenApp(lambda: PlayScreen(session, human), store=store)
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot, "PlayScreen")
        shown = await _says(pilot, "go on with the episode")
        assert "resume it from home" in shown


async def _fail_async() -> None:
    raise sqlite3.OperationalError(LOCKED)


async def test_study_watch_worker(tmp_path, monkeypatch):
    from sttui.store.studies import Studies
    from sttui.tui.studywatch import StudyWatchScreen

    store = Store(f"sqlite:///{tmp_path / 'st.db'}")
    monkeypatch.setattr(Studies, "people", _locked)
    monkeypatch.setattr("sttui.study.running.stored_study", lambda *_: (None, None))
    app = ScreenApp(lambda: StudyWatchScreen(store, "s1"), store=store)
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot, "StudyWatchScreen")
        await _says(pilot, "read the study's progress")


def test_every_worker_in_the_app_reports_instead_of_exiting():
    """No worker keeps Textual's exit_on_error default, and no screen reaches back with
    call_from_thread: results come back as messages."""
    import ast

    offenders = []
    for path in sorted((ROOT / "sttui" / "tui").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                bare = [d for d in node.decorator_list if isinstance(d, ast.Name) and d.id == "work"]
                offenders += [f"{path.name}:{d.lineno}: @work without exit_on_error=False" for d in bare]
            if isinstance(node, ast.Call):
                name = getattr(node.func, "attr", getattr(node.func, "id", ""))
                keywords = {k.arg: k.value for k in node.keywords}
                off = keywords.get("exit_on_error")
                if name in ("work", "run_worker") and not (isinstance(off, ast.Constant) and off.value is False):
                    offenders.append(f"{path.name}:{node.lineno}: {name} without exit_on_error=False")
                if name == "call_from_thread":
                    offenders.append(f"{path.name}:{node.lineno}: call_from_thread")
    assert offenders == []


def test_every_screen_reports_its_own_workers_failures():
    """A worker's state change does not bubble to the app (Textual's Worker.StateChanged), so a
    screen that runs workers must report their failures itself: every full screen of the
    workbench derives from SttuiScreen (the draft's, the candidates', refine's, the study's and
    compare's did not), bar the blank Placeholder, which runs nothing."""
    import importlib
    import inspect
    import pkgutil

    from textual.screen import ModalScreen, Screen

    import sttui.tui
    from sttui.tui.app import Placeholder
    from sttui.tui.screen import SttuiScreen

    screens = set()
    for info in pkgutil.iter_modules(sttui.tui.__path__):
        module = importlib.import_module(f"sttui.tui.{info.name}")
        screens |= {
            cls
            for _, cls in inspect.getmembers(module, inspect.isclass)
            if issubclass(cls, Screen) and cls.__module__.startswith("sttui.") and not issubclass(cls, ModalScreen)
        }
    assert len(screens) > 15
    assert sorted(c.__name__ for c in screens if not issubclass(c, SttuiScreen) and c is not Placeholder) == []
