"""A correction within a message: the value it gives decides, not the one it corrects.

"SAIL-301 goes on FB-7 with Morag. Correction: FB-2, not FB-7.", "… Sorry, I meant FB-2." and
"… It went on FB-2 in the end." leave the user with FB-2: what the message stated before the
correction no longer stands. ``core.reports.states`` reads a fact from the message's last
correction of it, when the message stated a value of the fact before it (task format §5,
*Corrected within a message*).

A correction is a sentence, or the end of one, in what it states (``core.stated``: not in a
question or a supposition; "If I meant VAN-2 …" corrects nothing), that

- opens, from its words on (``_MARK``): *correction, typo, erratum, to correct that, update,
  change of plan, last-minute change* before a colon, comma or dash; *I meant* (not *meant
  to*); *I should have said*; *that should read/say* (not *should be*: "that should be fine
  for his 16:00 bus"); *make that* after *actually, sorry, no, wait* or before a figure (not
  "I'll make that call"); *actually, it's* (the comma: "it's actually FB-7" corrects nothing);
  *scratch that* or *or rather*; *wait, no*; *my mistake, I misspoke…*; *let me correct that*;
  *strike that, ignore that*; *on second thought*; or opens its sentence with *actually* and
  puts what was done somewhere (``_ACTUALLY``: "Actually, they went on FB-2", "Actually it's
  FB-2"; not "Actually, FB-2 is back in service");
- or puts a slip right within a sentence (``_SLIP``): *sorry, oops* or *I mean* with a comma,
  colon or dash and a figure after it, which gives that one value ("on FB-7, sorry, FB-2,
  leaving at 11:20": FB-2; ``core.stated`` leaves FB-7 unstated, for the claims too); or *no,
  er, um* between two figures of one form, or "(I mean" between any two
  (``stated.own_form_slips``: "on FB-7 - no, FB-2", "on FB-7 (I mean FB-2)");
- or opens with a label of what is now after a label of what was (``_NEW_LABEL``: "Old: FB-7
  / New: FB-2", "Before: FB-7. After: FB-2."), from the label of what was;
- or says the value changed since, the whole sentence (``_CHANGED``): *in the end, at the last
  minute, ended up, fell through, has been moved / got pushed back / was switched to …*, *was …
  now* ("It was on FB-7, now it's on FB-2"), *swapped out for*, *replaced* and a figure; an id
  it gives must be placed there ("It went on FB-2 in the end"; not "FB-2 wasn't needed in the
  end").

It is a correction of a fact when its sentence states a value of the fact's kind and it is the
fact's (what the message said before it stated the fact, ``core.reports``: a message's first
statement corrects nothing): it names the value it corrects (the fact's expected one: "not FB-7"), or the fact's
subject (``about``), or the fact is the only one of its kind the report is judged on. A
correction that names no subject and no fact's value ("Sorry, I meant KL1002" after three
flights) corrects every fact of its kind: the user cannot tell which it is."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from sttui.core.attach import sentences
from sttui.core.facts import fold
from sttui.core.stated import FORMER_LABEL, NAME_SLIPPED, has_labels, own_form_slips, stated_text

if TYPE_CHECKING:
    from sttui.core.report_facts import Resolved

# what opens a correction: the sentence from it on gives the new value
_MARK = re.compile(
    r"(?<![\w'])(?:"
    r"(?:correction|typo|erratum|to\s+correct\s+(?:that|this|myself)|update|change\s+of\s+plans?"
    r"|(?:last[-\s]minute|late)\s+change)\s*[:,\u2013\u2014-]"
    r"|(?:i|we)\s+meant\b(?!\s+to\b)"
    r"|(?:i|we)\s+should\s+have\s+(?:said|written)\b"
    r"|(?:that|this|it)\s+should\s+(?:read|say|have\s+said)\b"
    r"|(?:actually|sorry|oops|no|wait)\s*,?\s*make\s+that\b|make\s+that\s+(?=(?:the\s+)?[\w-]*\d)"
    r"|actually\s*,\s*(?:it'?s|it\s+is|make\s+it)\b"
    r"|(?:scratch\s+that|or\s+rather)\s*[,:\u2013\u2014-]?"
    r"|wait\s*[,:\u2013\u2014-]?\s*no\b\s*[,:\u2013\u2014-]?|no\s*,?\s*wait\b\s*[,:\u2013\u2014-]?"
    r"|(?:my\s+(?:mistake|bad|error)|i\s+(?:misspoke|mistyped|misread|got\s+that\s+wrong))\s*[,:;\u2013\u2014-]"
    r"|let\s+me\s+correct\s+(?:that|this|myself)"
    r"|(?:strike|ignore|disregard)\s+that\s*[,:;\u2013\u2014-]"
    r"|on\s+second\s+thoughts?\s*[,:\u2013\u2014-]?"
    r")"
)
# … and a sentence opening with *actually* that puts what was done somewhere: "Actually, they
# went on TRK-7", "Actually the doses are with TRK-7", "Actually TRK-7 took them" (not a remark
# on a value: "Actually, TRK-7 is back in service"; "it's actually FB-7" corrects nothing)
_ACTUALLY = re.compile(
    r"\s*(?:[-*\u2022]\s+)?actually\s*,?\s*(?:"
    r"(?:it|they|she|he|we|i|the\s+[\w-]+(?:\s+[\w-]+)?)\s+(?:went|go|goes|is|are|was|were|'s|'re|has\s+gone"
    r"|have\s+gone|ended\s+up)\s+(?:on|to|with|at|in|into|onto|via|by|from)\b"
    r"|[\w-]*\d[\w-]*\s+(?:took|has|have|carried|got|delivered)\s+(?:them|it|the|her|him)\b"
    r"|(?:it'?s|it\s+is|it\s+was|make\s+it)\b)"
)

# what says, anywhere in its sentence, that the value changed since: the whole sentence gives it
_CHANGED = re.compile(
    r"(?<![\w'])(?:in\s+the\s+end|at\s+the\s+last\s+minute|ended\s+up|(?:fell|fallen)\s+through"
    r"|(?:has|have|had|was|were|got|'s|'ve|been)\s+(?:been\s+)?(?:moved|pushed\s+back|brought\s+forward|changed"
    r"|switched|swapped|shifted)\s+(?:to|for|onto)"
    r"|(?:swapped|switched)\s+(?:it\s+|them\s+)?(?:to|onto)"
    # … or that it was one thing and is now another ("It was on FB-7, now it's on FB-2"), that
    # the old one was swapped out ("FB-7 swapped out for FB-2"), or that one replaced a figure
    r"|(?:was|were|had)\b[^.!?\n]{0,120}?\bnow\s+(?:(?:it'?s|it\s+is|they'?re|they\s+are)\s+)?"
    r"(?:(?:on|at|with|in|via|using|onto)\s+\S+|[\w-]*\d[\w-]*)"
    r"|(?:swapped|switched|subbed|traded)\s+out\s+for|replaced\s+(?:the\s+)?[\w-]*\d[\w-]*)\b"
)
# … or a label of what is now, after one of what was ("Old: FB-7 / New: FB-2", "Before: FB-7.
# After: FB-2."; ``stated.FORMER_LABEL``): from it on
_NEW_LABEL = re.compile(
    r"(?:^|(?<=[\n|/;(])|(?<=[.!?] ))[ \t*_#>\u2022-]*(?:new|after|now|actual|final|updated|revised|current)"
    r"(?:[ \t]+[a-z]+)?[ \t*_]*:",
    re.MULTILINE,
)
# … and within a sentence, a slip put right at once: "on FB-7, sorry, FB-2" (a figure after it),
# which gives the one value right after it (``core.stated`` leaves the slip itself unstated)
_SLIP = re.compile(r"(?<![\w'])(?:sorry|oops|i\s+mean)\s*[,:\u2013\u2014-]\s*")
_FIGURE = re.compile(r"[\w-]*\d(?:[\w:.-]*[\w])?(?:\s?[ap]\.?m\b\.?)?")
# … or a name after it, as written, a capital opening each of its words ("to Northgate, sorry,
# Riverside"), after a name put right the same way (``core.stated``)
_NAME = re.compile(r"(?:the\s+)?[A-Z][\w'&-]*(?:\s+(?:[A-Z][\w'&-]*|&|\d+[A-Za-z]?\b))*")
# a sentence: up to a stop followed by a space or the end, or a line's end ("11.40" is no stop)
_SENTENCE = re.compile(r"[^\n]*?(?:[.!?](?=\s|$)|\n|$)")
# what before the mark in its sentence leaves the correction open ("if I meant …", "not sure I meant …")
_OPEN = re.compile(r"\b(?:if|whether|unless|suppose|not\s+sure|don't\s+know)\b")


@dataclass(frozen=True)
class Correction:
    """A sentence that corrects what its message said before it."""

    start: int  # where it begins (its mark, or its sentence): the message before it is text[:start]
    end: int
    changed: bool = False  # it says the value changed (``_CHANGED``): an id must be placed there


@lru_cache(maxsize=4096)
def correcting(text: str) -> tuple[Correction, ...]:
    """The sentences of ``text`` that correct what it said before them, in order."""
    folded = fold(text).replace("\u2019", "'")
    own = own_form_slips(folded) if len(folded) == len(text) else []
    formers = [m.span() for m in FORMER_LABEL.finditer(folded)] if has_labels(folded) else []
    labels = _NEW_LABEL if formers else None
    if len(folded) != len(text) or not (
        own or labels or any(r.search(folded) for r in (_MARK, _CHANGED, _SLIP, _ACTUALLY))
    ):
        return ()  # (almost every message: a few searches)
    out = []
    for sentence in _SENTENCE.finditer(folded):
        if not sentence.group().strip():
            continue
        actually = _ACTUALLY.match(folded, sentence.start(), sentence.end())
        labelled, was = None, -1  # (a label of what is now, and where the label of what was before it opens)
        if labels is not None and formers[0][1] <= sentence.end():
            labelled = labels.search(folded, max(sentence.start(), formers[0][1]), sentence.end())
            was = max((a for a, b in formers if labelled is not None and b <= labelled.start()), default=-1)
        opens = _MARK.search(folded, sentence.start(), sentence.end()) or actually or labelled
        mark = opens or _CHANGED.search(folded, sentence.start(), sentence.end())
        if mark is not None and not _OPEN.search(folded, sentence.start(), mark.start()):
            start = sentence.start() if opens is None else opens.start()
            if (
                opens is labelled and was >= 0
            ):  # (from what was: "Before: FB-7. After: FB-2" names the one it puts right)
                start = was
            out.append(Correction(start, sentence.end(), changed=opens is None or opens is actually))
        else:  # the last slip in it put right ("… Corn Exchange, sorry, Harbour Centre, sorry, Corn Exchange")
            slips: list[Correction] = []
            for m in own:  # "TRK-9 - no, TRK-7": a figure put right by one of its own form
                figure = _FIGURE.match(folded, m.end())
                if sentence.start() <= m.start() < sentence.end() and figure is not None:
                    slips.append(Correction(m.end(1), figure.end()))
            for slip in _SLIP.finditer(folded, sentence.start(), sentence.end()):
                figure = _FIGURE.match(folded, slip.end())
                if figure is not None and any(c.isdigit() for c in figure.group()):
                    slips.append(Correction(slip.start(), figure.end()))
                    continue
                name = _NAME.match(text, slip.end())
                before = NAME_SLIPPED.finditer(text, max(sentence.start(), slip.start() - 120), slip.end() + 5)
                if name is not None and any(m.end() == slip.end() for m in before):
                    slips.append(Correction(slip.start(), name.end()))
            last = max(slips, key=lambda c: c.start, default=None)
            if last is not None:
                out.append(last)
    return tuple(out)


def corrected(fact: Resolved, text: str, others: Iterable[Resolved] = ()) -> Correction | None:
    """The last sentence of ``text`` that corrects ``fact``: it states a value of the fact's
    kind and is the fact's. None: none. (Whether the message stated the fact before it is the
    caller's to judge: ``core.reports.states``.)"""
    if fact.problem is not None:
        return None
    found = correcting(text)
    if not found:
        return None
    others = [o for o in others if o is not fact and o.problem is None]
    kin = [o for o in others if o.kind == fact.kind]
    # the facts' subjects and the task's people: "Grace Mensah was moved to 11:30" is Grace's
    subjects = tuple(dict.fromkeys([*(f.about for f in (fact, *others) if f.about), *fact.bystanders]))
    for c in reversed(found):
        part = text[c.start : c.end]
        given = fact.found(stated_text(part))
        if not given:
            continue  # (it corrects something else: a time, another fact's kind)
        if any(fact.matches(f) for f in fact.found(part)):
            return c  # (it names the value it corrects: "FB-2, not FB-7")
        # who it names, but for the value it gives (a place is a record with a name: "Sorry, I
        # meant Holyhead" gives the port, and names no one else)
        words = {w for f in given for v in f.values for w in str(v).split()}
        named = {
            s for sentence in sentences(part, subjects) for s in sentence.named if not any(words & set(n) for n in s)
        }
        if fact.about and fact.about in named:
            return c
        if named or any(o.matches(f) for o in kin for f in o.found(part)):
            continue  # (another's: a subject, a person or a value of another fact)
        return c  # (the fact's alone, or every fact's of its kind: which, the user cannot tell)
    return None
