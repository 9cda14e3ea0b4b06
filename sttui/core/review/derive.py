"""The review a task gets (its own milestones, or none), and the sequential graph that can be
derived from its solution: only on request (``sttui milestones draft TASK --from-solution``),
never silently, since a graph from the one reference path is what DynSTEER avoids.

Derivation plays the solution on a fresh episode and keeps every operation call that
succeeded and changed the state (queries, and calls a trigger made fail, are skipped). Each
becomes a milestone after the previous one, with hard constraints on the tool name and on
success and a soft constraint per argument (``equals``; ``fuzzy_match`` for text longer than
40 characters); the threshold is 0.75, so a valid path may differ in a detail or two.
"""

from __future__ import annotations

from typing import Any

from sttui.core.actions import Reply, Say, ToolCall
from sttui.core.episode import Episode
from sttui.core.review.graph import Graph
from sttui.core.review.model import Constraint, Milestone, ReviewSettings
from sttui.core.review.tracker import Review

DERIVED_THRESHOLD = 0.75
_graphs: dict[str, Graph | None] = {}  # by task version: derived or not, built once


def derive_milestones(task: Any, env_cls: Any) -> list[Milestone]:
    episode = Episode(task, env_cls, actors={"agent": "derive", "user": "derive"}, verify_queries=True)
    episode.start()
    out: list[Milestone] = []
    for step in task.solution:
        if episode.ended is not None:
            break
        if episode.turn == "user":
            episode.apply(Reply("(continue)"))
        if step.say is not None:
            episode.apply(Say(step.say))
            continue
        result = episode.apply(ToolCall(step.tool, step.args))
        changed = bool(episode.events[-1].payload.get("state_diff")) if episode.events else False
        if not (result and result.get("success") and changed and episode.tools[step.tool].kind == "operation"):
            continue
        constraints = [
            Constraint(selector="call.tool", operator="equals", expected=step.tool, hard=True),
            Constraint(selector="call.result.success", operator="equals", expected=True, hard=True),
        ]
        for name, value in step.args.items():
            long_text = isinstance(value, str) and len(value) > 40
            constraints.append(
                Constraint(
                    selector=f"call.args.{name}",
                    operator="fuzzy_match" if long_text else "equals",
                    expected=value,
                )
            )
        n = len(out) + 1
        out.append(
            Milestone(
                id=f"op-{n}",
                name=f"{step.tool} #{n} of the solution",
                after=[f"op-{n - 1}"] if out else [],
                constraints=constraints,
                threshold=DERIVED_THRESHOLD,
            )
        )
    return out


def review_for(
    loaded: Any,
    early_stop: bool = False,
    stagnation: int | None = None,
    low_quality: tuple[int, float] | None = None,
    external_scores: bool = False,
) -> Review | None:
    """A fresh review for an episode of ``loaded`` (None for tasks that have nothing to review).
    ``low_quality``: (N, threshold) of the low-quality stop; ``external_scores``: a stage judge
    feeds it judged scores instead of the rule scores."""
    task = loaded.task
    if getattr(task, "kind", None) != "stt":
        return None
    origin = getattr(task, "milestones_origin", None)
    derived = origin is not None and origin.method == "solution"
    key = loaded.content_hash
    if key not in _graphs:
        _graphs[key] = Graph.build(task.milestones) if task.milestones else None
    graph = _graphs[key]
    if graph is None:
        return None
    settings = task.review.model_copy() if task.review else None
    if stagnation is not None:
        settings = (settings or ReviewSettings()).model_copy(update={"stagnation": stagnation})
    return Review(
        graph,
        task.minefields,
        settings,
        early_stop=early_stop,
        derived=derived,
        low_quality=low_quality,
        external_scores=external_scores,
    )
