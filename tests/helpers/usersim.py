"""Views of the bundled tasks' users, and the scripted user's answer to them."""

from __future__ import annotations

import asyncio
from functools import cache

from sttui.controllers.base import UserView
from sttui.controllers.baselines import ScriptedUser
from sttui.core.loader import load_task
from tests.conftest import ROOT

STT = ROOT / "tasks" / "stt"


@cache
def user_of(task: str):
    return load_task(STT / f"{task}.yaml").task.user


def view_for(
    task: str,
    text: str,
    *,
    goal_met: bool = False,
    solvable: bool = True,
    earlier: tuple[str, ...] = (),
    accepted: bool | None = None,
):
    """``accepted`` (whether the record would pass now) follows ``goal_met`` unless given."""
    user = user_of(task)
    said = [{"from": "agent", "text": t} for t in (*earlier, text)]
    ok = goal_met if accepted is None else accepted
    return UserView(user.goal, user.profile, user.withheld_values, said, [], user.withheld_cues, solvable, goal_met, ok)


def answer(view: UserView):
    return asyncio.run(ScriptedUser().act(view))
