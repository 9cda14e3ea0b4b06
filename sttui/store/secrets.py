"""Keeping secrets out of everything sttui writes: the database, exports, stdout, stderr, logs.

Two kinds of secret are found: the values of environment variables whose names say they are
secrets (``OPENAI_API_KEY``, ``HF_TOKEN``, ...), and strings shaped like well-known keys that a
person pastes into a message or a task file (``sk-…``, ``sk-ant-…``, ``hf_…``, ``AKIA…``,
``Bearer …``), whether or not they are set in this process.
"""

from __future__ import annotations

import functools
import json
import logging
import os
import re
from collections.abc import Callable
from typing import Any

from sttui.safetext import visible_lines

_SECRET_NAME = re.compile(r"(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL)", re.I)
_SECRET_FIELD = re.compile(r"^(api_?key|authorization|password|secret|token|access_token)$", re.I)
REDACTED = "[redacted]"
MIN_LENGTH = 8

# Well-known key shapes. Each is long and specific enough that ordinary words do not match; a
# word that merely starts like one (``sk-`` and 20 more letters, digits, ``-`` or ``_``) is
# redacted too, which errs on the safe side.
_SHAPES = [
    r"sk-[A-Za-z0-9_-]{20,}",  # OpenAI (sk-, sk-proj-, ...), Anthropic (sk-ant-...), DeepSeek, ...
    r"hf_[A-Za-z0-9]{20,}",  # Hugging Face
    r"(?:AKIA|ASIA)[0-9A-Z]{16}(?![0-9A-Z])",  # AWS access key ids
    r"gh[pousr]_[A-Za-z0-9]{30,}",  # GitHub tokens
    r"github_pat_[A-Za-z0-9_]{30,}",
    r"AIza[0-9A-Za-z_-]{35}",  # Google API keys
    r"xox[abprs]-[A-Za-z0-9-]{10,}",  # Slack
]
_B = r"(?:(?<![A-Za-z0-9_-])|(?<=\\[nrt]))"  # the key starts a word (or follows an escaped newline in JSON)
KEY_SHAPES = re.compile("|".join(_B + shape for shape in _SHAPES))
# ``Authorization: Bearer <anything>`` echoed by a server: the credential, whatever its shape.
_BEARER = re.compile(r"(?i)\b(Bearer|Basic)(\s+)[A-Za-z0-9._~+/=-]{8,}")
# How every key shape begins: each place one of these occurs is tried against the shapes (a
# regex scan of every event, or of a listing's whole output, would cost more than the rest of
# writing it; and "sk-" alone is in every "task-").
_STARTS = ("sk-", "hf_", "AKIA", "ASIA", "gh", "github_pat_", "AIza", "xox")
# the shapes without the word-start condition: a JSON text of a value (where a control character
# before a key is written ``\u0001``) still shows every key the value's strings hold
_SHAPE_BODIES = re.compile("|".join(_SHAPES))


def _shaped(text: str) -> bool:
    """Whether ``text`` may hold a key shape: where one of ``_STARTS`` occurs, whether a shape
    follows. False only when ``KEY_SHAPES`` finds nothing, in the text or in its JSON form."""
    for start in _STARTS:
        if start not in text:  # (the common case, and the quickest look)
            continue
        at = text.find(start)
        while at != -1:
            if _SHAPE_BODIES.match(text, at):
                return True
            at = text.find(start, at + 1)
    return False


def _maybe(text: str) -> bool:
    if _shaped(text):
        return True
    low = text.lower()
    return "bearer" in low or "basic" in low


def secret_values() -> list[str]:
    """Values of environment variables whose names say they are secrets."""
    found = {v for k, v in os.environ.items() if _SECRET_NAME.search(k) and len(v) >= MIN_LENGTH}
    return sorted(found, key=len, reverse=True)


@functools.lru_cache(maxsize=64)
def _forms(secrets: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    """Each secret as written, and as it appears inside JSON text."""
    return tuple((v, json.dumps(v, ensure_ascii=False)[1:-1]) for v in secrets)


def scrub_text(text: str, secrets: list[str] | None = None) -> str:
    """``text`` with secret values and key-shaped strings replaced by ``[redacted]``."""
    for value, encoded in _forms(tuple(secret_values() if secrets is None else secrets)):
        if value in text:
            text = text.replace(value, REDACTED)
        if encoded != value and encoded in text:
            text = text.replace(encoded, REDACTED)
    if not _maybe(text):
        return text
    text = KEY_SHAPES.sub(REDACTED, text)
    return _BEARER.sub(lambda m: m.group(1) + m.group(2) + REDACTED, text)


def has_secret(text: str, secrets: list[str] | None = None) -> bool:
    return scrub_text(text, secrets) != text


def scrub(payload: Any, secrets: list[str] | None = None) -> Any:
    """A JSON-safe copy of ``payload`` with secrets and secret-named fields redacted."""
    secrets = secret_values() if secrets is None else secrets
    data = json.loads(json.dumps(payload, default=str, ensure_ascii=False)) if _odd(payload) else payload
    # One look over the whole payload first; its strings are walked only when something is there.
    blob = json.dumps(data, ensure_ascii=False)
    if _maybe(blob) or any(encoded in blob for _, encoded in _forms(tuple(secrets))):
        return _clean(data, secrets)
    return _redact_fields(data)


# what a JSON text must hold for ``_redact_fields`` to find a secret-named field in it
_FIELD_KEYS = ('"api_key"', '"apikey"', '"authorization"', '"password"', '"secret"', '"token"', '"access_token"')
# the ends those keys share, looked for in the lowered text (5 looks instead of 7; a key that only
# ends like one, ``"monkey"``, takes the careful path, which finds nothing to redact)
_FIELD_ENDS = ('key"', 'authorization"', 'password"', 'secret"', 'token"')
# ``_SECRET_FIELD`` also matches a name with one newline after it (``$``), written ``\n"`` in JSON
# (looked for only where the text has a ``\n"`` at all), and, ignoring case, takes these letters
# for s, i and i (which ``str.lower`` leaves apart)
_NEWLINE_ENDS = tuple(end[:-1] + '\\n"' for end in _FIELD_ENDS)
_FOLDED_LETTER = re.compile("[\u017f\u0131\u0130]")  # ſ, ı, İ


def _may_name_a_field(text: str, low: str) -> bool:
    """Whether a JSON text (and its lowered copy) may hold a name ``_SECRET_FIELD`` matches: when
    not, ``_redact_fields`` would change nothing in it."""
    for end in _FIELD_ENDS:
        if end in low:
            return True
    if '\\n"' in text:
        for end in _NEWLINE_ENDS:
            if end in low:
                return True
    return not text.isascii() and _FOLDED_LETTER.search(text) is not None  # (isascii: a flag read)


_ENCODER = json.JSONEncoder(default=str, ensure_ascii=False)  # built once: dumps would build one a call


def _one_encoder() -> Callable[[Any], str]:
    """``_ENCODER.encode``, but through one C encoder made once instead of one a call (this runs
    on every event recorded). It skips the check for circular data, which JSON cannot hold anyway
    (such a payload then fails with RecursionError instead of ValueError). The plain encoder where
    CPython's C one is missing, differs in how it is made, or writes anything differently."""
    try:
        from _json import make_encoder
        from json.encoder import encode_basestring

        made = make_encoder(None, str, encode_basestring, None, ": ", ", ", False, False, True)
    except (ImportError, TypeError):
        return _ENCODER.encode

    def encode(payload: Any) -> str:
        return "".join(made(payload, 0))

    sample = {"a": [1, 2.5, -0.0, float("inf"), None, True, 'é\n"', {"b": ()}], 3: object}
    return encode if encode(sample) == _ENCODER.encode(sample) else _ENCODER.encode


_encode = _one_encoder()


def _flagged(text: str, low: str) -> bool:
    """``_maybe`` on a text already lowered."""
    return "bearer" in low or "basic" in low or _shaped(text)


def scrub_json(payload: Any, secrets: list[str] | None = None) -> str:
    """``json.dumps(scrub(payload))``, the text to store, found with one serialisation in the
    common case: the payload is written out once (with ``default=str``, which turns what
    ``scrub`` would convert the same way), and walked only when that text holds a key marker,
    a secret's value or a secret-named field."""
    secrets = secret_values() if secrets is None else secrets
    text = _encode(payload)
    low = text.lower()
    if _flagged(text, low) or (secrets and any(encoded in text for _, encoded in _forms(tuple(secrets)))):
        return json.dumps(_clean(json.loads(text), secrets), ensure_ascii=False)
    if _may_name_a_field(text, low):
        return json.dumps(_redact_fields(json.loads(text)), ensure_ascii=False)
    return text


def scrub_stored(payload: Any, secrets: list[str] | None = None) -> Any:
    """``scrub(payload)`` for a value that is only stored (an episode's scores, outcome, end):
    the same JSON once written, found without walking the value in Python in the common case.
    ``scrub`` first turns what JSON cannot hold into what it turns into (``default=str``) and
    looks at that text; here the C encoder writes that text at once and the value is read back
    from it (equal to scrub's result but for the types JSON forgets: an int subclass is an int,
    a tuple a list), and is walked only when the text holds a key marker, a secret's value or
    a secret-named field, by ``scrub`` itself."""
    secrets = secret_values() if secrets is None else secrets
    data = json.loads(_encode(payload))
    text = _encode(data)  # (scrub's text: the same but where two keys became one)
    low = text.lower()
    if (
        _flagged(text, low)
        or (secrets and any(encoded in text for _, encoded in _forms(tuple(secrets))))
        or _may_name_a_field(text, low)
    ):
        return scrub(payload, secrets)
    return data


def _odd(value: Any) -> bool:
    """Whether ``value`` holds anything JSON would turn into something else (tuples, dates, ...)."""
    if isinstance(value, dict):
        return any(not isinstance(k, str) or _odd(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_odd(v) for v in value)
    return not (value is None or isinstance(value, str | int | float | bool))


def _redact_fields(data: Any) -> Any:
    if isinstance(data, dict):
        return {k: (REDACTED if _SECRET_FIELD.match(k) and v else _redact_fields(v)) for k, v in data.items()}
    if isinstance(data, list):
        return [_redact_fields(v) for v in data]
    return data


def _clean(data: Any, secrets: list[str]) -> Any:
    if isinstance(data, str):
        return scrub_text(data, secrets)
    if isinstance(data, dict):
        return {
            scrub_text(k, secrets): (REDACTED if _SECRET_FIELD.match(k) and v else _clean(v, secrets))
            for k, v in data.items()
        }
    if isinstance(data, list):
        return [_clean(v, secrets) for v in data]
    return data


class SecretFilter(logging.Filter):
    """A logging filter that scrubs each record's message (and drops its traceback text's secrets)."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg = scrub_text(record.getMessage())
        record.args = None
        if record.exc_info:
            import traceback

            record.exc_text = scrub_text("".join(traceback.format_exception(*record.exc_info)))
            record.exc_info = None
        return True


def unscrubbed(stream: Any) -> Any:
    """The stream beneath a ``ScrubbingStream``: for a progress line that moves the cursor with
    escape sequences of its own (scrubbed, they would be shown as text), whose words and numbers
    are the program's, never data from the record."""
    return stream._stream if isinstance(stream, ScrubbingStream) else stream


class ScrubbingStream:
    """A text stream that scrubs what is written through it before passing it on: secrets
    masked, and every control character but line breaks and tabs shown as an escape
    (``sttui.safetext``), so no text from data can drive the terminal.

    A secret is caught when it arrives within one write, as it does from ``click.echo``,
    ``print`` of one value, a traceback line or a log record; one split across two writes is
    not. The binary ``buffer`` is not offered, so writers that look for it fall back to text.
    """

    def __init__(self, stream: Any):
        self._stream = stream
        self._secrets = secret_values()

    def write(self, text: str) -> int:
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        self._stream.write(visible_lines(scrub_text(text, self._secrets)))
        return len(text)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        self._stream.flush()

    def isatty(self) -> bool:
        return bool(self._stream.isatty())

    def writable(self) -> bool:
        return True

    def __getattr__(self, name: str) -> Any:
        if name == "buffer":
            raise AttributeError(name)
        return getattr(self._stream, name)
