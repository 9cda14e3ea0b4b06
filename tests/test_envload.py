"""A task file's ``env:`` names a module in the task's folder or the three above it, and nothing
else: absolute paths, ``..`` and links that lead outside are refused before anything is imported."""

from __future__ import annotations

from pathlib import Path

import pytest

from sttui.core.loader import load_task
from sttui.core.problems import TaskFileError
from tests.conftest import FIXTURES


def _evil_module(tmp_path: Path) -> tuple[Path, Path]:
    marker = tmp_path / "imported.txt"
    outside = tmp_path / "outside"
    outside.mkdir()
    source = (FIXTURES / "mini" / "warehouse.py").read_text()
    (outside / "evil.py").write_text(source + f"\nimport pathlib; pathlib.Path({str(marker)!r}).touch()\n")
    return outside / "evil.py", marker


@pytest.mark.parametrize(
    "env",
    [
        "absolute",
        "dotdot",
        "slashes",
        "windows-slashes",
        "nul-byte",
        "very-long-name",
        "symlink-to-outside",
        "symlinked-folder",
        "symlinked-task-file",
    ],
    ids=lambda e: e,
)
def test_env_outside_the_task_folder_is_refused_before_anything_is_imported(tmp_path, env):
    evil, marker = _evil_module(tmp_path)
    folder = tmp_path / "a" / "b" / "c" / "d"
    folder.mkdir(parents=True)
    ref = {
        "absolute": f"{evil.with_suffix('')}:WarehouseEnv",
        "dotdot": "..outside.evil:WarehouseEnv",
        "slashes": "a/../../outside/evil:WarehouseEnv",
        "symlink-to-outside": "warehouse:WarehouseEnv",
        "windows-slashes": "..\\\\..\\\\outside\\\\evil.py:WarehouseEnv",
        "nul-byte": "evil\\0.x:WarehouseEnv",
        "very-long-name": "a" * 5000 + ":WarehouseEnv",
        "symlinked-folder": "lib.evil:WarehouseEnv",
        "symlinked-task-file": "evil:WarehouseEnv",
    }[env]
    if env == "symlink-to-outside":
        (folder / "warehouse.py").symlink_to(evil)
    if env == "symlinked-folder":
        (folder / "lib").symlink_to(evil.parent, target_is_directory=True)
    text = (FIXTURES / "mini" / "good.yaml").read_text().replace("env: warehouse:WarehouseEnv", f'env: "{ref}"')
    if env == "symlinked-task-file":  # the file it leads to has the module beside it; the link has not
        (evil.parent / "task.yaml").write_text(text)
        (folder / "task.yaml").symlink_to(evil.parent / "task.yaml")
    else:
        (folder / "task.yaml").write_text(text)
    with pytest.raises(TaskFileError) as err:
        load_task(folder / "task.yaml")
    assert "env" in str(err.value.problems[0]) and "env: env:" not in str(err.value)
    assert not marker.exists()


def test_env_in_the_task_folder_or_three_above_still_loads(tmp_path):
    source = (FIXTURES / "mini" / "warehouse.py").read_text()
    text = (FIXTURES / "mini" / "good.yaml").read_text()
    folder = tmp_path / "a" / "b" / "c" / "d"
    folder.mkdir(parents=True)
    (tmp_path / "a" / "shared").mkdir()
    (tmp_path / "a" / "shared" / "warehouse.py").write_text(source)
    (folder / "task.yaml").write_text(text.replace("env: warehouse:", "env: shared.warehouse:"))
    assert load_task(folder / "task.yaml").env_cls.__name__ == "WarehouseEnv"
    (folder / "local.py").write_text(source)
    (folder / "linked.py").symlink_to(folder / "local.py")  # a link that stays inside is fine
    (folder / "task.yaml").write_text(text.replace("env: warehouse:", "env: linked:"))
    assert load_task(folder / "task.yaml").env_cls.__name__ == "WarehouseEnv"
