"""Scoring an episode, table by table: each checklist item's verdict and detail, a check that
returns a bare bool, raises, or returns a reason; the human judge's items; and that one
failing item fails the episode while all passing pass it."""

from __future__ import annotations

import pytest

from sttui.core.actions import ToolCall
from sttui.core.checklist import HumanJudge, ItemResult, Outcome, evaluate_checklist, score
from sttui.running.runner import open_episode


def played(mini_task, *calls):
    ep = open_episode(mini_task, 0, {"agent": "a", "user": "u"})
    ep.start()
    for tool, args in calls:
        ep.apply(ToolCall(tool, args))
    return ep


def test_checklist_items_and_their_details(mini_task):
    ep = played(mini_task, ("get_crate", {"crate_id": "CR-1"}), ("move_crate", {"crate_id": "CR-1", "to": "DISPATCH"}))
    items = {i.id: i for i in evaluate_checklist(ep)}
    assert items["at-dispatch"] == ItemResult("at-dispatch", True, items["at-dispatch"].detail)
    assert items["at-dispatch"].detail.startswith("crate_at(): ")
    assert items["not-moved-by-hand"].passed and "actual 'bearings'" in items["not-moved-by-hand"].detail
    outcome = score(ep)
    assert outcome == Outcome(True, list(items.values()), "checklist")


def test_one_failing_item_fails_the_episode(mini_task):
    ep = played(mini_task, ("get_crate", {"crate_id": "CR-1"}))
    outcome = score(ep)
    assert outcome.passed is False and outcome.judged_by == "checklist"
    assert [i.passed for i in outcome.items] == [False, True]
    assert outcome.as_dict()["items"][0]["id"] == "at-dispatch"


@pytest.mark.parametrize(
    ("returned", "passed", "detail"),
    [
        (True, True, "crate_at()"),
        (False, False, "crate_at()"),
        ((True, "it is there"), True, "crate_at(): it is there"),
        ((False, "not yet"), False, "crate_at(): not yet"),
        ((0, ""), False, "crate_at(): returned (0, ''), not (True or False, why)"),
        ("ok", False, "crate_at(): returned 'ok', not (True or False, why)"),  # a bug in the check: no pass
        (None, False, "crate_at(): returned None, not (True or False, why)"),
        (RuntimeError("boom"), False, "crate_at(): check raised RuntimeError: boom"),
    ],
)
def test_a_check_functions_answer_becomes_the_items_verdict(mini_task, monkeypatch, returned, passed, detail):
    ep = played(mini_task)

    def check(**_):
        if isinstance(returned, Exception):
            raise returned
        return returned

    monkeypatch.setattr(ep.env, "crate_at", check)
    item = evaluate_checklist(ep)[0]
    assert (item.passed, item.detail) == (passed, detail)


def test_a_missing_path_says_no_such_key(mini_task):
    ep = played(mini_task)
    del ep.env.state["crates"]["CR-1"]
    item = evaluate_checklist(ep)[1]
    assert item.passed is False and "no such key 'CR-1' in crates" in item.detail and "actual" not in item.detail


@pytest.mark.parametrize(
    ("answers", "passed", "details"),
    [
        ([(True, "yes"), (True, "")], True, ["human: yes", "human"]),
        ([(True, ""), (False, "never said")], False, ["human", "human: never said"]),
        ([(False, ""), (True, "")], False, ["human", "human"]),
        ([(1, ""), ("", "")], False, ["human", "human"]),
    ],
)
def test_the_human_judge_asks_both_items_in_order(answers, passed, details):
    asked = []

    def ask(episode, item_id, question):
        asked.append((item_id, question))
        return answers[len(asked) - 1]

    items = HumanJudge(ask).judge(object())
    assert [i.id for i in items] == ["recognised_infeasibility", "informed_user"]
    assert [q for _, q in asked] == list(HumanJudge.QUESTIONS.values())
    assert [i.detail for i in items] == details
    assert all(i.passed for i in items) is passed
