"""Events: the unit of the record. Append-only and numbered per episode."""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from typing import Any

# Types of event an stt episode emits. The store keeps them verbatim.
EPISODE_STARTED = "episode_started"
MESSAGE = "message"  # payload: {from: user|agent, text}
TOOL_CALL = "tool_call"  # payload: {tool, args}
TOOL_RESULT = "tool_result"  # payload: {tool, result, state_diff, refused?}
TRIGGER_FIRED = "trigger_fired"  # payload: {trigger, announce, notice?, diff}
EPISODE_ENDED = "episode_ended"  # payload: {by, reason, state_hash, steps, stop?}
MILESTONE_SETTLED = "milestone_settled"  # payload: {milestone, name, step, steps, score, flags, anchor}
STOP_SIGNAL = "stop_signal"  # payload: {signal, step, stops, ...}: minefields, stagnation, predecessor gaps


@dataclass
class Event:
    seq: int
    type: str
    actor: str
    payload: dict[str, Any]
    sim_time: str
    wall_time: float = field(default_factory=time.time)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)
