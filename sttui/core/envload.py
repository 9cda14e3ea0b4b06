"""Importing a task's environment class from its ``env: module:Class`` reference."""

from __future__ import annotations

import hashlib
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from sttui.core.env import Environment
from sttui.core.problems import did_you_mean

_MODULES: dict[Path, ModuleType] = {}
SEARCH_LEVELS = 3


class EnvImportError(Exception):
    pass


def resolve_module(ref: str, task_file: Path) -> Path:
    """Find ``a.b`` as ``a/b.py`` in the task's folder or up to three folders above it."""
    module = ref.split(":", 1)[0]
    rel = Path(*module.split(".")).with_suffix(".py")
    base = task_file.resolve().parent
    tried = []
    for _ in range(SEARCH_LEVELS + 1):
        candidate = base / rel
        if candidate.is_file():
            return candidate
        tried.append(str(candidate))
        base = base.parent
    raise EnvImportError(f"no module file {rel} in the task's folder or the {SEARCH_LEVELS} above it")


def import_env(ref: str, task_file: Path) -> tuple[type[Environment], Path]:
    """The environment class named by ``ref`` and the file it came from."""
    path = resolve_module(ref, task_file)
    module = _MODULES.get(path)
    if module is None:
        name = "sttui_env_" + hashlib.sha1(str(path).encode()).hexdigest()[:12]
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        except SyntaxError as exc:
            sys.modules.pop(name, None)
            raise EnvImportError(f"{path.name} line {exc.lineno}: syntax error: {exc.msg}") from None
        except Exception as exc:
            sys.modules.pop(name, None)
            raise EnvImportError(f"importing {path.name} failed: {type(exc).__name__}: {exc}") from None
        _MODULES[path] = module
    cls_name = ref.split(":", 1)[1]
    cls = getattr(module, cls_name, None)
    if cls is None:
        classes = [n for n, v in vars(module).items() if isinstance(v, type) and issubclass(v, Environment)]
        raise EnvImportError(f"no class '{cls_name}' in {path.name}{did_you_mean(cls_name, classes)}")
    if not (isinstance(cls, type) and issubclass(cls, Environment)):
        raise EnvImportError(f"{cls_name} in {path.name} is not a subclass of sttui.core.env.Environment")
    return cls, path
