"""Text every record can store: no NUL (PostgreSQL refuses it in text and JSON) and no lone
surrogate (half of a UTF-16 pair, no character: it cannot be encoded, and JSON's ``"\\ud800"``
alone reads as one). What a model, a bridge client or a file gives is checked here before it
is executed or recorded, so a record on either backend takes it and ``sttui import`` reads
its export back."""

from __future__ import annotations

import re
from typing import Any

_NUL = "\x00"
_SURROGATE = re.compile("[\ud800-\udfff]")


def bad_char(text: str) -> str | None:
    """What is wrong with ``text``'s characters, or None (a scan of ASCII text for NUL alone)."""
    if _NUL in text:
        return "a NUL character (\\u0000)"
    if not text.isascii():
        found = _SURROGATE.search(text)
        if found is not None:
            return f"a lone surrogate (\\u{ord(found.group()):04x}), which is no character"
    return None


def clean(value: Any) -> bool:
    """Every string in ``value`` (keys too, through dicts, lists and tuples) is clean text: one
    scan of each, no copy (this runs on every step)."""
    t = type(value)
    if t is str:
        return bad_char(value) is None
    if t is not dict and t is not list and t is not tuple:
        return not isinstance(value, str) or bad_char(value) is None
    stack = [value]
    while stack:
        v = stack.pop()
        for k, x in v.items() if type(v) is dict else enumerate(v):
            if type(k) is str and (_NUL in k or (not k.isascii() and bad_char(k))):
                return False
            tx = type(x)
            if tx is str:
                if _NUL in x or (not x.isascii() and bad_char(x)):
                    return False
            elif tx is dict or tx is list or tx is tuple:
                stack.append(x)
            elif isinstance(x, str) and bad_char(x):
                return False
    return True


def text_problem(value: Any, where: str) -> str | None:
    """What makes ``value``'s text unusable (a NUL or a lone surrogate in it or in any string
    inside it, keys too), with where it is (``where``: its name); None when it is clean."""
    return None if clean(value) else first_bad(value, where)


def first_bad(value: Any, where: str) -> str | None:
    """Where in ``value`` the first unclean string is, and what is wrong with it (the slow walk,
    made once :func:`clean` has said there is one)."""
    if isinstance(value, str):
        bad = bad_char(value)
        return f"{where} holds {bad}" if bad else None
    if isinstance(value, dict | list | tuple):
        for k, x in value.items() if isinstance(value, dict) else enumerate(value):
            here = f"{where}.{k}" if isinstance(value, dict) else f"{where}[{k}]"
            if isinstance(k, str) and bad_char(k):
                return f"a key in {where} holds {bad_char(k)}"
            found = first_bad(x, here)
            if found:
                return found
    return None


def _escaped(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


def storable(value: Any) -> Any:
    """``value`` with every NUL and lone surrogate written as its escape (``\\u0000``), keys
    too: what a refused answer is recorded as, so the record keeps what was said."""
    if isinstance(value, str):
        return _UNSTORABLE.sub(_escaped, value)
    if isinstance(value, dict):
        return {storable(k): storable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [storable(v) for v in value]
    return value
