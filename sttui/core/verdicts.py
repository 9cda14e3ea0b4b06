"""The user's verdict on an episode: its own field beside the checklist, so the record keeps
what the user seat concluded (satisfied, not satisfied with a reason, gave up) apart from
what the checklist or the judge decided.

Plain data, ``{"verdict": satisfied | not_satisfied | gave_up, "reason": str | None, "by":
controller}``: in the ``episode_ended`` event's payload when the user seat ended the episode,
in a ``user_verdict`` event when a scripted user gives its verdict on an episode someone else
ended, and in the episode's scores as ``user_verdict``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sttui.core.actions import GaveUp, NotSatisfied, Satisfied

SATISFIED = "satisfied"
NOT_SATISFIED = "not_satisfied"
GAVE_UP = "gave_up"
VERDICTS = (SATISFIED, NOT_SATISFIED, GAVE_UP)
EVENT = "user_verdict"  # the event a verdict given after someone else's ending is recorded in
LABELS = {SATISFIED: "satisfied", NOT_SATISFIED: "not satisfied", GAVE_UP: "gave up"}


def verdict(kind: str, reason: str | None, by: str) -> dict[str, Any]:
    if kind not in VERDICTS:
        raise ValueError(f"a user verdict is one of {', '.join(VERDICTS)}, not {kind!r}")
    return {"verdict": kind, "reason": (reason or "").strip() or None, "by": by}


def of_action(action: Satisfied | NotSatisfied | GaveUp, by: str) -> dict[str, Any]:
    """The verdict an ending action of the user seat carries."""
    if isinstance(action, NotSatisfied):
        return verdict(NOT_SATISFIED, action.reason, by)
    if isinstance(action, GaveUp):
        return verdict(GAVE_UP, action.reason, by)
    return verdict(SATISFIED, None, by)


def action_of(payload: dict[str, Any] | None, text: str = "") -> Satisfied | NotSatisfied | GaveUp:
    """The ending action a recorded verdict came from (a record made before verdicts were
    kept ended with the user satisfied)."""
    kind = (payload or {}).get("verdict")
    reason = (payload or {}).get("reason") or ""
    if kind == NOT_SATISFIED:
        return NotSatisfied(reason, text)
    if kind == GAVE_UP:
        return GaveUp(reason, text)
    return Satisfied(text)


def end_reason(v: dict[str, Any]) -> str:
    """How the episode's end reads: it says what the user concluded."""
    reason = f": {v['reason']}" if v.get("reason") else ""
    if v["verdict"] == NOT_SATISFIED:
        return f"the user is not satisfied{reason}"
    if v["verdict"] == GAVE_UP:
        return f"the user gave up{reason}"
    return "the user is satisfied"


def kind_of(v: Any) -> str | None:
    """The verdict of a recorded ``user_verdict`` (a mapping), or None for anything else."""
    kind = v.get("verdict") if isinstance(v, Mapping) else None
    return kind if kind in VERDICTS else None


def disagrees(v: Any, passed: Any) -> bool:
    """The user and the checklist (or judge) differ: satisfied on a failed episode, or not
    satisfied (or gave up) on a passed one. ``v`` a recorded verdict or a verdict's name; no
    verdict, or no outcome, disagrees with nothing."""
    kind = v if v in VERDICTS else kind_of(v)
    if kind is None or passed is None:
        return False
    return (kind == SATISFIED) != bool(passed)


def label(v: Any) -> str:
    """A verdict as a listing shows it: "satisfied", "not satisfied", "gave up", or "-"."""
    kind = kind_of(v)
    return LABELS[kind] if kind else "-"


def is_default(v: Any) -> bool:
    """A plain "satisfied" with no reason: what every user ending meant before verdicts were
    recorded (a rebuild of such a record compares equal without the field)."""
    return isinstance(v, dict) and v.get("verdict") == SATISFIED and not v.get("reason")


def describe(v: dict[str, Any], passed: bool | None = None, by: bool = True) -> str:
    """One line for a person: the verdict, its reason, who gave it (unless ``by`` is False, as
    in a blind annotation) and, given the checklist's ``passed``, whether the two disagree."""
    line = f"user verdict: {label(v)}"
    if v.get("reason"):
        line += f" ({v['reason']})"
    if by and v.get("by"):
        line += f" by {v['by']}"
    if passed is not None and disagrees(v, passed):
        line += f"  ·  the checklist {'passed' if passed else 'failed'} it: user and checklist disagree"
    return line
