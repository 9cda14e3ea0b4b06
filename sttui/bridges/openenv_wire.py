"""The OpenEnv bridge's wire: its action, observation and state (openenv-core's pydantic
models), and the conversions between them and the plain data the episodes work in.

GymEnv hands observations on as ``model_dump`` gives them without validating the fields the
session made (:func:`plain_observation`): the model's own serializer, so the data is the
caller's own, at a fraction of the cost of building the model field by field.
"""

from __future__ import annotations

from typing import Any

from openenv.core.env_server.types import Action, Observation, State
from pydantic import Field


class SttuiAction(Action):
    """One tool call (``tool``, ``args``) or one message to the user (``message``).
    ``episode_id``: over plain HTTP, the episode the step belongs to (from ``reset``)."""

    tool: str | None = Field(default=None, description="the tool to call; end_episode ends the episode")
    args: Any = Field(default=None, description="the call's arguments, an object")
    message: str | None = Field(default=None, description="a message to the user (stt)")
    episode_id: str | None = Field(default=None, description="over HTTP: the episode reset returned")


class SttuiObservation(Observation):
    """What the agent seat sees after its action (or at the start)."""

    episode_id: str = ""
    task: str = ""
    kind: str = ""
    items: list[dict[str, Any]] = Field(default_factory=list, description="stt: the view's new items")
    text: str = Field(default="", description="the new items as text")
    view: dict[str, Any] | None = Field(default=None, description="explore: the masked view")
    tools: list[dict[str, Any]] | None = Field(default=None, description="at reset: the tools offered")
    error: str | None = Field(default=None, description="the action could not be taken; nothing was executed")
    steps: int = 0
    max_steps: int = 0
    outcome: dict[str, Any] | None = Field(default=None, description="at the end: the verdict and scores")


class SttuiState(State):
    task: str | None = None
    seed: int | None = None
    done: bool = False


def action_fields(action: SttuiAction) -> dict[str, Any]:
    """The action's tool, args and message (those given), as ``parse_action`` reads them."""
    data: dict[str, Any] = {}
    for name in ("tool", "args", "message"):
        value = getattr(action, name)
        if value is not None:
            data[name] = value
    return data


def as_observation(fields: dict[str, Any] | SttuiObservation) -> SttuiObservation:
    return fields if isinstance(fields, SttuiObservation) else SttuiObservation(**fields)


_ACTION_FIELDS = frozenset(("tool", "args", "message", "episode_id"))


def is_plain_action(action: Any) -> bool:
    """A dict of the action's own fields with text (or None) where text goes: what
    ``SttuiAction`` takes unchanged (anything else goes through the model, for its errors)."""
    if type(action) is not dict or not action.keys() <= _ACTION_FIELDS:
        return False
    get = action.get
    return type(get("tool")) in _TEXT and type(get("message")) in _TEXT and type(get("episode_id")) in _TEXT


_TEXT = (str, type(None))  # (checked one by one: this runs on every step)


def plain_observation(fields: dict[str, Any] | SttuiObservation) -> dict[str, Any]:
    """The observation as ``model_dump`` gives it (the model's own serializer, so the data is
    the caller's own: changing it changes neither the episode nor its record), without
    validating fields the session made."""
    obs = fields if isinstance(fields, SttuiObservation) else construct_observation(fields)
    out: dict[str, Any] = obs.model_dump(exclude={"metadata"})  # (openenv's models are untyped)
    return out


_NAMES = tuple(SttuiObservation.__pydantic_fields__)
_OTHERS = frozenset(_NAMES) - {"metadata"}
# ``model_construct`` as it goes for this model: every field given, no alias, no extra, no post-init
_DIRECT = (
    not SttuiObservation.__pydantic_post_init__
    and SttuiObservation.model_config.get("extra") != "allow"
    and all(f.alias is None and f.validation_alias is None for f in SttuiObservation.__pydantic_fields__.values())
)


def construct_observation(fields: dict[str, Any]) -> SttuiObservation:
    """``SttuiObservation.model_construct(metadata={}, **fields)``: when ``fields`` holds every
    other field (as ``Session.fields`` gives them), the instance is made directly, as that call
    makes it, without its walk over each field's aliases and defaults."""
    if not _DIRECT or fields.keys() != _OTHERS:
        made: SttuiObservation = SttuiObservation.model_construct(
            metadata={}, **fields
        )  # (its default factory is slow)
        return made
    values = {name: {} if name == "metadata" else fields[name] for name in _NAMES}
    obs = SttuiObservation.__new__(SttuiObservation)
    object.__setattr__(obs, "__dict__", values)
    object.__setattr__(obs, "__pydantic_fields_set__", set(_NAMES))
    object.__setattr__(obs, "__pydantic_extra__", None)
    object.__setattr__(obs, "__pydantic_private__", None)
    return obs
