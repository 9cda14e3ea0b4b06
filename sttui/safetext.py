"""Text from data made safe for a terminal: the one place where a record's, a task file's or a
model's text loses what a terminal would obey instead of show.

An imported episode whose controller is ``human:\\x1b]0;PWNED\\x07…\\r`` must print as that text,
not retitle the window, ring the bell or overwrite the line. Every control character (C0, DEL,
C1) and the Unicode marks that reorder a line (bidirectional overrides) become a visible escape
(``\\x1b``, ``\\r``, ``\\u202e``); everything else is kept as it was. ``visible`` is for a field (a
newline inside it is shown as ``\\n``, so it cannot forge a row); ``visible_lines`` is for whole
output, whose own line breaks and tabs stay.
"""

from __future__ import annotations

import re

_NAMED = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}
_BIDI = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
_FIELD = re.compile(f"[\x00-\x1f\x7f-\x9f{_BIDI}]")
_LINES = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{_BIDI}]")


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: object) -> str:
    """One field as a terminal may show it: every control character as a visible escape."""
    text = text if isinstance(text, str) else str(text)
    return _FIELD.sub(_escape, text) if _FIELD.search(text) else text


def visible_lines(text: str) -> str:
    """Output of whole lines: as ``visible``, but its line breaks and tabs kept."""
    return _LINES.sub(_escape, text) if _LINES.search(text) else text


def control_free(name: str) -> bool:
    """A name with nothing a terminal would obey (the check at entry for ``--as`` and the like)."""
    return _FIELD.search(name) is None
