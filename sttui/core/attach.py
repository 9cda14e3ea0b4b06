"""Which subject a value in a report is attached to: "Westfield on VAN-41, Lakeside on VAN-42"
gives VAN-41 to Westfield and VAN-42 to Lakeside, so a report that swaps two vans is read as
swapped. Used by the ``tell`` rules (``core.reports``) for facts with an ``about``.

The rules, simple enough to apply by hand (task format §5):

- A message is cut into **clauses**: at line ends (a line broken with no stop, the next in
  small letters, goes on as a clause of its sentence), at sentence ends (``.``, ``!`` or ``?``
  before a space and a letter, a ``*``, ``_``, quote or bracket between; ``truck no. 9`` is one clause), at ``;``, ``,`` and a ``:``
  before a space (not ``09:30``), a dash between spaces before a subject's name or before a
  capital and a word in small letters, and before the words *and, but, while, whilst, whereas, so,
  then, plus, after, because, since, although, though*; not inside a subject's name, nor between the values of a list ("vans 42, 41
  and 47", "VAN-42 and VAN-41", "van 42 and van 41", "09:00 and 11:00" each stay in one
  clause; a code after a time or after a code of other letters is no list: "back 10:00, CR-91");
  and in a run with no stop, before each value that opens "value … on Subject" after a subject
  so placed ("CR-91 on Gorse (back 10:00) CR-92 from Fell Gate on Heather"), and before a
  subject's name right after a value that opens its clause ("… at 08:40 Eileen's review is …").
- A clause that names no subject but *the former* or *the latter* is attached to the first or
  the last of the subjects the sentence named before it, or the sentence before ("Orla and
  Imran are both sorted; the former is on 14:00, the latter on 14:30").
- A clause that names **one** subject is attached to it. A clause that names none is attached
  to the subject of the clause before it in the same sentence ("…VAN-41 broke down, so *it* is
  now on VAN-42"), or to a heading: a line ending in ``:`` (or whose last sentence opens
  "Halima: …", naming no one else) that names one subject heads the
  lines under it, up to a blank line; in a sentence that names one subject, the clauses before
  its name are attached to it ("VAN-42: Westfield."). A clause that names two or more subjects is attached to
  none, nor is one that names one subject right after a clause that is only another's name
  (*and Imran are both sorted* in "Orla and Imran are both sorted"), nor are the clauses after
  either in its sentence that name none.
- A clause that names no subject and is attached to none, opening with *she, he, it, her,
  his, hers, its, theirs* or *the other*, when the last sentence that named subjects named two
  or more, is **ambiguous**: its values are given to no one, and are not read as any
  subject's ("Orla and Imran are both sorted. She is 14:30 and he is 14:00" states neither
  time: a person would have to know who is who).
- Lists in parallel give the n-th value to the n-th subject: clauses that are each only a
  subject's name, then a clause naming one more subject, or none, that states one value of
  the kind for each ("Westfield and Lakeside go on vans 42 and 41"; "Westfield, Lakeside and
  Abbeymead: VAN-42, VAN-41 and VAN-47"); the mirror of that ("VAN-42 and VAN-41 go to
  Westfield and Lakeside"); and a sentence with *respectively* that states as many values as
  it names subjects. (Values depend on the kind, so ``core.reports`` applies these.)
- A subject is named by its words, whole, in order, letter case and accents ignored, with or
  without a possessive, its apostrophe left out too: ``St Luke's``, ``Westfield's``,
  ``Eileens`` (a last word of three letters or more, ending in no *s*), a word of five letters
  or more with one typo written with a capital (``Halmia``); a one-word name of eight letters or
  more also by a clipped form of five letters or more that leaves three or more off and
  begins no other subject's name ("gastro" for *gastroscopy*).
"""

from __future__ import annotations

import itertools
import re
from bisect import bisect_left
from dataclasses import dataclass, field
from functools import lru_cache

from sttui.core.facts import GLUED_STOP, TITLES, fold
from sttui.core.statements import has_joiner, joining_ampersands, name_typed

# A subject's names: each a tuple of folded words (possessives dropped), alternatives of one subject.
Subject = tuple[tuple[str, ...], ...]

_WORD = re.compile(r"[^\W_]+(?:['\u2019][^\W_]+)*['\u2019]?")
_SENTENCE_END = re.compile(
    r"[.!?]+(?=\s+[*_\"'(\[]*[^\W\d_])|" + GLUED_STOP
)  # (a letter after markdown, a quote or a bracket too; a stop typed with no space: "09:55.Kwame")
# a comma, a semicolon, a colon before a space; or a dash or slash between words, one space either
# side, before a subject's name ("… at 09:55 - Kwame: …"; not an aside, "TIE-23 - the only tie for
# Corn Exchange -"; not a dash left of what ``core.stated`` blanked: "from    -  ")
_CLAUSE_MARK = re.compile(r"[,;]|:(?=\s)|(?<=\S\s)(--?|[\u2013\u2014]|/)(?=\s\S)")
CONJUNCTIONS = frozenset({"and", "but", "while", "whilst", "whereas", "so", "then", "plus"})
# the words that open a clause of its own inside a sentence ("Westfield went on VAN-41 after QA
# moved Lakeside to VAN-42": two clauses, one subject each)
SUBORDINATORS = frozenset({"after", "because", "since", "although", "though"})
# a clause that opens (after its joining words) with a pronoun for one of several: "she is 14:30",
# "its van is VAN-41 and theirs is VAN-42", "…, the other TIE-23"
_ONE_OF_THEM = re.compile(
    r"^\W*(?:(?:and|but|while|whilst|whereas|so|then|plus)\s+)*(?:she|he|it|her|his|hers|its|theirs|the\s+other)\b",
    re.IGNORECASE,
)


def _bare(word: str) -> str:
    """A folded word without its possessive: "westfield's" and "lukes'" read as the name; the
    forms of *you* as *you* ("you're", "your", "u"), for a fact ``about`` the user themself."""
    word = fold(word).replace("\u2019", "'")
    word = word.removesuffix("'s").removesuffix("'")
    return "you" if word in _YOU_FORMS else word


# the forms of *you* a report may name the user by ("you're in 33G", "your seat is 33G"): one
# `about` word, *you*, names a fact's subject who is the user ("about: [Daniel, you]")
_YOU_FORMS = frozenset(
    {"you're", "youre", "your", "yours", "you've", "youve", "you'll", "youll", "yourself", "u", "ur"}
)
# … but not *you* said of several: "you both", "you two", "both of you", "each of you"
_SEVERAL = frozenset({"both", "two", "all", "three", "four", "guys"})
_OF_SEVERAL = _SEVERAL | {"each"}  # ("each of you")


def _several(tokens: list[tuple[int, int, str]], i: int) -> bool:
    """Whether the *you* at ``i`` is said of several: "you both", "both of you"."""
    after = tokens[i + 1][2] if i + 1 < len(tokens) else ""
    before = [t[2] for t in tokens[max(0, i - 2) : i]]
    return after in _SEVERAL or (before[-1:] == ["of"] and before[0] in _OF_SEVERAL)


# words after a subject's name that open its clause ("Bracken on CR-91", "Eileen is moved to 11:30")
_OPENING = frozenset(
    {"is", "are", "was", "were", "has", "have", "had", "gets", "goes", "keeps", "now", "on", "at", "in", "to", "will",
     "moved", "takes", "leaves", "arrives", "back"}
)  # fmt: skip
# words that place a value with the name after them ("CR-91 on Gorse", "VAN-42 for Westfield")
_PLACING = frozenset({"on", "for", "at", "to", "in", "into", "onto", "via", "from", "with"})
_GROUP_GAP = 6  # the most words between a value and the word that places it


def _run_on_groups(
    text: str,
    tokens: list[tuple[int, int, str]],
    mentions: list[tuple[int, int, Subject]],
    covered: set[int],
    cuts: list[tuple[int, str]],
) -> list[tuple[int, str]]:
    """``cuts`` with the clause cuts a run of subjects' groups with no stop between needs, after
    another subject's name:

    - before a value that opens "value … on Subject" after a subject so placed: "CR-91 on Gorse
      (back 10:00) CR-92 from Fell Gate on Heather" is two clauses, as with a comma; not after a
      subject named otherwise ("Halima is on VAN-3 for Northgate" names two, and gives neither);
    - before a subject's name right after a value, in the same sentence as the other name, that
      opens its clause (a possessive, or a word such as *is, on, moved* after it): "… at 08:40
      Eileen's review is moved …", "Gorse on CR-90 Bracken on CR-91"."""
    if len(mentions) < 2:
        return cuts
    index = {t[0]: n for n, t in enumerate(tokens)}
    positions = [c for c, _ in cuts]

    def same_clause(a: int, b: int) -> bool:
        return bisect_left(positions, a) == bisect_left(positions, b)

    stops = [c for c, kind in cuts if kind != "clause"]

    def same_sentence(a: int, b: int) -> bool:
        return bisect_left(stops, a) == bisect_left(stops, b)

    added: list[tuple[int, str]] = []
    for (a0, _, s0), (a, b, s1) in itertools.pairwise(mentions):
        i = index.get(a)
        if i is None or i == 0 or s0 == s1 or not _numbered(tokens[i - 1][2]):
            continue
        n = i + sum(1 for _ in _WORD.finditer(text, a, b))  # the token after the name
        opening = text[b - 2 : b].lower() in ("'s", "\u2019s") or (n < len(tokens) and tokens[n][2] in _OPENING)
        if opening and same_sentence(a, a0) and same_clause(tokens[i - 1][0], a):  # (no cut there yet)
            added.append((a, "clause"))
    placed = [i for a, _, _ in mentions if (i := index.get(a)) and tokens[i - 1][2] in _PLACING]
    for previous, i in itertools.pairwise(placed):
        value = next((j for j in range(i - 2, max(previous, i - 2 - _GROUP_GAP), -1) if _has_digit(tokens[j][2])), None)
        if value is None or any(j in covered for j in range(value, i - 1)):
            continue
        if value > 0 and tokens[value - 1][2].isalpha() and text[tokens[value - 1][1] : tokens[value][0]] in ("-", ""):
            value -= 1  # (the code's letters: "CR-92")
        at = tokens[value][0]
        if value > previous and same_clause(at, tokens[previous][0]) and same_clause(at, tokens[i][0]):
            added.append((at, "clause"))
    return sorted(set(cuts + added)) if added else cuts


_NEXT_WORD = re.compile(r"\S+\s+(\S+)")
_GOES_ON = re.compile(
    r"(?<=[^\s.!?:;])\n[ \t]*[a-z]"
)  # a line broken mid-sentence: no stop before, small letters after
_LEAD = re.compile(r"[\s*_\-•>#\u2705]*")  # (a bullet, markdown or a tick before a line's first word)
_COLON_AFTER = re.compile(r"(?:['\u2019]s?)?[*_]*\s*:")  # ("Halima:", "**Halima**:", "Halima's:")


def _opens_after(text: str, mark: str, at: int, named_at: set[int]) -> bool:
    """Whether a dash or slash between spaces cuts before the word at ``at``: before a subject's
    name ("… at 09:55 - Kwame: …"), and a dash before a word with a capital and one in small
    letters after it, a clause of its own in a run of them ("… with Grace Ito - VAN-2 collects
    her at 10:40"); not an aside ("TIE-23 - the only tie for Corn Exchange -"), nor a slash ("A /
    B"), nor in Title Case or capitals, where a capital tells nothing."""
    if at in named_at:
        return True
    if mark == "/" or not text[at : at + 1].isupper():
        return False
    nxt = _NEXT_WORD.match(text, at)  # (a capital, then a word in small letters: no Title Case, no capitals)
    return nxt is not None and nxt[1][:1].islower()


def _has_digit(word: str) -> bool:
    """A value's word: a number, a time's part, a code ("cr92", "31b")."""
    return any(c.isdigit() for c in word)


def _numbered(word: str) -> bool:
    """A number, or a number and one letter (a seat: "31b")."""
    return word.isdigit() or (len(word) > 1 and word[:-1].isdigit() and word[-1].isalpha())


def subject_of(names: list[str]) -> Subject:
    """A fact's ``about`` names as words to look for (names without a word left out)."""
    return tuple(ws for ws in (tuple(_bare(w) for w in _WORD.findall(n)) for n in names) if ws)


@dataclass(frozen=True)
class Sentence:
    """One sentence of a message (or one line), as the ``tell`` rules read it."""

    text: str
    named: tuple[Subject, ...]  # the subjects it names, in the order it first names them
    respectively: bool  # it has the word *respectively*
    parts: tuple[Clause, ...]  # its clauses, in order


@dataclass(frozen=True)
class Clause:
    """One clause: its text, the subject it gives its values to (None: no one), the subject
    it names when it names one, and ``bare``: it is that subject's name and nothing else but
    joining words ("Westfield" in "Westfield and Lakeside go on vans 42 and 41"); ``ambiguous``:
    it opens with a pronoun that could stand for any of two or more subjects just named."""

    text: str
    owner: Subject | None
    names: Subject | None
    bare: bool
    ambiguous: bool = False  # a pronoun after two or more subjects: its values are no one's


def sentences(text: str, subjects: tuple[Subject, ...], bystanders: tuple[Subject, ...] = ()) -> tuple[Sentence, ...]:
    """``text`` cut into sentences, each with the clauses it gives each of ``subjects`` (all
    the subjects a report may name, so a clause naming two of them gives its values to none).
    ``bystanders``: other people the task names, no fact's subject; a clause naming one of them
    and no subject gives its values to that person ("Grace Mensah has the 11:30": not Tomasz's).
    Which values of a kind a sentence lists in parallel is the caller's to judge
    (``core.reports``): it depends on the kind."""
    subjects = tuple(dict.fromkeys(subjects))
    return _sentences(text, subjects, tuple(b for b in dict.fromkeys(bystanders) if b not in subjects))


# a subject's one-word name this long or longer is also named by a clipped form of CLIP_MIN letters
# or more that leaves at least three off ("gastro" for gastroscopy, "physio" for physiotherapy)
CLIP_NAME, CLIP_MIN = 8, 5


@lru_cache(maxsize=256)
def _name_words(subjects: tuple[Subject, ...]) -> frozenset[str]:
    """The words of the subjects' names, which a word typed with one typo may name
    (``statements.name_typed``: "Halmia" for Halima)."""
    return frozenset(w for subject in subjects for name in subject for w in name)


def _other_forms(subjects: tuple[Subject, ...]) -> dict[str, str]:
    """The clipped forms of the subjects' one-word names -> the word (a form two names begin
    with names neither), and each name's last word with an *s* -> the word."""
    out: dict[str, str] = {}
    shared: set[str] = set()
    for subject in subjects:
        for name in subject:
            if len(name) != 1 or len(name[0]) < CLIP_NAME:
                continue
            word = name[0]
            for n in range(CLIP_MIN, len(word) - 2):
                form = word[:n]
                if out.get(form, word) != word:
                    shared.add(form)
                out[form] = word
    # a possessive written without its apostrophe ("Eileens review"): the last word of a name with an s
    words = {w for subject in subjects for name in subject for w in name}
    for subject in subjects:
        for name in subject:
            last = name[-1]
            if len(last) >= 3 and not last.endswith("s") and last + "s" not in words:
                out.setdefault(last + "s", last)
    return {k: v for k, v in out.items() if k not in shared}


@dataclass(slots=True)
class _Reading:
    """A message's words, with where each subject is named: what the cuts and the clauses read.
    ``tokens`` are (start, end, folded word), a clipped or typo'd name written as the name."""

    text: str
    tokens: list[tuple[int, int, str]]
    at: dict[str, list[int]]  # a word -> the indices of the tokens that are it
    mentions: list[tuple[int, int, Subject]]  # (start, end, subject), by position
    covered: set[int]  # the tokens inside a subject's name
    aside: frozenset[Subject]  # the bystanders
    starts: list[int] = field(init=False)  # the mentions' starts
    token_starts: list[int] = field(init=False)
    respectively: list[int] = field(init=False)  # where the word "respectively" is

    def __post_init__(self) -> None:
        self.starts = [m[0] for m in self.mentions]
        self.token_starts = [t[0] for t in self.tokens]
        self.respectively = [self.tokens[i][0] for i in self.at.get("respectively", ())]

    def within(self, a: int, b: int) -> list[tuple[int, int, Subject]]:
        return self.mentions[bisect_left(self.starts, a) : bisect_left(self.starts, b)]

    def named(self, a: int, b: int) -> list[Subject]:
        """The subjects named between ``a`` and ``b``; a bystander only where no subject is."""
        found = list(dict.fromkeys(subj for _, _, subj in self.within(a, b)))
        real = [subj for subj in found if subj not in self.aside]
        return real if real or not found else found

    def opens(self, lo: int, hi: int, who: Subject) -> bool:
        """Whether the clause of tokens ``lo``..``hi`` opens with ``who``'s name, after its
        joining words ("…, and Grace Mensah has the 17:00"; not "…, review with Dr Adeyemi")."""
        first = next((n for n in range(lo, hi) if self.tokens[n][2] not in CONJUNCTIONS), None)
        if first is None:
            return False
        at = self.tokens[first][0]
        return any(subj == who for _, _, subj in self.within(at, at + 1))

    def in_numbers(self, before: int, after: int) -> bool:
        """Between two values of a list ("vans 42, 41 and 47", "VAN-42 and VAN-41", "09:00 and
        11:00", "van 41 and van 42", "31B and 31A"): a number (or a seat) before, and after a number, a code (letters
        joined to digits) or the word before the first number again, with its number."""
        tokens = self.tokens
        if before < 0 or after >= len(tokens) or not _numbered(tokens[before][2]):
            return False
        if _numbered(tokens[after][2]):
            return True
        code = after + 1 < len(tokens) and tokens[after + 1][2].isdigit()
        gap = self.text[tokens[after][1] : tokens[after + 1][0]] if code else ""
        again = before > 0 and tokens[after][2].rstrip("s") == tokens[before - 1][2].rstrip("s") and not gap.strip()
        # a code after a code of the same letters ("VAN-42, VAN-41"), not after a time or another
        # kind's code ("back 10:00, CR-91 on Heather" cuts: a new clause)
        same = before > 0 and tokens[after][2] == tokens[before - 1][2]
        return code and ((gap in ("", "-", "_", "#") and same) or (again and after not in self.covered))


@lru_cache(maxsize=1024)
def _sentences(text: str, subjects: tuple[Subject, ...], bystanders: tuple[Subject, ...] = ()) -> tuple[Sentence, ...]:
    """Cached: the scripted user and the checklist ask of the same messages after every step.
    Linear in the text (positions looked up by bisection): a message may be pasted in whole."""
    reading = _read(text, subjects, bystanders)
    return _grouped(reading, _cuts(reading))


def _read(text: str, subjects: tuple[Subject, ...], bystanders: tuple[Subject, ...]) -> _Reading:
    """The words of ``text``, and where each subject (or bystander) is named in it."""
    tokens = [(m.start(), m.end(), _bare(m.group())) for m in _WORD.finditer(text)]
    at: dict[str, list[int]] = {}
    for i, (_, _, w) in enumerate(tokens):
        at.setdefault(w, []).append(i)
    mentions: list[tuple[int, int, Subject]] = []
    covered: set[int] = set()
    forms = _other_forms(subjects)
    lower = not any(c.isupper() for c in text)
    name_words = _name_words(subjects)
    for word, indices in list(at.items()):
        whole = forms.get(word)
        if whole is None and name_words:
            whole = name_typed(word, name_words)  # ("Halmia": written as a name is, or no word has a capital)
            indices = indices if lower else [i for i in indices if text[tokens[i][0]].isupper()]
        if whole is not None:  # ("gastro" for "gastroscopy", "eileens" for "Eileen's"; the word written elsewhere too)
            at[whole] = sorted(at.get(whole, []) + indices)
            for i in indices:
                tokens[i] = (tokens[i][0], tokens[i][1], whole)
    for subject in (*subjects, *bystanders):
        for name in subject:
            n = len(name)
            for i in at.get(name[0], ()):
                if name == ("you",) and _several(tokens, i):
                    continue  # ("I've checked you both in": not the user alone)
                if i + n <= len(tokens) and all(tokens[i + k][2] == name[k] for k in range(1, n)):
                    mentions.append((tokens[i][0], tokens[i + n - 1][1], subject))
                    covered.update(range(i, i + n))
    mentions.sort(key=lambda m: m[0])
    return _Reading(text, tokens, at, mentions, covered, frozenset(bystanders))


def _cuts(r: _Reading) -> list[tuple[int, str]]:
    """Where the clauses end, in order: (position, what ends there), "line", "sentence" or
    "clause" (a line broken mid-sentence, the next in small letters after no stop, goes on: a
    clause)."""
    text, tokens, token_starts = r.text, r.tokens, r.token_starts
    cuts: list[tuple[int, str]] = [
        (m.start(), "clause" if _GOES_ON.match(text, m.start()) else "line") for m in re.finditer(r"\n", text)
    ]
    cuts += [(m.end(), "sentence") for m in _SENTENCE_END.finditer(text)]
    named_at = set(r.starts)
    for m in _CLAUSE_MARK.finditer(text):
        after = bisect_left(token_starts, m.end())
        if m[1] is not None and (after >= len(tokens) or not _opens_after(text, m[1], tokens[after][0], named_at)):
            continue  # (a dash or slash: only before a subject's name, or a dash before a capital)
        if m.group() == ";" or not r.in_numbers(after - 1, after):
            cuts.append((m.start(), "sentence" if m.group() == ";" else "clause"))
    cuts += [
        (tokens[i][0], "clause")
        for w in CONJUNCTIONS | SUBORDINATORS
        for i in r.at.get(w, ())
        if i not in r.covered and not r.in_numbers(i - 1, i + 1)
    ]
    for amp in (
        joining_ampersands(text) if has_joiner(text) else ()
    ):  # "&" or "+" as "and" (the tokens hold neither), but inside a name ("Fig & Fennel")
        after = bisect_left(token_starts, amp)
        if not (after - 1 in r.covered and after in r.covered) and not r.in_numbers(after - 1, after):
            cuts.append((amp, "clause"))
    cuts.sort()
    return _run_on_groups(text, tokens, r.mentions, r.covered, cuts)


def _grouped(r: _Reading, cuts: list[tuple[int, str]]) -> tuple[Sentence, ...]:
    """The clauses between the cuts, each given its owner, gathered into sentences."""
    text, tokens, token_starts, aside = r.text, r.tokens, r.token_starts, r.aside
    out: list[Sentence] = []
    parts: list[Clause] = []
    heading: Subject | None = None  # a line "Westfield:" heads the lines under it
    last: Subject | None = None  # the subject of the sentence's clauses so far
    two = False  # the sentence's last subject-naming clause named two or more
    pair: list[Subject] = []  # the subjects of the last clause that named two or more
    line_start = sentence_start = start = 0
    for pos, kind in [*cuts, (len(text), "line")]:
        clause = text[start:pos]
        here = r.named(start, pos)
        by_only = bool(here) and all(h in aside for h in here)  # (only bystanders: "Grace has the 11:30")
        ambiguous = False
        if here and not by_only:
            # (a name alone, then a clause naming another: "Orla and Imran are sorted", both of them)
            joint = len(here) == 1 and bool(parts) and parts[-1].bare and parts[-1].names not in (None, here[0])
            two = len(here) > 1 or joint
            last = None if two else here[0]
            pair = list(dict.fromkeys([*pair, *here])) if start > sentence_start else list(here)
        owner = None if two else (last or heading)
        lo, hi = bisect_left(token_starts, start), bisect_left(token_starts, pos)
        # a subject's name alone, then "and" a bystander's clause: the two together ("Ingrid and
        # Sara on KL1143": Ingrid's too), not the bystander's alone
        together = by_only and bool(parts) and parts[-1].bare and lo < hi and tokens[lo][2] in ("and", "&")
        if by_only and not two and not together and len(here) == 1 and (owner is None or r.opens(lo, hi, here[0])):
            owner = here[0]  # a bystander's clause with no subject to inherit, or that opens with them, is theirs
        if not here and len(pair) > 1:  # "Orla and Imran are sorted; the former is on 14:00, the latter…"
            which = {tokens[n][2] for n in range(lo, hi)} & {"former", "latter"}
            if len(which) == 1:
                owner = pair[0] if "former" in which else pair[-1]
        if owner is None and not here and len(pair) > 1:  # "Orla and Imran are sorted. She is 14:30"
            ambiguous = _ONE_OF_THEM.match(clause) is not None
        if clause.strip():
            bare = len(here) == 1 and all(  # ("Dr Dubois and Dr Reyes: 11:30 and 10:00": a title is of the name)
                tokens[n][2] in CONJUNCTIONS or n in r.covered or tokens[n][2] in TITLES for n in range(lo, hi)
            )
            one = here[0] if len(here) == 1 and here[0] not in aside else None  # (no bystander in a list)
            parts.append(Clause(clause, owner, one, bare and one is not None, ambiguous))
        if kind == "clause":
            start = pos
            continue
        if kind == "line":
            heading = _heading(r, heading, line_start, sentence_start, pos)
            line_start = pos + 1
        sentence = _sentence(r, sentence_start, pos, parts)
        if sentence is not None:
            out.append(sentence)
        parts, last, two = [], None, False
        start = sentence_start = pos + (1 if kind == "line" else 0)
    return tuple(out)


def _heading(r: _Reading, heading: Subject | None, line_start: int, sentence_start: int, end: int) -> Subject | None:
    """Who heads the lines after the line that ends at ``end``: none after a blank line; the one
    subject a line ending in ":" names; the one a line's last sentence opens with, "Halima: …",
    naming no one else; else whoever headed it."""
    line = r.text[line_start:end]
    if not line.strip():
        return None
    if line.rstrip().endswith(":"):
        heads = r.named(line_start, end)
        return heads[0] if len(heads) == 1 else None
    heads = r.named(sentence_start, end)
    first = r.within(sentence_start, end)[:1]
    lead = _LEAD.match(r.text, sentence_start)
    leads = len(heads) == 1 and bool(first) and lead is not None and first[0][0] == lead.end()
    return heads[0] if leads and _COLON_AFTER.match(r.text, first[0][1]) else heading


def _sentence(r: _Reading, start: int, end: int, parts: list[Clause]) -> Sentence | None:
    """The sentence from ``start`` to ``end`` of ``parts`` (None: only blanks): in one that
    names one subject, the clauses before its name, given to no one, are that subject's
    ("VAN-42: Westfield.")."""
    body = r.text[start:end]
    if not body.strip():
        return None
    subjects_here = tuple(subj for subj in r.named(start, end) if subj not in r.aside)
    if len(subjects_here) == 1:
        one = subjects_here[0]
        parts = [
            Clause(p.text, one, p.names, p.bare) if p.owner is None and not p.ambiguous and p.names is None else p
            for p in parts
        ]
    said = bisect_left(r.respectively, start) < bisect_left(r.respectively, end)
    return Sentence(body, subjects_here, said, tuple(parts))
