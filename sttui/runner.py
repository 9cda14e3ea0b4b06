"""The episode loop: whose turn it is, which controller holds that seat, stop rules,
and the event stream. Humans, models and baselines all act through here."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sttui.controllers.base import Controller, agent_view, user_view
from sttui.core.checklist import Judge, Outcome, score
from sttui.core.episode import Episode
from sttui.core.events import Event
from sttui.core.loader import LoadedTask


@dataclass
class EpisodeResult:
    task_id: str
    level: str
    conflict: str
    agent: str
    user: str
    outcome: Outcome
    steps: int
    tool_calls: int
    sim_minutes: float
    end_reason: str
    triggers_fired: list[str]
    episode: Episode = field(repr=False, compare=False)

    @property
    def passed(self) -> bool:
        return self.outcome.passed

    def as_dict(self) -> dict[str, Any]:
        return {
            "task": self.task_id,
            "level": self.level,
            "conflict": self.conflict,
            "agent": self.agent,
            "user": self.user,
            "passed": self.passed,
            "judged_by": self.outcome.judged_by,
            "checklist": [i.as_dict() for i in self.outcome.items],
            "steps": self.steps,
            "tool_calls": self.tool_calls,
            "sim_minutes": self.sim_minutes,
            "end_reason": self.end_reason,
            "triggers_fired": self.triggers_fired,
        }


async def run_episode(
    loaded: LoadedTask,
    agent: Controller,
    user: Controller,
    *,
    seed: int | None = None,
    judge: Judge | None = None,
    on_event: Callable[[Event], None] | None = None,
) -> EpisodeResult:
    """Play one episode to its end and score it."""
    episode = Episode(loaded.task, loaded.env_cls, seed, actors={"agent": agent.name, "user": user.name})
    if on_event is not None:
        episode.listeners.append(on_event)
    episode.start()
    while episode.ended is None:
        if episode.turn == "agent":
            action = await agent.act(agent_view(episode))
            episode.apply(action, agent.name)
        else:
            action = await user.act(user_view(episode))
            episode.apply(action, user.name)
    return result_of(episode, judge)


def result_of(episode: Episode, judge: Judge | None = None) -> EpisodeResult:
    task = episode.task
    outcome = score(episode, judge)
    assert episode.ended is not None
    return EpisodeResult(
        task.id,
        task.level,
        task.conflict,
        episode.actors["agent"],
        episode.actors["user"],
        outcome,
        episode.steps,
        episode.tool_calls,
        (episode.now - task.clock.start).total_seconds() / 60,
        episode.ended["reason"],
        list(episode.triggers.fired),
        episode,
    )
