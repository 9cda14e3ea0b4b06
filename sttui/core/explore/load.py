"""Semantic checks of explore episode files: references between rule, drift and fields."""

from __future__ import annotations

from collections.abc import Iterable

from sttui.core.explore.task import ExploreTask
from sttui.core.problems import Loc, did_you_mean


def semantic_problems(task: ExploreTask) -> Iterable[tuple[Loc, str]]:
    names = [f.name for f in task.fields]
    if len(set(names)) != len(names):
        dup = next(n for n in names if names.count(n) > 1)
        yield ("fields",), f"duplicate field name '{dup}'"
    ids = [a.id for a in task.actions]
    if len(set(ids)) != len(ids):
        yield ("actions",), "action ids must be distinct"
    relevant = [f.field for f in task.rule.factors]
    for i, factor in enumerate(task.rule.factors):
        if factor.field not in names:
            yield ("rule", "factors", i, "field"), f"no field '{factor.field}'{did_you_mean(factor.field, names)}"
    if len(relevant) >= len(names):
        yield ("rule", "factors"), "leave at least one field out of the rule as a distractor"
    if task.drift is None:
        if task.setting != "stationary":
            yield ("drift",), f"setting '{task.setting}' needs a drift section (or use setting: stationary)"
        return
    d = task.drift
    if d.after_batch >= task.schedule.batches:
        yield (
            ("drift", "after_batch"),
            f"expected a batch before the last ({task.schedule.batches}); got {d.after_batch}",
        )
    if d.replace.factor not in relevant:
        yield (
            ("drift", "replace", "factor"),
            (
                f"'{d.replace.factor}' is not a factor of the rule"
                f"{did_you_mean(d.replace.factor, relevant)}; factors: {', '.join(relevant)}"
            ),
        )
    if d.replace.by not in names:
        yield ("drift", "replace", "by"), f"no field '{d.replace.by}'{did_you_mean(d.replace.by, names)}"
    elif d.replace.by in relevant:
        yield ("drift", "replace", "by"), f"'{d.replace.by}' is already a factor; the replacement must be a distractor"
    after = [d.replace.by if f == d.replace.factor else f for f in relevant]
    if d.reverse not in after:
        yield (
            ("drift", "reverse"),
            (
                f"'{d.reverse}' is not a factor after the change"
                f"{did_you_mean(d.reverse, after)}; factors then: {', '.join(after)}"
            ),
        )
    elif d.reverse == d.replace.by:
        yield ("drift", "reverse"), "reverse a factor that was kept, not the one just added"
