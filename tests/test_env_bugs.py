"""A task module's own bugs are said in one line that points into it. An environment class
whose ``__init__`` the engine cannot call, or whose own code raises while an episode is made:
at load for a signature that cannot take ``(state, now, seed)``, per file in ``sttui check``
(the other files are still checked), and on any command's error line. A tool returning what
is no result, and a check returning what is no verdict, are caught by ``sttui check``."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from sttui.cli import main
from sttui.core.loader import load_task
from sttui.core.problems import TaskFileError
from tests.conftest import FIXTURES, ROOT

GOOD = (FIXTURES / "mini" / "good.yaml").read_text()
SOURCE = (FIXTURES / "mini" / "warehouse.py").read_text()
HEAD = "class WarehouseEnv(Environment):\n"


def _task(folder: Path, init: str) -> tuple[Path, int]:
    """The mini task with ``init`` as the environment's ``__init__``; the line it raises on."""
    folder.mkdir(parents=True)
    assert HEAD in SOURCE
    source = SOURCE.replace(HEAD, HEAD + init, 1)
    (folder / "warehouse.py").write_text(source)
    (folder / "task.yaml").write_text(GOOD)
    lines = source.splitlines()
    mark = "RAISES" if "RAISES" in init else "def __init__"
    return folder / "task.yaml", next(i for i, text in enumerate(lines, 1) if mark in text)


def test_an_init_that_cannot_take_the_engines_arguments_is_a_problem_at_the_env_line(tmp_path):
    path, line = _task(tmp_path / "t", "    def __init__(self):\n        self.x = 1\n\n")
    with pytest.raises(TaskFileError) as err:
        load_task(path)
    text = str(err.value.problems[0])
    env_line = next(i for i, t in enumerate(GOOD.splitlines(), 1) if t.startswith("env:"))
    assert text.startswith(f"{path}:{env_line}: env: ")
    assert f"WarehouseEnv.__init__ in warehouse.py (line {line}) cannot take the engine's arguments" in text
    assert "(state, now, seed)" in text


RAISING = (
    "    def __init__(self, state, now, seed=0):\n"
    "        super().__init__(state, now, seed)\n"
    "        self.floors = state['floors']  # RAISES\n\n"
)


def test_check_says_which_file_could_not_be_played_and_where_and_checks_the_rest(tmp_path):
    _, line = _task(tmp_path / "broken", RAISING)
    (tmp_path / "fine").mkdir()
    (tmp_path / "fine" / "warehouse.py").write_text(SOURCE)
    (tmp_path / "fine" / "task.yaml").write_text(GOOD)
    result = CliRunner().invoke(main, ["check", str(tmp_path), "--json", "--random-seeds", "1"])
    assert result.exit_code == 1, result.output
    tasks = {Path(t["file"]).parent.name: t for t in json.loads(result.output)["tasks"]}
    assert tasks["broken"]["problems"] == [
        f"{tasks['broken']['file']}: the task could not be played: KeyError: 'floors' at warehouse.py line {line}"
    ]
    assert not any("could not be played" in p for p in tasks["fine"]["problems"]), tasks["fine"]


def test_any_command_says_where_in_the_tasks_module_it_broke(tmp_path):
    path, line = _task(tmp_path / "broken", RAISING)
    result = CliRunner().invoke(main, ["--db", str(tmp_path / "r.db"), "run", str(path), "--agent", "baseline:oracle"])
    assert result.exit_code == 1
    assert result.output.strip().splitlines()[-1] == (
        f"error: KeyError: 'floors' at warehouse.py line {line} (STTUI_DEBUG=1 shows where)"
    )
    assert "Traceback" not in result.output


def _mutated(tmp_path: Path, old: str, new: str) -> Path:
    folder = tmp_path / "t"
    folder.mkdir()
    assert old in SOURCE
    (folder / "warehouse.py").write_text(SOURCE.replace(old, new, 1))
    (folder / "task.yaml").write_text(GOOD)
    return folder


def _checked(folder: Path) -> list[str]:
    result = CliRunner().invoke(main, ["check", str(folder), "--json", "--random-seeds", "1"])
    return json.loads(result.output)["tasks"][0]["problems"]


def test_a_tool_returning_no_result_is_a_problem_at_the_tool(tmp_path):
    """The agent is told "internal error in get_crate: tool returned …"; check says so, at the tool."""
    folder = _mutated(
        tmp_path,
        "return self.ok(crate_id=crate_id, **crate) if crate else",
        "return str(crate) if crate else",
    )
    line = next(i for i, t in enumerate((folder / "warehouse.py").read_text().splitlines(), 1) if "def get_crate" in t)
    problems = [p for p in _checked(folder) if "tool returned" in p]
    assert problems and problems[0].startswith(f"{folder / 'warehouse.py'}:{line - 1}: WarehouseEnv.get_crate: ")
    assert "internal error in get_crate: tool returned" in problems[0] and "the agent is told only that" in problems[0]


def test_a_check_returning_no_verdict_fails_saying_what_it_returned(tmp_path):
    folder = _mutated(tmp_path, 'return where == bay, f"{crate_id} is at {where}"', 'return "ok"')
    loaded = load_task(folder / "task.yaml")
    from sttui.core.actions import ToolCall
    from sttui.core.checklist import evaluate_checklist
    from sttui.core.episode import Episode

    ep = Episode(loaded.task, loaded.env_cls)
    ep.start()
    for step in loaded.task.solution:
        ep.apply(ToolCall(step.tool, dict(step.args)))
    item = next(i for i in evaluate_checklist(ep) if i.id == "at-dispatch")
    assert not item.passed and item.detail == "crate_at(): returned 'ok', not (True or False, why)"
    assert any("returned 'ok'" in p for p in _checked(folder))


def test_a_tell_fact_the_solution_cannot_read_is_a_problem_at_the_fact(tmp_path):
    """A typo in a fact's field reads nothing at the end of the solution: check says so at the
    fact's line (besides "solution fails the checklist"), not only in the item's detail."""
    task = ROOT / "tasks" / "stt" / "logistics" / "insulin-reefer-fault-st2-easy.yaml"
    text = task.read_text()
    assert "path: shipments.*.vehicle," in text
    folder = tmp_path / "logistics"
    folder.mkdir()
    shutil.copy(task.parent / "env.py", folder / "env.py")
    (folder / "task.yaml").write_text(text.replace("path: shipments.*.vehicle,", "path: shipments.*.vehicel,"))
    line = next(i for i, t in enumerate(text.splitlines(), 1) if "path: shipments.*.vehicle," in t)
    problems = _checked(folder)
    located = [p for p in problems if p.startswith(f"{folder / 'task.yaml'}:{line}: checklist[")]
    assert located and "fact 'vehicle' cannot be read at the end of the solution" in located[0], problems
