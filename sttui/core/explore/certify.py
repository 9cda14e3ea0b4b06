"""Numerical certificates of an explore episode: the utility invariant and the drift share."""

from __future__ import annotations

import random

from sttui.core.explore import rules as rl
from sttui.core.explore.task import ExploreTask

SHARE_RANGE = (0.25, 0.75)
SAMPLES = 4000


def utility_invariant_violations(task: ExploreTask, samples: int = SAMPLES) -> int:
    """Cases (pre- and post-change) whose four utilities do not sum to zero, or whose
    optimal action is not the one whose anchor is nearest the calibrated score."""
    cal = rl.calibrate(task)
    fields = {f.name: f for f in task.fields}
    rules = [task.rule] + ([rl.drifted(task.rule, task)] if task.drifts else [])
    rng = random.Random(f"invariant:{task.seed}")
    bad = 0
    for _ in range(samples):
        case = rl.sample_case(task.fields, rng)
        for rule in rules:
            s = rl.score(rule, fields, case)
            utils = cal.utilities(s)
            nearest = min(range(4), key=lambda a: (abs(cal.calibrated(s) - rl.ANCHORS[a]), a))
            if abs(sum(utils)) > 1e-9 or rl.optimal(utils) != nearest:
                bad += 1
    return bad


def drift_share(task: ExploreTask, samples: int = SAMPLES) -> float | None:
    """Share of post-change cases whose optimal action differs between the two rules."""
    if not task.drifts:
        return None
    cal = rl.calibrate(task)
    fields = {f.name: f for f in task.fields}
    post = rl.drifted(task.rule, task)
    rng = random.Random(f"drift-share:{task.seed}")
    changed = 0
    for _ in range(samples):
        case = rl.sample_case(task.fields, rng)
        before = rl.optimal(cal.utilities(rl.score(task.rule, fields, case)))
        after = rl.optimal(cal.utilities(rl.score(post, fields, case)))
        changed += before != after
    return changed / samples
