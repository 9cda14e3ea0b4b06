"""``sttui report``: each controller side by side on the same tasks, from the record:
humans, each model, each baseline, under each setting (dynamic against static, user against
no user, the explore settings); with each human's working time per episode, the milestone
review's stage scores, and how far those separate the controllers against pass/fail alone.

Errored episodes are failures in every pass rate and are counted in their own column; an
errored explore episode scores its unplayed batches as a random policy would.

An episode belongs to the controller that took its agent steps. One whose steps were taken by
several (a person handed the seat to a model, or took it back), or whose model was steered by
a person's rejections under oversight, is **mixed**: it goes in a ``mixed`` row of its own,
never credited to a single person or model, with the share of agent steps each holder took.
The mixed rows are shown beside the controllers; they do not narrow the common tasks the
controllers are compared on, nor enter the settings comparison or the separation figures.
"""

from __future__ import annotations

from array import array
from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from sttui.core import verdicts
from sttui.core.control import agent_holder, valid_control
from sttui.core.review.summary import separation
from sttui.core.scoring import pass_at_1
from sttui.core.stats import mean_of, pass_at_k_table, pooled_interval

FINISHED = ("completed", "errored")
BASE = "default"  # stt: dynamic, with a user; explore: the file's default setting
MIXED = "mixed"


def family(controller: str) -> str:
    return controller.split(":", 1)[0]


def setting_of(record: Any) -> str:
    return record.setting or BASE


def _passed(r: Any) -> bool:
    return r.status == "completed" and bool(r.outcome and r.outcome.get("passed"))


def _label(controller: str, setting: str) -> str:
    return controller if setting == BASE else f"{controller} [{setting}]"


def control_of(record: Any, controls: dict[str, dict[str, Any]] | None = None) -> dict[str, Any] | None:
    """The episode's control summary: ``controls[id]`` (tallied from its events by the caller,
    for records from before summaries were kept), else the one its scores carry."""
    if controls and record.id in controls:
        return controls[record.id]
    return valid_control((record.scores or {}).get("control"))


_UNSET: Any = object()


def holder(record: Any, controls: dict[str, dict[str, Any]] | None = None, control: Any = _UNSET) -> str:
    """Whom the episode's agent results belong to: a controller, or ``mixed`` (``control``: the
    record's ``control_of``, when the caller has it already)."""
    if control is _UNSET:
        control = control_of(record, controls)
    return agent_holder(control, record.agent) if control is not None else record.agent


def compare(
    records: Iterable[Any], task_meta: dict[str, dict[str, Any]], controls: dict[str, dict[str, Any]] | None = None
) -> dict[str, Any]:
    """``records``: finished episodes (completed or errored); ``task_meta``: task id ->
    {level, conflict} for stt tasks; ``controls``: control summaries by episode id for
    records whose scores lack one (see ``control_of``). The records are read once, in order,
    by a ``Tally``: what ``report`` does with the rows it streams from the database."""
    tally = Tally(controls)
    for r in records:
        tally.add(r)
    return tally.result(task_meta)


class _Group:
    """One (holder, setting)'s episodes, reduced to what its row and the comparisons read:
    counts, and the few numbers whose sums depend on the order they are added in, kept in that
    order in flat arrays (8 bytes a number, not an object per episode)."""

    __slots__ = (
        "agent_episodes",
        "agent_steps",
        "ca",
        "ca_incomplete",
        "ca_kind",
        "ca_task",
        "clean",
        "episodes",
        "errored",
        "human",
        "r_completion",
        "r_passed",
        "r_score",
        "r_task",
        "steps",
        "stops",
        "stt",
        "stt_episodes",
        "stt_passed",
        "tasks",
        "verdicts",
    )

    def __init__(self) -> None:
        self.episodes = self.errored = self.steps = self.clean = 0
        self.stt_passed = self.stt_episodes = 0
        self.human = array("d")  # working times, in order
        self.verdicts = [0, 0, 0, 0, 0]  # stt with a verdict: all, satisfied, disagree, satisfied+failed, not+passed
        self.agent_steps: dict[str, int] = defaultdict(int)  # (the mixed rows' holders)
        self.agent_episodes: dict[str, int] = defaultdict(int)
        self.tasks: dict[str, set[str]] = {}  # kind -> its task ids
        self.stt: dict[str, list[int]] = {}  # stt task id -> [episodes, passed]
        # the reviewed stt episodes, in order: task (an index), stage score, completion, passed
        self.r_task, self.r_score, self.r_completion, self.r_passed = array("l"), array("d"), array("d"), array("b")
        self.stops: list[tuple[int, Any]] = []  # (position among the reviewed, steps saved)
        # the episodes of other kinds with a calibrated accuracy, in order
        self.ca_kind, self.ca_task, self.ca, self.ca_incomplete = array("l"), array("l"), array("d"), array("b")


class Tally:
    """``compare``'s figures (and ``version_shifts``'s), gathered one finished episode at a
    time: ``add(record)``, or ``add_values`` with the plain values ``Store.report_rows``
    streams. What it keeps grows with the tasks and controllers, plus a few numbers for each
    scored episode, never with the records themselves. Sums of scores are taken in the order
    the episodes came, as ``compare`` over a list of records always took them."""

    def __init__(self, controls: dict[str, dict[str, Any]] | None = None) -> None:
        self.controls = controls
        self.groups: dict[tuple[str, str], _Group] = {}
        self.task_index: dict[str, int] = {}
        self.task_names: list[str] = []
        self.kind_index: dict[str, int] = {}
        # stt task -> its versions, in the order the episodes came (``report``'s task meta)
        self.stt_versions: dict[str, dict[str, None]] = {}
        # (task, holder, setting) -> version -> [episodes, passed, first start] (``version_shifts``)
        self.shifts: dict[tuple[str, str, str], dict[str, list[Any]]] = {}
        self._holders: dict[tuple[str, int], tuple[Any, str]] = {}

    def add(self, r: Any) -> None:
        """A record (full, or a ``Summary``) as ``compare`` reads it."""
        scores = r.scores or {}
        review = scores.get("review") if scores else None
        stop = review.get("stop") if review else None
        self.add_values(
            getattr(r, "id", ""),
            r.task_id,
            getattr(r, "task_hash", ""),  # (a hand-made record may lack what only the report reads)
            r.kind,
            r.setting,
            r.status,
            r.agent,
            getattr(r, "steps", 0),
            getattr(r, "started_at", 0.0),
            getattr(r, "clean_baseline", True),
            bool(r.outcome and r.outcome.get("passed")),
            control_of(r, self.controls),
            scores.get("calibrated_accuracy") if scores else None,
            verdicts.kind_of(scores.get("user_verdict")) if scores else None,
            bool(scores.get("incomplete")) if scores else None,
            scores.get("human_active_seconds") if scores else None,
            review["score"] if review else None,
            review["completion"] if review else None,
            stop["steps_saved"] if stop else None,
        )

    def _holder(self, control: Any, agent: str) -> str:
        """``holder``, once per (initial holder, control summary): equal summaries are shared."""
        if control is None:
            return agent
        key = (agent, id(control))
        hit = self._holders.get(key)
        if hit is not None and hit[0] is control:
            return hit[1]
        found = agent_holder(control, agent)
        if len(self._holders) < 50_000:
            self._holders[key] = (control, found)  # (the summary kept alive, so its id is never reused)
        return found

    def add_values(
        self,
        episode_id: str,
        task_id: str,
        task_hash: str,
        kind: str,
        setting: str | None,
        status: str,
        agent: str,
        steps: int,
        started_at: float,
        clean_baseline: bool,
        passed: Any,
        control: dict[str, Any] | None,
        ca: Any,
        verdict: str | None,
        incomplete: Any,
        human: Any,
        score: Any,
        completion: Any,
        saved: Any,
    ) -> None:
        """One episode: its columns; whether its outcome passed; its control summary (checked,
        or None); its scores' calibrated accuracy, user verdict, incomplete flag and working
        time; its review's score (None: no review), completion and saved steps (None: no stop)."""
        if status not in FINISHED:
            return
        who = self._holder(control, agent)
        setting = setting or BASE
        g = self.groups.get((who, setting))
        if g is None:
            g = self.groups[(who, setting)] = _Group()
        won = status == "completed" and bool(passed)
        g.episodes += 1
        g.errored += status == "errored"
        g.steps += steps
        g.clean += bool(clean_baseline)
        if human is not None:
            g.human.append(human)
        tasks = g.tasks.get(kind)
        if tasks is None:
            tasks = g.tasks[kind] = set()
        tasks.add(task_id)
        t = self.task_index.get(task_id)
        if t is None:
            t = self.task_index[task_id] = len(self.task_names)
            self.task_names.append(task_id)
        if who == MIXED and control is not None:
            for actor, n in control.get("agent_steps", {}).items():
                if n > 0:
                    g.agent_steps[actor] += n
                    g.agent_episodes[actor] += 1
        if kind == "stt":
            g.stt_episodes += 1
            g.stt_passed += won
            counts = g.stt.get(task_id)
            if counts is None:
                counts = g.stt[task_id] = [0, 0]
            counts[0] += 1
            counts[1] += won
            if verdict in verdicts.VERDICTS:
                satisfied = verdict == verdicts.SATISFIED
                v = g.verdicts
                v[0] += 1
                v[1] += satisfied
                v[2] += satisfied != won  # (``verdicts.disagrees``: satisfied on a fail, or not on a pass)
                v[3] += satisfied and not won
                v[4] += not satisfied and won
            if score is not None:
                if saved is not None:
                    g.stops.append((len(g.r_task), saved))
                g.r_task.append(t)
                g.r_score.append(score)
                g.r_completion.append(completion)
                g.r_passed.append(won)
            versions = self.stt_versions.get(task_id)
            if versions is None:
                versions = self.stt_versions[task_id] = {}
            if task_hash not in versions:
                versions[task_hash] = None
            by_version = self.shifts.get((task_id, who, setting))
            if by_version is None:
                by_version = self.shifts[(task_id, who, setting)] = {}
            entry = by_version.get(task_hash)
            if entry is None:
                by_version[task_hash] = [1, int(won), started_at]
            else:
                entry[0] += 1
                entry[1] += won
                if started_at < entry[2]:
                    entry[2] = started_at
        elif ca is not None:
            k = self.kind_index.setdefault(kind, len(self.kind_index))
            g.ca_kind.append(k)
            g.ca_task.append(t)
            g.ca.append(ca)
            g.ca_incomplete.append(bool(incomplete))

    def result(self, task_meta: dict[str, dict[str, Any]]) -> dict[str, Any]:
        """The figures ``compare`` gives for the episodes added."""
        groups = self.groups
        compared = {g: v for g, v in groups.items() if g[0] != MIXED}
        with_stt = [v.tasks["stt"] for v in compared.values() if v.tasks.get("stt")]
        common_stt = set.intersection(*with_stt) if with_stt else set()
        with_explore = [v.tasks["explore"] for v in compared.values() if v.tasks.get("explore")]
        common_explore = set.intersection(*with_explore) if with_explore else set()
        names = self.task_names
        index = self.task_index
        common = frozenset(index[t] for t in common_stt)
        rows = []
        means: dict[str, dict[str, dict[str, float]]] = {"pass_fail": {}, "stage_scores": {}}
        for (controller, setting), g in sorted(groups.items(), key=lambda kv: (family(kv[0][0]), kv[0])):
            label = _label(controller, setting)
            row = self._row(controller, setting, g, common, common_explore, task_meta)
            if controller == MIXED:
                row["stt_passed"] = g.stt_passed
                row["stt_episodes"] = g.stt_episodes
                row.update(_holders_of(g))
                rows.append(row)
                continue
            # each common task's mean pass and stage score over its reviewed episodes
            scores = _by_task((t, s) for t, s in zip(g.r_task, g.r_score, strict=True) if t in common)
            if scores:
                wins = _by_task((t, float(w)) for t, w in zip(g.r_task, g.r_passed, strict=True) if t in common)
                means["pass_fail"][label] = {names[t]: sum(v) / len(v) for t, v in wins.items()}
                means["stage_scores"][label] = {names[t]: sum(v) / len(v) for t, v in scores.items()}
            rows.append(row)
        return {
            "common_stt_tasks": sorted(common_stt),
            "common_explore_tasks": sorted(common_explore),
            "controllers": rows,
            "settings": self._settings(compared),
            "separation": {metric: separation(m) for metric, m in means.items()},
        }

    def _row(
        self,
        controller: str,
        setting: str,
        g: _Group,
        common_stt: frozenset[int],
        common_explore: set[str],
        task_meta: dict[str, dict[str, Any]],
    ) -> dict[str, Any]:
        """A group's row; ``common_stt``: the common stt tasks, by their index."""
        row: dict[str, Any] = {
            "controller": controller,
            "setting": setting,
            "family": family(controller),
            "episodes": g.episodes,
            "errored": g.errored,
        }
        stt = {t: nc for t, nc in g.stt.items() if self.task_index[t] in common_stt and t in task_meta}
        if stt:
            episodes: list[dict[str, Any]] = []
            for t, (n, c) in stt.items():
                episodes += [{"passed": True, **task_meta[t]}] * c + [{"passed": False, **task_meta[t]}] * (n - c)
            summary = pass_at_1(episodes)
            row["stt_common_pass_at_1"] = summary["overall"]
            row["stt_common_n"] = summary["n"]
            row.update(_pass_at_k([[True] * stt[t][1] + [False] * (stt[t][0] - stt[t][1]) for t in sorted(stt)]))
        # the reviewed episodes of the common tasks, read in their order (sums are taken in it)
        picked = [t in common_stt for t in g.r_task]
        reviewed = sum(picked)
        if reviewed:
            row["stage_score"] = sum(s for s, p in zip(g.r_score, picked, strict=True) if p) / reviewed
            row["stage_score_ci"] = self._pooled(
                (t, s) for t, s, p in zip(g.r_task, g.r_score, picked, strict=True) if p
            )
            row["milestone_completion"] = sum(c for c, p in zip(g.r_completion, picked, strict=True) if p) / reviewed
            stops = [saved for i, saved in g.stops if picked[i]]
            row["early_stops"] = len(stops)
            row["steps_saved"] = sum(stops)
        explore = self.kind_index.get("explore")
        common_ca = frozenset(self.task_index[t] for t in common_explore)
        picked = [k == explore and t in common_ca for k, t in zip(g.ca_kind, g.ca_task, strict=True)]
        scored = sum(picked)
        if scored:
            row["explore_common_ca"] = sum(ca for ca, p in zip(g.ca, picked, strict=True) if p) / scored
            row["explore_common_ca_ci"] = self._pooled(
                (t, ca) for t, ca, p in zip(g.ca_task, g.ca, picked, strict=True) if p
            )
            row["explore_common_n"] = scored
            row["explore_incomplete"] = sum(bool(i) for i, p in zip(g.ca_incomplete, picked, strict=True) if p)
        # beside the pass rate: of the stt episodes whose user gave a verdict, the share satisfied,
        # and how often user and checklist disagree (satisfied on a failed episode, or not
        # satisfied or given up on a passed one); nothing when none has a verdict
        n, satisfied, disagree, satisfied_failed, unsatisfied_passed = g.verdicts
        if n:
            row.update(
                {
                    "user_verdicts": n,
                    "user_satisfied": satisfied / n,
                    "user_checklist_disagree": disagree,
                    "satisfied_but_failed": satisfied_failed,
                    "unsatisfied_but_passed": unsatisfied_passed,
                }
            )
        row["mean_steps"] = g.steps / g.episodes
        if g.human:
            row["human_seconds_per_episode"] = sum(g.human) / len(g.human)
        row["clean_baselines"] = g.clean
        return row

    def _pooled(self, pairs: Iterable[tuple[int, float]]) -> list[float] | None:
        """The interval of a mean pooled over tasks (``by_unit``'s groups: the tasks in their
        sorted order, each one's values summed in their order)."""
        groups = _by_task(pairs)
        ordered = [groups[t] for t in sorted(groups, key=self.task_names.__getitem__)]
        return pooled_interval([sum(v) for v in ordered], [len(v) for v in ordered])

    def _figure(self, g: _Group, tasks: set[str], kind: str) -> float | None:
        """Pass@1 (stt) or mean CA (another kind) over the group's episodes of ``tasks``."""
        if kind == "stt":
            n = sum(g.stt[t][0] for t in tasks if t in g.stt)
            return sum(g.stt[t][1] for t in tasks if t in g.stt) / n if n else None
        k, names = self.kind_index.get(kind), self.task_names
        return mean_of(
            [ca for kk, t, ca in zip(g.ca_kind, g.ca_task, g.ca, strict=True) if kk == k and names[t] in tasks]
        )

    def _settings(self, groups: dict[tuple[str, str], _Group]) -> list[dict[str, Any]]:
        """For each controller run under the base setting and another: both on their common
        tasks (Pass@1 for stt, CA for explore) and the difference (other minus base)."""
        out = []
        for (controller, setting), g in sorted(groups.items()):
            if setting == BASE or (controller, BASE) not in groups:
                continue
            base = groups[(controller, BASE)]
            for kind in sorted(g.tasks):
                common = base.tasks.get(kind, set()) & g.tasks[kind]
                if not common:
                    continue
                a, b = self._figure(base, common, kind), self._figure(g, common, kind)
                out.append(
                    {
                        "controller": controller,
                        "measure": "pass@1" if kind == "stt" else "calibrated_accuracy",
                        "base": BASE,
                        "setting": setting,
                        "tasks": len(common),
                        "base_value": a,
                        "value": b,
                        "difference": None if a is None or b is None else b - a,
                    }
                )
        return out


def _holders_of(g: _Group) -> dict[str, Any]:
    """The mixed row's holders: agent steps each controller took over its episodes, their
    shares, and how many of those episodes each took part in."""
    steps, episodes = g.agent_steps, g.agent_episodes
    total = sum(steps.values())
    order = sorted(steps, key=lambda a: (-steps[a], a))
    return {
        "holders": [
            {"controller": a, "agent_steps": steps[a], "share": steps[a] / total, "episodes": episodes[a]}
            for a in order
        ]
    }


def _by_task(pairs: Iterable[tuple[int, float]]) -> dict[int, array[float]]:
    """Values by their task (an index), each task's in their order: 8 bytes a value."""
    out: dict[int, array[float]] = {}
    for t, value in pairs:
        values = out.get(t)
        if values is None:
            values = out[t] = array("d")
        values.append(value)
    return out


def _pass_at_k(groups: list[list[bool]]) -> dict[str, Any]:
    """Pass@k and pass^k for every k up to the fewest trials any common task had, with
    intervals; ``groups``: each task's passes, in the tasks' sorted order (``by_unit``)."""
    table = pass_at_k_table(groups)
    out: dict[str, Any] = {
        "trials": table["trials"],
        "pass_at_1_ci": pooled_interval([sum(g) for g in groups], [len(g) for g in groups]),
    }
    if table["trials"] >= 2:
        out |= {k: table[k] for k in ("pass_at_k", "pass_at_k_ci", "pass_hat_k", "pass_hat_k_ci")}
    return out
