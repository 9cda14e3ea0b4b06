"""Who sits where when a person opens a task (:class:`PlayPlan`), kept apart from the play
session so the command line can check the seats of ``sttui play`` without importing the
record's libraries (SQLAlchemy) or the task models (pydantic): the workbench paints first and
loads those in a worker (``PlayPlan.with_task``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from sttui.core.settings import DEFAULT, RunSettings

if TYPE_CHECKING:
    from sttui.config import ModelAlias
    from sttui.controllers.base import Controller
    from sttui.controllers.human import HumanController

HUMAN_PREFIX = "human"


def is_human(spec: str | None) -> bool:
    return spec is not None and (spec == HUMAN_PREFIX or spec.startswith(f"{HUMAN_PREFIX}:"))


class PlanProblem(ValueError):
    """The seats asked for cannot be arranged (both taken, a seat the task does not have)."""


@dataclass(frozen=True)
class PlayPlan:
    """Who sits where when a person opens a task: the person's seat and the other seats'
    controllers (specs, checked by ``controllers``).

    The seat rule (``sttui play --help`` says it): you take the agent seat, unless ``--agent``
    names another controller, or ``--user`` names you; then you take the user seat, and the
    agent seat is ``--agent``'s (default ``baseline:oracle``)."""

    loaded: Any  # LoadedTask; or, from `sttui play`, the task index's entry until ``with_task`` loads it
    seat: str  # the person's: agent | user
    person: str  # human:NAME
    agent: str | None = None  # the agent seat's controller when the person plays the user
    user: str | None = None  # the user seat's controller when the person plays the agent (stt)
    episode_id: str | None = None  # the id to open the episode under (a study's slot names it)
    time_limit: tuple[float, float | None] | None = None  # (seconds, warn at seconds) of the person's clock
    settings: RunSettings = DEFAULT  # the papers' setting the episode runs under (a study's)

    @classmethod
    def build(cls, loaded: Any, me: str, agent: str | None = None, user: str | None = None) -> PlayPlan:
        """``me`` is the person (human:NAME); ``agent``/``user`` as given on the command line."""

        def named(spec: str | None) -> str:
            return spec if spec and spec.startswith(f"{HUMAN_PREFIX}:") and spec != f"{HUMAN_PREFIX}:" else me

        explore = loaded.kind == "explore"
        if is_human(agent) and is_human(user):
            raise PlanProblem("--agent and --user both name a person; one person plays one seat")
        if explore and user is not None:
            raise PlanProblem(f"{loaded.id} is an explore task: it has only the agent seat, so --user does not apply")
        if agent is not None and not is_human(agent):
            if explore:
                raise PlanProblem(
                    f"{loaded.id} is an explore task: its one seat is yours in play; "
                    f"`sttui run {loaded.id} --agent {agent}` runs it without you"
                )
            if user is not None and not is_human(user):
                raise PlanProblem(
                    f"--agent {agent} and --user {user} leave no seat for you; `sttui run` plays episodes "
                    "without a person"
                )
            return cls(loaded, "user", named(user), agent=agent)
        if is_human(user):
            return cls(loaded, "user", named(user), agent="baseline:oracle")
        return cls(loaded, "agent", named(agent), user=None if explore else user)

    def controllers(
        self, models: Mapping[str, ModelAlias] | None = None, store: Any = None
    ) -> tuple[HumanController, Controller, Controller | None]:
        """(the person, the agent seat's holder, the user seat's): raises ControllerSpecError
        for a controller that does not exist."""
        from sttui.controllers.human import HumanController
        from sttui.controllers.registry import make_agent, make_user

        human = HumanController(self.person)
        if self.seat == "user":
            return human, make_agent(self.agent or "baseline:oracle", self.loaded, None, models, store), human
        user = make_user(self.user, models) if self.loaded.kind == "stt" and not self.settings.no_user else None
        return human, human, user

    @property
    def named_controllers(self) -> bool:
        """Whether a seat other than the person's is a controller named on the command line
        (checked before the workbench opens); else it is the task's default user."""
        return self.agent is not None or self.user is not None

    def with_task(self) -> PlayPlan:
        """The plan with its task loaded (pydantic, the environment class): ``sttui play`` names
        the task by its index entry, checked and light, and the workbench loads it here, in a
        worker after its first paint. Raises ``TaskFileError`` for a file changed meanwhile."""
        from sttui.core.loader import LoadedTask, load_task

        if isinstance(self.loaded, LoadedTask):
            return self
        return replace(self, loaded=load_task(self.loaded.path))
