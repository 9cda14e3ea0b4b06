"""The prompt files the model seats use (agent, user simulator, judge), and the exports that
must show exactly what a model in the agent seat was shown."""

from __future__ import annotations

import functools
from importlib import resources


@functools.cache
def prompt(name: str) -> str:
    return resources.files(__name__).joinpath(name).read_text(encoding="utf-8").strip()
