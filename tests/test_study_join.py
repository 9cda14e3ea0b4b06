"""`sttui study join`: a participant lands on their next assigned task's play screen with the
clock paused, after acknowledging the instructions once; a closed session resumes the same
episode; the study's time limit warns, then ends the episode as ``limit``."""

from __future__ import annotations

from pathlib import Path

from sttui.config import Config
from sttui.store.store import Store
from sttui.store.studies import Studies
from sttui.study.running import start
from sttui.study.sitting import Sitting, next_sitting
from sttui.tui.study import StudyApp
from tests.conftest import ROOT
from tests.tui_helpers import wait_for

TASKS = ROOT / "tasks"
STUDY = """\
study: 1
id: pilot
tasks: [clinic-dialysis-urgent-t2-easy, logistics-insulin-reefer-st2-easy]
replication: 1
participants: [ana]
practice: [logistics-pembrolizumab-goods-in-t1-easy]
instructions: |
  # How this works
  Play the **agent** seat. Press F5 to start the clock.
consent: Your episodes are kept for research.
"""


def setup(tmp_path: Path, text: str = STUDY) -> tuple[str, Store]:
    db = f"sqlite:///{tmp_path / 'study.db'}"
    path = tmp_path / "study.yaml"
    path.write_text(text, encoding="utf-8")
    store = Store(db)
    start(store, path, TASKS)
    return db, store


def screen_name(pilot) -> str:
    return type(pilot.app.screen).__name__


async def intro_shown(pilot) -> None:
    """Until the intro is up with its words loaded: a Markdown widget takes its text on mount,
    a round after the screen itself, so under load ``source`` can still be empty."""
    await wait_for(pilot, lambda: screen_name(pilot) == "StudyIntro")
    await wait_for(pilot, lambda: all(md.source for md in pilot.app.screen.query("Markdown")))


async def test_a_participant_acknowledges_then_lands_on_the_practice_task_paused(tmp_path):
    db, store = setup(tmp_path)
    sitting = next_sitting(store, "pilot", "ana")
    assert isinstance(sitting, Sitting)
    app = StudyApp(db, sitting, Config())
    async with app.run_test(size=(80, 24)) as pilot:
        await intro_shown(pilot)
        shown = pilot.app.screen.query_one("#study-instructions").source
        assert "Play the **agent** seat" in shown
        assert "research" in pilot.app.screen.query_one("#study-consent").source
        assert "Next: a practice task (not scored)" in str(pilot.app.screen.query_one("#study-next").render())
        from sttui.prompts import prompt  # the rules a model in the seat is given, word for word

        assert pilot.app.screen.query_one("#study-rules").source == prompt("agent_stt.md")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: screen_name(pilot) == "PlayScreen")
        play = pilot.app.screen
        assert play.session.loaded.id == "logistics-pembrolizumab-goods-in-t1-easy"
        assert play.session.episode_id == sitting.assignment.episode_id  # linked to the slot
        assert play.session.clock is not None and not play.session.clock.running
        await wait_for(pilot, lambda: Studies(store).people("pilot")[0].acknowledged_at is not None)
        await pilot.press("escape")
        await wait_for(pilot, lambda: screen_name(pilot) == "LeaveDialog")
        await pilot.press("s")
        await wait_for(pilot, lambda: screen_name(pilot) == "StudyHome")
    # the terminal closed: the next join resumes the same episode, without the instructions again
    again = next_sitting(store, "pilot", "ana")
    assert isinstance(again, Sitting)
    assert (again.assignment.episode_id, again.assignment.resume, again.assignment.acknowledged) == (
        sitting.assignment.episode_id,
        True,
        True,
    )
    app = StudyApp(db, again, Config())
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: screen_name(pilot) == "PlayScreen")
        assert pilot.app.screen.session.episode_id == sitting.assignment.episode_id
        assert not pilot.app.screen.session.clock.running


async def test_leaving_at_the_instructions_records_nothing(tmp_path):
    db, store = setup(tmp_path)
    sitting = next_sitting(store, "pilot", "ana")
    app = StudyApp(db, sitting, Config())
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: screen_name(pilot) == "StudyIntro")
        await pilot.press("escape")
        await wait_for(pilot, lambda: not app.is_running)
    assert store.list_episodes() == []
    assert Studies(store).people("pilot")[0].acknowledged_at is None


async def test_the_time_limit_warns_then_ends_the_episode_as_limit(tmp_path):
    text = STUDY.replace("practice: [logistics-pembrolizumab-goods-in-t1-easy]\n", "") + (
        "time_limit: {minutes: 0.05, warn_at: 0.02}\n"
    )
    db, store = setup(tmp_path, text)
    sitting = next_sitting(store, "pilot", "ana")
    app = StudyApp(db, sitting, Config())
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: screen_name(pilot) == "StudyIntro")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: screen_name(pilot) == "PlayScreen")
        session = pilot.app.screen.session
        await pilot.pause(1.5)
        assert session.episode.ended is None  # paused: no time is used before F5
        await pilot.press("f5")
        await wait_for(pilot, lambda: screen_name(pilot) == "EndScreen", timeout=20)
        # (the end screen filled in: leaving while it opens closed the app under its mount)
        await wait_for(pilot, lambda: bool(pilot.app.screen.query("#end-stats")))
        # the outcome is the researcher's: no verdict, checklist or title to learn from
        end = pilot.app.screen
        assert "This task has ended" in str(end.query_one("#end-title").render())
        assert not end.query("#checklist") and not end.query("#end-review")
    record = store.episode(sitting.assignment.episode_id)
    assert record.status == "completed" and record.end_reason == "time limit of 0.05 minutes reached"
    types = [e.type for e in store.events(record.id)]
    assert types.index("time_warning") < types.index("episode_ended")
    from sttui.exports.versions import load_version
    from sttui.running.recording import rebuild

    again = rebuild(load_version(store, record), record, store.events(record.id))
    assert again.matches, again.mismatch  # the limit is replayed as recorded
    nxt = next_sitting(store, "pilot", "ana")  # the limit counts as done: the next task
    assert isinstance(nxt, Sitting) and nxt.assignment.slot["position"] == 1
    from sttui.study.progress import progress
    from sttui.study.running import stored_study

    found = progress(stored_study(store, "pilot")[0], Studies(store).people("pilot"), Studies(store).slots("pilot"))
    assert found["participants"][0]["outcomes"] == {"limit": 1}


async def test_a_study_in_the_user_seat_opens_the_user_screen_paused(tmp_path):
    text = STUDY.replace("practice: [logistics-pembrolizumab-goods-in-t1-easy]\n", "").replace(
        "replication: 1\n", "replication: 1\nseat: user\n"
    )
    db, store = setup(tmp_path, text)
    Studies(store).acknowledge("pilot", "ana")
    sitting = next_sitting(store, "pilot", "ana")
    assert isinstance(sitting, Sitting) and sitting.plan.seat == "user"
    app = StudyApp(db, sitting, Config())
    async with app.run_test(size=(80, 24)) as pilot:
        # acknowledged before: no intro; mounted (its episode started) before the app is left
        await wait_for(pilot, lambda: screen_name(pilot) == "UserSimScreen" and pilot.app.screen.is_mounted)
        session = pilot.app.screen.session
        assert session.episode_id == sitting.assignment.episode_id
        assert session.user.name == "human:ana" and session.agent.name == "baseline:oracle"
        assert not session.clock.running
        # a mount handled after the screen's children went (the app quitting at once) is no crash
        screen = pilot.app.screen
        listeners = len(session.listeners)
        await screen.query_one("#debug-pane").remove()
        screen.start_episode("#reply")
        assert len(session.listeners) == listeners  # nothing started twice


async def test_back_between_tasks_the_participant_withdraws_and_their_episode_is_kept(tmp_path):
    db, store = setup(tmp_path)
    Studies(store).acknowledge("pilot", "ana")
    sitting = next_sitting(store, "pilot", "ana")
    app = StudyApp(db, sitting, Config())
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: screen_name(pilot) == "PlayScreen")
        await pilot.press("escape")
        await wait_for(pilot, lambda: screen_name(pilot) == "LeaveDialog")
        told = str(pilot.app.screen.query_one(".muted").render())
        # a participant never sees home: the dialog and the notice send them to the study's screen
        assert "study's screen" in told and "Sessions tab" not in told
        await pilot.press("s")
        await wait_for(pilot, lambda: screen_name(pilot) == "StudyHome")
        assert any("study's screen" in str(n.message) for n in app._notifications)
        status = pilot.app.screen.query_one("#study-status")
        await wait_for(pilot, lambda: "Your task stays open" in str(status.render()))
        await pilot.press("w")
        await wait_for(pilot, lambda: screen_name(pilot) == "Confirm")
        await pilot.press("y")
        await wait_for(pilot, lambda: app.phase == "withdrawn")
        assert "You have withdrawn" in str(status.render())
        await pilot.press("enter")  # no more tasks
        await pilot.pause(0.3)
        assert screen_name(pilot) == "StudyHome"
    person = Studies(store).people("pilot")[0]
    assert person.status == "withdrawn"
    assert store.episode(sitting.assignment.episode_id).status == "running"  # kept as it was left
    assert {s.status for s in Studies(store).slots("pilot")} == {"withdrawn"}


async def test_two_enters_on_their_way_at_once_take_one_turn(tmp_path):
    from textual.widgets import Input

    db, store = setup(tmp_path, STUDY.replace("practice: [logistics-pembrolizumab-goods-in-t1-easy]\n", ""))
    Studies(store).acknowledge("pilot", "ana")
    sitting = next_sitting(store, "pilot", "ana")
    app = StudyApp(db, sitting, Config())
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: screen_name(pilot) == "PlayScreen")
        screen = pilot.app.screen
        await pilot.press("f5")
        await wait_for(pilot, lambda: screen.human.waiting)
        entry = screen.query_one("#entry", Input)
        entry.value = "get_patient(patient_id=P-CLARKE)"
        for _ in range(2):  # as a slow link delivers a doubled Enter: both before either is handled
            entry.post_message(Input.Submitted(entry, entry.value))
        await wait_for(pilot, lambda: screen.human.waiting)
        await pilot.pause(0.3)
        episode_id = screen.session.episode_id
    calls = [e for e in store.events(episode_id) if e.type == "tool_call"]
    assert len(calls) == 1


async def test_a_participant_plays_alone_no_god_view_no_model_in_the_seat(tmp_path):
    db, store = setup(tmp_path, STUDY.replace("practice: [logistics-pembrolizumab-goods-in-t1-easy]\n", ""))
    Studies(store).acknowledge("pilot", "ana")
    app = StudyApp(db, next_sitting(store, "pilot", "ana"), Config())
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: screen_name(pilot) == "PlayScreen")
        play = pilot.app.screen
        await pilot.press("f5")
        for key in ("f2", "f10", "f7"):  # god view, hand the seat to a model, oversight
            await pilot.press(key)
            await pilot.pause(0.2)
            assert screen_name(pilot) == "PlayScreen", key
        assert not play.session.peeked and not play.session.handed and not play.god
        # nor through the command palette, which runs the same actions
        assert [play.check_action(a, ()) for a in ("god_view", "hand_to_model", "toggle_oversight")] == [False] * 3
        events = [e.type for e in store.events(play.session.episode_id)]
        assert "god_view" not in events and "seat_changed" not in events


async def end_it_and_go_back(pilot, try_replay: bool = False):
    """Start the clock, end the task (F8, yes), and escape from its end screen to the study's
    screen, which the footer and the hint name (``try_replay``: r first, which a participant is
    not offered: the replay shows the state and the silent triggers); the study's status, once
    it tells the task done."""
    await pilot.press("f5", "f8")
    await wait_for(pilot, lambda: screen_name(pilot) == "Confirm")
    await pilot.press("y")
    await wait_for(pilot, lambda: screen_name(pilot) == "EndScreen", timeout=30)
    # escape leads to the study's screen, never home: the footer and the hint say so
    assert pilot.app.screen.active_bindings["escape"].binding.description == "Study"
    hints = [str(w.render()) for w in pilot.app.screen.query("Static.muted")]
    assert any("escape goes back to the study." in h for h in hints), hints
    if try_replay:
        assert "r" not in pilot.app.screen.active_bindings or not pilot.app.screen.check_action("replay", ())
        await pilot.press("r")
        await pilot.pause()
        assert screen_name(pilot) == "EndScreen"
    await pilot.press("escape")
    await wait_for(pilot, lambda: screen_name(pilot) == "StudyHome")
    status = pilot.app.screen.query_one("#study-status")
    await wait_for(pilot, lambda: "Task done" in str(status.render()))
    return status


async def test_after_the_practice_task_the_study_says_how_far_the_scored_tasks_are(tmp_path):
    db, store = setup(tmp_path)
    Studies(store).acknowledge("pilot", "ana")
    app = StudyApp(db, next_sitting(store, "pilot", "ana"), Config(), study_id="pilot", name="ana")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: screen_name(pilot) == "PlayScreen")
        assert pilot.app.screen.session.loaded.id == "logistics-pembrolizumab-goods-in-t1-easy"
        await pilot.press("f5", "f8")
        await wait_for(pilot, lambda: screen_name(pilot) == "Confirm")
        await pilot.press("y")
        await wait_for(pilot, lambda: screen_name(pilot) == "EndScreen", timeout=30)
        await pilot.press("escape")
        await wait_for(pilot, lambda: screen_name(pilot) == "StudyHome")
        status = pilot.app.screen.query_one("#study-status")
        await wait_for(pilot, lambda: "Practice task done" in str(status.render()))
        assert "Scored tasks done: 0 of 2." in str(status.render())


async def test_a_break_is_offered_between_tasks_when_due(tmp_path):
    text = (
        STUDY.replace("practice: [logistics-pembrolizumab-goods-in-t1-easy]\n", "") + "breaks: {every: 1, minutes: 3}\n"
    )
    db, store = setup(tmp_path, text)
    Studies(store).acknowledge("pilot", "ana")
    app = StudyApp(db, next_sitting(store, "pilot", "ana"), Config(), study_id="pilot", name="ana")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: screen_name(pilot) == "PlayScreen")
        first = pilot.app.screen.session.episode_id
        status = await end_it_and_go_back(pilot)
        assert "Task done: 1 of 2 scored." in str(status.render())
        assert "Time for a break of about 3 minutes" in str(status.render())
        await pilot.press("enter")  # the next task, the same workbench
        await wait_for(pilot, lambda: screen_name(pilot) == "PlayScreen", timeout=30)
        assert pilot.app.screen.session.episode_id != first
        assert pilot.app.screen.session.loaded.id == "logistics-insulin-reefer-st2-easy"


async def test_after_the_last_task_the_study_screen_thanks_them_and_offers_no_next_task(tmp_path):
    text = STUDY.replace("practice: [logistics-pembrolizumab-goods-in-t1-easy]\n", "").replace(
        "tasks: [clinic-dialysis-urgent-t2-easy, logistics-insulin-reefer-st2-easy]",
        "tasks: [clinic-dialysis-urgent-t2-easy]",
    )
    db, store = setup(tmp_path, text)
    Studies(store).acknowledge("pilot", "ana")
    app = StudyApp(db, next_sitting(store, "pilot", "ana"), Config(), study_id="pilot", name="ana")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: screen_name(pilot) == "PlayScreen")
        status = await end_it_and_go_back(pilot, try_replay=True)
        assert "Task done: 1 of 1 scored." in str(status.render())
        assert "That was your last task of study pilot. Thank you!" in str(status.render())
        assert str(pilot.app.screen.query_one("#study-keys").render()) == "w: withdraw from the study  ·  ctrl+q: leave"
        bindings = pilot.app.screen.active_bindings
        assert "enter" not in bindings or not bindings["enter"].enabled
        assert bindings["w"].enabled  # one who finished may still take their data out
        await pilot.press("enter")  # nothing is next
        await pilot.pause(0.3)
        assert screen_name(pilot) == "StudyHome" and "Thank you!" in str(status.render())
        await pilot.press("w")  # one who finished may still withdraw
        await wait_for(pilot, lambda: screen_name(pilot) == "Confirm")
        await pilot.press("y")
        await wait_for(pilot, lambda: "You have withdrawn" in str(status.render()))
    assert Studies(store).people("pilot")[0].status == "withdrawn"


async def test_one_who_joins_by_token_with_every_task_done_may_still_withdraw(tmp_path):
    """An anonymous participant whose tasks are all done joins again by their token: the study's
    screen thanks them, and w withdraws them (their name is known only from the finished study)."""
    text = STUDY.replace("practice: [logistics-pembrolizumab-goods-in-t1-easy]\n", "")
    text = text.replace(
        "tasks: [clinic-dialysis-urgent-t2-easy, logistics-insulin-reefer-st2-easy]",
        "tasks: [clinic-dialysis-urgent-t2-easy]",
    )
    text = text.replace("participants: [ana]", "participants: {anonymous: 1}")
    db = f"sqlite:///{tmp_path / 'study.db'}"
    (tmp_path / "study.yaml").write_text(text, encoding="utf-8")
    store = Store(db)
    [token] = start(store, tmp_path / "study.yaml", TASKS).tokens.values()
    app = StudyApp(db, None, Config(), study_id="pilot", token=token)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: screen_name(pilot) == "StudyIntro", timeout=30)
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: screen_name(pilot) == "PlayScreen", timeout=30)
        await end_it_and_go_back(pilot)
    again = StudyApp(db, None, Config(), study_id="pilot", token=token)
    async with again.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: again.phase == "done", timeout=30)
        status = pilot.app.screen.query_one("#study-status")
        assert "are done. Thank you!" in str(status.render())
        await pilot.press("w")
        await wait_for(pilot, lambda: screen_name(pilot) == "Confirm")
        await pilot.press("y")
        await wait_for(pilot, lambda: "You have withdrawn" in str(status.render()))
    assert Studies(store).people("pilot")[0].status == "withdrawn"


async def test_a_browser_session_shows_why_it_cannot_go_on(tmp_path):
    db, store = setup(tmp_path)
    app = StudyApp(db, None, Config(), study_id="pilot", name="zed")  # as serve-session starts it
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.phase == "problem")
        shown = str(pilot.app.screen.query_one("#study-status").render())
        assert "Cannot go on: 'zed' is not a participant of study 'pilot'; its participants are: ana" in shown
    assert store.list_episodes() == []


async def test_long_instructions_scroll_at_80x24_with_the_buttons_in_sight_and_enter_agrees_to_nothing(tmp_path):
    steps = "\n".join(f"  {i}. Step {i} of the instructions." for i in range(1, 13))
    db, store = setup(
        tmp_path, STUDY.replace("  Play the **agent** seat. Press F5 to start the clock.\n", steps + "\n")
    )
    app = StudyApp(db, next_sitting(store, "pilot", "ana"), Config())
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: screen_name(pilot) == "StudyIntro")
        intro = pilot.app.screen
        await pilot.pause()
        text = intro.query_one("#study-text")
        assert text.has_focus  # the keys scroll the text first
        button = intro.query_one("#study-ack")
        assert button.region.bottom <= 24 and button.region.height > 0  # in sight without scrolling
        assert text.max_scroll_y > 0  # longer than its room at 80×24
        await pilot.press("enter")  # agrees to nothing: the agreement is ctrl+s or the button
        await pilot.pause()
        assert screen_name(pilot) == "StudyIntro"
        for _ in range(4):
            await pilot.press("pagedown")
        await pilot.pause()
        assert text.scroll_y == text.max_scroll_y  # the last step reached by the keys
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: screen_name(pilot) == "PlayScreen")


TIMED = STUDY.replace("practice: [logistics-pembrolizumab-goods-in-t1-easy]\n", "") + (
    "time_limit: {minutes: 3, warn_at: 0.01}\n"
)


async def test_under_a_time_limit_the_task_is_out_of_sight_while_the_clock_stands(tmp_path):
    """Reading and thinking count as working time: before F5 and while paused the task is
    covered; the header shows the limit beside the clock, and not the simulated time or the
    step budget, which a model is not given; the palette offers no god view or model."""
    from sttui.tui.app import binding_commands
    from tests.tui_helpers import screen_text

    db, store = setup(tmp_path, TIMED)
    app = StudyApp(db, next_sitting(store, "pilot", "ana"), Config())
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: screen_name(pilot) == "StudyIntro")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: screen_name(pilot) == "PlayScreen")
        play = pilot.app.screen
        await wait_for(pilot, lambda: play.has_class("-covered"))
        await pilot.pause()
        opening = play.session.episode.messages[0]["text"]
        text = " ".join(screen_text(pilot.app))
        assert opening[:30] not in text and "F5 starts the clock" in text
        header = str(play.query_one("#status-bar").render())
        assert "00:00/03:00" in header and "step 0 " in header
        assert "sim " not in header and "/40" not in header
        titles = {c.title for c in binding_commands(play)}
        assert "God view" not in titles and "Clock" in titles
        await pilot.press("f5")
        await wait_for(pilot, lambda: not play.has_class("-covered"))
        await pilot.pause()
        assert opening[:30] in " ".join(screen_text(pilot.app))
        await wait_for(pilot, lambda: "time_warning" in [e.type for e in store.events(play.session.episode_id)])
        await pilot.press("f5")  # paused again: covered again
        await wait_for(pilot, lambda: play.has_class("-covered"))


def test_a_killed_sessions_working_time_counts_to_its_last_recorded_event():
    """No pause is recorded when the session is killed with the clock running: the time from
    the last start to the last event recorded after it still counts."""
    from sttui.core.events import Event
    from sttui.running.session import worked_before

    def ev(kind: str, at: float, **payload: float) -> Event:
        return Event(0, kind, "human:ana", dict(payload), "", at)

    paused = [ev("clock_started", 100.0, active_seconds=0), ev("clock_paused", 228.0, active_seconds=128.0)]
    assert worked_before(paused) == 128.0
    killed = [
        *paused,
        ev("clock_started", 300.0, active_seconds=128.0),
        ev("tool_call", 310.0),
        ev("tool_result", 312.0),
    ]
    assert worked_before(killed) == 140.0  # 128 s, and 12 s to the last call's result
    assert worked_before([*paused, ev("clock_started", 300.0, active_seconds=128.0)]) == 128.0
    assert worked_before([ev("tool_call", 5.0)]) == 0.0


async def test_a_time_warning_given_is_not_given_again_when_the_task_is_resumed(tmp_path):
    db, store = setup(tmp_path, TIMED)
    sitting = next_sitting(store, "pilot", "ana")
    for attempt in range(2):
        app = StudyApp(db, sitting if attempt == 0 else next_sitting(store, "pilot", "ana"), Config())
        async with app.run_test(size=(80, 24)) as pilot:
            if attempt == 0:
                await wait_for(pilot, lambda: screen_name(pilot) == "StudyIntro")
                await pilot.press("ctrl+s")
            await wait_for(pilot, lambda: screen_name(pilot) == "PlayScreen")
            await pilot.press("f5")
            eid = pilot.app.screen.session.episode_id
            if attempt == 0:
                await wait_for(pilot, lambda e=eid: "time_warning" in [x.type for x in store.events(e)])
            else:
                await pilot.pause(1.5)  # (the limit is checked each second)
            await pilot.press("f5")
    assert [e.type for e in store.events(eid)].count("time_warning") == 1


async def test_quitting_mid_task_in_a_study_says_how_to_come_back(tmp_path):
    """A participant never sees home: the quit question points them to the next join."""
    db, store = setup(tmp_path)
    app = StudyApp(db, next_sitting(store, "pilot", "ana"), Config())
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: screen_name(pilot) == "StudyIntro")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: screen_name(pilot) == "PlayScreen")
        await pilot.press("ctrl+q")
        await wait_for(pilot, lambda: screen_name(pilot) == "Confirm")
        asked = str(pilot.app.screen.query_one("#question").render())
        assert "joining the study again goes back to it" in asked and "home" not in asked
        await pilot.press("n")


async def test_the_study_files_words_are_shown_not_obeyed(tmp_path):
    """A title with markup's brackets and text with a mark that reorders a line (U+202E): the
    dialog shows them as written (the mark as its escape), its border whole."""
    text = STUDY.replace("id: pilot\n", "id: pilot\ntitle: 'Pilot [/] [b]\u202eevil'\n").replace(
        "consent: Your episodes", "consent: \u202eYour episodes"
    )
    db, store = setup(tmp_path, text)
    sitting = next_sitting(store, "pilot", "ana")
    assert isinstance(sitting, Sitting)
    async with StudyApp(db, sitting, Config()).run_test(size=(80, 24)) as pilot:
        await intro_shown(pilot)
        screen = pilot.app.screen
        assert str(screen.query_one("#study-title").render()) == "Pilot [/] [b]\\u202eevil"
        assert screen.query_one("#study-consent").source.endswith("\\u202eYour episodes are kept for research.")
