from __future__ import annotations

import pytest

from sttui.core.scoring import pass_at_1


def rec(level, conflict, passed):
    return {"level": level, "conflict": conflict, "passed": passed}


def test_overall_is_level_weighted_and_paper_weights_reweight():
    records = [
        rec("easy", "T1", True),
        rec("easy", "T2", True),
        rec("easy", "S1", False),
        rec("hard", "T1", False),
        rec("impossible", "ST2", True),
    ]
    s = pass_at_1(records)
    assert s["n"] == 5
    assert s["levels"]["easy"] == {"n": 3, "pass_at_1": pytest.approx(2 / 3)}
    # 3/5 * 2/3 + 1/5 * 0 + 1/5 * 1
    assert s["overall"] == pytest.approx(0.6)
    # paper counts: easy 71, hard 59, impossible 30 over 160
    assert s["overall_paper_weights"] == pytest.approx((71 * 2 / 3 + 30) / 160)
    assert s["conflicts"]["T1"] == {"n": 2, "pass_at_1": 0.5}
    assert list(s["conflicts"]) == ["T1", "T2", "S1", "ST2"]


def test_paper_weights_reproduce_paper_overall_from_level_rates():
    # With every level present in the paper's own proportions, both overall figures agree.
    records = (
        [rec("easy", "T1", i < 40) for i in range(71)]
        + [rec("medium", "T1", i < 20) for i in range(67)]
        + [rec("hard", "T1", i < 10) for i in range(59)]
        + [rec("impossible", "T1", i < 5) for i in range(30)]
    )
    s = pass_at_1(records)
    assert s["overall"] == pytest.approx(s["overall_paper_weights"]) == pytest.approx(75 / 227)


def test_empty():
    assert pass_at_1([])["overall"] == 0.0
