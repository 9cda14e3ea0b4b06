"""Turning a controller spec (``baseline:oracle``, ``human:ana``, ``model:…``) into a controller."""

from __future__ import annotations

from sttui.controllers.base import Controller
from sttui.controllers.baselines import PlanAgent, ScriptedUser
from sttui.core.loader import LoadedTask

AGENT_BASELINES = ("oracle", "naive")


class ControllerSpecError(ValueError):
    pass


def parse_spec(spec: str) -> tuple[str, str]:
    family, _, name = spec.partition(":")
    if family not in ("human", "baseline", "model"):
        raise ControllerSpecError(f"controller '{spec}': expected human[:NAME], baseline:NAME or model:MODEL")
    if family != "human" and not name:
        raise ControllerSpecError(f"controller '{spec}': {family} needs a name after the colon")
    return family, name


def make_agent(spec: str, loaded: LoadedTask) -> Controller:
    family, name = parse_spec(spec)
    if family == "baseline":
        if name == "oracle":
            return PlanAgent(spec, loaded.task.solution)
        if name == "naive":
            return PlanAgent(spec, loaded.task.naive_plan)
        raise ControllerSpecError(f"no agent baseline '{name}'; expected one of {', '.join(AGENT_BASELINES)}")
    raise ControllerSpecError(f"controller '{spec}' cannot play headless yet; use baseline:oracle or baseline:naive")


def make_user(spec: str | None) -> Controller:
    if spec in (None, "baseline:scripted", "baseline:scripted-user"):
        return ScriptedUser()
    raise ControllerSpecError(f"no user controller '{spec}'; expected baseline:scripted")
