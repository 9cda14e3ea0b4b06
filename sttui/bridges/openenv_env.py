"""Any sttui task as an OpenEnv reinforcement-learning environment (``sttui rl serve``).

The server is openenv-core's own ``create_app`` around :class:`SttuiEnvironment`: the WebSocket
session (``/ws``, what ``EnvClient`` speaks) holds one episode per connection; the HTTP
``/reset`` and ``/step`` endpoints, which OpenEnv serves with a fresh environment object per
request, reach their episode through the ``episode_id`` that ``reset`` returned (a table of
live episodes, each isolated: its own engine, user seat and seed).

- **Action** (:class:`SttuiAction`): one tool call (``tool`` + ``args``; ``end_episode`` ends
  it) or one message to the user (``message``), read by the parser that reads a model's answer
  in ``sttui run``.
- **Observation** (:class:`SttuiObservation`): what the agent seat sees, no more: the new items
  of its view (the call's echo, the tool's result, the user's reply, notices) as data and as
  text, or the whole masked view of an explore episode; the tools at reset; an ``error`` when
  the action could not be read (nothing was executed, the turn is still the agent's).
- **Reward**: 0 until the end, then the task's verdict: 1/0 for an stt pass, the calibrated
  accuracy for explore. With ``shaped`` (off by default) each stt step is also rewarded with
  the change it made in the milestone review's stage score (the last step's added to the
  verdict), so the shaping adds up over an episode to its final stage score.

Whatever a client sends is checked before it reaches the engine or the record, the same over
HTTP and WebSocket, and refused with an error observation in the API's own words: a reset's
fields in ``bridges.reset_fields``, an action's text (no NUL or lone surrogate) in
``bridges.episodes.action_problem``. An error inside a step ends its episode in one line (its
coroutine cannot be resumed). HTTP episodes are bounded: dropped after ``idle_timeout``
without a step, and past ``max_episodes`` the one idle longest; a late step hears why.

:class:`GymEnv` is the same episode in-process, without a server, for a trainer in Python.

The module reads top to bottom in sections, each under a ``# --`` line: the wire models, the
episode table (``ServeConfig``), one episode (``Session``), the environment
(``SttuiEnvironment``), the server (``make_app``), the client (``SttuiEnv``) and ``GymEnv``.
openenv-core is imported here only: ``pip install 'sttui[rl]'``.
"""

from __future__ import annotations

import itertools
import json
import logging
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from openenv.core import EnvClient
from openenv.core.client_types import StepResult
from openenv.core.env_server.http_server import create_app
from openenv.core.env_server.interfaces import Environment
from openenv.core.env_server.types import Action, Observation, State
from pydantic import Field

from sttui.bridges.episodes import (
    BridgeError,
    EpisodeOver,
    NeedsEventLoop,
    Stepper,
    action_problem,
    parse_action,
    run_plan,
    texts,
    tool_schemas,
)
from sttui.bridges.reset_fields import (
    EPISODE_ID,
    EPISODE_ID_RULE,
    api_words,
    reset_problem,
    shown,
    task_id_problem,
)
from sttui.config import ModelAlias
from sttui.core.loader import LoadedTask
from sttui.core.settings import RunSettings
from sttui.core.task import MAX_SEED, SttTask
from sttui.errors import StoreError, where_raised

log = logging.getLogger("sttui.rl")

IDLE_TIMEOUT_S = 600.0  # an HTTP episode with no step for this long is dropped (rl serve --idle-timeout)
MAX_HTTP_EPISODES = 1024  # HTTP episodes kept at once; past it the one idle longest is dropped
MAX_GONE = 4096  # dropped episodes' ids remembered, so that a late step hears why


# -- the wire: actions, observations, state (openenv-core's models) ---------------------------


class SttuiAction(Action):
    """One tool call (``tool``, ``args``) or one message to the user (``message``).
    ``episode_id``: over plain HTTP, the episode the step belongs to (from ``reset``)."""

    tool: str | None = Field(default=None, description="the tool to call; end_episode ends the episode")
    args: Any = Field(default=None, description="the call's arguments, an object")
    message: str | None = Field(default=None, description="a message to the user (stt)")
    episode_id: str | None = Field(default=None, description="over HTTP: the episode reset returned")


class SttuiObservation(Observation):
    """What the agent seat sees after its action (or at the start)."""

    episode_id: str = ""
    task: str = ""
    kind: str = ""
    items: list[dict[str, Any]] = Field(default_factory=list, description="stt: the view's new items")
    text: str = Field(default="", description="the new items as text")
    view: dict[str, Any] | None = Field(default=None, description="explore: the masked view")
    tools: list[dict[str, Any]] | None = Field(default=None, description="at reset: the tools offered")
    error: str | None = Field(default=None, description="the action could not be taken; nothing was executed")
    steps: int = 0
    max_steps: int = 0
    outcome: dict[str, Any] | None = Field(default=None, description="at the end: the verdict and scores")


class SttuiState(State):
    task: str | None = None
    seed: int | None = None
    done: bool = False


@dataclass
# -- the episode table: the tasks served, and the live HTTP episodes with their bounds ---------


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
    gym_ids: itertools.count = field(default_factory=itertools.count, repr=False)  # GymEnv's episode ids
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


def _settings(
    config: ServeConfig, loaded: LoadedTask, default: bool, static: Any, no_user: Any, setting: Any
) -> RunSettings:
    """The episode's settings: the reset's where it gives them, else the server's, those that
    apply to the task's kind (a server serving both kinds applies ``--static`` to its stt tasks)."""
    stt = loaded.kind == "stt"
    if (not stt and (static or no_user)) or (stt and setting is not None):
        which = f"task {loaded.id}" + (" (the server's default: the reset names no task)" if default else "")
        fields = "setting applies to explore tasks" if stt else "static and no_user apply to stt tasks"
        raise BridgeError(f"{fields}; {which} is an {loaded.kind} task")
    base = config.settings
    chosen = (
        stt and (base.static if static is None else static),
        stt and (base.no_user if no_user is None else no_user),
        None if stt else (base.explore_setting if setting is None else setting),
    )
    if chosen == (base.static, base.no_user, base.explore_setting):
        return base
    return RunSettings(*chosen)


def _refused(task: Any, error: str) -> SttuiObservation:
    """A reset refused: the error, and the task it named when that was a task id to show."""
    shown = task if type(task) is str and task_id_problem(task) is None else ""
    return SttuiObservation(task=shown, error=error, done=True, reward=0.0)


# -- the environment openenv-core serves: reset, step, state -----------------------------------


class SttuiEnvironment(Environment[SttuiAction, SttuiObservation, SttuiState]):
    """sttui's episodes behind OpenEnv's environment interface. A WebSocket session keeps its
    episode on this object; an HTTP step finds its episode by ``episode_id``."""

    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(self, config: ServeConfig):
        super().__init__()
        self.config = config
        self.session: Session | None = None
        self._requests = 0  # resets and steps served: an HTTP request's object serves one

    def _new(
        self, seed: Any, episode_id: Any, task: Any, trial: Any, static: Any, no_user: Any, setting: Any
    ) -> Session | SttuiObservation:
        self._requests += 1
        try:
            loaded, chosen, settings, eid = self._opening(seed, episode_id, task, trial, static, no_user, setting)
            if self.session is not None:
                self.config.end(self.session, "a new reset replaced it")
                self.session = None
            session = Session(self.config, loaded, chosen, eid, settings)
        except BridgeError as exc:
            return _refused(task, str(exc))
        except StoreError as exc:
            return _refused(task, f"the episode cannot be recorded: {exc}")
        self.config.hold(session)
        self.session = session
        return session

    def _opening(
        self, seed: Any, episode_id: Any, task: Any, trial: Any, static: Any, no_user: Any, setting: Any
    ) -> tuple[LoadedTask, int, RunSettings, str]:
        """What a reset asks for, checked: its task, seed, settings and episode id (a
        BridgeError says what is wrong, in the reset's own words)."""
        problem = reset_problem(seed, episode_id, trial, static, no_user, setting)
        if problem is not None:
            raise BridgeError(problem)
        config = self.config
        loaded = config.task(task)
        settings = _settings(config, loaded, task is None, static, no_user, setting)
        try:
            plan = run_plan(
                [loaded],
                seed=config.seed,
                static=settings.static,
                no_user=settings.no_user,
                setting=settings.explore_setting,
            )
        except BridgeError as exc:
            raise BridgeError(api_words(str(exc))) from None
        chosen = seed
        if chosen is None:
            chosen = plan.seed_for(loaded, trial or 0)
            if chosen > MAX_SEED:
                raise BridgeError(
                    f"trial {trial} plays seed {chosen - trial} + {trial}, past the largest seed, {MAX_SEED}"
                )
        eid = episode_id or uuid.uuid4().hex
        if episode_id and config.in_use(eid):
            raise BridgeError(f"episode id {eid} is in use")
        return loaded, chosen, settings, eid

    def reset(
        self,
        seed: int | None = None,
        episode_id: str | None = None,
        task: str | None = None,
        trial: int = 0,
        static: bool | None = None,
        no_user: bool | None = None,
        setting: str | None = None,
        **_: Any,
    ) -> SttuiObservation:
        """A new episode of ``task`` (default: the first served). ``seed`` wins; else trial
        ``trial`` of the run plan (the base seed plus the trial's index, as in ``sttui run``)."""
        return _observation(self.reset_fields(seed, episode_id, task, trial, static, no_user, setting))

    def reset_fields(
        self,
        seed: int | None = None,
        episode_id: str | None = None,
        task: str | None = None,
        trial: int = 0,
        static: bool | None = None,
        no_user: bool | None = None,
        setting: str | None = None,
        **_: Any,
    ) -> dict[str, Any] | SttuiObservation:
        """:meth:`reset`'s observation as plain fields (an error: the observation itself)."""
        session = self._new(seed, episode_id, task, trial, static, no_user, setting)
        if isinstance(session, SttuiObservation):
            return session
        try:
            session.stepper.reset()
        except Exception as exc:
            return self._failed(session, exc)
        return session.fields(first=True)

    async def reset_async(
        self,
        seed: int | None = None,
        episode_id: str | None = None,
        task: str | None = None,
        trial: int = 0,
        static: bool | None = None,
        no_user: bool | None = None,
        setting: str | None = None,
        **_: Any,
    ) -> SttuiObservation:
        session = self._new(seed, episode_id, task, trial, static, no_user, setting)
        if isinstance(session, SttuiObservation):
            return session
        failure = await _taken(session, session.stepper.areset())
        if failure is not None:
            return self._failed(session, failure)
        return _observation(session.fields(first=True))

    def _prepare(self, episode_id: Any, data: dict[str, Any]) -> tuple[Session | None, Any]:
        """The action's episode and the sttui action, or an error observation (or its fields)."""
        self._requests += 1
        if episode_id is not None and type(episode_id) is not str:
            return None, _gone("", f"episode_id must be the id its reset returned (text); got {shown(episode_id)}")
        session = self.config.find(episode_id) if episode_id else self.session
        if session is None:
            return None, self._missing(episode_id)
        stepper = session.stepper
        if stepper.done or stepper.failed is not None:
            why = f" in an error ({stepper.failed})" if stepper.failed is not None else ""
            return None, _gone(session, f"the episode has ended{why}: reset to start another")
        if session.busy:
            error = "a step of this episode is still being taken: wait for its observation"
            return None, SttuiObservation(
                episode_id=session.episode_id, task=session.loaded.id, kind=session.loaded.kind, error=error
            )
        problem = action_problem(data)
        if problem is None and type(data.get("args")) is str:  # arguments as JSON text: their escapes
            problem = action_problem({"args": _decoded(data["args"])})  # are read only once decoded
        if problem is not None:
            return None, session.fields(error=problem)
        parsed = parse_action(session.loaded.kind, data)
        if isinstance(parsed, str):
            return None, session.fields(error=parsed)
        return session, parsed

    def _missing(self, episode_id: str | None) -> SttuiObservation:
        """No episode for the step: none named (and none held), an id that is none, or one gone."""
        if not episode_id:
            return _gone("", "no episode: reset first (over HTTP, each step names the episode_id its reset returned)")
        if not EPISODE_ID.fullmatch(episode_id):
            return _gone("", f"no live episode with that episode_id: a reset returns ids of {EPISODE_ID_RULE}")
        why = self.config.why_gone(episode_id)
        if why is not None:
            return _gone(episode_id, f"episode {episode_id} was dropped {why}: reset to start another")
        return _gone(episode_id, f"no live episode '{episode_id}' (it ended, or was never begun here)")

    def step(
        self, action: SttuiAction, timeout_s: float | None = None, episode_id: str | None = None, **_: Any
    ) -> SttuiObservation:
        """``episode_id``: the request's own, beside the action (``{"action": …, "episode_id": …}``),
        when the action names none: HTTP passes a step request's other fields on as arguments."""
        return _observation(self.step_fields(_action_data(action), action.episode_id or episode_id))

    def step_fields(self, data: dict[str, Any], episode_id: str | None = None) -> dict[str, Any] | SttuiObservation:
        """:meth:`step` on the action's fields (tool, args, message: those not None), its
        observation as plain fields (an error before the episode is found: the observation)."""
        session, parsed = self._prepare(episode_id, data)
        if session is None:
            return parsed
        try:
            session.stepper.step(parsed)
        except EpisodeOver as exc:
            return session.fields(error=str(exc))
        except NeedsEventLoop:
            raise
        except Exception as exc:
            return self._failed(session, exc)
        return self._stepped(session)

    async def step_async(
        self, action: SttuiAction, timeout_s: float | None = None, episode_id: str | None = None, **_: Any
    ) -> SttuiObservation:
        session, parsed = self._prepare(action.episode_id or episode_id, _action_data(action))
        if session is None:
            return _observation(parsed)
        failure = await _taken(session, session.stepper.astep(parsed))
        if isinstance(failure, EpisodeOver):
            return session.observation(error=str(failure))
        if failure is not None:
            return self._failed(session, failure)
        return _observation(self._stepped(session))

    def _stepped(self, session: Session) -> dict[str, Any]:
        fields = session.fields()
        if fields["done"]:
            self.config.forget(session)
        return fields

    def _failed(self, session: Session, exc: Exception) -> SttuiObservation:
        """A reset or step that failed inside the engine, the user seat or the record: the
        episode is over (its stepping coroutine cannot be resumed), said in one line; its
        record, if any, ends errored."""
        why = session.stepper.failed or where_raised(exc)
        log.warning("sttui rl: episode %s ended in an error: %s", session.episode_id, why)
        log.debug("sttui rl: the error's traceback", exc_info=exc)
        self.config.end(session, why, status="errored")
        return _gone(session, f"the episode ended in an error ({why}): reset to start another")

    @property
    def state(self) -> SttuiState:
        s = self.session
        if s is None or s.stepper.episode is None:
            return SttuiState()
        return SttuiState(
            episode_id=s.episode_id,
            step_count=s.stepper.episode.steps,
            task=s.loaded.id,
            seed=s.seed,
            done=s.stepper.done,
        )

    def close(self) -> None:
        """Called by OpenEnv after every HTTP request and when a WebSocket session ends. An HTTP
        reset's episode (an object that served one request) waits in the table for its steps;
        a WebSocket session's episode ends with it."""
        session, self.session = self.session, None
        if session is None:
            return
        if self._requests <= 1:
            self.config.release(session)
        else:
            self.config.end(session, "its WebSocket session closed")


async def _taken(session: Session, stepping: Any) -> Exception | None:
    """Await a reset or step of ``session`` (marked busy meanwhile): the error it raised, if any."""
    session.busy = True
    try:
        await stepping
    except NeedsEventLoop:
        raise
    except Exception as exc:
        return exc
    finally:
        session.busy = False
    return None


def _decoded(text: str) -> Any:
    """JSON text's value, or None when it is not JSON or nests too deep (the parser says so)."""
    from sttui.core.callsyntax import MAX_NESTING, nesting

    if nesting(text) > MAX_NESTING:
        return None
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


def _gone(where: Session | str, error: str) -> SttuiObservation:
    """An error observation that ends the exchange (no episode to step: none, or over)."""
    if isinstance(where, str):
        return SttuiObservation(episode_id=where, error=error, done=True, reward=0.0)
    ep = where.stepper.episode
    return SttuiObservation(
        episode_id=where.episode_id,
        task=where.loaded.id,
        kind=where.loaded.kind,
        error=error,
        done=True,
        reward=0.0,
        steps=ep.steps if ep is not None else 0,
    )


def _action_data(action: SttuiAction) -> dict[str, Any]:
    """The action's tool, args and message (those given), as ``parse_action`` reads them."""
    data: dict[str, Any] = {}
    for name in ("tool", "args", "message"):
        value = getattr(action, name)
        if value is not None:
            data[name] = value
    return data


def _observation(fields: dict[str, Any] | SttuiObservation) -> SttuiObservation:
    return fields if isinstance(fields, SttuiObservation) else SttuiObservation(**fields)


# -- the server --------------------------------------------------------------------------------


def make_app(config: ServeConfig, max_sessions: int = 64) -> Any:
    """OpenEnv's FastAPI app serving ``config``'s tasks."""
    app = create_app(
        lambda: SttuiEnvironment(config),
        SttuiAction,
        SttuiObservation,
        env_name="sttui",
        max_concurrent_envs=max_sessions,
    )
    app.add_middleware(_QuietClose)
    return app


class _QuietClose:
    """ASGI middleware: a WebSocket client that has gone is no error. openenv-core's session
    closes the socket once more after the client's own close (or a dropped connection), and
    Starlette raises ``WebSocketDisconnect`` for that, which the server would log as a
    60-line traceback for every ordinary close."""

    def __init__(self, app: Any):
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "websocket":
            return await self.app(scope, receive, send)
        from starlette.websockets import WebSocketDisconnect

        try:
            await self.app(scope, receive, send)
        except WebSocketDisconnect as exc:
            log.debug("sttui rl: a WebSocket client left (close code %s)", exc.code)


# -- the client --------------------------------------------------------------------------------


class SttuiEnv(EnvClient[SttuiAction, SttuiObservation, SttuiState]):
    """The OpenEnv client for ``sttui rl serve`` (a WebSocket session: one episode at a time).
    A server gone mid-episode is a ``ConnectionError`` that says so, not a bare socket error."""

    async def _send_and_receive(self, message: dict[str, Any]) -> dict[str, Any]:
        from websockets.exceptions import ConnectionClosed

        try:
            return await super()._send_and_receive(message)
        except (ConnectionClosed, OSError) as exc:
            raise ConnectionError(
                f"the sttui environment server at {self._ws_url} closed the connection during "
                f"{message.get('type', 'a request')} ({exc}); this episode is lost: connect again and reset"
            ) from exc

    def _step_payload(self, action: SttuiAction) -> dict[str, Any]:
        return action.model_dump(exclude_none=True, exclude={"metadata"})

    def _parse_result(self, payload: dict[str, Any]) -> StepResult[SttuiObservation]:
        obs = SttuiObservation(
            **payload.get("observation", {}), done=payload.get("done", False), reward=payload.get("reward")
        )
        return StepResult(observation=obs, reward=payload.get("reward"), done=payload.get("done", False))

    def _parse_state(self, payload: dict[str, Any]) -> SttuiState:
        return SttuiState(**payload)


# -- in-process, Gymnasium-style, and its observations without a model built -------------------


class GymEnv:
    """The episode in-process, Gymnasium-style: ``reset() -> (obs, info)``,
    ``step(action) -> (obs, reward, terminated, truncated, info)``; observations and actions
    are the server's (plain dicts). No event loop: as fast as the engine allows."""

    def __init__(self, config: ServeConfig):
        self.env = SttuiEnvironment(config)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[dict[str, Any], dict]:
        episode_id = f"gym-{next(self.env.config.gym_ids)}"  # (the config's count: unique among its GymEnvs)
        fields = self.env.reset_fields(seed=seed, episode_id=episode_id, **(options or {}))
        return _plain(fields), {}

    def step(self, action: dict[str, Any]) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        if _plain_action(action):  # what SttuiAction would accept as it is: no model built
            fields = self.env.step_fields(
                {k: v for k, v in action.items() if v is not None and k != "episode_id"}, action.get("episode_id")
            )
        else:
            try:
                act = SttuiAction(**action)
            except Exception as exc:
                obs = SttuiObservation(error=f"malformed action: {exc}")
                return self._out(obs), 0.0, False, False, {}
            fields = self.env.step_fields(_action_data(act), act.episode_id)
        out = _plain(fields)
        return out, float(out["reward"] or 0.0), bool(out["done"]), False, {}

    @staticmethod
    def _out(obs: SttuiObservation) -> dict[str, Any]:
        return obs.model_dump(exclude={"metadata"})


_ACTION_FIELDS = frozenset(("tool", "args", "message", "episode_id"))


def _plain_action(action: Any) -> bool:
    """A dict of the action's own fields with text (or None) where text goes: what
    ``SttuiAction`` takes unchanged (anything else goes through the model, for its errors)."""
    if type(action) is not dict or not action.keys() <= _ACTION_FIELDS:
        return False
    get = action.get
    return type(get("tool")) in _TEXT and type(get("message")) in _TEXT and type(get("episode_id")) in _TEXT


_TEXT = (str, type(None))  # (checked one by one: this runs on every step)


def _plain(fields: dict[str, Any] | SttuiObservation) -> dict[str, Any]:
    """The observation as ``model_dump`` gives it (the model's own serializer, so the data is
    the caller's own: changing it changes neither the episode nor its record), without
    validating fields the session made."""
    obs = fields if isinstance(fields, SttuiObservation) else _construct(fields)
    return obs.model_dump(exclude={"metadata"})


_NAMES = tuple(SttuiObservation.__pydantic_fields__)
_OTHERS = frozenset(_NAMES) - {"metadata"}
# ``model_construct`` as it goes for this model: every field given, no alias, no extra, no post-init
_DIRECT = (
    not SttuiObservation.__pydantic_post_init__
    and SttuiObservation.model_config.get("extra") != "allow"
    and all(f.alias is None and f.validation_alias is None for f in SttuiObservation.__pydantic_fields__.values())
)


def _construct(fields: dict[str, Any]) -> SttuiObservation:
    """``SttuiObservation.model_construct(metadata={}, **fields)``: when ``fields`` holds every
    other field (as ``Session.fields`` gives them), the instance is made directly, as that call
    makes it, without its walk over each field's aliases and defaults."""
    if not _DIRECT or fields.keys() != _OTHERS:
        return SttuiObservation.model_construct(metadata={}, **fields)  # (its default factory is slow)
    values = {name: {} if name == "metadata" else fields[name] for name in _NAMES}
    obs = SttuiObservation.__new__(SttuiObservation)
    object.__setattr__(obs, "__dict__", values)
    object.__setattr__(obs, "__pydantic_fields_set__", set(_NAMES))
    object.__setattr__(obs, "__pydantic_extra__", None)
    object.__setattr__(obs, "__pydantic_private__", None)
    return obs
