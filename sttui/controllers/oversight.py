"""Oversight: while a model holds the agent seat, a person approves, edits or rejects each
proposed action. A rejection's reason goes back to the model; every decision is an event."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from sttui.core.actions import Action, action_payload


@dataclass(frozen=True)
class Decision:
    kind: str  # approve | edit | reject | withdrawn (the seat is being taken back)
    action: Action | None = None  # the edited action
    reason: str = ""


Review = Callable[[Action, Any], Awaitable[Decision]]


class Overseen:
    """Wraps a model controller: each proposal waits for a person's decision."""

    def __init__(self, inner: Any, review: Review, reviewer: str):
        self.inner = inner
        self.review = review
        self.reviewer = reviewer
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

    async def act(self, view: Any) -> Action:
        while True:
            proposed = await self.inner.act(view)
            decision = await self.review(proposed, view)
            entry = {
                "decision": decision.kind,
                "proposed": {"type": type(proposed).__name__, **action_payload(proposed)},
                "by": self.reviewer,
            }
            if decision.kind == "edit" and decision.action is not None:
                entry["applied"] = {"type": type(decision.action).__name__, **action_payload(decision.action)}
            if decision.reason:
                entry["reason"] = decision.reason
            if self.inner.record is not None:
                self.inner.record("oversight", entry)
            if decision.kind == "approve":
                return proposed
            if decision.kind == "withdrawn":  # the person is taking the seat back: this turn ends with that
                await asyncio.Event().wait()
            if decision.kind == "edit" and decision.action is not None:
                return decision.action
            self.inner.feedback.append(
                f"[Overseer] Your proposed action {entry['proposed']} was rejected and not executed. "
                f"Reason: {decision.reason or 'none given'}"
            )
