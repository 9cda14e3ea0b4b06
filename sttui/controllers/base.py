"""The controller protocol and the views each seat is given.

A seat sees only its view: the agent never sees state or silent triggers, the user
never sees tool results. Every controller returns the same action objects.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from sttui.core.actions import Action
from sttui.core.env import ToolSpec
from sttui.core.episode import Episode


@dataclass(frozen=True)
class AgentView:
    """What the agent seat may know: the conversation and results so far, and the tools."""

    items: list[dict[str, Any]]
    tools: dict[str, ToolSpec]
    now: datetime
    steps: int
    max_steps: int


@dataclass(frozen=True)
class UserView:
    """What the user seat may know: its profile and the messages exchanged."""

    goal: str
    profile: dict[str, Any]
    withheld: dict[str, Any]
    messages: list[dict[str, Any]]
    agent_actions: list[dict[str, Any]]


def agent_view(episode: Episode) -> AgentView:
    return AgentView(list(episode.view), episode.tools, episode.now, episode.steps, episode.task.max_steps)


def user_view(episode: Episode) -> UserView:
    user = episode.task.user
    messages = [i for i in episode.view if i["type"] == "message"]
    actions = [i for i in episode.view if i["type"] == "tool_call"]
    return UserView(user.goal, user.profile, user.withheld, messages, actions)


class Controller(Protocol):
    """Anything that can hold a seat. ``name`` is how the record names it."""

    name: str

    async def act(self, view: Any) -> Action: ...
