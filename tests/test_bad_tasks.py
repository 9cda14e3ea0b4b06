"""Every malformed task file gets file:line: field: message, never a traceback."""

from __future__ import annotations

import subprocess
import sys

import pytest

from sttui.core.loader import load_task
from sttui.core.problems import TaskFileError
from tests.conftest import FIXTURES, ROOT

BAD = FIXTURES / "bad_tasks"

# file -> [(line, field, text the message must contain)]
EXPECTED = {
    "yaml-syntax": [(22, "(file)", "malformed YAML")],
    "unknown-top-field": [(5, "difficulty", "unknown field 'difficulty'")],
    "unknown-trigger-tool": [
        (24, "triggers[0].when.tool", "no tool 'get_crates' in WarehouseEnv (did you mean get_crate?)")
    ],
    "wrong-level": [(6, "level", "expected 'easy', 'medium', 'hard' or 'impossible'; got 'trivial'")],
    "wrong-conflict": [(5, "conflict", "got 'S4'")],
    "bad-timestamp": [(17, "clock.start", "expected an ISO timestamp")],
    "missing-query": [(1, "query", "required field is missing")],
    "env-class-missing": [(7, "env", "no class 'WarehouseEnvironment' in warehouse.py (did you mean WarehouseEnv?)")],
    "env-module-missing": [(7, "env", "no module file storage.py")],
    "checklist-path-never-exists": [
        (29, "checklist[1].expect.path", "can never exist: initial_state has no 'crate' (did you mean crates?)")
    ],
    "unknown-check-function": [
        (28, "checklist[0].check", "no check function 'crate_is_at' in WarehouseEnv (did you mean crate_at?)")
    ],
    "effect-kind-unknown": [(26, "triggers[0].effects[0]", "expected an effect with one of the keys set, delete")],
    "move-to-unknown-place": [(26, "triggers[0].effects[0].to", "no place 'BAY-Z'")],
    "when-two-kinds": [(24, "triggers[0].when", "expected exactly one of tool, at, after_calls, state; got tool, at")],
    "plan-bad-args": [(32, "naive_plan[1].args", "move_crate has no parameter 'destination'")],
    "plan-wrong-type": [(34, "solution[0].args", "crate_id must be a string, got 17")],
    "trigger-arg-unknown": [
        (24, "triggers[0].when.args", "get_crate has no parameter 'crate' (did you mean crate_id?)")
    ],
    "bad-id": [(1, "id", "expected lowercase letters, digits and dashes")],
    "judge-missing-impossible": [(6, "level", "needs a judge section")],
    "judge-generic-evidence": [(32, "judge.evidence[0]", "'problem' names no cause: problem is a generic word")],
    "check-wrong-arg": [
        (28, "checklist[0].args", "check crate_at has no parameter 'crate' (did you mean crate_id?)"),
        (28, "checklist[0].args", "check crate_at needs 'crate_id' (it has no default)"),
    ],
    "expect-two-operators": [(29, "checklist[1].expect", "expected exactly one operator")],
    "empty-triggers": [(22, "triggers", "expected at least 1 item")],
    "at-before-start": [(24, "triggers[0].when.at", "expected a time at or after clock.start")],
    "not-a-mapping": [(1, "(top level)", "expected a mapping")],
    "python-tag": [(21, "(file)", "could not determine a constructor")],
    "unquoted-norway-key": [(16, "initial_state.countries", "key False is not text")],
    "explore-unknown-family": [(47, "rule.family", "got 'multiplicative'")],
    "explore-replace-not-a-factor": [(54, "drift.replace.factor", "'branch_regoin' is not a factor of the rule")],
    "explore-probe-cap-zero": [(56, "schedule.probe_cap", "expected a number >= 1; got 0")],
    "milestone-cycle": [(39, "milestones[0].after", "the milestones form a cycle: seen → moved → seen")],
    "milestone-bad-refs": [
        (40, "milestones[0].constraints[0].expected", "no tool 'get_crates' in WarehouseEnv (did you mean get_crate?)"),
        (43, "milestones[1].after[0]", "no milestone 'got-crat' (did you mean got-crate?)"),
        (45, "milestones[1].constraints[0].selector", "initial_state has no 'crate' (did you mean crates?)"),
    ],
    "minefield-bad-constraints": [
        (
            40,
            "minefields[0].constraints[0]",
            "selector must start with one of call., message., state.; got 'args.crate_id'",
        ),
        (44, "minefields[1].constraints[0]", "added compares states, so it needs a state.<path> selector"),
    ],
    "milestone-share-unreachable": [
        (39, "milestones[0].threshold", "milestone seen: best weight share 0.50 is below its threshold 0.75"),
        (51, "minefields[0].threshold", "best weight share 0.00 is below its threshold 1.00 (its hard constraints"),
    ],
    "withheld-bad-cues": [
        (23, "user.withheld.crate_weight.asked_by", "expected cues with at least one word; got ['?!']"),
        (24, "user.withheld.dock.asked", "unknown field 'asked'"),
        (25, "user.withheld.bay.value", "required field is missing"),
        (25, "user.withheld.bay.val", "unknown field 'val'"),
    ],
    "several-problems": [
        (5, "colour", "unknown field 'colour'"),
        (7, "level", "got 'trivial'"),
        (29, "checklist[0].check", "no check function 'crate_is_at'"),
    ],
}


def test_every_fixture_has_an_expectation():
    assert {p.stem for p in BAD.glob("*.yaml")} == set(EXPECTED)
    assert len(EXPECTED) >= 15


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_bad_task_message(name):
    with pytest.raises(TaskFileError) as info:
        load_task(BAD / f"{name}.yaml")
    problems = info.value.problems
    got = [(p.line, p.field, p.message) for p in problems]
    assert len(problems) == len(EXPECTED[name]), got
    for (line, field, text), problem in zip(EXPECTED[name], problems, strict=True):
        assert problem.file.endswith(f"bad_tasks/{name}.yaml")
        assert (problem.line, problem.field) == (line, field), got
        assert text in problem.message, got
        assert str(problem).startswith(f"{problem.file}:{line}: {field}: ")


def test_cli_reports_without_traceback():
    proc = subprocess.run(
        [sys.executable, "-m", "sttui", "check", str(BAD)], capture_output=True, text=True, cwd=ROOT, timeout=120
    )
    assert proc.returncode == 1
    out = proc.stdout + proc.stderr
    assert "Traceback" not in out
    assert "unknown-trigger-tool.yaml:24: triggers[0].when.tool: no tool 'get_crates'" in out
    assert f"0 of {len(EXPECTED)} task files pass" in out
