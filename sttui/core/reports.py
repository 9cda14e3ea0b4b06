"""What the agent told the user, checked against the state and the record.

A ``tell`` checklist item lists facts the user must be told (task format §5). Each fact is
judged by visible rules a person can apply by hand (``RULE_TELL``):

- **Which message counts.** The last agent message that states a value of the fact's kind:
  a later report supersedes an earlier one (a corrected report passes, a report later
  contradicted fails), and a closing "anything else?" that states no such value does not
  erase the report before it.
- **Stated.** That message states the expected value, written any common way (``core.facts``).
  A value it asks about, denies, hedges, leaves as one of two (*or*) or supposes (*if*) is
  not stated (``core.stated``): "Should Westfield go on VAN-42?", "not on VAN-42", "could be
  on VAN-42", "VAN-42 or VAN-41". A message stating nothing else is passed over.
- **Conflict.** That message states only other values of the kind: another id of the same
  table (``TRK-7`` when ``TRK-9`` is expected), another time or date (values the user's own
  request gives, and the item's other facts, are not counted), another name of the same list.
  Stating the expected value anywhere in the message is enough: a report may name what
  failed ("TRK-7's unit failed, so it went on TRK-9").
- **Subjects.** A fact with ``about`` (the Westfield van) is judged first on the values the
  message gives its subject (``core.attach``: the clauses naming Westfield and those after
  them in the sentence): it passes when one of them is the expected value and conflicts when
  they are all others, its own subject's other facts aside. "Westfield on VAN-41, Lakeside on
  VAN-42" fails both when the two are swapped. A message giving the subject no value of the
  kind is judged as above.
- **Labels.** Of a subject with two or more facts of one kind, each fact's name says which
  one it is ("Halima's MRI": *MRI*, beside "Halima's review"; "Ingrid's first flight":
  *first*; ``core.report_labels``). When clauses giving the subject values name that word and
  no word of its other facts of the kind, their values alone decide: "Halima's MRI is 12:15
  and her review 10:30" fails both, the two swapped; so does "Ingrid's first flight is SK271,
  her second KL1143".
  Facts of no one's are told apart among themselves the same way ("first flight", "second
  flight"; ``_labelled_unowned``). A fact named by its place is also told by the order in
  which values are run together ("KL569 to Amsterdam, then BA430"; ``core.report_order``).
- **Taken back.** A later message that takes the report back and gives no new value of any
  fact ("…changed again at the last minute, so it's the other one now", "scratch that")
  fails the facts of the subjects it names, or every fact when it names none
  (``core.retractions``); the scripted user asks which it is now.
- **Claims.** An agent message that claims, in the first person, to "you", with no subject
  ("Rebooked you on LH401") or in the passive ("SHP-1 has been dispatched": not when a
  trigger did it), an operation that the record shows never succeeded fails every
  ``tell`` item: a past form of an operation tool's verb (``I have rebooked you on LH401``,
  ``you're booked on BA582``) in a clause that is not a question, not negated and not
  conditional, naming known ids none of which a successful call of a tool with that verb
  names (``RULE_CLAIMS``).

The facts are read from the state in ``core.report_facts``, the claims checked against the
record in ``core.report_claims``; this module judges them and holds the public checks. It reads
in sections, each under a ``# --`` line: the rules as the detail states them, and the agent's
messages; judging one fact (``states``, what a message gives it, ``judge_fact``); and the
checklist item with the public checks (``evaluate_tell``, ``message_mismatches``,
``report_mismatches``).
"""

from __future__ import annotations

import functools
import re
import weakref
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sttui.core import events as ev
from sttui.core import facts
from sttui.core import state as st
from sttui.core.attach import Clause, sentences
from sttui.core.claim_record import _record, _tell_items
from sttui.core.corrections import corrected
from sttui.core.other_times import CLAUSE_BREAK, others_time
from sttui.core.report_changes import unarrowed
from sttui.core.report_claims import Mismatch, all_claims, claims
from sttui.core.report_facts import Resolved, picked, resolve
from sttui.core.report_labels import labels_of, under_label
from sttui.core.report_names import bystanders, first_words, people_by_key
from sttui.core.report_order import in_order, ordinal
from sttui.core.report_places import (
    FAILED,
    is_remark,
    placed,
    placed_by_words,
    put_instead,
    time_instead,
    used_instead,
    whereabouts,
)
from sttui.core.retractions import taken_back
from sttui.core.stated import stated_text
from sttui.core.table_rows import as_read
from sttui.core.time_ranges import range_starts

if TYPE_CHECKING:
    from sttui.core.episode import Episode
    from sttui.core.task import ChecklistItem

# -- the rules, as the detail states them, and the agent's messages ----------------------------


RULE_TELL = (
    "the last agent message stating a value of a fact's kind decides (a question, negation, hedge, "
    "either-or or proposal states none): it passes when it states the expected value (trk9; 9.30am), conflicts when it "
    "states only others (ids of the table or held before, times not from the user's request); "
    "with about, its subject's values decide"
)
TAKEN_BACK = "taken back"  # a ``Mismatch``'s kind: the message took the report back with no new value
UNCLEAR = "unclear"  # a ``Mismatch``'s kind: the value given only through a pronoun for one of several
RULE_CLAIMS = "I/we/you/no subject/passive + past operation verb (rebooked) on ids/names no successful call names fails"


@dataclass(frozen=True)
class _Msg:
    seq: int | None
    text: str


def agent_messages(episode: Episode) -> list[_Msg]:
    """The agent's messages to the user, in order, with their event numbers when recorded.
    Read incrementally (only the events since the last call): the scripted user and the live
    checklist ask after every step, and a rescan would make a long episode's steps quadratic."""
    if not episode.events:
        return [_Msg(None, as_read(m["text"])) for m in episode.messages if m.get("from") == "agent"]
    seen = _MESSAGES.get(episode)
    events = episode.events
    if seen is None or seen[0] is not events or seen[1] > len(events):
        seen = _MESSAGES[episode] = (events, 0, [])
    _, start, msgs = seen
    msgs.extend(
        _Msg(e.seq, as_read(e.payload["text"]))  # (a markdown table's rows as lines)
        for e in events[start:]
        if e.type == ev.MESSAGE and e.payload.get("from") == "agent"
    )
    _MESSAGES[episode] = (events, len(events), msgs)
    return list(msgs)


# per episode: (its events list, how many of them were read, the agent messages among them)
_MESSAGES: weakref.WeakKeyDictionary[Any, tuple[list[Any], int, list[_Msg]]] = weakref.WeakKeyDictionary()


# -- judging one fact ---------------------------------------------------------------------


@dataclass(frozen=True)
class Told:
    """How a fact fared: ``ok``, the message that decided it (None: never stated) and what it
    said (the expected value as written, or the conflicting values)."""

    ok: bool
    seq: int | None
    said: str | None
    at: int | None = None  # the deciding message's index among the agent's messages
    taken_back: bool = False  # a later message took the report back with no new value (``said``: its words)


def states(fact: Resolved, text: str, others: Iterable[Resolved] = ()) -> tuple[bool, list[str], str] | None:
    """What one message says of a fact: None when it states no value of the fact's kind, else
    (states the expected value, the other values it states as written, and the subject it
    gave them to, "" when they were not given to the fact's own subject). Values the message
    does not state (``core.stated``: asked, denied, hedged, either-or, supposed) are not read.
    A correction of the fact within the message (``core.corrections``: "Sorry, I meant FB-2")
    decides, from where it begins."""
    others = list(others)
    part = _correction(fact, text, others)
    if part is not None:
        said = _states(fact, part, others)
        if said is not None:
            return said
        # what the rules leave to another (another fact's value: "BA1437, not BA1433"; a time of
        # the user's request) is the fact's here: the correction is the fact's (``corrected``)
        given = fact.found(stated_text(part))
        if given and not any(fact.matches(f) for f in given):
            return False, _written_once(given), ""
    return _states(fact, text, others)


def _correction(fact: Resolved, text: str, others: list[Resolved]) -> str | None:
    """What corrects ``fact`` in ``text`` (``core.corrections``), when the message stated a
    value of it before: a message's only statement of a fact corrects nothing. A sentence saying
    the value changed gives an id only where it places one ("It went on FB-2 in the end")."""
    fix = corrected(fact, text, others)
    if fix is None or _states(fact, text[: fix.start], others) is None:
        return None
    part = text[fix.start : fix.end]
    if fix.changed and fact.kind in ("id", "text", "person"):  # ("Walsh wasn't needed in the end": no change)
        given = [f.written for f in fact.found(stated_text(part))]
        if not placed_by_words(fact, part, False, given):
            return None
    return part


def _states(fact: Resolved, text: str, others: list[Resolved]) -> tuple[bool, list[str], str] | None:
    raw, text = text, stated_text(text)  # (what a question asks, a negation denies, a hedge leaves open: blanked)
    text = unarrowed(fact, text, [o for o in others if o.kind == fact.kind and o.problem is None and o is not fact])
    found = fact.found(text)
    if not found:
        return None
    if fact.about:
        mine, free, aside, paired, (labelled, loose) = _given(fact, text, others)
    else:
        mine, free, aside, paired, (labelled, loose) = [], [], [], [], _labelled_unowned(fact, text, others)
    if labelled:  # the values given under the fact's own label ("her MRI is 12:15") decide …
        if any(fact.matches(f) for f in labelled):
            return True, [], fact.about_shown
        given = [
            f for f in labelled if not _the_users_own(fact, f, text) and not others_time(fact.kind, text, f.written)
        ]
        # … unless the expected value is given where no label is named ("Your flight AA2301 was
        # delayed, so I moved you to AA1100": the old flight under the label, the new one plainly),
        # and what the label has is no sibling's value ("delayed UA945, so I switched your second
        # flight to LH765", the first: two values swapped)
        swapped = any(
            o.matches(f)
            for f in given
            for o in others
            if o is not fact and o.kind == fact.kind and o.about == fact.about
        )
        if given and (swapped or not any(fact.matches(f) for f in loose)):
            return False, _written_once(given), fact.about_shown
    ordered = _ordered(fact, text, others)
    if ordered is not None:  # a fact by its place ("first flight") in values run in order ("KL569, then BA430")
        return ordered[0], ordered[1], fact.about_shown
    if mine:  # the message gives the fact's subject values of its kind: those decide
        if any(fact.matches(f) for f in mine):
            # … but the expected one named only as what failed, another of the subject's put to
            # use ("Abbeymead: VAN-47 was the plan but it fell through; it's on VAN-44 now")
            instead = _used_instead_by(fact, text, others, raw) if fact.kind != "time" else []
            written = {f.written for f in (*mine, *free)}  # (given it, or no one: not another subject)
            instead = [w for w in instead if w in written]
            return (False, instead, fact.about_shown) if instead else (True, [], fact.about_shown)
        own = [o for o in others if o.about == fact.about and o.kind == fact.kind and o is not fact and not o.problem]
        in_parallel = set(paired)  # (sets: a long message may give thousands of values)
        given = [
            f
            for f in mine
            if (f in in_parallel or not _the_users_own(fact, f, text))
            and not any(o.matches(f) for o in own)
            and not others_time(fact.kind, text, f.written)
        ]  # (a value of the user's request given the subject in a list in parallel counts)
        if given and fact.kind != "time" and any(fact.matches(f) for f in free):
            # … but what failed, the expected one put to use after it in the subject's own
            # sentences ("Abbeymead was on VAN-44, which broke down; it is on VAN-47 now")
            blank, raw_blank = _own_sentences(fact, text, others, raw)
            if blank and _failed_only(given, raw_blank) and placed_by_words(fact, blank, True, []):
                return True, [], fact.about_shown
        if given:  # values given to its subject (not its other facts'), none the expected one
            return False, _written_once(given), fact.about_shown
        found = free  # what the message gives other subjects is not said of this one
        if not found:
            return None
    elif aside:  # nothing given to its subject: not what it gives another person ("Grace has the 11:30")
        theirs_only = set(aside)
        found = [f for f in found if f not in theirs_only]
        if not found:
            return None
    theirs = [o for o in others if o.kind == fact.kind and o.problem is None and o is not fact]
    if any(fact.matches(f) for f in found):
        # the expected value named only as what failed, remarked on, or not to be had: another was used
        used = _used_instead(fact, text, others, raw)
        return (False, used, "") if used else (True, [], "")
    rivals = [
        f
        for f in found
        if not _the_users_own(fact, f, text)
        and not any(o.matches(f) for o in theirs)
        and not others_time(fact.kind, text, f.written)
    ]
    if not rivals:
        return None
    return False, _written_once(rivals), ""


def _used_instead(fact: Resolved, text: str, others: list[Resolved], raw: str) -> list[str]:
    """The values the message (``text`` as stated, ``raw`` as written) uses instead of the
    expected one, which it names only as what failed, was remarked on or was not to be had."""
    theirs = [o for o in others if o.kind == fact.kind and o.problem is None and o is not fact]
    return (
        used_instead(fact, text, theirs, raw)
        or put_instead(fact, text, theirs, raw)
        or time_instead(fact, text, theirs, raw)
    )


def _used_instead_by(fact: Resolved, text: str, others: list[Resolved], raw: str) -> list[str]:
    """``_used_instead`` within the sentences that name the fact's subject and no other, and
    those naming no one after them: what one subject's sentences put to use says nothing of
    another's ("Westfield gets VAN-42 … Abbeymead: VAN-47 fell through; it's on VAN-44 now"
    uses VAN-44 for Abbeymead alone)."""
    blank, raw_blank = _own_sentences(fact, text, others, raw)
    return _used_instead(fact, blank, others, raw_blank) if blank else []


_STRETCH = re.compile(r"[;!?\n]|\.(?=\s|$)")


def _failed_only(given: list[facts.Found], raw: str) -> bool:
    """Whether each of ``given`` is named in ``raw`` only in stretches (to a semicolon or a
    sentence's end) saying it failed: "was on VAN-44, which broke down"."""
    said = [(part, FAILED.search(part) is not None) for part in _STRETCH.split(facts.fold(raw))]
    return all(
        any(facts.fold(f.written) in clause for clause, _ in said)
        and all(failed for clause, failed in said if facts.fold(f.written) in clause)
        for f in given
    )


def _own_sentences(fact: Resolved, text: str, others: list[Resolved], raw: str) -> tuple[str, str]:
    """``text`` and ``raw`` with all but the subject's own sentences blanked (those naming it
    and no other, and those naming no one after them); ("", "") when it has none."""
    subjects = tuple(dict.fromkeys([fact.about, *(o.about for o in others if o.about)]))
    own, pos, mine = [], 0, False
    for sentence in sentences(text, subjects, _aside(fact, subjects)):
        at = text.find(sentence.text, pos)
        if at < 0:
            continue
        pos = at + len(sentence.text)
        if sentence.named:  # (one naming no one goes on with the one before: "…; it's on VAN-44 now")
            mine = sentence.named == (fact.about,)
        if mine:
            own.append((at, pos))
    if not own:
        return "", ""
    keep = [False] * len(text)
    for a, b in own:
        keep[a:b] = [True] * (b - a)
    blank = "".join(c if k or c == "\n" else " " for c, k in zip(text, keep, strict=True))
    if len(raw) != len(text):
        return blank, blank
    return blank, "".join(c if k or c == "\n" else " " for c, k in zip(raw, keep, strict=True))


def _written_once(found: Iterable[facts.Found]) -> list[str]:
    """The values as first written, each value once ("CTV-3 Seren Glas": CTV-3, not CTV-3 and
    the vessel's name beside it)."""
    first: dict[frozenset[object], str] = {}
    for f in found:
        first.setdefault(f.values, f.written)
    return list(dict.fromkeys(first.values()))


# what gives the value after it as the one in force now: "is now 14:00", "moved to 14:00"
_AS_NEW_AT = re.compile(
    r"(?:\b(?:is|are|s)\s+now|\bnow\s+(?:at|for|on)|\b(?:moved|changed|switched|rescheduled|brought\s+forward|"
    r"pushed(?:\s+back)?|put\s+back)\s+(?:it\s+|them\s+)?(?:to|for)|\bnew\s+(?:time|slot)\s+(?:is|of))\s*"
)


# after a value's "at" or "for", what in its clause gives the value as what was booked: a verb of
# booking or being ("booked Margaret with Dr Okafor at Westbrook at 14:00", "her review is at 14:00")
# (or "'s" right before it: "she's at 14:00"; not a possessive: "Margaret's review at 14:00")
_BOOKED = re.compile(r"\b(?:booked|rebooked|scheduled|confirmed|is|are|will\s+be)\b")
_IS_BEFORE = re.compile(r"'s\s*$")
# ... and what says it is not: a bound of the request, a negation, the value before ("after 14:00")
_NOT_BOOKED = re.compile(
    r"\b(?:after|from|since|before|by|until|till|between|earliest|latest|asked|wanted|requested|"
    r"not|no|never|instead|rather|originally|previously|was|were|old|used\s+to)\b|n't\b"
)
_AT = re.compile(r"\b(?:at|for)\s+")


def _booked_ends(folded: str) -> frozenset[int]:
    """Where a value may start right after an "at" or "for" whose clause books it (``_BOOKED``)
    and says nothing against that (``_NOT_BOOKED``) before it. One pass over the text, the
    marks of each kind taken in order (a long message costs in proportion to its length)."""
    marks = sorted(
        [(m.start(), 0, m.end()) for m in CLAUSE_BREAK.finditer(folded)]
        + [(m.start(), 1, m.end()) for m in _BOOKED.finditer(folded)]
        + [(m.start(), 2, m.end()) for m in _NOT_BOOKED.finditer(folded)]
        + [(m.start(), 3, m.end()) for m in _AT.finditer(folded)]
    )
    out = set()
    booked = against = False
    for start, kind, end in marks:
        if kind == 0:  # a new clause
            booked = against = False
        elif kind == 1:
            booked = True
        elif kind == 2:
            against = True
        elif not against and (booked or _IS_BEFORE.search(folded, max(0, start - 12), start)):
            out.add(end)
    return frozenset(out)


def _the_users_own(fact: Resolved, f: facts.Found, text: str) -> bool:
    """Whether a value of the user's own request is left out of the count: it is, unless the
    message gives it as the value now ("Margaret's appointment is now 14:00", where 14:00 was
    the time she asked about), as what was booked ("I booked Margaret … at 14:00", "her review
    is at 14:00", when she asked for any time from 14:00) or, for a fact that is a start, as
    the start of a range ("open banking at 14:30-15:30"; not "the gala, 19:00-22:30" for the
    host's pickup)."""
    return fact.excuses(f) and not _given_as_now(text, facts.fold(f.written), fact.starts)


@functools.lru_cache(maxsize=1024)
def _given_as_now(text: str, written: str, start: bool = True) -> bool:
    """Whether ``written`` (folded) follows one of ``_AS_NEW_AT``'s phrases somewhere in ``text``
    (or, for a fact that is a start, opens a range). Once per message and value: a message may
    repeat one value thousands of times."""
    starts = _now_ends(text) | (range_starts(facts.fold(text)) if start else frozenset())
    folded = facts.fold(text)
    at = folded.find(written)
    while at >= 0:
        if at in starts:
            return True
        at = folded.find(written, at + 1)
    return False


@functools.lru_cache(maxsize=256)
def _now_ends(text: str) -> frozenset[int]:
    """Where a value may start in ``text`` (folded) as the value now: right after one of
    ``_AS_NEW_AT``'s phrases, or after an "at" or "for" whose clause books it."""
    folded = facts.fold(text)
    return frozenset(m.end() for m in _AS_NEW_AT.finditer(folded)) | _booked_ends(folded)


def _aside(fact: Resolved, subjects: tuple[Any, ...]) -> tuple[Any, ...]:
    """The fact's bystanders that share no word with a subject (a subject's own record is none)."""
    taken = {w for subject in subjects for name in subject for w in name}
    return tuple(b for b in fact.bystanders if taken.isdisjoint(w for name in b for w in name))


# values given in clauses naming the fact's label, and in clauses naming no label of its kind
_Labelled = tuple[list[facts.Found], list[facts.Found]]
_Given = tuple[list[facts.Found], list[facts.Found], list[facts.Found], list[facts.Found], _Labelled]


def _siblings(fact: Resolved, others: Iterable[Resolved]) -> tuple[str, ...]:
    """The names of the other facts of the fact's subject (or of no one's) and kind."""
    return tuple(o.name for o in others if o.about == fact.about and o.kind == fact.kind and o is not fact)


def _told_by_name(fact: Resolved, others: Iterable[Resolved]) -> bool:
    """Whether the fact's name tells it from its subject's other facts of its kind
    (``core.report_labels``: "Halima's MRI" beside "Halima's review"; "appointment time"
    beside "pickup")."""
    siblings = _siblings(fact, others)
    return bool(siblings) and all(labels_of(fact.name, fact.about, siblings))


def _ordered(fact: Resolved, text: str, others: Iterable[Resolved]) -> tuple[bool, list[str]] | None:
    """Of a fact named by its place in a sequence ("Ingrid's first flight", beside her second),
    what the values the message runs together in order say of it (``core.report_order``): in
    the sentences naming its subject and no other, or anywhere for a fact of no one's."""
    others = list(others)
    siblings = _siblings(fact, others)
    place = ordinal(labels_of(fact.name, fact.about, siblings)[0]) if siblings else None
    if place is None:
        return None
    if not fact.about:
        return in_order(fact, place, [text])
    subjects = tuple(dict.fromkeys([fact.about, *(o.about for o in others if o.about)]))
    split = sentences(text, subjects, _aside(fact, subjects))
    return in_order(fact, place, [s.text for s in split if s.named == (fact.about,)])


def _labelled_unowned(fact: Resolved, text: str, others: Iterable[Resolved]) -> _Labelled:
    """Of a fact of no one's beside others of its kind of no one's ("first flight" and "second
    flight"), the values given in clauses naming its label and no other's (``report_labels``), and
    those given in clauses naming no label."""
    siblings = _siblings(fact, others)
    labels = labels_of(fact.name, fact.about, siblings) if siblings else None
    if labels is None or not (labels[0] and labels[1]):
        return [], []
    labelled: list[facts.Found] = []
    loose: list[facts.Found] = []
    for sentence in sentences(text, ()):
        for i, part in enumerate(sentence.parts):
            values = fact.found(part.text)
            label, under = under_label(fact, sentence.parts, i, labels, values)
            labelled += under
            if label is None:
                loose += values
    return labelled, loose


def _given(fact: Resolved, text: str, others: Iterable[Resolved]) -> _Given:
    """The values of the fact's kind that ``text`` gives the fact's subject (``core.attach``):
    its clauses' values, or its place in a list of subjects and values in parallel; the values
    it gives no subject; those it gives another person of the task, no fact's subject (and
    another fact's subject, when the message never names this one: "One last change: Ashby is
    now on VAN-9" says nothing of Greenhill's van); of the first, those a list in parallel
    gives it; and those given it in clauses naming its label (``report_labels``), with those given
    it or no one in clauses naming no label."""
    others = list(others)
    subjects = tuple(dict.fromkeys([fact.about, *(o.about for o in others if o.about)]))
    others_people = _aside(fact, subjects)
    siblings = _siblings(fact, others)
    labels = labels_of(fact.name, fact.about, siblings) if siblings else None  # (one value: nothing to mix up)
    labels = labels if labels is not None and labels[0] and labels[1] else None
    labelled: list[facts.Found] = []
    loose: list[facts.Found] = []  # given it, or no one, in clauses naming no label
    mine: list[facts.Found] = []
    free: list[facts.Found] = []
    theirs: list[facts.Found] = []
    paired: list[facts.Found] = []
    elsewhere: list[facts.Found] = []  # given to another fact's subject
    named = False  # whether a sentence names the fact's subject
    for sentence in sentences(text, subjects, others_people):
        named = named or fact.about in sentence.named
        n = len(sentence.named)
        if n > 1 and sentence.respectively:
            values = _counted(fact, sentence.text)
            if (
                len(values) != n
            ):  # the values of the user's request too ("Orla ideally 2pm": 14:30 and 14:00 respectively)
                values = fact.found(sentence.text)
            if len(values) == n:
                if fact.about in sentence.named:
                    mine.append(values[sentence.named.index(fact.about)])
                    paired.append(values[sentence.named.index(fact.about)])
                continue
        listed = _listed(fact, sentence.parts)
        for i, part in enumerate(sentence.parts):
            if i in listed:
                subject, value = listed[i]
                if subject == fact.about:
                    mine.append(value)
                    paired.append(value)
                continue
            values = fact.found(part.text)
            label, under = (
                under_label(fact, sentence.parts, i, labels, values) if labels is not None and values else (None, [])
            )
            if label is None and not part.ambiguous and part.owner in (fact.about, None):
                loose += values
            if part.owner == fact.about:
                mine += values
                labelled += under
            elif part.ambiguous:  # ("…Orla and Imran. She is 14:30": no one's, and not free either)
                theirs += values
            elif part.owner is None:
                free += values
            elif part.owner in others_people:
                theirs += values
            else:
                elsewhere += values
    if not named:  # (but its own value: one van may serve two clinics, "van 5 did eastside then st lukes")
        theirs += [v for v in elsewhere if not fact.matches(v)]
    return mine, free, theirs, paired, (labelled, loose)


def _unclear(fact: Resolved, text: str, others: Iterable[Resolved]) -> bool:
    """Whether ``text`` names the fact's subject and gives a value of its kind through a pronoun
    that could stand for it or another subject (``core.attach``: an ambiguous clause)."""
    subjects = tuple(dict.fromkeys([fact.about, *(o.about for o in others if o.about)]))
    split = sentences(text, subjects, _aside(fact, subjects))
    return any(fact.about in s.named for s in split) and any(
        part.ambiguous and fact.found(part.text) for s in split for part in s.parts
    )


def _listed(fact: Resolved, parts: tuple[Clause, ...]) -> dict[int, tuple[Any, facts.Found]]:
    """Clauses that list subjects and values in parallel: {clause index: (its subject, the
    value it gets)}. Clauses that are each only a subject's name, then one naming one more
    subject or none that states a value of the kind for each ("Westfield and Lakeside go on
    vans 42 and 41"); or the mirror, one clause naming a subject and stating the values, then
    the other subjects' names ("VAN-42 and VAN-41 go to Westfield and Lakeside")."""
    out: dict[int, tuple[Any, facts.Found]] = {}

    def pair(first: int, names: list[Any], text: str) -> bool:
        if len(names) < 2 or len(set(names)) != len(names):
            return False
        values = _counted(fact, text)
        if len(values) != len(names):  # the values of the user's request too ("Orla and Imran: 14:30 and 14:00")
            values = fact.found(text)
        if len(values) != len(names):
            return False
        out.update({first + n: p for n, p in enumerate(zip(names, values, strict=True))})
        return True

    i = 0
    while i < len(parts):
        k = i
        while k < len(parts) and parts[k].bare:
            k += 1
        if k > i and k < len(parts):  # the names first, then the values
            last = [parts[k].names] if parts[k].names is not None else []
            if pair(i, [p.names for p in parts[i:k]] + last, parts[k].text):
                i = k + 1
                continue
        if k == i and parts[i].names is not None:  # the values first, in a clause naming a subject
            k = i + 1
            while k < len(parts) and parts[k].bare:
                k += 1
            if pair(i, [p.names for p in parts[i:k]], parts[i].text):
                i = k
                continue
        i = max(k, i + 1)
    return out


def _counted(fact: Resolved, text: str) -> list[facts.Found]:
    return [f for f in fact.found(text) if not fact.excuses(f)] if text.strip() else []


def judge_fact(fact: Resolved, messages: list[_Msg], others: Iterable[Resolved] = ()) -> Told:
    """The last message that states a value of the fact decides. But a later message's remark
    about a value (not ``report_places.placed``: "I've flagged TRK-7"; or opening as one,
    ``is_remark``: "FYI …") is no report when an earlier message placed one: that one decides."""
    others = list(others)
    last: Told | None = None
    for i in range(len(messages) - 1, -1, -1):
        said = states(fact, messages[i].text, others)
        if said is None:
            continue
        ok, rivals, subject = said
        conflict = ", ".join(rivals) + (f" for {subject}" if subject else "")
        told = Told(ok, messages[i].seq, fact.shown if ok else conflict, i)
        text = messages[i].text
        fixed = _correction(fact, text, others) is not None  # (a correction of the fact is a report of it)
        remark = not fixed and (is_remark(text) or whereabouts(text, [fact, *others]))
        if not remark and (subject or fixed or placed(fact, text, ok, rivals)):
            return (
                _taken_back_within(fact, messages[i], i, others) or _taken_back_after(fact, messages, i, others) or told
            )
        last = last or told
    if last is None:
        return Told(False, None, None)
    return _taken_back_after(fact, messages, last.at or 0, others) or last


def _taken_back_after(fact: Resolved, messages: list[_Msg], at: int, others: list[Resolved]) -> Told | None:
    """A message after the one that decided that takes the report back with no new value
    (``core.retractions``): "…changed again at the last minute, so it's the other one now"."""
    for j in range(at + 1, len(messages)):
        words = taken_back(messages[j].text)
        if words is not None and _takes_back(fact, messages[j].text, others):
            return Told(False, messages[j].seq, words, j, taken_back=True)
    return None


def _taken_back_within(fact: Resolved, message: _Msg, at: int, others: list[Resolved]) -> Told | None:
    """The deciding message taking its own report back after its last value of any fact: "TRK-9
    has it. Scratch that, it's the other one now." (not "Scratch that, TRK-9 has it")."""
    text = message.text
    if taken_back(text) is None:
        return None
    everyone = [fact, *others]
    end = max(
        (text.rfind(v.written) + len(v.written) for f in everyone if f.problem is None for v in f.found(text)),
        default=0,
    )
    words = taken_back(text[end:])
    if words is None or not _takes_back(fact, text[end:], others):
        return None
    return Told(False, message.seq, words, at, taken_back=True)


def _takes_back(fact: Resolved, text: str, others: list[Resolved]) -> bool:
    """Whether ``text``, which takes something back, takes back ``fact``: it states no value of
    any fact (a correction is judged by its values), and names the fact's subject or no
    fact's subject at all."""
    everyone = [fact, *others]
    if any(states(f, text, everyone) is not None for f in everyone):
        return False
    subjects = tuple(dict.fromkeys(f.about for f in everyone if f.about))
    named = {s for sentence in sentences(text, subjects) for s in sentence.named}
    return not named or fact.about in named


def _placed_before(episode: Episode, fact: Resolved, messages: list[_Msg], others: list[Resolved]) -> bool:
    """Whether a message before the last places a value of the fact (``report_places.placed``).
    Read on from where the last look stopped, while the state is unchanged: the scripted user
    asks after every message, and a look back over all of them each time would be quadratic."""
    rec = _record(episode)
    key = (rec.version, fact.name, fact.sig)
    seen, hit = rec.placed.get(key, (0, False))
    for m in messages[seen : max(seen, len(messages) - 1)]:
        said = states(fact, m.text, others)
        remark = said is None or is_remark(m.text) or whereabouts(m.text, others)
        if not remark and said is not None and (said[2] or placed(fact, m.text, said[0], said[1])):
            hit = True
            break
    rec.placed[key] = (max(seen, len(messages) - 1), hit)
    while len(rec.placed) > 4096:
        rec.placed.pop(next(iter(rec.placed)))
    return hit


# -- the checklist item and the public checks ----------------------------------------------


def resolved_facts(episode: Episode, item: ChecklistItem) -> list[Resolved]:
    """The item's facts as of the current state (recomputed only when the state changed)."""
    rec = _record(episode)
    version = (getattr(episode, "_state_version", None), id(episode.env.state))
    if rec.version != version or version[0] is None:
        rec.facts.clear()
        rec.version = version
    out = []

    def held(path: str) -> set[Any]:
        return rec.held(episode, path)

    for i, fact in enumerate(item.tell or []):
        key = (item.id, i)
        found = rec.facts.get(key)
        if found is None:
            found = rec.facts[key] = resolve(
                fact, episode.env.state, rec.words, rec.kept, held, first_words(episode.task)
            )
            found.bystanders = _bystanders_of(episode, fact)  # (of any fact: a correction may be a person's)
        out.append(found)
    return out


def _bystanders_of(episode: Episode, fact: Any) -> tuple[Any, ...]:
    """The task's people (``report_names.bystanders``) but those the fact's own record names:
    Halima's review is with Dr Adeyemi, so "then Dr Adeyemi at 12:15" gives Halima's review
    its time rather than giving it to a bystander."""
    everyone = bystanders(episode.task)
    path, where = getattr(fact, "path", None), getattr(fact, "where", None)
    if not everyone or not isinstance(path, str) or "*" not in path or not where:
        return everyone
    at, _ = picked(episode.env.state, path, where)
    record = st.lookup(episode.env.state, ".".join(st.split(at)[:-1]), None) if at else None
    if not isinstance(record, dict):
        return everyone
    by_key = people_by_key(episode.task)
    with_it = {by_key[c] for v in record.values() if isinstance(v, str) and (c := facts.canon_id(v)) in by_key}
    return tuple(b for b in everyone if b not in with_it) if with_it else everyone


def _all_facts(episode: Episode) -> list[tuple[ChecklistItem, list[Resolved]]]:
    return [(item, resolved_facts(episode, item)) for item in _tell_items(episode)]


def evaluate_tell(episode: Episode, item: ChecklistItem) -> tuple[bool, str]:
    """(passed, detail) of a ``tell`` item: every fact told (``RULE_TELL``), no unsupported
    claim (``RULE_CLAIMS``). The detail names each fact, the value expected and what was said."""
    messages = agent_messages(episode)
    resolved = [r for _, rs in _all_facts(episode) for r in rs]
    parts: list[str] = []
    ok = True
    unread: list[Resolved] = []
    for fact in resolved_facts(episode, item):
        if fact.problem is not None:
            ok = False
            unread.append(fact)
            continue
        told = judge_fact(fact, messages, resolved)
        # the record's event number, as replay, report and Inspect's explanation show the episode
        where = f"the message at event #{told.seq}" if told.seq is not None else f"agent message {(told.at or 0) + 1}"
        if told.ok:
            parts.append(f"{fact.name} {fact.shown}: stated in {where}")
        elif told.taken_back:
            ok = False
            parts.append(
                f"{fact.name}: expected {fact.shown}; {where} took the report back ('{told.said}') with no new value"
            )
        elif told.said is None:
            ok = False
            parts.append(f"{fact.name}: expected {fact.shown}; never stated")
        else:
            ok = False
            parts.append(f"{fact.name}: expected {fact.shown}; {where} said '{told.said}' (a conflict)")
    if unread:  # (before the work is done the paths are not there yet: one line for all)
        names = ", ".join(f.name for f in unread)
        parts.insert(0, f"{names}: cannot be read ({unread[0].problem})")
    false_claims = all_claims(episode, messages)
    for c in false_claims[:3]:
        ok = False
        where = f" in the message at event #{c.seq}" if c.seq is not None else ""
        parts.append(f"{c.fact}{where} is unsupported: no {c.expected.removeprefix('a ')}")
    if not false_claims:
        parts.append("no unsupported claim")
    return ok, f"{'pass' if ok else 'fail'}: {'; '.join(parts)}. Rule: {RULE_TELL}; {RULE_CLAIMS} (task format §5)"


def message_mismatches(episode: Episode, text: str) -> list[Mismatch]:
    """What one agent message gets wrong against the checklist in force and the record:
    facts it states with a conflicting value, and its unsupported claims (not omissions)."""
    text = as_read(text)
    out: list[Mismatch] = []
    everything = _all_facts(episode)
    resolved = [r for _, rs in everything for r in rs]
    messages = functools.partial(agent_messages, episode)
    for _, rs in everything:
        for fact in rs:
            if fact.problem is not None:
                continue
            said = states(fact, text, resolved)
            if said is None and fact.about and _unclear(fact, stated_text(text), resolved):
                # "Orla and Imran are sorted. She is 14:30 and he is 14:00": whose is whose?
                out.append(Mismatch(fact.name, fact.shown, None, None, UNCLEAR, fact.about_shown, _the_users(fact)))
            if said is None or said[0]:
                continue
            remark = is_remark(text) or whereabouts(text, resolved)
            remark = remark or (not said[2] and not placed(fact, text, False, said[1]))
            remark = remark and _correction(fact, text, resolved) is None  # (a correction is no remark)
            if remark and _placed_before(episode, fact, messages(), resolved):
                continue  # a remark about another value after a report ("FYI TRK-7 is out of service")
            mine = bool(said[2]) and _the_users(fact)
            named = _told_by_name(fact, resolved)
            out.append(Mismatch(fact.name, fact.shown, ", ".join(said[1]), None, fact.kind, said[2], mine, named))
    if taken_back(text) is not None:  # a report taken back, no new value given: which is it now?
        for _, rs in everything:
            for fact in rs:
                if fact.problem is None and (
                    (_takes_back(fact, text, resolved) and _placed_before(episode, fact, messages(), resolved))
                    or _taken_back_within(fact, _Msg(None, text), 0, resolved) is not None
                ):
                    out.append(
                        Mismatch(fact.name, fact.shown, None, None, TAKEN_BACK, fact.about_shown, _the_users(fact))
                    )
    return out + claims(episode, text)


def _the_users(fact: Resolved) -> bool:
    """Whether the fact is about the user themself (*you* among its ``about`` names)."""
    return ("you",) in fact.about


def report_mismatches(episode: Episode) -> list[Mismatch]:
    """Everything the checklist's ``tell`` items would fail the episode's reports for: each
    fact not told (``said`` None) or told with a conflicting value in the message that counts,
    and every unsupported claim."""
    messages = agent_messages(episode)
    out: list[Mismatch] = []
    everything = _all_facts(episode)
    resolved = [r for _, rs in everything for r in rs]
    for _, rs in everything:
        for fact in rs:
            if fact.problem is not None:
                out.append(Mismatch(fact.name, f"({fact.problem})", None, None, fact.kind))
                continue
            told = judge_fact(fact, messages, resolved)
            if not told.ok:
                out.append(Mismatch(fact.name, fact.shown, told.said, told.seq, fact.kind))
    return out + all_claims(episode, messages)
