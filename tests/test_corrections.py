"""A correction within a message decides (``core.corrections``): "… on FB-7. Correction: FB-2,
not FB-7." and "… Sorry, I meant FB-2." had passed, the message stating the expected value."""

from __future__ import annotations

from pathlib import Path

import pytest

from sttui.core.checklist import score
from sttui.core.corrections import correcting
from tests.conftest import ROOT
from tests.helpers.played import played
from tests.test_reports_as_typed import _last_report, _play

HARBOUR = Path(__file__).parent / "fixtures" / "heldout" / "harbour" / "rhona-off-sick-st2-hard.yaml"
BERGEN = ROOT / "tasks" / "stt" / "air-travel" / "bergen-reaccommodation-t2-hard.yaml"
RHONA = "harbour-rhona-off-sick-st2-hard"
REPORT = "Rhona is off sick, so SAIL-301 goes on FB-7 with Morag Sinclair from North Pier at 11:20."


@pytest.mark.parametrize(
    ("text", "corrects"),
    [
        ("Correction: VAN-2, not VAN-5.", True),
        ("typo - 14:20", True),
        ("Sorry, I meant VAN-2.", True),
        ("What I meant was VAN-2.", True),
        ("I should have said 14:20.", True),
        ("That should read 14:20.", True),
        ("Sorry, make that 14:20.", True),
        ("Make that 14:20 please.", True),
        ("Actually, it's VAN-2.", True),
        ("Scratch that, VAN-2 has it.", True),
        ("Or rather, VAN-2.", True),
        ("I meant to say thanks for waiting.", False),
        ("If I meant VAN-2 you would know.", False),
        ("Not sure I meant that.", False),
        ("That should be fine for his 16:00 bus.", False),
        ("I'll make that call at 14:00.", False),
        ("It's actually VAN-5.", False),
        ("Update: it's now on VAN-2.", True),
        ("Change of plan: VAN-2 instead.", True),
        ("It went on VAN-2 in the end.", True),
        ("VAN-5 fell through, so it's on VAN-2.", True),
        ("That got pushed back to 14:20.", True),
        ("She's been moved to 14:20.", True),
        ("Sorry for the typo above, it is 14:00.", False),
        # a slip put right within a sentence: "sorry" and a figure after it
        ("It's on VAN-5, sorry, VAN-2.", True),
        ("Sorry, it has been a long day.", False),
        # … or a name put right by a name, each word opening with a capital
        ("It's at Northgate, sorry, Riverside.", True),
        ("She's in West Room 1, sorry, East Room 1.", True),
        ("It's at Northgate, sorry, the line was bad.", False),
        ("Thanks, sorry, Riverside is shut.", False),
        # … as people put one right (each had passed, the value before it stated): "wait, no",
        # "my mistake", "I misspoke", "on second thought", "strike that", "actually" opening a
        # sentence that puts it somewhere, and a figure put right by one of its form
        ("Wait, no: VAN-2.", True),
        ("No wait, it was VAN-2.", True),
        ("My mistake, it's VAN-2.", True),
        ("I misspoke - VAN-2.", True),
        ("Let me correct that: VAN-2.", True),
        ("Strike that - VAN-2.", True),
        ("Ignore that, VAN-2.", True),
        ("On second thought, VAN-2.", True),
        ("Actually it's VAN-2.", True),
        ("Actually, they went on VAN-2.", True),
        ("Actually VAN-2 took them.", True),
        ("It's on VAN-5 - no, VAN-2.", True),
        ("It's on VAN-5, er, VAN-2.", True),
        ("It's on VAN-5 (I mean VAN-2).", True),
        ("Actually, VAN-2 is back in service.", False),
        ("Actually the clinic was thrilled.", False),
        ("Don't forget that VAN-2 is on standby.", False),
        ("Delivered at 14:00 - no, VAN-2 wasn't needed.", False),  # (a time is not put right by a code)
    ],
)
def test_what_opens_a_correction(text, corrects):
    assert bool(correcting(f"VAN-5 takes it at 14:00. {text}")) is corrects


@pytest.mark.parametrize(
    ("added", "passes", "user"),
    [
        (" Correction: FB-2, not FB-7.", False, "My app shows FB-7, not FB-2."),
        (" Sorry, I meant FB-2.", False, "My app shows FB-7, not FB-2."),
        (" Oops, make that 11:40.", False, "my app shows 11:20, not 11:40"),
        (" Update: it's now on FB-2.", False, "My app shows FB-7, not FB-2."),
        (" Change of plan: FB-2 instead.", False, None),
        (" FB-7 fell through, so it's on FB-2.", False, None),
        (" It went on FB-2 in the end.", False, None),
        (" That got pushed back to 11:40.", False, None),
        (" FB-2 was my first choice.", True, None),
        (" FB-2 is on standby.", True, None),
        (" FB-2 is on hold.", True, None),
        (" FB-2 wasn't needed in the end.", True, None),  # (an id the change gives must be placed)
        (" I meant to say: thanks for your patience.", True, None),
        (" That should be fine for the 11:00 briefing.", True, None),
    ],
)
def test_a_correction_at_the_end_of_a_report_decides_and_the_user_says_what_its_app_shows(added, passes, user):
    """Played with the scripted user in its seat: it answers a wrong correction with what its
    app shows, as it answers any wrong value."""
    stepper = _play(RHONA, last=REPORT + added)
    episode = stepper.episode
    outcome = score(episode)
    stepper.close()
    assert outcome.passed is passes, [i.detail for i in outcome.items if not i.passed]
    said = [m["text"] for m in episode.messages if m["from"] == "user"]
    if user is not None:
        assert user.lower() in said[-1].lower(), said


def test_a_message_that_opens_as_an_update_is_judged_as_any_report():
    """Only what a message said before a correction is corrected: "Update: …" opening a report
    is the report."""
    outcome = score(played(HARBOUR, reports=("Update: " + REPORT,)))
    assert outcome.passed, [i.detail for i in outcome.items if not i.passed]
    outcome = score(played(HARBOUR, reports=("Update: " + REPORT.replace("FB-7", "FB-2"),)))
    assert not outcome.passed


@pytest.mark.parametrize(
    ("report", "passes"),
    [
        (REPORT.replace("FB-7", "FB-7, sorry, FB-2"), False),
        (REPORT.replace("FB-7", "FB-2, sorry, FB-7"), True),
        (REPORT.replace("11:20", "11:20 - sorry, 11:40"), False),
        (REPORT.replace("11:20", "11:40 - oops, 11:20"), True),
        (REPORT.replace("FB-7", "FB-7 - no, FB-2"), False),
        (REPORT.replace("FB-7", "FB-2 - no, FB-7"), True),
        (REPORT.replace("FB-7", "FB-7 (I mean FB-2)"), False),
        (REPORT.replace("11:20", "11:20, er, 11:40"), False),
    ],
)
def test_a_slip_put_right_within_a_sentence_states_the_value_after_it(report, passes):
    outcome = score(played(HARBOUR, reports=(report,)))
    assert outcome.passed is passes, [i.detail for i in outcome.items if not i.passed]


def test_a_wrong_value_corrected_in_the_same_message_passes():
    report = REPORT.replace("FB-7", "FB-2") + " Correction: FB-7, not FB-2."
    outcome = score(played(HARBOUR, reports=(report,)))
    assert outcome.passed, [i.detail for i in outcome.items if not i.passed]


def test_a_correction_that_names_no_one_corrects_every_fact_of_its_kind():
    """After three people's flights, "Sorry, I meant KL1002" leaves the user unable to tell whose
    flight it is: each flight fact fails."""
    final = _last_report("air-bergen-reaccommodation-t2-hard")
    outcome = score(played(BERGEN, reports=(final + " Sorry, I meant KL1002.",)))
    detail = next(i.detail for i in outcome.items if not i.passed)
    assert not outcome.passed and detail.count("'KL1002' (a conflict)") >= 3, detail


@pytest.mark.parametrize(
    ("added", "passes"),
    [
        (" Grace Mensah was moved to 11:30 as she is urgent.", True),  # (Grace's: a person no fact is about)
        (" Grace was moved to 11:30 as she is urgent.", True),
        (" Sorry, I meant 17:30.", False),
        (" His session got pushed back to 17:30.", False),
    ],
)
def test_a_change_said_of_another_person_corrects_nothing_of_the_facts(added, passes):
    stepper = _play("clinic-dialysis-urgent-t2-easy", last="Tomasz is at 17:00 with nurse Byrne, texted." + added)
    outcome = score(stepper.episode)
    stepper.close()
    assert outcome.passed is passes, [i.detail for i in outcome.items if not i.passed]


def test_a_name_put_right_at_once_is_the_one_stated():
    """ "moved the gala to the Corn Exchange, sorry, the Harbour Centre" had passed: a slip put
    right was read for figures only (``core.stated``'s ``NAME_SLIPPED``)."""
    from sttui.core.stated import stated_text

    text = "I moved Rosa to Northgate, sorry, Riverside and rebooked her."
    assert stated_text(text) == "I moved Rosa to          ,      , Riverside and rebooked her."
    assert [text[c.start : c.end] for c in correcting(text)] == ["sorry, Riverside"]
    assert stated_text("Thanks, sorry, for the wait.") == "Thanks, sorry, for the wait."
    # put right twice: the last one stands
    twice = "Gala at the Harbour Centre, sorry, the Corn Exchange, sorry, the Harbour Centre."
    assert [twice[c.start : c.end] for c in correcting(twice)] == ["sorry, the Harbour Centre"]
    twice = "It's on FB-7, sorry, FB-2, sorry, FB-7 at 11:20."
    assert [twice[c.start : c.end] for c in correcting(twice)] == ["sorry, FB-7"]
