"""The OpenEnv bridge's episodes: the tasks a server serves with its table of live HTTP
episodes and their bounds (:class:`ServeConfig`), and one episode as the environment steps it,
with its observations, rewards and record (:class:`Session`).

OpenEnv serves each HTTP request with a fresh environment object, so an HTTP episode lives in
the table between its ``reset`` and its steps: dropped after ``idle_timeout`` without a step,
and past ``max_episodes`` the one idle longest, remembering why for a late step.
"""

from __future__ import annotations

import itertools
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from sttui.bridges.episodes import BridgeError, Stepper, texts, tool_schemas
from sttui.bridges.openenv_wire import SttuiObservation
from sttui.bridges.reset_fields import task_id_problem
from sttui.config import ModelAlias
from sttui.core.loader import LoadedTask
from sttui.core.settings import RunSettings
from sttui.core.task import SttTask
from sttui.errors import StoreError

log = logging.getLogger("sttui.rl")

IDLE_TIMEOUT_S = 600.0  # an HTTP episode with no step for this long is dropped (rl serve --idle-timeout)
MAX_HTTP_EPISODES = 1024  # HTTP episodes kept at once; past it the one idle longest is dropped
MAX_GONE = 4096  # dropped episodes' ids remembered, so that a late step hears why


@dataclass
class ServeConfig:
    """What ``sttui rl serve`` was started with: the tasks it serves (the first is the default
    ``reset`` plays), the run options ``sttui run`` takes, shaping and recording."""

    tasks: list[LoadedTask]
    seed: int | None = None
    settings: RunSettings = field(default_factory=RunSettings)
    user: str | None = None
    shaped: bool = False
    record: str | None = None
    models: Mapping[str, ModelAlias] = field(default_factory=dict)  # sttui.yaml's models (a model user's alias)
    idle_timeout: float | None = IDLE_TIMEOUT_S  # seconds; None or 0: never
    max_episodes: int = MAX_HTTP_EPISODES
    # HTTP episodes between their requests, the longest idle first
    live: OrderedDict[str, Session] = field(default_factory=OrderedDict, repr=False)
    # episodes an environment object holds: a WebSocket session's, GymEnv's, an HTTP reset's until its request ends
    held: dict[str, Session] = field(default_factory=dict, repr=False)
    gone: OrderedDict[str, str] = field(default_factory=OrderedDict, repr=False)  # dropped id -> why
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    gym_ids: itertools.count[int] = field(default_factory=itertools.count, repr=False)  # GymEnv's episode ids
    _store: Any = field(default=None, init=False, repr=False)
    # (the served tasks as they were read, task id -> the first of them with it): every reset asks
    _by_id: tuple[tuple[LoadedTask, ...], dict[str, LoadedTask]] | None = field(default=None, init=False, repr=False)

    def task(self, task_id: Any) -> LoadedTask:
        """The served task ``task_id`` names (None: the first); a BridgeError says what is wrong,
        without echoing an id that is not one (nor looking for a near match of a huge one)."""
        if task_id is None:
            return self.tasks[0]
        problem = task_id_problem(task_id)
        if problem is not None:
            raise BridgeError(problem)
        served = tuple(self.tasks)
        index = self._by_id
        if index is None or index[0] != served:  # (compared item by item, by identity first)
            by_id: dict[str, LoadedTask] = {}
            for t in served:
                by_id.setdefault(t.id, t)
            index = self._by_id = (served, by_id)
        found = index[1].get(task_id)
        if found is not None and found.id == task_id:
            return found
        for t in served:  # (a task whose id changed since it was read)
            if t.id == task_id:
                return t
        from sttui.core.problems import did_you_mean

        served_ids = {t.id: t for t in self.tasks}
        raise BridgeError(
            f"no task '{task_id}' is served here ({len(served_ids)} are){did_you_mean(task_id, served_ids)}"
        )

    def store(self) -> Any:
        """The record (``record``), opened once and shared by every episode (a StoreError says
        why it cannot be opened)."""
        with self.lock:
            if self._store is None:
                from sttui.store.store import Store

                self._store = Store(self.record)
            return self._store

    def in_use(self, episode_id: str) -> bool:
        with self.lock:
            return episode_id in self.held or episode_id in self.live

    def hold(self, session: Session) -> None:
        with self.lock:
            self.gone.pop(session.episode_id, None)
            self.held[session.episode_id] = session

    def release(self, session: Session) -> None:
        """An HTTP reset's request is over: its episode waits in the table for its steps, and
        the table is kept within its bounds."""
        now = time.monotonic()
        with self.lock:
            if self.held.get(session.episode_id) is session:
                del self.held[session.episode_id]
            if not session.stepper.done and session.stepper.failed is None:
                session.used = now
                self.live[session.episode_id] = session
            dropped = self._sweep(now)
        _end_all(dropped)

    def find(self, episode_id: str) -> Session | None:
        """The live episode with this id (an HTTP one is marked used now), or None."""
        now = time.monotonic()
        with self.lock:
            dropped = self._sweep(now) if self.live else []
            session = self.live.get(episode_id)
            if session is not None:
                session.used = now
                self.live.move_to_end(episode_id)
            else:
                session = self.held.get(episode_id)
        _end_all(dropped)
        return session

    def why_gone(self, episode_id: str) -> str | None:
        with self.lock:
            return self.gone.get(episode_id)

    def forget(self, session: Session) -> None:
        """Take the episode out of the tables (the one with its id, if it is this one)."""
        eid = session.episode_id
        with self.lock:
            if self.live.get(eid) is session:
                del self.live[eid]
            if self.held.get(eid) is session:
                del self.held[eid]

    def end(self, session: Session, reason: str, status: str = "stopped") -> None:
        self.forget(session)
        session.end(reason, status)

    def _sweep(self, now: float) -> list[tuple[Session, str]]:
        """Under the lock: drop the HTTP episodes idle past the timeout, then the longest idle
        past the cap (remembering why, for their late steps); the caller ends them unlocked."""
        live, timeout, dropped = self.live, self.idle_timeout, []
        while live:
            eid, first = next(iter(live.items()))
            if timeout and now - first.used > timeout:
                why = f"after {timeout:g} s without a step (the server's idle timeout)"
            elif len(live) > self.max_episodes:
                why = (
                    f"to make room: the server keeps at most {self.max_episodes:,} open HTTP episodes, "
                    "and this one had gone longest without a step"
                )
            else:
                break
            del live[eid]
            self.gone[eid] = why
            dropped.append((first, why))
        while len(self.gone) > MAX_GONE:
            self.gone.popitem(last=False)
        return dropped


def _end_all(dropped: list[tuple[Session, str]]) -> None:
    for session, why in dropped:
        session.end(f"dropped {why}")


# -- one episode as the environment steps it: observations, rewards, the record ----------------


class Session:
    """One episode as the environment steps it: observations, rewards, the record."""

    def __init__(self, config: ServeConfig, loaded: LoadedTask, seed: int, episode_id: str, settings: RunSettings):
        self.config, self.loaded, self.seed, self.episode_id = config, loaded, seed, episode_id
        self.store: Any = None
        self.used = 0.0  # when an HTTP step last found it (time.monotonic)
        self.busy = False  # a step is being taken (it may wait on a model user)
        self.ended = False
        on_event = None
        if config.record:
            from sttui.running.recording import Recorder

            self.store = config.store()
            on_event = Recorder(self.store, episode_id)
        self.stepper = Stepper(loaded, seed, settings, user=config.user, on_event=on_event, models=config.models)
        if self.store is not None:  # the episode's row before its first event
            self._record_row(settings)
        self.stage = 0.0

    def _record_row(self, settings: RunSettings) -> None:
        from sqlalchemy.exc import IntegrityError

        from sttui.controllers.registry import make_user

        config, loaded = self.config, self.loaded
        user = make_user(config.user, config.models).name if loaded.kind == "stt" and not settings.no_user else None
        setting = settings.label(loaded.kind, getattr(loaded.task, "setting", "default"))
        items = self.store.episode_items(loaded, self.seed, self.stepper.agent_name, user, self.episode_id, setting)
        try:
            self.store.write(items)
        except IntegrityError:
            raise BridgeError(f"episode id {self.episode_id} is in use (the record holds an episode with it)") from None

    def end(self, reason: str, status: str = "stopped") -> None:
        """Close an episode nobody will step again (dropped, replaced, its session gone, failed);
        an unfinished record says why it stopped. A step under way finishes first (untouched)."""
        if self.ended or self.busy:
            return
        self.ended = True
        stepper = self.stepper
        steps = stepper.episode.steps if stepper.episode is not None else 0
        stepper.close()
        if self.store is not None and not stepper.done:
            try:
                self.store.finish_episode(self.episode_id, status, end_reason=reason, steps=steps)
            except Exception as exc:  # (the episode is over either way)
                log.warning(
                    "sttui rl: episode %s could not be marked %s in the record: %s", self.episode_id, status, exc
                )

    def observation(self, error: str | None = None, first: bool = False) -> SttuiObservation:
        return SttuiObservation(**self.fields(error, first))

    def fields(self, error: str | None = None, first: bool = False) -> dict[str, Any]:
        """The observation's fields, in its own order, as plain data (the in-process wrapper
        hands them on without building the model; the items are the episode's own: copy them
        before they leave)."""
        s = self.stepper
        ep = s.episode
        assert ep is not None
        items = s.new_items()
        done = s.done
        reward = s.verdict() if done else 0.0
        if self.config.shaped and error is None and not first:
            now = s.stage_score()
            if now is not None:  # the change this step made; over an episode they add up to the final stage score
                reward, self.stage = reward + now - self.stage, now
        return {
            "done": done,
            "reward": reward,
            "episode_id": self.episode_id,
            "task": self.loaded.id,
            "kind": self.loaded.kind,
            "items": items,
            "text": texts(items),
            "view": s.explore_view() if not done else None,
            "tools": tool_schemas(self.loaded) if first else None,
            "error": error,
            "steps": ep.steps,
            "max_steps": ep.task.max_steps if isinstance(ep.task, SttTask) else 0,
            "outcome": self._outcome() if done else None,
        }

    def _outcome(self) -> dict[str, Any]:
        r = self.stepper.result
        assert r is not None
        if self.store is not None:
            from sttui.running.recording import finish

            try:
                finish(self.store, self.episode_id, r)
            except StoreError as exc:  # (the reply still carries the outcome)
                log.warning("sttui rl: episode %s's outcome could not be recorded: %s", self.episode_id, exc)
        out = r.as_dict()
        keep = ("passed", "checklist", "judged_by", "review", "metrics", "end_reason", "steps", "triggers_fired")
        return {k: out[k] for k in keep if k in out}
