"""``sttui check`` on a held-out domain written here from docs/task-format.md (a power grid:
feeders, repair crews, a flood-prone bridge), one planted authoring mistake per copy. Each
copy must be refused with the file, line and field to fix; the sound copies pass."""

from __future__ import annotations

import asyncio
import copy
import json
import re
import textwrap

import pytest
import yaml
from click.testing import CliRunner

from sttui.cli import main
from sttui.controllers.baselines import PlanAgent, ScriptedUser
from sttui.core.evidence import generic_term
from sttui.core.loader import load_task
from sttui.core.problems import TaskFileError
from sttui.core.task import Step
from sttui.running.runner import run_episode

GRID_ENV = textwrap.dedent(
    '''
    """A small power grid: feeders out of service and the crews that restore them."""

    from datetime import timedelta

    from sttui.core.env import Environment, Result, check, tool

    REPAIR_MINUTES = 20


    class GridEnv(Environment):
        @tool("query", minutes=5)
        def get_feeder(self, feeder_id: str) -> Result:
            """One feeder: the area it serves and whether it is energised.

            Args:
                feeder_id: The feeder's id, e.g. F-12.
            """
            feeder = self.state["feeders"].get(feeder_id)
            if feeder is None:
                return self.fail(f"no feeder {feeder_id}")
            return self.ok(feeder_id=feeder_id, **feeder)

        @tool("query", minutes=2)
        def get_crew(self, crew_id: str) -> Result:
            """One repair crew: where it is and when its shift starts.

            Args:
                crew_id: The crew's id, e.g. CREW-1.
            """
            crew = self.state["crews"].get(crew_id)
            if crew is None:
                return self.fail(f"no crew {crew_id}")
            return self.ok(crew_id=crew_id, **crew)

        @tool("query", minutes=2)
        def get_weather(self) -> Result:
            """Today's forecast for the network's area."""
            return self.ok(forecast=self.state["weather"]["FORECAST_KEY"])

        @tool("operation", minutes=5)
        def dispatch_crew(self, crew_id: str, feeder_id: str) -> Result:
            """Send a crew to restore a feeder; it repairs it on arrival.

            Args:
                crew_id: The crew to send.
                feeder_id: The feeder to restore.
            """
            crew = self.state["crews"].get(crew_id)
            feeder = self.state["feeders"].get(feeder_id)
            if crew is None or feeder is None:
                return self.fail(f"no crew {crew_id} or no feeder {feeder_id}")
            if self.iso() < crew["on_shift_from"]:
                return self.fail(f"{crew_id} is not on shift until {crew['on_shift_from']}")
            minutes = self.travel_minutes(crew["location"], feeder["area"])
            if minutes is None:
                return self.fail(f"no open route from {crew['location']} to {feeder['area']}")
            done = self.now + timedelta(minutes=minutes + REPAIR_MINUTES)
            crew["location"] = feeder["area"]
            self.state["feeders"][feeder_id] = {**feeder, "status": "energised", "restored_at": self.iso(done)}
            return self.ok(crew_id=crew_id, feeder_id=feeder_id, restored_at=self.iso(done))

        @tool("operation", minutes=1)
        def notify_customers(self, feeder_id: str, message: str) -> Result:
            """Text every customer on a feeder.

            Args:
                feeder_id: The feeder whose customers are told.
                message: What they are told.
            """
            self.state["notices"] = [*self.state["notices"], {"feeder_id": feeder_id, "message": message}]
            return self.ok(sent=True)

        @check
        def restored_by(self, feeder_id: str, deadline: str) -> tuple[bool, str]:
            """The feeder is energised no later than the deadline."""
            feeder = self.state["feeders"][feeder_id]
            at = feeder.get("restored_at")
            return feeder["status"] == "energised" and at is not None and at <= deadline, f"restored at {at}"
    '''
)

START = "2024-11-02T08:00:00"
FLOOD = [{"set": "travel.1.closed", "value": True}]  # Fen Bridge to Marsh End

GRID = {
    "id": "grid-marsh-end-s1-easy",
    "kind": "stt",
    "title": "Restore Marsh End before the care home's generator runs dry",
    "domain": "grid",
    "conflict": "S1",
    "level": "easy",
    "env": "grid:GridEnv",
    "max_steps": 12,
    "initial_state": {
        "places": {"DEPOT-N": {}, "DEPOT-S": {}, "FEN-BRIDGE": {}, "MARSH-END": {}},
        "travel": [
            {"from": "DEPOT-N", "to": "FEN-BRIDGE", "minutes": 20},
            {"from": "FEN-BRIDGE", "to": "MARSH-END", "minutes": 15},
            {"from": "DEPOT-S", "to": "MARSH-END", "minutes": 90},
        ],
        "crews": {
            "CREW-1": {"location": "DEPOT-N", "on_shift_from": "2024-11-02T08:05"},
            "CREW-2": {"location": "DEPOT-S", "on_shift_from": "2024-11-02T08:00"},
        },
        "feeders": {"F-12": {"area": "MARSH-END", "status": "fault", "restored_at": None}},
        "weather": {"forecast": "heavy rain"},
        "notices": [],
    },
    "clock": {"start": START},
    "user": {"goal": "F-12 back on by 10:00 and the customers told"},
    "query": "Feeder F-12 at Marsh End is down; the care home's generator lasts until 10:00. Get it back on.",
    "triggers": [{"id": "bridge-flooded", "when": {"at": START}, "effects": FLOOD}],
    "checklist": [
        {"id": "restored", "check": "restored_by", "args": {"feeder_id": "F-12", "deadline": "2024-11-02T10:00"}},
        {"id": "told", "expect": {"path": "notices", "contains": {"feeder_id": "F-12"}}},
    ],
    "naive_plan": [
        {"tool": "get_feeder", "args": {"feeder_id": "F-12"}},
        {"tool": "dispatch_crew", "args": {"crew_id": "CREW-1", "feeder_id": "F-12"}},
        {"tool": "notify_customers", "args": {"feeder_id": "F-12", "message": "A crew is on its way."}},
        {"say": "CREW-1 is on its way to F-12."},
    ],
    "solution": [
        {"tool": "get_feeder", "args": {"feeder_id": "F-12"}},
        {"tool": "dispatch_crew", "args": {"crew_id": "CREW-2", "feeder_id": "F-12"}},
        {"tool": "notify_customers", "args": {"feeder_id": "F-12", "message": "Power back by 09:55."}},
        {"say": "Fen Bridge is flooded, so CREW-2 comes from the south depot: F-12 is back on by 09:55."},
    ],
}

# The impossible copy: the care home's generator lasts until 09:00, and the flood cuts Marsh
# End off from the north depot; the south crew's 90-minute drive is too long.
IMPOSSIBLE = {
    **copy.deepcopy(GRID),
    "id": "grid-marsh-end-s1-impossible",
    "level": "impossible",
    "checklist": [
        {"id": "restored", "check": "restored_by", "args": {"feeder_id": "F-12", "deadline": "2024-11-02T09:00"}}
    ],
    "judge": {
        "reason": "Fen Bridge is flooded; the only other crew needs 90 minutes plus the repair.",
        "evidence": ["flood", "fen bridge"],
    },
    "naive_plan": [
        {"tool": "get_feeder", "args": {"feeder_id": "F-12"}},
        {"tool": "dispatch_crew", "args": {"crew_id": "CREW-1", "feeder_id": "F-12"}},
        {"say": "CREW-1 is on its way to F-12."},
    ],
    "solution": [
        {"tool": "get_feeder", "args": {"feeder_id": "F-12"}},
        {"tool": "get_crew", "args": {"crew_id": "CREW-2"}},
        {"say": "I'm sorry, F-12 cannot be back on by 09:00: Fen Bridge is flooded and CREW-2 needs two hours."},
    ],
}


def write(tmp_path, task: dict, forecast_key: str = "forecast") -> None:
    (tmp_path / "grid.py").write_text(GRID_ENV.replace("FORECAST_KEY", forecast_key))
    (tmp_path / "task.yaml").write_text(yaml.safe_dump(task, sort_keys=False))


def check_json(tmp_path, *extra: str) -> dict:
    result = CliRunner().invoke(main, ["check", str(tmp_path), "--json", *extra], catch_exceptions=False)
    report = json.loads(result.output)
    assert result.exit_code == (0 if report["ok"] else 1)
    return report["tasks"][0]


def line_with(path, text: str) -> int:
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if text in line)


@pytest.mark.parametrize("task", [GRID, IMPOSSIBLE], ids=["solvable", "impossible"])
def test_the_sound_copies_pass(tmp_path, task):
    write(tmp_path, task)
    report = check_json(tmp_path)
    assert report["ok"] is True, report["problems"]


# -- a trigger only a lookup sets off, when both plans look ------------------------------------


def test_a_trigger_on_a_lookup_is_caught_though_no_lookups_fails_for_the_clock(tmp_path):
    """The flood happens only when someone looks at the feeder. Dropping the lookup from the
    naive plan makes CREW-1's dispatch come before its shift (08:05), so ``no-lookups`` fails
    for that and misses it; an agent that never looks and sends CREW-1 at 08:05 passes with no
    trigger fired. ``no-lookups-waits`` keeps the clock and catches it, at the trigger."""
    task = copy.deepcopy(GRID)
    task["triggers"][0]["when"] = {"tool": "get_feeder", "args": {"feeder_id": "F-12"}}
    write(tmp_path, task)
    never_looks = [
        Step(tool="notify_customers", args={"feeder_id": "F-12", "message": "A crew is on its way."}),
        Step(tool="notify_customers", args={"feeder_id": "F-12", "message": "Arriving before 10:00."}),
        Step(tool="notify_customers", args={"feeder_id": "F-12", "message": "Thank you for waiting."}),
        Step(tool="notify_customers", args={"feeder_id": "F-12", "message": "Crews are busy today."}),
        Step(tool="notify_customers", args={"feeder_id": "F-12", "message": "Sorry for the outage."}),
        Step(tool="dispatch_crew", args={"crew_id": "CREW-1", "feeder_id": "F-12"}),
    ]
    result = asyncio.run(run_episode(load_task(tmp_path / "task.yaml"), PlanAgent("x", never_looks), ScriptedUser()))
    assert result.passed is True and result.triggers_fired == []
    report = check_json(tmp_path, "--random-seeds", "2")
    controls = {c["control"]: c for c in report["controls"]}
    assert (controls["no-lookups"]["outcome"], controls["no-lookups"]["ok"]) == ("failed", True)
    assert "restored failed (restored_by(): restored at None)" in controls["no-lookups"]["detail"]  # (not on shift)
    waits = controls["no-lookups-waits"]
    assert (waits["outcome"], waits["ok"]) == ("passed", False), waits
    path = tmp_path / "task.yaml"
    assert (
        f"{path}:{line_with(path, '- id: bridge-flooded')}: triggers[0]: trigger bridge-flooded: control "
        "no-lookups-waits: naive_plan with get_feeder replaced by waiting as long; passes the checklist "
        "(triggers fired: none; never fires bridge-flooded)"
    ) in "\n".join(report["problems"])
    assert report["ok"] is False


def test_a_second_trigger_on_a_lookup_is_fine_when_the_conflict_meets_everyone(tmp_path):
    """A cascade that a lookup sets off (the crew's van is low on fuel when anyone asks) is
    part of the story; the flood at the start already breaks the plan of an agent that never
    looks, so the control fails as it must."""
    task = copy.deepcopy(GRID)
    task["triggers"].append(
        {"id": "asked", "when": {"tool": "get_feeder"}, "effects": [{"set": "weather.forecast", "value": "gale"}]}
    )
    write(tmp_path, task)
    report = check_json(tmp_path, "--random-seeds", "2")
    waits = next(c for c in report["controls"] if c["control"] == "no-lookups-waits")
    assert (waits["outcome"], waits["ok"]) == ("failed", True)
    assert report["ok"] is True, report["problems"]


# -- a tool that raises during a plan ----------------------------------------------------------


@pytest.mark.parametrize("plan", ["naive_plan", "solution"])
def test_a_tool_that_raises_in_a_plan_is_located_at_the_line_that_raised(tmp_path, plan):
    task = copy.deepcopy(GRID)
    task[plan].insert(1, {"tool": "get_weather", "args": {}})
    write(tmp_path, task, forecast_key="form")
    env = tmp_path / "grid.py"
    report = check_json(tmp_path, "--random-seeds", "1")
    raised_at = line_with(env, '["weather"]["form"]')
    assert (
        f"{env}:{raised_at}: GridEnv.get_weather: internal error in get_weather: KeyError: 'form' "
        f"(in {plan} step 2); the agent is told only that"
    ) in report["problems"], report["problems"]
    assert report["ok"] is False


# -- an impossible task one operation off the plans solves -------------------------------------


def test_an_impossible_task_one_dispatch_solves_is_refused(tmp_path):
    task = copy.deepcopy(IMPOSSIBLE)
    task["initial_state"]["travel"][2]["minutes"] = 25  # the south crew is close after all
    write(tmp_path, task)
    report = check_json(tmp_path, "--random-seeds", "2")
    path = tmp_path / "task.yaml"
    assert (
        f"{path}:{line_with(path, 'level: impossible')}: level: impossible, yet one operation reaches the goal "
        "checklist: dispatch_crew(crew_id='CREW-2', feeder_id='F-12') on the state at the start"
    ) in "\n".join(report["problems"]), report["problems"]
    assert report["ok"] is False


def test_the_search_reports_its_size(tmp_path):
    write(tmp_path, IMPOSSIBLE)
    report = check_json(tmp_path, "--random-seeds", "2")
    note = next(n for n in report["notes"] if n.startswith("searched "))
    calls, states = re.fullmatch(
        r"searched (\d+) single operations from (\d+) states for a way to the goal", note
    ).groups()
    # the start, after get_feeder and after the dispatch (a failed call: only the clock moves)
    assert int(states) == 3 and int(calls) >= 3 * 2 * 2  # both crews x the feeder, with notify on top
    out = CliRunner().invoke(main, ["check", str(tmp_path), "-v", "--random-seeds", "1"]).output
    assert f"searched {calls} single operations from 3 states" in out


def test_a_call_made_before_a_scheduled_change_is_judged_after_it(tmp_path):
    """The flood comes at 08:30: a dispatch at 08:00 is restored by 08:55 in the state right
    after the call, but the flood does not undo a repair, so that reach counts; when the flood
    also knocks the feeder out again, it does not."""
    task = copy.deepcopy(IMPOSSIBLE)
    task["triggers"][0]["when"] = {"at": "2024-11-02T08:30:00"}
    task["triggers"][0]["effects"] = [*FLOOD, {"set": "feeders.F-12.status", "value": "fault"}]
    task["naive_plan"].insert(0, {"tool": "notify_customers", "args": {"feeder_id": "F-12", "message": "x"}})
    write(tmp_path, task)
    found = [p for p in check_json(tmp_path, "--random-seeds", "1")["problems"] if "one operation reaches" in p]
    assert found == []


# -- a trigger due after the episode can end ---------------------------------------------------


def test_a_trigger_due_after_the_episode_can_end_says_both_times(tmp_path):
    task = copy.deepcopy(GRID)
    task["triggers"].append(
        {
            "id": "evening-storm",
            "when": {"at": "2024-11-02T20:00:00"},
            "effects": [{"set": "weather.forecast", "value": "storm"}],
        }
    )
    write(tmp_path, task)
    path = tmp_path / "task.yaml"
    problems = check_json(tmp_path, "--random-seeds", "1")["problems"]
    assert (
        f"{path}:{line_with(path, '2024-11-02T20:00:00')}: triggers[1].when.at: "
        "trigger evening-storm is due at 2024-11-02T20:00:00, after the latest time an episode can reach, "
        "2024-11-02T09:00:00 (clock.start 2024-11-02T08:00:00 + max_steps 12 × 5 min, the slowest call); "
        "no run can fire it"
    ) in "\n".join(problems), problems
    assert not any(p.startswith("solution never fires") for p in problems)


def test_a_trigger_the_solution_stops_short_of_says_when_it_ends(tmp_path):
    task = copy.deepcopy(GRID)
    task["triggers"].append(
        {
            "id": "late-storm",
            "when": {"at": "2024-11-02T08:40:00"},
            "effects": [{"set": "weather.forecast", "value": "storm"}],
        }
    )
    write(tmp_path, task)
    problems = "\n".join(check_json(tmp_path, "--random-seeds", "1")["problems"])
    assert (
        "triggers[1].when.at: the solution never fires trigger late-storm: it is due at 2024-11-02T08:40:00 and "
        "the solution ends at 2024-11-02T08:11:00; an episode can reach 2024-11-02T09:00:00"
    ) in problems, problems


WAIT_TOOL = """
    @tool("operation", minutes=0)
    def wait(self, minutes: int) -> Result:
        \"\"\"Wait.

        Args:
            minutes: How long.
        \"\"\"
        self.advance(minutes)
        return self.ok(now=self.iso())
"""


def test_a_tool_that_moves_the_clock_leaves_the_latest_time_open(tmp_path):
    task = copy.deepcopy(GRID)
    task["triggers"].append(
        {
            "id": "evening-storm",
            "when": {"at": "2024-11-02T20:00:00"},
            "effects": [{"set": "weather.forecast", "value": "storm"}],
        }
    )
    write(tmp_path, task)
    with (tmp_path / "grid.py").open("a") as f:
        f.write(textwrap.indent(textwrap.dedent(WAIT_TOOL), "    "))
    problems = "\n".join(check_json(tmp_path, "--random-seeds", "1")["problems"])
    assert (
        "triggers[1].when.at: the solution never fires trigger evening-storm: it is due at 2024-11-02T20:00:00 and "
        "the solution ends at 2024-11-02T08:11:00; no bound on the clock: wait moves the clock itself"
    ) in problems, problems


# -- check functions given a wrong argument name -----------------------------------------------


def test_a_check_function_given_a_wrong_argument_name_is_refused_at_load(tmp_path):
    task = copy.deepcopy(GRID)
    task["checklist"][0]["args"] = {"feeder": "F-12", "deadline": "2024-11-02T10:00"}
    write(tmp_path, task)
    path = tmp_path / "task.yaml"
    with pytest.raises(TaskFileError) as info:
        load_task(path)
    got = [str(p) for p in info.value.problems]
    at = line_with(path, "feeder: F-12") - 1  # the args: line
    assert got == [
        f"{path}:{at}: checklist[0].args: check restored_by has no parameter 'feeder' (did you mean feeder_id?); "
        "its parameters: deadline, feeder_id",
        f"{path}:{at}: checklist[0].args: check restored_by needs 'feeder_id' (it has no default)",
    ]
    out = CliRunner().invoke(main, ["check", str(tmp_path)]).output
    assert "check raised TypeError" not in out and "has no parameter 'feeder'" in out


# -- generic cause evidence --------------------------------------------------------------------


def test_generic_cause_evidence_is_refused(tmp_path):
    task = copy.deepcopy(IMPOSSIBLE)
    task["judge"]["evidence"] = ["issue", "technical problems", "fen bridge", "delay*"]
    write(tmp_path, task)
    path = tmp_path / "task.yaml"
    with pytest.raises(TaskFileError) as info:
        load_task(path)
    got = [(p.line, p.field, p.message.split(":")[0]) for p in info.value.problems]
    assert got == [
        (line_with(path, "- issue"), "judge.evidence[0]", "'issue' names no cause"),
        (line_with(path, "- technical problems"), "judge.evidence[1]", "'technical problems' names no cause"),
        (line_with(path, "- delay*"), "judge.evidence[3]", "'delay*' names no cause"),
    ]


@pytest.mark.parametrize(
    ("term", "generic"),
    [
        ("problem", True),
        ("Problems", True),
        ("delays", True),
        ("the delay", True),
        ("unexpected issue", True),
        ("iss*", True),
        ("flood", False),
        ("fen bridge", False),
        ("qa hold", False),
        ("volcan*", False),
        ("60 minutes", False),
    ],
)
def test_generic_terms(term, generic):
    assert (generic_term(term) is not None) is generic
