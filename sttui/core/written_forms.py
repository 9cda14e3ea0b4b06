"""How people write a fact's value short, and where they place it: a place named after *to,
at, from…* ("sent CR-2 to Kestrel Lane"), or by its first word alone there ("leaves from
Ardmore"); a person by a first name that is theirs alone ("Marcus is covering"). Pure
functions over a fact's rivals and a message's text (``report_facts.Resolved`` finds values
with them; the rules are in task format §5)."""

from __future__ import annotations

import re
from typing import Any

from sttui.core import facts

# the words that place a value ("to Kestrel Lane", "at the Ravens Copse end")
PLACING = frozenset(
    {"at", "to", "in", "into", "near", "from", "via", "towards", "toward", "past", "beyond", "around", "outside", "by"}
)


# the words that give the value after them as the one meant: "Sorry, I meant East Room 1"
_MEANT = frozenset({"meant", "correction", "rather", "no", "thought", "misspoke", "mistake"})
# … or given as the one now: "Old: Westbrook / New: Harbourside", "Actual: Harbourside"
_NOW_LABELS = frozenset({"new", "now", "actual", "final"})
# (not "sorry": "Sorry, Kestrel Lane stays off"); "Wait, no: Mostyn", "On second thought, Mostyn",
# "I misspoke - Mostyn"; and after *it's*: "My mistake, it's Mostyn", "Actually it's Mostyn"


# a placing word, then a name's first word as a name is written: "from Ardmore", "to the Kelp"
_SHORT_PLACED = re.compile(
    r"(?<![\w'])(?i:" + "|".join(sorted(PLACING)) + r")\s+(?:(?i:the)\s+)?([A-Z][^\W\d_]{3,})(?![\w'-])"
    r"(?!\s+[A-Z][a-z])"  # (not the first word of a longer name: "to the Wren Seminar Room")
)
# … or as who does the work, a verb right after it: "so Saltmarsh is catering", "Saltmarsh took
# the job", "Hearth caters"
DOES_IT = (
    r"\s+(?:is\s+|are\s+|will\s+(?:be\s+)?|now\s+)?(?:now\s+)?(?:took|takes|taking|got|gets|won|does|did|doing|do|"
    r"caters|catered|catering|hosts|hosted|hosting|runs|ran|running|handles|handled|handling|covers|covered|covering|"
    r"provides|provided|providing|supplies|supplied|supplying|delivers|delivered|delivering|sees|seeing)\b"
)
_SHORT_DOING = re.compile(r"(?<![\w'-])([A-Z][^\W\d_]{3,})(?![\w'-])(?=" + DOES_IT + ")")


def short_names(rivals: list[Any]) -> dict[str, tuple[str, ...]]:
    """First word -> the rival phrase it opens, for a phrase of words (no number, no initial:
    not "Slipway 2", "Hall A") whose first word is of four letters or more and in no other
    rival: how people shorten a place's name ("Ardmore" for Ardmore Quay). (``report_facts.resolve`` keeps
    those in one record's name alone: "Wren" of three rooms and a building names none.)"""
    phrases = [tuple(r) for r in rivals if isinstance(r, list | tuple)]
    out: dict[str, tuple[str, ...]] = {}
    for r in phrases:
        first = r[0] if len(r) >= 2 else ""
        if (
            len(first) >= 4
            and first.isalpha()
            and all(w.isalpha() and len(w) > 1 for w in r)
            and not any(first in other for other in phrases if other != r)
        ):
            out[first] = r
    return out


def by_short_name(short: dict[str, tuple[str, ...]], text: str, found: list[facts.Found]) -> list[facts.Found]:
    """The rivals ``text`` names by their first word alone where it places them ("leaves from
    Ardmore at 14:45") or has them do the work ("Saltmarsh is catering"), written with a
    capital as a name is; not where it names them whole."""
    have = {f.written for f in found}
    out: list[facts.Found] = []
    for m in sorted([*_SHORT_PLACED.finditer(text), *_SHORT_DOING.finditer(text)], key=lambda m: m.start(1)):
        r = short.get(facts.fold(m.group(1)))
        shown = " ".join(r) if r is not None else ""
        if r is not None and shown not in have:  # (written as the text has it: where it stands)
            have.add(shown)
            out.append(facts.Found(frozenset({shown}), m.group(1)))
    return out


def placed(value: list[str], ws: list[str]) -> bool:
    """Whether ``value`` stands where a place is said, in ``ws``: right after a placing word
    (a *the* between: "to the Kestrel Lane poles"), or given as the one meant ("Sorry, I meant
    East Room 1", "Correction: East Room 1", "Make that East Room 1", "East Room 1 instead",
    "Wait, no: East Room 1", "Actually it's East Room 1", "New: East Room 1")."""
    n = len(value)
    for i in range(len(ws) - n + 1):
        if ws[i : i + n] == value:
            if ws[i + n : i + n + 1] == ["instead"]:
                return True
            j = i - 1 if i and ws[i - 1] != "the" else i - 2
            if j >= 0 and (
                ws[j] in PLACING or ws[j] in _MEANT or ws[j] in _NOW_LABELS or ws[j - 1 : j + 1] == ["make", "that"]
            ):
                return True
            if j >= 1 and ws[j] in ("it's", "its") and (ws[j - 1] in _MEANT or ws[j - 1] == "actually"):
                return True
    return False


def first_names(names: list[Any], surnames: list[Any]) -> dict[str, str]:
    """Folded first name -> surname, for the people of a fact's list whose first name is theirs
    alone: not another's first name or surname, three letters or more, and not a word a
    sentence or a date opens with ("Will", "June")."""
    owners: dict[str, set[str]] = {}
    for name in names:
        if isinstance(name, str):
            first, last = facts.first_name(name), facts.surname(name)
            if first is not None and last is not None and last in surnames:
                owners.setdefault(first, set()).add(last)
    return {
        first: next(iter(last))
        for first, last in owners.items()
        if len(last) == 1 and len(first) >= 3 and first not in surnames and first not in facts.NOT_FIRST_NAMES
    }


_TOKEN = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")


def by_first_name(first: dict[str, str], text: str) -> list[facts.Found]:
    """The people ``text`` names by a first name written with a capital ("Marcus is covering";
    not "marcus", not "Marcus Webb" or "Marcus Grant", which their surnames find), or in a message typed all in
    lower case, where no word has one ("marcus on the kit")."""
    out: list[facts.Found] = []
    tokens = list(_TOKEN.finditer(text))
    surnames = set(first.values())
    lower = not any(c.isupper() for c in text)  # typed all in lower case: "marcus on the kit"
    for i, m in enumerate(tokens):
        word = m.group()
        if not (word[0].isupper() or lower):
            continue
        last = first.get(facts.fold(word).removesuffix("'s"))
        if last is None:
            continue
        after = facts.fold(tokens[i + 1].group()).removesuffix("'s") if i + 1 < len(tokens) else ""
        if after not in surnames:  # ("Hamza Walsh": the surname names the person, Walsh, not Hamza Qureshi)
            out.append(facts.Found(frozenset({last}), word.removesuffix("'s")))
    return out
