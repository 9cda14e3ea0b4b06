"""``--format hf``: a Parquet file, one row per episode, for Hugging Face ``datasets`` (and
pandas, polars, DuckDB). Written by pyarrow under an explicit schema, so every row has the same
column types whatever its task: the messages as OpenAI chat messages (tool arguments and results
as JSON text, as OpenAI writes them) and the tools as one JSON string (JSON Schemas differ from
tool to tool, and a string round-trips them exactly, where Arrow structs would add every other
tool's parameters to each as nulls).

pyarrow is imported here only: ``pip install 'sttui[hf]'``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from sttui.core.chat import openai_messages
from sttui.errors import MissingExtra
from sttui.exports.rows import episode_row, provenance
from sttui.exports.schemas import arrow_safe_tools
from sttui.exports.transcripts import Transcript
from sttui.store.secrets import scrub, secret_values


def _pyarrow() -> Any:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise MissingExtra("--format hf needs pyarrow: pip install 'sttui[hf]'") from None
    return pa, pq


def schema(pa: Any) -> Any:
    call = pa.struct(
        [
            ("id", pa.string()),
            ("type", pa.string()),
            ("function", pa.struct([("name", pa.string()), ("arguments", pa.string())])),
        ]
    )
    message = pa.struct(
        [
            ("role", pa.string()),
            ("content", pa.string()),
            ("tool_calls", pa.list_(call)),
            ("tool_call_id", pa.string()),
        ]
    )
    return pa.schema(
        [
            ("episode_id", pa.string()),
            ("task_id", pa.string()),
            ("task_hash", pa.string()),
            ("kind", pa.string()),
            ("domain", pa.string()),
            ("level", pa.string()),
            ("subtype", pa.string()),
            ("agent", pa.string()),
            ("user", pa.string()),
            ("agent_holders", pa.list_(pa.string())),
            ("user_holders", pa.list_(pa.string())),
            ("status", pa.string()),
            ("passed", pa.bool_()),
            ("stage_score", pa.float64()),
            ("calibrated_accuracy", pa.float64()),
            ("seed", pa.int64()),
            ("setting", pa.string()),
            ("steps", pa.int64()),
            ("started_at", pa.float64()),
            ("ended_at", pa.float64()),
            ("messages", pa.list_(message)),
            ("tools", pa.string()),
            ("metadata", pa.string()),
        ]
    )


def hf_row(t: Transcript) -> dict[str, Any]:
    messages = [
        {
            "role": m["role"],
            "content": m.get("content"),
            "tool_calls": m.get("tool_calls"),
            "tool_call_id": m.get("tool_call_id"),
        }
        for m in openai_messages(t.view, t.system)
    ]
    tools = json.dumps(arrow_safe_tools(t.tools), ensure_ascii=False, sort_keys=True)
    found = provenance(t.record.scores)
    metadata = json.dumps(found, ensure_ascii=False, sort_keys=True) if found is not None else None
    return {**episode_row(t), "messages": messages, "tools": tools, "metadata": metadata}


def write_parquet(found: list[Transcript], output: Path) -> int:
    """Write the rows (scrubbed of secrets) to ``output``; returns how many."""
    pa, pq = _pyarrow()
    secrets = secret_values()
    rows = [scrub(hf_row(t), secrets) for t in found]
    table = pa.Table.from_pylist(rows, schema=schema(pa))
    pq.write_table(table, output)
    return len(rows)
