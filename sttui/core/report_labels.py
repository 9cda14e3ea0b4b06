"""Which of a subject's facts of one kind a clause names, by the words of the facts' names:
"Halima's MRI" beside "Halima's review" (*MRI*), "first flight" beside "second flight"
(*first*). ``core.reports`` reads a value given in a clause naming a fact's word, and no word
of its siblings, as that fact's (task format §5, "Which of a subject's values")."""

from __future__ import annotations

import bisect
import functools
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from sttui.core import facts
from sttui.core.report_order import ordinal

if TYPE_CHECKING:
    from sttui.core.attach import Clause
    from sttui.core.report_facts import Resolved

# words of a fact's name that say nothing of which of its subject's values it is
_NOT_LABELS = frozenset({"the", "a", "an", "of", "for", "to", "and", "at", "on", "in", "time", "times", "new", "s"})


@functools.lru_cache(maxsize=1024)
def labels_of(name: str, about: Any, siblings: tuple[str, ...]) -> tuple[frozenset[str], frozenset[str]]:
    """The words of a fact's name that say which of its subject's values of its kind it is ("mri"
    of "Halima's MRI", about Halima), and those of its subject's other facts of it (``siblings``,
    their names): neither holds a word of the subject's names or one both hold."""

    def words(text: str) -> set[str]:
        return {w.removesuffix("'s") for w in facts.words(text)} - _NOT_LABELS - {w for n in about for w in n}

    own, other = words(name), {w for s in siblings for w in words(s)}
    return frozenset(w for w in own - other if not w.isdigit()), frozenset(other - own)


# verbs that name a label as a person says it: "VAN-3 collects her at 13:35" names her pickup
_SAID_AS = {
    **dict.fromkeys(("collect", "collects", "collected", "collecting", "collection", "picks", "picked"), "pickup"),
    **dict.fromkeys(("departs", "departing", "leaves", "leaving"), "departure"),
    **dict.fromkeys(("arrives", "arriving", "lands", "landing"), "arrival"),
}


def _forms(word: str) -> set[str]:
    """The label a word may name: itself, without a possessive or plural *s*, or what its verb
    says ("collects": pickup)."""
    word = word.removesuffix("'s")
    return {word, word.removesuffix("s"), _SAID_AS.get(word, word)}


@functools.lru_cache(maxsize=4096)
def _said(text: str) -> frozenset[str]:
    """The labels a clause's words may name (``_forms``): read once a clause, for each of its facts."""
    return frozenset(form for w in facts.words(text) for form in _forms(w))


def names_label(text: str, labels: tuple[frozenset[str], frozenset[str]]) -> bool | None:
    """Whether a clause names the fact's label ("her MRI is 12:15", "MRIs", "collects her" for a
    pickup) and no label of its subject's other facts of the kind; None when it names none."""
    own, other = labels
    said = _said(text)
    if own.isdisjoint(said) and other.isdisjoint(said):
        return None
    return not own.isdisjoint(said) and other.isdisjoint(said)


def values_in_order(
    text: str, labels: tuple[frozenset[str], frozenset[str]], found: list[facts.Found]
) -> list[facts.Found] | None:
    """Of a clause naming the fact's label and another's ("VAN-3 collects her at 10:30 for her
    MRI at 09:55"; "her 10:30 MRI, a 09:55 pickup"), the values it gives the fact's label: the
    n-th value is the n-th label's, as a person pairs them, when the clause gives as many values
    (``found``) as it names labels (words of labels with no value between them are one). None
    when the counts differ, a value cannot be placed, or the fact's label is not named."""
    own, other = labels
    folded = facts.fold(text)
    marks: list[tuple[int, bool]] = []  # (where, whether the fact's own label)
    for at, word in facts.words_at(folded):
        forms = _forms(word)
        if not own.isdisjoint(forms):
            marks.append((at, True))
        elif not other.isdisjoint(forms):
            marks.append((at, False))
    if not any(mine for _, mine in marks):
        return None
    values: list[tuple[int, facts.Found]] = []
    start = 0
    for f in found:  # (in the order found: each looked for after the one before)
        at = folded.find(facts.fold(f.written), start)
        if at < 0:
            return None
        values.append((at, f))
        start = at + 1
    values.sort(key=lambda v: v[0])
    where = [v for v, _ in values]
    named: list[bool] = []  # the labels named, in order: a run of label words with no value between is one
    last = -1
    for at, mine in marks:
        between = bisect.bisect_left(where, at) > bisect.bisect_right(where, last)  # (a value between)
        if not named or between or named[-1] != mine:
            named.append(mine)
        last = at
    if len(named) != len(values):
        return None
    return [f for (_, f), mine in zip(values, named, strict=True) if mine]


_LISTING = ("and ", "& ", ",")  # how a clause listing one more label opens
_LISTED = 8  # the most labels listed before their values that are read


def under_label(
    fact: Resolved,
    parts: tuple[Clause, ...],
    i: int,
    labels: tuple[frozenset[str], frozenset[str]],
    values: list[facts.Found],
) -> tuple[bool | None, list[facts.Found]]:
    """Whether clause ``i`` names the fact's label (``names_label``), and which of its values it
    gives under it: all where it names that label alone; those paired with it in order where it
    names others too (``values_in_order``), with the clauses before it that give no value when
    each after them opens with "and" or a comma: the labels listed, then their values ("Her MRI
    | and review are at 10:30 and 12:15"; "the MRI | and the review | , at 10:30 and 12:15")."""
    said = headed(parts, i)
    j = i
    # (no further back than one clause a value, each naming a label, and no more than LISTED: a
    # clause of thousands of labels listed, or of values, is read a bounded number of times)
    bound = max(0, i - min(len(values), _LISTED))
    while (
        len(values) > 1
        and j > bound
        and parts[j].text.lstrip().startswith(_LISTING)
        and not fact.found(parts[j - 1].text)
    ):
        j -= 1
        pairs = values_in_order("".join(p.text for p in parts[j:i]) + said, labels, values)
        if pairs is not None:
            return False, pairs
    label = names_label(said, labels)
    if label is False:
        return False, values_in_order(said, labels, values) or []
    return label, values if label else []


def named_in_order(names: Iterable[str]) -> bool:
    """Whether facts of no one's of a kind (their ``names``) are each named by a place of its own
    ("first flight", "second flight"): told apart by their words and the order of mention, so
    they need no ``about`` (there is no one to name)."""
    names = tuple(names)
    places = [ordinal(labels_of(n, (), tuple(o for o in names if o != n))[0]) for n in names]
    return len(names) > 1 and None not in places and len(set(places)) == len(places)


def headed(parts: tuple[Clause, ...], i: int) -> str:
    """A clause's text with the heading before its colon ("Caterer: Saltmarsh", "MRI: 12:15"):
    the clauses are cut at the colon, and the heading is what names the value's label."""
    text = parts[i].text
    return parts[i - 1].text + text if i and text.lstrip().startswith(":") else text
