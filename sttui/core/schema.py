"""JSON Schema for tool parameters, derived from signatures, hints and docstrings,
and a small validator for that subset that says exactly what is wrong."""

from __future__ import annotations

import inspect
import re
import types
import typing
from typing import Any, Literal, Union, get_args, get_origin

from sttui.core.problems import did_you_mean

_SCALARS: dict[Any, str] = {str: "string", int: "integer", float: "number", bool: "boolean"}


def parse_docstring(doc: str | None) -> tuple[str, dict[str, str]]:
    """Split a Google-style docstring into (description, {param: text})."""
    if not doc:
        return "", {}
    lines = inspect.cleandoc(doc).splitlines()
    desc: list[str] = []
    params: dict[str, str] = {}
    section = None
    current = None
    for line in lines:
        stripped = line.strip()
        header = re.fullmatch(r"(Args|Arguments|Parameters|Returns|Raises|Example|Examples):", stripped)
        if header:
            section = header.group(1)
            current = None
            continue
        if section is None:
            desc.append(line)
        elif section in ("Args", "Arguments", "Parameters"):
            m = re.match(r"^\s{0,8}(\w+)(?:\s*\([^)]*\))?:\s*(.*)$", line)
            if m and not line.startswith(" " * 8):
                current = m.group(1)
                params[current] = m.group(2).strip()
            elif current and stripped:
                params[current] = f"{params[current]} {stripped}".strip()
    text = " ".join(" ".join(desc).split())
    return text, params


def type_schema(hint: Any) -> dict[str, Any]:
    """JSON Schema for one type hint."""
    if hint in _SCALARS:
        return {"type": _SCALARS[hint]}
    origin = get_origin(hint)
    args = get_args(hint)
    if origin is Literal:
        kinds = {_SCALARS.get(type(a), "string") for a in args}
        out: dict[str, Any] = {"enum": list(args)}
        if len(kinds) == 1:
            out["type"] = kinds.pop()
        return out
    if origin in (Union, types.UnionType):
        non_null = [a for a in args if a is not type(None)]
        inner = type_schema(non_null[0]) if len(non_null) == 1 else {"anyOf": [type_schema(a) for a in non_null]}
        if len(non_null) < len(args):
            if "type" in inner:
                inner = {**inner, "type": [inner["type"], "null"]}
            else:
                inner = {"anyOf": [inner, {"type": "null"}]}
        return inner
    if origin in (list, tuple, set, typing.Sequence) or hint in (list, tuple):
        out = {"type": "array"}
        if args:
            out["items"] = type_schema(args[0])
        return out
    if origin is dict or hint is dict:
        return {"type": "object"}
    if hint is Any or hint is inspect.Parameter.empty:
        return {}
    raise TypeError(f"unsupported parameter type {hint!r}")


def function_schema(fn: Any) -> tuple[str, dict[str, Any]]:
    """(description, parameters schema) for a tool method, skipping ``self``."""
    sig = inspect.signature(fn)
    hints = typing.get_type_hints(fn)
    desc, param_docs = parse_docstring(fn.__doc__)
    props: dict[str, Any] = {}
    required: list[str] = []
    for name, param in sig.parameters.items():
        if name == "self" or param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        schema = type_schema(hints.get(name, Any))
        if name in param_docs:
            schema["description"] = param_docs[name]
        if param.default is param.empty:
            required.append(name)
        else:
            schema["default"] = param.default
        props[name] = schema
    params: dict[str, Any] = {"type": "object", "properties": props, "additionalProperties": False}
    if required:
        params["required"] = required
    return desc, params


_PY_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list,),
    "object": (dict,),
    "null": (type(None),),
}


def _type_ok(value: Any, kind: str) -> bool:
    if kind in ("integer", "number") and isinstance(value, bool):
        return False
    return isinstance(value, _PY_TYPES[kind])


def _describe(schema: dict[str, Any]) -> str:
    if "enum" in schema:
        return "one of " + ", ".join(repr(v) for v in schema["enum"])
    kind = schema.get("type")
    if isinstance(kind, list):
        return " or ".join(kind)
    if kind == "array" and "items" in schema:
        return f"a list of {_describe(schema['items'])}"
    return {
        "string": "a string",
        "integer": "an integer",
        "number": "a number",
        "boolean": "true or false",
        "array": "a list",
        "object": "an object",
    }.get(kind or "", "any value")


def check_value(value: Any, schema: dict[str, Any], where: str) -> str | None:
    """None when ``value`` fits ``schema``, else a sentence saying why not."""
    if type(value) is str and schema.get("type") == "string" and "anyOf" not in schema and "enum" not in schema:
        return None  # (most arguments: what the checks below conclude, without them)
    if "anyOf" in schema:
        if any(check_value(value, s, where) is None for s in schema["anyOf"]):
            return None
        return f"{where} must be {' or '.join(_describe(s) for s in schema['anyOf'])}, got {value!r}"
    kind = schema.get("type")
    if kind is not None:
        kinds = kind if isinstance(kind, list) else [kind]
        if not any(_type_ok(value, k) for k in kinds):
            return f"{where} must be {_describe(schema)}, got {value!r}"
    if "enum" in schema and value not in schema["enum"]:
        return f"{where} must be {_describe(schema)}, got {value!r}"
    if isinstance(value, list) and "items" in schema:
        for i, item in enumerate(value):
            problem = check_value(item, schema["items"], f"{where}[{i}]")
            if problem:
                return problem
    return None


def check_args(args: Any, params: dict[str, Any], tool: str) -> str | None:
    """None when ``args`` satisfy the tool's parameter schema, else the reason."""
    if not isinstance(args, dict):
        return f"arguments to {tool} must be an object of name=value pairs, got {args!r}"
    props: dict[str, Any] = params.get("properties", {})
    for name in args:
        if name not in props:
            allowed = ", ".join(props) or "none"
            return f"{tool} has no parameter '{name}'{did_you_mean(name, props)}; parameters: {allowed}"
    missing = [n for n in params.get("required", []) if n not in args]
    if missing:
        return f"{tool} is missing required parameter{'s' if len(missing) > 1 else ''} " + ", ".join(missing)
    for name, value in args.items():
        problem = check_value(value, props[name], name)
        if problem:
            return f"{tool}: {problem}"
    return None
