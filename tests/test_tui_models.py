"""Handoff and oversight in the workbench, with a model served by a stub on 127.0.0.1."""

from __future__ import annotations

import pytest
from textual.widgets import Input

from sttui.config import Config, model_aliases
from sttui.core.callsyntax import format_call
from sttui.core.loader import load_task
from sttui.store.store import Store
from sttui.tui.app import SttuiApp
from sttui.tui.launch import Launch
from tests.conftest import ROOT
from tests.helpers.stub_openai import StubServer, calls, completion, say, tool_call
from tests.tui_helpers import open_play, wait_for

STT = ROOT / "tasks" / "stt" / "logistics" / "insulin-reefer-fault-st2-easy.yaml"


@pytest.fixture(autouse=True)
def _key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-stub-0123456789")


def step_message(step, i):
    return calls(tool_call(step.tool, step.args, f"call_{i}")) if step.tool else say(step.say)


def app_with_model(db, stub, **settings):
    models = {"stub": {"model": "openai/stub-model", "api_base": stub.base, "backoff": 0.01, "timeout": 10, **settings}}
    return SttuiApp(
        Launch.build(
            ROOT / "tasks", db_url=db, human="ana", config=Config(models=model_aliases(models), handoff_model="stub")
        )
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
        # slow: the human takes the seat back meanwhile, even on a loaded machine
        return 200, completion(say("Anything else?")), 8.0

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
            screen.refresh_debug()  # F12 after F11: still the messages the model was sent last
            assert "messages model:stub received last" in str(screen.query_one("#debug").render())
            screen.query_one("#entry", Input).value = "get_shipment(shipment_id=SHP-1)"
            await pilot.press("enter")
            await wait_for(pilot, lambda: screen.episode.tool_calls == sum(1 for s in steps if s.tool) + 1)
            await wait_for(pilot, lambda: screen.human.waiting)
            # the report names the truck (the task's tell item): the scripted user is satisfied
            screen.query_one("#entry", Input).value = "> The insulin went on reefer van TRK-9."
            await pilot.press("enter")
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
    # the person's working time stood still while the model held the seat, and ran again after
    clock = [
        (e.type, e.payload.get("reason"), e.payload["active_seconds"]) for e in events if e.type.startswith("clock")
    ]
    lent = next(i for i, c in enumerate(clock) if c[:2] == ("clock_paused", "a model holds the seat"))
    assert clock[lent + 1][:2] == ("clock_started", "the seat is the person's again")
    assert clock[lent + 1][2] == clock[lent][2]
    assert record.scores["control"]["agent_steps"] == {"human:ana": 5, "model:stub": 3}
    assert record.clean_baseline is False


async def test_oversight_records_who_did_what(tmp_path):
    """An approved proposal is the model's; an edited one is the person's, with both versions
    kept; a rejection's reason reaches the model in plain words."""
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
    decisions = [e for e in events if e.type.startswith("oversight_")]
    assert [e.type for e in decisions[:4]] == [
        "oversight_on",
        "oversight_approved",
        "oversight_rejected",
        "oversight_edited",
    ]
    assert all(e.actor == "human:ana" and e.payload["by"] == "human:ana" for e in decisions)
    assert decisions[2].payload["reason"] == "TRK-7 is out of service"
    edited = decisions[3].payload
    assert edited["model"] == "model:stub"
    assert edited["proposed"] == {"type": "ToolCall", "tool": "list_vehicles", "args": {}}
    assert edited["executed"] == {"type": "ToolCall", "tool": "list_vehicles", "args": {"location": "HUB-NORTH"}}
    executed = [(e.payload["tool"], e.actor) for e in events if e.type == "tool_call"]
    assert executed == [
        ("get_vehicle_status", "model:stub"),
        ("list_vehicles", "human:ana"),
    ]  # the rejected one never ran
    notes = [
        str(m.get("content")) for r in stub.requests for m in r["messages"] if "[Overseer]" in str(m.get("content"))
    ]
    assert notes and all("{" not in n for n in notes)  # words, not a Python repr of the action
    assert "assign_vehicle(shipment_id=SHP-1, vehicle_id=TRK-7)" in notes[0]
    assert "Reason: TRK-7 is out of service" in notes[0]


async def test_switching_oversight_while_the_model_holds_the_seat_is_its_own_event(tmp_path):
    def respond(request):
        return 200, completion(calls(tool_call("list_vehicles", {}, "c1"))), 0.8  # slow enough to switch meanwhile

    db = f"sqlite:///{tmp_path / 'v.db'}"
    with StubServer(respond) as stub:
        async with app_with_model(db, stub).run_test(size=(120, 40)) as pilot:
            screen = await open_play(pilot, STT, "agent", "PlayScreen")
            await pilot.press("f5", "f10")
            await wait_for(pilot, lambda: len(stub.requests) >= 1)
            await pilot.press("f7")  # on, while the model is thinking: its proposal waits for review
            await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "ReviewCall")
            await pilot.press("a")
            await wait_for(pilot, lambda: screen.episode.tool_calls == 1)
            await pilot.press("f11")
            await wait_for(pilot, lambda: screen.human.waiting)
            assert "oversight on" in str(screen.query_one("#status-bar").render())
    store = Store(db)
    events = store.events(store.list_episodes()[0].id)
    changes = [(e.payload["from"], e.payload["to"]) for e in events if e.type == "seat_changed"]
    assert changes == [("human:ana", "model:stub"), ("model:stub", "human:ana")]  # never the model to itself
    switched = [e for e in events if e.type == "oversight_on"]
    assert len(switched) == 1 and switched[0].payload == {"seat": "agent", "by": "human:ana", "model": "model:stub"}


async def test_f10_remembers_the_model_chosen_last(tmp_path):
    db = f"sqlite:///{tmp_path / 'r.db'}"
    with StubServer(lambda request: (200, completion(say("Working on it.")), 5.0)) as stub:
        models = {
            "other": {"model": "openai/other", "api_base": stub.base},
            "stub": {"model": "openai/stub-model", "api_base": stub.base, "backoff": 0.01, "timeout": 10},
        }
        app = SttuiApp(
            Launch.build(ROOT / "tasks", db_url=db, human="ana", config=Config(models=model_aliases(models)))
        )
        async with app.run_test(size=(120, 40)) as pilot:
            screen = await open_play(pilot, STT, "agent", "PlayScreen")
            await pilot.press("f10")  # no handoff_model: which one?
            await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "EditValue")
            box = pilot.app.screen.query_one("#value", Input)
            assert box.value == "other"  # nothing chosen yet in this sitting: the first alias
            box.value = "stub"
            await pilot.press("enter")
            await wait_for(pilot, lambda: screen.session.agent.name == "model:stub")
            await pilot.press("f11")
            await wait_for(pilot, lambda: screen.session.agent is screen.human)
            await pilot.press("f10")
            await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "EditValue")
            assert pilot.app.screen.query_one("#value", Input).value == "stub"


async def test_model_thinking_shows_the_elapsed_time(tmp_path):
    db = f"sqlite:///{tmp_path / 't.db'}"
    with StubServer(lambda request: (200, completion(say("Let me check.")), 3.0)) as stub:
        async with app_with_model(db, stub).run_test(size=(80, 24)) as pilot:
            screen = await open_play(pilot, STT, "agent", "PlayScreen")
            await pilot.press("f10")
            line = screen.query_one("#model-activity")
            await wait_for(pilot, lambda: "thinking… 1 s" in str(line.render()), timeout=10)
            assert "model:stub thinking" in str(line.render()) and line.display
            await pilot.press("f11")
            await wait_for(pilot, lambda: not str(line.render()), timeout=10)


async def test_a_failing_model_returns_the_seat_with_a_notice(tmp_path):
    db = f"sqlite:///{tmp_path / 'f.db'}"
    with StubServer(lambda request: (500, {"error": {"message": "down"}}, 0.0)) as stub:
        app = app_with_model(db, stub, retries=1)
        async with app.run_test(size=(120, 40)) as pilot:
            screen = await open_play(pilot, STT, "agent", "PlayScreen")
            await pilot.press("f10")
            await wait_for(pilot, lambda: screen.session.seats["agent"] is screen.human and screen.human.waiting)
            assert len(stub.requests) == 2
    store = Store(db)
    record = store.list_episodes()[0]
    types = [e.type for e in store.events(record.id)]
    assert "seat_failed" in types and types.count("seat_changed") == 2 and record.status == "running"
