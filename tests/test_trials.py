"""Trials and seeds: one run plan decides each trial's seed, and every controller that draws
randomness (and a model's sampling seed) takes it, so K trials are K distinct episodes."""

from __future__ import annotations

import asyncio
import json

import pytest
from click.testing import CliRunner

from sttui.cli import main
from sttui.config import model_aliases
from sttui.controllers.registry import make_agent
from sttui.core.loader import load_all, load_task
from sttui.core.settings import RunSettings
from sttui.running.batch import run_batch
from sttui.running.plan import PlanError, RunPlan
from tests.conftest import ROOT
from tests.helpers.stub_openai import StubServer, calls, completion, planner, say, tool_call

STT = ROOT / "tasks" / "stt" / "logistics" / "insulin-reefer-fault-st2-easy.yaml"
EXPLORE = ROOT / "tasks" / "explore" / "finance" / "additive-1.yaml"


def run_json(db: str, *args: str) -> dict:
    result = CliRunner().invoke(main, ["--db", db, "run", *map(str, args), "--json"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def agent_actions(db: str, episode: str) -> tuple:
    from sttui.store.store import Store

    store = Store(db)
    agent = store.episode(episode).agent
    out = tuple(
        json.dumps(e.payload, sort_keys=True)
        for e in store.events(episode)
        if e.actor == agent and e.type in ("tool_call", "message", "batch_submitted", "probe", "assessment")
    )
    store.close()
    return out


@pytest.mark.parametrize("task", [STT, EXPLORE], ids=["stt", "explore"])
def test_k_trials_of_the_random_baseline_are_k_distinct_episodes(task, tmp_path):
    db = f"sqlite:///{tmp_path / 'k.db'}"
    data = run_json(db, task, "--agent", "baseline:random", "--trials", "6")
    episodes = data["episodes"]
    base = load_task(task).task.seed
    assert sorted(e["seed"] for e in episodes) == [base + i for i in range(6)]  # the task's seed plus the trial
    sequences = {agent_actions(db, e["episode"]) for e in episodes}
    assert len(sequences) == 6


def test_the_seed_option_moves_the_base_and_trials_count_up_from_it(tmp_path):
    db = f"sqlite:///{tmp_path / 's.db'}"
    episodes = run_json(db, EXPLORE, "--agent", "baseline:random", "--trials", "3", "--seed", "40")["episodes"]
    assert sorted(e["seed"] for e in episodes) == [40, 41, 42]
    again = run_json(db, EXPLORE, "--agent", "baseline:random", "--trials", "3", "--seed", "40")["episodes"]
    first = {e["seed"]: agent_actions(db, e["episode"]) for e in episodes}
    second = {e["seed"]: agent_actions(db, e["episode"]) for e in again}
    assert first == second  # the same seed is the same episode


def test_random_explore_episodes_of_different_tasks_do_not_share_one_action_list(tmp_path):
    loaded, _ = load_all([ROOT / "tasks" / "explore"])
    plan = RunPlan.build(loaded, agent="baseline:random", record=False)
    trials = plan.all_trials()
    assert len({t.seed for t in trials}) < len(trials)  # bundled episodes share seeds ...
    window = {"phase": "window", "cases": [{}] * 24}
    drawn = {tuple(asyncio.run(make_agent(plan.agent, t.loaded, t.seed).act(window)).actions) for t in trials}
    assert len(drawn) == len(trials)  # ... yet each draws its own actions


def test_the_human_judge_path_uses_each_trials_seed(tmp_path, monkeypatch):
    impossible = ROOT / "tasks" / "stt" / "logistics" / "mull-blood-ferry-s3-impossible.yaml"
    asked = []

    def ask(episode, item_id, question):
        asked.append(episode.seed)
        return False, ""

    monkeypatch.setattr("sttui.cli.run._ask_at_terminal", ask)
    db = f"sqlite:///{tmp_path / 'h.db'}"
    episodes = run_json(db, impossible, "--agent", "baseline:random", "--judge", "human", "--trials", "3")["episodes"]
    assert sorted(e["seed"] for e in episodes) == [0, 1, 2]
    assert sorted(set(asked)) == [0, 1, 2]
    assert len({agent_actions(db, e["episode"]) for e in episodes}) == 3


def test_a_models_sampling_seed_is_the_trials_seed(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-stub-0123456789")
    loaded = load_task(STT)
    steps = [calls(tool_call("end_episode", {"reason": "done"}, "call_end"))]
    with StubServer(planner(steps)) as stub:
        models = {"stub": {"model": "openai/stub-model", "api_base": stub.base, "backoff": 0.01}}
        plan = RunPlan.build([loaded], agent="model:stub", trials=3, seed=7, models=model_aliases(models), record=False)
        asyncio.run(run_batch(plan, store=None))
    assert sorted(r["seed"] for r in stub.requests) == [7, 8, 9]


def test_a_model_users_sampling_seed_is_the_trials_seed(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-stub-0123456789")

    def respond(request):
        if "tools" not in request:  # the user's model
            return 200, completion(say("Dock 4, thanks.")), 0.0
        asked = any(m["role"] == "assistant" for m in request["messages"])
        step = calls(tool_call("end_episode", {"reason": "done"}, "call_end")) if asked else say("Which dock?")
        return 200, completion(step), 0.0

    with StubServer(respond) as stub:
        models = {"stub": {"model": "openai/stub-model", "api_base": stub.base, "backoff": 0.01}}
        plan = RunPlan.build(
            [load_task(STT)],
            agent="model:stub",
            user="model:stub",
            trials=2,
            seed=3,
            models=model_aliases(models),
            record=False,
        )
        asyncio.run(run_batch(plan, store=None))
    users = [r["seed"] for r in stub.requests if "tools" not in r]
    assert users and sorted(set(users)) == [3, 4]


def test_a_plan_has_one_seed_rule_and_refuses_options_that_do_not_go_together():
    stt, explore = load_task(STT), load_task(EXPLORE)
    plan = RunPlan.build([stt, explore], trials=3, seed=None)
    assert [(t.loaded.id, t.index, t.seed) for t in plan.all_trials()] == [
        (stt.id, 0, 0),
        (stt.id, 1, 1),
        (stt.id, 2, 2),
        (explore.id, 0, 1),  # this explore file's own seed is 1
        (explore.id, 1, 2),
        (explore.id, 2, 3),
    ]
    assert RunPlan.build([stt], seed=10).seed_for(stt, 4) == 14
    assert RunPlan.build([stt], judge="human", concurrency=8).concurrency == 1
    with pytest.raises(PlanError, match="--setting applies to explore"):
        RunPlan.build([stt], settings=RunSettings(explore_setting="stationary"))
    with pytest.raises(PlanError, match="--static and --no-user apply to stt"):
        RunPlan.build([explore], settings=RunSettings(static=True))
    with pytest.raises(PlanError, match="drop --user"):
        RunPlan.build([stt], user="human:ana", settings=RunSettings(no_user=True))
    with pytest.raises(ValueError, match="explore setting"):
        RunSettings(explore_setting="sunny")


IMPOSSIBLE = ROOT / "tasks" / "stt" / "logistics" / "mull-blood-ferry-s3-impossible.yaml"


@pytest.mark.parametrize(
    ("args", "said"),
    [
        ((STT, "--setting", "stationary"), "--setting applies to explore episodes"),
        ((EXPLORE, "--static"), "--static and --no-user apply to stt tasks"),
        ((EXPLORE, "--no-user"), "--static and --no-user apply to stt tasks"),
        ((STT, "--trials", "0"), "0 is not in the range x>=1"),
        ((STT, "--trials", "-1"), "-1 is not in the range x>=1"),
        ((STT, "--seed", "abc"), "'abc' is not a valid integer"),
        ((STT, "--setting", "bogus"), "'bogus' is not one of"),
        ((STT, "--seed", "-5"), "--seed must be within 0..9223372036854775807; got -5"),
        ((STT, "--seed", str(2**70)), f"--seed must be within 0..9223372036854775807; got {2**70}"),
        ((STT, "--seed", str(2**63 - 1), "--trials", "2"), "goes past the largest seed"),
        ((IMPOSSIBLE, "--static"), "--static skips 1 impossible task(s)"),
        ((STT, "--no-user", "--user", "baseline:scripted"), "--no-user leaves the user seat empty; drop --user"),
    ],
)
def test_the_cli_says_in_one_line_why_a_plan_is_refused(tmp_path, args, said):
    db = tmp_path / "x.db"
    result = CliRunner().invoke(main, ["--db", f"sqlite:///{db}", "run", *map(str, args)])
    assert result.exit_code == 2 and said in result.output
    assert "Traceback" not in result.output and not db.exists()  # refused before anything ran


@pytest.mark.parametrize("judge", ["bogus", "model:", "human:ana"])
def test_a_bad_judge_is_named_as_a_judge(tmp_path, judge):
    result = CliRunner().invoke(main, ["--db", f"sqlite:///{tmp_path / 'j.db'}", "run", str(STT), "--judge", judge])
    assert result.exit_code == 2 and f"error: judge '{judge}': expected rule, human or model:MODEL" in result.output


def test_the_last_trial_may_run_on_the_largest_seed():
    plan = RunPlan.build([load_task(STT)], seed=2**63 - 2, trials=2)
    assert [t.seed for t in plan.all_trials()] == [2**63 - 2, 2**63 - 1]
