"""The agent seat's view as chat transcripts: OpenAI messages and LLaMA-Factory ShareGPT turns.

One conversion serves the model controller and the exports, so a training example shows
exactly what a model in the seat was shown.
"""

from __future__ import annotations

import json
from typing import Any

# The explore protocol's tools, as a model in the agent seat is given them (and the exports show).
EXPLORE_TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "probe",
            "description": "Probe self-designed cases: reveals all four actions' utilities; earns nothing.",
            "parameters": {
                "type": "object",
                "required": ["cases"],
                "additionalProperties": False,
                "properties": {
                    "cases": {
                        "type": "array",
                        "items": {"type": "object"},
                        "description": "Cases as {field: value}, every field, within its range.",
                    }
                },
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "submit_batch",
            "description": "One action per case of the current batch, in order.",
            "parameters": {
                "type": "object",
                "required": ["actions"],
                "additionalProperties": False,
                "properties": {
                    "actions": {
                        "type": "array",
                        "items": {"type": ["string", "integer"]},
                        "description": "Action ids, or 1-4 from lowest to highest intervention.",
                    }
                },
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "answer_assessment",
            "description": "Answer the assessment question being asked.",
            "parameters": {
                "type": "object",
                "required": ["relevant"],
                "additionalProperties": False,
                "properties": {
                    "relevant": {"type": "object", "description": "field -> increasing | decreasing"},
                    "changes": {
                        "type": "array",
                        "items": {"type": "object"},
                        "description": "At the end: [{removed: f}, {added: f}, {reversed: f}]",
                    },
                },
            },
        },
    },
]


def openai_messages(view: list[dict[str, Any]], system: str) -> list[dict[str, Any]]:
    """The agent seat's view as OpenAI chat messages, as a model in the seat receives them."""
    out: list[dict[str, Any]] = [{"role": "system", "content": system}]
    for item in view:
        kind = item["type"]
        if kind == "message":
            out.append({"role": "user" if item["from"] == "user" else "assistant", "content": item["text"]})
        elif kind == "tool_call":
            out.append(
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": item["id"],
                            "type": "function",
                            "function": {
                                "name": item["tool"],
                                "arguments": json.dumps(item["args"], ensure_ascii=False),
                            },
                        }
                    ],
                }
            )
        elif kind == "tool_result":
            out.append(
                {"role": "tool", "tool_call_id": item["id"], "content": json.dumps(item["result"], ensure_ascii=False)}
            )
        elif kind == "notice":
            out.append({"role": "user", "content": f"[Notice] {item['text']}"})
    return out


def sharegpt_conversation(view: list[dict[str, Any]]) -> list[dict[str, str]]:
    """LLaMA-Factory ShareGPT turns: human/observation at odd places, gpt/function_call at even.

    Notices join the observation (or human turn) they follow. Trailing human or observation
    turns, which no assistant turn answers, are dropped so the conversation ends on the agent.
    """
    turns: list[dict[str, str]] = []
    for item in view:
        kind = item["type"]
        if kind == "message":
            turns.append({"from": "human" if item["from"] == "user" else "gpt", "value": item["text"]})
        elif kind == "tool_call":
            turns.append(
                {
                    "from": "function_call",
                    "value": json.dumps({"name": item["tool"], "arguments": item["args"]}, ensure_ascii=False),
                }
            )
        elif kind == "tool_result":
            turns.append({"from": "observation", "value": json.dumps(item["result"], ensure_ascii=False)})
        elif kind == "notice" and turns and turns[-1]["from"] in ("observation", "human"):
            turns[-1]["value"] += f"\n[Notice] {item['text']}"
    while turns and turns[-1]["from"] in ("human", "observation"):
        turns.pop()
    return turns
