"""How hard each stt task is for the baselines, measured: the naive plan (the conflict-free
plan, played as is) and the random baseline (12 random valid calls, seeds 0…N-1), each with
the scripted user, their outcome, the share of checklist items they pass and their stage
score (the milestone review's score: the mean over milestones of their stage scores, 0 for
a milestone never reached).

STT-Arena's levels promise that easy tasks are easier than medium and medium than hard, so
the baselines, which do not replan, should reach further into an easy task. ``measure``
gives the figures per task and per level; ``out_of_order`` lists the solvable tasks whose
figures do not sit where their level says, each with the reason, for a person to look at.
Impossible tasks are measured but not ordered: their goal cannot be met, whatever the level
would say.
"""

from __future__ import annotations

import asyncio
from dataclasses import asdict, dataclass, field
from itertools import pairwise
from statistics import mean
from typing import Any

from sttui.controllers.registry import make_agent, make_user
from sttui.core.loader import LoadedTask
from sttui.core.task import SttTask
from sttui.core.taxonomy import LEVELS
from sttui.running.runner import run_episode

ORDERED = ("easy", "medium", "hard")


@dataclass
class Play:
    """One baseline's result on one task (means over its runs for the random baseline)."""

    runs: int
    passed: int
    items: float  # share of checklist items passed (the judge's two items on impossible tasks)
    stage: float | None  # review score; None without a milestone graph
    completion: float | None  # share of milestones settled


@dataclass
class TaskDifficulty:
    task_id: str
    domain: str
    conflict: str
    level: str
    naive: Play
    random: Play
    notes: list[str] = field(default_factory=list)

    def signal(self) -> float:
        """One figure for ordering: the mean of the two baselines' stage scores (the items
        share when a task has no milestone graph)."""
        return mean(p.stage if p.stage is not None else p.items for p in (self.naive, self.random))


async def _play(loaded: LoadedTask, spec: str, seed: int | None) -> tuple[bool, float, float | None, float | None]:
    agent = make_agent(spec, loaded, seed=seed)
    result = await run_episode(loaded, agent, make_user(None), seed=seed)
    outcome = result.outcome
    assert outcome is not None
    items = sum(i.passed for i in outcome.items) / len(outcome.items) if outcome.items else 0.0
    review = result.review
    stage = review["score"] if review else None
    completion = review["completion"] if review else None
    return outcome.passed, items, stage, completion


def _summarise(plays: list[tuple[bool, float, float | None, float | None]]) -> Play:
    stages = [p[2] for p in plays if p[2] is not None]
    completions = [p[3] for p in plays if p[3] is not None]
    return Play(
        runs=len(plays),
        passed=sum(p[0] for p in plays),
        items=round(mean(p[1] for p in plays), 3),
        stage=round(mean(stages), 3) if stages else None,
        completion=round(mean(completions), 3) if completions else None,
    )


def measure_task(loaded: LoadedTask, random_seeds: int = 10) -> TaskDifficulty:
    """The naive plan once (it is deterministic) and the random baseline once per seed."""
    task = loaded.task
    assert isinstance(task, SttTask)  # difficulty is measured on stt tasks only

    async def go() -> TaskDifficulty:
        naive = [await _play(loaded, "baseline:naive", None)]
        randoms = [await _play(loaded, "baseline:random", seed) for seed in range(random_seeds)]
        return TaskDifficulty(loaded.id, task.domain, task.conflict, task.level, _summarise(naive), _summarise(randoms))

    return asyncio.run(go())


def per_level(tasks: list[TaskDifficulty]) -> dict[str, dict[str, Any]]:
    """Per level: how many tasks, how many the naive plan passes, and the mean items share and
    stage score of each baseline."""
    out: dict[str, dict[str, Any]] = {}
    for level in LEVELS:
        here = [t for t in tasks if t.level == level]
        if not here:
            continue

        def avg(values: list[float | None]) -> float | None:
            known = [v for v in values if v is not None]
            return round(mean(known), 3) if known else None

        out[level] = {
            "tasks": len(here),
            "naive_passed": sum(t.naive.passed for t in here),
            "naive_items": avg([t.naive.items for t in here]),
            "naive_stage": avg([t.naive.stage for t in here]),
            "random_items": avg([t.random.items for t in here]),
            "random_stage": avg([t.random.stage for t in here]),
            "signal": avg([t.signal() for t in here]),
        }
    return out


def level_order(levels: dict[str, dict[str, Any]]) -> list[str]:
    """Where the levels' mean figures break easy ≥ medium ≥ hard, one line each."""
    out = []
    present = [lvl for lvl in ORDERED if lvl in levels]
    for key, what in (
        ("naive_stage", "the naive plan's stage score"),
        ("random_stage", "the random baseline's stage score"),
    ):
        for easier, harder in pairwise(present):
            a, b = levels[easier][key], levels[harder][key]
            if a is not None and b is not None and a < b:
                out.append(f"{what}: {easier} {a:.2f} is below {harder} {b:.2f}")
    return out


def out_of_order(tasks: list[TaskDifficulty], levels: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """Solvable tasks whose baseline signal sits beyond a neighbouring level's mean: an easy
    task the baselines reach less far into than the medium tasks on average, a medium one
    outside the span between the easy and hard means, a hard one they reach further into than
    the medium tasks. Each with why, in words."""
    means = {lvl: round(levels[lvl]["signal"], 2) for lvl in ORDERED if lvl in levels}
    flagged = []
    for t in tasks:
        if t.level not in means:
            continue
        s = round(t.signal(), 2)  # to the figures shown: a tie in the table is no break
        i = ORDERED.index(t.level)
        easier = next((lvl for lvl in reversed(ORDERED[:i]) if lvl in means), None)
        harder = next((lvl for lvl in ORDERED[i + 1 :] if lvl in means), None)
        reasons = []
        if easier is not None and s > means[easier]:
            reasons.append(
                f"the baselines reach further into it ({s:.2f}) than into {easier} tasks on average ({means[easier]:.2f})"
            )
        if harder is not None and s < means[harder]:
            reasons.append(
                f"the baselines reach less far into it ({s:.2f}) than into {harder} tasks on average ({means[harder]:.2f})"
            )
        if reasons:
            flagged.append(
                {
                    "task": t.task_id,
                    "level": t.level,
                    "signal": round(s, 3),
                    "why": "; ".join(reasons) + "." + _detail(t),
                }
            )
    return flagged


def _detail(t: TaskDifficulty) -> str:
    n, r = t.naive, t.random
    parts = [f" Naive plan: {'passes' if n.passed else 'fails'}, items {n.items:.2f}"]
    if n.stage is not None:
        parts.append(f", stage {n.stage:.2f} ({n.completion:.0%} of milestones settled)")
    parts.append(f"; random: {r.passed}/{r.runs} pass, items {r.items:.2f}")
    if r.stage is not None:
        parts.append(f", stage {r.stage:.2f}")
    return "".join(parts) + "."


def report(tasks: list[TaskDifficulty]) -> dict[str, Any]:
    """Everything as plain data: per task, per level, the levels' order and the flagged tasks."""
    levels = per_level(tasks)
    return {
        "tasks": [asdict(t) | {"signal": round(t.signal(), 3)} for t in tasks],
        "levels": levels,
        "level_order_breaks": level_order(levels),
        "out_of_order": out_of_order(tasks, levels),
    }
