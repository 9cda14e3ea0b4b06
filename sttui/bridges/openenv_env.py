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

The wire models and their conversions are in ``bridges.openenv_wire``; the episode table
(``ServeConfig``) and one episode (``Session``) in ``bridges.openenv_sessions``. This module
reads top to bottom in sections, each under a ``# --`` line: the environment
(``SttuiEnvironment``), the server (``make_app``), the client (``SttuiEnv``) and ``GymEnv``;
it also gives the other two modules' public names, the bridge's API. These three modules
import openenv-core, and only they do: ``pip install 'sttui[rl]'``.
"""

from __future__ import annotations

import json
import logging
import uuid
from typing import Any

from openenv.core import EnvClient
from openenv.core.client_types import StepResult
from openenv.core.env_server.http_server import create_app
from openenv.core.env_server.interfaces import Environment

from sttui.bridges.episodes import (
    BridgeError,
    EpisodeOver,
    NeedsEventLoop,
    action_problem,
    parse_action,
    run_plan,
)
from sttui.bridges.openenv_sessions import ServeConfig, Session
from sttui.bridges.openenv_wire import (
    SttuiAction,
    SttuiObservation,
    SttuiState,
    action_fields,
    as_observation,
    is_plain_action,
    plain_observation,
)
from sttui.bridges.reset_fields import (
    EPISODE_ID,
    EPISODE_ID_RULE,
    api_words,
    reset_problem,
    shown,
    task_id_problem,
)
from sttui.core.loader import LoadedTask
from sttui.core.settings import RunSettings
from sttui.core.task import MAX_SEED
from sttui.errors import StoreError, where_raised

__all__ = [  # the bridge's API, wherever each is defined
    "GymEnv",
    "ServeConfig",
    "SttuiAction",
    "SttuiEnv",
    "SttuiEnvironment",
    "SttuiObservation",
    "SttuiState",
    "make_app",
]

log = logging.getLogger("sttui.rl")


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
        return as_observation(self.reset_fields(seed, episode_id, task, trial, static, no_user, setting))

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
        return as_observation(session.fields(first=True))

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
        return as_observation(self.step_fields(action_fields(action), action.episode_id or episode_id))

    def step_fields(self, data: dict[str, Any], episode_id: str | None = None) -> dict[str, Any] | SttuiObservation:
        """:meth:`step` on the action's fields (tool, args, message: those not None), its
        observation as plain fields (an error before the episode is found: the observation)."""
        session, parsed = self._prepare(episode_id, data)
        if session is None:
            error: dict[str, Any] | SttuiObservation = parsed  # (without a session, _prepare gives the error)
            return error
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
        session, parsed = self._prepare(action.episode_id or episode_id, action_fields(action))
        if session is None:
            return as_observation(parsed)
        failure = await _taken(session, session.stepper.astep(parsed))
        if isinstance(failure, EpisodeOver):
            return session.observation(error=str(failure))
        if failure is not None:
            return self._failed(session, failure)
        return as_observation(self._stepped(session))

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
            await self.app(scope, receive, send)
            return
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
            received: dict[str, Any] = await super()._send_and_receive(message)  # (openenv is untyped)
            return received
        except (ConnectionClosed, OSError) as exc:
            raise ConnectionError(
                f"the sttui environment server at {self._ws_url} closed the connection during "
                f"{message.get('type', 'a request')} ({exc}); this episode is lost: connect again and reset"
            ) from exc

    def _step_payload(self, action: SttuiAction) -> dict[str, Any]:
        payload: dict[str, Any] = action.model_dump(exclude_none=True, exclude={"metadata"})
        return payload

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

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        episode_id = f"gym-{next(self.env.config.gym_ids)}"  # (the config's count: unique among its GymEnvs)
        fields = self.env.reset_fields(seed=seed, episode_id=episode_id, **(options or {}))
        return plain_observation(fields), {}

    def step(self, action: dict[str, Any]) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        if is_plain_action(action):  # what SttuiAction would accept as it is: no model built
            fields = self.env.step_fields(
                {k: v for k, v in action.items() if v is not None and k != "episode_id"}, action.get("episode_id")
            )
        else:
            try:
                act = SttuiAction(**action)
            except Exception as exc:
                obs = SttuiObservation(error=f"malformed action: {exc}")
                return self._out(obs), 0.0, False, False, {}
            fields = self.env.step_fields(action_fields(act), act.episode_id)
        out = plain_observation(fields)
        return out, float(out["reward"] or 0.0), bool(out["done"]), False, {}

    @staticmethod
    def _out(obs: SttuiObservation) -> dict[str, Any]:
        out: dict[str, Any] = obs.model_dump(exclude={"metadata"})
        return out
