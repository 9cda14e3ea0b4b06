"""The ``kind: stt`` task file as Pydantic models (unknown keys rejected).

Field-by-field documentation lives in ``docs/task-format.md``; keep the two in step.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Discriminator, Field, Tag, field_validator, model_validator

from sttui.core.expect import Expect
from sttui.core.review.model import Milestone, Minefield, ReviewSettings
from sttui.core.taxonomy import CONFLICTS, LEVELS  # noqa: F401  (re-exported for the models' users)
from sttui.core.usersim import cue_words, key_cue

Conflict = Literal["T1", "T2", "T3", "S1", "S2", "S3", "ST1", "ST2", "ST3"]
Level = Literal["easy", "medium", "hard", "impossible"]

# Limits that keep every run inside what the clock, the record and memory can hold
# (docs/task-format.md, "Limits").
MAX_MINUTES = 525_600  # a year of simulated time in one step
MAX_SEED = 2**63 - 1  # what an integer column holds
MAX_STEPS = 10_000
YEARS = (1900, 2999)  # clock.start: far enough from year 9999 that no run can overflow the clock

Minutes = Annotated[float, Field(ge=0, le=MAX_MINUTES, allow_inf_nan=False)]
Seed = Annotated[int, Field(ge=0, le=MAX_SEED)]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


# -- triggers -------------------------------------------------------------------


class When(Strict):
    """What activates a trigger: exactly one of tool, at, after_calls, state."""

    tool: str | None = None
    args: dict[str, Any] | None = None
    nth: int | None = Field(default=None, ge=1)
    timing: Literal["before", "after"] = "before"
    at: datetime | None = None
    after_calls: int | None = Field(default=None, ge=1)
    state: Expect | None = None

    @model_validator(mode="after")
    def _one_kind(self) -> When:
        kinds = [k for k in ("tool", "at", "after_calls", "state") if getattr(self, k) is not None]
        if len(kinds) != 1:
            raise ValueError(
                "expected exactly one of tool, at, after_calls, state; got " + (", ".join(kinds) or "none")
            )
        if self.tool is None and (self.args is not None or self.nth is not None):
            raise ValueError("args and nth only go with tool")
        return self

    @property
    def kind(self) -> str:
        return next(k for k in ("tool", "at", "after_calls", "state") if getattr(self, k) is not None)


ArgMatch = dict[str, Any] | list[Any] | None


class SetEffect(Strict):
    set: str
    value: Any


class DeleteEffect(Strict):
    delete: str


class AppendEffect(Strict):
    append: str
    value: Any


class DisableTool(Strict):
    disable_tool: str
    for_: ArgMatch = Field(default=None, alias="for")
    error: str | None = None


class EnableTool(Strict):
    enable_tool: str
    for_: ArgMatch = Field(default=None, alias="for")


class FailTool(Strict):
    fail_tool: str
    error: str
    for_: ArgMatch = Field(default=None, alias="for")
    times: int | None = Field(default=None, ge=1)


class ShiftClock(Strict):
    shift_clock: float = Field(ge=-MAX_MINUTES, le=MAX_MINUTES, allow_inf_nan=False)


class MoveEntity(Strict):
    move: str
    to: str
    field: str = "location"


EFFECT_KEYS = ("set", "delete", "append", "disable_tool", "enable_tool", "fail_tool", "shift_clock", "move")


def _effect_tag(value: Any) -> str | None:
    if isinstance(value, dict):
        for key in EFFECT_KEYS:
            if key in value:
                return key
        return None
    return next((k for k in EFFECT_KEYS if hasattr(value, k)), None)


Effect = Annotated[
    Annotated[SetEffect, Tag("set")]
    | Annotated[DeleteEffect, Tag("delete")]
    | Annotated[AppendEffect, Tag("append")]
    | Annotated[DisableTool, Tag("disable_tool")]
    | Annotated[EnableTool, Tag("enable_tool")]
    | Annotated[FailTool, Tag("fail_tool")]
    | Annotated[ShiftClock, Tag("shift_clock")]
    | Annotated[MoveEntity, Tag("move")],
    Discriminator(
        _effect_tag,
        custom_error_type="effect_kind",
        custom_error_message="expected an effect with one of the keys: " + ", ".join(EFFECT_KEYS),
    ),
]


class Trigger(Strict):
    id: str
    description: str = ""
    when: When
    effects: list[Effect] = Field(min_length=1)
    announce: bool | str = False
    once: bool = True


# -- checklist, plans, user -----------------------------------------------------


FactKind = Literal["id", "time", "date", "person", "text"]


class Fact(Strict):
    """One thing the user must be told (a ``tell`` item's entry): its name, where its value
    comes from (a state ``path``, read when the item is judged, or a literal ``value``), its
    ``kind`` (inferred from the value when absent) and, for ids, ``aliases``: words that may
    stand for the id's letter prefix (``{truck: TRK}`` reads "truck 9" as TRK-9). With
    ``field`` the value is an id and the fact is that field of its record (the departure time
    of the flight at ``path``: ``field: departs``). ``about`` names what the fact belongs to
    ("Westfield"), so a report giving it another subject's value is read as a conflict
    (``core.attach``). A ``*`` in the path stands for the record that ``where`` picks (the
    shipment to Westfield, whatever number it was given when the agent created it)."""

    fact: str = Field(min_length=1)
    path: str | None = Field(default=None, min_length=1)
    value: str | int | float | None = None
    field: str | None = Field(default=None, min_length=1)
    kind: FactKind | None = None
    aliases: dict[str, str] = Field(default_factory=dict)
    about: list[str] = Field(default_factory=list)
    where: dict[str, Any] = Field(default_factory=dict)

    @field_validator("about", mode="before")
    @classmethod
    def _about_names(cls, v: Any) -> Any:
        if isinstance(v, str):
            return [v]
        if not isinstance(v, list):
            raise ValueError(f"expected about as a name or a list of names (like Westfield); got {v!r}")
        return v

    @field_validator("where")
    @classmethod
    def _where_values(cls, v: dict[str, Any]) -> dict[str, Any]:
        odd = [f"{k}: {x!r}" for k, x in v.items() if x is None or isinstance(x, dict | list)]
        if odd:
            raise ValueError(f"expected where as field: value, each value text or a number; got {', '.join(odd)}")
        return v

    @model_validator(mode="after")
    def _one_source(self) -> Fact:
        if (self.path is None) == (self.value is None):
            raise ValueError("expected exactly one of path, value")
        if self.aliases and self.kind not in (None, "id"):
            raise ValueError(f"aliases only go with kind id; got kind {self.kind}")
        bad = [f"{k}: {v}" for k, v in self.aliases.items() if not str(k).strip().isalpha() or not str(v).strip()]
        if bad:
            raise ValueError(f"expected aliases as word: PREFIX (like truck: TRK); got {', '.join(bad)}")
        stars = self.path.split(".").count("*") if self.path else 0
        if stars > 1 or (stars and not self.where):
            raise ValueError(
                "expected a path with one * and where: the fields that pick the record "
                "(like path: shipments.*.vehicle, where: {destination: INF-WESTFIELD})"
            )
        if self.where and not stars:
            raise ValueError("where goes with a path holding one * (like shipments.*.vehicle)")
        nameless = [n for n in self.about if not any(c.isalnum() for c in n)]
        if nameless:
            raise ValueError(
                f"expected about as the name of what the fact is about (like Westfield); got {nameless[0]!r}"
            )
        return self


class ChecklistItem(Strict):
    """One success condition: a state expectation, a named check function, or what the user
    must be told (``tell``, judged on the agent's messages: ``core.reports``)."""

    id: str
    description: str = ""
    expect: Expect | None = None
    check: str | None = None
    args: dict[str, Any] = Field(default_factory=dict)
    tell: list[Fact] | None = Field(default=None, min_length=1)

    @model_validator(mode="after")
    def _one_kind(self) -> ChecklistItem:
        if sum(x is not None for x in (self.expect, self.check, self.tell)) != 1:
            raise ValueError("expected exactly one of expect, check, tell")
        if self.args and self.check is None:
            raise ValueError("args only go with check")
        return self


class Step(Strict):
    """One agent action in a recorded plan: a tool call or a message to the user."""

    tool: str | None = None
    args: dict[str, Any] = Field(default_factory=dict)
    say: str | None = None

    @model_validator(mode="after")
    def _one_kind(self) -> Step:
        if (self.tool is None) == (self.say is None):
            raise ValueError("expected exactly one of tool, say")
        return self


class Withheld(Strict):
    """A detail the user knows but does not volunteer, and the ways it may be asked for.

    In a file it is either a plain value or ``{value: …, asked_by: [cue, …]}``; each cue is a
    few words that must all appear in one question of the agent (see ``core.usersim``)."""

    value: Any
    asked_by: list[str] = Field(default_factory=list)

    @field_validator("asked_by")
    @classmethod
    def _cues_have_words(cls, cues: list[str]) -> list[str]:
        empty = [c for c in cues if not cue_words(c)]
        if empty:
            raise ValueError(f"expected cues with at least one word; got {empty!r}")
        return cues


def _long_form(value: Any) -> bool:
    return isinstance(value, Withheld) or (isinstance(value, dict) and bool({"value", "asked_by"} & set(value)))


class User(Strict):
    goal: str
    profile: dict[str, Any] = Field(default_factory=dict)
    withheld: dict[str, Withheld] = Field(default_factory=dict)

    @field_validator("withheld", mode="before")
    @classmethod
    def _plain_values(cls, raw: Any) -> Any:
        """A plain value is a detail asked for by its key's words; a mapping with ``value`` or
        ``asked_by`` is the long form (to withhold such a mapping itself, put it under
        ``value:``), so a misspelt long form is refused rather than withheld as it stands."""
        if not isinstance(raw, dict):
            return raw
        return {k: v if _long_form(v) else {"value": v} for k, v in raw.items()}

    @property
    def withheld_values(self) -> dict[str, Any]:
        """What the user knows, by key, without the cues."""
        return {k: w.value for k, w in self.withheld.items()}

    @property
    def withheld_cues(self) -> dict[str, list[str]]:
        """The cues of each detail: its ``asked_by``, or else its key's words."""
        return {k: w.asked_by or [key_cue(k)] for k, w in self.withheld.items()}


class Clock(Strict):
    start: datetime
    tool_minutes: dict[str, Minutes] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _in_range(self) -> Clock:
        lo, hi = YEARS
        if not lo <= self.start.year <= hi:
            raise ValueError(f"clock.start must be between the years {lo} and {hi}; got {self.start.year}")
        return self


class Judge(Strict):
    """How the rule-based judge recognises an impossible task was handled: ``evidence``
    names the cause, ``phrases`` say the goal cannot be met, ``claims`` say it was met
    (``phrases`` and ``claims`` replace the judge's default lists when given)."""

    reason: str
    evidence: list[str] = Field(min_length=1)
    phrases: list[str] | None = None
    claims: list[str] | None = None


class MilestonesOrigin(Strict):
    """Where the milestone graph came from, written by ``sttui milestones accept``: ``consensus``
    (a model's candidates merged by vote, then reviewed), ``solution`` (derived from the reference
    solution: ``sttui check`` names these), or ``hand``."""

    method: Literal["consensus", "solution", "hand"]
    model: str | None = None
    prompt: str | None = None
    draft: str | None = None


class SttTask(Strict):
    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    kind: Literal["stt"]
    title: str
    domain: str
    conflict: Conflict
    level: Level
    env: str = Field(pattern=r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*$")
    description: str = ""
    seed: Seed = 0
    max_steps: int = Field(default=40, ge=1, le=MAX_STEPS)
    initial_state: dict[str, Any]
    clock: Clock
    user: User
    query: str
    triggers: list[Trigger] = Field(min_length=1)
    checklist: list[ChecklistItem] = Field(min_length=1)
    # the goal state of the task's static world (no trigger fires): what judges a --static run
    static_checklist: list[ChecklistItem] | None = Field(default=None, min_length=1)
    # why the task has no static variant (its goal holds with no trigger and nothing to do):
    # --static skips it, as it skips impossible tasks
    static_skip: str | None = Field(default=None, min_length=1)
    judge: Judge | None = None
    naive_plan: list[Step] = Field(min_length=1)
    solution: list[Step] = Field(min_length=1)
    milestones: list[Milestone] = Field(default_factory=list)
    minefields: list[Minefield] = Field(default_factory=list)
    milestones_origin: MilestonesOrigin | None = None
    review: ReviewSettings | None = None
