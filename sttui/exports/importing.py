"""Reading a jsonl export back: the whole file is checked before anything is written, and
then written in one transaction, so an import is all or nothing. Both are a read of the file an
episode at a time (``walk_export``), so an import holds one episode, not the file; the second
read must find the bytes the first checked.

Checked: the file is a regular file (a FIFO or a device would never end) holding an sttui
export (not empty; a header, when there is one, of a format and version this sttui reads); every
line is a JSON object of a known record type with fields of the right types and sizes (no NaN,
no 10**30 sequence numbers, nothing nested deeper than ``MAX_DEPTH``, no text a record cannot
store: a NUL or a lone surrogate); each episode's events are numbered 1, 2, 3, … without a gap
or a repeat; an episode id appears once; an episode's status agrees with its events (a completed
episode's record ends the episode, a running one's does not), so a file cut at a line boundary
is refused rather than imported with its tail missing; and an export that declares its size (a
header and a trailer) must hold exactly that. Task versions are data: checked against their
hash, never run here.

An episode the record already holds is left as it is when the file's copy is the same, continued
from the file when the file's copy goes on from the record's (it was resumed and finished
elsewhere), and refuses the whole file when the two copies differ otherwise.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
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
MAX_DEPTH = 256  # a line's JSON nesting; scrubbing and checking a value recurse about twice a level
EXPORT_VERSION = 2
EXPORT_FORMAT = "sttui-jsonl"


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


_NUL = re.compile("\x00")
_SURROGATE = re.compile("[\ud800-\udfff]")  # only a \\uXXXX escape makes one: the file is UTF-8


def _text_at(value: Any, bad: re.Pattern[str], path: str = "") -> tuple[str, str] | None:
    """Where a key or a string of a parsed value holds ``bad`` (its path and the character), or
    None. Called only on lines nested at most ``MAX_DEPTH`` deep."""
    if isinstance(value, str):
        found = bad.search(value)
        return (path or "(value)", found.group()) if found else None
    if isinstance(value, dict):
        for key, item in value.items():
            here = f"{path}.{key}" if path else str(key)
            found = bad.search(str(key))
            if found:
                return here, found.group()
            inner = _text_at(item, bad, here)
            if inner:
                return inner
    if isinstance(value, list):
        for i, item in enumerate(value):
            inner = _text_at(item, bad, f"{path}[{i}]")
            if inner:
                return inner
    return None


def _too_deep(value: Any, line: str) -> bool:
    """Whether a parsed line nests deeper than ``MAX_DEPTH``, found without recursion (what
    would fail): a line with no more brackets than that cannot, at the cost of two counts;
    another's containers are walked with a stack (their number, not the line's size, is the cost)."""
    if line.count("[") + line.count("{") <= MAX_DEPTH:
        return False
    stack = [(value, 1)] if type(value) is dict or type(value) is list else []
    while stack:
        item, depth = stack.pop()
        if depth > MAX_DEPTH:
            return True
        for inner in item.values() if type(item) is dict else item:
            if type(inner) is dict or type(inner) is list:
                stack.append((inner, depth + 1))
    return False


def _unstorable(value: Any, line: str, where: str) -> None:
    """Refuse text no record can store, alike on SQLite and PostgreSQL: a NUL (PostgreSQL
    refuses it in text and JSON), a lone surrogate (half of a UTF-16 pair: no UTF-8 text holds
    one, and PostgreSQL refuses it in text and fails every query of JSON that holds one). Both
    come only from an escape, so a line without one is not walked."""
    if "\\u" not in line:
        return
    nul = _text_at(value, _NUL) if "\\u0000" in line else None
    if nul:
        raise ImportProblem(f"{where}: {nul[0]} holds a NUL character (\\u0000), which no record can store")
    lone = _text_at(value, _SURROGATE) if "\\ud" in line or "\\uD" in line else None
    if lone:
        field_name = lone[0].encode("utf-8", "backslashreplace").decode()  # (a key may hold it too)
        raise ImportProblem(
            f"{where}: {field_name} holds a lone surrogate (\\u{ord(lone[1]):04x}, half of a UTF-16 pair), "
            "which no record can store; expected text"
        )


def _parse(line: str, where: str) -> Any:
    try:
        value = json.loads(line, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        raise ImportProblem(
            f"{where}: not JSON ({exc.msg} at column {exc.colno}); is this an sttui jsonl export?"
        ) from None
    except ValueError as exc:
        raise ImportProblem(f"{where}: {exc}") from None
    except RecursionError:  # deeper than the parser goes: deeper than MAX_DEPTH as well
        deep = True
    else:
        deep = _too_deep(value, line)
    if deep:
        raise ImportProblem(f"{where}: nested too deeply: more than {MAX_DEPTH} levels, the most an import takes")
    _unstorable(value, line, where)
    return value


def _problem(where: str, what: str, exc: ValidationError) -> ImportProblem:
    err = exc.errors()[0]
    loc = ".".join(str(p) for p in err["loc"]) or "(record)"
    got = err.get("input")
    shown = repr(got) if not isinstance(got, dict | list) else type(got).__name__
    if len(shown) > 60:
        shown = shown[:57] + "…"
    msg = err["msg"]  # lowercased at its start only: a pattern in it is shown as it is
    return ImportProblem(f"{where}: {what} field {loc}: {msg[:1].lower()}{msg[1:]} (got {shown})")


def read_export(path: Path, trust: bool = False, studies: list[dict[str, Any]] | None = None) -> list[Imported]:
    """Parse and check a whole export; raise ImportProblem naming the first thing wrong.
    ``studies`` collects a study bundle's ``study`` records (``sttui.study.bundle``)."""
    return list(walk_export(path, trust, studies))


def walk_export(
    path: Path, trust: bool = False, studies: list[dict[str, Any]] | None = None, digest: Any = None
) -> Iterator[Imported]:
    """The export's episodes, each checked and given as its last event is read: one episode in
    memory at a time (holding a whole file took 4.5 times its size). ImportProblem names the
    first thing wrong, when it is read. ``digest`` (a hashlib object) takes every byte read."""
    name = str(path)
    current: Imported | None = None
    declared: dict[str, Any] | None = None
    ended = read = False
    counts = [0, 0]  # episodes, events
    seen: dict[str, int] = {}

    def done(item: Imported) -> Imported:
        if item.record.id in seen:
            raise ImportProblem(
                f"{name}:{item.line}: episode {item.record.id} appears twice (first on line {seen[item.record.id]})"
            )
        seen[item.record.id] = item.line
        _check_story(item, name)
        return item

    for n, line in _lines(path, name, digest):
        where = f"{name}:{n}"
        if not line.strip():
            continue
        read = True
        if len(line) > MAX_LINE_BYTES:
            raise ImportProblem(f"{where}: a line of {len(line):,} characters is more than an import takes")
        if ended:
            raise ImportProblem(f"{where}: lines after the export's end record")
        obj = _parse(line, where)
        kind = obj.get("record") if isinstance(obj, dict) else None
        if kind == "export":
            if n != 1 or counts[0]:
                raise ImportProblem(f"{where}: the export header must be the first line")
            declared = _check_header(obj, where)
        elif kind == "end":
            _check_end(obj, counts, where)
            ended = True
        elif kind == "episode":
            if current is not None:
                yield done(current)
            current = _episode(obj, trust, where, n)
            counts[0] += 1
        elif kind == "event":
            _event(obj, [current] if current is not None else [], where)
            counts[1] += 1
        elif kind == "study" and studies is not None:
            from sttui.study.bundle import check_manifest

            studies.append(check_manifest(obj, where))
        else:
            raise ImportProblem(f"{where}: expected a record of type 'episode' or 'event', got {str(kind)[:40]!r}")
    if not read:
        raise ImportProblem(f"{name}: the file is empty: not an sttui export (its first line is the export header)")
    if declared is not None and not ended:
        raise ImportProblem(f"{name}: the export ends before its end record: the file was cut short")
    if current is not None:
        yield done(current)


def _lines(path: Path, name: str, digest: Any = None) -> Iterator[tuple[int, str]]:
    """The file's lines, numbered, read a line at a time. Opened without waiting and checked to
    be a regular file before it is read: a FIFO would wait for a writer and /dev/zero would
    never end."""
    from sttui.files import NotRegular, TooBig, open_bounded

    try:
        f = open_bounded(path, MAX_FILE_BYTES)
    except NotRegular:
        raise ImportProblem(f"{name}: not a regular file (an export is a file, not a device or a pipe)") from None
    except TooBig:
        raise ImportProblem(f"{name}: more than {MAX_FILE_BYTES:,} bytes, more than an import takes") from None
    except OSError as exc:
        raise ImportProblem(f"{name}: cannot read: {exc.strerror or exc}") from None
    with f:
        offset = n = 0
        while True:
            try:
                raw = f.readline(MAX_LINE_BYTES * 4 + 2)  # (a character is at most four bytes)
            except OSError as exc:
                raise ImportProblem(f"{name}: cannot read: {exc.strerror or exc}") from None
            if not raw:
                return
            if digest is not None:
                digest.update(raw)
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise ImportProblem(f"{name}: not UTF-8 text (byte {offset + exc.start})") from None
            offset += len(raw)
            if offset > MAX_FILE_BYTES:
                raise ImportProblem(f"{name}: more than {MAX_FILE_BYTES:,} bytes, more than an import takes")
            for piece in text.splitlines():  # (as the whole text's lines: a lone \r ends one too)
                n += 1
                yield n, piece


def _check_header(obj: dict[str, Any], where: str) -> dict[str, Any]:
    """An export's header: sttui's format, in a version this sttui reads (a newer one may hold
    what this one would drop or misread)."""
    fmt, version = obj.get("format"), obj.get("version")
    if fmt != EXPORT_FORMAT:
        raise ImportProblem(f"{where}: export format {str(fmt)[:40]!r} is not sttui's; expected {EXPORT_FORMAT!r}")
    if type(version) is not int or not 1 <= version <= EXPORT_VERSION:
        newer = type(version) is int and version > EXPORT_VERSION
        hint = "; upgrade sttui to import it" if newer else ""
        raise ImportProblem(
            f"{where}: export version {repr(version)[:20]}; this sttui reads version {EXPORT_VERSION} and earlier{hint}"
        )
    return obj


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


def _check_end(obj: dict[str, Any], counts: list[int], where: str) -> None:
    want = (obj.get("episodes"), obj.get("events"))
    got = (counts[0], counts[1])
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


@dataclass
class Outcome:
    """What an import did: episodes added, already present (the same, or the file's copy behind
    the record's), continued from the file (resumed and ended elsewhere), and notes to show."""

    added: int = 0
    present: int = 0
    continued: int = 0
    notes: list[str] = field(default_factory=list)


# What an episode is: a copy that differs in any of these is another episode under the same id.
IDENTITY = ("task_id", "task_hash", "kind", "seed", "setting", "agent", "user", "started_at")
Copy = tuple[dict[str, Any], list[Event]]  # an episode's row and events, as the record stores them


@dataclass
class _Present:
    """Decides, for each episode the record already holds, what the file's copy is to it."""

    name: str
    lines: dict[str, int]
    outcome: Outcome

    def __call__(self, copy: Copy, held: Copy) -> tuple[dict[str, Any], int] | None:
        """None to leave the record's copy; (the row's new values, events held) to go on from
        the file's; ImportProblem when neither copy goes on from the other."""
        (row, events), (kept, kept_events) = copy, held
        if row == kept and events == kept_events:
            return None
        same = all(row[key] == kept[key] for key in IDENTITY)
        n, m = len(kept_events), len(events)
        ahead = m > n or row["status"] != "running"  # the file's copy has gone further
        if same and kept["status"] == "running" and events[:n] == kept_events and ahead:
            self.outcome.continued += 1
            return {key: value for key, value in row.items() if key not in IDENTITY and key != "id"}, n
        if same and row["status"] == "running" and kept_events[:m] == events and n > m:
            self.outcome.notes.append(
                f"{row['id']}: the record's copy goes further than the file's ({n} events to {m}); kept the record's"
            )
            return None
        raise ImportProblem(
            f"{self.name}:{self.lines[row['id']]}: episode {row['id']} is already in the record with other "
            f"contents ({_differences(copy, held)}), and neither copy goes on from the other: import the file "
            f"into another record (--db) to keep both; `sttui export {row['id']} -o FILE` writes the record's"
        )


def _differences(copy: Copy, held: Copy) -> str:
    """How the file's copy of an episode differs from the record's, in a few words."""
    (row, events), (kept, kept_events) = copy, held
    said = (
        [f"status {kept['status']} in the record, {row['status']} in the file"]
        if row["status"] != kept["status"]
        else []
    )
    said.append(f"{len(kept_events)} events in the record, {len(events)} in the file")
    first = next((a.seq for a, b in zip(kept_events, events, strict=False) if a != b), None)
    if first is not None:
        said.append(f"they differ from event {first}")
    changed = [key for key in row if key != "status" and row[key] != kept[key]]
    if changed:
        said.append(f"fields {', '.join(changed)} differ")
    return "; ".join(said)


def import_jsonl(store: Store, path: Path, trust: bool = False) -> Outcome:
    """Load a jsonl export. The file is checked whole first, then written in one transaction:
    all of it or none of it. An episode the record holds is left as it is when the file's copy
    is the same or behind it, continued when the file's copy goes on from it (resumed and
    finished elsewhere), and any other copy under its id refuses the file."""
    from sqlalchemy.exc import IntegrityError

    studies: list[dict[str, Any]] = []
    checked = hashlib.sha256()
    lines = {i.record.id: i.line for i in walk_export(path, trust, studies, checked)}  # every check, first
    outcome = Outcome()
    present = _Present(str(path), lines, outcome)
    ids = set(lines)

    def items() -> Iterator[tuple[Any, Any, list[Event]]]:
        """The file read again, an episode at a time, as it is written (in the transaction)."""
        again = hashlib.sha256()
        for i in walk_export(path, trust, [], again):
            yield i.record, i.task, i.events
        if again.digest() != checked.digest():  # (raised inside the transaction: nothing is kept)
            raise ImportProblem(f"{path}: the file changed while it was imported; nothing was imported")

    def manifests(conn: Any) -> None:  # a study bundle's, in the episodes' transaction
        from sttui.study.bundle import write_manifest

        for study in studies:
            write_manifest(conn, study, ids)

    try:
        added, outcome.present = store.import_episodes(items(), also=manifests if studies else None, present=present)
    except IntegrityError:  # another session wrote one of these episodes while they were checked
        raise ImportProblem(f"{path}: the record changed while the file was imported; try again") from None
    outcome.added = added - outcome.continued
    return outcome


def header() -> dict[str, Any]:
    """An export's first line: which export layout this is."""
    return {"record": "export", "format": EXPORT_FORMAT, "version": EXPORT_VERSION}


def trailer(episodes: int, events: int) -> dict[str, Any]:
    """An export's last line: how much it holds, so a file cut short is noticed."""
    return {"record": "end", "episodes": episodes, "events": events}
