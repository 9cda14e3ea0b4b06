"""Training layouts: OpenAI chat fine-tuning (``openai``) and LLaMA-Factory ShareGPT
(``sharegpt``), for stt and explore episodes alike (see ``sttui.exports.transcripts``).

They show the agent seat's view exactly as a model in that seat saw it: the system prompt, the
tools as OpenAI function schemas, the user's messages, the agent's calls and their results, and
notices of announced triggers; never silent triggers or state. The tools are written Arrow-safe
(``sttui.exports.schemas``), so Hugging Face ``datasets`` loads a file mixing any tasks.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from sttui.core.chat import openai_messages, sharegpt_conversation
from sttui.exports.jsonl import dump
from sttui.exports.rows import provenance
from sttui.exports.schemas import arrow_safe_tools
from sttui.exports.transcripts import Transcript, transcripts
from sttui.store.store import EpisodeRecord, Store


def openai_example(t: Transcript) -> dict[str, Any]:
    return _with_provenance(
        t,
        {
            "messages": openai_messages(t.view, t.system),
            "tools": arrow_safe_tools(t.tools),
            "parallel_tool_calls": False,
        },
    )


def _with_provenance(t: Transcript, example: dict[str, Any]) -> dict[str, Any]:
    """A refined episode's example carries where it came from (``metadata``); others are as before."""
    found = provenance(t.record.scores)
    if found is not None:
        example["metadata"] = {"episode_id": t.record.id, "task_id": t.record.task_id, **found}
    return example


def sharegpt_example(t: Transcript) -> dict[str, Any] | None:
    """None when no agent turn is left to train on. Explore turns leave out the tool results:
    the next view holds them, and a result then a view would be two turns in a row."""
    view = t.view if t.record.kind != "explore" else [i for i in t.view if i["type"] != "tool_result"]
    conv = sharegpt_conversation(view)
    if not conv:
        return None
    tools = [tool["function"] for tool in arrow_safe_tools(t.tools)]
    return _with_provenance(
        t, {"conversations": conv, "system": t.system, "tools": json.dumps(tools, ensure_ascii=False)}
    )


def training_lines(
    store: Store,
    records: Iterable[EpisodeRecord],
    fmt: str,
    trust: bool = False,
    task_dirs: Sequence[Path] | None = None,
) -> tuple[list[str], list[str]]:
    """(lines, notes): one JSON object per episode; episodes whose tools are unknown are skipped
    with a note."""
    found, notes = transcripts(store, records, trust, task_dirs)
    lines = []
    for t in found:
        example = openai_example(t) if fmt == "openai" else sharegpt_example(t)
        if example is None:
            notes.append(f"{t.record.id}: no agent turn to train on; skipped")
            continue
        lines.append(dump(example))
    return lines, notes
