"""Exports of recorded episodes: the full event log (jsonl, re-importable), and training
layouts: OpenAI chat fine-tuning (``openai``) and LLaMA-Factory ShareGPT (``sharegpt``).

The training layouts show the agent seat's view exactly as a model in that seat saw it:
the system prompt, the tools as OpenAI function schemas, the user's messages, the agent's
calls and their results, and notices of announced triggers; never silent triggers or state.

Exports never run a task's code: the tools are stored with each version as data. An import is
data too: its task versions are stored as ``imported`` (their code runs only when trusted, see
``sttui.versions``), never written anywhere, and every line is scrubbed of secrets on the way
in and on the way out.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import fields
from pathlib import Path
from typing import Any

from sttui.core.chat import openai_messages, sharegpt_conversation
from sttui.core.envload import content_hash
from sttui.core.events import Event
from sttui.core.replaying import stt_view
from sttui.prompts import prompt
from sttui.store.secrets import scrub_text, secret_values
from sttui.store.store import EpisodeRecord, Store, TaskVersion

FORMATS = ("jsonl", "openai", "sharegpt")


class ImportProblem(Exception):
    pass


def _dump(obj: Any, secrets: list[str] | None = None) -> str:
    """One line of an export, scrubbed of secrets (the record is already; this is the last door)."""
    return scrub_text(json.dumps(obj, sort_keys=True, ensure_ascii=False), secrets)


# -- jsonl: the full record -------------------------------------------------------------


def jsonl_lines(store: Store, records: Iterable[EpisodeRecord]) -> Iterator[str]:
    secrets = secret_values()
    for rec in records:
        version = store.task_version(rec.task_id, rec.task_hash)
        task = version.portable() if version else None
        yield _dump({"record": "episode", "episode": rec.as_dict(), "task": task}, secrets)
        for e in store.events(rec.id):
            yield _dump(
                {
                    "record": "event",
                    "episode_id": rec.id,
                    "seq": e.seq,
                    "type": e.type,
                    "actor": e.actor,
                    "sim_time": e.sim_time,
                    "wall_time": e.wall_time,
                    "payload": e.payload,
                },
                secrets,
            )


def import_jsonl(store: Store, path: Path, trust: bool = False) -> tuple[int, int]:
    """Load a jsonl export: (episodes imported, episodes already present). All-or-nothing per file.

    Task versions are stored as ``imported``, or as ``trusted`` when the user vouches for the
    file's code (``trust``); a version whose text does not match its hash is refused."""
    episodes: list[tuple[EpisodeRecord, TaskVersion | None, list[Event]]] = []
    name = str(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise ImportProblem(f"{name}: cannot read: {exc}") from None
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ImportProblem(
                f"{name}:{n}: not JSON ({exc.msg} at column {exc.colno}); is this an sttui jsonl export?"
            ) from None
        kind = obj.get("record") if isinstance(obj, dict) else None
        try:
            if kind == "episode":
                task = _task_version(obj["task"], trust, f"{name}:{n}") if obj.get("task") else None
                episodes.append((EpisodeRecord(**obj["episode"]), task, []))
            elif kind == "event":
                if not episodes or episodes[-1][0].id != obj["episode_id"]:
                    raise ImportProblem(f"{name}:{n}: event of episode {obj['episode_id']} outside its episode")
                episodes[-1][2].append(
                    Event(obj["seq"], obj["type"], obj["actor"], obj["payload"], obj["sim_time"], obj["wall_time"])
                )
            else:
                raise ImportProblem(f"{name}:{n}: expected a record of type 'episode' or 'event'")
        except (KeyError, TypeError) as exc:
            raise ImportProblem(f"{name}:{n}: malformed {kind} record ({type(exc).__name__}: {exc})") from None
    added = skipped = 0
    for record, task, events in episodes:
        if task is not None:
            store.save_task_version(task)
        if store.import_episode(record, events):
            added += 1
        else:
            skipped += 1
    return added, skipped


_PORTABLE = [f.name for f in fields(TaskVersion) if f.name != "origin"]


def _task_version(data: Any, trust: bool, where: str) -> TaskVersion:
    """A task version from an export, as data: checked against its hash, never trusted by its word."""
    if not isinstance(data, dict):
        raise ImportProblem(f"{where}: malformed task record (expected an object)")
    values = {k: data[k] for k in _PORTABLE if k in data}
    version = TaskVersion(**values, origin="trusted" if trust else "imported")  # type: ignore[arg-type]
    if not isinstance(version.source, str) or not isinstance(version.env_source, str | None):
        raise ImportProblem(f"{where}: malformed task record (source and env_source must be text)")
    if not isinstance(version.meta, dict) or not isinstance(version.tools, list | None):
        raise ImportProblem(f"{where}: malformed task record (meta must be an object, tools a list)")
    env_bytes = version.env_source.encode() if version.env_source is not None else None
    if not version.meta.get("redacted") and content_hash(version.source, env_bytes) != version.content_hash:
        raise ImportProblem(
            f"{where}: task {version.task_id}: its text does not match its hash {str(version.content_hash)[:12]}"
        )
    return version


# -- training layouts --------------------------------------------------------------------


def _tools(
    store: Store, rec: EpisodeRecord, trust: bool, task_dirs: Sequence[Path] | None
) -> list[dict[str, Any]] | str:
    """The episode's tools as OpenAI function schemas, or why they are not known.

    Stored with the version as data; versions stored before that are opened under the trust rule."""
    version = store.task_version(rec.task_id, rec.task_hash)
    if version is None:
        return f"the record has no copy of task {rec.task_id} version {rec.task_hash[:12]}"
    if version.tools is not None:
        return version.tools
    from sttui.versions import VersionProblem, open_stored

    try:
        loaded = open_stored(version, trust=trust, task_dirs=task_dirs).loaded
    except VersionProblem as exc:
        return str(exc)
    assert loaded.env_cls is not None
    return [spec.openai_schema() for spec in loaded.env_cls.tool_specs.values()]


def training_lines(
    store: Store,
    records: Iterable[EpisodeRecord],
    fmt: str,
    trust: bool = False,
    task_dirs: Sequence[Path] | None = None,
) -> tuple[list[str], list[str]]:
    """(lines, notes): one JSON object per stt episode; explore episodes, and episodes whose tools
    are unknown, are skipped with a note."""
    lines, notes = [], []
    system = prompt("agent_stt.md")
    for rec in records:
        if rec.kind != "stt":
            notes.append(f"{rec.id}: {rec.kind} episodes have no {fmt} layout yet; use --format jsonl")
            continue
        tools = _tools(store, rec, trust, task_dirs)
        if isinstance(tools, str):
            notes.append(f"{rec.id}: left out, its tools are unknown: {tools}; --format jsonl exports its events")
            continue
        view = stt_view(store.events(rec.id))
        if fmt == "openai":
            lines.append(
                _dump({"messages": openai_messages(view, system), "tools": tools, "parallel_tool_calls": False})
            )
        else:
            conv = sharegpt_conversation(view)
            if not conv:
                notes.append(f"{rec.id}: no agent turn to train on; skipped")
                continue
            lines.append(
                _dump(
                    {
                        "conversations": conv,
                        "system": system,
                        "tools": json.dumps([t["function"] for t in tools], ensure_ascii=False),
                    }
                )
            )
    return lines, notes
