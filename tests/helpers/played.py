"""An episode played from a task file's plan, then reports sent as the agent's messages: how
the report and judge tests put a message at a task's end."""

from __future__ import annotations

from pathlib import Path

from sttui.core.actions import Reply, Say, ToolCall
from sttui.core.episode import Episode
from sttui.core.loader import load_task


def played(path: Path, plan: str = "solution", reports: tuple[str, ...] = (), skip: str = "") -> Episode:
    """The plan's tool calls (but ``skip``'s), then ``reports`` as the agent's messages (the user
    answering)."""
    loaded = load_task(path)
    ep = Episode(loaded.task, loaded.env_cls)
    ep.start()
    for step in getattr(loaded.task, plan):
        if step.tool is not None and step.tool != skip:
            ep.apply(ToolCall(step.tool, dict(step.args)))
    for text in reports:
        if ep.turn == "user":
            ep.apply(Reply("ok"))
        ep.apply(Say(text))
    return ep
