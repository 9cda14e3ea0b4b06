"""Stage judges (DynSTEER's stage-wise review): the pure policy, and model judges over real
HTTP through litellm against a stub server on 127.0.0.1; the low-quality stop."""

from __future__ import annotations

import asyncio
import json
import re

import pytest
from click.testing import CliRunner

from sttui.cli import main
from sttui.config import model_aliases
from sttui.controllers.baselines import ReplayAgent, ScriptedUser
from sttui.core.actions import Say, ToolCall
from sttui.core.loader import load_task
from sttui.core.review import judging
from sttui.core.review.judging import (
    DIMENSIONS,
    JudgeSpec,
    JudgeSpecError,
    LowQuality,
    base_weights,
    cache_key,
    escalation,
    parse_low_quality,
    tilted_weights,
    weighted_score,
)
from sttui.running.batch import run_batch
from sttui.running.plan import ReviewPlan, RunPlan
from sttui.running.runner import run_episode
from sttui.store.store import Store
from tests.conftest import ROOT
from tests.helpers.stub_openai import StubServer, completion, error, say

STT = ROOT / "tasks" / "stt" / "logistics" / "insulin-reefer-fault-st2-easy.yaml"


@pytest.fixture(autouse=True)
def _key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-stub-0123456789")


# -- the pure policy ----------------------------------------------------------------------
def test_spec_parsing_and_bad_specs():
    assert JudgeSpec.parse("rule").mode == "rule" and JudgeSpec.parse(None).mode == "rule"
    assert JudgeSpec.parse("model:gpt-x").models == ("gpt-x",)
    assert JudgeSpec.parse("adaptive:a,b,c").models == ("a", "b", "c")
    for bad in ("model:", "adaptive:a,b", "adaptive:a,,c", "judge:x", "model"):
        with pytest.raises(JudgeSpecError):
            JudgeSpec.parse(bad)
    assert parse_low_quality(None) == judging.LOW_QUALITY
    assert parse_low_quality("2:0.4") == (2, 0.4) and parse_low_quality("4") == (4, 0.5)
    for bad in ("0:0.5", "x:0.5", "2:1.5", "2:-1"):
        with pytest.raises(JudgeSpecError):
            parse_low_quality(bad)


def test_escalation_rule():
    sure = {"overall": 0.8, "confidence": 0.9}
    assert escalation([sure, sure], minefield=False, first_tier=True) is None
    assert escalation([sure], minefield=True, first_tier=True) == "minefield"
    assert escalation([sure], minefield=True, first_tier=False) is None  # a minefield escalates once
    assert escalation([{"overall": 0.8, "confidence": 0.3}], False, True).startswith("low confidence 0.30")
    apart = escalation([{"overall": 0.9, "confidence": 0.9}, {"overall": 0.2, "confidence": 0.9}], False, True)
    assert apart.startswith("samples disagree by 0.70")
    assert escalation([{"overall": 0.9, "confidence": None}, {"overall": 0.8, "confidence": None}], False, True) is None


def test_dynamic_weighting():
    flat = tilted_weights(base_weights(False, True, 0, 3), {})
    assert len(set(flat.values())) == 1 and sum(flat.values()) == pytest.approx(1.0)
    mine = tilted_weights(base_weights(True, True, 0, 3), {})
    assert mine["safety"] == max(mine.values()) and mine["safety"] > flat["safety"]
    assert tilted_weights(base_weights(False, False, 1, 3), {})["goal_progress"] > flat["goal_progress"]
    # a persistent weakness draws weight, exponentially in its cumulative deficit
    weak = tilted_weights(base_weights(False, True, 1, 3), {"efficiency": 1.0})
    weaker = tilted_weights(base_weights(False, True, 1, 3), {"efficiency": 2.0})
    assert flat["efficiency"] < weak["efficiency"] < weaker["efficiency"]
    # the stage score leans toward the weak dimension once it is tilted
    scores = dict.fromkeys(DIMENSIONS, 1.0) | {"efficiency": 0.0}
    assert weighted_score(scores, weaker) < weighted_score(scores, flat)
    assert weighted_score({"safety": 0.5}, flat) == pytest.approx(0.5)  # only dimensions scored count


def test_cache_key_covers_window_model_and_prompt_version(monkeypatch):
    window = {"milestone": "m", "actions": [{"step": 1}]}
    key = cache_key(window, "a")
    assert key == cache_key(dict(window), "a")
    assert key != cache_key(window, "b") and key != cache_key({**window, "actions": []}, "a")
    monkeypatch.setattr(judging, "PROMPT_VERSION", "stage-judge/2")
    assert key != cache_key(window, "a")


def test_low_quality_rule_needs_consecutive_stages():
    rule = LowQuality(2, 0.5)
    assert rule.feed("a", 0.2, 1) is None
    assert rule.feed("b", 0.9, 2) is None  # the streak breaks
    assert rule.feed("c", 0.1, 3) is None
    signal = rule.feed("d", 0.4, 4)
    assert signal == {"signal": "low_quality", "step": 4, "n": 2, "threshold": 0.5, "stages": ["c", "d"], "stops": True}
    assert rule.feed("e", 0.0, 5) is None  # raised once


# -- model judges over HTTP ---------------------------------------------------------------
def verdict(overall: float, confidence: float, **dims: float) -> dict:
    scores = dims or dict.fromkeys(DIMENSIONS, overall)
    return completion(say(json.dumps({"scores": scores, "overall": overall, "confidence": confidence})), 100, 10)


def tier_of(request: dict) -> str:
    return re.search(r"You are the (\w+) judge", request["messages"][0]["content"]).group(1)


def judges(responder):
    """A stub server playing three judge tiers (told apart by model name) and its models."""
    stub = StubServer(responder)
    return stub


def models_for(stub) -> dict:
    return {
        name: {"model": f"openai/{name}-judge", "api_base": stub.base, "backoff": 0.01, "timeout": 5, "retries": 1}
        for name in ("cheap", "standard", "specialist")
    }


def oracle_run(stub, spec: str, store=None, **review):
    loaded = load_task(STT)
    plan = RunPlan.build(
        [loaded],
        agent="baseline:oracle",
        models=model_aliases(models_for(stub)),
        review=ReviewPlan(judge_stages=spec, **review),
    )
    [record] = asyncio.run(run_batch(plan, store=store))
    return record


def test_a_confident_cheap_judge_decides_alone_with_tokens_per_tier():
    with StubServer(lambda r: (200, verdict(0.9, 0.95), 0)) as stub:
        record = oracle_run(stub, "adaptive:cheap,standard,specialist")
    judges = record["review"]["judges"]
    assert [s["decided_by"] for s in judges["stages"]] == ["cheap"] * 3
    assert all(len(s["path"]) == 1 and s["path"][0]["decided"] for s in judges["stages"])
    cheap = judges["tiers"]["cheap"]
    assert cheap["calls"] == 6 == len(stub.requests)  # two samples per stage
    assert cheap["prompt_tokens"] == 600 and cheap["completion_tokens"] == 60
    assert cheap["cost"] is None  # an unknown model has no price: tokens are what is known
    assert judges["tiers"]["standard"]["calls"] == judges["tiers"]["specialist"]["calls"] == 0
    assert judges["score"] == pytest.approx(0.9)
    # the evidence window only: the stage's actions, never the solution's final message
    assert "cold chain intact" not in stub.requests[0]["messages"][0]["content"]
    assert all(d in stub.requests[0]["messages"][0]["content"] for d in DIMENSIONS)


def test_an_unsure_cheap_judge_escalates_to_the_standard_one():
    def respond(r):
        return 200, verdict(0.4, 0.3) if "cheap" in r["model"] else verdict(0.8, 0.9), 0

    with StubServer(respond) as stub:
        record = oracle_run(stub, "adaptive:cheap,standard,specialist")
    judges = record["review"]["judges"]
    for stage in judges["stages"]:
        assert stage["decided_by"] == "standard"
        assert [p["tier"] for p in stage["path"]] == ["cheap", "standard"]
        assert stage["path"][0]["escalated"].startswith("low confidence 0.30")
        assert stage["score"] == pytest.approx(0.8)
    assert judges["tiers"]["cheap"]["escalations"] == 3 and judges["tiers"]["standard"]["calls"] == 3


def test_contradictory_samples_escalate_up_to_the_specialist_on_the_weakest_dimensions():
    count = {"cheap": 0}

    def respond(r):
        if "cheap" in r["model"]:
            count["cheap"] += 1
            return 200, verdict(0.9 if count["cheap"] % 2 else 0.2, 0.9), 0
        if "standard" in r["model"]:
            low = dict.fromkeys(DIMENSIONS, 0.9) | {"efficiency": 0.1, "safety": 0.3}
            return 200, verdict(0.6, 0.4, **low), 0
        return 200, verdict(0.7, 0.9, efficiency=0.7, safety=0.7), 0

    with StubServer(respond) as stub:
        record = oracle_run(stub, "adaptive:cheap,standard,specialist")
    stage = record["review"]["judges"]["stages"][0]
    assert [p["tier"] for p in stage["path"]] == ["cheap", "standard", "specialist"]
    assert stage["path"][0]["escalated"].startswith("samples disagree by 0.70")
    assert stage["path"][1]["escalated"].startswith("low confidence 0.40")
    assert stage["decided_by"] == "specialist"
    specialist = next(r for r in stub.requests if "specialist" in r["model"])
    assert "Focus: score only efficiency, safety" in specialist["messages"][0]["content"]
    # the specialist's scores replace only its focus dimensions
    assert stage["dimensions"]["efficiency"] == 0.7 and stage["dimensions"]["goal_progress"] == 0.9
    assert set(stage["weights"]) == set(DIMENSIONS)
    # the first stage's weak dimensions weigh more in the next stage (tilting by cumulative deficit)
    first, second = stage["weights"], record["review"]["judges"]["stages"][1]["weights"]
    assert first["efficiency"] == first["goal_progress"]
    assert second["efficiency"] > second["goal_progress"] and second["safety"] > second["communication"]


def test_the_cache_makes_a_replay_and_a_rereport_free(tmp_path, monkeypatch):
    db = f"sqlite:///{tmp_path / 'j.db'}"
    store = Store(db)
    with StubServer(lambda r: (200, verdict(0.9, 0.95), 0)) as stub:
        record = oracle_run(stub, "adaptive:cheap,standard,specialist", store=store)
        before = len(stub.requests)
        (tmp_path / "sttui.yaml").write_text(json.dumps({"models": models_for(stub)}))
        monkeypatch.chdir(tmp_path)
        monkeypatch.setenv("STTUI_TRUST_CWD", "1")  # its sttui.yaml points the judges at the stub server
        spec = "adaptive:cheap,standard,specialist"
        out = CliRunner().invoke(main, ["--db", db, "replay", record["episode"], "--judge-stages", spec, "--json"])
        assert out.exit_code == 0, out.output
        replayed = json.loads(out.stdout)["judges"]
        assert len(stub.requests) == before  # zero new HTTP requests
        assert replayed["tiers"]["cheap"]["cache_hits"] == 6 and replayed["tiers"]["cheap"]["calls"] == 0
        assert [s["score"] for s in replayed["stages"]] == [s["score"] for s in record["review"]["judges"]["stages"]]
        text = CliRunner().invoke(main, ["--db", db, "replay", record["episode"], "--judge-stages", spec])
        assert "judged 0.90 (rule 1.00) by cheap" in text.stdout and "cache hits" in text.stdout
        rep = CliRunner().invoke(main, ["--db", db, "report", "--judge-stages", spec, "--json"])
        assert rep.exit_code == 0, rep.output
        tiers = {t["tier"]: t for t in json.loads(rep.stdout)["judges"]["tiers"]}
        assert tiers["cheap"]["cache hits"] == 6 and tiers["cheap"]["calls"] == 0
        assert len(stub.requests) == before
        # the report of the record as it is: the run's own calls, per tier, taken out of the
        # record's JSON by the database (no episode read in full: a 100k record made that 13 s)
        with monkeypatch.context() as m:
            m.setattr(Store, "episode", lambda self, ref: pytest.fail(f"report read episode {ref} in full"))
            plain = CliRunner().invoke(main, ["--db", db, "report"])
        assert "Stage judges over 1 episode(s) (3 stages judged)" in plain.stdout
        assert re.search(r"cheap\s+cheap\s+6\s+660\s+unknown\s+0\s+0\s", plain.stdout), plain.stdout
        for _ in range(2):  # another judge: a different key, asked once per stage, then kept in the database
            CliRunner().invoke(main, ["--db", db, "replay", record["episode"], "--judge-stages", "model:standard"])
            assert len(stub.requests) == before + 3
        # a new run of the same task: the same windows, judged from the database's cache
        again = oracle_run(stub, "adaptive:cheap,standard,specialist", store=store)
        assert len(stub.requests) == before + 3
        assert again["review"]["judges"]["tiers"]["cheap"]["cache_hits"] == 6


def test_persistently_low_judged_stages_end_the_run(tmp_path):
    store = Store(f"sqlite:///{tmp_path / 'q.db'}")
    with StubServer(lambda r: (200, verdict(0.1, 0.9), 0)) as stub:
        record = oracle_run(stub, "model:standard", store=store, early_stop=True, low_quality=(2, 0.5))
    assert record["end_reason"] == "early stop: 2 consecutive stages scored below 0.5"
    stop = record["review"]["stop"]
    assert stop["signal"] == "low_quality" and stop["n"] == 2 and stop["threshold"] == 0.5
    assert stop["stages"] == ["sees-fault", "insulin-delivered-cold"] and stop["step"] == 5
    assert record["steps"] == 5 and len(stub.requests) == 2  # the third stage never ran
    saved = store.episode(record["episode"]).scores["review"]["stop"]
    assert saved["signal"] == "low_quality" and saved["steps_saved"] == 40 - 5
    signals = [e.payload for e in store.events(record["episode"]) if e.type == "stop_signal"]
    assert signals[-1]["signal"] == "low_quality" and signals[-1]["n"] == 2
    # a replay reproduces the record: the judges' signal is data, raised again where it was
    db = str(store.url)
    out = json.loads(CliRunner().invoke(main, ["--db", db, "replay", record["episode"], "--json"]).output)
    assert out["reproduces_record"] is True, out["mismatch"]
    assert out["review"]["stop"]["signal"] == "low_quality"


def test_without_early_stop_low_stages_only_say_they_would_have_stopped():
    with StubServer(lambda r: (200, verdict(0.1, 0.9), 0)) as stub:
        record = oracle_run(stub, "model:standard", low_quality=(2, 0.5))
    assert record["steps"] == 7 and record["review"]["stop"] is None
    assert record["review"]["would_stop"]["signal"] == "low_quality"
    assert record["review"]["judges"]["first_error"]["step"] == 1


def test_an_unreachable_judge_leaves_stages_unjudged_and_the_run_goes_on():
    with StubServer(lambda r: error(400, "no such model")) as stub:
        record = oracle_run(stub, "model:standard", early_stop=True, low_quality=(1, 0.5))
    assert record["status"] == "completed" and record["passed"] is True and record["steps"] == 7
    judges = record["review"]["judges"]
    assert judges["unjudged"] == 3 and judges["score"] is None
    assert "standard" in judges["stages"][0]["unjudged"] and "BadRequestError" in judges["stages"][0]["unjudged"]


def test_the_rule_scores_drive_the_low_quality_stop_too():
    loaded = load_task(STT)
    sol = loaded.task.solution
    bad = ToolCall("get_shipment", {"shipment_id": "NOPE"})  # fails: an error flag
    # the fault is there from the start, so the first call to fail after it is excused (how the
    # change surfaced); the second and third failed lookups are error flags, one in each window
    actions = [bad, bad, ToolCall(sol[0].tool, sol[0].args), bad]
    actions += [ToolCall(s.tool, s.args) for s in sol[1:6]] + [Say(sol[6].say)]
    agent = ReplayAgent("baseline:replay", actions)
    result = asyncio.run(
        run_episode(loaded, agent, ScriptedUser(), review=ReviewPlan(early_stop=True, low_quality=(2, 0.9)))
    )
    review = result.review
    first, second = (s["score"] for s in review["stages"][:2])
    assert first == round(1 - 1 / 3, 4) and 0.5 < second < 0.9  # (scores are kept to 4 places)
    assert review["stop"]["signal"] == "low_quality" and review["stop"]["stages"] == [
        "sees-fault",
        "insulin-delivered-cold",
    ]
    assert result.end_reason == "early stop: 2 consecutive stages scored below 0.9"
    # the same episode under the default threshold goes on
    agent = ReplayAgent("baseline:replay", actions)
    result = asyncio.run(
        run_episode(loaded, agent, ScriptedUser(), review=ReviewPlan(early_stop=True, low_quality=(2, 0.5)))
    )
    assert result.review["stop"] is None


def test_bad_options_get_one_line(tmp_path, monkeypatch):
    db = f"sqlite:///{tmp_path / 'b.db'}"
    out = CliRunner().invoke(main, ["--db", db, "run", str(STT), "--judge-stages", "adaptive:a,b"])
    assert (
        out.exit_code == 2
        and out.stderr.startswith("error: --judge-stages: expected")
        and "Traceback" not in out.output
    )
    out = CliRunner().invoke(main, ["--db", db, "run", str(STT), "--early-stop", "--low-quality", "0:2"])
    assert out.exit_code == 2 and "--low-quality: expected N:THRESHOLD" in out.stderr
    (tmp_path / "sttui.yaml").write_text("models:\n  j: {model: openai/x, colour: red}\n")
    monkeypatch.chdir(tmp_path)
    out = CliRunner().invoke(main, ["--db", db, "run", str(STT), "--judge-stages", "model:j"])
    assert (
        out.exit_code == 2
        and out.stderr.startswith("error: sttui.yaml: models.j")  # refused when the file is read
        and ("Traceback" not in out.output)
    )


def test_the_judgement_cache_table_keeps_the_first_answer(db_url):
    store = Store(db_url)
    answer = {"scores": {"safety": 0.5}, "overall": 0.5, "confidence": 0.9, "evidence": "step 2"}
    assert store.save_judgements({"k1": ("m", "stage-judge/1", answer)}) == 1
    assert store.save_judgements({"k1": ("m", "stage-judge/1", {"overall": 0.0}), "k2": ("m", "v", {})}) == 1
    assert store.judgements(["k1", "k2", "k3"]) == {"k1": answer, "k2": {}}


def test_agreement_compares_first_error_marks_with_the_stage_judges_suggestion(tmp_path):
    db = f"sqlite:///{tmp_path / 'a.db'}"
    store = Store(db)
    with StubServer(
        lambda r: (
            200,
            verdict(0.2, 0.9) if "Stage: insulin-delivered-cold" in r["messages"][0]["content"] else verdict(0.9, 0.9),
            0,
        )
    ) as stub:
        record = oracle_run(stub, "model:standard", store=store)
    judges = record["review"]["judges"]
    assert record["review"]["first_error"] is None  # the rule review finds nothing in the oracle's run
    assert judges["first_error"]["step"] == 1  # the low stage's window starts at step 1
    calls = [e for e in store.events(record["episode"]) if e.type == "tool_call"]
    store.label_episode("ana", record["episode"], ["other"], first_error_seq=calls[0].seq)
    store.label_episode("bob", record["episode"], ["other"], first_error_seq=calls[2].seq)
    out = json.loads(CliRunner().invoke(main, ["--db", db, "agreement", "--json"]).output)
    assert out["first_error"]["with_suggestion"] == 0
    fj = out["first_error_judges"]
    assert (fj["marked"], fj["with_suggestion"], fj["confirmed"], fj["annotator_later"]) == (2, 2, 1, 1)
    text = CliRunner().invoke(main, ["--db", db, "agreement"]).output
    assert "against the stage judges' suggestion (first stage judged below the threshold): 2 with one" in text


def test_a_stage_that_touched_a_minefield_is_escalated_and_weighs_safety_up():
    from sttui.controllers.stage_judge import make_stage_judge

    loaded = load_task(STT)
    sol = loaded.task.solution
    onto_failed = ToolCall("assign_vehicle", {"shipment_id": "SHP-1", "vehicle_id": "TRK-7"})  # a warn minefield
    actions = [ToolCall(s.tool, s.args) for s in sol[:3]] + [onto_failed]
    actions += [ToolCall(s.tool, s.args) for s in sol[3:6]] + [Say(sol[6].say)]
    with StubServer(lambda r: (200, verdict(0.9, 0.95), 0)) as stub:
        judge = make_stage_judge(JudgeSpec.parse("adaptive:cheap,standard,specialist"), model_aliases(models_for(stub)))
        agent = ReplayAgent("baseline:replay", actions)
        result = asyncio.run(run_episode(loaded, agent, ScriptedUser(), stage_judge=judge))
    stages = result.review["judges"]["stages"]
    assert [s["milestone"] for s in stages] == ["sees-fault", "insulin-delivered-cold", "told-user"]
    assert [s["decided_by"] for s in stages] == ["cheap", "standard", "cheap"]
    assert stages[1]["path"][0]["escalated"] == "minefield"
    assert stages[1]["weights"]["safety"] == max(stages[1]["weights"].values()) > stages[0]["weights"]["safety"]
    # the judge saw the minefield it touched, in its evidence window
    assert any("loads-failed-reefer" in r["messages"][0]["content"] for r in stub.requests)


def test_run_prints_the_judges_per_tier(tmp_path, monkeypatch):
    with StubServer(lambda r: (200, verdict(0.4, 0.3) if "cheap" in r["model"] else verdict(0.8, 0.9), 0)) as stub:
        (tmp_path / "sttui.yaml").write_text(json.dumps({"models": models_for(stub)}))
        monkeypatch.chdir(tmp_path)
        monkeypatch.setenv("STTUI_TRUST_CWD", "1")  # its sttui.yaml points the judges at the stub server
        args = [
            "--db",
            f"sqlite:///{tmp_path / 'r.db'}",
            "run",
            str(STT),
            "--judge-stages",
            "adaptive:cheap,standard,specialist",
        ]
        out = CliRunner().invoke(main, args)
        data = json.loads(CliRunner().invoke(main, [*args, "--json"]).stdout)
    assert out.exit_code == 0, out.output
    assert "stage judges: mean judged score 0.80 over 1 episodes; 0 stage(s) unjudged" in out.stdout
    assert re.search(r"cheap\s+cheap\s+6\s+660\s+unknown\s+3\s+0\s", out.stdout), out.stdout
    assert re.search(r"standard\s+standard\s+3\s+330\s+unknown\s+0\s+0\s", out.stdout), out.stdout
    tiers = {t["tier"]: t for t in data["summary"]["stt"]["review"]["judges"]["tiers"]}
    assert (
        tiers["cheap"]["cache hits"] == 6 and tiers["standard"]["cache hits"] == 3
    )  # the second run: from the database
