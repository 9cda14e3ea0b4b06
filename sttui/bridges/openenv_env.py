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

:class:`GymEnv` is the same episode in-process, without a server, for a trainer in Python.
openenv-core is imported here only: ``pip install 'sttui[rl]'``.
"""

from __future__ import annotations

import itertools
import threading
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
    Stepper,
    parse_action,
    run_plan,
    texts,
    tool_schemas,
)
from sttui.config import ModelAlias
from sttui.core.loader import LoadedTask
from sttui.core.settings import RunSettings
from sttui.core.task import SttTask

MAX_LIVE_EPISODES = 4096  # HTTP episodes kept at once; the oldest is dropped past it


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
    live: OrderedDict[str, Session] = field(default_factory=OrderedDict, repr=False)
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    # (the served tasks as they were read, task id -> the first of them with it): every reset asks
    _by_id: tuple[tuple[LoadedTask, ...], dict[str, LoadedTask]] | None = field(default=None, init=False, repr=False)

    def task(self, task_id: str | None) -> LoadedTask:
        if task_id is None:
            return self.tasks[0]
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

    def keep(self, session: Session) -> None:
        with self.lock:
            self.live[session.episode_id] = session
            while len(self.live) > MAX_LIVE_EPISODES:
                self.live.popitem(last=False)

    def find(self, episode_id: str) -> Session | None:
        with self.lock:
            return self.live.get(episode_id)

    def drop(self, episode_id: str) -> None:
        with self.lock:
            self.live.pop(episode_id, None)


class Session:
    """One episode as the environment steps it: observations, rewards, the record."""

    def __init__(self, config: ServeConfig, loaded: LoadedTask, seed: int, episode_id: str, settings: RunSettings):
        self.config, self.loaded, self.seed, self.episode_id = config, loaded, seed, episode_id
        self.store: Any = None
        on_event = None
        if config.record:
            from sttui.running.recording import Recorder
            from sttui.store.store import Store

            self.store = Store(config.record)
            on_event = Recorder(self.store, episode_id)
        self.stepper = Stepper(loaded, seed, settings, user=config.user, on_event=on_event, models=config.models)
        if self.store is not None:  # the episode's row before its first event
            from sttui.controllers.registry import make_user

            user = make_user(config.user, config.models).name if loaded.kind == "stt" and not settings.no_user else None
            setting = settings.label(loaded.kind, getattr(loaded.task, "setting", "default"))
            self.store.write(self.store.episode_items(loaded, seed, self.stepper.agent_name, user, episode_id, setting))
        self.stage = 0.0

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

            finish(self.store, self.episode_id, r)
        out = r.as_dict()
        keep = ("passed", "checklist", "judged_by", "review", "metrics", "end_reason", "steps", "triggers_fired")
        return {k: out[k] for k in keep if k in out}


def _settings(config: ServeConfig, static: Any, no_user: Any, setting: Any) -> RunSettings:
    if static is None and no_user is None and setting is None:
        return config.settings
    base = config.settings
    return RunSettings(
        base.static if static is None else bool(static),
        base.no_user if no_user is None else bool(no_user),
        base.explore_setting if setting is None else setting,
    )


class SttuiEnvironment(Environment[SttuiAction, SttuiObservation, SttuiState]):
    """sttui's episodes behind OpenEnv's environment interface. A WebSocket session keeps its
    episode on this object; an HTTP step finds its episode by ``episode_id``."""

    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(self, config: ServeConfig):
        super().__init__()
        self.config = config
        self.session: Session | None = None

    def _new(
        self, seed: Any, episode_id: str | None, task: str | None, trial: Any, static: Any, no_user: Any, setting: Any
    ) -> Session | SttuiObservation:
        try:
            loaded = self.config.task(task)
            settings = _settings(self.config, static, no_user, setting)
            plan = run_plan(
                [loaded],
                seed=self.config.seed,
                static=settings.static,
                no_user=settings.no_user,
                setting=settings.explore_setting,
            )
            chosen = plan.seed_for(loaded, int(trial or 0)) if seed is None else int(seed)
        except (BridgeError, ValueError, TypeError) as exc:
            return SttuiObservation(task=str(task or ""), error=str(exc), done=True, reward=0.0)
        if self.session is not None:
            self.session.stepper.close()
        self.session = Session(self.config, loaded, chosen, episode_id or uuid.uuid4().hex, settings)
        return self.session

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
        session.stepper.reset()
        return self._opened(session)

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
        await session.stepper.areset()
        return _observation(self._opened(session))

    def _opened(self, session: Session) -> dict[str, Any]:
        self.config.keep(session)
        return session.fields(first=True)

    def _prepare(self, episode_id: str | None, data: dict[str, Any]) -> tuple[Session | None, Any]:
        """The action's episode and the sttui action, or an error observation (or its fields)."""
        session = self.config.find(episode_id) if episode_id else self.session
        if session is None:
            what = (
                f"no live episode '{episode_id}' (it ended, or was never begun here)"
                if episode_id
                else "no episode: reset first (over HTTP, each step names the episode_id its reset returned)"
            )
            return None, SttuiObservation(episode_id=episode_id or "", error=what, done=True, reward=0.0)
        if session.stepper.done:
            return None, SttuiObservation(
                episode_id=session.episode_id,
                task=session.loaded.id,
                kind=session.loaded.kind,
                error="the episode has ended: reset to start another",
                done=True,
                reward=0.0,
            )
        parsed = parse_action(session.loaded.kind, data)
        if isinstance(parsed, str):
            return None, session.fields(error=parsed)
        return session, parsed

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
        return self._stepped(session)

    async def step_async(
        self, action: SttuiAction, timeout_s: float | None = None, episode_id: str | None = None, **_: Any
    ) -> SttuiObservation:
        session, parsed = self._prepare(action.episode_id or episode_id, _action_data(action))
        if session is None:
            return _observation(parsed)
        try:
            await session.stepper.astep(parsed)
        except EpisodeOver as exc:
            return session.observation(error=str(exc))
        return _observation(self._stepped(session))

    def _stepped(self, session: Session) -> dict[str, Any]:
        fields = session.fields()
        if fields["done"]:
            self.config.drop(session.episode_id)
        return fields

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
        """Called by OpenEnv after every HTTP request and when a WebSocket session ends: an
        HTTP episode lives on in the table; a WebSocket session's episode ends with it."""


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


def make_app(config: ServeConfig, max_sessions: int = 64) -> Any:
    """OpenEnv's FastAPI app serving ``config``'s tasks."""
    return create_app(
        lambda: SttuiEnvironment(config),
        SttuiAction,
        SttuiObservation,
        env_name="sttui",
        max_concurrent_envs=max_sessions,
    )


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


class GymEnv:
    """The episode in-process, Gymnasium-style: ``reset() -> (obs, info)``,
    ``step(action) -> (obs, reward, terminated, truncated, info)``; observations and actions
    are the server's (plain dicts). No event loop: as fast as the engine allows."""

    def __init__(self, config: ServeConfig):
        self.env = SttuiEnvironment(config)
        self._ids = itertools.count()

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[dict[str, Any], dict]:
        fields = self.env.reset_fields(seed=seed, episode_id=f"gym-{next(self._ids)}", **(options or {}))
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
