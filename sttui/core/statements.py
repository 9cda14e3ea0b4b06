"""What an agent's message states, by transparent word rules: that the goal cannot be met,
what the cause is, that the goal was met. The rule judge of impossible tasks reads messages
through these, so each rule here is one a person can apply by hand.

Words, not substrings: text is split into lowercase word tokens (``can't`` and ``09:30`` stay
recognisable: ``can't``, ``09 30``) and a term matches a run of whole tokens. So "ash" is
found in "volcanic ash" but not in "cash" or "Ashford". Hurried spellings are read as what
they stand for (:data:`SPELLINGS`: "cant" is "can't", "bc" is "because").

Statements, not word lists: a question states nothing, a negated or hypothetical "cannot" is
no statement, and a claim of completion is a past or perfect verb of completion on one of
the task's objects (``core.completions``), with a list of set phrases as the fallback.

The rules are here; the words they read by are in ``core.statement_words``.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from sttui.core import facts
from sttui.core.statement_words import (
    ALIKE,
    ASIDES,
    AUXILIARIES,
    BACK,
    CONDITIONALS,
    HEDGES,
    IDIOMS,
    IDIOMS_AFTER,
    IDIOMS_BEFORE,
    INTERROGATIVES,
    LATER,
    NEGATORS,
    PARTIAL,
    PERCEIVING,
    PROBLEMS,
    REST,
    SPELLINGS,
    SUBJECTS,
    TAG_AUXILIARIES,
    TAG_SUBJECTS,
    TEMPORALS,
    TEMPORALS_BEFORE,
)

_TOKEN = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
_SLASHED = (
    (re.compile(r"\bb/c\b"), "because"),
    (re.compile(r"\bw/o\b"), "without"),
    (re.compile(r"\bw/(?=\s)"), "with"),
)
# "&" or "+" between spaces, and the words either side of it
_AMPERSAND = re.compile(r"(\S*)\s[&+]\s(?=(\S*))")


def has_joiner(text: str) -> bool:
    """Whether ``text`` may hold an "&" or a "+" that joins (most texts hold neither)."""
    return "&" in text or "+" in text


def ampersands_as_and(text: str) -> str:
    """``text`` with each "&" or "+" that joins (``joining_ampersands``) written *and*: neither
    is a token, so "nurse Byrne & has been texted" read as one clause. Before any folding: a
    name's capitals tell it."""
    joining = joining_ampersands(text) if has_joiner(text) else []
    if not joining:
        return text
    cuts = [0, *joining, len(text)]  # (the text between them, each "&" of them written "and")
    return "and".join(text[a + (k > 0) : b] for k, (a, b) in enumerate(itertools.pairwise(cuts)))


def joining_ampersands(text: str) -> list[int]:
    """Where an "&" (or a "+", one space either side) stands for *and* between clauses or words
    ("Byrne & has been texted", "10:00 + Dr Reyes at 11:30"): not inside a name, between two
    words that open with a capital, the first of letters only ("Miles & More", "Fig & Fennel";
    not "VAN-42 & Lakeside"); a "+" not between spaces is none ("K+ 6.8")."""
    return [
        m.start() + len(m[1]) + 1
        for m in _AMPERSAND.finditer(text)
        if not (m[1][:1].isupper() and m[2][:1].isupper() and m[1].isalpha())
    ]


_TERM_TOKEN = re.compile(r"[a-z0-9]+(?:'[a-z]+)?\*?")
# clause boundaries: sentence ends, commas, colons and semicolons followed by a space,
# dashes and brackets, and the words that turn a sentence ("but", "however", ...)
_CLAUSE = re.compile(
    r"[.!?;,:]+(?=\s|$)|\s[-–—]+\s|[()\[\]\n]|" + facts.GLUED_COMMA + "|" + facts.GLUED_STOP
)  # (a comma or stop with no space after it too: "Northgate,MRI 10:30", "planned.Westfield")
_TURNS = frozenset({"but", "however", "although", "though", "so", "whereas", "while"})
# "I" opens a clause of its own where a run-on sentence gives it no stop ("it has no driver I've
# booked CAR-5"): not after a word that joins it to what comes before ("Tomasz and I have",
# "the van that I booked", "as I said"); and "instead" ends one ("… at 11:45 instead the talk is
# confirmed"), but for "instead of"; "please" opens one ("I've texted Michael please head to
# BA430"), but for "could you please", "if you please"
_I = frozenset({"i", "i've", "i'm", "i'll", "i'd"})
_BEFORE_PLEASE = frozenset({"you", "if", "as", "i", "we", "they", "so"})
_JOINS_I = frozenset(
    {"and", "or", "nor", "that", "which", "who", "whom", "whose", "as", "because", "since", "if", "when", "where",
     "once", "after", "before", "until", "till", "unless", "than", "then", "what", "how", "why", "whether", "so",
     "but", "me", "myself", "both", "not", "&"}
)  # fmt: skip
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+|" + facts.GLUED_START)
# A phrase is negated by one of ``NEGATORS`` in this many words before it, in the same clause.
NEGATION_WINDOW = 4
# A word of this many letters or more in an infeasibility phrase also matches with one typo
# ("impossble", "imposible", "infeasable"); a word ending in -ly never does ("impossibly").
TYPO_MIN = 8
_NUMBER_WORDS = frozenset(["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"])


def tokens(text: str, stems: bool = False) -> list[str]:
    """Lowercase word tokens; curly apostrophes become straight ones and hurried spellings
    the words they stand for (:data:`SPELLINGS`, "b/c", "w/"). With ``stems`` a final ``*``
    stays on a token (terms only: a message's ``*`` is markup)."""
    text = text.lower().replace("\u2019", "'").replace("\u2018", "'")
    for pattern, word in _SLASHED:
        text = pattern.sub(word, text)
    return [SPELLINGS.get(t, t) for t in (_TERM_TOKEN if stems else _TOKEN).findall(text)]


class Clause(list[str]):
    """A clause's tokens, with where it stands: its sentence (index in the message), whether
    that sentence asks, the condition that makes it hypothetical (or None), and the turning
    word that opened it ("but", "however", …; or None)."""

    def __init__(
        self,
        toks: Iterable[str],
        sentence: int = 0,
        question: bool = False,
        condition: str | None = None,
        turn: str | None = None,
    ):
        super().__init__(toks)
        self.sentence = sentence
        self.question = question
        self.condition = condition
        self.turn = turn


def is_question(sentence: str) -> bool:
    """A sentence asks when it ends with ``?``; without a final ``. ! ?`` (hurried text) also
    when it opens with an auxiliary and a subject, after an optional wh-word ("is it
    impossible bc of the ash"), or closes with a tag ("…isn't it")."""
    text = sentence.strip()
    if text.endswith("?"):
        return True
    if not text or text[-1] in ".!":
        return False
    toks = tokens(text)
    if toks and toks[0] in INTERROGATIVES:
        toks = toks[1:]
    if len(toks) >= 2 and toks[0] in AUXILIARIES and toks[1] in SUBJECTS:
        return True
    full = tokens(text)
    return len(full) >= 3 and full[-2] in TAG_AUXILIARIES and full[-1] in TAG_SUBJECTS


def asks_all(toks: Sequence[str]) -> bool:
    """Whether a sentence ending in ``?`` (its tokens) asks all of it, not only its last
    clause: it opens with a wh-word or an auxiliary ("Should Westfield go on VAN-42?", "Is it
    VAN-42?"), a negative one before a subject ("Isn't it impossible?"; not one opening a
    statement without its subject: "Can't be done today - shall I try tomorrow?"), or it ends
    in a tag ("It's impossible because of the gale, isn't it?")."""
    if len(toks) >= 3 and toks[-2] in TAG_AUXILIARIES and toks[-1] in TAG_SUBJECTS:
        return True
    if not toks or (toks[0] not in AUXILIARIES and toks[0] not in INTERROGATIVES):
        return False
    return not toks[0].endswith("n't") or (len(toks) > 1 and toks[1] in SUBJECTS)


def _condition(toks: Sequence[str]) -> str | None:
    for i, tok in enumerate(toks):
        if tok not in CONDITIONALS or (i and toks[i - 1] == "even"):
            continue
        rest = " ".join(toks[i + 1 : i + 5])
        if tok == "if" and any(rest.startswith(a) for a in ASIDES):
            continue
        return tok
    return None


def sentences(text: str) -> list[str]:
    """The text's sentences, as :func:`clauses` numbers them (``Clause.sentence``)."""
    return [s for s in _SENTENCE_END.split(text) if s.strip()]


def clauses(text: str, runs_on: bool = False) -> list[Clause]:
    """The text's clauses as token lists, split at punctuation and at turning words; each
    knows its sentence, whether it asks, and its condition (:class:`Clause`). A sentence
    ending in ``?`` asks all of it when it opens as a question or ends in a tag
    (:func:`asks_all`), else only its last clause, after the last ``, ; :`` or dash ("No
    interpreter is free today - would you like another date?" states; the rule ``core.stated``
    reads a report's values by). ``runs_on``: also split where a run-on sentence has no stop,
    before "I" and "please" and after "instead" (the claims' reading: what one operation is
    claimed of; not a negation's reach, "nothing here I cannot handle")."""
    out: list[Clause] = []
    for si, sentence in enumerate(sentences(text)):
        asks = is_question(sentence)
        parts = _CLAUSE.split(sentence)
        last = max((i for i, p in enumerate(parts) if tokens(p)), default=0)
        if asks and sentence.rstrip().endswith("?") and not asks_all(tokens(sentence)):
            asking = {last}  # (one typed without its ? asks all of it: ``is_question``)
        else:
            asking = set(range(len(parts))) if asks else set()
        opened: str | None = None  # the condition opening the sentence's previous clause
        pending: str | None = None  # a turning word alone before a comma ("However, …")
        for pi, part in enumerate(parts):
            groups: list[list[str]] = [[]]
            turns: list[str | None] = [pending]
            pending = None
            for tok in tokens(part):
                if (
                    runs_on
                    and groups[-1]
                    and (
                        (tok in _I and groups[-1][-1] not in _JOINS_I)
                        or (groups[-1][-1] == "instead" and tok != "of")
                        or (tok == "please" and groups[-1][-1] not in _BEFORE_PLEASE)
                    )
                ):
                    groups.append([])
                    turns.append(None)
                if tok in _TURNS:
                    if groups[-1]:
                        groups.append([])
                        turns.append(None)
                    turns[-1] = tok
                else:
                    groups[-1].append(tok)
            if not groups[-1]:
                pending = turns[-1]
            for toks, turn in ((g, t) for g, t in zip(groups, turns, strict=True) if g):
                own = _condition(toks)
                out.append(Clause(toks, si, pi in asking, own or opened, turn))
                opened = own if own is not None and toks[0] == own else None
    return out


def inflections(word: str) -> set[str]:
    """Simple inflections of a word: plural, past, -ing and -ion forms (with a final e
    dropped, y into ie, or the last consonant doubled: "omitted", "occurred")."""
    if not word.isalpha() or len(word) < 3:
        return {word}
    endings = ("s", "es", "d", "ed", "ing", "ion", "ions", "ation", "ations")
    out = {word} | {word + e for e in endings}
    if word.endswith("e"):
        out |= {word[:-1] + e for e in ("ing", "ion", "ions", "ation", "ations", "ed")}
    if word.endswith("y") and word[-2] not in "aeiou":
        out |= {word[:-1] + e for e in ("ies", "ied")}
    if word[-1] not in "aeiouwxy":
        out |= {word + word[-1] + e for e in ("ed", "ing", "ation", "ations")}
    return out


@functools.lru_cache(maxsize=1024)
def _alike(word: str) -> frozenset[str]:
    """The words of ``word``'s ``ALIKE`` group, in their simple inflections, when it is one of
    them or an inflection of one ("closed": shut, shuts, shutting…); else none."""
    return frozenset(
        form for group in ALIKE if any(word in inflections(w) for w in group) for w in group for form in inflections(w)
    )


def past_forms(verb: str) -> set[str]:
    """The past forms of a regular verb: "book" booked, "rebook" rebooked, "ship" shipped,
    "arrange" arranged, "ticket" ticketed."""
    return {f for f in inflections(verb) if f.endswith("ed") or f == verb + "d"} - {verb + "ded"}


# a name's word of this many letters or more is also read with one typo ("Westbroook", "Qureshy")
NAME_TYPO_MIN = 5


@functools.lru_cache(maxsize=65536)
def name_typed(word: str, names: frozenset[str]) -> str | None:
    """The one word of ``names`` that ``word`` is with one typo (``one_typo``), the first letter
    as written, both ``NAME_TYPO_MIN`` letters or more: a name typed in a hurry is the name. None
    for a word of ``names`` itself, or a typo of two of them ("Hallet" of Hallett and Hallen)."""
    if word in names or len(word) < NAME_TYPO_MIN or not word.isalpha():
        return None
    meant = [n for n in names if n[:1] == word[:1] and len(n) >= NAME_TYPO_MIN and one_typo(word, n)]
    return meant[0] if len(meant) == 1 else None


def one_typo(tok: str, want: str) -> bool:
    """``tok`` is ``want`` with one letter dropped, added or changed, or two neighbours swapped."""
    if tok == want or tok.endswith("ly") or abs(len(tok) - len(want)) > 1:
        return tok == want
    if len(tok) == len(want):
        diff = [i for i in range(len(tok)) if tok[i] != want[i]]
        if len(diff) == 1:
            return True
        return (
            len(diff) == 2
            and diff[1] == diff[0] + 1
            and tok[diff[0]] == want[diff[1]]
            and tok[diff[1]] == want[diff[0]]
        )
    short, long_ = sorted((tok, want), key=len)
    return any(long_[:i] + long_[i + 1 :] == short for i in range(len(long_)))


@dataclass(frozen=True)
class Term:
    """A word or phrase to find as whole tokens. A final ``*`` makes the last word a stem
    (``volcan*`` finds "volcano" and "volcanic"); otherwise simple inflections match when
    ``inflect`` is set ("cancel" finds "cancelled"), and with ``typos`` a word of
    :data:`TYPO_MIN` letters or more also matches with one typo."""

    text: str
    words: tuple[frozenset[str] | str, ...]
    typos: bool = False

    @classmethod
    def of(cls, text: str, inflect: bool = False, typos: bool = False) -> Term:
        toks = tokens(text, stems=True)
        words: list[frozenset[str] | str] = []
        for i, tok in enumerate(toks):
            if tok.endswith("*") and i == len(toks) - 1:
                words.append(tok[:-1] + "*")
            elif inflect:
                words.append(frozenset(inflections(tok)) | _alike(tok))
            else:
                words.append(tok.rstrip("*"))
        return cls(text, tuple(words), typos)

    def _word(self, want: frozenset[str] | str, tok: str) -> bool:
        if isinstance(want, frozenset):
            return tok in want or tok.removesuffix("'s") in want
        if want.endswith("*"):
            return tok.startswith(want[:-1])
        if self.typos and len(want) >= TYPO_MIN and want.isalpha():
            return one_typo(tok, want)
        return tok == want

    def find(self, toks: Sequence[str]) -> list[int]:
        """Start positions where the term occurs in ``toks``."""
        n = len(self.words)
        if not n:
            return []
        first, word = self.words[0], self._word
        if isinstance(first, str) and not first.endswith("*") and not (self.typos and len(first) >= TYPO_MIN):
            starts = [i for i in range(len(toks) - n + 1) if toks[i] == first]  # the common case, fast
        else:
            starts = [i for i in range(len(toks) - n + 1) if word(first, toks[i])]
        return [i for i in starts if all(word(w, toks[i + j]) for j, w in enumerate(self.words[1:], 1))]

    def matched(self, toks: Sequence[str]) -> str | None:
        """The words of ``toks`` the term matched first, or None."""
        at = self.find(toks)
        return " ".join(toks[at[0] : at[0] + len(self.words)]) if at else None


def terms(texts: Iterable[str], inflect: bool = False, typos: bool = False) -> list[Term]:
    return list(_terms(tuple(texts), inflect, typos))


@functools.lru_cache(maxsize=256)
def _terms(texts: tuple[str, ...], inflect: bool, typos: bool) -> tuple[Term, ...]:
    return tuple(Term.of(t, inflect, typos) for t in texts if tokens(t))


_HEDGE_TERMS = terms(HEDGES)
_LATER_TERMS = terms(LATER)
_PARTIAL_TERMS = terms(PARTIAL)
_REST_TERMS = terms(REST)
_BACK_TERMS = terms(BACK)


def _negated(clause: Sequence[str], at: int) -> str | None:
    for tok in clause[max(0, at - NEGATION_WINDOW) : at]:
        if tok in NEGATORS or tok.endswith("n't"):
            return tok
    return None


def _has(clause: Sequence[str], phrases: Sequence[Term]) -> str | None:
    return next((p.text for p in phrases if p.find(clause)), None)


@dataclass(frozen=True)
class Found:
    """One phrase found in a clause: the clause's index in the message, the words, why it
    does not count (negated, hedged, an idiom, a question, hypothetical; None when it does),
    where in the clause, and (claims) whether it claims part of the goal."""

    clause: int
    words: str
    void: str | None = None
    at: int = 0  # the word's position in its clause
    partial: bool = False


def _no_problem(clause: Sequence[str], end: int) -> str | None:
    """ "cannot see any problem": the perceiving verb right after the phrase (or after
    "really") and a problem word within three words of it; the words from the verb to it."""
    start = end + 1 if clause[end : end + 1] == ["really"] else end
    if start >= len(clause) or clause[start] not in PERCEIVING:
        return None
    hit = next((j for j in range(start + 1, min(start + 4, len(clause))) if clause[j] in PROBLEMS), None)
    return " ".join(clause[end : hit + 1]) if hit is not None else None


def _where(clause: Sequence[str]) -> tuple[bool, str | None]:
    return bool(getattr(clause, "question", False)), getattr(clause, "condition", None)


def find_phrases(clause_list: Sequence[Sequence[str]], phrases: Sequence[Term], statement: bool) -> list[Found]:
    """Each occurrence of a phrase in the clauses. A question states nothing and a negator in
    the four words before voids a phrase; for an infeasibility ``statement`` so do a
    condition (hypothetical), a hedge in the clause, an idiom after it, and a verb of seeing a
    problem after it ("cannot see any problem"); for a claim a condition, a later moment or a
    later day."""
    hedges = _HEDGE_TERMS if statement else []
    out: list[Found] = []
    rest: list[int] | None = None  # (the clauses speaking of "the rest": read once)
    for ci, clause in enumerate(clause_list):
        asks, condition = _where(clause)
        spots = sorted(((at, term) for term in phrases for at in term.find(clause)), key=lambda s: s[0])
        no_problem: str | None = None  # a clause that says there is no problem states nothing after
        for at, term in spots:
            end = at + len(term.words)
            words = " ".join(clause[at:end])
            void = None
            neg = _negated(clause, at)
            if asks:
                void = "a question"
            elif neg is not None:
                void = f"negated by '{neg}'"
            elif condition is not None:
                void = f"hypothetical ('{condition}')"
            elif statement:
                after = clause[end] if end < len(clause) else ""
                hedge = next((h.text for h in hedges if h.find(clause)), None)
                problem = _no_problem(clause, end)
                if problem is not None:
                    no_problem = no_problem or f"'{words} {problem}'"
                before = clause[at - 1] if at > 0 else ""
                if not after and "but" in IDIOMS_AFTER.get(words, ()) and _but_to(clause_list, ci):
                    after = "but"  # ("no option but to rebook you": "but" opens the next clause)
                if after in IDIOMS or after in IDIOMS_AFTER.get(words, ()):
                    void = f"an idiom ('{words} {after}')"
                elif before in IDIOMS_BEFORE.get(words, ()):
                    void = f"an idiom ('{before} {words}')"
                elif no_problem is not None:
                    void = f"says there is no problem ({no_problem})"
                elif hedge is not None:
                    void = f"hedged by '{hedge}'"
            else:
                later = _has(clause, _LATER_TERMS)
                temporal = _temporal(clause, at)
                if temporal is not None:
                    void = f"hypothetical ('{temporal}')"
                elif words.endswith(" in") and clause[end : end + 1] == ["with"] and _by_the_writer(clause, at):
                    # "I checked in with the airline": consulted it (not "you're checked in with Icelandair")
                    void = f"reports a check ('{words} with')"
                elif later is not None:
                    void = f"about a later day ('{later}')"
            if statement is False and rest is None:
                rest = the_rest(clause_list)
            out.append(Found(ci, words, void, at, statement is False and _partial(clause_list, ci, rest or [])))
    return sorted(out, key=lambda f: (f.clause, f.at))


def _but_to(clause_list: Sequence[Sequence[str]], ci: int) -> bool:
    """Whether the clause after ``ci``, in its sentence, is opened by "but" and begins with
    "to": "I had no option | but to rebook you" (not "there's no option, but I can…")."""
    if ci + 1 >= len(clause_list):
        return False
    here, nxt = clause_list[ci], clause_list[ci + 1]
    same = getattr(here, "sentence", 0) == getattr(nxt, "sentence", 0)
    return same and getattr(nxt, "turn", None) == "but" and nxt[:1] == ["to"]


def _by_the_writer(clause: Sequence[str], at: int) -> bool:
    """Whether the verb at ``at`` is the writer's own act: "I checked", "we've just checked"."""
    before = [t for t in clause[max(0, at - 3) : at] if t not in ("just", "also", "already", "have")]
    return bool(before) and before[-1] in ("i", "we", "i've", "we've", "ive", "weve")


def _temporal(clause: Sequence[str], at: int) -> str | None:
    return next((t for j, t in enumerate(clause) if t in TEMPORALS or (j < at and t in TEMPORALS_BEFORE)), None)


def _partial(clause_list: Sequence[Sequence[str]], ci: int, rest: list[int]) -> bool:
    """A claim in clause ``ci`` is about part of the goal: its clause says which part ("part
    of", "three of", "the first"), or a clause of the same message speaks of "the rest"
    (``rest``: :func:`the_rest`)."""
    clause = clause_list[ci]
    if _has(clause, _PARTIAL_TERMS) is not None:
        return True
    if any(
        clause[i] in _NUMBER_WORDS | {"1", "2", "3", "4", "5", "6"} and clause[i + 1] == "of"
        for i in range(len(clause) - 1)
    ):
        return True
    return any(j != ci for j in rest[:2])


def the_rest(clause_list: Sequence[Sequence[str]]) -> list[int]:
    """The clauses that speak of "the rest" (for ``_partial``): read once per message, not once
    per claim, which was quadratic in a long message of claims."""
    return [j for j, c in enumerate(clause_list) if _has(c, _REST_TERMS) is not None]
