"""Stored JSON that every reader can parse: an episode's ``outcome`` and ``scores`` with each float
JSON cannot hold (NaN, infinity) written as null, as JavaScript's ``JSON.stringify`` writes it.

Python's ``json`` writes those floats as ``NaN`` and ``Infinity``, which is not JSON: PostgreSQL
refuses the value, and SQLite's JSON functions call it malformed. On SQLite the listing indexes
(migration 0012) take values out of both columns as each row is written, so such a value would
make the write itself fail, and an episode's end would be lost over one odd number."""

from __future__ import annotations

import json
import math
from typing import Any

_STRICT = json.JSONEncoder(allow_nan=False, default=str, ensure_ascii=False)


def finite(value: Any) -> Any:
    """``value``, or a copy with every NaN or infinite float as None (the common case, nothing to
    change, costs one serialisation and returns ``value`` itself)."""
    try:
        _STRICT.encode(value)
    except ValueError:
        return _walk(value)
    return value


def _walk(value: Any) -> Any:
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _walk(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_walk(v) for v in value]
    return value
