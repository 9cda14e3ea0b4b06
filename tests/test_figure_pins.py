"""What each published figure means, pinned against computations written here.

Every headline interval is a 95 % percentile bootstrap over tasks: 2,000 resamples drawn with
numpy's PCG64 seeded 0 (α: 1,000 resamples of the rated items, Python's Mersenne Twister
seeded 0), and the 2.5th and 97.5th percentiles taken by linear interpolation between order
statistics. The reference below spells out the order statistics by hand, so an 80 % interval
printed as 95 %, or an upper bound one order statistic off, fails here. The report's mixed
rows, the tool-call mean, and the two loops that once could hang are pinned too."""

from __future__ import annotations

import random
import threading
from types import SimpleNamespace
from typing import Any

import krippendorff
import numpy as np
import pytest

from sttui.analysis.comparison import compare
from sttui.annotate import agreement as ag
from sttui.core.stats import bootstrap, pass_at_k, pass_hat_k, pooled_interval
from sttui.running.batch import explore_summary, stt_summary
from sttui.running.plan import ReviewPlan

# -- the reference ------------------------------------------------------------------------


def resamples(n: int) -> list[list[int]]:
    """The house resample rule for pooled figures: 2,000 draws of n task positions."""
    return np.random.default_rng(0).integers(0, n, size=(2000, n)).tolist()


def percentile_95_of_2000(values: list[float]) -> tuple[float, float]:
    """2.5th and 97.5th percentiles of 2,000 values: positions 0.025 * 1999 = 49.975 and
    0.975 * 1999 = 1949.025, interpolated between the order statistics around them."""
    assert len(values) == 2000
    v = sorted(values)
    return v[49] + 0.975 * (v[50] - v[49]), v[1949] + 0.025 * (v[1950] - v[1949])


def percentile_80_of_2000(values: list[float]) -> tuple[float, float]:
    """The 80 % interval (positions 199.9 and 1799.1): what a slipped level would print."""
    v = sorted(values)
    return v[199] + 0.9 * (v[200] - v[199]), v[1799] + 0.1 * (v[1800] - v[1799])


def pooled_reference(totals: list[float], counts: list[int] | None = None, level: int = 95) -> list[float]:
    counts = counts if counts is not None else [1] * len(totals)
    means = [sum(totals[i] for i in r) / sum(counts[i] for i in r) for r in resamples(len(totals))]
    lo, hi = (percentile_95_of_2000 if level == 95 else percentile_80_of_2000)(means)
    return [round(lo, 6), round(hi, 6)]


def by_task(pairs: list[tuple[str, float]]) -> tuple[list[float], list[int]]:
    """Per-task sums and counts, tasks in sorted order (the order the resamples index)."""
    tasks = sorted({t for t, _ in pairs})
    return [sum(v for t, v in pairs if t == u) for u in tasks], [sum(t == u for t, _ in pairs) for u in tasks]


# tasks with 1-4 episodes each: continuous values (every resample mean distinct) and 0/1 outcomes
RNG = random.Random(30)
CONTINUOUS = [(f"t{i:02d}", round(RNG.random(), 4)) for i in range(12) for _ in range(1 + i % 4)]
BINARY = [(f"t{i:02d}", float(RNG.random() < 0.55)) for i in range(12) for _ in range(1 + i % 4)]


@pytest.mark.parametrize("pairs", [CONTINUOUS, BINARY], ids=["continuous", "binary"])
def test_the_pooled_interval_is_the_95_percent_percentile_interval(pairs):
    totals, counts = by_task(pairs)
    found = pooled_interval(totals, counts)
    assert found == pytest.approx(pooled_reference(totals, counts), abs=1e-6)
    # the check can tell the levels apart on this data
    assert pooled_reference(totals, counts, 80) != pooled_reference(totals, counts)


def test_the_resamples_are_drawn_the_same_from_a_cold_cache(monkeypatch):
    """The drawn positions are kept per n; a process that has not drawn them yet (or a forked
    one that inherited them) must draw the same ones."""
    import sttui.core.stats as stats

    totals, counts = by_task(CONTINUOUS)
    monkeypatch.setattr(stats, "_INDEX_CACHE", {})
    assert pooled_interval(totals, counts) == pytest.approx(pooled_reference(totals, counts), abs=1e-6)
    assert list(stats._INDEX_CACHE) == [12] and stats._INDEX_CACHE[12].shape == (2000, 12)
    assert pooled_interval(totals, counts) == pytest.approx(pooled_reference(totals, counts), abs=1e-6)


def test_the_seeded_bootstrap_is_the_95_percent_percentile_of_2000_resamples():
    units = [v for _, v in CONTINUOUS]
    rng = random.Random(0)  # bootstrap's rule: rng.choices(units, k=n), 2,000 times, seed 0
    means = [sum(s) / len(s) for s in (rng.choices(units, k=len(units)) for _ in range(2000))]
    assert bootstrap(units, lambda s: sum(s) / len(s)) == pytest.approx(percentile_95_of_2000(means), abs=1e-12)


def stt(task: str, passed: bool, **extra: Any) -> dict[str, Any]:
    record = {"task": task, "kind": "stt", "level": "easy", "conflict": "T1", "status": "completed"}
    return record | {"passed": passed} | extra


def test_the_run_reports_pass_at_1_pass_at_k_and_pass_hat_k_at_95_percent():
    records = [stt(t, v == 1.0) for t, v in BINARY]
    s = stt_summary(records)
    totals, counts = by_task(BINARY)
    assert s["overall_ci"] == pytest.approx(pooled_reference(totals, counts), abs=1e-6)
    groups = {t: [bool(v) for u, v in BINARY if u == t] for t in sorted({t for t, _ in BINARY})}
    assert s["trials"] == 1  # the fewest trials of any task
    for k in (1,):
        at = [pass_at_k(len(g), sum(g), k) for g in groups.values()]
        hat = [pass_hat_k(len(g), sum(g), k) for g in groups.values()]
        assert s["pass_at_k_ci"][f"pass@{k}"] == pytest.approx(pooled_reference(at), abs=1e-6)
        assert s["pass_hat_k_ci"][f"pass^{k}"] == pytest.approx(pooled_reference(hat), abs=1e-6)


def test_pass_at_k_and_pass_hat_k_intervals_over_tasks_of_three_trials():
    # 12 tasks of 3 trials, 0-3 passes each: each task's estimate is one unit
    passes = [RNG.randint(0, 3) for _ in range(12)]
    records = [stt(f"t{i:02d}", j < c) for i, c in enumerate(passes) for j in range(3)]
    s = stt_summary(records)
    assert s["trials"] == 3
    for k in (1, 2, 3):
        at = [pass_at_k(3, c, k) for c in passes]
        hat = [pass_hat_k(3, c, k) for c in passes]
        assert s["pass_at_k_ci"][f"pass@{k}"] == pytest.approx(pooled_reference(at), abs=1e-6), k
        assert s["pass_hat_k_ci"][f"pass^{k}"] == pytest.approx(pooled_reference(hat), abs=1e-6), k


def review(score: float) -> dict[str, Any]:
    return {"score": score, "completion": 1.0, "stop": None, "would_stop": None, "first_error": None}


def test_the_run_reports_stage_scores_and_calibrated_accuracy_at_95_percent():
    records = [stt(t, v > 0.5, review=review(v), steps=5) for t, v in CONTINUOUS]
    totals, counts = by_task(CONTINUOUS)
    assert stt_summary(records)["review"]["mean_score_ci"] == pytest.approx(pooled_reference(totals, counts), abs=1e-6)
    explore = [
        {"task": t, "kind": "explore", "status": "completed", "metrics": {"calibrated_accuracy": v}}
        for t, v in CONTINUOUS
    ]
    assert explore_summary(explore)["calibrated_accuracy_ci"] == pytest.approx(
        pooled_reference(totals, counts), abs=1e-6
    )


def episode(agent: str, task: str, kind: str = "stt", **kw: Any) -> SimpleNamespace:
    fields = {
        "id": kw.pop("id", f"{agent}-{task}"),
        "agent": agent,
        "task_id": task,
        "kind": kind,
        "status": "completed",
        "setting": "default",
        "outcome": None,
        "scores": None,
        "steps": 10,
        "clean_baseline": True,
    }
    passed = kw.pop("passed", None)
    if passed is not None:
        fields["outcome"] = {"passed": passed}
    return SimpleNamespace(**(fields | kw))


def test_the_comparison_reports_pass_at_1_stage_scores_and_ca_at_95_percent():
    meta = {t: {"level": "easy", "conflict": "T1"} for t, _ in CONTINUOUS}
    records = [
        episode("model:m", t, passed=v > 0.5, scores={"review": review(v) | {"completion": 1.0}}, id=f"s{i}")
        for i, (t, v) in enumerate(CONTINUOUS)
    ]
    records += [
        episode("model:m", f"x{t}", "explore", scores={"calibrated_accuracy": v}, id=f"x{i}")
        for i, (t, v) in enumerate(CONTINUOUS)
    ]
    row = compare(records, meta)["controllers"][0]
    totals, counts = by_task(CONTINUOUS)
    assert row["stage_score_ci"] == pytest.approx(pooled_reference(totals, counts), abs=1e-6)
    assert row["explore_common_ca_ci"] == pytest.approx(pooled_reference(totals, counts), abs=1e-6)
    outcomes = [(t, float(v > 0.5)) for t, v in CONTINUOUS]
    assert row["pass_at_1_ci"] == pytest.approx(pooled_reference(*by_task(outcomes)), abs=1e-6)


def test_the_comparison_reports_pass_at_k_intervals_at_95_percent():
    passes = [RNG.randint(0, 2) for _ in range(10)]
    meta = {f"t{i}": {"level": "easy", "conflict": "T1"} for i in range(10)}
    records = [
        episode("model:m", f"t{i}", passed=j < c, id=f"e{i}-{j}") for i, c in enumerate(passes) for j in range(2)
    ]
    row = compare(records, meta)["controllers"][0]
    assert row["trials"] == 2
    for k in (1, 2):
        at = [pass_at_k(2, c, k) for c in passes]
        hat = [pass_hat_k(2, c, k) for c in passes]
        assert row["pass_at_k_ci"][f"pass@{k}"] == pytest.approx(pooled_reference(at), abs=1e-6), k
        assert row["pass_hat_k_ci"][f"pass^{k}"] == pytest.approx(pooled_reference(hat), abs=1e-6), k


# -- α's interval ---------------------------------------------------------------------------


def alpha_reference(ratings: dict[str, dict[str, int]]) -> list[float] | None:
    """1,000 resamples of the items with two or more ratings (random.Random(0).choices), α of
    each by the krippendorff package (ordinal, 1-5), undefined ones left out, then numpy's
    2.5th and 97.5th percentiles."""
    units = [by for by in ratings.values() if len(by) >= 2]
    rng = random.Random(0)
    kept = []
    for _ in range(1000):
        sample = rng.choices(units, k=len(units))
        raters = sorted({a for by in sample for a in by})
        values = {v for by in sample for v in by.values()}
        if len(values) < 2:
            continue  # one value everywhere: α is undefined
        matrix = np.array([[by.get(a, np.nan) for by in sample] for a in raters], dtype=float)
        kept.append(
            krippendorff.alpha(reliability_data=matrix, level_of_measurement="ordinal", value_domain=[1, 2, 3, 4, 5])
        )
    if len(kept) < 500:
        return None
    lo, hi = np.percentile(kept, [2.5, 97.5])
    return [round(float(lo), 6), round(float(hi), 6)]


def small_tables(count: int, seed: int) -> list[dict[str, dict[str, int]]]:
    """Tables of 3-5 items with 2-3 ratings: many resamples hold a value seen once."""
    rng = random.Random(seed)
    tables = []
    for _ in range(count):
        tables.append(
            {f"i{i}": {f"a{j}": rng.randint(1, 5) for j in range(rng.randint(2, 3))} for i in range(rng.randint(3, 5))}
        )
    return tables


@pytest.mark.parametrize("ratings", small_tables(10, 7), ids=lambda _: "table")
def test_alpha_interval_of_small_tables_keeps_every_defined_resample(ratings):
    assert ag.alpha_interval(ratings) == pytest.approx(alpha_reference(ratings), abs=1e-6)


def test_alpha_interval_over_several_blocks_is_the_same_bootstrap():
    """600 items: the resamples are drawn in blocks of 416; each block continues the sequence."""
    rng = random.Random(11)
    ratings = {f"i{i}": {f"a{j}": rng.randint(2, 4) for j in range(2)} for i in range(600)}
    assert ag.alpha_interval(ratings) == pytest.approx(alpha_reference(ratings), abs=1e-6)


def in_time(fn: Any, seconds: float) -> Any:
    """``fn()``, failing the test (not hanging it) when it has not returned within ``seconds``."""
    out: dict[str, Any] = {}
    worker = threading.Thread(target=lambda: out.setdefault("value", fn()), daemon=True)
    worker.start()
    worker.join(seconds)
    assert not worker.is_alive(), f"still running after {seconds} s"
    return out.get("value")


def test_alpha_interval_ends_for_every_table_size():
    for n in (2, 7, 250, 251, 1001):
        ratings = {f"i{i}": {"a": 1 + i % 5, "b": 1 + (i * 3) % 5} for i in range(n)}
        assert in_time(lambda r=ratings: ag.alpha_interval(r), 30) is not None, n


# -- the report's mixed rows ----------------------------------------------------------------


def control(**steps: int) -> dict[str, Any]:
    return {"control": {"agent_steps": {a.replace("_", ":"): n for a, n in steps.items()}}}


def test_a_mixed_row_counts_its_stt_episodes_and_every_holder_with_a_step():
    records = [
        # taken over by a person for two steps: mixed, passed
        episode("model:x", "t1", passed=True, scores=control(model_x=9, human_dana=2), id="e1"),
        # one step by the person, none by a third holder: mixed, failed
        episode("model:x", "t2", passed=False, scores=control(model_x=1, human_dana=1, human_zed=0), id="e2"),
        # an explore episode taken over: mixed, not an stt one (its outcome says passed, as data may)
        episode("model:x", "x1", "explore", passed=True, scores=control(model_x=1, human_dana=1), id="e3"),
        episode("model:x", "t1", passed=True, scores=control(model_x=3, human_dana=0), id="e4"),  # model:x's
    ]
    rows = compare(records, {"t1": {"level": "easy", "conflict": "T1"}, "t2": {"level": "easy", "conflict": "T1"}})
    # the mixed row, then the model's own row (rows go on after the mixed one)
    assert [(r["controller"], r["episodes"]) for r in rows["controllers"]] == [("mixed", 3), ("model:x", 1)]
    mixed = rows["controllers"][0]
    assert (mixed["episodes"], mixed["stt_episodes"], mixed["stt_passed"]) == (3, 2, 1)
    holders = [(h["controller"], h["agent_steps"], h["episodes"]) for h in mixed["holders"]]
    assert holders == [("model:x", 11, 3), ("human:dana", 4, 3)]  # human:zed took no step: not listed
    assert [round(h["share"], 3) for h in mixed["holders"]] == [0.733, 0.267]


def test_a_mixed_row_counts_only_stt_passes_however_many_explore_episodes_say_passed():
    records = [
        episode("model:x", "t1", passed=True, scores=control(model_x=2, human_dana=2), id="e1"),
        episode("model:x", "t1", passed=True, scores=control(model_x=2, human_dana=2), id="e2"),
        episode("model:x", "x1", "explore", passed=True, scores=control(model_x=1, human_dana=1), id="e3"),
    ]
    (mixed,) = compare(records, {"t1": {"level": "easy", "conflict": "T1"}})["controllers"]
    assert (mixed["stt_episodes"], mixed["stt_passed"]) == (2, 2)


def test_a_mixed_row_reads_holders_from_the_control_summaries_given_for_old_records():
    # records from before summaries were kept: no control in their scores, tallied by the caller
    records = [episode("model:x", "t1", passed=True, id="e1"), episode("model:x", "t2", passed=False, id="e2")]
    controls = {"e1": {"agent_steps": {"model:x": 3, "human:dana": 1}}, "e2": {"agent_steps": {"human:dana": 4}}}
    rows = compare(records, {t: {"level": "easy", "conflict": "T1"} for t in ("t1", "t2")}, controls)
    assert [(r["controller"], r["episodes"]) for r in rows["controllers"]] == [("human:dana", 1), ("mixed", 1)]
    mixed = rows["controllers"][1]
    assert [(h["controller"], h["agent_steps"]) for h in mixed["holders"]] == [("model:x", 3), ("human:dana", 1)]


def test_an_episode_with_a_control_summary_but_no_agent_step_belongs_to_its_agent():
    records = [episode("model:x", "t1", passed=True, scores={"control": {"agent_steps": {}}}, id="e1")]
    (row,) = compare(records, {"t1": {"level": "easy", "conflict": "T1"}})["controllers"]
    assert row["controller"] == "model:x"


def test_a_holder_with_a_single_step_keeps_its_share():
    records = [
        episode("model:x", "t1", passed=True, scores=control(model_x=11, human_dana=2), id="e1"),
        episode("model:x", "t1", passed=True, scores=control(model_x=0, human_dana=1, human_ann=1), id="e2"),
    ]
    (mixed,) = compare(records, {"t1": {"level": "easy", "conflict": "T1"}})["controllers"]
    assert [(h["controller"], h["agent_steps"], h["episodes"]) for h in mixed["holders"]] == [
        ("model:x", 11, 1),
        ("human:dana", 3, 2),
        ("human:ann", 1, 1),
    ]
    assert [round(h["share"], 3) for h in mixed["holders"]] == [0.733, 0.2, 0.067]


# -- the tool-call mean -----------------------------------------------------------------------


def test_a_live_runs_report_means_the_tool_calls_every_record_carries():
    # a live run's records all carry their count (runner.as_dict)
    records = [stt("a", True, tool_calls=4), stt("a", False, tool_calls=1), stt("b", True, tool_calls=0)]
    assert stt_summary(records)["mean_tool_calls"] == pytest.approx(5 / 3)


def test_a_report_from_the_record_has_no_tool_call_mean_rather_than_zero():
    # records read back from the store (a shared run's summary) carry no counts at all
    records = [stt("a", True), stt("a", False), stt("b", True)]
    assert "mean_tool_calls" not in stt_summary(records)


# -- a write that builds nothing ends its episode's record, never the writer --------------------


def test_a_write_builder_that_returns_nothing_fails_its_episode_and_flush_returns(tmp_path):
    from sttui.store.store import Store
    from sttui.store.writer import Writer

    writer = Writer(Store(f"sqlite:///{tmp_path / 'w.db'}"), deadline=1)
    writer.submit_write(lambda: None, episode="e1")  # type: ignore[arg-type, return-value]
    in_time(writer.flush, 10)
    assert "TypeError" in writer.failed["e1"]
    writer.submit(lambda: None, episode="e2")  # the thread still works
    in_time(writer.flush, 10)
    assert "e2" not in writer.failed
    in_time(writer.close, 10)


def test_a_fault_inside_the_writer_fails_its_writes_and_leaves_the_thread_running(tmp_path, monkeypatch):
    from sttui.store.store import Store
    from sttui.store.writer import Writer

    writer = Writer(Store(f"sqlite:///{tmp_path / 'w.db'}"), deadline=1)

    def broken(jobs):
        raise RuntimeError("a bug in the writer")

    monkeypatch.setattr(writer, "_commit_events", broken)
    writer.submit_write(lambda: [], episode="e1")
    in_time(writer.flush, 10)
    assert writer.failed["e1"] == "recording failed: RuntimeError: a bug in the writer"
    monkeypatch.undo()
    writer.submit(lambda: None, episode="e2")
    in_time(writer.flush, 10)
    assert "e2" not in writer.failed
    in_time(writer.close, 10)


def test_a_recorded_run_whose_finishing_writes_come_back_empty_handed_ends(tmp_path, monkeypatch):
    import asyncio

    import sttui.running.batch as batch
    from sttui.core.loader import load_task
    from sttui.running.plan import RunPlan
    from sttui.store.store import Store
    from tests.conftest import ROOT

    store = Store(f"sqlite:///{tmp_path / 'r.db'}")
    loaded = load_task(ROOT / "tasks" / "stt" / "logistics" / "insulin-reefer-fault-st2-easy.yaml")
    plan = RunPlan.build([loaded], agent="baseline:oracle", trials=1, seed=3)
    monkeypatch.setattr(batch, "_claimed", lambda claim, items: None)
    (record,) = in_time(lambda: asyncio.run(batch.run_batch(plan, store=store)), 60)
    assert record["status"] == "errored" and record["record_failed"] and record["passed"] is False
    assert "TypeError" in record["error"]


def test_a_model_steered_only_by_rejections_is_a_mixed_row_with_no_holder_steps():
    # a control summary is data: one with oversight alone (no agent_steps) is mixed all the same
    records = [episode("model:x", "t1", passed=False, scores={"control": {"oversight": {"rejected": 2}}}, id="e1")]
    (mixed,) = compare(records, {"t1": {"level": "easy", "conflict": "T1"}})["controllers"]
    assert (mixed["controller"], mixed["stt_episodes"], mixed["holders"]) == ("mixed", 1, [])


# -- the low-quality stop that rule-scored stages raise ------------------------------------------


def test_a_rule_scored_low_quality_stop_is_an_event_at_the_step_its_second_stage_closed():
    import asyncio

    from sttui.controllers.baselines import ReplayAgent, ScriptedUser
    from sttui.core.actions import Say, ToolCall
    from sttui.core.loader import load_task
    from sttui.running.runner import run_episode
    from tests.conftest import ROOT

    loaded = load_task(ROOT / "tasks" / "stt" / "logistics" / "insulin-reefer-fault-st2-easy.yaml")
    sol = loaded.task.solution
    bad = ToolCall("get_shipment", {"shipment_id": "NOPE"})  # fails: an error flag
    actions = [bad, bad, ToolCall(sol[0].tool, sol[0].args), bad]
    actions += [ToolCall(s.tool, s.args) for s in sol[1:6]] + [Say(sol[6].say)]
    events: list[Any] = []
    result = asyncio.run(
        run_episode(
            loaded,
            ReplayAgent("baseline:replay", actions),
            ScriptedUser(),
            review=ReviewPlan(early_stop=True, low_quality=(2, 0.9)),
            on_event=events.append,
        )
    )
    settled = [e.payload["step"] for e in events if e.type == "milestone_settled"]
    signals = [e.payload for e in events if e.type == "stop_signal"]
    assert settled == [3, 8] and result.review["stop"]["step"] == 8
    assert [(s["signal"], s["step"], s["stages"]) for s in signals] == [
        ("low_quality", 8, ["sees-fault", "insulin-delivered-cold"])
    ]
