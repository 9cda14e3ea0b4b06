"""sttui's tasks as Inspect AI tasks: ``inspect eval sttui/stt`` and ``inspect eval sttui/explore``.

Registered through the ``inspect_ai`` package entry point (``pyproject.toml``), so Inspect
finds ``sttui/stt`` and ``sttui/explore`` by name once ``sttui[inspect]`` is installed.

- **Dataset**: one sample per task (its id; input: the opening query or scenario); trials are
  Inspect's epochs, trial ``i`` (epoch ``i+1``) on seed ``base + i`` as in ``sttui run``.
- **Solver** (:func:`sttui_episode`): drives the episode through sttui's runner with Inspect's
  model in the agent seat: the task's tools offered as Inspect tools (``ToolInfo``, the same
  schemas ``sttui run`` gives a model), one call per turn, the same parser and protocol repairs.
  The user seat is the scripted user, or a model (``user=model:M``).
- **Scorers**: :func:`checklist` (stt: ``passed`` from the checklist and judge, each item's
  detail in the score's metadata, and the milestone ``stage_score``); :func:`explore_metrics`
  (CA, EA, FR, CR). With epochs, ``pass_at_k`` is reduced too.
- ``record=URL``: each episode is also recorded into that sttui database.

inspect_ai is imported here only: ``pip install 'sttui[inspect]'``.
"""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import anyio
from inspect_ai import Epochs, Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageTool,
    ChatMessageUser,
    Model,
    get_model,
)
from inspect_ai.scorer import Score, Target, mean, pass_at, scorer, stderr
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.tool import ToolCall as InspectToolCall
from inspect_ai.tool import ToolInfo
from inspect_ai.util import LimitExceededError, sample_limits

from sttui.bridges import inspect_params as params
from sttui.bridges.episodes import BridgeError, action_of_openai, run_plan, select_tasks, tool_schemas
from sttui.config import ConfigError
from sttui.controllers.model import PROTOCOL_REPAIRS, ModelFailure, _capped, too_long
from sttui.controllers.registry import ControllerSpecError, make_user
from sttui.core.actions import Action
from sttui.core.chat import openai_messages
from sttui.core.loader import LoadedTask, load_task
from sttui.core.settings import RunSettings
from sttui.core.storable import clean
from sttui.core.task import SttTask
from sttui.prompts import prompt

if TYPE_CHECKING:
    from sttui.running.runner import AnyEpisode
    from sttui.store.store import Store

log = logging.getLogger(__name__)

RESULT_KEY = "sttui"  # where the solver leaves the episode's result in the sample's metadata


# -- the tasks ------------------------------------------------------------------------


def _task(
    kind: str,
    folder: Any,
    domain: Any,
    level: Any,
    tasks: Any,
    trials: Any,
    seed: Any,
    static: Any,
    no_user: Any,
    setting: Any,
    user: Any,
    record: Any,
) -> Task:
    """The Inspect task, its parameters checked before any sample runs: a problem is one line
    (Inspect's prerequisite error, shown without a traceback)."""
    try:
        run_settings = params.settings(kind, setting, static, no_user)
        chosen = select_tasks(
            kind,
            params.folder(folder),
            params.ids("domain", domain),
            params.ids("level", level),
            params.ids("tasks", tasks),
        )
        trials = params.count("trials", trials)
        plan = run_plan(
            chosen,
            trials=trials,
            seed=params.seed(seed),
            static=run_settings.static,
            no_user=run_settings.no_user,
            setting=run_settings.explore_setting,
        )
        user = params.user(user, run_settings.no_user, make_user)
        opened = params.record(record, _open_store)
    except (BridgeError, params.ParamProblem, ControllerSpecError, ConfigError) as exc:
        raise _prerequisite(f"sttui/{kind}: {exc}") from None
    if opened is not None and params.names_a_password(opened.url):
        log.warning(
            "sttui/%s: record= holds a password, and Inspect writes task parameters into its log: "
            "leave it out of the URL and set PGPASSWORD (or use ~/.pgpass)",
            kind,
        )
    samples = [
        Sample(
            id=t.id,
            input=_opening(t),
            metadata={"file": str(t.path), "kind": t.kind, "domain": t.task.domain, "level": _level(t)},
        )
        for t in plan.tasks
    ]
    reducers: list[Any] = ["mean"] + ([pass_at(trials)] if trials > 1 else [])
    return Task(
        dataset=MemoryDataset(samples, name=f"sttui-{kind}"),
        solver=sttui_episode(
            seed=plan.seed, settings=plan.settings.as_dict(), user=user, record=opened.url if opened else None
        ),
        scorer=checklist() if kind == "stt" else explore_metrics(),
        epochs=Epochs(trials, reducers),
        name=f"sttui-{kind}",
    )


def _open_store(url: str) -> Store:
    from sttui.store.store import Store

    return Store(url)


def _prerequisite(message: str) -> Exception:
    """Inspect's error for a task that cannot run as asked: it prints the message alone."""
    try:
        from inspect_ai._util.error import PrerequisiteError  # (not exported; a ValueError otherwise)
    except ImportError:
        return ValueError(message)
    return PrerequisiteError(message)


@task
def stt(
    folder: str | None = None,
    domain: str | None = None,
    level: str | None = None,
    tasks: str | None = None,
    trials: int = 1,
    seed: int | None = None,
    setting: str | None = None,
    static: bool = False,
    no_user: bool = False,
    user: str | None = None,
    record: str | None = None,
) -> Task:
    """STT-Arena dynamic tool-use tasks (the bundled ``tasks/stt`` unless ``folder``), scored
    by the checklist and judge. ``domain``, ``level`` (easy, medium, hard, impossible) and
    ``tasks`` (ids) take one or several, comma-separated; ``setting``: default, static,
    no-user or static/no-user (the paper's settings; also ``static``/``no_user``); ``user``:
    model:M (a litellm model name or alias) for a model user simulator; ``record``: an sttui
    database URL to record every episode into."""
    return _task("stt", folder, domain, level, tasks, trials, seed, static, no_user, setting, user, record)


@task
def explore(
    folder: str | None = None,
    domain: str | None = None,
    level: str | None = None,
    tasks: str | None = None,
    trials: int = 1,
    seed: int | None = None,
    setting: str | None = None,
    record: str | None = None,
) -> Task:
    """AdaExploreBench hidden-rule episodes (the bundled ``tasks/explore`` unless ``folder``),
    scored by CA, EA, FR and CR. ``level``: a rule family (additive, lexicographic, …);
    ``setting``: default, stationary, evidence_given or forced_probe."""
    return _task("explore", folder, domain, level, tasks, trials, seed, False, False, setting, None, record)


def _opening(t: LoadedTask) -> str:
    return str(getattr(t.task, "query", None) or getattr(t.task, "scenario", "") or t.id)


def _level(t: LoadedTask) -> str:
    return t.task.level if isinstance(t.task, SttTask) else t.task.rule.family


# -- the solver -----------------------------------------------------------------------


def tool_infos(loaded: LoadedTask) -> list[ToolInfo]:
    """The task's tools as Inspect tools: the schemas a model gets in ``sttui run``."""
    return [ToolInfo.model_validate(s["function"]) for s in tool_schemas(loaded)]


def inspect_messages(openai: list[dict[str, Any]]) -> list[ChatMessage]:
    """OpenAI chat messages (what ``sttui run`` sends a model) as Inspect's messages."""
    out: list[ChatMessage] = []
    names: dict[str, str] = {}
    for m in openai:
        role = m["role"]
        if role == "system":
            out.append(ChatMessageSystem(content=m["content"]))
        elif role == "user":
            out.append(ChatMessageUser(content=m["content"]))
        elif role == "assistant":
            calls = []
            for c in m.get("tool_calls") or []:
                names[c["id"]] = c["function"]["name"]
                calls.append(
                    InspectToolCall(
                        id=c["id"], function=c["function"]["name"], arguments=json.loads(c["function"]["arguments"])
                    )
                )
            out.append(ChatMessageAssistant(content=m.get("content") or "", tool_calls=calls or None))
        elif role == "tool":
            out.append(
                ChatMessageTool(
                    content=m["content"], tool_call_id=m["tool_call_id"], function=names.get(m["tool_call_id"])
                )
            )
    return out


def _openai_answer(message: ChatMessageAssistant) -> dict[str, Any]:
    """Inspect's assistant message in the OpenAI form ``sttui run``'s parser reads."""
    calls = [
        {
            "id": c.id,
            "type": "function",
            "function": {"name": c.function, "arguments": json.dumps(c.arguments, ensure_ascii=False)},
        }
        for c in message.tool_calls or []
    ]
    out: dict[str, Any] = {"role": "assistant", "content": message.text or None}
    if calls:
        out["tool_calls"] = calls
    return out


class InspectAgent:
    """Inspect's model in sttui's agent seat: the view as ``sttui run`` sends it, the task's
    tools, one call per turn, a broken answer sent back with the reason (at most
    ``PROTOCOL_REPAIRS`` times a turn, as for a model in ``sttui run``)."""

    def __init__(self, model: Model, loaded: LoadedTask):
        self.model = model
        self.name = f"inspect:{model}"
        self.kind = loaded.kind
        self.tools = tool_infos(loaded)
        self.last: list[ChatMessage] = []

    async def act(self, view: Any) -> Action:
        if isinstance(view, dict):  # an explore episode's masked view
            text = json.dumps(view, ensure_ascii=False, default=str)
            openai = [{"role": "system", "content": prompt("agent_explore.md")}, {"role": "user", "content": text}]
        else:
            openai = openai_messages(view.items, prompt("agent_stt.md"))
        messages = inspect_messages(openai)
        outcome: Action | str = ""
        for _ in range(PROTOCOL_REPAIRS):
            self.last = list(messages)
            output = await self.model.generate(messages, tools=self.tools)
            answer = _capped(_openai_answer(output.message))
            outcome = _read_answer(self.kind, output.message, answer)
            if not isinstance(outcome, str):
                return outcome
            calls = output.message.tool_calls or []
            if "truncated" in answer or not _keepable(output.message):
                # a runaway answer, or one no request can carry, is not sent back as it was
                messages = [*messages, ChatMessageAssistant(content="(an answer that could not be kept)")]
                calls = []
            else:
                messages = [*messages, output.message]
            for c in calls:
                error = json.dumps({"success": False, "error": "not executed: " + outcome})
                messages.append(ChatMessageTool(content=error, tool_call_id=c.id, function=c.function))
            messages.append(ChatMessageUser(content=f"[Protocol] {outcome}"))
        raise ModelFailure(f"{self.name} broke the protocol {PROTOCOL_REPAIRS} times in one turn: {outcome}")


def _keepable(message: ChatMessageAssistant) -> bool:
    return clean(message.text) and all(clean(c.function) and clean(c.arguments) for c in message.tool_calls or [])


def _read_answer(kind: str, message: ChatMessageAssistant, answer: dict[str, Any]) -> Action | str:
    """The model's answer (``answer``: in OpenAI form, capped) read as ``sttui run`` reads one:
    over ``MAX_ANSWER_CHARS`` refused
    whole, arguments Inspect could not parse as JSON refused (Inspect hands them on as ``{}``
    with a ``parse_error``: executing that would run a call the model never made), then the
    shared parser (one call per turn, text every record can store)."""
    if "truncated" in answer:
        return too_long(answer["truncated"])
    calls = message.tool_calls or []
    if len(calls) == 1 and calls[0].parse_error:
        error = " ".join(str(calls[0].parse_error).split())[:300]
        return f"The arguments of {calls[0].function} are not valid JSON ({error}). Nothing was executed."
    return action_of_openai(kind, answer)


@solver
def sttui_episode(
    seed: int | None = None,
    settings: dict[str, Any] | None = None,
    user: str | None = None,
    record: str | None = None,
) -> Solver:
    """Play the sample's sttui task with Inspect's model in the agent seat, through sttui's
    runner; the result (as ``sttui run --json`` gives it) lands in the sample's metadata."""
    run_settings = RunSettings.from_dict(settings)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        loaded = load_task(state.metadata["file"])
        trial_seed = (loaded.task.seed if seed is None else seed) + state.epoch - 1  # RunPlan.seed_for
        agent = InspectAgent(get_model(), loaded)
        user_spec = None if loaded.kind != "stt" or run_settings.no_user else (user or "baseline:scripted")
        seat_user = make_user(user_spec, seed=trial_seed) if user_spec else None

        def keep(result: dict[str, Any], episode: Any) -> None:
            state.metadata[RESULT_KEY] = {**result, "seed": trial_seed}
            if loaded.kind == "stt":
                state.messages = inspect_messages(openai_messages(episode.view, prompt("agent_stt.md")))
            elif agent.last:
                state.messages = list(agent.last)

        await _play(loaded, agent, seat_user, trial_seed, run_settings, record, keep)
        state.completed = True
        return state

    return solve


async def _play(
    loaded: LoadedTask,
    agent: InspectAgent,
    user: Any,
    seed: int,
    settings: RunSettings,
    record: str | None,
    keep: Callable[[dict[str, Any], Any], None],
) -> None:
    """One episode through sttui's runner, as ``sttui run`` plays a trial; ``keep`` gets the
    result as ``run --json`` gives it, and the episode. With ``record`` (a database URL) every
    event is recorded as it happens.

    - A model that keeps breaking the protocol errors the episode, which then counts as a
      failure (stt) or scores its unplayed batches as a random policy would (explore), as in
      ``sttui run``.
    - One of Inspect's limits on the sample (messages, tokens, cost, turns, time, working
      time) ends the episode as sttui's step limit ends one: ``limit``, scored on the state
      reached. The limit goes on to Inspect, which records it and scores the sample.
    - The sample cancelled otherwise (Ctrl-C) leaves the episode ``stopped`` at its last step,
      as ``sttui run`` leaves it on Ctrl-C: out of the record's figures, never ``errored``."""
    from sttui.running.batch import _partial
    from sttui.running.runner import Seats, closing_verdict, drive, open_episode, result_of

    actors = {"agent": agent.name, "user": user.name if user else "none"}
    episode = open_episode(loaded, seed, actors, settings=settings)
    store, episode_id = _recording(episode, loaded, record, seed, settings) if record else (None, "")

    def limited(reason: str) -> None:  # (no await: this may run in a cancelled scope)
        from sttui.running.recording import finish

        episode.end("limit", reason, "system")
        closing_verdict(episode, user)
        result = result_of(episode)
        if store is not None:
            finish(store, episode_id, result)
        keep({**result.as_dict(), "status": "completed", "episode": episode_id or None}, episode)

    episode.start()
    try:
        result = await drive(episode, Seats(agent, user), None)
    except ModelFailure as exc:
        reason = f"{type(exc).__name__}: {exc}"
        out = {**_partial(episode, agent.name), "status": "errored", "error": reason, "end_reason": reason}
        if store is not None:
            store.finish_episode(episode_id, "errored", end_reason=reason, steps=episode.steps)
        keep({**out, "episode": episode_id or None}, episode)
        return
    except LimitExceededError as exc:
        limited(f"Inspect's {exc.type} limit of {exc.limit_str} reached")
        raise
    except anyio.get_cancelled_exc_class():
        reached = _time_limit_reached()
        if reached is not None:
            limited(reached)
        elif store is not None:
            steps = episode.steps
            reason = f"interrupted (Inspect cancelled the sample: Ctrl-C or a cancel) at step {steps}"
            store.finish_episode(episode_id, "stopped", end_reason=reason, steps=steps)
        raise
    except BaseException as exc:
        reason = f"{type(exc).__name__}: {exc}"
        if store is not None:
            store.finish_episode(episode_id, "errored", end_reason=reason, steps=episode.steps)
        # (Inspect logs the sample's error; its transcript and episode id go with it)
        keep(
            {**_partial(episode, agent.name), "status": "errored", "error": reason, "episode": episode_id or None},
            episode,
        )
        raise
    if store is not None:
        from sttui.running.recording import finish

        finish(store, episode_id, result)
    keep({**result.as_dict(), "status": "completed", "episode": episode_id or None}, episode)


def _recording(
    episode: AnyEpisode, loaded: LoadedTask, record: str, seed: int, settings: RunSettings
) -> tuple[Store, str]:
    """(the record, the episode's id there) with the episode's row written and a recorder
    listening to it, so every event is committed as it happens."""
    from sttui.running.recording import Recorder
    from sttui.store import store as stores

    opened = params.record(record, _open_store)  # (opened once, when the task was made)
    assert opened is not None
    store, episode_id = opened.store, stores.new_episode_id()
    actors = episode.actors
    setting = settings.label(loaded.kind, getattr(loaded.task, "setting", "default"))
    user = actors["user"] if actors["user"] != "none" else None
    store.write(store.episode_items(loaded, seed, actors["agent"], user, episode_id, setting))
    episode.listeners.append(Recorder(store, episode_id))
    return store, episode_id


def _time_limit_reached() -> str | None:
    """Which of Inspect's clock limits on the sample has run out, said as an end reason: a time
    limit reaches the solver as a cancellation (Inspect turns it into its limit error above)."""
    try:
        limits = sample_limits()
    except RuntimeError:  # (no sample running)
        return None
    for name, what in (("time", "time"), ("working", "working time")):
        limit = getattr(limits, name)
        if limit.limit is not None and limit.remaining is not None and limit.remaining <= 0.25:
            return f"Inspect's {what} limit of {limit.limit:g} s reached"
    return None


# -- the scorers ----------------------------------------------------------------------


def _unplayed(value: dict[str, float]) -> Score:
    """A sample whose episode left no result (it stopped before sttui's runner ended it): a
    failure for stt, as an errored episode is, said so rather than a scorer's KeyError."""
    return Score(
        value=value,
        explanation="no episode result: the sample stopped before the episode ended (see its error or limit)",
        metadata={"status": "unplayed"},
    )


def _num(value: Any) -> float:
    """A score's number; NaN where the metric is undefined for the episode (Inspect leaves it out)."""
    return float(value) if value is not None else math.nan


@scorer(metrics={"passed": [mean(), stderr()], "stage_score": [mean()]})
def checklist() -> Any:
    """stt: ``passed`` (1/0) by the checklist and the judge, as ``sttui run`` scores it; each
    item's verdict and detail in the metadata; ``stage_score``: the milestone review's score."""

    async def score(state: TaskState, target: Target) -> Score:
        r = state.metadata.get(RESULT_KEY)
        if r is None:
            return _unplayed({"passed": 0.0, "stage_score": math.nan})
        items = r.get("checklist") or []
        review = r.get("review") or {}
        lines = [f"{'PASS' if i['passed'] else 'FAIL'} {i['id']}: {i.get('detail') or ''}".rstrip() for i in items]
        if r.get("error"):
            lines.insert(0, f"errored (a failure, as in sttui run): {r['error']}")
        return Score(
            value={"passed": 1.0 if r["passed"] else 0.0, "stage_score": _num(review.get("score"))},
            answer=r.get("end_reason"),
            explanation="\n".join(lines),
            metadata={
                "checklist": items,
                "judged_by": r.get("judged_by"),
                "status": r["status"],
                "review": review or None,
                "steps": r["steps"],
                "seed": r["seed"],
                "episode": r.get("episode"),
            },
        )

    return score


EXPLORE_SCORES = {
    "CA": "calibrated_accuracy",
    "EA": "exact_accuracy",
    "FR": "factor_recognition",
    "CR": "change_recognition",
}


@scorer(metrics={name: [mean(), stderr()] for name in EXPLORE_SCORES})
def explore_metrics() -> Any:
    """explore: CA, EA, FR and CR as ``sttui run`` computes them (NaN where undefined: FR
    without an assessment, CR without a rule change); every metric in the metadata."""

    async def score(state: TaskState, target: Target) -> Score:
        r = state.metadata.get(RESULT_KEY)
        if r is None:
            return _unplayed(dict.fromkeys(EXPLORE_SCORES, math.nan))
        m = r["metrics"]
        return Score(
            value={short: _num(m.get(key)) for short, key in EXPLORE_SCORES.items()},
            answer=r.get("end_reason"),
            explanation=f"errored: {r['error']}" if r.get("error") else None,
            metadata={
                "metrics": m,
                "steps": r["steps"],
                "seed": r["seed"],
                "episode": r.get("episode"),
                "status": r["status"],
            },
        )

    return score
