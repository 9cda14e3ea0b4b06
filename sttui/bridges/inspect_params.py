"""The task parameters of ``inspect eval sttui/stt`` and ``sttui/explore`` (``-T name=value``),
checked before any sample runs, each problem said in one line with what would do (as
``sttui run`` says its options'). Inspect reads a ``-T`` value as YAML, so ``a,b`` arrives as a
list and ``5`` as a number: each is taken where it makes sense. No inspect_ai import here."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sttui.core.settings import EXPLORE_SETTINGS, NAMED, RunSettings, from_name
from sttui.core.task import MAX_SEED


class ParamProblem(ValueError):
    """A task parameter that cannot be used, said in one line."""


def ids(name: str, value: Any) -> str | None:
    """Text, or several values Inspect read from ``a,b`` (a list): one comma-separated text."""
    if value is None:
        return None
    if isinstance(value, list | tuple) and all(isinstance(v, str | int) and not isinstance(v, bool) for v in value):
        return ",".join(str(v).strip() for v in value)
    if isinstance(value, str | int) and not isinstance(value, bool):
        return str(value)
    raise ParamProblem(f"{name}: expected a name, or several separated by commas; got {value!r}")


def folder(value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, list | tuple):
        raise ParamProblem(
            f"folder: one folder; got {len(value)} ({', '.join(map(str, value))}): "
            "name a folder that holds them, or choose tasks by id with tasks=a,b"
        )
    raise ParamProblem(f"folder: expected a folder's path; got {value!r}")


def count(name: str, value: Any, least: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise ParamProblem(f"{name}: expected a whole number of at least {least}; got {value!r}")
    return value


def seed(value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_SEED:
        raise ParamProblem(f"seed: expected a whole number from 0 to 2^63-1; got {value!r}")
    return value


def flag(name: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise ParamProblem(f"{name}: expected true or false; got {value!r}")
    return value


def settings(kind: str, setting: Any, static: Any = False, no_user: Any = False) -> RunSettings:
    """The run's settings from ``setting`` (a name, as a study file gives it: stt's static,
    no-user, static/no-user; an explore setting) and stt's ``static``/``no_user`` flags."""
    static, no_user = flag("static", static), flag("no_user", no_user)
    if setting is None:
        return RunSettings(static, no_user)
    names = NAMED if kind == "stt" else ("default", *EXPLORE_SETTINGS[1:])
    shown = [n for n in names if n not in EXPLORE_SETTINGS[1:]] if kind == "stt" else list(names)
    if not isinstance(setting, str) or setting not in names:
        raise ParamProblem(f"setting: expected one of {', '.join(shown)} for sttui/{kind}; got {setting!r}")
    try:
        named = from_name(setting, kind)
    except ValueError as exc:
        raise ParamProblem(f"setting: {exc}") from None
    return RunSettings(named.static or static, named.no_user or no_user, named.explore_setting)


def user(value: Any, no_user: bool, check: Callable[[str], Any]) -> str | None:
    """The user seat: the scripted user (None) or ``model:M`` (a litellm model name or an
    alias, as ``sttui run --user`` takes it), checked by ``check`` (``make_user``)."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise ParamProblem(f"user: expected baseline:scripted or model:M; got {value!r}")
    if value == "human" or value.startswith("human:"):
        raise ParamProblem(
            "user: a person cannot hold a seat in an Inspect run (nobody would be asked); "
            "use baseline:scripted or model:M, or play it in sttui (sttui play TASK --user human)"
        )
    if not value.startswith(("baseline:", "model:")):
        raise ParamProblem(f"user: expected baseline:scripted or model:M; got {value!r}")
    if no_user:
        raise ParamProblem("user: the no-user setting leaves the user seat empty; drop user=")
    check(value)
    return value


@dataclass(frozen=True)
class Record:
    """``record=``: the database every episode is recorded into, opened once for the run."""

    url: str
    store: Any


_OPEN: dict[str, Any] = {}  # url -> the record opened for it (every sample of a run shares it)


def record(value: Any, opener: Callable[[str], Any]) -> Record | None:
    """The record named by ``record=``, opened now so a bad one is said before any sample runs
    (with ``-T record``, not ``--db``, in what to check)."""
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise ParamProblem(f"record: expected a database URL or a SQLite file's path; got {value!r}")
    from sttui.store.db import StoreError, describe

    store = _OPEN.get(value)
    if store is None:
        try:
            store = opener(value)
        except StoreError as exc:
            said = str(exc).replace("--db or STTUI_DB", "-T record").replace("--db", "-T record")
            raise ParamProblem(f"record: {said}") from None
        except OSError as exc:
            raise ParamProblem(f"record: {describe(value)} cannot be opened: {exc.strerror or exc}") from None
        if store.read_only:
            raise ParamProblem(
                f"record: the database {describe(value)} is read-only here; copy it to a writable folder"
            )
        _OPEN[value] = store
    return Record(value, store)


def names_a_password(url: str) -> bool:
    """Whether ``url`` holds a password (Inspect writes task parameters into its log)."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        return make_url(url).password is not None
    except (ArgumentError, ValueError):
        return False
