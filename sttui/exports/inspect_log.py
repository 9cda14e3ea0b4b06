"""``--format inspect``: an Inspect AI ``.eval`` log (``inspect view`` shows it), written through
``inspect_ai.log``'s own types and writer, so the file is whatever the installed Inspect reads.

One log for the export: each episode is a sample (id: the episode id) with the agent seat's
messages, its tools, three scores (``passed``, ``stage_score`` for stt; ``calibrated_accuracy``
for explore) and the model usage its model calls recorded. The log's model is the agent
controller when every episode had the same one, else ``sttui/mixed``.

inspect_ai is imported here only: ``pip install 'sttui[inspect]'``.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sttui.core.chat import openai_messages
from sttui.errors import MissingExtra
from sttui.exports.rows import episode_row, model_usage
from sttui.exports.transcripts import Transcript
from sttui.store.secrets import scrub, secret_values

SCORES = ("passed", "stage_score", "calibrated_accuracy")


def _inspect() -> Any:
    try:
        import inspect_ai.log as log
        import inspect_ai.model as model
        import inspect_ai.scorer as scorer
        import inspect_ai.tool as tool
    except ImportError:
        raise MissingExtra("--format inspect needs inspect_ai: pip install 'sttui[inspect]'") from None
    return log, model, scorer, tool


def _messages(t: Transcript, model: Any, tool: Any) -> list[Any]:
    out: list[Any] = []
    names: dict[str, str] = {}
    for m in openai_messages(t.view, t.system):
        role = m["role"]
        if role == "system":
            out.append(model.ChatMessageSystem(content=m["content"]))
        elif role == "user":
            out.append(model.ChatMessageUser(content=m["content"]))
        elif role == "assistant":
            calls = []
            for c in m.get("tool_calls") or []:
                names[c["id"]] = c["function"]["name"]
                args = json.loads(c["function"]["arguments"])
                calls.append(tool.ToolCall(id=c["id"], function=c["function"]["name"], arguments=args))
            out.append(model.ChatMessageAssistant(content=m.get("content") or "", tool_calls=calls or None))
        elif role == "tool":
            out.append(
                model.ChatMessageTool(
                    content=m["content"], tool_call_id=m["tool_call_id"], function=names.get(m["tool_call_id"])
                )
            )
    return out


def _usage(t: Transcript, model: Any) -> dict[str, Any]:
    return {
        name: model.ModelUsage(
            input_tokens=u["input"],
            output_tokens=u["output"],
            total_tokens=u["input"] + u["output"],
            total_cost=u["cost"],
        )
        for name, u in model_usage(t).items()
    }


def _sample(t: Transcript, log: Any, model: Any, scorer: Any, tool: Any) -> Any:
    row = episode_row(t)
    scores = {name: scorer.Score(value=float(row[name])) for name in SCORES if row[name] is not None}
    messages = _messages(t, model, tool)
    first_user = next((m.text for m in messages if m.role == "user"), "")
    last = next((m for m in reversed(messages) if m.role == "assistant"), None)
    output = model.ModelOutput.from_message(last) if last is not None else model.ModelOutput()
    ended = row["ended_at"] or row["started_at"]
    return log.EvalSample(
        id=t.record.id,
        epoch=1,
        input=first_user,
        target="",
        messages=messages,
        output=output,
        scores=scores,
        metadata={k: v for k, v in row.items() if k not in SCORES and v is not None},
        model_usage=_usage(t, model),
        started_at=datetime.fromtimestamp(row["started_at"], UTC).isoformat(),
        completed_at=datetime.fromtimestamp(ended, UTC).isoformat(),
        total_time=round(ended - row["started_at"], 3),
    )


def write_inspect_log(found: list[Transcript], output: Path) -> int:
    """Write one ``.eval`` log holding every episode as a sample; returns how many."""
    log, model, scorer, tool = _inspect()
    secrets = secret_values()
    samples = [_sample(t, log, model, scorer, tool) for t in found]
    agents = {t.record.agent for t in found}
    created = datetime.now(UTC).isoformat()
    totals: dict[str, Any] = {}
    for s in samples:
        for name, u in (s.model_usage or {}).items():
            totals[name] = totals[name] + u if name in totals else u
    results = log.EvalResults(
        total_samples=len(samples),
        completed_samples=sum(1 for t in found if t.record.status == "completed"),
        scores=[
            log.EvalScore(
                name=name,
                scorer=name,
                metrics={"mean": log.EvalMetric(name="mean", value=sum(vals) / len(vals))},
                scored_samples=len(vals),
            )
            for name in SCORES
            if (vals := [s.scores[name].value for s in samples if name in s.scores])
        ],
    )
    eval_log = log.EvalLog(
        status="success",
        eval=log.EvalSpec(
            created=created,
            task="sttui",
            dataset=log.EvalDataset(name="sttui", samples=len(samples), sample_ids=[s.id for s in samples]),
            model=agents.pop() if len(agents) == 1 else "sttui/mixed",
            config=log.EvalConfig(),
            metadata={"exported_by": "sttui export --format inspect"},
        ),
        results=results,
        stats=log.EvalStats(started_at=created, completed_at=created, model_usage=totals),
        samples=samples,
    )
    # the last door: the record is scrubbed already, and so is what leaves it here
    clean = log.EvalLog.model_validate(scrub(json.loads(eval_log.model_dump_json()), secrets))
    log.write_eval_log(clean, str(output), format="eval")
    return len(samples)
