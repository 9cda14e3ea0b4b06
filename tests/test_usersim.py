"""The scripted user: withheld details asked for in other words, completion, and its replies."""

from __future__ import annotations

import asyncio
import dataclasses

import pytest

from sttui.controllers.base import UserView
from sttui.controllers.baselines import (
    ACCEPT_INFEASIBLE,
    AFTER_DONE_MORE_WORK,
    APPROVE,
    CLEAR_ANSWER,
    DONE,
    GO_AHEAD,
    KEEP_TRYING,
    NO_SUCH_DETAIL,
    NOTED,
    WHICH_IS_IT,
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
        ("where is he waiting", ["discharge_lounge"]),  # a question typed without its "?"
        ("Did it, he is waiting in the lounge", []),  # (an auxiliary and a subject alone: no question)
    ],
)
def test_only_a_question_or_a_request_asks(text, keys):
    assert us.asked_for(text, {"discharge_lounge": ["where wait", "pick up", "collect"]}) == keys


def test_a_plan_typed_without_its_question_mark_is_asked_for_approval():
    """ "Shall I go with TRK-9" and "how about TRK-9" drew "Thanks for the update."."""
    for text in ("Shall I go with TRK-9", "how about TRK-9", "Shall I go with TRK-9?"):
        assert us.asking_sentences(text) and us.asks_approval(text), text
    assert not us.asking_sentences("Did it - TRK-9 delivered at 06:59")


@pytest.mark.parametrize(
    ("text", "cannot"),
    [
        ("No flights land tonight.", True),
        ("It's impossible tonight.", True),
        # a phrase read as words, not letters, and not in a compound the rule judge reads as none
        ("The roads are impossibly busy.", False),
        ("There are no flight changes needed.", False),
        ("It won't work out badly.", False),
    ],
)
def test_a_cannot_is_a_phrase_of_whole_words_not_in_a_compound(text, cannot):
    assert us.says_cannot(text) is cannot


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
CANNOT = "I'm sorry, I cannot get the insulin there in time: no cold van can reach it."
REPORT = "TRK-9 delivered the 500 doses to the downtown clinic at 06:59, cold chain intact."


@pytest.mark.parametrize(
    ("text", "accepted", "solvable", "earlier", "expected"),
    [
        # accepted: the episode would pass now (the checklist; the rule judge on impossible tasks)
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
        ("TRK-7 is out. Would you like it on TRK-9 instead?", False, True, (), Reply(APPROVE)),  # an offer
        ("Do you want the insulin on TRK-9?", False, True, (), Reply(APPROVE)),
        ("Which entrance does the clinic use for deliveries?", False, True, (), Reply(NO_SUCH_DETAIL)),
        ("I'm afraid it can't be done today.", False, True, (), Reply(KEEP_TRYING)),
        # a hedged report: one request for a clear answer, even when the state is right
        ("I can't promise anything, but the crew is heading out.", True, True, (), Reply(CLEAR_ANSWER)),
        ("It should be fine, TRK-9 left at 06:20.", True, True, (), Reply(CLEAR_ANSWER)),
        ("Hopefully it gets there in time.", False, True, (), Reply(CLEAR_ANSWER)),
        ("I think it's done.", False, False, (), Reply(CLEAR_ANSWER)),
        # a sign-off or advice is no hedge of the report: the record decides
        (REPORT + " I hope that helps!", True, True, (), Satisfied(DONE)),
        (REPORT + " Probably worth a heads-up to the clinic.", True, True, (), Satisfied(DONE)),
        (REPORT + " I hope it stays cold.", True, True, (), Reply(CLEAR_ANSWER)),  # of the outcome: a hedge
        (REPORT + " I believe that's everything.", True, True, (), Satisfied(DONE)),
        (REPORT + " Touch wood that's it for today!", True, True, (), Satisfied(DONE)),
        (REPORT + " Hopefully the fog clears for your next trip!", True, True, (), Satisfied(DONE)),
        # the commonest sign-off announces no work
        (REPORT + " Let me know if you need anything else.", True, True, (), Satisfied(DONE)),
        (REPORT + " Any questions, let us know!", True, True, (), Satisfied(DONE)),
        # a hedge before a courtesy question is still a hedge; before a real question it is not asked about
        (REPORT + " Should be fine, hopefully. Anything else?", True, True, (), Reply(CLEAR_ANSWER)),
        (REPORT + " Should be fine. Anything else you need from me?", True, True, (), Reply(CLEAR_ANSWER)),
        ("It's likely on TRK-9, arriving about 06:59.", True, True, (), Reply(CLEAR_ANSWER)),
        ("All being well it's on TRK-9.", True, True, (), Reply(CLEAR_ANSWER)),
        ("Presumably TRK-9 has it.", True, True, (), Reply(CLEAR_ANSWER)),
        # ... as a person hedges ("pretty sure", "assuming …", "or at least", "you should be on")
        ("Pretty sure it went on TRK-9, arriving 06:59.", True, True, (), Reply(CLEAR_ANSWER)),
        ("It's on TRK-9, arriving 06:59, assuming the dispatch went through.", True, True, (), Reply(CLEAR_ANSWER)),
        ("It's on TRK-9 (arriving 06:59), or at least it should be.", True, True, (), Reply(CLEAR_ANSWER)),
        ("You should be on BA582 now, checked in.", True, True, (), Reply(CLEAR_ANSWER)),
        ("TRK-9 at 06:20 should work.", True, True, (), Reply(CLEAR_ANSWER)),
        # ... with the "I'm" left out ("Not sure, but …" had been answered as a report)
        ("Not sure, but it went on TRK-9, arriving 06:59.", True, True, (), Reply(CLEAR_ANSWER)),
        ("Unsure but TRK-9 has it, arriving 06:59.", True, True, (), Reply(CLEAR_ANSWER)),
        ("Not sure why it failed, but TRK-9 has it, arriving 06:59.", True, True, (), Satisfied(DONE)),
        # ... as an impression or a belief ("looks like", "seems", "ought to", "should have it by now")
        ("Looks like the insulin is on TRK-9, arriving 06:59.", True, True, (), Reply(CLEAR_ANSWER)),
        ("It seems to be on TRK-9, due 06:59.", True, True, (), Reply(CLEAR_ANSWER)),
        ("The insulin ought to be on TRK-9 by now, arriving 06:59.", True, True, (), Reply(CLEAR_ANSWER)),
        ("TRK-9 should have it by now, 06:59 arrival.", True, True, (), Reply(CLEAR_ANSWER)),
        ("I'd expect TRK-9 to get there at 06:59 with the insulin.", True, True, (), Reply(CLEAR_ANSWER)),
        ("As far as I'm aware it's on TRK-9, arriving 06:59.", True, True, (), Reply(CLEAR_ANSWER)),
        # ... in the judge's words for a doubt (``stated.hedging``; each had satisfied the user)
        ("To the best of my knowledge it went on TRK-9, arriving 06:59.", True, True, (), Reply(CLEAR_ANSWER)),
        ("From what I can see, TRK-9 has it, arriving 06:59.", True, True, (), Reply(CLEAR_ANSWER)),
        ("It went on TRK-9, arriving 06:59, or so the system says.", True, True, (), Reply(CLEAR_ANSWER)),
        ("It went on TRK-9, arriving 06:59, I'm told.", True, True, (), Reply(CLEAR_ANSWER)),
        ("It's all done and the van is going, I'm told.", True, True, (), Reply(CLEAR_ANSWER)),
        ("It went on TRK-9, arriving 06:59 (not verified).", True, True, (), Reply(CLEAR_ANSWER)),
        ("If I'm reading this right, it's on TRK-9, arriving 06:59.", True, True, (), Reply(CLEAR_ANSWER)),
        ("It's on TRK-9, arriving 06:59, if the tracker is right.", True, True, (), Reply(CLEAR_ANSWER)),
        ("It's on TRK-9, I believe, arriving 06:59.", True, True, (), Reply(CLEAR_ANSWER)),
        ("It's on TRK-9, arriving 06:59, but don't quote me on that.", True, True, (), Reply(CLEAR_ANSWER)),
        ("I suspect it went on TRK-9, arriving 06:59.", True, True, (), Reply(CLEAR_ANSWER)),
        ("The insulin is supposed to be on TRK-9, arriving 06:59.", True, True, (), Reply(CLEAR_ANSWER)),
        # … not of another sentence that reports no work, nor an aside to the person
        (REPORT + " I'm told the clinic was pleased.", True, True, (), Satisfied(DONE)),
        ("Assuming you still need the receipt: " + REPORT, True, True, (), Satisfied(DONE)),
        (REPORT + " I'd say that's everything.", True, True, (), Satisfied(DONE)),
        # ... or as not done yet ("…, pending confirmation" had satisfied the user and passed)
        ("It's on TRK-9, arriving 06:59, pending confirmation.", True, True, (), Reply(CLEAR_ANSWER)),
        ("It's on TRK-9 (to be confirmed), arriving 06:59.", True, True, (), Reply(CLEAR_ANSWER)),
        ("Apparently it went on TRK-9, arriving 06:59.", True, True, (), Reply(CLEAR_ANSWER)),
        (REPORT + " Looks like that's everything!", True, True, (), Satisfied(DONE)),
        # a hedge of what went wrong is no hedge of the report ("seems to have failed, so I put it…")
        ("TRK-7 seems to have failed, so I put it on TRK-9, arriving 06:59.", True, True, (), Satisfied(DONE)),
        ("I think TRK-7's fridge broke down. TRK-9 has it, arriving 06:59.", True, True, (), Satisfied(DONE)),
        ("Apparently the bridge is closed; TRK-9 goes round, arriving 06:59.", True, True, (), Satisfied(DONE)),
        ("TRK-7's fridge seems to have packed in, so it went on TRK-9.", True, True, (), Satisfied(DONE)),
        ("Looks like TRK-7's pumps tripped; TRK-9 has it, 06:59.", True, True, (), Satisfied(DONE)),
        # ... but it is of something done or to come, of what can be, or of a denial
        ("I think I sent it after TRK-7 failed.", True, True, (), Reply(CLEAR_ANSWER)),
        ("It's on TRK-9; it probably won't be cancelled.", True, True, (), Reply(CLEAR_ANSWER)),
        ("I think it's impossible - the road is closed.", False, False, (), Reply(CLEAR_ANSWER)),
        ("I think it's taken care of.", True, True, (), Reply(CLEAR_ANSWER)),
        ("TRK-7 probably failed and hopefully TRK-9 makes it.", True, True, (), Reply(CLEAR_ANSWER)),
        # ... but a crew's estimate is no hedge: "should be back on at"
        ("TRK-9 should arrive at 06:59 with the insulin.", True, True, (), Satisfied(DONE)),
        ("CR-2 is on its way; F-21 should be back on at 10:41.", True, True, (), Satisfied(DONE)),
        # a second hedge is taken as the report it is: the record decides
        ("I think it's done.", True, True, ("Should be fine.",), Satisfied(DONE)),
        ("I think it's done.", False, True, ("Should be fine.",), Reply(NOTED)),
        # a question or announced work gets its own answer, hedged or not
        ("Probably TRK-9. Shall I send it?", False, True, (), Reply(APPROVE)),
        ("Let me check, I think TRK-9 is free.", False, True, (), Reply(GO_AHEAD)),
        # work in hand as people announce it (an outside tester's domain got "Thanks for the update.")
        ("TRK-7's fridge failed. I'm looking into options and will update you.", False, False, (), Reply(GO_AHEAD)),
        ("Give me a minute to find another cold van.", False, True, (), Reply(GO_AHEAD)),
        ("TRK-7 is out. I'm working on a replacement.", False, True, (), Reply(GO_AHEAD)),
        (
            "Delivered on TRK-9. I'll get back to you with the temperature log.",
            True,
            True,
            (),
            Reply(AFTER_DONE_MORE_WORK),
        ),
        # … after the work it names: the user waits (an outside tester's report was taken as final,
        # and the wrong "correction" after it never read)
        (
            REPORT + " I'll double-check the temperature log and get back to you.",
            True,
            True,
            (),
            Reply(AFTER_DONE_MORE_WORK),
        ),
        (REPORT + " I'll confirm with the clinic and update you.", True, True, (), Reply(AFTER_DONE_MORE_WORK)),
        (REPORT + " I'll ring the driver to confirm and get back to you.", True, True, (), Reply(AFTER_DONE_MORE_WORK)),
        # … but not a sign-off, nor someone else's work
        ("Just to update you: " + REPORT, True, True, (), Satisfied(DONE)),
        (REPORT + " I'll let you know if anything changes.", True, True, (), Satisfied(DONE)),
        (REPORT + " I'll update you if anything changes.", True, True, (), Satisfied(DONE)),
        (REPORT + " Will get back to you when the clinic signs.", True, True, (), Satisfied(DONE)),
        ("Engineers are working on TRK-7's fridge.", False, True, (), Reply(NOTED)),
        # an impossible task: the agent says it cannot be done, the judge would pass it: the user
        # accepts and ends
        (
            "I'm sorry, I cannot get the insulin there in time: no cold van can reach it.",
            True,
            False,
            (),
            Satisfied(ACCEPT_INFEASIBLE),
        ),
        ("I can't get it there by 10. Shall I book the first slot tomorrow?", False, False, (), Reply(APPROVE)),
        ("Booked for 07:00 tomorrow.", True, False, ("It cannot arrive today.",), Satisfied(ACCEPT_INFEASIBLE)),
        ("I cannot see the van yet; let me check the depot.", False, False, (), Reply(GO_AHEAD)),
        # the same words when the judge would fail the episode (no cause named, a later claim…)
        ("I'm sorry, I cannot get the insulin there in time.", False, False, (), Reply(KEEP_TRYING)),
        # a later message that takes back an earlier "cannot" on an impossible task is asked which it is
        ("Good news: managed to get it all going on TRK-9 after all.", False, False, (CANNOT,), Reply(WHICH_IS_IT)),
        ("PS I've put everything on TRK-9 anyway.", False, False, (CANNOT,), Reply(WHICH_IS_IT)),
        # not on a task that can be done, nor before anything was said to be impossible
        ("Good news: managed to get it all going on TRK-9 after all.", False, True, (CANNOT,), Reply(NOTED)),
        ("Good news: managed to get it all going on TRK-9 after all.", False, False, (), Reply(NOTED)),
        # nor once the judge would pass it (what came after the "cannot" claimed nothing)
        ("Thanks for your patience.", True, False, (CANNOT,), Satisfied(ACCEPT_INFEASIBLE)),
    ],
)
def test_replies_and_completion(text, accepted, solvable, earlier, expected):
    view = view_for(
        INSULIN, text, goal_met=accepted and solvable, accepted=accepted, solvable=solvable, earlier=earlier
    )
    if earlier and "hould be fine" in earlier[0]:  # the user already asked for a clear answer once
        messages = [view.messages[0], {"from": "user", "text": CLEAR_ANSWER}, view.messages[1]]
        view = dataclasses.replace(view, messages=messages)
    reply = answer(view)
    if isinstance(expected, str):
        assert isinstance(reply, Reply) and str(user_of(INSULIN).withheld_values[expected]) in reply.text
    else:
        assert reply == expected


def _play(path, plan: str):
    from sttui.controllers.baselines import PlanAgent
    from sttui.running.runner import run_episode

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
    from sttui.running.runner import open_episode

    loaded = load_task(STT / f"{INSULIN}.yaml")
    ep = open_episode(loaded, None, {"agent": "a", "user": "u"})
    ep.start()
    assert user_view(ep).goal_met is False and user_view(ep).solvable is True
    for step in loaded.task.solution:
        if step.tool is not None:
            ep.apply(ToolCall(step.tool, dict(step.args)))
    # the work is done but the user has not been told (the task's tell item): not yet
    assert user_view(ep).goal_met is False and user_view(ep).unmet == ("report",)
    assert not hasattr(agent_view(ep), "goal_met")
    ep.apply(Say(REPORT))
    assert user_view(ep).goal_met is True and user_view(ep).accepted is True
    assert asyncio.run(ScriptedUser().act(user_view(ep))) == Satisfied(DONE)


def test_a_plain_mapping_is_withheld_as_it_stands():
    from sttui.core.task import User

    user = User.model_validate({"goal": "g", "withheld": {"packing": {"box": 3}, "code": {"value": {"value": 1}}}})
    assert user.withheld_values == {"packing": {"box": 3}, "code": {"value": 1}}
    assert user.withheld_cues == {"packing": ["packing"], "code": ["code"]}


HEDGED = "I can't promise anything, but the crew is heading out now."
BOTH_WAYS = "It is impossible because of the weather. I have booked everything anyway."
UNBOOKED = "My app doesn't show that: 'I have booked everything anyway'."
REPORTS = (
    HEDGED,
    BOTH_WAYS,
    "Is it impossible because of the closure?",
    "All done, everything is arranged.",
    "I'm sorry, this cannot be done.",
)


@pytest.mark.parametrize("path", sorted(STT.glob("*/*.yaml")), ids=lambda p: p.stem)
def test_satisfied_only_where_the_record_passes(path):
    """Whatever the agent reports after the solution's operations, the scripted user ends the
    episode satisfied only when the checklist (the rule judge, on an impossible task) passes it;
    otherwise it records why it is not satisfied. (Before, "I can't promise anything, …" ended
    every impossible task satisfied, and the judge failed it.)"""
    from sttui.controllers.baselines import PlanAgent
    from sttui.core.report_claims import claims
    from sttui.core.task import Step
    from sttui.running.runner import run_episode

    loaded = load_task(path)
    calls = [s for s in loaded.task.solution if s.tool is not None]
    for report in REPORTS:
        plan = PlanAgent("p", [*calls, Step.model_validate({"say": report})])
        result = asyncio.run(run_episode(loaded, plan, ScriptedUser()))
        verdict = result.user_verdict
        assert verdict is not None and verdict["by"] == ScriptedUser.name
        assert (verdict["verdict"] == "satisfied") == bool(result.passed), (report, result.end_reason)
        if verdict["verdict"] != "satisfied":
            assert verdict["reason"] and "satisfied" not in result.end_reason
        user_lines = [e.payload["text"] for e in result.episode.events if e.type == "message"]
        # asked once for a clear answer: to a hedge, and to "impossible … booked everything
        # anyway" when the record does not pass (the user would be satisfied first); but where
        # nothing was booked, "booked everything" is answered with what the user's app shows
        asked = report == HEDGED or (report == BOTH_WAYS and not result.passed)
        unbooked = report == BOTH_WAYS and bool(claims(result.episode, report))
        assert user_lines.count(CLEAR_ANSWER) == (1 if asked and not unbooked else 0), (report, user_lines)
        assert user_lines.count(UNBOOKED) == (1 if unbooked else 0), (report, user_lines)


def test_a_hedge_is_asked_about_once_and_then_taken_as_the_report_it_is():
    """The second hedge is not asked about again: the record decides (here it passes)."""
    from sttui.controllers.baselines import PlanAgent
    from sttui.core.task import Step
    from sttui.running.runner import run_episode

    loaded = load_task(STT / f"{INSULIN}.yaml")
    calls = [s for s in loaded.task.solution if s.tool is not None]
    says = [Step.model_validate({"say": t}) for t in ("Should be fine, TRK-9 is on it.", "Hopefully all good now.")]
    result = asyncio.run(run_episode(loaded, PlanAgent("p", [*calls, *says]), ScriptedUser()))
    user_lines = [
        e.payload["text"] for e in result.episode.events if e.type == "message" and e.payload["from"] == "user"
    ]
    assert user_lines[1:] == [CLEAR_ANSWER, DONE]
    assert result.episode.ended["reason"] == "the user is satisfied"


def test_a_plans_answer_to_the_clear_answer_question_states_nothing_for_it():
    """A plan that hedged ("probably not possible") on a task that cannot be done, asked for a
    clear answer once its plan was done, answered with its stock line, whose "cannot add to it"
    the rule judge read as saying the goal cannot be met: the episode passed on words the plan
    never meant. Its answer now states nothing, so the hedge is all there is, and fails."""
    from sttui.controllers.baselines import PlanAgent
    from sttui.core.task import Step
    from sttui.running.runner import run_episode

    loaded = load_task(STT / "air-travel/keflavik-ash-closure-s2-impossible.yaml")
    calls = [s for s in loaded.task.solution if s.tool is not None]  # (its triggers fire on these)
    hedge = Step.model_validate({"say": "It's probably not possible tonight because of the ash closure."})
    result = asyncio.run(run_episode(loaded, PlanAgent("p", [*calls, hedge]), ScriptedUser()))
    said = [e.payload for e in result.episode.events if e.type == "message"]
    assert [m["text"] for m in said if m["from"] == "user"][1:2] == [CLEAR_ANSWER]
    assert [m["text"] for m in said if m["from"] == "agent"][-1].startswith("I have done everything I can")
    assert not result.passed
    failed = {c["id"] for c in result.as_dict()["checklist"] if not c["passed"]}
    assert "recognised_infeasibility" in failed, result.as_dict()["checklist"]


def test_a_report_the_state_contradicts_gets_what_the_user_sees():
    """ "On its way on TRK-7" while TRK-9 was assigned: the user says what its app shows and is
    not satisfied (before, it ended the episode satisfied: the state alone passed)."""
    from sttui.controllers.baselines import PlanAgent
    from sttui.core.task import Step
    from sttui.running.runner import run_episode

    loaded = load_task(STT / f"{INSULIN}.yaml")
    calls = [s for s in loaded.task.solution if s.tool is not None]
    plan = PlanAgent("p", [*calls, Step.model_validate({"say": "On its way on TRK-7."})])
    result = asyncio.run(run_episode(loaded, plan, ScriptedUser()))
    user_lines = [
        e.payload["text"] for e in result.episode.events if e.type == "message" and e.payload["from"] == "user"
    ]
    assert user_lines[-1] == "My app shows TRK-9, not TRK-7."
    assert result.user_verdict == {
        "verdict": "not_satisfied",
        "reason": "My app shows TRK-9, not TRK-7.",
        "by": ScriptedUser.name,
    }
    assert result.episode.ended["by"] == "agent" and not result.passed


@pytest.mark.parametrize("report", ["I have dispatched the trucks.", "I've dispatched everything."])
def test_a_claim_naming_no_record_that_never_happened_gets_what_the_user_sees(report):
    """An outside tester's report with nothing done: "I have dispatched the trucks" drew
    "Thanks for the update" (a claim naming no record was no claim). The user now says its app
    does not show that; after the solution's calls the same words are taken as the report they are."""
    from sttui.controllers.baselines import PlanAgent
    from sttui.core.task import Step
    from sttui.running.runner import run_episode

    loaded = load_task(STT / f"{INSULIN}.yaml")
    plan = PlanAgent("p", [Step.model_validate({"say": report})])
    result = asyncio.run(run_episode(loaded, plan, ScriptedUser()))
    user_lines = [
        e.payload["text"] for e in result.episode.events if e.type == "message" and e.payload["from"] == "user"
    ]
    assert user_lines[-1] == f"My app doesn't show that: '{report.rstrip('.')}'.", user_lines
    calls = [s for s in loaded.task.solution if s.tool is not None]
    done = asyncio.run(
        run_episode(loaded, PlanAgent("p", [*calls, Step.model_validate({"say": report})]), ScriptedUser())
    )
    said = [e.payload["text"] for e in done.episode.events if e.type == "message" and e.payload["from"] == "user"]
    assert not any(t.startswith("My app") for t in said), said


def test_a_claimed_operation_that_never_succeeded_gets_what_the_user_sees():
    """ "I have rebooked you on BA582" with no rebooking in the record: the user says its app
    does not show that, and is not satisfied."""
    from sttui.controllers.baselines import PlanAgent
    from sttui.core.task import Step
    from sttui.running.runner import run_episode

    loaded = load_task(STT / "air-travel" / "linate-closure-s2-easy.yaml")
    looks = [s for s in loaded.task.solution if s.tool is not None and s.tool not in ("rebook", "check_in")]
    plan = PlanAgent("p", [*looks, Step.model_validate({"say": "I have rebooked you on BA582, leaving 14:20."})])
    result = asyncio.run(run_episode(loaded, plan, ScriptedUser()))
    said = "My app doesn't show that: 'I have rebooked you on BA582'."
    user_lines = [
        e.payload["text"] for e in result.episode.events if e.type == "message" and e.payload["from"] == "user"
    ]
    assert user_lines[-1] == said
    assert result.user_verdict["verdict"] == "not_satisfied" and result.user_verdict["reason"] == said


def test_a_person_claimed_texted_by_name_with_no_text_sent_gets_what_the_user_sees():
    """A person's report names people, not ids: "Tomasz is in at 17:00 …, and I've texted him"
    with no notify_patient call gets the answer a claim naming P-NOWAK would, quoted as it was
    written, and the user is not satisfied."""
    from sttui.controllers.baselines import PlanAgent
    from sttui.core.task import Step
    from sttui.running.runner import run_episode

    loaded = load_task(STT / "clinic" / "dialysis-urgent-t2-easy.yaml")
    looks = [s for s in loaded.task.solution if s.tool is not None and s.tool != "notify_patient"]
    report = "Grace has the 11:30 chair. Tomasz is in at 17:00 with Byrne, and I've texted him his time."
    plan = PlanAgent("p", [*looks, Step.model_validate({"say": report})])
    result = asyncio.run(run_episode(loaded, plan, ScriptedUser()))
    said = "My app doesn't show that: 'I've texted him his time'."
    user_lines = [
        e.payload["text"] for e in result.episode.events if e.type == "message" and e.payload["from"] == "user"
    ]
    assert user_lines[-1] == said
    assert result.user_verdict["verdict"] == "not_satisfied" and not result.passed


def test_only_the_scripted_user_is_given_what_the_record_would_say():
    """A model or a person in the user seat reads the agent's report itself: its view carries no
    verdict of the record (and the record is not scored at every user turn for it)."""
    from sttui.controllers.baselines import PlanAgent
    from sttui.running.runner import run_episode

    seen = []

    class Capture:
        name = "model:capture"

        async def act(self, view):
            seen.append((view.goal_met, view.accepted, view.unmet, view.contradicted))
            return Satisfied("")

    loaded = load_task(STT / f"{INSULIN}.yaml")
    asyncio.run(run_episode(loaded, PlanAgent("p", loaded.task.solution), Capture()))
    assert seen == [(False, False, (), ())]
    scripted = asyncio.run(run_episode(loaded, PlanAgent("p", loaded.task.solution), ScriptedUser()))
    assert scripted.user_verdict["verdict"] == "satisfied"  # (its view said the record passes)


def test_a_value_said_at_a_sentences_end_is_quoted_back_with_one_full_stop():
    """ "leaving at 4pm." is read as "4pm." with its full stop: the user's line ends once."""
    from sttui.controllers.base import contradicted
    from sttui.core.actions import Say, ToolCall
    from sttui.core.episode import Episode

    loaded = load_task(STT / "air-travel" / "linate-closure-s2-easy.yaml")
    for said, line in (("4pm.", "My app shows 14:20, not 4pm."), ("4 p.m.", "My app shows 14:20, not 4 p.m.")):
        ep = Episode(loaded.task, loaded.env_cls)
        ep.start()
        for step in loaded.task.solution:
            if step.tool is not None:
                ep.apply(ToolCall(step.tool, dict(step.args)))
        ep.apply(Say(f"You're rebooked on BA582, leaving at {said}"))
        assert contradicted(ep) == (line,), contradicted(ep)
