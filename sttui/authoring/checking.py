"""``sttui check``: a task must load, its naive plan must break, its solution must work,
and it must be deterministic. Runs plans through the same runner every agent uses."""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import os
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from sttui.authoring.adversary import RANDOM_SEEDS, ControlResult, run_controls, static_runs, waiting_for_lookups
from sttui.authoring.mistakes import (
    Finding,
    QueryProbe,
    missing_checklist_paths,
    never_holding,
    static_findings,
    trigger_errors,
    unreadable_facts,
)
from sttui.authoring.reachability import search
from sttui.authoring.tell_notes import tell_notes
from sttui.controllers.baselines import PlanAgent, ScriptedUser
from sttui.controllers.explore_baselines import ExploreOracle
from sttui.core import events as ev
from sttui.core.checklist import evaluate_checklist
from sttui.core.env import Environment
from sttui.core.episode import Episode
from sttui.core.explore.certify import SHARE_RANGE, drift_share, utility_invariant_violations
from sttui.core.explore.task import ExploreTask
from sttui.core.loader import REVIEW_SECTIONS, LoadedTask, discover, load_catalog, load_task, load_without
from sttui.core.problems import Problem, TaskFileError, display_path, format_loc
from sttui.core.task import SttTask
from sttui.core.taskindex import written_id
from sttui.core.yamlio import line_of, load_with_lines, read_text
from sttui.errors import where_raised
from sttui.running.runner import EpisodeResult, Seats, drive, open_episode, run_episode


@dataclass
class TaskCheck:
    file: str
    task_id: str | None
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    controls: list[ControlResult] = field(default_factory=list)
    graph: str | None = None  # where the milestones came from: hand, consensus, solution, none

    @property
    def ok(self) -> bool:
        return not self.problems

    def as_dict(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "task": self.task_id,
            "ok": self.ok,
            "problems": self.problems,
            "notes": self.notes,
            "controls": [c.as_dict() for c in self.controls],
            "graph": self.graph,
        }


async def _play(loaded: LoadedTask, plan: str, probe: bool = False) -> tuple[EpisodeResult, Episode, QueryProbe | None]:
    """Play a plan through the runner, keeping every state it reaches; with ``probe`` every
    query tool is also called on the state before each step."""
    agent: Any = PlanAgent(f"baseline:{plan}", getattr(loaded.task, plan))
    prober = QueryProbe(agent, loaded) if probe else None
    user = ScriptedUser()
    episode = open_episode(
        loaded, None, {"agent": agent.name, "user": user.name}, verify_queries=True, keep_history=True
    )
    assert isinstance(episode, Episode)
    if prober is not None:
        prober.episode = episode
        agent = prober
    episode.start()
    result = await drive(episode, Seats(agent, user))
    if prober is not None:
        prober.probe("at the end of the solution")
    return result, episode, prober


# One function on purpose: the plays and then each verdict on them, in the order `sttui check`
# reports them; split, the verdicts would pass the same six plays' results around.
async def check_loaded(loaded: LoadedTask, file: str, seeds: int = RANDOM_SEEDS) -> TaskCheck:
    task = loaded.task
    assert isinstance(task, SttTask)
    report = TaskCheck(file, task.id, graph=graph_origin(task))
    trigger_ids = [t.id for t in task.triggers]
    naive, naive_ep, _ = await _play(loaded, "naive_plan")
    sol, sol_ep, prober = await _play(loaded, "solution", probe=True)
    again = await _play(loaded, "solution")
    naive_goal = all(i.passed for i in evaluate_checklist(naive_ep))
    sol_goal = all(i.passed for i in evaluate_checklist(sol_ep))

    if task.level == "impossible":
        for name, reached in (("naive_plan", naive_goal), ("solution", sol_goal)):
            if reached:
                report.problems.append(f"{name} reaches the goal checklist, so the task is not impossible")
        if not sol.passed:
            failed = "; ".join(
                f"{i.id}: {i.detail}" for i in (sol.outcome.items if sol.outcome else []) if not i.passed
            )
            report.problems.append(f"solution does not satisfy the judge: {failed}")
        if naive.passed:
            report.problems.append("naive_plan satisfies the judge; it must not tell the user it cannot be done")
    else:
        if naive.passed:
            report.problems.append("naive_plan passes the checklist; the triggers must break it")
        if not sol.passed:
            failed = "; ".join(
                f"{i.id}: {i.detail}" for i in (sol.outcome.items if sol.outcome else []) if not i.passed
            )
            report.problems.append(f"solution fails the checklist: {failed}")
    if not naive.triggers_fired:
        report.problems.append("naive_plan hits no trigger")
    missing = [t for t in trigger_ids if t not in sol.triggers_fired]
    timed = unfired_timed(task, loaded, sol_ep, missing)
    missing = [t for t in missing if t not in {task.triggers[int(f.loc[1])].id for f in timed}]
    if missing:
        report.problems.append(f"solution never fires trigger(s): {', '.join(missing)}")
    if sol_ep.state_hash() != again[1].state_hash():
        report.problems.append("not deterministic: the solution twice gives different final states")
    impure: set[str] = set()
    found: list[Finding] = list(timed)
    for episode, plan in ((naive_ep, "naive_plan"), (sol_ep, "solution")):
        found.extend(trigger_errors(episode, plan))
        found.extend(raised(episode, plan))
        for event in episode.events:
            if event.type == ev.TOOL_RESULT and event.payload["state_diff"]:
                tool = event.payload["tool"]
                if episode.tools[tool].kind == "query" and tool not in impure:
                    impure.add(tool)
                    found.append(
                        Finding(f"query tool {tool} changed state in {plan}; declare it an operation", tool=tool)
                    )
        if episode.ended and episode.ended["by"] == "limit":
            report.problems.append(f"{plan} hits the step limit ({task.max_steps}); raise max_steps")
    assert prober is not None
    found.extend(prober.problems(skip=impure))
    found.extend(missing_checklist_paths(task, {"naive_plan": naive_ep.env.state, "solution": sol_ep.env.state}))
    unreadable = unreadable_facts(task, sol_ep.env.state) if task.level != "impossible" else []
    found.extend(unreadable)
    states = [s for _, s in naive_ep.history] + [s for _, s in sol_ep.history]
    never, maybe = never_holding(task, states)
    found.extend(never)
    if task.level != "impossible":
        # (an item whose fact cannot be read fails under --static too: said once, at the fact)
        told_wrong = {task.checklist[f.loc[1]].id for f in unreadable if len(f.loc) > 1 and isinstance(f.loc[1], int)}
        found.extend(static_findings(task, *await static_runs(loaded), skip=told_wrong))
        if task.static_skip is not None:
            report.notes.append(f"static_skip: --static skips it ({task.static_skip})")
    elif not naive_goal and not sol_goal:
        searched = search(loaded)
        report.notes.append(searched.note())
        for where, call in searched.found:
            found.append(
                Finding(
                    f"impossible, yet one operation reaches the goal checklist: {call} {where} (every item passes, "
                    "and still does once every timed trigger has fired); make the goal unreachable for it too, "
                    "or make the task solvable",
                    ("level",),
                )
            )
    report.controls = await run_controls(loaded, seeds)
    looks, missed = waiting_for_lookups(loaded, task)
    after = next((i + 1 for i, c in enumerate(report.controls) if c.control == "no-lookups"), len(report.controls))
    report.controls.insert(after, looks)
    for t in missed:  # located at the trigger to fix, in place of the control's own line
        found.append(
            Finding(f"trigger {t}: control {looks.control}: {looks.detail}", ("triggers", trigger_ids.index(t)))
        )
    report.problems.extend(located(loaded, found))
    report.notes.extend(maybe)
    report.problems.extend(review_problems(sol, naive))
    for c in report.controls:
        if not c.ok and (c is not looks or not missed):
            report.problems.append(f"control {c.control}: {c.outcome} ({c.detail})")
    report.notes.extend(review_notes(sol_ep))
    report.notes.extend(tell_notes(task, sol_ep))
    if naive.review is not None:
        report.notes.append(naive_review_note(naive.review))
    report.notes.append(f"naive: {'pass' if naive.passed else 'fail'}, fired {', '.join(naive.triggers_fired)}")
    report.notes.append(f"solution: {'pass' if sol.passed else 'fail'} in {sol.steps} steps")
    return report


def raised(episode: Episode, plan: str) -> list[Finding]:
    """Tools that raised during a plan run (the agent was told "internal error in …"), each
    located where it raised: the innermost frame in the file that defines the tool."""
    out = []
    env_cls = type(episode.env)
    for err in episode.internal_errors:
        method = getattr(env_cls, err.tool, None)
        files = {inspect.getsourcefile(c) for c in (method, env_cls) if c is not None}
        frame = next((f for f in reversed(err.frames) if f.filename in files), None)
        message = f"{err.message} (in {plan} step {err.step}); the agent is told only that"
        where: tuple[str, int] | None = None
        if frame is not None and frame.lineno is not None:
            where = (frame.filename, frame.lineno)
        elif not err.frames and method is not None:  # it returned what is no result: the tool itself
            with contextlib.suppress(OSError, TypeError):
                where = (inspect.getsourcefile(method) or "", inspect.getsourcelines(method)[1])
        if where is not None and where[0]:
            out.append(Finding(message, where=(display_path(where[0]), where[1], f"{env_cls.__name__}.{err.tool}")))
        else:
            out.append(Finding(message, tool=err.tool))
    return out


def latest_clock(task: SttTask, env_cls: type[Environment]) -> tuple[datetime | None, str]:
    """The latest time an episode can reach, and how (``clock.start`` + ``max_steps`` × the
    slowest call + every positive ``shift_clock``); None, and why, when nothing bounds it (a tool
    moves the clock itself, a trigger that fires again and again shifts it)."""
    movers = [
        name
        for cls in env_cls.__mro__
        if isinstance(cls, type) and issubclass(cls, Environment) and cls is not Environment
        for name in _clock_movers(cls)
    ]
    if movers:
        return None, f"{', '.join(sorted(set(movers)))} moves the clock itself"
    shift = 0.0
    for trig in task.triggers:
        for eff in trig.effects:
            minutes = getattr(eff, "shift_clock", 0) or 0
            if minutes > 0 and not trig.once:
                return None, f"trigger {trig.id} shifts the clock each time it fires"
            shift += max(0.0, minutes)
    minutes = task.clock.tool_minutes
    durations = [
        minutes.get(n, s.minutes if s.minutes is not None else minutes.get("default", 5))
        for n, s in env_cls.tool_specs.items()
    ]
    slowest = max(durations, default=0)
    how = f"clock.start {task.clock.start.isoformat()} + max_steps {task.max_steps} × {slowest:g} min, the slowest call"
    if shift:
        how += f", + {shift:g} min of shift_clock"
    try:
        return task.clock.start + timedelta(minutes=task.max_steps * slowest + shift), how
    except OverflowError:
        return None, "the clock can run past the year 9999"


_MOVES_CLOCK = re.compile(r"\.advance\(|\.now\s*[-+]?=(?!=)")


def _clock_movers(cls: type) -> list[str]:
    """Methods of ``cls`` (its own) whose source moves the clock (``advance`` or sets ``now``)."""
    out = []
    for name, member in vars(cls).items():
        with contextlib.suppress(OSError, TypeError):
            if callable(member) and _MOVES_CLOCK.search(inspect.getsource(member)):
                out.append(name)
    return out


def unfired_timed(task: SttTask, loaded: LoadedTask, sol_ep: Episode, missing: list[str]) -> list[Finding]:
    """Timed triggers (``when.at``) the solution never fires, each with its time and the latest
    time an episode can reach."""
    assert loaded.env_cls is not None
    latest, how = latest_clock(task, loaded.env_cls)
    out = []
    for i, trig in enumerate(task.triggers):
        at = trig.when.at
        if trig.id not in missing or at is None:
            continue
        if latest is not None and at > latest:
            message = (
                f"trigger {trig.id} is due at {at.isoformat()}, after the latest time an episode can reach, "
                f"{latest.isoformat()} ({how}); no run can fire it: move it earlier or raise max_steps"
            )
        else:
            bound = f"an episode can reach {latest.isoformat()} ({how})" if latest else f"no bound on the clock: {how}"
            message = (
                f"the solution never fires trigger {trig.id}: it is due at {at.isoformat()} and the solution ends at "
                f"{sol_ep.now.isoformat()}; {bound}"
            )
        out.append(Finding(message, ("triggers", i, "when", "at")))
    return out


def located(loaded: LoadedTask, found: list[Finding]) -> list[str]:
    """Each finding as ``file:line: field: message``: in the task file, or at the tool's
    definition in the environment module."""
    try:
        _, lines = load_with_lines(read_text(loaded.path))
    except Exception:  # (it loaded a moment ago; a file changed under us just loses its lines)
        lines = {}
    out = []
    for f in found:
        if f.where is not None:
            out.append(str(Problem(*f.where, f.message)))
        elif f.tool is not None and loaded.env_cls is not None:
            where, line = display_path(inspect.getsourcefile(loaded.env_cls) or "?"), None
            with contextlib.suppress(OSError, TypeError):
                line = inspect.getsourcelines(getattr(loaded.env_cls, f.tool))[1]
            out.append(str(Problem(where, line, f"{loaded.env_cls.__name__}.{f.tool}", f.message)))
        elif f.loc:
            out.append(str(Problem(display_path(loaded.path), line_of(lines, f.loc), format_loc(f.loc), f.message)))
        else:
            out.append(f.message)
    return out


def graph_origin(task: SttTask) -> str:
    """Where a task's milestones came from: ``none`` (no stage review), ``hand`` (written, or
    no origin recorded), or the ``milestones_origin.method`` that ``milestones accept`` wrote."""
    if not task.milestones:
        return "none"
    return task.milestones_origin.method if task.milestones_origin else "hand"


GRAPH_NOTES = {
    "none": "no milestones: no stage review (draft a graph: sttui milestones draft TASK --model M)",
    "solution": "milestones derived from the solution (sttui milestones draft --from-solution)",
}


async def review_check(loaded: LoadedTask) -> tuple[list[str], list[str]]:
    """The milestone part of ``check`` alone (item 6's plays): the solution settles every
    milestone in order without a minefield or stagnation, the naive plan does not settle them
    all. (problems, notes); what ``milestones draft`` and its review screen re-run."""
    naive, _, _ = await _play(loaded, "naive_plan")
    sol, sol_ep, _ = await _play(loaded, "solution")
    notes = review_notes(sol_ep)
    if naive.review is not None:
        notes.append(naive_review_note(naive.review))
    return review_problems(sol, naive), notes


def controls_line(controls: list[ControlResult]) -> str:
    """One line for a task's controls: how many failed as they must, and the random rate."""
    random = next((c for c in controls if c.control == "random"), None)
    others = [c for c in controls if c.control != "random"]
    held = sum(c.ok for c in others)
    line = f"controls: {held}/{len(others)} adversarial agents fail it"
    if random is not None:
        line += f"; random {random.outcome} ({random.detail.split(';')[0]})"
    bad = [c.control for c in controls if not c.ok]
    return line + (f"; NOT: {', '.join(bad)}" if bad else "")


def review_problems(sol: EpisodeResult, naive: EpisodeResult) -> list[str]:
    """The solution settles every milestone in an order the graph allows and touches no
    minefield; the naive plan leaves a milestone unsettled or touches a fatal minefield."""
    out: list[str] = []
    s, n = sol.review, naive.review
    if s is None or n is None:
        return out
    review = sol.episode.review if isinstance(sol.episode, Episode) else None
    assert review is not None  # sol.review is set: the episode is a reviewed stt one
    missing = [m for m in review.graph.order if m not in review.settled]
    if missing:
        out.append(f"solution never settles milestone(s): {', '.join(missing)}{_why_unsettled(sol)}")
    for signal in s["signals"]:
        if signal["signal"] == "predecessor_gap":
            out.append(
                f"solution step {signal['step']} satisfies milestone {signal['milestone']} before "
                f"{', '.join(signal['missing'])}: the graph's order does not fit the solution"
            )
        elif signal["signal"].endswith("_minefield"):
            out.append(f"solution step {signal['step']} touches minefield {signal['minefield']}: {signal['reason']}")
        elif signal["signal"] == "frontier_stagnation":
            out.append(
                f"solution makes no milestone progress for {signal['actions']} actions up to step {signal['step']}; "
                "add a milestone in between or raise review.stagnation"
            )
    fatal = any(sig["signal"] == "fatal_minefield" for sig in n["signals"])
    if n["settled"] == n["milestones"] and not fatal:
        out.append("naive_plan settles every milestone and touches no fatal minefield; the graph cannot tell it apart")
    return out


def _why_unsettled(result: EpisodeResult) -> str:
    """For the first unsettled ready milestone, which of its constraints failed at the end."""
    ep = result.episode
    if not isinstance(ep, Episode) or ep.review is None:  # only stage-reviewed stt episodes have one
        return ""
    review = ep.review
    ready = review.graph.ready(set(review.settled))
    if not ready or not review.actions:
        return ""
    failing = [text for text, ok in review.explain(ready[0], ep.env.state, review.actions[-1]) if not ok]
    return f" ({ready[0]} after the last step fails: {'; '.join(failing)})" if failing else ""


def review_notes(episode: Episode) -> list[str]:
    review = episode.review
    if review is None:
        return []
    notes = []
    if review.derived:
        notes.append(
            f"milestones derived from the solution ({len(review.graph.order)}, sequential): "
            "they follow the one reference path"
        )
    for before, after in review.graph.redundant:
        notes.append(f"milestone edge {before} → {after} is implied by another path; dropped (transitive reduction)")
    stages = ", ".join(f"{s.milestone} {s.score:.2f}" for s in review.stages)
    notes.append(f"solution stages: {stages}")
    return notes


def naive_review_note(review: dict[str, Any]) -> str:
    """How the naive plan fares in the review: what a task author checks the graph against."""
    first = review["first_error"]
    mines = sorted({s["minefield"] for s in review["signals"] if s["signal"].endswith("_minefield")})
    return (
        f"naive review: {review['settled']}/{review['milestones']} milestones"
        + (f"; first error at step {first['step']} ({first['why']})" if first else "; no first error found")
        + (f"; touches {', '.join(mines)}" if mines else "")
    )


def catalog_for(path: Path, domain: str) -> Path | None:
    """An explore episode's catalog: ``catalogs/DOMAIN.yaml`` in the episode's folder or one of
    the two above it (bundled: ``tasks/explore/catalogs/`` beside ``tasks/explore/DOMAIN/``)."""
    if not re.fullmatch(r"[A-Za-z0-9_-]+", domain):  # a name, never a path out of the folder
        return None
    for folder in list(path.resolve().parents)[:3]:
        found = folder / "catalogs" / f"{domain}.yaml"
        if found.is_file():
            return found
    return None


def exclusive_problems(loaded: LoadedTask) -> tuple[list[str], list[str]]:
    """(problems, notes): no two fields of one of the catalog's ``exclusive`` groups in the
    episode, each as ``file:line: fields[i].name: …`` at the later field."""
    task = loaded.task
    assert isinstance(task, ExploreTask)
    where = catalog_for(loaded.path, task.domain)
    if where is None:
        return [], [f"no catalogs/{task.domain}.yaml beside it: exclusive fields not checked"]
    try:
        catalog = load_catalog(where)
        _, cat_lines = load_with_lines(read_text(where))
        _, lines = load_with_lines(read_text(loaded.path))
    except (TaskFileError, OSError, ValueError) as exc:
        return [f"catalog {display_path(where)} does not load: {exc}"], []
    index = {f.name: i for i, f in enumerate(task.fields)}
    problems = []
    for g, group in enumerate(catalog.exclusive):
        present = sorted((index[n], n) for n in group if n in index)
        for i, name in present[1:]:
            at = f"{display_path(where)}:{line_of(cat_lines, ('exclusive', g))}"
            problems.append(
                str(
                    Problem(
                        display_path(loaded.path),
                        line_of(lines, ("fields", i, "name")),
                        f"fields[{i}].name",
                        f"'{name}' and '{present[0][1]}' are exclusive ({at}: exclusive[{g}]): fields that measure "
                        "the same thing never share an episode; keep one of them",
                    )
                )
            )
    return problems, []


async def check_explore(loaded: LoadedTask, file: str) -> TaskCheck:
    """Schema (already loaded), the catalog's exclusive groups, the utility invariant, oracle
    CA = 1, and the drift's share."""
    task = loaded.task
    assert isinstance(task, ExploreTask)
    report = TaskCheck(file, task.id)
    report.problems, report.notes = exclusive_problems(loaded)
    bad = utility_invariant_violations(task)
    if bad:
        report.problems.append(f"utility invariant broken on {bad} sampled cases (sum to zero, nearest anchor)")
    oracle = await run_episode(loaded, ExploreOracle("baseline:oracle", task))
    ca = (oracle.metrics or {}).get("calibrated_accuracy")
    if ca is None or abs(ca - 1.0) > 1e-9:
        report.problems.append(f"oracle calibrated accuracy is {ca}, expected exactly 1")
    share = drift_share(task)
    if share is not None:
        lo, hi = SHARE_RANGE
        if not lo <= share <= hi:
            report.problems.append(
                f"the drift changes the optimal action for {share:.0%} of post-change cases; expected {lo:.0%}-{hi:.0%}"
            )
        report.notes.append(f"drift share {share:.0%}")
    report.notes.append(f"oracle CA {ca}")
    return report


def _section(field: str) -> str:
    """The top-level field a problem's field lies in (``milestones[0].threshold``: milestones)."""
    return field.split(".")[0].split("[")[0]


def check_paths(paths: list[str | Path], seeds: int = RANDOM_SEEDS) -> list[TaskCheck]:
    """Check every task file under ``paths``; duplicate task ids are reported too. ``seeds``
    is the number of random-baseline runs per stt task."""
    reports: list[TaskCheck] = []
    seen: dict[str, str] = {}

    async def go() -> None:
        for f in discover(paths):
            name = str(f)
            try:
                loaded = load_task(f)
            except TaskFileError as exc:
                report = TaskCheck(name, written_id(f), [str(p) for p in exc.problems])
                sections = {_section(p.field) for p in exc.problems}
                if exc.problems and sections <= set(REVIEW_SECTIONS):
                    # only the graph is wrong: play the rest, so one pass reports everything
                    try:
                        rest = load_without(f, sections)
                    except TaskFileError:
                        rest = None
                    if rest is not None and rest.kind == "stt":
                        played = await check_loaded(rest, name, seeds)
                        report.task_id = played.task_id
                        report.problems += played.problems
                        report.controls = played.controls
                        left = ", ".join(sorted(sections))
                        report.notes = [*played.notes, f"played without {left}: fix the problems there to check them"]
                reports.append(report)
                continue
            try:
                if loaded.kind == "explore":
                    report = await check_explore(loaded, name)
                else:
                    report = await check_loaded(loaded, name, seeds)
            except Exception as exc:  # the environment's own code broke the play: said, and the rest checked
                if os.environ.get("STTUI_DEBUG"):  # (the traceback, for a bug of sttui's own)
                    raise
                report = TaskCheck(name, loaded.id, [f"{name}: the task could not be played: {where_raised(exc)}"])
            if loaded.id in seen:
                report.problems.append(f"duplicate task id '{loaded.id}' (also in {seen[loaded.id]})")
            seen.setdefault(loaded.id, name)
            reports.append(report)

    asyncio.run(go())
    return reports
