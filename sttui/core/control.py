"""Who controlled an episode: steps per holder of each seat, from its events.

A seat can change hands at any step (a person lends it to a model and takes it back), so
the initial holders an episode row names are not the whole story. Every action's events
carry the controller that produced it; this tallies them:

    {"agent_steps": {"human:dana": 3, "model:x": 5},
     "user_turns": {"baseline:scripted-user": 2},
     "oversight": {"approved": 4, "edited": 1, "rejected": 1}}      # only when there was any

An episode is **mixed** when more than one controller took agent steps, or when a person
rejected a model's proposals under oversight (the model's steps were then steered by the
person's reasons even though every executed step is the model's). Approvals alone leave
the model's trajectory as it was and do not make an episode mixed.

Older records credited a person's edit of a model's proposal to the model; their
``oversight`` event (``decision: edit``) is read here so the edited step goes to the person.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sttui.core.events import Event

# Agent actions in each kind of episode; an ending counts when the agent ended it.
_AGENT_STEPS = {"tool_call", "probe", "batch_submitted", "assessment", "refused"}
OVERSIGHT_KINDS = {"oversight_approved": "approved", "oversight_edited": "edited", "oversight_rejected": "rejected"}


class ControlTally:
    """Counts, event by event, the steps each controller took in each seat."""

    def __init__(self) -> None:
        self.agent_steps: dict[str, int] = {}
        self.user_turns: dict[str, int] = {}
        self.oversight: dict[str, int] = {}
        self._opening_seen = False
        self._edited_by: str | None = None  # an old-format edit: the next agent step is this person's
        self._user_spoke = False  # the last event was a user's message (a satisfied user's words)

    def add(self, event: Event) -> None:
        kind, payload = event.type, event.payload if isinstance(event.payload, dict) else {}
        if kind in OVERSIGHT_KINDS:
            self._count(self.oversight, OVERSIGHT_KINDS[kind])
            return
        if kind == "oversight":  # the format before oversight_* events
            decision = {"approve": "approved", "edit": "edited", "reject": "rejected"}.get(str(payload.get("decision")))
            if decision:
                self._count(self.oversight, decision)
            if decision == "edited" and isinstance(payload.get("by"), str):
                self._edited_by = payload["by"]
            return
        spoke, self._user_spoke = self._user_spoke, False
        if self._agent_step(kind, payload):
            actor = self._edited_by or event.actor
            self._edited_by = None
            self._count(self.agent_steps, actor)
        elif kind == "message" and payload.get("from") == "user":
            if self._opening_seen:
                self._count(self.user_turns, event.actor)
                self._user_spoke = True
            self._opening_seen = True  # the first user message is the task's query
        elif kind == "episode_ended" and payload.get("by") == "user" and not spoke:
            self._count(self.user_turns, event.actor)  # satisfied without a word

    def _agent_step(self, kind: str, payload: dict[str, Any]) -> bool:
        return (
            kind in _AGENT_STEPS
            or (kind == "message" and payload.get("from") == "agent")
            or (kind == "episode_ended" and payload.get("by") == "agent")
        )

    @staticmethod
    def _count(counts: dict[str, int], key: str) -> None:
        counts[key] = counts.get(key, 0) + 1

    def summary(self) -> dict[str, Any]:
        out: dict[str, Any] = {"agent_steps": dict(self.agent_steps), "user_turns": dict(self.user_turns)}
        if self.oversight:
            out["oversight"] = dict(self.oversight)
        return out


def control_summary(events: Iterable[Event]) -> dict[str, Any]:
    """The control summary of a whole event log (engine and meta events, in order)."""
    tally = ControlTally()
    for event in events:
        tally.add(event)
    return tally.summary()


class CheckedControl(dict[str, Any]):
    """A control summary already found valid (the light rows of a listing check each distinct
    one once, when it is read, instead of once per reader per row)."""


def checked_control(value: Any) -> CheckedControl | None:
    """``valid_control``, marked so later checks of the same value are free."""
    valid = valid_control(value)
    return None if valid is None else CheckedControl(valid)


def valid_control(value: Any) -> dict[str, Any] | None:
    """A stored control summary when it has the expected shape (records are data: an imported
    one may not), else None."""
    if type(value) is CheckedControl:
        return value
    if not isinstance(value, dict):
        return None
    for key in ("agent_steps", "user_turns", "oversight"):
        counts = value.get(key, {})
        if not isinstance(counts, dict) or not all(
            isinstance(k, str) and isinstance(v, int) and not isinstance(v, bool) and v >= 0 for k, v in counts.items()
        ):
            return None
    return value


def is_mixed(control: dict[str, Any]) -> bool:
    """More than one controller took agent steps, or a person steered a model by rejections."""
    holders = [a for a, n in control.get("agent_steps", {}).items() if n > 0]
    return len(holders) > 1 or bool(control.get("oversight", {}).get("rejected"))


def agent_holder(control: dict[str, Any], initial: str) -> str:
    """The controller an episode's agent results belong to: ``mixed``, the one controller that
    took every agent step, or (no steps at all) the initial holder."""
    if is_mixed(control):
        return "mixed"
    holders = [a for a, n in control.get("agent_steps", {}).items() if n > 0]
    return holders[0] if holders else initial


def holders_text(counts: dict[str, int]) -> str:
    """``human:dana 3, model:x 5``: holders by steps, most first."""
    return ", ".join(f"{a} {n}" for a, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])) if n > 0)


def seat_label(initial: str | None, counts: dict[str, int] | None) -> str:
    """A seat's holders for a listing: ``mixed (human:dana 3, model:x 5)`` when several took
    turns in it, the one who did when that is not the initial holder, else the initial holder."""
    acted = {a: n for a, n in (counts or {}).items() if n > 0}
    if len(acted) > 1:
        return f"mixed ({holders_text(acted)})"
    if len(acted) == 1 and initial not in acted:
        return f"{next(iter(acted))} (from {initial or '-'})"
    return initial or "-"
