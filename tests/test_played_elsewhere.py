"""One episode open in two sessions at once (a participant's second terminal, a resume while it is
still being played): the session whose next event finds its place taken stops, writing nothing
more, and says why; the record stays whole and the episode is left running for the other, never
marked errored (which had counted a study task as done under the one still playing it)."""

from __future__ import annotations

import asyncio

import pytest

from sttui.config import Config
from sttui.core.events import Event
from sttui.store.store import Store
from sttui.store.writer import PLAYED_ELSEWHERE, WriteFailed, Writer, mark_unrecorded, played_elsewhere
from sttui.study.sitting import next_sitting
from sttui.tui.study import StudyApp
from tests.test_study_join import screen_name, setup
from tests.tui_helpers import type_text, wait_for


def _event(seq: int, who: str) -> Event:
    return Event(seq, "note", who, {"i": seq}, "")


def test_the_second_writer_of_an_episodes_next_step_stops_and_leaves_it_running(db_url, stt_task):
    first, second = Store(db_url), Store(db_url)  # two processes' connections to one record
    eid = first.create_episode(stt_task, 0, "human:ana", None)
    mine, theirs = Writer(first), Writer(second)

    async def go() -> None:
        await mine.durable(mine.submit_event(eid, _event(1, "here")), eid)
        await theirs.durable(theirs.submit_event(eid, _event(2, "there")), eid)  # the other session's step
        with pytest.raises(WriteFailed):
            await mine.durable(mine.submit_event(eid, _event(2, "here")), eid)

    try:
        asyncio.run(go())
        assert played_elsewhere(mine.failed[eid]) and PLAYED_ELSEWHERE in mine.failed[eid]
        assert mark_unrecorded(first, dict(mine.failed)) == set()
        assert first.episode(eid).status == "running"
        assert [(e.seq, e.actor) for e in first.events(eid)] == [(1, "here"), (2, "there")]
        # a write refused for another reason is still marked errored
        assert not played_elsewhere("recording failed: the record refused the write: NOT NULL constraint failed")
    finally:
        mine.close()
        theirs.close()
        first.close()
        second.close()


async def test_a_participant_in_two_terminals_goes_on_in_one_and_the_other_stops(tmp_path):
    db, store = setup(tmp_path)
    here = StudyApp(db, next_sitting(store, "pilot", "ana"), Config())
    async with here.run_test(size=(80, 24)) as a:
        await wait_for(a, lambda: screen_name(a) == "StudyIntro")
        await a.press("ctrl+s")
        await wait_for(a, lambda: screen_name(a) == "PlayScreen")
        episode_id = a.app.screen.session.episode_id
        await a.press("f5")
        again = next_sitting(store, "pilot", "ana")  # the same participant joins in a second terminal
        assert again.assignment.resume and again.assignment.episode_id == episode_id
        there = StudyApp(db, again, Config())
        async with there.run_test(size=(80, 24)) as b:
            await wait_for(b, lambda: screen_name(b) == "PlayScreen")
            await b.press("f5")
            await type_text(b, "get_inventory(site_id=PHARMA-HUB-DOCKLANDS)")
            await b.press("enter")
            await wait_for(b, lambda: b.app.screen.session.episode.steps == 1)
            await type_text(a, "get_vehicle_status(vehicle_id=TRK-12)")  # the first terminal goes on too
            await a.press("enter")
            await wait_for(a, lambda: screen_name(a) == "StudyHome")
            shown = str(a.app.screen.query_one("#study-status").render())
            assert "open in another window or session" in shown
            assert any(n.title == "Played elsewhere" for n in a.app._notifications)
            assert a.app.record_failures == []
            await b.pause()
            assert screen_name(b) == "PlayScreen" and not b.app.screen.session.episode.ended
        record = store.episode(episode_id)
        assert record.status == "running"  # the second terminal's to finish: not errored, not done
        calls = [e.payload["tool"] for e in store.events(episode_id) if e.type == "tool_call"]
        assert calls == ["get_inventory"]  # the record is whole: the refused step left nothing
