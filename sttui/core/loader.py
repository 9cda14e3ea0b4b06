"""Loading task files: YAML, schema, semantic checks, all problems of a file at once."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from sttui.core.env import Environment
from sttui.core.envload import EnvImportError, content_hash, import_env
from sttui.core.explore import load as explore_load
from sttui.core.explore.generate import Catalog, catalog_problems
from sttui.core.explore.task import ExploreTask
from sttui.core.problems import Loc, Problem, TaskFileError, display_path, format_loc
from sttui.core.task import SttTask
from sttui.core.task_semantics import semantic_problems
from sttui.core.taskindex import discover
from sttui.core.validation_messages import clean_loc, error_message
from sttui.core.yamlio import YamlSyntaxError, line_of, load_with_lines, read_text

__all__ = ["KINDS", "LoadedTask", "discover", "load_all", "load_catalog", "load_task"]

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
                loc = clean_loc(err["loc"])
                add(loc, error_message(err, data, loc, ExploreTask))
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
            loc = clean_loc(err["loc"])
            add(loc, error_message(err, data, loc, SttTask))
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
            loc = clean_loc(err["loc"])
            problems.append(Problem(name, line_of(lines, loc), format_loc(loc), error_message(err, data, loc, Catalog)))
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
