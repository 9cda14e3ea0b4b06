"""The ``kind: explore`` episode file as Pydantic models (unknown keys rejected).

Field-by-field documentation is in ``docs/task-format.md`` (part 2).
"""

from __future__ import annotations

import math
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

FAMILIES = ("additive", "conjunctive", "disjunctive", "lexicographic")
SETTINGS = ("default", "stationary", "evidence_given", "forced_probe")
Family = Literal["additive", "conjunctive", "disjunctive", "lexicographic"]
Direction = Literal["increasing", "decreasing"]
Setting = Literal["default", "stationary", "evidence_given", "forced_probe"]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class FieldSpec(Strict):
    """An observable field: numeric with a range, or categorical with ordered levels."""

    name: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    type: Literal["numeric", "categorical"]
    description: str
    range: tuple[Annotated[float, Field(allow_inf_nan=False)], Annotated[float, Field(allow_inf_nan=False)]] | None = (
        None
    )
    unit: str = ""
    decimals: int = Field(default=0, ge=0, le=6)
    levels: list[str] | None = None

    @model_validator(mode="after")
    def _shape(self) -> FieldSpec:
        if self.type == "numeric":
            if self.range is None or self.levels is not None:
                raise ValueError("a numeric field needs range: [low, high] and no levels")
            if not self.range[0] < self.range[1]:
                raise ValueError(f"expected range low < high; got {list(self.range)}")
            if not math.isfinite(self.range[1] - self.range[0]):  # samples are low + width * u: all inf
                raise ValueError(
                    f"expected a range whose width (high - low) is a finite number; {list(self.range)} is wider "
                    "than a float holds, so every sampled value would be infinite"
                )
        else:
            if not self.levels or len(self.levels) < 2 or self.range is not None:
                raise ValueError("a categorical field needs at least two ordered levels and no range")
            if len(set(self.levels)) != len(self.levels):
                raise ValueError("levels must be distinct")
        return self


class ActionSpec(Strict):
    id: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    description: str


class Factor(Strict):
    """A relevant field, the direction in which it raises intervention, and its parameter."""

    field: str
    direction: Direction
    weight: float | None = Field(default=None, gt=0)
    threshold: float | None = Field(default=None, ge=0, le=1)


class Rule(Strict):
    family: Family
    factors: list[Factor] = Field(min_length=2, max_length=5)

    @model_validator(mode="after")
    def _params(self) -> Rule:
        names = [f.field for f in self.factors]
        if len(set(names)) != len(names):
            raise ValueError("a field can be a factor only once")
        need = "weight" if self.family == "additive" else "threshold"
        other = "threshold" if need == "weight" else "weight"
        for f in self.factors:
            if getattr(f, need) is None:
                raise ValueError(f"every factor of a {self.family} rule needs a {need}")
            if getattr(f, other) is not None:
                raise ValueError(f"{other} does not apply to a {self.family} rule")
        return self


class Replacement(Strict):
    factor: str
    by: str
    direction: Direction


class Drift(Strict):
    after_batch: int = Field(ge=1)
    replace: Replacement
    reverse: str


class Schedule(Strict):
    """Limits keep an episode's pre-drawn cases within memory (docs: "Limits")."""

    batches: int = Field(default=12, ge=2, le=1000)
    cases_per_batch: int = Field(default=8, ge=1, le=1000)
    probe_cap: int = Field(default=8, ge=1, le=1000)


class ExploreTask(Strict):
    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    kind: Literal["explore"]
    title: str
    domain: str
    scenario: str
    fields: list[FieldSpec] = Field(min_length=3)
    actions: list[ActionSpec] = Field(min_length=4, max_length=4)
    rule: Rule
    drift: Drift | None = None
    schedule: Schedule = Field(default_factory=Schedule)
    setting: Setting = "default"
    seed: int = Field(default=0, ge=0, le=2**63 - 1)
    description: str = ""

    @property
    def drifts(self) -> bool:
        return self.drift is not None and self.setting != "stationary"
