"""Exports of recorded episodes: the full event log (jsonl, re-importable), and training
layouts: OpenAI chat fine-tuning (``openai``) and LLaMA-Factory ShareGPT (``sharegpt``).

The training layouts show the agent seat's view exactly as a model in that seat saw it:
the system prompt, the tools as OpenAI function schemas, the user's messages, the agent's
calls and their results, and notices of announced triggers; never silent triggers or state.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import asdict
from pathlib import Path
from typing import Any

from sttui.core.chat import openai_messages, sharegpt_conversation
from sttui.core.events import Event
from sttui.core.replaying import stt_view
from sttui.prompts import prompt
from sttui.recording import materialise
from sttui.store.store import EpisodeRecord, Store, TaskVersion

FORMATS = ("jsonl", "openai", "sharegpt")


class ImportProblem(Exception):
    pass


def _dump(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, ensure_ascii=False)


# -- jsonl: the full record -------------------------------------------------------------


def jsonl_lines(store: Store, records: Iterable[EpisodeRecord]) -> Iterator[str]:
    for rec in records:
        version = store.task_version(rec.task_id, rec.task_hash)
        yield _dump({"record": "episode", "episode": rec.as_dict(), "task": asdict(version) if version else None})
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
                }
            )


def import_jsonl(store: Store, path: Path) -> tuple[int, int]:
    """Load a jsonl export: (episodes imported, episodes already present). All-or-nothing per file."""
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
                task = TaskVersion(**obj["task"]) if obj.get("task") else None
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


# -- training layouts --------------------------------------------------------------------


def _tools(store: Store, rec: EpisodeRecord) -> list[dict[str, Any]]:
    version = store.task_version(rec.task_id, rec.task_hash)
    assert version is not None
    loaded = materialise(version, Path(tempfile.mkdtemp(prefix="sttui-export-")))
    assert loaded.env_cls is not None
    return [spec.openai_schema() for spec in loaded.env_cls.tool_specs.values()]


def training_lines(store: Store, records: Iterable[EpisodeRecord], fmt: str) -> tuple[list[str], list[str]]:
    """(lines, notes): one JSON object per stt episode; explore episodes are skipped with a note."""
    lines, notes = [], []
    system = prompt("agent_stt.md")
    for rec in records:
        if rec.kind != "stt":
            notes.append(f"{rec.id}: {rec.kind} episodes have no {fmt} layout yet; use --format jsonl")
            continue
        view = stt_view(store.events(rec.id))
        tools = _tools(store, rec)
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
