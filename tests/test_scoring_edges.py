"""Table tests at the failing branches, boundaries and averaging steps of the scoring code:
the estimators and intervals (``core/stats.py``), the run report (``batch.py``), the explore
metrics, annotator agreement and the ``report`` comparison. Every expected value is worked
out by hand from the definitions in the README ("Metrics: how each figure is computed") and
the papers, never copied from the code's output. The mutation run (README, "Mutation
testing") measures how many one-line mutants these tests catch."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import pytest

from sttui.analysis.comparison import compare
from sttui.annotate.agreement import agreement, alpha, alpha_interval, disputes, pairwise
from sttui.core.explore.metrics import case_ca, metrics, random_ca, set_f1, summarise
from sttui.core.explore.task import Rule
from sttui.core.stats import bootstrap, interval, mean_of, pass_at_k, pass_hat_k, ratio_of
from sttui.running.batch import explore_summary, report, stt_summary

# -- estimators ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("n", "c", "k", "at", "hat"),
    [
        # n - c == k: exactly one k-subset has no pass, 1 - C(3,3)/C(4,3) = 3/4 (not 1)
        (4, 1, 3, 0.75, 0.0),
        (3, 1, 2, 1 - 1 / 3, 0.0),  # n - c == k again: 1 - C(2,2)/C(3,2)
        (6, 4, 2, 1 - 1 / 15, 6 / 15),  # n - c == k: 1 - C(2,2)/C(6,2); pass^2 = C(4,2)/C(6,2)
        (6, 5, 2, 1.0, 10 / 15),  # n - c < k: every pair holds a pass
        (4, 0, 4, 0.0, 0.0),  # k == n, nothing passed
        (4, 4, 1, 1.0, 1.0),  # c == n
        (7, 3, 3, 1 - 4 / 35, 1 / 35),  # 1 - C(4,3)/C(7,3); C(3,3)/C(7,3)
        (5, 2, 1, 0.4, 0.4),  # k = 1 is the plain pass rate
    ],
)
def test_pass_at_k_and_pass_hat_k_at_their_boundaries(n, c, k, at, hat):
    assert pass_at_k(n, c, k) == pytest.approx(at)
    assert pass_hat_k(n, c, k) == pytest.approx(hat)


@pytest.mark.parametrize("fn", [pass_at_k, pass_hat_k])
@pytest.mark.parametrize(
    ("n", "c", "k", "message"),
    [
        (3, 4, 1, r"successes must be within 0\.\.3; got 4"),
        (3, -1, 1, r"successes must be within 0\.\.3; got -1"),
        (3, 3, 4, r"needs at least 4 trials; got 3"),
    ],
)
def test_estimators_say_why_counts_are_impossible(fn, n, c, k, message):
    with pytest.raises(ValueError, match=message):
        fn(n, c, k)


@pytest.mark.parametrize(("fn", "name"), [(pass_at_k, "Pass@4"), (pass_hat_k, "pass^4")])
def test_estimator_errors_name_the_figure(fn, name):
    with pytest.raises(ValueError, match=re.escape(name)):
        fn(3, 1, 4)


# -- the bootstrap: counting resamples and reading percentiles ----------------------------


def in_turn(values: list[float | None]) -> Any:
    """A statistic that ignores its resample and returns ``values`` in turn: the interval is
    then fixed by the percentile rule alone."""
    it = iter(values)
    return lambda sample: next(it)


@pytest.mark.parametrize(
    ("values", "level", "expected"),
    [
        # four values, sorted 10 20 30 40; positions q * 3 (numpy's linear rule)
        ([40, 10, 30, 20], 0.5, (17.5, 32.5)),  # q .25 -> 10 + .75*10; q .75 -> 30 + .25*10
        ([40, 10, 30, 20], 0.8, (13.0, 37.0)),  # q .1 -> pos .3; q .9 -> pos 2.7
        ([40, 10, 30, 20], 1.0, (10.0, 40.0)),  # q 0 and 1: the extremes, no neighbour past the end
        ([5, 5, 5, 5], 0.95, (5.0, 5.0)),
        # undefined resamples are left out: two of four defined is enough (half)
        ([None, 10, math.nan, 30], 1.0, (10.0, 30.0)),
        ([None, 10, None, 30], 0.5, (15.0, 25.0)),  # two values: q .25 -> pos .25
    ],
)
def test_bootstrap_percentiles_by_hand(values, level, expected):
    got = bootstrap([1, 2], in_turn(values), rounds=len(values), level=level)
    assert got == pytest.approx(expected)


@pytest.mark.parametrize(
    "values",
    [
        [None, 10, None, None],  # one of four defined: fewer than half
        [None, 1.0, None, 2.0, None, None],  # a third: still fewer than half
        [math.nan, math.nan, 3, math.nan],
        [None] * 4,
    ],
)
def test_bootstrap_gives_no_interval_when_the_statistic_is_mostly_undefined(values):
    assert bootstrap([1, 2], in_turn(values), rounds=len(values)) is None


def test_bootstrap_house_defaults_two_thousand_rounds_at_95_percent():
    calls: list[int] = []

    def count(sample):
        calls.append(len(sample))
        return float(len(calls))  # 1, 2, ..., 2000

    low, high = bootstrap(["a", "b", "c"], count)
    assert len(calls) == 2000 and set(calls) == {3}  # each resample has as many units as the data
    # q .025 over 1..2000: position 49.975 -> 50.975; q .975: position 1949.025 -> 1950.025
    assert (low, high) == pytest.approx((50.975, 1950.025))


def test_bootstrap_resamples_with_replacement_from_a_fixed_seed():
    seen: list[list[str]] = []

    def keep(sample):
        seen.append(sample)
        return 0.0

    bootstrap(["a", "b"], keep, rounds=200)
    assert {tuple(s) for s in seen} == {("a", "a"), ("a", "b"), ("b", "a"), ("b", "b")}
    again: list[list[str]] = []
    bootstrap(["a", "b"], lambda s: again.append(s) or 0.0, rounds=200)
    assert again == seen  # seeded by default: the same resamples every time
    zero: list[list[str]] = []
    bootstrap(["a", "b"], lambda s: zero.append(s) or 0.0, rounds=200, seed=0)
    assert zero == seen  # and the seed is 0, as the README says
    other: list[list[str]] = []
    bootstrap(["a", "b"], lambda s: other.append(s) or 0.0, rounds=200, seed=7)
    assert other != seen


@pytest.mark.parametrize(("units", "expected"), [([], None), ([0.5], None), ([0.5, 0.5], (0.5, 0.5))])
def test_bootstrap_needs_two_units(units, expected):
    assert bootstrap(units, lambda s: sum(s) / len(s)) == expected


@pytest.mark.parametrize(
    ("units", "expected"),
    [
        ([1 / 3], None),  # one unit: nothing to resample
        ([1 / 3, 1 / 3], [0.333333, 0.333333]),  # rounded to six places for JSON
        ([2 / 3, 2 / 3, 2 / 3], [0.666667, 0.666667]),
    ],
)
def test_interval_is_a_rounded_low_high_pair(units, expected):
    assert interval(units, lambda s: sum(s) / len(s)) == expected


def test_interval_keeps_low_and_high_in_order():
    # a resample of four is all 0 (or all 1) one time in 16, more often than 2.5 %
    assert interval([0.0, 1.0, 0.0, 1.0], lambda s: sum(s) / len(s)) == [0.0, 1.0]


@pytest.mark.parametrize(("values", "expected"), [([], None), ([1.0], 1.0), ([1.0, 2.0], 1.5), ([0.0, 0.5, 1.0], 0.5)])
def test_mean_of(values, expected):
    assert mean_of(values) == expected


@pytest.mark.parametrize(
    ("pairs", "expected"),
    [
        ([], None),
        ([(0.0, 0)], None),  # no episodes at all: undefined, not a division by zero
        ([(3.0, 4)], 0.75),
        ([(3.0, 4), (1.0, 4)], 0.5),  # pooled: 4 passes of 8 episodes
        ([(1.0, 1), (0.0, 3)], 0.25),  # pooled, not the mean of the tasks' rates (0.5)
    ],
)
def test_ratio_of_pools_clustered_counts(pairs, expected):
    assert ratio_of(pairs) == expected


# -- explore metrics: one case ------------------------------------------------------------


@pytest.mark.parametrize(
    ("utilities", "chosen", "expected"),
    [
        ([1.5, 0.5, -0.5, -1.5], 0, 1.0),
        ([1.5, 0.5, -0.5, -1.5], 1, 1 / 3),
        ([1.5, 0.5, -0.5, -1.5], 3, -1.0),
        # the definition with a non-zero mean: (u - mean) / (max - mean), mean 2, max 4
        ([4.0, 2.0, 1.0, 1.0], 0, 1.0),
        ([4.0, 2.0, 1.0, 1.0], 1, 0.0),
        ([4.0, 2.0, 1.0, 1.0], 2, -0.5),
        ([0.3, 0.3, 0.3, 0.3], 2, 1.0),  # every action equally good: any choice is the best
    ],
)
def test_case_ca_by_hand(utilities, chosen, expected):
    assert case_ca(utilities, chosen) == pytest.approx(expected)


@pytest.mark.parametrize(
    "utilities",
    [[1.5, 0.5, -0.5, -1.5], [4.0, 2.0, 1.0, 1.0], [2.0, 0.0, 0.0, 0.0], [0.3, 0.3, 0.3, 0.3], [-1.0, -1.0, -1.0, 3.0]],
)
def test_random_ca_is_the_mean_ca_of_the_four_actions(utilities):
    expected = sum(case_ca(utilities, a) for a in range(4)) / 4
    assert random_ca(utilities) == pytest.approx(expected)
    assert random_ca(utilities) in (0.0, 1.0)


@pytest.mark.parametrize(
    ("predicted", "truth", "expected"),
    [
        ([], [], 1.0),
        ([], ["a"], 0.0),  # nothing predicted, something true
        (["a"], [], 0.0),
        (["a"], ["a"], 1.0),
        (["a", "b"], ["a", "c", "d"], 0.4),  # P 1/2, R 1/3
        (["a", "b", "c"], ["a"], 0.5),  # P 1/3, R 1
        (["a", "a", "b"], ["a", "b"], 1.0),  # sets: a repeat counts once
    ],
)
def test_set_f1(predicted, truth, expected):
    assert set_f1(predicted, truth) == pytest.approx(expected)


# -- explore metrics: a whole episode, with utilities set by hand -------------------------


def rule(*pairs: tuple[str, str]) -> Rule:
    return Rule.model_validate(
        {"family": "additive", "factors": [{"field": f, "direction": d, "weight": 1} for f, d in pairs]}
    )


PRE = rule(("a", "increasing"), ("b", "increasing"))
POST = rule(("a", "decreasing"), ("c", "increasing"))  # b replaced by c, a reversed
TRUE_ATOMS = [{"removed": "b"}, {"added": "c"}, {"reversed": "a"}]


def case(a: int, pre: list[float], post: list[float] | None = None) -> dict[str, Any]:
    """A case whose utilities under the pre- and post-change rules are given outright."""
    return {"a": a, "b": 0, "pre": pre, "post": post if post is not None else pre}


@dataclass
class HandEpisode:
    """What :func:`metrics` reads from an episode, with every utility written by hand."""

    batches: list[list[dict[str, Any]]]
    choices: list[list[int]]
    drift_after: int | None = None
    probes: list[dict[str, Any]] = field(default_factory=list)
    assessments: dict[str, dict[str, Any]] = field(default_factory=dict)
    fields: tuple[str, ...] = ("a", "b")

    def __post_init__(self) -> None:
        self.pre_rule = PRE
        self.post_rule = POST if self.drift_after is not None else None
        drift = SimpleNamespace(replace=SimpleNamespace(factor="b", by="c"), reverse="a")
        self.task = SimpleNamespace(drift=drift if self.drift_after is not None else None)

    def rule_for_batch(self, index: int) -> Rule:
        return POST if self.drift_after is not None and index >= self.drift_after else PRE

    def utilities(self, case: dict[str, Any], rule: Rule) -> list[float]:
        return case["post"] if rule is POST else case["pre"]


U = [1.5, 0.5, -0.5, -1.5]  # best action 0; CA of actions 0..3: 1, 1/3, -1/3, -1
TIED = [1.0, 1.0, -1.0, -1.0]  # actions 0 and 1 both best; CA 1, 1, -1, -1


@pytest.mark.parametrize(
    ("batches", "choices", "ca", "ea", "ca_played", "per_batch", "incomplete"),
    [
        # every batch played
        ([[case(1, U), case(2, U)], [case(3, U), case(4, U)]], [[0, 1], [3, 0]], (1 + 1 / 3 - 1 + 1) / 4, 2 / 4,
         (1 + 1 / 3 - 1 + 1) / 4, [(1 + 1 / 3) / 2, 0.0], False),
        # a tie: either best action is exact
        ([[case(1, TIED), case(2, TIED)]], [[1, 2]], 0.0, 1 / 2, 0.0, [0.0], False),
        # the second of two batches never played: CA 0 and EA 1/4 (one best of four) there
        ([[case(1, U), case(2, U)], [case(3, U), case(4, U)]], [[0, 0]], 2 / 4, (2 + 1 / 4 + 1 / 4) / 4, 1.0,
         [1.0], True),
        # unplayed with a tie: two best actions of four, EA 1/2 each; and all-equal utilities: CA and EA 1
        ([[case(1, U)], [case(2, TIED), case(3, [0.0] * 4)]], [[3]], (-1 + 0 + 1) / 3, (0 + 1 / 2 + 1) / 3, -1.0,
         [-1.0], True),
        # nothing played at all
        ([[case(1, U), case(2, U)]], [], 0.0, 1 / 4, None, [], True),
        # no cases scheduled: nothing to average
        ([], [], None, None, None, [], False),
    ],
)  # fmt: skip
def test_ca_and_ea_over_every_scheduled_case(batches, choices, ca, ea, ca_played, per_batch, incomplete):
    m = metrics(HandEpisode(batches, choices))
    assert m["calibrated_accuracy"] == (None if ca is None else pytest.approx(ca))
    assert m["exact_accuracy"] == (None if ea is None else pytest.approx(ea))
    assert m["ca_played"] == (None if ca_played is None else pytest.approx(ca_played))
    assert m["ca_per_batch"] == pytest.approx(per_batch)
    assert m["incomplete"] is incomplete
    assert (m["batches_played"], m["batches_scheduled"]) == (len(choices), len(batches))
    assert m["drift_after_batch"] is None
    assert "reprobes_after_change" not in m and "first_post_change_loss" not in m


def test_utilities_this_close_are_a_tie():
    top = 0.5
    near = [top, top - 1e-12, -0.25, -0.75]  # exactly TIE below the best: both exact
    far = [top, top - 1e-9, -0.25, -0.75]
    m = metrics(HandEpisode([[case(1, near), case(2, far)]], [[1, 1]]))
    assert m["exact_accuracy"] == 0.5


def drifting(choices: list[list[int]], **kw: Any) -> HandEpisode:
    """Five batches of one case, drift after batch 4: pre-change utilities U, post-change U
    reversed (so the pre-change best action is now the worst)."""
    flipped = list(reversed(U))
    return HandEpisode([[case(i, U, flipped)] for i in range(5)], choices, drift_after=4, **kw)


@pytest.mark.parametrize(
    ("choices", "plateau", "loss"),
    [
        # per-batch CA 1/3, -1, 1, 1 before the change; the plateau is the mean of the last three
        ([[1], [3], [0], [0], [0]], (-1 + 1 + 1) / 3, (-1 + 1 + 1) / 3 - (-1)),
        ([[0], [0], [2], [1], [3]], (1 - 1 / 3 + 1 / 3) / 3, (1 - 1 / 3 + 1 / 3) / 3 - 1),
    ],
)
def test_first_post_change_loss_is_the_last_three_pre_batches_minus_the_first_post(choices, plateau, loss):
    m = metrics(drifting(choices))
    assert m["pre_change_plateau"] == pytest.approx(plateau)
    assert m["first_post_change_loss"] == pytest.approx(loss)
    assert m["drift_after_batch"] == 4


@pytest.mark.parametrize("played", [0, 1, 4])
def test_no_post_change_loss_without_a_post_change_batch(played):
    m = metrics(drifting([[0]] * played))
    assert "first_post_change_loss" not in m and "pre_change_plateau" not in m
    assert m["reprobes_after_change"] == 0


def test_probes_count_distinct_points_and_pre_change_points_probed_again():
    p1, p2, p3 = {"a": 1, "b": 1}, {"a": 2, "b": 1}, {"a": 1, "b": 2}
    probes = [
        {"cases": [p1, p1, p2], "changed": False},
        {"cases": [p1, p3], "changed": True},  # p1 probed again after the change; p3 new
        {"cases": [p3, p2], "changed": True},  # p2 again too
    ]
    m = metrics(drifting([[0]] * 5, probes=probes))
    assert m["probe_cases"] == 7 and m["unique_probes"] == 3
    assert m["reprobes_after_change"] == 2  # p1 and p2, each counted once


def assess(relevant: dict[str, str], changes: list[dict[str, str]] | None = None) -> dict[str, Any]:
    return {"relevant": relevant, "changes": changes}


RIGHT_PRE = {"a": "increasing", "b": "increasing"}
RIGHT_POST = {"a": "decreasing", "c": "increasing"}


@pytest.mark.parametrize(
    ("assessments", "fr", "fr_fields", "complete", "cr"),
    [
        # both right: FR 1; every atom named: CR 1
        ({"pre": assess(RIGHT_PRE), "final": assess(RIGHT_POST, TRUE_ATOMS)}, 1.0, 1.0, True, 1.0),
        # the final names the right fields with a wrong direction: pairs F1 1/2, fields F1 1
        ({"pre": assess(RIGHT_PRE), "final": assess({"a": "increasing", "c": "increasing"}, TRUE_ATOMS[:2])},
         (1 + 0.5) / 2, 1.0, True, 0.8),
        # the pre-change answer is judged against the pre-change rule, the final against the post-change one
        # (so each answer here, right for the other rule, gets no pair and one field of two)
        ({"pre": assess(RIGHT_POST), "final": assess(RIGHT_PRE, [])}, 0.0, 0.5, True, 0.0),
        # only the pre-change assessment: FR from it alone, no CR, not complete
        ({"pre": assess({"a": "decreasing", "b": "increasing"})}, 0.5, 1.0, False, None),
        # only the final one
        ({"final": assess({"c": "increasing"}, TRUE_ATOMS)}, 2 / 3, 2 / 3, False, None),
        # none
        ({}, None, None, False, None),
    ],
)  # fmt: skip
def test_factor_and_change_recognition_on_a_drifting_episode(assessments, fr, fr_fields, complete, cr):
    m = metrics(drifting([[0]] * 5, assessments=assessments))
    assert m.get("factor_recognition") == (None if fr is None else pytest.approx(fr))
    assert m.get("fr_fields") == (None if fr_fields is None else pytest.approx(fr_fields))
    assert m["assessments_complete"] is complete
    assert m.get("change_recognition") == (None if cr is None else pytest.approx(cr))


@pytest.mark.parametrize(
    ("final", "fr", "fr_fields"),
    [
        (assess(RIGHT_PRE, None), 1.0, 1.0),  # no drift: the final answer against the only rule
        (assess({"a": "decreasing", "b": "increasing"}, None), 0.5, 1.0),
        (None, None, None),
    ],
)
def test_factor_recognition_without_drift_uses_the_final_answer_alone(final, fr, fr_fields):
    ep = HandEpisode([[case(1, U)]], [[0]], assessments={"pre": assess({"z": "increasing"})})
    if final is not None:
        ep.assessments["final"] = final
    m = metrics(ep)
    assert m.get("factor_recognition") == fr and m.get("fr_fields") == fr_fields
    assert "assessments_complete" not in m and "change_recognition" not in m


# -- explore summary over episodes --------------------------------------------------------


def test_explore_summary_means_each_metric_over_the_episodes_that_have_it():
    records = [
        {
            "calibrated_accuracy": 1.0,
            "exact_accuracy": 1.0,
            "unique_probes": 4,
            "incomplete": False,
            "drift_after_batch": 5,
            "reprobes_after_change": 2,
            "factor_recognition": 1.0,
            "fr_fields": 1.0,
            "assessments_complete": True,
            "change_recognition": 1.0,
            "first_post_change_loss": 0.5,
        },
        {
            "calibrated_accuracy": 0.25,
            "exact_accuracy": 0.5,
            "unique_probes": 1,
            "incomplete": True,
            "drift_after_batch": 5,
            "reprobes_after_change": 0,
            "factor_recognition": 0.5,
            "fr_fields": 0.75,
            "assessments_complete": False,
        },
        {  # a stationary episode: no drift, so no change assessment is owed
            "calibrated_accuracy": 0.5,
            "exact_accuracy": 0.75,
            "unique_probes": 7,
            "incomplete": False,
            "drift_after_batch": None,
            "factor_recognition": 0.0,
            "fr_fields": 0.5,
        },
    ]
    assert summarise(records) == {
        "n": 3,
        "incomplete": 1,
        "calibrated_accuracy": pytest.approx(1.75 / 3),
        "exact_accuracy": pytest.approx(2.25 / 3),
        "unique_probes": 4.0,
        "reprobes_after_change": 1.0,
        "factor_recognition": 0.5,
        "change_recognition": 1.0,  # only the episode with both assessments
        "change_assessment_completion": 0.5,  # one of the two drifting episodes
        "first_post_change_loss": 0.5,
    }


def test_explore_summary_of_nothing_is_undefined_not_zero():
    out = summarise([{"drift_after_batch": None, "calibrated_accuracy": None}])
    assert out["n"] == 1 and out["incomplete"] == 0
    assert out["calibrated_accuracy"] is None and out["change_assessment_completion"] is None


# -- the run report (batch.py) ------------------------------------------------------------


def stt(task: str, passed: bool, **extra: Any) -> dict[str, Any]:
    return {
        "task": task,
        "kind": "stt",
        "level": "easy",
        "conflict": "T1",
        "status": "completed",
        "passed": passed,
    } | extra


def test_stt_summary_pass_at_k_for_every_k_up_to_the_fewest_trials():
    # task a: 1 pass of 3; task b: 2 of 2. Trials is the fewest any task had: 2.
    s = stt_summary([stt("a", True), stt("a", False), stt("a", False), stt("b", True), stt("b", True)])
    assert s["trials"] == 2
    assert s["pass_at_k"] == {"pass@1": pytest.approx((1 / 3 + 1) / 2), "pass@2": pytest.approx((2 / 3 + 1) / 2)}
    assert s["pass_hat_k"] == {"pass^1": pytest.approx((1 / 3 + 1) / 2), "pass^2": pytest.approx((0 + 1) / 2)}
    assert set(s["pass_at_k_ci"]) == {"pass@1", "pass@2"} and set(s["pass_hat_k_ci"]) == {"pass^1", "pass^2"}
    assert s["overall"] == pytest.approx(3 / 5)  # Pass@1 pools the episodes


@pytest.mark.parametrize(
    ("outcomes", "at", "hat"),
    [
        # two tasks with the same record: every resample gives the same figure, so the interval is a point
        ({"a": [True, False, False, False], "b": [True, False, False, False]},
         {"pass@1": 0.25, "pass@2": 0.5, "pass@3": 0.75, "pass@4": 1.0},
         {"pass^1": 0.25, "pass^2": 0.0, "pass^3": 0.0, "pass^4": 0.0}),
        ({"a": [True, True, False], "b": [True, True, False], "c": [True, True, False]},
         {"pass@1": 2 / 3, "pass@2": 1.0, "pass@3": 1.0},
         {"pass^1": 2 / 3, "pass^2": 1 / 3, "pass^3": 0.0}),
    ],
)  # fmt: skip
def test_stt_summary_intervals_of_identical_tasks_are_points(outcomes, at, hat):
    s = stt_summary([stt(t, p) for t, ps in outcomes.items() for p in ps])
    assert s["pass_at_k"] == pytest.approx(at) and s["pass_hat_k"] == pytest.approx(hat)
    assert s["pass_at_k_ci"] == {k: [round(v, 6)] * 2 for k, v in at.items()}
    assert s["pass_hat_k_ci"] == {k: [round(v, 6)] * 2 for k, v in hat.items()}
    assert s["overall_ci"] == [round(at["pass@1"], 6)] * 2


def test_stt_summary_of_one_task_has_figures_but_no_intervals():
    s = stt_summary([stt("a", True), stt("a", False)])
    assert s["pass_at_k"] == {"pass@1": 0.5, "pass@2": 1.0} and s["pass_hat_k"] == {"pass^1": 0.5, "pass^2": 0.0}
    assert s["overall_ci"] is None
    assert s["pass_at_k_ci"] == {"pass@1": None, "pass@2": None}
    assert s["pass_hat_k_ci"] == {"pass^1": None, "pass^2": None}


def test_stt_summary_counts_errored_episodes_as_failures_and_means_tool_calls_over_completed_ones():
    records = [
        stt("a", True, tool_calls=4),
        stt("a", False, tool_calls=2),
        stt("b", False, status="errored", tool_calls=30),  # errored: not in the tool-call mean
        stt("b", True),  # completed, no calls recorded: counts 0
    ]
    s = stt_summary(records)
    assert s["errored"] == 1 and s["n"] == 4
    assert s["mean_tool_calls"] == pytest.approx((4 + 2 + 0) / 3)
    assert s["levels"] == {"easy": {"n": 4, "pass_at_1": 0.5}}


def test_stt_summary_without_completed_episodes_has_no_tool_call_mean():
    s = stt_summary([stt("a", False, status="errored", tool_calls=3)])
    assert "mean_tool_calls" not in s and s["errored"] == 1 and "review" not in s


def review(score: float, completion: float = 1.0, **extra: Any) -> dict[str, Any]:
    return {"score": score, "completion": completion, "stop": None, "would_stop": None, "first_error": None} | extra


def test_stt_summary_review_means_and_the_pooled_interval_of_stage_scores():
    records = [
        stt("a", True, review=review(1.0), steps=4),
        stt("a", False, review=review(0.5, 0.5, first_error={"step": 2}), steps=6),
        stt("b", True, review=review(0.75), steps=5),
        stt("b", False),  # no review: left out of the review figures
    ]
    r = stt_summary(records)["review"]
    assert r["n"] == 3
    assert r["mean_score"] == pytest.approx(2.25 / 3) and r["mean_completion"] == pytest.approx(2.5 / 3)
    assert r["first_error_found"] == 1
    # resampling tasks: a a -> .75, b b -> .75, a b -> 2.25/3; every resample gives .75 or .75
    assert r["mean_score_ci"] == [0.75, 0.75]


def test_stt_summary_review_interval_pools_episodes_per_task():
    records = [stt("a", True, review=review(1.0), steps=1), stt("b", True, review=review(0.0), steps=1)]
    records += [stt("b", True, review=review(0.0), steps=1)]
    # a: one episode scoring 1; b: two scoring 0. Resamples: a+a 1, b+b 0, a+b 1/3.
    assert stt_summary(records)["review"]["mean_score_ci"] == [0.0, 1.0]


def explore(task: str, ca: float | None, status: str = "completed", **metrics: Any) -> dict[str, Any]:
    return {"task": task, "kind": "explore", "status": status, "metrics": {"calibrated_accuracy": ca} | metrics}


@pytest.mark.parametrize(
    ("records", "ca", "ci", "errored"),
    [
        ([explore("a", 0.5), explore("b", 0.5), explore("b", 0.5)], 0.5, [0.5, 0.5], 0),
        ([explore("a", 0.5)], 0.5, None, 0),  # one task: nothing to resample
        # an episode without CA is left out of both the mean and the interval
        ([explore("a", 1.0), explore("b", 1.0), explore("c", None, "errored")], 1.0, [1.0, 1.0], 1),
        # b's two episodes move together: resamples give 1 (a a), 0 (b b) or 1/3 (a b)
        ([explore("a", 1.0), explore("b", 0.0), explore("b", 0.0)], 1 / 3, [0.0, 1.0], 0),
    ],
)
def test_explore_summary_ca_interval_over_tasks(records, ca, ci, errored):
    s = explore_summary(records)
    assert s["calibrated_accuracy"] == pytest.approx(ca)
    assert s["calibrated_accuracy_ci"] == ci and s["errored"] == errored and s["n"] == len(records)


def test_report_counts_lists_and_totals():
    records = [
        stt("a", True, trial=0, episode="e1", tokens=100, cost=0.5),
        stt("a", False, status="errored", trial=1, episode="e2", error="ModelFailure: down", tokens=20, cost=None),
        explore("x", 0.25, trial=0, episode="e3") | {"tokens": 5, "cost": 0.25},
        {"task": "y", "kind": "explore", "status": "errored", "trial": 0, "episode": "e4", "error": "boom"},
    ]
    out = report(records)
    assert out["episodes"] == 4 and out["errored"] == 2
    assert out["errored_episodes"] == [
        {"task": "a", "trial": 1, "episode": "e2", "error": "ModelFailure: down"},
        {"task": "y", "trial": 0, "episode": "e4", "error": "boom"},
    ]
    assert out["stt"]["n"] == 2 and out["stt"]["overall"] == 0.5 and out["stt"]["errored"] == 1
    assert out["explore"]["n"] == 1  # the errored explore record without metrics is not averaged
    assert out["tokens"] == 125 and out["cost"] == 0.75


@pytest.mark.parametrize(
    ("records", "keys", "tokens", "cost"),
    [
        ([], set(), None, None),
        ([stt("a", True)], {"stt"}, None, None),  # no model: no token figures
        ([explore("x", 1.0)], {"explore"}, None, None),
        ([stt("a", True, tokens=0, cost=None)], {"stt", "tokens", "cost"}, 0, None),  # tokens, no prices
        ([stt("a", True, tokens=3, cost=0.0), stt("a", True, tokens=4)], {"stt", "tokens", "cost"}, 7, 0.0),
    ],
)
def test_report_sections_appear_only_with_their_records(records, keys, tokens, cost):
    out = report(records)
    assert set(out) - {"episodes", "errored", "errored_episodes"} == keys
    assert out.get("tokens") == tokens and out.get("cost") == cost
    assert out["episodes"] == len(records) and out["errored"] == 0 and out["errored_episodes"] == []


# -- annotator agreement ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ratings", "exact", "within_1"),
    [
        ({}, None, None),
        ({"x": {"a": 3}}, None, None),  # one rating: no pair
        ({"x": {"a": 3, "b": 3}}, 1.0, 1.0),
        ({"x": {"a": 3, "b": 4}}, 0.0, 1.0),  # one point apart: within 1, not exact
        ({"x": {"a": 2, "b": 4}}, 0.0, 0.0),  # two points apart: neither
        # item-averaged, not pooled over pairs: x 1 of 1, y 0 of 3 (pooled would be 1/4)
        ({"x": {"a": 3, "b": 3}, "y": {"a": 1, "b": 2, "c": 4}}, (1 + 0) / 2, (1 + 1 / 3) / 2),
    ],
)
def test_pairwise_agreement(ratings, exact, within_1):
    assert pairwise(ratings, 0) == (None if exact is None else pytest.approx(exact))
    assert pairwise(ratings, 1) == (None if within_1 is None else pytest.approx(within_1))


@pytest.mark.parametrize(
    ("ratings", "expected"),
    [
        # two raters, two values: (1,1) (2,2) (1,2). Coincidences o11 2, o22 2, o12 = o21 1;
        # n1 = n2 = 3, n = 6; one distance, so alpha = 1 - (n-1)(o12+o21)/(2 n1 n2) = 1 - 10/18
        ({"x": {"a": 1, "b": 1}, "y": {"a": 2, "b": 2}, "z": {"a": 1, "b": 2}}, 4 / 9),
        # the same coincidences from three raters who each skipped an item
        ({"x": {"a": 1, "b": 1}, "y": {"a": 2, "c": 2}, "z": {"b": 1, "c": 2}}, 4 / 9),
        # an item with one rating adds no pair and changes nothing
        ({"x": {"a": 1, "b": 1}, "y": {"a": 2, "b": 2}, "z": {"a": 1, "b": 2}, "w": {"c": 5}}, 4 / 9),
        # ordinal, three values: (1,1) (1,1) (2,3) (1,2); n1 5, n2 2, n3 1, n 8; ordinal distances
        # d12 = (7/2)^2, d23 = (3/2)^2, d13 = (8 - 3)^2; observed 2 d12 + 2 d23 = 29, expected
        # 2 (10 d12 + 2 d23 + 5 d13) = 504: alpha = 1 - 7 * 29 / 504 (interval would give 0.5625)
        ({"p": {"a": 1, "b": 1}, "q": {"a": 1, "b": 1}, "r": {"a": 2, "b": 3}, "s": {"a": 1, "b": 2}}, 43 / 72),
        # every item in disagreement, the same way: k items of (1,2) give 1 - (2k-1)/k
        ({"x": {"a": 1, "b": 2}, "y": {"a": 1, "b": 2}, "z": {"a": 1, "b": 2}}, -2 / 3),
    ],
)
def test_alpha_by_hand(ratings, expected):
    value, note = alpha(ratings)
    assert value == pytest.approx(expected) and note is None


@pytest.mark.parametrize(
    ("ratings", "note"),
    [
        ({}, "fewer than two raters on any item: alpha is undefined"),
        ({"x": {"a": 3, "b": 5}}, None),  # one item of two raters is enough to be defined
        ({"x": {"a": 3}, "y": {"a": 5}}, "fewer than two raters on any item: alpha is undefined"),  # one rater
        ({"x": {"a": 3}, "y": {"b": 5}}, "fewer than two raters on any item: alpha is undefined"),
        (
            {"x": {"a": 4, "b": 4}, "y": {"a": 4, "b": 4, "c": 4}, "z": {"c": 1}},
            "every rating is 4: no variation, alpha is undefined (agreement is total)",
        ),
    ],
)
def test_alpha_is_undefined_with_a_reason(ratings, note):
    value, why = alpha(ratings)
    assert why == note and (value is None) == (note is not None)


def test_alpha_interval_resamples_rated_items_a_thousand_times():
    """The interval is the seeded percentile bootstrap of alpha over the items rated at least
    twice (an item rated once is not resampled), 1,000 rounds, as the README states."""
    import random as _random

    from sttui.core.stats import bootstrap

    rng = _random.Random(7)
    ratings = {f"i{i}": {a: rng.randint(1, 5) for a in "abc" if rng.random() < 0.8} for i in range(40)}
    ratings["lonely"] = {"a": 1}
    units = [by for by in ratings.values() if len(by) >= 2]

    def statistic(sample):
        return alpha(dict(enumerate(sample)))[0]

    expected = bootstrap(units, statistic, rounds=1000)
    assert expected is not None
    assert alpha_interval(ratings) == [round(expected[0], 6), round(expected[1], 6)]
    same = {"a": 1, "b": 2}
    assert alpha_interval({"x": dict(same), "y": dict(same), "z": dict(same), "w": {"c": 5}}) == [-0.666667, -0.666667]
    assert alpha_interval({"x": dict(same)}) is None  # one item: nothing to resample


def rating(item: str, annotator: str, value: int, dimension: str = "d", comment: str | None = None) -> dict:
    return {
        "item_kind": "task",
        "item_id": item,
        "dimension": dimension,
        "annotator": annotator,
        "value": value,
        "comment": comment,
    }


def test_agreement_per_dimension_and_overall():
    rows = [
        rating("t1", "ana", 1, "clarity"),
        rating("t1", "ben", 1, "clarity"),
        rating("t2", "ana", 2, "clarity"),
        rating("t2", "ben", 2, "clarity"),
        rating("t3", "ana", 1, "clarity"),
        rating("t3", "ben", 2, "clarity"),
        rating("t1", "ana", 5, "realism"),
        rating("t1", "ben", "4", "realism"),  # values arrive as text from a file
        rating("t1", "chloe", 3, "realism"),
    ]
    out = agreement(rows)  # the defaults: 4 and 5 are positive, three ratings complete an item
    assert list(out["dimensions"]) == ["clarity", "realism"]
    clarity = out["dimensions"]["clarity"]
    assert clarity == {
        "items": 3,
        "ratings": 6,
        "complete_items": 0,  # two ratings each, three wanted
        "alpha": pytest.approx(4 / 9),
        "alpha_ci": clarity["alpha_ci"],
        "alpha_note": None,
        "exact_agreement": pytest.approx(2 / 3),
        "within_1_agreement": 1.0,
        "mean": pytest.approx(9 / 6),
        "positive_share": 0.0,
    }
    low, high = clarity["alpha_ci"]
    assert low <= 4 / 9 <= high
    realism = out["dimensions"]["realism"]
    assert (realism["items"], realism["ratings"], realism["complete_items"]) == (1, 3, 1)
    # pairs (5,4) (5,3) (4,3): none exact, two within one point (the 5 and the 3 are two apart)
    assert realism["exact_agreement"] == 0.0 and realism["within_1_agreement"] == pytest.approx(2 / 3)
    assert realism["positive_share"] == pytest.approx(2 / 3) and realism["mean"] == 4.0
    assert realism["alpha_ci"] is None  # one item: no interval
    overall = out["overall"]  # each (item, dimension) is one item
    assert (overall["items"], overall["ratings"], overall["complete_items"]) == (4, 9, 1)
    assert overall["exact_agreement"] == pytest.approx((1 + 1 + 0 + 0) / 4)
    assert overall["within_1_agreement"] == pytest.approx((1 + 1 + 1 + 2 / 3) / 4)
    assert overall["positive_share"] == pytest.approx(2 / 9)


@pytest.mark.parametrize(
    ("positive", "cap", "share", "complete"),
    [((4, 5), 3, 3 / 9, 1), ((1,), 2, 3 / 9, 4), ((5,), 4, 2 / 9, 0)],
)
def test_agreement_positive_ratings_and_complete_items_follow_the_options(positive, cap, share, complete):
    rows = [rating("t1", "ana", 1, "c"), rating("t1", "ben", 1, "c"), rating("t2", "ana", 2, "c")]
    rows += [rating("t2", "ben", 2, "c"), rating("t3", "ana", 1, "c"), rating("t3", "ben", 2, "c")]
    rows += [rating("t1", "ana", 5, "r"), rating("t1", "ben", 4, "r"), rating("t1", "chloe", 5, "r")]
    overall = agreement(rows, positive=positive, cap=cap)["overall"]
    assert overall["positive_share"] == pytest.approx(share) and overall["complete_items"] == complete


def test_agreement_of_no_ratings():
    out = agreement([])
    assert out["dimensions"] == {}
    assert out["overall"] == {
        "items": 0,
        "ratings": 0,
        "complete_items": 0,
        "alpha": None,
        "alpha_ci": None,
        "alpha_note": "fewer than two raters on any item: alpha is undefined",
        "exact_agreement": None,
        "within_1_agreement": None,
        "mean": None,
        "positive_share": None,
    }


@pytest.mark.parametrize(
    ("values", "spread", "disputed"),
    [
        ((1, 3), 2, True),  # two raters two points apart
        ((1, 2), 2, False),
        ((2, 3, 4), 2, True),  # the spread is max - min over all raters
        ((3, 3, 4), 2, False),
        ((5,), 2, False),  # one rating is no dispute
        ((1, 5), 4, True),
        ((1, 4), 4, False),
        ((2, 3), 1, True),
    ],
)
def test_disputes_at_the_spread(values, spread, disputed):
    rows = [rating("t", who, v, comment=f"by {who}") for who, v in zip(("ana", "ben", "chloe"), values, strict=False)]
    found = disputes(rows, spread=spread)
    if not disputed:
        assert found == []
        return
    assert found == [
        {
            "item_kind": "task",
            "item_id": "t",
            "dimension": "d",
            "ratings": [{"annotator": r["annotator"], "value": r["value"], "comment": r["comment"]} for r in rows],
        }
    ]


def test_disputes_are_listed_per_item_and_dimension_in_order():
    rows = [rating("u", "ana", 1, "b"), rating("t", "ana", 1, "b"), rating("u", "ben", 3, "b")]
    rows += [rating("t", "ben", 4, "b"), rating("t", "ana", 1, "a"), rating("t", "ben", 2, "a")]
    rows += [rating("t", "ana", 5, "c"), rating("t", "ben", 3, "c")]
    assert [(d["item_id"], d["dimension"]) for d in disputes(rows)] == [("t", "b"), ("t", "c"), ("u", "b")]
    assert [r["value"] for r in disputes(rows)[0]["ratings"]] == [1, 4]


# -- the report command: controllers side by side (comparison.py) -------------------------

META = {"t1": {"level": "easy", "conflict": "T1"}, "t2": {"level": "hard", "conflict": "S1"}}


def episode(agent: str, task: str, kind: str = "stt", **kw: Any) -> SimpleNamespace:
    """A finished episode as the store lists it (only the fields the report reads)."""
    fields = {
        "agent": agent,
        "task_id": task,
        "kind": kind,
        "status": "completed",
        "setting": "default",
        "outcome": None,
        "scores": None,
        "steps": 10,
        "clean_baseline": True,
    }
    passed = kw.pop("passed", None)
    if passed is not None:
        fields["outcome"] = {"passed": passed}
    return SimpleNamespace(**(fields | kw))


def rows_by(result: dict) -> dict[tuple[str, str], dict]:
    return {(r["controller"], r["setting"]): r for r in result["controllers"]}


def test_compare_restricts_each_figure_to_the_tasks_every_controller_ran():
    records = [
        episode("baseline:oracle", "t1", passed=True),
        episode("baseline:oracle", "t2", passed=True),
        episode("model:m", "t1", passed=False),
        episode("model:m", "t2", status="running"),  # not finished: not in the report
        episode("human:ana", "x1", "explore", scores={"calibrated_accuracy": 0.5}),  # no stt: no say in stt tasks
        episode("human:ana", "x2", "explore", scores={"calibrated_accuracy": 0.25, "incomplete": True}),
        episode("baseline:oracle", "x1", "explore", scores={"calibrated_accuracy": 1.0}),
        episode("baseline:oracle", "x2", "explore", scores={"calibrated_accuracy": 1.0}),
        episode("model:m", "x2", "explore", scores={"calibrated_accuracy": 0.0}),
        episode("model:m", "x3", "explore", scores=None),
    ]
    out = compare(records, META)
    assert out["common_stt_tasks"] == ["t1"] and out["common_explore_tasks"] == ["x2"]
    # rows in family order: baseline, human, model
    assert [r["controller"] for r in out["controllers"]] == ["baseline:oracle", "human:ana", "model:m"]
    rows = rows_by(out)
    oracle, ana, model = rows["baseline:oracle", "default"], rows["human:ana", "default"], rows["model:m", "default"]
    assert (oracle["episodes"], oracle["stt_common_pass_at_1"], oracle["stt_common_n"]) == (4, 1.0, 1)
    assert (model["episodes"], model["stt_common_pass_at_1"], model["stt_common_n"]) == (3, 0.0, 1)
    assert "stt_common_pass_at_1" not in ana
    assert (oracle["explore_common_ca"], oracle["explore_common_n"], oracle["explore_incomplete"]) == (1.0, 1, 0)
    assert (ana["explore_common_ca"], ana["explore_common_n"], ana["explore_incomplete"]) == (0.25, 1, 1)
    assert model["explore_common_ca"] == 0.0 and model["explore_common_n"] == 1
    assert oracle["family"] == "baseline" and ana["family"] == "human" and model["family"] == "model"
    assert oracle["explore_common_ca_ci"] is None  # one task: nothing to resample


def test_compare_rows_count_errors_steps_time_and_clean_baselines():
    records = [
        episode("human:ana", "t1", passed=True, steps=4, scores={"human_active_seconds": 30.0}),
        episode("human:ana", "t1", status="errored", steps=2, clean_baseline=False),  # no outcome: a failure
        episode("human:ana", "t2", passed=False, steps=6, scores={"human_active_seconds": 90.0}),
    ]
    row = compare(records, META)["controllers"][0]
    assert (row["episodes"], row["errored"], row["clean_baselines"]) == (3, 1, 2)
    assert row["mean_steps"] == 4.0 and row["human_seconds_per_episode"] == 60.0
    # level-weighted Pass@1 over the common tasks: easy 1 of 2, hard 0 of 1
    assert row["stt_common_pass_at_1"] == pytest.approx(2 / 3 * 0.5 + 1 / 3 * 0.0)
    assert row["trials"] == 1 and "pass_at_k" not in row and "pass_hat_k" not in row
    assert row["pass_at_1_ci"] == [0.0, 0.5]  # t1 alone 1/2, t2 alone 0, both 1/3
    assert "stage_score" not in row and "explore_common_ca" not in row
    assert "human_seconds_per_episode" not in compare(records[1:2], META)["controllers"][0]


def test_an_errored_episode_never_passes_even_with_a_passing_outcome():
    records = [episode("model:m", "t1", passed=True, status="errored"), episode("model:m", "t1", passed=True)]
    row = compare(records, META)["controllers"][0]
    assert row["stt_common_pass_at_1"] == 0.5 and row["errored"] == 1


def test_compare_pass_at_k_for_every_k_up_to_the_fewest_trials():
    records = [episode("model:m", "t1", passed=p) for p in (True, False, False)]
    records += [episode("model:m", "t2", passed=p) for p in (True, True)]
    row = compare(records, META)["controllers"][0]
    assert row["trials"] == 2
    assert row["pass_at_k"] == {"pass@1": pytest.approx((1 / 3 + 1) / 2), "pass@2": pytest.approx((2 / 3 + 1) / 2)}
    assert row["pass_hat_k"] == {"pass^1": pytest.approx((1 / 3 + 1) / 2), "pass^2": pytest.approx(1 / 2)}
    assert set(row["pass_at_k_ci"]) == {"pass@1", "pass@2"} and set(row["pass_hat_k_ci"]) == {"pass^1", "pass^2"}
    # resamples: t1 t1 1/3, t2 t2 1, t1 t2 3/5 (pooled over five episodes)
    assert row["pass_at_1_ci"] == [pytest.approx(1 / 3, abs=1e-6), 1.0]


def test_compare_intervals_of_identical_tasks_are_points():
    records = [episode("model:m", t, passed=p) for t in ("t1", "t2") for p in (True, False)]
    row = compare(records, META)["controllers"][0]
    assert row["pass_at_k_ci"] == {"pass@1": [0.5, 0.5], "pass@2": [1.0, 1.0]}
    assert row["pass_hat_k_ci"] == {"pass^1": [0.5, 0.5], "pass^2": [0.0, 0.0]}
    assert row["pass_at_1_ci"] == [0.5, 0.5]


def review_scores(score: float, completion: float, stop: dict | None = None) -> dict:
    return {"review": {"score": score, "completion": completion, "stop": stop}}


def test_compare_stage_scores_early_stops_and_separation():
    records = [
        episode("model:a", "t1", passed=False, scores=review_scores(0.2, 0.25)),
        episode("model:a", "t2", passed=True, scores=review_scores(1.0, 1.0)),
        episode("model:b", "t1", passed=False, scores=review_scores(0.6, 0.5, {"signal": "x", "steps_saved": 7})),
        episode("model:b", "t1", passed=False, scores=review_scores(0.4, 0.5, {"signal": "x", "steps_saved": 3})),
        episode("model:b", "t2", passed=True, scores=review_scores(0.9, 1.0)),
        episode("model:b", "t2", passed=True),  # no review: not in the stage figures
    ]
    out = compare(records, META)
    a, b = rows_by(out)["model:a", "default"], rows_by(out)["model:b", "default"]
    assert a["stage_score"] == pytest.approx(0.6) and a["milestone_completion"] == pytest.approx(0.625)
    assert (a["early_stops"], a["steps_saved"]) == (0, 0)
    assert b["stage_score"] == pytest.approx(1.9 / 3) and b["milestone_completion"] == pytest.approx(2 / 3)
    assert (b["early_stops"], b["steps_saved"]) == (2, 10)
    # b's t1 episodes move together: t1 t1 0.5, t2 t2 0.9, t1 t2 1.9/3
    assert b["stage_score_ci"] == [0.5, 0.9]
    # per task, averaged over trials: pass/fail ties everywhere; stage scores a (0.2, 1.0), b (0.5, 0.9)
    assert out["separation"]["pass_fail"] == {"controllers": 2, "tasks": 2, "spread": 0.0, "distinguished": 0.0}
    stages = out["separation"]["stage_scores"]
    assert (stages["controllers"], stages["tasks"], stages["distinguished"]) == (2, 2, 1.0)
    assert stages["spread"] == pytest.approx(0.05)  # means 0.6 and 0.7


def test_compare_keeps_each_setting_of_a_controller_apart():
    records = [
        episode("model:m", "t1", passed=False, scores=review_scores(0.5, 0.5)),
        episode("model:m", "t1", passed=True, setting="static", scores=review_scores(1.0, 1.0)),
        episode("model:m", "t2", passed=True, setting="static"),
        episode("model:m", "x1", "explore", scores={"calibrated_accuracy": 0.2}),
        episode("model:m", "x1", "explore", setting="stationary", scores={"calibrated_accuracy": 1.0}),
        episode("model:m", "x2", "explore", setting="stationary", scores={"calibrated_accuracy": 0.0}),
        episode("model:n", "t1", passed=True, setting="static"),  # no default run of n: nothing to set against
    ]
    out = compare(records, META)
    assert sorted(rows_by(out)) == [("model:m", "default"), ("model:m", "static"), ("model:m", "stationary"),
                                    ("model:n", "static")]  # fmt: skip
    assert out["separation"]["stage_scores"]["controllers"] == 2  # m and "m [static]" are two rows
    assert out["settings"] == [  # in (controller, setting) order; on the tasks both settings ran
        {"controller": "model:m", "measure": "pass@1", "base": "default", "setting": "static", "tasks": 1,
         "base_value": 0.0, "value": 1.0, "difference": 1.0},
        {"controller": "model:m", "measure": "calibrated_accuracy", "base": "default", "setting": "stationary",
         "tasks": 1, "base_value": 0.2, "value": 1.0, "difference": pytest.approx(0.8)},
    ]  # fmt: skip


def test_settings_comparison_needs_common_tasks_and_defined_figures():
    records = [
        episode("model:m", "t1", passed=True),
        episode("model:m", "t2", passed=True, setting="static"),  # no task in common
        episode("model:m", "x1", "explore", scores={"calibrated_accuracy": 0.5}),
        episode("model:m", "x1", "explore", setting="stationary", scores=None),  # errored before any score
    ]
    assert compare(records, META)["settings"] == [
        {"controller": "model:m", "measure": "calibrated_accuracy", "base": "default", "setting": "stationary",
         "tasks": 1, "base_value": 0.5, "value": None, "difference": None},
    ]  # fmt: skip


def test_compare_of_nothing():
    out = compare([], META)
    assert out == {
        "common_stt_tasks": [],
        "common_explore_tasks": [],
        "controllers": [],
        "settings": [],
        "separation": {
            "pass_fail": {"controllers": 0, "tasks": 0, "spread": None, "distinguished": None},
            "stage_scores": {"controllers": 0, "tasks": 0, "spread": None, "distinguished": None},
        },
    }


def test_records_without_a_setting_are_the_default_setting():
    out = compare([episode("model:m", "t1", passed=True, setting=None)], META)
    assert out["controllers"][0]["setting"] == "default"


def test_stt_tasks_without_level_metadata_are_left_out_of_pass_at_1():
    out = compare([episode("model:m", "t9", passed=True)], META)
    row = out["controllers"][0]
    assert out["common_stt_tasks"] == ["t9"] and "stt_common_pass_at_1" not in row and "trials" not in row


@pytest.mark.parametrize(
    ("controller", "family"),
    [
        ("human:ana", "human"),
        ("model:ollama/llama3:8b", "model"),
        ("baseline:replay:ep-1", "baseline"),
        ("human", "human"),
    ],
)
def test_a_controllers_family_is_what_comes_before_the_first_colon(controller, family):
    from sttui.analysis.comparison import family as family_of

    assert family_of(controller) == family


def test_rows_come_in_family_order_whatever_their_setting():
    records = [
        episode("model:m", "t1", passed=True),
        episode("baseline:oracle", "t1", passed=True, setting="static"),
        episode("human:ana", "t1", passed=True, setting="no-user"),
    ]
    assert [r["controller"] for r in compare(records, META)["controllers"]] == [
        "baseline:oracle",
        "human:ana",
        "model:m",
    ]


def test_two_non_default_settings_of_one_controller_stay_two_in_the_separation():
    records = [
        episode("model:m", t, passed=p, setting=s, scores=review_scores(v, 1.0))
        for s, p, v in (("default", False, 0.1), ("static", True, 0.9), ("no-user", False, 0.4))
        for t in ("t1", "t2")
    ]
    stages = compare(records, META)["separation"]["stage_scores"]
    assert stages["controllers"] == 3 and stages["distinguished"] == 1.0


def test_explore_ca_is_the_mean_over_the_common_episodes_with_a_pooled_interval():
    records = [
        episode("model:m", "x1", "explore", scores={"calibrated_accuracy": 0.5}),
        episode("model:m", "x1", "explore", scores={"calibrated_accuracy": 0.25}),
        episode("model:m", "x2", "explore", scores={"calibrated_accuracy": 0.375}),
    ]
    row = compare(records, META)["controllers"][0]
    assert row["explore_common_ca"] == 0.375 and row["explore_common_n"] == 3
    # x1 alone 0.375, x2 alone 0.375, both 1.125 / 3: every resample gives 0.375
    assert row["explore_common_ca_ci"] == [0.375, 0.375]
