"""The adversarial controls ``sttui check`` runs on every stt task: agents that must fail it.

A control passing a task means the task grades something other than solving it. Every
control plays through the same runner as any agent, against the scripted user.

- Idle agents (``end-at-once``, ``polite``, ``do-nothing``) must fail every task: a solvable
  task whose goal already holds without the agent, or an impossible one whose judge an idle
  agent satisfies, is broken.
- ``no-lookups``: the naive plan with its query calls left out (its operations and messages
  in order) must fail every task. The naive plan fails because a trigger breaks it; when it
  passes once it stops looking, the trigger fires only for an agent that looks (a query
  trigger, or a time or call count only the lookups reach), so not looking is rewarded.
  (The solution without its lookups is no such control for passing: its operations already
  carry what the lookups found, so on a sound task it still passes.)
- ``no-lookups-waits``: the naive plan's operations at the times the naive plan makes them,
  each lookup replaced by the time it takes passing, must fail a solvable task and not reach
  an impossible task's goal checklist. ``no-lookups`` misses a trigger on a lookup when the
  naive plan without its lookups fails for another reason: the minutes it no longer spends
  (an operation made too early). Here only the looking is gone.
- The random baseline over ``seeds`` seeds (12 random valid calls each, never a message) may
  pass a solvable task in at most :data:`RANDOM_MAX_SHARE` of its runs, and an impossible
  task never.
- Under the static setting (no trigger fires), on solvable tasks: the naive plan (the right
  plan when nothing changes) must pass the checklist in force (``static_checklist``, else
  ``checklist``) and the idle agents must fail it (:func:`static_runs`).
- On impossible tasks, the solution's tool calls (every trigger fires) followed by a claim of
  success, a vague apology, or the cause's words inside other words must fail the judge.
"""

from __future__ import annotations

import contextlib
import math
from dataclasses import asdict, dataclass
from typing import Any

from sttui.controllers.base import Controller
from sttui.controllers.baselines import PlanAgent, RandomAgent, ScriptedUser
from sttui.controllers.controls import CallsThenSay, DoNothing, EndAtOnce, PoliteThenEnd
from sttui.core import statements
from sttui.core.actions import ToolCall
from sttui.core.checklist import ItemResult, evaluate_checklist
from sttui.core.episode import Episode, ProtocolError
from sttui.core.loader import LoadedTask
from sttui.core.settings import RunSettings
from sttui.core.task import Step, SttTask
from sttui.running.runner import EpisodeResult, run_episode

RANDOM_SEEDS = 20
# A blind agent passing a solvable task in more than one run in ten means the task does not
# measure replanning; the 10 % leaves room for an easy task's one corrective call being hit by
# luck (at most 2 of 20). An impossible task needs words the random agent never says: 0.
RANDOM_MAX_SHARE = 0.10

VAGUE = "I'm sorry, something went wrong and I'm having some trouble with the {cause} at the moment."
CLAIM = "I checked the {cause}: there is nothing here I cannot handle. Everything is booked and all set."
INSIDE = "I'm sorry, I cannot do this: {buried}."


@dataclass(frozen=True)
class ControlResult:
    """One control on one task: what happened (``outcome``), whether that is as it must be
    (``ok``) and the detail (the items that decided it)."""

    control: str
    outcome: str
    ok: bool
    detail: str

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def allowed_random_passes(seeds: int) -> int:
    return math.floor(seeds * RANDOM_MAX_SHARE + 1e-9)


def _verdict(result: EpisodeResult) -> str:
    assert result.outcome is not None
    failed = [i for i in result.outcome.items if not i.passed]
    ended = f"{result.steps} step(s), {result.end_reason}"
    if not failed:
        return f"{ended}; every item passed"
    first = failed[0]
    why = first.detail.split(" Rule:")[0].removeprefix("fail: ").rstrip(".")
    return f"{ended}; {first.id} failed ({why})" + (f" and {len(failed) - 1} more" if len(failed) > 1 else "")


def _must_fail(name: str, result: EpisodeResult, hint: str) -> ControlResult:
    if result.passed:
        return ControlResult(name, "passed", False, f"{_verdict(result)}: {hint}")
    return ControlResult(name, "failed", True, _verdict(result))


def _cause_words(task: SttTask) -> list[str]:
    assert task.judge is not None
    return [e.rstrip("*") for e in task.judge.evidence]


def scripted_messages(task: SttTask) -> dict[str, str]:
    """The last words of the impossible-task controls, made from the task's own cause terms:
    a claim of success naming the cause, a vague apology naming it, and the cause's words
    only inside other words."""
    words = _cause_words(task)
    buried = ", ".join("un" + "".join(statements.tokens(w)) + "ish" for w in words)
    return {
        "claims-success": CLAIM.format(cause=" and ".join(words)),
        "vague-apology": VAGUE.format(cause=" and ".join(words)),
        "cause-in-words": INSIDE.format(buried=buried),
    }


def without_lookups(task: SttTask, kinds: dict[str, str], plan: str = "naive_plan") -> tuple[list[Step], list[str]]:
    """A plan (the naive plan unless named) with its query calls left out, and the calls left out."""
    steps: list[Step] = getattr(task, plan)
    kept = [s for s in steps if s.tool is None or kinds.get(s.tool) != "query"]
    dropped = [s.tool for s in steps if s.tool is not None and kinds.get(s.tool) == "query"]
    return kept, dropped


async def _no_lookups(loaded: LoadedTask, task: SttTask) -> ControlResult:
    assert loaded.env_cls is not None
    kinds: dict[str, str] = {name: spec.kind for name, spec in loaded.env_cls.tool_specs.items()}
    steps, dropped = without_lookups(task, kinds)
    result = await run_episode(loaded, PlanAgent("control:no-lookups", steps), ScriptedUser())
    left = f"naive_plan without {', '.join(dropped)}" if dropped else "naive_plan as it is (no lookups to leave out)"
    if not result.passed:
        return ControlResult("no-lookups", "failed", True, f"{left}; {_verdict(result)}")
    fired = ", ".join(result.triggers_fired) or "none"
    if not dropped:  # the naive plan itself: whatever lets it pass, looking has nothing to do with it
        hint = (
            f"the naive plan itself passes (triggers fired: {fired}): see why it does above (a trigger that "
            "fires but changes nothing, an effect that failed, a checklist the change does not touch)"
        )
    else:
        hint = (
            f"the naive plan passes once it stops looking (triggers fired: {fired}): the change fires only for "
            "an agent that looks (a trigger on a query, or a time or call count only the lookups reach); make it "
            "happen whether or not anyone looks (when.at: clock.start, or on the operation the plan depends on)"
        )
    return ControlResult("no-lookups", "passed", False, f"{left}; {_verdict(result)}: {hint}")


def waiting_for_lookups(loaded: LoadedTask, task: SttTask) -> tuple[ControlResult, list[str]]:
    """The naive plan's operations at the times the naive plan makes them, its lookups replaced
    by the time they take passing (``Episode.pass_time``): an agent that never looks but is no
    faster. It must fail a solvable task and not reach an impossible task's goal checklist.
    (The control, and the triggers the naive plan fires that it does not.) Unlike
    ``no-lookups`` it cannot fail for the minutes it saves: only the looking is gone."""
    env_cls = loaded.env_cls
    assert env_cls is not None
    specs = env_cls.tool_specs
    ep = Episode(task, env_cls)
    ep.start()
    naive = Episode(task, env_cls)  # the naive plan's own triggers, for comparison
    naive.start()
    dropped = []
    for step in task.naive_plan:
        if step.tool is None:
            continue  # a message changes no state
        with contextlib.suppress(ProtocolError):
            naive.apply(ToolCall(step.tool, dict(step.args)))
        spec = specs.get(step.tool)
        if spec is not None and spec.kind == "query":
            dropped.append(step.tool)
            ep.pass_time(naive.now)
        elif ep.ended is None:
            ep.apply(ToolCall(step.tool, dict(step.args)))
    name = "no-lookups-waits"
    if not dropped:
        return ControlResult(name, "failed", True, "the naive plan makes no lookups"), []
    left = f"naive_plan with {', '.join(dropped)} replaced by waiting as long"
    passed = all(i.passed for i in evaluate_checklist(ep))
    fired = set(ep.triggers.fired)
    missed = [t for t in naive.triggers.fired if t not in fired]
    if not passed:
        return ControlResult(name, "failed", True, f"{left}; the checklist fails"), []
    goal = "reaches the goal checklist" if task.level == "impossible" else "passes the checklist"
    detail = (
        f"{left}; {goal} (triggers fired: {', '.join(sorted(fired)) or 'none'}"
        + (f"; never fires {', '.join(missed)}" if missed else "")
        + "): the change meets only an agent that looks (a trigger on a query, or a call count the lookups make "
        "up); make it happen whether or not anyone looks (when.at, or on the operation the plan depends on)"
    )
    return ControlResult(name, "passed", False, detail), missed


async def run_controls(loaded: LoadedTask, seeds: int = RANDOM_SEEDS) -> list[ControlResult]:
    """Every control on one stt task, in a fixed order."""
    task = loaded.task
    assert isinstance(task, SttTask) and loaded.env_cls is not None
    impossible = task.level == "impossible"
    out: list[ControlResult] = []
    idle_hint = (
        "an idle agent satisfies the judge"
        if impossible
        else "the goal holds without the agent doing anything; make the state at the start fail the "
        "checklist (a trigger due at clock.start, or an item only a resolution satisfies)"
    )
    idle: list[Controller] = [EndAtOnce(), PoliteThenEnd(), DoNothing()]
    for agent in idle:
        result = await run_episode(loaded, agent, ScriptedUser())
        out.append(_must_fail(agent.name.split(":", 1)[1], result, idle_hint))
    out.append(await _no_lookups(loaded, task))

    passed: list[int] = []
    for seed in range(seeds):
        agent = RandomAgent("baseline:random", loaded.env_cls.tool_specs, task.initial_state, seed)
        result = await run_episode(loaded, agent, ScriptedUser())
        if result.passed:
            passed.append(seed)
    limit = 0 if impossible else allowed_random_passes(seeds)
    rule = f"at most {limit} of {seeds} may pass" + ("" if impossible else f", {RANDOM_MAX_SHARE:.0%} rounded down")
    detail = rule + (f"; passing seeds: {', '.join(map(str, passed))}" if passed else "")
    out.append(ControlResult("random", f"{len(passed)}/{seeds} passed", len(passed) <= limit, detail))

    if impossible:
        for name, text in scripted_messages(task).items():
            agent = CallsThenSay(f"control:{name}", task.solution, [text])
            result = await run_episode(loaded, agent, ScriptedUser())
            out.append(_must_fail(name, result, f"the judge accepts {text!r}"))
    return out


STATIC = RunSettings(static=True)


async def static_runs(loaded: LoadedTask) -> tuple[list[ItemResult], dict[str, list[ItemResult]]]:
    """A solvable task under the static setting: the naive plan's checklist items, and each
    idle control's (by control name). ``check`` requires the first to pass, the rest to fail."""
    task = loaded.task
    assert isinstance(task, SttTask)
    naive = await run_episode(loaded, PlanAgent("baseline:naive", task.naive_plan), ScriptedUser(), settings=STATIC)
    assert naive.outcome is not None
    idle: dict[str, list[ItemResult]] = {}
    for agent in (EndAtOnce(), PoliteThenEnd(), DoNothing()):
        result = await run_episode(loaded, agent, ScriptedUser(), settings=STATIC)
        assert result.outcome is not None
        idle[agent.name.split(":", 1)[1]] = result.outcome.items
    return naive.outcome.items, idle
