"""Where things live: the bundled tasks folder, the default sessions folder, the private cache."""

from __future__ import annotations

import os
from pathlib import Path

PACKAGE_ROOT = Path(__file__).resolve().parent.parent


def tasks_root() -> Path:
    """``STTUI_TASKS``, else ``./tasks``, else the tasks folder beside the package."""
    env = os.environ.get("STTUI_TASKS")
    if env:
        return Path(env)
    here = Path("tasks")
    if here.is_dir():
        return here
    return PACKAGE_ROOT / "tasks"


def cache_root() -> Path:
    """sttui's private cache: ``STTUI_CACHE_DIR``, else ``$XDG_CACHE_HOME/sttui``, else ``~/.cache/sttui``."""
    env = os.environ.get("STTUI_CACHE_DIR")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "sttui"
