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
from pathlib import Path
from typing import Any

from sttui.core.chat import openai_messages, sharegpt_conversation
from sttui.core.replaying import stt_view
from sttui.prompts import prompt
from sttui.store.secrets import scrub_text, secret_values
from sttui.store.store import EpisodeRecord, Store

FORMATS = ("jsonl", "openai", "sharegpt")


def _dump(obj: Any, secrets: list[str] | None = None) -> str:
    """One line of an export, scrubbed of secrets (the record is already; this is the last door)."""
    return scrub_text(json.dumps(obj, sort_keys=True, ensure_ascii=False), secrets)


# -- jsonl: the full record -------------------------------------------------------------


def jsonl_lines(store: Store, records: Iterable[EpisodeRecord]) -> Iterator[str]:
    """The full record: a header, each episode with its task version and its events, and a
    trailer with the counts, so an import notices a file cut short."""
    from sttui.importing import header, trailer

    secrets = secret_values()
    episodes = events = 0
    yield _dump(header(), secrets)
    for rec in records:
        version = store.task_version(rec.task_id, rec.task_hash)
        task = version.portable() if version else None
        yield _dump({"record": "episode", "episode": rec.as_dict(), "task": task}, secrets)
        episodes += 1
        for e in store.events(rec.id):
            events += 1
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
    yield _dump(trailer(episodes, events), secrets)


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
