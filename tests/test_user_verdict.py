"""The user's verdict beside the checklist: a person in the user seat ends satisfied, not
satisfied (with the reason) or gives up; the scripted user's verdict; the record (SQLite and
PostgreSQL), its rebuild, and what `sessions`, `report` and the end screen show of it."""

from __future__ import annotations

import asyncio
import json

import pytest
from textual.widgets import Input, Static

from sttui.controllers.baselines import PlanAgent, ScriptedUser
from sttui.core import verdicts
from sttui.core.actions import EndEpisode, GaveUp, NotSatisfied, Satisfied
from sttui.core.loader import load_task
from sttui.core.replaying import actions_of
from sttui.core.task import Step
from sttui.running.recording import rebuild, run_recorded
from sttui.store.store import Store
from sttui.tui.launch import Launch
from tests.conftest import ROOT
from tests.conftest import cli_raising as cli
from tests.tui_helpers import footer_text, open_play, type_text, wait_for

STT = ROOT / "tasks" / "stt" / "logistics" / "insulin-reefer-fault-st2-easy.yaml"
WRONG = "On its way on TRK-7."


class Ends:
    """A user seat that ends the episode at once with the given action."""

    def __init__(self, action, name="baseline:ends"):
        self.action, self.name = action, name

    async def act(self, view):
        return self.action


def _oracle(loaded, say: str | None = None):
    steps = loaded.task.solution
    if say is not None:
        steps = [*(s for s in steps if s.tool is not None), Step.model_validate({"say": say})]
    return PlanAgent("baseline:oracle", steps)


# -- the engine and the record ------------------------------------------------------------


@pytest.mark.parametrize(
    ("action", "verdict", "reason", "end_reason"),
    [
        (Satisfied("thanks"), "satisfied", None, "the user is satisfied"),
        (NotSatisfied("TRK-7 is the broken truck"), "not_satisfied", "TRK-7 is the broken truck", None),
        (GaveUp("no time", "bye"), "gave_up", "no time", "the user gave up: no time"),
    ],
)
def test_the_verdict_is_recorded_beside_the_checklist_and_rebuilds(db_url, action, verdict, reason, end_reason):
    loaded = load_task(STT)
    store = Store(db_url)
    eid, result = asyncio.run(run_recorded(store, loaded, _oracle(loaded, WRONG), Ends(action)))
    expected = {"verdict": verdict, "reason": reason, "by": "baseline:ends"}
    record = store.episode(eid)
    assert record.scores["user_verdict"] == expected == result.user_verdict
    assert record.end_reason == (end_reason or "the user is not satisfied: TRK-7 is the broken truck")
    assert record.outcome["passed"] is False  # the checklist decides pass or fail, the verdict sits beside it
    events = store.events(eid)
    ended = next(e for e in events if e.type == "episode_ended")
    assert ended.payload["user_verdict"] == expected and ended.payload["by"] == "user"
    # the light rows listings and reports read carry it, out of the JSON by the database
    (summary,) = store.summaries(review=False)
    assert summary.scores["user_verdict"]["verdict"] == verdict
    # a rebuild replays the same ending
    assert actions_of("stt", events)[-1] == ("baseline:ends", action)
    assert rebuild(loaded, record, events).matches


def test_an_old_record_ended_satisfied_without_a_verdict_still_rebuilds(tmp_path):
    loaded = load_task(STT)
    store = Store(f"sqlite:///{tmp_path / 'old.db'}")
    eid, _ = asyncio.run(run_recorded(store, loaded, _oracle(loaded), ScriptedUser()))
    events = store.events(eid)
    for e in events:  # as recorded before verdicts were kept
        if e.type == "episode_ended":
            e.payload.pop("user_verdict")
    assert actions_of("stt", events)[-1][1] == Satisfied("Thanks, that's everything I needed.")
    assert rebuild(loaded, store.episode(eid), events).matches


def test_the_scripted_users_verdict_on_an_episode_the_agent_ended(db_url):
    loaded = load_task(STT)
    store = Store(db_url)
    eid, _ = asyncio.run(run_recorded(store, loaded, _oracle(loaded, WRONG), ScriptedUser()))
    events = store.events(eid)
    assert events[-2].type == "episode_ended" and events[-2].payload["by"] == "agent"
    given = events[-1]
    assert given.type == verdicts.EVENT and given.actor == ScriptedUser.name
    expected = {"verdict": "not_satisfied", "reason": "My app shows TRK-9, not TRK-7.", "by": ScriptedUser.name}
    assert given.payload == expected == store.episode(eid).scores["user_verdict"]
    assert rebuild(loaded, store.episode(eid), events).matches  # (not an engine event: nothing to replay)


def test_a_verdict_is_given_once_and_only_after_the_end():
    from sttui.core.episode import ProtocolError
    from sttui.running.runner import open_episode

    ep = open_episode(load_task(STT), None, {"agent": "a", "user": "u"})
    ep.start()
    with pytest.raises(ProtocolError):
        ep.give_user_verdict(verdicts.verdict("satisfied", None, "u"))
    with pytest.raises(ValueError, match="one of satisfied, not_satisfied, gave_up"):
        verdicts.verdict("happy", None, "u")
    ep.apply(EndEpisode("done"))
    ep.give_user_verdict(verdicts.verdict("satisfied", None, "u"))
    with pytest.raises(ProtocolError):
        ep.give_user_verdict(verdicts.verdict("gave_up", None, "u"))


# -- sessions and report ------------------------------------------------------------------


@pytest.fixture
def recorded(tmp_path):
    """Three insulin episodes: the oracle with the scripted user (passed, satisfied), a wrong
    report the scripted user rejects (failed, not satisfied), and a person-like user satisfied
    by the wrong report (failed, satisfied: user and checklist disagree)."""
    db = f"sqlite:///{tmp_path / 'v.db'}"
    loaded = load_task(STT)
    store = Store(db)
    for agent, user in (
        (_oracle(loaded), ScriptedUser()),
        (_oracle(loaded, WRONG), ScriptedUser()),
        (_oracle(loaded, WRONG), Ends(Satisfied(""), "baseline:gullible")),
    ):
        asyncio.run(run_recorded(store, loaded, agent, user))
    store.close()
    return db


def test_sessions_show_the_user_verdict(recorded):
    out = cli(recorded, "sessions")
    assert out.exit_code == 0, out.output
    header, *rows = out.output.splitlines()
    assert "user verdict" in header
    assert sorted(next(v for v in ("not satisfied", "satisfied") if v in row) for row in rows[1:4]) == [
        "not satisfied",
        "satisfied",
        "satisfied",
    ]
    records = json.loads(cli(recorded, "sessions", "--json").output)
    assert sorted((r["user_verdict"]["verdict"], r["outcome"]["passed"]) for r in records) == [
        ("not_satisfied", False),
        ("satisfied", False),
        ("satisfied", True),
    ]


def test_report_shows_the_share_satisfied_and_the_disagreements(recorded):
    result = json.loads(cli(recorded, "report", "--json").output)
    row = next(r for r in result["controllers"] if r["controller"] == "baseline:oracle")
    assert row["user_verdicts"] == 3
    assert row["user_satisfied"] == pytest.approx(2 / 3)
    assert row["user_checklist_disagree"] == 1 and row["satisfied_but_failed"] == 1
    assert row["unsatisfied_but_passed"] == 0
    text = cli(recorded, "report").output
    assert "user satisfied" in text and "66.7% of 3, 1 disagree" in text


# -- a person in the user seat ------------------------------------------------------------


async def _at_the_users_turn(pilot):
    screen = await open_play(pilot, STT, "user", "UserSimScreen")
    await pilot.press("f5")
    await wait_for(pilot, lambda: screen.episode.turn == "user" and screen.human.waiting)
    return screen


@pytest.mark.parametrize(
    ("keys", "reason", "verdict", "end_reason"),
    [
        (("ctrl+s", "y"), None, "satisfied", "the user is satisfied"),
        (("ctrl+n",), "the van is wrong", "not_satisfied", "the user is not satisfied: the van is wrong"),
        (("ctrl+g",), "", "gave_up", "the user gave up"),
    ],
)
async def test_the_three_endings_of_the_user_seat(tmp_path, keys, reason, verdict, end_reason):
    from sttui.tui.app import SttuiApp

    db = f"sqlite:///{tmp_path / 'seat.db'}"
    async with SttuiApp(Launch.build(ROOT / "tasks", db_url=db, human="ana")).run_test(size=(120, 40)) as pilot:
        screen = await _at_the_users_turn(pilot)
        await pilot.press(*keys)
        if reason is not None:
            await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "EditValue")
            await type_text(pilot, reason)
            await pilot.press("enter")
        await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "EndScreen")
        title = str(pilot.app.screen.query_one("#end-title", Static).render())
        user_line = str(pilot.app.screen.query_one("#end-user", Static).render())
        screen.session.writer.flush()
    assert end_reason in title
    if verdict != "satisfied":
        assert "the user is satisfied" not in title
    assert user_line.startswith(f"user verdict: {verdicts.LABELS[verdict]}") and "by human:ana" in user_line
    record = Store(db).list_episodes()[0]
    assert record.end_reason == end_reason
    assert record.scores["user_verdict"] == {"verdict": verdict, "reason": reason or None, "by": "human:ana"}


async def test_not_satisfied_needs_a_reason_and_escape_goes_back(tmp_path):
    from sttui.tui.app import SttuiApp

    db = f"sqlite:///{tmp_path / 'seat.db'}"
    async with SttuiApp(Launch.build(ROOT / "tasks", db_url=db, human="ana")).run_test(size=(120, 40)) as pilot:
        screen = await _at_the_users_turn(pilot)
        await pilot.press("ctrl+n")
        await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "EditValue")
        await pilot.press("enter")  # no reason: refused, the dialog stays
        await pilot.pause()
        assert "say why" in str(pilot.app.screen.query_one("#edit-error", Static).render())
        await pilot.press("escape")
        await wait_for(pilot, lambda: pilot.app.screen is screen)
        assert screen.episode.ended is None and screen.human.waiting
        footer = footer_text(pilot.app)
        assert "Satisfied" in footer and "Not satisfied" in footer and "Give up" in footer


async def test_the_palette_offers_the_three_endings(tmp_path):
    from sttui.tui.app import SttuiApp, binding_commands

    db = f"sqlite:///{tmp_path / 'seat.db'}"
    async with SttuiApp(Launch.build(ROOT / "tasks", db_url=db, human="ana")).run_test(size=(120, 40)) as pilot:
        screen = await open_play(pilot, STT, "user", "UserSimScreen")
        commands = {c.title: c.help for c in binding_commands(screen)}
    assert commands["Satisfied"].endswith("usersim.satisfied")
    assert commands["Not satisfied"].endswith("usersim.not_satisfied")
    assert commands["Give up"].endswith("usersim.gave_up")


async def test_a_reason_with_markup_is_shown_as_typed(tmp_path):
    from sttui.tui.app import SttuiApp

    db = f"sqlite:///{tmp_path / 'seat.db'}"
    async with SttuiApp(Launch.build(ROOT / "tasks", db_url=db, human="ana")).run_test(size=(120, 40)) as pilot:
        screen = await _at_the_users_turn(pilot)
        await pilot.press("ctrl+n")
        await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "EditValue")
        pilot.app.screen.query_one("#value", Input).value = "[b]TRK-7[/b] is [red wrong"
        await pilot.press("enter")
        await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "EndScreen")
        title = str(pilot.app.screen.query_one("#end-title", Static).render())
        screen.session.writer.flush()
    assert "[b]TRK-7[/b] is [red wrong" in title


def test_a_refined_run_replays_the_persons_ending(tmp_path):
    """A person's recorded ending (not satisfied, with the reason) is played back as it was."""
    from sttui.lineage.refining import user_for

    loaded = load_task(STT)
    store = Store(f"sqlite:///{tmp_path / 'r.db'}")
    ending = NotSatisfied("wrong truck", "no")
    eid, _ = asyncio.run(run_recorded(store, loaded, _oracle(loaded, WRONG), Ends(ending, "human:ana")))
    user = user_for(store.episode(eid), store.events(eid))
    assert asyncio.run(user.act(None)) == ending
