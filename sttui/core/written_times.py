"""Times in free text, found however people write them: what a ``tell`` fact of kind ``time``
reads in a report (``core.report_facts``). Pure functions over strings, so the rules can be
read, tested and applied by hand. (Ids, dates, names and phrases: ``core.facts``.)

The times read: ``09:30``, ``9.30``, ``9:30 am``, ``9.30am``, ``09h30``, ``9am``, ``0930h``,
``0930 hrs``, ``at 0930``, ``from 1330``, ``2000 UTC``, ``0735``, ``dep 0855``, ``back 1000``,
``1430-1630``, ``moved to 1130``, ``the 1700 session``, ``1215 today``, ``AMS 1145 → JFK``, ``10:00hrs``, ``noon``, ``midday``, ``midnight``, ``nine o'clock``,
``half past nine``, ``half nine`` (British: half past), ``quarter to ten``, ``twenty past 9``,
``nineteen minutes past eleven``, ``25 past 11`` (figures with *past* where the phrase ends),
``nine thirty``, ``eleven-thirty``, ``five pm``, ``five to 2pm``, ``seven in the evening``; ISO timestamps give their time. A 12-hour time without am/pm (``9:30``, ``half past nine``) stands for both
09:30 and 21:30; a two-digit 24-hour hour (``09:30``, ``21:30``) for itself. An hour alone
after *at* where its phrase ends (``Orla at 2,``, ``back at ten.``) is a time, both readings.
Not times: a number before a noun (``at 9 Elm Street``), decimals with a unit (``2.5 hours``,
``9.30 EUR``), a code (``KL1112``).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator

from sttui.core.facts import Found, Hits, fold, written

_NUMBERS = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
}
_MINUTE_WORDS = {"five": 5, "ten": 10, "quarter": 15, "a quarter": 15, "twenty": 20, "twenty-five": 25,
                 "twenty five": 25, "half": 30}  # fmt: skip
_AFTER_WORDS = {"fifteen": 15, "thirty": 30, "forty-five": 45, "forty five": 45, "oh five": 5}
_HOUR_WORD = r"(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|1[0-2]|0?[1-9])"
_MER = r"(?:\s*(a\.?m\.?|p\.?m\.?)(?![a-z])|\s+(in the morning|in the afternoon|in the evening|at night|tonight))?"
_UNIT = r"(?!\s*(?:%|kg|km|mi\b|miles|t\b|tonnes|eur|usd|gbp|units|doses|vials|hours|hrs|h\b|min|minutes|°))"
_CLOCK = re.compile(
    r"(?<![\w:.,£$€])(?<![a-z]-)([01]?\d|2[0-3])\s?([:.h])\s?([0-5]\d)(?::[0-5]\d)?"
    + _UNIT
    + _MER
    + r"(?![\w:]|\.\d|(?<=[.h]\d\d),\d|,\d{1,2}[:.h]\d)"
)  # not before ".5" (a date, "12.05.2024"), nor ",5" after "12.30" or "12h30" (a decimal, "12.30,50"),
# nor before another time ("12:00,13:00": which?); "12:00,30 minutes after" is 12:00
# where a phrase ends: a stop, a comma, a bracket, the end, or a word that joins a clause
_PHRASE_END = r"(?=\s*(?:$|[,;:!?)\]]|\.(?!\d)|\s(?:and|but|so|then|with|for|on|in|at|sharp|today|tomorrow|tonight|this|instead|now)\b))"
_HOUR_ONLY = re.compile(
    r"(?<![\w:.,£$€-])(1[0-2]|0?[1-9]|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
    r"(?:\s*(a\.?m\.?|p\.?m\.?)(?![a-z])|\s+(in the morning|in the afternoon|in the evening)" + _PHRASE_END + ")"
)  # "5pm", "five pm", "seven in the evening" (not "2 in the morning slot")
_FOUR = re.compile(
    r"(?<![\w:.,-])([01]\d|2[0-3])([0-5]\d)\s*(?:h|hrs|hours|utc|gmt|z|local)(?![a-z])"
    r"|\b(?:at|from|by|before|til)\s+([01]\d|2[0-3])([0-5]\d)(?![\w:]|[.,]\d)" + _UNIT
)  # "0930h", "2000 UTC", "at 0930", "from 1330"
# four digits as ops and airline staff write a time: with a leading zero anywhere ("0735"), or
# after a word of when ("dep 0855", "back 1000"); "HH:MM hrs" ("10:00hrs") is a time too
_FOUR_ZERO = re.compile(r"(?<![\w:.,/£$€#-])(0\d)([0-5]\d)(?![\w:/%]|[.,]\d)")
_FOUR_AFTER = re.compile(
    r"\b(?:dep|arr|departs?|departing|departure|leaves?|leaving|lands?|landing|arrives?|arriving|back|eta|etd"
    r"|until|till|pickup|pick-up|due|ready)\.?:?\s+([01]\d|2[0-3])([0-5]\d)(?![\w:]|[.,]\d)"
)
# four digits where only a time stands: a range ("1430-1630", both ends); after a word that
# moves or sets a time where its phrase ends ("moved to 1130 with", "for 1200,"; not "up to
# 1500 people"); after "the", "his" … ("the 1700 twilight session"; not "the 1200 doses",
# "the 1500 residents"); before a word of when ("1215 today") or a leg's arrow or "to" and a
# place ("AMS 1145 → JFK", "Munich 1110 to O'Hare"; not after an airline's two letters, "BA 1445
# to Boston" is a flight)
_HHMM = r"([01]\d|2[0-3])([0-5]\d)"
_LONE = r"(?<![\w:.,/£$€#-])"
_FOUR_RANGE = re.compile(_LONE + _HHMM + r"\s?-\s?" + _HHMM + r"(?![\w:/%-]|[.,]\d)")
_COUNTED = (
    r"(?!\s*(?:people|persons|patients|passengers|residents|staff|guests|seats|beds|items|boxes|packs|pallets"
    r"|litres|liters|metres|meters|feet|ft|m|tons|pounds|dollars|euros|calls|messages|pages|words|rows|records"
    r"|steps|times|of)\b)"
)
_FOUR_SET = re.compile(
    r"(?<!\bup )\b(?:to|for|now|moved|rebooked|booked|confirmed|today|tomorrow|tonight)\s+"
    + _HHMM
    + r"(?![\w:/%]|[.,]\d)"
    + _UNIT
    + _PHRASE_END
)
# … after a word that sets a time and can set nothing else, before any word but a count
# ("booked 1700 twilight w/ nurse Byrne"; not "rebooked 1200 passengers")
_FOUR_DONE = re.compile(
    r"\b(?:now|moved|rebooked|booked|confirmed|today|tomorrow|tonight)\s+"
    + _HHMM
    + r"(?![\w:/%]|[.,]\d)"
    + _UNIT
    + _COUNTED
)
_FOUR_THE = re.compile(
    r"\b(?:the|his|her|their|its|your|my|our)\s+" + _HHMM + r"(?![\w:/%-]|[.,]\d)" + _UNIT + _COUNTED
)
_FOUR_WHEN = re.compile(
    _LONE + _HHMM + r"(?=\s+(?:today|tomorrow|tonight|sharp|this morning|this afternoon|this evening)\b)"
    r"|" + _LONE + _HHMM + r"(?=\s*(?:→|->)\s*\w|\s+to\s+[a-z])"
)
_FOUR_DIGITS = re.compile(r"(?<!\d)\d{4}(?!\d)")
_AIRLINE_BEFORE = re.compile(r"(?<![A-Za-z])[A-Z]{2}\s?$")  # "BA 1445": a flight's number
# a number that numbers a thing ("room 1204 today", "gate 1130 to", "batch 2307"), no time
_NUMBERED_BEFORE = re.compile(
    r"\b(?:room|gate|bed|ward|bay|seat|flight|platform|stand|suite|terminal|door|unit|batch|order|lot|ref|code"
    r"|pin|no|number|ext|phone|tel|year|since|in|of|circa)s?\.?\s*#?\s*$"
)
_CLOCK_HRS = re.compile(r"(?<![\w:.,£$€])([01]\d|2[0-3]):([0-5]\d)\s?(?:hrs|hours|h)(?![a-z])")
_CODE_BEFORE = re.compile(r"[A-Z]{2,3}\s?$")  # "BA 0735": a flight's number, not a time
_ISO = re.compile(r"\d{4}-\d{2}-\d{2}[t ]([01]\d|2[0-3]):([0-5]\d)")
# where an hour word ends: at no further letter or digit, or at an am/pm written onto it ("five to 2pm")
_HOUR_END = r"(?:(?=[ap]\.?m\.?(?![a-z]))|(?![\w:]))"
_PAST_TO = re.compile(
    r"\b(a quarter|quarter|half|twenty-five|twenty five|twenty|ten|five)\s+(past|after|to|before)\s+" + _HOUR_WORD
    + _HOUR_END + _MER
)  # fmt: skip
# any number of minutes with the word "minutes" ("nineteen minutes past eleven", "25 mins to 3"),
# and in figures with "past" alone ("25 past 11"; not "2 to 3 vans")
_UNITS = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
_TEENS = ("ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen")
_MINUTE_NUMBERS = {
    **{w: i for i, w in enumerate(_UNITS + _TEENS, 1)},
    "twenty": 20,
    **{f"twenty{sep}{w}": 21 + i for i, w in enumerate(_UNITS) for sep in ("-", " ")},
}
_MINUTES_PAST_TO = re.compile(
    r"\b(" + "|".join(sorted(_MINUTE_NUMBERS, key=len, reverse=True)) + r"|[1-5]?\d)\s+(?:minutes?|mins?)\s+"
    r"(past|after|to|before)\s+" + _HOUR_WORD + _HOUR_END + _MER
    + r"|(?<![\w:.,£$€-])([1-5]?\d)\s+(past)\s+" + _HOUR_WORD
    + r"(?:(?=\s*[ap]\.?m\.?(?![a-z]))" + _MER + r"|" + _PHRASE_END + r")"
)  # fmt: skip
# British "half two": half past two (not "half an hour", "half 2 hours", "half of")
_HALF = re.compile(
    r"\bhalf\s+" + _HOUR_WORD + _HOUR_END + r"(?!\s*(?:hours?|hrs?|h\b|minutes?|mins?|of\b|%|kg|km|miles))" + _MER
)
_OCLOCK = re.compile(r"\b" + _HOUR_WORD + r"\s*o'?\s?clock\b" + _MER)
_SPOKEN = re.compile(
    r"\b(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)[\s-]+(fifteen|thirty|forty-five|forty five|oh five)\b"
    + _MER
)
_NAMED = re.compile(r"\b(noon|midday|midnight)\b")
# "Orla at 2, Imran at half two", "back at ten.": an hour alone after "at", where its phrase
# ends (a stop, a comma, a bracket, the end, or a word that joins a clause), not "at 2 Elm
# Street", "at 3 sites", "at 10%"
_AT_HOUR = re.compile(
    r"\bat\s+(1[0-2]|0?[1-9]|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)" + _PHRASE_END
)


def _hour(word: str) -> int:
    return _NUMBERS.get(word) or int(word)


def _twelve(hour: int, minute: int, mer: str | None, part: str | None) -> frozenset[object]:
    """The minutes of the day a 12-hour reading stands for."""
    pm = (mer or "").startswith("p") or part in ("in the afternoon", "in the evening", "at night", "tonight")
    am = (mer or "").startswith("a") or part == "in the morning"
    base = hour % 12
    if pm:
        return frozenset({(base + 12) * 60 + minute})
    if am:
        return frozenset({base * 60 + minute})
    return frozenset({base * 60 + minute, (base + 12) * 60 + minute})


def find_times(text: str) -> list[Found]:
    """Every time stated in ``text`` (rules in the module's docstring), in order. The rules are
    tried in turn, words before figures and longer forms before shorter: a span one rule took
    is no other's."""
    s = fold(text)
    hits = Hits()
    for start, end, values in itertools.chain(_in_words(s), _in_figures(s), _in_four_digits(text, s), _by_hour(s)):
        if hits.free(start, end):
            hits.add(start, end, Found(values, written(text, s, start, end)))
    return hits.found


_Span = tuple[int, int, frozenset[object]]  # (start, end, the minutes of the day it may stand for)


def _span(m: re.Match[str], values: frozenset[object]) -> _Span:
    return m.start(), m.end(), values


def _in_words(s: str) -> Iterator[_Span]:
    """ISO timestamps, then times said in words: "quarter to ten", "19 minutes past 11",
    "half nine", "nine thirty", "ten o'clock"."""
    for m in _ISO.finditer(s):
        yield _span(m, frozenset({int(m[1]) * 60 + int(m[2])}))
    for m in _PAST_TO.finditer(s):
        minutes = _MINUTE_WORDS[m[1]]
        hour = _hour(m[3])
        if m[2] in ("to", "before"):
            hour, minutes = (hour - 1) % 12 or 12, 60 - minutes
        yield _span(m, _twelve(hour, minutes, m[4], m[5]))
    for m in _MINUTES_PAST_TO.finditer(s) if "min" in s or "past" in s else ():  # (most texts have neither)
        if m[1]:
            word, way, hour_word, mer, part = m[1], m[2], m[3], m[4], m[5]
        else:
            word, way, hour_word, mer, part = m[6], m[7], m[8], m[9], m[10]
        minutes = _MINUTE_NUMBERS.get(word) or int(word)
        if not 0 < minutes < 60:
            continue
        hour = _hour(hour_word)
        if way in ("to", "before"):
            hour, minutes = (hour - 1) % 12 or 12, 60 - minutes
        yield _span(m, _twelve(hour, minutes, mer, part))
    for m in _HALF.finditer(s):
        yield _span(m, _twelve(_hour(m[1]), 30, m[2], m[3]))
    for m in _SPOKEN.finditer(s):
        yield _span(m, _twelve(_hour(m[1]), _AFTER_WORDS[m[2]], m[3], m[4]))
    for m in _OCLOCK.finditer(s):
        yield _span(m, _twelve(_hour(m[1]), 0, m[2], m[3]))


def _in_figures(s: str) -> Iterator[_Span]:
    """Hours and minutes in figures: "09:30", "9.30pm", "14h05", "10:00hrs"."""
    for m in _CLOCK.finditer(s):
        hour, minute, mer, part = int(m[1]), int(m[3]), m[4], m[5]
        if mer or part:
            if not 1 <= hour <= 12:
                continue
            yield _span(m, _twelve(hour, minute, mer, part))
        elif len(m[1]) == 2 or hour > 12 or hour == 0:
            yield _span(m, frozenset({hour * 60 + minute}))
        else:
            yield _span(m, _twelve(hour, minute, None, None))
    for m in _CLOCK_HRS.finditer(s):
        yield _span(m, frozenset({int(m[1]) * 60 + int(m[2])}))


def _in_four_digits(text: str, s: str) -> Iterator[_Span]:
    """Four digits where they are a time: "0930h", "at 0930", a range, a leading zero, after a
    word of when or one that sets a time, before "the"… (skipped where no four digits stand:
    most texts)."""
    if not _FOUR_DIGITS.search(s):
        return
    for m in _FOUR.finditer(s):
        h, mi = (m[1], m[2]) if m[1] else (m[3], m[4])
        yield _span(m, frozenset({int(h) * 60 + int(mi)}))
    for m in _FOUR_AFTER.finditer(s):  # (its word of when is no code: "ETD 0747")
        yield _span(m, frozenset({int(m[1]) * 60 + int(m[2])}))
    for m in _FOUR_RANGE.finditer(s):  # (each end its own time, as "14:30-16:30" reads)
        first, last = int(m[1] + m[2]), int(m[3] + m[4])
        if 1900 <= first < last < first + 15 or _NUMBERED_BEFORE.search(s, max(0, m.start() - 12), m.start()):
            continue  # years ("2019-2021"), numbers of things ("rooms 1204-1206")
        for g in (1, 3):
            yield m.start(g), m.end(g + 1), frozenset({int(m[g]) * 60 + int(m[g + 1])})
    for m in _FOUR_ZERO.finditer(s):
        if not _CODE_BEFORE.search(text[max(0, m.start(1) - 4) : m.start(1)]):
            yield _span(m, frozenset({int(m[1]) * 60 + int(m[2])}))
    for pattern in (_FOUR_SET, _FOUR_DONE, _FOUR_THE):
        for m in pattern.finditer(s):
            yield _span(m, frozenset({int(m[1]) * 60 + int(m[2])}))
    for m in _FOUR_WHEN.finditer(s):
        g = 1 if m[1] else 3
        numbered = _NUMBERED_BEFORE.search(s, max(0, m.start(g) - 12), m.start(g))
        if not numbered and not _AIRLINE_BEFORE.search(text[max(0, m.start(g) - 4) : m.start(g)]):
            yield _span(m, frozenset({int(m[g]) * 60 + int(m[g + 1])}))


def _by_hour(s: str) -> Iterator[_Span]:
    """An hour alone: "5pm", "seven in the evening", "noon", "midnight", "at 2" where its
    phrase ends."""
    for m in _HOUR_ONLY.finditer(s):
        yield _span(m, _twelve(_hour(m[1]), 0, m[2], m[3]))
    for m in _NAMED.finditer(s):
        yield _span(m, frozenset({0 if m[1] == "midnight" else 12 * 60}))
    for m in _AT_HOUR.finditer(s):
        yield _span(m, _twelve(_hour(m[1]), 0, None, None))
