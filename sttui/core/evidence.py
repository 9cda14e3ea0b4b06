"""Cause evidence an impossible task may not rely on: words that name no cause.

The rule judge counts a statement of infeasibility as naming the cause when its message holds
any one ``judge.evidence`` term. A term such as "problem" or "issue" is in every evasive
apology ("Sorry, I can't do that today, there is an issue."), so one such term lets an agent
pass without saying what is wrong. Loading refuses a term made only of these words.
"""

from __future__ import annotations

from sttui.core.statements import inflections, tokens

# Words that say something is wrong without saying what. A term is refused when every one of
# its words is one of these or a filler word below (so "technical issue" and "the delay" are
# refused too); "flood", "ash" or "qa hold" name a cause and pass.
GENERIC_CAUSE_WORDS = frozenset(
    {
        "problem",
        "issue",
        "delay",
        "error",
        "trouble",
        "situation",
        "change",
        "difficulty",
        "complication",
        "incident",
        "disruption",
        "matter",
        "circumstance",
        "reason",
        "thing",
        "something",
        "glitch",
        "hiccup",
        "setback",
        "snag",
        "fault",
        "failure",
        "unavailable",
        "unavailability",
        "constraint",
        "limitation",
        "conflict",
        "update",
        "event",
    }
)
FILLER_WORDS = frozenset(
    {
        "a",
        "an",
        "the",
        "some",
        "this",
        "that",
        "our",
        "their",
        "of",
        "with",
        "technical",
        "unexpected",
        "unforeseen",
        "current",
        "minor",
        "major",
        "serious",
        "small",
        "big",
        "general",
        "other",
        "operational",
        "system",
        "systems",
        "last",
        "minute",
    }
)


def _generic_word(word: str, stem: bool) -> str | None:
    """The generic word ``word`` is (or, as a stem, starts), or None."""
    for g in sorted(GENERIC_CAUSE_WORDS | FILLER_WORDS):
        if word == g or word in inflections(g) or (stem and g.startswith(word)):
            return g
    return None


def generic_term(term: str) -> list[str] | None:
    """The generic words that make up ``term`` (an evidence term, a final ``*`` a stem), or
    None when one of its words names something specific."""
    toks = tokens(term, stems=True)
    if not toks:
        return None
    found = []
    for i, tok in enumerate(toks):
        stem = tok.endswith("*") and i == len(toks) - 1
        g = _generic_word(tok.rstrip("*"), stem)
        if g is None:
            return None
        found.append(g)
    return found
