"""The direction between sttui's own layers, as contracts over every import in the package.

Each import is read from the source (module-level and inside functions alike, and the string
given to ``importlib.import_module``), so a lazy import cannot slip past. From the bottom up:
the base modules at the root, ``core``, ``store``, the services, and the faces on top (``cli``,
``tui``, ``web``). A layer imports its own and lower layers only; docs/architecture.md draws it.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import ROOT

PACKAGE = ROOT / "sttui"
BASE = {"config", "errors", "files", "paths", "safetext", "textout"}
SERVICES = {
    "analysis",
    "authoring",
    "bridges",
    "controllers",
    "drafting",
    "exports",
    "lineage",
    "prompts",
    "running",
    "study",
}
FACES = {"cli", "tui", "web"}
# What each part of sttui may import of sttui, besides itself.
ALLOWED: dict[str, set[str]] = {
    **{name: BASE for name in BASE},
    "core": {"paths"},
    "store": BASE | {"core"},
    "annotate": BASE | {"core", "store"},
    **{name: BASE | {"core", "store", "annotate"} | SERVICES for name in SERVICES},
    "tui": BASE | {"core", "store", "annotate"} | SERVICES,
    "web": BASE | {"core", "store", "annotate"} | SERVICES,
    "cli": BASE | {"core", "store", "annotate"} | SERVICES | {"tui", "web"},
    "__main__": {"cli"},
    "__init__": set(),
}


def _part(path: Path, package: Path) -> str:
    rel = path.relative_to(package).parts
    return rel[0] if len(rel) > 1 else rel[0].removesuffix(".py")


def _imported(tree: ast.AST) -> Iterator[tuple[int, str]]:
    """Each sttui part an import names: ``from sttui import x`` names part x."""
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [f"sttui.{a.name}" for a in node.names] if node.module == "sttui" else [node.module]
        elif (
            isinstance(node, ast.Call)
            and getattr(node.func, "attr", getattr(node.func, "id", None)) == "import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            names = [node.args[0].value]
        for name in names:
            bits = name.split(".")
            if bits[0] == "sttui" and len(bits) > 1:
                yield node.lineno, bits[1]


def violations(package: Path = PACKAGE) -> list[str]:
    """Every import that goes against the contracts, as ``file:line: part imports part``."""
    found = []
    root = package.parent
    for path in sorted(package.rglob("*.py")):
        part = _part(path, package)
        allowed = ALLOWED.get(part)
        if allowed is None:
            found.append(f"{path.relative_to(root)}: part '{part}' has no layer in ALLOWED")
            continue
        tree = ast.parse(path.read_text(), filename=str(path))
        for line, target in _imported(tree):
            if target != part and target not in allowed:
                found.append(f"{path.relative_to(root)}:{line}: {part} imports {target}")
    return found


def test_every_import_in_sttui_keeps_to_its_layer():
    assert violations() == []


def test_relative_imports_are_not_used():
    """Relative imports would hide a target from the contracts above."""
    offenders = [
        f"{p.relative_to(ROOT)}:{n.lineno}"
        for p in PACKAGE.rglob("*.py")
        for n in ast.walk(ast.parse(p.read_text()))
        if isinstance(n, ast.ImportFrom) and n.level > 0
    ]
    assert offenders == []


@pytest.mark.parametrize(
    ("where", "line", "why"),
    [
        ("core/x.py", "from sttui.store.store import Store", "core imports store"),
        ("core/x.py", "def f():\n    from sttui.running import runner", "core imports running"),
        ("store/x.py", "import sttui.running.batch", "store imports running"),
        ("running/x.py", "from sttui.tui.app import SttuiApp", "running imports tui"),
        ("study/x.py", "import importlib\nimportlib.import_module('sttui.cli.study')", "study imports cli"),
        ("tui/x.py", "from sttui import cli", "tui imports cli"),
        ("paths.py", "from sttui.core import task", "paths imports core"),
    ],
)
def test_an_upward_import_is_caught(tmp_path, where, line, why):
    """The checker itself: each kind of upward import, planted in a copy of the tree's shape."""
    package = tmp_path / "sttui"
    target = package / where
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(line + "\n")
    found = violations(package)
    assert len(found) == 1 and found[0].endswith(why)


def test_the_readme_layout_names_every_part_of_sttui():
    """The README's Layout section is the newcomer's map: every subpackage and root module is on it."""
    readme = (ROOT / "README.md").read_text()
    layout = readme[readme.index("## Layout") : readme.index("## Benchmarks")]
    parts = {f"sttui/{p.name}/" for p in PACKAGE.iterdir() if (p / "__init__.py").exists()}
    parts |= {f"sttui/{p.name}" for p in PACKAGE.glob("*.py") if not p.name.startswith("__")}
    assert sorted(p for p in parts if p not in layout) == []


def test_every_subpackage_says_what_it_holds():
    bare = [
        p.name
        for p in PACKAGE.iterdir()
        if (p / "__init__.py").exists() and not ast.get_docstring(ast.parse((p / "__init__.py").read_text()))
    ]
    assert bare == []
