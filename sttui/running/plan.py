"""The run plan: everything ``sttui run`` was asked for, typed and frozen, handed from the
command line to the runner in one piece.

One place decides a trial's seed (:meth:`RunPlan.seed_for`): the base seed (``--seed``, else
the task's) plus the trial's index. The episode, every controller that draws randomness and a
model's sampling seed all take that number, so K trials are K different episodes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from sttui.config import ModelAlias
from sttui.core.loader import LoadedTask
from sttui.core.settings import RunSettings
from sttui.core.task import MAX_SEED, SttTask


class PlanError(ValueError):
    """Options that do not make a run together (said in one line)."""


@dataclass(frozen=True)
class ReviewPlan:
    """The milestone review's run options: stop on its signals, the stagnation window, the
    low-quality stop, and who scores the stages (the rule, or model judges)."""

    early_stop: bool = False
    stagnation: int | None = None
    low_quality: tuple[int, float] | None = None  # N consecutive stages below THRESHOLD end the run
    judge_stages: str = "rule"  # rule | model:M | adaptive:CHEAP,STANDARD,SPECIALIST


NO_REVIEW_OPTIONS = ReviewPlan()  # the review as the task file sets it: no early stop, the rule judges


@dataclass(frozen=True)
class Trial:
    """One episode to run: a task, the trial's index among its trials, and its seed."""

    loaded: LoadedTask
    index: int
    seed: int


@dataclass(frozen=True)
class RunPlan:
    tasks: tuple[LoadedTask, ...]
    agent: str = "baseline:oracle"
    user: str | None = None  # None: the scripted user (stt); no_user leaves the seat empty
    trials: int = 1
    seed: int | None = None  # the base seed; None: each task's own
    judge: str = "rule"  # rule | human | model:MODEL
    review: ReviewPlan = field(default_factory=ReviewPlan)
    settings: RunSettings = field(default_factory=RunSettings)
    record: bool = True
    concurrency: int = 4
    models: Mapping[str, ModelAlias] = field(default_factory=dict)  # sttui.yaml's model aliases
    skipped: tuple[str, ...] = ()  # what the plan leaves out, and why (printed as notes)

    @classmethod
    def build(
        cls,
        tasks: list[LoadedTask],
        *,
        agent: str = "baseline:oracle",
        user: str | None = None,
        trials: int = 1,
        seed: int | None = None,
        judge: str = "rule",
        review: ReviewPlan | None = None,
        settings: RunSettings | None = None,
        record: bool = True,
        concurrency: int = 4,
        models: Mapping[str, ModelAlias] | None = None,
    ) -> RunPlan:
        """Check the options against each other and the tasks; drop what a setting cannot run."""
        settings = settings or RunSettings()
        review = review or ReviewPlan()
        if trials < 1:
            raise PlanError(f"--trials must be at least 1; got {trials}")
        base = seed
        if base is not None and not 0 <= base <= MAX_SEED:
            raise PlanError(f"--seed must be within 0..{MAX_SEED}; got {base}")
        top = max((t.task.seed if base is None else base) for t in tasks) if tasks else 0
        if top + trials - 1 > MAX_SEED:  # trial i runs on base + i: the last must still be a seed
            raise PlanError(f"--trials {trials} from seed {top} goes past the largest seed, {MAX_SEED}")
        kinds = {t.kind for t in tasks}
        if (settings.static or settings.no_user) and "stt" not in kinds:
            raise PlanError("--static and --no-user apply to stt tasks; none is selected")
        if settings.explore_setting is not None and "explore" not in kinds:
            raise PlanError("--setting applies to explore episodes; none is selected")
        if settings.no_user and user not in (None, "none"):
            raise PlanError("--no-user leaves the user seat empty; drop --user")
        skipped: list[str] = []
        if settings.static:  # an impossible task is infeasible because of its triggers
            impossible = [t.id for t in tasks if isinstance(t.task, SttTask) and t.task.level == "impossible"]
            if impossible:
                skipped.append(
                    f"--static skips {len(impossible)} impossible task(s): without triggers they have no conflict "
                    f"to recognise ({', '.join(impossible[:3])}{'…' if len(impossible) > 3 else ''})"
                )
                tasks = [t for t in tasks if t.id not in set(impossible)]
            bare = [t.id for t in tasks if isinstance(t.task, SttTask) and t.task.static_skip]
            if bare:
                skipped.append(
                    f"--static skips {len(bare)} task(s) whose goal holds without triggers and without the agent "
                    f"(static_skip: {', '.join(bare[:3])}{'…' if len(bare) > 3 else ''})"
                )
                tasks = [t for t in tasks if t.id not in set(bare)]
            if review.early_stop or review.judge_stages not in (None, "rule"):
                skipped.append(
                    "--static: static episodes are not stage-reviewed (the milestones follow the recovery from "
                    "triggers that never fire), so --early-stop and --judge-stages do nothing for them"
                )
        if not tasks:
            raise PlanError("; ".join([*skipped, "no task left to run"]))
        if judge == "human":
            concurrency = 1  # the person judging sees one episode at a time
        return cls(
            tuple(tasks),
            agent=agent,
            user=user,
            trials=trials,
            seed=seed,
            judge=judge,
            review=review,
            settings=settings,
            record=record,
            concurrency=max(1, concurrency),
            models=dict(models or {}),
            skipped=tuple(skipped),
        )

    def seed_for(self, loaded: LoadedTask, index: int) -> int:
        """The one rule for a trial's seed."""
        base = loaded.task.seed if self.seed is None else self.seed
        return base + index

    def all_trials(self) -> list[Trial]:
        return [Trial(t, i, self.seed_for(t, i)) for t in self.tasks for i in range(self.trials)]

    def user_for(self, loaded: LoadedTask) -> str | None:
        """The user seat's controller for this task: none for explore or under --no-user."""
        if loaded.kind != "stt" or self.settings.no_user:
            return None
        return self.user or "baseline:scripted"

    def setting_label(self, loaded: LoadedTask) -> str:
        """The setting a report groups by. Early stopping is part of it for stt episodes that
        are stage-reviewed (not static ones): a run cut short on a signal is not a full run,
        and ``report`` must not pool the two in one row."""
        file_setting = getattr(loaded.task, "setting", "default")
        label = self.settings.label(loaded.kind, file_setting)
        if loaded.kind == "stt" and self.review.early_stop and not self.settings.static:
            return "early-stop" if label == "default" else f"{label}/early-stop"
        return label
