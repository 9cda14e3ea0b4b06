"""Recording episodes into the store, and rebuilding them from the record (resume, replay).

Engine events keep their order but take the record's numbering, so meta events (seat
changes, clocks, notes) can sit between them. Rebuilding replays the recorded actions on a
fresh episode built from the exact task version the record names, and checks that the
replayed engine events match the recorded ones, state hashes included.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sttui.controllers.base import Controller
from sttui.core import verdicts
from sttui.core.checklist import Judge
from sttui.core.control import control_summary
from sttui.core.episode import Episode
from sttui.core.events import Event
from sttui.core.loader import LoadedTask
from sttui.core.replaying import actions_of, engine_events
from sttui.core.settings import RunSettings
from sttui.running.plan import NO_REVIEW_OPTIONS, ReviewPlan
from sttui.running.runner import AnyEpisode, EpisodeResult, Seats, drive, open_episode, run_episode
from sttui.store.secrets import scrub
from sttui.store.store import EpisodeRecord, Store
from sttui.store.writer import Committer, WriteFailed, Writer

__all__ = [
    "Recorder",
    "WriteFailed",
    "Writer",
    "finish",
    "finish_items",
    "open_as_recorded",
    "rebuild",
    "resume",
    "run_recorded",
]


class Recorder:
    """An episode listener that numbers each event as the record's and commits it: at once, or
    through a writer (a ``Writer`` thread, which commits within milliseconds, where a UI must
    not wait on the disk; a ``LoopWriter`` in a headless run), whose commits group many events.
    ``durable()`` returns once every event so far is committed: the runner awaits it before
    asking for the next action."""

    def __init__(self, store: Store, episode_id: str, next_seq: int = 1, writer: Committer | None = None):
        self.store = store
        self.episode_id = episode_id
        self.seq = next_seq
        self.writer = writer
        self.ticket = 0

    def __call__(self, event: Event) -> Event:
        numbered = Event(self.seq, event.type, event.actor, event.payload, event.sim_time, event.wall_time)
        self.seq += 1
        if self.writer is not None:
            self.ticket = self.writer.submit_event(self.episode_id, numbered)
        else:
            self.store.append_event(self.episode_id, numbered)
        return numbered

    def submit(self, job: Callable[[], Any]) -> None:
        """A write about this episode (its row, its end), in order with its events."""
        if self.writer is not None:
            self.ticket = self.writer.submit(job, self.episode_id)
        else:
            job()

    def submit_write(self, items: Callable[[], list[tuple[Any, ...]]]) -> None:
        """Writes about this episode for ``Store.write`` (its row, its end), in order with its
        events, and committed in the same transaction as the events waiting with them."""
        if self.writer is not None:
            self.ticket = self.writer.submit_write(items, self.episode_id)
        else:
            self.store.write(items())

    async def durable(self) -> None:
        """Everything recorded so far is committed (or WriteFailed says why it never will be)."""
        if self.writer is not None and self.ticket:
            await self.writer.durable(self.ticket, self.episode_id)

    def meta(self, kind: str, actor: str, payload: dict[str, Any], sim_time: str = "") -> None:
        """Record an event that is not the engine's: a seat change, a clock, a peek."""
        self(Event(0, kind, actor, payload, sim_time, time.time()))


def finish(
    store: Store,
    episode_id: str,
    result: EpisodeResult,
    human_seconds: float | None = None,
    control: dict[str, Any] | None = None,
    extra: dict[str, Any] | None = None,
) -> None:
    """Mark the episode completed with its outcome and scores (``extra``: more scores, e.g. a
    refined episode's lineage)."""
    store.write(finish_items(store, episode_id, result, human_seconds, control, extra))


def finish_items(
    store: Store,
    episode_id: str,
    result: EpisodeResult,
    human_seconds: float | None = None,
    control: dict[str, Any] | None = None,
    extra: dict[str, Any] | None = None,
) -> list[tuple[Any, ...]]:
    """What finishing a completed episode writes (``Store.write`` items). ``scores["control"]``
    holds the steps each controller took (``control``, else tallied from the engine's events)."""
    ep = result.episode
    scores = dict(result.metrics or {})
    if human_seconds is not None:
        scores["human_active_seconds"] = round(human_seconds, 3)
    scores["control"] = control if control is not None else control_summary(ep.events)
    if result.review is not None:
        scores["review"] = result.review
    if ep.lineage:  # a fork: where it was taken from (set by ``rebuild`` from its start event)
        scores["lineage"] = {"forked_from": ep.lineage}
    if result.user_verdict is not None:  # beside the checklist: what the user seat concluded
        scores["user_verdict"] = result.user_verdict
    scores.update(extra or {})
    return store.finish_items(
        episode_id,
        "completed",
        outcome=result.outcome.as_dict() if result.outcome else None,
        scores=scores or None,
        end_reason=result.end_reason,
        steps=result.steps,
        state_hash=ep.state_hash(),
    )


async def run_recorded(
    store: Store,
    loaded: LoadedTask,
    agent: Controller,
    user: Controller | None = None,
    *,
    seed: int | None = None,
    judge: Judge | None = None,
    review: ReviewPlan = NO_REVIEW_OPTIONS,
    stage_judge: Any = None,
) -> tuple[str, EpisodeResult]:
    """Run one episode with every event committed as it happens."""
    seed_used = loaded.task.seed if seed is None else seed
    episode_id = store.create_episode(loaded, seed_used, agent.name, user.name if user else None)
    recorder = Recorder(store, episode_id)
    try:
        result = await run_episode(
            loaded,
            agent,
            user,
            seed=seed_used,
            judge=judge,
            on_event=recorder,
            review=review,
            stage_judge=stage_judge,
        )
    except (KeyboardInterrupt, asyncio.CancelledError):
        store.finish_episode(episode_id, "stopped", end_reason="interrupted")
        raise
    except Exception as exc:
        store.finish_episode(episode_id, "errored", end_reason=f"{type(exc).__name__}: {exc}")
        raise
    finish(store, episode_id, result)
    return episode_id, result


# -- rebuilding -----------------------------------------------------------------------


@dataclass
class Rebuilt:
    episode: AnyEpisode
    matches: bool
    mismatch: str | None
    recorded_hash: str | None
    replayed_hash: str
    missing: list[Event] = field(default_factory=list)  # replayed engine events the record lacks (a cut tail)
    diverged: Event | None = None  # the first recorded event the replay did not reproduce
    differed: list[str] = field(default_factory=list)  # what differed in it (payload keys, or "type")


def _comparable(e: Event) -> tuple[str, Any]:
    """An event as compared in a rebuild: scrubbed, and without the ``keys`` that diff records
    carry since sttui spells out paths through keys holding a dot (a record made before that
    still replays as reproducing)."""
    payload = e.payload
    if e.type == "episode_started" and "forked_from" in payload:  # a fork's lineage, not the engine's
        payload = {k: v for k, v in payload.items() if k != "forked_from"}
    for name in ("state_diff", "diff"):
        records = payload.get(name)
        if isinstance(records, list) and any(isinstance(r, dict) and "keys" in r for r in records):
            plain = [{k: v for k, v in r.items() if k != "keys"} if isinstance(r, dict) else r for r in records]
            payload = {**payload, name: plain}
    if e.type == "episode_started" and "lineage" in payload:  # a refined episode's provenance, not the engine's
        payload = {k: v for k, v in payload.items() if k != "lineage"}
    if e.type == "episode_ended" and verdicts.is_default(payload.get("user_verdict")):
        # a plain "satisfied" is what a user's ending meant before verdicts were recorded
        payload = {k: v for k, v in payload.items() if k != "user_verdict"}
    return e.type, scrub(payload)


def recorded_settings(events: list[Event]) -> RunSettings:
    """The setting a recorded episode ran under (its ``episode_started``)."""
    started = next((e for e in events if e.type == "episode_started"), None)
    return RunSettings.from_dict(started.payload.get("settings") if started else None)


def open_as_recorded(
    loaded: LoadedTask, record: EpisodeRecord, events: list[Event], keep_history: bool = False
) -> AnyEpisode:
    """A fresh episode opened as the record's was: its seed, seats, review rules and settings
    (what rebuilding and refining replay on)."""
    started = next((e for e in events if e.type == "episode_started"), None)
    review = (started.payload.get("review") if started else None) or {}
    return open_episode(
        loaded,
        record.seed,
        {"agent": record.agent, "user": record.user or "none"},
        keep_history=keep_history,
        review=ReviewPlan(
            early_stop=review.get("early_stop", False),
            stagnation=review.get("stagnation"),
            low_quality=(review["low_quality"][0], review["low_quality"][1]) if review.get("low_quality") else None,
        ),
        external_scores=len(review.get("low_quality") or ()) > 2,  # judged scores fed the rule
        settings=recorded_settings(events),
    )


def timed_out(episode: Any, rest: list[Event]) -> None:
    """A study's time limit ended the episode after its last action: a recorded decision of the
    session (the person's clock), not of the engine, so it is applied again as recorded."""
    if episode.ended is not None or not rest or rest[0].type != "episode_ended":
        return
    payload = rest[0].payload
    if payload.get("by") == "limit" and str(payload.get("reason", "")).startswith("time limit of"):
        end = getattr(episode, "end", None) or episode._end
        end("limit", payload["reason"], rest[0].actor)


def rebuild(
    loaded: LoadedTask,
    record: EpisodeRecord,
    events: list[Event],
    keep_history: bool = False,
    keep_events: bool = True,
) -> Rebuilt:
    """Replay the recorded actions on a fresh episode, reviewed as the record was, and compare.

    Each replayed event is compared with the recorded one as it is emitted; ``keep_events=False``
    keeps them no longer (a long episode rebuilt to be looked at, not played on)."""
    episode = open_as_recorded(loaded, record, events, keep_history)
    if isinstance(episode, Episode):  # an explore episode keeps its events regardless
        episode.keep_events = keep_events
    started = next((e for e in events if e.type == "episode_started"), None)
    # a fork's lineage goes on to its scores when it finishes (see ``finish_items``)
    episode.lineage = (started.payload.get("forked_from") if started else None) or None
    recorded = engine_events(loaded.kind, events)
    state: dict[str, Any] = {"n": 0, "mismatch": None, "diverged": None, "differed": []}
    missing: list[Event] = []

    def compare(b: Event) -> None:
        i = state["n"]
        state["n"] += 1
        if state["mismatch"] is not None:
            return
        if i >= len(recorded):
            missing.append(b)
            return
        a = recorded[i]
        if a.type == b.type and a.payload == b.payload:
            return  # equal as they are, so equal scrubbed (the recorded one is, already)
        if _comparable(a) != _comparable(b):
            state["mismatch"] = f"recorded event {a.seq} ({a.type}) differs from the replay's event {i + 1} ({b.type})"
            state["diverged"] = a
            pa, pb = _comparable(a)[1], _comparable(b)[1]
            state["differed"] = (
                ["type"] if a.type != b.type else sorted(k for k in {*pa, *pb} if pa.get(k) != pb.get(k))
            )

    def judged_signal() -> None:
        """A low_quality signal the stage judges raised between turns is a recorded judgement
        (a model's answer), not recomputed: it is raised again where the record has it."""
        review = episode.review if isinstance(episode, Episode) else None
        i = state["n"]
        if review is None or not review.external_scores or episode.ended is not None or i >= len(recorded):
            return
        nxt = recorded[i]
        if nxt.type == "stop_signal" and nxt.payload.get("signal") == "low_quality":
            signal = dict(nxt.payload)
            review.signals.append(signal)
            if review.low_quality is not None:
                review.low_quality.raised = True
            if isinstance(episode, Episode):  # it is: only an stt episode has a review
                episode.review_signal(signal)

    episode.listeners.append(compare)
    episode.start()
    for actor, action in actions_of(loaded.kind, events):
        if episode.ended is not None:
            break
        episode.apply(action, actor)
        judged_signal()
    timed_out(episode, recorded[state["n"] :])
    episode.listeners.remove(compare)
    mismatch = state["mismatch"]
    if mismatch is None and len(recorded) > state["n"]:
        mismatch = f"the record has {len(recorded) - state['n']} engine event(s) the replay does not produce"
    hashes = [e.payload["state_hash"] for e in recorded if "state_hash" in e.payload]
    return Rebuilt(
        episode,
        mismatch is None,
        mismatch,
        hashes[-1] if hashes else None,
        episode.state_hash(),
        missing if mismatch is None else [],
        state["diverged"],
        state["differed"],
    )


async def resume(
    store: Store,
    record: EpisodeRecord,
    agent: Controller,
    user: Controller | None,
    judge: Judge | None = None,
    loaded: LoadedTask | None = None,
) -> tuple[Rebuilt, EpisodeResult | None]:
    """Rebuild a running episode from its record and play it on, recording as before.

    ``loaded`` is its task version, opened under the caller's trust (see ``sttui.exports.versions``);
    without it, the version is opened with the default trust."""
    events = store.events(record.id)
    if loaded is None:
        from sttui.exports.versions import load_version

        loaded = load_version(store, record)
    rebuilt = rebuild(loaded, record, events)
    if not rebuilt.matches:
        return rebuilt, None
    recorder = Recorder(store, record.id, store.next_seq(record.id))
    for event in rebuilt.missing:
        recorder(event)
    episode = rebuilt.episode
    recorder.meta(
        "resumed",
        "system",
        {
            "agent": agent.name,
            "user": user.name if user else None,
            "state_hash": episode.state_hash(),
            "replayed_actions": len(actions_of(loaded.kind, events)),
        },
    )
    episode.listeners.append(recorder)
    episode.actors["agent"] = agent.name
    if user is not None:
        episode.actors["user"] = user.name
    for controller in (agent, user):
        fast_forward = getattr(controller, "resume", None)
        if fast_forward is not None:
            fast_forward([a for _, a in actions_of(loaded.kind, events)])
    for controller in (agent, user):  # a model reports its calls and faults into the record
        if controller is not None and hasattr(controller, "record"):
            controller.record = lambda kind, payload, who=controller.name: recorder.meta(kind, who, payload)
    replayed = len(episode.events)  # the engine events the record already holds (or just got)
    try:
        result = await drive(episode, Seats(agent, user), judge)
    except (KeyboardInterrupt, asyncio.CancelledError):
        raise  # still running: it can be resumed again from where it stopped
    except Exception as exc:  # a failure while resuming ends the episode, as in any run
        store.finish_episode(record.id, "errored", end_reason=f"{type(exc).__name__}: {exc}", steps=episode.steps)
        raise
    finish(store, record.id, result, control=control_summary([*events, *rebuilt.missing, *episode.events[replayed:]]))
    return rebuilt, result
