"""``sttui check`` tries to break every task: idle agents, the random baseline and scripted
endings must fail it, and authoring mistakes a plan run reveals are reported."""

from __future__ import annotations

import asyncio
import copy
import json
import shutil
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from sttui.authoring.adversary import allowed_random_passes, scripted_messages, without_lookups
from sttui.cli import main
from sttui.controllers.baselines import ScriptedUser
from sttui.controllers.controls import CallsThenSay
from sttui.core.checklist import evaluate_checklist
from sttui.core.envload import import_env
from sttui.core.episode import Episode
from sttui.core.loader import load_task
from sttui.core.task import Step, SttTask
from sttui.running.runner import run_episode
from tests.conftest import FIXTURES, ROOT

MINI = FIXTURES / "mini"
BASE = yaml.safe_load((MINI / "good.yaml").read_text())


def write_task(tmp_path, env_extra: str = "", **changes) -> None:
    """A variant of the mini warehouse task (and its environment) in ``tmp_path``."""
    data = copy.deepcopy(BASE)
    data.update(changes)
    (tmp_path / "task.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    shutil.copy(MINI / "warehouse.py", tmp_path / "warehouse.py")
    if env_extra:
        with (tmp_path / "warehouse.py").open("a") as f:
            f.write(env_extra)


def line_with(path, text: str) -> int:
    """The number of the first line of ``path`` that holds ``text``."""
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if text in line)


def check_json(tmp_path, *extra: str) -> dict:
    result = CliRunner().invoke(main, ["check", str(tmp_path), "--json", *extra], catch_exceptions=False)
    report = json.loads(result.output)
    assert result.exit_code == (0 if report["ok"] else 1)
    return report["tasks"][0]


# -- idle agents and the random baseline ---------------------------------------------------

# The discharge-handoff mistake: the goal (CR-1 stays in BAY-A) already holds at the start and
# the trigger that breaks it fires only on a lookup, so an agent that never looks passes.
KEEP_IN_A = {
    "checklist": [{"id": "in-a", "check": "crate_at", "args": {"crate_id": "CR-1", "bay": "BAY-A"}}],
    "solution": [
        {"tool": "get_crate", "args": {"crate_id": "CR-1"}},
        {"tool": "move_crate", "args": {"crate_id": "CR-1", "to": "BAY-A"}},
    ],
}


def test_idle_agents_pass_a_task_whose_goal_holds_until_someone_looks(tmp_path):
    write_task(tmp_path, **KEEP_IN_A)
    report = check_json(tmp_path)
    controls = {c["control"]: c for c in report["controls"]}
    for name in ("end-at-once", "polite", "do-nothing"):
        assert controls[name]["outcome"] == "passed" and controls[name]["ok"] is False, controls[name]
        assert f"control {name}: passed" in "\n".join(report["problems"])
    assert "the goal holds without the agent doing anything" in controls["end-at-once"]["detail"]
    assert report["ok"] is False


def test_a_trigger_due_at_the_start_makes_the_idle_agents_fail(tmp_path):
    start = BASE["clock"]["start"]
    triggers = [
        {"id": "moved-overnight", "when": {"at": start}, "effects": [{"move": "crates.CR-1", "to": "BAY-B"}]},
        {"id": "looked", "when": {"tool": "get_crate"}, "effects": [{"shift_clock": 5}]},
    ]
    # without the triggers CR-1 stays in BAY-A: the static world leaves nothing to do
    write_task(tmp_path, triggers=triggers, static_skip="CR-1 stays in BAY-A", **KEEP_IN_A)
    report = check_json(tmp_path)
    assert not [p for p in report["problems"] if "end-at-once" in p or "polite" in p or "do-nothing" in p]
    idle = [c for c in report["controls"] if c["control"] in ("end-at-once", "polite", "do-nothing")]
    assert [c["outcome"] for c in idle] == ["failed"] * 3 and all(c["ok"] for c in idle)


def test_the_random_control_counts_passes_against_its_threshold(tmp_path):
    write_task(tmp_path, **KEEP_IN_A)
    random = next(c for c in check_json(tmp_path, "--random-seeds", "6")["controls"] if c["control"] == "random")
    passed = int(random["outcome"].split("/")[0])
    assert random["outcome"] == f"{passed}/6 passed" and passed > 0  # most random runs never look
    assert random["ok"] is False and random["detail"].startswith("at most 0 of 6 may pass")


@pytest.mark.parametrize(("seeds", "allowed"), [(20, 2), (10, 1), (9, 0), (6, 0), (30, 3)])
def test_random_threshold_is_ten_percent_rounded_down(seeds, allowed):
    assert allowed_random_passes(seeds) == allowed


def test_controls_are_printed_one_line_per_task_and_in_full_with_v(tmp_path):
    write_task(tmp_path, **KEEP_IN_A)
    out = CliRunner().invoke(main, ["check", str(tmp_path), "--random-seeds", "2"]).output
    assert "controls: 2/5 adversarial agents fail it; random 0/2 passed (at most 0 of 2 may pass" in out
    assert "NOT: end-at-once, polite, do-nothing\n" in out
    verbose = CliRunner().invoke(main, ["check", str(tmp_path), "--random-seeds", "2", "-v"]).output
    assert "control polite: passed (must not): " in verbose


# -- not looking: the naive plan without its lookups ------------------------------------------

# The aisles out of BAY-A close: the crate can no longer reach dispatch. Whether an agent that
# never looks meets the closure depends on what sets it off.
ISOLATE_BAY_A = [{"set": "travel.0.closed", "value": True}, {"set": "travel.2.closed", "value": True}]


@pytest.mark.parametrize(
    ("when", "outcome"),
    [
        ({"tool": "get_crate", "args": {"crate_id": "CR-1"}}, "passed"),  # only a lookup sets it off
        ({"at": "2024-03-04T08:01:00"}, "passed"),  # a time only the lookup's minute reaches
        ({"after_calls": 1}, "passed"),  # a call count the lookup makes up
        ({"at": "2024-03-04T08:00:00"}, "failed"),  # it has happened when the episode opens
        ({"tool": "move_crate"}, "failed"),  # the operation the plan depends on sets it off
    ],
)
def test_the_naive_plan_without_its_lookups_must_fail(tmp_path, when, outcome):
    triggers = [{"id": "aisles-closed", "when": when, "effects": ISOLATE_BAY_A}]
    write_task(tmp_path, triggers=triggers)
    report = check_json(tmp_path, "--random-seeds", "1")
    control = next(c for c in report["controls"] if c["control"] == "no-lookups")
    assert (control["outcome"], control["ok"]) == (outcome, outcome == "failed"), control
    assert control["detail"].startswith("naive_plan without get_crate; ")
    problem = [p for p in report["problems"] if p.startswith("control no-lookups:")]
    if outcome == "passed":
        assert "the change fires only for an agent that looks" in problem[0]
    else:
        assert problem == []


def test_a_naive_plan_with_no_lookups_that_passes_is_not_blamed_on_looking(tmp_path):
    """An outside tester's task: a trigger on the operation with a typo in its effect's path
    (the effect failed, so the naive plan passed). The control said "the change fires only for
    an agent that looks" of a plan that makes no lookup, and a trigger already on the operation."""
    effects = [{"set": "crates.CR_1.location", "value": "BAY-B"}]  # (CR-1)
    triggers = [{"id": "crate-moved", "when": {"tool": "move_crate"}, "effects": effects}]
    naive = [{"tool": "move_crate", "args": {"crate_id": "CR-1", "to": "DISPATCH"}}]
    write_task(tmp_path, triggers=triggers, naive_plan=naive)
    report = check_json(tmp_path, "--random-seeds", "1")
    control = next(c for c in report["controls"] if c["control"] == "no-lookups")
    assert (control["outcome"], control["ok"]) == ("passed", False)
    assert control["detail"].startswith("naive_plan as it is (no lookups to leave out); ")
    assert "the naive plan itself passes (triggers fired: crate-moved): see why it does above" in control["detail"]
    assert "fires only for an agent that looks" not in control["detail"]
    assert any("no such key 'CR_1'" in p for p in report["problems"]), report["problems"]


def test_the_bundled_insulin_task_as_it_was_rewards_not_looking(tmp_path):
    """Its reefer fault fired only on get_vehicle_status: the naive plan without that lookup
    put the insulin on TRK-7 with its refrigeration intact and passed."""
    src = ROOT / "tasks" / "stt" / "logistics"
    data = yaml.safe_load((src / "insulin-reefer-fault-st2-easy.yaml").read_text())
    assert data["triggers"][0]["when"] == {"at": data["clock"]["start"]}  # as fixed
    data["triggers"][0]["when"] = {"tool": "get_vehicle_status", "args": {"vehicle_id": "TRK-7"}}
    (tmp_path / "logistics").mkdir()
    (tmp_path / "logistics" / "task.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    shutil.copy(src / "env.py", tmp_path / "logistics" / "env.py")
    report = check_json(tmp_path, "--random-seeds", "1")
    control = next(c for c in report["controls"] if c["control"] == "no-lookups")
    assert (control["outcome"], control["ok"]) == ("passed", False)
    assert control["detail"].startswith("naive_plan without get_vehicle_status; 4 step(s), the user is satisfied")


def test_without_lookups_keeps_operations_and_messages_in_order():
    task = SttTask.model_validate(copy.deepcopy(BASE))
    task.naive_plan.append(Step(say="done"))
    kept, dropped = without_lookups(task, {"get_crate": "query", "move_crate": "operation"})
    assert [(s.tool, s.say) for s in kept] == [("move_crate", None), (None, "done")] and dropped == ["get_crate"]


# -- impossible tasks: scripted endings after the solution's calls ----------------------------

IMPOSSIBLE = {
    "level": "impossible",
    "triggers": [
        {
            "id": "crate-stuck",
            # at the start: on the lookup, an agent that never looks would move the crate (check
            # finds that move_crate from the start reaches the goal)
            "when": {"at": BASE["clock"]["start"]},
            "effects": [
                {"move": "crates.CR-1", "to": "BAY-B"},
                {"disable_tool": "move_crate", "for": {"crate_id": "CR-1"}, "error": "forklift broken"},
            ],
        }
    ],
    "judge": {"reason": "the forklift for BAY-B is broken", "evidence": ["forklift", "bay-b"]},
    "solution": [
        {"tool": "get_crate", "args": {"crate_id": "CR-1"}},
        {"say": "I'm sorry, I cannot get CR-1 to dispatch: it is in BAY-B and the forklift is broken."},
    ],
}


def test_impossible_task_controls_all_fail_under_the_default_judge(tmp_path):
    write_task(tmp_path, **IMPOSSIBLE)
    report = check_json(tmp_path)
    assert report["ok"] is True, report["problems"]
    got = {c["control"]: (c["outcome"], c["ok"]) for c in report["controls"]}
    names = ["end-at-once", "polite", "do-nothing", "claims-success", "vague-apology", "cause-in-words"]
    assert {n: got[n] for n in names} == {n: ("failed", True) for n in names}
    assert got["random"] == ("0/20 passed", True)


def test_a_lenient_judge_is_caught_by_the_scripted_endings(tmp_path):
    lenient = copy.deepcopy(IMPOSSIBLE)
    lenient["judge"]["phrases"] = ["sorry"]  # any apology counts as saying it cannot be done
    write_task(tmp_path, **lenient)
    report = check_json(tmp_path)
    vague = next(c for c in report["controls"] if c["control"] == "vague-apology")
    assert (vague["outcome"], vague["ok"]) == ("passed", False)
    assert any(p.startswith("control vague-apology: passed") for p in report["problems"])


def test_scripted_endings_bury_the_cause_inside_other_words():
    task = SttTask.model_validate({**copy.deepcopy(BASE), **copy.deepcopy(IMPOSSIBLE)})
    said = scripted_messages(task)
    assert said["cause-in-words"] == "I'm sorry, I cannot do this: unforkliftish, unbaybish."
    assert "nothing here I cannot handle" in said["claims-success"] and "forklift" in said["claims-success"]


# -- authoring mistakes ------------------------------------------------------------------------


def test_a_set_on_a_record_that_does_not_exist_is_an_error_not_a_new_record(tmp_path):
    trigger = copy.deepcopy(BASE["triggers"][0])
    trigger["effects"].append({"set": "crates.CR-9.location", "value": "BAY-B"})
    write_task(tmp_path, triggers=[trigger])
    report = check_json(tmp_path)
    task = tmp_path / "task.yaml"
    expected = (
        f"{task}:{line_with(task, 'crates.CR-9.location')}: triggers[0].effects[1]: "
        "trigger crate-moved in solution: set crates.CR-9.location: no such key 'CR-9' in crates; "
        "an effect changes records that exist, it does not create them"
    )
    assert expected in report["problems"]
    env, _ = import_env(BASE["env"], MINI / "good.yaml")
    ep = Episode(SttTask.model_validate({**copy.deepcopy(BASE), "triggers": [trigger]}), env)
    ep.start()
    from sttui.core.actions import ToolCall

    ep.apply(ToolCall("get_crate", {"crate_id": "CR-1"}))
    assert "CR-9" not in ep.env.state["crates"]
    assert ep.env.state["crates"]["CR-1"]["location"] == "BAY-B"  # effects before the bad one apply


def test_a_new_field_of_an_existing_record_is_fine(tmp_path):
    trigger = copy.deepcopy(BASE["triggers"][0])
    trigger["effects"].append({"set": "crates.CR-1.note", "value": "moved by night shift"})
    write_task(tmp_path, triggers=[trigger])
    assert not [p for p in check_json(tmp_path)["problems"] if p.startswith("trigger ")]


AUDIT_QUERY = '''

    @tool("query", minutes=1)
    def audit_bay(self, bay: str) -> Result:
        """Stock-take of one bay (wrongly declared a query: it records the audit).

        Args:
            bay: Bay id.
        """
        if self.state["crates"]["CR-1"]["location"] == "DISPATCH":
            self.state.setdefault("audits", []).append(bay)
        return self.ok(bay=bay)
'''


def test_a_query_no_plan_calls_is_called_on_every_state_and_must_not_change_it(tmp_path):
    write_task(tmp_path, env_extra=AUDIT_QUERY)  # the class is the module's last statement
    report = check_json(tmp_path)
    env = tmp_path / "warehouse.py"
    assert (
        f"{env}:{line_with(env, 'def audit_bay') - 1}: WarehouseEnv.audit_bay: "  # (its @tool line)
        "query tool audit_bay changes state: audit_bay(bay='BAY-A') after solution step 2 changes audits; "
        "declare it an operation"
    ) in report["problems"]


def test_a_checklist_path_missing_at_the_end_says_no_such_key(tmp_path):
    data = {
        **copy.deepcopy(BASE),
        "checklist": [{"id": "gone", "expect": {"path": "crates.CR-9.location", "equals": "X"}}],
    }
    env, _ = import_env(BASE["env"], MINI / "good.yaml")
    ep = Episode(SttTask.model_validate(data), env)
    ep.start()
    (item,) = evaluate_checklist(ep)
    assert item.detail == "crates.CR-9.location equals 'X': no such key 'CR-9' in crates" and not item.passed
    impossible = {**copy.deepcopy(IMPOSSIBLE), "checklist": data["checklist"]}
    write_task(tmp_path, **impossible)
    task = tmp_path / "task.yaml"
    assert (
        f"{task}:{line_with(task, 'path: crates.CR-9.location')}: checklist[0].expect.path: "
        "checklist gone: crates.CR-9.location is missing at the end of naive_plan and solution "
        "(no such key 'CR-9' in crates); fix the path or let a plan create it"
    ) in check_json(tmp_path)["problems"]


def test_a_check_function_that_raises_fails_its_item():
    data = {
        **copy.deepcopy(BASE),
        "checklist": [{"id": "x", "check": "crate_at", "args": {"crate_id": "CR-9", "bay": "A"}}],
    }
    env, _ = import_env(BASE["env"], MINI / "good.yaml")
    ep = Episode(SttTask.model_validate(data), env)
    ep.start()
    (item,) = evaluate_checklist(ep)
    assert item.passed is False
    assert item.detail == "crate_at(): check raised KeyError: 'CR-9'"


def test_a_minefield_contains_on_a_mapping_of_records_fires_and_a_field_no_record_has_is_reported(tmp_path):
    mines = [
        {
            "id": "crate-at-dispatch",
            "severity": "warn",
            "reason": "any crate reaches dispatch",
            "constraints": [{"selector": "state.crates", "operator": "contains", "expected": {"location": "DISPATCH"}}],
        },
        {
            "id": "typo",
            "severity": "warn",
            "reason": "a field no crate has",
            "constraints": [{"selector": "state.crates", "operator": "contains", "expected": {"bay": "DISPATCH"}}],
        },
    ]
    milestones = [
        {
            "id": "seen",
            "name": "sees",
            "constraints": [{"selector": "call.tool", "operator": "equals", "expected": "get_crate"}],
        },
        {
            "id": "moved",
            "name": "moves",
            "after": ["seen"],
            "constraints": [{"selector": "state.crates.CR-1.location", "operator": "equals", "expected": "DISPATCH"}],
        },
    ]
    write_task(tmp_path, minefields=mines, milestones=milestones)
    report = check_json(tmp_path)
    problems = "\n".join(report["problems"])
    assert "solution step 2 touches minefield crate-at-dispatch: any crate reaches dispatch" in problems
    assert (
        "minefield typo: state.crates contains {'bay': 'DISPATCH'} can never hold: no record at crates has "
        "field(s) bay on any state the plans reach"
    ) in problems


def test_every_problem_of_a_file_in_one_pass(tmp_path):
    trigger = copy.deepcopy(BASE["triggers"][0])
    trigger["effects"].append({"set": "crates.CR-7.location", "value": "BAY-B"})
    write_task(tmp_path, triggers=[trigger], **KEEP_IN_A)
    problems = "\n".join(check_json(tmp_path)["problems"])
    for part in ("trigger crate-moved in solution: set crates.CR-7", "control end-at-once: passed", "control random:"):
        assert part in problems


def test_a_broken_graph_does_not_hide_what_the_plans_reveal(tmp_path):
    """Loading refuses the milestone whose threshold no action can reach; check still plays
    the task without its milestones, so every other mistake is named in the same pass, each
    with its file, line and field."""
    trigger = copy.deepcopy(BASE["triggers"][0])
    trigger["effects"].append({"set": "crates.CR-9.location", "value": "BAY-B"})
    checklist = [*BASE["checklist"], {"id": "gone", "expect": {"path": "crates.CR-1.seal", "equals": "intact"}}]
    seen = {
        "id": "seen",
        "name": "sees the crate and says so",
        "threshold": 0.75,
        "constraints": [
            {"selector": "call.tool", "operator": "equals", "expected": "get_crate"},
            {"selector": "message.text", "operator": "contains", "expected": "BAY-B"},
        ],
    }
    typo = {
        "id": "typo",
        "severity": "warn",
        "reason": "a field no crate has",
        "constraints": [{"selector": "state.crates", "operator": "contains", "expected": {"bay": "DISPATCH"}}],
    }
    write_task(
        tmp_path, env_extra=AUDIT_QUERY, triggers=[trigger], checklist=checklist, milestones=[seen], minefields=[typo]
    )
    task, env = tmp_path / "task.yaml", tmp_path / "warehouse.py"
    report = check_json(tmp_path, "--random-seeds", "1")
    assert report["task"] == "mini-crate-s1-easy"
    expected = [
        f"{task}:{line_with(task, 'threshold: 0.75')}: milestones[0].threshold: milestone seen: best weight share 0.50",
        f"{task}:{line_with(task, 'crates.CR-9.location')}: triggers[0].effects[1]: trigger crate-moved in naive_plan",
        f"{env}:{line_with(env, 'def audit_bay') - 1}: WarehouseEnv.audit_bay: query tool audit_bay changes state",
        f"{task}:{line_with(task, 'crates.CR-1.seal')}: checklist[2].expect.path: checklist gone: crates.CR-1.seal "
        "is missing at the end",
        f"{task}:{line_with(task, '      bay: DISPATCH') - 1}: minefields[0].constraints[0].expected: minefield typo: "
        "state.crates contains {'bay': 'DISPATCH'} can never hold",
    ]
    for start in expected:
        assert any(p.startswith(start) for p in report["problems"]), (start, report["problems"])
    assert "played without milestones: fix the problems there to check them" in report["notes"]
    assert [c["control"] for c in report["controls"]][:4] == ["end-at-once", "polite", "do-nothing", "no-lookups"]


@pytest.mark.parametrize(
    ("say", "told"),
    [
        ("The insulin is on its way on TRK-7.", False),  # the wrong truck
        ("TRK-7's refrigeration failed, so the insulin went on TRK-9.", True),
        # typed in a hurry (at 80x24 this passed the checklist and missed the milestone: stage
        # score 0.67, "first error at step 6")
        ("dne, insulin went on trk 9, arived 6:59", True),
    ],
)
def test_a_report_naming_the_wrong_truck_fails_the_checklist_and_does_not_settle_told_user(say, told):
    """The task's ``tell`` item reads the report against the state (TRK-9 carries the insulin),
    so the wrong truck fails the checklist as well as the stage review's told-user milestone."""
    loaded = load_task(ROOT / "tasks" / "stt" / "logistics" / "insulin-reefer-fault-st2-easy.yaml")
    agent = CallsThenSay("control:report", loaded.task.solution, [say])
    result = asyncio.run(run_episode(loaded, agent, ScriptedUser()))
    assert result.passed is told
    report = next(i for i in result.outcome.items if i.id == "report")
    assert report.passed is told
    assert ("told-user" in result.episode.review.settled) is told


def test_a_task_file_that_does_not_load_is_listed_by_the_id_it_gives(tmp_path):
    """An outside tester: "FAIL -" named no task for a file that failed to load, though its
    ``id:`` line was plain to read."""
    (tmp_path / "a.yaml").write_text("id: harbour-a5\nkind: stt\nquery: [unclosed\n")
    (tmp_path / "b.yaml").write_text("kind: stt\nquery: [unclosed\n")
    (tmp_path / "c.yaml").write_text("id: 'quoted-id'  # a comment\nlevel: easyy\n")
    result = CliRunner().invoke(main, ["check", str(tmp_path), "--json"], catch_exceptions=False)
    tasks = {Path(t["file"]).name: t["task"] for t in json.loads(result.output)["tasks"]}
    assert tasks == {"a.yaml": "harbour-a5", "b.yaml": None, "c.yaml": "quoted-id"}
    out = CliRunner().invoke(main, ["check", str(tmp_path)]).output
    assert "FAIL harbour-a5 " in out and "FAIL - " in out
