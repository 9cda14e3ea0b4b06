"""Facts in free text: ids, times, dates, names and phrases, found however people write them.

Pure functions over strings, so the rules can be read, tested and applied by hand. What the
``tell`` checklist item (``core.reports``) uses to decide whether a report states a fact.

- **ids** (``TRK-9``, ``LH401``, ``TR-0912-04``): compared by their *canonical form*, the
  letter and digit runs upper-cased, leading zeros dropped, joined by ``-``. In text a run may
  be followed by a space, ``-``, ``_``, ``.``, ``/`` or ``#`` or by nothing: ``trk9``, ``TRK 9``,
  ``TRK-09`` are all ``TRK-9``. An alias word may stand for the first letter run
  (``truck 9`` with ``{truck: TRK}``), and the known numbers listed after it go with it
  (``trucks 9, 4 and 7``, ``truck 9 and 4``), as does a number after *the*, *number* or *no.*
  and before it (``the 9 truck``). Whole runs only: ``TRK-9`` is not in ``TRK-90``.
- **times**: read in text by ``core.written_times`` (its rules there); a value's minute of
  the day here (``time_of``).
- **dates**: ``2024-08-15``, ``15 August (2024)``, ``15th of Aug``, ``August 15``, ``Aug 15th``,
  ``15/08/2024`` and ``15/8`` (day/month or month/day: both readings count), ``15.08.2024``.
  Compared by month and day (and year when both sides give one).
- **names**: a person's surname (the last word, titles such as Dr and words in brackets
  dropped) as a whole word, letter case and accents ignored: ``Dr Okafor``, ``okafor``; or a
  first name of one person alone, written with a capital (``report_facts``): ``Amara``.
- **text**: the phrase's words in order as whole words, letter case, accents and punctuation
  ignored.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime
from functools import lru_cache

from sttui.core.statement_words import WEEKDAYS

KINDS = ("id", "time", "date", "person", "text")

# -- shared -----------------------------------------------------------------------------

# a stop typed with no space after it, before a word that opens a sentence ("re-planned.Westfield",
# "at 09:55.Kwame", "31B.Hannah's"): the stop itself; not a decimal ("9.30"), a title ("Dr.Adeyemi") or a word
# in lower case after it ("bbc.co.uk")
GLUED_STOP = (
    r"(?:(?<=[a-z0-9)])|(?<=\d[A-Z]))(?<!\bDr)(?<!\bMr)(?<!\bMs)(?<!\bSt)(?<!\bMrs)(?<!\bProf)[.!?](?=[A-Z][a-z])"
)
# … and where the sentence after it begins (to split at, nothing consumed)
GLUED_START = r"(?:(?<=[a-z0-9)][.!?])|(?<=\d[A-Z][.!?]))(?<!\bDr\.)(?<!\bMr\.)(?<!\bMs\.)(?<!\bSt\.)(?<!\bMrs\.)(?<!\bProf\.)(?=[A-Z][a-z])"
# a comma typed with no space after it, between words ("Northgate,MRI 10:30", "at 10:00,VAN-2"):
# not between digits ("1,200")
GLUED_COMMA = r"(?<=[^\W_)]),(?=[^\W\d_])"


def fold(text: str) -> str:
    """Lower case without accents; typographic apostrophes, dashes and spaces made plain."""
    text = str(text)
    if text.isascii():  # nothing to decompose, strip or replace: only the case changes
        return text.lower()
    return _fold_unicode(text)


def _fold_unicode(text: str) -> str:
    """:func:`fold` the whole way (the reference its ASCII shortcut is tested against)."""
    text = unicodedata.normalize("NFKD", text)
    text = "".join(c for c in text if not unicodedata.combining(c))
    for odd, plain in (
        ("\u2019", "'"),
        ("\u2018", "'"),
        ("\u2013", "-"),
        ("\u2014", "-"),
        ("\u2011", "-"),
        ("\u2010", "-"),
        ("\u2212", "-"),
    ):
        text = text.replace(odd, plain)
    return re.sub(r"[\u00a0\u2000-\u200b\u202f]", " ", text).lower()


def written(text: str, folded: str, start: int, end: int) -> str:
    """The words as the text wrote them (when folding kept every character's place; else as
    folded)."""
    return (text if len(text) == len(folded) else folded)[start:end].strip()


@dataclass(frozen=True)
class Found:
    """One value found in a text: its comparable ``values`` (several when the writing is
    ambiguous, like a 12-hour time) and the words as written."""

    values: frozenset[object]
    written: str


# -- ids --------------------------------------------------------------------------------

_RUN = re.compile(r"[A-Za-z]+|\d+")
_ID_SHAPE = re.compile(r"^(?=.*[A-Za-z])(?=.*\d)[A-Za-z0-9]+(?:[-_ ./#][A-Za-z0-9]+)*$")


@lru_cache(maxsize=65536)
def _is_id(value: str) -> bool:
    if len(value) > 24 or time_of(value) is not None or date_of(value):
        return False
    return bool(_ID_SHAPE.match(value.strip()))


def is_id(value: object) -> bool:
    """A code: letters and digits (both), in runs joined by at most one separator each, at most
    24 characters (``TRK-9``, ``LH401``, ``TR-0912-04``). Not times, dates or plain numbers."""
    return isinstance(value, str) and _is_id(value)


@lru_cache(maxsize=65536)
def canon_id(value: str) -> str:
    """The canonical form: runs upper-cased, leading zeros dropped, joined by ``-``."""
    return "-".join(_canon_run(r) for r in _RUN.findall(fold(value).upper()))


def _canon_run(run: str) -> str:
    return (run.lstrip("0") or "0") if run.isdigit() else run.upper()


_TEXT_RUN = re.compile(r"[a-z]+|\d+")
_GAP = frozenset({"", " ", "-", "_", ".", "/", "#"})
_ALIAS_GAP = re.compile(r"\s*(?:(?:no\.?|number)\s*|#\s*|-\s*)?$")
# one more number in a list after an alias word's id: ", 41", " and 47", ", and #47", " & 47"
_LIST_MORE = re.compile(r"\s*(?:,\s*(?:and\s+|or\s+)?|\s(?:and|or|&)\s+|&\s*)(?:#\s*)?(\d+)(?![\w-])")


def _merged(s: str, found: list[Found], more: list[tuple[int, Found]]) -> list[Found]:
    """``found`` (in the order of the text) and ``more`` (at their positions) in the order of the text."""
    placed: list[tuple[int, Found]] = []
    cursor = 0
    for f in found:
        at = s.find(fold(f.written), cursor)
        cursor = at + 1 if at >= 0 else cursor
        placed.append((at if at >= 0 else cursor, f))
    return [f for _, f in sorted(placed + more, key=lambda p: p[0])]


# a number alone read as an id of the prefix before it in its sentence ("VAN-42, Lakeside is on 41")
_PREFIXED = re.compile(r"([A-Z]+)-\d+$")
_BARE_BEFORE = frozenset({"on", "onto"})  # (not "in": "there in 30" is minutes)
_BARE_AFTER = re.compile(r"\s*(?:[,;.!?)]|$|(?:and|from|with|instead|too|now|today|as well)\b)")
_SENTENCE_GAP = re.compile(r"[.!?;\n]")


# seats by row: "row 33, seats G and H", "row 33 seat G", "seats G and H in row 33"
_LETTERS = r"(?P<letters>[a-z](?:\s*(?:,|/|&|\band\b)\s*[a-z]){0,25})(?![\w-])"
_ROW_SEATS = re.compile(
    rf"\brow\s+(?P<row>\d{{1,3}})\s*[,:]?\s*(?:seats?\s+)?{_LETTERS}"
    rf"|\bseats?\s+{_LETTERS.replace('letters', 'letters2')}\s+(?:in|on)\s+row\s+(?P<row2>\d{{1,3}})\b"
)
_SEAT_LETTER = re.compile(r"(?<![a-z])[a-z](?![a-z])")


class IdMatcher:
    """Finds any of a set of ids (by canonical form) in text, with alias words for prefixes.

    The text is cut into runs of letters or digits; from each run the longest chain of runs
    joined by at most one separator that is one of the ids is taken. Cost grows with the
    text, not with the number of ids."""

    def __init__(self, ids: Iterable[str], aliases: dict[str, str] | None = None):
        self.ids = {c for c in (canon_id(i) for i in ids) if c}
        self.aliases = {fold(w).strip(): canon_id(p) for w, p in (aliases or {}).items() if canon_id(p)}
        self._longest = max((c.count("-") + 1 for c in self.ids), default=0)

    def find(self, text: str) -> list[Found]:
        if not self.ids:
            return []
        s = fold(text)
        runs = [(m.start(), m.end(), m.group()) for m in _TEXT_RUN.finditer(s)]
        out: list[Found] = []
        prefix: tuple[str, int] | None = None  # the prefix of the last id found, and where it ended
        i = 0
        while i < len(runs):
            hit = self._at(s, runs, i)
            if hit is None:
                shared = self._shared_digits(text, s, runs, i)  # the "H" of "33G/H"
                if shared is None and self.aliases:
                    shared = self._number_then_alias(text, s, runs, i)  # "the 9 truck"
                if shared is None and prefix is not None:  # the "41" of "… VAN-42, Lakeside is on 41"
                    if _SENTENCE_GAP.search(s, prefix[1], runs[i][0]):
                        prefix = None  # (a sentence ended since the id)
                    else:
                        prefix = (prefix[0], runs[i][0])  # (read on from here: the text is walked once)
                        shared = self._bare_number(text, s, runs, i, prefix[0])
                if shared is not None:
                    out.append(shared)
                i += 1
                continue
            j, canon = hit
            out.append(Found(frozenset({canon}), written(text, s, runs[i][0], runs[j][1])))
            head = _PREFIXED.match(canon)
            prefix = (head.group(1), runs[j][1]) if head else None
            i = j + 1
            word = runs[j - 1][2] if j > 0 else ""
            listed = self.aliases.get(word) or (self.aliases.get(word[:-1]) if word.endswith("s") else None)
            if listed is not None and canon == f"{listed}-{_canon_run(runs[j][2])}":
                i = self._listed(text, s, runs, i, listed, out)  # "vans 42, 41 and 47", "van 42 and 41"
        if "row" in s:
            known = {v for f in out for v in f.values}  # (what the runs gave already: "row 33 A and G")
            if rows := [(at, f) for at, f in self._rows(text, s) if not f.values <= known]:
                return _merged(s, out, rows)
        return out

    def _rows(self, text: str, s: str) -> list[tuple[int, Found]]:
        """Seats given by row and letter ("row 33, seats G and H", "seats G and H in row 33",
        "row 33 seat G"): the ids of that row's digits with each letter, when they are ids."""
        out: list[tuple[int, Found]] = []
        for m in _ROW_SEATS.finditer(s):
            row, group = (m.group("row"), "letters") if m.group("row") else (m.group("row2"), "letters2")
            start, said_seat = m.start(group), "seat" in m.group()
            for letter in _SEAT_LETTER.finditer(m.group(group)):
                canon = f"{_canon_run(row)}-{letter.group().upper()}"
                at = start + letter.start()
                shown = written(text, s, at, at + 1)
                if canon in self.ids and (said_seat or shown.isupper()):  # ("row 33 a bit cramped": no seat)
                    out.append((at, Found(frozenset({canon}), f"{row}{shown.upper()}")))  # as a seat is written
        return out

    def _listed(
        self, text: str, s: str, runs: list[tuple[int, int, str]], i: int, prefix: str, out: list[Found]
    ) -> int:
        """After an alias word's id ("vans 42", "van 42"), the numbers listed after it (", 41
        and 47") are ids of the same prefix, as far as the list goes and while they are known ids."""
        pos = runs[i - 1][1]
        while (m := _LIST_MORE.match(s, pos)) is not None:
            canon = f"{prefix}-{_canon_run(m.group(1))}"
            if canon not in self.ids:
                break
            out.append(Found(frozenset({canon}), written(text, s, m.start(1), m.end(1))))
            pos = m.end()
        while i < len(runs) and runs[i][0] < pos:
            i += 1
        return i

    def _number_then_alias(self, text: str, s: str, runs: list[tuple[int, int, str]], i: int) -> Found | None:
        """A number after *the*, *number* or *no.* and before an alias word, in the singular
        ("the 9 truck", "the number 9 truck"), is the id of the alias's prefix and that number,
        when it is one (not a count: "3 trucks", "the 2 vans")."""
        start, end, run = runs[i]
        if not run.isdigit() or i == 0 or i + 1 >= len(runs) or runs[i - 1][2] not in ("the", "number", "no"):
            return None
        prefix = self.aliases.get(runs[i + 1][2])
        if prefix is None or s[end : runs[i + 1][0]] != " ":
            return None
        canon = f"{prefix}-{_canon_run(run)}"
        return Found(frozenset({canon}), written(text, s, start, runs[i + 1][1])) if canon in self.ids else None

    def _bare_number(self, text: str, s: str, runs: list[tuple[int, int, str]], i: int, prefix: str) -> Found | None:
        """A number alone after *on* or *onto* ("Lakeside is on 41"), in the sentence of an
        id of one prefix and one number ("VAN-42"), is the id of that prefix, when it is one."""
        start, end, run = runs[i]
        if not run.isdigit() or i == 0 or runs[i - 1][2] not in _BARE_BEFORE or s[runs[i - 1][1] : start] != " ":
            return None
        if not _BARE_AFTER.match(s, end):
            return None
        canon = f"{prefix}-{_canon_run(run)}"
        return Found(frozenset({canon}), written(text, s, start, end)) if canon in self.ids else None

    def _shared_digits(self, text: str, s: str, runs: list[tuple[int, int, str]], i: int) -> Found | None:
        """One letter after a slash that follows digits and a letter ("33G/H", "33G/H/J", "33 G/H"),
        or after "and" or "&" ("33G and H"), is the id of those digits with that letter, when it
        is one: seats and rooms shared out."""
        k = i
        if (  # "33G and H", "33G & H": the last of the letters after "and" or "&"
            i >= 3
            and len(runs[i][2]) == 1
            and runs[i - 1][2] == "and"
            and s[runs[i - 2][1] : runs[i - 1][0]] == " "
            and len(runs[i - 2][2]) == 1
        ):
            k = i - 2
        elif (
            i >= 2
            and len(runs[i][2]) == 1
            and s[runs[i - 1][1] : runs[i][0]].strip() == "&"
            and len(runs[i - 1][2]) == 1
        ):
            k = i - 1
        while (
            k >= 2
            and i - k < 26  # (a row has so many seats: a hostile "/H/H/H…" is not walked back whole each time)
            and len(runs[k][2]) == 1
            and s[runs[k - 1][1] : runs[k][0]] == "/"
            and len(runs[k - 1][2]) == 1
        ):
            k -= 1  # back over "/H", "/G" to the first letter, which follows the digits
        if (
            k == i
            or not runs[i][2].isalpha()
            or not runs[k - 1][2].isdigit()
            or s[runs[k - 1][1] : runs[k][0]] not in ("", " ")  # ("33G/H", "33 G/H")
        ):
            return None
        digits = _canon_run(runs[k - 1][2])
        heads = [(digits, k - 1)]
        if k >= 2 and s[runs[k - 2][1] : runs[k - 1][0]] in _GAP:  # "R-12A/B": R-12B
            heads.insert(0, (f"{_canon_run(runs[k - 2][2])}-{digits}", k - 2))
        for head, start in heads:
            canon = f"{head}-{runs[i][2].upper()}"
            if canon in self.ids:  # shown as written, the letter after the digits ("33H")
                return Found(
                    frozenset({canon}),
                    written(text, s, runs[start][0], runs[k - 1][1]) + written(text, s, *runs[i][:2]),
                )
        return None

    def _at(self, s: str, runs: list[tuple[int, int, str]], i: int) -> tuple[int, str] | None:
        """The longest id starting at run ``i``: (its last run, canonical form)."""
        chains = [(i, _canon_run(runs[i][2]), False)]  # (last run used, canonical so far, next gap free)
        word = runs[i][2]
        prefix = self.aliases.get(word) or (self.aliases.get(word[:-1]) if word.endswith("s") else None)
        if prefix is not None:  # "truck 9", "truck no. 9", "truck number 9", "truck #9"
            k = i + 1
            if k < len(runs) and runs[k][2] in ("no", "number"):
                k += 1
            if k < len(runs) and runs[k][2].isdigit() and _ALIAS_GAP.match(s[runs[i][1] : runs[k][0]]):
                chains.append((k - 1, prefix, True))
        best: tuple[int, str] | None = None
        for last, canon, free in chains:
            if canon in self.ids and last == i:
                best = (i, canon)
            for k in range(last + 1, min(len(runs), last + self._longest)):
                if not (free and k == last + 1) and s[runs[k - 1][1] : runs[k][0]] not in _GAP:
                    break
                canon = f"{canon}-{_canon_run(runs[k][2])}"
                if canon in self.ids and (best is None or k > best[0]):
                    best = (k, canon)
        return best


# -- times: a value's minute of the day (reading them in text: ``core.written_times``) -------


def time_of(value: object) -> int | None:
    """The minute of the day of a value: ``HH:MM`` (``HH:MM:SS``) or an ISO timestamp."""
    if isinstance(value, datetime):
        return value.hour * 60 + value.minute
    if not isinstance(value, str):
        return None
    text = value.strip()
    m = re.fullmatch(r"([01]?\d|2[0-3]):([0-5]\d)(?::[0-5]\d)?", text)
    if m:
        return int(m[1]) * 60 + int(m[2])
    m = re.fullmatch(
        r"\d{4}-\d{2}-\d{2}[T ]([01]\d|2[0-3]):([0-5]\d)(?::[0-5]\d(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?", text
    )
    return int(m[1]) * 60 + int(m[2]) if m else None


def show_time(minutes: int) -> str:
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


class Hits:
    """The values found in a text so far, by where they stand; none overlaps another, so a new
    one is checked against its two neighbours only (a check against every one made a long
    message quadratic: 400 KB took 6.5 s)."""

    def __init__(self) -> None:
        self.starts: list[int] = []
        self.ends: list[int] = []
        self.found: list[Found] = []  # in the text's order

    def free(self, a: int, b: int) -> bool:
        i = bisect_right(self.starts, a)
        return not ((i and self.ends[i - 1] > a) or (i < len(self.starts) and self.starts[i] < b))

    def add(self, a: int, b: int, found: Found) -> None:
        i = bisect_right(self.starts, a)
        self.starts.insert(i, a)
        self.ends.insert(i, b)
        self.found.insert(i, found)


# -- dates ------------------------------------------------------------------------------

_MONTHS = {
    m: i + 1
    for i, names in enumerate(
        [("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"), ("may",), ("june", "jun"),
         ("july", "jul"), ("august", "aug"), ("september", "sep", "sept"), ("october", "oct"),
         ("november", "nov"), ("december", "dec")]
    )
    for m in names
}  # fmt: skip
_MONTH = r"(" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_DAY = r"([0-3]?\d)(?:st|nd|rd|th)?"
_YEAR = r"(?:,?\s+(\d{4}))?"
_D_ISO = re.compile(r"(?<!\d)(\d{4})-(\d{2})-(\d{2})(?!\d)")
_D_DAY_MONTH = re.compile(r"\b" + _DAY + r"\s+(?:of\s+)?" + _MONTH + r"(?![a-z])" + _YEAR)
_D_MONTH_DAY = re.compile(r"\b" + _MONTH + r"\s+" + _DAY + r"(?![\d:])(?!\s*(?:am|pm|a\.m|p\.m))" + _YEAR)
_D_NUMERIC = re.compile(r"(?<![\d/.:])(\d{1,2})([/.])(\d{1,2})(?:\2(\d{4}|\d{2}))?(?![\d/:])")


def _date(year: int | None, month: int, day: int) -> object | None:
    try:
        date(year or 2000, month, day)  # 2000 is a leap year: 29 February stays valid
    except ValueError:
        return None
    return (year, month, day)


def date_of(value: object) -> tuple[int, int, int] | None:
    """(year, month, day) of an ISO date or timestamp."""
    if isinstance(value, datetime | date):
        return (value.year, value.month, value.day)
    if not isinstance(value, str):
        return None
    m = re.fullmatch(r"(\d{4})-(\d{2})-(\d{2})(?:[T ].*)?", value.strip())
    if not m:
        return None
    found = _date(int(m[1]), int(m[2]), int(m[3]))
    return found if isinstance(found, tuple) else None


def show_date(value: tuple[int, int, int]) -> str:
    return f"{value[0]:04d}-{value[1]:02d}-{value[2]:02d}"


def find_dates(text: str) -> list[Found]:
    """Every date stated in ``text``, as (year or None, month, day) readings."""
    s = fold(text)
    hits = Hits()

    def add(m: re.Match[str], readings: Iterable[object | None]) -> None:
        values = frozenset(r for r in readings if r is not None)
        if values and hits.free(m.start(), m.end()):
            hits.add(m.start(), m.end(), Found(values, written(text, s, m.start(), m.end()).rstrip(".")))

    for m in _D_ISO.finditer(s):
        add(m, [_date(int(m[1]), int(m[2]), int(m[3]))])
    for m in _D_DAY_MONTH.finditer(s):
        add(m, [_date(int(m[3]) if m[3] else None, _MONTHS[m[2]], int(m[1]))])
    for m in _D_MONTH_DAY.finditer(s):
        add(m, [_date(int(m[3]) if m[3] else None, _MONTHS[m[1]], int(m[2]))])
    for m in _D_NUMERIC.finditer(s):
        a, b, year = int(m[1]), int(m[3]), m[4]
        if m[2] == "." and not year:
            continue  # 15.08 is a time or a decimal, not a date
        y = None if not year else int(year) + (2000 if len(year) == 2 else 0)
        add(m, [_date(y, b, a), _date(y, a, b)])
    return hits.found


def same_date(a: object, b: object) -> bool:
    """Month and day agree, and the years too when both give one."""
    assert isinstance(a, tuple) and isinstance(b, tuple)
    return a[1:] == b[1:] and (a[0] is None or b[0] is None or a[0] == b[0])


# -- names and phrases ------------------------------------------------------------------

TITLES = frozenset({"dr", "doctor", "mr", "mrs", "ms", "miss", "mx", "prof", "professor", "nurse", "sister", "sr"})
_WORDS = re.compile(r"[^\W_]+(?:'[^\W_]+)?")


def words(text: str) -> list[str]:
    return _WORDS.findall(fold(text))


def words_at(folded: str) -> list[tuple[int, str]]:
    """``words`` of a text already folded, each with where it begins."""
    return [(m.start(), m.group()) for m in _WORDS.finditer(folded)]


# one word for another as people write a place's name: "West Rm 1", "the Convention Center"
SPELLED = {
    "rm": "room", "rd": "road", "ctr": "centre", "ctre": "centre", "cntr": "centre", "center": "centre",
    "theater": "theatre", "harbor": "harbour", "bldg": "building", "dept": "department", "hosp": "hospital",
    "sq": "square", "stn": "station", "ln": "lane",
}  # fmt: skip


def text_words(text: str) -> list[str]:
    """``words`` with each of ``SPELLED``'s short or other spellings as its one form, word for
    word (the positions stay): how a ``text`` fact's value and a report's words are compared."""
    return [SPELLED.get(w, w) for w in words(text)]


def surname(name: str) -> str | None:
    """The word a person is found by: the last word of the name, words in brackets and titles
    dropped, an unclosed bracket to the end ("Dr Amara Okafor" -> "okafor"; "Joanne Pike (renal
    nurse)" -> "pike")."""
    ws = _name_words(name)
    return ws[-1] if ws else None


def _name_words(name: str) -> list[str]:
    return [w for w in words(re.sub(r"\([^)]*(?:\)|$)", " ", name)) if w.removesuffix(".") not in TITLES]


def first_name(name: str) -> str | None:
    """The first word of a name of two words or more, titles and words in brackets dropped
    ("Dr Amara Okafor" -> "amara"): how people name a colleague ("Marcus is covering")."""
    ws = _name_words(name)
    return ws[0] if len(ws) >= 2 else None


# first names that are also words a sentence or a date opens with ("Will you…", "June 5")
NOT_FIRST_NAMES = frozenset({"will", "may", "can", "mark", *(m for m in _MONTHS if len(m) > 3), *WEEKDAYS})


def phrase_in(phrase: str | list[str], text_words: list[str]) -> bool:
    """The phrase's words in order, as whole words, in ``text_words``."""
    want = words(phrase) if isinstance(phrase, str) else phrase
    n = len(want)
    if not n:
        return False
    return any(text_words[i : i + n] == want for i in range(len(text_words) - n + 1))


def infer_kind(value: object) -> str:
    """The kind a value is read as when the item does not say: a time of day or timestamp is a
    time, an ISO date a date, a code of letters and digits an id, anything else text."""
    if time_of(value) is not None:
        return "time"
    if date_of(value) is not None:
        return "date"
    if is_id(value):
        return "id"
    return "text"
