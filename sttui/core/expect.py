"""Declarative expectations on state paths, shared by checklists and state triggers."""

from __future__ import annotations

from typing import Any, Literal, TypeGuard

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

    def why_not(self, actual: Any) -> str | None:
        """Why the expectation can never hold on this value, when that is so (``contains`` on
        a number, say): said in a failed item's detail."""
        return contains_meaningless(actual, self.expected) if self.operator == "contains" else None


_NONE = object()


def _shown(actual: Any) -> Any:
    return None if actual is _NONE else actual


def is_records(value: Any) -> TypeGuard[dict[Any, dict[str, Any]]]:
    """A mapping of records: a non-empty mapping whose every value is a mapping
    (``patients: {P-1: {...}, P-2: {...}}``)."""
    return isinstance(value, dict) and bool(value) and all(isinstance(v, dict) for v in value.values())


def _includes(record: dict[str, Any], want: dict[str, Any]) -> bool:
    return all(record.get(k, _NONE) == v for k, v in want.items())


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "text"
    return "a mapping" if isinstance(value, dict) else "a list"


def contains_meaningless(actual: Any, want: Any) -> str | None:
    """Why ``contains: want`` can never hold on ``actual``, and what to write instead; None
    when it has a meaning. Loading asks this of the value a path has in ``initial_state``."""
    if actual is None or isinstance(actual, bool | int | float):
        return (
            f"contains has no meaning on {_kind(actual)} (nothing is inside {actual!r}): "
            f"write equals: {want!r} (or in: [..], gte, lte)"
        )
    if isinstance(actual, str) and (isinstance(want, bool) or not isinstance(want, str | int | float)):
        return f"contains on text looks for text, and {want!r} is {_kind(want)}: write the text to find"
    items_are_mappings = isinstance(actual, list) and actual and all(isinstance(i, dict) for i in actual)
    if items_are_mappings and not isinstance(want, str | dict):
        return (
            f"the items are mappings, never {_kind(want)}: write contains: {{FIELD: {want!r}}} "
            "for an item with that value"
        )
    return None


def _contains(actual: Any, want: Any) -> bool:
    """Text holds the text (a number is looked for as written); a list holds the item (for a
    mapping ``want``: an item including its key/values; for text: also a mapping item with a
    text value containing it); a mapping holds the key, or includes ``want``'s key/values, or
    (a mapping of records) has a record that includes them. A number, boolean or null holds
    nothing (see :func:`contains_meaningless`)."""
    if isinstance(actual, str):
        return not isinstance(want, bool) and isinstance(want, str | int | float) and str(want) in actual
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
        if isinstance(want, str):
            return want in actual or any(
                isinstance(item, dict) and any(isinstance(v, str) and want in v for v in item.values())
                for item in actual
            )
        return want in actual
    return False


def _compare(actual: Any, want: Any) -> int:
    """Numbers compare as numbers; anything else (ISO timestamps) as strings."""
    if isinstance(actual, int | float) and isinstance(want, int | float):
        return (actual > want) - (actual < want)
    a, w = str(actual), str(want)
    return (a > w) - (a < w)
