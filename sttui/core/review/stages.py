"""Stage scores by rule, from the actions in a stage's evidence window, and first-error
localisation. The rules are few and shown with every score, so a score can be checked by eye.

Each action in a window takes its worst flag: an error (a failed or refused call; but not
the first call to fail after a trigger fired, which is how the change surfaced) or a
minefield touched costs 1; a retry (the same call again within the window) or a no-op (an
operation that succeeded and changed nothing) costs 0.5. A retry is the same call with the
same arguments again, answered as before: re-reading after a change is not one. A stage scores
1 - (total cost / actions in the window), at least 0.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from sttui.core.review.operators import Closed

PENALTY = {"error": 1.0, "minefield": 1.0, "retry": 0.5, "no_op": 0.5}
STOPS = ("fatal_minefield", "frontier_stagnation", "low_quality")  # the signals that end a run under --early-stop


@dataclass
class Stage:
    """A milestone's evidence window (steps ``first``..``last``) and its score; an open stage
    (``milestone`` None) is the tail after the last settlement when milestones remain."""

    milestone: str | None
    anchor: str  # the immediate dominator whose settlement opens the window
    first: int
    last: int
    score: float
    flags: list[tuple[int, str]] = field(default_factory=list)

    @property
    def settled(self) -> bool:
        return self.milestone is not None

    def as_dict(self) -> dict[str, Any]:
        return {
            "milestone": self.milestone,
            "anchor": self.anchor,
            "steps": [self.first, self.last],
            "score": round(self.score, 4),
            "settled": self.settled,
            "flags": [list(f) for f in self.flags],
        }


def flags_of(window: list[Closed], mine_steps: set[int]) -> list[tuple[int, str]]:
    """Every flag of every action in the window, in step order."""
    seen: dict[str, Any] = {}  # call -> its last result
    out: list[tuple[int, str]] = []
    for a in window:
        if a.step in mine_steps:
            out.append((a.step, "minefield"))
        if a.kind != "call":
            continue
        if a.result is not None and not a.result.get("success", False) and not a.surfaced:
            out.append((a.step, "error"))
        key = a.key
        if key in seen and seen[key] == a.result:  # the same call again, and nothing new learned
            out.append((a.step, "retry"))
        seen[key] = a.result
        if a.tool_kind == "operation" and a.result is not None and a.result.get("success") and not a.changed:
            out.append((a.step, "no_op"))
    return out


def score_window(window: list[Closed], flags: Iterable[tuple[int, str]]) -> float:
    worst: dict[int, float] = {}
    for step, flag in flags:
        worst[step] = max(worst.get(step, 0.0), PENALTY[flag])
    if not window:
        return 1.0
    return max(0.0, 1.0 - sum(worst.values()) / len(window))


def first_error(stages: list[Stage], threshold: float, mine_steps: Iterable[int]) -> dict[str, Any] | None:
    """The earliest step that touched a minefield or, in a stage scoring below the threshold,
    carried a flag (an open stage with no flag points at its first step: it went nowhere)."""
    candidates: list[tuple[int, str]] = [(s, "touched a minefield") for s in mine_steps]
    for stage in stages:
        if stage.score >= threshold:
            continue
        name = stage.milestone or "the open stage"
        if stage.flags:
            step, flag = stage.flags[0]
            candidates.append((step, f"{flag.replace('_', '-')} in {name} (stage score {stage.score:.2f})"))
        elif not stage.settled:
            candidates.append((stage.first, "no milestone reached from here on"))
    if not candidates:
        return None
    step, why = min(candidates, key=lambda c: c[0])
    return {"step": step, "why": why}


def flags_text(flags: list[tuple[int, str]], name: Callable[[str], str] = str, most: int = 8) -> str:
    """A stage's flags in a line: a run of one flag on consecutive steps as one range ("retry
    @4-9988"), at most ``most`` of them and then how many more (a 10,000-step episode had printed
    a line of 128,000 characters)."""
    runs: list[list[Any]] = []  # [flag, first step, last step]
    for step, flag in flags:
        if runs and runs[-1][0] == flag and runs[-1][2] + 1 == step:
            runs[-1][2] = step
        else:
            runs.append([flag, step, step])
    shown = [f"{name(f)} @{a}" if a == b else f"{name(f)} @{a}-{b}" for f, a, b in runs[:most]]
    if len(runs) > most:
        shown.append(f"… and {len(runs) - most} more")
    return ", ".join(shown)
