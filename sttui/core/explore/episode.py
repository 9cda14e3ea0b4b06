"""One explore episode: exploration windows alternating with evaluation batches, probes,
masking, unannounced drift, assessments and the reveal.

Phases: ``window`` (probe at most once, then submit the batch) -> after the drift batch,
``assess_pre`` (the pre-change assessment, asked immediately before the unannounced
change) -> ... -> after the last batch, ``assess_final`` -> ended. A refused input returns
``{"success": false, "error": ...}``, is recorded, and changes nothing; after
``MAX_REFUSED_IN_A_ROW`` refused inputs in a row the episode ends (``by: limit``), so a
controller that cannot play the setting (one that never probes under ``forced_probe``) ends
incomplete instead of running forever.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from sttui.core import events as ev
from sttui.core import state as st
from sttui.core.actions import Assess, EndEpisode, Probe, SubmitBatch
from sttui.core.explore import rules as rl
from sttui.core.explore.task import ExploreTask, FieldSpec, Rule
from sttui.core.problems import did_you_mean
from sttui.core.settings import DEFAULT, RunSettings

FAMILY_DEFINITIONS = {
    "additive": "Weighted compensation: every relevant field adds to the need for intervention in proportion "
    "to its weight; a high value on one can make up for a low value on another.",
    "conjunctive": "All conditions required: intervention rises only as far as the weakest relevant field "
    "allows; every relevant field must be past its threshold for a high score.",
    "disjunctive": "Any condition suffices: the strongest relevant field decides; one field past its "
    "threshold is enough for a high score.",
    "lexicographic": "Fixed priority: the most important relevant field decides first; lower-priority "
    "fields only matter when the higher ones are equal in effect.",
}

PROBE = "probe"
PROBE_RESULT = "probe_result"
BATCH_SUBMITTED = "batch_submitted"
BATCH_FEEDBACK = "batch_feedback"
ASSESSMENT = "assessment"
RULE_CHANGED = "rule_changed"
REFUSED = "refused"
MAX_REFUSED_IN_A_ROW = 20

Result = dict[str, Any]


def _fail(error: str) -> Result:
    return {"success": False, "error": error}


class ExploreEpisode:
    """A running explore episode. Feed it actions with :meth:`apply`; read :meth:`agent_view`."""

    kind = "explore"

    def __init__(
        self,
        task: ExploreTask,
        seed: int | None = None,
        actors: dict[str, str] | None = None,
        settings: RunSettings = DEFAULT,
    ):
        """``settings.explore_setting`` overrides the file's setting for this run (recorded)."""
        if settings.explore_setting is not None and settings.explore_setting != task.setting:
            task = task.model_copy(update={"setting": settings.explore_setting})
        self.settings = settings
        self.task = task
        self.seed = task.seed if seed is None else seed
        self.fields: dict[str, FieldSpec] = {f.name: f for f in task.fields}
        self.action_ids = [a.id for a in task.actions]
        self.calibration = rl.calibrate(task)
        self.pre_rule: Rule = task.rule
        self.post_rule: Rule | None = rl.drifted(task.rule, task) if task.drifts else None
        rng = random.Random(f"cases:{self.seed}")
        sched = task.schedule
        self.batches: list[list[rl.Case]] = [
            [rl.sample_case(task.fields, rng) for _ in range(sched.cases_per_batch)] for _ in range(sched.batches)
        ]
        self.batch = 0  # index of the batch now being played
        self.phase = "window"
        self.probed_this_window = False
        self.probes: list[dict[str, Any]] = []  # {window, rule, cases, utilities}
        self.choices: list[list[int]] = []  # chosen action index per case, per completed batch
        self.realised: list[list[float]] = []
        self.assessments: dict[str, dict[str, Any]] = {}
        self.events: list[ev.Event] = []
        self.listeners: list[Callable[[ev.Event], object]] = []  # what a listener returns is ignored
        # False: events carry no ``state_hash`` (an in-process episode nobody records: the hash
        # reads every probe and choice so far, after each one); :meth:`state_hash` still answers
        self.hashes = True
        self.lineage: str | None = None  # the episode this one was forked from (``recording.rebuild``)
        self.steps = 0
        self.turn = "agent"
        self.ended: dict[str, Any] | None = None
        self.actors = actors or {"agent": "agent"}
        self.last_refusal: str | None = None  # why the last input was refused, until one is accepted
        self.refused_in_row = 0

    # -- the hidden truth ----------------------------------------------------------
    @property
    def drift_after(self) -> int | None:
        return self.task.drift.after_batch if self.task.drifts and self.task.drift else None

    def rule_for_batch(self, index: int) -> Rule:
        """The rule in force for batch ``index`` (0-based): post-change after the drift batch."""
        if self.post_rule is not None and self.drift_after is not None and index >= self.drift_after:
            return self.post_rule
        return self.pre_rule

    @property
    def changed(self) -> bool:
        return self.rule_for_batch(self.batch) is not self.pre_rule

    def utilities(self, case: rl.Case, rule: Rule) -> list[float]:
        return self.calibration.utilities(rl.score(rule, self.fields, case))

    # -- protocol ------------------------------------------------------------------
    def start(self) -> None:
        payload: dict[str, Any] = {"task": self.task.id, "seed": self.seed, "setting": self.task.setting}
        if not self.settings.is_default:
            payload["settings"] = self.settings.as_dict()
        self._emit(ev.EPISODE_STARTED, "system", payload)

    def apply(self, action: Any, actor: str | None = None) -> Result | None:
        if self.ended is not None:
            return _fail("the episode has ended")
        actor = actor or self.actors["agent"]
        self.steps += 1
        self.last_refusal = None
        result = self._dispatch(action, actor)
        if self.last_refusal is None:
            self.refused_in_row = 0
        return result

    def _dispatch(self, action: Any, actor: str) -> Result | None:
        if isinstance(action, Probe):
            return self._probe(action, actor)
        if isinstance(action, SubmitBatch):
            return self._submit(action, actor)
        if isinstance(action, Assess):
            return self._assess(action, actor)
        if isinstance(action, EndEpisode):
            self._end("agent", action.reason, actor)
            return {"success": True}
        return self._refuse(
            actor,
            "action",
            {"action": repr(action)},
            "an explore episode takes a probe, a batch submission or an assessment",
        )

    def _refuse(self, actor: str, what: str, payload: dict[str, Any], error: str) -> Result:
        self.last_refusal = error
        self._emit(REFUSED, actor, {"what": what, "input": payload, "error": error})
        self.refused_in_row += 1
        if self.refused_in_row >= MAX_REFUSED_IN_A_ROW:
            self._end("limit", f"{MAX_REFUSED_IN_A_ROW} refused inputs in a row (last: {error})", "system")
        return _fail(error)

    def probe_problem(self, cases: Any) -> tuple[str | None, list[rl.Case]]:
        """(why a probe of ``cases`` would be refused now, or None; the cases as checked).

        The engine's one set of rules: the workbench asks it too before sending anything."""
        if self.phase != "window":
            return f"no probing now: answer the assessment first ({self.phase})", []
        if self.probed_this_window:
            return f"this exploration window already had its probe; submit batch {self.batch + 1}", []
        cap = self.task.schedule.probe_cap
        if not isinstance(cases, list) or not cases:
            return "a probe needs at least one case", []
        if len(cases) > cap:
            return f"a probe holds at most {cap} cases; got {len(cases)}", []
        clean = []
        for i, case in enumerate(cases):
            problem, checked = self.check_case(case)
            if problem:
                return f"case {i + 1}: {problem}", []
            clean.append(checked)
        return None, clean

    def _probe(self, action: Probe, actor: str) -> Result:
        payload = {"cases": action.cases}
        problem, cases = self.probe_problem(action.cases)
        if problem:
            return self._refuse(actor, "probe", payload, problem)
        rule = self.rule_for_batch(self.batch)
        utilities = [self.utilities(c, rule) for c in cases]
        self.probed_this_window = True
        record = {"window": self.batch + 1, "cases": cases, "utilities": utilities}
        self._emit(PROBE, actor, payload)
        self.probes.append({**record, "changed": rule is not self.pre_rule})
        self._emit(PROBE_RESULT, "environment", self._hashed({**record}))
        return {"success": True, **record}

    def check_case(self, case: Any) -> tuple[str | None, rl.Case]:
        """(problem, normalised case): every field present, in range or among its levels."""
        if not isinstance(case, dict):
            return f"expected a mapping of field to value, got {case!r}", {}
        unknown = [k for k in case if k not in self.fields]
        if unknown:
            k = unknown[0]
            return f"no field '{k}'{did_you_mean(k, self.fields)}", {}
        missing = [k for k in self.fields if k not in case]
        if missing:
            return f"missing field(s) {', '.join(missing)}", {}
        clean: rl.Case = {}
        for name, spec in self.fields.items():
            value = case[name]
            if spec.type == "numeric":
                if isinstance(value, bool) or not isinstance(value, int | float):
                    return f"{name} must be a number, got {value!r}", {}
                lo, hi = spec.range  # type: ignore[misc]  # a numeric field has a range (validated)
                if not lo <= value <= hi:
                    return f"{name} = {value} is outside its range {_num(lo)}..{_num(hi)} {spec.unit}".rstrip(), {}
                clean[name] = value
            else:
                if value not in (spec.levels or []):
                    return f"{name} must be one of {', '.join(spec.levels or [])}; got {value!r}", {}
                clean[name] = value
        return None, clean

    def parse_action(self, value: Any) -> int | None:
        if isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 4:
            return value - 1
        if isinstance(value, str):
            if value in self.action_ids:
                return self.action_ids.index(value)
            if value.strip() in ("1", "2", "3", "4"):
                return int(value) - 1
        return None

    def batch_problem(self, actions: Any) -> tuple[str | None, list[int]]:
        """(why submitting ``actions`` would be refused now, or None; the action indices)."""
        if self.phase != "window":
            return f"no batch now: answer the assessment first ({self.phase})", []
        if self.task.setting == "forced_probe" and not self.probed_this_window:
            return "this setting requires a probe in every exploration window before the batch", []
        n = len(self.batches[self.batch])
        if not isinstance(actions, list) or len(actions) != n:
            got = len(actions) if isinstance(actions, list) else actions
            kind = " (missing answers)" if isinstance(got, int) and got < n else " (extra answers)"
            return f"expected exactly {n} actions, one per case; got {got}" + (kind if isinstance(got, int) else ""), []
        chosen = []
        for i, a in enumerate(actions):
            idx = self.parse_action(a)
            if idx is None:
                return f"case {i + 1}: no action {a!r}; expected one of {', '.join(self.action_ids)} or 1-4", []
            chosen.append(idx)
        return None, chosen

    def _submit(self, action: SubmitBatch, actor: str) -> Result:
        payload = {"actions": action.actions}
        problem, chosen = self.batch_problem(action.actions)
        if problem:
            return self._refuse(actor, "batch", payload, problem)
        rule = self.rule_for_batch(self.batch)
        utils = [self.utilities(c, rule) for c in self.batches[self.batch]]
        realised = [u[a] for u, a in zip(utils, chosen, strict=True)]
        finished = self.batch + 1
        self._emit(BATCH_SUBMITTED, actor, {"batch": finished, "actions": [self.action_ids[a] for a in chosen]})
        self.choices.append(chosen)
        self.realised.append(realised)
        self.batch = finished
        self.probed_this_window = False
        if finished == self.task.schedule.batches:
            self.phase = "assess_final"
        elif self.drift_after is not None and finished == self.drift_after:
            self.phase = "assess_pre"
        self._emit(
            BATCH_FEEDBACK,
            "environment",
            self._hashed({"batch": finished, "utilities": realised, "total": sum(realised)}),
        )
        return {"success": True, "batch": finished, "utilities": realised, "total": sum(realised)}

    def _assess(self, action: Assess, actor: str) -> Result:
        payload = {"relevant": action.relevant, "changes": action.changes}
        if self.phase not in ("assess_pre", "assess_final"):
            return self._refuse(actor, "assessment", payload, "no assessment is being asked now")
        if not isinstance(action.relevant, dict):
            return self._refuse(actor, "assessment", payload, "relevant must map field names to a direction")
        for name, direction in action.relevant.items():
            if name not in self.fields:
                return self._refuse(actor, "assessment", payload, f"no field '{name}'{did_you_mean(name, self.fields)}")
            if direction not in ("increasing", "decreasing"):
                return self._refuse(
                    actor,
                    "assessment",
                    payload,
                    f"{name}: direction must be increasing or decreasing; got {direction!r}",
                )
        changes = action.changes or []
        final = self.phase == "assess_final"
        for atom in changes:
            if not (isinstance(atom, dict) and len(atom) == 1 and next(iter(atom)) in ("removed", "added", "reversed")):
                return self._refuse(
                    actor,
                    "assessment",
                    payload,
                    "each change is one of {removed: FIELD}, {added: FIELD}, {reversed: FIELD}",
                )
            field = next(iter(atom.values()))
            if field not in self.fields:
                return self._refuse(
                    actor,
                    "assessment",
                    payload,
                    f"change names no field '{field}'{did_you_mean(str(field), self.fields)}",
                )
        if changes and not final:
            return self._refuse(actor, "assessment", payload, "changes are asked only at the end")
        which = "final" if final else "pre"
        self.assessments[which] = {"relevant": dict(action.relevant), "changes": list(changes) if final else None}
        if not final:
            self.phase = "window"
        self._emit(ASSESSMENT, actor, self._hashed({"which": which, **self.assessments[which]}))
        if final:
            self._end("complete", "all batches played and assessed", "system")
        else:
            self._emit(RULE_CHANGED, "environment", {"after_batch": self.batch})
        return {"success": True, "recorded": which}

    def end(self, by: str, reason: str, actor: str) -> None:
        """End the episode from outside its protocol (a limit a runner keeps, as ``Episode.end``)."""
        self._end(by, reason, actor)

    def _end(self, by: str, reason: str, actor: str) -> None:
        if self.ended is None:
            self.ended = {"by": by, "reason": reason}
            self.phase = "ended"
            self._emit(ev.EPISODE_ENDED, actor, {"by": by, "reason": reason, "batches_played": len(self.choices)})

    def _emit(self, kind: str, actor: str, payload: dict[str, Any]) -> None:
        event = ev.Event(len(self.events) + 1, kind, actor, payload, f"batch {self.batch + 1}")
        self.events.append(event)
        for listener in self.listeners:
            listener(event)

    def _hashed(self, payload: dict[str, Any]) -> dict[str, Any]:
        """``payload`` with the state hash last, when this episode's events carry one."""
        if self.hashes:
            payload["state_hash"] = self.state_hash()
        return payload

    def state_hash(self) -> str:
        """Hash of everything the protocol has accumulated: where it is and what was done."""
        return st.state_hash(
            {
                "batch": self.batch,
                "phase": self.phase,
                "probed": self.probed_this_window,
                "probes": self.probes,
                "choices": self.choices,
                "assessments": self.assessments,
            }
        )

    # -- what the agent sees -----------------------------------------------------------
    def agent_view(self) -> dict[str, Any]:
        """The masked view: what a human or a model in the agent seat is shown."""
        task = self.task
        history = []
        for i, realised in enumerate(self.realised):
            entry: dict[str, Any] = {"batch": i + 1, "utilities": realised, "total": sum(realised)}
            if task.setting == "evidence_given":
                entry["cases"] = self.batches[i]
                entry["actions"] = [self.action_ids[a] for a in self.choices[i]]
            history.append(entry)
        view: dict[str, Any] = {
            "scenario": task.scenario,
            "fields": [f.model_dump(exclude_none=True) for f in task.fields],
            "actions": [a.model_dump() for a in task.actions],
            "rule_families": FAMILY_DEFINITIONS,
            "schedule": task.schedule.model_dump(),
            "setting": task.setting,
            "phase": self.phase,
            "batch": min(self.batch + 1, task.schedule.batches),
            "probe_available": self.phase == "window" and not self.probed_this_window,
            "probes": [{k: p[k] for k in ("window", "cases", "utilities")} for p in self.probes],
            "history": history,
        }
        if self.last_refusal:
            view["last_refusal"] = self.last_refusal
        if self.phase == "window":
            view["cases"] = self.batches[self.batch]
        elif self.phase in ("assess_pre", "assess_final"):
            view["question"] = self.question()
        return view

    def question(self) -> str:
        q = (
            "Which fields are relevant to the decision now, and in which direction does each push intervention "
            "(increasing: higher values call for more intervention)?"
        )
        if self.phase == "assess_final" and self.task.drifts:
            q += (
                " Also: what changed during the episode? Name each change as a field removed from the rule, "
                "a field added to it, or a field whose direction reversed."
            )
        return q

    # -- the reveal --------------------------------------------------------------------
    def reveal(self) -> dict[str, Any]:
        def rule_dict(rule: Rule) -> dict[str, Any]:
            return {"family": rule.family, "factors": [f.model_dump(exclude_none=True) for f in rule.factors]}

        out: dict[str, Any] = {
            "family": self.pre_rule.family,
            "before": rule_dict(self.pre_rule),
            "calibration_knots": list(self.calibration.knots),
            "distractors": [f for f in self.fields if f not in {x.field for x in self.pre_rule.factors}],
        }
        if self.post_rule is not None and self.task.drift is not None:
            out["after"] = rule_dict(self.post_rule)
            out["drift_after_batch"] = self.task.drift.after_batch
            out["atoms"] = true_atoms(self.task)
        return out


def true_atoms(task: ExploreTask) -> list[dict[str, str]]:
    assert task.drift is not None
    return [{"removed": task.drift.replace.factor}, {"added": task.drift.replace.by}, {"reversed": task.drift.reverse}]


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else str(x)
