"""Light rows: an episode as listings and reports read it, its outcome and scores reduced to
what they show and taken out of the JSON columns by the database (``Store.summaries``), so a
listing of 100,000 episodes holds no full records."""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

# what a Summary takes out of the JSON columns, in this order: (column, path, kind)
_SUMMARY_JSON: list[tuple[str, tuple[str, ...], str]] = [
    ("outcome", (), "type"),
    ("outcome", (), "empty"),
    ("outcome", ("passed",), "bool"),
    ("scores", (), "type"),
    ("scores", (), "empty"),
    ("scores", ("calibrated_accuracy",), "float"),
    ("scores", ("control",), "json"),
    ("scores", ("lineage",), "json"),
    ("scores", ("user_verdict", "verdict"), "str"),
    ("scores", ("incomplete",), "bool"),
    ("scores", ("human_active_seconds",), "float"),
    ("scores", ("review", "score"), "float"),
    ("scores", ("review", "completion"), "float"),
    ("scores", ("review", "settled"), "int"),
    ("scores", ("review", "milestones"), "int"),
    ("scores", ("review", "stop", "signal"), "str"),
    ("scores", ("review", "stop", "step"), "int"),
    ("scores", ("review", "stop", "steps_saved"), "int"),
]
# the record's own columns a Summary keeps, in its field order
_SUMMARY_COLUMNS = (
    "id",
    "task_id",
    "task_hash",
    "kind",
    "seed",
    "setting",
    "status",
    "agent",
    "user",
    "end_reason",
    "steps",
    "state_hash",
    "started_at",
    "ended_at",
    "clean_baseline",
)
_SHARED = (1, 2, 3, 5, 6, 7, 8, 9, 11)  # of those, the ones many rows share: one string each, not one per row


class Fields(Mapping[str, Any]):
    """A small read-only mapping: the part of a record's outcome or scores that listings and
    reports read. ``bool()`` is the full mapping's (a record whose scores hold only other keys
    is still truthy), so code written for full records reads these the same way."""

    __slots__ = ("_keys", "_nonempty", "_values")

    def __init__(self, keys: tuple[str, ...], values: tuple[Any, ...], nonempty: bool | None = None):
        self._keys, self._values = keys, values
        self._nonempty = bool(keys) if nonempty is None else nonempty

    def __getitem__(self, key: str) -> Any:
        try:
            return self._values[self._keys.index(key)]
        except ValueError:
            raise KeyError(key) from None

    def get(self, key: str, default: Any = None) -> Any:
        keys = self._keys
        return self._values[keys.index(key)] if key in keys else default

    def __contains__(self, key: object) -> bool:
        return key in self._keys

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __len__(self) -> int:
        return len(self._keys)

    def __bool__(self) -> bool:
        return self._nonempty

    def __repr__(self) -> str:
        return f"Fields({dict(self)!r})"


def _flag(value: Any) -> bool | None:
    """A JSON boolean as SQLite hands it back (1 or 0), or as PostgreSQL does."""
    return None if value is None else bool(value)


_PASSED = {value: Fields(("passed",), (value,)) for value in (True, False)}
_NOT_A_MAPPING = Fields((), (), True)
_VERDICTS = {v: Fields(("verdict",), (v,)) for v in ("satisfied", "not_satisfied", "gave_up")}
_REVIEW = ("score", "completion", "settled", "milestones")
_REVIEW_STOP = (*_REVIEW, "stop")
_STOP = ("signal", "step", "steps_saved")
_SHAPES: dict[tuple[str, ...], tuple[str, ...]] = {}


def _outcome_of(kind: str | None, empty: Any, passed: Any) -> Fields | None:
    if kind is None or kind == "null":
        return None
    if kind != "object":  # not a mapping: nothing a listing reads
        return _NOT_A_MAPPING
    if passed is None:
        return Fields((), (), not empty)
    return _PASSED[bool(passed)]


@functools.lru_cache(maxsize=1024)
def _json_object(text: str) -> Any:
    """An object a listing reads as a whole (a refinement's or a fork's ``lineage``), parsed
    once per distinct text; None when it is not a JSON object."""
    try:
        value = json.loads(text)
    except (TypeError, ValueError):
        return None
    return value if isinstance(value, dict) else None


@functools.lru_cache(maxsize=4096)
def _control_of(text: str) -> Any:
    """``scores.control`` as the database hands it out: its JSON text, parsed and checked once
    per distinct text (None when it is not a control summary, as ``valid_control`` says)."""
    from sttui.core.control import checked_control

    try:
        return checked_control(json.loads(text))
    except (TypeError, ValueError):
        return None


def _scores_of(x: tuple[Any, ...]) -> Fields | None:
    """The scores a listing reads. A key whose value is null counts as absent, as it does for
    every reader of these (``.get(k) is not None``, or truthiness); a review is there when it
    has its score, and its stop when that has its saved steps (as every review written has)."""
    (
        kind,
        empty,
        ca,
        control,
        lineage,
        user_verdict,
        incomplete,
        human,
        score,
        completion,
        settled,
        milestones,
        signal,
        step,
        saved,
    ) = x
    if kind is None or kind == "null":
        return None
    if kind != "object":
        return _NOT_A_MAPPING
    keys: list[str] = []
    values: list[Any] = []
    if ca is not None:
        keys.append("calibrated_accuracy")
        values.append(ca)
    if control is not None:
        keys.append("control")
        values.append(_control_of(control))
    if lineage is not None:
        keys.append("lineage")
        values.append(_json_object(lineage))
    if user_verdict is not None:  # the verdict alone: what listings and reports read of it
        keys.append("user_verdict")
        values.append(_VERDICTS.get(user_verdict) or Fields(("verdict",), (user_verdict,)))
    if incomplete is not None:
        keys.append("incomplete")
        values.append(_flag(incomplete))
    if human is not None:
        keys.append("human_active_seconds")
        values.append(human)
    if score is not None:
        keys.append("review")
        if saved is not None:
            values.append(
                Fields(_REVIEW_STOP, (score, completion, settled, milestones, Fields(_STOP, (signal, step, saved))))
            )
        else:
            values.append(Fields(_REVIEW, (score, completion, settled, milestones)))
    shape = tuple(keys)
    return Fields(_SHAPES.setdefault(shape, shape), tuple(values), not empty)


@dataclass(slots=True)
class Summary:
    """An episode as listings and reports read it: every field of ``EpisodeRecord``, with
    ``outcome`` and ``scores`` reduced to ``passed``; ``calibrated_accuracy``, ``control``,
    ``lineage``, the ``user_verdict``'s ``verdict``, ``incomplete``, ``human_active_seconds`` and the review's ``score``,
    ``completion``, ``settled``, ``milestones`` and ``stop``."""

    id: str
    task_id: str
    task_hash: str
    kind: str
    seed: int
    setting: str
    status: str
    agent: str
    user: str | None
    end_reason: str | None
    steps: int
    state_hash: str | None
    started_at: float
    ended_at: float | None
    clean_baseline: bool
    outcome: Fields | None
    scores: Fields | None


def summary_reader(review: bool = True) -> Callable[[Sequence[Any]], Summary]:
    """What turns a row of the summaries query (``_SUMMARY_COLUMNS``, then ``_SUMMARY_JSON``, or
    its first nine without ``review``) into a ``Summary``: the store's listing and home's
    read-only reader (``sttui.store.peek``) both use it. Strings many rows share are held once,
    and equal scores share one (read-only) mapping."""
    n = len(_SUMMARY_COLUMNS)
    pad = (None,) * (len(_SUMMARY_JSON) - (len(_SUMMARY_JSON) if review else 9))
    strings: dict[Any, Any] = {}
    shared = strings.setdefault
    made: dict[tuple[Any, ...], Fields | None] = {}

    def light(row: Sequence[Any]) -> Summary:
        values = list(row[:n])
        for i in _SHARED:
            values[i] = shared(values[i], values[i])
        key = tuple(row[n + 3 :])
        scores = made.get(key, _NOT_A_MAPPING)
        if scores is _NOT_A_MAPPING:
            scores = _scores_of(key + pad if pad else key)
            if len(made) < 50_000:
                made[key] = scores
        outcome = _outcome_of(row[n], row[n + 1], row[n + 2])
        return Summary(*values, outcome, scores)  # type: ignore[call-arg]  # values: the fields before outcome

    return light


# what ``sttui report`` reads of each finished episode (``Store.report_rows``): its own columns,
# then these fields taken out of the JSON by the database, in this order
REPORT_COLUMNS = (
    "id",
    "task_id",
    "task_hash",
    "kind",
    "setting",
    "status",
    "agent",
    "steps",
    "started_at",
    "clean_baseline",
)
REPORT_JSON: list[tuple[str, tuple[str, ...], str]] = [
    ("outcome", ("passed",), "bool"),
    ("scores", ("control",), "object"),
    ("scores", ("calibrated_accuracy",), "float"),
    ("scores", ("user_verdict", "verdict"), "str"),
    ("scores", ("incomplete",), "bool"),
    ("scores", ("human_active_seconds",), "float"),
    ("scores", ("review", "score"), "float"),
    ("scores", ("review", "completion"), "float"),
    ("scores", ("review", "stop", "steps_saved"), "int"),
    ("scores", ("review", "judges"), "object"),
]


def report_row(row: Any) -> tuple[Any, ...]:
    """A row of ``Store.report_rows`` as plain values: the flags as booleans (SQLite gives 1 and
    0), the control summary parsed and checked once per distinct text (``_control_of``), the
    judges left as JSON text (parsed only where they are read)."""
    values = tuple(row)
    passed, control, incomplete = values[10], values[11], values[14]
    return (
        *values[:10],
        _flag(passed),
        None if control is None else _control_of(control),
        values[12],
        values[13],
        _flag(incomplete),
        *values[15:],
    )


def listing_row(row: Any) -> tuple[Any, ...]:
    """A row of ``Store.listing_rows`` as plain values: whether the outcome is there, whether it
    passed (booleans), and the control summary checked (once per distinct text; JSON text that
    is not an object's, as the "object" field gives it for a string or an absent value, is none)."""
    (episode_id, task_id, status, agent, user, steps, started_at, outcome, passed, ca, control, verdict) = row
    return (
        episode_id,
        task_id,
        status,
        agent,
        user,
        steps,
        started_at,
        bool(outcome),
        bool(passed),
        ca,
        None if control is None else _control_of(control),
        verdict,
    )
