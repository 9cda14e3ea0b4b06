"""Withdrawing notices (toasts) the screen has moved past: Textual has no public call that
takes one notice off the screen, hence its own ``_unnotify`` here, in one place."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.app import App
from textual.notifications import Notification


def withdraw(app: App[Any], which: Callable[[Notification], bool]) -> int:
    """Take the notices ``which`` picks off the screen (one repaint for all); how many."""
    stale = [n for n in getattr(app, "_notifications", ()) if which(n)]
    for note in stale:
        app._unnotify(note, refresh=False)
    if stale:
        app._refresh_notifications()
    return len(stale)
