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
    """sttui's private cache: ``STTUI_CACHE_DIR``, else the platform's user cache folder
    (platformdirs: ``$XDG_CACHE_HOME/sttui`` or ``~/.cache/sttui`` on Linux,
    ``~/Library/Caches/sttui`` on macOS, ``%LOCALAPPDATA%\\sttui\\Cache`` on Windows)."""
    env = os.environ.get("STTUI_CACHE_DIR")
    if env:
        return Path(env)
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("sttui", appauthor=False))


def config_root() -> Path:
    """sttui's user configuration folder (platformdirs: ``$XDG_CONFIG_HOME/sttui`` or
    ``~/.config/sttui`` on Linux, ``~/Library/Application Support/sttui`` on macOS,
    ``%APPDATA%\\sttui`` on Windows)."""
    from platformdirs import user_config_dir

    return Path(user_config_dir("sttui", appauthor=False, roaming=True))
