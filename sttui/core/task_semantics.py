"""The meaning of a parsed stt task, checked against its environment: references to tools,
parameters, state paths and places that exist, and combinations that can hold (a judge only
when impossible, reachable thresholds). Kept apart from loading so drafts check a graph alone."""

from __future__ import annotations

import inspect
from collections.abc import Iterable, Sequence
from typing import Any

from sttui.core import state as st
from sttui.core.attach import subject_of
from sttui.core.env import Environment
from sttui.core.evidence import generic_term
from sttui.core.expect import Expect
from sttui.core.problems import Loc, did_you_mean
from sttui.core.report_facts import read_fact
from sttui.core.review.graph import graph_problems
from sttui.core.review.model import Milestone, Minefield, best_share
from sttui.core.schema import check_args
from sttui.core.state import lookup
from sttui.core.task import MoveEntity, SttTask

__all__ = ["semantic_problems"]

_ABSENT = object()


def semantic_problems(task: SttTask, env_cls: type[Environment]) -> Iterable[tuple[Loc, str]]:
    """Dangling references and impossible combinations, as (location, message), section by section."""
    refs = _Refs(task, env_cls)
    yield from _judge_problems(task, refs)
    yield from _trigger_problems(task, refs)
    yield from _checklist_problems(task, refs, env_cls)
    yield from _plan_problems(task, refs)
    yield from _review_problems(task, refs)
    yield from _travel_problems(task, refs)


class _Refs:
    """What a task's references may name: its environment's tools, its initial state's keys
    and places. Each method yields (location, message) for a reference that names nothing."""

    def __init__(self, task: SttTask, env_cls: type[Environment]) -> None:
        self.tools = env_cls.tool_specs
        self.cls = env_cls.__name__
        self.top = task.initial_state
        places = self.top.get("places")
        self.places = places if isinstance(places, dict) else None

    def tool_ref(self, loc: Loc, name: str) -> Iterable[tuple[Loc, str]]:
        if name not in self.tools:
            yield loc, f"no tool '{name}' in {self.cls}{did_you_mean(name, self.tools)}"

    def path_ref(self, loc: Loc, path: str) -> Iterable[tuple[Loc, str]]:
        head = path.split(".", 1)[0]
        if head not in self.top:
            yield (
                loc,
                (
                    f"path '{path}' can never exist: initial_state has no '{head}'"
                    f"{did_you_mean(head, self.top)}; top-level keys: {', '.join(self.top) or 'none'}"
                ),
            )

    def expect_ref(self, loc: Loc, expect: Expect) -> Iterable[tuple[Loc, str]]:
        """The path, and an operator that can never hold on the path's starting value."""
        yield from self.path_ref((*loc, "path"), expect.path)
        start = lookup(self.top, expect.path, _ABSENT)
        why = None if start is _ABSENT else expect.why_not(start)
        if why:
            yield (*loc, expect.operator), f"{why}; {expect.path} is {start!r} in initial_state"

    def params_ref(self, loc: Loc, tool: str, names: Iterable[str]) -> Iterable[tuple[Loc, str]]:
        if tool in self.tools:
            props = self.tools[tool].parameters["properties"]
            for n in names:
                if n not in props:
                    yield loc, f"{tool} has no parameter '{n}'{did_you_mean(n, props)}"


def _judge_problems(task: SttTask, refs: _Refs) -> Iterable[tuple[Loc, str]]:
    """An impossible task's judge, and only an impossible task's."""
    if task.level == "impossible" and task.judge is None:
        yield ("level",), "an impossible task needs a judge section (reason, evidence)"
    if task.level != "impossible" and task.judge is not None:
        yield ("judge",), "judge is only for level: impossible"
    if task.judge is not None:
        yield from _generic_evidence(task.judge.evidence)


def _trigger_problems(task: SttTask, refs: _Refs) -> Iterable[tuple[Loc, str]]:
    """Each trigger: a unique id, a condition and effects that name what exists."""
    seen: set[str] = set()
    for i, trig in enumerate(task.triggers):
        base: Loc = ("triggers", i)
        if trig.id in seen:
            yield (*base, "id"), f"duplicate trigger id '{trig.id}'"
        seen.add(trig.id)
        when = trig.when
        if when.tool is not None:
            yield from refs.tool_ref((*base, "when", "tool"), when.tool)
            if when.args:
                yield from refs.params_ref((*base, "when", "args"), when.tool, when.args)
        if when.at is not None and (when.at.tzinfo is None) != (task.clock.start.tzinfo is None):
            yield (
                (*base, "when", "at"),
                (
                    f"is {'with' if when.at.tzinfo else 'without'} a UTC offset but clock.start is "
                    f"{'with' if task.clock.start.tzinfo else 'without'} one; write every timestamp the same way"
                ),
            )
        elif when.at is not None and when.at < task.clock.start:
            yield (*base, "when", "at"), f"expected a time at or after clock.start ({task.clock.start.isoformat()})"
        if when.state is not None:
            yield from refs.expect_ref((*base, "when", "state"), when.state)
        for j, eff in enumerate(trig.effects):
            eloc: Loc = (*base, "effects", j)
            for key in ("set", "delete", "append"):
                if isinstance(getattr(eff, key, None), str):
                    yield from refs.path_ref((*eloc, key), getattr(eff, key))
            for key in ("disable_tool", "enable_tool", "fail_tool"):
                name = getattr(eff, key, None)
                if isinstance(name, str):
                    yield from refs.tool_ref((*eloc, key), name)
                    match = getattr(eff, "for_", None)
                    if isinstance(match, dict):
                        yield from refs.params_ref((*eloc, "for"), name, match)
            if isinstance(eff, MoveEntity):
                yield from refs.path_ref((*eloc, "move"), eff.move)
                if refs.places is None:
                    yield (*eloc, "to"), "move needs initial_state.places to name the destination"
                elif eff.to not in refs.places:
                    yield (
                        (*eloc, "to"),
                        f"no place '{eff.to}' in initial_state.places{did_you_mean(eff.to, refs.places)}",
                    )


def _checklist_problems(task: SttTask, refs: _Refs, env_cls: type[Environment]) -> Iterable[tuple[Loc, str]]:
    """The checklists: unique ids, paths, facts to tell, and check functions that exist."""
    for key in ("static_checklist", "static_skip"):
        if task.level == "impossible" and getattr(task, key) is not None:
            yield (key,), f"{key} is for solvable tasks; --static skips impossible ones"
    if task.static_skip is not None and task.static_checklist is not None:
        yield ("static_checklist",), "static_skip says --static skips the task, so it has no static_checklist"
    for section in ("checklist", "static_checklist"):
        seen = set()
        yield from _about_problems(section, getattr(task, section) or [])
        for i, item in enumerate(getattr(task, section) or []):
            if item.id in seen:
                yield (section, i, "id"), f"duplicate {section} id '{item.id}'"
            seen.add(item.id)
            if item.expect is not None:
                yield from refs.expect_ref((section, i, "expect"), item.expect)
            for j, fact in enumerate(item.tell or []):
                yield from _fact_problems((section, i, "tell", j), fact, refs.top, refs.path_ref)
            if item.check is not None and item.check not in env_cls.check_names:
                yield (
                    (section, i, "check"),
                    (f"no check function '{item.check}' in {refs.cls}{did_you_mean(item.check, env_cls.check_names)}"),
                )
            elif item.check is not None:
                yield from _check_args((section, i, "args"), item.check, item.args, env_cls)


def _about_problems(section: str, items: list[Any]) -> Iterable[tuple[Loc, str]]:
    """Facts about one subject give it the same ``about``: a report naming it must give its
    values to one subject, not to two that share a name (``core.attach``)."""
    first: dict[tuple[str, ...], tuple[list[str], str]] = {}  # a name's words -> (its about, where)
    for i, item in enumerate(items):
        for j, fact in enumerate(item.tell or []):
            for name in subject_of(fact.about):
                seen = first.setdefault(name, (fact.about, f"{section}[{i}].tell[{j}]"))
                if subject_of(seen[0]) != subject_of(fact.about):
                    yield (
                        (section, i, "tell", j, "about"),
                        f"expected the same about as {seen[1]}, which also names '{' '.join(name)}' "
                        f"(facts about one subject share their about); got {fact.about} and {seen[0]}",
                    )
                    break


def _plan_problems(task: SttTask, refs: _Refs) -> Iterable[tuple[Loc, str]]:
    """Tool timings, and the plans' calls against the tools' parameters."""
    for name in task.clock.tool_minutes:
        if name != "default":
            yield from refs.tool_ref(("clock", "tool_minutes", name), name)

    for plan in ("naive_plan", "solution"):
        for i, step in enumerate(getattr(task, plan)):
            if step.tool is None:
                continue
            if step.tool not in refs.tools:
                yield from refs.tool_ref((plan, i, "tool"), step.tool)
                continue
            problem = check_args(step.args, refs.tools[step.tool].parameters, step.tool)
            if problem:
                yield (plan, i, "args"), problem


def _review_problems(task: SttTask, refs: _Refs) -> Iterable[tuple[Loc, str]]:
    """Milestones and minefields: a graph, constraints naming what exists, thresholds that can be met."""
    yield from graph_problems(task.milestones)
    sections = [("milestones", m.constraints) for m in task.milestones] + [
        ("minefields", m.constraints) for m in task.minefields
    ]
    index = {"milestones": 0, "minefields": 0}
    for section, constraints in sections:
        i = index[section]
        index[section] += 1
        for j, c in enumerate(constraints):
            loc: Loc = (section, i, "constraints", j)
            if c.selector == "call.tool":
                for name in c.expected if c.operator == "one_of" else [c.expected]:
                    if c.operator in ("equals", "one_of") and isinstance(name, str):
                        yield from refs.tool_ref((*loc, "expected"), name)
            elif c.root == "state":
                yield from refs.path_ref((*loc, "selector"), c.path)
        yield from _args_bound(section, i, constraints, refs.tools)
    rules: list[tuple[str, Sequence[Milestone | Minefield]]] = [
        ("milestones", task.milestones),
        ("minefields", task.minefields),
    ]
    for section, section_rules in rules:
        for i, rule in enumerate(section_rules):
            share, lost = best_share(rule.constraints)
            if share < rule.threshold - 1e-9:
                what = f"milestone {rule.id}" if isinstance(rule, Milestone) else f"minefield {rule.id or i}"
                why = (
                    "its hard constraints never hold on the same action"
                    if share == 0
                    else "on any one action these cannot hold with the rest: " + "; ".join(c.describe() for c in lost)
                )
                yield (
                    (section, i, "threshold"),
                    f"{what}: best weight share {share:.2f} is below its threshold {rule.threshold:.2f} ({why})",
                )
    mine_ids = [m.id for m in task.minefields if m.id]
    for i, m in enumerate(task.minefields):
        if m.id and mine_ids.count(m.id) > 1:
            yield ("minefields", i, "id"), f"duplicate minefield id '{m.id}'"


def _travel_problems(task: SttTask, refs: _Refs) -> Iterable[tuple[Loc, str]]:
    """Travel legs between places that exist."""
    if isinstance(refs.top.get("travel"), list):
        for i, leg in enumerate(refs.top["travel"]):
            loc: Loc = ("initial_state", "travel", i)
            if not isinstance(leg, dict) or not {"from", "to", "minutes"} <= set(leg):
                yield loc, "expected a leg {from, to, minutes} (optional: oneway, closed)"
            elif refs.places is not None:
                for end in ("from", "to"):
                    if leg[end] not in refs.places:
                        yield (
                            (*loc, end),
                            f"no place '{leg[end]}' in initial_state.places{did_you_mean(leg[end], refs.places)}",
                        )


def _generic_evidence(evidence: list[str]) -> Iterable[tuple[Loc, str]]:
    """Evidence terms made only of words that name no cause (``sttui.core.evidence``): any
    evasive apology holds them, so the judge would take it as naming the cause."""
    for i, term in enumerate(evidence):
        words = generic_term(term)
        if words is not None:
            yield (
                ("judge", "evidence", i),
                f"'{term}' names no cause: {', '.join(dict.fromkeys(words))} "
                f"{'is a generic word' if len(set(words)) == 1 else 'are generic words'} that any evasive "
                'apology holds ("sorry, there is an issue"); name the cause itself (the flood, the bridge, '
                "the grounded aircraft)",
            )


def _check_args(loc: Loc, name: str, args: dict[str, Any], env_cls: type[Environment]) -> Iterable[tuple[Loc, str]]:
    """A checklist item's ``args`` against its check function's signature: every name a
    parameter, every parameter without a default given (otherwise the check raises TypeError
    on every run and its item can never pass)."""
    try:
        sig = inspect.signature(getattr(env_cls, name))
    except (TypeError, ValueError):
        return
    params = [p for n, p in sig.parameters.items() if n != "self"]
    if any(p.kind is p.VAR_KEYWORD for p in params):
        named = set()
    else:
        named = {p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
        for arg in args:
            if arg not in named:
                have = ", ".join(sorted(named)) or "none"
                yield loc, f"check {name} has no parameter '{arg}'{did_you_mean(arg, named)}; its parameters: {have}"
    for p in params:
        if p.default is p.empty and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and p.name not in args:
            yield loc, f"check {name} needs '{p.name}' (it has no default)"


_KIND_WANTS = {
    "id": "a code of letters and digits like TRK-9",
    "time": "a time like 09:30 or an ISO timestamp",
    "date": "an ISO date like 2024-08-15",
    "person": "a name",
    "text": "some words",
}


def _fact_problems(loc: Loc, fact: Any, top: dict[str, Any], path_ref: Any) -> Iterable[tuple[Loc, str]]:
    """A ``tell`` fact: its path must be able to exist; a literal (or a path's value at the
    start, when it is there already) must read as its kind."""
    if fact.path is not None:
        yield from path_ref((*loc, "path"), fact.path)
        value = st.lookup(top, fact.path, None)
        where = f"initial_state.{fact.path} is"
        field = "path"
    else:
        value, where, field = fact.value, "value", "value"
    if value is None or fact.kind is None or fact.field is not None:
        return
    if fact.kind == "person" and fact.path is not None:
        return  # (a record's key stands for its name)
    if read_fact(value, fact.kind) is None:
        yield (*loc, field), f"expected {_KIND_WANTS[fact.kind]} for kind {fact.kind}; {where} {value!r}"


def _args_bound(section: str, i: int, constraints: list[Any], tools: dict[str, Any]) -> Iterable[tuple[Loc, str]]:
    """A ``call.args.<name>`` constraint in a rule that names its tools (``call.tool`` equals or
    one_of) must name a parameter of one of them: otherwise it can never hold."""
    named: set[str] = set()
    for c in constraints:
        if c.selector == "call.tool" and c.operator in ("equals", "one_of"):
            named.update(v for v in (c.expected if c.operator == "one_of" else [c.expected]) if isinstance(v, str))
    known = [t for t in named if t in tools]
    if not known:
        return
    params = {p for t in known for p in tools[t].parameters.get("properties", {})}
    for j, c in enumerate(constraints):
        if c.root == "call" and c.path.startswith("args."):
            name = c.path.removeprefix("args.").partition(".")[0]
            if name not in params:
                yield (
                    (section, i, "constraints", j, "selector"),
                    f"no parameter '{name}' in {' or '.join(sorted(known))}{did_you_mean(name, params)}",
                )
