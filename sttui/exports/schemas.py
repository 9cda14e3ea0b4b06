"""Tool schemas that Arrow can hold: Hugging Face ``datasets`` gives every JSON path one column
type across all rows, so a path whose value is a string in one tool and a list or a number in
another fails to load (``type`` as ``["string", "null"]``, a ``default`` of 5 beside one of "x").

The schemas keep their meaning as JSON Schema: a list of types becomes ``anyOf``; values that
are data rather than schema (``default``, ``enum``, ``const``) stay when they are strings and are
otherwise said in the description, where every path is a string.
"""

from __future__ import annotations

import json
from typing import Any

# keywords that constrain one JSON type, so they move into that type's branch of an anyOf
_BRANCH_KEYS = {
    "items",
    "properties",
    "required",
    "additionalProperties",
    "enum",
    "const",
    "minimum",
    "maximum",
    "minItems",
    "maxItems",
    "minLength",
    "maxLength",
    "pattern",
    "format",
}
_DATA_KEYS = ("default", "enum", "const")


def arrow_safe_tools(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """OpenAI function schemas with every parameter schema made Arrow-safe (see the module)."""
    out = []
    for tool in tools:
        fn = dict(tool.get("function") or {})
        if isinstance(fn.get("parameters"), dict):
            fn["parameters"] = arrow_safe(fn["parameters"])
        out.append({**tool, "function": fn})
    return out


def arrow_safe(schema: Any) -> Any:
    """One JSON Schema, recursively: type lists as anyOf, non-string data in the description."""
    if not isinstance(schema, dict):
        return schema
    s = dict(schema)
    notes = []
    for key in _DATA_KEYS:
        if key not in s:
            continue
        value = s[key]
        if key == "default" and value is None:
            del s[key]  # a null default says only that the parameter may be left out
        elif not (isinstance(value, str) or (isinstance(value, list) and all(isinstance(v, str) for v in value))):
            notes.append(f"{'one of' if key == 'enum' else key} {json.dumps(s.pop(key), ensure_ascii=False)}")
    if notes:
        text = str(s.get("description") or "").rstrip()
        s["description"] = (text + " " if text else "") + "(" + "; ".join(notes) + ")"
    if "properties" in s and isinstance(s["properties"], dict):
        s["properties"] = {k: arrow_safe(v) for k, v in s["properties"].items()}
    if "items" in s:
        s["items"] = arrow_safe(s["items"])
    for key in ("anyOf", "oneOf", "allOf"):
        if isinstance(s.get(key), list):
            s[key] = [arrow_safe(v) for v in s[key]]
    kind = s.get("type")
    if isinstance(kind, list):
        del s["type"]
        solid = [k for k in kind if k != "null"]
        branch = {k: s.pop(k) for k in list(s) if k in _BRANCH_KEYS} if len(solid) == 1 else {}
        options = [{"type": k, **(branch if k == solid[0] else {})} for k in solid] if solid else []
        options += [{"type": "null"}] if "null" in kind else []
        s["anyOf"] = [*s.get("anyOf", []), *options]
    return s
