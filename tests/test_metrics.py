"""The figures a lab publishes: Pass@k and pass^k for every k, seeded bootstrap intervals,
errored episodes as failures, explore CA over the scheduled batches, ties in exact accuracy,
and the papers' settings (static, no user, explore settings) recorded and compared."""

from __future__ import annotations

import asyncio
import json

import pytest
from click.testing import CliRunner

from sttui.analysis.comparison import compare
from sttui.cli import main
from sttui.config import model_aliases
from sttui.controllers.explore_baselines import ExploreOracle
from sttui.core import events as ev
from sttui.core.actions import EndEpisode, Probe, Say, ToolCall
from sttui.core.explore.episode import ExploreEpisode
from sttui.core.explore.metrics import metrics, random_ca
from sttui.core.explore.rules import optimal
from sttui.core.loader import load_task
from sttui.core.settings import RunSettings
from sttui.core.stats import bootstrap, pass_at_k, pass_hat_k
from sttui.running.batch import report, run_batch, stt_summary
from sttui.running.plan import RunPlan
from sttui.running.runner import open_episode
from tests.conftest import ROOT
from tests.helpers.stub_openai import StubServer, error

STT = ROOT / "tasks" / "stt" / "logistics" / "insulin-reefer-fault-st2-easy.yaml"
EXPLORE = ROOT / "tasks" / "explore" / "finance" / "additive-1.yaml"


@pytest.mark.parametrize(
    ("n", "c", "k", "at", "hat"),
    [
        (4, 1, 3, 0.75, 0.0),  # 1 - C(3,3)/C(4,3); no 3 of 4 all pass
        (4, 2, 2, 5 / 6, 1 / 6),
        (4, 4, 4, 1.0, 1.0),
        (4, 0, 1, 0.0, 0.0),
        (10, 3, 1, 0.3, 0.3),
        (5, 4, 2, 1.0, 0.6),  # n - c < k: any 2 include a pass
        (5, 3, 2, 0.9, 0.3),  # n - c == k: 1 - C(2,2)/C(5,2)
    ],
)
def test_pass_at_k_and_pass_hat_k(n, c, k, at, hat):
    assert pass_at_k(n, c, k) == pytest.approx(at)
    assert pass_hat_k(n, c, k) == pytest.approx(hat)


@pytest.mark.parametrize("fn", [pass_at_k, pass_hat_k])
@pytest.mark.parametrize(("n", "c", "k"), [(2, 1, 3), (3, 4, 1), (3, -1, 1)])
def test_estimators_refuse_impossible_counts(fn, n, c, k):
    with pytest.raises(ValueError):
        fn(n, c, k)


def _rec(task: str, passed: bool, status: str = "completed", level: str = "easy") -> dict:
    return {"task": task, "kind": "stt", "passed": passed, "level": level, "conflict": "T1", "status": status}


def test_pass_at_k_over_several_tasks_is_the_mean_of_each_tasks_estimate():
    records = [_rec("a", p) for p in (True, False, False, False)] + [_rec("b", p) for p in (True, True, True, False)]
    s = stt_summary(records)
    assert s["trials"] == 4
    assert list(s["pass_at_k"]) == ["pass@1", "pass@2", "pass@3", "pass@4"]
    assert s["pass_at_k"]["pass@3"] == pytest.approx((0.75 + 1.0) / 2)
    assert s["pass_hat_k"]["pass^2"] == pytest.approx((0.0 + 0.5) / 2)
    assert s["pass_hat_k"]["pass^4"] == 0.0 and s["pass_at_k"]["pass@4"] == 1.0
    assert s["overall"] == pytest.approx(4 / 8)


def test_errored_episodes_are_failures_and_listed():
    records = [_rec("a", True), _rec("a", False, "errored"), _rec("b", True), _rec("b", True)]
    records[1]["error"] = "ModelFailure: down"
    out = report(records)
    assert out["errored"] == 1 and out["errored_episodes"][0]["error"] == "ModelFailure: down"
    assert out["stt"]["errored"] == 1 and out["stt"]["overall"] == pytest.approx(3 / 4)
    assert out["stt"]["pass_at_k"]["pass@1"] == pytest.approx((0.5 + 1.0) / 2)


def test_bootstrap_is_seeded_and_brackets_the_estimate():
    units = [[True, False], [True, True], [False, False], [True, False], [False, True], [True, True]]

    def rate(sample):
        return sum(map(sum, sample)) / sum(map(len, sample))

    first, second = bootstrap(units, rate), bootstrap(units, rate)
    assert first == second  # a rerun prints the same interval
    lo, hi = first
    assert lo < rate(units) < hi and lo >= 0 and hi <= 1
    values = [0.1, 0.4, 0.35, 0.8, 0.9, 0.2, 0.55]
    assert bootstrap(values, lambda s: sum(s) / len(s), seed=1) != bootstrap(values, lambda s: sum(s) / len(s))
    assert bootstrap(units[:1], rate) is None  # one task: nothing to resample
    wide = bootstrap(units, rate, level=0.99)
    assert wide[0] <= lo and wide[1] >= hi


def test_a_run_prints_pass_at_k_and_pass_hat_k_for_every_k_with_intervals(tmp_path):
    out = CliRunner().invoke(
        main,
        [
            *("--db", f"sqlite:///{tmp_path / 'r.db'}", "run", str(ROOT / "tasks" / "stt" / "clinic")),
            *("--agent", "baseline:random", "--trials", "3", "--no-record", "--json"),
        ],
    )
    summary = json.loads(out.output)["summary"]["stt"]
    assert list(summary["pass_at_k"]) == ["pass@1", "pass@2", "pass@3"]
    assert list(summary["pass_hat_k"]) == ["pass^1", "pass^2", "pass^3"]
    assert len(summary["overall_ci"]) == 2 and summary["overall_ci"][0] <= summary["overall"]
    assert summary["review"]["mean_score_ci"] is not None
    text = CliRunner().invoke(
        main, ["--db", f"sqlite:///{tmp_path / 'r.db'}", "run", str(STT), "--trials", "2", "--no-record"]
    )
    assert "pass^2" in text.output and "pass@2" in text.output


def test_an_errored_model_episode_counts_as_a_failure_in_run_and_report(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-stub-0123456789")
    from sttui.store.store import Store

    loaded = load_task(STT)
    store = Store(f"sqlite:///{tmp_path / 'e.db'}")
    with StubServer(lambda request: error(500, "down")) as stub:
        models = {"stub": {"model": "openai/stub-model", "api_base": stub.base, "retries": 0}}
        plan = RunPlan.build([loaded], agent="model:stub", trials=2, models=model_aliases(models))
        records = asyncio.run(run_batch(plan, store=store))
    summary = report(records)
    assert summary["errored"] == 2 and summary["stt"]["overall"] == 0.0
    oracle = RunPlan.build([loaded], agent="baseline:oracle")
    asyncio.run(run_batch(oracle, store=store))
    finished = store.list_episodes(status="errored") + store.list_episodes(status="completed")
    rows = {
        r["controller"]: r for r in compare(finished, {loaded.id: {"level": "easy", "conflict": "ST2"}})["controllers"]
    }
    assert rows["model:stub"]["errored"] == 2 and rows["model:stub"]["stt_common_pass_at_1"] == 0.0
    assert rows["baseline:oracle"]["stt_common_pass_at_1"] == 1.0


# -- explore ---------------------------------------------------------------------------


def _play(task, stop_at_phase: str | None = None) -> ExploreEpisode:
    ep = ExploreEpisode(task)
    oracle = ExploreOracle("o", task)
    ep.start()
    while ep.ended is None:
        view = ep.agent_view()
        if view["phase"] == stop_at_phase:
            ep.apply(EndEpisode("quit"))
            break
        ep.apply(asyncio.run(oracle.act(view)))
    return ep


def test_an_agent_that_quits_at_the_pre_change_assessment_does_not_score_full_ca():
    task = load_task(EXPLORE).task
    full = metrics(_play(task))
    assert full["calibrated_accuracy"] == pytest.approx(1.0) and not full["incomplete"]
    quit_early = metrics(_play(task, "assess_pre"))
    drift = task.drift.after_batch
    assert quit_early["incomplete"] and quit_early["batches_played"] == drift
    assert quit_early["ca_played"] == pytest.approx(1.0)
    assert quit_early["calibrated_accuracy"] == pytest.approx(drift / task.schedule.batches)


def test_exact_accuracy_counts_every_best_action_when_utilities_tie():
    from sttui.core.actions import SubmitBatch
    from sttui.core.loader import load_all

    found = None
    for loaded in load_all([ROOT / "tasks" / "explore"])[0]:  # a first-batch case whose best is shared
        for seed in range(50):
            ep = ExploreEpisode(loaded.task, seed)
            utils = [ep.utilities(c, ep.rule_for_batch(0)) for c in ep.batches[0]]
            tied = [i for i, u in enumerate(utils) if sum(x == max(u) for x in u) > 1]
            if tied:
                found = ep, utils, tied[0]
                break
        if found:
            break
    assert found, "no tie among the bundled episodes' first batches"
    ep, utils, i = found
    ep.start()
    choice = [optimal(u) for u in utils]
    other = next(a for a, x in enumerate(utils[i]) if x == max(utils[i]) and a != choice[i])
    choice[i] = other  # the other best action
    ep.apply(SubmitBatch([a + 1 for a in choice]))
    ep.apply(EndEpisode("enough"))
    m = metrics(ep)
    assert m["ca_per_batch"] == [pytest.approx(1.0)]
    unplayed = [ep.utilities(c, ep.rule_for_batch(b)) for b, batch in enumerate(ep.batches) if b for c in batch]
    random_exact = sum(sum(x == max(u) for x in u) / 4 for u in unplayed)
    assert m["exact_accuracy"] == pytest.approx((len(choice) + random_exact) / sum(map(len, ep.batches)))


def test_random_ca_is_zero_unless_all_actions_are_equal():
    assert random_ca([-1.0, 0.0, 0.5, 0.5]) == 0.0
    assert random_ca([0.0, 0.0, 0.0, 0.0]) == 1.0


# -- settings --------------------------------------------------------------------------


def test_static_turns_the_triggers_off_and_is_recorded():
    loaded = load_task(STT)
    ep = open_episode(loaded, 0, {"agent": "a", "user": "u"}, settings=RunSettings(static=True))
    ep.start()
    for step in loaded.task.solution:
        if step.tool:
            ep.apply(ToolCall(step.tool, dict(step.args)))
    assert not [e for e in ep.events if e.type == ev.TRIGGER_FIRED]
    assert ep.events[0].payload["settings"] == {"static": True}


def test_no_user_gives_the_whole_goal_first_and_keeps_the_turn():
    loaded = load_task(STT)
    ep = open_episode(loaded, 0, {"agent": "a", "user": "none"}, settings=RunSettings(no_user=True))
    ep.start()
    opening = ep.view[0]["text"]
    assert loaded.task.query in opening and loaded.task.user.goal in opening
    for key in loaded.task.user.withheld:
        assert key.replace("_", " ") in opening  # every withheld detail, given up front
    ep.apply(Say("Is 500 doses right?"))
    assert ep.turn == "agent" and ep.ended is None


def test_settings_run_from_the_command_line_replay_and_compare_in_report(tmp_path):
    db = f"sqlite:///{tmp_path / 's.db'}"
    runner = CliRunner()

    def run(*args):
        out = runner.invoke(main, ["--db", db, "run", *map(str, args), "--json"], catch_exceptions=False)
        assert out.exit_code == 0, out.output
        return json.loads(out.output)["episodes"]

    dynamic = run(STT, "--agent", "baseline:naive")
    static = run(STT, "--agent", "baseline:naive", "--static")
    no_user = run(STT, "--agent", "baseline:naive", "--no-user")
    stationary = run(EXPLORE, "--agent", "baseline:stale", "--setting", "stationary")
    default = run(EXPLORE, "--agent", "baseline:stale")
    assert dynamic[0]["triggers_fired"] and not static[0]["triggers_fired"]
    assert static[0]["setting"] == "static" and no_user[0]["setting"] == "no-user" and no_user[0]["user"] == "none"
    assert static[0]["passed"] and not dynamic[0]["passed"]  # the naive plan works when nothing changes
    assert stationary[0]["setting"] == "stationary" and stationary[0]["metrics"]["calibrated_accuracy"] == 1.0
    assert default[0]["metrics"]["calibrated_accuracy"] < 1.0  # the stale agent pays for the drift
    for e in (static[0], no_user[0], stationary[0]):  # a rebuild reads the setting back from the record
        replay = json.loads(runner.invoke(main, ["--db", db, "replay", e["episode"], "--json"]).output)
        assert replay["reproduces_record"] is True
    sessions = json.loads(runner.invoke(main, ["--db", db, "sessions", "--json"]).output)
    assert {s["setting"] for s in sessions} == {"default", "static", "no-user", "stationary"}
    data = json.loads(runner.invoke(main, ["--db", db, "report", "--json"]).output)
    settings = {(c["controller"], c["setting"]): c for c in data["settings"]}
    assert settings[("baseline:naive", "static")]["difference"] == 1.0
    assert settings[("baseline:naive", "no-user")]["base"] == "default"
    assert settings[("baseline:stale", "stationary")]["measure"] == "calibrated_accuracy"
    rows = {(r["controller"], r["setting"]) for r in data["controllers"]}
    assert ("baseline:naive", "static") in rows and ("baseline:naive", "default") in rows
    text = runner.invoke(main, ["--db", db, "report"]).output
    assert "The same controller under two settings" in text and "static 100.0%" in text


def test_alpha_has_a_seeded_bootstrap_interval_over_items():
    from sttui.annotate.agreement import agreement

    values = [(5, 5, 4), (2, 2, 1), (4, 3, 4), (1, 2, 1), (3, 3, 3), (5, 4, 5), (2, 3, 2), (4, 4, 5)]
    rows = [
        {"item_kind": "task", "item_id": f"t{i}", "dimension": "d", "annotator": a, "value": v}
        for i, triple in enumerate(values)
        for a, v in zip("abc", triple, strict=True)
    ]
    first, second = agreement(rows)["dimensions"]["d"], agreement(rows)["dimensions"]["d"]
    lo, hi = first["alpha_ci"]
    assert first["alpha_ci"] == second["alpha_ci"] and lo < first["alpha"] < hi <= 1
    same = [dict(r, value=3) for r in rows]  # alpha undefined: no interval either
    assert agreement(same)["dimensions"]["d"]["alpha_ci"] is None


def test_the_same_episodes_give_the_same_intervals_in_run_and_report_whatever_their_order(tmp_path):
    db = f"sqlite:///{tmp_path / 'o.db'}"
    args = ["--db", db, "run", str(ROOT / "tasks" / "stt" / "clinic"), str(ROOT / "tasks" / "explore" / "finance")]
    out = CliRunner().invoke(main, [*args, "--agent", "baseline:random", "--trials", "2", "--json"])
    run = json.loads(out.output)
    records = run["episodes"]
    for order in (records, records[::-1]):  # the bootstrap resamples positions: groups go in task order
        summary = report(order)
        assert summary["stt"]["overall_ci"] == run["summary"]["stt"]["overall_ci"]
        assert summary["stt"]["review"]["mean_score_ci"] == run["summary"]["stt"]["review"]["mean_score_ci"]
        assert summary["stt"]["pass_hat_k_ci"] == run["summary"]["stt"]["pass_hat_k_ci"]
        assert summary["explore"]["calibrated_accuracy_ci"] == run["summary"]["explore"]["calibrated_accuracy_ci"]
    row = json.loads(CliRunner().invoke(main, ["--db", db, "report", "--json"]).output)["controllers"][0]
    assert row["pass_at_1_ci"] == run["summary"]["stt"]["overall_ci"]
    assert row["stage_score_ci"] == run["summary"]["stt"]["review"]["mean_score_ci"]
    assert row["pass_at_k_ci"] == run["summary"]["stt"]["pass_at_k_ci"]
    assert row["explore_common_ca_ci"] == run["summary"]["explore"]["calibrated_accuracy_ci"]
    assert row["stage_score_ci"][0] < row["stage_score_ci"][1]  # an interval that could differ
    text = CliRunner().invoke(main, ["--db", db, "report"]).output
    lo, hi = row["stage_score_ci"]
    assert f"{row['stage_score']:.2f} [{lo:.2f}, {hi:.2f}]" in text  # the stage score's interval, as in run
    hat = row["pass_hat_k_ci"]["pass^2"]
    assert f"pass^2   {row['pass_hat_k']['pass^2']:.1%}  [{hat[0]:.1%}, {hat[1]:.1%}]" in text


@pytest.mark.parametrize("setting", ["default", "stationary", "evidence_given", "forced_probe"])
def test_every_explore_baseline_plays_every_setting(setting):
    loaded = load_task(EXPLORE)
    out = {}
    for agent in ("baseline:oracle", "baseline:stale", "baseline:random"):
        plan = RunPlan.build([loaded], agent=agent, settings=RunSettings(explore_setting=setting), record=False)
        (record,) = asyncio.run(asyncio.wait_for(run_batch(plan, store=None), timeout=60))
        assert record["status"] == "completed" and record["setting"] == setting
        assert not record["metrics"]["incomplete"]
        out[agent] = record["metrics"]
    oracle, stale = out["baseline:oracle"], out["baseline:stale"]
    assert oracle["calibrated_accuracy"] == pytest.approx(1.0)  # the rule in force, whatever the setting
    assert oracle["factor_recognition"] == pytest.approx(1.0)
    assert (stale["calibrated_accuracy"] == pytest.approx(1.0)) is (setting == "stationary")  # nothing drifts
    probes = {a: m["probe_cases"] for a, m in out.items()}
    batches = loaded.task.schedule.batches
    assert probes == dict.fromkeys(out, batches if setting == "forced_probe" else 0)


def test_an_explore_episode_refused_again_and_again_ends_incomplete():
    from sttui.core.actions import SubmitBatch
    from sttui.core.explore.episode import MAX_REFUSED_IN_A_ROW

    task = load_task(EXPLORE).task
    ep = ExploreEpisode(task, 0, settings=RunSettings(explore_setting="forced_probe"))
    ep.start()
    for i in range(MAX_REFUSED_IN_A_ROW):
        assert ep.ended is None, i
        ep.apply(SubmitBatch([1] * len(ep.batches[0])))  # no probe first: refused
    assert ep.ended and ep.ended["by"] == "limit" and "refused inputs in a row" in ep.ended["reason"]
    m = metrics(ep)
    assert m["incomplete"] and m["batches_played"] == 0 and m["calibrated_accuracy"] == pytest.approx(0.0, abs=1e-9)
    fresh = ExploreEpisode(task, 0, settings=RunSettings(explore_setting="forced_probe"))
    fresh.start()
    for _ in range(MAX_REFUSED_IN_A_ROW - 1):
        fresh.apply(SubmitBatch([1]))  # refused: the wrong count
    fresh.apply(Probe([dict(fresh.batches[0][0])]))  # one accepted input starts the count again
    for _ in range(MAX_REFUSED_IN_A_ROW - 1):
        fresh.apply(SubmitBatch([1]))
    assert fresh.ended is None
