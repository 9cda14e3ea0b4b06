"""Before ``sttui check`` accepts an impossible task: no single operation off its plans
reaches the goal.

An impossible task's ``checklist`` is the user's goal, which no plan may reach. The plans
only show that two plans do not reach it; a forgotten crew, truck or flight that one call
would use goes unseen. So every operation is tried once on the state at the start and on the
state after each tool step of the naive plan, with argument values drawn from that state (ids
that fit the parameter's name, values of fields of the same name, places, enum values, the
plans' own arguments). A call after which every checklist item passes, once the clock has
reached the last ``when.at`` of the task and every trigger due by then has fired (the world
goes on after the call), is a problem.

The search is bounded: at most :data:`MAX_CALLS` calls and :data:`MAX_SECONDS` seconds of this
process's CPU time per task (not of the wall clock, so a machine busy with other jobs does not
cut the search short and what it covers does not depend on the load), :data:`MAX_VALUES` values per parameter (:data:`MAX_FALLBACK` for one that nothing in the
state is named for: a free text, a seat), and :data:`MAX_PER_TOOL` calls per tool and
state; what it covered is reported ("searched N single operations from M states").
"""

from __future__ import annotations

import copy
import itertools
import re
import time
from dataclasses import dataclass, field
from typing import Any

from sttui.controllers.baselines import _identifiers as identifiers  # (the random baseline's ids)
from sttui.core.actions import ToolCall
from sttui.core.checklist import evaluate_checklist
from sttui.core.episode import Episode, ProtocolError
from sttui.core.loader import LoadedTask
from sttui.core.task import SttTask

MAX_CALLS = 20_000
MAX_SECONDS = 10.0
MAX_VALUES = 40
MAX_PER_TOOL = 2_000
MAX_FALLBACK = 6  # values for a parameter nothing in the state is named for


@dataclass
class SearchResult:
    """What the search tried and what reached the goal (the call and where it was made)."""

    calls: int = 0
    states: int = 0
    found: list[tuple[str, str]] = field(default_factory=list)
    cut: str | None = None  # why it stopped early, if it did

    def note(self) -> str:
        line = f"searched {self.calls} single operations from {self.states} states for a way to the goal"
        return line + (f" (stopped: {self.cut})" if self.cut else "")


def search(loaded: LoadedTask) -> SearchResult:
    """Every single operation from the state at the start and after each naive-plan tool step."""
    task, env_cls = loaded.task, loaded.env_cls
    assert isinstance(task, SttTask) and env_cls is not None
    steps = [ToolCall(s.tool, dict(s.args)) for s in task.naive_plan if s.tool is not None]
    prefixes = [("on the state at the start", 0)] + [
        (f"after naive_plan tool step {i} ({c.tool})", i) for i, c in enumerate(steps, 1)
    ]
    # a call made before a scheduled change is judged after it: the goal must hold once every
    # time trigger has fired (a hold confirmed at 08:40 under an authorisation corrected at
    # 08:44 does not reach the goal)
    last = max((t.when.at for t in task.triggers if t.when.at is not None), default=None)
    out = SearchResult()
    seen: set[str] = set()
    began = time.process_time()
    for where, n in prefixes:
        ep = _replay(loaded, steps[:n])
        if ep is None or ep.ended is not None:
            continue
        key = ep.state_hash()
        if key in seen:
            continue
        seen.add(key)
        out.states += 1
        try_from = _cheaper_start(loaded, steps[:n], ep)
        for call in candidate_calls(task, env_cls.tool_specs, ep.env.state):
            if out.calls >= MAX_CALLS:
                out.cut = f"the cap of {MAX_CALLS} calls"
                return out
            if time.process_time() - began > MAX_SECONDS:
                out.cut = f"the {MAX_SECONDS:.0f} s CPU time limit"
                return out
            out.calls += 1
            tried = try_from(call)
            if tried is None:
                continue
            if last is not None:
                tried.pass_time(last)
            if all(i.passed for i in evaluate_checklist(tried)):
                out.found.append((where, _shown(call)))
                return out
    return out


def _replay(loaded: LoadedTask, calls: list[ToolCall]) -> Episode | None:
    """A fresh episode of the task with ``calls`` applied (the plan's messages left out: they
    change no state); None when the protocol refuses one (the step limit)."""
    assert isinstance(loaded.task, SttTask) and loaded.env_cls is not None
    ep = Episode(loaded.task, loaded.env_cls)
    ep.start()
    try:
        for call in calls:
            ep.apply(ToolCall(call.tool, dict(call.args)))
    except ProtocolError:
        return None
    return ep


def _fork(ep: Episode) -> Episode:
    """A copy of an episode that goes on independently: its state, clock, triggers and record
    copied; the task, the tool specs and the listeners shared (they are never changed by a
    step); the running state hash's digests copied as digests (they cannot be deep-copied)."""
    memo: dict[int, Any] = {id(ep.task): ep.task, id(ep.tools): ep.tools, id(ep.listeners): ep.listeners}
    for h in ep._hashing.hashes():
        memo[id(h)] = h.copy()
    return copy.deepcopy(ep, memo)


def _cheaper_start(loaded: LoadedTask, prefix: list[ToolCall], ep: Episode) -> Any:
    """How to make "the prefix, then this call" for each candidate: replay the prefix from the
    start (a few cheap calls) or copy the episode after it (a prefix with a costly query, a
    slot search say), whichever one trial shows is cheaper. Both give the same episode
    (``tests/test_search_bounds.py`` compares them on every bundled impossible task)."""

    def replayed(call: ToolCall) -> Episode | None:
        return _replay(loaded, [*prefix, call])

    def forked(call: ToolCall) -> Episode | None:
        tried = _fork(ep)
        try:
            tried.apply(ToolCall(call.tool, dict(call.args)))
        except ProtocolError:
            return None
        return tried

    if not prefix or ep.review is not None:
        return replayed
    started = time.process_time()
    _replay(loaded, prefix)
    replay_cost = time.process_time() - started
    started = time.process_time()
    _fork(ep)
    fork_cost = time.process_time() - started
    return forked if fork_cost < replay_cost else replayed


def _shown(call: ToolCall) -> str:
    return f"{call.tool}({', '.join(f'{k}={v!r}' for k, v in call.args.items())})"


def candidate_calls(task: SttTask, tools: dict[str, Any], state: dict[str, Any]) -> list[ToolCall]:
    """Every operation with every combination of values for its required parameters (each from
    :func:`values_for`), and the plans' own calls of it; capped per tool."""
    plan_args: dict[str, list[Any]] = {}
    own: dict[str, list[dict[str, Any]]] = {}
    for s in (*task.naive_plan, *task.solution):
        if s.tool is None:
            continue
        own.setdefault(s.tool, []).append(dict(s.args))
        for k, v in s.args.items():
            _add(plan_args.setdefault(k, []), v)
    out: list[ToolCall] = []
    for name in sorted(tools):
        spec = tools[name]
        if spec.kind != "operation":
            continue
        params = spec.parameters
        required = list(params.get("required", []))
        lists = [values_for(name, p, params["properties"].get(p, {}), state, plan_args) for p in required]
        calls = [dict(args) for args in own.get(name, [])]
        for combo in itertools.product(*lists):
            if len(calls) >= MAX_PER_TOOL:
                break
            args = dict(zip(required, combo, strict=True))
            if args not in calls:
                calls.append(args)
        out.extend(ToolCall(name, args) for args in calls[:MAX_PER_TOOL])
    return out


def values_for(
    tool: str, param: str, schema: dict[str, Any], state: dict[str, Any], plan_args: dict[str, list[Any]]
) -> list[Any]:
    """Values for one parameter, most likely first: the plans' values for a parameter of this
    name, the enum's values, then from the state: the keys of a mapping named for the parameter
    (``crew_id``: the keys of ``crews``), values of fields named like it, places; failing all
    these, every id in the state. At most :data:`MAX_VALUES`."""
    out: list[Any] = []
    for v in plan_args.get(param, []):
        _add(out, v)
    for v in schema.get("enum", []):
        _add(out, v)
    kind = schema.get("type")
    kind = next((k for k in kind if k != "null"), "string") if isinstance(kind, list) else kind
    if kind == "boolean":
        for v in (True, False):
            _add(out, v)
    elif kind in ("integer", "number"):
        for v in _field_values(state, {param}):
            if isinstance(v, int | float) and not isinstance(v, bool):
                _add(out, v)
        if not out:
            out.append(1)
    elif kind == "array":
        item = schema.get("items", {"type": "string"})
        singular = param.split("_")[-1].removesuffix("s")  # to_flights: a flight
        for v in values_for(tool, singular, item, state, plan_args):
            _add(out, [v])
    elif kind == "object":
        if not out:
            out.append({})
    elif "enum" not in schema:
        stems = _stems(param)
        for key, records in _mappings(state):
            if key in stems or key.removesuffix("s") in stems or key.removesuffix("es") in stems:
                for k in records:
                    _add(out, k)
        for v in _field_values(state, {param, *stems}):
            if isinstance(v, str):
                _add(out, v)
        places = state.get("places")
        if isinstance(places, dict) and param in _PLACE_WORDS:
            for k in places:
                _add(out, k)
        if not out and _TIME.search(param):
            for v in sorted(_strings(state, _ISO)):
                _add(out, v)
        if not out:  # a free-text or unnamed field: a few of the state's ids stand in
            for v in sorted(identifiers(state))[:MAX_FALLBACK]:
                _add(out, v)
        if not out:
            out.append("x")
    return out[:MAX_VALUES]


_TIME = re.compile(r"time|start|end|deadline|until|date|(^|_)at$|when")
_ISO = re.compile(r"\d{4}-\d\d-\d\d(T\d\d:\d\d(:\d\d)?)?$")
_PLACE_WORDS = {"origin", "destination", "to", "from", "site", "site_id", "place", "location", "via", "area"}


def _stems(param: str) -> set[str]:
    base = param.removesuffix("_ids").removesuffix("_id").removesuffix("_number").removesuffix("_code")
    return {param, base}


def _add(values: list[Any], v: Any) -> None:
    if v not in values:
        values.append(v)


def _mappings(value: Any, depth: int = 0) -> list[tuple[str, dict[str, Any]]]:
    """(key, mapping) for every mapping of records in the state, a few levels down."""
    out: list[tuple[str, dict[str, Any]]] = []
    if isinstance(value, dict) and depth < 4:
        for k, v in value.items():
            if isinstance(v, dict) and v and all(isinstance(r, dict) for r in v.values()):
                out.append((str(k), v))
            out.extend(_mappings(v, depth + 1))
    return out


def _field_values(value: Any, names: set[str], depth: int = 0) -> list[Any]:
    """Scalar values of fields with one of ``names`` anywhere in the state."""
    out: list[Any] = []
    if depth > 6:
        return out
    if isinstance(value, dict):
        for k, v in value.items():
            if k in names and isinstance(v, str | int | float) and not isinstance(v, bool):
                out.append(v)
            out.extend(_field_values(v, names, depth + 1))
    elif isinstance(value, list):
        for v in value:
            out.extend(_field_values(v, names, depth + 1))
    return out


def _strings(value: Any, pattern: re.Pattern[str], depth: int = 0) -> set[str]:
    """Every string value in the state that matches ``pattern`` (timestamps, say)."""
    out: set[str] = set()
    if depth > 6:
        return out
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, list):
        for v in value:
            out |= _strings(v, pattern, depth + 1)
    elif isinstance(value, str) and pattern.match(value):
        out.add(value)
    return out
