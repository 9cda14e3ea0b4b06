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
from sttui.core.explore.episode import ExploreEpisode
from sttui.core.explore.metrics import metrics
from sttui.core.explore.task import ExploreTask
from sttui.core.loader import LoadedTask

AnyEpisode = Episode | ExploreEpisode


@dataclass
class EpisodeResult:
    """The outcome of one episode: a checklist outcome (stt) or the metrics (explore)."""

    task_id: str
    kind: str
    level: str
    conflict: str
    agent: str
    user: str | None
    outcome: Outcome | None
    metrics: dict[str, Any] | None
    steps: int
    end_reason: str
    episode: AnyEpisode = field(repr=False, compare=False)

    @property
    def triggers_fired(self) -> list[str]:
        """Ids of the triggers that fired (stt episodes)."""
        ep = self.episode
        return list(ep.triggers.fired) if isinstance(ep, Episode) else []

    @property
    def passed(self) -> bool | None:
        return self.outcome.passed if self.outcome is not None else None

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "task": self.task_id,
            "kind": self.kind,
            "agent": self.agent,
            "steps": self.steps,
            "end_reason": self.end_reason,
        }
        ep = self.episode
        if isinstance(ep, Episode):
            assert self.outcome is not None
            out.update(
                {
                    "level": self.level,
                    "conflict": self.conflict,
                    "user": self.user,
                    "passed": self.passed,
                    "judged_by": self.outcome.judged_by,
                    "checklist": [i.as_dict() for i in self.outcome.items],
                    "tool_calls": ep.tool_calls,
                    "sim_minutes": (ep.now - ep.task.clock.start).total_seconds() / 60,
                    "triggers_fired": self.triggers_fired,
                }
            )
        else:
            out.update(
                {"family": self.level, "setting": ep.task.setting, "metrics": self.metrics, "reveal": ep.reveal()}
            )
        return out


def open_episode(
    loaded: LoadedTask,
    seed: int | None,
    actors: dict[str, str],
    verify_queries: bool = False,
    keep_history: bool = False,
) -> AnyEpisode:
    if isinstance(loaded.task, ExploreTask):
        return ExploreEpisode(loaded.task, seed, actors)
    assert loaded.env_cls is not None
    return Episode(loaded.task, loaded.env_cls, seed, actors, verify_queries=verify_queries, keep_history=keep_history)


async def run_episode(
    loaded: LoadedTask,
    agent: Controller,
    user: Controller | None = None,
    *,
    seed: int | None = None,
    judge: Judge | None = None,
    on_event: Callable[[Event], None] | None = None,
    verify_queries: bool = False,
) -> EpisodeResult:
    """Play one episode to its end and score it."""
    actors = {"agent": agent.name, "user": user.name if user else "none"}
    episode = open_episode(loaded, seed, actors, verify_queries)
    if on_event is not None:
        episode.listeners.append(on_event)
    episode.start()
    return await drive(episode, agent, user, judge)


async def drive(
    episode: AnyEpisode, agent: Controller, user: Controller | None = None, judge: Judge | None = None
) -> EpisodeResult:
    """Ask the seat whose turn it is for an action until the episode ends, then score it."""
    while episode.ended is None:
        if isinstance(episode, ExploreEpisode):
            episode.apply(await agent.act(episode.agent_view()), agent.name)
        elif episode.turn == "agent":
            episode.apply(await agent.act(agent_view(episode)), agent.name)
        else:
            if user is None:
                raise ValueError("an stt episode needs a controller in the user seat")
            episode.apply(await user.act(user_view(episode)), user.name)
    return result_of(episode, judge)


def result_of(episode: AnyEpisode, judge: Judge | None = None) -> EpisodeResult:
    assert episode.ended is not None
    task = episode.task
    if isinstance(episode, ExploreEpisode):
        return EpisodeResult(
            task.id,
            "explore",
            task.rule.family,
            task.rule.family,
            episode.actors["agent"],
            None,
            None,
            metrics(episode),
            episode.steps,
            episode.ended["reason"],
            episode,
        )
    return EpisodeResult(
        task.id,
        "stt",
        task.level,
        task.conflict,
        episode.actors["agent"],
        episode.actors["user"],
        score(episode, judge),
        None,
        episode.steps,
        episode.ended["reason"],
        episode,
    )
