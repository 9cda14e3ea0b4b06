"""Asking a model for candidate milestone graphs, from what an agent would know and nothing more.

The prompt carries the query, the user's goal and profile, the tools' schemas and the initial
state: never the solution, the naive plan, the checklist, the triggers, the withheld details,
the author's description or the task's own milestones (DynSTEER builds graphs without
reference leakage). Calls go through the model controller's client: its lazy litellm import,
retries with backoff, and one-line errors.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from typing import Any

from sttui.controllers.model import ModelClient, ModelConfig
from sttui.prompts import prompt

PROMPT_VERSION = "milestones-draft/1"


def agent_inputs(task: Any, env_cls: Any) -> str:
    """The task as an agent meets it, as text for the prompt."""
    tools = [{**spec.openai_schema()["function"], "kind": spec.kind} for spec in env_cls.tool_specs.values()]
    parts = {
        "request": task.query.strip(),
        "user goal": task.user.goal,
        "user profile": task.user.profile,
        "clock start": task.clock.start.isoformat(),
        "tools": tools,
        "initial state": task.initial_state,
    }
    return "\n\n".join(f"## {k}\n{v if isinstance(v, str) else json.dumps(v, default=str)}" for k, v in parts.items())


def draft_prompt(task: Any, env_cls: Any) -> str:
    return prompt("milestones_draft.md").replace("{inputs}", agent_inputs(task, env_cls))


async def ask_candidates(config: ModelConfig, text: str, count: int, seed: int) -> list[dict[str, Any]]:
    """``count`` answers, one call each with sampling seed ``seed + i``, asked at once:
    [{seed, raw, usage: {prompt_tokens, completion_tokens, cost, retries}}], in seed order."""

    async def one(i: int) -> dict[str, Any]:
        client = ModelClient(replace(config, seed=seed + i))
        message = await client.complete([{"role": "user", "content": text}], None)
        u = client.usage
        usage = {"prompt_tokens": u.prompt_tokens, "completion_tokens": u.completion_tokens, "cost": u.cost}
        return {"seed": seed + i, "raw": message.get("content") or "", "usage": usage | {"retries": u.retries}}

    return list(await asyncio.gather(*(one(i) for i in range(count))))
