"""A markdown table in an agent's message, read as the lines of a report.

A person or a model may report in a table:

    | Who          | Flight(s)       | Lands |
    |--------------|-----------------|-------|
    | Ingrid, Sara | KL1143 + SK271  | 20:25 |

The judge reads clauses; a pipe is no clause mark, and "Ingrid, Sara | KL1143 + SK271" had not
given Ingrid her first flight. ``as_read`` writes each row as the line "Ingrid, Sara:
KL1143 + SK271, 20:25." would be (its first cell a label, the rest a list) and blanks the
rule under the header, keeping the text's length, so what the judge quotes from it stands
where it stood in the message as written.
"""

from __future__ import annotations

import re

_ROW = re.compile(r"^[ \t]*\|.*\|[ \t]*$", re.MULTILINE)
_RULE = re.compile(r"[\s|:-]+")


def as_read(text: str) -> str:
    """``text`` with each markdown table row written as a line of prose, the same length."""
    if "|" not in text:  # (almost every message)
        return text
    out = list(text)
    for row in _ROW.finditer(text):
        start, end = row.span()
        if _RULE.fullmatch(row.group()) and "-" in row.group():  # the rule under the header
            for i in range(start, end):
                out[i] = " "
            continue
        pipes = [i for i in range(start, end) if text[i] == "|"]
        if len(pipes) < 3:  # (a row of one cell, or a pipe in a line of prose)
            continue
        out[pipes[0]] = " "
        for n, i in enumerate(pipes[1:], 1):
            mark = ":" if n == 1 else "." if n == len(pipes) - 1 else ","
            if text[i - 1] == " " and i - 1 > pipes[n - 1]:  # "Sara | KL1143" reads "Sara:  KL1143"
                out[i - 1], out[i] = mark, " "
            else:
                out[i] = mark
    return "".join(out)
