"""Oversight: while a model holds the agent seat, a person approves, edits or rejects each
proposed action. Every decision is an event by the person:

- ``oversight_approved`` {by, model, proposed}: the model's action runs, credited to the model;
- ``oversight_edited`` {by, model, proposed, executed}: the person's version runs, credited to
  the person (its tool_call / message events carry the person as actor);
- ``oversight_rejected`` {by, model, proposed, reason}: nothing runs; the reason goes back to
  the model in plain words and it proposes again;
- ``oversight_withdrawn`` {by, model, proposed}: the person took the seat back instead.

Oversight is a switch on the wrapper, not a change of hands: turning it on or off is its own
event (``oversight_on`` / ``oversight_off``, recorded by the session).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sttui.controllers.base import Attributed
from sttui.core.actions import Action, EndEpisode, Say, ToolCall, action_payload
from sttui.core.callsyntax import format_call

if TYPE_CHECKING:
    from sttui.controllers.model import ModelAgent


@dataclass(frozen=True)
class Decision:
    kind: str  # approve | edit | reject | withdrawn (the seat is being taken back)
    action: Action | None = None  # the edited action
    reason: str = ""


Review = Callable[[Action, Any], Awaitable[Decision]]
Note = Callable[[str, str, dict[str, Any]], None]  # (event kind, actor, payload)


def plain(action: Action) -> str:
    """An action in the words a person or a model reads: a call as it would be typed, a
    message quoted; never a Python repr."""
    if isinstance(action, ToolCall):
        return f"the call {format_call(action.tool, action.args)}"
    if isinstance(action, Say):
        return f"the message to the user {json.dumps(action.text, ensure_ascii=False)}"
    if isinstance(action, EndEpisode):
        return f"ending the episode ({action.reason})"
    return f"{type(action).__name__} {json.dumps(action_payload(action), ensure_ascii=False, default=str)}"


def rejection_note(proposed: Action, reason: str) -> str:
    """What a model is told when its proposal is rejected."""
    because = reason.strip() or "no reason was given"
    return (
        f"[Overseer] Your proposal, {plain(proposed)}, was rejected and not executed. "
        f"Reason: {because}. Propose a different next action."
    )


def _data(action: Action) -> dict[str, Any]:
    return {"type": type(action).__name__, **action_payload(action)}


class Overseen:
    """Wraps a model controller in the agent seat. While ``active``, each proposal waits for a
    person's decision; while not, proposals run as they come (the switch applies to the next
    proposal, even one already being thought about)."""

    def __init__(self, inner: ModelAgent, review: Review, reviewer: str, active: bool = True, note: Note | None = None):
        self.inner = inner
        self.review = review
        self.reviewer = reviewer
        self.active = active
        self.note = note
        self.name = inner.name

    @property
    def record(self) -> Any:
        return self.inner.record

    @record.setter
    def record(self, fn: Any) -> None:
        self.inner.record = fn

    @property
    def last_messages(self) -> list[dict[str, Any]]:
        return self.inner.last_messages

    @property
    def thinking_since(self) -> float | None:
        return getattr(self.inner, "thinking_since", None)

    @property
    def usage(self) -> Any:
        return getattr(self.inner, "usage", None)

    def _note(self, kind: str, payload: dict[str, Any]) -> None:
        if self.note is not None:
            self.note(kind, self.reviewer, {"by": self.reviewer, "model": self.name, **payload})

    async def act(self, view: Any) -> Action | Attributed:
        while True:
            proposed = await self.inner.act(view)
            if not self.active:
                return proposed
            decision = await self.review(proposed, view)
            if decision.kind == "approve":
                self._note("oversight_approved", {"proposed": _data(proposed)})
                return proposed
            if decision.kind == "edit" and decision.action is not None:
                self._note("oversight_edited", {"proposed": _data(proposed), "executed": _data(decision.action)})
                return Attributed(decision.action, self.reviewer)
            if decision.kind == "withdrawn":  # the person is taking the seat back: this turn ends with that
                self._note("oversight_withdrawn", {"proposed": _data(proposed)})
                await asyncio.Event().wait()
            self._note("oversight_rejected", {"proposed": _data(proposed), "reason": decision.reason})
            self.inner.feedback.append(rejection_note(proposed, decision.reason))
