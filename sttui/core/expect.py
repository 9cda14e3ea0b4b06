"""Declarative expectations on state paths, shared by checklists and state triggers."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, model_validator

from sttui.core import state as st

OPERATORS = ("equals", "not_equals", "in", "contains", "gte", "lte", "exists", "absent")
Operator = Literal["equals", "not_equals", "in", "contains", "gte", "lte", "exists", "absent"]


class Expect(BaseModel):
    """``{path: P, <operator>: value}`` with exactly one operator."""

    model_config = ConfigDict(extra="forbid")

    path: str
    equals: Any = None
    not_equals: Any = None
    in_: list[Any] | None = None
    contains: Any = None
    gte: float | str | None = None
    lte: float | str | None = None
    exists: bool | None = None
    absent: bool | None = None

    @model_validator(mode="before")
    @classmethod
    def _rename_in(cls, data: Any) -> Any:
        if isinstance(data, dict) and "in" in data:
            data = dict(data)
            data["in_"] = data.pop("in")
        return data

    @model_validator(mode="after")
    def _one_operator(self) -> Expect:
        given = [op for op in OPERATORS if op in self._set_fields()]
        if len(given) != 1:
            raise ValueError(
                f"expected exactly one operator of {', '.join(OPERATORS)}; got "
                + (", ".join(given) if given else "none")
            )
        return self

    def _set_fields(self) -> set[str]:
        return {"in" if f == "in_" else f for f in self.model_fields_set}

    @property
    def operator(self) -> str:
        return next(op for op in OPERATORS if op in self._set_fields())

    @property
    def expected(self) -> Any:
        return getattr(self, "in_" if self.operator == "in" else self.operator)

    def evaluate(self, state: Any) -> tuple[bool, Any]:
        """(holds, actual value or None when the path is missing)."""
        actual = st.lookup(state, self.path, _NONE)
        op, want = self.operator, self.expected
        if op == "exists":
            return (actual is not _NONE) == bool(want), _shown(actual)
        if op == "absent":
            return (actual is _NONE) == bool(want), _shown(actual)
        if actual is _NONE:
            return False, None
        if op == "equals":
            ok = actual == want
        elif op == "not_equals":
            ok = actual != want
        elif op == "in":
            ok = actual in want
        elif op == "contains":
            ok = _contains(actual, want)
        elif op == "gte":
            ok = _compare(actual, want) >= 0
        else:  # lte
            ok = _compare(actual, want) <= 0
        return ok, actual

    def describe(self) -> str:
        return f"{self.path} {self.operator} {self.expected!r}"


_NONE = object()


def _shown(actual: Any) -> Any:
    return None if actual is _NONE else actual


def is_records(value: Any) -> bool:
    """A mapping of records: a non-empty mapping whose every value is a mapping
    (``patients: {P-1: {...}, P-2: {...}}``)."""
    return isinstance(value, dict) and bool(value) and all(isinstance(v, dict) for v in value.values())


def _includes(record: dict[str, Any], want: dict[str, Any]) -> bool:
    return all(record.get(k, _NONE) == v for k, v in want.items())


def _contains(actual: Any, want: Any) -> bool:
    """Text holds the text; a list holds the item (for a mapping ``want``: an item including
    its key/values); a mapping holds the key, or includes ``want``'s key/values, or (a mapping
    of records) has a record that includes them."""
    if isinstance(actual, str):
        return str(want) in actual
    if isinstance(actual, dict):
        if isinstance(want, dict):
            if _includes(actual, want):
                return True
            return is_records(actual) and any(_includes(r, want) for r in actual.values())
        return want in actual
    if isinstance(actual, list):
        if isinstance(want, dict):
            return any(
                isinstance(item, dict) and all(item.get(k, _NONE) == v for k, v in want.items()) for item in actual
            )
        return want in actual
    return False


def _compare(actual: Any, want: Any) -> int:
    """Numbers compare as numbers; anything else (ISO timestamps) as strings."""
    if isinstance(actual, int | float) and isinstance(want, int | float):
        return (actual > want) - (actual < want)
    a, w = str(actual), str(want)
    return (a > w) - (a < w)
