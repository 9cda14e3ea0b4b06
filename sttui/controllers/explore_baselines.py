"""Baselines for explore episodes: oracle (knows the rule in force), random, and stale
(knows the pre-change rule and never adapts: how much the drift costs).

Each plays the setting its view names: under ``forced_probe`` it probes the window's first
case before every batch (none of them learns from it), and under ``stationary`` nothing
drifts, so the oracle keeps the file's rule throughout."""

from __future__ import annotations

import random
from typing import Any

from sttui.core.actions import Action, Assess, Probe, SubmitBatch
from sttui.core.explore import rules as rl
from sttui.core.explore.episode import true_atoms
from sttui.core.explore.task import ExploreTask, Rule


class _RuleKnower:
    def __init__(self, name: str, task: ExploreTask):
        self.name = name
        self.task = task
        self.fields = {f.name: f for f in task.fields}
        self.calibration = rl.calibrate(task)
        self.post = rl.drifted(task.rule, task) if task.drifts else None

    def best(self, rule: Rule, cases: list[dict[str, Any]]) -> SubmitBatch:
        return SubmitBatch([rl.optimal(self.calibration.utilities(rl.score(rule, self.fields, c))) + 1 for c in cases])

    @staticmethod
    def relevant(rule: Rule) -> dict[str, str]:
        return {f.field: f.direction for f in rule.factors}


def forced_probe(view: dict[str, Any]) -> Probe | None:
    """The probe a setting demands before the batch: the window's first case, once."""
    if view["phase"] == "window" and view.get("setting") == "forced_probe" and view.get("probe_available"):
        return Probe([dict(view["cases"][0])])
    return None


class ExploreOracle(_RuleKnower):
    """Always the optimal action under the rule in force; assessments answered truly."""

    async def act(self, view: dict[str, Any]) -> Action:
        post = self.post if view.get("setting") != "stationary" else None  # the run may override the file
        drift = self.task.drift.after_batch if post is not None and self.task.drift else None
        changed = drift is not None and view["batch"] > drift
        rule = post if changed and post is not None else self.task.rule
        if view["phase"] == "window":
            return forced_probe(view) or self.best(rule, view["cases"])
        if view["phase"] == "assess_pre":
            return Assess(self.relevant(self.task.rule))
        final = post or self.task.rule
        return Assess(self.relevant(final), true_atoms(self.task) if post is not None else None)


class ExploreStale(_RuleKnower):
    """Acts optimally for the pre-change rule throughout, and reports no change."""

    def assessment(self, phase: str) -> Assess:
        return Assess(self.relevant(self.task.rule), [] if phase == "assess_final" else None)

    async def act(self, view: dict[str, Any]) -> Action:
        if view["phase"] == "window":
            return forced_probe(view) or self.best(self.task.rule, view["cases"])
        return self.assessment(view["phase"])


class ExploreRandom:
    """A uniformly random action per case; no probes; empty assessments."""

    def __init__(self, name: str, seed: int | str):
        self.name = name
        self.rng = random.Random(f"random-agent:{seed}")

    async def act(self, view: dict[str, Any]) -> Action:
        if view["phase"] == "window":
            return forced_probe(view) or SubmitBatch([self.rng.randint(1, 4) for _ in view["cases"]])
        return Assess({}, [] if view["phase"] == "assess_final" else None)
