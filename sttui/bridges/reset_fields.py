"""What a reset of ``sttui rl serve`` may hold, checked before it reaches the engine or the
record, the same over HTTP and WebSocket: seeds and trials within the record's range, episode
ids the record's, task ids of bounded size, the settings' fields by their own names. Refused
values are said in the API's words and never echoed back whole (a 50 MB task id is not)."""

from __future__ import annotations

import re
from typing import Any

from sttui.core.settings import EXPLORE_SETTINGS
from sttui.core.storable import text_problem
from sttui.core.task import MAX_SEED

MAX_TASK_ID_CHARS = 200  # as the record keeps task ids (sttui/exports/importing.py)
EPISODE_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")  # the record's episode ids (sttui/exports/importing.py)
EPISODE_ID_RULE = "1 to 64 letters, digits, '-' or '_' (as the record's ids are)"


def reset_problem(seed: Any, episode_id: Any, trial: Any, static: Any, no_user: Any, setting: Any) -> str | None:
    """What is wrong with a reset's fields other than its task, in their own names; None if nothing."""
    for name, value in (("seed", seed), ("trial", trial)):
        if value is not None and (type(value) is not int or not 0 <= value <= MAX_SEED):
            return f"{name} must be a whole number within 0..{MAX_SEED}; got {shown(value)}"
    if episode_id is not None and (type(episode_id) is not str or not EPISODE_ID.fullmatch(episode_id)):
        return f"episode_id must be {EPISODE_ID_RULE}"
    for name, value in (("static", static), ("no_user", no_user)):
        if value is not None and type(value) is not bool:
            return f"{name} must be true or false; got {shown(value)}"
    if setting is not None and (type(setting) is not str or setting not in EXPLORE_SETTINGS):
        return f"setting must be one of {', '.join(EXPLORE_SETTINGS)}"
    return None


def task_id_problem(task_id: Any) -> str | None:
    if type(task_id) is not str:
        return f"task: expected a task id (text); got {shown(task_id)}"
    if len(task_id) > MAX_TASK_ID_CHARS:
        return f"task: a task id has at most {MAX_TASK_ID_CHARS} characters; got {len(task_id):,}"
    return text_problem(task_id, "task")


_KINDS = {str: "text", bool: "a boolean", float: "a fraction", list: "a list", dict: "an object"}


def shown(value: Any) -> str:
    """A refused value as a reply shows it: a short number as it is, anything else by its kind
    (a huge value is never echoed back)."""
    if type(value) is int and -(10**20) < value < 10**20:
        return str(value)
    if type(value) is int:
        return "a larger number"
    if value is None:
        return "null"
    return _KINDS.get(type(value), type(value).__name__)


def api_words(said: str) -> str:
    """A run plan's message in the reset's own words (its fields, not ``sttui run``'s flags)."""
    return re.sub(r"--(static|no-user|setting|seed)\b", lambda m: m[1].replace("-", "_"), said)
