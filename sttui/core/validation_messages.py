"""Pydantic's validation errors as an author reads them: the field where it went wrong and what
was expected there, in words (task files, explore catalogs and study files alike)."""

from __future__ import annotations

import typing
from typing import Any

from pydantic import BaseModel

from sttui.core.problems import Loc, did_you_mean
from sttui.core.task import EFFECT_KEYS, _effect_tag

__all__ = ["clean_loc", "error_message"]


def clean_loc(loc: tuple[Any, ...]) -> Loc:
    """Drop union tags pydantic puts in locations (``effects.0.set.value`` -> ``effects.0.value``)."""
    out: list[str | int] = []
    for i, part in enumerate(loc):
        if (
            part in EFFECT_KEYS
            and i >= 2
            and loc[i - 2] == "effects"
            and isinstance(loc[i - 1], int)
            and i + 1 < len(loc)
        ):
            continue
        out.append(part)
    return tuple(out)


def _data_at(data: Any, loc: Loc) -> Any:
    for part in loc:
        try:
            data = data[part]
        except (KeyError, IndexError, TypeError):
            return None
    return data


def _models_in(annotation: Any) -> list[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    found: list[type[BaseModel]] = []
    for arg in typing.get_args(annotation):
        found.extend(_models_in(arg))
    return found


def _model_at(data: Any, loc: Loc, root: type[BaseModel]) -> type[BaseModel] | None:
    """The model class that validates the mapping at ``loc``."""
    model: type[BaseModel] = root
    for i, part in enumerate(loc):
        if isinstance(part, int):
            continue
        field = model.model_fields.get(part) or next((f for f in model.model_fields.values() if f.alias == part), None)
        if field is None:
            return None
        candidates = _models_in(field.annotation)
        if not candidates:
            return None
        if len(candidates) > 1:
            tag = _effect_tag(_data_at(data, loc[: i + 2]))
            candidates = [c for c in candidates if tag in c.model_fields]
            if not candidates:
                return None
        model = candidates[0]
    return model


def _allowed(model: type[BaseModel]) -> list[str]:
    out = []
    for fname, f in model.model_fields.items():
        out.append(f.alias or ("in" if fname == "in_" else fname))
    return out


_TYPE_WORDS = {
    "string_type": "text",
    "int_type": "an integer",
    "int_parsing": "an integer",
    "float_type": "a number",
    "float_parsing": "a number",
    "bool_type": "true or false",
    "bool_parsing": "true or false",
    "dict_type": "a mapping",
    "list_type": "a list",
    "model_type": "a mapping",
    "model_attributes_type": "a mapping",
    "datetime_type": "an ISO timestamp like 2024-08-15T06:00:00",
    "datetime_parsing": "an ISO timestamp like 2024-08-15T06:00:00",
    "datetime_from_date_parsing": "an ISO timestamp like 2024-08-15T06:00:00",
}


def error_message(err: Any, data: Any, loc: Loc, root: type[BaseModel]) -> str:
    kind = err["type"]
    got = err.get("input")
    shown = repr(got) if not isinstance(got, dict | list) else type(got).__name__
    if kind == "missing":
        return "required field is missing"
    if kind == "extra_forbidden":
        key = str(loc[-1])
        model = _model_at(data, loc[:-1], root)
        allowed = _allowed(model) if model else []
        tail = f"; expected one of: {', '.join(allowed)}" if allowed else ""
        return f"unknown field '{key}'{did_you_mean(key, allowed)}{tail}"
    if kind == "literal_error":
        return f"expected {err['ctx']['expected']}; got {shown}"
    if kind in _TYPE_WORDS:
        return f"expected {_TYPE_WORDS[kind]}; got {shown}"
    if kind == "string_pattern_mismatch":
        field = loc[-1] if loc else ""
        if field == "id":
            return f"expected lowercase letters, digits and dashes (like logistics-insulin-t2-medium); got {shown}"
        if field == "env":
            return f"expected module:Class (like logistics.env:LogisticsEnv); got {shown}"
        return f"expected text matching {err['ctx']['pattern']}; got {shown}"
    if kind == "too_short":
        return f"expected at least {err['ctx']['min_length']} item(s)"
    if kind in ("greater_than_equal", "greater_than"):
        return f"expected a number >= {err['ctx'].get('ge', err['ctx'].get('gt'))}; got {shown}"
    if kind == "value_error":
        return str(err["msg"]).removeprefix("Value error, ")
    if kind == "effect_kind":
        if isinstance(got, dict):
            shown = "keys " + ", ".join(map(str, got))
        return f"expected an effect with one of the keys {', '.join(EFFECT_KEYS)}; got {shown}"
    msg = str(err["msg"])
    return f"{msg[:1].lower()}{msg[1:]}; got {shown}"
