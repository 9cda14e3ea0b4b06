"""The study file (``study: 1``): what a lab writes to run a human baseline, read into a frozen,
typed ``Study``; every problem reported as ``file:line: field: what was expected``, like task files.

The file names the tasks and the seat, the setting, the replication per task, the participants
(by name, or N anonymous slots), the order design, practice tasks, instructions, a time limit,
breaks and a consent text. The README section "Running a human-baseline study" documents it.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, field_validator, model_validator

from sttui.core.problems import Problem, TaskFileError, display_path, format_loc
from sttui.core.settings import NAMED
from sttui.core.yamlio import YamlSyntaxError, line_of, load_with_lines, read_text

VERSION = 1
NAME = r"^[a-z0-9][a-z0-9_.-]{0,63}$"
# ASCII: a participant's name is also a token file's key and a browser session's name, and
# sttui serve takes only ASCII there (sttui.web.access.NAME); a name it refuses could not join.
PERSON = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,39}")
PERSON_RULE = "1 to 40 ASCII letters, digits, '.', '_' or '-'"
MAX_MINUTES = 24 * 60  # one task's clock: a longer limit is a slip of the keyboard, not a design
MAX_ANONYMOUS = 10_000
MAX_REPLICATION = 1000
Loc = tuple[str | int, ...]


def stored(info: ValidationInfo) -> bool:
    """A spec read back from the record or a bundle (``STORED``), held to the rules it was
    started under: a study started before a rule was added (a limit over a day, names that
    differ only in case) must still be read, reported and exported. Files get every rule."""
    return bool(info.context and info.context.get("stored"))


STORED = {"stored": True}  # the validation context of a stored spec


def minutes_text(value: float) -> str:
    """``1 minute``, ``0.5 minutes``: the number as ``:g`` writes it, the noun agreeing with it."""
    return f"{value:g} minute{'' if value == 1 else 's'}"


def _within_a_day(value: float) -> float:
    """A clock the session can keep and the dialog can promise: a bare ``> 0`` lets ``.inf``
    and 1e11 through (and says ">= 0" of a 0)."""
    if not 0 < value <= MAX_MINUTES:  # false for nan too
        raise ValueError(f"expected a number of minutes above 0 and at most {MAX_MINUTES} (24 hours); got {value:g}")
    return value


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Anonymous(_Frozen):
    """N participants known only by a slot (``p01`` …) and a token each, made when the study starts."""

    anonymous: int = Field(ge=1, le=MAX_ANONYMOUS)


class Order(_Frozen):
    """How each participant's tasks are ordered. ``latin-square``: a balanced (Williams) Latin
    square over the task blocks, participant i taking row i mod rows; ``random-blocks``: the
    blocks shuffled per participant from ``seed`` (a study file must give it: see
    ``_seedless``). ``blocks`` groups task ids that stay together (default: each task its own block)."""

    design: Literal["latin-square", "random-blocks"] = "latin-square"
    seed: int = 0
    blocks: tuple[tuple[str, ...], ...] | None = None


class TimeLimit(_Frozen):
    """Minutes of the participant's clock per task; a warning at ``warn_at`` minutes, then the
    episode ends as ``limit``."""

    minutes: float
    warn_at: float | None = None

    @field_validator("minutes", "warn_at")
    @classmethod
    def _in_range(cls, value: float | None, info: ValidationInfo) -> float | None:
        return value if value is None or stored(info) else _within_a_day(value)

    @model_validator(mode="after")
    def _warn_before(self) -> TimeLimit:
        if self.warn_at is not None and self.warn_at >= self.minutes:
            raise ValueError(f"warn_at ({self.warn_at:g}) must come before the limit ({minutes_text(self.minutes)})")
        return self


class Breaks(_Frozen):
    """A break offered after every ``every`` scored tasks, of ``minutes`` (the participant may go on)."""

    every: int = Field(ge=1)
    minutes: float = 5

    @field_validator("minutes")
    @classmethod
    def _in_range(cls, value: float, info: ValidationInfo) -> float:
        return value if stored(info) else _within_a_day(value)


class Study(_Frozen):
    """A validated study file."""

    study: Literal[1]
    id: str = Field(pattern=NAME)
    title: str = ""
    tasks: tuple[str, ...] = Field(min_length=1)
    seat: Literal["agent", "user"] = "agent"
    setting: str = "default"
    replication: int = Field(default=3, ge=1, le=MAX_REPLICATION)
    participants: tuple[str, ...] | Anonymous
    order: Order = Order()
    practice: tuple[str, ...] = ()
    instructions: str = Field(min_length=1)
    time_limit: TimeLimit | None = None
    breaks: Breaks | None = None
    consent: str | None = None

    @field_validator("participants", mode="before")
    @classmethod
    def _names(cls, value: Any, info: ValidationInfo) -> Any:
        if isinstance(value, list):
            if not value:
                raise ValueError("expected at least one participant name, or {anonymous: N}")
            found = name_problems(value, fold=not stored(info))
            if found:  # a study file reports each at its line (parse_study); a stored spec, the first
                raise ValueError(found[0][1])
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


def load_study(path: str | Path, tasks_dir: Path | None = None) -> LoadedStudy:
    """Read and validate a study file, or raise TaskFileError with every problem found (see
    ``parse_study`` for ``tasks_dir``)."""
    path = Path(path)
    try:
        text = read_text(path)
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise TaskFileError([Problem(display_path(path), None, "(file)", f"cannot read: {exc}")]) from None
    return parse_study(text, path, tasks_dir)


def parse_study(text: str, path: Path, tasks_dir: Path | None = None) -> LoadedStudy:
    """The study, or TaskFileError with every problem one pass can find: the schema's, those
    of the mapping as written (names, repeats, seed), and, once anything is wrong, the tasks'
    and blocks' too (``design.file_problems``, under ``tasks_dir``, default ``tasks_root()``),
    so that fixing a file never reveals a further round. Only a file that is not YAML, not a
    mapping or of another format version stops at that."""
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
    found = _meaning(data, lines)
    problems = [Problem(name, line_of(lines, loc), format_loc(loc), message) for loc, message in found]
    try:
        study = Study.model_validate(data)
    except ValidationError as exc:
        named = any(loc[0] == "participants" for loc, _ in found)
        problems += _schema_problems(exc, data, lines, name, named)
    if problems:
        from sttui.paths import tasks_root
        from sttui.study.design import file_problems

        problems += file_problems(data, lines, path, tasks_root() if tasks_dir is None else tasks_dir)
        problems = list({str(p): p for p in problems}.values())
        raise TaskFileError(sorted(problems, key=lambda p: p.line or 0))
    return LoadedStudy(study=study, text=text, path=path, lines=lines)


def _schema_problems(
    exc: ValidationError, data: dict[str, Any], lines: dict[Any, int], name: str, named: bool
) -> list[Problem]:
    """The schema's errors in the author's words; a bad name already reported at its own line
    (``named``) is not reported again as the model's first one."""
    from sttui.core.validation_messages import clean_loc, error_message

    out: list[Problem] = []
    for err in exc.errors():
        loc = clean_loc(err["loc"])
        if named and loc == ("participants",) and err["type"] == "value_error":
            continue
        if loc and loc[0] == "participants" and len(loc) > 1 and loc[1] in ("tuple[str, ...]", "Anonymous"):
            loc = ("participants",)  # the union's branch names mean nothing to the author
            err = {**err, "type": "value_error", "msg": _participants_msg(data.get("participants"), err)}
        out.append(Problem(name, line_of(lines, loc), format_loc(loc), error_message(err, data, loc, Study)))
    return out


def _participants_msg(value: Any, err: Mapping[str, Any]) -> str:
    if isinstance(value, list) and err["type"] == "value_error":
        return str(err["msg"])
    return f"expected a list of names, or {{anonymous: N}} with N from 1 to {MAX_ANONYMOUS}; got {value!r}"


def name_problems(
    names: list[Any], line: Callable[[int], int | None] = lambda i: None, fold: bool = True
) -> list[tuple[int, str]]:
    """(index, what is wrong) for each name that is not a name and each name given before.
    Names are compared ignoring case: 'ana' and 'ANA' are one person typed twice far more often
    than two people, and as two participants they would take two people's share of the tasks."""
    out: list[tuple[int, str]] = []
    first: dict[str, int] = {}
    for i, name in enumerate(names):
        if not isinstance(name, str) or not PERSON.fullmatch(name):
            out.append((i, _bad_name(name)))
            continue
        j = first.setdefault(name.casefold() if fold else name, i)
        if j == i:
            continue
        where = _both_lines(line(j), line(i))
        if names[j] == name:
            out.append((i, f"participant '{name}' is named twice{where}"))
        else:
            out.append(
                (i, f"participants '{names[j]}' and '{name}' are one name{where}: names are compared ignoring case")
            )
    return out


def _bad_name(name: Any) -> str:
    shown = repr(name[:60]) if isinstance(name, str) else repr(name)[:60]
    folded = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode() if isinstance(name, str) else ""
    hint = f" ('{folded}' would do)" if folded != name and PERSON.fullmatch(folded) else ""
    return (
        f"a participant's name is {PERSON_RULE} (it names them in the record, on command lines and in token "
        f"files); got {shown}{hint}"
    )


def _both_lines(a: int | None, b: int | None) -> str:
    if a is None or b is None:
        return ""
    return f" (both on line {a})" if a == b else f" (lines {a} and {b})"


def _meaning(data: dict[str, Any], lines: dict[Any, int]) -> list[tuple[Loc, str]]:
    """What the schema cannot say, read from the mapping as written so that it is reported with
    the schema's errors, not after them: each bad or repeated participant name at its line,
    tasks or practice tasks named twice, a setting that empties the participants' seat, a
    ``random-blocks`` order without its seed (the tasks and the blocks are checked once the
    tasks are resolved: ``design.resolve``, ``design.file_problems``)."""
    out: list[tuple[Loc, str]] = []
    people = data.get("participants")
    if isinstance(people, list):
        out += [
            (("participants", i), msg)
            for i, msg in name_problems(people, lambda j: line_of(lines, ("participants", j)))
        ]
    out += _repeats(data)
    seat, setting = data.get("seat", "agent"), data.get("setting", "default")
    if seat == "user" and isinstance(setting, str) and "no-user" in setting:
        out.append((("setting",), f"setting {setting} leaves the user seat empty: a study in the user seat needs one"))
    return out + _seedless(data)


def _repeats(data: dict[str, Any]) -> list[tuple[Loc, str]]:
    """Each task or practice task named again, at the line of the repeat."""
    out: list[tuple[Loc, str]] = []
    sections = {k: data[k] if isinstance(data.get(k), list) else [] for k in ("tasks", "practice")}
    scored = {t for t in sections["tasks"] if isinstance(t, str)}
    seen: set[str] = set()
    for section, entries in sections.items():
        for i, task in enumerate(entries):
            if not isinstance(task, str):
                continue
            if section == "practice" and task in scored:
                out.append(((section, i), f"'{task}' is also a scored task; a practice task is never scored"))
            elif task in seen:
                why = "; replication says how often each task is played" if section == "tasks" else ""
                out.append(((section, i), f"'{task}' is listed twice{why}"))
            seen.add(task)
    return out


def _seedless(data: dict[str, Any]) -> list[tuple[Loc, str]]:
    """A random order must be reproducible from the file alone: ``study check`` and ``study
    start`` read the same file and must make the same orders, and a paper reports the seed. A
    silent default would hide that the orders hang on a number nobody chose."""
    order = data.get("order")
    if isinstance(order, dict) and order.get("design") == "random-blocks" and "seed" not in order:
        return [
            (
                ("order", "seed"),
                "random-blocks draws each participant's order from a seed: give one (seed: N, any whole "
                "number), so that the same file makes the same orders again",
            )
        ]
    return []
