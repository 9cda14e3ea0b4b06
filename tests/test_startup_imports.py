"""What the workbench imports before its first paint: plain ``sttui`` paints home without
SQLAlchemy, SQLModel or pydantic (the record opens in a worker after the paint, the task list
when the index answers), and the command line imports only the module of the command that runs.

The first paint is caught in a fresh process running the real command line: the first thing the
app does after its first refresh (open the record, read the task index) takes a snapshot of
``sys.modules`` before doing anything else."""

from __future__ import annotations

import json
import pkgutil
import subprocess
import sys
from typing import Any

import click

from tests.conftest import ROOT

HEAVY = ("sqlalchemy", "sqlmodel", "pydantic", "alembic", "litellm")

FIRST_PAINT = """
import json, os, sys
from sttui.tui import app as tui
from sttui.tui import home

def snapshot(app):
    with open(os.environ["SNAPSHOT"], "w") as f:
        json.dump({"modules": sorted(sys.modules), "screen": type(app.screen).__name__}, f)
    os._exit(0)

def first(original):
    def wrapped(self, *args, **kwargs):
        snapshot(self.app)  # the first work after the first paint: nothing of it imported yet
    return wrapped

tui.SttuiApp.open_store = first(tui.SttuiApp.open_store)
home.HomeScreen.load_tasks = first(home.HomeScreen.load_tasks)
run = tui.SttuiApp.run
tui.SttuiApp.run = lambda self, *a, **k: run(self, headless=True, size=(120, 40))
from sttui.cli import main
main(sys.argv[1:])
"""


def first_paint(tmp_path, *args: str, warm: bool = False) -> dict[str, Any]:
    """The modules imported, and the screen in front, at the first paint of ``sttui ARGS``.
    ``warm``: the task index holds the bundled tasks already (as after any first use)."""
    script = tmp_path / "first_paint.py"
    script.write_text(FIRST_PAINT)
    snap = tmp_path / "modules.json"
    env = {
        "PATH": "/usr/bin:/bin",
        "PYTHONPATH": str(ROOT),
        "SNAPSHOT": str(snap),
        "HOME": str(tmp_path),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "STTUI_CACHE_DIR": str(tmp_path / "cache"),
    }
    if warm:
        fill = (
            "from sttui.core.taskindex import index; from sttui.paths import tasks_root; index().scan([tasks_root()])"
        )
        subprocess.run([sys.executable, "-c", fill], cwd=ROOT, env=env, check=True, timeout=120)
    done = subprocess.run(
        [sys.executable, str(script), "--db", f"sqlite:///{tmp_path / 'rec.db'}", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr.decode()[-3000:]
    found: dict[str, Any] = json.loads(snap.read_text())
    return found


def imported_at_first_paint(tmp_path, *args: str) -> list[str]:
    modules: list[str] = first_paint(tmp_path, *args)["modules"]
    return modules


def test_home_paints_before_the_record_and_its_libraries(tmp_path):
    modules = imported_at_first_paint(tmp_path)
    heavy = sorted({m.split(".")[0] for m in modules} & set(HEAVY))
    assert heavy == [], f"imported before home's first paint: {heavy}"
    assert "sttui.store.store" not in modules and "sttui.core.loader" not in modules
    commands = [m for m in modules if m.startswith("sttui.cli.") and m != "sttui.cli.app"]
    assert commands == [], f"command modules imported for plain `sttui`: {commands}"


def test_play_paints_the_task_before_the_record_the_task_models_and_their_libraries(tmp_path):
    """`sttui play TASK` checks the task through the task index (warm: nothing loaded) and
    paints the opening screen before SQLAlchemy, pydantic, the store or the loader is imported;
    the record, the task and the episode are opened in workers after that paint."""
    painted = first_paint(tmp_path, "play", "logistics-insulin-reefer-st2-easy", warm=True)
    modules = painted["modules"]
    heavy = sorted({m.split(".")[0] for m in modules} & set(HEAVY))
    assert heavy == [], f"imported before the first paint of `sttui play`: {heavy}"
    for module in ("sttui.store.store", "sttui.core.loader", "sttui.core.task", "sttui.running.session"):
        assert module not in modules, module
    assert painted["screen"] == "OpeningScreen"
    commands = [m for m in modules if m.startswith("sttui.cli.") and m != "sttui.cli.app"]
    assert commands == ["sttui.cli.tasks"], commands


def test_a_command_imports_its_own_module_only():
    code = (
        "import sys; from click.testing import CliRunner; from sttui.cli import main; "
        "r = CliRunner().invoke(main, ['new', '--help']); assert r.exit_code == 0, r.output; "
        "print([m for m in sys.modules if m.startswith('sttui.cli.')])"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env={"PYTHONPATH": str(ROOT)}, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert sorted(eval(done.stdout)) == ["sttui.cli.app", "sttui.cli.new"]


def test_the_lazy_table_names_every_command_and_its_module():
    """``COMMANDS`` is the only way a command is found: each entry loads a command of that name
    from that module, and every command any cli module defines is in it."""
    import importlib

    import sttui.cli
    from sttui.cli.app import COMMANDS, main

    for info in pkgutil.iter_modules(sttui.cli.__path__):
        importlib.import_module(f"sttui.cli.{info.name}")
    defined = {name: cmd.callback.__module__ for name, cmd in main.commands.items()}
    assert {name: f"sttui.cli.{module}" for name, module in COMMANDS.items()} == defined
    ctx = click.Context(main)
    assert main.list_commands(ctx) == sorted(COMMANDS)
