"""Where two episodes part ways: their agent steps aligned by tool and arguments, and the first
step at which the actions differ in kind (another tool, other arguments, a message where the
other called a tool, an ending). Messages align with messages whatever their wording: two
people never word a report alike, and the wording is not the kind of action."""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass
from typing import Any

from sttui.core import events as ev
from sttui.core.actions import Assess, EndEpisode, Probe, Reply, Satisfied, Say, SubmitBatch, ToolCall
from sttui.core.replaying import actions_with_seqs


@dataclass(frozen=True)
class Step:
    """One agent step: its number (1-based), the event seq it shows in, its key and a label."""

    n: int
    seq: int
    key: tuple[str, ...]
    label: str


def agent_steps(kind: str, events: list[ev.Event]) -> list[Step]:
    out: list[Step] = []
    for seq, _actor, action in actions_with_seqs(kind, events):
        if isinstance(action, Reply | Satisfied):
            continue  # the user seat's
        key: tuple[str, ...]
        if isinstance(action, ToolCall):
            args = json.dumps(action.args, sort_keys=True, default=str)
            key, label = ("call", action.tool, args), f"{action.tool}({_short(args)})"
        elif isinstance(action, Say):
            key, label = ("say",), f"say: {_short(action.text)}"
        elif isinstance(action, EndEpisode):
            key, label = ("end",), "end the episode"
        elif isinstance(action, Probe | SubmitBatch | Assess):
            data = json.dumps(action.__dict__, sort_keys=True, default=str)
            key, label = (type(action).__name__.lower(), data), f"{type(action).__name__.lower()} {_short(data)}"
        else:
            key, label = (type(action).__name__.lower(),), type(action).__name__.lower()
        out.append(Step(len(out) + 1, seq, key, label))
    return out


def _short(text: str, width: int = 70) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _side(steps: list[Step], at: int, total: int) -> str:
    """One side's action where the two part ways: its step, or that it has none there."""
    if steps:
        return steps[0].label
    return "(nothing: it ended here)" if at >= total else "(no such step: it goes straight on)"


def compare_steps(a: list[Step], b: list[Step]) -> dict[str, Any]:
    """The alignment (pairs of step numbers, None where one side has no counterpart) and the
    first divergence, or None when the two took the same kinds of steps throughout."""
    rows: list[tuple[Step | None, Step | None, str]] = []
    first: dict[str, Any] | None = None
    for op, i1, i2, j1, j2 in _opcodes([s.key for s in a], [s.key for s in b]):
        if op == "equal":
            rows += [(a[i], b[j], "same") for i, j in zip(range(i1, i2), range(j1, j2), strict=True)]
            continue
        left, right = a[i1:i2], b[j1:j2]
        if first is None:
            first = {
                "a_step": left[0].n if left else None,
                "b_step": right[0].n if right else None,
                "a": _side(left, i1, len(a)),
                "b": _side(right, j1, len(b)),
                "after_common_steps": len(rows),
            }
        for k in range(max(len(left), len(right))):
            rows.append((left[k] if k < len(left) else None, right[k] if k < len(right) else None, op))
    return {
        "steps": [len(a), len(b)],
        "common_prefix": next((i for i, r in enumerate(rows) if r[2] != "same"), len(rows)),
        "first_divergence": first,
        "rows": [
            {
                "a": x.n if x else None,
                "a_action": x.label if x else None,
                "b": y.n if y else None,
                "b_action": y.label if y else None,
                "match": m,
            }
            for x, y, m in rows
        ],
    }


def _opcodes(a: list[Any], b: list[Any]) -> list[tuple[str, int, int, int, int]]:
    """``difflib``'s opcodes for ``a`` against ``b``, with the steps both begin and end with
    taken as they are: the matcher sees only what lies between. Two episodes share most of
    their steps (a fork, a rerun), and the matcher grows with the square of what it is given
    when steps repeat (two 10,000-step episodes of a repeating cycle took 1.8 s)."""
    head = 0
    while head < min(len(a), len(b)) and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < min(len(a), len(b)) - head and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    middle = difflib.SequenceMatcher(a=a[head : len(a) - tail], b=b[head : len(b) - tail], autojunk=False)
    out = [("equal", 0, head, 0, head)] if head else []
    out += [(op, i1 + head, i2 + head, j1 + head, j2 + head) for op, i1, i2, j1, j2 in middle.get_opcodes()]
    if tail:
        out.append(("equal", len(a) - tail, len(a), len(b) - tail, len(b)))
    return out
