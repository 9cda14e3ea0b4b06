"""How the scripted user reads the agent's messages: deterministic, keyword-based rules.

A baseline, not a language model: the rules are small, fixed and documented (task format
§3), so an episode with the scripted user is reproducible and its replies explainable.

- **Asking.** A sentence asks when it ends with ``?`` or contains a request marker ("tell me",
  "let me know", "please confirm", …). A withheld detail is asked for when some asking
  sentence contains every word of one of its cues. Words are compared lower-cased and
  lightly stemmed (:func:`stem`), in any order.
- **Cannot.** A message says the goal cannot be reached when it contains an infeasibility
  phrase (the rule judge's default list).
- **More work.** A message announces more work when it contains a marker like "let me" (not
  the sign-off "let me know") or "I'll check": it is not a final report.
- **Hedge.** A report hedges when it contains a hedge marker ("I can't promise", "should be
  fine", "hopefully", "I think", …) as whole words: the user asks once for a clear answer.

Whether a report is good enough to end on is not decided here: the scripted user ends
satisfied only when the checklist (or the rule judge) would pass the episode now.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping, Sequence

from sttui.core.checklist import DEFAULT_PHRASES
from sttui.core.facts import GLUED_START
from sttui.core.report_places import FAILED
from sttui.core.stated import DOING, hedging, hurried_question
from sttui.core.statement_words import IDIOMS_AFTER

REQUEST_MARKERS = (
    "tell me",
    "let me know",
    "please confirm",
    "can you confirm",
    "could you confirm",
    "please share",
    "please send me",
    "please provide",
    "please give me",
    "please advise",
    "need to know",
    "like to know",
    "want to know",
    "remind me",
)
APPROVAL_MARKERS = (
    "shall i",
    "should i",
    "may i",
    "can i",
    "do you want me",
    "would you like me",
    "would you like",  # an offer ("would you like another date?")
    "do you want",
    "want me to",
    "is it ok",
    "is that ok",
    "is it okay",
    "is that okay",
    "ok to",
    "okay to",
    "go ahead",
    "proceed",
    "how about",  # ("how about TRK-9": a suggestion to approve)
    "happy for me",
    "does that work",
    "work for you",
    "sound good",
    "sounds good",
    "fine with you",
    "all right with you",
    "alright with you",
    "do you agree",
)
MORE_WORK_MARKERS = (
    "let me",
    "one moment",
    "bear with me",
    "hold on",
    "i'm going to",
    "i am going to",
    "i'll now",
    "i will now",
    "now i'll",
    "next i'll",
    "next, i'll",
    "i'll check",
    "i will check",
    "i'll look",
    "i will look",
    "i'll try",
    "i will try",
    "i'm checking",
    "i am checking",
    "still working",
    # work in hand, as people announce it ("I'm looking into options and will update you")
    "i'm looking into",
    "i am looking into",
    "i'm looking at",
    "i am looking at",
    "i'm working on",
    "i am working on",
    "still looking",
    "checking now",
    "give me a minute",
    "give me a moment",
    "give me a sec",
    "i'll update you",
    "will update you",
    "i'll get back to you",
    "i will get back to you",
    "i'll come back to you",
    "i will come back to you",
    # … after the work it names ("I'll double-check the rota and get back to you")
    "and get back to you",
    "and come back to you",
    "and update you",
    "and let you know",
    "i'll double-check",
    "i will double-check",
    "i'll double check",
    "i'll confirm with",
    "i'll ring",
    "i'll call",
    "i'll phone",
    "i'll chase",
    "i'll find out",
    "i will find out",
)
HEDGE_MARKERS = (
    "can't promise",
    "cannot promise",
    "can not promise",
    "no promises",
    "no guarantee",
    "no guarantees",
    "can't guarantee",
    "cannot guarantee",
    "should be fine",
    "should be ok",
    "should be okay",
    "should be alright",
    "should be all right",
    "hopefully",
    "i hope",
    "fingers crossed",
    "i think",
    "i believe",
    "i'm not sure",
    "i am not sure",
    "not sure, but",  # (the "I'm" left out; not "not sure why it tripped")
    "not sure but",
    "unsure, but",
    "unsure but",
    "not certain",
    "probably",
    "maybe",
    "perhaps",
    "i guess",
    "with any luck",
    "with luck",
    "if all goes well",
    "touch wood",
    "in theory",
    "likely",
    "presumably",
    "all being well",
    "touch and go",
    "pretty sure",
    "fairly sure",
    "reasonably sure",
    "as far as i know",
    "as far as i can tell",
    "pending confirmation",  # (not done yet: the user asks whether it is)
    "awaiting confirmation",
    "not yet confirmed",
    "to be confirmed",
    "if i'm not mistaken",
    "unless i'm mistaken",
    "or at least",
    "assuming",  # ("…, assuming the booking went through")
    "you should be on",  # (not "should be back on at 10:41", the crew's estimate)
    "should be booked",
    "should be confirmed",
    "should be sorted",
    "should have gone through",
    "should work",
    # a belief or an impression, not a report (an outside tester's "Looks like it's on TRK-9"
    # and "TRK-9 should have it by now" were taken as done)
    "seems",
    "seem to",
    "seemed",
    "looks like",
    "looks to be",
    "appears to",
    "ought to",
    "should have it",
    "should have them",
    "should have arrived",
    "i'd expect",
    "i would expect",
    "i expect",
    "i reckon",
    "i suppose",
    "i'd imagine",
    "i imagine",
    "i assume",
    "as far as i'm aware",
    "as far as i am aware",
    "to my knowledge",
    "if memory serves",
    "apparently",
    "seemingly",
    # … as the judge reads them too (``stated``): what was expected rather than seen, and a
    # belief (the judge's sentence-wide hedges are asked about through ``stated.hedging``)
    "appear to",
    "appeared to",
    "should have gone",
    "should have been delivered",
    "is supposed to be",
    "are supposed to be",
    "is meant to be",
    "are meant to be",
    "i'd say",
    "i'd guess",
    "i'm guessing",
    "i'm assuming",
    "i suspect",
    "i gather",
)
_SUFFIXES = (("ies", "y"), ("ied", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", ""))
_WORD = re.compile(r"[^\W_]+")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+|" + GLUED_START)


def normalise(text: str) -> str:
    """Lower case, with typographic apostrophes and quotes made plain."""
    return text.lower().replace("\u2019", "'").replace("\u2018", "'")


def stem(word: str) -> str:
    """A light, deterministic stemmer: the first inflectional suffix that leaves three letters
    comes off (``-ies``/``-ied`` → ``y``, ``-ing``, ``-ed``, ``-es``, ``-s``; never from ``-ss``
    or ``-eed``), then a final ``-e`` (from four letters on). Words of three letters or fewer
    and numbers stay as they are. "waiting", "waits", "waited" → "wait"; "arrive", "arriving" →
    "arriv"; "parties" → "party". Numbers stay as they are."""
    if len(word) <= 3 or word.isdigit():
        return word
    for suffix, replacement in _SUFFIXES:
        if not word.endswith(suffix):
            continue
        if (suffix == "s" and word.endswith("ss")) or (suffix == "ed" and word.endswith("eed")):
            break
        base = word[: -len(suffix)] + replacement
        if len(base) >= 3:
            word = base
            break
    if word.endswith("e") and len(word) > 3:
        word = word[:-1]
    return word


def words(text: str) -> list[str]:
    """The stemmed words of a text (letters and digits; apostrophes and punctuation split)."""
    return [stem(w) for w in _WORD.findall(normalise(text))]


def cue_words(cue: str) -> frozenset[str]:
    """The words a cue needs, all of them, in one asking sentence."""
    return frozenset(words(cue))


def key_cue(key: str) -> str:
    """The cue a withheld key gives when it has no ``asked_by``: its words longer than two
    letters (``frequent_flyer_tier`` → "frequent flyer tier")."""
    return " ".join(w for w in re.split(r"[_\W]+", key.lower()) if len(w) > 2)


def _has(text: str, phrase: str) -> bool:
    return _whole(phrase).search(text) is not None


@functools.lru_cache(maxsize=1024)
def _whole(phrase: str) -> re.Pattern[str]:
    """The phrase as whole words, compiled once (the scripted user tries every marker on every
    message)."""
    return re.compile(r"(?<!\w)" + re.escape(phrase) + r"(?!\w)")


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_END.split(normalise(text)) if s.strip()]


@functools.lru_cache(maxsize=4096)
def is_asking(sentence: str) -> bool:
    """A question (ends with ``?``, or typed without it as the judges read one: "shall i go
    with TRK-9") or an explicit request ("please tell me …")."""
    sentence = normalise(sentence).strip()
    return sentence.endswith("?") or any(_has(sentence, m) for m in REQUEST_MARKERS) or hurried_question(sentence)


def asking_sentences(message: str) -> list[str]:
    return list(_asking(message))


@functools.lru_cache(maxsize=4096)
def _asking(message: str) -> tuple[str, ...]:
    """Read once per text: the scripted user reads the agent's last message several ways."""
    return tuple(s for s in sentences(message) if is_asking(s))


def asked_for(message: str, cues: Mapping[str, Sequence[str]]) -> list[str]:
    """The withheld keys (in the given order) that some asking sentence of ``message`` asks
    for: the sentence contains every word of one of the key's cues."""
    asked = [set(words(s)) for s in asking_sentences(message)]
    if not asked:
        return []
    out = []
    for key, phrases in cues.items():
        needs = [cue_words(p) for p in phrases]
        if any(n and n <= sentence for n in needs for sentence in asked):
            out.append(key)
    return out


def asks_approval(message: str) -> bool:
    """Some asking sentence asks the user to approve a plan ("shall I rebook you?")."""
    return any(_has(s, m) for s in asking_sentences(message) for m in APPROVAL_MARKERS)


def says_cannot(message: str, phrases: Iterable[str] = DEFAULT_PHRASES) -> bool:
    """Whether the message holds an infeasibility phrase as whole words, not in a compound
    the rule judge reads as no statement (``IDIOMS_AFTER``: "no flight changes needed")."""
    text = normalise(message)
    for phrase in phrases:
        if phrase not in text:  # (most are not there at all: a substring test first)
            continue
        for m in _whole(phrase).finditer(text):
            after = _NEXT_WORD.match(text, m.end())
            if after is None or after.group(1) not in IDIOMS_AFTER.get(phrase, ()):
                return True
    return False


_NEXT_WORD = re.compile(r"[\s-]+([\w']+)")


@functools.lru_cache(maxsize=4096)
def announces_more_work(message: str) -> bool:
    """Whether the message says work is still to come ("let me check", "I'll try"); a sign-off
    is not ("Let me know if you need anything else": the commonest of all)."""
    text = SIGN_OFFS.sub(" ", normalise(message))
    return any(_has(text, m) for m in MORE_WORK_MARKERS)


# sign-offs, not work to come: "Let me know if…", "I'll update you if anything changes"
SIGN_OFFS = re.compile(
    r"(?<!\w)(?:let (?:me|us) know"
    r"|(?:update you|get back to you|come back to you|let you know) (?:if|when|should|in case)(?!\w))"
)


@functools.lru_cache(maxsize=4096)
def hedge(message: str) -> str | None:
    """The first hedge marker the message contains (whole words), or None. A sign-off or a
    piece of advice is no hedge of the report (``NOT_HEDGES``: "I hope that helps!",
    "Probably worth a heads-up to Halden.")."""
    text = _without_causes(NOT_HEDGES.sub(" ", normalise(message)))
    marker = next((m for m in HEDGE_MARKERS if _has(text, m)), None)
    if marker is not None:
        return marker
    # the judge's sentence-wide hedges, where the sentence reports work: a figure, a verb of
    # doing or of going ("TRK-9, I'm told"; "Ana Lopes is going instead, I'm told"; not "I'm
    # told the clinic was pleased")
    return next((h for h, said in hedging(text) if any(_DIGIT.search(w) or w in _WORK for w in said)), None)


_DIGIT = re.compile(r"\d")
_WORK = DOING | frozenset(
    {"going", "goes", "went", "gone", "sails", "sailing", "sailed", "arrives", "arrived", "arriving", "leaves"}
    | {"leaving", "reaches", "reached", "covering", "covers", "covered", "takes", "took", "taking", "done"}
)


# a report's clauses (kept with what separates them)
_CLAUSES = re.compile(r"([;!?(),]|[.:](?=\s|$)|\s(?:so|and|but|which|because|then|after)\s)")
# in a clause, what makes it more than an observation of what went wrong: something done (a
# verb of ``stated.DOING``, or these) or to come, a negation, a condition
_NOT_A_CAUSE = re.compile(
    r"(?<!\w)(?:will|won't|wont|'ll|not|never|if|unless|again|might|could|may|would|yet|still|taken care|"
    r"confirmed|done|sorted|changed|fixed|managed|made|there|on time|in time|possible|impossible|can|cannot|"
    r"able|unable|way)(?!\w)|n't\b"
)


def _without_causes(text: str) -> str:
    """``text`` with its clauses that only observe what went wrong blanked ("TRK-7 seems to have
    failed, so I put it on TRK-9", "I think the ferry was cancelled"): a hedge there is of the
    cause, not of the report. Not one that says something done or to come, what can be, or
    denies ("it probably won't be cancelled", "I think I booked it after the ferry was
    cancelled", "I think it's impossible - the road is closed")."""
    parts = _CLAUSES.split(text)
    return "".join(" " * len(p) if i % 2 == 0 and _only_a_cause(p) else p for i, p in enumerate(parts))


def _only_a_cause(clause: str) -> bool:
    return (
        FAILED.search(clause) is not None
        and not _NOT_A_CAUSE.search(clause)
        and DOING.isdisjoint(_WORD.findall(clause))
    )


# what hedge markers say in sign-offs and advice, not of the report
NOT_HEDGES = re.compile(
    r"(?<!\w)(?:(?:i )?hope (?:that|this|it) helps"
    r"|i hope (?:you|you're|you are|all is|that's (?:ok|okay|alright|all right|fine))"
    r"|(?:probably|maybe|perhaps|might be|may be|could be) worth"
    r"|assuming (?:you|you're|your)"  # (an aside to the person: "Assuming you still need the receipt, …")
    r"|(?:i think|i believe|touch wood,?|looks like|seems like|i reckon|i suppose|i'd say) (?:that's|that is) (?:everything|all|it)"
    r"|(?:hopefully|fingers crossed|i hope)[^.!?]{0,60}?(?:next (?:trip|time|visit|flight)|rest of (?:your|the) \w+"
    r"|enjoy))(?!\w)"
)


# what a closing question asks of courtesy ("Anything else?", "Any questions?"): none of it asks
# for a detail or an approval, so a hedge before it is still a hedge
_COURTESY = frozenset(
    words("anything else is there do you need can i we help with any other questions more for all good that ok okay"
          " want me to sort out from get today just now at the moment else")
)  # fmt: skip


def only_courtesy(message: str) -> bool:
    """Whether every question the message asks is a closing courtesy ("Anything else?")."""
    asked = asking_sentences(message)
    return bool(asked) and all(set(words(s)) <= _COURTESY and ("anything" in s or "question" in s) for s in asked)
