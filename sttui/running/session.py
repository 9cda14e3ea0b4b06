"""A play session: one episode with its seats, recorded as it happens, for the workbench.

Store writes go to one writer thread, in order, so the UI never waits on the disk; each
event is committed as soon as the writer reaches it (within milliseconds), and everything
is committed before anyone in a seat is asked for the next action.

Seats change hands here, and every change is recorded (the screens only ask):

- ``seat_changed`` {seat, from, to, by}: a person lends their seat to a model (F10), takes it
  back (F11), or gets it back because the model failed (``seat_failed`` first, by system);
- ``oversight_on`` / ``oversight_off`` {seat, by, model}: the person's review of a model's
  proposals is switched; the decisions are ``oversight_*`` events (see controllers.oversight);
- ``clock_started`` / ``clock_paused`` {active_seconds, reason?}: the person's working time,
  paused while a model holds their seat and counted while they review its proposals;
- ``left`` {steps, reason}: the workbench let go of a running episode (``suspended`` by the
  person, ``quit``, or ``closed``); it stays resumable.

At the end the episode's scores carry ``control``, the steps each controller took (see
``sttui.core.control``), so a mixed episode is never credited to one controller.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any

from sttui.controllers.base import Controller
from sttui.controllers.human import HumanController
from sttui.controllers.oversight import Decision, Overseen
from sttui.core.actions import Action, EndEpisode
from sttui.core.checklist import Judge
from sttui.core.control import ControlTally
from sttui.core.episode import Episode
from sttui.core.events import Event
from sttui.core.loader import LoadedTask
from sttui.core.settings import DEFAULT, RunSettings
from sttui.exports.versions import load_version
from sttui.running.recording import Rebuilt, Recorder, Writer, finish, rebuild
from sttui.running.runner import AnyEpisode, EpisodeResult, Seats, drive, open_episode
from sttui.running.seats import HUMAN_PREFIX as HUMAN_PREFIX  # (the seats live in seats.py, light for the command line)
from sttui.running.seats import PlanProblem as PlanProblem
from sttui.running.seats import PlayPlan as PlayPlan
from sttui.running.seats import is_human as is_human
from sttui.store.store import EpisodeRecord, Store


class HumanClock:
    """A human's working time: starts paused; every start and pause is recorded, with the
    reason when the session (not the person) started or paused it."""

    def __init__(self, on_change: Callable[[str, float, str | None], None]):
        self.running = False
        self._since = 0.0
        self._total = 0.0
        self._on_change = on_change

    @property
    def active_seconds(self) -> float:
        return self._total + (time.monotonic() - self._since if self.running else 0.0)

    def start(self, reason: str | None = None) -> None:
        if not self.running:
            self.running, self._since = True, time.monotonic()
            self._on_change("clock_started", self._total, reason)  # (the time worked so far: none since this start)

    def pause(self, reason: str | None = None) -> None:
        if self.running:
            self._total += time.monotonic() - self._since
            self.running = False
            self._on_change("clock_paused", self.active_seconds, reason)

    def toggle(self) -> None:
        self.pause() if self.running else self.start()


def worked_before(recorded: list[Event]) -> float:
    """A person's working time in an episode's record: as of its last clock event; and when that
    is a start (the session was killed with the clock running, so no pause was recorded), with
    the time from that start to the last event recorded after it, the last sign of them at work."""
    clock = [e for e in recorded if e.type in ("clock_started", "clock_paused")]
    if not clock or not isinstance(clock[-1].payload.get("active_seconds"), int | float):
        return 0.0
    last = clock[-1]
    worked = float(last.payload["active_seconds"])
    if last.type == "clock_started" and recorded[-1] is not last:
        worked += max(0.0, recorded[-1].wall_time - last.wall_time)
    return worked


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
        episode_id: str | None = None,
        settings: RunSettings = DEFAULT,
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
        self.listeners: list[Callable[[Event], object]] = []
        self.result: EpisodeResult | None = None
        self.peeked = False
        self.handed = False  # a model held a person's seat at some point
        self.oversight = False  # the person reviews the proposals of a model in the agent seat
        self.last_model: dict[str, Any] = {}  # seat -> the model that last held it (its messages stay readable)
        self.leaving = "closed"  # why the workbench let go, should the episode be cancelled
        self.control = ControlTally()
        self._changing_by = "system"
        self._clock_was_running = False  # when the person lent their seat
        self._present = asyncio.Event()  # the person has started their clock (or lent their seat) once
        self.rebuilt: Rebuilt | None = None
        self.time_limit: tuple[float, float | None] | None = None  # (seconds, warn at): a study's
        self.in_study = False  # a study's sitting: the person sees only what a model would be given
        self._warned = False
        if resume is None:
            seed_used = loaded.task.seed if seed is None else seed
            label = settings.label(loaded.kind, getattr(loaded.task, "setting", "default"))
            self.episode_id = store.create_episode(
                loaded, seed_used, agent.name, user.name if user else None, episode_id=episode_id, setting=label
            )
            self.episode: AnyEpisode = open_episode(
                loaded, seed_used, self._actors(), keep_history=True, settings=settings
            )
            next_seq = 1
        else:
            self.episode_id = resume.id
            recorded = store.events(resume.id)
            self.rebuilt = rebuild(loaded, resume, recorded, keep_history=True)
            if not self.rebuilt.matches:
                raise ValueError(f"cannot resume {resume.id}: {self.rebuilt.mismatch}")
            for event in recorded:
                self.control.add(event)
            self.episode = self.rebuilt.episode
            self.episode.actors.update(self._actors())
            next_seq = store.next_seq(resume.id)
        self.recorder = Recorder(store, self.episode_id, next_seq, self.writer)
        for event in self.rebuilt.missing if self.rebuilt else []:
            self._record(event)
        self.episode.listeners.append(self._record)
        self.clock = HumanClock(self._clock_event) if self.humans() else None
        if self.clock is not None and resume is not None:  # the time worked before the episode was left
            self.clock._total = worked_before(recorded)
            self._warned = any(e.type == "time_warning" for e in recorded)  # (warned once, not once a sitting)
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

    def holds(self, seat: str) -> bool:
        """The seat's person holds it (and not a model they lent it to)."""
        person = self.people.get(seat)
        return person is not None and self.seats[seat] is person

    # -- seats ---------------------------------------------------------------------------
    def _wire(self, controller: Controller | None) -> None:
        """Let a controller that reports on its own work (a model's calls, faults) record it."""
        if controller is not None and hasattr(controller, "record"):
            controller.record = lambda kind, payload, who=controller.name: self.meta(kind, who, payload)

    def hand(self, seat: str, controller: Controller, by: str = "system") -> None:
        """Give a seat to another controller now; recorded as an event."""
        self._wire(controller)
        self._changing_by = by
        try:
            self.seats.hand(seat, controller)
        finally:
            self._changing_by = "system"

    def hand_to_model(
        self, seat: str, model: Any, review: Callable[[Action, Any], Awaitable[Decision]] | None = None
    ) -> None:
        """The seat's person lends it to ``model``. In the agent seat of a dynamic task with a
        ``review`` (the screen's dialog), the model is overseen whenever oversight is on. The
        person's clock pauses until they take the seat back."""
        person = self.people[seat]
        if review is not None and seat == "agent" and isinstance(self.episode, Episode):
            model = Overseen(model, self._reviewed(review), person.name, active=self.oversight, note=self.meta)
        self._present.set()
        person.clear()  # nothing the person queued runs on their behalf once they take the seat back
        self.last_model[seat] = model
        if self.holds(seat) and self.clock is not None:
            self._clock_was_running = self.clock.running
            self.clock.pause("a model holds the seat")
        if not self.handed:
            self.handed = True
            self.writer.submit(lambda: self.store.update_episode(self.episode_id, clean_baseline=False))
        self.hand(seat, model, by=person.name)

    def take_back(self, seat: str) -> bool:
        """The person takes their seat back (the model's turn in progress is abandoned); their
        clock runs again if it ran when they lent it. False when they already hold it."""
        person = self.people.get(seat)
        if person is None or self.seats[seat] is person:
            return False
        self.hand(seat, person, by=person.name)
        if self.clock is not None and self._clock_was_running:
            self.clock.start("the seat is the person's again")
        return True

    def set_oversight(self, on: bool) -> None:
        """Switch the person's review of the agent seat's model proposals; recorded."""
        if on == self.oversight or "agent" not in self.people:
            return
        self.oversight = on
        holder = self.seats["agent"]
        if isinstance(holder, Overseen):
            holder.active = on
        model = self.last_model.get("agent")
        payload: dict[str, Any] = {"seat": "agent", "by": self.people["agent"].name}
        if model is not None and not self.holds("agent"):
            payload["model"] = model.name
        self.meta("oversight_on" if on else "oversight_off", self.people["agent"].name, payload)

    def _reviewed(
        self, review: Callable[[Action, Any], Awaitable[Decision]]
    ) -> Callable[[Action, Any], Awaitable[Decision]]:
        """The screen's review, with the person's clock running while they decide."""

        async def timed(proposed: Action, view: Any) -> Decision:
            if self.clock is not None:
                self.clock.start("reviewing a proposal")
            try:
                return await review(proposed, view)
            finally:
                if self.clock is not None and not self.holds("agent"):
                    self.clock.pause("a model holds the seat")

        return timed

    def end_now(self) -> None:
        """The person in the agent seat ends the episode: their seat is taken back from a model
        first; the ending is their action, applied on the agent's next turn (at once, or after
        the user's reply under way)."""
        self.take_back("agent")
        self.people["agent"].submit(EndEpisode("the agent ended the episode"))

    def _seat_changed(self, seat: str, before: str, after: str) -> None:
        self.episode.actors[seat] = after
        by = self._changing_by
        self.meta("seat_changed", by, {"seat": seat, "from": before, "to": after, "by": by})

    async def _seat_failed(self, seat: str, exc: Exception) -> None:
        """A seat's holder failed (a model out of retries): the seat goes back to its person."""
        person = self.people.get(seat)
        if person is None:
            raise exc
        holder = self.seats[seat]
        reason = f"{holder.name if holder else seat} failed: {str(exc).rstrip('.')}"
        self.meta("seat_failed", "system", {"seat": seat, "error": str(exc)})
        self.notices.append(f"{reason}. The {seat} seat is yours again (F5 starts your clock).")
        self.hand(seat, person)

    # -- recording -------------------------------------------------------------------
    def _record(self, event: Event) -> None:
        numbered = self.recorder(event)
        self.control.add(numbered)
        for listener in self.listeners:
            listener(numbered)

    def meta(self, kind: str, actor: str, payload: dict[str, Any]) -> None:
        sim = self.episode.now.isoformat() if hasattr(self.episode, "now") else ""
        self._record(Event(0, kind, actor, payload, sim, time.time()))

    def _clock_event(self, kind: str, active: float, reason: str | None) -> None:
        if kind == "clock_started":
            self._present.set()
        payload: dict[str, Any] = {"active_seconds": round(active, 3)}
        if reason:
            payload["reason"] = reason
        self.meta(kind, self.humans()[0].name, payload)

    def peek(self) -> None:
        """The god view was opened: recorded, and the episode is no longer a clean baseline."""
        who = self.humans()[0].name if self.humans() else "system"
        self.meta("god_view", who, {"on": True})
        if not self.peeked:
            self.peeked = True
            self.writer.submit(lambda: self.store.update_episode(self.episode_id, clean_baseline=False))

    def check_limit(self) -> str | None:
        """A study's time limit on the person's clock: ``warn`` once at its warning point
        (recorded as ``time_warning``), then ``ended``: the episode ends as ``limit`` (by the
        system, like the step limit) and the turn in progress is abandoned. None otherwise."""
        if self.time_limit is None or self.clock is None or self.episode.ended is not None:
            return None
        limit, warn = self.time_limit
        used = self.clock.active_seconds
        if used >= limit:
            end = getattr(self.episode, "end", None) or self.episode._end  # type: ignore[union-attr]  # explore episodes end through _end
            end("limit", f"time limit of {limit / 60:g} minutes reached", "system")
            self.seats.interrupt()
            return "ended"
        if warn is not None and used >= warn and not self._warned:
            self._warned = True
            self.meta("time_warning", "system", {"active_seconds": round(used, 3), "limit_seconds": limit})
            return "warn"
        return None

    # -- playing -----------------------------------------------------------------------
    def waits_for_person(self) -> bool:
        """A person plays the user seat and has not started their clock yet: the agent waits,
        so nothing happens before the person is there to see it."""
        return (
            "user" in self.people
            and "agent" not in self.people
            and not self._present.is_set()
            and isinstance(self.episode, Episode)
            and self.episode.turn == "agent"
        )

    async def _checkpoint(self) -> None:
        await self.recorder.durable()
        if self.waits_for_person():
            await self._present.wait()

    def leave(self, reason: str) -> None:
        """Why the workbench is about to let go of the running episode (``suspended``, ``quit``)."""
        self.leaving = reason

    async def run(self) -> EpisodeResult:
        if self.rebuilt is None:
            self.episode.start()
        else:
            self.meta("resumed", "system", {"agent": self.agent.name, "state_hash": self.episode.state_hash()})
        try:
            result = await drive(
                self.episode, self.seats, self.judge, on_failure=self._seat_failed, checkpoint=self._checkpoint
            )
        except asyncio.CancelledError:
            # The workbench let go mid-episode: it stays running, to be resumed from the record.
            if self.clock is not None:
                self.clock.pause(self.leaving)
            who = self.humans()[0].name if self.humans() and self.leaving != "closed" else "system"
            self.meta("left", who, {"steps": getattr(self.episode, "steps", 0), "reason": self.leaving})
            self.writer.flush()
            raise
        except Exception as exc:
            from sttui.store.writer import WriteFailed, played_elsewhere

            if not (isinstance(exc, WriteFailed) and played_elsewhere(str(exc))):  # (else it is the other's)
                reason = f"{type(exc).__name__}: {exc}"
                self.writer.submit(lambda: self.store.finish_episode(self.episode_id, "errored", end_reason=reason))
            self.writer.flush()
            raise
        if self.clock is not None:
            self.clock.pause()
        self.result = result
        active = self.clock.active_seconds if self.clock else None
        control = self.control.summary()
        self.writer.submit(lambda: finish(self.store, self.episode_id, result, human_seconds=active, control=control))
        return result

    def close(self) -> None:
        self.writer.flush()
        self.writer.close()
