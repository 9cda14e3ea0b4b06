"""The call entry's syntax: ``tool(arg=value, ...)``, parsed with errors that say where.

Values are JSON literals (numbers, true/false/null, "text", [lists], {objects}), single-
quoted text, or bare words, which are text: ``get_vehicle_status(vehicle_id=TRK-7)``. Bare
words work inside lists and objects too: ``rebook(from_flights=[BA576], to_flights=[BA578])``.
"""

from __future__ import annotations

import json
import re
from typing import Any

from sttui.core.actions import Say, ToolCall
from sttui.core.problems import did_you_mean
from sttui.core.schema import check_args

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_NUMBER = re.compile(r"-?\d+(\.\d+)?([eE][-+]?\d+)?$")


class CallSyntaxError(ValueError):
    """What is wrong with a typed call, and at which character."""

    def __init__(self, message: str, position: int):
        self.position = position
        super().__init__(f"{message} (at character {position + 1})")


MAX_NESTING = 32  # lists and objects inside one another; no tool needs more, and parsers recurse


def nesting(text: str) -> int:
    """How deep brackets and braces nest in ``text`` (outside double-quoted strings), found without
    recursion, so a hostile value is refused before any parser recurses into it."""
    depth = deepest = 0
    quote: str | None = None
    escaped = False
    for ch in text:
        if quote:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == quote:
                quote = None
        elif ch == '"':  # JSON's strings; a single quote may be an apostrophe in a bare word
            quote = ch
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth = max(0, depth - 1)
    return deepest


def parse_call(text: str) -> tuple[str, dict[str, Any]]:
    """``'assign_vehicle(shipment_id=SHP-1, vehicle_id="TRK-9")'`` -> (name, args)."""
    src = text.strip()
    deep = nesting(src)
    if deep > MAX_NESTING:
        raise CallSyntaxError(f"a value nests {deep} lists or objects deep; at most {MAX_NESTING}", 0)
    try:
        return _call(src)
    except RecursionError:  # a nesting that the count above could not see (inside odd quoting)
        raise CallSyntaxError(f"a value nests too deep; at most {MAX_NESTING} lists or objects", 0) from None


def _call(src: str) -> tuple[str, dict[str, Any]]:
    m = _NAME.match(src)
    if not m:
        raise CallSyntaxError("expected a tool name, like get_vehicle_status(vehicle_id=TRK-7)", 0)
    name, pos = m.group(0), m.end()
    pos = _skip(src, pos)
    if pos >= len(src):
        return name, {}  # a bare tool name is a call without arguments
    if src[pos] != "(":
        raise CallSyntaxError(f"expected '(' after {name}", pos)
    pos += 1
    args: dict[str, Any] = {}
    pos = _skip(src, pos)
    if pos < len(src) and src[pos] == ")":
        return name, _end(src, pos + 1, args)
    while True:
        pos = _skip(src, pos)
        m = _NAME.match(src, pos)
        if not m:
            raise CallSyntaxError("expected an argument name", pos)
        arg, pos = m.group(0), _skip(src, m.end())
        if pos >= len(src) or src[pos] != "=":
            raise CallSyntaxError(f"expected '=' after {arg}", pos)
        if arg in args:
            raise CallSyntaxError(f"{arg} is given twice", m.start())
        value, pos = _value(src, _skip(src, pos + 1))
        args[arg] = value
        pos = _skip(src, pos)
        if pos >= len(src):
            raise CallSyntaxError("missing ')' at the end", pos)
        if src[pos] == ")":
            return name, _end(src, pos + 1, args)
        if src[pos] != ",":
            raise CallSyntaxError("expected ',' or ')' after a value", pos)
        pos += 1


def _end(src: str, pos: int, args: dict[str, Any]) -> dict[str, Any]:
    if src[pos:].strip():
        raise CallSyntaxError("unexpected text after ')'; make one call per turn", pos)
    return args


def _skip(src: str, pos: int) -> int:
    while pos < len(src) and src[pos].isspace():
        pos += 1
    return pos


def _value(src: str, pos: int, stops: str = ",)") -> tuple[Any, int]:
    """One value from ``pos``; a bare word runs up to the first of ``stops``."""
    if pos >= len(src):
        raise CallSyntaxError("expected a value", pos)
    ch = src[pos]
    if ch in "\"'":
        end = pos + 1
        while end < len(src) and src[end] != ch:
            end += 2 if src[end] == "\\" else 1
        if end >= len(src):
            raise CallSyntaxError("unterminated text: a closing quote is missing", pos)
        raw = src[pos + 1 : end]
        return (json.loads(f'"{raw}"') if ch == '"' else raw.replace("\\'", "'")), end + 1
    if ch in "[{":
        end = _matching(src, pos)
        try:
            return json.loads(src[pos : end + 1]), end + 1
        except json.JSONDecodeError:
            pass  # not JSON: perhaps bare words inside, [BA576, KL641] or {seat: 12A}
        return (_list if ch == "[" else _object)(src, pos, end)
    end = pos
    while end < len(src) and src[end] not in stops:
        end += 1
    word = src[pos:end].strip()
    if not word:
        raise CallSyntaxError("expected a value", pos)
    if word in ("true", "false", "null"):
        return json.loads(word), end
    if _NUMBER.match(word):
        return json.loads(word), end
    return word, end


def _list(src: str, pos: int, end: int) -> tuple[list[Any], int]:
    """``[a, "b", 3]`` between ``pos`` and its closing bracket at ``end``."""
    out: list[Any] = []
    pos = _skip(src, pos + 1)
    if pos == end:
        return out, end + 1
    while True:
        value, pos = _value(src, _skip(src, pos), ",]")
        out.append(value)
        pos = _skip(src, pos)
        if pos == end:
            return out, end + 1
        if pos > end or src[pos] != ",":
            raise CallSyntaxError("expected ',' or ']' in a list", pos)
        pos += 1


def _object(src: str, pos: int, end: int) -> tuple[dict[str, Any], int]:
    """``{key: value, "other key": 2}`` between ``pos`` and its closing brace at ``end``."""
    out: dict[str, Any] = {}
    pos = _skip(src, pos + 1)
    if pos == end:
        return out, end + 1
    while True:
        key, pos = _value(src, _skip(src, pos), ":,}")
        pos = _skip(src, pos)
        if pos >= end or src[pos] != ":":
            raise CallSyntaxError("expected ':' after a key in an object", pos)
        value, pos = _value(src, _skip(src, pos + 1), ",}")
        out[str(key)] = value
        pos = _skip(src, pos)
        if pos == end:
            return out, end + 1
        if pos > end or src[pos] != ",":
            raise CallSyntaxError("expected ',' or '}' in an object", pos)
        pos += 1


def _matching(src: str, pos: int) -> int:
    depth, quote = 0, None
    i = pos
    while i < len(src):
        ch = src[i]
        if quote:
            if ch == "\\":
                i += 1
            elif ch == quote:
                quote = None
        elif ch == '"':  # JSON's strings; a single quote may be an apostrophe in a bare word
            quote = ch
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    raise CallSyntaxError(f"unclosed '{src[pos]}'", pos)


def format_call(name: str, args: dict[str, Any]) -> str:
    """The canonical text of a call, which parses back to the same thing."""

    def one(v: Any) -> str:
        if (
            isinstance(v, str)
            and re.fullmatch(r"[A-Za-z0-9_.:\-+/@ ]+", v)
            and v == v.strip()
            and v not in ("true", "false", "null")
            and not _NUMBER.match(v)
        ):
            return v
        return json.dumps(v, ensure_ascii=False)

    return f"{name}({', '.join(f'{k}={one(v)}' for k, v in args.items())})"


def complete(text: str, tools: dict[str, list[str]]) -> str | None:
    """The completed text for what is typed so far: a tool name, or a parameter name + '='."""
    if "(" not in text:
        matches = sorted(t for t in tools if t.startswith(text))
        return f"{matches[0]}(" if text and matches else None
    name = text.split("(", 1)[0].strip()
    params = tools.get(name)
    if params is None:
        return None
    tail = re.search(r"[(,]\s*([A-Za-z_][A-Za-z0-9_]*)?$", text)
    if not tail:
        return None
    typed = tail.group(1) or ""
    used = set(re.findall(r"([A-Za-z_][A-Za-z0-9_]*)\s*=", text))
    options = [p for p in params if p.startswith(typed) and p not in used]
    if not options:
        return None
    return text[: len(text) - len(typed)] + options[0] + "="


def entry_action(text: str, tools: dict[str, Any]) -> tuple[str | None, Any]:
    """(why it is refused, action) for a line typed in a call entry: ``> message`` is a message,
    anything else a call, checked against ``tools`` (name → ToolSpec) as the engine will check it.
    The play screen's entry and the refinement editor both read lines through here."""
    text = text.strip()
    if text.startswith(">"):
        message = text[1:].strip()
        return (None, Say(message)) if message else ("write the message after '>'", None)
    try:
        name, args = parse_call(text)
    except CallSyntaxError as exc:
        return f"not a call: {exc}", None
    if name not in tools:
        return f"no tool '{name}'{did_you_mean(name, tools)}", None
    problem = check_args(args, tools[name].parameters, name)
    if problem:
        return problem, None
    return None, ToolCall(name, args)


def result_summary(result: dict[str, Any], width: int = 90) -> str:
    """A folded result in one line: its top-level plain values (``status cancelled``), then
    how many lists and objects it holds, so folding hides no headline."""
    if not result.get("success"):
        return f"failed: {result.get('error', '')}"
    plain, nested = [], []
    for key, value in result.items():
        if key == "success":
            continue
        if isinstance(value, dict | list):
            nested.append(f"{key} ({len(value)})")
        else:
            plain.append(f"{key} {value}")
    text = ", ".join(plain + nested) or "ok"
    return text if len(text) <= width else text[: width - 1] + "…"
