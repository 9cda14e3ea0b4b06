"""The actions every controller produces: a human, a model and a baseline alike."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class ToolCall:
    """The agent calls one tool (exactly one per turn)."""

    tool: str
    args: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Say:
    """The agent writes to the user; the turn passes to the user seat."""

    text: str


@dataclass(frozen=True)
class EndEpisode:
    """The agent ends the episode."""

    reason: str = "agent ended the episode"


@dataclass(frozen=True)
class Reply:
    """The user seat answers the agent; the turn passes back."""

    text: str


@dataclass(frozen=True)
class Satisfied:
    """The user seat signals completion, which ends the episode."""

    text: str = ""


AgentAction = ToolCall | Say | EndEpisode
UserAction = Reply | Satisfied
Action = AgentAction | UserAction


def action_payload(action: Action) -> dict[str, Any]:
    """Plain data for an action, as stored in events."""
    if isinstance(action, ToolCall):
        return {"tool": action.tool, "args": action.args}
    if isinstance(action, Say | Reply | Satisfied):
        return {"text": action.text}
    return {"reason": action.reason}
