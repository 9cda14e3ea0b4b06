"""Models in the seats through litellm, against a real OpenAI-compatible server on 127.0.0.1."""

from __future__ import annotations

import asyncio
import json

import pytest
from click.testing import CliRunner

from sttui.cli import main
from sttui.controllers.baselines import ScriptedUser
from sttui.controllers.model import ModelAgent, ModelConfig, ModelJudge, ModelUser
from sttui.core.loader import load_task
from sttui.running.plan import ReviewPlan
from sttui.running.recording import run_recorded
from sttui.running.runner import run_episode
from sttui.store.store import Store
from tests.conftest import ROOT
from tests.helpers.stub_openai import StubServer, calls, completion, error, planner, say, tool_call

STT = ROOT / "tasks" / "stt" / "logistics" / "insulin-reefer-fault-st2-easy.yaml"
IMPOSSIBLE = ROOT / "tasks" / "stt" / "logistics" / "mull-blood-ferry-s3-impossible.yaml"
EXPLORE = ROOT / "tasks" / "explore" / "finance" / "additive-1.yaml"


@pytest.fixture(autouse=True)
def _key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-stub-0123456789")


def oracle_steps(loaded):
    steps = []
    for i, step in enumerate(loaded.task.solution, 1):
        steps.append(calls(tool_call(step.tool, step.args, f"call_{i}")) if step.tool else say(step.say))
    steps.append(calls(tool_call("end_episode", {"reason": "done"}, "call_end")))
    return steps


def config(stub, **kw):
    return ModelConfig(**{"model": "openai/stub-model", "api_base": stub.base, "backoff": 0.01, "timeout": 5, **kw})


def test_a_model_plays_a_task_to_a_pass_with_tools_as_function_schemas(tmp_path):
    loaded = load_task(STT)
    with StubServer(planner(oracle_steps(loaded))) as stub:
        agent = ModelAgent("model:stub", config(stub), loaded.env_cls.tool_specs)
        store = Store(f"sqlite:///{tmp_path / 'm.db'}")
        agent.record = None
        _, result = asyncio.run(run_recorded(store, loaded, agent, ScriptedUser()))
    assert result.passed is True
    first = stub.requests[0]
    names = {t["function"]["name"] for t in first["tools"]}
    assert set(loaded.env_cls.tool_specs) | {"end_episode"} == names
    assert first["messages"][0]["role"] == "system" and first["messages"][1]["content"] == loaded.task.query
    # the model saw exactly the agent's view: never the silent trigger
    assert "reefer-fault" not in json.dumps(stub.requests)
    assert agent.usage.calls == len(stub.requests) and agent.usage.prompt_tokens == 120 * agent.usage.calls


def test_several_calls_are_refused_back_to_the_model_and_recorded(tmp_path):
    loaded = load_task(STT)
    double = completion(
        calls(tool_call("list_vehicles", {}, "a"), tool_call("get_route", {"origin": "X", "destination": "Y"}, "b"))
    )
    bad_json = completion(calls(tool_call("list_vehicles", "{not json", "c")))
    with StubServer(planner(oracle_steps(loaded), failures=[(200, double, 0), (200, bad_json, 0)])) as stub:
        agent = ModelAgent("model:stub", config(stub), loaded.env_cls.tool_specs)
        store = Store(f"sqlite:///{tmp_path / 'r.db'}")
        from sttui.running.recording import Recorder

        eid = store.create_episode(loaded, 0, agent.name, "baseline:scripted-user")
        recorder = Recorder(store, eid)
        agent.record = lambda kind, payload: recorder.meta(kind, agent.name, payload)
        result = asyncio.run(run_episode(loaded, agent, ScriptedUser(), on_event=recorder))
    assert result.passed is True
    second = stub.requests[1]["messages"]
    assert "[Protocol] Make exactly one tool call per turn; you made 2" in second[-1]["content"]
    assert {m.get("tool_call_id") for m in second if m["role"] == "tool"} >= {"a", "b"}
    assert "not valid JSON" in stub.requests[2]["messages"][-1]["content"]
    refusals = [e for e in store.events(eid) if e.type == "model_refused"]
    assert len(refusals) == 2 and refusals[0].actor == "model:stub"
    # nothing of the refused answers reached the environment
    assert sum(1 for e in store.events(eid) if e.type == "tool_call") == sum(1 for s in loaded.task.solution if s.tool)


def test_an_answer_no_record_can_store_is_refused_back_and_recorded_as_its_escapes(db_url):
    """A NUL in a message, a lone surrogate in a call's arguments: PostgreSQL stores neither,
    and `sttui import` refuses both. Each is refused back to the model as a protocol error
    (nothing executed), and the refusal is recorded with the text as its escapes, on both
    backends; the next answer plays on."""
    from sttui.running.recording import Recorder

    loaded = load_task(STT)
    nul = completion(say("Booked.\u0000 All done"))
    surrogate = completion(calls(tool_call("list_vehicles", '{"location": "HUB-\\ud800"}', "s")))
    with StubServer(planner(oracle_steps(loaded), failures=[(200, nul, 0), (200, surrogate, 0)])) as stub:
        agent = ModelAgent("model:stub", config(stub), loaded.env_cls.tool_specs)
        store = Store(db_url)
        eid = store.create_episode(loaded, 0, agent.name, "baseline:scripted-user")
        recorder = Recorder(store, eid)
        agent.record = lambda kind, payload: recorder.meta(kind, agent.name, payload)
        result = asyncio.run(run_episode(loaded, agent, ScriptedUser(), on_event=recorder))
    assert result.passed is True
    told = [r["messages"][-1]["content"] for r in stub.requests[1:3]]
    assert told[0] == (
        "[Protocol] Your answer cannot be recorded: message holds a NUL character (\\u0000). Nothing was sent."
    )
    assert told[1].startswith("[Protocol] Your answer cannot be recorded: arguments.location holds a lone surrogate")
    refusals = [e.payload for e in store.events(eid) if e.type == "model_refused"]
    assert [r["answer"].get("content") for r in refusals] == ["Booked.\\u0000 All done", None]
    assert "HUB-\\ud800" in refusals[1]["answer"]["tool_calls"][0]["function"]["arguments"]  # (JSON's escape)
    # nothing of the refused answers reached the environment
    assert sum(1 for e in store.events(eid) if e.type == "tool_call") == sum(1 for s in loaded.task.solution if s.tool)


def test_transient_faults_are_retried_with_backoff(tmp_path):
    loaded = load_task(STT)
    faults = [error(429, "rate limited"), error(500, "boom"), (200, completion(say("slow")), 3.0)]
    with StubServer(planner(oracle_steps(loaded), failures=faults)) as stub:
        agent = ModelAgent("model:stub", config(stub, timeout=1.0, retries=3), loaded.env_cls.tool_specs)
        result = asyncio.run(run_episode(loaded, agent, ScriptedUser()))
    assert result.passed is True and agent.usage.retries == 3


def test_retries_run_out_and_the_headless_episode_is_errored(tmp_path, monkeypatch):
    loaded = load_task(STT)
    db = f"sqlite:///{tmp_path / 'e.db'}"
    with StubServer(lambda request: error(500, "always down")) as stub:
        (tmp_path / "sttui.yaml").write_text(
            f"models:\n  stub: {{model: openai/stub-model, api_base: '{stub.base}', retries: 2, backoff: 0.01}}\n"
        )
        monkeypatch.chdir(tmp_path)
        monkeypatch.setenv("STTUI_TRUST_CWD", "1")  # its sttui.yaml points a model at the stub server
        out = CliRunner().invoke(main, ["--db", db, "run", str(STT), "--agent", "model:stub", "--json"])
    data = json.loads(out.stdout)
    assert data["episodes"][0]["status"] == "errored" and "failed after 3 attempts" in data["episodes"][0]["error"]
    assert len(stub.requests) == 3
    record = Store(db).list_episodes()[0]
    assert record.status == "errored" and "InternalServerError" in record.end_reason
    assert loaded.id == record.task_id


def test_model_user_simulator_signals_completion():
    loaded = load_task(STT)
    from sttui.controllers.baselines import PlanAgent

    with StubServer(lambda request: (200, completion(say("Perfect, thanks. [DONE]")), 0)) as stub:
        user = ModelUser("model:stub", config(stub))
        result = asyncio.run(run_episode(loaded, PlanAgent("baseline:oracle", loaded.task.solution), user))
    assert result.end_reason == "the user is satisfied" and result.passed is True
    system = stub.requests[0]["messages"][0]["content"]
    assert "Reveal a withheld detail only when the assistant asks for it directly" in system
    assert "dose_count" in system  # the withheld details are the model's to keep
    assert stub.requests[0]["messages"][-1]["role"] == "user"  # the agent's words come to the model as the user's


def test_model_judge_on_an_impossible_task():
    loaded = load_task(IMPOSSIBLE)
    from sttui.controllers.baselines import PlanAgent

    verdict = {
        "recognised_infeasibility": {"passed": True, "evidence": "all sailings cancelled"},
        "informed_user": {"passed": True, "evidence": "told the user"},
    }
    with StubServer(lambda request: (200, completion(say("Verdict:\n" + json.dumps(verdict))), 0)) as stub:
        judge = ModelJudge("model:stub", config(stub))
        result = asyncio.run(
            run_episode(loaded, PlanAgent("baseline:oracle", loaded.task.solution), ScriptedUser(), judge=judge)
        )
    assert result.outcome.judged_by == "model:stub" and result.passed is True
    assert result.outcome.items[0].detail == "model: all sailings cancelled"
    assert "Transcript:" in stub.requests[0]["messages"][0]["content"]


def test_a_model_plays_an_explore_episode_through_its_tools():
    loaded = load_task(EXPLORE)

    def respond(request):
        view = json.loads(request["messages"][-1]["content"])
        if view["phase"] == "window":
            return 200, completion(calls(tool_call("submit_batch", {"actions": [2] * len(view["cases"])}))), 0
        return 200, completion(calls(tool_call("answer_assessment", {"relevant": {}, "changes": []}))), 0

    with StubServer(respond) as stub:
        agent = ModelAgent("model:stub", config(stub))
        result = asyncio.run(run_episode(loaded, agent))
    assert result.metrics["batches_played"] == 12 and result.metrics["assessments_complete"] is True
    names = {t["function"]["name"] for t in stub.requests[0]["tools"]}
    assert names == {"probe", "submit_batch", "answer_assessment"}
    seen = json.loads(stub.requests[3]["messages"][-1]["content"])
    assert "cases" not in seen["history"][0] and "utilities" in seen["history"][0]  # the masked view


def test_concurrency_16_loses_and_duplicates_nothing(tmp_path, monkeypatch):
    loaded = load_task(STT)
    db = f"sqlite:///{tmp_path / 'c.db'}"
    with StubServer(planner(oracle_steps(loaded), delay=0.01)) as stub:
        (tmp_path / "sttui.yaml").write_text(
            f"models:\n  stub: {{model: openai/stub-model, api_base: '{stub.base}', backoff: 0.01}}\n"
        )
        monkeypatch.chdir(tmp_path)
        monkeypatch.setenv("STTUI_TRUST_CWD", "1")  # its sttui.yaml points a model at the stub server
        out = CliRunner().invoke(
            main,
            ["--db", db, "run", str(STT), "--agent", "model:stub", "--trials", "32", "--concurrency", "16", "--json"],
        )
    data = json.loads(out.stdout)
    failed = [e for e in data["episodes"] if not e["passed"]]
    assert len(data["episodes"]) == 32 and not failed, [
        (e["status"], e.get("end_reason"), e.get("error")) for e in failed
    ][:3]
    assert data["summary"]["stt"]["pass_at_k"]["pass@8"] == 1.0 and data["summary"]["tokens"] > 0
    store = Store(db)
    records = store.list_episodes()
    assert len(records) == 32 and len({r.id for r in records}) == 32
    assert {r.status for r in records} == {"completed"}
    for r in records:
        events = store.events(r.id)
        assert [e.seq for e in events] == list(range(1, len(events) + 1))
        assert sum(e.type == "tool_call" for e in events) == 6


def test_named_only_through_litellms_environment_variables(tmp_path, monkeypatch):
    loaded = load_task(STT)
    with StubServer(planner(oracle_steps(loaded))) as stub:
        monkeypatch.setenv("OPENAI_BASE_URL", stub.base)
        monkeypatch.setenv("OPENAI_API_BASE", stub.base)
        out = CliRunner().invoke(main, ["run", str(STT), "--agent", "model:openai/stub-model", "--no-record", "--json"])
    assert json.loads(out.stdout)["episodes"][0]["passed"] is True and len(stub.requests) >= 6


def test_pass_at_k_estimator():
    from sttui.running.batch import pass_at_k

    assert pass_at_k(10, 0, 1) == 0.0 and pass_at_k(10, 10, 3) == 1.0
    assert pass_at_k(10, 3, 1) == pytest.approx(0.3)
    assert pass_at_k(4, 1, 2) == pytest.approx(1 - 3 / 6)
    with pytest.raises(ValueError):
        pass_at_k(2, 1, 3)


def test_early_stop_ends_a_stagnating_model_run_and_saves_its_calls(tmp_path):
    loaded = load_task(STT)
    # a lookup that can never settle a milestone (a vehicle query would settle sees-fault: the
    # fault is there from the start)
    route = {"origin": "HUB-NORTH", "destination": "CLINIC-DOWNTOWN"}
    looping = [calls(tool_call("get_route", route, f"call_{i}")) for i in range(30)]
    with StubServer(planner(looping)) as stub:
        agent = ModelAgent("model:stub", config(stub), loaded.env_cls.tool_specs)
        agent.record = None
        store = Store(f"sqlite:///{tmp_path / 's.db'}")
        eid, result = asyncio.run(
            run_recorded(store, loaded, agent, ScriptedUser(), review=ReviewPlan(early_stop=True))
        )
    # the stagnation window is 8 closed actions: the ninth request is never made
    assert len(stub.requests) == 8 and result.steps == 8
    assert result.end_reason.startswith("early stop: no frontier progress for 8 actions")
    stop = store.episode(eid).scores["review"]["stop"]
    assert stop["signal"] == "frontier_stagnation" and stop["steps_saved"] == loaded.task.max_steps - 8


def test_a_fatal_call_from_a_model_is_intercepted_before_it_runs(tmp_path):
    loaded = load_task(STT)
    plan = [
        calls(
            tool_call(
                "create_shipment",
                {
                    "goods": "insulin",
                    "quantity": 500,
                    "origin": "HUB-NORTH",
                    "destination": "CLINIC-DOWNTOWN",
                    "deadline": "2024-08-15T10:00:00",
                },
                "c1",
            )
        ),
        calls(tool_call("assign_vehicle", {"shipment_id": "SHP-1", "vehicle_id": "TRK-3"}, "c2")),
        calls(tool_call("dispatch", {"shipment_id": "SHP-1"}, "c3")),
    ]
    with StubServer(planner(plan)) as stub:
        agent = ModelAgent("model:stub", config(stub), loaded.env_cls.tool_specs)
        agent.record = None
        result = asyncio.run(run_episode(loaded, agent, ScriptedUser(), review=ReviewPlan(early_stop=True)))
    ep = result.episode
    assert result.end_reason.startswith("early stop: fatal minefield (loads cold-chain insulin")
    assert len(stub.requests) == 2
    shipment = ep.env.state["shipments"]["SHP-1"]  # created by the first call; never loaded on TRK-3
    assert shipment["status"] == "booked" and shipment.get("vehicle") is None
