"""Trigger runtime: when a trigger activates, and what its effects do to an episode."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from sttui.core import state as st
from sttui.core.task import (
    AppendEffect,
    ArgMatch,
    DeleteEffect,
    DisableTool,
    EnableTool,
    FailTool,
    MoveEntity,
    SetEffect,
    ShiftClock,
    Trigger,
)

if TYPE_CHECKING:
    from sttui.core.env import Environment


def args_match(match: ArgMatch, args: dict[str, Any]) -> bool:
    """None matches every call; a list matches when any argument equals one of its
    values; a mapping matches when each named argument equals (or is one of) its value."""
    if match is None:
        return True
    if isinstance(match, list):
        return any(v in match for v in args.values() if isinstance(v, str | int | float | bool))
    for name, want in match.items():
        got = args.get(name)
        if isinstance(want, list) and not isinstance(got, list):
            if got not in want:
                return False
        elif got != want:
            return False
    return True


@dataclass
class Block:
    """A tool made unavailable (disabled) or made to fail, for some or all arguments."""

    tool: str
    match: ArgMatch
    error: str
    disabled: bool
    remaining: int | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "tool": self.tool,
            "for": self.match,
            "error": self.error,
            "disabled": self.disabled,
            "remaining": self.remaining,
        }


def _default_unavailable(tool: str, match: ArgMatch) -> str:
    if match is None:
        return f"{tool} is currently unavailable"
    if isinstance(match, list):
        return f"{tool} is currently unavailable for {', '.join(map(str, match))}"
    return f"{tool} is currently unavailable for " + ", ".join(f"{k}={v}" for k, v in match.items())


@dataclass
class TriggerState:
    """Mutable trigger bookkeeping of one episode: part of its snapshot and hash."""

    fired: dict[str, int] = field(default_factory=dict)
    matching_calls: dict[str, int] = field(default_factory=dict)
    blocks: list[Block] = field(default_factory=list)
    version: int = 0  # bumped by every change here, so the episode's hash can reuse the snapshot's JSON

    def blocked(self, tool: str, args: dict[str, Any]) -> str | None:
        """The error a call gets from an active block, consuming one use of a counted failure."""
        for block in self.blocks:
            if block.tool == tool and args_match(block.match, args):
                if block.remaining is not None:
                    self.version += 1
                    block.remaining -= 1
                    if block.remaining <= 0:
                        self.blocks.remove(block)
                return block.error
        return None

    def snapshot(self) -> dict[str, Any]:
        return {
            "fired": dict(self.fired),
            "matching_calls": dict(self.matching_calls),
            "blocks": [b.as_dict() for b in self.blocks],
        }


def activated_by_call(trigger: Trigger, tool: str, args: dict[str, Any], ts: TriggerState, timing: str) -> bool:
    """Count a matching call and say whether it activates ``trigger`` now."""
    when = trigger.when
    if when.tool != tool or when.timing != timing:
        return False
    if when.args is not None and not args_match(when.args, args):
        return False
    n = ts.matching_calls.get(trigger.id, 0) + 1
    ts.matching_calls[trigger.id] = n
    ts.version += 1
    return n == when.nth if when.nth is not None else True


def _parent_exists(state: Any, path: str, what: str) -> None:
    """An effect changes a field of a record that exists; it never creates the record (a
    typo in an id would otherwise pass silently)."""
    parent = path.rpartition(".")[0]
    problem = st.missing(state, parent) if parent else None
    if problem is not None:
        raise st.PathError(f"{what} {path}: {problem}; an effect changes records that exist, it does not create them")


def apply_effects(trigger: Trigger, env: Environment, ts: TriggerState) -> None:
    """Apply every effect of ``trigger`` in order; a path whose record does not exist raises
    PathError (the episode records it with the firing)."""
    ts.version += 1
    for effect in trigger.effects:
        if isinstance(effect, SetEffect):
            _parent_exists(env.state, effect.set, "set")
            st.set_path(env.state, effect.set, st.copy_state(effect.value))
        elif isinstance(effect, DeleteEffect):
            st.delete_path(env.state, effect.delete)
        elif isinstance(effect, AppendEffect):
            _parent_exists(env.state, effect.append, "append")
            st.append_path(env.state, effect.append, st.copy_state(effect.value))
        elif isinstance(effect, DisableTool):
            ts.blocks.append(
                Block(
                    effect.disable_tool,
                    effect.for_,
                    effect.error or _default_unavailable(effect.disable_tool, effect.for_),
                    True,
                )
            )
        elif isinstance(effect, EnableTool):
            ts.blocks = [
                b
                for b in ts.blocks
                if not (b.disabled and b.tool == effect.enable_tool and (effect.for_ is None or b.match == effect.for_))
            ]
        elif isinstance(effect, FailTool):
            ts.blocks.append(Block(effect.fail_tool, effect.for_, effect.error, False, effect.times))
        elif isinstance(effect, ShiftClock):
            try:
                env.now += timedelta(minutes=effect.shift_clock)
            except OverflowError:
                raise st.PathError("shift_clock would move the clock outside the years 1-9999") from None
        elif isinstance(effect, MoveEntity):
            _parent_exists(env.state, f"{effect.move}.{effect.field}", "move")
            st.set_path(env.state, f"{effect.move}.{effect.field}", effect.to)
