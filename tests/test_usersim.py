"""The scripted user: withheld details asked for in other words, completion, and its replies."""

from __future__ import annotations

import asyncio

import pytest

from sttui.controllers.base import UserView
from sttui.controllers.baselines import (
    ACCEPT_INFEASIBLE,
    AFTER_DONE_MORE_WORK,
    APPROVE,
    DONE,
    GO_AHEAD,
    KEEP_TRYING,
    NO_SUCH_DETAIL,
    NOTED,
    ScriptedUser,
)
from sttui.core import usersim as us
from sttui.core.actions import Reply, Satisfied
from sttui.core.loader import load_task
from tests.helpers.usersim import STT, answer, user_of, view_for


@pytest.mark.parametrize(
    ("text", "keys"),
    [
        ("Where exactly is Mr Clarke waiting right now?", ["discharge_lounge"]),  # a question
        ("Please let me know where he is waiting.", ["discharge_lounge"]),  # an explicit request
        ("Tell me where to pick him up", ["discharge_lounge"]),
        ("He is waiting in the lounge, I believe. I'll send VAN-5.", []),  # a statement is not a question
        ("Where is the nearest depot? He should be collected soon.", []),  # the cue must be in the asking sentence
    ],
)
def test_only_a_question_or_a_request_asks(text, keys):
    assert us.asked_for(text, {"discharge_lounge": ["where wait", "pick up", "collect"]}) == keys


@pytest.mark.parametrize(
    ("word", "stem"),
    [
        ("waiting", "wait"),
        ("waits", "wait"),
        ("waited", "wait"),
        ("arrive", "arriv"),
        ("arriving", "arriv"),
        ("parties", "party"),
        ("fees", "fee"),
        ("addresses", "address"),
        ("address", "address"),
        ("needs", "need"),
        ("bags", "bag"),
        ("doses", "dos"),
        ("dose", "dos"),
        ("is", "is"),
        ("2024", "2024"),
    ],
)
def test_light_stemming(word, stem):
    assert us.stem(word) == stem


def test_a_plain_value_is_asked_for_by_its_key_words():
    """The old form still works: a plain value, revealed when all its key's words are asked."""
    view = UserView("g", {}, {"dose_count": 500}, [{"from": "agent", "text": "What is the dose count?"}], [])
    reply = answer(view)
    assert isinstance(reply, Reply) and reply.text == "dose count: 500"


INSULIN = "logistics/insulin-reefer-fault-st2-easy"
REPORT = "TRK-9 delivered the 500 doses to the downtown clinic at 06:59, cold chain intact."


@pytest.mark.parametrize(
    ("text", "goal_met", "solvable", "earlier", "expected"),
    [
        # the work is done and reported: the user is satisfied and ends the episode
        (REPORT, True, True, (), Satisfied(DONE)),
        ("All done. Is there anything else I can help with?", True, True, (), Satisfied(DONE)),
        # done, but the agent says it is still working: the user waits
        ("Delivered. Let me double-check the temperature log.", True, True, (), Reply(AFTER_DONE_MORE_WORK)),
        # a withheld detail asked for after the work is done is still answered
        ("Delivered. By when did the clinic need it, for my records?", True, True, (), "deadline"),
        # the same report when the goal is not met: no ending
        (REPORT, False, True, (), Reply(NOTED)),
        ("I'll check TRK-7's refrigeration first.", False, True, (), Reply(GO_AHEAD)),
        ("Shall I send it on TRK-9 instead?", False, True, (), Reply(APPROVE)),
        ("Which entrance does the clinic use for deliveries?", False, True, (), Reply(NO_SUCH_DETAIL)),
        ("I'm afraid it can't be done today.", False, True, (), Reply(KEEP_TRYING)),
        # an impossible task: the agent says it cannot be done, the user accepts and ends
        (
            "I'm sorry, I cannot get the insulin there in time: no cold van can reach it.",
            False,
            False,
            (),
            Satisfied(ACCEPT_INFEASIBLE),
        ),
        ("I can't get it there by 10. Shall I book the first slot tomorrow?", False, False, (), Reply(APPROVE)),
        ("Booked for 07:00 tomorrow.", False, False, ("It cannot arrive today.",), Satisfied(ACCEPT_INFEASIBLE)),
        ("I cannot see the van yet; let me check the depot.", False, False, (), Reply(GO_AHEAD)),
    ],
)
def test_replies_and_completion(text, goal_met, solvable, earlier, expected):
    reply = answer(view_for(INSULIN, text, goal_met=goal_met, solvable=solvable, earlier=earlier))
    if isinstance(expected, str):
        assert isinstance(reply, Reply) and str(user_of(INSULIN).withheld_values[expected]) in reply.text
    else:
        assert reply == expected


def _play(path, plan: str):
    from sttui.controllers.baselines import PlanAgent
    from sttui.runner import run_episode

    loaded = load_task(path)
    return loaded, asyncio.run(
        run_episode(loaded, PlanAgent("baseline:plan", getattr(loaded.task, plan)), ScriptedUser())
    )


def answer_to(loaded, text: str):
    user = loaded.task.user
    said = [{"from": "agent", "text": text}]
    view = UserView(user.goal, user.profile, user.withheld_values, said, [], user.withheld_cues, False, False)
    return answer(view)


@pytest.mark.parametrize("path", sorted(STT.glob("*/*.yaml")), ids=lambda p: p.stem)
def test_bundled_episodes_end_by_the_user_once_the_work_is_done(path):
    """The oracle still passes, and the user ends the episode on its final report (unless that
    report asks a question, which gets an answer, and the plan ends); the naive plan's report
    never ends it."""
    loaded, oracle = _play(path, "solution")
    assert oracle.passed
    last_say = next(s.say for s in reversed(loaded.task.solution) if s.say is not None)
    user_lines = [
        e.payload["text"] for e in oracle.episode.events if e.type == "message" and e.payload["from"] == "user"
    ]
    if us.asking_sentences(last_say):
        assert oracle.episode.ended["by"] == "agent" and isinstance(answer_to(loaded, last_say), Reply)
    else:
        assert oracle.episode.ended["by"] == "user"
        assert user_lines[-1] == (DONE if loaded.task.level != "impossible" else ACCEPT_INFEASIBLE)
    assert GO_AHEAD not in user_lines
    _, naive = _play(path, "naive_plan")
    assert not naive.passed and naive.episode.ended["by"] != "user"


def test_goal_met_follows_the_checklist_and_only_the_user_seat_gets_it():
    from sttui.controllers.base import agent_view, user_view
    from sttui.core.actions import Say, ToolCall
    from sttui.runner import open_episode

    loaded = load_task(STT / f"{INSULIN}.yaml")
    ep = open_episode(loaded, None, {"agent": "a", "user": "u"})
    ep.start()
    assert user_view(ep).goal_met is False and user_view(ep).solvable is True
    for step in loaded.task.solution:
        if step.tool is not None:
            ep.apply(ToolCall(step.tool, dict(step.args)))
    # the work is done, but the coordinator has not been told which truck (the task's tell item)
    assert user_view(ep).goal_met is False
    assert not hasattr(agent_view(ep), "goal_met")
    ep.apply(Say(REPORT))
    assert user_view(ep).goal_met is True
    assert asyncio.run(ScriptedUser().act(user_view(ep))) == Satisfied(DONE)


def test_a_plain_mapping_is_withheld_as_it_stands():
    from sttui.core.task import User

    user = User.model_validate({"goal": "g", "withheld": {"packing": {"box": 3}, "code": {"value": {"value": 1}}}})
    assert user.withheld_values == {"packing": {"box": 3}, "code": {"value": 1}}
    assert user.withheld_cues == {"packing": ["packing"], "code": ["code"]}
