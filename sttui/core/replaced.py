"""The value a report names as the one replaced, which it does not state: after *instead of*,
*rather than*, *in place of* or a swap ("swapped CR-14 for CR-12"); after *from* following a
change ("moved the insulin from TRK-9 to TRK-7", "took over from TRK-9"); before *stood down,
replaced, withdrawn, removed, released, swapped out* ("TRK-9 was stood down"; but after *replaced*
with a figure after it, that one: "TRK-7 replaced TRK-9"); and in a clause saying what a
value used to be ("due 09:35 originally", up to a *but* or *now*), or the value right after
*old*, *previous* (or *original* past a *was*) and a word or two ("Daniel's old seat was 27E"),
or where something was before a change ("was in 27E before the swap", "until the swap"); and
before a word of breaking down ("BA576 is cancelled", "TRK-7's fridge failed"). Read by
``core.stated`` on a message's words (start, end, folded word); the rules are in task format §5."""

from __future__ import annotations

import re
from bisect import bisect_right

Words = list[tuple[int, int, str]]

_INSTEAD = (("instead", "of"), ("rather", "than"), ("in", "place", "of"), ("in", "lieu", "of"))
# … and what stands in for the value after it: "TRK-9 is standing in for TRK-7", "subbing for",
# "covering for Dr Feld", "as a replacement for TRK-7"
_STANDS_IN = (
    ("standing", "in", "for"), ("stands", "in", "for"), ("stood", "in", "for"), ("filling", "in", "for"),
    ("filled", "in", "for"), ("fills", "in", "for"), ("subbing", "for"), ("subbed", "for"), ("subs", "for"),
    ("covering", "for"), ("covered", "for"), ("covers", "for"), ("replacement", "for"), ("substitute", "for"),
    ("substituting", "for"), ("substituted", "for"),
)  # fmt: skip
# … after a value, what it was chosen over: "chose TRK-9 over TRK-7", "picked TRK-9 ahead of TRK-7"
_OVER = (("over",), ("ahead", "of"), ("in", "preference", "to"))
_CHOSE = frozenset(
    {"chose", "chosen", "choose", "picked", "pick", "preferred", "prefer", "selected", "select", "opted", "went"}
    | {"favoured", "favored", "took", "went", "used", "sent", "booked", "assigned", "put"}
)
# a change before "from": the value after it is the one left ("rebooked you from BA576 to BA582")
_CHANGE = frozenset(
    {"moved", "move", "moving", "switched", "switch", "switching", "changed", "changing", "swapped", "shifted"}
    | {"transferred", "rescheduled", "pushed", "reassigned", "rebooked", "rerouted", "over", "brought"}
)
# what says, after a form of *be* or *got*, the value before it was dropped: "TRK-9 got bumped",
# "TRK-9 was scrapped" (not "TRK-9 dropped the doses off": a verb of its own)
_OUSTED_PASSIVE = frozenset({"bumped", "dropped", "scrapped", "ditched", "axed", "canned", "nixed", "benched"})
# what says the value just before it was taken out of use: "TRK-9 was stood down", "TRK-9
# replaced by TRK-7", "CR-12 withdrawn", "TRK-9 was released for other work"
_OUSTED = frozenset(
    {"replaced", "withdrawn", "released", "stood", "stands", "standing", "taken", "removed"}
    | {"swapped", "switched", "subbed", "traded", "exchanged"}  # (… before *out*: "TRK-9 swapped out for TRK-7")
    | _OUSTED_PASSIVE
)
_BE_HAD = frozenset({"is", "are", "was", "were", "been", "being", "has", "have", "had", "got", "gets", "now", "then"})


# what a value was before the change, said of its whole clause: "Her train was due 09:35
# originally", "previously booked for 10:00", "it had been TRK-7 at first"
_FORMER = frozenset({"originally", "previously", "formerly", "initially"})  # (not "the earlier BA1433")


# what names the value after it, a word or two on, as what was before: "Daniel's old seat was
# 27E", "your previous truck TRK-7"; *original* only past a *was* ("the insulin's original truck
# was TRK-7", not "your original booking on BA582 stands")
_BYGONE = frozenset({"old", "previous", "original"})  # (not "former": "the former on 14:30")
_BYGONE_BE = frozenset({"was", "were", "is", "are", "had", "been", "of", "at", "in", "on", "for"})
_PAST = frozenset({"was", "were", "had"})


def _bygone(words: Words, i: int, stop: int) -> tuple[int, int] | None:
    """Where the value stands that the word ``i`` names as the one before (``_BYGONE``): after
    at most two words of no digit and a form of *be* or a preposition, before ``stop`` (the
    clause's end); None when ``i`` is no such word or no value follows."""
    if words[i][2] not in _BYGONE:
        return None
    j, nouns, past = i + 1, 0, False
    while j < len(words) and words[j][0] < stop and not any(c.isdigit() for c in words[j][2]):
        if words[j][2] in _BYGONE_BE:
            past = past or words[j][2] in _PAST
            j += 1
            continue
        nouns += 1
        if nouns > 2:
            return None
        j += 1
    if j < len(words) and words[j][0] < stop and (past or words[i][2] != "original"):
        return words[j][0], words[j][1]
    return None


# "Daniel was in 27E before the swap": where a passenger or load was, before a change (or until
# it, or up to it)
_CHANGES = frozenset({"swap", "change", "switch", "move", "reshuffle", "split", "rebooking", "reassignment"})
_WAS_AT = frozenset({"in", "on", "at"})
_UNTIL = frozenset({"before", "until", "till"})


def _the_change(words: Words, i: int) -> bool:
    """Whether the words from ``i`` are *before, until, till* or *up to*, then *the* and a
    change (``_CHANGES``), maybe a word before it ("the aircraft change")."""
    if words[i][2] in _UNTIL:
        j = i + 1
    elif words[i][2] == "up" and i + 1 < len(words) and words[i + 1][2] == "to":
        j = i + 2
    else:
        return False
    if j + 1 >= len(words) or words[j][2] != "the":
        return False
    return words[j + 1][2] in _CHANGES or (j + 2 < len(words) and words[j + 2][2] in _CHANGES)


def _was_there(words: Words, was: int) -> int | None:
    """Where the values start that the *was* (*were*, *been*, *had*) at ``was`` says something
    was at: past *in, on, at* right after it, or right after *had* ("had 27E"); None: it says no
    such thing ("was moved to 33G")."""
    if was + 1 >= len(words):
        return None
    nxt = words[was + 1][2]
    if nxt in _WAS_AT:
        return was + 2
    return was + 1 if words[was][2] == "had" and any(c.isdigit() for c in nxt) else None


def _before_the_change(words: Words, i: int, was: int | None) -> list[tuple[int, int]] | None:
    """The values that *was in … before the swap* (``_CHANGES``, the word ``i`` being *before*,
    *until*, *till* or *up to*) names as where something was: every one between *was* or *were*
    (the last in the clause, at ``was``; ``former`` keeps it as it reads, so a long message stays
    linear) and a preposition (*in, on, at*) right after it, and *before* ("You were in 27E and
    38A before the aircraft change", "Daniel had 27E up to the swap"); none when it names none
    ("was moved to 33G before the swap" is a move); None when ``i`` is no *before the swap* (its
    *was* is then still open)."""
    if not _the_change(words, i):
        return None
    there = None if was is None else _was_there(words, was)
    if there is None or there >= i:
        return []
    return [(a, b) for a, b, w in words[there:i] if any(c.isdigit() for c in w)]


def former(words: Words, ends: list[int], start: int, end: int) -> list[tuple[int, int]]:
    """What a sentence names as what a value used to be, in one pass over its words (``ends``:
    where its clauses end; ``start``, ``end``: the sentence's own): all of a clause saying so
    (``_FORMER``); the value after *old* or *previous* (``_bygone``); where something *was in*
    before a change (``_before_the_change``)."""
    out: list[tuple[int, int]] = []
    in_clause, was = -1, None  # the last "was" or "were" of the clause read so far
    # "Until the swap, Daniel was in 27E": (the clause, where its values start) once its "was in" is read
    lead: tuple[int, int] | None = None
    led = False  # the sentence began with "before the swap" (or "until", "up to")
    cut = _cuts(words, ends, end)
    seg = 0  # the first word of the clause, or its last ``_TURNS`` word read so far
    for i, (a, b, w) in enumerate(words):
        k = bisect_right(ends, a)
        if k != in_clause:
            in_clause, was, seg = k, None, i
            lead = None if lead is None or lead[0] != k else lead
        if w in _TURNS:
            seg = i
        if w in ("was", "were", "been", "had"):
            was = i
            if led and lead is None and (there := _was_there(words, i)) is not None:
                lead, led = (k, there), False
        if lead is not None and i >= lead[1] and any(c.isdigit() for c in w):
            out.append((a, b))
        if w in _FORMER or (w == "first" and i and words[i - 1][2] == "at"):
            out.append(_former_span(words, ends, i, k, seg, start, end, cut))
        elif w in _BYGONE:
            old = _bygone(words, i, ends[k] if k < len(ends) else end)
            if old is not None:
                out.append(old)
        elif w in _UNTIL or w == "up":
            was_at = _before_the_change(words, i, was)
            if was_at is not None:  # (its "was" read: each is read once)
                was = None
                out += was_at
                led = led or i == 0 or (i == 1 and words[0][2] in ("right", "just"))
    return out


# words that end what *originally* (``_FORMER``) says of its clause: "originally on TRK-7 but on
# TRK-9 now", "previously booked for 10:00 and now 11:30"
_TURNS = frozenset({"but", "now", "whereas", "however"})


def _cuts(words: Words, ends: list[int], end: int) -> list[int]:
    """Per word, where the next clause end or ``_TURNS`` word after it starts (one backward pass)."""
    out = [end] * len(words)
    nxt = end
    k = len(ends) - 1
    for i in range(len(words) - 1, -1, -1):
        a = words[i][0]
        while k >= 0 and ends[k] > a:
            nxt = min(nxt, ends[k])
            k -= 1
        out[i] = nxt
        if words[i][2] in _TURNS:
            nxt = a
    return out


def _former_span(
    words: Words, ends: list[int], i: int, k: int, seg: int, start: int, end: int, cut: list[int]
) -> tuple[int, int]:
    """What the word ``i`` (``_FORMER``, or *first* of *at first*) says was before: its clause
    from the word ``seg`` (its first, or the last ``_TURNS`` word before ``i``) to the next
    ``_TURNS`` word after it; or, when that holds nothing but the word itself ("It was on TRK-7,
    originally."), the clause before it (or after it, for "Originally, …")."""
    lo = words[seg][0]
    hi = cut[i]
    alone = (i == seg or (i == seg + 1 and words[seg][2] == "at")) and (i + 1 >= len(words) or words[i + 1][0] >= hi)
    if not alone:
        return lo, hi
    if k:  # the clause before it
        return (ends[k - 2] if k > 1 else start), ends[k - 1]
    return hi, (cut[i + 1] if i + 1 < len(words) else end)


def _ousted(words: Words, i: int) -> bool:
    """ "stood down", "taken off", "removed", "replaced", "withdrawn", "released": not "stood by",
    "taken to", "released to TRK-9" (given to it), "replaced TRK-7" (the writer's doing)."""
    w, nxt = words[i][2], words[i + 1][2] if i + 1 < len(words) else ""
    if w in ("stood", "stands", "standing"):
        return nxt == "down"
    if w == "taken":
        return nxt in ("off", "out")
    prev = words[i - 1][2] if i else ""
    if w in ("swapped", "switched", "subbed", "traded", "exchanged"):  # ("… was swapped for TRK-7")
        return nxt == "out" or (nxt in ("for", "with") and prev in _BE_HAD | {"be", "get"})
    if w in _OUSTED_PASSIVE:
        return prev in _BE_HAD | {"be", "get"}
    if w == "replaced" and _digit(nxt) and (i == 0 or words[i - 1][2] not in _BE_HAD):
        return False  # ("TRK-9 replaced TRK-7": the one after is what was replaced, ``_instead_of``)
    return nxt not in ("to", "onto", "into", "on", "for") or (w == "released" and nxt == "for")


# a verb whose object is what was taken out: "swapped CR-14 for CR-12", "replaced TRK-7 with TRK-9"
_SWAPPED = frozenset({"swapped", "swap", "swapping", "replaced", "replace", "replacing", "exchanged"})


def _instead_of(words: Words, i: int) -> int | None:
    """How many more words make a phrase that denies the value after it, like a negator:
    "on TRK-7 instead of TRK-9", "rather than VAN-41", "in place of Dr Feld", "swapped CR-14 for
    CR-12", "TRK-9 standing in for TRK-7", "chose TRK-9 over TRK-7", "TRK-9 (in for TRK-7)" (0
    for the verb alone; None: none). Not "replaced by", nor "swapped you to 12C", nor "took
    over at 06:20" or "booked in for 14:30" (no value before them)."""
    for phrase in _INSTEAD + _STANDS_IN:
        if tuple(w for _, _, w in words[i : i + len(phrase)]) == phrase:
            return len(phrase) - 1
    after_value = i > 0 and _digit(words[i - 1][2])
    if after_value and tuple(w for _, _, w in words[i : i + 2]) == ("in", "for"):
        return 1
    if (  # "TRK-7 took TRK-9's place": the one whose place it took
        words[i][2] in ("took", "take", "takes", "taking", "taken")
        and i + 2 < len(words)
        and words[i + 1][2].endswith(("'s", "\u2019s"))
        and _digit(words[i + 1][2])
        and words[i + 2][2] in ("place", "spot", "slot", "run", "job", "role", "load")
    ):
        return 0
    if after_value and any(w in _CHOSE for _, _, w in words[max(0, i - 5) : i - 1]):
        over: tuple[str, ...]
        for over in _OVER:
            if tuple(w for _, _, w in words[i : i + len(over)]) == over:
                return len(over) - 1
    if words[i][2] in _SWAPPED and i + 1 < len(words) and words[i + 1][2] not in ("by", "to", "you", "over", "out"):
        if any(w in ("for", "with") for _, _, w in words[i + 2 : i + 6]):
            return 0
        # "TRK-9 replaced TRK-7", "I replaced TRK-7": the value right after, not after a form of *be*
        replaced = words[i][2] == "replaced" and _digit(words[i + 1][2])
        return 0 if replaced and (i == 0 or words[i - 1][2] not in _BE_HAD) else None
    return None


def instead_of(words: Words, i: int) -> int | None:
    """How many more words after the word ``i`` make a phrase that denies the value after them,
    as a negator does (``_instead_of``; 0 for *from* after a change, the one left), or None."""
    if words[i][2] == "from" and any(words[k][2] in _CHANGE for k in range(max(0, i - 6), i)):
        return 0
    if (  # … or *off* one and onto another: "moved the insulin off TRK-9 onto TRK-7" (not "didn't move it off VAN-47")
        words[i][2] == "off"
        and any(words[k][2] in _CHANGE for k in range(max(0, i - 6), i))
        and any(w in ("onto", "to", "on", "into") for _, _, w in words[i + 2 : i + 4])
    ):
        return 0
    return _instead_of(words, i)


# what says the value before it broke down or cannot serve: "BA576 is cancelled", "TRK-7's fridge
# failed", "CAR-4's driver handover fell through", "KL641 won't work" (not "delayed": a delayed
# flight may still be flown)
_BROKE = frozenset(
    {"cancelled", "canceled", "failed", "fell", "broke", "can't", "cant", "cannot", "couldn't", "won't", "wont"}
)


def _broke(words: Words, i: int) -> bool:
    w, nxt = words[i][2], words[i + 1][2] if i + 1 < len(words) else ""
    if w == "fell":
        return nxt == "through"
    if w == "broke":
        return nxt == "down"
    if w in ("cancelled", "canceled", "failed"):
        return nxt != "to"  # ("failed to book VAN-42": the writer's failure, a denial)
    return True


def _digit(word: str) -> bool:
    return any(c.isdigit() for c in word)


def ousted_before(words: Words, i: int, text: str = "") -> tuple[int, int] | None:
    """Where the value taken out of use before the word ``i`` stands ("TRK-9 was stood down"),
    past a form of *be* or *have*, or said to have broken down or to be unable to serve ("BA576
    is cancelled"; past a possessive's noun or two: "TRK-7's fridge failed"); None when ``i``
    says no such thing or no value is there. ``text``: the message, for a bracket between the
    value and a word of breaking ("TRK-30 (12 t) can't use it")."""
    w = words[i][2]
    if w in ("out", "no-go") and i and text:  # "TRK-9 out, TRK-7 in", "TRK-9 was a no-go"
        k = i - 1
        while k > 0 and words[k][2] in _BE_HAD | {"a", "an"}:
            k -= 1
        ends = w == "no-go" or _CLAUSE_ENDS.match(text, words[i][1]) is not None
        return (words[k][0], words[k][1]) if ends and k < i and _digit(words[k][2]) else None
    if not ((w in _OUSTED and _ousted(words, i)) or (w in _BROKE and _broke(words, i))):
        return None
    k = i - 1
    while k >= 0 and words[k][2] in _BE_HAD:
        k -= 1
    if k < 0:
        return None
    if w in _BROKE and text and ")" in text[words[k][1] : words[k + 1][0]]:  # past "(12 t)", a few words long
        opened = text.rfind("(", max(0, words[k][0] - 40), words[k][0])
        while k >= 0 and words[k][0] > opened >= 0:
            k -= 1
        if opened < 0 or k < 0:
            return None
    if _digit(words[k][2]):
        return words[k][0], words[k][1]
    if w in _BROKE:  # "TRK-7's fridge failed", "CAR-4's driver handover fell through"
        for j in range(k - 1, max(-1, k - 3), -1):
            if words[j][2].endswith(("'s", "\u2019s")) and _digit(words[j][2]):
                return words[j][0], words[j][1]
    if w not in _CANNOT:  # a name: "Rhona was stood down", "the Kittiwake broke down"
        return _name_at(words, k, text)
    return None


# what ends a clause right after "TRK-9 out" (not "TRK-9 out of service", "TRK-9 out delivering")
_CLAUSE_ENDS = re.compile(r"\s*(?:[,;.!?)\n]|\s[-\u2013\u2014]\s|$)")


# of a name, only what says it has broken or gone ("can't" is as often of the one that serves:
# "the Solan can't get into Sealock, so she sails from North Pier")
_CANNOT = frozenset({"can't", "cant", "cannot", "couldn't", "won't", "wont"})


# words a sentence opens with in capitals that are no name: "I replaced TRK-7", "She is ill"
_NO_NAME = frozenset(
    {"i", "i'm", "i've", "i'd", "we", "we've", "you", "you're", "he", "she", "it", "they", "he's", "she's", "it's"}
    | {"they're", "this", "that", "these", "those", "there", "the", "a", "an", "everything", "everyone", "all"}
)


def _name_at(words: Words, k: int, text: str) -> tuple[int, int] | None:
    """The name that ends with the word ``k``, as written: that word and at most two before it,
    each with a capital and nothing but spaces between ("Ana Lopes", "Seren Glas", "Rhona's");
    None when the word has no capital (she, it, the van)."""
    if not text or not text[words[k][0]].isupper() or words[k][2] in _NO_NAME:
        return None
    j = k
    while j > 0 and k - j < 2 and text[words[j - 1][0]].isupper() and not text[words[j - 1][1] : words[j][0]].strip():
        j -= 1
    return words[j][0], words[k][1]


# what says the record of the id right before it (past a form of *be* or *have*) could not be
# used: "TRK-9 was unavailable", "TRK-9 is broken", "TRK-9 is out of service", "TRK-9 was full"
# (an outside tester's "It's on TRK-3 (TRK-9 was full)" passed as naming TRK-9). Not *busy* or
# *booked*, which as often say it is the one serving ("TRK-9 is busy with the insulin run")
_UNUSABLE = frozenset({"unavailable", "broken", "faulty", "defective", "inoperable", "unusable", "unserviceable"})
_OUT_OF = frozenset({"service", "action", "commission", "order"})
# what a vehicle or a team lacking cannot serve: "had no driver", "has no fuel"
_LACKING = frozenset(
    {"driver", "drivers", "crew", "pilot", "fuel", "power", "staff", "cover", "capacity", "space", "room", "seats"}
    | {"battery", "charge", "refrigeration", "fridge", "cooling"}
)
_TOO = frozenset({"small", "big", "heavy", "wide", "tall", "long", "far", "slow", "late", "low", "short"})
_CLAUSE_MARK = frozenset(",;:.!?)]-\u2013\u2014")


def unusable_before(words: Words, i: int, text: str) -> tuple[int, int] | None:
    """Where the id stands that the word ``i`` (``_UNUSABLE``; *out of service, action,
    commission, order*; *too* and one of ``_TOO``; *full* ending its clause, or *full up*;
    *has no* and what it lacks to serve, ``_LACKING``: "had no driver") says could not be used; None
    otherwise, or when what is before it is no id (a name is read by ``unfit_before``)."""
    w, k = words[i][2], i - 1
    if w in _OUT_OF:
        if k < 1 or words[k][2] != "of" or words[k - 1][2] != "out":
            return None
        k -= 2
    elif w in _TOO:  # "TRK-9 was too small"
        if k < 0 or words[k][2] != "too":
            return None
        k -= 1
    elif w == "no":  # "TRK-9 had no driver" (not "has no other stops", "has no problem getting there")
        nxt = words[i + 1][2] if i + 1 < len(words) else ""
        if k < 0 or words[k][2] not in ("has", "had", "have") or nxt not in _LACKING:
            return None
    elif w == "full":  # ("TRK-9 was full)", "… full up"; not "full of insulin")
        rest = text[words[i][1] :].lstrip()
        if rest and rest[0] not in _CLAUSE_MARK and not (i + 1 < len(words) and words[i + 1][2] == "up"):
            return None
    elif w not in _UNUSABLE:
        return None
    while k >= 0 and words[k][2] in _BE_HAD:
        k -= 1
    if k < 0 or k == i - 1 or not _digit(words[k][2]):  # (past a form of be: "TRK-9 broken down" is not this)
        return None
    return words[k][0], words[k][1]


# what says a person or a thing cannot serve, of the value right before it (past a form of *be*
# or *have* and the words of the phrase): "Ana Lopes is off sick", "Gethin phoned in sick",
# "Rhona's on leave", "Marta is off shift", "Kittiwake's laid up", "CTV-3 is out of action",
# "Seren Glas has an engine fault", "Mostyn Dock is closed"; of a name only (an id is read by
# ``unusable_before``, "TRK-7 is out of service"; "WO-101 closed" is done)
_UNFIT_AFTER = {
    "sick": ("off", "in", "phoned", "called", "rang", "rung", "went", "gone", "home", "fallen", "taken"),
    "ill": ("fallen", "taken", "gone", "went"),
    "unwell": (),
    "leave": ("on",),
    "shift": ("off",),
    "duty": ("off",),
    "up": ("laid",),
    "action": ("out", "of"),
    "service": ("out", "of"),
    "commission": ("out", "of"),
    "closed": (),
    "shut": (),
}
# words that say it only after theirs: "on leave", "off shift", "laid up", "out of action" (not "up")
_ONLY_AFTER = frozenset({"leave", "shift", "duty", "up", "action", "service", "commission"})
_FAULT = frozenset({"fault", "defect", "breakdown"})  # "has an engine fault", "had a gearbox defect"
_HAS = frozenset({"has", "had", "have", "got", "developed", "with"})


def unfit_before(words: Words, i: int, text: str) -> tuple[int, int] | None:
    """Where the name stands, written with capitals, that the phrase ending at the word ``i``
    says cannot serve (``_UNFIT_AFTER``, ``_FAULT``); None when ``i`` ends no such phrase, or
    what is before it is no name (an id is read by ``ousted_before``)."""
    w = words[i][2]
    k = i - 1
    if w in _FAULT:
        nouns = 0
        while k >= 0 and words[k][2] not in _HAS and nouns < 3 and not _digit(words[k][2]):
            nouns, k = nouns + 1, k - 1
        if k < 0 or words[k][2] not in _HAS:
            return None
        k -= 1
    elif w in _UNFIT_AFTER:
        between = _UNFIT_AFTER[w]
        if w in _ONLY_AFTER and (k < 0 or words[k][2] not in between):
            return None
        while k >= 0 and words[k][2] in between:
            k -= 1
    else:
        return None
    while k >= 0 and words[k][2] in _BE_HAD:
        k -= 1
    if k < 0:
        return None
    if _digit(words[k][2]):  # (an id said to be out of service is read as the ids are: ``ousted_before``)
        return None
    return _name_at(words, k, text)
