"""Loading task files: YAML, schema, semantic checks, all problems of a file at once."""

from __future__ import annotations

import inspect
import typing
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from sttui.core import state as st
from sttui.core.env import Environment
from sttui.core.envload import EnvImportError, content_hash, import_env
from sttui.core.evidence import generic_term
from sttui.core.expect import Expect
from sttui.core.explore import load as explore_load
from sttui.core.explore.generate import Catalog, catalog_problems
from sttui.core.explore.task import ExploreTask
from sttui.core.problems import Loc, Problem, TaskFileError, did_you_mean, display_path, format_loc
from sttui.core.reports import read_fact
from sttui.core.review.graph import graph_problems
from sttui.core.review.model import Milestone, Minefield, best_share
from sttui.core.schema import check_args
from sttui.core.state import lookup
from sttui.core.task import EFFECT_KEYS, MoveEntity, SttTask, _effect_tag
from sttui.core.taskindex import discover
from sttui.core.yamlio import YamlSyntaxError, line_of, load_with_lines, read_text

__all__ = ["KINDS", "LoadedTask", "discover", "load_all", "load_catalog", "load_task", "semantic_problems"]

KINDS = ("stt", "explore")


@dataclass
class LoadedTask:
    """A validated task, its environment class (stt only) and the hash of its exact version."""

    task: SttTask | ExploreTask
    env_cls: type[Environment] | None
    path: Path
    content_hash: str

    @property
    def kind(self) -> str:
        return self.task.kind

    @property
    def id(self) -> str:
        return self.task.id


def load_task(path: str | Path, env_file: Path | None = None) -> LoadedTask:
    """Load and validate one task file, or raise TaskFileError listing every problem.

    ``env_file`` is the environment module to import instead of looking up the file's ``env:``
    (a stored task version materialised by sttui, under names sttui chose). A file the task
    index holds, unchanged and with its module unchanged, is not parsed or checked again
    (``sttui.core.taskindex``)."""
    from sttui.core.taskindex import index

    return index().load(path, env_file)


def _load_task(path: str | Path, env_file: Path | None = None, keep: bool = False) -> LoadedTask:
    """``load_task`` itself, without the index. A TaskFileError it raises says (as
    ``env_ref``) the file's ``env:`` and (as ``env_failed``) whether importing it failed."""
    path = Path(path)
    try:
        return _parse_and_check(path, env_file)
    except TaskFileError as exc:
        if not hasattr(exc, "env_ref"):
            exc.env_ref = None
            exc.env_failed = False
        raise


REVIEW_SECTIONS = ("milestones", "minefields", "review", "milestones_origin")


def load_without(path: str | Path, sections: set[str]) -> LoadedTask:
    """The task with some of its stage review's sections (``REVIEW_SECTIONS``) left out, never
    through the index: what ``sttui check`` plays when the only problems of a file lie in
    those sections, so that the problems the plans reveal are reported in the same pass."""
    if not sections <= set(REVIEW_SECTIONS):
        raise ValueError(f"only the stage review's sections can be left out, not {sorted(sections)}")
    if "milestones" in sections:
        sections = sections | {"review", "milestones_origin"}
    return _parse_and_check(Path(path), None, drop=tuple(sorted(sections)))


# Whole on purpose: the loading stages in order (read, YAML, schema, environment, semantics),
# each turning its own failure into problems with file, line and field.
def _parse_and_check(path: Path, env_file: Path | None, drop: tuple[str, ...] = ()) -> LoadedTask:
    name = display_path(path)
    try:
        text = read_text(path)
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise TaskFileError([Problem(name, None, "(file)", f"cannot read: {exc}")]) from None
    try:
        data, lines = load_with_lines(text)
    except YamlSyntaxError as exc:
        raise TaskFileError([Problem(name, exc.line, "(file)", str(exc))]) from None
    if not isinstance(data, dict):
        raise TaskFileError([Problem(name, 1, "(top level)", "expected a mapping of task fields")])
    data = {k: v for k, v in data.items() if k not in drop}
    kind = data.get("kind")
    if kind not in KINDS:
        got = f"got {kind!r}" if kind is not None else "it is missing"
        raise TaskFileError(
            [Problem(name, line_of(lines, ("kind",)), "kind", f"expected one of {', '.join(KINDS)}; {got}")]
        )

    problems: list[Problem] = []

    def add(loc: Loc, message: str) -> None:
        problems.append(Problem(name, line_of(lines, loc), format_loc(loc), message))

    for loc, key in _non_text_keys(data, ()):
        add(
            loc,
            f"key {key!r} is not text: YAML reads unquoted NO, yes, on, off and bare numbers as other types; "
            "put the key in quotes",
        )
    if isinstance(data.get("initial_state"), dict):
        for loc, key in _dotted_keys(data["initial_state"], ("initial_state",)):
            add(loc, f"state key {key!r} contains a dot: paths are dotted, so it could never be addressed")
    if kind == "explore":
        explore: ExploreTask | None = None
        try:
            explore = ExploreTask.model_validate(data)
        except ValidationError as exc:
            for err in exc.errors():
                loc = _clean_loc(err["loc"])
                add(loc, _message(err, data, loc, ExploreTask))
        if explore is not None:
            for loc, message in explore_load.semantic_problems(explore):
                add(loc, message)
        if problems:
            problems.sort(key=lambda p: p.line or 0)
            raise TaskFileError(problems)
        assert explore is not None
        return LoadedTask(explore, None, path, content_hash(text, None))

    env_cls: type[Environment] | None = None
    env_path: Path | None = None
    env_ref = data.get("env")
    env_failed = False
    if isinstance(env_ref, str) and ":" in env_ref:
        try:
            env_cls, env_path = import_env(env_ref, path, env_file)
        except EnvImportError as exc:
            add(("env",), str(exc).removeprefix("env: "))  # the field is named once
            env_failed = True
    task: SttTask | None = None
    try:
        task = SttTask.model_validate(data)
    except ValidationError as exc:
        for err in exc.errors():
            loc = _clean_loc(err["loc"])
            add(loc, _message(err, data, loc, SttTask))
    if env_cls is not None:
        checkable = task or _lenient(data, problems)
        if checkable is not None:
            for loc, message in semantic_problems(checkable, env_cls):
                if task is not None or format_loc(loc) not in {p.field for p in problems}:
                    add(loc, message)
    if problems:
        problems.sort(key=lambda p: p.line or 0)
        error = TaskFileError(problems)
        error.env_ref = env_ref if isinstance(env_ref, str) else None
        error.env_failed = env_failed
        raise error
    assert task is not None and env_cls is not None and env_path is not None
    return LoadedTask(task, env_cls, path, content_hash(text, env_path.read_bytes()))


def load_catalog(path: str | Path) -> Catalog:
    """Load an explore field catalog, with the same file:line: field errors as task files."""
    path = Path(path)
    name = display_path(path)
    try:
        text = read_text(path)
        data, lines = load_with_lines(text)
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise TaskFileError([Problem(name, None, "(file)", f"cannot read: {exc}")]) from None
    except YamlSyntaxError as exc:
        raise TaskFileError([Problem(name, exc.line, "(file)", str(exc))]) from None
    try:
        catalog = Catalog.model_validate(data)
    except ValidationError as exc:
        problems = []
        for err in exc.errors():
            loc = _clean_loc(err["loc"])
            problems.append(Problem(name, line_of(lines, loc), format_loc(loc), _message(err, data, loc, Catalog)))
        raise TaskFileError(problems) from None
    bad = catalog_problems(catalog)
    if bad:
        raise TaskFileError([Problem(name, line_of(lines, loc), format_loc(loc), msg) for loc, msg in bad])
    return catalog


def _non_text_keys(data: Any, loc: Loc) -> Iterable[tuple[Loc, Any]]:
    """Mapping keys that YAML read as something other than text (``NO:`` is false)."""
    if isinstance(data, dict):
        for key, value in data.items():
            if not isinstance(key, str):
                yield loc, key
            else:
                yield from _non_text_keys(value, (*loc, key))
    elif isinstance(data, list):
        for i, value in enumerate(data):
            yield from _non_text_keys(value, (*loc, i))


def _dotted_keys(data: Any, loc: Loc) -> Iterable[tuple[Loc, str]]:
    """State keys with a dot in them: ``a.b`` would be read as the path a → b."""
    if isinstance(data, dict):
        for key, value in data.items():
            if isinstance(key, str) and "." in key:
                yield loc, key
            yield from _dotted_keys(value, (*loc, str(key)))
    elif isinstance(data, list):
        for i, value in enumerate(data):
            yield from _dotted_keys(value, (*loc, i))


# Simple fields a semantic check never looks into: when only these are wrong, stand-ins
# let the reference checks run too, so one pass reports every problem of the file.
_STAND_INS: dict[str, Any] = {
    "id": "x",
    "kind": "stt",
    "title": "x",
    "domain": "x",
    "conflict": "T1",
    "description": "",
    "seed": 0,
    "max_steps": 40,
    "query": "x",
}


def _lenient(data: dict[str, Any], problems: list[Problem]) -> SttTask | None:
    fields = set(SttTask.model_fields)
    patched = {k: v for k, v in data.items() if k in fields}
    for p in problems:
        top = p.field.split(".", 1)[0].split("[", 1)[0]
        if top in _STAND_INS:
            patched[top] = _STAND_INS[top]
        elif top == "level":
            patched["level"] = "impossible" if "judge" in data else "easy"
    try:
        return SttTask.model_validate(patched)
    except ValidationError:
        return None


# -- pydantic errors into sentences ------------------------------------------------


def _clean_loc(loc: tuple[Any, ...]) -> Loc:
    """Drop union tags pydantic puts in locations (``effects.0.set.value`` -> ``effects.0.value``)."""
    out: list[str | int] = []
    for i, part in enumerate(loc):
        if (
            part in EFFECT_KEYS
            and i >= 2
            and loc[i - 2] == "effects"
            and isinstance(loc[i - 1], int)
            and i + 1 < len(loc)
        ):
            continue
        out.append(part)
    return tuple(out)


def _data_at(data: Any, loc: Loc) -> Any:
    for part in loc:
        try:
            data = data[part]
        except (KeyError, IndexError, TypeError):
            return None
    return data


def _models_in(annotation: Any) -> list[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    found: list[type[BaseModel]] = []
    for arg in typing.get_args(annotation):
        found.extend(_models_in(arg))
    return found


def _model_at(data: Any, loc: Loc, root: type[BaseModel]) -> type[BaseModel] | None:
    """The model class that validates the mapping at ``loc``."""
    model: type[BaseModel] = root
    for i, part in enumerate(loc):
        if isinstance(part, int):
            continue
        field = model.model_fields.get(part) or next((f for f in model.model_fields.values() if f.alias == part), None)
        if field is None:
            return None
        candidates = _models_in(field.annotation)
        if not candidates:
            return None
        if len(candidates) > 1:
            tag = _effect_tag(_data_at(data, loc[: i + 2]))
            candidates = [c for c in candidates if tag in c.model_fields]
            if not candidates:
                return None
        model = candidates[0]
    return model


def _allowed(model: type[BaseModel]) -> list[str]:
    out = []
    for fname, f in model.model_fields.items():
        out.append(f.alias or ("in" if fname == "in_" else fname))
    return out


_TYPE_WORDS = {
    "string_type": "text",
    "int_type": "an integer",
    "int_parsing": "an integer",
    "float_type": "a number",
    "float_parsing": "a number",
    "bool_type": "true or false",
    "bool_parsing": "true or false",
    "dict_type": "a mapping",
    "list_type": "a list",
    "model_type": "a mapping",
    "model_attributes_type": "a mapping",
    "datetime_type": "an ISO timestamp like 2024-08-15T06:00:00",
    "datetime_parsing": "an ISO timestamp like 2024-08-15T06:00:00",
    "datetime_from_date_parsing": "an ISO timestamp like 2024-08-15T06:00:00",
}


def _message(err: Any, data: Any, loc: Loc, root: type[BaseModel]) -> str:
    kind = err["type"]
    got = err.get("input")
    shown = repr(got) if not isinstance(got, dict | list) else type(got).__name__
    if kind == "missing":
        return "required field is missing"
    if kind == "extra_forbidden":
        key = str(loc[-1])
        model = _model_at(data, loc[:-1], root)
        allowed = _allowed(model) if model else []
        tail = f"; expected one of: {', '.join(allowed)}" if allowed else ""
        return f"unknown field '{key}'{did_you_mean(key, allowed)}{tail}"
    if kind == "literal_error":
        return f"expected {err['ctx']['expected']}; got {shown}"
    if kind in _TYPE_WORDS:
        return f"expected {_TYPE_WORDS[kind]}; got {shown}"
    if kind == "string_pattern_mismatch":
        field = loc[-1] if loc else ""
        if field == "id":
            return f"expected lowercase letters, digits and dashes (like logistics-insulin-t2-medium); got {shown}"
        if field == "env":
            return f"expected module:Class (like logistics.env:LogisticsEnv); got {shown}"
        return f"expected text matching {err['ctx']['pattern']}; got {shown}"
    if kind == "too_short":
        return f"expected at least {err['ctx']['min_length']} item(s)"
    if kind in ("greater_than_equal", "greater_than"):
        return f"expected a number >= {err['ctx'].get('ge', err['ctx'].get('gt'))}; got {shown}"
    if kind == "value_error":
        return str(err["msg"]).removeprefix("Value error, ")
    if kind == "effect_kind":
        if isinstance(got, dict):
            shown = "keys " + ", ".join(map(str, got))
        return f"expected an effect with one of the keys {', '.join(EFFECT_KEYS)}; got {shown}"
    msg = str(err["msg"])
    return f"{msg[:1].lower()}{msg[1:]}; got {shown}"


# -- meaning: references between the task and its environment ----------------------

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


# -- finding task files -------------------------------------------------------------


def load_all(paths: Iterable[str | Path]) -> tuple[list[LoadedTask], list[TaskFileError]]:
    """Every task file under ``paths``, loaded (through the task index), and the problems of
    those that do not load."""
    from sttui.core.taskindex import index

    idx = index()
    tasks, errors = [], []
    for entry in idx.entries(discover(paths), keep=True):
        if entry.problems is not None:
            errors.append(TaskFileError(list(entry.problems)))
            continue
        try:
            tasks.append(idx.load(entry.path))
        except TaskFileError as exc:
            errors.append(exc)
    return tasks, errors
