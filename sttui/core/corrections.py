"""A correction within a message: the value it gives decides, not the one it corrects.

"SAIL-301 goes on FB-7 with Morag. Correction: FB-2, not FB-7." and "… Sorry, I meant FB-2."
leave the user with FB-2: what the message stated before the correction no longer stands.
``core.reports.states`` reads a fact from the message's last correction of it, when there is
one (task format §5, *Corrected within a message*).

A correction is a sentence that opens as one, in what it states (``core.stated``: not in a
question or a supposition; "If I meant VAN-2 …" corrects nothing):

- *correction*, *typo*, *erratum* or *to correct that* before a colon, comma or dash;
- *I meant* (not *meant to*), *I should have said*, *that should read/say* (not *should be*:
  "that should be fine for his 16:00 bus");
- *make that* after *actually, sorry, no, wait* or before a figure ("make that 14:20"; not "I'll
  make that call"), *actually, it's* (the comma: "it's actually FB-7" corrects nothing);
- *scratch that* or *rather* with a value after it ("scratch that, FB-2").

It is a correction of a fact when its sentence states a value of the fact's kind and it is the
fact's: it names the value it corrects (the fact's expected one: "not FB-7"), or the fact's
subject (``about``), or the fact is the only one of its kind the report is judged on. A
correction that names no subject and no fact's value ("Sorry, I meant KL1002" after three
flights) corrects every fact of its kind: the user cannot tell which it is."""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache
from typing import TYPE_CHECKING

from sttui.core.facts import fold

if TYPE_CHECKING:
    from sttui.core.report_facts import Resolved

_MARK = re.compile(
    r"(?<![\w'])(?:"
    r"(?:correction|typo|erratum|to\s+correct\s+(?:that|this|myself))\s*[:,\u2013\u2014-]"
    r"|(?:i|we)\s+meant\b(?!\s+to\b)"
    r"|(?:i|we)\s+should\s+have\s+(?:said|written)\b"
    r"|(?:that|this|it)\s+should\s+(?:read|say|have\s+said)\b"
    r"|(?:actually|sorry|oops|no|wait)\s*,?\s*make\s+that\b|make\s+that\s+(?=(?:the\s+)?[\w-]*\d)"
    r"|actually\s*,\s*(?:it'?s|it\s+is|make\s+it)\b"
    r"|(?:scratch\s+that|or\s+rather)\s*[,:\u2013\u2014-]?"
    r")"
)
# a sentence: up to a stop followed by a space or the end, or a line's end ("11.40" is no stop)
_SENTENCE = re.compile(r"[^\n]*?(?:[.!?](?=\s|$)|\n|$)")
# what before the mark in its sentence leaves the correction open ("if I meant …", "not sure I meant …")
_OPEN = re.compile(r"\b(?:if|whether|unless|suppose|not\s+sure|don't\s+know)\b")


@lru_cache(maxsize=4096)
def correcting(text: str) -> tuple[tuple[int, int], ...]:
    """The spans of ``text``'s sentences that open a correction, in order."""
    folded = fold(text).replace("\u2019", "'")
    if len(folded) != len(text) or _MARK.search(folded) is None:  # (almost every message: one search)
        return ()
    out = []
    for sentence in _SENTENCE.finditer(folded):
        if not sentence.group().strip():
            continue
        mark = _MARK.search(folded, sentence.start(), sentence.end())
        if mark is not None and not _OPEN.search(folded, sentence.start(), mark.start()):
            out.append((mark.start(), sentence.end()))
    return tuple(out)


def corrected(fact: Resolved, text: str, others: Iterable[Resolved] = ()) -> str | None:
    """The part of ``text`` that corrects ``fact``: its last correcting sentence (from the mark
    on) that states a value of the fact's kind and is the fact's. None: no correction of it."""
    if fact.problem is not None:
        return None
    spans = correcting(text)
    if not spans:
        return None
    from sttui.core.attach import sentences
    from sttui.core.stated import stated_text

    others = [o for o in others if o is not fact and o.problem is None]
    alone = not any(o.kind == fact.kind for o in others)
    subjects = tuple(dict.fromkeys(f.about for f in (fact, *others) if f.about))
    kin = [o for o in others if o.kind == fact.kind]
    for start, end in reversed(spans):
        part = text[start:end]
        if not fact.found(stated_text(part)):
            continue  # (it corrects something else: a time, another fact's kind)
        if alone or any(fact.matches(f) for f in fact.found(part)):
            return part
        named = {s for sentence in sentences(part, subjects) for s in sentence.named}
        if fact.about and fact.about in named:
            return part
        if named or any(o.matches(f) for o in kin for f in o.found(part)):
            continue  # (another fact's: its subject, or its value)
        return part
    return None
