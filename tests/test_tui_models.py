"""Handoff and oversight in the workbench, with a model served by a stub on 127.0.0.1."""

from __future__ import annotations

import pytest
from textual.widgets import Input

from sttui.config import Config
from sttui.core.callsyntax import format_call
from sttui.core.loader import load_task
from sttui.store.store import Store
from sttui.tui.app import SttuiApp
from tests.conftest import ROOT
from tests.helpers.stub_openai import StubServer, calls, completion, say, tool_call
from tests.tui_helpers import open_play, wait_for

STT = ROOT / "tasks" / "stt" / "logistics" / "insulin-reefer-fault-st2-easy.yaml"


@pytest.fixture(autouse=True)
def _key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-stub-0123456789")


def step_message(step, i):
    return calls(tool_call(step.tool, step.args, f"call_{i}")) if step.tool else say(step.say)


def app_with_model(db, stub):
    models = {"stub": {"model": "openai/stub-model", "api_base": stub.base, "backoff": 0.01, "timeout": 10}}
    return SttuiApp(
        ROOT / "tasks", db_url=db, human="ana", config=Config(extra={"models": models, "handoff_model": "stub"})
    )


async def test_human_three_steps_then_model_finishes_then_human_takes_back(tmp_path):
    loaded = load_task(STT)
    steps = loaded.task.solution
    # the model stops short of the final report, which the scripted user would answer by ending
    human_steps, model_steps = steps[:3], [s for s in steps[3:] if s.tool]

    def respond(request):
        done = sum(1 for m in request["messages"] if m["role"] == "assistant") - len(human_steps)
        if done < len(model_steps):
            return 200, completion(step_message(model_steps[done], done + 10)), 0.0
        return 200, completion(say("Anything else?")), 2.0  # slow: the human takes the seat back meanwhile

    db = f"sqlite:///{tmp_path / 'h.db'}"
    with StubServer(respond) as stub:
        async with app_with_model(db, stub).run_test(size=(120, 40)) as pilot:
            screen = await open_play(pilot, STT, "agent", "PlayScreen")
            await pilot.press("f5")
            for step in human_steps:
                screen.query_one("#entry", Input).value = format_call(step.tool, step.args)
                await pilot.press("enter")
                await wait_for(pilot, lambda: screen.human.waiting)
            await pilot.press("f10")
            await wait_for(pilot, lambda: screen.episode.steps >= len(human_steps) + len(model_steps))  # the rest
            await wait_for(pilot, lambda: len(stub.requests) > len(model_steps))  # it is thinking again
            await pilot.press("f12")  # the debug panel shows the exact messages
            assert "messages model:stub received last" in str(screen.query_one("#debug").render())
            await pilot.press("f11")  # take the seat back: the model's turn is abandoned
            await wait_for(pilot, lambda: screen.human.waiting)
            screen.query_one("#entry", Input).value = "get_shipment(shipment_id=SHP-1)"
            await pilot.press("enter")
            await wait_for(pilot, lambda: screen.episode.tool_calls == sum(1 for s in steps if s.tool) + 1)
            await pilot.press("f8", "y")
            await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "EndScreen")
    store = Store(db)
    record = store.list_episodes()[0]
    assert record.outcome["passed"] is True
    events = store.events(record.id)
    changes = [(e.payload["from"], e.payload["to"]) for e in events if e.type == "seat_changed"]
    assert changes == [("human:ana", "model:stub"), ("model:stub", "human:ana")]
    calls_by = [e.actor for e in events if e.type == "tool_call"]
    assert calls_by == ["human:ana"] * 3 + ["model:stub"] * 3 + ["human:ana"]
    # the model saw the episode so far exactly as a model agent would have: the human's three calls
    first = stub.requests[0]["messages"]
    assert [m["tool_calls"][0]["function"]["name"] for m in first if m.get("tool_calls")] == [
        s.tool for s in human_steps
    ]
    assert any(e.type == "model_call" and e.actor == "model:stub" for e in events)


async def test_oversight_approve_edit_reject(tmp_path):
    proposals = [
        calls(tool_call("get_vehicle_status", {"vehicle_id": "TRK-7"}, "p1")),  # approved
        calls(tool_call("assign_vehicle", {"shipment_id": "SHP-1", "vehicle_id": "TRK-7"}, "p2")),  # rejected
        calls(tool_call("list_vehicles", {}, "p3")),  # edited
        say("Done for now."),
    ]

    def respond(request):
        done = sum(1 for m in request["messages"] if m["role"] == "assistant")
        rejected = any("[Overseer]" in str(m.get("content")) for m in request["messages"])
        index = min(done + (1 if rejected else 0), len(proposals) - 1)
        return 200, completion(proposals[index]), 0.0

    db = f"sqlite:///{tmp_path / 'o.db'}"
    with StubServer(respond) as stub:
        async with app_with_model(db, stub).run_test(size=(120, 40)) as pilot:
            screen = await open_play(pilot, STT, "agent", "PlayScreen")
            await pilot.press("f5", "f7", "f10")

            async def review() -> None:
                await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "ReviewCall")

            await review()
            assert "get_vehicle_status(vehicle_id=TRK-7)" in str(pilot.app.screen.query_one("#proposed").render())
            await pilot.press("a")
            await review()
            await pilot.press("r")
            pilot.app.screen.query_one("#review-input", Input).value = "TRK-7 is out of service"
            await pilot.press("enter")
            await review()
            await pilot.press("e")
            pilot.app.screen.query_one("#review-input", Input).value = "list_vehicles(location=HUB-NORTH)"
            await pilot.press("enter")
            await wait_for(pilot, lambda: screen.episode.tool_calls == 2)
            await pilot.press("f11")
            await wait_for(pilot, lambda: screen.human.waiting)
    store = Store(db)
    events = store.events(store.list_episodes()[0].id)
    decisions = [e.payload for e in events if e.type == "oversight"]
    assert [d["decision"] for d in decisions[:3]] == ["approve", "reject", "edit"]
    assert decisions[1]["reason"] == "TRK-7 is out of service"
    assert decisions[2]["applied"] == {"type": "ToolCall", "tool": "list_vehicles", "args": {"location": "HUB-NORTH"}}
    executed = [e.payload["tool"] for e in events if e.type == "tool_call"]
    assert executed == ["get_vehicle_status", "list_vehicles"]  # the rejected call never ran
    assert any(
        "[Overseer]" in str(m.get("content")) and "TRK-7 is out of service" in str(m.get("content"))
        for r in stub.requests
        for m in r["messages"]
    )


async def test_a_failing_model_returns_the_seat_with_a_notice(tmp_path):
    db = f"sqlite:///{tmp_path / 'f.db'}"
    with StubServer(lambda request: (500, {"error": {"message": "down"}}, 0.0)) as stub:
        app = app_with_model(db, stub)
        app.config.extra["models"]["stub"]["retries"] = 1
        async with app.run_test(size=(120, 40)) as pilot:
            screen = await open_play(pilot, STT, "agent", "PlayScreen")
            await pilot.press("f10")
            await wait_for(pilot, lambda: screen.session.seats["agent"] is screen.human and screen.human.waiting)
            assert len(stub.requests) == 2
    store = Store(db)
    record = store.list_episodes()[0]
    types = [e.type for e in store.events(record.id)]
    assert "seat_failed" in types and types.count("seat_changed") == 2 and record.status == "running"
