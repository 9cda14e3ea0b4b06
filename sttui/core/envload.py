"""Importing a task's environment class from its ``env: module:Class`` reference.

The module is looked up only in the task's folder and the three folders above it, and the
file found (symlinks followed) must lie inside them: a task file never names code elsewhere,
and the check runs before anything is imported.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import inspect
import sys
from pathlib import Path
from types import ModuleType

from sttui.core.env import Environment
from sttui.core.problems import did_you_mean

_MODULES: dict[Path, ModuleType] = {}
SEARCH_LEVELS = 3


class EnvImportError(Exception):
    pass


def content_hash(text: str, env_bytes: bytes | None) -> str:
    """The hash that names a task version: its file's text and its environment module's bytes."""
    digest = hashlib.sha256(text.encode())
    if env_bytes is not None:
        digest.update(env_bytes)
    return digest.hexdigest()


def module_path(ref: str) -> Path:
    """``a.b:Class`` -> ``a/b.py``, refusing anything but dotted Python names (no paths, no ``..``)."""
    module = ref.split(":", 1)[0]
    parts = module.split(".")
    if not module or not all(p.isidentifier() for p in parts):
        raise EnvImportError(
            f"env: {module!r} is not a module name; write dotted Python names relative to the task's "
            "folder, like logistics.env:LogisticsEnv (no paths)"
        )
    return Path(*parts).with_suffix(".py")


def search_folders(task_file: Path) -> list[Path]:
    """The task's folder and the folders above it where its environment module may live.

    The task's folder is where the task file is found, not where a link to it leads: a task
    file linked in from elsewhere does not bring the code beside its target along."""
    base = task_file.absolute().parent.resolve()
    return [base, *list(base.parents)[:SEARCH_LEVELS]]


def resolve_module(ref: str, task_file: Path) -> Path:
    """Find ``a.b`` as ``a/b.py`` in the task's folder or up to three folders above it."""
    rel = module_path(ref)
    folders = search_folders(task_file)
    for base in folders:
        candidate = base / rel
        try:
            found = candidate.is_file()
        except OSError as exc:  # a name too long for the file system, say
            raise EnvImportError(f"env: cannot look for module file {str(rel)[:60]!r}: {exc.strerror}") from None
        if found:
            real = candidate.resolve()
            if not any(real.is_relative_to(f) for f in folders):
                raise EnvImportError(
                    f"env: {candidate} leads to {real}, outside the task's folder and the "
                    f"{SEARCH_LEVELS} above it; nothing was imported"
                )
            return real
    hint = ""
    if task_file.is_symlink():
        hint = f" (the task file is a link to {task_file.resolve()}; env: is looked up where the link is)"
    raise EnvImportError(f"no module file {rel} in the task's folder or the {SEARCH_LEVELS} above it{hint}")


def import_env(ref: str, task_file: Path, module_file: Path | None = None) -> tuple[type[Environment], Path]:
    """The environment class named by ``ref`` and the file it came from.

    ``module_file`` imports that file instead of looking the module up: a stored task version
    materialised by sttui names its own copy of the module.
    """
    if module_file is None:
        path = resolve_module(ref, task_file)
    else:
        module_path(ref)
        path = module_file.resolve()
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
    _check_init(cls, path)
    return cls, path


def _check_init(cls: type[Environment], path: Path) -> None:
    """The engine makes an environment as ``cls(state, now, seed)``: an ``__init__`` that cannot
    take those is said here, at the ``env:`` line, not as a TypeError when an episode starts."""
    init = cls.__init__
    if init is Environment.__init__:
        return
    try:
        inspect.signature(cls).bind({}, None, 0)
    except TypeError as exc:
        line = ""
        with contextlib.suppress(OSError, TypeError):
            line = f" (line {inspect.getsourcelines(init)[1]})"
        raise EnvImportError(
            f"{cls.__name__}.__init__ in {path.name}{line} cannot take the engine's arguments: {exc}; "
            "it must accept (state, now, seed) and call super().__init__(state, now, seed)"
        ) from None
    except ValueError:  # (no signature to read: a builtin's; left to the episode)
        return
