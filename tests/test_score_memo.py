"""The scoring memos (issue 27's throughput) change no result: ``checklist.score`` keeps an
episode's outcome while nothing it reads has moved, and the rule judge reads each agent message
once per text. Every bundled stt task's oracle and naive plans are played through the bridge's
``Stepper`` (sttui's runner, stepped) twice, once as shipped and once with every score computed
afresh (``score_fresh`` and an uncached ``RuleJudge``); every event, every per-step verdict and
the scripted user's view of it, and the final outcome must be identical."""

from __future__ import annotations

import json
from typing import Any

import pytest

import sttui.controllers.base as base
import sttui.running.runner as runner
from sttui.bridges.episodes import Stepper, baseline_actions, select_tasks
from sttui.controllers.base import user_view
from sttui.core import checklist
from sttui.core.actions import Reply, Say, ToolCall
from sttui.core.checklist import RuleJudge, score, score_fresh
from sttui.core.episode import Episode
from tests.conftest import ROOT

_TASKS = select_tasks("stt", folder=ROOT / "tasks" / "stt")


def _fresh(episode: Any, judge: Any = None) -> checklist.Outcome:
    """The reference: no outcome memo, the rule judge reading every message afresh."""
    if judge is None or type(judge) is RuleJudge:
        judge = RuleJudge(cached=False)
    return score_fresh(episode, judge)


def _said(view: Any) -> tuple[Any, ...]:
    return (view.goal_met, view.accepted, view.unmet, view.contradicted)


def _play(loaded: Any, actions: list[Any]) -> tuple[list[str], list[Any], dict[str, Any]]:
    """Events (all but the wall clock), per step (the score, the scripted user's view of it),
    the final outcome."""
    s = Stepper(loaded, loaded.task.seed)
    s.reset()
    steps = []
    for action in actions:
        if s.done:
            break
        s.step(action)
        ep = s.episode
        assert isinstance(ep, Episode)
        steps.append((base.score(ep).as_dict(), _said(user_view(ep))))
    if not s.done:  # the plan ran out: end it as the bridge's caller would
        s.step(_end())
    assert s.result is not None and s.result.outcome is not None
    ep = s.episode
    assert isinstance(ep, Episode)
    events = [
        json.dumps([e.seq, e.type, e.actor, e.payload, e.sim_time], sort_keys=True, default=str) for e in ep.events
    ]
    return events, steps, s.result.outcome.as_dict()


def _end() -> Any:
    from sttui.core.actions import EndEpisode

    return EndEpisode("plan finished")


@pytest.mark.parametrize("plan", ["oracle", "naive"])
def test_every_bundled_plan_scores_the_same_with_and_without_the_memos(plan, monkeypatch):
    played = []
    for loaded in _TASKS:
        actions, _ = baseline_actions(loaded, plan, loaded.task.seed)
        played.append((loaded, actions, _play(loaded, actions)))
    assert len(played) >= 50 and any(t.task.level == "impossible" for t, _, _ in played)
    monkeypatch.setattr(base, "score", _fresh)
    monkeypatch.setattr(runner, "score", _fresh)
    for loaded, actions, memo in played:
        checklist._COMPLETIONS.clear()  # no reading survives into the reference
        assert _play(loaded, actions) == memo, loaded.id


@pytest.mark.parametrize("plan", ["oracle", "naive"])
def test_at_every_step_the_kept_score_is_the_fresh_one(plan):
    """Asked after every step, as the scripted user and the workbench ask: the kept outcome and
    the fresh one agree item by item, detail by detail, on every task (impossible ones: the
    rule judge with its readings against one reading every message again)."""
    for loaded in _TASKS:
        actions, _ = baseline_actions(loaded, plan, loaded.task.seed)
        s = Stepper(loaded, loaded.task.seed)
        s.reset()
        for action in actions:
            if s.done:
                break
            s.step(action)
            ep = s.episode
            assert isinstance(ep, Episode)
            assert score(ep).as_dict() == _fresh(ep).as_dict(), loaded.id
            assert score(ep, RuleJudge()).as_dict() == _fresh(ep).as_dict(), loaded.id


def _solvable() -> Any:
    return next(t for t in _TASKS if t.task.level != "impossible" and any(s.tool for s in t.task.solution))


def _user_turn(ep: Episode) -> Any:
    assert ep.turn == "user"
    view = user_view(ep)
    ep.apply(Reply("Go on."), "u")
    return view


def test_the_kept_outcome_goes_stale_never_when_the_state_changes_between_user_turns():
    """The solution's calls change the state between two user turns: the second turn's view is
    the new state's verdict (passing), not the first turn's (failing) kept over."""
    loaded = _solvable()
    ep = Episode(loaded.task, loaded.env_cls, loaded.task.seed)
    ep.start()
    ep.apply(Say("Let me look into it."), "a")
    first = _user_turn(ep)
    assert not first.accepted and first.unmet
    version = ep._state_version
    for step in loaded.task.solution:
        if ep.ended is not None:
            break
        if ep.turn == "user":
            _user_turn(ep)
        ep.apply(ToolCall(step.tool, dict(step.args)) if step.tool else Say(step.say or ""), "a")
    assert ep._state_version > version  # the state did change
    if ep.turn != "user":
        ep.apply(Say("Done."), "a")
    second = user_view(ep)
    assert second.accepted and not second.unmet
    assert score(ep).as_dict() == _fresh(ep).as_dict()


def test_a_user_message_keeps_the_outcome_and_an_agent_message_does_not():
    loaded = _solvable()
    ep = Episode(loaded.task, loaded.env_cls, loaded.task.seed)
    ep.start()
    ep.apply(Say("Let me look into it."), "a")
    before = score(ep)
    ep.apply(Reply("Please hurry."), "u")  # no item reads the user's words
    kept = score(ep)
    assert kept.items[0] is before.items[0] and kept.items is not before.items
    ep.apply(Say("Working on it."), "a")  # a tell item or the judge may read this
    after = score(ep)
    assert after.items[0] is not before.items[0]
    assert after.as_dict() == _fresh(ep).as_dict()


def test_the_clock_alone_moving_is_a_new_outcome():
    """``pass_time`` moves the clock with no event: a check may read the clock."""
    from datetime import timedelta

    loaded = _solvable()
    ep = Episode(loaded.task, loaded.env_cls, loaded.task.seed)
    ep.start()
    before = score(ep)
    ep.pass_time(ep.now + timedelta(minutes=1))
    assert score(ep).items[0] is not before.items[0]


def test_a_judge_other_than_the_rule_judge_is_asked_every_time(monkeypatch):
    impossible = next(t for t in _TASKS if t.task.level == "impossible")
    ep = Episode(impossible.task, impossible.env_cls, impossible.task.seed)
    ep.start()
    asked = []

    class Counting:
        name = "counting"

        def judge(self, episode: Any) -> list[checklist.ItemResult]:
            asked.append(1)
            return [checklist.ItemResult("informed_user", False, "no")]

    score(ep, Counting())
    score(ep, Counting())
    assert len(asked) == 2


def test_the_rule_judge_reads_a_message_once_and_the_same_way():
    impossible = next(t for t in _TASKS if t.task.level == "impossible")
    ep = Episode(impossible.task, impossible.env_cls, impossible.task.seed)
    ep.start()
    for step in impossible.task.solution:
        if ep.turn == "user":
            ep.apply(Reply("Go on."), "u")
        ep.apply(ToolCall(step.tool, dict(step.args)) if step.tool else Say(step.say or ""), "a")
    if ep.turn == "user":
        ep.apply(Reply("Go on."), "u")
    ep.apply(Say("I cannot do this: it is not possible, because of the conflict."), "a")
    cached, fresh = RuleJudge(), RuleJudge(cached=False)
    assert cached.judge(ep) == fresh.judge(ep)
    readings = checklist._per_env(ep).readings
    texts = {t for memo in readings.values() for t in memo}
    assert "I cannot do this: it is not possible, because of the conflict." in texts
    assert cached.judge(ep) == fresh.judge(ep)


def test_folding_ascii_takes_a_shortcut_to_the_same_text():
    """``facts.fold`` (every ``tell`` fact and claim is read folded) lower-cases ASCII text
    directly: the same text the whole Unicode way gives, for every ASCII character."""
    import random

    from sttui.core import facts

    rng = random.Random(27)
    ascii_chars = [chr(c) for c in range(128)]
    samples = ["".join(ascii_chars)] + [
        "".join(rng.choice(ascii_chars) for _ in range(rng.randint(0, 40))) for _ in range(2000)
    ]
    samples += [m["text"] for t in _TASKS for m in [{"text": t.task.query}, {"text": t.task.user.goal}]]
    for text in samples:
        assert facts.fold(text) == facts._fold_unicode(text), repr(text)
    assert (
        facts.fold("Café – naïve’s\u00a0TRK‑9")
        == facts._fold_unicode("Café – naïve’s\u00a0TRK‑9")
        == "cafe - naive's trk-9"
    )


def test_an_items_dict_is_dataclasses_asdict():
    import dataclasses

    for item in (checklist.ItemResult("a", True, "pass: x"), checklist.ItemResult("b", False, "")):
        assert list(item.as_dict().items()) == list(dataclasses.asdict(item).items())


def test_the_claim_verbs_made_once_are_those_made_afresh():
    """The record's verbs of completion (``tell`` items' unsupported claims) are made once per
    set of tools: the same as ``claim_verbs`` on every bundled environment's tools."""
    from sttui.core import claim_verbs

    assert len({t.env_cls for t in _TASKS}) >= 5
    for loaded in _TASKS:
        tools = loaded.env_cls.tool_specs
        assert claim_verbs._claim_verbs_of(tools) == claim_verbs.claim_verbs(tools), loaded.id
        assert claim_verbs._claim_verbs_of(tools) is claim_verbs._claim_verbs_of(tools)
