"""Episodes as the agent seat saw them, one shape for every export layout: the system prompt, the
tools (OpenAI function schemas) and the view (messages, tool calls, tool results, notices).

stt episodes: the view rebuilt from the events. Explore episodes: the protocol a model plays
them by (``EXPLORE_TOOLS``): each turn the whole masked view as a user message, then the one
call made, then its result. The model was sent only the system prompt and that turn's view (it
holds the history), so a trainer may cut the conversation at any user turn. The explore engine
is sttui's own, so rebuilding the views runs no task code.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sttui.core.actions import Assess, Probe, SubmitBatch
from sttui.core.chat import EXPLORE_TOOLS
from sttui.core.events import Event
from sttui.core.explore.episode import ExploreEpisode
from sttui.core.replaying import actions_of, engine_events, stt_view
from sttui.prompts import prompt
from sttui.store.store import EpisodeRecord, Store


@dataclass
class Transcript:
    record: EpisodeRecord
    system: str
    tools: list[dict[str, Any]]
    view: list[dict[str, Any]]
    events: list[Event]
    meta: dict[str, Any] = field(default_factory=dict)  # the task version's level, conflict, domain


def stt_tools(
    store: Store, rec: EpisodeRecord, trust: bool, task_dirs: Sequence[Path] | None
) -> list[dict[str, Any]] | str:
    """The episode's tools as OpenAI function schemas, or why they are not known.

    Stored with the version as data; versions stored before that are opened under the trust rule."""
    version = store.task_version(rec.task_id, rec.task_hash)
    if version is None:
        return f"the record has no copy of task {rec.task_id} version {rec.task_hash[:12]}"
    if version.tools is not None:
        return version.tools
    from sttui.exports.versions import VersionProblem, open_stored

    try:
        loaded = open_stored(version, trust=trust, task_dirs=task_dirs).loaded
    except VersionProblem as exc:
        return str(exc)
    assert loaded.env_cls is not None
    return [spec.openai_schema() for spec in loaded.env_cls.tool_specs.values()]


def _call(action: Any) -> tuple[str, dict[str, Any]] | None:
    """An explore action as the tool call a model makes for it (None: no tool does it)."""
    if isinstance(action, Probe):
        return "probe", {"cases": action.cases}
    if isinstance(action, SubmitBatch):
        return "submit_batch", {"actions": action.actions}
    if isinstance(action, Assess):
        args: dict[str, Any] = {"relevant": action.relevant}
        if action.changes is not None:
            args["changes"] = action.changes
        return "answer_assessment", args
    return None  # ending the episode is a person's key, not a model's tool


def explore_view(store: Store, rec: EpisodeRecord, events: list[Event]) -> list[dict[str, Any]] | str:
    """The explore episode's turns as view items, rebuilt on the recorded task version."""
    from sttui.core.settings import RunSettings
    from sttui.exports.versions import VersionProblem, open_stored
    from sttui.running.runner import open_episode

    version = store.task_version(rec.task_id, rec.task_hash)
    if version is None:
        return f"the record has no copy of task {rec.task_id} version {rec.task_hash[:12]}"
    try:
        loaded = open_stored(version).loaded
    except VersionProblem as exc:
        return str(exc)
    started = next((e for e in events if e.type == "episode_started"), None)
    settings = RunSettings.from_dict(started.payload.get("settings") if started else None)
    episode = open_episode(loaded, rec.seed, {"agent": rec.agent, "user": "none"}, settings=settings)
    assert isinstance(episode, ExploreEpisode)  # an explore task's version opens an explore episode
    episode.start()
    view: list[dict[str, Any]] = []
    for n, (actor, action) in enumerate(actions_of("explore", events), start=1):
        shown = json.dumps(episode.agent_view(), ensure_ascii=False, default=str)
        result = episode.apply(action, actor)
        call = _call(action)
        if call is None:
            break
        view.append({"type": "message", "from": "user", "text": shown})
        view.append({"type": "tool_call", "id": f"call_{n}", "tool": call[0], "args": call[1]})
        view.append({"type": "tool_result", "id": f"call_{n}", "tool": call[0], "result": result})

    def hashes(evs: list[Event]) -> list[str]:
        return [e.payload["state_hash"] for e in engine_events("explore", evs) if "state_hash" in e.payload]

    if hashes(episode.events) != hashes(events):
        return "the recorded actions do not rebuild to the recorded states on this sttui"  # views would differ
    return view


def transcripts(
    store: Store,
    records: Iterable[EpisodeRecord],
    trust: bool = False,
    task_dirs: Sequence[Path] | None = None,
) -> tuple[list[Transcript], list[str]]:
    """(transcripts, notes): one per episode whose tools and view are known; the rest noted."""
    records = list(records)
    metas = store.task_metas([(r.task_id, r.task_hash) for r in records])
    out, notes = [], []
    for rec in records:
        events = store.events(rec.id)
        if rec.kind == "explore":
            tools: list[dict[str, Any]] | str = EXPLORE_TOOLS
            view = explore_view(store, rec, events)
            system = prompt("agent_explore.md")
        else:
            tools = stt_tools(store, rec, trust, task_dirs)
            view = stt_view(events) if not isinstance(tools, str) else []
            system = prompt("agent_stt.md")
        if isinstance(tools, str):
            notes.append(f"{rec.id}: left out, its tools are unknown: {tools}; --format jsonl exports its events")
            continue
        if isinstance(view, str):
            notes.append(f"{rec.id}: left out, its turns cannot be rebuilt: {view}; --format jsonl exports its events")
            continue
        out.append(Transcript(rec, system, tools, view, events, metas.get((rec.task_id, rec.task_hash)) or {}))
    return out, notes
