"""What the Inspect and OpenEnv bridges share: choosing tasks, reading an action in the form a
model answers in ``sttui run``, the agent seat's observation, and a steppable episode.

:class:`Stepper` runs :func:`sttui.running.runner.drive` (the runner every ``sttui run`` episode goes
through) with the agent seat held from outside: each time the runner asks the agent seat, the
driving coroutine suspends and hands back the seat's view; :meth:`Stepper.step` resumes it with
the next action. The user seat (the scripted user, or a model) acts inside the runner as in
``sttui run``. With a user that never waits on I/O the stepping is plain function calls, with no
event loop (the in-process wrapper's speed comes from that); a model user needs
:meth:`Stepper.astep`, which passes the runner's waits on to the caller's event loop.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Generator, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sttui.config import ModelAlias
from sttui.controllers.model import MAX_ANSWER_CHARS, _parse_explore, _parse_stt, too_long
from sttui.controllers.registry import make_judge, make_user
from sttui.core.actions import Action, EndEpisode, ToolCall
from sttui.core.callsyntax import MAX_NESTING
from sttui.core.chat import EXPLORE_TOOLS
from sttui.core.episode import Episode
from sttui.core.events import Event
from sttui.core.explore.episode import ExploreEpisode
from sttui.core.loader import LoadedTask
from sttui.core.settings import RunSettings
from sttui.core.storable import bad_char, clean, first_bad
from sttui.paths import tasks_root
from sttui.running.plan import PlanError, RunPlan
from sttui.running.runner import AnyEpisode, EpisodeResult, drive, open_episode

END_TOOL_NAME = "end_episode"


class BridgeError(ValueError):
    """A request a bridge cannot serve (an unknown task, options that do not go together),
    said in one line."""


# -- choosing tasks -------------------------------------------------------------------


def select_tasks(
    kind: str,
    folder: str | Path | None = None,
    domain: str | None = None,
    level: str | None = None,
    task: str | None = None,
) -> list[LoadedTask]:
    """The ``kind`` tasks under ``folder`` (default: the bundled ``tasks/<kind>``), narrowed to
    domains, levels (stt) or rule families (explore), or task ids (each comma-separated). A
    domain or level none of them has is said with those they have."""
    from sttui.core.loader import load_task
    from sttui.core.taskindex import index

    root = Path(folder) if folder else tasks_root() / kind
    if not root.is_dir():
        raise BridgeError(f"no tasks folder {root}" if not root.exists() else f"{root} is not a folder")
    entries = [e for e in index().scan([root]) if e.ok and e.kind == kind]
    what = "level" if kind == "stt" else "rule family"
    for name, given, of in (
        ("domain", domain, lambda e: e.domain),
        (what, level, lambda e: e.level if kind == "stt" else e.family),
    ):
        named = {w.strip() for w in (given or "").split(",") if w.strip()}
        if not named:
            continue
        there = sorted({str(of(e)) for e in entries if of(e)})
        unknown = sorted(named - set(there))
        if unknown and entries:
            raise BridgeError(
                f"no {kind} task under {root} has {name} {', '.join(unknown)}; they have {', '.join(there)}"
            )
        entries = [e for e in entries if of(e) in named]
    if task:
        wanted = [t.strip() for t in task.split(",") if t.strip()]
        by_id = {e.id: e for e in entries}
        unknown = [t for t in wanted if t not in by_id]
        if unknown:
            raise BridgeError(f"no {kind} task {', '.join(unknown)} under {root}")
        entries = [by_id[t] for t in wanted]
    if not entries:
        what = ", ".join(f"{k} {v}" for k, v in (("domain", domain), ("level", level)) if v)
        raise BridgeError(f"no {kind} task under {root}" + (f" with {what}" if what else ""))
    return [load_task(e.path) for e in entries]


def find_task(task_id: str, folder: str | Path | None = None) -> LoadedTask:
    """One task by id (stt or explore) under ``folder`` (default: the bundled tasks)."""
    from sttui.core.loader import load_task
    from sttui.core.problems import did_you_mean
    from sttui.core.taskindex import index

    root = Path(folder) if folder else tasks_root()
    if Path(task_id).is_file():
        return load_task(task_id)
    by_id = {e.id: e for e in index().scan([root]) if e.ok and e.id is not None}
    if task_id not in by_id:
        raise BridgeError(f"no task '{task_id}' under {root}{did_you_mean(task_id, by_id)}")
    return load_task(by_id[task_id].path)


def run_plan(tasks: list[LoadedTask], *, trials: int = 1, seed: int | None = None, **settings: Any) -> RunPlan:
    """The run plan ``sttui run`` would make of these options: its seed rule and settings checks."""
    try:
        return RunPlan.build(
            tasks,
            trials=trials,
            seed=seed,
            record=False,
            settings=RunSettings(
                bool(settings.get("static")), bool(settings.get("no_user")), settings.get("setting") or None
            ),
        )
    except (PlanError, ValueError) as exc:
        raise BridgeError(str(exc)) from None


# -- actions and observations ---------------------------------------------------------


def tool_schemas(loaded: LoadedTask) -> list[dict[str, Any]]:
    """The tools a model in the agent seat is offered in ``sttui run`` (OpenAI function form)."""
    from sttui.controllers.model import END_TOOL

    if loaded.kind == "explore":
        return list(EXPLORE_TOOLS)
    assert loaded.env_cls is not None
    return [s.openai_schema() for s in loaded.env_cls.tool_specs.values()] + [END_TOOL]


def parse_action(kind: str, data: Any) -> Action | str:
    """An action from plain data, read exactly as a model's answer in ``sttui run`` is read
    (the same parser): ``{"tool": NAME, "args": {...}}`` is one tool call (``end_episode``
    ends the episode), ``{"message": TEXT}`` one message to the user (stt). A string says what
    is wrong; nothing was executed."""
    if not isinstance(data, dict):
        return 'an action is an object: {"tool": NAME, "args": {...}} or {"message": TEXT}'
    extra = set(data) - {"tool", "args", "message"}
    if extra:
        return f"unknown action field(s) {', '.join(sorted(map(str, extra)))}; expected tool and args, or message"
    tool, message = data.get("tool"), data.get("message")
    if (tool is None) == (message is None):
        return 'an action is one tool call or one message: {"tool": NAME, "args": {...}} or {"message": TEXT}'
    if tool is not None:
        if not isinstance(tool, str) or not tool:
            return "tool must be a tool's name"
        args = data.get("args", {})
        if kind == "stt" and type(args) is dict:
            plain = _json_copy(args)
            if plain is not None:  # what the JSON round trip below would give, without it
                if tool == "end_episode":
                    return EndEpisode(str(plain.get("reason") or "the agent ended the episode"))
                return ToolCall(tool, plain)
        arguments = args if isinstance(args, str) else json.dumps(args, ensure_ascii=False, default=str)
        answer: dict[str, Any] = {"content": None, "tool_calls": [{"function": {"name": tool, "arguments": arguments}}]}
    else:
        if not isinstance(message, str):
            return "message must be text"
        if len(message) > MAX_ANSWER_CHARS:  # (as a model's answer in ``sttui run`` is refused)
            return too_long(len(message))
        if kind == "explore":
            return "explore episodes take tool calls only: probe, submit_batch or answer_assessment"
        answer = {"content": message}
    return (_parse_explore if kind == "explore" else _parse_stt)(answer)


_SCALARS = (str, int, float, bool, type(None))  # (a float's JSON is its repr: read back the same)


def _json_copy(value: dict[str, Any]) -> dict[str, Any] | None:
    """A copy of ``value`` when it is plain JSON (dicts with text keys, lists, text, numbers,
    booleans, null) nested at most ``MAX_NESTING`` deep, its text every record can store: then
    it is exactly what ``json.loads(json.dumps(value))`` gives, as ``sttui run``'s parser reads
    arguments. None for anything else (tuples, other keys or values, too deep, a NUL or a lone
    surrogate), which takes that path (and its refusal)."""
    out: dict[str, Any] = {}
    stack: list[tuple[Any, Any, int]] = [(value, out, 1)]
    while stack:
        src, dst, depth = stack.pop()
        if depth > MAX_NESTING:
            return None
        items = src.items() if type(src) is dict else enumerate(src)
        for k, v in items:
            t = type(v)
            if type(dst) is dict and (type(k) is not str or "\x00" in k or (not k.isascii() and bad_char(k))):
                return None
            if t is str:
                if "\x00" in v or (not v.isascii() and bad_char(v)):
                    return None
            elif t is dict or t is list:
                copy: Any = {} if t is dict else []
                stack.append((v, copy, depth + 1))
                v = copy
            elif t not in _SCALARS:
                return None
            if type(dst) is dict:
                dst[k] = v
            else:
                dst.append(v)
    return out


MAX_TOOL_NAME_CHARS = 200


def action_problem(data: dict[str, Any]) -> str | None:
    """What makes an action's text unusable (a NUL or a lone surrogate in its tool, message or
    arguments: a record would refuse it on import, and a reply could not be written), said with
    where it is; None when the action's text is clean. Checked before anything is executed."""
    for name in ("tool", "message", "args"):
        value = data.get(name)
        if value is not None and not clean(value):
            return f"{first_bad(value, name) or name + ' holds text no record can keep'}; nothing was executed"
    tool = data.get("tool")
    if type(tool) is str and len(tool) > MAX_TOOL_NAME_CHARS:
        return f"tool: a tool's name has at most {MAX_TOOL_NAME_CHARS} characters; got {len(tool):,}"
    return None


def action_of_openai(kind: str, message: dict[str, Any]) -> Action | str:
    """A model's answer in OpenAI message form, read by ``sttui run``'s own parser."""
    return (_parse_explore if kind == "explore" else _parse_stt)(message)


# -- the steppable episode ------------------------------------------------------------


class _Turn:
    """What the driving coroutine yields when the runner asks the agent seat: its view."""

    __slots__ = ("view",)

    def __init__(self, view: Any):
        self.view = view

    def __await__(self) -> Generator[Any, Any, Any]:
        return (yield self)


class _Pass:
    """Passes a wait of the runner's (a model user's request) on to the caller's event loop."""

    __slots__ = ("waited",)

    def __init__(self, waited: Any):
        self.waited = waited

    def __await__(self) -> Generator[Any, Any, Any]:
        return (yield self.waited)


class _AgentFromOutside:
    """The runner's seats (duck-typed like :class:`sttui.running.runner.Seats`): the agent's action
    comes from whoever steps the episode; the user seat's holder acts as in ``sttui run``."""

    def __init__(self, agent_name: str, user: Any):
        self.agent = _Named(agent_name)
        self.user = user

    def __getitem__(self, seat: str) -> Any:
        return self.agent if seat == "agent" else self.user

    async def ask(self, seat: str, view: Any) -> tuple[Any, Any]:
        if seat == "agent":
            return self.agent, await _Turn(view)
        if self.user is None:
            raise ValueError("nobody holds the user seat")
        return self.user, await self.user.act(view)


@dataclass
class _Named:
    name: str


class NeedsEventLoop(RuntimeError):
    """The user seat waits on I/O (a model): step with ``astep`` inside an event loop."""


class EpisodeOver(RuntimeError):
    """A step after the episode ended."""


@dataclass
class Stepper:
    """One episode whose agent seat is stepped from outside, through sttui's runner.

    ``user``: the user seat's controller spec (None: the scripted user; stt only, as in ``run``).
    ``on_event``: every engine event as it happens (a recorder). Without one, the engine's
    events carry no state hash (``hashes`` on either engine): nothing reads them, and the record, when
    there is one, gets every hash as ``sttui run`` records it."""

    loaded: LoadedTask
    seed: int
    settings: RunSettings = field(default_factory=RunSettings)
    user: str | None = None
    agent_name: str = "rl:policy"
    on_event: Callable[[Event], Any] | None = None
    models: Mapping[str, ModelAlias] = field(default_factory=dict)
    episode: AnyEpisode | None = field(default=None, init=False)
    result: EpisodeResult | None = field(default=None, init=False)
    view: Any = field(default=None, init=False)
    failed: str | None = field(default=None, init=False)  # why the episode ended in an error, in one line
    _coro: Any = field(default=None, init=False, repr=False)
    _seen: int = field(default=0, init=False, repr=False)

    @property
    def kind(self) -> str:
        return self.loaded.kind

    @property
    def done(self) -> bool:
        return self.result is not None

    def _open(self) -> None:
        user_spec = None
        if self.kind == "stt" and not self.settings.no_user:
            user_spec = self.user or "baseline:scripted"
        seat_user = make_user(user_spec, self.models, seed=self.seed) if user_spec else None
        actors = {"agent": self.agent_name, "user": seat_user.name if seat_user else "none"}
        self.episode = open_episode(self.loaded, self.seed, actors, settings=self.settings)
        if self.on_event is not None:
            self.episode.listeners.append(self.on_event)
        else:  # nobody records it: its events need no state hash
            self.episode.hashes = False
        self.episode.start()
        self._coro = drive(self.episode, _AgentFromOutside(self.agent_name, seat_user), make_judge("rule"))

    def reset(self) -> None:
        """Open the episode and run it up to the agent's first turn (no event loop)."""
        self._open()
        self._advance(None)

    async def areset(self) -> None:
        self._open()
        await self._aadvance(None)

    def step(self, action: Action) -> None:
        """Apply the agent's action and run the episode up to the agent's next turn or its end."""
        self._check_open()
        if self.user is not None and not self.user.startswith("baseline:"):
            raise NeedsEventLoop(f"the user seat ({self.user}) waits on I/O: step with astep in an event loop")
        self._advance(action)

    async def astep(self, action: Action) -> None:
        self._check_open()
        await self._aadvance(action)

    def _check_open(self) -> None:
        if self.failed is not None:
            raise EpisodeOver(f"the episode ended in an error ({self.failed}): reset to start another")
        if self._coro is None:
            raise EpisodeOver("the episode has not started: reset first")
        if self.result is not None:
            raise EpisodeOver("the episode has ended: reset to start another")

    def _advance(self, value: Any) -> None:
        try:
            y = self._coro.send(value)
        except StopIteration as stop:
            self.result = stop.value
            return
        except BaseException as exc:
            self._fail(exc)
            raise
        if isinstance(y, _Turn):
            self.view = y.view
            return
        self._coro.close()
        self._coro = None
        self.failed = "the user seat waits on I/O (a model): step with astep in an event loop"
        raise NeedsEventLoop(self.failed)

    async def _aadvance(self, value: Any) -> None:
        send, arg = self._coro.send, value
        while True:
            try:
                y = send(arg)
            except StopIteration as stop:
                self.result = stop.value
                return
            except BaseException as exc:
                self._fail(exc)
                raise
            if isinstance(y, _Turn):
                self.view = y.view
                return
            try:
                arg, send = await _Pass(y), self._coro.send
            except BaseException as exc:  # a cancellation or the wait's error goes into the runner
                arg, send = exc, self._coro.throw

    def _fail(self, exc: BaseException) -> None:
        """An error out of the driving coroutine has ended it (it can never be resumed): the
        episode is over, and every later step says why instead of resuming a finished coroutine."""
        from sttui.errors import StoreError, where_raised

        self._coro = None
        said = str(exc) if isinstance(exc, StoreError) else where_raised(exc)
        self.failed = said if len(said) <= 300 else said[:299] + "…"

    def close(self) -> None:
        if self._coro is not None:
            self._coro.close()
            self._coro = None

    # -- what the agent sees ---------------------------------------------------------

    def new_items(self) -> list[dict[str, Any]]:
        """The stt agent view's items since the last call: the echo of the agent's own call,
        its result, the user's reply, notices; everything a model in the seat is sent."""
        ep = self.episode
        if not isinstance(ep, Episode):
            return []
        items = ep.view[self._seen :]
        self._seen = len(ep.view)
        return items

    def explore_view(self) -> dict[str, Any] | None:
        """The explore agent's masked view (what a model in the seat is sent whole each turn)."""
        ep = self.episode
        if not isinstance(ep, ExploreEpisode):
            return None
        return self.view if isinstance(self.view, dict) else ep.agent_view()

    def verdict(self) -> float:
        """The task's verdict as a reward: 1/0 for an stt pass, the calibrated accuracy of an
        explore episode (its headline score)."""
        r = self.result
        assert r is not None
        if r.kind == "stt":
            return 1.0 if r.passed else 0.0
        return float((r.metrics or {}).get("calibrated_accuracy") or 0.0)

    def stage_score(self) -> float | None:
        """The milestone review's score so far (stt tasks with a milestone graph)."""
        ep = self.episode
        if isinstance(ep, Episode) and ep.review is not None:
            return float(ep.review.score())
        return None


def texts(items: Iterable[dict[str, Any]]) -> str:
    """The items as the text a model reads (as in the OpenAI messages ``sttui run`` sends)."""
    out = []
    for item in items:
        kind = item["type"]
        if kind == "message":
            out.append(f"{item['from']}: {item['text']}")
        elif kind == "tool_call":
            out.append(f"call {item['tool']} {_ARGS_JSON(item['args'])}")
        elif kind == "tool_result":
            out.append(f"result {_RESULT_JSON(item['result'])}")
        elif kind == "notice":
            out.append(f"[Notice] {item['text']}")
    return "\n".join(out)


# ``json.dumps(…, ensure_ascii=False)`` (and with ``default=str``), their encoders made once, not
# per call
_ARGS_JSON = json.JSONEncoder(ensure_ascii=False).encode
_RESULT_JSON = json.JSONEncoder(ensure_ascii=False, default=str).encode


def action_data(action: Action) -> dict[str, Any]:
    """The plain-data form of an agent action (what :func:`parse_action` reads back)."""
    from sttui.core.actions import Assess, EndEpisode, Probe, Say, SubmitBatch, ToolCall

    if isinstance(action, ToolCall):
        return {"tool": action.tool, "args": dict(action.args)}
    if isinstance(action, Say):
        return {"message": action.text}
    if isinstance(action, EndEpisode):
        return {"tool": END_TOOL_NAME, "args": {"reason": action.reason}}
    if isinstance(action, Probe):
        return {"tool": "probe", "args": {"cases": action.cases}}
    if isinstance(action, SubmitBatch):
        return {"tool": "submit_batch", "args": {"actions": action.actions}}
    if isinstance(action, Assess):
        args: dict[str, Any] = {"relevant": action.relevant}
        if action.changes is not None:
            args["changes"] = action.changes
        return {"tool": "answer_assessment", "args": args}
    raise TypeError(f"not an agent action: {action!r}")


def baseline_actions(
    loaded: LoadedTask, baseline: str, seed: int, settings: RunSettings | None = None
) -> tuple[list[Action], EpisodeResult]:
    """The agent actions a baseline (``oracle``, ``naive``...) takes in ``sttui run`` on this
    task and seed, with the result it gets: a scripted policy to replay through a bridge."""
    import asyncio

    from sttui.controllers.registry import make_agent
    from sttui.core.replaying import actions_of
    from sttui.running.runner import run_episode

    settings = settings or RunSettings()
    agent = make_agent(f"baseline:{baseline}", loaded, seed, settings=settings)
    user = None if loaded.kind == "explore" or settings.no_user else make_user(None, seed=seed)
    result = asyncio.run(run_episode(loaded, agent, user, seed=seed, settings=settings))
    taken = [a for actor, a in actions_of(loaded.kind, result.episode.events) if actor == agent.name]
    return taken, result
