"""Shared helpers for the Pilot tests."""

from __future__ import annotations

from pathlib import Path

from sttui.tui.app import SttuiApp


async def wait_for(pilot, predicate, timeout: float = 30.0) -> None:
    for _ in range(int(timeout / 0.02)):
        if predicate():
            return
        await pilot.pause(0.02)
    raise AssertionError("the screen did not get there in time")


async def ready(pilot) -> SttuiApp:
    app = pilot.app
    await wait_for(pilot, lambda: app.store is not None and getattr(app.screen, "rows", None))
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
