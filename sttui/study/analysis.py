"""The analysis a lab publishes from a study (``sttui study report``).

- **Human pass rate by level**, with two 95 % bootstrap intervals: *clustered* (resample
  participants, then each drawn participant's episodes; the one to publish) and *plain*
  (resample episodes as if independent; shown beside it, to see how much narrower it is).
- **Each model or baseline beside the humans, paired by task**: the mean over common tasks of
  (human pass rate − model pass rate) with a bootstrap interval over tasks. Only episodes of
  the same task version and setting are paired; the report says what it left out and why.
- **Time on task** (the person's clock): its distribution, and the learning effect: pass rate
  and median time by position in the participant's order.

Practice tasks, withdrawn participants and slots, unfinished or abandoned episodes, and
episodes a model took steps in (mixed control) are left out of the human figures, and counted.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from sttui.core.stats import LEVEL, ROUNDS, SEED, bootstrap, clustered_bootstrap, mean_of

FINISHED = ("completed", "errored")


def _rnd(x: float | None, digits: int = 4) -> float | None:
    return None if x is None else round(x, digits)


def _interval(found: tuple[float, float] | None) -> list[float] | None:
    return None if found is None else [round(found[0], 4), round(found[1], 4)]


def _passed(status: str, outcome: dict[str, Any] | None) -> bool:
    return status == "completed" and bool((outcome or {}).get("passed"))


def human_episodes(
    slots: list[Any], people: list[Any], records: dict[str, Any], holder: Any
) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """The scored human episodes as plain rows, and how many were left out, by reason."""
    withdrawn = {p.name for p in people if p.status == "withdrawn"}
    rows: list[dict[str, Any]] = []
    left: dict[str, int] = defaultdict(int)
    positions: dict[str, int] = defaultdict(int)
    for s in sorted(slots, key=lambda x: (x.participant, x.position)):
        if s.practice:
            continue
        positions[s.participant] += 1
        record = records.get(s.episode_id) if s.episode_id else None
        if s.participant in withdrawn or s.status == "withdrawn":
            left["withdrawn"] += 1
        elif record is None or record.status not in FINISHED:
            left["not finished"] += 1
        elif not holder(record).startswith("human"):
            left["a model took steps (mixed control)"] += 1
        else:
            seconds = (record.scores or {}).get("human_active_seconds")
            rows.append(
                {
                    "participant": s.participant,
                    "task": s.task_id,
                    "task_hash": s.task_hash,
                    "position": positions[s.participant],
                    "passed": _passed(record.status, record.outcome),
                    "seconds": float(seconds) if isinstance(seconds, int | float) else None,
                    "setting": record.setting or "default",
                    "episode": record.id,
                }
            )
    return rows, dict(left)


def pass_rates(rows: list[dict[str, Any]], levels: dict[str, str]) -> list[dict[str, Any]]:
    """Pass rate by level (and over all), with the clustered and the plain interval."""
    out = []
    by_level: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        by_level[levels.get(r["task"], "?")].append(r)
    order = sorted(
        by_level,
        key=lambda lv: (
            ("easy", "medium", "hard", "impossible").index(lv) if lv in ("easy", "medium", "hard", "impossible") else 9
        ),
    )
    for level, group in [*((lv, by_level[lv]) for lv in order), ("all", rows)]:
        values = [float(r["passed"]) for r in group]
        clusters: dict[str, list[float]] = defaultdict(list)
        for r in group:
            clusters[r["participant"]].append(float(r["passed"]))
        out.append(
            {
                "level": level,
                "episodes": len(group),
                "participants": len(clusters),
                "pass_rate": _rnd(mean_of(values)),
                "clustered_ci": _interval(clustered_bootstrap([clusters[p] for p in sorted(clusters)])),
                "plain_ci": _interval(bootstrap(values, mean_of)),
            }
        )
    return out


def paired(rows: list[dict[str, Any]], others: list[Any], holder: Any) -> list[dict[str, Any]]:
    """Each other controller against the humans on the tasks both played (same version and
    setting), the mean difference of per-task pass rates with an interval over tasks."""
    human: dict[tuple[str, str, str], list[float]] = defaultdict(list)
    for r in rows:
        human[(r["task"], r["task_hash"], r["setting"])].append(float(r["passed"]))
    human_tasks = {k[0] for k in human}
    by_controller: dict[str, list[Any]] = defaultdict(list)
    for rec in others:
        if rec.status in FINISHED and rec.task_id in human_tasks:
            who = holder(rec)
            if not who.startswith("human") and who != "mixed":
                by_controller[who].append(rec)
    out = []
    for controller in sorted(by_controller):
        mine: dict[tuple[str, str, str], list[float]] = defaultdict(list)
        for rec in by_controller[controller]:
            mine[(rec.task_id, rec.task_hash, rec.setting or "default")].append(float(_passed(rec.status, rec.outcome)))
        common = sorted(k for k in mine if k in human)
        other_version = sorted({k[0] for k in mine if k not in human and (k[0], k[1]) in {(h[0], h[1]) for h in human}})
        other_hash = sorted(
            {k[0] for k in mine if k not in human and (k[0], k[1]) not in {(h[0], h[1]) for h in human}}
        )
        diffs = [(mean_of(human[k]) or 0.0) - (mean_of(mine[k]) or 0.0) for k in common]
        notes = []
        if other_version:
            theirs = sorted({k[2] for k in mine if k not in human and k[0] in other_version})
            ours = sorted({k[2] for k in human if k[0] in other_version})
            notes.append(
                f"under another setting than the humans' ({', '.join(theirs)}; the humans played "
                f"{', '.join(ours)}) on {', '.join(other_version)}: not paired"
            )
        if other_hash:
            notes.append(f"on another task version than the humans' on {', '.join(other_hash)}: not paired")
        missing = sorted(human_tasks - {k[0] for k in common})
        if missing:
            notes.append(f"no episode paired with the humans' on {', '.join(missing)}")
        out.append(
            {
                "controller": controller,
                "tasks": len(common),
                "episodes": sum(len(mine[k]) for k in common),
                "human_rate": _rnd(mean_of([mean_of(human[k]) or 0.0 for k in common])),
                "model_rate": _rnd(mean_of([mean_of(mine[k]) or 0.0 for k in common])),
                "difference": _rnd(mean_of(diffs)),
                "difference_ci": _interval(bootstrap(diffs, mean_of)),
                "notes": notes,
            }
        )
    return out


def divergences(rows: list[dict[str, Any]], others: list[Any], holder: Any, steps_of: Any) -> list[dict[str, Any]]:
    """Per task and controller, where the humans and it part ways: each human episode against
    the controller's first episode on the same version and setting (by id), the first step at
    which their actions differ in kind (``sttui.core.divergence``); the most common one named.
    ``steps_of(record_id, kind)`` gives an episode's agent steps."""
    from collections import Counter

    from sttui.core.divergence import compare_steps

    first_of: dict[tuple[str, str, str, str], Any] = {}
    for rec in sorted(others, key=lambda r: r.id):
        who = holder(rec)
        if rec.status in FINISHED and not who.startswith("human") and who != "mixed":
            first_of.setdefault((who, rec.task_id, rec.task_hash, rec.setting or "default"), rec)
    out = []
    for (who, task, digest, setting), rec in sorted(first_of.items()):
        humans = [r for r in rows if (r["task"], r["task_hash"], r["setting"]) == (task, digest, setting)]
        if not humans:
            continue
        theirs = steps_of(rec.id, rec.kind)
        found = []
        for r in humans:
            d = compare_steps(steps_of(r["episode"], rec.kind), theirs)["first_divergence"]
            found.append(None if d is None else (d["a_step"], d["a"], d["b"]))
        parted = [f for f in found if f is not None]
        common = Counter(parted).most_common(1)
        out.append(
            {
                "task": task,
                "controller": who,
                "against": rec.id,
                "human_episodes": len(humans),
                "same_throughout": len(found) - len(parted),
                "first_steps": sorted(f[0] or 0 for f in parted),
                "most_common": None
                if not common
                else {
                    "step": common[0][0][0],
                    "human": common[0][0][1],
                    "model": common[0][0][2],
                    "episodes": common[0][1],
                },
            }
        )
    return out


def _quantiles(values: list[float]) -> dict[str, float | None]:
    if not values:
        return {"n": 0, "min": None, "p25": None, "median": None, "p75": None, "max": None, "mean": None}
    v = sorted(values)
    import statistics

    q = statistics.quantiles(v, n=4, method="inclusive") if len(v) > 1 else [v[0], v[0], v[0]]
    return {
        "n": len(v),
        "min": round(v[0], 1),
        "p25": round(q[0], 1),
        "median": round(q[1], 1),
        "p75": round(q[2], 1),
        "max": round(v[-1], 1),
        "mean": round(sum(v) / len(v), 1),
    }


def time_on_task(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The distribution of the person's clock per episode, and by position in the order (the
    learning effect: later positions faster or more often passed?)."""
    seconds = [r["seconds"] for r in rows if r["seconds"] is not None]
    by_position: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        by_position[r["position"]].append(r)
    positions = []
    for pos in sorted(by_position):
        group = by_position[pos]
        secs = [r["seconds"] for r in group if r["seconds"] is not None]
        positions.append(
            {
                "position": pos,
                "episodes": len(group),
                "pass_rate": _rnd(mean_of([float(r["passed"]) for r in group])),
                "median_seconds": _quantiles(secs)["median"],
            }
        )
    slope = None
    pts = [(r["position"], r["seconds"]) for r in rows if r["seconds"] is not None]
    if len({p for p, _ in pts}) > 1:
        mx = sum(p for p, _ in pts) / len(pts)
        my = sum(s for _, s in pts) / len(pts)
        slope = sum((p - mx) * (s - my) for p, s in pts) / sum((p - mx) ** 2 for p, _ in pts)
    return {
        "seconds": _quantiles(seconds),
        "by_position": positions,
        "seconds_per_position": _rnd(slope, 2),
    }


def report(
    study: Any,
    slots: list[Any],
    people: list[Any],
    records: dict[str, Any],
    others: list[Any],
    levels: dict[str, str],
    holder: Any,
    steps_of: Any = None,
) -> dict[str, Any]:
    rows, left = human_episodes(slots, people, records, holder)
    return {
        "study": study.id,
        "bootstrap": {"rounds": ROUNDS, "seed": SEED, "level": LEVEL},
        "human_episodes": len(rows),
        "participants": len({r["participant"] for r in rows}),
        "left_out": left,
        "pass_rate": pass_rates(rows, levels),
        "versus": paired(rows, others, holder) if study.seat == "agent" else [],
        "time_on_task": time_on_task(rows),
        "divergence": divergences(rows, others, holder, steps_of) if steps_of and study.seat == "agent" else [],
    }


def _ci(ci: list[float] | None) -> str:
    return f"[{ci[0]:.3f}, {ci[1]:.3f}]" if ci else "n/a"


def render(found: dict[str, Any]) -> list[str]:
    b = found["bootstrap"]
    lines = [
        f"study {found['study']}: {found['human_episodes']} scored human episode(s) by {found['participants']} participant(s)",
        f"95 % bootstrap intervals ({b['rounds']} rounds, seed {b['seed']}); clustered = participants, then their episodes",
        f"{'level':<11} {'episodes':>8} {'people':>6} {'pass':>6}  {'clustered 95% CI':<18} plain (episodes) 95% CI",
    ]
    for r in found["pass_rate"]:
        rate = f"{r['pass_rate']:.3f}" if r["pass_rate"] is not None else "n/a"
        lines.append(
            f"{r['level']:<11} {r['episodes']:>8} {r['participants']:>6} {rate:>6}  {_ci(r['clustered_ci']):<18} {_ci(r['plain_ci'])}"
        )
    if found["left_out"]:
        lines.append("left out: " + ", ".join(f"{n} {why}" for why, n in sorted(found["left_out"].items())))
    if found["versus"]:
        lines.append("humans minus each controller, paired by task (same version and setting):")
        for v in found["versus"]:
            diff = f"{v['difference']:+.3f}" if v["difference"] is not None else "n/a"
            lines.append(
                f"  {v['controller']:<24} {v['tasks']} task(s)  humans {v['human_rate'] if v['human_rate'] is not None else 'n/a'}"
                f"  them {v['model_rate'] if v['model_rate'] is not None else 'n/a'}  difference {diff} {_ci(v['difference_ci'])}"
            )
            lines += [f"    note: {n}" for n in v["notes"]]
    else:
        lines.append("no model or baseline episodes on the study's tasks to compare with")
    if found["divergence"]:
        lines.append("where the humans and each controller part ways (first step whose action differs in kind):")
        for d in found["divergence"]:
            c = d["most_common"]
            same = f", {d['same_throughout']} the same throughout" if d["same_throughout"] else ""
            if c is None:
                lines.append(
                    f"  {d['task']} vs {d['controller']}: the same kinds of steps in all {d['human_episodes']}"
                )
                continue
            lines.append(
                f"  {d['task']} vs {d['controller']}: most often at step {c['step'] or '-'} "
                f"({c['episodes']} of {d['human_episodes']}{same}): human {c['human']}  vs  {c['model']}"
            )
    t = found["time_on_task"]
    s = t["seconds"]
    if s["n"]:
        lines.append(
            f"time on task (s): n {s['n']}  median {s['median']}  IQR {s['p25']}–{s['p75']}  range {s['min']}–{s['max']}  mean {s['mean']}"
        )
    if t["by_position"]:
        lines.append("by position in the order (learning effect):")
    for p in t["by_position"]:
        lines.append(
            f"  {p['position']:>3}: {p['episodes']} episode(s), pass {p['pass_rate']}, median {p['median_seconds']} s"
        )
    if t["seconds_per_position"] is not None:
        lines.append(f"  time changes by {t['seconds_per_position']:+} s per position (least squares)")
    return lines
