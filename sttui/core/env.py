"""The environment base class: tools declared by decorator, plain-data state,
a simulated clock and places with travel times.

A domain subclasses :class:`Environment` and writes tool methods::

    class LogisticsEnv(Environment):
        @tool("query", minutes=2)
        def get_vehicle_status(self, vehicle_id: str) -> dict:
            \"\"\"Current status of one vehicle.

            Args:
                vehicle_id: The vehicle's id, e.g. TRK-7.
            \"\"\"
            ...

The episode (not the environment) validates arguments, applies trigger overrides,
advances the clock and records events, so tool methods stay plain domain code.
"""

from __future__ import annotations

import heapq
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, ClassVar, Literal

from sttui.core.schema import function_schema

ToolKind = Literal["query", "operation"]
Result = dict[str, Any]


@dataclass(frozen=True)
class ToolSpec:
    """What an agent is told about a tool, and how long it takes."""

    name: str
    kind: ToolKind
    minutes: float
    description: str
    parameters: dict[str, Any]

    def openai_schema(self) -> dict[str, Any]:
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": self.parameters},
        }


@dataclass(frozen=True)
class _ToolMark:
    kind: ToolKind
    minutes: float


def tool(kind: ToolKind, minutes: float = 5) -> Callable[[Callable[..., Result]], Callable[..., Result]]:
    """Declare a tool method: its kind (query or operation) and simulated duration."""
    if kind not in ("query", "operation"):
        raise ValueError(f"tool kind must be 'query' or 'operation', not {kind!r}")

    def mark(fn: Callable[..., Result]) -> Callable[..., Result]:
        fn.__sttui_tool__ = _ToolMark(kind, minutes)  # type: ignore[attr-defined]  # the decorator marks the function
        return fn

    return mark


def check(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Declare a named checklist function: ``(self, **args) -> bool | (bool, detail)``."""
    fn.__sttui_check__ = True  # type: ignore[attr-defined]  # the decorator marks the function
    return fn


@dataclass
class Places:
    """Travel over the ``places`` and ``travel`` sections of the state.

    ``travel`` is a list of ``{from, to, minutes}`` legs, two-way unless ``oneway``,
    skipped while ``closed`` is true. Travel time is the shortest open path.
    """

    state: dict[str, Any]
    _cache: dict[tuple[str, str], tuple[float, list[str]] | None] = field(default_factory=dict)
    _key: int | None = None

    def route(self, origin: str, dest: str) -> tuple[float, list[str]] | None:
        legs = self.state.get("travel", [])
        key = hash(repr(legs))
        if key != self._key:
            self._cache.clear()
            self._key = key
        if (origin, dest) not in self._cache:
            self._cache[(origin, dest)] = shortest_route(legs, origin, dest)
        return self._cache[(origin, dest)]


LegFilter = Callable[[dict[str, Any]], bool]


def shortest_route(
    legs: list[dict[str, Any]], origin: str, dest: str, usable: LegFilter | None = None
) -> tuple[float, list[str]] | None:
    """(minutes, places) of the shortest route over open legs, or None. ``usable`` narrows the
    legs further, say to those a given vehicle may take; ties go to the earlier-listed leg."""
    graph: dict[str, list[tuple[str, float]]] = {}
    for leg in legs:
        if leg.get("closed") or (usable is not None and not usable(leg)):
            continue
        a, b, m = leg["from"], leg["to"], float(leg["minutes"])
        graph.setdefault(a, []).append((b, m))
        if not leg.get("oneway"):
            graph.setdefault(b, []).append((a, m))
    best: dict[str, float] = {origin: 0.0}
    prev: dict[str, str] = {}
    queue = [(0.0, origin)]
    while queue:
        dist, here = heapq.heappop(queue)
        if here == dest:
            path = [dest]
            while path[-1] != origin:
                path.append(prev[path[-1]])
            return dist, path[::-1]
        if dist > best.get(here, float("inf")):
            continue
        for there, minutes in graph.get(here, []):
            nd = dist + minutes
            if nd < best.get(there, float("inf")):
                best[there] = nd
                prev[there] = here
                heapq.heappush(queue, (nd, there))
    return None


class Environment:
    """Base class of every stt environment. Subclasses add ``@tool`` and ``@check`` methods."""

    tool_specs: ClassVar[dict[str, ToolSpec]] = {}
    check_names: ClassVar[frozenset[str]] = frozenset()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        specs: dict[str, ToolSpec] = {}
        checks: set[str] = set()
        for name in dir(cls):
            member = getattr(cls, name, None)
            mark = getattr(member, "__sttui_tool__", None)
            if mark is not None:
                desc, params = function_schema(member)
                specs[name] = ToolSpec(name, mark.kind, mark.minutes, desc, params)
            if getattr(member, "__sttui_check__", False):
                checks.add(name)
        cls.tool_specs = specs
        cls.check_names = frozenset(checks)

    def __init__(self, state: dict[str, Any], now: datetime, seed: int = 0):
        self.state = state
        self.now = now
        self.rng = random.Random(seed)
        self.places = Places(state)

    # helpers for tool methods -------------------------------------------------
    def advance(self, minutes: float) -> None:
        """Move the clock on by extra minutes (beyond the tool's own duration)."""
        self.now += timedelta(minutes=minutes)

    def travel_minutes(self, origin: str, dest: str, usable: LegFilter | None = None) -> float | None:
        """Shortest open travel time between two places, or None if unreachable; ``usable``
        restricts the legs (e.g. to those under a vehicle's weight limit)."""
        if origin == dest:
            return 0.0
        found = self._route(origin, dest, usable)
        return found[0] if found else None

    def _route(self, origin: str, dest: str, usable: LegFilter | None) -> tuple[float, list[str]] | None:
        if usable is None:
            return self.places.route(origin, dest)
        return shortest_route(self.state.get("travel", []), origin, dest, usable)

    def route(self, origin: str, dest: str, usable: LegFilter | None = None) -> list[str] | None:
        """The places along the shortest open route, or None if unreachable."""
        if origin == dest:
            return [origin]
        found = self._route(origin, dest, usable)
        return found[1] if found else None

    def iso(self, when: datetime | None = None) -> str:
        return (when or self.now).isoformat(timespec="minutes")

    @staticmethod
    def ok(**data: Any) -> Result:
        return {"success": True, **data}

    @staticmethod
    def fail(error: str, **data: Any) -> Result:
        return {"success": False, "error": error, **data}
