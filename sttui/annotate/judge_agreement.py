"""How far the judge agrees with people: each verdict item's annotators rate the judge's pass
or fail right, wrong or can't tell; their majority gives the people's verdict, and the judge
is scored against it, per judge (``checklist``, ``rule``, ``model:M``, ``human``).

- **The people's verdict.** A choice held by more than half of an item's ratings is its
  majority (two of three, two of two). An item with fewer than two ratings, with no such
  choice (a tie, or right / wrong / can't tell once each) or whose majority is can't tell is
  left out, and counted by why. Otherwise the people's verdict is the judge's when the
  majority says right, the other one when it says wrong.
- **Accuracy**: the share of compared items where the judge's verdict is the people's.
- **Cohen's kappa** over the 2 x 2 table of (judge, people) verdicts: (p_o - p_e) / (1 - p_e),
  p_e from each side's own pass share. Undefined (None, with a note) when both sides gave one
  and the same verdict on every item (p_e = 1); 0 whenever one side gave one verdict only.
- **Intervals**: 95 % percentile intervals from resampling the compared items with the
  house's seeded resamples (``core.stats``). Resamples on which kappa is undefined are left
  out; with fewer than half left there is no interval.
Plain data in, plain data out."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from itertools import combinations
from typing import Any

from sttui.annotate.dimensions import CANT_TELL, RIGHT, VERDICT_DIMENSION, WRONG

Pair = tuple[bool, bool]  # (the judge passed it, the people passed it)

LEFT_OUT = ("fewer_than_two_ratings", "no_majority", "majority_cant_tell", "no_verdict")


def majority(values: Sequence[int]) -> tuple[int | None, str | None]:
    """(the majority choice, None), or (None, why the item is left out)."""
    if len(values) < 2:
        return None, "fewer_than_two_ratings"
    choice, count = Counter(values).most_common(1)[0]
    if count * 2 <= len(values):
        return None, "no_majority"
    if choice == CANT_TELL:
        return None, "majority_cant_tell"
    return choice, None


def table(pairs: Sequence[Pair]) -> dict[str, int]:
    """The 2 x 2 table: judge pass / fail against people pass / fail."""
    return {
        "judge_pass_people_pass": sum(1 for j, h in pairs if j and h),
        "judge_pass_people_fail": sum(1 for j, h in pairs if j and not h),
        "judge_fail_people_pass": sum(1 for j, h in pairs if not j and h),
        "judge_fail_people_fail": sum(1 for j, h in pairs if not j and not h),
    }


def accuracy(pairs: Sequence[Pair]) -> float | None:
    return sum(j == h for j, h in pairs) / len(pairs) if pairs else None


def kappa_of_counts(a: int, b: int, c: int, d: int) -> float | None:
    """Cohen's kappa of a 2 x 2 table (a: both pass, b: judge pass / people fail, c: judge fail /
    people pass, d: both fail), in whole numbers until the last division; None when p_e = 1."""
    n = a + b + c + d
    expected = (a + b) * (a + c) + (c + d) * (b + d)  # n^2 * p_e
    if n == 0 or expected == n * n:
        return None
    return (n * (a + d) - expected) / (n * n - expected)


def kappa(pairs: Sequence[Pair]) -> float | None:
    t = table(pairs)
    return kappa_of_counts(
        t["judge_pass_people_pass"],
        t["judge_pass_people_fail"],
        t["judge_fail_people_pass"],
        t["judge_fail_people_fail"],
    )


def kappa_note(pairs: Sequence[Pair]) -> str | None:
    if not pairs:
        return "no item with a majority: nothing to compare"
    judge, people = {j for j, _ in pairs}, {h for _, h in pairs}
    if len(judge) == 1 and judge == people:
        verdict = "pass" if judge.pop() else "fail"
        return f"judge and people gave every item {verdict}: one class only, kappa is undefined (accuracy is 100 %)"
    if len(judge) == 1:
        return f"the judge gave every item {'pass' if judge.pop() else 'fail'}: kappa is 0 whatever the accuracy"
    if len(people) == 1:
        return f"the people gave every item {'pass' if people.pop() else 'fail'}: kappa is 0 whatever the accuracy"
    return None


def intervals(pairs: Sequence[Pair]) -> tuple[list[float] | None, list[float] | None]:
    """95 % intervals of (accuracy, kappa) over the house's seeded resamples of the items
    (``core.stats._indices``, as ``pooled_interval`` draws them), computed for all resamples at
    once from each resample's 2 x 2 table."""
    n = len(pairs)
    if n < 2:
        return None, None
    import numpy as np

    from sttui.core.stats import LEVEL, _indices, _quantile

    codes = np.array([2 * (not j) + (not h) for j, h in pairs], dtype=np.int64)  # a=0, b=1, c=2, d=3
    drawn = codes[_indices(n)]  # rounds x n
    a, b, c, d = ((drawn == k).sum(axis=1).astype(float) for k in range(4))
    acc = np.sort((a + d) / n)
    expected = (a + b) * (a + c) + (c + d) * (b + d)
    defined = expected != n * n
    with np.errstate(invalid="ignore", divide="ignore"):
        kap = (n * (a + d) - expected) / (n * n - expected)
    kept = np.sort(kap[defined])
    tail = (1 - LEVEL) / 2

    def bounds(values: Any) -> list[float]:
        ordered = values.tolist()
        return [round(_quantile(ordered, tail), 6), round(_quantile(ordered, 1 - tail), 6)]

    return bounds(acc), (bounds(kept) if len(kept) >= len(kap) / 2 else None)


def annotators_alpha(by_item: dict[str, dict[str, int]]) -> float | None:
    """Krippendorff's alpha (nominal) among the annotators on the verdict items; None when undefined."""
    import math

    import krippendorff
    import numpy as np

    items = [i for i, by in by_item.items() if len(by) >= 2]
    annotators = sorted({a for i in items for a in by_item[i]})
    if len(annotators) < 2 or len({v for i in items for v in by_item[i].values()}) < 2:
        return None
    matrix = np.array([[by_item[i].get(a, np.nan) for i in items] for a in annotators], dtype=float)
    value = float(
        krippendorff.alpha(
            reliability_data=matrix, level_of_measurement="nominal", value_domain=[RIGHT, WRONG, CANT_TELL]
        )
    )
    return None if math.isnan(value) else value


def exact_agreement(by_item: dict[str, dict[str, int]]) -> float | None:
    """Share of agreeing annotator pairs, item-averaged (as ``agreement.pairwise`` with 0)."""
    shares = []
    for by in by_item.values():
        pairs = list(combinations(by.values(), 2))
        if pairs:
            shares.append(sum(a == b for a, b in pairs) / len(pairs))
    return sum(shares) / len(shares) if shares else None


def judge_agreement(rows: list[dict[str, Any]], verdicts: dict[str, tuple[bool, str]]) -> dict[str, Any]:
    """``rows``: current ratings; those of verdict items on ``verdict_correct`` are read.
    ``verdicts``: episode id -> (passed, judged_by) as recorded. One entry per judge."""
    by_item: dict[str, dict[str, int]] = defaultdict(dict)
    ignored = 0  # a score that is none of the three choices (written past the queue and the import)
    for r in rows:
        if r["item_kind"] == "verdict" and r["dimension"] == VERDICT_DIMENSION:
            if int(r["value"]) in (RIGHT, WRONG, CANT_TELL):
                by_item[r["item_id"]][r["annotator"]] = int(r["value"])
            else:
                ignored += 1
    judges: dict[str, dict[str, Any]] = {}
    pairs_of: dict[str, list[Pair]] = defaultdict(list)
    unjudged = Counter[str]()
    for item, by in sorted(by_item.items()):
        if item not in verdicts:
            unjudged["no_verdict"] += 1
            continue
        passed, judge = verdicts[item]
        entry = judges.setdefault(judge, {"judge": judge, "items": 0, "left_out": dict.fromkeys(LEFT_OUT[:3], 0)})
        entry["items"] += 1
        choice, why = majority(list(by.values()))
        if choice is None:
            entry["left_out"][why] += 1
            continue
        pairs_of[judge].append((passed, passed if choice == RIGHT else not passed))
    for judge, entry in judges.items():
        pairs = pairs_of[judge]
        acc_ci, kappa_ci = intervals(pairs)
        entry.update(
            {
                "compared": len(pairs),
                "table": table(pairs),
                "accuracy": accuracy(pairs),
                "accuracy_ci": acc_ci,
                "kappa": kappa(pairs),
                "kappa_ci": kappa_ci,
                "kappa_note": kappa_note(pairs),
            }
        )
    return {
        "items": len(by_item),
        "ratings": sum(len(by) for by in by_item.values()),
        "without_verdict": unjudged["no_verdict"],
        "ignored_ratings": ignored,
        "annotators": {"alpha_nominal": annotators_alpha(by_item), "exact_agreement": exact_agreement(by_item)},
        "judges": [judges[j] for j in sorted(judges)],
    }
