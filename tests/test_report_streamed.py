"""``sttui report`` streams the record once (``Store.report_rows`` into a ``Tally``) instead of
holding every episode: its figures must be the ones worked out here by hand from the rows as
inserted, on SQLite and on PostgreSQL, and what it keeps must not grow with the episodes."""

from __future__ import annotations

import json
import math
from collections import defaultdict
from typing import Any

from click.testing import CliRunner
from sqlalchemy import insert

from sttui.cli import main
from sttui.core.stats import pooled_interval
from sttui.store.store import Store
from sttui.store.tables import EpisodeRow, TaskRow

A, B, ORACLE, H = "model:a", "model:b", "baseline:oracle", "human:h"
FINISHED = ("completed", "errored")


def _episode(i: int, agent: str, task: str, **over: Any) -> dict[str, Any]:
    row: dict[str, Any] = {
        "id": f"ep{i:04d}",
        "task_id": task,
        "task_hash": "v1",
        "kind": "stt",
        "seed": i,
        "setting": "default",
        "status": "completed",
        "agent": agent,
        "user": "baseline:scripted-user",
        "outcome": {"passed": False},
        "scores": {},
        "end_reason": "done",
        "steps": 3 + i % 5,
        "state_hash": "s",
        "started_at": 1_700_000_000.0 + i * 7 % 101 + i / 1000,  # not in insertion order
        "ended_at": None,
        "clean_baseline": i % 3 != 0,
    }
    row.update(over)
    return row


def _review(i: int, stop: int | None = None) -> dict[str, Any]:
    """A review whose score is no binary fraction: its sums depend on the order they are taken in."""
    stopped = {"signal": "frontier_stagnation", "step": 2, "steps_saved": stop} if stop else None
    return {"score": (i % 9) / 10 + 0.01, "completion": (i % 4) / 3, "settled": 1, "milestones": 3, "stop": stopped}


def _record() -> list[dict[str, Any]]:
    """Passes and fails on three stt tasks (model:b never ran s3), three trials each (pass@k up
    to 3), an errored, a stopped (aborted), a running and an abandoned episode, a static setting,
    user verdicts, a person's working time, an early stop, explore accuracies, a mixed episode
    and a task whose version changed under the oracle."""
    rows: list[dict[str, Any]] = []
    passes = {
        A: {"s1": [1, 0, 1], "s2": [0, 0, 1], "s3": [1, 1, 1]},
        B: {"s1": [1, 1, 1], "s2": [0, 1, 0]},
        ORACLE: {"s1": [1, 1, 0], "s2": [1, 1, 1], "s3": [0, 1, 1]},
    }
    verdicts = ["satisfied", "not_satisfied", "gave_up", None]
    for agent, tasks in passes.items():
        for task, trials in tasks.items():
            for trial, passed in enumerate(trials):
                i = len(rows)
                scores: dict[str, Any] = {
                    "review": _review(i, stop=7 if (agent, task, trial) == (A, "s2", 1) else None)
                }
                if agent == A and verdicts[i % 4]:
                    scores["user_verdict"] = {"verdict": verdicts[i % 4], "reason": None, "by": "u"}
                version = "v2" if (agent, task, trial) == (ORACLE, "s1", 2) else "v1"
                rows.append(
                    _episode(i, agent, task, outcome={"passed": bool(passed)}, scores=scores, task_hash=version)
                )
    more = [
        (A, "s1", {"status": "errored", "outcome": {}, "scores": {"review": _review(40)}}),
        (B, "s2", {"status": "stopped", "outcome": None}),  # aborted: not in any figure
        (ORACLE, "s3", {"status": "running", "outcome": None, "scores": None}),
        (ORACLE, "s2", {"status": "abandoned", "outcome": None, "scores": None}),
        (A, "s1", {"setting": "static", "outcome": {"passed": True}}),
        (A, "s2", {"setting": "static", "outcome": {"passed": False}}),
        (H, "s1", {"outcome": {"passed": True}, "scores": {"human_active_seconds": 30.5, "review": _review(50)}}),
        (H, "s2", {"outcome": {"passed": False}, "scores": {"human_active_seconds": 61.25}}),
        (H, "s3", {"outcome": {"passed": True}, "scores": {"human_active_seconds": 12.1}}),
        (A, "x1", {"kind": "explore", "outcome": None, "scores": {"calibrated_accuracy": 0.3}}),
        (A, "x1", {"kind": "explore", "outcome": None, "scores": {"calibrated_accuracy": 0.55, "incomplete": True}}),
        (A, "x2", {"kind": "explore", "outcome": None, "scores": {"calibrated_accuracy": 0.8}}),
        (ORACLE, "x1", {"kind": "explore", "outcome": None, "scores": {"calibrated_accuracy": 0.7}}),
        (ORACLE, "x2", {"kind": "explore", "outcome": None, "scores": {"calibrated_accuracy": 0.1}}),
        (ORACLE, "x3", {"kind": "explore", "outcome": None, "scores": {"calibrated_accuracy": 0.9}}),
        (
            ORACLE,
            "x2",
            {"kind": "explore", "status": "errored", "outcome": None, "scores": {"calibrated_accuracy": 0.2}},
        ),
        (
            A,
            "s1",
            {
                "outcome": {"passed": True},
                "scores": {"control": {"agent_steps": {H: 2, A: 5}, "user_turns": {}}, "review": _review(60)},
            },
        ),
    ]
    for agent, task, over in more:
        rows.append(_episode(len(rows), agent, task, **over))
    return rows


def _fill(url: str, rows: list[dict[str, Any]]) -> None:
    store = Store(url)
    versions = [
        {"task_id": t, "kind": "stt", "content_hash": h, "title": t, "source": "x", "created_at": 0.0,
         "origin": "recorded", "meta": {"level": "easy", "conflict": "T1"}}
        for t in ("s1", "s2", "s3") for h in ("v1", "v2")
    ]  # fmt: skip
    with store.engine.begin() as conn:
        conn.execute(insert(TaskRow.__table__), versions)  # type: ignore[arg-type]
        conn.execute(insert(EpisodeRow.__table__), rows)  # type: ignore[arg-type]
    store.close()


def _holder(r: dict[str, Any]) -> str:
    steps = ((r["scores"] or {}).get("control") or {}).get("agent_steps", {})
    acted = [a for a, n in steps.items() if n > 0]
    return "mixed" if len(acted) > 1 else (acted[0] if acted else r["agent"])


def _expected(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The figures by hand, from the rows as inserted: finished episodes, completed ones first,
    each status newest first (the order sums are taken in)."""
    order = [
        r
        for status in FINISHED
        for r in sorted(rows, key=lambda r: (r["started_at"], r["id"]), reverse=True)
        if r["status"] == status
    ]
    groups: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for r in order:
        groups[(_holder(r), r["setting"])].append(r)
    passed = {id(r): r["status"] == "completed" and bool((r["outcome"] or {}).get("passed")) for r in order}
    compared = {g: rs for g, rs in groups.items() if g[0] != "mixed"}
    common_stt = set.intersection(*[{r["task_id"] for r in rs if r["kind"] == "stt"} for rs in compared.values()])
    with_explore = [{r["task_id"] for r in rs if r["kind"] == "explore"} for rs in compared.values()]
    common_explore = set.intersection(*[t for t in with_explore if t])
    out: dict[tuple[str, str], dict[str, Any]] = {}
    for g, rs in groups.items():
        row: dict[str, Any] = {"episodes": len(rs), "errored": sum(r["status"] == "errored" for r in rs)}
        stt = [r for r in rs if r["kind"] == "stt" and r["task_id"] in common_stt]
        if stt and g[0] != "mixed":
            row["stt_common_pass_at_1"] = sum(passed[id(r)] for r in stt) / len(stt)
            row["stt_common_n"] = len(stt)
            per_task: dict[str, list[bool]] = defaultdict(list)
            for r in stt:
                per_task[r["task_id"]].append(passed[id(r)])
            trials = min(len(v) for v in per_task.values())
            row["trials"] = trials
            tasks = sorted(per_task)
            row["pass_at_1_ci"] = pooled_interval([sum(per_task[t]) for t in tasks], [len(per_task[t]) for t in tasks])
            if trials >= 2:
                at, hat = {}, {}
                for k in range(1, trials + 1):
                    n_c = [(len(per_task[t]), sum(per_task[t])) for t in tasks]
                    at[f"pass@{k}"] = sum(1 - math.comb(n - c, k) / math.comb(n, k) for n, c in n_c) / len(n_c)
                    hat[f"pass^{k}"] = sum(math.comb(c, k) / math.comb(n, k) for n, c in n_c) / len(n_c)
                row["pass_at_k"], row["pass_hat_k"] = at, hat
        reviewed = [r for r in stt if (r["scores"] or {}).get("review")]
        if reviewed:
            scores = [r["scores"]["review"]["score"] for r in reviewed]
            row["stage_score"] = sum(scores) / len(scores)
            by_task: dict[str, list[float]] = defaultdict(list)
            for r in reviewed:
                by_task[r["task_id"]].append(r["scores"]["review"]["score"])
            row["stage_score_ci"] = pooled_interval(
                [sum(by_task[t]) for t in sorted(by_task)], [len(by_task[t]) for t in sorted(by_task)]
            )
            completions = [r["scores"]["review"]["completion"] for r in reviewed]
            row["milestone_completion"] = sum(completions) / len(completions)
            stops = [r["scores"]["review"]["stop"] for r in reviewed if r["scores"]["review"]["stop"]]
            row["early_stops"], row["steps_saved"] = len(stops), sum(s["steps_saved"] for s in stops)
        explore = [r for r in rs if r["kind"] == "explore" and r["task_id"] in common_explore]
        if explore:
            cas = [r["scores"]["calibrated_accuracy"] for r in explore]
            row["explore_common_ca"] = sum(cas) / len(cas)
            row["explore_common_n"] = len(cas)
            row["explore_incomplete"] = sum(bool(r["scores"].get("incomplete")) for r in explore)
        said = [
            (r["scores"]["user_verdict"]["verdict"], passed[id(r)])
            for r in rs
            if r["kind"] == "stt" and (r["scores"] or {}).get("user_verdict")
        ]
        if said:
            row["user_verdicts"] = len(said)
            row["user_satisfied"] = sum(v == "satisfied" for v, _ in said) / len(said)
            row["user_checklist_disagree"] = sum((v == "satisfied") != p for v, p in said)
        row["mean_steps"] = sum(r["steps"] for r in rs) / len(rs)
        times = [r["scores"]["human_active_seconds"] for r in rs if "human_active_seconds" in (r["scores"] or {})]
        if times:
            row["human_seconds_per_episode"] = sum(times) / len(times)
        row["clean_baselines"] = sum(r["clean_baseline"] for r in rs)
        out[g] = row
    return {"groups": out, "common_stt": sorted(common_stt), "common_explore": sorted(common_explore)}


def test_the_streamed_report_gives_the_figures_worked_out_by_hand(db_url):
    rows = _record()
    _fill(db_url, rows)
    want = _expected(rows)
    out = CliRunner().invoke(main, ["--db", db_url, "report", "--json"])
    assert out.exit_code == 0, out.output
    got = json.loads(out.output)
    assert got["common_stt_tasks"] == want["common_stt"] == ["s1", "s2"]  # model:b never ran s3
    assert got["common_explore_tasks"] == want["common_explore"] == ["x1", "x2"]
    by_group = {(r["controller"], r["setting"]): r for r in got["controllers"]}
    assert set(by_group) == set(want["groups"])  # the stopped, running and abandoned ones in none
    assert ("mixed", "default") in by_group and (A, "static") in by_group
    for g, expected in want["groups"].items():
        row = by_group[g]
        for key, value in expected.items():
            if key in ("pass_at_k", "pass_hat_k"):
                for k, v in value.items():
                    assert math.isclose(row[key][k], v, rel_tol=1e-12), (g, key, k)
            else:
                assert row[key] == value, (g, key, row[key], value)  # exactly: the same order of sums
        assert ("pass_at_k" in row) == ("pass_at_k" in expected), g
    assert by_group[(A, "default")]["trials"] == 3 and by_group[(A, "default")]["early_stops"] == 1
    assert by_group[(H, "default")]["trials"] == 1 and "pass_at_k" not in by_group[(H, "default")]
    mixed = by_group[("mixed", "default")]
    assert mixed["holders"] == [
        {"controller": A, "agent_steps": 5, "share": 5 / 7, "episodes": 1},
        {"controller": H, "agent_steps": 2, "share": 2 / 7, "episodes": 1},
    ]
    assert (mixed["stt_passed"], mixed["stt_episodes"]) == (1, 1)
    # model:a under the static setting against its default, on the two tasks both ran
    base = [r for r in rows if r["agent"] == A and r["task_id"] in ("s1", "s2") and r["setting"] == "default"]
    base = [r for r in base if r["status"] in FINISHED and _holder(r) == A]
    base_rate = sum(r["status"] == "completed" and r["outcome"]["passed"] for r in base) / len(base)
    assert got["settings"] == [
        {"controller": A, "measure": "pass@1", "base": "default", "setting": "static", "tasks": 2,
         "base_value": base_rate, "value": 0.5, "difference": 0.5 - base_rate}
    ]  # fmt: skip
    # the oracle's s1: two episodes on v1 (both passed), then one on v2 (failed)
    (shift,) = got["task_versions"]
    assert (shift["task"], shift["controller"], shift["pass_rate_changed"]) == ("s1", ORACLE, True)
    assert {v["version"]: (v["episodes"], v["passed"]) for v in shift["versions"]} == {"v1": (2, 2), "v2": (1, 0)}
    text = CliRunner().invoke(main, ["--db", db_url, "report"])
    assert text.exit_code == 0, text.output
    a = by_group[(A, "default")]
    assert f"{a['stt_common_pass_at_1']:.1%}" in text.output and "mixed [default]: 1 episode(s)" in text.output
    assert "The same controller under two settings" in text.output and "pass@3" in text.output


def test_report_memory_does_not_grow_with_the_record(tmp_path, monkeypatch):
    """Three times the episodes cost the report a few numbers per extra scored episode (its
    ordered sums), not the row objects a held record costs (several hundred bytes each). (The
    bulk are explore episodes on a few tasks: stt trials would lengthen the pass@k table; each
    with its own scores, as a real record's are.)"""
    import tracemalloc

    def peak(n: int) -> int:
        url = f"sqlite:///{tmp_path / f'{n}.db'}"
        rows = [
            _episode(
                i, (A, B, ORACLE)[i % 3], f"s{i % 5}", outcome={"passed": i % 2 == 0}, scores={"review": _review(i)}
            )
            for i in range(30)
        ]
        rows += [
            _episode(
                i,
                (A, B, ORACLE)[i % 3],
                f"x{i % 5}",
                kind="explore",
                outcome=None,
                scores={"calibrated_accuracy": i / n, "incomplete": i % 2 == 0, "human_active_seconds": i / 3},
                task_hash=f"v{i % 2}",
            )
            for i in range(30, n)
        ]
        _fill(url, rows)
        tracemalloc.start()
        try:
            out = CliRunner().invoke(main, ["--db", url, "report", "--json"])
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
            assert out.exit_code == 0, out.output

    peak(300)  # (what the first report imports and caches is no episode's cost)
    small, large = peak(2000), peak(6000)
    # (held light rows, as before the tally, cost about 700 bytes an episode here; the tally's
    # ordered numbers about 40)
    assert (large - small) / 4000 < 250, (small, large)


def test_the_bootstrap_drawn_and_gathered_in_blocks_is_the_one_shot_bootstrap(monkeypatch):
    """The index tables are drawn a block of rows at a time and the resampled sums gathered a
    block at a time (a report over thousands of tasks never makes a second ROUNDS x n array):
    the indices, and so every interval, must be those of one draw and one gather."""
    import numpy as np

    from sttui.core import stats

    monkeypatch.setattr(stats, "_INDEX_CACHE", {})
    monkeypatch.setattr(stats, "_BLOCK", 997)  # blocks of a row or a few, whatever n
    for n in (2, 7, 613, 2001):
        whole = np.random.default_rng(stats.SEED).integers(0, n, size=(stats.ROUNDS, n))
        assert (stats._indices(n) == whole).all(), n
        totals = [((i * 37) % 101) / 7 for i in range(n)]
        counts = [1 + i % 4 for i in range(n)]
        values = np.sort(np.asarray(totals)[whole].sum(axis=1) / np.asarray(counts, dtype=float)[whole].sum(axis=1))
        tail = (1 - stats.LEVEL) / 2
        expected = [round(stats._quantile(values.tolist(), q), 6) for q in (tail, 1 - tail)]
        assert stats.pooled_interval(totals, counts) == expected, n
