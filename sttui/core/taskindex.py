"""The task index: every task file parsed and validated once, kept in sttui's private cache,
and found again by its content.

An entry is keyed by the file's exact text and path and by the loader's own version (a digest
of sttui's core sources, so a change to how files are read or checked invalidates every entry);
it is used only while the environment module the file names still resolves to the same file
with the same bytes (and the Python files beside it are unchanged). A file that is edited, or
whose module is, is loaded afresh. An entry holds what a listing shows (id, kind, domain,
subtype, level, title, the opening message), the file's problems when it does not load, and the
validated task itself, so ``load_task`` on an unchanged file skips the YAML, the schema and the
checks; the environment class is still imported from the task folder, as always.

The cache lives in ``$STTUI_CACHE_DIR`` (else ``$XDG_CACHE_HOME/sttui``, else ``~/.cache/sttui``)
as ``taskindex/index.sqlite``. It must be this user's and private (mode 0700), since entries are
unpickled: in any other folder the index is not used and files are loaded as before.
``STTUI_NO_TASK_INDEX=1`` turns it off. Any trouble with it (a locked or broken file) falls
back to loading the file.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import pickle
import re
import sqlite3
import stat
import sys
import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sttui.core.problems import Problem, TaskFileError, display_path

if TYPE_CHECKING:
    from sttui.core.loader import LoadedTask

LOADER_VERSION = 1  # bump when what a task file loads to changes in a way the sources do not show
_FILE = "taskindex/index.sqlite"
_PRUNE_AFTER = 30 * 86400  # entries not written for this long go at the next prune


@dataclass(frozen=True)
class Entry:
    """One task file as a listing sees it: what it is, or why it does not load."""

    path: Path
    id: str | None
    kind: str | None
    domain: str | None
    conflict: str | None
    level: str | None
    family: str | None
    title: str | None
    opening: str | None  # the stt task's query, or the explore episode's scenario
    content_hash: str | None
    problems: tuple[Problem, ...] | None  # None when the file loads

    @property
    def ok(self) -> bool:
        return self.problems is None

    @property
    def subtype(self) -> str:
        return (self.conflict if self.kind == "stt" else self.family) or "-"


def cache_root() -> Path:
    """sttui's private cache (``sttui.paths.cache_root``)."""
    from sttui.paths import cache_root as root

    return root()


_LOADER_KEY: str | None = None


def loader_key() -> str:
    """What loading means in this process: the index's version, Python's, pydantic's files and
    a digest of every source file of ``sttui.core`` (models, checks, the YAML reader)."""
    global _LOADER_KEY
    if _LOADER_KEY is None:
        digest = hashlib.sha256(f"{LOADER_VERSION}|{sys.version}".encode())
        core = Path(__file__).resolve().parent
        for path in sorted(core.rglob("*.py")):
            digest.update(str(path.relative_to(core)).encode() + b"\0")
            digest.update(path.read_bytes())
        with contextlib.suppress(Exception):
            import importlib.util

            spec = importlib.util.find_spec("pydantic")
            if spec is not None and spec.origin:
                info = os.stat(Path(spec.origin).parent / "version.py")
                digest.update(f"{spec.origin}|{info.st_size}|{info.st_mtime_ns}".encode())
        _LOADER_KEY = digest.hexdigest()
    return _LOADER_KEY


class TaskIndex:
    """Task files by content, through the private cache. One per process (``index()``); it
    follows the cache folder the environment names at each call."""

    def __init__(self) -> None:
        self._db: sqlite3.Connection | None = None
        self._db_path: Path | None = None
        self._envs: dict[Path, tuple[str, bytes] | None] = {}  # module file -> (digest, bytes), this process
        self._resolved: dict[tuple[Path, str], tuple[Path | None, str | None]] = {}
        # entry key -> a loaded task and its pickle, this process: every caller gets a task of its
        # own from the pickle, so one that changes its task (a test, a generator) changes no other's
        self._loaded: dict[str, tuple[LoadedTask, bytes | None]] = {}

    # -- the cache file --------------------------------------------------------------------
    def _connect(self) -> sqlite3.Connection | None:
        if os.environ.get("STTUI_NO_TASK_INDEX"):
            return None
        root = cache_root()
        path = root / _FILE
        if self._db is not None and self._db_path == path:
            return self._db
        self.close()
        try:
            for folder in (root, path.parent):
                folder.mkdir(parents=True, exist_ok=True, mode=0o700)
                info = folder.stat()
                if hasattr(os, "getuid") and info.st_uid != os.getuid():
                    return None  # someone else's folder: its entries could be anything
                if info.st_mode & 0o077:
                    folder.chmod(0o700)
            db = sqlite3.connect(path, timeout=5, isolation_level=None, check_same_thread=False)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=OFF")  # a cache: a lost entry is loaded again
            db.execute(
                "CREATE TABLE IF NOT EXISTS entries (key TEXT PRIMARY KEY, env TEXT, light TEXT NOT NULL, "
                "task BLOB, written REAL NOT NULL)"
            )
            with contextlib.suppress(OSError):
                path.chmod(0o600)
        except (OSError, sqlite3.Error):
            return None
        self._db, self._db_path = db, path
        return db

    def close(self) -> None:
        if self._db is not None:
            with contextlib.suppress(sqlite3.Error):
                self._db.close()
        self._db = self._db_path = None

    def _get(self, keys: list[str], task: bool = False) -> dict[str, tuple[str | None, str, bytes | None]]:
        """Entries by key: (env, light, the pickled task if ``task`` else None)."""
        db = self._connect()
        if db is None or not keys:
            return {}
        out: dict[str, tuple[str | None, str, bytes | None]] = {}
        try:
            for i in range(0, len(keys), 500):
                chunk = keys[i : i + 500]
                marks = ",".join("?" * len(chunk))
                column = "task" if task else "NULL"
                for key, env, light, blob in db.execute(
                    f"SELECT key, env, light, {column} FROM entries WHERE key IN ({marks})", chunk
                ):
                    out[key] = (env, light, blob)
        except sqlite3.Error:
            return {}
        return out

    def _put(self, rows: list[tuple[str, str | None, str, bytes | None]]) -> None:
        db = self._connect()
        if db is None or not rows:
            return
        now = time.time()
        with contextlib.suppress(sqlite3.Error):
            db.execute("BEGIN")
            db.executemany(
                "INSERT OR REPLACE INTO entries (key, env, light, task, written) VALUES (?, ?, ?, ?, ?)",
                [(*row, now) for row in rows],
            )
            if int.from_bytes(os.urandom(1), "big") < 8:  # now and then, forget entries long unused
                db.execute("DELETE FROM entries WHERE written < ?", (now - _PRUNE_AFTER,))
            db.execute("COMMIT")
        if db.in_transaction:
            with contextlib.suppress(sqlite3.Error):
                db.execute("ROLLBACK")

    # -- keys ------------------------------------------------------------------------------
    @staticmethod
    def _key(path: Path, text: bytes, env_file: Path | None) -> str:
        digest = hashlib.sha256(f"{loader_key()}\0{os.path.abspath(path)}\0{env_file or ''}\0".encode())
        digest.update(text)
        return digest.hexdigest()

    def _module(self, path: Path) -> tuple[str, bytes] | None:
        """An environment module's digest (with the Python files beside it) and its bytes."""
        if path not in self._envs:
            try:
                data = path.read_bytes()
                digest = hashlib.sha256(data)
                for other in sorted(path.parent.glob("*.py")):
                    if other != path:
                        digest.update(other.name.encode() + b"\0" + other.read_bytes())
                self._envs[path] = (digest.hexdigest(), data)
            except OSError:
                self._envs[path] = None
        return self._envs[path]

    def _resolve(self, ref: str, task_file: Path, env_file: Path | None) -> tuple[Path | None, str | None]:
        """Where ``env: ref`` leads from this task file now: (module file, None) or (None, why not)."""
        if env_file is not None:
            return env_file.resolve(), None
        key = (Path(os.path.abspath(task_file)).parent, ref)
        if key not in self._resolved:
            from sttui.core.envload import EnvImportError, resolve_module

            try:
                self._resolved[key] = (resolve_module(ref, task_file), None)
            except EnvImportError as exc:
                self._resolved[key] = (None, str(exc))
        return self._resolved[key]

    def _env_state(self, ref: str | None, path: Path, env_file: Path | None) -> str | None:
        """The part of an entry's key that lies outside the file: where its module resolves and
        that module's digest, as JSON (None for a file with no usable ``env:``)."""
        if not isinstance(ref, str) or ":" not in ref:
            return None
        module, why = self._resolve(ref, path, env_file)
        if module is None:
            return json.dumps([None, why])
        found = self._module(module)
        return json.dumps([str(module), found[0] if found else None])

    # -- entries ---------------------------------------------------------------------------
    def scan(self, paths: Iterable[str | Path]) -> list[Entry]:
        """Every task file under ``paths`` (as ``discover`` finds them), from the index where it
        holds them; the others are loaded, and kept for next time."""
        return list(self.entries(discover(paths)))

    def entries(self, files: Iterable[Path], keep: bool = False) -> Iterator[Entry]:
        """The entries of ``files``, in order. ``keep``: hold the tasks loaded for missing
        entries in this process, for a caller that loads them all next (``load_all``)."""
        files = list(files)
        texts: dict[Path, bytes | None] = {}
        keys: dict[Path, str] = {}
        env_values = secret_env_values()  # once for the whole scan
        for f in files:
            try:
                texts[f] = _read(f)
            except (OSError, ValueError):
                texts[f] = None
            text = texts[f]
            if text is not None and not may_hold_secret(text, env_values):
                keys[f] = self._key(f, text, None)
        found = self._get(list(keys.values()))
        fresh: list[tuple[str, str | None, str, bytes | None]] = []
        for f in files:
            key = keys.get(f)
            hit = found.get(key) if key else None
            if hit is not None:
                env, light, _ = hit
                data = json.loads(light)
                if self._env_state(data.get("env"), f, None) == env:
                    yield _entry(f, data)
                    continue
            entry, row = self._load_entry(f, key, None, keep)
            if row is not None:
                fresh.append(row)
            yield entry
        self._put(fresh)

    def load(self, path: str | Path, env_file: Path | None = None) -> LoadedTask:
        """``load_task``: the validated task from the index while the file and its module are
        unchanged (its environment class imported from the folder as always), else loaded."""
        from sttui.core.loader import _load_task

        path = Path(path)
        try:
            text = _read(path)
        except (OSError, ValueError):
            return _load_task(path, env_file)  # (it says why it cannot read the file)
        if may_hold_secret(text):  # never kept, so never looked for
            return _load_task(path, env_file)
        key = self._key(path, text, env_file)
        if key in self._loaded:  # loaded in this process already (by a scan, say)
            return self._fresh(key, path)
        hit = self._get([key], task=True).get(key)
        if hit is not None:
            env, light, task = hit
            data = json.loads(light)
            if self._env_state(data.get("env"), path, env_file) == env:
                if data.get("problems") is not None:
                    raise TaskFileError(list(_entry(path, data).problems or ()))
                loaded = self._from_entry(key, path, text, env_file, data, task)
                if loaded is not None:
                    return loaded
        entry, row = self._load_entry(path, key, env_file, keep=True)
        if row is not None:
            self._put([row])
        if entry.problems is not None:
            raise TaskFileError(list(entry.problems))
        return self._fresh(key, path)

    def _fresh(self, key: str, path: Path) -> LoadedTask:
        """The task loaded under ``key``, as a copy of its own (0.1 ms: an unpickling), with the
        path as this caller named it (the key holds the absolute path: a task loaded by a relative
        path before a chdir must still be found by the next caller)."""
        loaded, blob = self._loaded[key]
        task = pickle.loads(blob) if blob is not None else loaded.task
        return replace(loaded, task=task, path=path)

    def find(self, task_id: str, paths: Iterable[str | Path]) -> Entry | None:
        """The task file under ``paths`` whose id is ``task_id`` (the first one, in discovery
        order), loading only files the index does not hold and whose text names that id."""
        wanted = task_id.encode()
        files = discover(paths)
        keys: dict[Path, str] = {}
        texts: dict[Path, bytes] = {}
        for f in files:
            with contextlib.suppress(OSError, ValueError):
                texts[f] = _read(f)
                if not may_hold_secret(texts[f]):
                    keys[f] = self._key(f, texts[f], None)
        found = self._get(list(keys.values()))
        for f in files:
            if f not in texts:
                continue
            hit = found.get(keys[f]) if f in keys else None
            if hit is not None and self._env_state(json.loads(hit[1]).get("env"), f, None) == hit[0]:
                data = json.loads(hit[1])
                if data.get("id") == task_id:
                    return _entry(f, data)
                continue
            if wanted not in texts[f]:
                continue  # cannot be that task: not worth loading now
            entry, row = self._load_entry(f, keys.get(f), None)
            if row is not None:
                self._put([row])
            if entry.id == task_id:
                return entry
        return None

    # -- loading ---------------------------------------------------------------------------
    def _load_entry(
        self, path: Path, key: str | None, env_file: Path | None, keep: bool = False
    ) -> tuple[Entry, tuple[str, str | None, str, bytes | None] | None]:
        """Load a file for real: its entry, and the row to keep (None when it should not be kept:
        it could not be read, or its module failed to import, which may pass)."""
        from sttui.core.loader import _load_task

        try:
            loaded = _load_task(path, env_file, keep=True)
        except TaskFileError as exc:
            env_ref: str | None = getattr(exc, "env_ref", None)
            data = {
                "id": None,
                "env": env_ref,
                "problems": [[p.line, p.field, p.message] for p in exc.problems],
            }
            entry = _entry(path, data)
            unreadable = any(p.field == "(file)" and p.message.startswith("cannot read") for p in exc.problems)
            # (a module that failed to import may import next time: that is not kept)
            if key is None or unreadable or getattr(exc, "env_failed", False):
                return entry, None
            return entry, (key, self._env_state(env_ref, path, env_file), json.dumps(data), None)
        data = _summary(loaded.task)
        data["content_hash"] = loaded.content_hash
        entry = _entry(path, data)
        if key is None:
            return entry, None
        try:  # now, before anything caches what cannot be kept (compiled review rules) on it
            blob: bytes | None = pickle.dumps(loaded.task, pickle.HIGHEST_PROTOCOL)
        except Exception:
            blob = None
        if keep:
            self._loaded[key] = (loaded, blob)
        env = data.get("env")
        return entry, (
            key,
            self._env_state(env if isinstance(env, str) else None, path, env_file),
            json.dumps(data),
            blob,
        )

    def _from_entry(
        self, key: str, path: Path, text: bytes, env_file: Path | None, data: dict[str, Any], blob: bytes | None
    ) -> LoadedTask | None:
        from sttui.core.envload import EnvImportError, content_hash, import_env
        from sttui.core.loader import LoadedTask

        if blob is None:
            return None
        try:
            task = pickle.loads(blob)
        except Exception:  # another pydantic, a class that moved: load the file instead
            return None
        source = text.decode("utf-8")
        if task.kind == "explore":
            loaded = LoadedTask(task, None, path, content_hash(source, None))
        else:
            try:
                env_cls, env_path = import_env(task.env, path, env_file)
            except EnvImportError:
                return None
            loaded = LoadedTask(task, env_cls, path, content_hash(source, env_path.read_bytes()))
        self._loaded[key] = (loaded, blob)
        return self._fresh(key, path)


# A task file that may hold a secret is never kept in the index (the cache holds no secret): the
# same key shapes and secret-named environment variables as sttui.store.secrets (which core does
# not import; a test keeps the two the same).
_KEY_SHAPES = (
    r"sk-[A-Za-z0-9_-]{20,}",
    r"hf_[A-Za-z0-9]{20,}",
    r"(?:AKIA|ASIA)[0-9A-Z]{16}(?![0-9A-Z])",
    r"gh[pousr]_[A-Za-z0-9]{30,}",
    r"github_pat_[A-Za-z0-9_]{30,}",
    r"AIza[0-9A-Za-z_-]{35}",
    r"xox[abprs]-[A-Za-z0-9-]{10,}",
)
_SECRET_NAME = r"(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL)"
_SHAPES_RE: Any = None


def may_hold_secret(text: bytes, env_values: tuple[bytes, ...] | None = None) -> bool:
    """Whether a task file's text holds a key-shaped string, a ``Bearer``/``Basic`` credential
    or the value of a secret-named environment variable (then it is loaded, never kept)."""
    global _SHAPES_RE
    import re

    if _SHAPES_RE is None:
        _SHAPES_RE = (
            re.compile("|".join(_KEY_SHAPES).encode()),
            re.compile(rb"(?i)\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}"),
            re.compile(_SECRET_NAME, re.I),
        )
    shapes, bearer, named = _SHAPES_RE
    # each regex only where its quick look finds something (what every match must contain)
    if any(marker in text for marker in _MARKERS) and shapes.search(text):
        return True
    low = text.lower()
    if (b"bearer" in low or b"basic" in low) and bearer.search(text):
        return True
    values = _secret_env_values(named) if env_values is None else env_values
    return any(value in text for value in values)


# What every key shape above contains (the scrubber's quick look, as bytes)
_MARKERS = (
    b"sk-",
    b"hf_",
    b"AKIA",
    b"ASIA",
    b"ghp_",
    b"gho_",
    b"ghu_",
    b"ghs_",
    b"ghr_",
    b"github_pat_",
    b"AIza",
    b"xox",
)


def _secret_env_values(named: Any) -> tuple[bytes, ...]:
    return tuple(v.encode() for k, v in os.environ.items() if len(v) >= 8 and named.search(k))


def secret_env_values() -> tuple[bytes, ...]:
    """The values of secret-named environment variables, as bytes: a scan works them out once
    for all its files (once per file, a scan of 2,000 asked the regex 70,000 times)."""
    may_hold_secret(b"")  # (compiles the patterns)
    return _secret_env_values(_SHAPES_RE[2])


MAX_BYTES = 2_000_000  # yamlio.MAX_BYTES (not imported: the warm path loads no YAML reader)


def _read(path: Path) -> bytes:
    """A task file's bytes, refusing what ``yamlio.read_text`` refuses (not a regular file, too
    big); the loader says why. (Text that is not UTF-8 is never in the index: it does not load.)"""
    info = os.stat(path)
    if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_BYTES:
        raise ValueError("not a task file the loader reads")
    with open(path, "rb") as f:
        data = f.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        raise ValueError("too big")
    return data


# a task file's top-level ``id:`` line: ``id: harbour-a5``, quoted or not, a comment after
_ID_LINE = re.compile(rb"""^id:[ \t]*(["']?)([^"'#\s]+)\1[ \t]*(?:#.*)?$""", re.MULTILINE)


def written_id(path: Path) -> str | None:
    """The id a task file gives on its top-level ``id:`` line, read without loading it
    (validating, importing); None when it gives none or is no task file the loader reads
    (not a regular file: a FIFO would wait for a writer; too big)."""
    try:
        found = _ID_LINE.search(_read(path))
    except (OSError, ValueError):
        return None
    return found.group(2).decode("utf-8", "replace") if found else None


def discover(paths: Iterable[str | Path]) -> list[Path]:
    """Task files under the given files and folders (``*.yaml``/``*.yml``, sorted).

    Folders named ``catalogs`` hold generator inputs, not tasks, and are skipped; so is
    anything in a folder that is not a regular file (a FIFO named ``x.yaml`` would block).
    """
    found: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            found.extend(
                f
                for f in sorted(p.rglob("*.y*ml"))
                if f.suffix in (".yaml", ".yml") and "catalogs" not in f.parts and f.is_file()
            )
        else:
            found.append(p)
    return found


def _summary(task: Any) -> dict[str, Any]:
    stt = task.kind == "stt"
    return {
        "id": task.id,
        "kind": task.kind,
        "domain": task.domain,
        "conflict": task.conflict if stt else None,
        "level": task.level if stt else None,
        "family": None if stt else task.rule.family,
        "title": task.title,
        "opening": task.query if stt else task.scenario,
        "env": getattr(task, "env", None),
        "problems": None,
    }


def _entry(path: Path, data: Mapping[str, Any]) -> Entry:
    problems = data.get("problems")
    name = display_path(path) if problems is not None else ""
    return Entry(
        path,
        data.get("id"),
        data.get("kind"),
        data.get("domain"),
        data.get("conflict"),
        data.get("level"),
        data.get("family"),
        data.get("title"),
        data.get("opening"),
        data.get("content_hash"),
        None if problems is None else tuple(Problem(name, line, field, message) for line, field, message in problems),
    )


class Tasks(Mapping[str, "LoadedTask"]):
    """Loaded tasks by id, each loaded (through the index) when first asked for: a listing of
    thousands of files shows at once and loads only the task that is played."""

    def __init__(self, entries: Iterable[Entry]):
        self._paths = {e.id: e.path for e in entries if e.ok and e.id is not None}
        self._loaded: dict[str, LoadedTask] = {}

    def __getitem__(self, task_id: str) -> LoadedTask:
        if task_id not in self._loaded:
            from sttui.core.loader import load_task

            self._loaded[task_id] = load_task(self._paths[task_id])
        return self._loaded[task_id]

    def get(self, task_id: str, default: Any = None) -> Any:
        try:
            return self[task_id]
        except (KeyError, TaskFileError):  # (a file edited into a broken one since it was listed)
            return default

    def __contains__(self, task_id: object) -> bool:
        return task_id in self._paths

    def __iter__(self) -> Iterator[str]:
        return iter(self._paths)

    def __len__(self) -> int:
        return len(self._paths)


_INDEX: TaskIndex | None = None


def index() -> TaskIndex:
    global _INDEX
    if _INDEX is None:
        _INDEX = TaskIndex()
    return _INDEX
