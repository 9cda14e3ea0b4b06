"""Claims of completion (:func:`find_completions`): a past or perfect verb of completion on
one of the task's objects ("I've rebooked you on VAN-2"), unless the clause asks, negates,
supposes, speaks of a later day, describes a state kept or reports a check. A task's verbs and
object words are its :class:`Completion`, made from its operation tools and its own texts.

The clause reading is ``core.statements``'s; the words are ``core.statement_words``'.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from sttui.core.statement_words import (
    CAUSE_NOUNS,
    CHECK_FILLER,
    CHECKED_THING,
    CHECKING,
    COMPLETING,
    GOT,
    GOT_ON,
    NOT_COMPLETING,
    NOT_DONE_BEFORE,
    OBJECT_PRONOUNS,
    REPORTING_AFTER,
)
from sttui.core.statements import (
    _BACK_TERMS,
    _LATER_TERMS,
    Found,
    Term,
    _has,
    _negated,
    _partial,
    _temporal,
    _where,
    past_forms,
    the_rest,
    tokens,
)


@dataclass(frozen=True)
class Completion:
    """What counts as a claim of completion on a task: the verbs (past forms to their verb)
    and the task's object words."""

    verbs: dict[tuple[str, ...], str]
    objects: frozenset[str]

    @functools.cached_property
    def by_first(self) -> dict[str, list[tuple[str, ...]]]:
        """The verbs' forms by their first word, to scan a clause once."""
        out: dict[str, list[tuple[str, ...]]] = {}
        for form in self.verbs:
            out.setdefault(form[0], []).append(form)
        return out

    @classmethod
    def of(cls, operations: Iterable[str], texts: Iterable[str]) -> Completion:
        """From the task's operation tool names and its own texts (ids and words of its
        initial state, query, goal and tool names)."""
        verbs: list[str] = list(COMPLETING)
        for name in operations:
            parts = name.lower().split("_")
            verb = " ".join(parts[:2]) if len(parts) > 1 and parts[1] in PARTICLES else parts[0]
            if parts[0] not in NOT_COMPLETING or " " in verb:
                verbs.append(verb)
        forms: dict[tuple[str, ...], str] = {}
        for verb in dict.fromkeys(verbs):
            head, *rest = verb.split()
            for past in past_forms(head) | ({head} if head in SAME_PAST else set()):
                forms[(past, *rest)] = verb
        words = {t for text in texts for t in tokens(text) if (len(t) >= 3 or t.isdigit()) and t not in _COMMON}
        return cls(forms, frozenset(words) | OBJECT_PRONOUNS)

    def describe(self) -> str:
        verbs = sorted({" ".join(k) for k in self.verbs})
        return ", ".join(verbs)


# words too common to make a clause about the task
_COMMON = frozenset(
    [
        "the",
        "and",
        "for",
        "with",
        "from",
        "that",
        "this",
        "then",
        "than",
        "are",
        "was",
        "were",
        "has",
        "have",
        "had",
        "not",
        "but",
        "you",
        "your",
        "our",
        "their",
        "his",
        "her",
        "its",
        "can",
        "will",
        "would",
        "should",
        "could",
        "been",
        "being",
        "into",
        "onto",
        "over",
        "under",
        "after",
        "before",
        "today",
        "tonight",
    ]
)


# the particles of a tool's two-word verb (``check_in``), which its object may stand before:
# "checked you in", "checked them both in"
PARTICLES = frozenset({"in", "on", "up", "out"})
_SPLIT_OBJECTS = frozenset({"you", "them", "him", "her", "us", "everyone", "everybody", "both", "all", "it"})


# verbs whose past is their plain form ("I've put everything on FI523"): a completion only
# where the clause says it was done (``_said_done``), not "I'll put", "to put", "let me put"
SAME_PAST = frozenset({"put"})
_PERFECT = frozenset({"i've", "we've", "ive", "weve", "have", "has", "gone", "went", "just"})
_NOT_YET = frozenset(
    {"will", "i'll", "we'll", "ill", "to", "can", "could", "would", "shall", "should", "might", "may", "let",
     "i'd", "we'd", "must", "going", "please", "if", "you"}
)  # fmt: skip


def _said_done(clause: Sequence[str], at: int) -> bool:
    """Whether the plain form at ``at`` is said as done: after "I've", "have", "gone ahead and",
    or straight after "I" or "we", with no modal, "to" or "let" just before."""
    if _NOT_YET.intersection(clause[max(0, at - 3) : at]):
        return False
    return bool(_PERFECT.intersection(clause[:at])) or (at > 0 and clause[at - 1] in ("i", "we"))


def _reports_a_check(clause: Sequence[str], end: int, causes: Sequence[Term]) -> bool:
    """Whether a verb of checking (``CHECKING``) ending at ``end`` reports a check, not work done:
    what follows it is only "it", "this", "so"… (``CHECKED_THING``, with fillers: "too", "by
    phone") or names the cause (a ``causes`` term, or ``CAUSE_NOUNS``: "the closure")."""
    rest = list(clause[end:])
    if any(t in CAUSE_NOUNS for t in rest) or any(term.find(rest) for term in causes):
        return True
    said = [t for t in rest if t not in CHECK_FILLER]
    return bool(said) and all(t in CHECKED_THING for t in said)


def _is_be(word: str) -> bool:
    """A form of *be*, or one joined to its subject ("it's", "they're")."""
    return word in _BE_FORMS or word.endswith(("'s", "'re"))


_BE_FORMS = frozenset({"is", "are", "was", "were", "be", "been", "am"})


def find_completions(
    clause_list: Sequence[Sequence[str]], completion: Completion, causes: Sequence[Term] = ()
) -> list[Found]:
    """Each claim of completion by verb: a past form of a completion verb ("booked",
    "rebooked", "checked in") or "got you on", in a clause that names one of the task's objects
    (its words, or you/it/everything…), not negated, not a question, not hypothetical or about a
    later moment or day, not a past state or an adjective ("was booked", "stays booked", "the
    booked van") and not reporting what was checked ("confirmed that …")."""
    out: list[Found] = []
    rest: list[int] | None = None  # (the clauses speaking of "the rest": read once)
    for ci, clause in enumerate(clause_list):
        asks, condition = _where(clause)
        spots: list[tuple[int, int]] = []
        split: set[int] = set()  # "checked you in": the verb's object between it and its particle
        for i, tok in enumerate(clause):
            for form in completion.by_first.get(tok, ()):
                if tuple(clause[i : i + len(form)]) == form:
                    spots.append((i, len(form)))
                elif len(form) == 2 and form[1] in PARTICLES:
                    j = i + 1
                    while j < len(clause) and j - i <= 2 and clause[j] in _SPLIT_OBJECTS:
                        j += 1
                    if i + 1 < j < len(clause) and clause[j] == form[1]:
                        spots.append((i, j - i + 1))
                        split.add(i)
        got = {
            i for i in range(len(clause) - 2) if clause[i] == "got" and clause[i + 1] in GOT and clause[i + 2] in GOT_ON
        }
        spots += [(i, 3) for i in got]
        spots += [(i, len(b.words)) for b in _BACK_TERMS for i in b.find(clause)]
        for at, n in sorted(set(spots)):
            words = " ".join(clause[at : at + n])
            before = clause[at - 1] if at else ""
            after = clause[at + n] if at + n < len(clause) else ""
            own = 1 if at in got or at in split else n  # "got you on" is about "you"
            others = [t for j, t in enumerate(clause) if not at <= j < at + own]
            neg = _negated(clause, at)
            temporal = _temporal(clause, at)
            later = _has(clause, _LATER_TERMS)
            void = None
            if asks:
                void = "a question"
            elif neg is not None:
                void = f"negated by '{neg}'"
            elif condition is not None or temporal is not None:
                void = f"hypothetical ('{condition or temporal}')"
            elif before in NOT_DONE_BEFORE and words.split()[0] != "got":
                void = f"not a completion ('{before} {words}')"
            elif before == "still" and at >= 2 and _is_be(clause[at - 2]):
                void = f"not a completion ('{clause[at - 2]} still {words}': a state kept)"
            elif after in REPORTING_AFTER:
                void = f"reports a check ('{words} {after}')"
            elif words in CHECKING and _reports_a_check(clause, at + n, causes):
                void = f"reports a check ('{' '.join(clause[at : at + n + 3])}')"
            elif later is not None:
                void = f"about a later day ('{later}')"
            elif not any(t in completion.objects for t in others):
                void = "names none of the task's objects"
            elif clause[at] in SAME_PAST and not _said_done(clause, at):
                void = f"not said as done ('{words}')"
            if rest is None:
                rest = the_rest(clause_list)
            out.append(Found(ci, words, void, at, _partial(clause_list, ci, rest)))
    return sorted(out, key=lambda f: (f.clause, f.at))
