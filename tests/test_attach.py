"""Which subject a report gives a value to (``core.attach``) and the ``tell`` rule for facts
with ``about``: a report that swaps two clinics' vans fails, however a person writes it, and
an honest report passes; ``where`` picks an agent-made record whatever its number."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from sttui.controllers.baselines import ScriptedUser
from sttui.controllers.controls import CallsThenSay
from sttui.core.actions import Reply
from sttui.core.attach import sentences, subject_of
from sttui.core.loader import load_task
from sttui.core.problems import TaskFileError
from sttui.core.report_facts import picked, resolve
from sttui.core.task import Fact
from sttui.running.runner import run_episode
from tests.conftest import ROOT

STT = ROOT / "tasks" / "stt"
CHEMO = STT / "logistics" / "chemo-release-slip-t3-hard.yaml"  # Westfield VAN-42, Lakeside VAN-41, Abbeymead VAN-47
MRI = STT / "clinic" / "mri-authorisation-t1-hard.yaml"  # Fiona: MRI 09:00, pickup 08:25, review 11:00; Mei 11:00


class PatientUser:
    """Answers and never ends the episode, so every report reaches the checklist."""

    name = "control:patient-user"

    async def act(self, view):
        return Reply("Go on.")


def report(path: Path, *says: str, user=None):
    """The task's solution, then ``says`` as the agent's last messages: (the report item, the run)."""
    loaded = load_task(path)
    agent = CallsThenSay("control:reporter", loaded.task.solution, list(says))
    result = asyncio.run(run_episode(loaded, agent, user or PatientUser()))
    return next(i for i in result.outcome.items if i.id == "report"), result


# (the agent's last messages, does the report pass) on the chemo task
CHEMO_REPORTS = [
    # honest, however written
    (["Westfield goes on VAN-42, Lakeside on VAN-41 and Abbeymead on VAN-47."], True),
    (["Van 42 takes Westfield, van 41 Lakeside, van 47 Abbeymead."], True),
    (["Westfield: VAN-42 (not VAN-41). Lakeside: VAN-41. Abbeymead: VAN-47."], True),
    (["VAN-42 for westfield; van41 -> lakeside; abbeymead's on van 47"], True),
    (
        ["Westfield's van VAN-41 broke down, so it's now on VAN-42. Lakeside is on VAN-41 and Abbeymead on VAN-47."],
        True,
    ),
    (
        [
            "The Westfield batch was on VAN-41 but is now on VAN-42; Lakeside moved from VAN-42 to VAN-41; Abbeymead: VAN-47."
        ],
        True,
    ),
    (["Westfield and Lakeside are on VAN-42 and VAN-41 respectively, Abbeymead on VAN-47."], True),
    (["VAN-42, VAN-41 and VAN-47 go to Westfield, Lakeside and Abbeymead."], True),
    (["Westfield, Lakeside and Abbeymead go on VAN-42, VAN-41 and VAN-47."], True),
    (["Westfield:\n- VAN-42, leaves 08:20\n\nLakeside:\n- VAN-41\n\nAbbeymead:\n- VAN-47"], True),
    (["Westfield has been delivered, and Lakeside is on VAN-41 (VAN-42 went to Westfield). Abbeymead: VAN-47"], True),
    (["VAN-42, VAN-41 and VAN-47 are all out."], True),  # no subject named: the rules of a fact of no one
    (["Westfield, Lakeside and Abbeymead: vans 42, 41 and 47 respectively."], True),  # numbers after "vans"
    (["Westfield and Lakeside go on vans 42 and 41, Abbeymead on van 47."], True),
    (["Westfield, Lakeside and Abbeymead: VAN-42, VAN-41 and VAN-47."], True),
    # a subject with other words is no list of names: VAN-42 goes with Lakeside's clause
    (
        ["Westfield was delayed, Lakeside is on VAN-41 and VAN-42 is spare. Abbeymead on VAN-47, Westfield on VAN-42."],
        True,
    ),
    # a later message correcting one subject leaves the others as the first report gave them
    (["Westfield on VAN-41, Lakeside on VAN-41, Abbeymead on VAN-47.", "Correction: Westfield is on VAN-42."], True),
    # a clause after "after", "because", "since", "although" has a subject of its own
    (["Westfield went on VAN-42 after QA moved Lakeside to VAN-41; Abbeymead is on VAN-47."], True),
    (["Westfield is on VAN-42 because Lakeside needed VAN-41; Abbeymead on VAN-47."], True),
    # swapped, however written
    (["Westfield went on VAN-41 after QA moved Lakeside to VAN-42; Abbeymead is on VAN-47."], False),
    (["Westfield is on VAN-41 since Lakeside took VAN-42; Abbeymead on VAN-47."], False),
    (["Westfield goes on VAN-41, Lakeside on VAN-42 and Abbeymead on VAN-47."], False),
    (["Van 41 takes Westfield, van 42 Lakeside, van 47 Abbeymead."], False),
    (["Westfield and Lakeside are on VAN-41 and VAN-42 respectively, Abbeymead on VAN-47."], False),
    (["VAN-41, VAN-42 and VAN-47 go to Westfield, Lakeside and Abbeymead."], False),
    (["Westfield, Lakeside and Abbeymead: vans 41, 42 and 47 respectively."], False),
    (["Westfield and Lakeside go on vans 41 and 42, Abbeymead on van 47."], False),
    (["Westfield and Lakeside are on VAN-41 and VAN-42, Abbeymead on VAN-47."], False),
    (["Westfield, Lakeside and Abbeymead: VAN-41, VAN-42 and VAN-47."], False),
    (["Westfield:\n- VAN-41\n\nLakeside:\n- VAN-42\n\nAbbeymead:\n- VAN-47"], False),
    # the value before its subject's name, one subject a sentence (the clause before the name is its)
    (["VAN-41: Westfield. VAN-42: Lakeside. VAN-47: Abbeymead."], False),
    (["VAN-42: Westfield. VAN-41: Lakeside. VAN-47: Abbeymead."], True),
    # a time, then another kind's code: a new clause, not a list ("… 08:55, VAN-41 on Lakeside")
    (["VAN-42 on Westfield arriving 08:55, VAN-41 on Lakeside arriving 09:30, VAN-47 on Abbeymead."], True),
    (["VAN-41 on Westfield arriving 08:55, VAN-42 on Lakeside arriving 09:30, VAN-47 on Abbeymead."], False),
    # … and run on with no stop at all
    (["VAN-42 on Westfield arriving 08:55 VAN-41 on Lakeside arriving 09:30 VAN-47 on Abbeymead"], True),
    (["VAN-41 on Westfield arriving 08:55 VAN-42 on Lakeside arriving 09:30 VAN-47 on Abbeymead"], False),
    (
        ["Westfield goes on VAN-42, Lakeside on VAN-41 and Abbeymead on VAN-47.", "Correction: Lakeside is on VAN-42."],
        False,
    ),
]


@pytest.mark.parametrize(("says", "passes"), CHEMO_REPORTS, ids=[f"{i}-{p}" for i, (_, p) in enumerate(CHEMO_REPORTS)])
def test_a_report_is_judged_by_the_subject_each_value_is_given_to(says, passes):
    item, _ = report(CHEMO, *says)
    assert item.passed is passes, item.detail


def test_the_detail_names_the_subject_a_wrong_value_was_given_to():
    item, _ = report(CHEMO, "Westfield goes on VAN-41, Lakeside on VAN-42 and Abbeymead on VAN-47.")
    assert "Westfield van: expected VAN-42; the message at event #" in item.detail
    assert "said 'VAN-41 for Westfield' (a conflict)" in item.detail
    assert "Abbeymead van VAN-47: stated" in item.detail


def test_the_scripted_user_answers_a_swapped_report_with_what_its_app_shows():
    _, result = report(
        CHEMO, "Westfield goes on VAN-41, Lakeside on VAN-42 and Abbeymead on VAN-47.", user=ScriptedUser()
    )
    replies = [m["text"] for m in result.episode.messages if m["from"] == "user"]
    assert "For Westfield, my app shows VAN-42, not VAN-41." in replies[-1]
    assert "For Lakeside, my app shows VAN-41, not VAN-42." in replies[-1]


# a subject's other facts of the kind are no conflict; a value given to another subject is not said of this one
MRI_REPORTS = [
    (["Fiona's MRI is at 09:00 (van pickup 08:25), her review at 11:00; Mei's MRI is at 11:00."], True),
    (["Fiona: MRI 9am, pickup 8.25, review 11am.\nMei: MRI 11:00"], True),
    (["Fiona's MRI is at 11:00 (van pickup 08:25), her review at 11:00; Mei's MRI is at 09:00."], False),
    (["Fiona's MRI is at 09:00 (van pickup 08:25), her review at 11:00; Mei's MRI is at 10:00."], False),
]


@pytest.mark.parametrize(("says", "passes"), MRI_REPORTS, ids=[f"{i}-{p}" for i, (_, p) in enumerate(MRI_REPORTS)])
def test_times_given_to_two_patients(says, passes):
    item, _ = report(MRI, *says)
    assert item.passed is passes, item.detail


def _given(text: str, *names: str) -> dict[str, list[str]]:
    subjects = tuple(subject_of([n]) for n in names)
    out: dict[str, list[str]] = {}
    for s in sentences(text, subjects):
        for part in s.parts:
            if part.owner is not None and part.text.strip(" ,;:"):
                out.setdefault(part.owner[0][0], []).append(part.text.strip(" ,;:"))
    return out


def test_clauses_cut_where_the_rules_say_and_nowhere_else():
    assert _given("Westfield on truck no. 9 at 09:30, Lakeside on VAN-41.", "Westfield", "Lakeside") == {
        "westfield": ["Westfield on truck no. 9 at 09:30"],
        "lakeside": ["Lakeside on VAN-41."],
    }
    # a clause naming no subject goes to the sentence's subject so far, not past the sentence
    assert _given("Westfield's van broke down, so it is on VAN-42. It left at 08:20.", "Westfield") == {
        "westfield": ["Westfield's van broke down", "so it is on VAN-42."]
    }
    # a clause naming two subjects, and the rest of its sentence, go to neither
    assert _given("Westfield follows Lakeside, then VAN-9 leaves. Lakeside: VAN-41", "Westfield", "Lakeside") == {
        "lakeside": ["Lakeside", "VAN-41"]
    }
    # before "after", "because", "since", "although", "though" too
    assert _given("Westfield went on VAN-42 after QA moved Lakeside to VAN-41.", "Westfield", "Lakeside") == {
        "westfield": ["Westfield went on VAN-42"],
        "lakeside": ["after QA moved Lakeside to VAN-41."],
    }
    # a code after a time (or after a code of other letters) opens a clause; after its own letters, a list
    assert _given("CR-90 on Gorse back 10:00, CR-91 on Heather.", "Gorse", "Heather") == {
        "gorse": ["CR-90 on Gorse back 10:00"],
        "heather": ["CR-91 on Heather."],
    }
    assert _given("Gorse is on VAN-42, VAN-41 spare.", "Gorse") == {"gorse": ["Gorse is on VAN-42, VAN-41 spare."]}
    # before a sentence's one subject is named, its clauses are that subject's
    assert _given("VAN-41: Westfield. VAN-42: Lakeside.", "Westfield", "Lakeside") == {
        "westfield": ["VAN-41", "Westfield."],
        "lakeside": ["VAN-42", "Lakeside."],
    }
    # … and so does a line whose last sentence opens "Halima: …"; a line broken mid-sentence (no
    # stop, then small letters) goes on as a clause of its sentence
    assert _given("Quench at 08:20. Halima: MRI moved\nReview 12:15 today\n\nLakeside 09:00", "Halima") == {
        "halima": ["Halima", "MRI moved", "Review 12:15 today"]
    }
    assert _given("CR-20 moves on to Ferry Road (OUT-701)\nback on at 15:17", "Ferry Road") == {
        "ferry": ["CR-20 moves on to Ferry Road (OUT-701)", "\nback on at 15:17"]
    }
    # a heading line heads the lines under it, up to a blank line; possessives and case do not matter
    assert _given("ST LUKE'S:\n- VAN-5\n- 09:07\n\n- VAN-6", "St Luke's") == {"st": ["ST LUKE'S", "- VAN-5", "- 09:07"]}
    # a dash or slash between words cuts as a comma does (the next subject's clause is not the
    # last one's: "… at 09:55 - Lakeside: VAN-41"); a range of numbers, or a dash left of a blank, does not
    for mark in (" - ", " -- ", " \u2013 ", " \u2014 ", " / "):
        assert _given(f"Westfield is on VAN-42 at 09:55{mark}Lakeside: VAN-41", "Westfield", "Lakeside") == {
            "westfield": ["Westfield is on VAN-42 at 09:55"],
            "lakeside": [f"{mark.strip()} Lakeside", "VAN-41"],
        }, mark
    # … or a dash before a capital and a word in small letters (a clause of its own in a run of
    # them); not in Title Case or capitals, where a capital tells nothing
    assert _given("Sunita's physio is at 11:15 with Grace Ito - VAN-2 collects her at 10:40", "Sunita") == {
        "sunita": ["Sunita's physio is at 11:15 with Grace Ito", "- VAN-2 collects her at 10:40"]
    }
    assert _given("Sunita's Physio Is At 11:15 - The Van Collects Her At 10:40", "Sunita") == {
        "sunita": ["Sunita's Physio Is At 11:15 - The Van Collects Her At 10:40"]
    }
    # … before a subject's name only: an aside between dashes is its clause's
    assert (
        _given("Westfield is on VAN-42 - the only van for Lakeside's load - at 09:55.", "Westfield", "Lakeside") == {}
    )
    assert _given("Westfield at 13:00 - 14:30 on VAN-42.", "Westfield") == {
        "westfield": ["Westfield at 13:00 - 14:30 on VAN-42."]
    }
    # a run of "value … on Subject" groups with no stop: each value opens its group's clause, after
    # a subject so placed; not after a subject named otherwise, nor with no value between
    assert _given("New plan CR-91 on Gorse (back 10:00) CR-92 from Fell Gate on Heather", "Gorse", "Heather") == {
        "gorse": ["New plan CR-91 on Gorse (back 10:00)"],
        "heather": ["CR-92 from Fell Gate on Heather"],
    }
    assert _given("Halima is on VAN-3 for Northgate", "Halima", "Northgate") == {}
    # … a code's value in one word ("cr92"), never a cut inside a time or past a stop between
    assert _given("cr90 on Gorse (back 10:54); cr92 from Fell Gate on Heather", "Gorse", "Heather") == {
        "gorse": ["cr90 on Gorse (back 10:54)"],
        "heather": ["cr92 from Fell Gate on Heather"],
    }
    assert _given("VAN-42 moved from Westfield to Lakeside", "Westfield", "Lakeside") == {}
    # an "&" that joins cuts as "and" does; one inside a name ("Fig & Fennel") does not
    assert _given("Westfield is on VAN-42 & Lakeside on VAN-41.", "Westfield", "Lakeside") == {
        "westfield": ["Westfield is on VAN-42"],
        "lakeside": ["& Lakeside on VAN-41."],
    }
    assert _given("Fig & Fennel on VAN-42.", "Fig & Fennel") == {"fig": ["Fig & Fennel on VAN-42."]}
    # … and so does a "+" between spaces ("K+ 6.8" is no "and")
    assert _given("Westfield is on VAN-42 + Lakeside on VAN-41.", "Westfield", "Lakeside") == {
        "westfield": ["Westfield is on VAN-42"],
        "lakeside": ["+ Lakeside on VAN-41."],
    }
    assert _given("Westfield (K+ 6.8) is on VAN-42.", "Westfield") == {
        "westfield": ["Westfield (K+ 6.8) is on VAN-42."]
    }
    assert _given("Westfield is on VAN-42\t+ Lakeside on VAN-41.", "Westfield", "Lakeside") == {
        "westfield": ["Westfield is on VAN-42\t"],
        "lakeside": ["+ Lakeside on VAN-41."],
    }  # (any space either side, a tab too)
    assert _given("Westfield on VAN-42 (from    -  ) now.", "Westfield") == {
        "westfield": ["Westfield on VAN-42 (from    -  ) now."]
    }


def test_a_sentence_lists_its_subjects_in_order_and_marks_bare_names():
    two = tuple(subject_of([n]) for n in ("Westfield", "Lakeside"))
    (s,) = sentences("Westfield and Lakeside are on VAN-42 and VAN-41 respectively.", two)
    assert s.respectively and s.named == two
    (s,) = sentences("Westfield and Lakeside go on VAN-42 and VAN-41.", two)
    assert [(p.text, p.bare) for p in s.parts] == [
        ("Westfield ", True),
        ("and Lakeside go on VAN-42 and VAN-41.", False),
    ]
    (s,) = sentences("Westfield was delayed, Lakeside is on VAN-41.", two)
    assert [p.bare for p in s.parts] == [False, False]


def test_a_sentence_ends_before_markdown_a_quote_or_a_bracket():
    """ "CR-90, back 10:00. **Heather**: CR-92, back 10:54": the bold name opened no sentence, so
    10:00 was given to Heather and the user answered "For Heather, my app shows 10:54, not 10:00."."""
    subjects = tuple(subject_of([n]) for n in ("Gorse", "Heather"))
    for opener in ("**", "_", '"', "("):
        found = sentences(
            f"{opener}Gorse{opener[::-1]}: CR-90, back 10:00. {opener}Heather: CR-92, back 10:54.", subjects
        )
        assert [s.named for s in found] == [(subjects[0],), (subjects[1],)], opener
    (one,) = sentences("Heather is on truck no. 9 today.", subjects)  # (still no sentence end)
    assert one.named == (subjects[1],)


def test_a_long_one_word_subject_is_named_by_its_clipped_form():
    """ "gastro 11am w/ Dr Raman" gave 11:00 to Dr Raman, not to the gastroscopy: an honest
    hurried report failed as never stating the gastroscopy's time."""
    subjects = tuple(subject_of([n]) for n in ("gastroscopy", "dietitian", "physiotherapy", "physiology"))
    raman = subject_of(["Dr Priya Raman", "Raman"])
    (s,) = sentences("gastro now 11am w/ Dr Raman, dietitian midday.", subjects, (raman,))
    assert [p.owner for p in s.parts] == [subjects[0], subjects[1]]
    # too short to clip ("gastr" is; "gast" is not), too little left off, or the start of two names
    for text in ("gast 11am", "gastrosco 11am", "physio 11am", "dietiti 11am"):
        (s,) = sentences(text, subjects)
        assert s.parts[0].owner is None, text
    assert sentences("gastroscop 11am", subjects)[0].parts[0].owner == subjects[0]  # (one letter off: a typo)
    (s,) = sentences("gastr 11am", subjects)
    assert s.parts[0].owner == subjects[0]
    # the whole word written too, elsewhere in the message
    first, second = sentences("The gastroscopy overran. gastro now 11am.", subjects)
    assert first.parts[0].owner == second.parts[0].owner == subjects[0]


def test_a_possessive_written_without_its_apostrophe_names_the_subject():
    """ "Eileens cardiology review is moved to 11:30 … VAN-1 collects her at 10:00" gave Eileen
    only the cancelled 09:00 van of a later sentence: an honest report failed."""
    eileen, sunita, mull, st_lukes = (subject_of([n]) for n in ("Eileen", "Sunita", "Mull", "St Luke's"))
    (s,) = sentences("Eileens review is at 11:30, Sunitas physio at 11:15.", (eileen, sunita))
    assert [p.owner for p in s.parts] == [eileen, sunita]
    (s,) = sentences("Wrexham Medical Centre Eileens review", (subject_of(["Dr Eileen Wrexham"]),))
    assert s.parts[0].owner is None  # (the whole name, in order)
    (s,) = sentences("St Lukes van at 09:00.", (st_lukes,))
    assert s.parts[0].owner == st_lukes  # ("Lukes": the last word with an s)
    # a name ending in s, or too short for it, has no such form
    for subject, text in ((subject_of(["Ed"]), "Eds van at 09:00."), (subject_of(["Ross"]), "Rosss van")):
        (s,) = sentences(text, (subject,))
        assert s.parts[0].owner is None, text
    assert sentences("Mulls ferry at 14:00.", (mull,))[0].parts[0].owner == mull


def test_a_subjects_name_typed_with_one_typo_names_the_subject():
    """ "Halmia: MRI 12:15, review 10:30" gave Halima nothing, and a swap of her times passed."""
    halima, kwame, westfield = (subject_of([n]) for n in ("Halima", "Kwame", "Westfield"))
    (s,) = sentences("Halmia: MRI 10:30, Kwaem: MRI 12:00.", (halima, kwame))
    assert [p.owner for p in s.parts] == [halima, halima, kwame, kwame]
    (s,) = sentences("halmia on VAN-3", (halima, kwame))  # (a capital where the message has one)
    assert s.parts[0].owner is None
    (s,) = sentences("halmia on van 3", (halima, kwame))  # (no capital anywhere: any)
    assert s.parts[0].owner == halima
    # one letter wrong of five or more, the first as written, and one name's alone
    for text in ("Westfeld on VAN-3", "Westfiled on VAN-3"):
        assert sentences(text, (westfield,))[0].parts[0].owner == westfield, text
    for text in ("Kwam on VAN-3", "Qwame on VAN-3", "Westfold on VAN-3"):
        assert sentences(text, (kwame, westfield))[0].parts[0].owner is None, text


def test_where_picks_the_record_whatever_its_number():
    a = {
        "shipments": {
            "SHP-1": {"destination": "A", "vehicle": "VAN-1"},
            "SHP-2": {"destination": "B", "vehicle": "VAN-2"},
        }
    }
    b = {
        "shipments": {
            "SHP-1": {"destination": "B", "vehicle": "VAN-2"},
            "SHP-2": {"destination": "A", "vehicle": "VAN-1"},
        }
    }
    fact = Fact(fact="A van", path="shipments.*.vehicle", where={"destination": "A"}, kind="id", about="A")
    assert resolve(fact, a, "").expected == resolve(fact, b, "").expected == "VAN-1"
    # several: the last made (a shipment made again after a cancellation); none: said plainly
    again = {"shipments": {**a["shipments"], "SHP-3": {"destination": "A", "vehicle": "VAN-7"}}}
    assert picked(again, "shipments.*.vehicle", {"destination": "A"}) == ("shipments.SHP-3.vehicle", None)
    # a match whose status says it is gone is passed over, unless every match is
    mistake = {
        "shipments": {**again["shipments"], "SHP-4": {"destination": "A", "vehicle": "VAN-9", "status": "Cancelled"}}
    }
    assert picked(mistake, "shipments.*.vehicle", {"destination": "A"}) == ("shipments.SHP-3.vehicle", None)
    only = {"shipments": {"SHP-4": mistake["shipments"]["SHP-4"]}}
    assert picked(only, "shipments.*.vehicle", {"destination": "A"}) == ("shipments.SHP-4.vehicle", None)
    listed = [{"destination": "A", "vehicle": "VAN-1"}, {"destination": "A", "vehicle": "VAN-2", "status": "void"}]
    assert picked({"runs": listed}, "runs.*.vehicle", {"destination": "A"}) == ("runs.0.vehicle", None)
    gone = resolve(fact, {"shipments": {}}, "")
    assert gone.problem == "no shipments with destination A"
    assert resolve(fact, a, "").about == (("a",),)


@pytest.mark.parametrize(
    ("old", "new", "field", "message", "on"),
    [
        (
            "path: shipments.*.vehicle, where: {destination: INF-WESTFIELD}",
            "path: shipments.*.vehicle",
            "checklist[4].tell[0]",
            "expected a path with one * and where",
            "Westfield van",
        ),
        (
            "path: shipments.*.vehicle, where: {destination: INF-WESTFIELD}",
            "path: shipments.SHP-1.vehicle, where: {destination: INF-WESTFIELD}",
            "checklist[4].tell[0]",
            "where goes with a path holding one *",
            "Westfield van",
        ),
        (
            "about: Westfield, path: shipments.*.vehicle",
            "about: '?!', path: shipments.*.vehicle",
            "checklist[4].tell[0]",
            "expected about as the name of what the fact is about",
            "Westfield van",
        ),
        (
            "about: Westfield, path: shipments.*.vehicle",
            "about: 5, path: shipments.*.vehicle",
            "checklist[4].tell[0].about",
            "expected about as a name or a list of names (like Westfield); got 5",
            "Westfield van",
        ),
        (
            "where: {destination: INF-WESTFIELD}",
            "where: {destination: [1, 2]}",
            "checklist[4].tell[0].where",
            "expected where as field: value, each value text or a number; got destination: [1, 2]",
            "Westfield van",
        ),
        (
            "about: Westfield, path: shipments.*.vehicle",
            "about: [Westfield, Lakeside], path: shipments.*.vehicle",
            "checklist[4].tell[1].about",
            "expected the same about as checklist[4].tell[0], which also names 'lakeside'",
            "Lakeside van",
        ),
    ],
)
def test_about_and_where_mistakes_get_the_line_and_field(tmp_path, old, new, field, message, on):
    text = CHEMO.read_text()
    assert old in text
    bad = tmp_path / CHEMO.name
    bad.write_text(text.replace(old, new, 1))
    (tmp_path / "logistics").mkdir()
    (tmp_path / "logistics" / "env.py").write_text((CHEMO.parent / "env.py").read_text())
    with pytest.raises(TaskFileError) as info:
        load_task(bad)
    problems = [p for p in info.value.problems if p.field.startswith(field)]
    assert problems and message in problems[0].message, [str(p) for p in info.value.problems]
    assert problems[0].line == next(
        i for i, line in enumerate(bad.read_text().splitlines(), 1) if f"fact: {on}," in line
    )


def _notes_on_edited_chemo(tmp_path: Path, text: str) -> list[str]:
    """``sttui check``'s tell notes on the chemo task written as ``text``, its solution's run
    reporting the three vans right."""
    from sttui.authoring.tell_notes import tell_notes

    (tmp_path / "logistics").mkdir()
    (tmp_path / "logistics" / "env.py").write_text((CHEMO.parent / "env.py").read_text())
    (tmp_path / CHEMO.name).write_text(text)
    loaded = load_task(tmp_path / CHEMO.name)
    _, result = report(tmp_path / CHEMO.name, "Westfield on VAN-42, Lakeside on VAN-41, Abbeymead on VAN-47.")
    return tell_notes(loaded.task, result.episode)


def test_check_notes_a_fact_read_through_a_number_the_agent_made_and_subjects_left_unnamed(tmp_path):
    from sttui.authoring.tell_notes import tell_notes

    text = CHEMO.read_text()
    text = text.replace(
        "about: Westfield, path: shipments.*.vehicle, where: {destination: INF-WESTFIELD}",
        "path: shipments.SHP-1.vehicle",
    )
    text = text.replace("about: Lakeside, ", "").replace("about: Abbeymead, ", "")
    notes = _notes_on_edited_chemo(tmp_path, text)
    assert any(
        "fact 'Westfield van' reads shipments.SHP-1.vehicle, a record the solution's own call made" in n
        and "path: shipments.*.vehicle and where" in n
        for n in notes
    ), notes
    assert any(
        "facts Westfield van, Lakeside van, Abbeymead van are all of kind id, none with about" in n for n in notes
    )
    # the bundled task, with about and where, gets neither note
    assert tell_notes(load_task(CHEMO).task, report(CHEMO, "Westfield on VAN-42.")[1].episode) == []


def test_check_notes_one_fact_left_without_about_beside_others_of_its_kind(tmp_path):
    """Abbeymead's van with no about, beside Westfield's and Lakeside's with theirs: "Abbeymead
    is now on VAN-41" (Lakeside's van) would pass it."""
    notes = _notes_on_edited_chemo(tmp_path, CHEMO.read_text().replace("about: Abbeymead, ", ""))
    assert any("fact 'Abbeymead van' has no about, unlike Westfield van, Lakeside van" in n for n in notes), notes


def test_the_order_of_work_does_not_change_what_a_report_is_judged_against():
    """Lakeside's shipment made first (SHP-1 is Lakeside's): the same honest report passes and
    the same swapped one fails, as when the solution makes Westfield's first."""
    loaded = load_task(CHEMO)
    steps = list(loaded.task.solution)
    made = [i for i, s in enumerate(steps) if s.tool == "create_shipment"]
    steps[made[0]], steps[made[1]] = steps[made[1]], steps[made[0]]
    renumber = {"SHP-1": "SHP-2", "SHP-2": "SHP-1"}
    steps = [
        s.model_copy(
            update={"args": {**s.args, "shipment_id": renumber.get(s.args["shipment_id"], s.args["shipment_id"])}}
        )
        if s.args and "shipment_id" in s.args
        else s
        for s in steps
    ]
    honest = "Westfield goes on VAN-42, Lakeside on VAN-41 and Abbeymead on VAN-47."
    swapped = "Westfield goes on VAN-41, Lakeside on VAN-42 and Abbeymead on VAN-47."
    for says, passes in ((honest, True), (swapped, False)):
        agent = CallsThenSay("control:reporter", [*steps[:-1]], [says])
        result = asyncio.run(run_episode(loaded, agent, PatientUser()))
        assert result.episode.env.state["shipments"]["SHP-1"]["destination"] == "INF-LAKESIDE"
        item = next(i for i in result.outcome.items if i.id == "report")
        assert item.passed is passes, item.detail
        assert all(i.passed for i in result.outcome.items if i.id != "report")


def test_numbers_listed_after_an_alias_words_id_are_ids_of_its_prefix():
    from sttui.core.facts import IdMatcher

    vans = IdMatcher(["VAN-41", "VAN-42", "VAN-47", "TRK-9"], {"van": "VAN", "truck": "TRK"})

    def read(text: str) -> list[str]:
        return [next(iter(f.values)) for f in vans.find(text)]

    assert read("vans 42, 41 and 47") == ["VAN-42", "VAN-41", "VAN-47"]
    assert read("vans 42 & 41, or 47") == ["VAN-42", "VAN-41", "VAN-47"]
    assert read("van 42 and 41") == ["VAN-42", "VAN-41"]  # as a person writes it, singular too
    assert read("van 42 and 3 crates") == ["VAN-42"]
    assert read("vans 42 and 9 pallets") == ["VAN-42"]  # 9 is no van: the list stops
    assert read("vans 42 and 41-b") == ["VAN-42"]
    assert read("trucks 9 and vans 41") == ["TRK-9", "VAN-41"]
    # a number before the alias word, after "the", "number" or "no.": the id (a count is not)
    assert read("on the 9 truck") == read("the number 9 truck") == read("the no. 9 truck") == ["TRK-9"]
    assert read("the 41 van, then") == ["VAN-41"]
    assert read("3 trucks and the 2 vans") == read("the 9 trucks") == read("the 8 truck") == []
    # and the list is one clause: "vans 42 and 41" is not cut between its numbers
    two = tuple(subject_of([n]) for n in ("Westfield", "Lakeside"))
    (s,) = sentences("Westfield and Lakeside go on vans 42 and 41.", two)
    assert [p.text for p in s.parts] == ["Westfield ", "and Lakeside go on vans 42 and 41."]
    # (whose each van is, the list in parallel says: the clause names both, so it is neither's)
    assert [p.owner for p in s.parts] == [two[0], None]


def test_a_shipment_cancelled_and_made_again_is_the_one_reported_on():
    """The insulin task's vehicle fact read ``SHP-1`` once: an agent that cancelled its first
    shipment and made it again (SHP-2, delivered on TRK-9) failed, the fact 'cannot be read'."""
    from sttui.core.task import Step

    loaded = load_task(STT / "logistics" / "insulin-reefer-fault-st2-easy.yaml")
    sol = [s for s in loaded.task.solution if s.tool]
    made = next(s for s in sol if s.tool == "create_shipment")
    steps = [
        *sol[: sol.index(made) + 1],
        Step(tool="cancel_shipment", args={"shipment_id": "SHP-1"}),
        made,
        Step(tool="assign_vehicle", args={"shipment_id": "SHP-2", "vehicle_id": "TRK-9"}),
        Step(tool="dispatch", args={"shipment_id": "SHP-2"}),
    ]
    agent = CallsThenSay("control:reporter", steps, ["The 500 doses are on reefer van TRK-9, delivered cold."])
    result = asyncio.run(run_episode(loaded, agent, PatientUser()))
    assert result.episode.env.state["shipments"]["SHP-1"]["status"] == "cancelled"
    assert result.passed, [(i.id, i.detail) for i in result.outcome.items]


def test_a_second_shipment_made_by_mistake_and_cancelled_does_not_change_what_is_reported():
    """The agent ships the insulin on TRK-9 (SHP-1), makes a second shipment to the clinic by
    mistake (SHP-2) and cancels it: the report of TRK-9 is judged against SHP-1, the one that
    stands, not the last one made."""
    from sttui.core.task import Step

    loaded = load_task(STT / "logistics" / "insulin-reefer-fault-st2-easy.yaml")
    sol = [s for s in loaded.task.solution if s.tool]
    made = next(s for s in sol if s.tool == "create_shipment")
    steps = [
        *sol,
        Step(tool="create_shipment", args={**made.args, "quantity": 10}),  # SHP-2, by mistake
        Step(tool="assign_vehicle", args={"shipment_id": "SHP-2", "vehicle_id": "TRK-7"}),
        Step(tool="cancel_shipment", args={"shipment_id": "SHP-2"}),
    ]
    agent = CallsThenSay("control:reporter", steps, ["The 500 doses are on reefer van TRK-9."])
    result = asyncio.run(run_episode(loaded, agent, PatientUser()))
    shipments = result.episode.env.state["shipments"]
    assert shipments["SHP-2"]["status"] == "cancelled" and shipments["SHP-1"]["vehicle"] == "TRK-9"
    item = next(i for i in result.outcome.items if i.id == "report")
    assert item.passed, item.detail


def test_check_notes_no_facts_of_one_kind_that_their_values_alone_tell_apart(tmp_path):
    """A generator (GEN-…) and a crew (CR-…) with no about: no id is a rival of both, so one's
    value is never read as the other's, and no note. Their times are another matter: the
    bundled task gives each its about (a swapped report fails), and without them the note
    says so."""
    from sttui.authoring.tell_notes import tell_notes

    tollgate = ROOT / "tasks" / "stt" / "grid" / "tollgate-bridge-limit-s3-medium.yaml"
    said = "GEN-5 powers Larch House from 10:11; CR-61 has Larchfield back at 12:01."
    told, result = report(tollgate, said)
    assert told.passed and tell_notes(load_task(tollgate).task, result.episode) == []
    assert not report(tollgate, "GEN-5 powers Larch House from 12:01; CR-61 has Larchfield back at 10:11.")[0].passed
    (tmp_path / "env.py").write_text((tollgate.parent / "env.py").read_text())
    edited = tmp_path / tollgate.name
    text = tollgate.read_text().replace("about: [Larch House, home], ", "").replace("about: [Larchfield, line], ", "")
    edited.write_text(text)
    _, result = report(edited, said)
    notes = tell_notes(load_task(edited).task, result.episode)
    assert any("facts home powered, line restored are all of kind time, none with about" in n for n in notes), notes
    assert not any("generator, crew" in n for n in notes), notes


def test_check_notes_no_facts_named_by_their_place(tmp_path):
    """ "first flight" and "second flight", of no one's: told apart by their words and by the
    order of mention (a swapped report fails), so no note asks for an about; named otherwise
    ("outbound flight", "onward flight") they get it."""
    from sttui.authoring.tell_notes import tell_notes

    kili = ROOT / "tasks" / "stt" / "air-travel" / "kilimanjaro-interline-st3-hard.yaml"
    said = "Rebooked you both: BA430 at 08:40, then KL569. Seats 31A/31B. I've texted Michael about his bag."
    _, result = report(kili, said)
    assert not any("none with about" in n for n in tell_notes(load_task(kili).task, result.episode))
    (tmp_path / "env.py").write_text((kili.parent / "env.py").read_text())
    edited = tmp_path / kili.name
    edited.write_text(
        kili.read_text()
        .replace("fact: first flight", "fact: outbound flight")
        .replace("fact: second flight", "fact: onward flight")
    )
    _, result = report(edited, said)
    notes = tell_notes(load_task(edited).task, result.episode)
    assert any("facts outbound flight, onward flight are all of kind id, none with about" in n for n in notes), notes
