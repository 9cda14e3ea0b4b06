"""The claims of the agent's messages against the record (``RULE_CLAIMS`` in ``core.reports``).

A clause in the first person or to "you" with a past form of an operation tool's verb claims
that operation, as does one that opens with it and has no subject ("Rebooked you on BA582") and
one where it is passive ("SHP-1 has been dispatched"); it is unsupported when no successful call
of a tool with that verb names the ids it names (a passive one, nor the world: a trigger, or the
record's own word). What the record shows is kept per episode (``core.claim_record``) and brought
up to date only when a message claims something: most reports claim nothing.

In order: what a report got wrong (``Mismatch``); the claiming clauses of a text
(``_candidates``: per clause ``_clause_claims``, which verbs claim which tools in ``_claiming``,
where each claim starts and ends in ``_claim_spans``); what each claim is of (``_claimed``:
ids, names, pronouns, the user, everything); and the entry points that check them against the
record (``claims``, ``all_claims``; ``claims`` with ``own``, the writer's own only, is the rule
judge's: a passive may be the world's doing).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sttui.core import facts, statements
from sttui.core.claim_pronouns import PERSONAL, PRONOUNS, STANDS_FOR, of_its_kind, whom
from sttui.core.claim_quotes import SUBJECTS, quoted_claim
from sttui.core.claim_record import _Record, _record, _synced
from sttui.core.claim_verbs import (
    _AMBIGUOUS_FORMS,
    _CHANGED,
    _CONFIRMED,
    _NO_OBJECT,
    _OF_PEOPLE_TOO,
    _PERSONS,
    _THINGS,
    _TO_ANOTHER,
    _VERB_NEEDS,
    _called,
    _Clause,
    _ends,
    outside,
    plainly,
)
from sttui.core.report_names import (
    SENTENCE,
    written_as_names,
)
from sttui.core.stated import INTENDED, without_slips

if TYPE_CHECKING:
    from sttui.core.episode import Episode
    from sttui.core.reports import _Msg


# -- what a report got wrong ------------------------------------------------------------------


@dataclass(frozen=True)
class Mismatch:
    """One thing a report got wrong: a fact stated with a conflicting value (``said``), or
    never stated (``said`` None), or an unsupported claim (``kind`` "claim")."""

    fact: str
    expected: str
    said: str | None
    seq: int | None
    kind: str
    about: str = ""  # the subject the conflicting values were given to, when the fact has one
    mine: bool = False  # … and that subject is the user (``about: [Daniel, you]``): "for me"
    named: bool = False  # its name tells it from its subject's other facts of its kind ("Halima's MRI")


# -- the claiming clauses of a text (read once per text and set of tools) ---------------------


_CONDITIONAL = frozenset(
    {"if", "unless", "once", "would", "could", "should", "might", "will", "shall", "whether", "can", "cannot", "may"}
)
# words a report may open a subjectless clause with before its verb ("just texted Tomasz",
# "have rebooked you"): the writer is its subject, as in "I just texted Tomasz"
_LEAD_INS = frozenset(
    {"and", "also", "then", "just", "already", "now", "have", "has", "successfully", "finally", "both", "all"}
)


# the forms of "be" before a past verb that make a passive claim ("Your insulin has been
# dispatched on TRK-9", "Grace is booked at 11:30"), and the words that may stand between
# ("are both booked", "is now confirmed"); not "be" ("due to be dispatched" claims nothing)
_BE = frozenset({"is", "are", "was", "were", "been", "it's", "that's", "they're", "he's", "she's"})
_BETWEEN = frozenset({"both", "all", "now", "already", "just", "also", "successfully", "finally"})


def _passive(clause: list[str], at: int) -> bool:
    """Whether the verb at ``at`` is passive: a form of "be" before it, a few adverbs between
    (and the "re" of "is re-routed")."""
    return _be_at(clause, at) is not None


def _be_at(clause: list[str], at: int) -> int | None:
    """Where the form of "be" that makes the verb at ``at`` passive stands, or None."""
    at -= 1
    while at >= 0 and (clause[at] in _BETWEEN or clause[at] == "re"):
        at -= 1
    return at if at >= 0 and clause[at] in _BE else None


# what may follow a passive verb without its "be" ("texted to him", "rerouted onto AA1100",
# "booked for 17:00"); anything else is the object of an active verb
_AFTER_PASSIVE = frozenset(
    {"to", "onto", "on", "for", "at", "in", "into", "with", "via", "too", "already", "as", "today", "now", "and"}
    | {"through"}  # ("bags checked through")
)


def _reduced(clause: list[str], at: int, verbs: Mapping[str, object]) -> bool:
    """Whether the verb at ``at`` is a passive without its "be", after a few words naming what
    it is said of: "Marta notified.", "bag AA604417 re-routed onto AA1100"."""
    if clause[at] in _CHANGED:  # "the stand-down moved to 11:30": it moved, nobody moved it
        return False
    head = [t for t in clause[:at] if t != "re"]
    after = clause[at + 1 : at + 2]
    if after and after[0] not in _AFTER_PASSIVE:  # an object: "United rebooked you" is active
        return False
    return 0 < len(head) <= 6 and not any(
        t in SUBJECTS
        or t in _BE
        or t in _REPORT_VERBS
        or t in verbs
        or (t in _LEAD_INS and t not in ("all", "both"))  # ("All three dispatched.", "Both speakers told.")
        or t in _CONDITIONAL
        for t in head
    )


# what opens a clause of the time something else happened in: "the ramp failed as I booked it"
# tells when the ramp failed, and claims no booking (the call may have been what failed)
_WHILE = frozenset({"as", "when", "while", "whilst"})


def _background(clause: list[str], at: int) -> bool:
    """Whether the verb at ``at`` is a background clause's, after *as*, *when* or *while* and a
    subject ("failed as I booked it"): one a clause before it hangs on, not a claim."""
    return at >= 2 and clause[at - 1] in SUBJECTS and clause[at - 2] in _WHILE


def _meant_to(clause: list[str], at: int) -> bool:
    """Whether the verb at ``at`` is followed by *to* and a verb of doing: what was meant, not
    done ("I planned to use TRK-7, but it failed"; ``stated`` reads it as not done too)."""
    return clause[at + 1 : at + 2] == ["to"] and at + 2 < len(clause) and clause[at + 2] in _MEANT_VERBS


# what follows a verb and "to" in an intent: "planned to use", "arranged to send"
_MEANT_VERBS = INTENDED | frozenset({"use", "go", "take", "get", "try", "be", "have", "do", "make", "keep"})


# past verbs a report opens a subjectless clause with besides the operations' own ("Checked
# TRK-7 and dispatched SHP-1 on TRK-9"): a word that merely ends in -ed (United, Ahmed) is not one
_REPORT_VERBS = frozenset(
    {"checked", "confirmed", "verified", "found", "looked", "called", "contacted", "arranged", "sorted", "updated",
     "added", "moved", "spoke", "asked", "got", "sent", "made", "put", "brought", "took", "drove", "picked",
     "pulled", "grabbed", "loaded", "rang", "phoned", "handled", "organised", "organized", "fixed", "booked",
     "swapped", "switched", "managed", "lined", "gave", "assigned", "seated", "reserved", "secured", "issued"}
)  # fmt: skip


def _implied_subject(clause: list[str], verbs: Mapping[str, object]) -> int | None:
    """Where the clause's opening verb stands when it opens with a past verb and no subject, as
    reports do ("Dispatched SHP-1 on TRK-9", "Cancelled BA123 and rebooked you on BA582"): the
    writer did it. None when it does not, or when the verb is followed by "by" ("cancelled by
    the airline": done to it, not by the writer)."""
    at = 0
    while at < len(clause) and clause[at] in _LEAD_INS:
        at += 1
    if at == len(clause) or (clause[at] not in verbs and clause[at] not in _REPORT_VERBS):
        return None
    return None if clause[at + 1 : at + 2] == ["by"] else at


_GLUED = re.compile(facts.GLUED_START)


def _candidates(rec: _Record, text: str) -> list[_Clause]:
    """The claims of a message, before any id is looked for in them: (the words of one claiming
    verb with its objects, the tools claimed, whether the claim is quoted from its first word
    rather than from its subject, whether it is passive). A clause with two claiming verbs makes two claims, each with
    its own objects ("I booked Tomasz and texted him": the text is claimed of him, not only the
    booking). A function of the text and the tools' verbs only, so read once per text and set
    of tools; a message with none claims nothing, whatever the record holds."""
    found = rec.clauses.get(text)
    if found is not None:
        return found
    out: list[_Clause] = []
    # a stop typed with no space after it ("planned.Westfield") spaced, before the case is folded away
    spaced = _GLUED.sub(" ", text)
    for sentence in SENTENCE.split(plainly(facts.fold(statements.ampersands_as_and(spaced)))):
        if not sentence.strip() or sentence.strip().endswith("?"):
            continue
        for clause in statements.clauses(sentence, runs_on=True):
            out += _clause_claims(rec, clause)
    rec.clauses[text] = out
    while len(rec.clauses) > 4096:
        rec.clauses.pop(next(iter(rec.clauses)))
    return out


def _clause_claims(rec: _Record, clause: list[str]) -> list[_Clause]:
    """One clause's claims: none in a clause without a claiming verb, or with a condition
    ("if", "I'll"); else each claiming verb (``_claiming``) with the words of its objects
    (``_claim_spans``)."""
    verbs = [
        (i, rec.verbs[t])
        for i, t in enumerate(clause)
        if t in rec.verbs and not _background(clause, i) and not _meant_to(clause, i)
    ]
    if not verbs or any(t in _CONDITIONAL or t.endswith("'ll") for t in clause):
        return []
    opening = _implied_subject(clause, rec.verbs)
    claiming, heads = _claiming(rec, clause, verbs, opening)
    return _claim_spans(clause, claiming, heads, opening)


_Claiming = list[tuple[int, set[str], bool]]  # (a claiming verb's index, the tools it claims, passive)


def _claiming(
    rec: _Record, clause: list[str], verbs: list[tuple[int, set[str]]], opening: int | None
) -> tuple[_Claiming, set[int]]:
    """The clause's verbs that claim an action of the agent's, with the tools each claims,
    and which of them are passives without their be ("BA576 cancelled"). ``opening``: the verb
    a clause with no subject opens with (``_implied_subject``)."""
    implied = opening is not None
    claiming: list[tuple[int, set[str], bool]] = []
    heads: set[int] = set()  # the verbs of passives without their be
    first_subject = next((i for i, t in enumerate(clause) if t in SUBJECTS), len(clause))
    for at, tools in verbs:
        # with no subject, the opening verb claims, and a verb joined to it ("… and
        # rebooked you"); not one with a subject of its own ("and BA576 was cancelled");
        # a passive's subject is the words before its be, not a subject before them ("you're
        # on AA1100 and your bag is re-routed", "… checked in and bag AA604417 is rerouted")
        be = _be_at(clause, at)
        if be is not None:
            subject = be > 0 and clause[be - 1] in SUBJECTS  # ("we were rebooked")
        else:
            subject = first_subject < at or (implied and (at == opening or clause[at - 1] in _LEAD_INS))
        # passive: "SHP-1 was dispatched", "Grace is booked and notified"
        reduced = not subject and not claiming and _reduced(clause, at, rec.verbs)
        passive = not subject and (
            _passive(clause, at) or bool(claiming and claiming[-1][2] and clause[at - 1] in ("and", "then")) or reduced
        )
        if not (subject or passive) or statements._negated(clause, at) or clause[at + 1 : at + 2] == ["by"]:
            continue
        after = clause[at + 1 :]
        if clause[at] in _VERB_NEEDS and not (
            _VERB_NEEDS[clause[at]][1].intersection(after)
            or (after[:1] not in (["you"], ["me"], ["us"]) and _TO_ANOTHER[clause[at]].intersection(after))
        ):
            if after[:1] and after[0] in _PERSONS:  # "sent you the details": no crew sent
                continue
            of = _VERB_NEEDS[clause[at]][0]
            tools = {t for t in tools if t.split("_", 1)[0].lower() not in of}
        needs = rec.verbs.needs if clause[at] in _AMBIGUOUS_FORMS else {}  # ("moved" needs no "in")
        # a passive may name the tool's word before it ("bags checked through"), or what
        # it is said of ("the board meeting is confirmed", "it is confirmed"): ``_claimed``
        # keeps it only when it does
        claimed = {
            t
            for t in tools
            if t not in needs or needs[t].intersection(after) or passive or _called(after, rec.called.get(t))
        }
        if after[:1] and (
            after[0] in _PERSONS
            or after[0] in facts.TITLES
            or (not passive and clause[at] in _OF_PEOPLE_TOO and after[0] in _NO_OBJECT)
        ):  # "rerouted you through Munich", "Rerouted via Munich": not a bag
            claimed = {t for t in claimed if t.partition("_")[2] not in _THINGS}
        if clause[at] in _CONFIRMED and after[:1] in (["it"], ["them"], ["both"], ["all"]) and _ends(after, 1):
            claimed = set(tools)  # "… and confirmed it.": the thing just named, not a check
        if claimed:
            claiming.append((at, claimed, passive))
            if reduced:
                heads.add(at)
    return claiming, heads


def _claim_spans(clause: list[str], claiming: _Claiming, heads: set[int], opening: int | None) -> list[_Clause]:
    """Each claim's words: from its subject (or its verb) to where the next one begins; a verb
    with no object of its own shares the next one's ("ticketed and checked in on LH1232")."""
    implied = opening is not None
    out: list[_Clause] = []
    # each claim runs from its subject (or its verb) to where the next one begins
    starts = [
        0
        if at in heads  # a passive without its be: from the words it is said of ("BA576 cancelled")
        else _claim_start(clause, at, passive, implied and at == opening, claiming[k - 1][0] if k else -1)
        for k, (at, _, passive) in enumerate(claiming)
    ]
    carried, begun = set[str](), -1
    for k, (at, claimed, passive) in enumerate(claiming):
        lo = starts[k] if begun < 0 else begun
        hi = starts[k + 1] if k + 1 < len(claiming) else len(clause)
        end = _own_end(clause, at, hi, at in heads, passive)
        while end > at + 1 and clause[end - 1] in _TRAILING:  # "… Byrne and" | "texted him"
            end -= 1
        claimed = claimed | carried
        # "ticketed and checked in on LH1232": one object (not "confirmed and he has been
        # told": the next claim has a subject of its own)
        if end == at + 1 and hi < len(clause) and starts[k + 1] == claiming[k + 1][0]:
            carried, begun = claimed, lo
            continue
        out.append((clause[lo:end], claimed, True, passive))
        carried, begun = set(), -1
    return out


_JOINS = frozenset({"and", "then", "&"})
# what a message is about, not whom it went to ("texted Michael about his bag BA731456")
_ABOUT = frozenset({"about", "re", "regarding", "concerning"})
# a verb of a clause of its own after "and" ("You're checked in and bag AA604417 goes with you")
_OWN_VERBS = frozenset(
    {"is", "are", "was", "were", "goes", "go", "stays", "remains", "leaves", "arrives", "lands", "has", "have"}
    | {"runs", "travels", "will", "can", "gets", "takes", "comes", "sits", "it's", "that's", "he's", "she's"}
    | {"they're", "there's", "isn't", "aren't", "wasn't"}
)


# verbs a vehicle or crew does, after its id: a clause of its own ("VAN-3 picks her up")
_SUBJECTS_VERBS = frozenset(
    {"picks", "collects", "brings", "covers", "does", "departs", "delivers", "carries", "serves", "drives", "heads"}
)


def _own_end(clause: list[str], at: int, hi: int, reduced: bool = False, passive: bool = False) -> int:
    """Where the claim of the verb at ``at`` ends, before ``hi``: at what a message is about
    (``_ABOUT``), or at an "and", "but" or "so" that opens a clause with a verb of its own; a
    passive without its be ("old van cancelled and VAN-3 collects her") at any of them; a
    passive at an id with a verb of its own after it, a clause run on with no comma ("The van
    is cancelled VAN-3 picks her up": VAN-3 is not what was cancelled)."""
    if passive and any(
        clause[j] in _OWN_VERBS | _SUBJECTS_VERBS and any(c.isdigit() for t in clause[at + 1 : j] for c in t)
        for j in range(at + 2, min(at + 4, hi))
    ):
        return at + 1
    last_own = next((i for i in range(hi - 1, at, -1) if clause[i] in _OWN_VERBS), -1)  # (once: a long clause
    for j in range(at + 1, hi):  # of many claims was quadratic)
        if clause[j] in _ABOUT:
            return j
        if clause[j] in ("and", "but", "so") and (reduced or last_own > j):
            return j
    return hi


# what may stand between a subject and its verb ("I've also texted him", "we then rebooked you")
_NEAR = _LEAD_INS | _BETWEEN | _BE | {"had", "re"}  # ("re" of "re-planned", written with its hyphen)
_TRAILING = _LEAD_INS | _BE | _BETWEEN  # not part of a claim's objects: "… and has been" | "told"


def _claim_start(clause: list[str], at: int, passive: bool, opening: bool, prev: int) -> int:
    """Where the claim of the verb at ``at`` begins, after the previous claim's verb ``prev``:
    the clause's start for a subjectless clause's opening verb; the words a passive verb is
    said of ("… and Tomasz has been texted": at Tomasz); the subject just before the verb
    ("Ben is in suite 312 and I've texted him": at "I've", so suite 312 is not what was
    texted); else the verb itself."""
    if opening:  # from its lead-in ("Just dispatched …"), but not a joining "and"
        i = 0
        while i < at and clause[i] in _JOINS:
            i += 1
        return i
    if passive:
        be = _be_at(clause, at)
        if be is None or be <= prev:  # joined to a passive verb before it ("booked and notified")
            return at
        while be - 1 > prev and clause[be - 1] not in _JOINS:
            be -= 1
        return be
    for i in range(at - 1, prev, -1):
        if clause[i] in SUBJECTS:
            return i
        if clause[i] not in _NEAR:
            break
    if prev < 0 and at and clause[at - 1] in _JOINS:  # "You're on BA582 and checked in": of its subject
        return next((i for i in range(at) if clause[i] in SUBJECTS), at)
    return at


# -- what each claim is of: the ids and names it names, the user, a pronoun -------------------


_Claim = tuple[str, set[str], set[object], set[object] | None, bool]


def _claimed(rec: _Record, text: str) -> list[_Claim]:
    """The clauses of a message that claim an operation: (words, tools claimed, ids named, for
    a passive claim the ids of what it is said of, else None, and whether the ids are whom a
    pronoun stands for). A clause naming no id names
    what the names it holds name ("I've notified Tomasz": P-NOWAK, by ``report_names.names``), so a claim
    about a person or place is checked as one about its id is. One naming nothing but the user,
    a pronoun, everything or a thing no name names ("I've texted you", "texted him", "You're
    checked in", "she's been told", "I have dispatched the trucks", "Everything is booked")
    claims that a call of the tool succeeded; any other naming nothing
    claims nothing ("so I re-planned"; "your flight was cancelled": the world may have)."""
    assert rec.matcher is not None
    out: list[_Claim] = []
    capitals: set[str] | None = None
    firsts: set[str] | None = None  # (both read once a message: not once a clause)
    pos = 0  # where the next clause is looked for in the text (the clauses come in its order)
    last: set[object] = set()  # what the previous passive claim was said of
    for clause, claimed, from_start, passive in _candidates(rec, text):
        ids = _ids_named(rec, _left_out(clause))
        stood = False
        quoted: tuple[str, int | None] | None = None
        verb = next((i for i, t in enumerate(clause) if t in rec.verbs), len(clause))
        subject: set[object] | None = None
        unnamed = False  # said of someone no word here names: "she's been told", "… and has been texted"
        if passive:  # what it is said of: "Margaret" in "Margaret is booked with Dr Okafor"
            head = clause[:verb]
            said_of = _before_place(head)  # ("every flight to Iceland is cancelled": the flights, not Iceland)
            subject = _ids_named(rec, said_of)
            if not subject and rec.names:
                if firsts is None:
                    firsts = written_as_names(text, first=True)
                subject = {
                    n for t in said_of if (w := t.removesuffix("'s")) in firsts and (n := rec.name_of(w)) is not None
                }
            words = [t for t in head if t not in _NEAR]
            if firsts is None:
                firsts = written_as_names(text, first=True)
            if not subject and last and firsts.isdisjoint(words):  # "Tomasz is booked … and has been
                subject = set(last)  # texted", "Tomasz booked, details texted to him": Tomasz
                if PERSONAL.intersection(head):  # "Keynote confirmed …, she's been texted": not the keynote
                    subject = {i for i in subject if i in rec.people}
            # said of no one, or (without its be) of what no record is: "Miles & More number added"
            unnamed = not subject and (
                all(t in _PRONOUN_SUBJECTS for t in words)
                or not _EVERYONE.isdisjoint(
                    t.removesuffix("'s")
                    for t in head[: next((i for i, t in enumerate(head) if t in _HAVE_BE), len(head))]
                )
                or (not _passive(clause, verb) and not _ids_named(rec, clause))
            )
            last = set(subject) if subject else last
        if passive and _vague(rec, clause, verb, claimed):
            if subject or all(t in _PRONOUN_SUBJECTS for t in words):  # "the gala is confirmed", "it is"
                unnamed = not subject
            elif bagged := {t for t in claimed if rec.verbs.needs.get(t, frozenset()).intersection(head)}:
                # "Bags checked through": of the state's bags, if it has any, else of any (not a
                # check-in); an operation on them of another verb ("reroute_bag") bears it out too
                needed = {w for t in bagged for w in rec.verbs.needs[t]}
                tools = {t for ts in rec.verbs.values() for t in ts}
                claimed, unnamed = bagged | {t for t in tools if needed.intersection(t.lower().split("_"))}, True
                held = [rec.state.get(w) for w in head] if isinstance(rec.state, dict) else []
                subject = {facts.canon_id(k) for table in held if isinstance(table, dict) for k in table} or None
            elif any(t.removesuffix("'s") in rec.name_words for t in words):  # "the lunch …" (of two lunches)
                unnamed = True
            else:  # "your time is confirmed": a check, not the tool
                continue
        if not ids and rec.names:
            if capitals is None:
                capitals = written_as_names(text)
            objects = _objects(rec, clause, passive)
            ids.update(n for w in objects if w in capitals and (n := rec.name_of(w)) is not None)
            if subject:
                ids.update(subject)
            if not ids and (unnamed or PRONOUNS.intersection(objects)):
                quoted = quoted_claim(text, clause, pos, from_start)
                if quoted[1] is not None and not STANDS_FOR.isdisjoint(clause):  # "…, and I've texted him"
                    ids.update(whom(rec, text, clause, quoted[1]))
                    stood = bool(ids)
        # naming no record: a claim of it done to the user ("texted you"), when made by the writer,
        # or with nothing after its verb when the writer is its only subject ("Ticketed, checked in")
        to_you = not passive and clause[verb + 1 : verb + 2] in _TO_YOU
        the = clause[verb + 1 : verb + 2] in _THE and clause[verb] not in _VERB_NEEDS  # (a verb is there)
        to_you = to_you or (not passive and the)
        to_you = to_you and (clause[verb] not in _SAID or clause[verb + 1 : verb + 2] not in (["you"], ["your"]))
        to_you = to_you or (not passive and _bare(clause, verb))
        to_you = to_you or all(outside(t) for t in claimed)  # no tool does it: of anyone ("phoned the site")
        # … or of the user, or of someone no name explains ("You're checked in."; "She's been texted.")
        anyone = unnamed or (any(t in _YOU for t in clause[:verb]) and clause[verb : verb + 1] != ["told"])
        if ids or to_you or anyone:
            quote, at = quoted or quoted_claim(text, clause, pos, from_start)
            pos = pos if at is None else at + 1
            out.append((quote, claimed, ids, subject, stood))
    return out


# the words that open where a thing goes or comes from, after what a passive is said of
_PLACE_WORDS = frozenset({"to", "into", "from", "via", "towards"})


def _before_place(head: list[str]) -> list[str]:
    """A passive's head up to where it says where its subject goes: "every flight | to
    Iceland", "the shipment | to Mull" (a head opening with one is kept whole)."""
    cut = next((i for i, t in enumerate(head) if i > 0 and t in _PLACE_WORDS), len(head))
    return head[:cut]


def _left_out(clause: list[str]) -> list[str]:
    """The clause without what it says was left ("switched over from TRK-7", "moved you from
    33G to 12C": from "from" to the next "to"): no call of the change names the one left."""
    if "from" not in clause:
        return clause
    out: list[str] = []
    skipping = False
    for t in clause:
        if t == "from":
            skipping = True
        elif skipping and t in ("to", "onto", "into", "and"):
            skipping = False
        if not skipping:
            out.append(t)
    return out


def _vague(rec: _Record, clause: list[str], verb: int, claimed: set[str]) -> bool:
    """Whether a passive's verb is one of two senses (``_AMBIGUOUS_FORMS``: confirmed, checked)
    with none of its tools' words after it: the tool's only when it is said of what the tool
    acts on."""
    if verb >= len(clause) or clause[verb] not in _AMBIGUOUS_FORMS:
        return False
    after = set(clause[verb + 1 :])
    return not any(rec.verbs.needs[t].intersection(after) for t in claimed if t in rec.verbs.needs)


def _bare(clause: list[str], verb: int) -> bool:
    """A subjectless verb with nothing after it but a particle: "Ticketed", "checked in"."""
    return all(t in _LEAD_INS for t in clause[:verb]) and all(t in ("in", "out", "up") for t in clause[verb + 1 :])


def _ids_named(rec: _Record, words: list[str]) -> set[object]:
    """The ids ``words`` name: as written, or by a record's id-shaped name ("Chair 2")."""
    assert rec.matcher is not None
    ids: set[object] = {v for f in rec.matcher.find(" ".join(words)) for v in f.values}
    ids.update([rec.id_names[i] for i in ids if isinstance(i, str) and i in rec.id_names])
    return ids


_PRONOUN_SUBJECTS = frozenset({"he", "she", "they", "they've", "he's", "she's", "they're", "it"})
_YOU = frozenset({"you", "you're", "you've"})
# a claim's first object naming no record: the user, or someone no name names ("texted him")
_TO_YOU = (["you"], ["your"], ["him"], ["her"], ["them"], ["it"], ["all"], ["both"], ["everyone"], ["everybody"],
           ["each"])  # fmt: skip
# … or something no name names, or everything ("I have dispatched the trucks"), but by "sent",
# whose tools its objects tell apart ("sent the request": a message, or the bag sent on?)
_THE = (["every"], ["everything"], ["the"], ["these"], ["those"])
# words that say a claim is of several people no name names ("All three residents have been
# texted") or of everything ("Everything is booked"), before the verb's be or have ("the road and
# the bridge are both closed" is of the road)
_EVERYONE = frozenset({"all", "both", "everyone", "everybody", "each", "every", "everything"})
_HAVE_BE = _BE | {"have", "has", "had"}
# verbs of conversation, too: "as I told you" is about the chat, not a message sent ("I've told
# him" is one)
_SAID = frozenset({"told", "informed"})


# a reason after the claim ("I've rebooked you because Heathrow closed"): its names are not
# what was acted on
_REASONS = frozenset({"because", "since", "as", "due", "given", "after", "when", "now", "following", "cause"})


# a name just after one of these is where, not what was acted on ("checked in through to
# Barbados", "booked Grace at Riverside")
_PLACES = frozenset({"to", "at", "in", "from", "via", "through", "into", "near", "towards"})


def _objects(rec: _Record, clause: list[str], passive: bool = False) -> list[str]:
    """The words after the clause's claiming verb, up to a reason, but for a place's name: what
    it acted on (and, when it is passive, the words before it: "Tomasz has been texted")."""
    at = next((i for i, t in enumerate(clause) if t in rec.verbs), len(clause))
    out: list[str] = [t.removesuffix("'s") for t in clause[:at]] if passive else []
    for i in range(at + 1, len(clause)):
        token = clause[i]
        if token in _REASONS:
            break
        if clause[i - 1] not in _PLACES:
            out.append(token.removesuffix("'s"))
    return out


# -- against the record: one message's claims, every message's --------------------------------


def claims(episode: Episode, text: str, seq: int | None = None, own: bool = False) -> list[Mismatch]:
    """The unsupported claims of one agent message (``RULE_CLAIMS``). What a message claims is
    read once while the known ids stay the same; only the record's support is checked again.
    A message with no claiming clause is answered without reading the record. ``own``: only
    the writer's own claims, not passive ones ("I've rebooked you", not "both flights are
    cancelled", which the world may have done in a way the record does not pin down)."""
    text = without_slips(text)  # ("moved you to DL-49, sorry, KL643" claims KL643)
    if not _candidates(_record(episode), text):
        return []
    return _unsupported(_synced(episode), text, seq, own)


def all_claims(episode: Episode, messages: list[_Msg]) -> list[Mismatch]:
    """The unsupported claims of all ``messages`` (the agent's, in order): only the messages
    new since the last call are read while the record's support stays the same, so asking after
    every step of a long episode does not read its every message again. While no message has a
    claiming clause there is none, and the record is not read (and the messages found so are
    not looked at again)."""
    rec = _record(episode)
    quiet, last = rec.quiet  # the first messages, read before and found to claim nothing
    if quiet > len(messages) or (quiet and messages[quiet - 1] is not last):
        quiet = 0  # (another list of messages: read it all)
    if not any(_candidates(rec, without_slips(m.text)) for m in messages[quiet:]):
        rec.quiet = (len(messages), messages[-1] if messages else None)
        return []
    rec.update(episode)
    support, read, found = rec.unsupported
    if support != rec.support or read > len(messages):
        read, found = 0, []
    found = found + [c for m in messages[read:] for c in _unsupported(rec, without_slips(m.text), m.seq)]
    rec.unsupported = (rec.support, len(messages), found)
    return list(found)


def _said_of(rec: _Record, words: str) -> bool:
    """Whether a claim's verb is passive in form ("you were booked on FI521", "you're checked
    in"): said of someone, not of what the writer did (``claims`` with ``own``)."""
    for clause in statements.clauses(plainly(facts.fold(words))):
        verb = next((i for i, t in enumerate(clause) if t in rec.verbs), None)
        if verb is not None:
            return _passive(clause, verb) or clause[verb - 1 : verb] in (["you're"], ["youre"])
    return False


def _unsupported(rec: _Record, text: str, seq: int | None, own: bool = False) -> list[Mismatch]:
    found = rec.parsed.get(text)
    if found is None:
        found = rec.parsed[text] = _claimed(rec, text)
        rec.passive = rec.passive or any(c[3] is not None for c in found)
        while len(rec.parsed) > 4096:
            rec.parsed.pop(next(iter(rec.parsed)))
    out: list[Mismatch] = []
    for words, claimed, found_ids, subject, stood in found:
        if own and (subject is not None or _said_of(rec, words)):  # a passive claim: perhaps the world's doing
            continue
        ids = of_its_kind(rec, found_ids, claimed) if stood else found_ids
        if ids and any(ids & rec.done.get(tool, set()) for tool in claimed):
            continue
        if not ids and any(tool in rec.done for tool in claimed):  # "I've texted you": one was sent
            continue
        told = all(t.split("_", 1)[0].lower() == "notify" for t in claimed)  # (the world tells no one)
        if subject is not None and not told and rec.happened(subject, ids, claimed, words):  # not the writer's doing
            continue
        # the ids as the state writes them ("FI523", "VAN-E4"; not the canonical "FI-523", "VAN-E-4")
        written = rec.written
        shown = ", ".join(sorted(written.get(str(i), str(i)) for i in ids))
        out.append(
            Mismatch(
                f"claim '{words if len(words) <= 80 else words[:79] + '…'}'",
                f"a successful {' or '.join(sorted(claimed))} call" + (f" naming {shown}" if ids else "")
                if not all(outside(t) for t in claimed)
                else f"a tool for {' or '.join(t.strip('()') for t in sorted(claimed))} (this task has none)",
                None,
                seq,
                "claim",
            )
        )
    return out
