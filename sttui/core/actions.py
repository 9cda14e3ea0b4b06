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


@dataclass(frozen=True)
class NotSatisfied:
    """The user seat ends the episode unsatisfied, saying why (``text``: a last message)."""

    reason: str
    text: str = ""


@dataclass(frozen=True)
class GaveUp:
    """The user seat gives up on the episode, which ends it."""

    reason: str = ""
    text: str = ""


AgentAction = ToolCall | Say | EndEpisode
UserAction = Reply | Satisfied | NotSatisfied | GaveUp
UserEnding = Satisfied | NotSatisfied | GaveUp


def action_payload(action: Action) -> dict[str, Any]:
    """Plain data for an action, as stored in events."""
    if isinstance(action, ToolCall):
        return {"tool": action.tool, "args": action.args}
    if isinstance(action, Say | Reply | Satisfied):
        return {"text": action.text}
    if isinstance(action, NotSatisfied | GaveUp):
        return {"reason": action.reason, "text": action.text}
    if isinstance(action, Probe):
        return {"cases": action.cases}
    if isinstance(action, SubmitBatch):
        return {"actions": action.actions}
    if isinstance(action, Assess):
        return {"relevant": action.relevant, "changes": action.changes}
    return {"reason": action.reason}


# -- explore episodes ---------------------------------------------------------------


@dataclass(frozen=True)
class Probe:
    """Self-designed cases whose four action utilities are revealed; earns nothing."""

    cases: list[dict[str, Any]]


@dataclass(frozen=True)
class SubmitBatch:
    """One action per case of the current evaluation batch (action ids or 1-4)."""

    actions: list[str | int]


@dataclass(frozen=True)
class Assess:
    """An answer to an assessment: relevant fields with directions, and (at the end) changes.

    ``changes`` holds atoms like ``{"removed": "field"}``, ``{"added": "field"}``,
    ``{"reversed": "field"}``.
    """

    relevant: dict[str, str]
    changes: list[dict[str, str]] | None = None


ExploreAction = Probe | SubmitBatch | Assess | EndEpisode

Action = AgentAction | UserAction | ExploreAction
