"""A play session: one episode with its seats, recorded as it happens, for the workbench.

Store writes go to one writer thread, in order, so the UI never waits on the disk; each
event is committed as soon as the writer reaches it (within milliseconds), and everything
is committed before anyone in a seat is asked for the next action.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

from sttui.controllers.base import Controller
from sttui.controllers.human import HumanController
from sttui.core.checklist import Judge
from sttui.core.events import Event
from sttui.core.loader import LoadedTask
from sttui.recording import Rebuilt, Recorder, Writer, finish, rebuild
from sttui.runner import AnyEpisode, EpisodeResult, Seats, drive, open_episode
from sttui.store.store import EpisodeRecord, Store
from sttui.versions import load_version


class HumanClock:
    """A human's working time: starts paused; every start and pause is recorded."""

    def __init__(self, on_change: Callable[[str, float], None]):
        self.running = False
        self._since = 0.0
        self._total = 0.0
        self._on_change = on_change

    @property
    def active_seconds(self) -> float:
        return self._total + (time.monotonic() - self._since if self.running else 0.0)

    def start(self) -> None:
        if not self.running:
            self.running, self._since = True, time.monotonic()
            self._on_change("clock_started", self.active_seconds)

    def pause(self) -> None:
        if self.running:
            self._total += time.monotonic() - self._since
            self.running = False
            self._on_change("clock_paused", self.active_seconds)

    def toggle(self) -> None:
        self.pause() if self.running else self.start()


class PlaySession:
    """An episode in the workbench: seats, recording, the human clock and the god view."""

    def __init__(
        self,
        store: Store,
        loaded: LoadedTask,
        agent: Controller,
        user: Controller | None,
        seed: int | None = None,
        judge: Judge | None = None,
        resume: EpisodeRecord | None = None,
    ):
        self.store = store
        self.loaded = loaded
        self.seats = Seats(agent, user, on_change=self._seat_changed)
        self.judge = judge
        # the people in this session, by seat: a seat a model fails in goes back to its person
        self.people: dict[str, HumanController] = {
            seat: c for seat, c in (("agent", agent), ("user", user)) if isinstance(c, HumanController)
        }
        self.notices: list[str] = []
        self.writer = Writer(store)
        self.listeners: list[Callable[[Event], None]] = []
        self.result: EpisodeResult | None = None
        self.peeked = False
        self.rebuilt: Rebuilt | None = None
        if resume is None:
            seed_used = loaded.task.seed if seed is None else seed
            self.episode_id = store.create_episode(loaded, seed_used, agent.name, user.name if user else None)
            self.episode: AnyEpisode = open_episode(loaded, seed_used, self._actors(), keep_history=True)
            next_seq = 1
        else:
            self.episode_id = resume.id
            self.rebuilt = rebuild(loaded, resume, store.events(resume.id), keep_history=True)
            if not self.rebuilt.matches:
                raise ValueError(f"cannot resume {resume.id}: {self.rebuilt.mismatch}")
            self.episode = self.rebuilt.episode
            self.episode.actors.update(self._actors())
            next_seq = store.next_seq(resume.id)
        self.recorder = Recorder(store, self.episode_id, next_seq, self.writer)
        for event in self.rebuilt.missing if self.rebuilt else []:
            self._record(event)
        self.episode.listeners.append(self._record)
        self.clock = HumanClock(self._clock_event) if self.humans() else None
        for controller in (agent, user):
            self._wire(controller)

    @classmethod
    def resuming(cls, store: Store, record: EpisodeRecord, agent: Controller, user: Controller | None) -> PlaySession:
        return cls(store, load_version(store, record), agent, user, resume=record)

    @property
    def agent(self) -> Controller:
        holder = self.seats["agent"]
        assert holder is not None
        return holder

    @property
    def user(self) -> Controller | None:
        return self.seats["user"]

    def _actors(self) -> dict[str, str]:
        return {"agent": self.agent.name, "user": self.user.name if self.user else "none"}

    def humans(self) -> list[HumanController]:
        return list(self.people.values())

    # -- seats ---------------------------------------------------------------------------
    def _wire(self, controller: Controller | None) -> None:
        """Let a controller that reports on its own work (a model's calls, faults) record it."""
        if controller is not None and hasattr(controller, "record"):
            controller.record = lambda kind, payload, who=controller.name: self.meta(kind, who, payload)

    def hand(self, seat: str, controller: Controller) -> None:
        """Give a seat to another controller now; recorded as an event."""
        self._wire(controller)
        self.seats.hand(seat, controller)

    def _seat_changed(self, seat: str, before: str, after: str) -> None:
        self.episode.actors[seat] = after
        self.meta("seat_changed", "system", {"seat": seat, "from": before, "to": after})

    async def _seat_failed(self, seat: str, exc: Exception) -> None:
        """A seat's holder failed (a model out of retries): the seat goes back to its person."""
        person = self.people.get(seat)
        if person is None:
            raise exc
        reason = f"{self.seats[seat].name if self.seats[seat] else seat} failed: {exc}"
        self.meta("seat_failed", "system", {"seat": seat, "error": str(exc)})
        self.notices.append(f"{reason}. The {seat} seat is yours again.")
        self.hand(seat, person)

    # -- recording -------------------------------------------------------------------
    def _record(self, event: Event) -> None:
        numbered = self.recorder(event)
        for listener in self.listeners:
            listener(numbered)

    def meta(self, kind: str, actor: str, payload: dict[str, Any]) -> None:
        sim = self.episode.now.isoformat() if hasattr(self.episode, "now") else ""
        self._record(Event(0, kind, actor, payload, sim, time.time()))

    def _clock_event(self, kind: str, active: float) -> None:
        self.meta(kind, self.humans()[0].name, {"active_seconds": round(active, 3)})

    def peek(self) -> None:
        """The god view was opened: recorded, and the episode is no longer a clean baseline."""
        who = self.humans()[0].name if self.humans() else "system"
        self.meta("god_view", who, {"on": True})
        if not self.peeked:
            self.peeked = True
            self.writer.submit(lambda: self.store.update_episode(self.episode_id, clean_baseline=False))

    # -- playing -----------------------------------------------------------------------
    async def run(self) -> EpisodeResult:
        if self.rebuilt is None:
            self.episode.start()
        else:
            self.meta("resumed", "system", {"agent": self.agent.name, "state_hash": self.episode.state_hash()})
        try:
            result = await drive(
                self.episode, self.seats, self.judge, on_failure=self._seat_failed, checkpoint=self.recorder.durable
            )
        except asyncio.CancelledError:
            # The workbench closed mid-episode: it stays running, to be resumed from the record.
            if self.clock is not None:
                self.clock.pause()
            self.meta("left", "system", {"steps": getattr(self.episode, "steps", 0)})
            self.writer.flush()
            raise
        except Exception as exc:
            reason = f"{type(exc).__name__}: {exc}"
            self.writer.submit(lambda: self.store.finish_episode(self.episode_id, "errored", end_reason=reason))
            self.writer.flush()
            raise
        if self.clock is not None:
            self.clock.pause()
        self.result = result
        active = self.clock.active_seconds if self.clock else None
        self.writer.submit(lambda: finish(self.store, self.episode_id, result, human_seconds=active))
        return result

    def close(self) -> None:
        self.writer.flush()
        self.writer.close()
