"""What a ``tell`` item keeps between asks (issue 27's throughput) changes no result: the record
of calls read only once a message claims something (``claim_record._Record``, ``_candidates``), each
message's claiming clauses read once per text and set of tools, the mappings found under each
top-level key of the state kept while the engine sees no change there, and found where the task's
initial state has them under a key unchanged since the start (``report_facts._Kept``), and
the times of the user's request read once per task. Every bundled stt task's oracle and naive
plans are played through the bridge's ``Stepper``, and after every step the checklist, the
scripted user's ``contradicted`` lines and the report mismatches must equal those worked out
with nothing kept (a new record, every cache emptied)."""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest

from sttui.bridges.episodes import Stepper, baseline_actions, select_tasks
from sttui.controllers.base import contradicted
from sttui.core import claim_record, claim_verbs, report_facts, report_names, reports
from sttui.core.actions import EndEpisode, Reply, Say, ToolCall
from sttui.core.checklist import evaluate_checklist
from sttui.core.episode import Episode
from sttui.core.loader import load_task
from tests.conftest import ROOT

T = TypeVar("T")
_TASKS = select_tasks("stt", folder=ROOT / "tasks" / "stt")
INSULIN = Path(ROOT) / "tasks" / "stt" / "logistics" / "insulin-reefer-fault-st2-easy.yaml"


def afresh(ep: Episode, work: Callable[[], T]) -> T:
    """``work`` with nothing kept: a new record for the episode and every cache of the tell items empty;
    what the episode kept is put back after, so the kept path goes on as it would have."""
    kept = claim_record._RECORDS.pop(ep, None), reports._MESSAGES.pop(ep, None)
    found, initial = dict(report_facts._FOUND), dict(report_facts._INITIAL_FOUND)
    report_facts._FOUND.clear()
    report_facts._INITIAL_FOUND.clear()
    for cached in (claim_verbs._claim_verbs_cached, report_facts._excused, report_names.canon_if_id):
        cached.cache_clear()
    try:
        return work()
    finally:
        claim_record._RECORDS.pop(ep, None)
        reports._MESSAGES.pop(ep, None)
        if kept[0] is not None:
            claim_record._RECORDS[ep] = kept[0]
        if kept[1] is not None:
            reports._MESSAGES[ep] = kept[1]
        report_facts._FOUND.update(found)
        report_facts._INITIAL_FOUND.clear()
        report_facts._INITIAL_FOUND.update(initial)


def said(ep: Episode) -> tuple[Any, ...]:
    """Everything the tell items give: the checklist, the user's lines, the mismatches."""
    return (
        [i.as_dict() for i in evaluate_checklist(ep)],
        contradicted(ep),
        reports.report_mismatches(ep),
    )


@pytest.mark.parametrize("plan", ["oracle", "naive"])
def test_at_every_step_what_the_tell_items_keep_gives_what_nothing_kept_gives(plan):
    claims = 0
    for loaded in _TASKS:
        actions, _ = baseline_actions(loaded, plan, loaded.task.seed)
        s = Stepper(loaded, loaded.task.seed)
        s.reset()
        for action in [*actions, EndEpisode("plan finished")]:
            if s.done:
                break
            s.step(action)
            ep = s.episode
            assert isinstance(ep, Episode)
            kept = said(ep)
            assert kept == afresh(ep, lambda ep=ep: said(ep)), (loaded.id, action)
            claims += sum(m.kind == "claim" for m in kept[2])
    if plan == "naive":  # the record is read: unsupported claims are among what was compared
        assert claims > 0


def _insulin() -> Episode:
    loaded = load_task(INSULIN)
    ep = Episode(loaded.task, loaded.env_cls)
    ep.start()
    for step in loaded.task.solution:
        if step.tool is not None:
            ep.apply(ToolCall(step.tool, dict(step.args)))
    return ep


def test_a_record_added_under_a_key_already_read_is_a_rival_of_the_fact():
    """The vehicles were read (the report passes); then a vehicle is added to their table: the
    engine sees the change there, and the fact's rivals are read again, so a report naming the
    new one is a conflict, as it is with nothing kept."""
    ep = _insulin()
    ep.apply(Say("The insulin went on TRK-9."))
    assert next(i for i in evaluate_checklist(ep) if i.id == "report").passed
    (fact,) = reports.resolved_facts(ep, next(i for i in ep.task.checklist if i.tell))
    assert "TRK-12" not in fact.rivals
    ep.env.state["vehicles"]["TRK-12"] = copy.deepcopy(ep.env.state["vehicles"]["TRK-9"])
    assert ep._sync()  # what the engine does after an operation
    ep.apply(Reply("ok"))
    ep.apply(Say("Correction: it went on TRK-12."))
    (fact,) = reports.resolved_facts(ep, next(i for i in ep.task.checklist if i.tell))
    assert "TRK-12" in fact.rivals
    report = next(i for i in evaluate_checklist(ep) if i.id == "report")
    assert not report.passed and "said 'TRK-12' (a conflict)" in report.detail
    assert said(ep) == afresh(ep, lambda: said(ep))


def test_the_mappings_under_an_unchanged_key_are_kept_and_a_changed_key_read_again():
    ep = _insulin()
    rec = claim_record._record(ep)
    assert rec.kept is not None
    state = ep.env.state

    def walked() -> list[Any]:
        return list(report_facts._walk(state, lambda d: "TRK-9" in d))

    first = report_facts._tables(state, "TRK-9", rec.kept)
    assert first == walked()
    kept = dict(rec.kept.found)
    assert report_facts._tables(state, "TRK-9", rec.kept) == first
    assert all(rec.kept.found[k][2] is kept[k][2] for k in kept)  # asked again: nothing walked
    state["shipments"]["SHP-1"]["TRK-9"] = "noted"  # a mapping under a key already read now holds it
    assert ep._sync()
    again = report_facts._tables(state, "TRK-9", rec.kept)
    assert again == walked() and len(again) == len(first) + 1
    state["depots"] = {"D-1": {"TRK-9": "parked"}}  # a new key holding it
    assert ep._sync()
    assert report_facts._tables(state, "TRK-9", rec.kept) == walked() and len(walked()) == len(first) + 2


def test_the_record_is_read_when_a_message_claims_and_again_after_later_calls():
    """A claim before the work: unsupported. The record is read for it; then the work is done
    and a later message claims nothing: the earlier claim is supported now, and the record read
    again says so, as it does with nothing kept."""
    loaded = load_task(INSULIN)
    ep = Episode(loaded.task, loaded.env_cls)
    ep.start()
    ep.apply(Say("Checking the vans now."))
    evaluate_checklist(ep)
    rec = claim_record._record(ep)
    assert rec.seen == 0 and rec.matcher is None  # nothing claimed: no call was read
    claim = "I have assigned TRK-9 to the insulin."
    ep.apply(Reply("ok"))
    ep.apply(Say(claim))
    before = said(ep)
    assert [m.kind for m in before[2]].count("claim") == 1
    assert reports.message_mismatches(ep, claim) == afresh(ep, lambda: reports.message_mismatches(ep, claim))
    assert before == afresh(ep, lambda: said(ep)) and rec.seen == len(ep.view)
    ep.apply(Reply("ok"))
    ep.apply(Say("Still working on it."))  # claims nothing; the claim before it still counts
    assert said(ep) == afresh(ep, lambda: said(ep)) and said(ep)[2] == before[2]
    ep.apply(Reply("ok"))
    for step in loaded.task.solution:
        if step.tool is not None:
            ep.apply(ToolCall(step.tool, dict(step.args)))
    assert reports.message_mismatches(ep, claim) == afresh(ep, lambda: reports.message_mismatches(ep, claim)) == []
    ep.apply(Say("Anything else I can help with?"))
    after = said(ep)
    assert after == afresh(ep, lambda: said(ep))
    assert not any(m.kind == "claim" for m in after[2])  # supported by the assignment now


def test_under_a_key_unchanged_since_the_start_the_mappings_are_found_where_the_initial_state_has_them():
    """A second episode of the task finds the mappings under its unchanged keys at the places
    the first found them in the initial state: its own mappings (not the task's), the same ones
    a walk finds; a key changed since is walked anew."""
    loaded = load_task(INSULIN)
    report_facts._INITIAL_FOUND.pop(id(loaded.task), None)
    first, second = (Episode(loaded.task, loaded.env_cls) for _ in range(2))
    for ep in (first, second):
        ep.start()
        assert ep._from_initial
    assert "sites" not in second._key_versions and "inventory" not in second._key_versions
    report_facts._tables(first.env.state, "HUB-NORTH", claim_record._record(first).kept)
    initial = report_facts._INITIAL_FOUND[id(loaded.task)][1]
    assert initial["sites"][0]["HUB-NORTH"] == [()]  # where the first episode found them (by the key they hold)
    state = second.env.state
    got = report_facts._tables(state, "HUB-NORTH", claim_record._record(second).kept)
    want = list(report_facts._walk(state, lambda d: "HUB-NORTH" in d))
    assert len(got) == len(want) >= 2 and all(g is w for g, w in zip(got, want, strict=True))
    state["vehicles"]["TRK-9"]["status"] = "in_use"
    del state["vehicles"]["TRK-7"]  # (a mapping under the changed key no longer holds its id)
    assert second._sync()
    got = report_facts._tables(state, "TRK-7", claim_record._record(second).kept)
    want = list(report_facts._walk(state, lambda d: "TRK-7" in d))
    assert all(g is w for g, w in zip(got, want, strict=True)) and len(got) == len(want)


def test_under_a_changed_key_the_mappings_are_read_once_for_every_value_looked_for(monkeypatch):
    """After a change under a key, each value looked for there is a lookup in the mappings
    read once and filed by the keys they hold (``_walk``'s order kept): the same lists a walk per
    value finds, one walk in all, and read again after the next change."""
    ep = _insulin()
    rec = claim_record._record(ep)
    assert rec.kept is not None
    state = ep.env.state
    state["shipments"]["SHP-1"]["TRK-9"] = "noted"
    assert ep._sync()
    walks = []
    walk = report_facts._walk

    def counted(value: Any, holds: Any, depth: int = 4) -> Any:
        walks.append(depth)
        return walk(value, holds, depth)

    monkeypatch.setattr(report_facts, "_walk", counted)
    for looked in ("TRK-9", "SHP-1", "trk9", "nothing-here"):
        got = report_facts._tables(state, looked, rec.kept)
        monkeypatch.setattr(report_facts, "_walk", walk)
        assert got == report_facts._tables(state, looked)  # (no kept: walked afresh)
        monkeypatch.setattr(report_facts, "_walk", counted)
    changed = [k for k in ep._key_versions if isinstance(state.get(k), dict)]
    assert "shipments" in changed
    assert walks.count(3) == len(changed)  # each changed key once, whatever was looked for; the rest as at the start
    state["shipments"]["SHP-2"] = {"TRK-9": "also"}
    assert ep._sync()
    got = report_facts._tables(state, "TRK-9", rec.kept)
    monkeypatch.setattr(report_facts, "_walk", walk)
    assert got == report_facts._tables(state, "TRK-9") and walks.count(3) == len(changed) + 1


def test_messages_found_to_claim_nothing_are_not_read_again(monkeypatch):
    """Asked after every message of a long chat that claims nothing, the claims check reads each
    message once (not all of them at every ask); a later claim is still found, and the list of
    messages read is checked to be the one read before."""
    from sttui.core import report_claims

    ep = _insulin()
    read: list[str] = []
    candidates = report_claims._candidates

    def counted(rec: Any, text: str) -> Any:
        read.append(text)
        return candidates(rec, text)

    monkeypatch.setattr(report_claims, "_candidates", counted)
    for i in range(30):
        if ep.turn == "user":
            ep.apply(Reply("ok"))
        ep.apply(Say(f"Still looking at the options ({i})."))
        assert report_claims.all_claims(ep, reports.agent_messages(ep)) == []
    assert len(read) == 30  # each message once
    ep.apply(Reply("ok"))
    ep.apply(Say("I cancelled SHP-1."))
    assert [m.kind for m in report_claims.all_claims(ep, reports.agent_messages(ep))] == ["claim"]
    other = reports.agent_messages(ep)[5:]  # (another list: read whole)
    read.clear()
    report_claims.all_claims(ep, other)
    assert read[0] == other[0].text
