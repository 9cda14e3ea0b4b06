"""Plain-text report pieces (sttui/textout.py)."""

from __future__ import annotations


def test_pass_at_k_lines_stay_a_few_however_many_trials():
    """136 trials had printed 136 rows per controller: up to 8, then doublings and the last."""
    from sttui.textout import pass_k_lines, shown_ks

    assert shown_ks(3) == [1, 2, 3] and shown_ks(8) == list(range(1, 9))
    assert shown_ks(136) == [1, 2, 3, 4, 5, 6, 7, 8, 16, 32, 64, 128, 136]
    ks = range(1, 137)
    summary = {
        "trials": 136,
        "pass_at_k": {f"pass@{k}": 1.0 for k in ks},
        "pass_at_k_ci": {},
        "pass_hat_k": {f"pass^{k}": 0.5 for k in ks},
        "pass_hat_k_ci": {},
    }
    lines = pass_k_lines(summary)
    assert len(lines) == 14 and "--json has every k" in lines[0]
    assert lines[-1].split()[0] == "pass@136"
