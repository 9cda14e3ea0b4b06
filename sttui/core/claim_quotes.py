"""How a claim is quoted back to the agent (``core.report_claims``): the claiming clause as the
message wrote it, from its subject on, so the user's "My app doesn't show that: '…'" and the
checklist's detail read in the writer's own words."""

from __future__ import annotations

import re

from sttui.core.claim_pronouns import WINDOW

# the words that open a claim in the first or second person ("I've texted Tomasz")
SUBJECTS = frozenset({"i", "i've", "i'd", "we", "we've", "you", "you're", "you've", "you'd"})


def quoted_claim(text: str, clause: list[str], pos: int = 0, from_start: bool = False) -> tuple[str, int | None]:
    """The claiming clause as the message wrote it, from its subject on ("I've texted Tomasz
    his time", not "and i've texted tomasz his time"; from its first word when ``from_start``:
    it has no subject), and where it starts: what the user and the checklist quote back. Looked for from ``pos`` within a window, so a long message costs
    time in proportion to its length. A claim said without its verb ("the talk is all go": *is
    confirmed*) is quoted from its first words as written to the end of its clause, with no
    place (it was not found whole); its folded words where the message's own cannot be matched
    at all."""
    start = 0 if from_start else next((i for i, t in enumerate(clause) if t in SUBJECTS), 0)
    words = clause[start:]
    end = min(len(text), pos + WINDOW + 4 * sum(map(len, words)))
    found = _written(words, text, pos, end)
    if found is not None:
        return " ".join(found.group().split()), found.start()
    for k in range(len(words) - 1, 0, -1):  # said without the verb ("… is all go"): from its first
        found = _written(words[:k], text, pos, end)  # words as written to the end of its clause
        if found is not None:
            stop = _QUOTE_END.search(text, found.end(), min(len(text), found.end() + 160))
            return " ".join(text[found.start() : stop.start() if stop else found.end()].split()), None
    for k in range(max(1, len(words) - 8), len(words) - 1):  # its verb said otherwise before its last words ("… and on
        found = _written(words[k:], text, pos, end)  # their way to Mull"): its clause as written
        if found is not None:
            begin = max(text.rfind(c, max(0, found.start() - 160), found.start()) for c in ".;!?\n")
            return " ".join(text[begin + 1 : found.end()].split()), None
    return " ".join(words), None


# where a claim quoted from its first words ends: its clause's end
_QUOTE_END = re.compile(r"[.;!?\n]|,\s|\s(?:and|but|so|then)\s")


def _written(words: list[str], text: str, pos: int, end: int) -> re.Match[str] | None:
    """``words`` (folded) as ``text`` writes them, between ``pos`` and ``end``."""
    pattern = r"[\W_]+".join(re.escape(w).replace("'", "['\u2019]") for w in words)
    return re.compile(rf"(?<![^\W_]){pattern}(?![^\W_])", re.IGNORECASE).search(text, pos, end)
