"""Authoring mistakes ``sttui check`` finds by running a task, which loading cannot see:
an effect on a record that does not exist, a query tool that changes state on a call no plan
makes, a checklist path that is missing at the end, a constraint that can never hold."""

from __future__ import annotations

import contextlib
from collections.abc import Container
from dataclasses import dataclass
from typing import Any

from sttui.controllers.base import AgentView, Attributed, Controller
from sttui.core import events as ev
from sttui.core import state as st
from sttui.core.actions import Action
from sttui.core.checklist import ItemResult
from sttui.core.episode import Episode
from sttui.core.expect import is_records
from sttui.core.loader import LoadedTask
from sttui.core.problems import Loc
from sttui.core.review.model import Constraint
from sttui.core.review.operators import Context, holds
from sttui.core.task import SttTask

# operators that look at one state, so can be tried on any state a plan reached
_ONE_STATE = ("equals", "contains", "one_of", "fuzzy_match", "json_subsumes")


@dataclass(frozen=True)
class Finding:
    """One mistake a run revealed, and where to fix it: ``loc`` in the task file (``()``: the
    file as a whole), or ``tool``, a tool of the environment module, or ``where``, a file and line."""

    message: str
    loc: Loc = ()
    tool: str | None = None
    where: tuple[str, int, str] | None = None  # (file, line, field) already known: a line that raised


def trigger_errors(episode: Episode, plan: str) -> list[Finding]:
    """Effects a firing could not apply (a set on a record that does not exist, …), each
    located at the effect that failed (the first of its trigger whose path the error names)."""
    triggers = {t.id: i for i, t in enumerate(episode.task.triggers)}
    out = []
    for e in episode.events:
        if e.type != ev.TRIGGER_FIRED or not e.payload.get("error"):
            continue
        trig, error = e.payload["trigger"], e.payload["error"]
        i = triggers.get(trig)
        loc: Loc = () if i is None else ("triggers", i, "effects")
        if i is not None:
            for j, effect in enumerate(episode.task.triggers[i].effects):
                path = next((v for k, v in effect.model_dump(by_alias=True).items() if k in _PATH_KEYS), None)
                if isinstance(path, str) and error.split(":", 1)[0].split(" ", 1)[-1].startswith(path):
                    loc = ("triggers", i, "effects", j)
                    break
        out.append(Finding(f"trigger {trig} in {plan}: {error}", loc))
    return out


_PATH_KEYS = ("set", "append", "delete", "move")


class QueryProbe:
    """Holds the seat for ``inner`` and, before each of its actions (so on the state at the
    start and after every step) and once more at the end, calls every query tool once on a
    copy of the state. A query that changes the copy is recorded, with where and how."""

    def __init__(self, inner: Controller, loaded: LoadedTask):
        self.inner = inner
        self.name = inner.name
        self.loaded = loaded
        self.episode: Episode | None = None
        self.changed: dict[str, str] = {}  # tool -> what it changed, first seen
        self._args = {name: probe_args(name, loaded) for name, spec in self._queries().items()}

    def _queries(self) -> dict[str, Any]:
        assert self.loaded.env_cls is not None
        return {n: s for n, s in self.loaded.env_cls.tool_specs.items() if s.kind == "query"}

    async def act(self, view: AgentView) -> Action | Attributed:
        self.probe("on the state at the start" if view.steps == 0 else f"after solution step {view.steps}")
        return await self.inner.act(view)

    def probe(self, where: str) -> None:
        ep, env_cls = self.episode, self.loaded.env_cls
        assert ep is not None and env_cls is not None
        for name, args in self._args.items():
            if name in self.changed:
                continue
            env = env_cls(st.copy_state(ep.env.state), ep.env.now, ep.seed)
            with contextlib.suppress(Exception):  # a crash is the tool's business; state changes are ours
                getattr(env, name)(**args)
            diff = st.diff(ep.env.state, env.state)
            if diff:
                paths = ", ".join(d["path"] for d in diff[:3]) + (" …" if len(diff) > 3 else "")
                shown = ", ".join(f"{k}={v!r}" for k, v in args.items())
                self.changed[name] = f"{name}({shown}) {where} changes {paths}"

    def problems(self, skip: set[str] | frozenset[str] = frozenset()) -> list[Finding]:
        """One per query tool that changed state (``skip``: tools already reported)."""
        return [
            Finding(f"query tool {name} changes state: {what}; declare it an operation", tool=name)
            for name, what in self.changed.items()
            if name not in skip
        ]


def probe_args(tool: str, loaded: LoadedTask) -> dict[str, Any]:
    """Arguments for one probing call: a plan's own call of the tool if there is one, else
    values from plan calls with the same parameter name, else an id from the state that fits
    the parameter's or the tool's name (``vehicle_id`` → a key of ``vehicles``; ``get_airline``
    → one of ``airlines``), else a place, else a value of its type."""
    task = loaded.task
    assert isinstance(task, SttTask) and loaded.env_cls is not None
    steps = [s for s in (*task.solution, *task.naive_plan) if s.tool is not None]
    own = next((s.args for s in steps if s.tool == tool), None)
    if own is not None:
        return dict(own)
    seen: dict[str, Any] = {}
    for s in steps:
        for k, v in s.args.items():
            seen.setdefault(k, v)
    params = loaded.env_cls.tool_specs[tool].parameters
    places = list(task.initial_state.get("places") or {})
    out: dict[str, Any] = {}
    for p in params.get("required", []):
        schema = params["properties"].get(p, {})
        out[p] = seen[p] if p in seen else _value_for(tool, p, schema, task.initial_state, places)
    return out


def _value_for(tool: str, param: str, schema: dict[str, Any], state: dict[str, Any], places: list[str]) -> Any:
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type")
    kind = next((k for k in kind if k != "null"), "string") if isinstance(kind, list) else kind
    defaults = {"integer": 1, "number": 1.0, "boolean": True, "array": [], "object": {}}
    if kind in defaults:
        return defaults[kind]
    stems = [param.removesuffix("_ids").removesuffix("_id")]
    if param.endswith(("_id", "_ids")) or param in ("id", "code", "key"):  # an id of the tool's noun
        noun = tool.split("_", 1)[1] if "_" in tool else tool  # get_vehicle_status -> vehicle_status
        stems += [noun, noun.split("_")[0], noun.split("_")[-1]]
    for stem in stems:
        for key, value in state.items():
            if isinstance(value, dict) and value and stem in (key, _singular(key)):
                return next(iter(value))
    if places:  # origin, destination, site…: distinct places in turn
        return places.pop(0) if len(places) > 1 else places[0]
    return "x"


def _singular(word: str) -> str:
    if word.endswith("ies"):
        return word[:-3] + "y"
    return word.removesuffix("s")


def missing_checklist_paths(task: SttTask, ends: dict[str, Any]) -> list[Finding]:
    """Checklist paths (other than ``exists``/``absent``) missing at the end of every plan: an
    item that can never pass, whatever the agent does."""
    out = []
    for i, item in enumerate(task.checklist):
        ex = item.expect
        if ex is None or ex.operator in ("exists", "absent"):
            continue
        gone = {plan: st.missing(state, ex.path) for plan, state in ends.items()}
        if all(gone.values()):
            first = next(iter(gone.values()))
            out.append(
                Finding(
                    f"checklist {item.id}: {ex.path} is missing at the end of {' and '.join(gone)} ({first}); "
                    "fix the path or let a plan create it",
                    ("checklist", i, "expect", "path"),
                )
            )
    return out


def unreadable_facts(task: SttTask, state: Any) -> list[Finding]:
    """``tell`` facts that cannot be read from the solution's final state (a typo in a path's
    key or a field, a ``where`` that picks nothing), each at its fact: the report item fails
    whatever the report says."""
    from sttui.core.report_facts import resolve

    words = f"{task.query}\n{task.user.goal}"
    out = []
    for i, item in enumerate(task.checklist):
        for j, fact in enumerate(item.tell or []):
            problem = resolve(fact, state, words).problem
            if problem is not None:
                out.append(
                    Finding(
                        f"checklist {item.id}: fact '{fact.fact}' cannot be read at the end of the solution "
                        f"({problem}); fix its path, field or where",
                        ("checklist", i, "tell", j),
                    )
                )
    return out


def static_findings(
    task: SttTask, naive: list[ItemResult], idle: dict[str, list[ItemResult]], skip: Container[str] = ()
) -> list[Finding]:
    """Under the static setting the naive plan (the right plan when nothing changes) must pass
    the checklist in force, and each idle control must fail it. ``naive`` and ``idle`` are
    those runs' items (``idle`` by control name). A task with ``static_skip`` is skipped under
    ``--static`` because the goal holds there without the agent: every idle control must pass.
    ``skip``: items already reported as broken (a ``tell`` fact that cannot be read)."""
    if task.static_skip is not None:
        # what the user must be told is not part of "the goal holds": with nothing to do, there
        # is nothing to report, and --static skips the task anyway
        told = {item.id for item in task.checklist if item.tell is not None}
        failing = [name for name, results in idle.items() if not all(r.passed for r in results if r.id not in told)]
        if not failing:
            return []
        return [
            Finding(
                f"static_skip says the static world leaves nothing to do, but under --static the idle "
                f"control(s) {', '.join(failing)} fail the checklist; write a static_checklist instead",
                ("static_skip",),
            )
        ]
    section = "static_checklist" if task.static_checklist is not None else "checklist"
    items = task.static_checklist or task.checklist
    index = {item.id: i for i, item in enumerate(items)}
    out = []
    failed = [r for r in naive if not r.passed and r.id not in skip]
    if failed:
        first = failed[0]
        more = f" (and {len(failed) - 1} more)" if len(failed) > 1 else ""
        out.append(
            Finding(
                f"under --static the naive plan fails {section} item {first.id}: {first.detail}{more}; "
                "add or fix static_checklist (the goal when no trigger fires)",
                (section, index.get(first.id, 0), "id"),
            )
        )
    passing = [name for name, results in idle.items() if all(r.passed for r in results)]
    if passing:
        out.append(
            Finding(
                f"under --static the idle control(s) {', '.join(passing)} pass {section}: the goal holds "
                "without the agent; add an item only the work satisfies, or static_skip: REASON when "
                "the static world leaves nothing to do",
                (section,),
            )
        )
    return out


def _absent_fields(value: Any, want: Any) -> list[str]:
    """Keys of a mapping ``want`` that neither ``value`` nor any of its records or items has."""
    if not isinstance(want, dict):
        return []
    places = [value] if isinstance(value, dict) else []
    if is_records(value):
        places += list(value.values())
    if isinstance(value, list):
        places += [v for v in value if isinstance(v, dict)]
    return [k for k in want if not any(k in p for p in places)]


def _rules(task: SttTask) -> list[tuple[str, Loc, list[Constraint]]]:
    out: list[tuple[str, Loc, list[Constraint]]] = [
        (f"milestone {m.id}", ("milestones", i), m.constraints) for i, m in enumerate(task.milestones)
    ]
    out += [(f"minefield {m.id or i}", ("minefields", i), m.constraints) for i, m in enumerate(task.minefields)]
    return out


def never_holding(task: SttTask, states: list[Any]) -> tuple[list[Finding], list[str]]:
    """State constraints of milestones and minefields that hold on none of ``states`` (every
    state the plans reached). (problems, notes): a ``contains``/``json_subsumes`` whose fields
    no record ever has can never hold, a problem; a minefield's other such constraints are
    notes (plans avoid minefields, so a person should make sure it can fire; a milestone's
    soft alternatives are left alone)."""
    problems: list[Finding] = []
    notes: list[str] = []
    for what, where, constraints in _rules(task):
        for j, c in enumerate(constraints):
            if c.root != "state" or c.operator not in _ONE_STATE:
                continue
            if any(holds(c, Context(None, s, s, {})) for s in states):
                continue
            absent: set[str] = set()
            if c.operator in ("contains", "json_subsumes") and isinstance(c.expected, dict):
                absent = set(c.expected)
                for s in states:
                    absent &= set(_absent_fields(st.lookup(s, c.path, None), c.expected))
            if absent:
                problems.append(
                    Finding(
                        f"{what}: {c.describe()} can never hold: no record at {c.path} has field(s) "
                        f"{', '.join(sorted(absent))} on any state the plans reach",
                        (*where, "constraints", j, "expected"),
                    )
                )
            elif what.startswith("minefield"):
                notes.append(f"{what}: {c.describe()} holds on no state the plans reach; make sure it can fire")
    return problems, notes
