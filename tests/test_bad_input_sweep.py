"""Issue 13's bad-input sweep, case by case, as real `sttui` commands in a fresh folder
(tests/helpers/bad_input.py holds the table; `python -m tests.helpers.bad_input` prints it):
each ends in bounded time with the exit code stated (else non-zero), one line naming what is
wrong (for a task file: the file and its line), no traceback and no key."""

from __future__ import annotations

import pytest

from tests.helpers.bad_input import CASES, KEY, Case, run_case

# The model-answer cases start litellm in a process of their own (seconds each); the same
# answers are tested in-process, command and record, in tests/test_model_faults.py.
SUITE = [c for c in CASES if c.stub is None]


@pytest.mark.parametrize("case", SUITE, ids=[c.name for c in SUITE])
def test_bad_input(case: Case, tmp_path):
    out = run_case(case, tmp_path)
    if out.skipped:
        pytest.skip(out.skipped)
    assert out.code is not None, f"hung: {out.stderr[-2000:]}"
    if case.expect is None:
        assert out.code != 0, out.stdout + out.stderr
    else:
        assert out.code == case.expect, out.stdout + out.stderr
    text = out.stdout + out.stderr
    assert "Traceback" not in text and KEY not in text, text[-3000:]
    assert case.says in text, text[-3000:]
    if case.name.startswith("task:") and case.expect is None:  # the file, and its line where it has one
        line = out.line(case.says)
        assert ".yaml" in line, line
