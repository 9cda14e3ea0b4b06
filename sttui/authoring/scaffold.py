"""``sttui new domain``: a new domain's folder that passes ``sttui check`` as written.

The skeleton is a small, complete world to edit rather than a blank form: an environment with
one query tool, one operation tool and one check, and one task whose silent trigger breaks the
conflict-free plan, with its milestone graph drafted from the solution by the same code as
``sttui milestones draft --from-solution`` and ``accept``. The tutorial (docs/first-domain.md)
walks through it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

NAME = re.compile(r"[a-z][a-z0-9]*(-[a-z0-9]+)*")
TASK_STEM = "unit-off-road-st1-easy"

ENV = '''"""The {name} domain: units that do jobs, and the jobs users ask for.

Written by `sttui new domain {name}` as a skeleton to edit: one query tool, one operation
tool and one check (docs/task-format.md §2 says what each may do).

State: ``units`` (id -> {{name, site, status}}) and ``jobs`` (id -> {{customer, site, unit,
status}}). A unit's status is ``available``, ``busy`` or anything else that keeps it from
taking a job (``off_road``, ``maintenance``).
"""

from __future__ import annotations

from sttui.core.env import Environment, Result, check, tool


class {cls}(Environment):
    """Units and jobs (see the module doc)."""

    @tool("query", minutes=2)
    def get_unit(self, unit_id: str) -> Result:
        """Current status of one unit: its site and whether it can take a job.

        Args:
            unit_id: The unit's id, e.g. U-1.
        """
        unit = self.state["units"].get(unit_id)
        if unit is None:
            return self.fail(f"no unit {{unit_id}}")
        return self.ok(unit_id=unit_id, **unit)

    @tool("operation", minutes=5)
    def assign_unit(self, job_id: str, unit_id: str) -> Result:
        """Send a unit to a job. Only an available unit can go, and a job takes one unit.

        Args:
            job_id: The job's id, e.g. J-1.
            unit_id: The unit to send, e.g. U-2.
        """
        job = self.state["jobs"].get(job_id)
        unit = self.state["units"].get(unit_id)
        if job is None:
            return self.fail(f"no job {{job_id}}")
        if unit is None:
            return self.fail(f"no unit {{unit_id}}")
        if job["unit"] is not None:
            return self.fail(f"{{job_id}} already has unit {{job['unit']}}")
        if unit["status"] != "available":
            return self.fail(f"{{unit_id}} is {{unit['status']}}")
        job["unit"], job["status"] = unit_id, "assigned"
        unit["status"] = "busy"
        return self.ok(job_id=job_id, unit_id=unit_id, site=unit["site"])

    @check
    def job_covered(self, job_id: str) -> tuple[bool, str]:
        """The job has a unit, and the unit is at the job's site."""
        job = self.state["jobs"][job_id]
        if job["unit"] is None:
            return False, f"{{job_id}} has no unit"
        site = self.state["units"][job["unit"]]["site"]
        if site != job["site"]:
            return False, f"{{job['unit']}} is at {{site}}, the job at {{job['site']}}"
        return True, f"{{job['unit']}} covers {{job_id}} at {{site}}"
'''

TASK = """id: {name}-{stem}
kind: stt
title: A unit breaks down before the job is assigned
domain: {name}
conflict: ST1
level: easy
env: env:{cls}
description: >
  U-1, the obvious unit for J-1, broke down before the user wrote (a silent trigger at
  clock.start). The naive plan sends U-1 and fails; the solution looks, finds U-2 at the
  same site and sends it.
initial_state:
  units:
    U-1: {{name: Unit 1, site: NORTH, status: available}}
    U-2: {{name: Unit 2, site: NORTH, status: available}}
    U-3: {{name: Unit 3, site: SOUTH, status: available}}
    U-4: {{name: Unit 4, site: NORTH, status: maintenance}}
    U-5: {{name: Unit 5, site: NORTH, status: busy}}
  jobs:
    J-1: {{customer: Ada Moss, site: NORTH, unit: null, status: open}}
    J-2: {{customer: Ben Ode, site: SOUTH, unit: null, status: open}}
    J-3: {{customer: Cy Park, site: NORTH, unit: U-5, status: assigned}}
clock:
  start: "2025-01-06T08:00:00"
user:
  goal: Job J-1 at the north site gets a working unit this morning.
  profile: {{role: dispatcher, style: brief}}
query: Please send U-1 to job J-1 at the north site.
triggers:
  - id: unit-off-road
    description: U-1 broke down before the user wrote.
    when: {{at: "2025-01-06T08:00:00"}}
    effects:
      - {{set: units.U-1.status, value: off_road}}
    announce: false
checklist:
  - {{id: j1-covered, check: job_covered, args: {{job_id: J-1}}}}
naive_plan:
  - {{tool: assign_unit, args: {{job_id: J-1, unit_id: U-1}}}}
  - {{say: "U-1 is on its way to job J-1."}}
solution:
  - {{tool: get_unit, args: {{unit_id: U-1}}}}
  - {{tool: get_unit, args: {{unit_id: U-2}}}}
  - {{tool: assign_unit, args: {{job_id: J-1, unit_id: U-2}}}}
  - {{say: "U-1 is off the road, so I have sent U-2 to job J-1 instead."}}
"""


class ScaffoldError(Exception):
    pass


@dataclass
class Scaffold:
    folder: Path
    env: Path
    task: Path
    milestones: int


def class_name(name: str) -> str:
    """``air-travel`` -> ``AirTravelEnv``."""
    return "".join(part.capitalize() for part in name.split("-")) + "Env"


def new_domain(name: str, folder: Path) -> Scaffold:
    """Write ``env.py`` and one task into ``folder`` (new, or empty), then draft the task's
    milestones from its solution and write them in, checked as ``milestones accept`` does."""
    if not NAME.fullmatch(name):
        raise ScaffoldError(
            f"expected a domain name of lowercase letters, digits and dashes (like cold-chain); got {name!r}"
        )
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise ScaffoldError(f"{folder} exists and is not an empty folder; name a new one")
    folder.mkdir(parents=True, exist_ok=True)
    env = folder / "env.py"
    task = folder / f"{TASK_STEM}.yaml"
    cls = class_name(name)
    env.write_text(ENV.format(name=name, cls=cls), encoding="utf-8")
    task.write_text(TASK.format(name=name, cls=cls, stem=TASK_STEM), encoding="utf-8")
    return Scaffold(folder, env, task, _draft_milestones(task))


def _draft_milestones(task: Path) -> int:
    from sttui.core.loader import load_task
    from sttui.drafting.record import accept, consensus_rules, from_solution

    loaded = load_task(task)
    draft = from_solution(loaded)
    milestones, minefields = consensus_rules(draft)
    accept(loaded, draft, milestones, minefields, "sttui new domain (--from-solution)")
    return len(milestones)
