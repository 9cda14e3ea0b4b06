"""Baseline controllers: the task's solution (oracle), its naive plan, and a scripted user."""

from __future__ import annotations

import re

from sttui.controllers.base import AgentView, UserView
from sttui.core.actions import Action, EndEpisode, Reply, Say, ToolCall
from sttui.core.task import Step


class PlanAgent:
    """Plays a fixed list of steps in order, then ends the episode."""

    def __init__(self, name: str, steps: list[Step]):
        self.name = name
        self._steps = list(steps)
        self._next = 0

    def resume(self, taken: list[Action]) -> None:
        """Skip the plan steps an episode being resumed has already taken."""
        self._next = sum(isinstance(a, ToolCall | Say) for a in taken)

    async def act(self, view: AgentView) -> Action:
        if self._next >= len(self._steps):
            return EndEpisode("plan finished")
        step = self._steps[self._next]
        self._next += 1
        if step.tool is not None:
            return ToolCall(step.tool, dict(step.args))
        return Say(step.say or "")


class ScriptedUser:
    """Answers from the profile: a withheld detail only when the agent asks for it by name,
    otherwise a short go-ahead. It never ends the episode itself."""

    name = "baseline:scripted-user"

    async def act(self, view: UserView) -> Action:
        last = next((m["text"] for m in reversed(view.messages) if m["from"] == "agent"), "")
        asked = last.lower()
        revealed = []
        if "?" in asked:
            for key, value in view.withheld.items():
                words = [w for w in re.split(r"[_\W]+", key.lower()) if len(w) > 2]
                if words and all(w in asked for w in words):
                    revealed.append(f"{key.replace('_', ' ')}: {value}")
        if revealed:
            return Reply("; ".join(revealed))
        return Reply("Understood. Please go ahead.")
