"""The static setting (STT-Arena's triggers-off comparison) is judged on the static world's goal:
``static_checklist`` picks what judges, the oracle plays the naive plan, ``check`` holds the
naive plan and the idle agents to it, and static episodes get no stage review."""

from __future__ import annotations

import asyncio
import copy
import json
import shutil

import pytest
import yaml
from click.testing import CliRunner

import sttui.running.batch as batch
from sttui.cli import main
from sttui.controllers.base import user_view
from sttui.controllers.baselines import ScriptedUser
from sttui.controllers.controls import DoNothing
from sttui.controllers.registry import make_agent
from sttui.core.checklist import checklist_for, evaluate_checklist
from sttui.core.loader import discover, load_task
from sttui.core.problems import TaskFileError
from sttui.core.settings import DEFAULT, RunSettings
from sttui.running.plan import PlanError, ReviewPlan, RunPlan
from sttui.running.runner import open_episode, run_episode
from tests.conftest import FIXTURES, ROOT

MINI = FIXTURES / "mini"
BASE = yaml.safe_load((MINI / "good.yaml").read_text())
STATIC = RunSettings(static=True)

# the mini task's static world: the get_crate trigger never moves CR-1 out of BAY-A
IN_A = [{"id": "still-in-a", "check": "crate_at", "args": {"crate_id": "CR-1", "bay": "BAY-A"}}]
AT_DISPATCH = [{"id": "at-dispatch", "check": "crate_at", "args": {"crate_id": "CR-1", "bay": "DISPATCH"}}]
IN_B = [{"id": "in-bay-b", "check": "crate_at", "args": {"crate_id": "CR-1", "bay": "BAY-B"}}]


def write_task(tmp_path, **changes):
    data = copy.deepcopy(BASE)
    data.update(changes)
    path = tmp_path / "task.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    shutil.copy(MINI / "warehouse.py", tmp_path / "warehouse.py")
    return path


def check_json(tmp_path) -> dict:
    result = CliRunner().invoke(main, ["check", str(tmp_path), "--json", "--random-seeds", "2"])
    report = json.loads(result.output)
    assert result.exit_code == (0 if report["ok"] else 1)
    return report["tasks"][0]


@pytest.mark.parametrize(
    ("static_checklist", "settings", "judged_by"),
    [
        (IN_A, STATIC, ["still-in-a"]),  # static: the static checklist
        (IN_A, DEFAULT, ["at-dispatch", "not-moved-by-hand"]),  # dynamic: the checklist
        (None, STATIC, ["at-dispatch", "not-moved-by-hand"]),  # no static checklist: the checklist
    ],
)
def test_the_setting_picks_the_checklist_in_one_place(tmp_path, static_checklist, settings, judged_by):
    extra = {"static_checklist": static_checklist} if static_checklist else {}
    loaded = load_task(write_task(tmp_path, **extra))
    assert [i.id for i in checklist_for(loaded.task, settings)] == judged_by
    episode = open_episode(loaded, None, {"agent": "a", "user": "u"}, settings=settings)
    episode.start()
    assert [i.id for i in evaluate_checklist(episode)] == judged_by
    # the scripted user's "goal met" follows the same checklist: CR-1 starts in BAY-A
    assert user_view(episode).goal_met is (judged_by == ["still-in-a"])


def test_a_static_episode_is_scored_and_ended_on_the_static_checklist(tmp_path):
    loaded = load_task(write_task(tmp_path, static_checklist=AT_DISPATCH))
    agent = make_agent("baseline:naive", loaded)
    result = asyncio.run(run_episode(loaded, agent, ScriptedUser(), settings=STATIC))
    assert result.passed and [i.id for i in result.outcome.items] == ["at-dispatch"]
    idle = asyncio.run(run_episode(loaded, DoNothing(), ScriptedUser(), settings=STATIC))
    assert not idle.passed


@pytest.mark.parametrize(("settings", "plan"), [(STATIC, "naive_plan"), (DEFAULT, "solution")])
def test_the_oracle_plays_the_naive_plan_under_the_static_setting(settings, plan):
    loaded = load_task(ROOT / "tasks/stt/clinic/cardiology-rota-s1-easy.yaml")
    task = loaded.task
    assert task.naive_plan != task.solution
    records = asyncio.run(
        batch.run_batch(RunPlan.build([loaded], agent="baseline:oracle", settings=settings), store=None)
    )
    assert records[0]["passed"]
    oracle = make_agent("baseline:oracle", loaded, settings=settings)
    assert oracle._steps == list(getattr(task, plan))


def test_check_reports_a_naive_plan_that_fails_under_static_at_the_item(tmp_path):
    path = write_task(tmp_path, static_checklist=IN_B)
    report = check_json(tmp_path)
    line = next(i for i, text in enumerate(path.read_text().splitlines(), 1) if "id: in-bay-b" in text)
    expected = (
        f"{path}:{line}: static_checklist[0].id: under --static the naive plan fails static_checklist item "
        "in-bay-b: crate_at(): "
    )
    assert any(p.startswith(expected) and "add or fix static_checklist" in p for p in report["problems"]), report


def test_check_reports_a_static_checklist_an_idle_agent_passes(tmp_path):
    write_task(tmp_path, static_checklist=IN_A)  # CR-1 starts in BAY-A: nothing to do
    problems = "\n".join(check_json(tmp_path)["problems"])
    assert "under --static the idle control(s) end-at-once, polite, do-nothing pass static_checklist" in problems


def test_check_passes_a_sound_static_checklist(tmp_path):
    write_task(tmp_path, static_checklist=AT_DISPATCH)
    report = check_json(tmp_path)
    assert not [p for p in report["problems"] if "--static" in p], report["problems"]


def test_static_skip_leaves_the_task_out_of_static_runs_and_static_checks(tmp_path):
    write_task(tmp_path, static_skip="nothing to do without the trigger", static_checklist=None)
    loaded = load_task(tmp_path / "task.yaml")
    with pytest.raises(PlanError, match=r"static_skip: mini-crate-s1-easy"):
        RunPlan.build([loaded], agent="baseline:naive", settings=STATIC)
    assert RunPlan.build([loaded], agent="baseline:naive").tasks == (loaded,)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"static_checklist": [{"id": "x", "check": "crate_there"}]}, "no check function 'crate_there'"),
        ({"static_checklist": IN_A + IN_A}, "duplicate static_checklist id 'still-in-a'"),
        ({"static_checklist": IN_A, "static_skip": "nothing to do"}, "has no static_checklist"),
        (
            {"level": "impossible", "static_skip": "x", "judge": {"reason": "r", "evidence": ["e"]}},
            "static_skip is for",
        ),
    ],
)
def test_a_bad_static_checklist_is_a_load_error(tmp_path, changes, message):
    with pytest.raises(TaskFileError) as err:
        load_task(write_task(tmp_path, **changes))
    assert message in str(err.value)


def test_static_episodes_are_not_stage_reviewed():
    # the milestone graphs follow the recovery from the triggers: the static world's right
    # play (the naive plan) settles none of them, so a static run gets no review
    loaded = load_task(ROOT / "tasks/stt/clinic/cardiology-rota-s1-easy.yaml")
    assert loaded.task.milestones
    assert open_episode(loaded, None, {}, settings=DEFAULT).review is not None
    assert open_episode(loaded, None, {}, settings=STATIC).review is None


@pytest.mark.parametrize("agent", ["baseline:naive", "baseline:oracle"])
def test_naive_and_oracle_pass_every_bundled_solvable_task_under_static(agent):
    tasks = [load_task(f) for f in discover([ROOT / "tasks/stt"])]
    plan = RunPlan.build(tasks, agent=agent, settings=STATIC)
    records = asyncio.run(batch.run_batch(plan, store=None))
    failed = [(r["task"], [i["id"] for i in r["checklist"] if not i["passed"]]) for r in records if not r["passed"]]
    assert not failed
    assert len(records) == sum(t.task.level != "impossible" and not t.task.static_skip for t in tasks)
    assert all(r.get("review") is None for r in records)


def test_a_recorded_static_episode_is_rescored_on_the_static_checklist(tmp_path):
    tasks = tmp_path / "tasks"
    tasks.mkdir()
    write_task(tasks, static_checklist=AT_DISPATCH)
    db = f"sqlite:///{tmp_path / 'r.db'}"

    def cli(*args: str) -> dict:
        result = CliRunner().invoke(main, ["--db", db, *args], catch_exceptions=False)
        assert result.exit_code == 0, result.output
        return json.loads(result.output)

    ran = cli("run", str(tasks), "--agent", "baseline:oracle", "--static", "--json")["episodes"][0]
    assert ran["setting"] == "static" and [i["id"] for i in ran["checklist"]] == ["at-dispatch"]
    replayed = cli("replay", ran["episode"], "--json")
    assert replayed["reproduces_record"] is True
    assert replayed["rescored"] == {"passed": True, "items": {"at-dispatch": True}}
    assert replayed["review"] is None


def test_a_static_episode_forked_to_the_oracle_goes_on_with_the_naive_plan(tmp_path):
    db = f"sqlite:///{tmp_path / 'f.db'}"
    task = ROOT / "tasks/stt/clinic/cardiology-rota-s1-easy.yaml"

    def cli(*args: object) -> dict:
        result = CliRunner().invoke(main, ["--db", db, *map(str, args)], catch_exceptions=False)
        assert result.exit_code == 0, result.output
        return json.loads(result.stdout)

    original = cli("run", task, "--agent", "baseline:naive", "--static", "--json")["episodes"][0]["episode"]
    # the first tool call's row: the oracle takes over after it, in the recorded static setting
    fork = cli("fork", original, "--at", 3, "--headless", "--agent", "baseline:oracle", "--json")
    assert fork["replayed_actions"] == 1 and fork["triggers_fired"] == []
    naive = load_task(task).task.naive_plan
    assert (fork["steps"], fork["tool_calls"]) == (len(naive), sum(s.tool is not None for s in naive))
    assert fork["passed"], fork["checklist"]
    assert [i["id"] for i in fork["checklist"]] == ["okafor-review", "told-harbourside", "no-clash", "report"]


def test_check_refuses_a_static_skip_on_a_task_with_work_left_in_the_static_world(tmp_path):
    write_task(tmp_path, static_skip="nothing to do")  # CR-1 still has to reach DISPATCH
    problems = "\n".join(check_json(tmp_path)["problems"])
    assert "static_skip: static_skip says the static world leaves nothing to do, but under --static" in problems
    assert "end-at-once, polite, do-nothing fail the checklist; write a static_checklist instead" in problems


@pytest.mark.parametrize(
    ("settings", "ids"), [(STATIC, ["at-dispatch"]), (DEFAULT, ["at-dispatch", "not-moved-by-hand"])]
)
def test_the_refine_screen_marks_the_checklist_the_record_was_judged_by(tmp_path, settings, ids):
    from types import SimpleNamespace

    from sttui.tui.refine import RefineScreen

    loaded = load_task(write_task(tmp_path, static_checklist=AT_DISPATCH))
    episode = open_episode(loaded, None, {"agent": "a", "user": "u"}, settings=settings)
    episode.start()
    refinement = SimpleNamespace(loaded=loaded, events=episode.events)
    assert RefineScreen._checklist_ids(SimpleNamespace(refinement=refinement)) == ids


@pytest.mark.parametrize(
    ("review", "noted"),
    [
        (ReviewPlan(), False),
        (ReviewPlan(early_stop=True), True),
        (ReviewPlan(judge_stages="model:m"), True),
    ],
)
def test_a_static_plan_says_the_review_options_do_nothing_for_it(review, noted):
    loaded = load_task(ROOT / "tasks" / "stt" / "logistics" / "insulin-reefer-fault-st2-easy.yaml")
    plan = RunPlan.build([loaded], agent="baseline:naive", review=review, settings=RunSettings(static=True))
    said = [n for n in plan.skipped if "not stage-reviewed" in n]
    assert bool(said) == noted
    dynamic = RunPlan.build([loaded], agent="baseline:naive", review=review)
    assert not any("not stage-reviewed" in n for n in dynamic.skipped)
