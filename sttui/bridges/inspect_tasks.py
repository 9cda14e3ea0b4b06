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
import math
from typing import TYPE_CHECKING, Any

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

from sttui.bridges.episodes import BridgeError, action_of_openai, run_plan, select_tasks, tool_schemas
from sttui.controllers.model import PROTOCOL_REPAIRS, ModelFailure
from sttui.controllers.registry import make_user
from sttui.core.actions import Action
from sttui.core.chat import openai_messages
from sttui.core.loader import LoadedTask, load_task
from sttui.core.settings import RunSettings
from sttui.core.task import SttTask
from sttui.prompts import prompt

if TYPE_CHECKING:
    from sttui.store.store import Store

RESULT_KEY = "sttui"  # where the solver leaves the episode's result in the sample's metadata


# -- the tasks ------------------------------------------------------------------------


def _task(
    kind: str,
    folder: str | None,
    domain: str | None,
    level: str | None,
    tasks: str | None,
    trials: int,
    seed: int | None,
    static: bool,
    no_user: bool,
    setting: str | None,
    user: str | None,
    record: str | None,
) -> Task:
    try:
        chosen = select_tasks(kind, folder, domain, level, tasks)
        plan = run_plan(chosen, trials=trials, seed=seed, static=static, no_user=no_user, setting=setting)
    except BridgeError as exc:
        raise ValueError(f"sttui/{kind}: {exc}") from None
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
        solver=sttui_episode(seed=plan.seed, settings=plan.settings.as_dict(), user=user, record=record),
        scorer=checklist() if kind == "stt" else explore_metrics(),
        epochs=Epochs(trials, reducers),
        name=f"sttui-{kind}",
    )


@task
def stt(
    folder: str | None = None,
    domain: str | None = None,
    level: str | None = None,
    tasks: str | None = None,
    trials: int = 1,
    seed: int | None = None,
    static: bool = False,
    no_user: bool = False,
    user: str | None = None,
    record: str | None = None,
) -> Task:
    """STT-Arena dynamic tool-use tasks (the bundled ``tasks/stt`` unless ``folder``), scored
    by the checklist and judge. ``level``: easy, medium, hard or impossible; ``tasks``: ids,
    comma-separated; ``static``/``no_user``: the paper's settings; ``user``: model:M for a
    model user simulator; ``record``: an sttui database URL to record every episode into."""
    return _task("stt", folder, domain, level, tasks, trials, seed, static, no_user, None, user, record)


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
    scored by CA, EA, FR and CR. ``level``: a rule family; ``setting``: default, stationary,
    evidence_given or forced_probe."""
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
            answer = _openai_answer(output.message)
            outcome = action_of_openai(self.kind, answer)
            if not isinstance(outcome, str):
                return outcome
            messages = [*messages, output.message]
            for c in output.message.tool_calls or []:
                error = json.dumps({"success": False, "error": "not executed: " + outcome})
                messages.append(ChatMessageTool(content=error, tool_call_id=c.id, function=c.function))
            messages.append(ChatMessageUser(content=f"[Protocol] {outcome}"))
        raise ModelFailure(f"{self.name} broke the protocol {PROTOCOL_REPAIRS} times in one turn: {outcome}")


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
        result, episode = await _play(loaded, agent, seat_user, trial_seed, run_settings, record)
        state.metadata[RESULT_KEY] = {**result, "seed": trial_seed}
        if loaded.kind == "stt":
            state.messages = inspect_messages(openai_messages(episode.view, prompt("agent_stt.md")))
        elif agent.last:
            state.messages = list(agent.last)
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
) -> tuple[dict[str, Any], Any]:
    """One episode through sttui's runner, as ``sttui run`` plays a trial: the result as
    ``run --json`` gives it, and the episode. A model that keeps breaking the protocol errors
    the episode, which then counts as a failure (stt) or scores its unplayed batches as a
    random policy would (explore), as in ``sttui run``. With ``record`` (a database URL) every
    event is recorded as it happens."""
    from sttui.running.batch import _partial
    from sttui.running.runner import Seats, drive, open_episode

    actors = {"agent": agent.name, "user": user.name if user else "none"}
    episode = open_episode(loaded, seed, actors, settings=settings)
    store: Store | None = None
    episode_id = ""
    if record:
        from sttui.running.recording import Recorder
        from sttui.store import store as stores

        store, episode_id = stores.Store(record), stores.new_episode_id()
        setting = settings.label(loaded.kind, getattr(loaded.task, "setting", "default"))
        store.write(store.episode_items(loaded, seed, agent.name, user.name if user else None, episode_id, setting))
        episode.listeners.append(Recorder(store, episode_id))
    episode.start()
    try:
        result = await drive(episode, Seats(agent, user), None)
    except ModelFailure as exc:
        reason = f"{type(exc).__name__}: {exc}"
        out = {**_partial(episode, agent.name), "status": "errored", "error": reason, "end_reason": reason}
        if store is not None:
            store.finish_episode(episode_id, "errored", end_reason=reason, steps=episode.steps)
        return {**out, "episode": episode_id or None}, episode
    except BaseException as exc:
        if store is not None:
            store.finish_episode(episode_id, "errored", end_reason=f"{type(exc).__name__}: {exc}")
        raise
    if store is not None:
        from sttui.running.recording import finish

        finish(store, episode_id, result)
    return {**result.as_dict(), "status": "completed", "episode": episode_id or None}, episode


# -- the scorers ----------------------------------------------------------------------


def _num(value: Any) -> float:
    """A score's number; NaN where the metric is undefined for the episode (Inspect leaves it out)."""
    return float(value) if value is not None else math.nan


@scorer(metrics={"passed": [mean(), stderr()], "stage_score": [mean()]})
def checklist() -> Any:
    """stt: ``passed`` (1/0) by the checklist and the judge, as ``sttui run`` scores it; each
    item's verdict and detail in the metadata; ``stage_score``: the milestone review's score."""

    async def score(state: TaskState, target: Target) -> Score:
        r = state.metadata[RESULT_KEY]
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
        r = state.metadata[RESULT_KEY]
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
