"""What a report does not state (``core.stated``): a question, a negation, a hedge, an
either-or, a condition and a proposal give no value to a ``tell`` fact, so a report written that way does
not pass, while the honest reports a person writes around them still do."""

from __future__ import annotations

import pytest

from sttui.core import usersim
from sttui.core.corrections import correcting
from sttui.core.stated import stated_text, without_slips
from tests.test_attach import CHEMO, MRI, PatientUser, report


def kept(text: str) -> str:
    """The words ``stated_text`` leaves, one space between."""
    return " ".join(stated_text(text).split())


@pytest.mark.parametrize(
    ("text", "left"),
    [
        # a question that opens with an auxiliary or a wh-word asks all of it
        ("Should Westfield go on VAN-42?", "- ?"),
        ("Which van do you want, VAN-42?", ", - ?"),
        # any other question asks its last clause only
        ("Westfield is on VAN-42, anything else?", "Westfield is on VAN-42, ?"),
        ("Westfield is on VAN-42, right?", "Westfield is on VAN-42, ?"),
        ("Westfield is on VAN-42 - want me to tell the driver?", "Westfield is on VAN-42 - ?"),
        # … but one ending in a tag asks all of it; a negative auxiliary with no subject after opens no question
        ("Westfield is on VAN-42, isn't it?", "- , ' ?"),
        ("Can't use VAN-41 - Westfield is on VAN-42, ok?", "Can't - - Westfield is on VAN-42, ?"),
        # a negation takes the value right after it, over linking words only; a hedge, its clause
        ("Westfield is not on VAN-42.", "Westfield is not on - ."),
        ("Lakeside isn't on van 41 any more, it's on VAN-42.", "Lakeside isn't on any more, it's on VAN-42."),
        ("No longer on VAN-41; now VAN-42.", "No longer on - ; now VAN-42."),
        ("Westfield won't be late on VAN-42.", "Westfield won't be on VAN-42."),
        ("Westfield could be on VAN-42.", "Westfield could - ."),
        ("It is probably VAN-42.", "It is probably - ."),
        # … an impression or a hearsay, as a hedge: "seems", "apparently", "ought", "looks like"
        ("It seems to be on VAN-42.", "It seems - ."),
        ("It looks like VAN-42.", "It looks - ."),
        ("Apparently Westfield is on VAN-42.", "Apparently - ."),
        ("Westfield ought to be on VAN-42 by now.", "Westfield ought - ."),
        ("Westfield is on VAN-42, it seems.", "- , ."),
        ("VAN-42 looks fine.", "VAN-42 looks fine."),  # (looks, but not like or to)
        ("VAN-41 seems to have failed, so Westfield went on VAN-42.", "VAN-41 seems , so Westfield went on VAN-42."),
        # a failure is its own clause's: after a comma, a new action is the writer's and stands
        ("TRK-7 fridge failed, sent on TRK-9.", "TRK-7 fridge failed, sent on TRK-9."),
        ("Couldn't get you into Linate, rebooked BA582 to Malpensa.", "Couldn't , rebooked BA582 to Malpensa."),
        ("CR-8 can't get through, CR-9 going from Garth.", "- can't , CR-9 going from Garth."),
        # … and ends at a turn or a reason with no comma before it, as people type
        ("TRK-7 can't go so TRK-9 took it.", "- can't go so TRK-9 took it."),
        # what broke down or cannot serve is not the value now (past a possessive's noun or two, a bracket)
        ("BA576 is cancelled, Linate is shut.", "is cancelled, is shut."),
        # … a name too, written with capitals, said to be unwell, away or out of use (an outside
        # tester's "Ana Lopes has phoned in sick, so Gethin Pryce is covering" stated Ana Lopes)
        (
            "Ana Lopes has phoned in sick, so Gethin Pryce is covering.",
            "has phoned in sick, so Gethin Pryce is covering.",
        ),
        ("Seren Glas has an engine fault, so Morfa Star sails.", "has an engine fault, so Morfa Star sails."),
        ("Kittiwake's laid up so the Guillemot goes.", "' laid up so the Guillemot goes."),
        ("Rhona was stood down and Morag takes it.", "was stood down and Morag takes it."),
        ("Mostyn Dock is closed; Amlwch it is.", "is closed; Amlwch it is."),
        # … not a name not right before it, nor one that cannot do one thing
        ("Morag, who was off sick yesterday, is skippering.", "Morag, who was off sick yesterday, is skippering."),
        ("The Solan can't get into Sealock Marina.", "The Solan can't ."),
        ("TRK-7's fridge failed.", "- ' fridge failed."),
        ("CAR-4's driver handover fell through.", "- ' driver handover fell through."),
        ("KL641 won't work.", "won't work."),
        ("So TRK-30 (12 t) can't use the bridge.", "So - (12 t) can't use the bridge."),
        ("KL1112 is delayed 70 minutes.", "KL1112 is delayed 70 minutes."),
        ("I failed to book VAN-42.", "I failed to - ."),
        ("CR-8 can't get over the ford so CR-9 went.", "- can't so CR-9 went."),
        ("Couldn't send TRK-7 as its fridge failed, TRK-9 took it.", "Couldn't - as its fridge failed, TRK-9 took it."),
        ("Couldn't book it as a double on VAN-42.", "Couldn't - ."),
        ("I couldn't move it to VAN-42 but VAN-41 is fine.", "I couldn't - but VAN-41 is fine."),
        ("I failed to book VAN-42.", "I failed to - ."),
        # swapped/replaced X for/with Y: X is what was taken out
        ("Swapped CR-14 for CR-12.", "Swapped - for CR-12."),
        ("I replaced TRK-7 with TRK-9.", "I replaced - with TRK-9."),
        ("TRK-7 was replaced by TRK-9.", "- was replaced by TRK-9."),
        # the value taken out of use before "stood down", "withdrawn", "released" (not "released to")
        ("TRK-9 was stood down, so it went on TRK-7.", "- was stood down, so it went on TRK-7."),
        ("TRK-7 has it; TRK-9 was released for other work.", "TRK-7 has it; - was released for other work."),
        ("Insulin released to TRK-9.", "Insulin released to TRK-9."),
        ("TRK-9 standing by.", "TRK-9 standing by."),
        # "from" after a change: the value left ("moved … from TRK-9 to TRK-7"); not a range
        ("Moved the insulin from TRK-9 to TRK-7.", "Moved the insulin from - to TRK-7."),
        ("TRK-7 (which took over from TRK-9).", "TRK-7 (which took over from - )."),
        ("I moved her car from 09:50 to 10:20.", "I moved her car from : to 10:20."),
        ("The lecture runs from 10:00 to 12:00.", "The lecture runs from 10:00 to 12:00."),
        # what a value was before the change: its whole clause
        ("Her train was due 09:35 originally.", ": ."),
        ("Originally booked for 10:00, now 11:30.", ": , now 11:30."),
        ("It was on TRK-7 at first, now on TRK-9.", "- , now on TRK-9."),
        # ... to a turn ("but", "now"), and the clause before when it stands alone
        ("It was originally on TRK-7 but is on TRK-9 now.", "- but is on TRK-9 now."),
        ("It is on TRK-9 now, originally TRK-7.", "It is on TRK-9 now, - ."),
        ("It was on TRK-7, originally.", "- , originally."),
        ("Originally, it was on TRK-7; now TRK-9.", "Originally, - ; now TRK-9."),
        ("You two are on the earlier BA1433 at 7.35.", "You two are on the earlier BA1433 at 7.35."),
        ("Couldn't send CR-12 in time, CR-14 went from Sarn.", "Couldn't - , CR-14 went from Sarn."),
        ("I swapped you to 33G.", "I swapped you to 33G."),
        # instead of, rather than, in place of: the value after them, like a negator
        ("Insulin went on TRK-7 instead of TRK-9.", "Insulin went on TRK-7 instead of - ."),
        ("Rather than VAN-41, it is on VAN-42.", "Rather than - , it is on VAN-42."),
        ("Dr Okafor sees you in place of Dr Feld.", "Dr Okafor sees you in place of ."),
        ("Instead of waiting, I moved it to VAN-42.", "Instead of , I moved it to VAN-42."),
        # a title and its name, and a participle between ("booked", "assigned"...)
        ("It is not with Dr. Okafor; Dr Mensah sees you.", "It is not with . ; Dr Mensah sees you."),
        ("It might be Dr Okafor.", "It might ."),
        # a hedge leaves open all it hedges, to its clause's end
        ("Room 305 will probably be ready at 15:00, key at the desk.", "Room 305 will probably : , key at the desk."),
        ("Hopefully it's ready at 15:00.", "Hopefully ' : ."),
        # … or to a word that turns away: the hedge of a cause leaves what was done stated
        ("TRK-7 seems to have packed in so it went on TRK-9.", "TRK-7 seems so it went on TRK-9."),
        ("Westfield isn't assigned to VAN-41, Lakeside is.", "Westfield isn't assigned to - , Lakeside is."),
        ("You're not booked on LH401 any more.", "You're not booked on any more."),
        # either-or: both sides
        ("VAN-42 or VAN-41.", "- or - ."),
        ("van 42 or 41, or van 47", "van or , or"),
        ("at 9:30 or 10:00", "at : or :"),
        ("VAN-47 or you can call the depot", "VAN-47 or you can call the depot"),
        ("pickup 08:25 (or 08:30 at the latest)", "pickup 08:25 (or 08:30 at the latest)"),
        # a condition: the rest of its clause
        ("If VAN-41 is free, Westfield goes on VAN-42.", "- , Westfield goes on VAN-42."),
        ("If you want, Westfield goes on VAN-42.", "If you want, Westfield goes on VAN-42."),
        # a proposal: from an offer with "would", "'d" or a verb of proposing to the end of its sentence
        ("I would put Westfield on VAN-42, Lakeside on VAN-41.", "- , - ."),
        ("I'd go with VAN-42. Lakeside is on VAN-41.", "' - . Lakeside is on VAN-41."),
        ("We recommend VAN-42 for Westfield.", "- ."),
        # waiting on the person's word: from the first "I will", "I can"… on, or all of it
        ("I will put Westfield on VAN-42 once you confirm.", "- ."),
        ("Once you confirm, I'll put Westfield on VAN-42.", "Once you confirm, ' - ."),
        ("Westfield goes on VAN-42 if you agree.", "- ."),
        ("Pending your approval: Westfield on VAN-42.", ": - ."),
        ("I can move Westfield to VAN-42 if you like.", "- ."),
        ("If you'd like, we can switch Westfield to VAN-42.", "If you'd like, - ."),
        (
            "Westfield is on VAN-42, and once you confirm I'll tell the driver.",
            "Westfield is on VAN-42, and once you confirm ' .",
        ),
        # not a proposal: a report, an aside, a question about consent, a past approval
        ("Westfield is on VAN-42 - let me know if you agree.", "Westfield is on VAN-42 - let me know ."),
        ("I would like to confirm Westfield is on VAN-42.", "I would like to confirm Westfield is on VAN-42."),
        ("I'll say it again: Westfield is on VAN-42.", "I'll say it again: Westfield is on VAN-42."),
        ("I can confirm VAN-42 if you want to check.", "I can confirm VAN-42 if you want to check."),
        ("When you confirmed, I booked VAN-42.", "When you confirmed, I booked VAN-42."),
        ("Westfield is on VAN-42, as you suggested.", "Westfield is on VAN-42, as you suggested."),
        # an action not done: from the verb to the end of its sentence, or to where it turns away
        (
            "I couldn't put Westfield on VAN-42, Lakeside on VAN-41 or Abbeymead on VAN-47.",
            "I couldn't - , - - .",
        ),
        (
            "I was unable to book Westfield on VAN-42; Lakeside is on VAN-41.",
            "I was unable to - ; Lakeside is on VAN-41.",
        ),
        ("I tried to move Westfield to VAN-42, but it failed.", "I tried to - , but it failed."),
        ("I didn't move Abbeymead, it is still on VAN-47.", "I didn't , it is still on VAN-47."),
        (
            "I couldn't book the 09:30 because the pass is closed until 14:00.",
            "I couldn't : because the pass is closed until 14:00.",
        ),
        ("I didn't have to move Abbeymead off VAN-47.", "I didn't to move Abbeymead off VAN-47."),
        ("I'll move Westfield to VAN-42 now.", "' - ."),
        ("I'll keep Abbeymead on VAN-47.", "I'll keep Abbeymead on VAN-47."),
        # a belief, from the writer on, or the whole sentence when it ends with one
        ("I think Westfield is on VAN-42, Lakeside on VAN-41.", "- , - ."),
        ("I don't think Westfield is on VAN-42.", "' - ."),
        ("I'm not sure whether Westfield is on VAN-42.", "' - ."),
        ("Westfield is on VAN-42, I think.", "- , ."),
        ("I think that's all: Westfield is on VAN-42.", "' : Westfield is on VAN-42."),
        # a pending value; a plan put to the person
        ("Westfield: VAN-42 (pending), Lakeside: VAN-41.", "Westfield: - (pending), Lakeside: VAN-41."),
        ("Westfield: VAN-42 (confirmed).", "Westfield: VAN-42 (confirmed)."),
        ("Westfield on VAN-42. Shall I go ahead?", "- . ?"),
        ("Westfield is on VAN-42. Shall I proceed with the invoices?", "Westfield is on VAN-42. ?"),
        ("Westfield on VAN-42. Shall I book them?", "- . ?"),
        ("ill put Westfield on VAN-42, want me to do it?", "- , ?"),  # typed in a hurry, one sentence
        ("She is ill. Westfield is on VAN-42.", "She is ill. Westfield is on VAN-42."),
        ("Westfield on VAN-42. Shall I go ahead and book it now?", "- . ?"),
        ("Westfield is on VAN-42. Shall I send it to the driver?", "Westfield is on VAN-42. ?"),
        # the value a word or two after "old" or "previous", in its clause: what it was
        ("Daniel's old seat was 27E.", "Daniel's old seat was ."),
        ("Your previous truck TRK-7 is at the depot.", "Your previous truck - is at the depot."),
        ("The old van, VAN-41, is back; VAN-42 has it.", "The old van, VAN-41, is back; VAN-42 has it."),
        ("The old timetable is gone; she leaves at 08:55.", "The old timetable is gone; she leaves at 08:55."),
        ("The former on 14:30, the latter on 14:00.", "The former on 14:30, the latter on 14:00."),
        # where something was before a change ("was in … before the swap"), not a move made then
        ("Daniel was in 27E before the swap.", "Daniel was in before the swap."),
        (
            "You were in 27E and 38A before the aircraft change; now 33G and 33H.",
            "You were in and before the aircraft change; now 33G and 33H.",
        ),
        ("Daniel was moved to 33G before the swap.", "Daniel was moved to 33G before the swap."),
        ("Daniel was in 27E until the swap.", "Daniel was in until the swap."),
        ("Daniel had 27E up to the aircraft change.", "Daniel had up to the aircraft change."),
        ("Daniel had been in 27E till the swap.", "Daniel had been in till the swap."),
        ("Until the swap Daniel was in 27E, now 33G.", "Until the swap Daniel was in , now 33G."),
        ("Before the swap, you were in 27E and 38A.", "Before the swap, you were in and ."),
        ("Daniel had been moved to 33G until the swap.", "Daniel had been moved to 33G until the swap."),
        ("Until the swap is done, Daniel stays in 27E.", "Until the swap is done, Daniel stays in 27E."),
        # "original" names what was only past a "was": "your original booking on BA582 stands"
        ("The insulin's original truck was TRK-7.", "The insulin's original truck was - ."),
        ("Your original booking on BA582 stands.", "Your original booking on BA582 stands."),
        (
            "The van was loaded at 06:20 before the clinic opened.",
            "The van was loaded at 06:20 before the clinic opened.",
        ),
        # what names a truck is no negation
        ("Load truck no. 9 and truck no 9.", "Load truck no. 9 and truck no 9."),
        # nothing to set aside: the text as it was
        ("Westfield goes on VAN-42, Lakeside on VAN-41.", "Westfield goes on VAN-42, Lakeside on VAN-41."),
    ],
)
def test_what_a_message_does_not_state_is_blanked(text, left):
    assert len(stated_text(text)) == len(text)  # positions and punctuation kept for the clause rules
    assert kept(text) == left


CHEMO_UNSTATED = [
    # asked, denied, hedged or left open: not a report
    (["Should Westfield go on VAN-42, Lakeside on VAN-41 and Abbeymead on VAN-47?"], False),
    (["Westfield is not on VAN-42, Lakeside is not on VAN-41, Abbeymead is not on VAN-47."], False),
    (["Westfield is not on VAN-42. Lakeside is on VAN-41. Abbeymead on VAN-47."], False),
    (["Westfield could be on VAN-42, Lakeside probably on VAN-41, Abbeymead maybe on VAN-47."], False),
    (["Westfield is on VAN-41 or VAN-42, Lakeside on VAN-41 or VAN-42, Abbeymead on VAN-47."], False),
    (["Westfield: VAN-42 or VAN-41. Lakeside: VAN-41. Abbeymead: VAN-47."], False),
    # a closing question leaves the report before it standing, in its own message or the same one
    (["Westfield goes on VAN-42, Lakeside on VAN-41 and Abbeymead on VAN-47.", "Is VAN-41 ok for you?"], True),
    (["Westfield is on VAN-42, Lakeside on VAN-41, Abbeymead on VAN-47 - anything else?"], True),
    (["Westfield on VAN-42, Lakeside on VAN-41 and Abbeymead on VAN-47, right?"], True),
    # a denied old value next to the new one, as a person writes a change
    (["Westfield isn't on VAN-41 any more, it's on VAN-42. Lakeside: VAN-41. Abbeymead: VAN-47."], True),
    (["Not VAN-41 but VAN-42 for Westfield; Lakeside on VAN-41; Abbeymead on VAN-47."], True),
    # lists a person writes: the alias word once or again
    (["Westfield and Lakeside are on van 42 and 41, Abbeymead on van 47."], True),
    (["Westfield and Lakeside go on van 42 and van 41, Abbeymead on van 47."], True),
    (["Westfield and Lakeside go on van 41 and van 42, Abbeymead on van 47."], False),
    # proposed, not reported: the person has not been told where the batches are
    (["I would put Westfield on VAN-42, Lakeside on VAN-41, Abbeymead on VAN-47."], False),
    (["I will put Westfield on VAN-42, Lakeside on VAN-41, Abbeymead on VAN-47 once you confirm."], False),
    (["If you like, I can move Westfield to VAN-42, Lakeside to VAN-41 and Abbeymead to VAN-47."], False),
    # not done, failed, pending or only planned: not a report
    (["I have NOT put Westfield on VAN-42, Lakeside on VAN-41 or Abbeymead on VAN-47."], False),
    (["I was unable to book Westfield on VAN-42, Lakeside on VAN-41 and Abbeymead on VAN-47."], False),
    (["I tried to put Westfield on VAN-42, Lakeside on VAN-41, Abbeymead on VAN-47, but it failed."], False),
    (["Nothing has changed yet; I will put Westfield on VAN-42, Lakeside on VAN-41, Abbeymead on VAN-47."], False),
    (["Westfield is on VAN-42 (pending), Lakeside on VAN-41 (pending), Abbeymead on VAN-47 (pending)."], False),
    (["The plan: Westfield on VAN-42, Lakeside on VAN-41, Abbeymead on VAN-47. Shall I go ahead?"], False),
    (["Westfield on VAN-42, Lakeside on VAN-41, Abbeymead on VAN-47. Want me to book them?"], False),
    (["I think Westfield is on VAN-42, Lakeside on VAN-41 and Abbeymead on VAN-47."], False),
    # ...while a report that says what needed no doing, or what comes next, still reports
    (["I haven't moved Abbeymead: it stays on VAN-47. Westfield is on VAN-42 and Lakeside on VAN-41."], True),
    (["I couldn't put Westfield on VAN-41, so I put it on VAN-42. Lakeside: VAN-41. Abbeymead: VAN-47."], True),
    (["Westfield is on VAN-42, Lakeside on VAN-41, Abbeymead on VAN-47. I'll send the drivers the list."], True),
    (["Westfield is on VAN-42, Lakeside on VAN-41, Abbeymead on VAN-47. Shall I go ahead and tell the clinics?"], True),
    # a report that asks for agreement, or was made with it, is still a report
    (["Westfield is on VAN-42, Lakeside on VAN-41, Abbeymead on VAN-47 - let me know if you approve."], True),
    (["When you confirmed, I booked Westfield on VAN-42, Lakeside on VAN-41, Abbeymead on VAN-47."], True),
]


# hedges the scripted user already asked about, which the judge took as stated (an outside
# tester's "Sent CR-14, restore at 11:19 I hope." passed its report): a hedging phrase anywhere,
# a hedge or "I hope" at the end, "hope" first, leave the whole sentence open; a courtesy does not
HEDGED = [
    ("Sent CR-14, restore at 11:19 I hope.", "- , : ."),
    ("Restore at 11:19, hopefully.", ": , ."),
    ("Restore at 11:19, fingers crossed", ": ,"),
    ("All being well, CR-14 restores at 11:19.", ", - : ."),
    ("No guarantees, but CR-14 restores at 11:19.", ", - : ."),
    ("CR-14 restores at 11:19, not sure though.", "- : , ."),
    ("Hope CR-14 makes it by 11:19.", "- : ."),
    ("I hope CR-14 gets there; restore at 11:19.", "- ; restore at 11:19."),
    ("CR-14 will likely restore at 11:19.", "CR-14 will likely : ."),
    ("I'm hopeful CR-14 restores at 11:19.", "' - : ."),
    ("I'm not sure CR-14 made it; restore at 11:19.", "' - ; restore at 11:19."),
    # "not sure" first, the "I'm" left out ("Not sure, but you're both checked in on UA901" had
    # satisfied the scripted user and passed)
    ("Not sure, but CR-14 restores at 11:19.", ", - : ."),
    ("Unsure but CR-14 restores at 11:19.", "- : ."),
    ("Not sure why it tripped, but CR-14 restores at 11:19.", "Not why it tripped, but CR-14 restores at 11:19."),
    # a belief by another name, or a booking not yet done, which the scripted user asked about
    ("CR-14 restores at 11:19, I'm fairly sure.", "- : , ' ."),
    ("As far as I can tell, CR-14 restores at 11:19.", ", - : ."),
    ("CR-14 restores at 11:19, if I'm not mistaken.", "- : , ' ."),
    ("CR-14 restores at 11:19, pending confirmation.", "- : , ."),
    ("Make sure CR-14 restores at 11:19.", "Make sure CR-14 restores at 11:19."),
    # the writer's doubt, or another's word passed on, in the words people use for it (each had
    # passed, and satisfied the scripted user: "To the best of my knowledge, …", "…, I'm told")
    ("To the best of my knowledge, CR-14 restores at 11:19.", ", - : ."),
    ("From what I can see, CR-14 restores at 11:19.", ", - : ."),
    ("My guess is CR-14 restores at 11:19.", "- : ."),
    ("Chances are CR-14 restores at 11:19.", "- : ."),
    ("CR-14 restores at 11:19, or so the log says.", "- : , ."),
    ("CR-14 restores at 11:19, I'm told.", "- : , ' ."),
    ("CR-14 supposedly restores at 11:19.", "- : ."),
    ("CR-14 restores at 11:19, I'm almost certain.", "- : , ' ."),
    ("CR-14 restores at 11:19 - can't be 100% sure though.", "- : - ' % ."),
    ("CR-14 restores at 11:19, but don't quote me on that.", "- : , ' ."),
    ("CR-14 restores at 11:19 (not verified).", "- : ( )."),
    ("CR-14 restores at 11:19, assuming the switch held.", "- : , ."),
    ("If I'm reading this right, CR-14 restores at 11:19.", "' , - : ."),
    ("CR-14 restores at 11:19, unless I'm wrong.", "- : , ' ."),
    ("CR-14 restores at 11:19, if the SCADA feed is right.", "- : , ."),
    ("CR-14 restores at 11:19, unless something changed.", "- : , ."),
    # … a belief put after what it doubts, or with "I'd"; what was expected rather than seen
    ("CR-14, I think, restores at 11:19.", "- , , : ."),
    ("CR-14 restores at 11:19 I believe, and F-21 at 10:41.", "- : , - : ."),
    ("CR-14 restores at 11:19, I'd imagine.", "- : , ' ."),
    ("I'd say CR-14 restores at 11:19.", "' - : ."),
    ("I suspect CR-14 restores at 11:19.", "- : ."),
    ("I'm guessing CR-14 restores at 11:19.", "' - : ."),
    ("CR-14 should have restored at 11:19.", "CR-14 should : ."),
    ("CR-14 is supposed to restore at 11:19.", "CR-14 is supposed : ."),
    ("CR-14 appears to restore at 11:19.", "CR-14 appears : ."),
    # … not a doubt of another sentence, an aside to the person, a condition of the writer's
    # own, an estimate, or "appears on"
    ("I'm told the crew is pleased. CR-14 restores at 11:19.", "' . CR-14 restores at 11:19."),
    # … another's word or a check not done hedges from the sentence's start or end alone ("…, not
    # verified yet"), not a clause of something else in it
    ("CR-14 restores at 11:19, not verified yet.", "- : , ."),
    ("CR-14 (unverified) restores at 11:19.", "- (unverified) restores at 11:19."),
    (
        "CR-14 restores at 11:19; I'm told the crew is pleased.",
        "CR-14 restores at 11:19; I'm told the crew is pleased.",
    ),
    ("The log is not verified; CR-14 restores at 11:19.", "The log is not ; CR-14 restores at 11:19."),
    ("Assuming you still need it, CR-14 restores at 11:19.", ", CR-14 restores at 11:19."),
    ("If I remember, I'll call at 11:19.", ", I'll call at 11:19."),
    (
        "The feeder is 30 minutes or so away; CR-14 restores at 11:19.",
        "The feeder is 30 minutes or so away; CR-14 restores at 11:19.",
    ),
    ("CR-14 appears on the rota at 11:19.", "CR-14 appears on the rota at 11:19."),
    # … not a courtesy, nor "could" or "might" last
    ("Hope you're well - CR-14 restores at 11:19.", "Hope you're well - CR-14 restores at 11:19."),
    ("Sent CR-14, restore at 11:19, hope that helps", "Sent CR-14, restore at 11:19, hope that helps"),
    ("Sent CR-14, restore at 11:19. I hope that helps!", "Sent CR-14, restore at 11:19. I hope that helps!"),
    ("Orla is at 14:00, the earliest I could.", "Orla is at 14:00, the earliest I could."),
]


# a question typed without its "?" (an outside tester's "Shall I go with TRK-9" passed as the
# report), and a value waiting on "if that's alright with you"
def test_a_name_denied_is_denied_whole():
    """ "instead of Jun Park" had blanked "Jun" alone, and "Park" was stated."""
    assert (
        kept("Interpreted by Mei Lin instead of Jun Park. Confirmed.")
        == "Interpreted by Mei Lin instead of . Confirmed."
    )
    assert kept("Jun Park, not Mei Lin Zhao, is interpreting.") == "Jun Park, not , is interpreting."
    assert (
        kept("Westfield isn't on VAN-42 Lakeside is") == "Westfield isn't on - Lakeside is"
    )  # (an id: its word alone)


def test_what_markdown_strikes_through_is_taken_back():
    """A held-out report's "~~Seren Glas from Mostyn~~" (the plan crossed out) had given Mostyn as
    the port once *from* placed a name."""
    assert kept("- ~~Seren Glas from Mostyn~~: closed\n- **Port:** Amlwch") == "- ~~ ~~: closed - **Port:** Amlwch"
    assert kept("From Mostyn ~ 07:47 ~ at sea") == "From Mostyn ~ 07:47 ~ at sea"  # (one tilde is no strike)


def test_a_figure_crossed_out_or_given_as_what_it_was_is_not_stated():
    """ "TRK-9 ✗ TRK-7 ✓", "❌ TRK-9 (reefer failed)" and "TRK-7 (was TRK-9)" had stated TRK-9:
    a cross on a figure (after it, or opening its line or bullet) and a bracket saying what a
    value was leave it unstated."""
    assert kept("TRK-9 ✗ TRK-7 ✓ delivered 06:59") == "- ✗ TRK-7 ✓ delivered 06:59"
    assert kept("TRK-9: ❌ (reefer failed) → TRK-7 ✅") == "- : ❌ (reefer failed) → TRK-7 ✅"
    assert kept("❌ TRK-9 (reefer failed)\n- ✅ TRK-7") == "❌ - (reefer failed) - ✅ TRK-7"
    assert kept("TRK-7 (was TRK-9), seat 33G (prev. 27E)") == "TRK-7 (was - ), seat 33G (prev. )"
    # a cross inside a line is said of the figure before it, not the one after
    assert kept("TRK-9 ✅ ❌ TRK-7") == "TRK-9 ✅ ❌ TRK-7"
    assert kept("Loaded 2 × 250 doses (was 06:20 at the dock)") == "Loaded 2 × 250 doses (was : )"
    # … and a name with a cross on it
    assert kept("Dr Okafor, Westbrook, 14:30 ✅ (Harbourside ❌)") == "Dr Okafor, Westbrook, 14:30 ✅ ( ❌)"
    # … nor what a label opening its line, sentence or cell gives as what was
    assert kept("Old: TRK-9 / New: TRK-7.") == "Old: - / New: TRK-7."
    assert kept("Planned: TRK-9 | Actual: TRK-7") == "Planned: - | Actual: TRK-7"
    assert kept("**Previous truck:** TRK-9\n**Now:** TRK-7") == "**Previous truck:** - **Now:** TRK-7"
    assert kept("Delivered 06:59. Before: TRK-9.") == "Delivered 06:59. Before: - ."
    assert kept("Arrived at 06:59, before: the clinic opened") == "Arrived at 06:59, before: the clinic opened"


SUBSTITUTED = [
    # what stands in for another, chosen over it, in its place: the other is not stated
    ("Chose TRK-9 over TRK-7; delivered 06:59.", "Chose TRK-9 over - ; delivered 06:59."),
    ("Picked TRK-9 ahead of TRK-7.", "Picked TRK-9 ahead of - ."),
    ("Sent TRK-9 in lieu of TRK-7.", "Sent TRK-9 in lieu of - ."),
    ("TRK-9 (in for TRK-7) delivered.", "TRK-9 (in for - ) delivered."),
    ("TRK-9 is standing in for TRK-7.", "TRK-9 is standing in for - ."),
    ("TRK-9 subbing for TRK-7.", "TRK-9 subbing for - ."),
    ("Dr Okafor is covering for Dr Feld.", "Dr Okafor is covering for ."),
    ("TRK-9 as a replacement for TRK-7.", "TRK-9 as a replacement for - ."),
    ("TRK-9 took TRK-7's place.", "TRK-9 took - ' place."),
    ("TRK-7 was swapped for TRK-9.", "- was swapped for TRK-9."),
    ("TRK-7 got bumped, TRK-9 has it.", "- got bumped, TRK-9 has it."),
    ("Moved the insulin off TRK-7 onto TRK-9.", "Moved the insulin off - onto TRK-9."),
    ("TRK-7 out, TRK-9 in.", "- out, TRK-9 in."),
    ("TRK-7 was a no-go so TRK-9 it is.", "- was a no-go so TRK-9 it is."),
    # … but not a time after "booked in for", "took over at", a value that went ahead, a verb of its own
    ("Margaret is booked in for 14:30.", "Margaret is booked in for 14:30."),
    ("TRK-9 took over at 06:20.", "TRK-9 took over at 06:20."),
    ("TRK-9 arrived ahead of TRK-7.", "TRK-9 arrived ahead of TRK-7."),
    ("TRK-9 dropped the doses off at 06:59.", "TRK-9 dropped the doses off at 06:59."),
    ("TRK-9 is out delivering.", "TRK-9 is out delivering."),
    ("TRK-9 set out at 06:20.", "TRK-9 set out at 06:20."),
]


@pytest.mark.parametrize(("text", "left"), SUBSTITUTED)
def test_what_another_value_stands_in_for_is_not_stated(text, left):
    """Each had stated the value stood in for ("Chose TRK-7 over TRK-9" passed the insulin
    task, whose insulin went on TRK-9)."""
    assert kept(text) == left


def test_a_figure_queried_or_a_sentence_hoped_for_is_not_stated():
    """ "Vehicle: TRK-9 (?)" and "Vehicle: TRK-9 🤞 Delivered 06:59." had passed the insulin
    task and satisfied the scripted user: a bracketed query leaves its figure unstated, and a
    sign of hoping (🤞, 🙏) leaves its sentence open as "fingers crossed" does, so the scripted
    user asks for a clear answer."""
    assert kept("Vehicle: TRK-9 (?). Delivered 06:59.") == "Vehicle: - (?). Delivered 06:59."
    assert kept("Vehicle: TRK-9 🤞 Delivered 06:59.") == ": - 🤞 : ."
    assert kept("On TRK-9 🙏. Delivered 06:59.") == "- 🙏. Delivered 06:59."
    assert kept("TRK-9 took them 👍") == "TRK-9 took them 👍"
    assert usersim.hedge("Vehicle: TRK-9 🤞 Delivered 06:59.") is not None
    assert usersim.hedge("TRK-9 took them 👍") is None


def test_one_value_replacing_another_leaves_the_one_replaced_unstated():
    """ "TRK-9 replaced TRK-7" had left TRK-7 stated and TRK-9 not (read as "TRK-9 replaced by
    …"); a value swapped out is the one taken out."""
    assert kept("TRK-9 replaced TRK-7, delivered 06:59.") == "TRK-9 replaced - , delivered 06:59."
    assert kept("TRK-9 was replaced by TRK-7.") == "- was replaced by TRK-7."
    assert kept("I replaced TRK-7 with TRK-9.") == "I replaced - with TRK-9."
    assert kept("TRK-9 swapped out for TRK-7.") == "- swapped out for TRK-7."


UNASKED = [
    ("Shall I go with TRK-9", "-"),
    ("how about TRK-9", "-"),
    ("TRK-9 delivered 06:59 isn't it", "- : '"),
    ("TRK-9, if that's alright with you", "- , '"),
    ("TRK-9 if that works for you", "-"),
    # … not an auxiliary and a subject alone in their clause, nor a question asked of the report
    ("Did it - TRK-9 delivered at 06:59", "Did it - TRK-9 delivered at 06:59"),
    ("TRK-9 delivered at 06:59, let me know if that's ok", "TRK-9 delivered at 06:59, let me know '"),
]


@pytest.mark.parametrize(("text", "left"), UNASKED)
def test_a_question_without_its_mark_or_a_value_waiting_on_the_person_states_none(text, left):
    assert kept(text) == left


@pytest.mark.parametrize(("text", "left"), HEDGED)
def test_a_hedge_of_the_whole_sentence_states_none_of_it(text, left):
    assert kept(text) == left


# intent said outright, a plan named as one, and what would have been done: each had stated its
# value as done ("I'm going to put …", "I plan to send …", "Next step: …", "I would have used …")
MEANT = [
    ("I'm going to put Westfield on VAN-42.", "' - ."),
    ("We plan to send Westfield on VAN-42.", "- ."),
    ("I'm about to dispatch VAN-42 for Westfield.", "' - ."),
    ("I was hoping to use VAN-42 for Westfield.", "- ."),
    ("I wanted to move Westfield to VAN-42.", "- ."),
    ("I'll be sending Westfield on VAN-42.", "' - ."),
    ("The plan is VAN-42 for Westfield.", "- ."),
    ("Next step: dispatch VAN-42 for Westfield.", "Next step: - ."),
    ("I would have used VAN-42 for Westfield, but it was full.", "- , but it was full."),
    ("We'd have sent VAN-42 if it were free; Westfield is on VAN-41.", "' - ; Westfield is on VAN-41."),
    # … to the clause that turns away; not a plan that was, nor "going to" of no doing
    (
        "I was going to use VAN-47 but it failed, so Westfield went on VAN-42.",
        "- but it failed, so Westfield went on VAN-42.",
    ),
    ("I could have used VAN-47 but chose VAN-42 for Westfield.", "- but chose VAN-42 for Westfield."),
    (
        "The plan was VAN-47, but it failed, so Westfield went on VAN-42.",
        "The plan was VAN-47, but it failed, so Westfield went on VAN-42.",
    ),
    ("I'm going to be honest: Westfield is on VAN-42.", "I'm going to be honest: Westfield is on VAN-42."),
    ("I wanted you to know Westfield is on VAN-42.", "I wanted you to know Westfield is on VAN-42."),
]


# two names as alternatives, as two figures are ("Ana Lopes or Marta Kowalski is going" had
# stated both)
EITHER_NAMES = [
    ("Ana Lopes or Marta Kowalski is going.", "or is going."),
    ("The Assembly Rooms or the Corn Exchange will host it.", "or the will host it."),
    ("Ana Lopes, or Marta Kowalski, is going.", ", or , is going."),
    ("Call Ana Lopes or me.", "Call Ana Lopes or me."),
    ("Dr Okafor (or Dr Feld) sees her.", "Dr Okafor (or Dr Feld) sees her."),
]


# an indirect question: what *whether* opens is asked, to its clause's end ("Can you check
# whether the doses went on TRK-9." and "It's unclear whether …" had stated TRK-9)
WHETHER = [
    ("I wonder whether CR-14 restores at 11:19.", "I wonder - : ."),
    ("It's unclear whether CR-14 restores at 11:19.", "It's unclear - : ."),
    (
        "I checked whether CR-8 could go, but it couldn't, so CR-14 restores at 11:19.",
        "I checked - , but it couldn't, so CR-14 restores at 11:19.",
    ),
    ("CR-14 restores at 11:19, whether or not the crew signs off.", "CR-14 restores at 11:19, ."),
]


@pytest.mark.parametrize(("text", "left"), WHETHER)
def test_what_whether_opens_is_asked(text, left):
    assert kept(text) == left


@pytest.mark.parametrize(("text", "left"), EITHER_NAMES)
def test_two_names_joined_by_or_are_alternatives(text, left):
    assert kept(text) == left


@pytest.mark.parametrize(("text", "left"), MEANT)
def test_what_the_writer_means_to_do_or_would_have_done_is_not_done(text, left):
    assert kept(text) == left


CHEMO_HEDGED = [
    (["Westfield is on VAN-42, Lakeside on VAN-41, Abbeymead on VAN-47, I hope."], False),
    (["Fingers crossed: Westfield is on VAN-42, Lakeside on VAN-41, Abbeymead on VAN-47."], False),
    (["Westfield is on VAN-42, Lakeside on VAN-41, Abbeymead on VAN-47. Hope that helps!"], True),
]


@pytest.mark.parametrize(("says", "passes"), CHEMO_HEDGED)
def test_a_hedged_report_is_not_a_report(says, passes):
    item, _ = report(CHEMO, *says, user=PatientUser())
    assert item.passed is passes, item.detail


@pytest.mark.parametrize(
    ("says", "passes"), CHEMO_UNSTATED, ids=[f"{i}-{p}" for i, (_, p) in enumerate(CHEMO_UNSTATED)]
)
def test_a_report_is_what_it_states(says, passes):
    item, _ = report(CHEMO, *says, user=PatientUser())
    assert item.passed is passes, item.detail


MRI_UNDONE = [
    # times for two patients: not done, believed or pending is not a report...
    (
        ["I couldn't book Fiona's MRI at 09:00, the pickup at 08:25 or her review at 11:00; Mei's MRI is at 11:00."],
        False,
    ),
    (["I think Fiona's MRI is at 09:00 (pickup 08:25), review at 11:00, and Mei's MRI at 11:00."], False),
    (
        ["Fiona's MRI: 09:00 (pending), pickup 08:25 (pending), review 11:00 (pending). Mei's MRI: 11:00 (pending)."],
        False,
    ),
    # ...while a failure overcome, or what comes next, leaves the report standing
    (
        [
            "Without the referral I couldn't book it at first, but Fiona's MRI is now at 09:00 (pickup 08:25), "
            "review 11:00; Mei's MRI is at 11:00."
        ],
        True,
    ),
    (
        ["Fiona's MRI is at 09:00 with pickup at 08:25 and review at 11:00; Mei's is at 11:00. I'll send the letters."],
        True,
    ),
]


@pytest.mark.parametrize(("says", "passes"), MRI_UNDONE, ids=[f"{i}-{p}" for i, (_, p) in enumerate(MRI_UNDONE)])
def test_times_not_done_are_not_reported(says, passes):
    item, _ = report(MRI, *says, user=PatientUser())
    assert item.passed is passes, item.detail


HELD_FARE = CHEMO.parent.parent / "air-travel" / "held-fare-ttl-t1-medium.yaml"  # LH1232 at 08:55, seat 14A
TICKETING = [
    (["I'll ticket you on LH1232 at 08:55 in seat 14A."], False),
    (["ill ticket her on lh1232 at 08:55 seat 14a, want me to do it?"], False),  # as a person typed it at 80x24
    (["I tried to ticket you on LH1232 at 08:55 in seat 14A but the payment failed."], False),
    (["I couldn't keep the held fare because it expired, so I ticketed you on LH1232 at 08:55, seat 14A."], True),
    (["You're on LH1232 departing 08:55 in seat 14A. I'll email you the e-ticket."], True),
]


@pytest.mark.parametrize(("says", "passes"), TICKETING, ids=[f"{i}-{p}" for i, (_, p) in enumerate(TICKETING)])
def test_a_ticketing_not_done_is_not_reported(says, passes):
    item, _ = report(HELD_FARE, *says, user=PatientUser())
    assert item.passed is passes, item.detail


def test_the_detail_says_never_stated_for_a_report_that_only_asks():
    item, _ = report(CHEMO, "Should Westfield go on VAN-42, Lakeside on VAN-41 and Abbeymead on VAN-47?")
    assert "Westfield van: expected VAN-42; never stated" in item.detail
    assert "a question, negation, hedge, either-or or proposal states none" in item.detail


def test_hostile_text_keeps_its_length_and_never_raises():
    page = "not on VAN-41, if x, a or 4 or 5, " * 2000  # one long sentence: read by bisection, not rescans
    offers = ("I would put ", "once you ", "pending your ", "I'd ", "we ")
    # every sentence or clause one more denial to its end: the spans are merged, not each blanked
    undone = ("I couldn't put A on VAN-1, ", "I think, ", "Shall I go ahead? ", "x (pending) ", "I'll move it, ")
    hostile = ("?" * 5000, "or " * 5000, "no " * 5000, "\x00\ufeff not ‑ VAN‑9?", "", " ", "\n\n?", "if", "I", "we'd")
    for odd in (page, *hostile, *(o * 3000 for o in (*offers, *undone))):
        assert len(stated_text(odd)) == len(odd)
    assert "41" not in stated_text(page) and "4 or 5" not in stated_text(page)


@pytest.mark.timeout(60)  # (quadratic, the longest of these took minutes: linear, well under a second)
@pytest.mark.parametrize("unit", ["a1:", "1:1:", "x1.no,", "9:30 - no, ", "FB-7, sorry, ", "1:2 (i mean "])
def test_a_slip_is_looked_for_in_linear_time(unit):
    """A figure put right at once was looked for from every place after a ``:`` or ``.``, each
    look running to the end of the run ("a1:a1:a1:…", 24,000 characters, took 7 s; 120,000
    would take minutes): a figure now starts only where no ``:`` or ``.`` joins it to the
    one before."""
    text = unit * (120_000 // len(unit))
    stated_text(text)
    correcting(text)
    without_slips(text)
