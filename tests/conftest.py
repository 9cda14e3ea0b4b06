from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.fixture
def mini_task():
    from sttui.core.loader import load_task

    return load_task(FIXTURES / "mini" / "good.yaml")
