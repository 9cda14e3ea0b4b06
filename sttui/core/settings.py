"""The papers' evaluation settings and ablations, as one value an episode is opened with.

STT-Arena compares its dynamic tasks with the same tasks run statically (triggers off) and
with no user simulator (the full goal, withheld details included, in the first message).
AdaExploreBench runs the same episodes under four settings. A setting changes how a run is
made, never the task file, so it is recorded in ``episode_started`` and a rebuild reads it
back from there.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

EXPLORE_SETTINGS = ("default", "stationary", "evidence_given", "forced_probe")


@dataclass(frozen=True)
class RunSettings:
    """``static``: stt triggers never fire. ``no_user``: the stt user seat is empty and the
    opening message carries the whole goal. ``explore_setting``: overrides an explore file's."""

    static: bool = False
    no_user: bool = False
    explore_setting: str | None = None

    def __post_init__(self) -> None:
        if self.explore_setting is not None and self.explore_setting not in EXPLORE_SETTINGS:
            raise ValueError(f"explore setting {self.explore_setting!r}: expected one of {', '.join(EXPLORE_SETTINGS)}")

    @property
    def is_default(self) -> bool:
        return not self.static and not self.no_user and self.explore_setting is None

    def label(self, kind: str, file_setting: str = "default") -> str:
        """The name a report groups by: for stt ``default`` (dynamic, with a user), ``static``,
        ``no-user`` or ``static/no-user``; for explore the setting in force."""
        if kind == "explore":
            return self.explore_setting or file_setting
        parts = [p for p, on in (("static", self.static), ("no-user", self.no_user)) if on]
        return "/".join(parts) or "default"

    def as_dict(self) -> dict[str, Any]:
        """What ``episode_started`` carries; only what differs from the default."""
        out: dict[str, Any] = {}
        if self.static:
            out["static"] = True
        if self.no_user:
            out["no_user"] = True
        if self.explore_setting is not None:
            out["explore_setting"] = self.explore_setting
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> RunSettings:
        data = data or {}
        return cls(bool(data.get("static")), bool(data.get("no_user")), data.get("explore_setting"))


DEFAULT = RunSettings()
# The names a study file's ``setting`` takes: a report's labels for stt, an explore setting's name.
NAMED = ("default", "static", "no-user", "static/no-user", *EXPLORE_SETTINGS[1:])


def from_name(name: str, kind: str) -> RunSettings:
    """The settings a name of ``NAMED`` stands for, on a task of ``kind`` (stt or explore);
    ValueError saying why when the name is unknown or is not one of that kind's settings."""
    if name not in NAMED:
        raise ValueError(f"expected one of {', '.join(NAMED)}; got {name!r}")
    if name in EXPLORE_SETTINGS[1:]:
        if kind != "explore":
            raise ValueError(f"{name} is an AdaExploreBench setting: it applies to explore tasks only")
        return RunSettings(explore_setting=name)
    parts = set(name.split("/")) - {"default"}
    if parts and kind != "stt":
        raise ValueError(f"{name} is an STT-Arena setting: it applies to stt tasks only")
    return RunSettings(static="static" in parts, no_user="no-user" in parts)


def no_user_opening(query: str, goal: str, withheld: dict[str, Any]) -> str:
    """The first message when no user will answer: the query, the goal, and every detail the
    user would otherwise reveal only when asked."""
    parts = [query.rstrip(), f"My goal: {goal.strip()}"]
    if withheld:
        details = "; ".join(f"{k.replace('_', ' ')}: {v}" for k, v in withheld.items())
        parts.append(f"Details you may need: {details}.")
    parts.append("I will not be available to answer questions.")
    return "\n\n".join(parts)
