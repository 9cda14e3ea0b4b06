"""The ``milestones`` and ``minefields`` sections of an stt task file (DynSTEER's schema).

A constraint looks at the action that just closed (``call.tool``, ``call.args.<path>``,
``call.result.<path>``, ``message.text``) or at the state after it (``state.<path>``).
Field-by-field documentation lives in ``docs/task-format.md`` part 3.
"""

from __future__ import annotations

from functools import cached_property
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

Operator = Literal[
    "equals", "contains", "one_of", "fuzzy_match", "json_subsumes", "added", "updated", "removed", "unchanged_since"
]
# operators that compare the state with an earlier state, so only go with state selectors
STATE_ONLY = ("added", "updated", "removed", "unchanged_since")
ROOTS = ("call", "message", "state")
CALL_PARTS = ("tool", "args", "result")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Constraint(_Strict):
    """``selector`` ``operator`` ``expected``, with a weight; a hard constraint must hold."""

    selector: str
    operator: Operator
    expected: Any = None
    weight: float = Field(default=1.0, gt=0)
    hard: bool = False
    similarity: float = Field(default=0.8, gt=0, le=1)

    @model_validator(mode="after")
    def _fits(self) -> Constraint:
        root, _, rest = self.selector.partition(".")
        if root not in ROOTS:
            raise ValueError(
                f"selector must start with one of {', '.join(r + '.' for r in ROOTS)}; got {self.selector!r}"
            )
        if root == "call":
            part = rest.partition(".")[0]
            if part not in CALL_PARTS:
                raise ValueError(
                    f"a call selector is call.tool, call.args.<path> or call.result.<path>; got {self.selector!r}"
                )
            if part == "tool" and rest != "tool":
                raise ValueError("call.tool has no sub-path")
        if root == "message" and rest != "text":
            raise ValueError(f"the message selector is message.text; got {self.selector!r}")
        if root == "state" and not rest:
            raise ValueError("a state selector needs a path: state.<path>")
        if self.operator in STATE_ONLY and root != "state":
            raise ValueError(f"{self.operator} compares states, so it needs a state.<path> selector")
        if self.operator == "one_of" and not isinstance(self.expected, list):
            raise ValueError("one_of expects a list of values")
        if self.operator == "fuzzy_match" and not isinstance(self.expected, str):
            raise ValueError("fuzzy_match expects text")
        if self.operator == "unchanged_since" and self.expected is not None and not isinstance(self.expected, str):
            raise ValueError("unchanged_since expects a milestone id (or 'start')")
        if self.operator in ("equals", "contains", "json_subsumes") and "expected" not in self.model_fields_set:
            raise ValueError(f"{self.operator} needs an expected value")
        return self

    @cached_property
    def root(self) -> str:
        return self.selector.partition(".")[0]

    @cached_property
    def path(self) -> str:
        """The selector without its root: ``tool``, ``args.x``, ``text`` or a state path."""
        return self.selector.partition(".")[2]

    def describe(self) -> str:
        want = "" if self.expected is None else f" {self.expected!r}"
        return f"{self.selector} {self.operator}{want}" + (" (hard)" if self.hard else "")


def cheapest_first(constraints: list[Constraint]) -> list[Constraint]:
    """Hard constraints on the action before hard ones on the state, then the soft ones: the
    first hard failure decides, and looking at a call is cheaper than comparing states."""
    return sorted(constraints, key=lambda c: (not c.hard, c.root == "state"))


def action_filter(constraints: list[Constraint]) -> tuple[str | None, frozenset[str] | None]:
    """What the action must be for the hard constraints to hold: its kind (call or message)
    and, for calls, the tools named by a hard ``call.tool`` equals/one_of. (None: any.)"""
    kind: str | None = None
    tools: frozenset[str] | None = None
    for c in constraints:
        if not c.hard or c.root == "state":
            continue
        kind = c.root
        if c.selector == "call.tool" and c.operator in ("equals", "one_of"):
            named = frozenset(c.expected if c.operator == "one_of" else [c.expected])
            tools = named if tools is None else tools & named
    return kind, tools


class _Rule(_Strict):
    """Constraints judged together: a milestone or a minefield."""

    constraints: list[Constraint] = Field(min_length=1)
    threshold: float = Field(default=1.0, gt=0, le=1)

    @cached_property
    def checks(self) -> list[Constraint]:
        return cheapest_first(self.constraints)

    @cached_property
    def needs(self) -> tuple[str | None, frozenset[str] | None]:
        return action_filter(self.constraints)

    @cached_property
    def plan(self) -> Any:
        """The constraints compiled for the review's hot path (``operators.Plan``)."""
        from sttui.core.review.operators import Plan

        return Plan(self.checks, self.threshold)

    @cached_property
    def state_only(self) -> bool:
        """Looks at the state alone: the same state gives the same answer, whatever the action."""
        return all(c.root == "state" for c in self.constraints)


_OTHER: Any = object()  # a selector's value other than every one the constraints name
_MAX_OPTIONS = 4096


def best_share(constraints: list[Constraint]) -> tuple[float, list[Constraint]]:
    """The largest weight share one closed action (with the state after it) could reach, and
    the constraints that cannot hold then. One action is a call or a message, never both, and
    a selector has one value at a time (two ``equals`` on it cannot both hold); every other
    constraint is assumed able to hold. Share 0 when the hard constraints exclude each other."""
    values: dict[str, list[Any]] = {}
    for c in constraints:
        if c.operator in ("equals", "one_of"):
            seen = values.setdefault(c.selector, [])
            for v in c.expected if c.operator == "one_of" else [c.expected]:
                if not any(v == s for s in seen):
                    seen.append(v)
    selectors = sorted(values)
    options = 1
    for sel in selectors:
        options *= len(values[sel]) + 1
    if options > _MAX_OPTIONS:  # too many to try: assume the best
        return 1.0, []
    total = sum(c.weight for c in constraints)
    best: tuple[float, list[Constraint]] = (0.0, list(constraints))

    def can_hold(c: Constraint, kind: str, pick: dict[str, Any]) -> bool:
        if c.root != "state" and c.root != kind:
            return False
        if c.selector in pick and c.operator in ("equals", "one_of"):
            got = pick[c.selector]
            if got is _OTHER:
                return False
            return bool(got == c.expected) if c.operator == "equals" else any(got == v for v in c.expected)
        return True

    def assignments(i: int, pick: dict[str, Any]) -> Any:
        if i == len(selectors):
            yield dict(pick)
            return
        for v in [*values[selectors[i]], _OTHER]:
            pick[selectors[i]] = v
            yield from assignments(i + 1, pick)
        pick.pop(selectors[i], None)

    for kind in ("call", "message"):
        for pick in assignments(0, {}):
            holding = [can_hold(c, kind, pick) for c in constraints]
            if not all(h for h, c in zip(holding, constraints, strict=True) if c.hard):
                continue
            share = sum(c.weight for h, c in zip(holding, constraints, strict=True) if h) / total
            if share > best[0]:
                best = (share, [c for h, c in zip(holding, constraints, strict=True) if not h])
    return best


class Milestone(_Rule):
    """A necessary intermediate goal; ready once every milestone in ``after`` has settled."""

    id: str = Field(pattern=r"^[A-Za-z0-9][\w-]*$")
    name: str
    description: str = ""
    after: list[str] = Field(default_factory=list)


class Minefield(_Rule):
    """Something the agent must not do; ``fatal`` ones stop the run under ``--early-stop``."""

    id: str | None = Field(default=None, pattern=r"^[A-Za-z0-9][\w-]*$")
    severity: Literal["fatal", "warn"]
    reason: str

    @cached_property
    def before_call(self) -> bool:
        """Decidable from the proposed call alone, so it can be intercepted before it runs."""
        return all(c.root == "call" and c.path.partition(".")[0] in ("tool", "args") for c in self.constraints)


class ReviewSettings(_Strict):
    """Per-task review settings; the command line can override them."""

    stagnation: int = Field(default=8, ge=1)
    stage_threshold: float = Field(default=0.5, ge=0, le=1)
