"""The base of the workbench's screens: ``self.app`` typed as :class:`SttuiApp`, so a screen
reaches the launch context (config, person, record) and the app's actions with their types; and
a worker that fails becomes a notice (``sttui.tui.workers``), never the app's end."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

from textual.screen import Screen

from sttui.tui.workers import ReportsWorkerFailures

ResultType = TypeVar("ResultType")


class SttuiScreen(ReportsWorkerFailures, Screen[ResultType]):
    """A screen of the workbench."""

    if TYPE_CHECKING:  # textual's own way to type the app (at run time: the active app, as before)
        from textual import getters

        from sttui.tui.app import SttuiApp

        app = getters.app(SttuiApp)
