"""The base of the workbench's screens: ``self.app`` typed as :class:`SttuiApp`, so a screen
reaches the launch context (config, person, record) and the app's actions with their types; and
a worker that fails becomes a notice (``sttui.tui.workers``), never the app's end."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any, TypeVar

from textual.screen import Screen

from sttui.tui.compositor import SparseCompositor
from sttui.tui.workers import ReportsWorkerFailures

ResultType = TypeVar("ResultType")


class SttuiScreen(ReportsWorkerFailures, Screen[ResultType]):
    """A screen of the workbench."""

    if TYPE_CHECKING:  # textual's own way to type the app (at run time: the active app, as before)
        from textual import getters

        from sttui.tui.app import SttuiApp

        app = getters.app(SttuiApp)

    HOME_ACTIONS = frozenset({"home", "app.pop_to_home"})  # bindings that lead to where the app began

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._compositor = SparseCompositor()  # (a partial update renders only what it changes)
        try:
            label = getattr(self.app, "home_label", "Home")  # (a study's own screen in a study)
        except RuntimeError:  # (made before any app runs: textual's NoActiveAppError)
            label = "Home"
        if label != "Home":  # the footer names where escape leads
            for key, found in self._bindings.key_to_bindings.items():
                self._bindings.key_to_bindings[key] = [
                    replace(b, description=label) if b.action in self.HOME_ACTIONS else b for b in found
                ]
