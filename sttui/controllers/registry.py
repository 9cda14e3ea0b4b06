"""Turning a controller spec (``baseline:oracle``, ``human:ana``, ``model:…``) into a controller."""

from __future__ import annotations

from sttui.controllers.base import Controller
from sttui.controllers.baselines import PlanAgent, ScriptedUser
from sttui.controllers.explore_baselines import ExploreOracle, ExploreRandom, ExploreStale
from sttui.core.explore.task import ExploreTask
from sttui.core.loader import LoadedTask

AGENT_BASELINES = {"stt": ("oracle", "naive"), "explore": ("oracle", "random", "stale")}


class ControllerSpecError(ValueError):
    pass


def parse_spec(spec: str) -> tuple[str, str]:
    family, _, name = spec.partition(":")
    if family not in ("human", "baseline", "model"):
        raise ControllerSpecError(f"controller '{spec}': expected human[:NAME], baseline:NAME or model:MODEL")
    if family != "human" and not name:
        raise ControllerSpecError(f"controller '{spec}': {family} needs a name after the colon")
    return family, name


def make_agent(spec: str, loaded: LoadedTask, seed: int | None = None) -> Controller:
    family, name = parse_spec(spec)
    task = loaded.task
    if family == "baseline":
        if isinstance(task, ExploreTask):
            if name == "oracle":
                return ExploreOracle(spec, task)
            if name == "stale":
                return ExploreStale(spec, task)
            if name == "random":
                return ExploreRandom(spec, task.seed if seed is None else seed)
        elif name == "oracle":
            return PlanAgent(spec, task.solution)
        elif name == "naive":
            return PlanAgent(spec, task.naive_plan)
        raise ControllerSpecError(
            f"no {task.kind} agent baseline '{name}'; expected one of " + ", ".join(AGENT_BASELINES[task.kind])
        )
    raise ControllerSpecError(f"controller '{spec}' cannot play headless yet; use baseline:oracle or baseline:naive")


def make_user(spec: str | None) -> Controller:
    if spec in (None, "baseline:scripted", "baseline:scripted-user"):
        return ScriptedUser()
    raise ControllerSpecError(f"no user controller '{spec}'; expected baseline:scripted")
