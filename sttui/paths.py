"""Where things live: the bundled tasks folder and the default sessions folder."""

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
