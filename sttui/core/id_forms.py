"""A code no record holds, read as a value of an id fact when it has the form of the fact's
rivals (``core.report_facts``): ``VAN-9`` beside ``VAN-8`` and ``TRK-22`` is a van, a seat's ``14C``
is a seat right after the word the fact is named by ("window seat 14C", not "boarding group 2B").
The rules are in task format §5 ("The conflict rule")."""

from __future__ import annotations

import re

from sttui.core import state as st
from sttui.core.facts import Found, canon_id, fold, is_id, words


def id_form(canon: str) -> tuple[str, ...]:
    """The form of a canonical id: a run of digits as ``D``, a single letter as ``L``, longer
    letter runs as they are (TRK-9 and TRK-22: ``TRK D``; seats 14A and 14C: ``D L``)."""
    return tuple("D" if r.isdigit() else "L" if len(r) == 1 else r for r in canon.split("-"))


# a code as written in text: letters and digits in runs joined by one of - _ . # ("14C", "VAN-3")
_ID_TOKEN = re.compile(r"(?<![\w#-])[A-Za-z0-9]+(?:[-_.#][A-Za-z0-9]+)*(?![\w-])")


_GENERIC = frozenset({"D", "L"})
_PLAIN_WORD = re.compile(r"(?<!\w)[^\W\d_]+(?!\w)")


def ids_of_forms(
    text: str, known: set[str] | frozenset[str], forms: frozenset[tuple[str, ...]], cues: frozenset[str] = frozenset()
) -> list[Found]:
    """The codes in ``text`` that are none of ``known`` (canonical) but have one of ``forms``
    (``id_form``): a VAN-3 that no record holds is still a van. A form of digits and single
    letters alone (a seat's 14C, but a boarding group's 2B too) counts only when the last word
    before it, past linking words, is one of ``cues``, the words the fact is named by ("window
    seat 14C", "her seat is now 14C")."""
    out = []
    for m in _ID_TOKEN.finditer(text):
        written = m.group()
        if not is_id(written):
            continue
        c = canon_id(written)
        form = id_form(c)
        if c in known or form not in forms:
            continue
        if _GENERIC.issuperset(form) and not _cued(text[max(0, m.start() - 80) : m.start()], cues):
            continue
        out.append(Found(frozenset({c}), written))
    return out


# what may stand between the fact's word and its code: "seat is now 14C", "seats 33G and 33H"
_CUE_LINKS = frozenset(
    {"is", "are", "was", "were", "be", "been", "now", "to", "in", "at", "on", "into", "onto", "for", "the", "a", "an"}
    | {"her", "his", "their", "your", "my", "our", "its", "and", "or", "of", "as", "also", "still", "number", "no"}
)


def _cued(before: str, cues: frozenset[str]) -> bool:
    """Whether the last word before a code, past linking words (``_CUE_LINKS``), is a cue."""
    for w in reversed(_PLAIN_WORD.findall(fold(before))):  # (not the letter of a code: the C of "14C")
        if w not in _CUE_LINKS:
            return w in cues or w.removesuffix("s") in cues
    return False


def cues_of(name: str, about: list[str], path: str | None) -> frozenset[str]:
    """The words an id fact is named by, singular: its name's ("Daniel's seat": seat) but those
    of what it is ``about``, and its path's last word (``….seats.P-DW``: seat)."""
    owner = {w for n in about for w in words(n)}
    named = {w.removesuffix("'s") for w in words(name)} - owner
    last = next((p for p in reversed(st.split(path or "")) if p.isalpha()), "")
    named |= set(words(last))
    return frozenset(w.removesuffix("s") for w in named if len(w) >= 3)
