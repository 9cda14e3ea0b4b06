"""Reading a jsonl export back: the whole file is checked before anything is written, and
then written in one transaction, so an import is all or nothing.

Checked: every line is a JSON object of a known record type with fields of the right types
and sizes (no NaN, no 10**30 sequence numbers, no 100,000-deep nesting); each episode's
events are numbered 1, 2, 3, … without a gap or a repeat; an episode id appears once; an
episode's status agrees with its events (a completed episode's record ends the episode, a
running one's does not), so a file cut at a line boundary is refused rather than imported
with its tail missing; and an export that declares its size (a header and a trailer) must
hold exactly that. Task versions are data: checked against their hash, never run here.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from sttui.core.envload import content_hash
from sttui.core.events import EPISODE_ENDED, EPISODE_STARTED, Event
from sttui.store.store import STATUSES, EpisodeRecord, Store
from sttui.store.task_versions import TaskVersion

MAX_FILE_BYTES = 2_000_000_000
MAX_LINE_BYTES = 50_000_000
MAX_SEQ = 10_000_000
MAX_INT = 2**63 - 1
EXPORT_VERSION = 2


class ImportProblem(Exception):
    """Why a file cannot be imported, with its file and line; nothing was imported."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class EpisodeFields(_Strict):
    id: str = Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_-]+$")
    task_id: str = Field(min_length=1, max_length=200)
    task_hash: str = Field(min_length=1, max_length=128)
    kind: str = Field(pattern=r"^(stt|explore)$")
    seed: int = Field(ge=0, le=MAX_INT)
    setting: str = Field(max_length=100)
    status: str
    agent: str = Field(max_length=500)
    user: str | None = Field(default=None, max_length=500)
    outcome: dict[str, Any] | None = None
    scores: dict[str, Any] | None = None
    end_reason: str | None = Field(default=None, max_length=20_000)
    steps: int = Field(ge=0, le=MAX_SEQ)
    state_hash: str | None = Field(default=None, max_length=128)
    started_at: float = Field(ge=0, allow_inf_nan=False)
    ended_at: float | None = Field(default=None, ge=0, allow_inf_nan=False)
    clean_baseline: bool

    def record(self) -> EpisodeRecord:
        return EpisodeRecord(**self.model_dump())


class EventFields(_Strict):
    record: str
    episode_id: str = Field(max_length=64)
    seq: int = Field(ge=1, le=MAX_SEQ)
    type: str = Field(min_length=1, max_length=64, pattern=r"^[a-z][a-z0-9_]*$")
    actor: str = Field(max_length=500)
    sim_time: str = Field(max_length=64)
    wall_time: float = Field(ge=0, allow_inf_nan=False)
    payload: dict[str, Any]
    patch: list[Any] | None = None  # the payload's diff as JSON Patch: derived on export, not stored


@dataclass
class Imported:
    record: EpisodeRecord
    task: TaskVersion | None
    events: list[Event] = field(default_factory=list)
    line: int = 0


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number JSON allows")


def _nul_at(value: Any, path: str = "") -> str | None:
    """Where a NUL character is in a parsed value (a key or a string), or None."""
    if isinstance(value, str):
        return (path or "(value)") if "\x00" in value else None
    if isinstance(value, dict):
        for key, item in value.items():
            here = f"{path}.{key}" if path else str(key)
            if "\x00" in str(key):
                return here
            found = _nul_at(item, here)
            if found:
                return found
    if isinstance(value, list):
        for i, item in enumerate(value):
            found = _nul_at(item, f"{path}[{i}]")
            if found:
                return found
    return None


def _parse(line: str, where: str) -> Any:
    try:
        value = json.loads(line, parse_constant=_reject_constant)
        # PostgreSQL cannot store a NUL in text or JSON; refused here, the same on SQLite
        nul = _nul_at(value) if "\\u0000" in line else None
        if nul:
            raise ImportProblem(f"{where}: {nul} holds a NUL character (\\u0000), which no record can store")
        return value
    except json.JSONDecodeError as exc:
        raise ImportProblem(
            f"{where}: not JSON ({exc.msg} at column {exc.colno}); is this an sttui jsonl export?"
        ) from None
    except ValueError as exc:
        raise ImportProblem(f"{where}: {exc}") from None
    except RecursionError:
        raise ImportProblem(f"{where}: nested too deeply to be an sttui export") from None


def _problem(where: str, what: str, exc: ValidationError) -> ImportProblem:
    err = exc.errors()[0]
    loc = ".".join(str(p) for p in err["loc"]) or "(record)"
    got = err.get("input")
    shown = repr(got) if not isinstance(got, dict | list) else type(got).__name__
    if len(shown) > 60:
        shown = shown[:57] + "…"
    return ImportProblem(f"{where}: {what} field {loc}: {err['msg'].lower()} (got {shown})")


def read_export(path: Path, trust: bool = False, studies: list[dict[str, Any]] | None = None) -> list[Imported]:
    """Parse and check a whole export; raise ImportProblem naming the first thing wrong.
    ``studies`` collects a study bundle's ``study`` records (``sttui.study.bundle``)."""
    name = str(path)
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise ImportProblem(f"{name}: {size:,} bytes is more than an import takes ({MAX_FILE_BYTES:,})")
        text = path.read_bytes().decode("utf-8")
    except OSError as exc:
        raise ImportProblem(f"{name}: cannot read: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise ImportProblem(f"{name}: not UTF-8 text (byte {exc.start})") from None
    episodes: list[Imported] = []
    declared: dict[str, Any] | None = None
    ended = False
    for n, line in enumerate(text.splitlines(), 1):
        where = f"{name}:{n}"
        if not line.strip():
            continue
        if len(line) > MAX_LINE_BYTES:
            raise ImportProblem(f"{where}: a line of {len(line):,} characters is more than an import takes")
        if ended:
            raise ImportProblem(f"{where}: lines after the export's end record")
        obj = _parse(line, where)
        kind = obj.get("record") if isinstance(obj, dict) else None
        if kind == "export":
            if n != 1 or episodes:
                raise ImportProblem(f"{where}: the export header must be the first line")
            declared = obj
        elif kind == "end":
            _check_end(obj, episodes, where)
            ended = True
        elif kind == "episode":
            episodes.append(_episode(obj, trust, where, n))
        elif kind == "event":
            _event(obj, episodes, where)
        elif kind == "study" and studies is not None:
            from sttui.study.bundle import check_manifest

            studies.append(check_manifest(obj, where))
        else:
            raise ImportProblem(f"{where}: expected a record of type 'episode' or 'event', got {str(kind)[:40]!r}")
    if declared is not None and not ended:
        raise ImportProblem(f"{name}: the export ends before its end record: the file was cut short")
    seen: dict[str, int] = {}
    for item in episodes:
        if item.record.id in seen:
            raise ImportProblem(
                f"{name}:{item.line}: episode {item.record.id} appears twice (first on line {seen[item.record.id]})"
            )
        seen[item.record.id] = item.line
        _check_story(item, name)
    return episodes


def _episode(obj: dict[str, Any], trust: bool, where: str, n: int) -> Imported:
    extra = set(obj) - {"record", "episode", "task"}
    if extra:
        raise ImportProblem(f"{where}: unknown field(s) {', '.join(sorted(extra))[:80]} in an episode record")
    try:
        record = EpisodeFields.model_validate(obj.get("episode")).record()
    except ValidationError as exc:
        raise _problem(where, "episode", exc) from None
    if record.status not in STATUSES:
        raise ImportProblem(f"{where}: episode status {record.status[:40]!r}; expected one of {', '.join(STATUSES)}")
    task = _task_version(obj["task"], trust, where) if obj.get("task") is not None else None
    if task is not None and (task.task_id, task.content_hash) != (record.task_id, record.task_hash):
        raise ImportProblem(f"{where}: the task version carried is not the one episode {record.id} ran on")
    return Imported(record, task, [], n)


def _event(obj: dict[str, Any], episodes: list[Imported], where: str) -> None:
    try:
        e = EventFields.model_validate(obj)
    except ValidationError as exc:
        raise _problem(where, "event", exc) from None
    if not episodes or episodes[-1].record.id != e.episode_id:
        raise ImportProblem(f"{where}: event of episode {e.episode_id} outside its episode")
    events = episodes[-1].events
    last = events[-1].seq if events else 0
    # A fork keeps its prefix under the original's numbers (row N of the fork is row N of the
    # original) without the original's own notes of control (forked, resumed…): its numbers
    # may skip, never go back. Any other episode is numbered 1, 2, 3…
    started = next((x for x in events[:3] if x.type == EPISODE_STARTED), None)
    fork = started is not None and isinstance(started.payload, dict) and "forked_from" in started.payload
    if e.seq <= last or (e.seq != last + 1 and not fork):
        what = "repeats" if e.seq <= last else "skips to"
        expected = f"above {last} (a fork's rows may skip)" if fork else str(last + 1)
        raise ImportProblem(
            f"{where}: episode {e.episode_id}'s event {what} seq {e.seq}; expected {expected} (events are numbered 1, 2, 3…)"
        )
    events.append(Event(e.seq, e.type, e.actor, e.payload, e.sim_time, e.wall_time))


def _check_end(obj: dict[str, Any], episodes: list[Imported], where: str) -> None:
    want = (obj.get("episodes"), obj.get("events"))
    got = (len(episodes), sum(len(i.events) for i in episodes))
    if want != got:
        raise ImportProblem(
            f"{where}: the export says it holds {want[0]} episode(s) and {want[1]} event(s); found {got[0]} and {got[1]}"
        )


BEFORE_START = frozenset({"clock_started", "clock_paused"})  # what a session may record before the start


def _check_story(item: Imported, name: str) -> None:
    """An episode's status must agree with its events: the tail of a cut file is noticed."""
    where = f"{name}:{item.line}"
    types = [e.type for e in item.events]
    # a person's session may note its clock before the episode's start is recorded
    lead = next((i for i, t in enumerate(types) if t not in BEFORE_START), len(types))
    if types and (lead == len(types) or types[lead] != EPISODE_STARTED):
        first = types[lead] if lead < len(types) else types[0]
        raise ImportProblem(f"{where}: episode {item.record.id}'s first event is {first}, not {EPISODE_STARTED}")
    if item.record.status == "completed" and EPISODE_ENDED not in types:
        raise ImportProblem(
            f"{where}: episode {item.record.id} is completed but its events never end it: "
            "the file lost that episode's tail"
        )
    if item.record.status == "running" and EPISODE_ENDED in types:
        raise ImportProblem(f"{where}: episode {item.record.id} is running but its events end it")


_PORTABLE = [f.name for f in fields(TaskVersion) if f.name != "origin"]


def _task_version(data: Any, trust: bool, where: str) -> TaskVersion:
    """A task version from an export, as data: checked against its hash, never trusted by its word."""
    if not isinstance(data, dict):
        raise ImportProblem(f"{where}: malformed task record (expected an object)")
    unknown = set(data) - set(_PORTABLE)
    missing = {"task_id", "kind", "content_hash", "title", "meta", "source"} - set(data)
    if unknown or missing:
        what = f"unknown field(s) {', '.join(sorted(unknown))}" if unknown else f"missing {', '.join(sorted(missing))}"
        raise ImportProblem(f"{where}: malformed task record ({what[:100]})")
    values = {k: data[k] for k in _PORTABLE if k in data}
    version = TaskVersion(**values, origin="trusted" if trust else "imported")
    for key in ("task_id", "kind", "content_hash", "title", "source"):
        if not isinstance(getattr(version, key), str):
            raise ImportProblem(f"{where}: malformed task record ({key} must be text)")
    if not isinstance(version.env_source, str | None) or not isinstance(version.env_ref, str | None):
        raise ImportProblem(f"{where}: malformed task record (env_source and env_ref must be text)")
    if not isinstance(version.meta, dict) or not isinstance(version.tools, list | None):
        raise ImportProblem(f"{where}: malformed task record (meta must be an object, tools a list)")
    if not re.fullmatch(r"[0-9a-f]{64}", version.content_hash):
        raise ImportProblem(f"{where}: malformed task record (content_hash is not a SHA-256)")
    env_bytes = version.env_source.encode() if version.env_source is not None else None
    if not version.meta.get("redacted") and content_hash(version.source, env_bytes) != version.content_hash:
        raise ImportProblem(
            f"{where}: task {version.task_id}: its text does not match its hash {str(version.content_hash)[:12]}"
        )
    return version


def import_jsonl(store: Store, path: Path, trust: bool = False) -> tuple[int, int]:
    """Load a jsonl export: (episodes imported, episodes already present). The file is checked
    whole first, then written in one transaction: all of it or none of it."""
    studies: list[dict[str, Any]] = []
    episodes = read_export(path, trust, studies)
    if studies:  # a study bundle: its manifest and its episodes in one transaction
        from sttui.study.bundle import write_manifest

        items = [(i.record, i.task, i.events) for i in episodes]
        ids = {i.record.id for i in episodes}
        return store.import_episodes(items, also=lambda conn: [write_manifest(conn, s, ids) for s in studies])
    return store.import_episodes([(i.record, i.task, i.events) for i in episodes])


def header() -> dict[str, Any]:
    """An export's first line: which export layout this is."""
    return {"record": "export", "format": "sttui-jsonl", "version": EXPORT_VERSION}


def trailer(episodes: int, events: int) -> dict[str, Any]:
    """An export's last line: how much it holds, so a file cut short is noticed."""
    return {"record": "end", "episodes": episodes, "events": events}
