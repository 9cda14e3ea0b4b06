"""The episode loop: whose turn it is, which controller holds that seat, stop rules,
and the event stream. Humans, models and baselines all act through here."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from sttui.controllers.base import Attributed, Controller, agent_view, user_view
from sttui.core.checklist import Judge, Outcome, score
from sttui.core.episode import Episode
from sttui.core.events import Event
from sttui.core.explore.episode import ExploreEpisode
from sttui.core.explore.metrics import metrics
from sttui.core.explore.task import ExploreTask
from sttui.core.loader import LoadedTask
from sttui.core.review.derive import review_for
from sttui.core.settings import DEFAULT, RunSettings
from sttui.running.plan import NO_REVIEW_OPTIONS, ReviewPlan

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
    def review(self) -> dict[str, Any] | None:
        """The milestone review's summary (stt episodes with a milestone graph)."""
        ep = self.episode
        if isinstance(ep, Episode) and ep.review is not None:
            return ep.review.summary(ep.steps, ep.task.max_steps)
        return None

    @property
    def user_verdict(self) -> dict[str, Any] | None:
        """What the user seat concluded (``core.verdicts``); None without one (explore episodes,
        a person in the user seat whose episode the agent ended)."""
        ep = self.episode
        return ep.user_verdict if isinstance(ep, Episode) else None

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
                    "review": self.review,
                    "user_verdict": self.user_verdict,
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
    *,
    verify_queries: bool = False,
    keep_history: bool = False,
    review: ReviewPlan = NO_REVIEW_OPTIONS,
    settings: RunSettings = DEFAULT,
    external_scores: bool = False,
) -> AnyEpisode:
    """A fresh episode; stt episodes carry their milestone review (``review``: whether its stop
    signals end the run, the stagnation window, the low-quality stop), except under the static
    setting, whose episodes are not stage-reviewed.
    ``settings``: the papers' ablations (static, no user, an explore setting)."""
    if isinstance(loaded.task, ExploreTask):
        return ExploreEpisode(loaded.task, seed, actors, settings)
    assert loaded.env_cls is not None
    return Episode(
        loaded.task,
        loaded.env_cls,
        seed,
        actors,
        verify_queries=verify_queries,
        keep_history=keep_history,
        # no stage review under the static setting: the milestone graphs follow the recovery
        # from the triggers, which never fire there (the right static play settles none)
        review=None
        if settings.static
        else review_for(loaded, review.early_stop, review.stagnation, review.low_quality, external_scores),
        settings=settings,
    )


async def run_episode(
    loaded: LoadedTask,
    agent: Controller,
    user: Controller | None = None,
    *,
    seed: int | None = None,
    judge: Judge | None = None,
    on_event: Callable[[Event], object] | None = None,
    verify_queries: bool = False,
    review: ReviewPlan = NO_REVIEW_OPTIONS,
    settings: RunSettings = DEFAULT,
    stage_judge: Any = None,
) -> EpisodeResult:
    """Play one episode to its end and score it. ``stage_judge`` (a model stage judge) judges
    each stage as it closes, before the next action is asked for."""
    actors = {"agent": agent.name, "user": user.name if user else "none"}
    episode = open_episode(
        loaded,
        seed,
        actors,
        verify_queries=verify_queries,
        review=review,
        settings=settings,
        external_scores=stage_judge is not None,
    )
    if on_event is not None:
        episode.listeners.append(on_event)
    episode.start()
    return await drive(episode, Seats(agent, user), judge, stage_judge=stage_judge)


class SeatHolders(Protocol):
    """What ``drive`` asks: the holder of a seat, and its holder's next action (None when the
    seat changed hands during the turn). :class:`Seats`, or a bridge's own."""

    def __getitem__(self, seat: str) -> Any: ...

    async def ask(self, seat: str, view: Any) -> tuple[Any, Any] | None: ...


class Seats:
    """Who holds each seat. A seat can change hands at any step, even during a turn: the turn
    in progress is abandoned (nothing was applied) and the new holder takes it."""

    def __init__(
        self,
        agent: Controller,
        user: Controller | None = None,
        on_change: Callable[[str, str, str], None] | None = None,
    ):
        self.holders: dict[str, Controller | None] = {"agent": agent, "user": user}
        self.on_change = on_change
        self._turn: tuple[str, asyncio.Task[Any]] | None = None
        self._switched = False

    def __getitem__(self, seat: str) -> Controller | None:
        return self.holders[seat]

    def hand(self, seat: str, controller: Controller) -> None:
        before = self.holders[seat]
        if before is controller:
            return
        self.holders[seat] = controller
        if self.on_change is not None:
            self.on_change(seat, before.name if before else "none", controller.name)
        if self._turn is not None and self._turn[0] == seat and not self._turn[1].done():
            self._switched = True
            self._turn[1].cancel()

    def interrupt(self) -> None:
        """Abandon the turn in progress (nothing was applied): the episode ended meanwhile, e.g.
        a study's time limit ran out while the person was thinking."""
        if self._turn is not None and not self._turn[1].done():
            self._switched = True
            self._turn[1].cancel()

    async def ask(self, seat: str, view: Any) -> tuple[Controller, Any] | None:
        """The holder's action, or None when the seat changed hands during the turn."""
        holder = self.holders[seat]
        if holder is None:
            raise ValueError(f"nobody holds the {seat} seat")
        task = asyncio.ensure_future(holder.act(view))
        self._turn = (seat, task)
        try:
            return holder, await task
        except asyncio.CancelledError:
            if self._switched and task.cancelled():
                self._switched = False
                return None
            task.cancel()
            raise
        finally:
            self._turn = None


FailureHandler = Callable[[str, Exception], Awaitable[None]]


async def drive(
    episode: AnyEpisode,
    seats: SeatHolders,
    judge: Judge | None = None,
    on_failure: FailureHandler | None = None,
    checkpoint: Callable[[], Awaitable[None]] | None = None,
    stage_judge: Any = None,
) -> EpisodeResult:
    """Ask the seat whose turn it is for an action until the episode ends, then score it.

    ``on_failure`` may hand the seat to someone else when its holder fails (a model whose
    retries ran out); without it the failure ends the run. ``checkpoint`` is awaited before
    every ask: the record's promise that what happened so far is on disk before anyone acts.
    """
    while episode.ended is None:
        if stage_judge is not None:
            await stage_judge.catch_up(episode)  # may end the run (low quality under early stop)
            if episode.ended is not None:
                break
        if checkpoint is not None:
            await checkpoint()
        seat = "agent" if isinstance(episode, ExploreEpisode) else episode.turn
        if isinstance(episode, ExploreEpisode):
            view: Any = episode.agent_view()
        else:
            view = agent_view(episode) if seat == "agent" else user_view(episode, reads_record(seats["user"]))
        try:
            asked = await seats.ask(seat, view)
        except Exception as exc:
            if on_failure is None:
                raise
            await on_failure(seat, exc)
            continue
        if asked is not None:
            holder, action = asked
            actor = holder.name
            if isinstance(action, Attributed):  # e.g. a person's edit of a model's proposal
                actor = action.actor
                action = action.action
            if isinstance(episode, Episode):
                episode.apply(action, actor, result=False)  # (the seats read results from their views)
            else:
                episode.apply(action, actor)
    closing_verdict(episode, seats["user"] if isinstance(episode, Episode) else None)
    if stage_judge is not None:
        await stage_judge.catch_up(episode)  # the stages the last action closed
    return await judged(episode, judge)


def reads_record(user: Controller | None) -> bool:
    """Whether the user seat's holder is given what the record would say (the scripted user)."""
    return bool(getattr(user, "reads_record", False))


def closing_verdict(episode: AnyEpisode, user: Controller | None) -> None:
    """An episode the user seat did not end gets that seat's verdict when its controller can
    give one (``closing_verdict(view)``: the scripted user can; a person or a model user was
    not asked, and is recorded without one)."""
    give = getattr(user, "closing_verdict", None)
    if not isinstance(episode, Episode) or episode.ended is None or episode.user_verdict is not None or give is None:
        return
    episode.give_user_verdict(give(user_view(episode)))


async def judged(episode: AnyEpisode, judge: Judge | None) -> EpisodeResult:
    if (
        judge is not None
        and hasattr(judge, "ajudge")
        and isinstance(episode, Episode)
        and episode.task.level == "impossible"
    ):
        items = await judge.ajudge(episode)
        return result_of(episode, _Fixed(judge.name, items))
    return result_of(episode, judge)


class _Fixed:
    """A verdict already reached (by an asynchronous judge), handed to the scorer."""

    def __init__(self, name: str, items: list[Any]):
        self.name, self.items = name, items

    def judge(self, episode: Any) -> list[Any]:
        return self.items


def result_of(episode: AnyEpisode, judge: Judge | None = None) -> EpisodeResult:
    assert episode.ended is not None
    if isinstance(episode, ExploreEpisode):
        task = episode.task
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
    stt = episode.task
    return EpisodeResult(
        stt.id,
        "stt",
        stt.level,
        stt.conflict,
        episode.actors["agent"],
        episode.actors["user"],
        score(episode, judge),
        None,
        episode.steps,
        episode.ended["reason"],
        episode,
    )
