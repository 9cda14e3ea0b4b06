"""What leaves a whole sentence of a report open: the writer's doubt, another's word passed
on, a check not done ("To the best of my knowledge, …", "…, I'm told", "If I'm reading this
right, …", "… (not verified)", "TRK-9, I think, took them"), and the hedge words that leave
open the rest of their clause (``HEDGES``, read by ``core.stated``). One reading for the report
judge (``stated.stated_text`` blanks such a sentence), the rule judge of impossible tasks and
the scripted user (``stated.hedging``); task format §5 lists the words."""

from __future__ import annotations

import re

# the words that leave open what follows them to their clause's end ("could be on VAN-42",
# "will probably be ready at 15:00"); ``core.stated`` reads them
HEDGES = frozenset(
    {"maybe", "perhaps", "might", "probably", "possibly", "could", "hopefully", "likely", "presumably", "seems",
     "seem", "seemed", "seemingly", "apparently", "ought", "reckon"}
)  # fmt: skip

# what hedges the whole sentence it is in, wherever it stands: "restore at 11:19, fingers crossed"
_HEDGING_PHRASES = (
    ("fingers", "crossed"),
    ("touch", "wood"),
    ("with", "any", "luck"),
    ("all", "being", "well"),
    ("if", "all", "goes", "well"),
    ("with", "luck"),
    ("in", "theory"),
    ("touch", "and", "go"),
    ("no", "guarantee"),
    ("no", "guarantees"),
    ("no", "promises"),
    ("can't", "promise"),
    ("cannot", "promise"),
    ("can't", "guarantee"),
    ("cannot", "guarantee"),
    # a belief by another name (the scripted user asks for a clear answer to each): "…, I'm
    # fairly sure", "As far as I can tell, …", "…, if I'm not mistaken"
    ("pretty", "sure"),
    ("fairly", "sure"),
    ("reasonably", "sure"),
    ("as", "far", "as", "i", "know"),
    ("as", "far", "as", "i", "can", "tell"),
    ("as", "far", "as", "i'm", "aware"),
    ("as", "far", "as", "i", "am", "aware"),
    ("if", "i'm", "not", "mistaken"),
    ("unless", "i'm", "mistaken"),
    ("to", "my", "knowledge"),
    ("if", "memory", "serves"),
    # … or a booking not yet done: "14:30, pending confirmation"
    ("pending", "confirmation"),
    ("awaiting", "confirmation"),
    ("not", "yet", "confirmed"),
    ("to", "be", "confirmed"),
    # … or the writer's own doubt, or another's word passed on: "To the best of my knowledge,
    # …", "From what I can see, …", "My guess is …", "…, I'm told", "…, but don't quote me"
    ("best", "of", "my", "knowledge"),
    ("from", "what", "i", "can", "see"),
    ("from", "what", "i", "can", "tell"),
    ("from", "what", "i", "see"),
    ("from", "what", "i", "gather"),
    ("as", "far", "as", "i", "can", "see"),
    ("as", "best", "i", "can", "tell"),
    ("as", "i", "understand", "it"),
    ("my", "guess"),
    ("my", "best", "guess"),
    ("my", "understanding", "is"),
    ("in", "all", "likelihood"),
    ("chances", "are"),
    ("odds", "are"),
    ("supposedly",),
    ("allegedly",),
    ("reportedly",),
    ("almost", "certain"),
    ("almost", "sure"),
    ("nearly", "certain"),
    ("fairly", "confident"),
    ("pretty", "confident"),
    ("reasonably", "confident"),
    ("fairly", "certain"),
    ("pretty", "certain"),
    ("reasonably", "certain"),
    ("not", "100"),
    ("not", "entirely", "sure"),
    ("not", "entirely", "certain"),
    ("not", "completely", "sure"),
    ("not", "totally", "sure"),
    ("can't", "be", "sure"),
    ("can't", "be", "certain"),
    ("cannot", "be", "sure"),
    ("cannot", "be", "certain"),
    ("can't", "be", "100"),
    ("cannot", "be", "100"),
    ("can't", "say", "for", "sure"),
    ("can't", "say", "for", "certain"),
    ("couldn't", "say", "for", "sure"),
    ("don't", "quote", "me"),
    ("do", "not", "quote", "me"),
    ("at", "least", "that's", "what"),
    ("at", "least", "that", "is", "what"),
    ("at", "least", "according"),
    ("would", "appear"),
)
# … and what hedges its sentence only from its start or its end (but for a word like *yet* or
# *though* after it): another's word passed on, or what is done not yet checked ("…, I'm told",
# "I'm told it went on TRK-9", "…, unverified", "…, not verified yet"; not "The temperature log
# is not verified; TRK-9 delivered at 06:59", which doubts the log alone)
_HEDGING_EDGES = (
    ("i'm", "told"),
    ("i", "am", "told"),
    ("i've", "been", "told"),
    ("we're", "told"),
    ("we've", "been", "told"),
    ("unverified",),
    ("not", "verified"),
    ("not", "yet", "verified"),
    ("yet", "to", "be", "verified"),
    ("yet", "to", "be", "confirmed"),
    ("haven't", "verified", "it"),
    ("haven't", "verified", "this"),
    ("haven't", "verified", "that"),
    ("have", "not", "verified", "it"),
)
_AFTER_EDGE = frozenset(
    {"yet", "though", "so", "far", "as", "of", "now", "either", "too", "still", "at", "this", "point"}
)
# the same doubt in the forms a phrase cannot list: "if I'm reading this right", "unless I'm
# wrong", "if I recall", "if the tracker is right", "or so the system says" (on the sentence's
# words, lower case, joined by one space)
_DOUBTING = re.compile(
    r"(?:^| )(?:"
    r"(?:if|unless) (?:i|we)(?:'m|'ve| am| have| are|'re)? (?:reading|read|understand|understood|got|gotten|remember|"
    r"recall|see|seeing|interpret|interpreting) (?:(?:this|that|it|things|them|the [\w'-]+|[\w'-]+'s [\w'-]+) )?"
    r"(?:right|rightly|correctly|properly|aright)"
    r"|(?:if|unless) (?:i|we)(?:'m|'ve| am| have| are|'re)? (?:not )?(?:misread|misreading|misunderstood|mistaken|"
    r"wrong|recall|remember rightly)"
    r"|if (?:(?:the|my|our|their|this|that|its) )?(?:[\w-]+ ){0,2}?(?:is|was|are|were) (?:right|correct|accurate|"
    r"reliable|up to date)"
    r"|if (?:it's|that's|[\w-]+'s) (?:right|correct|accurate|reliable|up to date)"
    r"|or so (?:the [\w'-]+|it|they|i'm|i am|i was|i've been|we're|we were|i hear|i gather|i understand)"
    r"|unless (?:something|anything|things|that|it)(?:'s| has| have)? (?:changed|moved|slipped)"
    r"|assuming(?! (?:you|you're|your|that's|that is) )"  # (not "Assuming you still need the receipt, …")
    r")(?= |$)"
)
# the phrases by their first word: a sentence's words are each looked up once
_HEDGING_BY_FIRST: dict[str, list[tuple[str, ...]]] = {}
for _phrase in _HEDGING_PHRASES:
    _HEDGING_BY_FIRST.setdefault(_phrase[0], []).append(_phrase)
# a belief said between commas or at a clause's end: "TRK-9, I think, took them", "on TRK-9 I
# believe, and …"; "I'd say", "I'd imagine"
_AFTERTHOUGHT = frozenset({"think", "believe", "guess", "reckon", "suspect", "imagine", "gather", "expect"})
AFTER_I_D = frozenset({"say", "imagine", "guess", "think", "expect"})
# after "not sure" opening a sentence, what says the doubt is of something else ("Not sure why …")
_WH = frozenset({"why", "how", "what", "who", "where", "when", "which"})
# … and what does so at the sentence's end ("…, I think." is read as a belief): "at 11:19, I hope"
_HEDGING_ENDS = (
    ("i", "hope"),
    ("we", "hope"),
    ("hope", "so"),
    ("not", "sure"),
    ("not", "certain"),
    ("not", "sure", "though"),
)
# the hedge words that, last in a sentence, leave all of it open (not "…the earliest I could")
_HEDGING_LAST = HEDGES - {"could", "might"}

# the writer, and what cuts a clause between two words (a belief after it is an afterthought)
FIRST_PERSON = frozenset({"i", "we"})
CUT_BETWEEN = re.compile(r"[,;:()]|\s[-\u2013\u2014]\s")


# "I hope you…", "I hope this helps": a courtesy, no belief about what follows
_COURTEOUS_HOPE = frozenset({"you", "you're", "your", "this", "it", "all", "that's"})


def courteous(after: list[str]) -> bool:
    """Whether the words after *hope* are a courtesy ("hope you're well", "hope that helps")."""
    return bool(after) and (after[0] in _COURTEOUS_HOPE or after[:2] == ["that", "helps"])


# a sign of hoping, as a chat writes one ("On TRK-9 🤞"): the sentence is left open, as by
# "fingers crossed"
_HOPING_SIGNS = re.compile("[\U0001f91e\U0001f64f]")


def sentence_hedge(words: list[tuple[int, int, str]], text: str) -> tuple[int, int] | None:
    """Where a hedge that leaves all of its sentence open stands (a range of word indices), or
    None: one of ``_HEDGING_PHRASES`` or ``_DOUBTING`` anywhere, a hedge word or one of
    ``_HEDGING_ENDS`` as its last words ("Restore at 11:19, hopefully."), a belief put after what it doubts ("TRK-9,
    I think, took them"), *hope* as its first ("Hope CR-14 makes it by 11:19"), or *not sure*
    or *unsure* as its first, the "I'm" left out ("Not sure, but you're both on UA901"; not
    "Not sure why it was late, …")."""
    said = [w for _, _, w in words]
    if said[-1] in _HEDGING_LAST:
        return len(said) - 1, len(said)
    if _HOPING_SIGNS.search(text, words[0][0], min(len(text), words[-1][1] + 4)):  # "TRK-9 🤞"
        return 0, len(said)
    end = next((e for e in _HEDGING_ENDS if tuple(said[-len(e) :]) == e), None)
    if end is not None:
        return len(said) - len(end), len(said)
    if said[0] == "hope" and not courteous(said[1:3]):
        return 0, 1
    after = 1 if said[0] == "unsure" else 2 if said[:2] in (["not", "sure"], ["not", "certain"]) else 0
    if after and said[after : after + 1] != [] and said[after] not in _WH:
        return 0, after
    for i, w in enumerate(said):
        for p in _HEDGING_BY_FIRST.get(w, ()):
            if tuple(said[i : i + len(p)]) == p:
                return i, i + len(p)
        if 0 < i < len(said) - 1 and _afterthought(words, i, text):
            return i, i + 2
    for p in _HEDGING_EDGES:
        for i in range(len(said) - len(p) + 1):
            if tuple(said[i : i + len(p)]) == p and _at_edge(words, i, i + len(p), text):
                return i, i + len(p)
    joined = " ".join(said)
    m = _DOUBTING.search(joined)
    if m is None:
        return None
    first = joined.count(" ", 0, m.start() + 1)  # (the match opens at a space, or at the start)
    return first, first + m.group().strip().count(" ") + 1


def _at_edge(words: list[tuple[int, int, str]], i: int, j: int, text: str) -> bool:
    """Whether ``words[i:j]`` open their sentence, close it (but for words like *yet* after
    them), or, for another's word passed on, close a clause: "It can't be done, I'm told: the
    ferry is cancelled" (not "The log is not verified; CR-14 restores at 11:19")."""
    if i == 0 or all(w in _AFTER_EDGE for _, _, w in words[j:]):
        return True
    return words[j - 1][2] == "told" and CUT_BETWEEN.search(text, words[j - 1][1], words[j][0]) is not None


def _afterthought(words: list[tuple[int, int, str]], i: int, text: str) -> bool:
    """A belief put after what it doubts: *I* or *we* and a verb of belief (or *I'd* and *say*,
    *imagine*…), not first in the sentence, then a clause mark, *but* or *though* or the
    sentence's end: "TRK-9, I think, took them", "on TRK-9 I believe, and …"."""
    w, verb = words[i][2], words[i + 1][2]
    if not ((w in FIRST_PERSON and verb in _AFTERTHOUGHT) or (w == "i'd" and verb in AFTER_I_D)):
        return False
    if i + 2 == len(words):
        return True
    return (
        words[i + 2][2] in ("but", "though") or CUT_BETWEEN.search(text, words[i + 1][1], words[i + 2][0]) is not None
    )
