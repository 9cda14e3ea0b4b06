"""The controller protocol and the views each seat is given.

A seat sees only its view: the agent never sees state or silent triggers, the user
never sees tool results. Every controller returns the same action objects.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from sttui.core.actions import Action
from sttui.core.checklist import evaluate_checklist
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
    """What the user seat may know: its profile and the messages exchanged.

    ``withheld`` holds the details' values and ``asked_by`` the cues each may be asked by.
    ``solvable`` is part of the profile (STT-Arena tailors the user's clarification responses
    to whether the task can be done). ``goal_met`` is the one thing the seat learns from the
    state: whether the checklist passes right now. It stands in for what a person or a model
    user reads from the agent's report, so the scripted user can end the episode when the
    work is done; the model user is never shown it, the agent never sees it."""

    goal: str
    profile: dict[str, Any]
    withheld: dict[str, Any]
    messages: list[dict[str, Any]]
    agent_actions: list[dict[str, Any]]
    asked_by: dict[str, list[str]] = field(default_factory=dict)
    solvable: bool = True
    goal_met: bool = False


def agent_view(episode: Episode) -> AgentView:
    return AgentView(list(episode.view), episode.tools, episode.now, episode.steps, episode.task.max_steps)


def user_view(episode: Episode) -> UserView:
    user = episode.task.user
    messages = [i for i in episode.view if i["type"] == "message"]
    actions = [i for i in episode.view if i["type"] == "tool_call"]
    solvable = episode.task.level != "impossible"
    goal_met = solvable and all(item.passed for item in evaluate_checklist(episode))
    return UserView(
        user.goal, user.profile, user.withheld_values, messages, actions, user.withheld_cues, solvable, goal_met
    )


@dataclass(frozen=True)
class Attributed:
    """An action a controller hands over on someone else's behalf: a model's proposal that a
    person edited under oversight is the person's action. The runner records ``actor``."""

    action: Action
    actor: str


class Controller(Protocol):
    """Anything that can hold a seat. ``name`` is how the record names it."""

    name: str

    async def act(self, view: Any) -> Action: ...
