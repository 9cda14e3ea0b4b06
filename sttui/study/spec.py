"""The study file (``study: 1``): what a lab writes to run a human baseline, read into a frozen,
typed ``Study``; every problem reported as ``file:line: field: what was expected``, like task files.

The file names the tasks and the seat, the setting, the replication per task, the participants
(by name, or N anonymous slots), the order design, practice tasks, instructions, a time limit,
breaks and a consent text. The README section "Running a human-baseline study" documents it.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from sttui.core.problems import Problem, TaskFileError, display_path, format_loc
from sttui.core.settings import NAMED
from sttui.core.yamlio import YamlSyntaxError, line_of, load_with_lines, read_text

VERSION = 1
NAME = r"^[a-z0-9][a-z0-9_.-]{0,63}$"
PERSON = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,39}")


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Anonymous(_Frozen):
    """N participants known only by a slot (``p01`` …) and a token each, made when the study starts."""

    anonymous: int = Field(ge=1, le=10_000)


class Order(_Frozen):
    """How each participant's tasks are ordered. ``latin-square``: a balanced (Williams) Latin
    square over the task blocks, participant i taking row i mod rows; ``random-blocks``: the
    blocks shuffled per participant from ``seed``. ``blocks`` groups task ids that stay
    together (default: each task its own block)."""

    design: Literal["latin-square", "random-blocks"] = "latin-square"
    seed: int = 0
    blocks: tuple[tuple[str, ...], ...] | None = None


class TimeLimit(_Frozen):
    """Minutes of the participant's clock per task; a warning at ``warn_at`` minutes, then the
    episode ends as ``limit``."""

    minutes: float = Field(gt=0)
    warn_at: float | None = Field(default=None, gt=0)

    @model_validator(mode="after")
    def _warn_before(self) -> TimeLimit:
        if self.warn_at is not None and self.warn_at >= self.minutes:
            raise ValueError(f"warn_at ({self.warn_at:g}) must come before the limit ({self.minutes:g} minutes)")
        return self


class Breaks(_Frozen):
    """A break offered after every ``every`` scored tasks, of ``minutes`` (the participant may go on)."""

    every: int = Field(ge=1)
    minutes: float = Field(default=5, gt=0)


class Study(_Frozen):
    """A validated study file."""

    study: Literal[1]
    id: str = Field(pattern=NAME)
    title: str = ""
    tasks: tuple[str, ...] = Field(min_length=1)
    seat: Literal["agent", "user"] = "agent"
    setting: str = "default"
    replication: int = Field(default=3, ge=1, le=1000)
    participants: tuple[str, ...] | Anonymous
    order: Order = Order()
    practice: tuple[str, ...] = ()
    instructions: str = Field(min_length=1)
    time_limit: TimeLimit | None = None
    breaks: Breaks | None = None
    consent: str | None = None

    @field_validator("participants", mode="before")
    @classmethod
    def _names(cls, value: Any) -> Any:
        if isinstance(value, list):
            if not value:
                raise ValueError("expected at least one participant name, or {anonymous: N}")
            seen: set[str] = set()
            for name in value:
                if not isinstance(name, str) or not PERSON.fullmatch(name):
                    raise ValueError(
                        f"a participant's name is 1 to 40 letters, digits, '.', '_' or '-' (it names them in the "
                        f"record and in token files); got {str(name)[:60]!r}"
                    )
                if name in seen:
                    raise ValueError(f"participant '{name}' is named twice")
                seen.add(name)
        return value

    @field_validator("setting")
    @classmethod
    def _setting(cls, value: str) -> str:
        if value not in NAMED:
            raise ValueError(f"expected one of {', '.join(NAMED)}; got {value!r}")
        return value

    @property
    def names(self) -> list[str]:
        """The participants' names: as written, or ``p01`` … for anonymous slots."""
        if isinstance(self.participants, Anonymous):
            width = max(2, len(str(self.participants.anonymous)))
            return [f"p{i + 1:0{width}d}" for i in range(self.participants.anonymous)]
        return list(self.participants)

    @property
    def anonymous(self) -> bool:
        return isinstance(self.participants, Anonymous)


class LoadedStudy(BaseModel):
    """A study, the exact text it was read from, and where."""

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    study: Study
    text: str
    path: Path
    lines: dict[Any, int]

    @property
    def digest(self) -> str:
        return hashlib.sha256(self.text.encode()).hexdigest()[:16]

    def line(self, *loc: str | int) -> int | None:
        return line_of(self.lines, tuple(loc))


def load_study(path: str | Path) -> LoadedStudy:
    """Read and validate a study file, or raise TaskFileError with every problem found."""
    path = Path(path)
    try:
        text = read_text(path)
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise TaskFileError([Problem(display_path(path), None, "(file)", f"cannot read: {exc}")]) from None
    return parse_study(text, path)


def parse_study(text: str, path: Path) -> LoadedStudy:
    from sttui.core.validation_messages import clean_loc, error_message

    name = display_path(path)
    try:
        data, lines = load_with_lines(text)
    except YamlSyntaxError as exc:
        raise TaskFileError([Problem(name, exc.line, "(file)", str(exc))]) from None
    if not isinstance(data, dict):
        raise TaskFileError([Problem(name, 1, "(top level)", "expected a mapping of study fields")])
    if data.get("study") != VERSION:
        got = f"got {data.get('study')!r}" if "study" in data else "it is missing"
        raise TaskFileError(
            [Problem(name, line_of(lines, ("study",)), "study", f"expected the format version {VERSION}; {got}")]
        )
    problems: list[Problem] = []
    try:
        study = Study.model_validate(data)
    except ValidationError as exc:
        for err in exc.errors():
            loc = clean_loc(err["loc"])
            if loc and loc[0] == "participants" and len(loc) > 1 and loc[1] in ("tuple[str, ...]", "Anonymous"):
                loc = ("participants",)  # the union's branch names mean nothing to the author
                err = {**err, "type": "value_error", "msg": _participants_msg(data.get("participants"), err)}
            problems.append(Problem(name, line_of(lines, loc), format_loc(loc), error_message(err, data, loc, Study)))
        problems = list({str(p): p for p in problems}.values())
        problems.sort(key=lambda p: p.line or 0)
        raise TaskFileError(problems) from None
    for loc, message in _meaning(study):
        problems.append(Problem(name, line_of(lines, loc), format_loc(loc), message))
    if problems:
        raise TaskFileError(sorted(problems, key=lambda p: p.line or 0))
    return LoadedStudy(study=study, text=text, path=path, lines=lines)


def _participants_msg(value: Any, err: Mapping[str, Any]) -> str:
    if isinstance(value, list) and err["type"] == "value_error":
        return str(err["msg"])
    return f"expected a list of names, or {{anonymous: N}} with N >= 1; got {value!r}"


def _meaning(study: Study) -> list[tuple[tuple[str | int, ...], str]]:
    """What the schema cannot say: tasks or practice tasks named twice, a setting that empties
    the participants' seat (blocks, and settings against the tasks' kinds, are checked once the
    tasks are resolved, ``design.resolve``)."""
    out: list[tuple[tuple[str | int, ...], str]] = []
    seen: set[str] = set()
    for i, task in enumerate(study.tasks):
        if task in seen:
            out.append((("tasks", i), f"'{task}' is listed twice; replication says how often each task is played"))
        seen.add(task)
    if study.seat == "user" and "no-user" in study.setting:
        out.append(
            (("setting",), f"setting {study.setting} leaves the user seat empty: a study in the user seat needs one")
        )
    for i, task in enumerate(study.practice):
        if task in seen:
            out.append((("practice", i), f"'{task}' is also a scored task; a practice task is never scored"))
        seen.add(task)
    return out
