"""Turning a controller spec (``baseline:oracle``, ``human:ana``, ``model:…``) into a controller."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sttui.config import ModelAlias
from sttui.controllers.base import Controller
from sttui.controllers.baselines import PlanAgent, RandomAgent, ReplayAgent, ScriptedUser
from sttui.controllers.explore_baselines import ExploreOracle, ExploreRandom, ExploreStale
from sttui.core.explore.task import ExploreTask
from sttui.core.loader import LoadedTask
from sttui.core.settings import DEFAULT, RunSettings

AGENT_BASELINES = {
    "stt": ("oracle", "naive", "random", "replay:EPISODE"),
    "explore": ("oracle", "random", "stale", "replay:EPISODE"),
}
USER_BASELINES = ("scripted",)


class ControllerSpecError(ValueError):
    pass


def parse_spec(spec: str) -> tuple[str, str]:
    family, _, name = spec.partition(":")
    if family not in ("human", "baseline", "model"):
        raise ControllerSpecError(f"controller '{spec}': expected human[:NAME], baseline:NAME or model:MODEL")
    if family != "human" and not name:
        raise ControllerSpecError(f"controller '{spec}': {family} needs a name after the colon")
    return family, name


def _model(spec: str, name: str, models: Mapping[str, ModelAlias] | None, seed: int | None = None) -> Any:
    """The model's config; ``seed`` becomes its sampling seed where the provider takes one."""
    from dataclasses import replace

    from sttui.controllers.model import ModelConfig, resolve_model

    try:
        config: ModelConfig = resolve_model(name, models)
    except ValueError as exc:
        raise ControllerSpecError(f"sttui.yaml: {exc}") from None
    return config if seed is None else replace(config, seed=seed)


def make_agent(
    spec: str,
    loaded: LoadedTask,
    seed: int | None = None,
    models: Mapping[str, ModelAlias] | None = None,
    store: Any = None,
    settings: RunSettings = DEFAULT,
) -> Controller:
    """The controller for the agent seat named by ``spec``. ``seed`` is the trial's: every
    controller that draws randomness draws from it (mixed with the task's id, so tasks that
    share a seed still get independent draws). ``settings``: the run's setting; under
    ``static`` (no trigger fires) the stt oracle plays the naive plan, the right plan when
    nothing changes."""
    family, name = parse_spec(spec)
    task = loaded.task
    seed = task.seed if seed is None else seed
    if family == "model":
        from sttui.controllers.model import ModelAgent

        tools = loaded.env_cls.tool_specs if loaded.env_cls is not None else None
        return ModelAgent(spec, _model(spec, name, models, seed), tools)
    if family == "human":
        from sttui.controllers.human import HumanController

        return HumanController(spec)
    if name.startswith("replay:"):
        return _replay(spec, name.split(":", 1)[1], loaded, store)
    if isinstance(task, ExploreTask):
        if name == "oracle":
            return ExploreOracle(spec, task)
        if name == "stale":
            return ExploreStale(spec, task)
        if name == "random":
            return ExploreRandom(spec, f"{task.id}:{seed}")
    elif name == "oracle":
        return PlanAgent(spec, task.naive_plan if settings.static else task.solution)
    elif name == "naive":
        return PlanAgent(spec, task.naive_plan)
    elif name == "random":
        assert loaded.env_cls is not None
        return RandomAgent(spec, loaded.env_cls.tool_specs, task.initial_state, f"{task.id}:{seed}")
    raise ControllerSpecError(
        f"no {task.kind} agent baseline '{name}'; expected one of " + ", ".join(AGENT_BASELINES[task.kind])
    )


def _replay(spec: str, episode: str, loaded: LoadedTask, store: Any) -> Controller:
    from sttui.core.replaying import actions_of

    if store is None:
        raise ControllerSpecError(f"{spec}: replaying needs the record (--db)")
    try:
        record = store.episode(episode)
    except Exception as exc:
        raise ControllerSpecError(f"{spec}: {exc}") from None
    if record.task_id != loaded.id:
        raise ControllerSpecError(f"{spec}: episode {record.id} is of task {record.task_id}, not {loaded.id}")
    actions = [a for actor, a in actions_of(record.kind, store.events(record.id)) if actor == record.agent]
    return ReplayAgent(spec, actions)


def make_user(spec: str | None, models: Mapping[str, ModelAlias] | None = None, seed: int | None = None) -> Controller:
    """The controller for the user seat: the scripted user by default, a model, or a person."""
    if spec in (None, "baseline:scripted", "baseline:scripted-user"):
        return ScriptedUser()
    family, name = parse_spec(spec)
    if family == "model":
        from sttui.controllers.model import ModelUser

        return ModelUser(spec, _model(spec, name, models, seed))
    if family == "human":
        from sttui.controllers.human import HumanController

        return HumanController(spec)
    raise ControllerSpecError(f"no user controller '{spec}'; expected baseline:scripted, model:MODEL or human[:NAME]")


def make_judge(spec: str | None, models: Mapping[str, ModelAlias] | None = None) -> Any:
    """None (the rule-based judge), or a model judge for impossible tasks."""
    if spec in (None, "rule"):
        return None
    family, _, name = spec.partition(":")
    if family != "model" or not name:
        raise ControllerSpecError(f"judge '{spec}': expected rule, human or model:MODEL")
    from sttui.controllers.model import ModelJudge

    return ModelJudge(spec, _model(spec, name, models))
