"""A later message that takes a report back without giving a new value.

"Sorry, correction to the above: Daniel's seat changed again at the last minute, so it's the
other one now." leaves the user not knowing the seat: the report before it no longer stands,
and nothing replaces it. ``core.reports`` fails the facts such a message takes back, and the
scripted user asks which it is now (task format §5, *Taken back*).

A message takes a report back when, in what it states (``core.stated``: not in a question, a
negation or a supposition), it says

- the value is *the other one* ("it's the other one now", typed "its the other one", "the
  other one instead");
- something *changed again*, in a sentence that gives no value (no digit, no id: "the gate
  changed again, now C27" gives one);
- *scratch that*, *ignore* or *disregard that* (or *my last message*, *what I said*), or that
  what it said *is no longer right* (*not correct*, *was wrong*, *is out of date*);

and it does not say the change leaves the plan as it was ("…, but your booking is
unaffected"). A message stating a value of any ``tell`` fact is a correction, judged by its
values, not taken back. Which facts it takes back: those of the subjects it names (``about``),
or every fact when it names none."""

from __future__ import annotations

import re
from functools import lru_cache

from sttui.core.facts import fold
from sttui.core.stated import stated_text

_OTHER_ONE = re.compile(
    r"(?:\b(?:it|that|this|they|she|he)(?:'s|'re| is| are| was)|\bits)\s+(?:now\s+)?the\s+other\s+(?:one|ones)\b"
    r"|\bthe\s+other\s+(?:one|ones)\s+(?:now|instead)\b"
)
_SCRATCH = re.compile(
    r"\bscratch\s+that\b"
    r"|\b(?:ignore|disregard|forget)\s+(?:that|this|my\s+(?:last|previous|earlier)(?:\s+(?:message|update|report))?"
    r"|what\s+i\s+(?:said|wrote|told\s+you))\b"
    r"|\b(?:that|this|what\s+i\s+(?:said|wrote|told\s+you)|my\s+(?:last|previous|earlier)\s+(?:message|update|report))"
    r"\s+(?:is|was|'s)\s+(?:no\s+longer|not)\s+(?:right|correct|accurate|true|valid)\b"
    r"|\b(?:that|this|what\s+i\s+(?:said|wrote|told\s+you))\s+(?:is|was|'s)\s+(?:wrong|out\s+of\s+date)\b"
)
_AGAIN = re.compile(r"\bchanged\s+again\b")
_UNAFFECTED = re.compile(
    r"\b(?:unaffected|not\s+affected|(?:doesn't|does\s+not|won't|will\s+not|didn't|did\s+not)\s+affect"
    r"|no\s+change\s+(?:to|for)|(?:still\s+)?(?:holds|stands)\b|(?:everything|all)\s+else\s+is)"
)
_SENTENCE = re.compile(r"[^.!?\n]+")
_VALUE = re.compile(r"\d")
# before the words in their sentence, these leave them open or deny them ("I don't know whether
# it's the other one now", "nothing has changed again")
_OPEN = re.compile(r"\b(?:whether|if|unless|not\s+sure|don't\s+know|do\s+not\s+know|nothing|none|no\s+one)\b")


@lru_cache(maxsize=1024)
def taken_back(text: str) -> str | None:
    """The words by which ``text`` takes back what was reported (None: it does not)."""
    said = fold(stated_text(text)).replace("\u2019", "'")
    if _UNAFFECTED.search(said):
        return None
    for sentence in _SENTENCE.finditer(said):
        words = sentence.group()
        found = _OTHER_ONE.search(words) or _SCRATCH.search(words)
        if found is None and not _VALUE.search(words):
            found = _AGAIN.search(words)
        if found is not None and not _OPEN.search(words, 0, found.start()):
            return found.group()
    return None
