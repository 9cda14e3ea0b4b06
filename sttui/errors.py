"""Errors every layer may raise and the command line turns into one line each.

Kept in a module of their own, with no imports, so the command line can catch them without
loading the database layer first."""

from __future__ import annotations


class StoreError(Exception):
    """A database problem explained for a person: what happened and what to check.

    ``transient``: whether trying again later may succeed (a lock, a full disk, a dropped
    connection), as opposed to a read-only or mismatched database."""

    def __init__(self, message: str, transient: bool = False):
        super().__init__(message)
        self.transient = transient


class MissingExtra(Exception):
    """An optional feature whose libraries are not installed; the message says how to install them."""


def where_raised(exc: BaseException) -> str:
    """What went wrong in one line, and where in code that is neither sttui's nor an installed
    library's (a task's own module: "at env.py line 26"), the last such frame: what a task
    author needs to find it."""
    import sys
    import traceback
    from pathlib import Path

    where = ""
    ours = (Path(__file__).resolve().parent, Path(sys.prefix).resolve(), Path(sys.base_prefix).resolve())
    for frame in traceback.extract_tb(exc.__traceback__):
        path = Path(frame.filename).resolve()
        if not frame.filename.startswith("<") and not any(p == path or p in path.parents for p in ours):
            where = f" at {path.name} line {frame.lineno}"
    return " ".join(f"{type(exc).__name__}: {exc}".split()) + where
