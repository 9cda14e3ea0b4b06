"""Shared helpers for the Pilot tests: the whole workbench (``ready``, ``open_play``), or one
screen alone on a bare app (``ScreenApp``, ``play_alone``), and what the terminal shows."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.console import Console
from textual import events
from textual.screen import Screen
from textual.widgets import Input

from sttui.tui.app import Placeholder, SttuiApp
from sttui.tui.launch import Launch


async def wait_for(pilot, predicate, timeout: float = 30.0) -> None:
    """Until ``predicate()`` holds: each round lets the app handle what is queued first, so a
    condition met by the next message is seen without a sleep."""
    await pilot.pause()
    for _ in range(int(timeout / 0.02)):
        if predicate():
            return
        await pilot.pause(0.02)
    raise AssertionError("the screen did not get there in time")


async def ready(pilot) -> SttuiApp:
    app = pilot.app
    app.with_record(lambda: None)  # home opens the record only when first needed: these tests use it
    await wait_for(pilot, lambda: app.store is not None and getattr(app.screen, "rows", None))
    await wait_for(pilot, lambda: footer_text(app).strip())  # painted (under load it can lag the rows)
    return app


async def open_play(pilot, task_path: Path, seat: str, screen: str):
    from sttui.core.loader import load_task

    app = await ready(pilot)
    app.start_play(load_task(task_path), seat)
    await wait_for(pilot, lambda: type(app.screen).__name__ == screen)
    await wait_for(pilot, lambda: bool(app.screen.query("#status-bar")))  # composed, not only pushed
    await pilot.pause()
    return app.screen


async def type_text(pilot, text: str) -> None:
    await pilot.press(*[{" ": "space"}.get(ch, ch) for ch in text])


class ScreenApp(SttuiApp):
    """One screen on the workbench's app (its styles, keys and palette) without home, the task
    files or a store being opened: screens are tested alone."""

    def __init__(self, make_screen: Callable[[], Screen[Any]], store: Any = None, **kw: Any):
        super().__init__(Launch.build(Path("/nonexistent-tasks"), db_url=kw.pop("db_url", None), human="ana", **kw))
        self.make_screen = make_screen
        self.store = store

    def base_screen(self) -> Screen[Any]:
        return Placeholder()  # no home under the screen tested

    def on_mount(self, event: events.Mount) -> None:
        event.prevent_default()  # not the workbench's own mount: no home, no store opening
        if self.config.keymap:
            self.set_keymap(self.config.keymap)
        self.push_screen(self.make_screen())


def play_alone(db: str, task_path: Path, seat: str = "agent", **kw: Any) -> ScreenApp:
    """The play screen of a new episode of ``task_path``, alone on an app, recording into ``db``."""
    from sttui.controllers.human import HumanController
    from sttui.controllers.registry import make_agent, make_user
    from sttui.core.loader import load_task
    from sttui.running.session import PlaySession
    from sttui.store.store import Store

    store = Store(db)
    loaded = load_task(task_path)

    def make() -> Screen[Any]:
        human = HumanController("human:ana")
        if loaded.kind == "explore":
            from sttui.tui.explore import ExploreScreen

            return ExploreScreen(PlaySession(store, loaded, human, None), human)
        if seat == "user":
            from sttui.tui.usersim import UserSimScreen

            return UserSimScreen(PlaySession(store, loaded, make_agent("baseline:oracle", loaded), human), human)
        from sttui.tui.play import PlayScreen

        return PlayScreen(PlaySession(store, loaded, human, make_user(None)), human)

    return ScreenApp(make, store=store, **kw)


async def started(pilot, name: str | None = None) -> Any:
    """The screen pushed by a ScreenApp, once composed; ``name`` waits for a screen of that class."""
    if name is not None:
        await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == name)
    await wait_for(pilot, lambda: pilot.app.screen.is_mounted and bool(pilot.app.screen.children))
    await pilot.pause()
    return pilot.app.screen


def screen_text(app) -> list[str]:
    """The terminal's lines as the person sees them now (as Textual's own screenshot renders them)."""
    width, height = app.size
    console = Console(width=width, height=height, file=io.StringIO(), force_terminal=True, record=True)
    console.print(app.screen._compositor.render_update(full=True, screen_stack=app._background_screens))
    return console.export_text().splitlines()


def footer_text(app) -> str:
    """The footer line (the last line of the terminal)."""
    return screen_text(app)[-1]


async def steady(pilot) -> None:
    """Before a snapshot: no blinking cursor (under load, a half-second blink decides whether
    the cursor is in the picture), and nothing left queued."""
    for screen in pilot.app.screen_stack:
        for box in screen.query(Input):
            box.cursor_blink = False
    await pilot.pause()
    await pilot.wait_for_scheduled_animations()
    await pilot.pause()
