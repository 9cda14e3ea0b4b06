"""Pass rates across task versions, for ``sttui report``: a task file can change between two
episodes (a checklist item tightened, a ``tell:`` fact added), and then the same controller's
pass rate may change for no reason of its own. Each episode stores the hash of the version it
ran on; here the finished stt episodes of one task, one controller and one setting are split by
that hash, so the report can say when a pass rate moved with the version."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sttui.analysis.comparison import BASE, Tally


def version_shifts(records: Iterable[Any], controls: dict[str, dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """One entry per (task, controller, setting) whose finished stt episodes ran on more than
    one task version: each version (oldest first, by its first episode) with its episodes,
    passes and pass rate, and whether the pass rate differs between versions."""
    tally = Tally(controls)
    for r in records:
        tally.add(r)
    return shifts_of(tally)


def shifts_of(tally: Tally) -> list[dict[str, Any]]:
    """``version_shifts`` of the episodes a ``Tally`` was given (``report`` streams them once
    for every figure)."""
    out = []
    for (task, controller, setting), by_version in sorted(tally.shifts.items()):
        if len(by_version) < 2:
            continue
        versions = []
        for version, (n, passed, _) in sorted(by_version.items(), key=lambda kv: kv[1][2]):
            versions.append({"version": version, "episodes": n, "passed": passed, "pass_rate": passed / n})
        out.append(
            {
                "task": task,
                "controller": controller,
                "setting": setting,
                "versions": versions,
                "pass_rate_changed": len({v["pass_rate"] for v in versions}) > 1,
            }
        )
    return out


def shift_line(shift: dict[str, Any]) -> str:
    """``task · controller: 2 task versions; pass 100% (2) on a1b2c3d4e5f6 → 50% (2) on …``."""
    who = shift["controller"] + ("" if shift["setting"] == BASE else f" [{shift['setting']}]")
    rates = " → ".join(f"{v['pass_rate']:.0%} ({v['episodes']}) on {v['version'][:12]}" for v in shift["versions"])
    tail = "" if shift["pass_rate_changed"] else " (the same on each)"
    return f"{shift['task']} · {who}: {len(shift['versions'])} task versions; pass {rates}{tail}"
