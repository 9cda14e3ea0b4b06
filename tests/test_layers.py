"""House rules: the headless layers (core, store, annotate) never import textual or litellm."""

from __future__ import annotations

import ast
import os
import subprocess
import sys

from tests.conftest import ROOT

HEADLESS = ("core", "store", "annotate")
FORBIDDEN = ("textual", "litellm")


def _headless_files():
    for layer in HEADLESS:
        yield from (ROOT / "sttui" / layer).rglob("*.py")


def test_no_forbidden_import_statement_anywhere_in_headless_layers():
    offenders = []
    for path in _headless_files():
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            offenders += [f"{path.relative_to(ROOT)}: {n}" for n in names if n.split(".")[0] in FORBIDDEN]
    assert not offenders


def test_importing_headless_layers_loads_neither_textual_nor_litellm():
    code = (
        "import importlib, pkgutil, sys\n"
        "import sttui\n"
        f"for layer in {HEADLESS!r}:\n"
        "    try:\n"
        "        pkg = importlib.import_module('sttui.' + layer)\n"
        "    except ModuleNotFoundError:\n"
        "        continue\n"
        "    for m in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + '.'):\n"
        "        importlib.import_module(m.name)\n"
        "from sttui.core.loader import load_all\n"
        "load_all(['tasks'])\n"
        f"bad = sorted(m for m in sys.modules if m.split('.')[0] in {FORBIDDEN!r})\n"
        "assert not bad, bad\n"
        "print('clean')\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "clean"


def test_headless_cli_commands_do_not_import_textual_or_litellm(tmp_path):
    code = (
        "import sys\n"
        "from click.testing import CliRunner\n"
        "from sttui.cli import main\n"
        "r = CliRunner().invoke(main, ['run', '--json'])\n"
        "assert r.exit_code == 0, r.output\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'litellm'))\n"
        "assert not bad, bad\n"
    )
    env = {**os.environ, "STTUI_DB": f"sqlite:///{tmp_path / 'sttui.db'}"}  # never the project's sessions/
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=300, env=env)
    assert proc.returncode == 0, proc.stderr[-2000:]
