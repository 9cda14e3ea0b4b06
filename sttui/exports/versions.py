"""Stored task versions: whether their code may run, and the private copies they run from.

A task version in the record is data: a task file and its environment module's source, which
may have come from anyone's export. Its environment code runs only when it is trusted:

- ``recorded``: this database saved it from a task file it ran;
- ``trusted``: it was imported with ``import --trust``;
- a task file in a task folder the user gave (the bundled tasks or ``STTUI_TASKS``, and
  ``--tasks``) has its exact hash: then that file is loaded, not the stored copy;
- the user passes ``--trust`` to the command at hand.

Otherwise nothing is written and nothing runs. Explore versions are YAML only, with no code,
and always load. A copy is written only under sttui's private cache, in
``<cache>/versions/<sha256 of what is written>/`` (mode 0700), as ``task.yaml`` and
``environment.py``: names chosen here, never a path the record names. The folder is named by
its content, so a copy is written once and reused, and nothing piles up.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import yaml

from sttui.core.envload import EnvImportError, content_hash, resolve_module
from sttui.core.loader import LoadedTask, discover, load_task
from sttui.core.problems import TaskFileError
from sttui.paths import cache_root, tasks_root
from sttui.store.store import EpisodeRecord, Store
from sttui.store.task_versions import RUNNABLE_ORIGINS, TaskVersion

TASK_FILE = "task.yaml"
ENV_FILE = "environment.py"
TRUST_HINT = (
    "to run it, pass --tasks FOLDER holding the task file it came from (same hash), "
    "or --trust if you vouch for its code (it runs with your permissions)"
)
_WHY = {"recorded": "recorded here", "trusted": "imported with --trust"}


class VersionProblem(Exception):
    """A stored task version that cannot be run here; the message says why, in one line."""


class MissingVersion(VersionProblem):
    pass


class UntrustedVersion(VersionProblem):
    pass


class BrokenVersion(VersionProblem):
    """The stored version no longer loads (or does not match its hash)."""


@dataclass
class OpenedVersion:
    loaded: LoadedTask
    trusted_by: str  # why its code could run: "recorded here", "task file PATH", "--trust", ...


def label(version: TaskVersion) -> str:
    return f"task {version.task_id} version {version.content_hash[:12]}"


def open_version(
    store: Store, record: EpisodeRecord, *, trust: bool = False, task_dirs: Sequence[Path] | None = None
) -> OpenedVersion:
    """The task version an episode ran on, loaded if it may run, else a ``VersionProblem``."""
    version = store.task_version(record.task_id, record.task_hash)
    if version is None:
        raise MissingVersion(f"the record has no copy of task {record.task_id} version {record.task_hash[:12]}")
    return open_stored(version, trust=trust, task_dirs=task_dirs)


def load_version(
    store: Store, record: EpisodeRecord, *, trust: bool = False, task_dirs: Sequence[Path] | None = None
) -> LoadedTask:
    return open_version(store, record, trust=trust, task_dirs=task_dirs).loaded


def open_stored(version: TaskVersion, *, trust: bool = False, task_dirs: Sequence[Path] | None = None) -> OpenedVersion:
    if version.kind == "explore":  # materialise checks that the file says so too, and has no module
        return OpenedVersion(materialise(version), "data only (explore tasks carry no code)")
    runnable = version.origin in RUNNABLE_ORIGINS
    if runnable and not version.meta.get("redacted"):
        return OpenedVersion(materialise(version), _WHY[version.origin])
    found = matching_task_file(version, task_dirs)
    if found is not None:  # the user's own file: exact, and trusted as every task folder is
        try:
            loaded = load_task(found)
        except TaskFileError as exc:
            raise BrokenVersion(f"{label(version)}: its task file {found} no longer loads: {exc.problems[0]}") from None
        if loaded.content_hash == version.content_hash:
            return OpenedVersion(loaded, f"task file {found}")
    if runnable or trust:
        return OpenedVersion(materialise(version), _WHY.get(version.origin, "--trust"))
    if version.origin == "unknown":
        why = "was stored before sttui kept where task versions come from, so its code counts as imported"
    else:
        why = "was imported from a file, and its environment code is not trusted"
    raise UntrustedVersion(f"{label(version)} {why}; nothing was run; {TRUST_HINT}")


def matching_task_file(version: TaskVersion, task_dirs: Sequence[Path] | None = None) -> Path | None:
    """A task file under ``task_dirs`` (default: the bundled tasks) whose hash is the version's.

    Only reads files: hashing a task needs its text and its module's bytes, not its code."""
    for path in discover(task_dirs or [tasks_root()]):
        try:
            text = path.read_text(encoding="utf-8")
            if version.task_id not in text:
                continue
            data = yaml.safe_load(text)
            if not isinstance(data, dict) or data.get("id") != version.task_id:
                continue
            env = data.get("env")
            env_bytes = resolve_module(env, path).read_bytes() if isinstance(env, str) and ":" in env else None
        except (OSError, UnicodeDecodeError, yaml.YAMLError, EnvImportError):
            continue
        if content_hash(text, env_bytes) == version.content_hash:
            return path
    return None


def materialise(version: TaskVersion) -> LoadedTask:
    """Load a stored version from its copy in the private cache (written first if missing).

    Call only for versions that may run (``open_stored`` decides)."""
    if version.kind == "stt" and version.env_source is None:
        raise BrokenVersion(f"{label(version)} has no environment source in the record")
    if version.kind == "explore" and version.env_source is not None:
        raise BrokenVersion(f"{label(version)}: an explore task carries no environment module, yet this one does")
    try:
        declared = yaml.safe_load(version.source)
    except yaml.YAMLError:
        declared = None
    if not isinstance(declared, dict) or declared.get("kind") != version.kind:
        raise BrokenVersion(f"{label(version)}: its file does not say kind: {version.kind}; nothing was loaded")
    env_bytes = version.env_source.encode() if version.env_source is not None else None
    digest = content_hash(version.source, env_bytes)
    if digest != version.content_hash and not version.meta.get("redacted"):
        raise BrokenVersion(f"{label(version)}: the stored copy does not match its hash; nothing was loaded")
    folder = private_folder(cache_root() / "versions" / digest)
    files = {TASK_FILE: version.source.encode()}
    if env_bytes is not None:
        files[ENV_FILE] = env_bytes
    for name, data in files.items():
        _write(folder / name, data)
    env_file = folder / ENV_FILE if env_bytes is not None else None
    on_disk = content_hash(
        (folder / TASK_FILE).read_text(encoding="utf-8"), env_file.read_bytes() if env_file else None
    )
    if on_disk != digest:
        raise BrokenVersion(f"{label(version)}: its copy in {folder} does not match; nothing was loaded")
    try:
        loaded = load_task(folder / TASK_FILE, env_file=env_file)
    except TaskFileError as exc:
        first = exc.problems[0]
        raise BrokenVersion(f"{label(version)} no longer loads: {first.field}: {first.message}") from None
    if loaded.id != version.task_id:
        raise BrokenVersion(f"{label(version)}: the stored file is task {loaded.id}")
    return loaded


def private_folder(folder: Path) -> Path:
    """``folder`` under the cache, created if need be; the cache is this user's alone (0700)."""
    root = cache_root()
    root.mkdir(parents=True, exist_ok=True, mode=0o700)
    _own(root)
    for d in [*reversed([p for p in folder.parents if root in p.parents]), folder]:
        d.mkdir(exist_ok=True, mode=0o700)
        _own(d)
    return folder


def _own(folder: Path) -> None:
    """Refuse a folder someone else owns (they could change code before it runs); make ours 0700."""
    info = folder.stat()  # the folder itself, through any link to it
    if hasattr(os, "getuid") and info.st_uid != os.getuid():
        raise VersionProblem(f"{folder} belongs to another user; sttui keeps no copies of code there")
    if info.st_mode & 0o077:
        folder.chmod(0o700)


def _write(path: Path, data: bytes) -> None:
    """Write ``path`` atomically, unless it already holds exactly ``data``."""
    with contextlib.suppress(OSError):
        if not path.is_symlink() and path.read_bytes() == data:
            return
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".part-")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
