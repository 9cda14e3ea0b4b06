"""The agent seat's view as chat transcripts: OpenAI messages and LLaMA-Factory ShareGPT turns.

One conversion serves the model controller and the exports, so a training example shows
exactly what a model in the seat was shown.
"""

from __future__ import annotations

import json
from typing import Any


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
