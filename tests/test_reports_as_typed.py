"""Every solvable task's own report (the bundled tasks and the held-out domains), written the
way people type it, and lied in.

The oracle's calls are played, then its messages, each rewritten the same way (``TYPED``):
lower case, 12-hour times, a dash for a full stop, ids as ``van3``, no apostrophes, a bullet
list, markdown, ``&`` and ``w/``, ``VAN 3``, times as ``1445``, no punctuation at all, no space after a stop, ``+`` for *and*, all capitals, Title Case, a line per clause… Every
rewrite must pass (but the few left as known gaps, ``TYPED_LEFT``), as the message does; so
must the last report with a name or place in it typed with one typo.
Then a lie in the last report: one fact's value replaced by a rival of its list (or a time 20
minutes off), or two facts' values of one list swapped. Every lie must fail, but the
few the docs leave to the rules as known gaps (``SWAPS_LEFT``).

Found by this sweep, and fixed: a dash between sections ("… at 09:55 - Kwame: …"), "Eileens
review", "nurse Byrne & has been texted", "VAN 3", "**TIE-21** at Riverside Walk", "Hamza
Walsh", "delayed UA945, so I switched your second flight to LH765", "for 12:00,30 minutes
after"; and a regression of the
first ("TIE-23 at Boatyard Lane - the only tie for Corn Exchange's 2.6 MW -": an aside, not a
new section) before it landed."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache

import pytest

from sttui.bridges.episodes import Stepper, baseline_actions, select_tasks
from sttui.core.actions import Action, Say
from sttui.core.checklist import score
from sttui.core.report_facts import Resolved
from sttui.core.reports import _all_facts
from sttui.core.verdicts import SATISFIED
from tests.conftest import ROOT


def _twelve(m: re.Match[str]) -> str:
    hour, minute = int(m[1]), m[2]
    half = "am" if hour < 12 else "pm"
    return f"{hour % 12 or 12}{'' if minute == '00' else ':' + minute}{half}"


_SENTENCES = re.compile(r"(?<=[.!?])\s+")
_CLOCK = re.compile(r"\b([01]\d|2[0-3]):([0-5]\d)\b")
_ID = re.compile(r"\b([A-Z]{2,5})-(\d+)\b")

# how people write the same message: each must be judged as the message is
TYPED: dict[str, Callable[[str], str]] = {
    "lower case": str.lower,
    "12-hour times": lambda s: _CLOCK.sub(_twelve, s),
    "times with a dot": lambda s: _CLOCK.sub(lambda m: f"{int(m[1])}.{m[2]}", s),
    "times as 0930h": lambda s: _CLOCK.sub(r"\1\2h", s),
    "a dash for a full stop": lambda s: re.sub(r"\.\s+", " - ", s).rstrip("."),
    "ids as van3": lambda s: _ID.sub(lambda m: (m[1] + m[2]).lower(), s),
    "ids as VAN 3": lambda s: _ID.sub(r"\1 \2", s),
    "no apostrophes": lambda s: s.replace("'", "").replace("\u2019", ""),
    "no full stop at the end": lambda s: s.rstrip(".!"),
    "Ive": lambda s: s.replace("I've", "Ive").replace("I have", "Ive").replace("I'm", "Im"),
    "a bullet list": lambda s: "\n".join("- " + x for x in _SENTENCES.split(s.strip())),
    "ticked lines": lambda s: "\n".join("\u2705 " + x for x in _SENTENCES.split(s.strip())),
    "ids in bold": lambda s: re.sub(r"\b([A-Z]{1,5}-?\d+[A-Z]?)\b", r"**\1**", s),
    "& and w/": lambda s: re.sub(r"\btomorrow\b", "tmrw", re.sub(r"\bwith\b", "w/", re.sub(r"\band\b", "&", s))),
    "times as 1445": lambda s: _CLOCK.sub(r"\1\2", s),
    "no punctuation": lambda s: re.sub(r"[.,;:!?]+(\s|$)", r"\1", s),
    "+ for and": lambda s: re.sub(r"\band\b", "+", s),
    "all capitals": str.upper,
    "no space after a stop": lambda s: re.sub(r"([.,])\s+(?=\S)", r"\1", s),
    "Title Case": lambda s: re.sub(r"\b([a-z])", lambda m: m[1].upper(), s),
    "a line per clause": lambda s: re.sub(r"[,;]\s+", "\n", s),
}
# rewrites the judge fails, the known gaps: "MRI 1030 on Northgate's scanner" (a code's
# letters before four digits: MRI-1030 could be an id); with no stop at all, "so I re-planned
# Westfield VAN-42" claims a plan of VAN-42, and
# "VAN-3 collects her from home at 09:55 Kwame Allied Mutual …" runs one subject into the next
TYPED_LEFT = {
    ("clinic-mri-quench-cascade-st2-hard", "times as 1445"),
    ("logistics-chemo-release-slip-t3-hard", "no punctuation"),
    ("clinic-mri-quench-cascade-st2-hard", "no punctuation"),
}

# swaps the judge passes, the known gaps: a list of seats no one's ("33H and 33G": no lie),
# names that overlap (the care home is Wyndham House), and an id given to "it" a sentence back
# ("BOX-3 … It took Greenhill")
SWAPS_LEFT = {
    ("air-aircraft-swap-seats-st1-easy", frozenset({"Daniel's seat", "Hannah's seat"})),
    ("air-kilimanjaro-interline-st3-hard", frozenset({"Hannah's seat", "Michael's seat"})),
    ("grid-huish-flood-levels-s2-hard", frozenset({"Wyndham back", "care home on generator"})),
    ("logistics-vaccine-truck-outbreak-st1-hard", frozenset({"Greenhill vehicle", "Ashby vehicle"})),
}

# lies the judge passes, the known gaps: none ("on the Solan (FB-2) … The Solan draws too much",
# the record named right again without its id, had passed; test_heldout_domains has it)
LIES_LEFT: set[tuple[str, str]] = set()

# the bundled tasks, and the three domains outside testers wrote from the docs
FOLDERS = [ROOT / "tasks" / "stt", *sorted((ROOT / "tests" / "fixtures" / "heldout").glob("*/"))]
TASKS = {
    t.id: t
    for folder in FOLDERS
    for t in select_tasks("stt", folder=folder)
    if t.task.level != "impossible" and t.task.solution
}


@cache
def _oracle(task_id: str) -> list[Action]:
    t = TASKS[task_id]
    return baseline_actions(t, "oracle", t.task.seed)[0]


def _play(task_id: str, rewrite: Callable[[str], str] = lambda s: s, last: str | None = None) -> Stepper:
    """The oracle's actions, its messages rewritten, or its last message replaced by ``last``."""
    t = TASKS[task_id]
    actions = _oracle(task_id)
    final = max(i for i, a in enumerate(actions) if isinstance(a, Say))
    stepper = Stepper(t, t.task.seed)
    stepper.reset()
    for i, a in enumerate(actions):
        if stepper.done:
            break
        if isinstance(a, Say):
            a = Say(last if i == final and last is not None else rewrite(a.text))
        stepper.step(a)
    return stepper


def _failing(stepper: Stepper) -> list[str]:
    outcome = score(stepper.episode)
    stepper.close()
    return [f"{i.id}: {i.detail}" for i in outcome.items if not i.passed]


def _reports() -> list[str]:
    return sorted(i for i in TASKS if any(isinstance(a, Say) for a in _oracle(i)))


@pytest.mark.parametrize("task_id", _reports())
def test_the_oracles_report_as_people_type_it_passes(task_id):
    assert _failing(_play(task_id)) == []
    failed = {
        name: _failing(_play(task_id, rewrite)) for name, rewrite in TYPED.items() if (task_id, name) not in TYPED_LEFT
    }
    assert {name: f for name, f in failed.items() if f} == {}


def _shifted(written: str) -> str | None:
    m = re.match(r"^(\d{1,2})([:.h]?)(\d{2})(.*)$", written)
    if m is None:
        return None
    minutes = (int(m[1]) * 60 + int(m[3]) + 20) % (24 * 60)
    return f"{minutes // 60:0{len(m[1])}d}{m[2]}{minutes % 60:02d}{m[4]}"


def _slipped(task_id: str, final: str) -> list[tuple[Resolved, str, str]]:
    """``_others`` whose value the report writes once, where a slip put right can go: a name the
    report names again later ("… so Hearth, sorry, Ember Kitchen's truck comes … catered by
    Hearth") is stated after its slip, and that decides."""
    return [o for o in _others(task_id, final) if o[0].kind in ("id", "time") or final.lower().count(o[1].lower()) == 1]


def _shown(value: object) -> str:
    return " ".join(value).title() if isinstance(value, tuple | list) else str(value).title()


def _facts(task_id: str, final: str) -> list[tuple[Resolved, str]]:
    """The task's facts after the oracle's play, each with its value as the last report writes it."""
    stepper = _play(task_id)
    facts = [r for _, rs in _all_facts(stepper.episode) for r in rs if r.problem is None]
    stepper.close()
    out = []
    for fact in facts:
        hits = [f for f in fact.found(final) if fact.matches(f)]
        if hits:
            out.append((fact, hits[0].written))
    return out


def _last_report(task_id: str) -> str:
    return [a.text for a in _oracle(task_id) if isinstance(a, Say)][-1]


@pytest.mark.parametrize("task_id", _reports())
def test_a_lie_in_the_oracles_report_fails(task_id):
    final = _last_report(task_id)
    lies = []
    for fact, written in _facts(task_id, final):
        if fact.kind == "time":
            wrong = _shifted(written)
        else:
            rivals = [r for r in fact.rivals if str(r).lower() != str(fact.expected).lower()]
            wrong = _shown(rivals[0]) if rivals else None
        if wrong is None or wrong.lower() in final.lower() or (task_id, fact.name) in LIES_LEFT:
            continue
        lie = re.sub(re.escape(written), wrong, final, flags=re.IGNORECASE)
        if lie != final:
            lies.append((fact.name, lie))
    passed = [(name, lie) for name, lie in lies if not _failing(_play(task_id, last=lie))]
    assert passed == []


@pytest.mark.parametrize("task_id", _reports())
def test_a_name_in_the_oracles_report_typed_with_one_typo_passes(task_id):
    """Each name or place the last report gives (its last word of five letters or more) typed
    with a letter doubled and, apart, with its last two letters swapped: the name all the same."""
    final = _last_report(task_id)
    failed = []
    for fact, written in _facts(task_id, final):
        last = written.split()[-1] if fact.kind in ("person", "text") else ""
        if len(last) < 5 or not last.isalpha():
            continue
        for typo in (lambda w: w[:-1] + w[-2:], lambda w: w[:-2] + w[-1] + w[-2]):
            typed = re.sub(rf"\b{re.escape(last)}\b", lambda m, typo=typo: typo(m.group()), final, flags=re.IGNORECASE)
            if typed != final and _failing(_play(task_id, last=typed)):
                failed.append((fact.name, typo(last)))
    assert failed == []


def _swapped(text: str, a: str, b: str) -> str:
    """``text`` with ``a`` and ``b`` (each written once) in each other's places."""
    out = re.sub(re.escape(a), "\0", text, flags=re.IGNORECASE)
    return re.sub(re.escape(b), a, out, flags=re.IGNORECASE).replace("\0", b)


@pytest.mark.parametrize("task_id", _reports())
def test_two_values_of_one_list_swapped_fail(task_id):
    final = _last_report(task_id)
    found = _facts(task_id, final)
    swaps = []
    for i, (a, wa) in enumerate(found):
        for b, wb in found[i + 1 :]:
            if a.kind != b.kind or a.expected == b.expected or (a.kind != "time" and b.expected not in a.rivals):
                continue
            if wa.lower() in wb.lower() or wb.lower() in wa.lower():
                continue
            if final.lower().count(wa.lower()) != 1 or final.lower().count(wb.lower()) != 1:
                continue
            if (task_id, frozenset({a.name, b.name})) in SWAPS_LEFT:
                continue
            swaps.append(((a.name, b.name), _swapped(final, wa, wb)))
    passed = [(names, lie) for names, lie in swaps if not _failing(_play(task_id, last=lie))]
    assert passed == []


def test_the_known_gaps_are_still_gaps():
    """A gap closed is a row to drop: each lie and swap left is still passed, each rewrite left
    still failed (else the lists lie)."""
    for task_id, name in sorted(TYPED_LEFT):
        assert _failing(_play(task_id, TYPED[name])) != [], (task_id, name)
    for task_id, name in sorted(LIES_LEFT):
        final = _last_report(task_id)
        fact, written = next((f, w) for f, w in _facts(task_id, final) if f.name == name)
        wrong = _shown(next(r for r in fact.rivals if str(r).lower() != str(fact.expected).lower()))
        lie = re.sub(re.escape(written), wrong, final, flags=re.IGNORECASE)
        assert _failing(_play(task_id, last=lie)) == [], (task_id, name)
    for task_id, names in sorted(SWAPS_LEFT, key=lambda r: r[0]):
        final = _last_report(task_id)
        wa, wb = [w for f, w in _facts(task_id, final) if f.name in names]
        assert _failing(_play(task_id, last=_swapped(final, wa, wb))) == [], (task_id, names)


def test_the_sweep_covers_the_bundled_tasks_and_the_held_out_domains():
    assert len(_reports()) >= 60 and any(t.startswith("windfarm-") for t in _reports())


def _lies_and_swaps(task_id: str) -> list[tuple[str, str]]:
    """(what was lied about, the last report so lied in): each fact's value replaced as
    ``test_a_lie_in_the_oracles_report_fails`` does, and each pair swapped as
    ``test_two_values_of_one_list_swapped_fail`` does, but for the known gaps."""
    final = _last_report(task_id)
    found = _facts(task_id, final)
    out = []
    for fact, written in found:
        if fact.kind == "time":
            wrong = _shifted(written)
        else:
            rivals = [r for r in fact.rivals if str(r).lower() != str(fact.expected).lower()]
            wrong = _shown(rivals[0]) if rivals else None
        if wrong is not None and wrong.lower() not in final.lower() and (task_id, fact.name) not in LIES_LEFT:
            out.append((fact.name, re.sub(re.escape(written), wrong, final, flags=re.IGNORECASE)))
    for i, (a, wa) in enumerate(found):
        for b, wb in found[i + 1 :]:
            if a.kind != b.kind or a.expected == b.expected or (a.kind != "time" and b.expected not in a.rivals):
                continue
            unique = final.lower().count(wa.lower()) == 1 and final.lower().count(wb.lower()) == 1
            inside = wa.lower() in wb.lower() or wb.lower() in wa.lower()
            if unique and not inside and (task_id, frozenset({a.name, b.name})) not in SWAPS_LEFT:
                out.append((f"{a.name} / {b.name}", _swapped(final, wa, wb)))
    return out


# lies with no punctuation at all that the judge passes, the known gaps: "Halima authorisation moved … Kwame Allied Mutual …" (names with no verb after them), "TIE-35 at
# Curry Rivel the only tie …", "GEN-4 the only set big enough goes to St Bride's the smaller GEN-9
# covers Fernside farm" (an aside that names what the next group is of)
RUN_ON_LEFT = {
    # ("… on KL1189 direct 19:10 Ingrid and Sara via Oslo on KL1143 …": a name then "and")
    ("air-bergen-reaccommodation-t2-hard", "Bjorn's flight / Ingrid's first flight"),
    ("clinic-mri-quench-cascade-st2-hard", "Halima's pickup / Kwame's MRI"),
    ("grid-huish-flood-levels-s2-hard", "Muchelney back / care home on generator"),
    ("grid-st-brides-hospital-trip-t2-medium", "hospital generator / farm generator"),
    # ("… goes on the Solan (Fb-2) with Morag Sinclair The Solan draws too much …": one clause,
    # in which the words that could put the boat there stand)
    ("harbour-rhona-off-sick-st2-hard", "boat"),
}


# … and with no space after a stop or a comma: "TIE-35 at Curry Rivel,the only tie that can
# carry Wyndham's 2.4 MW - back at 09:39,which is after the care home's fuel runs out"
GLUED_LEFT = {("grid-huish-flood-levels-s2-hard", "Muchelney back / care home on generator")}


@pytest.mark.parametrize("task_id", _reports())
@pytest.mark.parametrize(
    "rewrite",
    [
        "times as 1445",
        "no punctuation",
        "+ for and",
        "all capitals",
        "no space after a stop",
        "ids as van3",
        "lower case",
        "a dash for a full stop",
        "a line per clause",
    ],
)
def test_a_lie_or_swap_written_as_people_type_fails(task_id, rewrite):
    """Values read in more places ("the 1700 session", "runs 1430-1630") read the wrong ones
    too, and a run with no stop ("CR-91 on Gorse CR-92 from Fell Gate on Heather") gives each
    group's value to its own subject: every lie and swap, so rewritten, still fails."""
    typed = TYPED[rewrite]
    left = {"no punctuation": RUN_ON_LEFT, "no space after a stop": GLUED_LEFT}.get(rewrite, set())
    lies = [(name, typed(lie)) for name, lie in _lies_and_swaps(task_id) if (task_id, name) not in left]
    passed = [(name, lie) for name, lie in lies if not _failing(_play(task_id, last=lie))]
    assert passed == []


def test_the_run_on_gaps_are_still_gaps():
    """A gap closed is a row to drop (else the list lies)."""
    for rewrite, left in (("no punctuation", RUN_ON_LEFT), ("no space after a stop", GLUED_LEFT)):
        for task_id, name in sorted(left):
            lie = dict(_lies_and_swaps(task_id))[name]
            assert _failing(_play(task_id, last=TYPED[rewrite](lie))) == [], (task_id, name, rewrite)


# a sentence appended to the last report: a correction to another value (each must fail), or a
# remark on another value (each must pass); R the other value, W the fact's as the report writes it
_EITHER = (" Correction: {r}, not {w}.", " Sorry, I meant {r}.", " Actually, make that {r}.", " Wait, no: {r}.",
           " My mistake, it's {r}.", " I misspoke - {r}.", " On second thought, {r}.", " Actually it's {r}.")  # fmt: skip
CORRECTIONS = {
    "id": (*_EITHER, " Update: it's now on {r}.", " Change of plan: {r} instead.", " {w} fell through, so it's on {r}.",
           " It went on {r} in the end.", " Swapped to {r} at the last minute.", " It was on {w}, now it's on {r}.",
           " {w} was the plan, now {r}.", " Old: {w} / New: {r}.", " {w} swapped out for {r}.", " {r} replaced {w}."),
    "time": (*_EITHER, " Update: it's now {r}.", " It's been moved to {r}.", " That got pushed back to {r}.",
             " In the end it's {r}."),
    "text": (*_EITHER, " Update: it's now at {r}.", " Change of plan: {r} instead.", " {w} fell through, so it's at {r}.",
             " It went to {r} in the end.", " It was at {w}, now it's at {r}.", " Old: {w} / New: {r}."),
    "person": (*_EITHER, " Update: it's now with {r}.", " Change of plan: {r} instead.", " {w} fell through, so it's {r}.",
               " It went to {r} in the end.", " It was with {w}, now it's with {r}.", " Old: {w} / New: {r}."),
}  # fmt: skip
REMARKS = {
    "id": (" {r} was my first choice.", " {r} is out of service.", " {r} was considered but {w} is better.",
           " {r} is on standby.", " If {w} breaks down, {r} is the backup.", " To be clear, it is {w}, not {r}.",
           " If {w} breaks down I'll switch to {r}.", " Should I also book {r} as a backup?",
           " I haven't moved it to {r}.", " {r} wasn't needed in the end.", " Is that OK?",
           " Nothing changed for {r}.", " {r} is back in service now.", " It was on {r}, now it's on {w}.",
           " Old: {r} / New: {w}.", " {w} replaced {r}."),
    "time": (" {r} was too tight.", " It was originally {r}.", " If it slips I'll move it to {r}.",
             " Would {r} suit better?", " It wasn't moved to {r}.", " I couldn't get {r}."),
    "text": (" {r} was my first choice.", " {r} was considered but {w} is better.", " {r} is the backup.",
             " Should I also book {r} as a backup?", " {r} wasn't needed in the end.", " Nothing changed for {r}.",
             " I looked at {r} too.", " {r} was full.", " {r} couldn't do it.",
             # … or at other work (a verb after a name puts it to use only where the expected is
             # named as failed or weighed up alone)
             " {r} is hosting another event.", " {r} is running as normal.", " {r} took the overflow.",
             " Actually, {r} was fully booked.", " It was at {r}, now it's at {w}."),
    "person": (" {r} was my first choice.", " {r} was considered but {w} is better.", " {r} is the backup.",
               " Should I also book {r} as a backup?", " {r} wasn't needed in the end.", " I looked at {r} too.",
               " {r} was busy.", " {r} is off today.", " Nothing changed for {r}.",
               " {r} runs the front desk today.", " {r} is covering another shift.", " {r} is working elsewhere.",
               " {r} took the morning off.", " Actually, {r} is on leave this week.", " It was with {r}, now it's with {w}."),
}  # fmt: skip


def _others(task_id: str, final: str) -> list[tuple[Resolved, str, str]]:
    """(fact, its value as the last report writes it, another value the report does not name)
    for each id, time, text and person fact: an id or a name of its list no fact of the report
    holds, or a time 20 minutes off."""
    found = _facts(task_id, final)
    theirs = {_shown(f.expected).lower() for f, _ in found}
    out = []
    for fact, written in found:
        if fact.kind in ("id", "text", "person"):
            rivals = [
                _shown(r)
                for r in fact.rivals
                if _shown(r).lower() not in theirs and _shown(r).lower() not in final.lower()
            ]
            other = (rivals[0].upper() if fact.kind == "id" else rivals[0].title()) if rivals else None
        elif fact.kind == "time":
            other = _shifted(written)
            other = None if other is None or other.lower() in final.lower() else other
        else:
            other = None
        at = final.lower().find(written.lower())  # (a name is found as its folded words: as written)
        if other is not None and at >= 0:
            out.append((fact, final[at : at + len(written)], other))
    return out


def _shown(value: object) -> str:
    """A fact's value as text: a name's words joined ("Assembly Rooms"), an id as it is."""
    return " ".join(value) if isinstance(value, list | tuple) else str(value)


@pytest.mark.parametrize("task_id", _reports())
def test_a_correction_at_the_end_of_the_oracles_report_decides(task_id):
    """ "… on VAN-5. Correction: VAN-2, not VAN-5.", "… Sorry, I meant VAN-2.", "… Update: it's
    now on VAN-2." and "… It went on VAN-2 in the end." had passed almost every time: a message
    stating the expected value passed, whatever it said of it after. The correction decides
    (``core.corrections``); a remark on another value does not ("VAN-2 is on standby" had
    failed). Not probed: a value that is another fact's of the report ("I meant BA1437" after
    Mairi's BA1437 may be about Mairi)."""
    final = _last_report(task_id)
    wrong_passed, right_failed = [], []
    for fact, written, other in _others(task_id, final):
        for said in CORRECTIONS[fact.kind]:
            if not _failing(_play(task_id, last=final + said.format(r=other, w=written))):
                wrong_passed.append((fact.name, said))
        for said in REMARKS[fact.kind]:
            failing = _failing(_play(task_id, last=final + said.format(r=other, w=written)))
            if failing:
                right_failed.append((fact.name, said, failing[0][:160]))
    assert wrong_passed == [] and right_failed == []


@pytest.mark.parametrize("task_id", _reports())
def test_a_slip_put_right_in_the_oracles_report_decides(task_id):
    """ "… moved you to KL643, sorry, DL49 …" had passed 129 of 135 oracle reports so typed (the
    expected value was stated), and "… to DL49, sorry, KL643 …" failed 10 as an unsupported
    claim of DL49: the value after the slip is the one stated (``core.stated``), for the claims
    too, and it decides (``core.corrections``)."""
    final = _last_report(task_id)
    wrong = []
    for fact, written, other in _slipped(task_id, final):
        at = final.find(written)
        forms = [("{w}, sorry, {r}", False), ("{r}, sorry, {w}", True), ("{w} - oops, {r}", False)]
        if fact.kind in ("id", "time"):  # a figure put right by one of its own form
            forms += [("{w} - no, {r}", False), ("{r} - no, {w}", True), ("{w} (I mean {r})", False)]
        for form, passes in forms:
            report = final[:at] + form.format(r=other, w=written) + final[at + len(written) :]
            if (not _failing(_play(task_id, last=report))) is not passes:
                wrong.append((fact.name, form))
    assert wrong == []


# a change marked as lists and chats mark one, in place of the value: an arrow to the value now
# (not for a time: "AMS 11:45 → JFK 20:00" is a leg), what it was in a bracket, a cross on what
# failed (on a figure)
_STOOD_IN = (("{w} (standing in for {r})", True), ("{r} (standing in for {w})", False), ("{w} in lieu of {r}", True),
             ("{r} in lieu of {w}", False))  # fmt: skip
MARKED = {
    "id": (("{r} → {w}", True), ("{w} → {r}", False), ("{w} -> {r}", False), ("{w} (was {r})", True),
           ("{r} (was {w})", False), ("{w} ✅ ({r} ❌)", True), ("{r} ✅ ({w} ❌)", False), ("{w} (before: {r})", True),
           ("{r} (before: {w})", False), *_STOOD_IN, ("{w} (in for {r})", True), ("{r} (in for {w})", False)),
    "time": (("{w} (was {r})", True), ("{r} (was {w})", False), ("{r} ✅ ({w} ❌)", False)),
    "text": (("{r} → {w}", True), ("{w} → {r}", False), ("{w} (was {r})", True), ("{r} (was {w})", False),
             ("{w} (before: {r})", True), ("{r} (before: {w})", False), ("{w} ✅ ({r} ❌)", True),
             ("{r} ✅ ({w} ❌)", False), *_STOOD_IN),
    "person": (("{r} → {w}", True), ("{w} → {r}", False), ("{w} (was {r})", True), ("{r} (was {w})", False),
               ("{w} (before: {r})", True), ("{r} (before: {w})", False), ("{w} ✅ ({r} ❌)", True),
               ("{r} ✅ ({w} ❌)", False), *_STOOD_IN),
}  # fmt: skip


def _marked(task_id: str, final: str) -> list[tuple[Resolved, str, str]]:
    """``_others`` whose value the report names once (one it names again, by its id or its
    record's name, is stated there: "… CR-40 → CR-41 … CR-40 is on Foxhole", "Morfa Star (CTV-5
    → CTV-6)"), where the other value is one the fact's reading finds."""
    return [
        (fact, written, other)
        for fact, written, other in _others(task_id, final)
        if final.lower().count(written.lower()) == 1
        and sum(fact.matches(f) for f in fact.found(final)) == 1
        and fact.found(f"It is {other} now.")
        and not (fact.kind == "person" and re.search(rf"[A-Z]\w*\s+{re.escape(written)}", final))
    ]  # (a surname after its first name: "Jun Park → Chan" still names Jun)


def marked(final: str, written: str, form: str, other: str) -> str:
    """The report with ``written`` (found in any case: a name's reading folds it) in ``form``."""
    at = final.lower().find(written.lower())
    assert at >= 0, (written, final)
    as_written = final[at : at + len(written)]
    return final[:at] + form.format(r=other, w=as_written) + final[at + len(written) :]


@pytest.mark.parametrize("task_id", _reports())
def test_a_change_marked_with_an_arrow_a_bracket_or_a_cross_decides(task_id):
    """ "Vehicle: TRK-9 → TRK-7", "TRK-7 (was TRK-9)", "TRK-9 ✗ TRK-7 ✓" and "Vehicle: TRK-7
    (TRK-9 unavailable)" had passed the insulin task, whose insulin went on TRK-9: the expected
    value was named, and nothing read the arrow, the bracket or the cross. The value an arrow
    leads from is what it was changed from (``report_changes.unarrowed``), a bracket
    "(was …)" and a cross leave a value unstated (``core.stated``)."""
    final = _last_report(task_id)
    wrong = []
    for fact, written, other in _marked(task_id, final):
        for form, passes in MARKED.get(fact.kind, ()):
            if (not _failing(_play(task_id, last=marked(final, written, form, other)))) is not passes:
                wrong.append((fact.name, form))
    assert wrong == []


# a doubt said of every sentence of a report, as people put it: before it ("{s}" is the sentence,
# its first letter lower case) or after it ("{s}" without its closing stop)
DOUBTS = (
    "To the best of my knowledge, {s}",
    "From what I can see, {s}",
    "If I'm reading this right, {s}",
    "My understanding is that {s}",
    "I'm fairly confident {s}",
    "{s}, or so the system says.",
    "{s}, I'm told.",
    "{s} - can't be 100% sure though.",
    "{s}, but don't quote me on that.",
    "{s}, unless I'm wrong.",
    "{s} (not verified).",
    "{s}, I'd imagine.",
)


def _doubted(final: str, form: str) -> str:
    """``final`` with ``form`` said of each of its sentences."""
    out = []
    for s in _SENTENCES.split(final.strip()):
        if not s:
            continue
        if form.startswith("{s}"):
            out.append(form.format(s=s.rstrip(".!")))
        else:
            out.append(form.format(s=s[0].lower() + s[1:]))
    return " ".join(out)


@pytest.mark.parametrize("task_id", _reports())
def test_a_report_doubted_in_every_sentence_fails_and_is_asked_about(task_id):
    """ "To the best of my knowledge, …", "…, I'm told.", "If I'm reading this right, …" and
    "… (not verified)" had passed and satisfied the scripted user: a doubt the judge reads
    (``core.stated``) leaves its sentence unstated, and the scripted user asks for a clear
    answer to it (``usersim.hedge``). Three forms a report, in turn, so every form meets every
    domain."""
    final = _last_report(task_id)
    start = _reports().index(task_id) * 3
    wrong = []
    for form in (DOUBTS[(start + k) % len(DOUBTS)] for k in range(3)):
        stepper = _play(task_id, last=_doubted(final, form))
        verdict = stepper.episode.user_verdict
        satisfied = verdict is not None and verdict["verdict"] == SATISFIED
        if not _failing(stepper) or satisfied:
            wrong.append(form)
    assert wrong == []
