"""Where a report places a value (``core.reports``): given to the fact ("went on TRK-7", "CR-14
is on Hawthorn"), only remarked on ("FYI TRK-7 is out of service", "I've flagged TRK-7"), or
named as what failed ("TRK-9 broke down, so it went on TRK-7"). The rules, word rules a person
can apply by hand, are in task format §5 ("Which message counts", "The conflict rule")."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from functools import lru_cache
from typing import TYPE_CHECKING

from sttui.core import facts
from sttui.core.attach import sentences
from sttui.core.report_changes import ARROW_BEFORE
from sttui.core.report_names import another_beside
from sttui.core.stated import DOING, stated_text
from sttui.core.written_forms import DOES_IT

if TYPE_CHECKING:
    from sttui.core.report_facts import Resolved


# a message that opens as a side remark, of any fact's kind: "FYI Grace took the 11:30 slot"
REMARK = re.compile(r"\W*(?:fyi|btw|p\.?s\.?|by the way|just so you know|side note|just a note)\b", re.IGNORECASE)
# … unless it corrects the report: "FYI the insulin actually ended up on TRK-7", "FYI, one last
# change: Daniel's seat is now 27E"
_CORRECTING = re.compile(
    r"\b(?:actually|correction|in fact|ended up|instead|sorry|my mistake|scratch that|i meant|meant to say"
    r"|change|changed|update|updated|(?:is|are|'s) now|now (?:on|at|in|with))\b",
    re.IGNORECASE,
)


def is_remark(text: str) -> bool:
    """Whether a message opens as a side remark (``REMARK``) and corrects nothing."""
    return REMARK.match(text) is not None and _CORRECTING.search(text) is None


# a sentence saying where someone else is: "Dr Feld is at Harbourside today", "Leah's over at the
# Riverside Centre from 1pm" (after a lead-in: "Also, …")
_WHEREABOUTS = re.compile(
    r"(?:(?:also|and|meanwhile|oh)\W+)*(?:(?:dr|mr|mrs|ms|prof|nurse)\.?\s+)?([^\W\d_]+)(?:\s+([^\W\d_]+))?"
    r"(?:'s|\s+is|\s+are)\s+(?:now\s+|also\s+|still\s+)?(?:over\s+|based\s+|working\s+|on\s+duty\s+)?(?:at|in)\b"
)
# … but not where it says they do the work: "Leah's over at the Court Room on the kit"
_AT_WORK = re.compile(
    r"\b(?:on the|runs?|running|takes?|taking|took|covers?|covering|handles?|handling|does|doing|with|for)\b"
)
_SENTENCES = re.compile(r"(?<=[.!?])\s+|\n+")
_TO_THE_USER = re.compile(r"\b(?:you|your|yours)\b")


def whereabouts(text: str, facts_: Iterable[Resolved]) -> bool:
    """Whether every sentence of a message says where a person is who is on a ``person`` fact's
    list but not the one expected ("Dr Feld is at Harbourside today" after "booked with Dr
    Okafor"), correcting nothing, saying nothing to the user and stating no expected value of
    any fact: a remark, like an FYI."""
    names: set[str] = set()
    for f in facts_:
        if f.kind == "person" and f.problem is None:
            names.update(str(r) for r in f.rivals[1:])  # (the first is the expected one)
            names.update(first for first, surname in f._first.items() if surname != f.expected)
    if not names or not _whereabouts(text, frozenset(names)):
        return False
    # not where the expected values are: "Dr Feld is at Westbrook at 14:30" says he took it
    return not any(f.matches(v) for f in facts_ if f.problem is None for v in f.found(text))


@lru_cache(maxsize=1024)
def _whereabouts(text: str, names: frozenset[str]) -> bool:
    folded = facts.fold(text)
    if _CORRECTING.search(folded) or _TO_THE_USER.search(folded):
        return False
    said = [s.strip() for s in _SENTENCES.split(folded) if s.strip()]
    for sentence in said:
        m = _WHEREABOUTS.match(sentence)
        if m is None or names.isdisjoint(g for g in m.groups() if g) or _AT_WORK.search(sentence, m.end()):
            return False
    return bool(said)


# the words that give the id after them a place in the report ("went on TRK-7", "it's TRK-7",
# "moved to seat 12C", "sorry, TRK-7"); what else comes before an id is a remark about it
# ("FYI TRK-7 is out of service", "I've flagged TRK-7 to the workshop")
_PLACING = frozenset({"on", "onto", "in", "into", "to", "with", "by", "via", "aboard", "at", "for", "from", "is", "s",
                      "are", "was", "were", "be", "been", "now", "meant", "instead", "actually", "correction",
                      "sorry", "rather", "used", "using", "took", "taking", "chose", "picked", "has", "have"}
                     | DOING)  # fmt: skip


# a verb of weighing a record up before the word that would place it: "looked at the Corn
# Exchange", "looked into TRK-9", "thought about the Harbour Centre" name it, and place it nowhere
_WEIGHED = frozenset({"looked", "look", "looking", "considered", "considering", "thought", "thinking", "checked",
                      "checking", "asked", "enquired", "inquired"})  # fmt: skip


def _placing(words: list[str], placing: frozenset[str] = _PLACING) -> bool:
    """Whether the few words before a value put it there (one of ``placing``), but for the word
    of one only weighed up (``_WEIGHED`` just before it: "looked at")."""
    return any(w in placing and (i == 0 or words[i - 1] not in _WEIGHED) for i, w in enumerate(words))


_NOTHING = re.compile(r"\b(?:nothing|no|unchanged)\b")


def _no_change(text: str, at: int) -> bool:
    """Whether the words of ``text`` (as written) before ``at`` say nothing changed for the
    value there ("Nothing changed for TRK-22", "no change to", "unchanged for"): a remark, not
    a placing ("change to TRK-22" places)."""
    words = _WORDS.findall(facts.fold(text[max(0, at - 40) : at]))[-4:]
    return "unchanged" in words or (
        not {"nothing", "no"}.isdisjoint(words) and any(w.startswith("change") for w in words)
    )


_CLAUSE_MARK = re.compile(r"[;:.!?()]|\s[-\u2013\u2014]\s")
_WORDS = re.compile(r"[^\W\d_]+")
# after the id (and where it came from: "CR-14 from Sarn is on Hawthorn"): "instead" within its
# clause, or a verb of carrying it out ("CR-14 is on Hawthorn",
# "VAN-5 picks him up", "TRK-9 has it"; not "is standing by", "is out of service", "left for")
_PLACING_AFTER = re.compile(
    r"(?:(?:\s+[^\W\d_]+){0,4}?\s+instead\b"
    r"|(?:\s+from(?:\s+[^\W\d_]+){1,3}?(?=\s+(?:is|are|was|will|now|also|on|has|took|went|going|heading)\b))?"
    r"\s*(?:'s|\s+is|\s+are|\s+was|\s+will|\s+now|\s+also)*\s+(?:on|onto|aboard|with|has|have|had|took|takes|"
    r"taking|picks|picked|collects|collected|carries|carried|carrying|covers|covered|covering|runs|running|goes|"
    r"going|went|heading|gets|got|brings|bringing|does|doing|did|delivers|delivering|delivered)\b"
    r"(?!\s+(?:no|not|nothing|none|back|home|standby|stand-by|reserve|call|hold|(?:a\s+)?(?:backup|spare))\b)"
    r"|\s+(?:has\s+)?replaced\s+(?!by\b))"  # ("TRK-7 replaced TRK-9": not "replaced by")
    # ("CAR-4 has no driver", "CR-12 is heading back", "TRK-22 is on standby", "… on hold": remarks)
)
# a sentence saying the id was not the one used: "TRK-30 is on the M8 run, which is why it wasn't used"
_NOT_USED = re.compile(
    r"\b(?:(?:was|is|were|are)(?:n't|\s+not)|not|never|couldn't\s+be|could\s+not\s+be)\s+(?:being\s+|been\s+)?used\b"
)
_SENTENCE_MARK = re.compile(r"[.!?;\n]")
_USED = re.compile(r"used", re.IGNORECASE)


def placed(fact: Resolved, text: str, ok: bool, rivals: list[str]) -> bool:
    """Whether a message states the value it gives the fact (the expected one when ``ok``,
    else ``rivals``) as the fact's: one of ``_PLACING`` among the three words before it in its
    clause ("on TRK-7", "to the nonstop AA1100"), or a verb of carrying it out after it
    (``_PLACING_AFTER``), not only remarked on. Ids only: a time, a date or a name is given a
    place in more ways than a few words can say ("runs 14:30", "Jun Park")."""
    if fact.kind != "id" or fact._ids is None:
        return True
    return placed_by_words(fact, text, ok, rivals)


def placed_by_words(fact: Resolved, text: str, ok: bool, rivals: list[str]) -> bool:
    """``placed`` read by its words for a name as well as an id: for ``used_instead`` and
    ``put_instead``, which ask of a clause with no failure in it whether it puts a record
    there ("so we went with the Assembly Rooms"), not whether a name is given at all."""
    stated = stated_text(text)
    folded = facts.fold(stated)
    # what a negation says is blanked in ``folded`` ("… why it wasn't used"): read from the text
    # as written, folded only when it has the word at all (this runs for every stating message)
    raw = facts.fold(text) if _USED.search(text) else ""
    if len(raw) != len(folded):
        raw = ""
    if ok:
        rivals = [f.written for f in fact.found(stated) if fact.matches(f)]
    for written in dict.fromkeys(rivals):  # (each once: every place it is written is looked at below)
        w = facts.fold(written)
        start = folded.find(w)
        while start >= 0:
            if (raw and _said_not_used(fact, raw, start, w)) or (
                ok
                and fact._ids is not None
                and another_beside(folded, start, start + len(w), fact.expected, fact._ids) is not None
            ):  # (not used; or the name of the expected record with another's id: "the Solan (FB-2)")
                start = folded.find(w, start + 1)
                continue
            before = _CLAUSE_MARK.split(folded[max(0, start - 80) : start])[-1]  # (its clause, a few words back)
            last = _WORDS.findall(before)[-3:]
            # "on TRK-7", "to the nonstop AA1100"; not "Nothing changed for TRK-22", "no change to"
            # (read as written: "nothing" blanks "changed" in what is stated)
            if _placing(last) and not (_NOTHING.search(before) and _no_change(text, start)):
                return True
            if ARROW_BEFORE.search(before):  # ("TRK-9 → TRK-7": what it was changed to)
                return True
            # "TRK-9 took it instead", "CR-14 is on Hawthorn"; a name doing the work: "Dr Okafor sees her"
            if _PLACING_AFTER.match(folded, start + len(w)) or _does_it(fact, folded, start + len(w)):
                return True
            start = folded.find(w, start + 1)
    return False


def _said_not_used(fact: Resolved, folded: str, at: int, written: str) -> bool:
    """Whether the sentence of the value ``written`` at ``at`` says it was not used
    (``_NOT_USED``, after it, with no other value of the fact's kind between: "TRK-7 has it
    now, TRK-9 wasn't used" says nothing of TRK-7)."""
    ends = _SENTENCE_MARK.search(folded, at)
    said = _NOT_USED.search(folded, at, ends.start() if ends else len(folded))
    if said is None:
        return False
    between = folded[at + len(written) : said.start()]
    return not fact.found(between)


# what says a record failed or could not be used ("TRK-9 broke down", "VAN-4 is too heavy for the
# bridge", "Dr Okafor is off sick"): a value named in such a clause is what failed
FAILED = re.compile(
    r"\b(?:broke|broken|breaks|failed|fails|failure|fault|faulty|defective|stuck|unavailable|cancell?ed|"
    r"closed|too (?:heavy|big|wide|tall|long|far|slow|late|small|low|short)|out of (?:service|action|hours)|"
    r"off sick|sick|pulled|grounded|refused|declined|full|taken|unsafe|flooded|blocked|can't|cannot|couldn't|"
    r"(?:has|have|had) no|lost|missed|needed elsewhere|died|dead|packed (?:up|in)|gave out|conked out|stopped working|"
    r"out of order|overheated|overheating|tripped|(?:went|gone) down|(?:fell|fallen|falls) through|"
    r"(?:is|was|were|are|'s)\s+off(?!\s+(?:to|at|from|for|with|on)\b)|"  # ("Dr Feld is off": not "off to Westbrook")
    r"(?:is|was|were|are|'s)\s+(?:too\s+)?busy(?!\s+(?:[a-z]+ing|with)\b)|"  # ("Jun Park was busy": not "busy with the run")
    r"(?:didn't|did not) work out|"
    # … or already spoken for ("TRK-9 was booked up", "TRK-9 already booked")
    r"booked up|fully booked|already (?:booked|taken|in use|committed|assigned|allocated)|tied up)\b"
    # … or was not free ("It's on TRK-3. TRK-9 wasn't free." passed as naming TRK-9)
    r"|(?:n't|\bnot)\s+(?:free|available|suitable)\b"
    r"|(?:n't|\bnot|\bnever)\s+(?:being\s+|been\s+)?used\b"  # ("TRK-9 wasn't used")
)


# the kinds of fact a record is put to use by ("went on TRK-7", "went with the Assembly Rooms",
# "Dr Feld is seeing her"): an id, a name (a venue, a caterer, a site) or a person
_BY_PLACE = frozenset({"id", "text", "person"})


def used_instead(fact: Resolved, text: str, theirs: list[Resolved], raw: str | None = None) -> list[str]:
    """For an id, a name or a person, when the message names the expected value only as what
    failed ("TRK-9 broke down, so it went on TRK-7"; for a name, the failure said after it),
    the other values it places in clauses saying no failure: the
    ones it says were used instead. Empty when the expected value is named anywhere else.
    ``text`` is the stated text; ``raw``, the message as written, says what a negation there
    blanked ("TRK-9 wasn't used")."""
    if fact.kind not in _BY_PLACE:
        return []
    used: list[str] = []
    for part, written in _parts(text, raw):
        values = fact.found(part)
        if not values:
            continue
        folded = facts.fold(written)
        failed = FAILED.search(folded) is not None
        expected = [f.written for f in values if fact.matches(f)]
        if expected and failed and fact.kind != "id":  # a name fails only after it ("Kelp Wharf is
            # closed"): a place is where things break ("the broken crossarm at Ravens Copse")
            at = min((i for w in expected if (i := folded.find(facts.fold(w))) >= 0), default=-1)
            failed = at >= 0 and FAILED.search(folded, at) is not None
        if expected and not failed:
            return []
        if not failed:
            others = [f.written for f in values if not fact.matches(f) and not fact.excuses(f)]
            others = [w for w in others if not any(o.matches(f) for o in theirs for f in values if f.written == w)]
            if others and placed_by_words(fact, part, False, others):
                used += others
    return list(dict.fromkeys(used))


def _parts(text: str, raw: str | None) -> Iterator[tuple[str, str]]:
    """The message's clauses (``attach.sentences``' parts), each as stated (``text``) and as
    written (``raw``, when it is as long: what a negation there blanked)."""
    raw = raw if raw is not None and len(raw) == len(text) else text
    pos = 0
    for sentence in sentences(text, ()):
        for part in sentence.parts:
            at = text.find(part.text, pos)
            pos = at + len(part.text) if at >= 0 else pos
            yield part.text, raw[at : at + len(part.text)] if at >= 0 else part.text


# the words before an id that put what the report is about on it: "It's going on TRK-7", "went
# with TRK-7", "took TRK-7" (not "is", "to", "for", "at": "the fault report went to TRK-7's driver")
_PUT_ON = frozenset({"on", "onto", "in", "into", "aboard", "with", "via", "using", "used", "took", "chose", "picked", "instead",
                     "rather", "actually", "correction", "meant"})  # fmt: skip
# … and for a name, "at", "to", "by" and "from" as well: "the gala is at the Assembly Rooms",
# "moved it to the Harbour Centre", "seen by Dr Feld", "leaves from North Pier" (a venue, a
# clinician, a berth: nothing is addressed to one the way it is to a truck's driver)
_PUT_AT = _PUT_ON | {"at", "to", "by", "from"}
_DOES_IT = re.compile(DOES_IT)  # (… or doing the work: "Saltmarsh took the job")
# … and a person at any work, the rest of their name between: "Jun Park interpreting", "Mei
# Lin is interpreting" (a first name found, its surname after it)
_AT_WORK_ING = re.compile(r"(?:\s+[^\W\d_]+)?\s+(?:(?:is|are|was|were|will\s+be|now)\s+)?(?:now\s+)?[^\W\d_]{3,}ing\b")
_NOT_WORK = re.compile(
    r"(?:\s+[^\W\d_]+)?\s+(?:(?:is|are|was|were|will\s+be|now)\s+)?(?:now\s+)?(?:nothing|something|anything|everything|morning|evening|during|according|bring|thing)\b"
)


def _does_it(fact: Resolved, folded: str, end: int) -> bool:
    """Whether a name (not an id) that ends at ``end`` is doing the work: a verb of it right
    after (``DOES_IT``), or, for a person, any verb in *-ing* ("Jun Park interpreting")."""
    if fact.kind == "id":
        return False
    if _DOES_IT.match(folded, end):
        return True
    return fact.kind == "person" and _AT_WORK_ING.match(folded, end) is not None and not _NOT_WORK.match(folded, end)


# … or a verb of carrying the goods right after it: "TRK-7 took it", "TRK-7 is delivering them"
_TAKES = re.compile(
    r"\s+(?:is\s+|will\s+)?(?:took|takes|taking|carries|carried|carrying|delivers|delivered|delivering|deliver|"
    r"brings|brought|bringing|has|have|got)\s+(?:it|them|your)\b"
)
# … and in a clause with the expected id, what may place it there, wherever it stands ("I've rebooked
# you both on BA430 to Amsterdam and KLM KL569"): a list or a verb the narrow ``placed`` does not see
_CARRYING = frozenset({"takes", "taking", "has", "have", "had", "carries", "carried", "carrying", "goes", "going",
                       "went", "heading", "runs", "running", "covers", "covering", "collects", "collected", "picks",
                       "brings", "bringing", "arrives", "arriving", "arrive", "arrived", "now", "to", "into", "in",
                       "by", "for"})  # fmt: skip
_PLACES_IT = _PUT_ON | _CARRYING | DOING


def put_instead(fact: Resolved, text: str, theirs: list[Resolved], raw: str | None = None) -> list[str]:
    """For an id, a name or a person the message names but never places, only remarks on in
    clauses with no word that could place it, or weighs up ("I considered TRK-9", "TRK-9 was my
    first choice", "since TRK-9 is busy"), the other values it puts the goods on in a clause
    saying no failure ("It's going on TRK-7", ``_PUT_ON`` just before; for a name ``_PUT_AT``,
    or at the work after it where the expected one is only weighed up or failed): the ones used
    instead. ``text`` is the stated text;
    ``raw`` the message as written (``used_instead``)."""
    if fact.kind not in _BY_PLACE or placed_by_words(fact, text, True, []):
        return []
    text, raw = _ids_for_names(fact, text, raw)
    put_on = _PUT_ON if fact.kind == "id" else _PUT_AT
    # another at the work by a verb after it ("Saltmarsh took the job") counts only where the
    # expected value is named as weighed up or failed alone ("Bramble was my first call"):
    # "Marcus Webb (hybrid-trained) now runs the kit. Bello runs the front desk" puts Bello nowhere
    at_work = _only_weighed_or_failed(fact, text, raw)
    put: list[str] = []
    before = ""  # the piece before, which a list goes on from ("on BA430 … and KLM KL569 (…)")
    labelled: dict[str, bool] = {}  # (a value's label is looked for once: a long message stays linear)
    for piece, written in _pieces(text, raw):
        last, before = before, facts.fold(piece)
        if FAILED.search(facts.fold(written)) is not None:
            continue
        values = fact.found(piece)
        folded = facts.fold(piece)
        expected = [f.written for f in values if fact.matches(f)]
        if expected and not _weighed(folded, expected):
            here = f"{last} {folded}" if _GOES_ON.match(folded) else folded
            if not _PLACES_IT.isdisjoint(_WORDS.findall(_TOO_FOR.sub(_less_for, here))):
                return []  # (the expected id may be placed here)
            continue
        if not _BEFORE_NOW.isdisjoint(_WORDS.findall(folded)):
            continue  # (what it was on before)
        others = [f.written for f in values if not fact.excuses(f)]
        others = [w for w in others if not any(o.matches(f) for o in theirs for f in values if f.written == w)]
        for w in others:
            i = folded.find(facts.fold(w))
            end = i + len(facts.fold(w))
            if i < 0 or folded.startswith(("'s", "\u2019s"), end):
                continue  # (a possessive: "an emergency on VAN-2's route" says nothing of what it carries)
            if (
                _placing(_WORDS.findall(folded[max(0, i - 80) : i])[-3:], put_on)
                or ARROW_BEFORE.search(folded, max(0, i - 20), i)
                or labelled.setdefault(w, _labelled(fact, text, raw, w))
                or _TAKES.match(folded, end)
                or (expected and _PLACING_AFTER.match(folded, end))  # ("… but GEN-11 is on its way")
                or (at_work and _does_it(fact, folded, end))  # ("so Saltmarsh is catering")
            ):
                put.append(w)
    return list(dict.fromkeys(put))


# a label just before a value: "Vehicle: TRK-7", "**Truck:** TRK-7", "- Van = TRK-7"
_LABEL = re.compile(r"(?:^|[\n.;!?|(])[\s*_#>|\u2022-]*([^\W\d_]+)[\s*_]*[:=][\s*_]*$")


def _labelled(fact: Resolved, text: str, raw: str | None, written: str) -> bool:
    """Whether ``written`` stands right after a label that names the fact, opening its line or
    sentence (its name, a word it is named by, an alias: "Vehicle: TRK-7", "Truck: TRK-7"):
    what a list or a table of fields gives the fact. Looked for in the message as written."""
    source = facts.fold(raw if raw is not None and len(raw) == len(text) else text)
    names = set(facts.words(fact.name)) | set(fact._cues)
    if fact._ids is not None:
        names |= set(fact._ids.aliases)
    w = facts.fold(written)
    start = source.find(w)
    while start >= 0:
        label = _LABEL.search(source, max(0, start - 40), start)
        if label is not None and label[1].removesuffix("s") in {n.removesuffix("s") for n in names}:
            return True
        start = source.find(w, start + 1)
    return False


# a piece going on with a list from the one before: "… on BA430 to Amsterdam and KLM KL569 (…)"
_GOES_ON = re.compile(r"\s*(?:and|&|plus|as\s+well\s+as)\s")


# what says a value was only thought of: "Ardmore Quay was my first thought"
_WEIGHED_AFTER = re.compile(
    r"\s+(?:was|were|is)\s+(?:my|our|the|an?)\s+(?:first|original|initial|other|earlier|old)\s+"
    r"(?:thought|choice|option|idea|plan|pick|preference|call)\b"
)


def _only_weighed_or_failed(fact: Resolved, text: str, raw: str | None) -> bool:
    """Whether every piece of the message naming the expected value weighs it up (``_weighed``)
    or says it failed (``FAILED``, after it for a name), and one does."""
    named = False
    for piece, written in _pieces(text, raw):
        expected = [f.written for f in fact.found(piece) if fact.matches(f)]
        if not expected:
            continue
        named = True
        folded = facts.fold(written)
        at = min((i for w in expected if (i := folded.find(facts.fold(w))) >= 0), default=0)
        if not (_weighed(facts.fold(piece), expected) or FAILED.search(folded, 0 if fact.kind == "id" else at)):
            return False
    return named


def _weighed(folded: str, written: list[str]) -> bool:
    """Whether each of ``written`` (the expected value, as a piece of the message writes it)
    stands right after a word that only weighs it up (``_WEIGHED``: "I looked at GEN-12 but
    GEN-11 is on its way" places GEN-12 nowhere, whatever else the piece says), or before words
    saying it was only thought of (``_WEIGHED_AFTER``: "Ardmore Quay was my first thought but
    the Selkie leaves from North Pier")."""
    seen = False
    for w in written:
        w = facts.fold(w)
        at = folded.find(w)
        while at >= 0:
            before = _WORDS.findall(folded[max(0, at - 30) : at])[-2:]
            if _WEIGHED.isdisjoint(before) and not _WEIGHED_AFTER.match(folded, at + len(w)):
                return False
            seen = True
            at = folded.find(w, at + 1)
    return seen  # (a value found as typed otherwise, "Westbroook", is not found here: not weighed)


# a clause's end within a part: not the colon of a time or the point of a number ("08:40", "2.5")
_PIECE_MARK = re.compile(r"[;()]|:(?!\d)|[.!?](?!\w)|\s[-\u2013\u2014]\s")
# a rival said of before: "The doses were on TRK-7 before its fridge went"
# … or kept where it was: "Kept the Sarn job with CR-12", "CR-12 stays on standby"
_BEFORE_NOW = frozenset({"was", "were", "before", "originally", "previously", "initially", "earlier", "old", "had"}
                        | {"kept", "keep", "keeping", "stays", "stay", "staying", "left", "remains", "still"})  # fmt: skip


# what is too much for a place says it is not put there: "The Solan draws too much for Sealock
# Marina" places the Solan nowhere (its "for" is not the "for" of "FB-7 for SAIL-301")
_TOO_FOR = re.compile(r"\btoo\s+(?:[\w'-]+\s+){1,2}?for\b")


def _ids_for_names(fact: Resolved, text: str, raw: str | None) -> tuple[str, str | None]:
    """``text`` (and ``raw``) with each name of the expected record that has another record's
    id beside it in brackets written as that id alone, in the name's place: "goes on the Solan
    (FB-2) with" reads "goes on the FB-2 with", which puts FB-2 where a bracket had cut the
    clause in two. Each the same length as before."""
    if fact._names is None or fact._ids is None:
        return text, raw
    folded = facts.fold(text)
    if len(folded) != len(text):
        return text, raw
    for m in fact._names.finditer(folded):
        if fact._named.get(" ".join(m.group().split())) != fact.expected:
            continue
        beside = another_beside(folded, m.start(), m.end(), fact.expected, fact._ids)
        if beside is None:
            continue
        start, end = min(m.start(), beside.start()), max(m.end(), beside.end())
        if beside.start() < m.start() and folded.startswith(")", m.end()):
            end = m.end() + 1  # ("FB-2 (the Solan)": its closing bracket too)
        written = text[beside.start(1) : beside.end(1)]
        text = text[:start] + written.ljust(end - start) + text[end:]
        if raw is not None and len(raw) == len(folded):
            raw = raw[:start] + written.ljust(end - start) + raw[end:]
    return text, raw


def _less_for(m: re.Match[str]) -> str:
    return m.group().removesuffix("for")


def _pieces(text: str, raw: str | None) -> Iterator[tuple[str, str]]:
    """``_parts`` split again at ``_PIECE_MARK`` (a dash, a semicolon, a bracket), each as stated
    and as written."""
    for part, written in _parts(text, raw):
        start = 0
        for mark in _PIECE_MARK.finditer(part):
            yield part[start : mark.start()], written[start : mark.start()]
            start = mark.end()
        yield part[start:], written[start:]


# what says a time was not to be had ("12:10 was too tight", "the 11:45 slot is taken"); not
# *can't* or *cannot*, which a time bounds ("VAN-5 can't come before 12:10")
_TIME_FAILED = re.compile(
    r"\b(?:too (?:tight|early|late|soon|close|short)|taken|gone|full|unavailable|fell through|missed|booked up)\b"
    r"|(?:n't|\bnot|\bno longer)\s+(?:free|available|possible)\b"
)
# … or only weighed up: "I looked at 14:30", "14:30 was my first thought", "the other option"
_TIME_WEIGHED = re.compile(
    r"\b(?:looked\s+at|considered|considering|thought\s+(?:about|of)|checked|asked\s+about|"
    r"(?:was|were|is)\s+(?:my|our|the|an?)\s+(?:first|original|initial|other|earlier|old)\s+"
    r"(?:thought|choice|option|idea|plan|pick|preference|slot))\b"
)
# the words before a time that give it as the one in force: "at 12:30", "moved to 12:30", "it's 15:00"
_AT_TIME = frozenset({"at", "for", "to", "now", "from", "@", "is", "s"})


def time_instead(fact: Resolved, text: str, theirs: list[Resolved], raw: str | None = None) -> list[str]:
    """For a time the message names only in clauses saying it could not be had ("12:10 was
    too tight") or only weighing it up ("I looked at 12:10", "12:10 was my first thought"), the
    other times it gives after *at, for, to, now, from, is* in clauses saying no such thing
    ("VAN-5 picks him up at 12:30", "so it's 12:30"): the ones used instead."""
    if fact.kind != "time":
        return []
    used: list[str] = []
    for piece, written in _pieces(text, raw):
        values = fact.found(piece)
        if not values:
            continue
        failed = _TIME_FAILED.search(facts.fold(written)) is not None or _TIME_WEIGHED.search(facts.fold(written))
        if any(fact.matches(f) for f in values) and not failed:
            return []
        if failed:
            continue
        folded = facts.fold(piece)
        for f in values:
            if fact.matches(f) or fact.excuses(f) or any(o.matches(f) for o in theirs):
                continue
            i = folded.find(facts.fold(f.written))
            if i >= 0 and not _AT_TIME.isdisjoint(re.findall(r"[^\s\w]|\w+", folded[max(0, i - 40) : i])[-2:]):
                used.append(f.written)
    return list(dict.fromkeys(used))
