"""What a report does not state: the values a question asks about, a negation denies, a hedge
or an either-or leaves open, or a condition supposes. ``tell`` facts (``core.reports``) are
read from a message with these values blanked out, so "Should Westfield go on VAN-42?",
"Westfield is not on VAN-42", "Westfield could be on VAN-42" and "VAN-42 or VAN-41" state no
van for Westfield, while "Westfield is on VAN-42, anything else?" does.

The rules, simple enough to apply by hand (task format §5):

- **A question.** A sentence ending in ``?`` asks all of it when it opens with an auxiliary
  or a wh-word ("Should Westfield go on VAN-42?", "Is it VAN-42?"; not a negative one
  without its subject: "Can't make 14:00 - shall I try VAN-42?") or ends in a tag ("…,
  isn't it?"; ``statements.asks_all``); otherwise only its last clause asks ("Westfield is
  on VAN-42, anything else?": the values before the last ``, ; :`` or dash stand). The rule
  judge reads a question the same way. One typed without its ``?`` asks all of it as the rule judge
  reads one (``statements.is_question``: "shall i go with TRK-9"), or when it opens with
  *how about* or *what about*.
- **A negation.** A negator (*not, no, never, none, cannot, without*, or a word ending in
  *n't*) denies the value right after it, with only linking words between (``LINKS``: *on,
  at, in, into, onto, to, for, by, with, be, been, being, go, going, gone, put, longer, any,
  more, the, a, an, assigned, booked, rebooked, scheduled, confirmed, loaded, placed*); a
  title denies the name after it too ("not Dr Okafor"): "not on VAN-42", "isn't
  VAN-42", "no longer on VAN-41". "Won't be late on VAN-42" still states VAN-42.
  *Instead of*, *rather than* and *in place of* deny the value after them the same way
  ("on TRK-7 instead of TRK-9" states TRK-7 only), and so does all a report names as the
  one replaced or as what a value used to be (``core.replaced``: "moved it from TRK-9 to
  TRK-7", "TRK-9 was stood down", "due 09:35 originally", "Daniel's old seat was 27E",
  "was in 27E before the swap").
- **A hedge.** *maybe, perhaps, might, probably, possibly, could, hopefully, likely,
  presumably, seems, apparently, ought, reckon…* (and *looks like*, *appears to*, *should have
  gone*, *is supposed to be*) leave open what follows
  them to the end of their clause: "could be on VAN-42",
  "will probably be ready at 15:00" (the scripted user asks for a clear answer to these too).
  What leaves the whole sentence open is ``core.hedges``'s (``sentence_hedge``): a hedging
  phrase anywhere (*fingers crossed, no guarantees, fairly sure, to the best of my knowledge,
  don't quote me, if I'm reading this right, or so the system says…*), another's word or a
  check not done opening or closing it ("…, I'm told", "…, unverified"), a hedge word or *I
  hope* or *not sure* at the end, *hope* first, or *not sure* or *unsure* first ("Not sure,
  but …"; not "Not sure why …"): "Restore at 11:19, hopefully.", "Hope CR-14 makes it by
  11:19".
- **Either-or.** Values joined by *or* (spaces or a comma between, not a bracket) are
  alternatives, neither stated: "VAN-42 or VAN-41", "van 42 or 41", "9:30 or 10:00"; "08:25
  (or 08:30 at the latest)" states 08:25.
- **A condition.** From *if, unless, suppose, assuming, provided* (or *whether*, which asks)
  to the end of its clause: "If VAN-41 is free, …" states nothing of VAN-41.
- **An action not done.** A verb of doing (``DOING``: *put, move, book, assign, schedule…*)
  after a negator or a failure (*unable, failed, tried, attempted*), with only words like
  *have, been, able, to, yet* between, denies everything from it to the end of its sentence,
  or to the first ``;``, ``:``, dash or bracket, or a clause that turns away (*but, so,
  however, instead…*, "and it…") or has a verb of its own ("…, it is still on VAN-47"), or a
  reason (*because, since, due, owing, given*: the reason is said): "I
  couldn't put Westfield on VAN-42, Lakeside on VAN-41 or Abbeymead on VAN-47". A state
  denied ("isn't assigned to VAN-41") is a negation as above; "didn't have to move it" is
  no failure. So is *I will* or *we'll* with a verb of doing: "I'll move Westfield to VAN-42"
  (and "ill move", as typed in a hurry; "I'll be sending"), intent said outright ("I'm going
  to put", "I plan to send", "I was hoping to use"), a plan named as one ("The plan is
  VAN-42", "Next step: dispatch VAN-42") and what would have been done ("I would have used
  VAN-42, but it was full").
- **A belief.** *I* or *we* with *think, believe, guess, assume, reckon, hope, suspect,
  gather, imagine, expect* (or one of them denied: "I don't think"; not "I hope you…"), *I'd*
  with *say, imagine, guess…*, or "I'm not sure", "I'm not certain", "I'm hopeful", "I'm
  guessing" or "I'm assuming", is read like an action not done, from the writer on: "I think
  Westfield is on VAN-42, Lakeside on VAN-41." At the end of a sentence ("…, I think.") or put
  after what it doubts ("VAN-42, I think, took it") it takes the whole sentence.
- **A pending value.** A bracket after a value saying it is not done yet (*pending,
  tentative, unconfirmed, provisional, on hold, held, to be confirmed, not yet confirmed*):
  "VAN-42 (pending)".
- **A plan put to the person.** A question asking to go ahead ("Shall I go ahead?", "OK to
  proceed with this?"), or ending in a verb of booking and a word pointing back ("Shall I
  book them?", "Want me to move it now?"), makes everything the message said before it a
  plan, and its own sentence with it ("I'll ticket her on LH1232, want me to do it?"); one
  that asks about something more ("Shall I proceed with notifying the clinics?",
  "Shall I send it to the driver?") does not.
- **A proposal.** The writer offers and the person decides. An offer is *I* or *we*, then
  *would*, *'d*, *will*, *'ll*, *can* or *could* (or nothing), then a verb of doing or proposing
  (``OFFER_VERBS``, ``PROPOSING``): "I would put", "I'd suggest", "we'll move", "I recommend".
  From an offer made with *would*, *'d* or a verb of proposing to the end of its sentence, no
  value is stated: "I would put Westfield on VAN-42, Lakeside on VAN-41." A sentence waiting
  on the person's word ("once you confirm", "if you agree", "pending your approval", "subject
  to your approval", or *if you like* with an offer) states nothing from the writer's first
  *I will*, *I'd*, *I can*… on, or at all when there is none: "I will put Westfield on VAN-42
  once you confirm." "Let me know if you agree" asks; it waits on nothing.
- **Struck through.** What markdown strikes through (``~~Seren Glas from Mostyn~~``) is taken
  back as it is shown.
- **A slip put right.** A figure followed by *sorry, oops* or *I mean* and another figure:
  "on FB-7, sorry, FB-2" states FB-2 (``_SLIPPED``; ``without_slips`` gives the claims the same
  reading; ``core.corrections`` lets the figure after it decide).

Blanked means letters and digits become spaces: the text keeps its length and punctuation, so
the clauses ``core.attach`` cuts are the same.

The module reads in sections, each under a ``# --`` line: the words a sentence is read in;
``stated_text``, the one entry point (with ``without_slips``); the spans it blanks as hedged, asked, denied or supposed;
a proposal and the person's word awaited; and what was not done (``_undone``, ``_pending``).
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from functools import lru_cache

from sttui.core.facts import GLUED_STOP
from sttui.core.hedges import AFTER_I_D, CUT_BETWEEN, FIRST_PERSON, HEDGES, courteous, sentence_hedge
from sttui.core.replaced import former, instead_of, ousted_before, unfit_before, unusable_before
from sttui.core.statement_words import ASIDES, CONDITIONALS, NEGATORS
from sttui.core.statements import asks_all, is_question

# -- the words a sentence is read in, and the clause's hedges ------------------------------------

# a word: letters and digits, joined by one mark (VAN-42, 09:30, 9.30am, LH401, isn't)
_WORD = re.compile(r"[^\W_]+(?:(?:[-'\u2019:/#]|\.(?![A-Z][a-z]))[^\W_]+)*")  # (not across "planned.Westfield")
_SENTENCE_END = re.compile(r"[.!?]+(?=\s|$)|\n|" + GLUED_STOP)
# where a clause ends inside a sentence: , ; : before a space, a dash between spaces, brackets
_CLAUSE_END = re.compile(r"[,;]|:(?=\s)|\s[-\u2013\u2014]+\s|[()\[\]]")
LINKS = frozenset(
    [
        "on",
        "at",
        "in",
        "to",
        "into",
        "onto",
        "for",
        "by",
        "with",
        "be",
        "been",
        "being",
        "going",
        "gone",
        "go",
        "put",
        "longer",
        "any",
        "more",
        "the",
        "a",
        "an",
        "assigned",
        "booked",
        "rebooked",
        "scheduled",
        "confirmed",
        "loaded",
        "placed",
    ]
)
# … and *look* before *like* or *to*: "it looks like TRK-9", "looks to be 06:59" (not "looks fine")
_LOOK = frozenset({"look", "looks", "looked", "looking"})
# … and *appear* before *to*: "TRK-9 appears to have them" (not "TRK-9 appears on the manifest")
_APPEAR = frozenset({"appear", "appears", "appeared"})
# a title names the person after it: a negation or hedge over "Dr" is over "Dr Okafor"
TITLES = frozenset({"dr", "doctor", "mr", "mrs", "ms", "miss", "mx", "prof", "professor", "nurse", "sister", "sr"})
_MARKS = re.compile(r"[^\W_]")


def _low(word: str) -> str:
    return word.lower().replace("\u2019", "'")


# -- what a message states: the one entry point ------------------------------------------------


# a figure put right at once: "on FB-7, sorry, FB-2" states FB-2 ("FB-7, sorry," is the slip,
# blanked whole: the clause reads "on FB-2")
_SLIPPED_FIGURE = (
    r"(?<![\w:.-])([A-Za-z-]*\d[\w:.-]*?(?:\s?[ap]\.?m\.?)?)\s*[,\u2013\u2014-]\s*(?:sorry|oops|i\s+mean)\s*[,:\u2013\u2014-]\s*"
    r"(?=[\w-]*\d)"
)
# … or a name, a capital opening each of its words (or a number: "West Room 1"), put right by
# another: "to Northgate, sorry, Riverside" (after a word of the sentence: not "Thanks, sorry, …")
NAME_SLIPPED = re.compile(
    r"(?<=[a-z0-9,;:]\s)(?:the\s+)?((?-i:[A-Z][\w'&-]*(?:\s+(?:[A-Z][\w'&-]*|\d+[A-Za-z]?)){0,3}))\s*[,\u2013\u2014-]\s*"
    r"(?:sorry|oops|i\s+mean)\s*[,:\u2013\u2014-]\s*(?=(?:the\s+)?(?-i:[A-Z]))",
    re.IGNORECASE,
)
_SLIPPED = re.compile(_SLIPPED_FIGURE + "|" + NAME_SLIPPED.pattern, re.IGNORECASE)
# … or by a figure of its own form after *no, er, um* between clause marks (a time by a time, a
# code by a code: "delivered 06:59 - no, TRK-7 wasn't needed" is no slip), or by any after
# "(I mean": "TRK-9 - no, TRK-7", "TRK-9, er, TRK-7", "VAN-21 (I mean TRK-12)"
_OWN_FORM_SLIP = re.compile(
    r"(?<![\w:.-])([A-Za-z-]*\d[\w:.-]*?(?:\s?[ap]\.?m\.?)?)"
    r"(?:\s*[,\u2013\u2014-]\s*(?:no|er|erm|um|uh)\s*[,:\u2013\u2014-]|\s*\(\s*i\s+mean)\s*(?=([A-Za-z-]*\d[\w:.-]*(?:\s?[ap]\.?m\b\.?)?))",
    re.IGNORECASE,
)
_OWN_FORM_WORD = re.compile(r"(?<![\w'])(?:no|er|erm|um|uh|mean)(?![\w'])", re.IGNORECASE)


def own_form_slips(text: str) -> list[re.Match[str]]:
    """The figures of ``text`` put right at once by one of their own form (``_OWN_FORM_SLIP``):
    each match is the slip (the figure and the word after it); its second group begins the
    figure that puts it right."""
    if not _OWN_FORM_WORD.search(text):
        return []
    return [m for m in _OWN_FORM_SLIP.finditer(text) if _form(m[1]) == _form(m[2]) or "(" in m.group()]


def _form(figure: str) -> str:
    """A figure's form: a time, a code with letters, or a number."""
    figure = figure.strip().rstrip(".-")
    if _A_TIME.fullmatch(figure) or _A_TIME.fullmatch(figure.split("-")[0]):  # (or a range: "16:35-17:15")
        return "time"
    return "code" if _LETTER.search(figure) else "number"


_A_TIME = re.compile(r"\d{1,2}[:.h]\d{2}(?:\s?[ap]\.?m\.?)?|\d{1,2}\s?[ap]\.?m\.?|\d{4}h?", re.IGNORECASE)
_LETTER = re.compile(r"[A-Za-z]")


# what markdown strikes through: taken back as it is shown
_STRUCK = re.compile(r"~~[^~\n]+~~")
# a figure (or a name) marked with a cross, as a list or a chat writes what failed: right after it ("TRK-9 ❌",
# "TRK-9: ✗"), or opening a line or bullet before it ("❌ TRK-9 (reefer failed)")
_CROSSES = "\u274c\u274e\u2715\u2716\u2717\u2718\u26d4\U0001f6ab"
_CROSSED = re.compile(
    rf"(?<![\w:.-])[A-Za-z-]*\d[\w:.-]*(?=\s*:?\s*[{_CROSSES}])"
    # … or a name, a capital opening each of its words ("(Westbrook ❌)", "Dr Feld ✗")
    rf"|(?<![\w'&-])[A-Z][\w'&-]*(?:[ \t]+[A-Z][\w'&-]*){{0,2}}(?=[ \t]*:?[ \t]*[{_CROSSES}])"
    rf"|^[ \t]*(?:[-*\u2022][ \t]*)?[{_CROSSES}]\ufe0f?[ \t]*:?[ \t]*[A-Za-z-]*\d[\w:.-]*",
    re.MULTILINE,
)
# what a value was, under a label that opens its line, sentence or cell: "Old: TRK-9 / New:
# TRK-7", "Before: TRK-9. After: TRK-7.", "Planned: TRK-9 | Actual: TRK-7", "Previous truck: TRK-9"
FORMER_LABEL = re.compile(
    r"(?:^|(?<=[\n|/;(])|(?<=[.!?] ))[ \t*_#>\u2022-]*"
    r"(?:old|previous|prev\.?|original|orig\.?|before|was|initially|originally|formerly|planned|initial)"
    r"(?:[ \t]+[^\W\d_]+)?[ \t*_]*:[ \t*_]*([^\n|/;,()\u2192]{1,40}?)(?=[ \t]*(?:[\n|/;,()\u2192]|[.!?](?:\s|$)|$|[-=]>))",
    re.IGNORECASE | re.MULTILINE,
)
_LABEL_COLON = re.compile(r":(?!\d)")  # (a label's colon, not a time's: most reports have only times)


def has_labels(text: str) -> bool:
    """Whether ``text`` may hold a label (a colon not in a time): ``FORMER_LABEL`` is looked for then."""
    return ":" in text and _LABEL_COLON.search(text) is not None


# a figure queried in a bracket after it: "TRK-9 (?)"
_QUERIED = re.compile(r"(?<![\w:.-])[A-Za-z-]*\d[\w:.-]*(?=[ \t]*\(\?+\))")
# what a value was, in a bracket after the one now: "TRK-7 (was TRK-9)", "33G (prev. 27E)"
_WAS_BRACKET = re.compile(
    r"\(\s*(?:was|were|previously|prev\.?|originally|orig\.?|formerly|initially|old)(?!\w)[\s:]*([^()\n]{1,40})\)",
    re.IGNORECASE,
)


def without_slips(text: str) -> str:
    """``text`` with each figure put right at once blanked: "on FB-7, sorry, FB-2" says FB-2
    (``_SLIPPED``), for the claims, which read the text as written, as for the facts; and what a
    label gives as what a value was ("Planned: TRK-7")."""
    low = text.lower()
    if "sorry" in low or "oops" in low or "mean" in low:
        text = _SLIPPED.sub(lambda m: " " * len(m.group()), text)
    for m in own_form_slips(text):
        text = text[: m.start()] + " " * (m.end() - m.start()) + text[m.end() :]
    if has_labels(text):  # … and what a label gives as what was ("Planned: TRK-7 | Actual: TRK-9" claims no plan)
        text = FORMER_LABEL.sub(lambda m: " " * len(m.group()), text)
    return text


@lru_cache(maxsize=4096)
def stated_text(text: str) -> str:
    """``text`` with what it does not state blanked out (see the module docstring)."""
    spans: list[tuple[int, int]] = []
    cuts = [m.end() for m in _SENTENCE_END.finditer(text) if not _abbreviation(text, m)]
    for start, end in zip([0, *cuts], [*cuts, len(text)], strict=True):
        sentence = text[start:end]
        if not sentence.strip():
            continue
        words = [(w.start() + start, w.end() + start, _low(w.group())) for w in _WORD.finditer(sentence)]
        if not words:
            continue
        marks = [(c.start() + start, c.group()) for c in _CLAUSE_END.finditer(sentence)]
        ends = [at for at, _ in marks]
        if _asks_to_proceed(sentence, words):
            spans.append((0, start + len(sentence)))  # what came before it, its own sentence too, was a plan
        if sentence_hedge(words, text) is not None:
            spans.append((start, start + len(sentence)))
            continue
        hurried = _hurried_question(sentence, words, text)
        if sentence.rstrip().endswith("?") or hurried:
            if asks_all([w for _, _, w in words]) or hurried:
                spans.append((start, start + len(sentence)))
                continue
            inside = bisect_left(ends, start + len(sentence.rstrip()) - 1)  # the clause ends before the ?
            spans.append((ends[inside - 1] if inside else start, start + len(sentence)))
        spans += _denied(text, words, ends)
        spans += former(words, ends, start, start + len(sentence))
        spans += _supposed(words, ends, start + len(sentence))
        offered = _proposed(words)
        if offered is not None:
            spans.append((offered, start + len(sentence)))
        undone = _undone(words, text)
        if undone:
            stops = _stops(marks, words, start + len(sentence))
            spans += [(a, _reach(a, stops, start + len(sentence))) for a in undone]
        if "(" in sentence:
            spans += _pending(sentence, start, words)
    spans += [m.span() for m in _SLIPPED.finditer(text)]
    spans += [m.span() for m in own_form_slips(text)]
    if "~~" in text:  # struck through, as markdown writes it: "~~Seren Glas from Mostyn~~"
        spans += [m.span() for m in _STRUCK.finditer(text)]
    if not text.isascii():  # crossed out: "TRK-9 ❌ → TRK-7 ✅"
        spans += [m.span() for m in _CROSSED.finditer(text)]
    if "(?" in text:  # queried: "TRK-9 (?)"
        spans += [m.span() for m in _QUERIED.finditer(text)]
    if "(" in text:
        spans += [m.span(1) for m in _WAS_BRACKET.finditer(text)]
    if has_labels(text):
        spans += [m.span(1) for m in FORMER_LABEL.finditer(text)]
    if not spans:
        return text
    out = list(text)
    done = 0  # the spans merged as they are walked: each character is looked at once
    for a, b in sorted(spans):
        for i in range(max(a, done), b):
            if _MARKS.match(out[i]):
                out[i] = " "
        done = max(done, b)
    return "".join(out)


# -- the spans blanked: hedged, asked, denied, supposed -----------------------------------------


def hedging(text: str) -> list[tuple[str, list[str]]]:
    """The sentence-wide hedges of ``text``: each one's words and its sentence's (lower case):
    the scripted user asks for a clear answer where the judge reads a report as left open."""
    out: list[tuple[str, list[str]]] = []
    cuts = [m.end() for m in _SENTENCE_END.finditer(text) if not _abbreviation(text, m)]
    for start, end in zip([0, *cuts], [*cuts, len(text)], strict=True):
        words = [(w.start(), w.end(), _low(w.group())) for w in _WORD.finditer(text, start, end)]
        at = sentence_hedge(words, text) if words else None
        if at is not None:
            said = [w for _, _, w in words]
            out.append((" ".join(said[at[0] : at[1]]), said))
    return out


def hurried_question(sentence: str) -> bool:
    """``_hurried_question`` of one sentence on its own (the scripted user asks it too)."""
    words = [(w.start(), w.end(), _low(w.group())) for w in _WORD.finditer(sentence)]
    return bool(words) and _hurried_question(sentence, words, sentence)


def _hurried_question(sentence: str, words: list[tuple[int, int, str]], text: str) -> bool:
    """A question typed without its ``?`` (no final ``. ! ?``), as the rule judge reads one
    (``statements.is_question``: "shall i go with TRK-9"), or one opening with *how about* or
    *what about* ("how about TRK-9"). Not an auxiliary and a subject alone in their clause:
    "Did it - TRK-9 delivered at 06:59" (``words`` hold places in ``text``)."""
    typed = sentence.rstrip()
    if not typed or typed[-1] in ".!?":
        return False
    if [w for _, _, w in words[:2]] in (["how", "about"], ["what", "about"]):
        return True
    if len(words) < 3 or _CLAUSE_END.search(text, words[1][1], words[2][0]):
        return False
    return is_question(typed)  # (the rule judge's reading: one rule for both)


_LAST_WORD = re.compile(r"[^\W\d_]+$")


def _abbreviation(text: str, end: re.Match[str]) -> bool:
    """A full stop after a title or "no" ("Dr. Okafor", "truck no. 9") ends no sentence."""
    if end.group() != ".":
        return False
    word = _LAST_WORD.search(text, max(0, end.start() - 12), end.start())
    return word is not None and word.group().lower() in TITLES | {"no", "st"}


def _clause_end(at: int, ends: list[int], default: int) -> int:
    """Where the clause holding position ``at`` ends (``ends`` sorted: a bisection, so a
    pasted page of one long sentence is read in linear time)."""
    i = bisect_right(ends, at)
    return ends[i] if i < len(ends) else default


def _denied(text: str, words: list[tuple[int, int, str]], ends: list[int]) -> list[tuple[int, int]]:
    """Negated and hedged values, and values joined by "or" (by spaces or ", or" alone: "08:25
    (or 08:30 at the latest)" offers no alternative to 08:25)."""
    out: list[tuple[int, int]] = []
    turns = [a for a, _, w in words if w in TURNS]  # (where a hedge's reach ends, found by bisection)
    for i, (a, _, w) in enumerate(words):
        if w == "no" and (j_no := i + 1) < len(words) and words[j_no][2].isdigit():
            continue  # "truck no 9" names a truck
        following = words[i + 1][2] if i + 1 < len(words) else ""
        looks = (w in _LOOK and following in ("like", "to")) or (w in _APPEAR and following == "to")
        # what was expected, not seen done: "should have gone on TRK-9", "is supposed to be on
        # TRK-9" (not an estimate: "St Columba's should have them at 06:22")
        looks = looks or (w == "should" and following == "have" and _participle(words, i + 2))
        looks = looks or (w in ("supposed", "meant") and following == "to" and i > 0 and words[i - 1][2] in _BE)
        if w in HEDGES or looks:  # "will probably be ready at 15:00": all it hedges, to its clause's end
            # … or to a word that turns away: "TRK-7 seems to have packed in so it went on TRK-9"
            stop = min(_clause_end(a, ends, words[-1][1]), _clause_end(a, turns, words[-1][1]))
            if i + 1 < len(words) and words[i + 1][0] < stop:
                out.append((words[i + 1][0], stop))
            continue
        gone = ousted_before(words, i, text)  # "TRK-9 was stood down", "TRK-9 replaced by TRK-7", "BA576 is cancelled"
        gone = gone or unfit_before(words, i, text)  # "Ana Lopes is off sick", "Kittiwake's laid up"
        gone = gone or unusable_before(words, i, text)  # "TRK-9 is out of service", "TRK-9 was full"
        if gone is not None:
            out.append(gone)
            continue
        instead = instead_of(words, i)  # "instead of TRK-9", "moved … from TRK-9 to TRK-7"
        if w in NEGATORS or w.endswith("n't") or instead is not None:
            stop = _clause_end(a, ends, words[-1][1])
            j = i + 1 + (instead or 0)
            while j < len(words) and words[j][0] < stop and words[j][2] in LINKS:
                j += 1
            # not past a word that turns away or gives a reason: "TRK-7 can't go so TRK-9 took it"
            if j < len(words) and words[j][0] < stop and words[j][2] not in TURNS and words[j][2] not in REASONS:
                out.append((words[j][0], words[j][1]))
                nxt = words[j + 1] if j + 1 < len(words) and words[j + 1][0] < stop else None
                if nxt is not None and (_has_digit(nxt[2]) or words[j][2].rstrip(".") in TITLES):
                    out.append((nxt[0], nxt[1]))  # "not on van 42", "not Dr Okafor": the word and its number or name
                else:  # "instead of Jun Park": a name's words, each with a capital, right after one another
                    k = j
                    while (
                        k + 1 < len(words)
                        and k - j < 2
                        and words[k + 1][0] < stop
                        and text[words[k][0]].isupper()
                        and words[k][2].isalpha()
                        and text[words[k + 1][0]].isupper()
                        and words[k + 1][2].isalpha()
                        and not text[words[k][1] : words[k + 1][0]].strip()
                    ):
                        k += 1
                        out.append((words[k][0], words[k][1]))
        elif w == "or" and 0 < i < len(words) - 1:
            before, after = words[i - 1], words[i + 1]
            nxt = words[i + 2] if i + 2 < len(words) else None
            joined = text[before[1] : a].strip() in ("", ",") and not text[words[i][1] : after[0]].strip()
            if joined and _has_digit(before[2]) and (_has_digit(after[2]) or (nxt is not None and _has_digit(nxt[2]))):
                out.append((before[0], before[1]))
                out.append((after[0], (nxt if nxt is not None and not _has_digit(after[2]) else after)[1]))
            elif joined and _capitalised(text, before):
                # two names as alternatives: "Ana Lopes or Marta Kowalski is going", "the
                # Assembly Rooms or the Corn Exchange" (each name's words, a capital opening
                # each, up to three)
                k = i + 2 if after[2] == "the" and nxt is not None and not text[after[1] : nxt[0]].strip() else i + 1
                if _capitalised(text, words[k]):
                    first = _name_run(text, words, i - 1, -1)
                    last = _name_run(text, words, k, 1)
                    out.append((words[first][0], before[1]))
                    out.append((words[k][0], words[last][1]))
    return out


def _capitalised(text: str, word: tuple[int, int, str]) -> bool:
    """A word of a name: a capital first, letters only, not "I"."""
    return text[word[0]].isupper() and word[2].isalpha() and word[2] != "i"


def _name_run(text: str, words: list[tuple[int, int, str]], k: int, step: int) -> int:
    """The last index of the name holding word ``k``, read in the direction ``step``: up to
    three words each with a capital, with only a space between."""
    for _ in range(2):
        j = k + step
        if not 0 <= j < len(words) or not _capitalised(text, words[j]):
            break
        gap = text[words[min(k, j)][1] : words[max(k, j)][0]]
        if gap.strip():
            break
        k = j
    return k


# past participles not in -ed: "should have gone", "should have been"
_PARTICIPLES = frozenset({"gone", "been", "got", "gotten", "left", "taken", "sent", "made", "done", "put", "come"})


def _participle(words: list[tuple[int, int, str]], j: int) -> bool:
    return j < len(words) and (words[j][2] in _PARTICIPLES or words[j][2].endswith("ed"))


def _supposed(words: list[tuple[int, int, str]], ends: list[int], sentence_end: int) -> list[tuple[int, int]]:
    """From a condition word, or *whether*, to the end of its clause ("if you want" and other
    asides aside): "I wonder whether TRK-9 has them", "It's unclear whether …"."""
    out: list[tuple[int, int]] = []
    for i, (a, _, w) in enumerate(words):
        if (w not in CONDITIONALS and w != "whether") or (i and words[i - 1][2] == "even"):
            continue
        if w == "if" and _aside(words, i):
            continue
        out.append((a, _clause_end(a, ends, sentence_end)))
    return out


# -- a proposal: an offer, and the person's word awaited -----------------------------------------

OFFER_MODALS = frozenset({"would", "will", "can", "could"})
# "I'd", "we'll": the subject and its modal in one word; "'d" is "would"
_JOINED = {"i'd": "would", "we'd": "would", "i'll": "will", "we'll": "will"}
# typed in a hurry: "ill move it" (read so only before a verb of doing: "she is ill" is not)
_WILL = {**_JOINED, "ill": "will"}
PROPOSING = frozenset({"suggest", "recommend", "propose", "advise"})
OFFER_VERBS = frozenset(
    {"put", "move", "assign", "book", "rebook", "schedule", "reschedule", "place", "send", "use"}
    | {"pick", "choose", "go", "switch", "swap", "keep", "get", "set", "arrange", "reserve", "give", "say"}
)
_ADVERBS = frozenset({"strongly", "rather", "still", "also", "just", "then", "happily", "gladly"})
CONSENT = frozenset({"confirm", "approve", "agree", "accept", "ok", "okay", "authorise", "authorize"})
CONSENT_NOUNS = frozenset(
    {"approval", "confirmation", "permission", "ok", "okay", "go-ahead", "consent", "agreement", "say-so"}
)
_WAITING = frozenset({"if", "once", "when", "after", "soon"})  # ("as soon as you confirm")
_ASKING = frozenset({"know", "me", "ask", "asking", "check", "wonder", "see", "whether"})


def _proposed(words: list[tuple[int, int, str]]) -> int | None:
    """Where a proposal starts in a sentence (its words), or None: see "A proposal" above."""
    strong: int | None = None  # an offer with "would" or a verb of proposing
    offer: int | None = None  # an offer: "I can move", "we'll book"
    first: int | None = None  # what the writer will do: "I'll tell the drivers"
    waits = likes = False
    for i, (a, _, w) in enumerate(words):
        if w in FIRST_PERSON or w in _JOINED:
            modal = _JOINED.get(w)
            j = i + 1
            if modal is None and j < len(words) and words[j][2] in OFFER_MODALS:
                modal, j = words[j][2], j + 1
            while j < len(words) and words[j][2] in _ADVERBS:
                j += 1
            verb = words[j][2] if j < len(words) else ""
            if verb in PROPOSING or (modal is not None and verb in OFFER_VERBS):
                offer = a if offer is None else offer
                if strong is None and (verb in PROPOSING or modal == "would"):
                    strong = a
            if modal is not None or verb in PROPOSING:  # what the writer will do (on the person's word)
                first = a if first is None else first
        elif w == "if" and _aside(words, i, to_person=True):  # "if you'd like", with an offer
            likes = likes or not (i > 0 and words[i - 1][2] in _ASKING)
        elif w in _WAITING and i + 2 < len(words) and words[i + 1][2] == "you":
            asked = i > 0 and words[i - 1][2] in _ASKING  # "let me know if you agree" asks
            nxt = words[i + 2][2]
            waits = waits or (not asked and nxt in CONSENT)
        elif w == "if" and _if_fine(words, i):  # "TRK-9, if that's alright with you"
            waits = waits or not (i > 0 and words[i - 1][2] in _ASKING)
        elif w in ("pending", "awaiting", "to") and i + 2 < len(words) and words[i + 1][2] == "your":
            # "pending your approval", "subject to your confirmation"
            waits = waits or (
                words[i + 2][2] in CONSENT_NOUNS and (w != "to" or (i > 0 and words[i - 1][2] == "subject"))
            )
    if waits:
        return words[0][0] if first is None else first
    return offer if likes and offer is not None else strong


_FINE = frozenset({"ok", "okay", "alright", "fine", "acceptable"})
_IT_IS = (("that", "is"), ("it", "is"))


def _if_fine(words: list[tuple[int, int, str]], i: int) -> bool:
    """ "if that's OK", "if it's alright", "if that is fine", "if that works": waiting on the
    person's word, as "if you agree" is."""
    rest = tuple(x[2] for x in words[i + 1 : i + 4])
    if rest[:2] in (("that", "works"), ("it", "works")):
        return True
    said = rest[1:2] if rest[:1] in (("that's",), ("it's",)) else rest[2:3] if rest[:2] in _IT_IS else ()
    return bool(said) and said[0] in _FINE


def _aside(words: list[tuple[int, int, str]], i: int, to_person: bool = False) -> bool:
    """Whether "if" at ``i`` opens one of ``ASIDES`` ("if you want", "if I'm honest");
    ``to_person``: one said to the person ("if you like", "if you'd like")."""
    rest = " ".join(x[2] for x in words[i + 1 : i + 5])
    return any(rest.startswith(aside) for aside in ASIDES if not to_person or aside.startswith("you"))


def _has_digit(word: str) -> bool:
    return any(c.isdigit() for c in word)


# -- undone: a negated or failed action, an intended one, a pending value, a plan ------------
# a verb of doing, in the forms a report writes it: a negated or failed one ("haven't put",
# "was unable to book", "tried to move") denies everything it acts on
DOING = frozenset(
    {"put", "puts", "putting", "move", "moved", "moves", "moving", "assign", "assigned", "assigning"}
    | {"book", "booked", "booking", "rebook", "rebooked", "schedule", "scheduled", "reschedule", "rescheduled"}
    | {"place", "placed", "switch", "switched", "swap", "swapped", "reassign", "reassigned", "transfer"}
    | {"transferred", "update", "updated", "arrange", "arranged", "reserve", "reserved", "allocate"}
    | {"allocated", "load", "loaded", "send", "sent", "dispatch", "dispatched", "secure", "secured", "add"}
    | {"added", "get", "got", "ticket", "ticketed", "reroute", "rerouted", "issue", "issued", "deliver"}
    | {"delivered", "ship", "shipped", "hold", "release", "released"}
)  # (not "cancel", "change" or "confirm": "haven't cancelled the booking on VAN-42" keeps it)
FAILING = frozenset({"unable", "failed", "fail", "tried", "try", "attempted", "attempt"})
# words between a negator or a failure and its verb: "have not yet been able to move"
_NEEDING = frozenset({"have", "has", "had", "need", "needed", "needs"})
_BEFORE_DOING = frozenset(
    {"have", "has", "had", "been", "be", "able", "to", "yet", "actually", "even", "manage", "managed"}
    | {"i", "we", "it", "successfully", "fully", "quite", "really", "need", "needed", "needs"}
)
# a clause opened by one of these turns away from the action: the denial ends before it
TURNS = frozenset({"but", "however", "so", "instead", "though", "although", "while", "whereas", "except", "yet"})
# a reason is said, not denied: "couldn't book the 09:30 because the pass is closed until 14:00"
REASONS = frozenset({"because", "since", "due", "owing", "given"})
_PRONOUNS = frozenset({"i", "we", "it", "they", "he", "she", "that", "this", "everything"})
# a verb of its own: a clause holding one is not the denied action's list going on
_FINITE = frozenset(
    {"is", "are", "was", "were", "am", "it's", "that's", "stays", "stay", "remains", "remain", "goes", "sits"}
    | {"has", "have", "had", "keeps", "holds", "leaves", "runs", "travels", "rides"}
    | {"going", "heading", "coming", "taking", "carrying", "covering", "running", "travelling", "traveling"}
    | {"went", "came", "took", "arrived", "drove", "collected", "picked"}  # ("…, CR-14 went from Sarn")
)
# the past forms among the verbs of doing: a clause after a comma that opens with one is a new
# action of the writer's, not the denied one's list going on ("Couldn't get you into Linate,
# rebooked BA582 to Malpensa")
_DONE = frozenset(w for w in DOING if w.endswith("ed") or w in ("put", "sent", "got"))
# "isn't assigned to VAN-41": a state denied, its value right after it (the negation rule above)
_BE_NOT = frozenset({"isn't", "aren't", "wasn't", "weren't", "ain't"})
_BE = frozenset(
    {"is", "are", "was", "were", "be", "been", "being", "am", "i'm", "you're", "we're", "they're", "it's"}
    | {"he's", "she's", "that's", "there's"}
)
# a future action of the writer's: "I will put", "we'll move" (not "I'll keep", "I'll tell")
INTENDED = frozenset(
    {"put", "move", "assign", "book", "rebook", "schedule", "reschedule", "place", "switch", "swap", "arrange"}
    | {"reserve", "send", "reassign", "transfer", "change", "allocate", "load", "dispatch", "ticket", "reroute"}
    | {"issue", "deliver", "ship", "release"}
)
BELIEVING = frozenset(
    {"think", "believe", "guess", "assume", "reckon", "hope", "suspect", "gather", "imagine", "expect"}
)
PENDING = frozenset(
    {"pending", "tentative", "tentatively", "unconfirmed", "provisional", "provisionally", "held", "hold", "tbc"}
    | {"tbd", "unbooked", "requested", "awaiting"}
)
_PENDING_WITH = frozenset({"not", "yet", "on", "to", "be", "confirmed", "confirmation", "booked", "still", "a"})
_PENDING_ALL = PENDING | _PENDING_WITH
_NOT_CONFIRMED = (
    ["not", "confirmed"],
    ["not", "yet", "confirmed"],
    ["to", "be", "confirmed"],
    ["unverified"],
    ["not", "verified"],
    ["not", "yet", "verified"],
)
_BRACKETED = re.compile(r"\(([^()]{1,40})\)")
_PROCEED = frozenset({"proceed", "ahead"})
# a question ending in one of these verbs and a word pointing back ("book them?") asks to do
# what the message set out before it
_DO_PLAN = frozenset(
    {"book", "rebook", "assign", "schedule", "reschedule", "reserve", "move", "switch", "swap", "put", "place"}
    | {"arrange", "allocate", "confirm", "finalise", "finalize", "do", "ticket", "make"}
)
_BACK = frozenset({"it", "them", "this", "that", "these", "those", "everything", "all"})
_THEN = frozenset({"now", "then", "for", "you", "please", "today"})
_PROCEED_WITH = frozenset(
    {"with", "it", "this", "that", "these", "the", "plan", "change", "changes", "booking", "bookings", "them"}
)


def _stops(marks: list[tuple[int, str]], words: list[tuple[int, int, str]], sentence_end: int) -> list[int]:
    """Where a denial or an intention stops inside a sentence (``marks``: its clause ends, at
    where and which): a ``;``, a ``:`` before a space, a dash between spaces or a bracket; a
    comma (or "and") before a clause that turns away ("…, but Lakeside is on VAN-41"; "…, and
    it stays on VAN-47") or has a verb of its own ("…, Lakeside is on VAN-41"); and a reason
    ("because", "since", "due to"), which is said. Linear in the sentence's words."""
    out: list[int] = []
    starts = [w[0] for w in words]
    for k, (at, mark) in enumerate(marks):
        if mark != ",":
            out.append(at)
            continue
        n = bisect_right(starts, at)
        if n == len(words):
            continue
        until = bisect_left(starts, marks[k + 1][0] if k + 1 < len(marks) else sentence_end)
        if _turns(words, n) or words[n][2] in _DONE or any(words[m][2] in _FINITE for m in range(n, until)):
            out.append(at)  # (a clause opening with a thing done is the writer's new action: "…, rebooked BA582")
    out += [
        a
        for n, (a, _, w) in enumerate(words)
        if n and ((w == "and" and _turns(words, n)) or w in REASONS or w in _TURN_STOPS or _as_reason(words, n))
    ]
    return sorted(out)


# the words that turn away with no comma before them, as people type ("CR-8 can't get over the
# ford so CR-9 went from Garth")
_TURN_STOPS = frozenset({"so", "but", "however", "yet", "whereas"})
_CLAUSE_OPENERS = frozenset(
    {"its", "it", "it's", "the", "he", "she", "they", "we", "i", "there", "his", "her", "their", "our", "that"}
    | {"dr", "mr", "mrs", "ms"}
)


def _as_reason(words: list[tuple[int, int, str]], n: int) -> bool:
    """ "as" opening a reason ("couldn't send TRK-7 as its fridge failed"), not "as a double"."""
    return words[n][2] == "as" and n + 1 < len(words) and words[n + 1][2] in _CLAUSE_OPENERS


def _turns(words: list[tuple[int, int, str]], n: int) -> bool:
    w = words[n][2]
    return w in TURNS or (w == "and" and n + 1 < len(words) and words[n + 1][2] in _PRONOUNS)


def _reach(at: int, stops: list[int], sentence_end: int) -> int:
    i = bisect_right(stops, at)
    return stops[i] if i < len(stops) else sentence_end


def _undone(words: list[tuple[int, int, str]], text: str) -> list[int]:
    """Where an action the writer says was not done, failed or is yet to be done starts: the
    verb after a negator or a failure ("haven't put", "unable to book", "tried to move"), with
    no clause mark between ("TRK-7's fridge failed, sent on TRK-9": the failure is the fridge's),
    and "I will"/"we'll" with a verb of doing ("I'll move Westfield to VAN-42")."""
    out: list[int] = []
    for i, (_, _, w) in enumerate(words):
        if w in NEGATORS or w in FAILING or (w.endswith("n't") and w not in ("won't", "wouldn't")):
            be = w in _BE_NOT or (w == "not" and i > 0 and words[i - 1][2] in _BE)
            if be and not (i + 1 < len(words) and words[i + 1][2] == "able"):
                continue
            j = i + 1
            while j < len(words) and j - i <= 5 and words[j][2] in _BEFORE_DOING:
                if words[j][2] == "to" and words[j - 1][2] in _NEEDING:
                    break  # "didn't have to move it": nothing needed doing, not a failure
                j += 1
            if j < len(words) and words[j][2] in DOING and not _cut(text, words, i, j):
                out.append(words[j][0])
        elif (
            (w in FIRST_PERSON and _believes(words, i + 1))
            or (w in ("i'm", "we're") and _doubts(words, i + 1))
            or (w == "i'd" and i + 1 < len(words) and words[i + 1][2] in AFTER_I_D)
        ):
            # "I think Westfield is on VAN-42", "I'm not sure whether…": a belief, not a report;
            # "…, I think." at the end: all of the sentence
            out.append(words[0][0] if i + 2 >= len(words) else words[i][0])
        elif (w in FIRST_PERSON and i + 2 < len(words) and words[i + 1][2] == "will") or _WILL.get(w) == "will":
            j = i + (2 if w in FIRST_PERSON else 1)
            while j < len(words) and words[j][2] in _ADVERBS:
                j += 1
            if j < len(words) and (words[j][2] in INTENDED or (words[j][2] == "be" and _doing_ing(words, j + 1))):
                out.append(words[i][0])  # (and "I'll be sending it on TRK-9")
        elif _would_have(words, i):
            out.append(words[i][0])  # "I would have used TRK-9, but…", "we'd have sent it"
        elif w in FIRST_PERSON | _AM and _meant(words, i + 1):
            out.append(words[i][0])  # "I'm going to put", "I plan to send", "I was hoping to use"
        elif w in ("plan", "step", "steps") and i > 0 and words[i - 1][2] in _PLAN_OWNERS:
            # "The plan is TRK-9", "Next step: dispatch TRK-9": from the plan's first word on, or
            # after its colon
            at = words[i + 1][0] if i + 1 < len(words) and text[words[i][1] : words[i + 1][0]].strip() == ":" else None
            if at is not None or (i + 1 < len(words) and words[i + 1][2] in ("is", "will")):
                out.append(at if at is not None else words[i - 1][0])
    return out


# intent said outright: "I'm going to put", "we plan to send", "I'm about to dispatch", "I was
# hoping to use", "I wanted to move" (then a verb of ``INTENDED`` or one of ``_MEANT_TOO``)
_AM = frozenset({"i'm", "we're"})
_MEANING = frozenset({"plan", "intend", "aim", "mean", "want", "wanted", "meant", "hoped", "intended", "planned"})
_MEANING_ING = frozenset({"going", "planning", "intending", "aiming", "about", "hoping", "meaning", "trying"})
_MEANT_TOO = frozenset({"use", "go", "take", "get", "try"})
_PLAN_OWNERS = frozenset({"the", "my", "our", "next"})
# the -ing forms of the verbs of ``INTENDED``: "sending", "moving", "putting"
_DOING_ING = frozenset(
    {v + "ing" for v in INTENDED}
    | {v[:-1] + "ing" for v in INTENDED if v.endswith("e")}
    | {v + v[-1] + "ing" for v in INTENDED if len(v) <= 4 and v[-1] in "tpg"}
)


def _meant(words: list[tuple[int, int, str]], j: int) -> bool:
    """From ``j`` (after *I*, *we*, *I'm*, *we're*): a word of meaning to, then *to* and a verb
    of doing: "plan to send", "going to put", "was hoping to use"."""
    if j < len(words) and words[j][2] in ("was", "were", "am", "are"):
        j += 1
    if j + 2 >= len(words) or words[j + 1][2] != "to":
        return False
    if words[j][2] not in _MEANING and words[j][2] not in _MEANING_ING:
        return False
    verb = words[j + 2][2]
    return verb in INTENDED or verb in _MEANT_TOO


def _would_have(words: list[tuple[int, int, str]], i: int) -> bool:
    """*I* or *we* and *would*, *could* or *'d*, then *have* and a past participle: what was not done."""
    w = words[i][2]
    if w in FIRST_PERSON and i + 1 < len(words) and words[i + 1][2] in ("would", "could"):
        j = i + 2
    elif w in ("i'd", "we'd"):
        j = i + 1
    else:
        return False
    return j < len(words) and words[j][2] == "have" and _participle(words, j + 1)


def _doing_ing(words: list[tuple[int, int, str]], j: int) -> bool:
    return j < len(words) and words[j][2] in _DOING_ING


def _cut(text: str, words: list[tuple[int, int, str]], i: int, j: int) -> bool:
    """Whether a clause mark stands between the words ``i`` and ``j``."""
    return any(CUT_BETWEEN.search(text, words[k][1], words[k + 1][0]) for k in range(i, j))


def _believes(words: list[tuple[int, int, str]], j: int) -> bool:
    """Whether the words from ``j`` on open a belief: "think", "believe", "guess", "assume",
    "reckon", or one of them denied ("don't think"), or "not sure if/whether/that"."""
    if j < len(words) and (words[j][2].endswith("n't") or words[j][2] == "do"):
        j += 1 + (words[j][2] == "do" and j + 1 < len(words) and words[j + 1][2] == "not")
    if j < len(words) and words[j][2] in BELIEVING:
        return words[j][2] != "hope" or not courteous([w for _, _, w in words[j + 1 : j + 3]])
    return j < len(words) and words[j][2] == "am" and _unsure(words, j + 1)


def _doubts(words: list[tuple[int, int, str]], j: int) -> bool:
    """After "I'm" or "we're": "not sure whether…" (``_unsure``), "hopeful", "guessing" or
    "assuming"."""
    return _unsure(words, j) or (j < len(words) and words[j][2] in ("hopeful", "guessing", "assuming"))


def _unsure(words: list[tuple[int, int, str]], j: int) -> bool:
    """ "not sure" or "not certain" (then "whether", "if", "that" or what is doubted)."""
    return [x[2] for x in words[j : j + 2]] in (["not", "sure"], ["not", "certain"])


def _pending(sentence: str, start: int, words: list[tuple[int, int, str]]) -> list[tuple[int, int]]:
    """A value marked as not yet done by a bracket after it: "VAN-42 (pending)", "09:30
    (tentative)", "VAN-41 (not yet confirmed)"."""
    out: list[tuple[int, int]] = []
    ends = [w[1] for w in words]
    for m in _BRACKETED.finditer(sentence):
        inside = [_low(w.group()) for w in _WORD.finditer(m.group(1))]
        marked = bool(inside) and any(w in PENDING for w in inside) and all(w in _PENDING_ALL for w in inside)
        if not marked and inside not in _NOT_CONFIRMED:
            continue
        n = bisect_right(ends, m.start() + start)  # the words that end before it
        if n:
            out.append((words[n - 1][0], words[n - 1][1]))
    return out


def _asks_to_proceed(sentence: str, words: list[tuple[int, int, str]]) -> bool:
    """A question asking to go ahead ("Shall I go ahead?", "OK to proceed with this?"): what
    the message said before it was a plan."""
    if not sentence.rstrip().endswith("?"):
        return False
    for i, (_, _, w) in enumerate(words):
        if w in _PROCEED and (w == "proceed" or (i and words[i - 1][2] == "go")):
            if all(x[2] in _PROCEED_WITH for x in words[i + 1 :]):
                return True
            break
    # "Shall I book them?", "Want me to move it now?": the plan's action, on what came before
    rest = [x[2] for x in words]
    while rest and rest[-1] in _THEN:
        rest.pop()
    return (
        len(rest) >= 3
        and rest[-1] in _BACK
        and rest[-2] in _DO_PLAN
        and (rest[-3] in ("i", "we", "to") or (rest[-3] == "and" and "i" in rest[:-3]))
    )
