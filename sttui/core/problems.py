"""Readable errors about task files: file, line, field and what was expected."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

Loc = tuple[str | int, ...]


def format_loc(loc: Sequence[str | int]) -> str:
    """Render ('triggers', 0, 'when', 'tool') as ``triggers[0].when.tool``."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out or "(top level)"


def display_path(path: str | Path) -> str:
    """A path relative to the working directory when it lies under it."""
    path = Path(path)
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def did_you_mean(word: str, options: Iterable[str]) -> str:
    """A ' (did you mean X?)' suffix when a close match exists, else ''."""
    close = difflib.get_close_matches(str(word), [str(o) for o in options], n=1, cutoff=0.6)
    return f" (did you mean {close[0]}?)" if close else ""


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a task file."""

    file: str
    line: int | None
    field: str
    message: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        return f"{where}: {self.field}: {self.message}"

    def as_dict(self) -> dict[str, object]:
        return {"file": self.file, "line": self.line, "field": self.field, "message": self.message}


class TaskFileError(Exception):
    """All the problems found in one task file, reported together."""

    env_ref: str | None = None  # the environment the file names (set by the loader, for the task index)
    env_failed: bool = False  # its module failed to import (which may pass next time: not cached)

    def __init__(self, problems: list[Problem]):
        self.problems = problems
        super().__init__("\n".join(str(p) for p in problems))
