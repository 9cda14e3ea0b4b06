"""The live review of one stt episode, on DynSTEER's two clocks.

On the raw event clock each proposed call is screened against the minefields that can be
decided from the call alone, so a fatal one can be intercepted before it runs. On the
closed-action clock (a tool call with its result, a message, the end) the action is matched
against the ready frontier only; the milestones it satisfies settle, their stages are scored
from their evidence windows, and stop signals are raised.
"""

from __future__ import annotations

import bisect
from typing import Any

from sttui.core.caches import evict_oldest
from sttui.core.review.graph import START, Graph
from sttui.core.review.judging import LowQuality
from sttui.core.review.model import STATE_ONLY, Constraint, Minefield, ReviewSettings
from sttui.core.review.operators import Closed, Context, Snapshot, holds
from sttui.core.review.stages import STOPS, Stage, first_error, flags_of, score_window

Signal = dict[str, Any]


class Review:
    """Feed it :meth:`screen` before a call runs and :meth:`close` after each action closes."""

    def __init__(
        self,
        graph: Graph,
        minefields: list[Minefield],
        settings: ReviewSettings | None = None,
        early_stop: bool = False,
        derived: bool = False,
        low_quality: tuple[int, float] | None = None,
        external_scores: bool = False,
    ):
        self.graph = graph
        self.minefields = minefields
        self.settings = settings or ReviewSettings()
        self.early_stop = early_stop
        self.derived = derived  # the graph came from the solution, not the task file
        self.settled: dict[str, int] = {START: 0}
        self.states: dict[str, Any] = {}
        self.actions: list[Closed] = []
        self.stages: list[Stage] = []
        self.signals: list[Signal] = []
        self.mine_steps: dict[int, list[str]] = {}
        self.idle = 0  # closed actions since the frontier last moved
        self.stop: Signal | None = None  # the signal that ended the run (early stop)
        # "persistently low quality": fed rule scores here, or judged scores by the stage judge
        # (``external_scores``), so the rule reads whichever scores the run uses
        self.low_quality = LowQuality(*low_quality) if low_quality else None
        self.external_scores = external_scores
        self.judges: dict[str, Any] | None = None  # the stage judges' record (sttui/controllers/stage_judge.py)
        self._holding: set[str] = set()  # state minefields touched and still holding
        self._gapped: set[str] = set()  # milestones a predecessor gap was signalled for
        self._clean: set[str] = set()  # rules on the state alone whose answer still stands
        plan = self._plan = _plan_of(graph, minefields)  # (shared by every review of the graph: read, never changed)
        self._paths = plan.paths
        self._mines_before, self._mines_after = plan.mines_before, plan.mines_after
        self._reads, self._read_prefixes = plan.reads, plan.read_prefixes
        self._ready, self._blocked = plan.ready, plan.blocked  # (replaced as milestones settle, never changed)

    def begin(self, state: Any) -> None:
        self.states[START] = Snapshot.take(state, self._paths[START])

    # -- the raw event clock ------------------------------------------------------------
    def screen(self, step: int, tool: str, args: dict[str, Any], state: Any) -> list[Signal]:
        """Minefields the proposed call would touch, decided before it runs."""
        proposed = Closed(step, "call", tool, args)
        ctx = Context(proposed, state, self.states[START], self.states)
        out = []
        for mid, mine in self._mines_before:
            if _could_match(mine.needs, proposed) and mine.plan.satisfied(ctx)[0]:
                out.append(self._mine_signal(step, mid, mine, before=True))
        return out

    def intercepts(self, signals: list[Signal]) -> Signal | None:
        """The fatal signal that stops the call from running, under early stop."""
        if not self.early_stop:
            return None
        return next((s for s in signals if s["signal"] == "fatal_minefield"), None)

    def _mine_signal(self, step: int, mid: str, mine: Minefield, before: bool) -> Signal:
        self.mine_steps.setdefault(step, []).append(mid)
        signal = {
            "signal": f"{mine.severity}_minefield",
            "step": step,
            "minefield": mid,
            "reason": mine.reason,
            "before_call": before,
            "stops": mine.severity == "fatal",
        }
        self.signals.append(signal)
        return signal

    # -- the closed-action clock --------------------------------------------------------
    # Whole on purpose: minefields, then milestones, then stagnation, in the order their signals
    # must be recorded for one closed action; each part reads the same frontier and context.
    def close(self, action: Closed, state: Any, changed: list[str] | None = None) -> list[tuple[str, Signal]]:
        """Match a closed action against the ready frontier; returns events to record as
        (type, payload): ``milestone_settled`` and ``stop_signal``. ``changed``: the state paths
        changed since the last close (None: unknown), so a rule on the state alone whose paths
        did not change keeps its answer without being evaluated again."""
        self.actions.append(action)
        self._invalidate(changed)
        out: list[tuple[str, Signal]] = []
        after_ctx = Context(action, state, self.states[START], self.states)
        for mid, mine in self._mines_after:
            key = f"minefield:{mid}"
            if key in self._clean:
                continue
            hit = _could_match(mine.needs, action) and mine.plan.satisfied(after_ctx)[0]
            if key in self._reads:
                self._clean.add(key)  # (held or not, the same state gives the same answer)
            if hit and mid not in self._holding:
                out.append(("stop_signal", self._mine_signal(action.step, mid, mine, before=False)))
            (self._holding.add if hit else self._holding.discard)(mid)

        settled_now = []
        for mid in self._ready:
            m = self.graph.milestones[mid]
            if mid in self._clean or not _could_match(m.needs, action):
                continue
            anchor = self.graph.idom[mid]
            ctx = Context(action, state, self.states[anchor], self.states)
            ok, share = m.plan.satisfied(ctx)
            if ok:
                settled_now.append((mid, share))
            elif mid in self._reads:
                self._clean.add(mid)
        for mid, _share in settled_now:
            self.settled[mid] = action.step
            self.states[mid] = Snapshot.take(state, self._paths.get(mid, set()))
        if settled_now:
            self._clean.clear()  # a settlement is a new baseline for what compares with it
            self._ready, self._blocked = self._plan.frontier(frozenset(self.settled))
        for mid, share in settled_now:
            stage = self._stage(mid)
            self.stages.append(stage)
            payload = {
                "milestone": mid,
                "name": self.graph.milestones[mid].name,
                "step": action.step,
                "constraint_share": round(share, 4),
                **stage.as_dict(),
            }
            out.append(("milestone_settled", payload))
            if not self.external_scores:
                signal = self.stage_scored(mid, stage.score, action.step)
                if signal is not None:
                    out.append(("stop_signal", signal))

        if settled_now:
            self.idle = 0
        else:
            start_ctx = Context(action, state, self.states[START], self.states)
            for mid in self._blocked:
                m = self.graph.milestones[mid]
                if m.state_only or mid in self._gapped:
                    continue  # a state that holds early is no gap; a gap is signalled once
                if _could_match(m.needs, action) and m.plan.satisfied(start_ctx)[0]:
                    missing = [p for p in self.graph.preds[mid] if p not in self.settled]
                    signal = {
                        "signal": "predecessor_gap",
                        "step": action.step,
                        "milestone": mid,
                        "missing": missing,
                        "stops": False,
                    }
                    self._gapped.add(mid)
                    self.signals.append(signal)
                    out.append(("stop_signal", signal))
            if self._ready:
                self.idle += 1
                if self.idle == self.settings.stagnation:
                    signal = {
                        "signal": "frontier_stagnation",
                        "step": action.step,
                        "since": action.step - self.idle + 1,
                        "actions": self.idle,
                        "stops": True,
                    }
                    self.signals.append(signal)
                    out.append(("stop_signal", signal))
        return out

    def stage_scored(self, milestone: str, score: float, step: int) -> Signal | None:
        """Feed a closed stage's score to the low-quality rule; the signal it raises, if any."""
        if self.low_quality is None:
            return None
        signal = self.low_quality.feed(milestone, score, step)
        if signal is not None:
            self.signals.append(signal)
        return signal

    def explain(self, mid: str, state: Any, action: Closed | None = None) -> list[tuple[str, bool]]:
        """Each constraint of a milestone and whether it holds for ``action`` and ``state``:
        why a ready milestone has not settled yet."""
        m = self.graph.milestones[mid]
        anchor = self.states.get(self.graph.idom[mid], self.states.get(START))
        ctx = Context(action, state, anchor, self.states)
        return [(c.describe(), holds(c, ctx)) for c in m.constraints]

    def _invalidate(self, changed: list[str] | None) -> None:
        """Forget the answers of rules that read a changed path, or a path inside or around one
        (a change at one path can change the value at another when they are equal or one lies
        inside the other), tested by sets: a read path among the changed paths' prefixes, or a
        changed path among the read paths' prefixes."""
        if changed is None:
            self._clean.clear()
            return
        if not changed or not self._clean:
            return
        exact = set(changed)
        around = {q for path in exact for q in _prefixes(path)}
        stale = [
            r
            for r in self._clean
            if not self._reads[r].isdisjoint(around) or not self._read_prefixes[r].isdisjoint(exact)
        ]
        for rule in stale:
            self._clean.discard(rule)

    def stopping(self) -> Signal | None:
        """Under early stop, the first signal that ends the run (once it has been raised)."""
        if not self.early_stop:
            return None
        return next((s for s in self.signals if s["signal"] in STOPS), None)

    # -- stages and the summary ---------------------------------------------------------
    def _window(self, after: int, upto: int) -> list[Closed]:
        """The actions of steps ``after`` + 1 .. ``upto`` (actions are kept in step order, so a
        long episode's window is found by bisection, not a scan)."""
        steps = _Steps(self.actions)
        return self.actions[bisect.bisect_right(steps, after) : bisect.bisect_right(steps, upto)]

    def _stage(self, mid: str) -> Stage:
        anchor = self.graph.idom[mid]
        first, last = self.settled[anchor], self.settled[mid]
        window = self._window(first, last)
        flags = flags_of(window, set(self.mine_steps))
        return Stage(mid, anchor, first + 1, last, score_window(window, flags), flags)

    def open_stage(self) -> Stage | None:
        """The tail after the last settlement, while milestones remain: it scores 0."""
        if all(m in self.settled for m in self.graph.order) or not self.actions:
            return None
        since = max(self.settled.values())
        window = self._window(since, self.actions[-1].step)
        if not window:
            return None
        flags = flags_of(window, set(self.mine_steps))
        return Stage(None, max(self.settled, key=lambda m: self.settled[m]), since + 1, window[-1].step, 0.0, flags)

    def all_stages(self) -> list[Stage]:
        tail = self.open_stage()
        return [*self.stages, tail] if tail else list(self.stages)

    def first_error(self) -> dict[str, Any] | None:
        return first_error(self.all_stages(), self.settings.stage_threshold, self.mine_steps)

    def frontier(self, at: int | None = None) -> dict[str, list[str]]:
        """Done, ready and blocked milestones now, or as they stood after step ``at``."""
        done = {m for m, step in self.settled.items() if at is None or step <= at}
        return {
            "done": [m for m in self.graph.order if m in done],
            "ready": self.graph.ready(done),
            "blocked": self.graph.blocked(done),
        }

    def score(self) -> float:
        """Mean over milestones of the stage score, 0 for a milestone never reached."""
        by = {s.milestone: s.score for s in self.stages}
        n = len(self.graph.order)
        return sum(by.get(m, 0.0) for m in self.graph.order) / n if n else 1.0

    def summary(self, steps: int, max_steps: int) -> dict[str, Any]:
        """Plain data for the record and reports."""
        n = len(self.graph.order)
        done = [m for m in self.graph.order if m in self.settled]
        stops = [s for s in self.signals if s["signal"] in STOPS]
        first_stop = stops[0] if stops else None
        out: dict[str, Any] = {
            "milestones": n,
            "settled": len(done),
            "completion": round(len(done) / n, 4) if n else 1.0,
            "score": round(self.score(), 4),
            "derived": self.derived,
            "stages": [s.as_dict() for s in self.all_stages()],
            "signals": list(self.signals),
            "first_error": self.first_error(),
            "stop": None,
            "would_stop": None,
        }
        if self.judges is not None:
            out["judges"] = self.judges
        if self.stop is not None:
            out["stop"] = {**self.stop, "steps_saved": max_steps - steps}
        elif first_stop is not None:  # counterfactual: what stopping there would have saved
            out["would_stop"] = {**first_stop, "steps_saved": steps - first_stop["step"]}
        return out


class _Plan:
    """What a review works out from its graph and minefields alone, before any action: the same
    for every episode of a task, so made once per graph and minefields (``_plan_of``)."""

    def __init__(self, graph: Graph, minefields: list[Minefield]):
        self.graph, self.minefields = graph, minefields  # held, so the ids they are filed under stay theirs
        self.items = tuple(minefields)
        self.paths = _compared_paths(graph, minefields)
        named = [(m.id or f"minefield-{i + 1}", m) for i, m in enumerate(minefields)]
        self.mines_before = [(mid, m) for mid, m in named if m.before_call]
        self.mines_after = [(mid, m) for mid, m in named if not m.before_call]
        # rules on the state alone give the same answer while the paths they read are unchanged
        self.reads: dict[str, set[str]] = {
            m.id: {c.path for c in m.constraints} for m in graph.milestones.values() if m.state_only
        } | {
            f"minefield:{mid}": {c.path for c in mine.constraints} for mid, mine in self.mines_after if mine.state_only
        }
        # every dotted prefix of what each such rule reads (itself included), to test overlaps by sets
        self.read_prefixes = {
            rule: {q for path in reads for q in _prefixes(path)} for rule, reads in self.reads.items()
        }
        self.ready = graph.ready({START})
        self.blocked = graph.blocked({START})
        # settled milestones -> (ready, blocked): reviews of a task settle the same sets again
        self.frontiers: dict[frozenset[str], tuple[list[str], list[str]]] = {}

    def frontier(self, done: frozenset[str]) -> tuple[list[str], list[str]]:
        found = self.frontiers.get(done)
        if found is None:
            found = (self.graph.ready(set(done)), self.graph.blocked(set(done)))
            if len(self.frontiers) < 4096:
                self.frontiers[done] = found
        return found


_PLANS: dict[tuple[int, int], _Plan] = {}


def _plan_of(graph: Graph, minefields: list[Minefield]) -> _Plan:
    """The plan made for this graph and these minefields (made again when the list changed)."""
    key = (id(graph), id(minefields))
    plan = _PLANS.get(key)
    if plan is None or plan.graph is not graph or plan.minefields is not minefields or plan.items != tuple(minefields):
        plan = _PLANS[key] = _Plan(graph, minefields)
        evict_oldest(_PLANS, 256)
    return plan


def _compared_paths(graph: Graph, minefields: list[Minefield]) -> dict[str, set[str]]:
    """Which state paths must be kept at which settlement, for the constraints that compare
    with an earlier state (added, updated, removed: the window's start, and the episode's
    start for the predecessor-gap check; unchanged_since: the milestone it names)."""
    paths: dict[str, set[str]] = {START: set()}

    def note(c: Constraint, anchor: str) -> None:
        if c.operator == "unchanged_since":
            paths.setdefault(c.expected or START, set()).add(c.path)
        elif c.operator in STATE_ONLY:
            paths.setdefault(anchor, set()).add(c.path)
            paths[START].add(c.path)

    for m in graph.milestones.values():
        for c in m.constraints:
            note(c, graph.idom[m.id])
    for mine in minefields:
        for c in mine.constraints:
            note(c, START)
    return paths


def _could_match(needs: tuple[str | None, frozenset[str] | None], action: Closed) -> bool:
    """A cheap test of a rule's hard constraints on the action's kind and tool."""
    kind, tools = needs
    if kind is not None and action.kind != kind:
        return False
    return tools is None or action.tool in tools


def _prefixes(path: str) -> list[str]:
    """``a.b.c`` -> ``a``, ``a.b``, ``a.b.c``."""
    parts = path.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts) + 1)]


class _Steps:
    """The step numbers of a list of actions, as a sequence bisect can search without a copy."""

    __slots__ = ("actions",)

    def __init__(self, actions: list[Closed]):
        self.actions = actions

    def __len__(self) -> int:
        return len(self.actions)

    def __getitem__(self, i: int) -> int:
        return self.actions[i].step
