"""The task index: task files parsed and checked once, found again by content, invalidated by
every edit to the file, its environment module or the loader, and never trusted elsewhere."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from sttui.core import loader, taskindex
from sttui.core.problems import TaskFileError
from tests.conftest import ROOT

INSULIN = ROOT / "tasks" / "stt" / "logistics" / "insulin-reefer-fault-st2-easy.yaml"


@pytest.fixture
def parses(monkeypatch):
    """How many times a task file was really parsed and checked; a fresh index each time (as a
    new process would have), so only the cache on disk can spare the work."""
    count = {"n": 0}
    real = loader._parse_and_check

    def counted(*args, **kwargs):
        count["n"] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(loader, "_parse_and_check", counted)
    monkeypatch.setattr(taskindex, "_INDEX", None)
    return count


def fresh() -> None:
    """Forget what this process holds (a new process starting)."""
    if taskindex._INDEX is not None:
        taskindex._INDEX.close()
    taskindex._INDEX = None


@pytest.fixture
def folder(tmp_path):
    """A task folder: the insulin task and its environment module."""
    dest = tmp_path / "tasks" / "logistics"
    dest.mkdir(parents=True)
    shutil.copy(INSULIN, dest / "insulin.yaml")
    shutil.copy(INSULIN.parent / "env.py", dest / "env.py")
    return dest


def test_an_unchanged_file_is_read_from_the_index_with_the_same_meaning(folder, parses):
    first = loader.load_task(folder / "insulin.yaml")
    assert parses["n"] == 1
    fresh()
    again = loader.load_task(folder / "insulin.yaml")
    assert parses["n"] == 1  # not parsed again
    uncached = loader._load_task(folder / "insulin.yaml")
    assert again.task == uncached.task and again.content_hash == uncached.content_hash == first.content_hash
    assert (
        again.env_cls.__name__ == "LogisticsEnv" and again.env_cls.tool_specs.keys() == first.env_cls.tool_specs.keys()
    )
    assert again.path == folder / "insulin.yaml" and again.id == first.id
    files = list((Path(os.environ["STTUI_CACHE_DIR"]) / "taskindex").iterdir())
    assert any(f.name == "index.sqlite" for f in files)


def test_editing_the_file_its_module_or_a_file_beside_the_module_loads_it_again(folder, parses):
    path = folder / "insulin.yaml"
    loader.load_task(path)
    fresh()
    path.write_text(path.read_text().replace("title: Insulin run after a refrigeration fault", "title: Edited"))
    assert loader.load_task(path).task.title == "Edited" and parses["n"] == 2
    fresh()
    env = folder / "env.py"
    env.write_text(env.read_text() + "\n# an edit\n")
    loader.load_task(path)
    assert parses["n"] == 3
    fresh()
    (folder / "helpers.py").write_text("X = 1\n")  # a module the environment could import
    loader.load_task(path)
    assert parses["n"] == 4
    fresh()
    loader.load_task(path)
    assert parses["n"] == 4  # and unchanged again: from the index


def test_a_change_of_loader_loads_everything_again(folder, parses, monkeypatch):
    loader.load_task(folder / "insulin.yaml")
    fresh()
    monkeypatch.setattr(taskindex, "_LOADER_KEY", "another loader")
    loader.load_task(folder / "insulin.yaml")
    assert parses["n"] == 2


def test_a_module_found_elsewhere_is_a_different_task(tmp_path, parses):
    top = tmp_path / "t"
    (top / "deep").mkdir(parents=True)
    shutil.copy(INSULIN.parent / "env.py", top / "env.py")
    text = INSULIN.read_text().replace("env: logistics.env:LogisticsEnv", "env: env:LogisticsEnv")
    (top / "deep" / "task.yaml").write_text(text)
    first = loader.load_task(top / "deep" / "task.yaml")
    fresh()
    nearer = (INSULIN.parent / "env.py").read_text().replace("class LogisticsEnv", "class Unused") + (
        "\n\nclass LogisticsEnv(Unused):\n    pass\n"
    )
    (top / "deep" / "env.py").write_text(nearer)  # now the module is found in the task's own folder
    second = loader.load_task(top / "deep" / "task.yaml")
    assert parses["n"] == 2 and second.content_hash != first.content_hash


def test_problems_are_kept_too_and_shown_the_same(folder, parses):
    path = folder / "insulin.yaml"
    path.write_text(path.read_text().replace("tool: get_vehicle_status", "tool: get_vehicle_statos", 1))
    with pytest.raises(TaskFileError) as first:
        loader.load_task(path)
    fresh()
    with pytest.raises(TaskFileError) as again:
        loader.load_task(path)
    assert parses["n"] == 1 and [str(p) for p in again.value.problems] == [str(p) for p in first.value.problems]
    assert "get_vehicle_statos" in str(again.value)
    fresh()
    entries = taskindex.index().scan([folder])
    assert parses["n"] == 1 and entries[0].problems == tuple(first.value.problems)
    path.write_text(INSULIN.read_text())
    fresh()
    assert taskindex.index().scan([folder])[0].ok and parses["n"] == 2


def test_a_module_that_fails_to_import_is_tried_again(folder, parses):
    env = folder / "env.py"
    good = env.read_text()
    env.write_text(good + "\nimport a_package_that_is_not_installed\n")
    with pytest.raises(TaskFileError, match="a_package_that_is_not_installed"):
        loader._load_task(folder / "insulin.yaml")  # (an import once failed is not cached by envload)
    fresh()
    entries = taskindex.index().scan([folder])
    assert not entries[0].ok
    fresh()
    taskindex.index().scan([folder])
    assert parses["n"] == 3  # both scans tried it: such a failure may pass


def test_a_scan_gives_listings_without_loading_anything(folder, parses, monkeypatch):
    loader.load_all([folder])
    fresh()
    imported = []
    monkeypatch.setattr("sttui.core.envload.import_env", lambda *a, **k: imported.append(a))
    entries = taskindex.index().scan([folder])
    assert parses["n"] == 1 and imported == []
    (entry,) = entries
    assert (entry.id, entry.kind, entry.domain, entry.conflict, entry.level) == (
        "logistics-insulin-reefer-st2-easy",
        "stt",
        "logistics",
        "ST2",
        "easy",
    )
    assert entry.opening.startswith("Please get 500 doses") and entry.ok


def test_find_loads_only_files_that_can_be_the_task(tmp_path, parses):
    from tests.test_taskindex import INSULIN as source

    root = tmp_path / "many" / "logistics"
    root.mkdir(parents=True)
    shutil.copy(source.parent / "env.py", root / "env.py")
    for i in range(5):
        text = source.read_text().replace("id: logistics-insulin-reefer-st2-easy", f"id: other-{i}")
        (root / f"o{i}.yaml").write_text(text)
    shutil.copy(source, root / "wanted.yaml")
    found = taskindex.index().find("logistics-insulin-reefer-st2-easy", [tmp_path / "many"])
    assert found is not None and found.path == root / "wanted.yaml" and parses["n"] == 1
    assert taskindex.index().find("no-such-task", [tmp_path / "many"]) is None and parses["n"] == 1


def test_an_index_in_someone_elses_folder_or_switched_off_is_not_used(folder, parses, monkeypatch, tmp_path):
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    if hasattr(os, "getuid") and os.getuid() == 0:
        os.chown(theirs, 65534, 65534)
        monkeypatch.setenv("STTUI_CACHE_DIR", str(theirs))
        loader.load_task(folder / "insulin.yaml")
        fresh()
        loader.load_task(folder / "insulin.yaml")
        assert parses["n"] == 2 and list(theirs.iterdir()) == []
    monkeypatch.setenv("STTUI_CACHE_DIR", str(tmp_path / "mine"))
    monkeypatch.setenv("STTUI_NO_TASK_INDEX", "1")
    fresh()
    loader.load_task(folder / "insulin.yaml")
    assert not (tmp_path / "mine").exists()


def test_a_broken_index_file_is_passed_over(folder, parses):
    loader.load_task(folder / "insulin.yaml")
    fresh()
    db = Path(os.environ["STTUI_CACHE_DIR"]) / "taskindex" / "index.sqlite"
    for extra in db.parent.glob("index.sqlite-*"):
        extra.unlink()
    db.write_bytes(b"this is not a database" * 100)
    assert loader.load_task(folder / "insulin.yaml").id == "logistics-insulin-reefer-st2-easy"
    assert parses["n"] == 2


def test_a_tampered_entry_is_not_unpickled_from_elsewhere(folder, parses, tmp_path):
    """Entries are only ever read from the private cache: their folder is this user's, 0700."""
    loader.load_task(folder / "insulin.yaml")
    index_dir = Path(os.environ["STTUI_CACHE_DIR"]) / "taskindex"
    assert oct(index_dir.stat().st_mode & 0o777) == "0o700"
    assert oct(index_dir.parent.stat().st_mode & 0o777) == "0o700"


def test_the_index_knows_the_same_key_shapes_as_the_scrubber():
    from sttui.store import secrets

    shapes = "|".join(secrets._B + shape for shape in taskindex._KEY_SHAPES)
    assert shapes == secrets.KEY_SHAPES.pattern
    assert secrets._SECRET_NAME.pattern == taskindex._SECRET_NAME


def test_a_file_with_a_secret_is_loaded_but_never_kept(folder, parses, monkeypatch):
    path = folder / "insulin.yaml"
    path.write_text(path.read_text().replace("Please get", "Please (my key sk-" + "Ab1" * 9 + ") get"))
    loader.load_task(path)
    fresh()
    loader.load_task(path)
    assert parses["n"] == 2
    monkeypatch.setenv("LAB_API_TOKEN", "lab-token-value-9")
    path.write_text(INSULIN.read_text().replace("Please get", "Please get lab-token-value-9"))
    for _ in range(2):
        fresh()
        taskindex.index().scan([folder])
    assert parses["n"] == 4
    index_file = Path(os.environ["STTUI_CACHE_DIR"]) / "taskindex" / "index.sqlite"
    assert b"lab-token-value-9" not in index_file.read_bytes() and b"sk-Ab1" not in index_file.read_bytes()


@pytest.mark.parametrize("warm", [False, True], ids=["loaded-here", "from-the-index"])
def test_each_load_gets_a_task_of_its_own(folder, parses, warm):
    """A caller that changes its task (a test shortening max_steps, a generator) changes no
    later caller's task: the process keeps the pickle, not the object it handed out."""
    if warm:
        loader.load_task(folder / "insulin.yaml")
        fresh()
    first = loader.load_task(folder / "insulin.yaml")
    original = first.task.max_steps
    first.task.max_steps = 2
    first.task.solution.clear()
    second = loader.load_task(folder / "insulin.yaml")
    assert second.task.max_steps == original and second.task.solution
    assert second.task is not first.task
    taskindex.index().scan([folder])  # a scan that holds the tasks it loads hands out copies too
    third = loader.load_task(folder / "insulin.yaml")
    third.task.solution.clear()
    assert loader.load_task(folder / "insulin.yaml").task.solution


def test_a_task_loaded_by_a_relative_path_keeps_each_callers_path(folder, parses, monkeypatch):
    """The same file named relatively, then absolutely after a chdir: the second caller gets
    its own path back (a recording reads the file by it), not the first caller's."""
    monkeypatch.chdir(folder.parent)
    relative = loader.load_task(Path("logistics") / "insulin.yaml")
    assert relative.path == Path("logistics") / "insulin.yaml"
    monkeypatch.chdir(folder.parent.parent)
    absolute = loader.load_task(folder / "insulin.yaml")
    assert absolute.path == folder / "insulin.yaml" and absolute.path.exists()
    assert parses["n"] == 1  # the same file: loaded once
