"""Human controllers: the UI puts the person's actions in a queue; the runner takes them
from there like any other controller's."""

from __future__ import annotations

import asyncio
from typing import Any

from sttui.core.actions import Action


class HumanController:
    """A person in a seat. ``act`` waits until the UI submits an action."""

    def __init__(self, name: str):
        self.name = name if name.startswith("human") else f"human:{name}"
        self._queue: asyncio.Queue[Action] = asyncio.Queue()
        self.waiting = False

    def submit(self, action: Action) -> None:
        """Hand over one action; the seat no longer waits, so a second Enter already on its way
        (a key pressed twice, a slow terminal link) is refused instead of taken as a second turn."""
        self.waiting = False
        self._queue.put_nowait(action)

    def clear(self) -> None:
        """Drop actions submitted but not taken (the seat is being lent to someone else)."""
        while not self._queue.empty():
            self._queue.get_nowait()

    async def act(self, view: Any) -> Action:
        self.waiting = True
        try:
            return await self._queue.get()
        finally:
            self.waiting = False
