"""The AdaExploreBench metrics (paper, appendix H), computed from a finished episode.

- Calibrated accuracy (CA): per case, the chosen action's utility normalised so that the
  expected score of a uniformly random action is 0 and the optimal action scores 1:
  (u_chosen - mean_a u_a) / (max_a u_a - mean_a u_a); utilities sum to zero, so this is
  u_chosen / max_a u_a. Averaged over all evaluation cases.
- Exact accuracy (EA): share of cases where the chosen action is an optimal one (when
  utilities tie, every best action counts).
- Both cover every scheduled case: unplayed batches (an episode that ended early, or
  errored) score as a uniformly random policy would in expectation, and the episode is
  marked ``incomplete``; ``ca_played`` is CA over the played cases alone.
- Unique probes: distinct probe points (cases, as full field vectors) queried.
- Re-probes after change: distinct pre-change probe points queried again after the change.
- Factor recognition (FR): set F1 of the predicted (field, direction) pairs against the
  rule's, averaged over the pre-change assessment (against the pre-change rule) and the
  final one (against the post-change rule); the final one alone when nothing drifts.
  ``fr_fields`` is the same F1 on field names only, to separate direction errors.
- Change recognition (CR): strict set F1 of the predicted atoms against the three true
  atoms (removed, added, reversed); defined for episodes with both assessments completed.
- The per-batch CA curve, and the first-post-change loss: the pre-change plateau (mean CA
  of the last three pre-change batches) minus CA of the first post-change batch.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sttui.core.explore.episode import ExploreEpisode, true_atoms
from sttui.core.explore.task import Rule

PLATEAU_BATCHES = 3
TIE = 1e-12  # utilities this close are a tie: either action is optimal


def set_f1(predicted: Iterable[Any], truth: Iterable[Any]) -> float:
    p, t = set(predicted), set(truth)
    if not p and not t:
        return 1.0
    tp = len(p & t)
    if tp == 0:
        return 0.0
    precision, recall = tp / len(p), tp / len(t)
    return 2 * precision * recall / (precision + recall)


def case_ca(utilities: list[float], chosen: int) -> float:
    best = max(utilities)
    mean = sum(utilities) / len(utilities)
    return (utilities[chosen] - mean) / (best - mean) if best > mean else 1.0


def random_ca(utilities: list[float]) -> float:
    """A uniformly random action's expected CA on a case: 0 by construction (the mean of the
    normalised utilities), or 1 when every action is equally good."""
    return 0.0 if max(utilities) > sum(utilities) / len(utilities) else 1.0


def _pairs(rule: Rule) -> set[tuple[str, str]]:
    return {(f.field, f.direction) for f in rule.factors}


def _atom_set(atoms: Iterable[dict[str, str]]) -> set[tuple[str, str]]:
    return {next(iter(a.items())) for a in atoms}


def _best(utilities: list[float]) -> set[int]:
    """Every action whose utility ties the maximum: each one is an exact answer."""
    top = max(utilities)
    return {i for i, u in enumerate(utilities) if u >= top - TIE}


# Whole on purpose: the paper's metrics (CA, EA, re-probes, FR, CR) side by side, each a few
# lines over the same batches, so they can be read against the paper's definitions at once.
def metrics(ep: ExploreEpisode) -> dict[str, Any]:
    """All metrics of an episode (None where undefined).

    CA and EA cover every scheduled case: a batch the episode never played scores what a
    uniformly random policy scores in expectation (CA 0; EA the share of best actions), so
    quitting early never raises a score. Such an episode is marked ``incomplete``."""
    per_batch: list[float] = []
    exact = 0.0
    ca_sum = played_sum = 0.0
    played_cases = 0
    for b, batch in enumerate(ep.batches):
        rule = ep.rule_for_batch(b)
        chosen = ep.choices[b] if b < len(ep.choices) else None
        batch_ca = []
        for i, case in enumerate(batch):
            utils = ep.utilities(case, rule)
            best = _best(utils)
            if chosen is None:  # unplayed: a uniformly random policy's expectation
                ca_sum += random_ca(utils)
                exact += len(best) / len(utils)
                continue
            batch_ca.append(case_ca(utils, chosen[i]))
            exact += chosen[i] in best
        if chosen is not None:
            per_batch.append(sum(batch_ca) / len(batch_ca))
            ca_sum += sum(batch_ca)
            played_sum += sum(batch_ca)
            played_cases += len(batch_ca)
    cases = sum(len(b) for b in ep.batches)
    played = len(ep.choices)

    def key(case: dict[str, Any]) -> tuple[Any, ...]:
        return tuple(case[f] for f in ep.fields)

    points = [(key(c), p["changed"]) for p in ep.probes for c in p["cases"]]
    pre_points = {k for k, changed in points if not changed}
    post_points = {k for k, changed in points if changed}

    out: dict[str, Any] = {
        "batches_played": played,
        "batches_scheduled": len(ep.batches),
        "incomplete": played < len(ep.batches),
        "calibrated_accuracy": ca_sum / cases if cases else None,
        "ca_played": played_sum / played_cases if played_cases else None,
        "exact_accuracy": exact / cases if cases else None,
        "unique_probes": len({k for k, _ in points}),
        "probe_cases": len(points),
        "ca_per_batch": per_batch,
        "drift_after_batch": ep.drift_after,
    }
    drift = ep.drift_after
    if drift is not None:
        out["reprobes_after_change"] = len(pre_points & post_points)
        pre = per_batch[:drift]
        if len(per_batch) > drift and pre:
            plateau = sum(pre[-PLATEAU_BATCHES:]) / len(pre[-PLATEAU_BATCHES:])
            out["pre_change_plateau"] = plateau
            out["first_post_change_loss"] = plateau - per_batch[drift]
    final = ep.assessments.get("final")
    pre_a = ep.assessments.get("pre")
    final_rule = ep.post_rule or ep.pre_rule

    def fr(answer: dict[str, Any], rule: Rule) -> tuple[float, float]:
        pairs = set(answer["relevant"].items())
        return set_f1(pairs, _pairs(rule)), set_f1({f for f, _ in pairs}, {f for f, _ in _pairs(rule)})

    if drift is None:
        if final is not None:
            out["factor_recognition"], out["fr_fields"] = fr(final, final_rule)
    else:
        scores = []
        if pre_a is not None:
            scores.append(fr(pre_a, ep.pre_rule))
        if final is not None:
            scores.append(fr(final, final_rule))
        if scores:
            out["factor_recognition"] = sum(s[0] for s in scores) / len(scores)
            out["fr_fields"] = sum(s[1] for s in scores) / len(scores)
        complete = pre_a is not None and final is not None
        out["assessments_complete"] = complete
        if final is not None and complete:
            out["change_recognition"] = set_f1(_atom_set(final.get("changes") or []), _atom_set(true_atoms(ep.task)))
    return out


def summarise(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Means over episodes; CR over episodes with completed paired assessments, with that rate."""

    def mean(key: str) -> float | None:
        vals = [r[key] for r in records if r.get(key) is not None]
        return sum(vals) / len(vals) if vals else None

    drifting = [r for r in records if r.get("drift_after_batch") is not None]
    return {
        "n": len(records),
        "incomplete": sum(bool(r.get("incomplete")) for r in records),
        "calibrated_accuracy": mean("calibrated_accuracy"),
        "exact_accuracy": mean("exact_accuracy"),
        "unique_probes": mean("unique_probes"),
        "reprobes_after_change": mean("reprobes_after_change"),
        "factor_recognition": mean("factor_recognition"),
        "change_recognition": mean("change_recognition"),
        "change_assessment_completion": (
            sum(bool(r.get("assessments_complete")) for r in drifting) / len(drifting) if drifting else None
        ),
        "first_post_change_loss": mean("first_post_change_loss"),
    }
