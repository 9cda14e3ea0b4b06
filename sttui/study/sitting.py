"""A participant's next task in a study, ready to open: the assignment from the record, the
exact task version, and the play plan (seat, person, episode id, time limit)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sttui.core.settings import from_name
from sttui.running.session import PlayPlan
from sttui.store.studies import Assignment, Studies
from sttui.study.running import open_slot, stored_study
from sttui.study.spec import Study, minutes_text


@dataclass
class Sitting:
    study: Study
    assignment: Assignment
    plan: PlayPlan

    @property
    def person(self) -> str:
        return f"human:{self.assignment.participant}"

    def note(self) -> str:
        slot = self.assignment.slot or {}
        a = self.assignment
        what = "a practice task (not scored)" if slot.get("practice") else f"task {a.done + 1} of {a.total}"
        limit = self.study.time_limit
        timing = f"; you have {minutes_text(limit.minutes)} of clock time" if limit else ""
        return f"Next: {what}{timing}. The clock starts when you press F5 on the task's screen."


def next_sitting(store: Any, study_id: str, name: str | None, token: str | None = None) -> Sitting | Assignment:
    """The participant's next task (a Sitting), or their Assignment when they have none left."""
    study, _ = stored_study(store, study_id)
    assignment = Studies(store).join(study_id, name, token)
    if assignment.slot is None:
        return assignment
    loaded = open_slot(store, assignment)
    person = f"human:{assignment.participant}"
    limit = None
    if study.time_limit is not None:
        warn = study.time_limit.warn_at
        limit = (study.time_limit.minutes * 60, warn * 60 if warn is not None else None)
    if study.seat == "user":
        plan = PlayPlan(loaded, "user", person, agent="baseline:oracle")
    else:
        plan = PlayPlan(loaded, "agent", person)
    settings = from_name(study.setting, loaded.kind)  # checked when the study started
    plan = PlayPlan(plan.loaded, plan.seat, plan.person, plan.agent, plan.user, assignment.episode_id, limit, settings)
    return Sitting(study, assignment, plan)
