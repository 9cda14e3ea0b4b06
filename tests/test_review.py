"""Milestone review (DynSTEER): dominators, reduction, path tolerance, stop signals,
early stop, first-error localisation, and that a record rebuilds to the same review."""

from __future__ import annotations

import copy

import pytest
import yaml

from sttui.core.actions import Reply, Say, ToolCall
from sttui.core.envload import import_env
from sttui.core.episode import Episode
from sttui.core.review import operators as ops
from sttui.core.review.derive import derive_milestones
from sttui.core.review.graph import START, Graph, find_cycle
from sttui.core.review.model import Constraint, Milestone
from sttui.core.review.stages import Stage, first_error
from sttui.core.review.summary import separation
from sttui.core.review.tracker import Review
from sttui.core.task import SttTask
from sttui.running.plan import ReviewPlan
from tests.conftest import FIXTURES

ERRANDS = FIXTURES / "review" / "errands.yaml"
BASE = yaml.safe_load(ERRANDS.read_text())
ENV, _ = import_env(BASE["env"], ERRANDS)


def task(**overrides) -> SttTask:
    data = copy.deepcopy(BASE)
    data.update(overrides)
    return SttTask.model_validate(data)


def play(calls, early_stop=False, stagnation=None, **overrides) -> Episode:
    t = task(**overrides)
    graph = Graph.build(t.milestones) if t.milestones else Graph.build(derive_milestones(t, ENV))
    review = Review(graph, t.minefields, t.review, early_stop=early_stop)
    if stagnation is not None:
        review.settings = review.settings.model_copy(update={"stagnation": stagnation})
    ep = Episode(t, ENV, review=review)
    ep.start()
    for action in calls:
        if ep.ended is not None:
            break
        if ep.turn == "user":
            ep.apply(Reply("Go on."))
        ep.apply(action)
    return ep


def fetch(item):
    return ToolCall("fetch", {"item": item})


def look(item):
    return ToolCall("look", {"item": item})


DELIVER = ToolCall("deliver", {"to": "home"})


def settled(ep: Episode) -> dict[str, int]:
    return {e.payload["milestone"]: e.payload["step"] for e in ep.events if e.type == "milestone_settled"}


def signals(ep: Episode, kind: str | None = None) -> list[dict]:
    return [e.payload for e in ep.events if e.type == "stop_signal" and (kind is None or e.payload["signal"] == kind)]


# -- the graph -----------------------------------------------------------------------


def dag(edges: dict[str, list[str]]) -> Graph:
    return Graph.build(
        [
            Milestone(
                id=m, name=m, after=after, constraints=[Constraint(selector="call.tool", operator="equals", expected=m)]
            )
            for m, after in edges.items()
        ]
    )


@pytest.mark.parametrize(
    ("edges", "expected"),
    [
        # a chain: each milestone is dominated by the one before
        ({"a": [], "b": ["a"], "c": ["b"]}, {"a": START, "b": "a", "c": "b"}),
        # a diamond: the join is dominated by the fork, not by either branch
        ({"a": [], "b": ["a"], "c": ["a"], "d": ["b", "c"]}, {"b": "a", "c": "a", "d": "a"}),
        # two roots joined: only the entry dominates the join
        ({"r1": [], "r2": [], "m": ["r1", "r2"]}, {"r1": START, "r2": START, "m": START}),
        # nested: g joins a branch through d (itself a join) and a branch through f
        (
            {"a": [], "b": ["a"], "c": ["a"], "d": ["b", "c"], "e": ["d"], "f": ["c"], "g": ["e", "f"]},
            {"d": "a", "e": "d", "f": "c", "g": "a"},
        ),
        # a branch that rejoins below a chain: x dominates everything after it
        ({"x": [], "y": ["x"], "z": ["x"], "w": ["y", "z"], "v": ["w"]}, {"w": "x", "v": "w"}),
    ],
)
def test_immediate_dominators_on_hand_made_dags(edges, expected):
    idom = dag(edges).idom
    for node, dominator in expected.items():
        assert idom[node] == dominator, node


def test_transitive_reduction_drops_implied_edges_only():
    g = dag({"a": [], "b": ["a"], "c": ["a", "b"], "d": ["a", "c"], "e": ["b"]})
    assert sorted(g.redundant) == [("a", "c"), ("a", "d")]
    assert g.preds["c"] == ["b"] and g.preds["d"] == ["c"] and g.preds["e"] == ["b"]
    # dominance is taken on the reduced graph: c needs b, which needs a, so b is on every path
    assert g.idom["c"] == "b"


def test_cycles_are_found_with_their_path():
    assert find_cycle({"a": ["c"], "b": ["a"], "c": ["b"]}) in (
        ["a", "b", "c", "a"],
        ["b", "c", "a", "b"],
        ["c", "a", "b", "c"],
    )
    assert find_cycle({"a": [], "b": ["a"]}) is None


def test_ready_and_blocked_frontier():
    g = dag({"a": [], "b": [], "c": ["a", "b"]})
    assert g.ready(set()) == ["a", "b"] and g.blocked(set()) == ["c"]
    assert g.ready({"a"}) == ["b"] and g.ready({"a", "b"}) == ["c"]


# -- operators ------------------------------------------------------------------------


def ctx(state, baseline=None, action=None, settled_states=None):
    return ops.Context(action, state, baseline if baseline is not None else {}, settled_states or {})


def c(selector, operator, expected=None, **kw):
    return Constraint(selector=selector, operator=operator, expected=expected, **kw)


def test_operators():
    call = ops.Closed(
        1,
        "call",
        "book",
        {"who": "P-1", "note": "Westbrook at 14:30"},
        {"success": True, "slots": [{"t": "14:30", "room": 2}]},
    )
    x = ctx({"a": {"b": 1}}, action=call)
    assert ops.holds(c("call.tool", "equals", "book"), x)
    assert ops.holds(c("call.args.who", "one_of", ["P-1", "P-2"]), x)
    assert not ops.holds(c("call.args.who", "one_of", ["P-3"]), x)
    assert ops.holds(c("call.args.note", "contains", "westbrook"), x)
    assert ops.holds(c("call.result.slots", "json_subsumes", [{"t": "14:30"}]), x)
    assert not ops.holds(c("call.result.slots", "json_subsumes", [{"t": "15:00"}]), x)
    assert ops.holds(c("call.args.note", "fuzzy_match", "westbrook 14:30"), x)
    assert not ops.holds(c("call.args.note", "fuzzy_match", "harbourside at noon"), x)
    assert not ops.holds(c("message.text", "contains", "x"), x)  # a call is not a message
    said = ctx({}, action=ops.Closed(2, "message", text="Booked at Westbrook"))
    assert ops.holds(c("message.text", "contains", "westbrook"), said)
    assert not ops.holds(c("call.tool", "equals", "book"), said)


@pytest.mark.parametrize(
    ("value", "want", "holds"),
    [
        ({"P-1": {"ward": 3}, "P-2": {"ward": 7, "n": 1}}, {"ward": 7}, True),
        ({"P-1": {"ward": 3}, "P-2": {"bed": 7}}, {"ward": 7}, False),
        ({"P-1": {"ward": 7, "tags": ["a", "b"]}}, {"tags": ["b"]}, True),  # records are subsumed
        ({"ward": 7, "bed": {"n": 1}}, {"ward": 7}, True),
        ({"P-1": {"ward": 7}, "note": "x"}, {"ward": 7}, False),
    ],
)
def test_contains_on_a_mapping_of_records_looks_into_each_record(value, want, holds):
    assert ops.holds(c("state.patients", "contains", want), ctx({"patients": value})) is holds


def test_state_change_operators_compare_with_the_window_start():
    before = {"apts": {"A1": {"who": "P-1", "status": "booked"}}, "log": ["x"], "n": 1}
    after = {
        "apts": {"A1": {"who": "P-1", "status": "cancelled"}, "A2": {"who": "P-2", "status": "booked"}},
        "log": [],
        "n": 1,
    }
    x = ctx(after, before, settled_states={"start": before, "m1": after})
    assert ops.holds(c("state.apts", "added", {"who": "P-2"}), x)
    assert not ops.holds(c("state.apts", "added", {"who": "P-1"}), x)
    assert ops.holds(c("state.apts.A1", "updated", {"status": "cancelled"}), x)
    assert ops.holds(c("state.apts", "updated", {"status": "cancelled"}), x)  # an entry of the mapping
    assert ops.holds(c("state.log", "removed", "x"), x)
    assert not ops.holds(c("state.n", "updated"), x)
    assert ops.holds(c("state.n", "unchanged_since", "start"), x)
    assert not ops.holds(c("state.apts", "unchanged_since"), x)
    assert ops.holds(c("state.apts", "unchanged_since", "m1"), x)


def test_hard_constraints_and_thresholds():
    soft = [c("state.a", "equals", 1), c("state.b", "equals", 2, weight=3)]
    assert ops.satisfied(soft, 0.75, ctx({"a": 0, "b": 2})) == (True, 0.75)
    assert ops.satisfied(soft, 1.0, ctx({"a": 0, "b": 2}))[0] is False
    hard = [c("state.a", "equals", 1, hard=True), c("state.b", "equals", 2, weight=3)]
    assert ops.satisfied(hard, 0.5, ctx({"a": 0, "b": 2}))[0] is False


# -- live evaluation ------------------------------------------------------------------


def test_two_valid_orders_both_settle_every_milestone():
    xy = play([fetch("X"), fetch("Y"), DELIVER, Say("X and Y delivered.")])
    yx = play([fetch("Y"), look("Z"), fetch("X"), DELIVER, Say("All delivered.")])
    assert set(settled(xy)) == set(settled(yx)) == {"got-x", "got-y", "delivered", "told"}
    assert settled(yx)["got-y"] == 1 and settled(yx)["got-x"] == 3
    assert not signals(xy) and not signals(yx)
    # the join's window opens at its immediate dominator (the start), so it spans both branches
    stage = next(s for s in yx.review.stages if s.milestone == "delivered")
    assert (stage.anchor, stage.first, stage.last) == (START, 1, 4)


def test_only_the_ready_frontier_is_matched():
    ep = play([Say("Everything is delivered."), fetch("X"), fetch("Y"), DELIVER])
    gap = signals(ep, "predecessor_gap")
    assert gap and gap[0]["milestone"] == "told" and gap[0]["step"] == 1
    assert set(gap[0]["missing"]) == {"delivered"}
    assert "told" not in settled(ep)  # said too early: it did not settle, and it waits
    ep.apply(Say("It is delivered now."))
    assert settled(ep)["told"] == 5


def test_frontier_stagnation_signals_after_n_actions_without_progress():
    ep = play([fetch("X"), look("Z"), look("Y"), look("Z"), look("X"), fetch("Y")], stagnation=4)
    stag = signals(ep, "frontier_stagnation")
    assert len(stag) == 1
    assert (stag[0]["since"], stag[0]["step"], stag[0]["actions"]) == (2, 5, 4)
    assert ep.ended is None and settled(ep)["got-y"] == 6  # a warning only, without early stop
    summary = ep.review.summary(ep.steps, ep.task.max_steps)
    assert summary["would_stop"]["signal"] == "frontier_stagnation"
    assert summary["would_stop"]["steps_saved"] == 1


def test_early_stop_on_stagnation_ends_the_run_with_the_steps_saved():
    ep = play([fetch("X"), look("Z"), look("Y"), look("Z"), look("X"), fetch("Y")], early_stop=True, stagnation=4)
    assert ep.ended["by"] == "review" and ep.steps == 5
    end = ep.events[-1]
    assert end.type == "episode_ended"
    assert end.payload["stop"] == {"signal": "frontier_stagnation", "step": 5, "steps_saved": 20 - 5}
    assert ep.review.summary(ep.steps, 20)["stop"]["steps_saved"] == 15


def test_fatal_minefield_is_intercepted_before_the_call_runs_under_early_stop():
    ep = play([fetch("X"), ToolCall("cancel", {"order_id": "O-1"}), fetch("Y")], early_stop=True)
    assert ep.env.state["orders"]["O-1"]["status"] == "open"  # never ran
    mine = signals(ep, "fatal_minefield")
    assert mine and mine[0]["before_call"] and mine[0]["minefield"] == "cancels-order"
    result = next(e for e in reversed(ep.events) if e.type == "tool_result")
    assert result.payload["result"]["success"] is False and "intercepted" in result.payload["result"]["error"]
    assert ep.ended["by"] == "review" and ep.steps == 2
    assert ep.view[-1]["type"] == "tool_result"  # the agent saw an ordinary failed call, nothing about the review


def test_fatal_minefield_without_early_stop_runs_and_is_recorded():
    ep = play([ToolCall("cancel", {"order_id": "O-1"}), fetch("Y")])
    assert ep.env.state["orders"]["O-1"]["status"] == "cancelled"
    assert signals(ep, "fatal_minefield")[0]["step"] == 1
    assert ep.ended is None


def test_warn_minefield_on_state_signals_once_when_it_starts_to_hold():
    ep = play([fetch("Z"), fetch("X"), fetch("Y")])
    warns = signals(ep, "warn_minefield")
    assert [w["step"] for w in warns] == [1]
    assert not warns[0]["before_call"]


def test_review_events_never_reach_the_agents_view():
    ep = play([Say("delivered"), fetch("Z"), ToolCall("cancel", {"order_id": "O-1"})])
    assert signals(ep)
    text = repr(ep.view)
    for word in ("milestone", "minefield", "predecessor", "stagnation"):
        assert word not in text


# -- stage scores and first-error localisation ---------------------------------------


def test_stage_scores_count_errors_retries_and_no_ops_in_the_window():
    ep = play([fetch("X"), fetch("Q"), fetch("Q"), fetch("X"), fetch("Y")])
    stage = next(s for s in ep.review.stages if s.milestone == "got-y")
    # window 1..5: step 2 error, step 3 error and retry, step 4 a no-op (X already held)
    # (step 4 is also a retry: the same call answered as before)
    assert stage.flags == [(2, "error"), (3, "error"), (3, "retry"), (4, "retry"), (4, "no_op")]
    assert stage.score == pytest.approx(1 - (1 + 1 + 0.5) / 5)  # each step counts its worst flag


def test_first_error_is_the_earliest_flag_in_a_low_stage():
    ep = play([fetch("X"), look("Q"), fetch("Q"), fetch("Q"), fetch("Y"), DELIVER, Say("delivered")])
    summary = ep.review.summary(ep.steps, 20)
    assert summary["first_error"]["step"] == 2
    assert "got-y" in summary["first_error"]["why"]


def test_first_error_prefers_an_earlier_minefield():
    ep = play([fetch("Z"), fetch("X"), fetch("Q"), fetch("Q"), fetch("Q"), fetch("Y")])
    assert ep.review.summary(ep.steps, 20)["first_error"] == {"step": 1, "why": "touched a minefield"}


def test_first_error_in_an_open_stage_without_flags_is_where_progress_stopped():
    ep = play([fetch("X"), fetch("Y"), look("X"), look("Z"), Say("done")])
    summary = ep.review.summary(ep.steps, 20)
    assert summary["first_error"] == {"step": 3, "why": "no milestone reached from here on"}
    assert summary["settled"] == 2 and summary["completion"] == 0.5


def test_a_clean_run_has_no_first_error():
    ep = play([fetch("X"), fetch("Y"), DELIVER, Say("delivered")])
    summary = ep.review.summary(ep.steps, 20)
    assert summary["first_error"] is None and summary["score"] == 1.0 and summary["completion"] == 1.0


def test_first_error_ignores_flags_in_stages_above_threshold():
    stages = [Stage("a", START, 1, 4, 0.75, [(2, "retry")]), Stage("b", "a", 5, 6, 0.0, [(6, "error")])]
    assert first_error(stages, 0.5, [])["step"] == 6
    assert first_error(stages, 0.8, [])["step"] == 2


# -- derivation, separation ----------------------------------------------------------


def test_a_sequential_graph_is_derived_from_the_solutions_operations():
    derived = derive_milestones(task(milestones=[], minefields=[]), ENV)
    assert [m.id for m in derived] == ["op-1", "op-2", "op-3"]
    assert [m.after for m in derived] == [[], ["op-1"], ["op-2"]]
    assert derived[2].constraints[0].expected == "deliver"
    ep = play([fetch("X"), fetch("Y"), DELIVER], milestones=[], minefields=[])
    assert list(settled(ep)) == ["op-1", "op-2", "op-3"]


def test_separation_counts_ties_against_pass_fail():
    pass_fail = {"a": {"t1": 0.0, "t2": 1.0}, "b": {"t1": 0.0, "t2": 1.0}}
    stages = {"a": {"t1": 0.2, "t2": 1.0}, "b": {"t1": 0.6, "t2": 0.9}}
    assert separation(pass_fail)["distinguished"] == 0.0
    assert separation(stages)["distinguished"] == 1.0
    assert separation(stages)["spread"] > separation(pass_fail)["spread"]


# -- the record -----------------------------------------------------------------------


def test_an_early_stopped_record_rebuilds_to_the_same_review(db_url):
    import asyncio

    from sttui.controllers.baselines import PlanAgent, ScriptedUser
    from sttui.core.loader import load_task
    from sttui.running.recording import rebuild, run_recorded
    from sttui.store.store import Store

    store = Store(db_url)
    loaded = load_task(ERRANDS)
    steps = [{"tool": "look", "args": {"item": i}} for i in "XZYZX"] + [{"tool": "fetch", "args": {"item": "Y"}}]
    agent = PlanAgent("baseline:wanderer", [type(loaded.task.solution[0]).model_validate(s) for s in steps])
    eid, result = asyncio.run(
        run_recorded(store, loaded, agent, ScriptedUser(), review=ReviewPlan(early_stop=True, stagnation=4))
    )
    assert result.end_reason.startswith("early stop") and result.steps == 4
    record = store.episode(eid)
    assert record.scores["review"]["stop"] == {**record.scores["review"]["stop"], "signal": "frontier_stagnation"}
    assert record.scores["review"]["stop"]["steps_saved"] == 20 - 4
    events = store.events(eid)
    assert [e.type for e in events].count("stop_signal") == 1
    rebuilt = rebuild(loaded, record, events)
    assert rebuilt.matches, rebuilt.mismatch
    assert rebuilt.episode.ended["by"] == "review"


# -- sttui check, run and report ------------------------------------------------------


def _variant(tmp_path, text: str):
    import shutil

    shutil.copy(ERRANDS.parent / "errands.py", tmp_path / "errands.py")
    (tmp_path / "errands.yaml").write_text(text)
    return tmp_path / "errands.yaml"


def test_check_refuses_a_graph_the_solution_does_not_fit_and_one_the_naive_plan_passes(tmp_path):
    from click.testing import CliRunner

    from sttui.cli import main

    text = ERRANDS.read_text()
    # the graph wants Y fetched before X, but the solution fetches X first: a predecessor gap
    wrong_order = text.replace(
        "  - id: got-x\n    name: Fetches X\n", "  - id: got-x\n    name: Fetches X\n    after: [got-y]\n"
    )
    out = CliRunner().invoke(main, ["check", str(_variant(tmp_path, wrong_order))]).output
    assert "solution step 2 satisfies milestone got-x before got-y" in out
    assert "solution never settles milestone(s): got-x, delivered, told" in out
    assert "(got-x after the last step fails: call.tool equals 'fetch' (hard)" in out
    # a graph the naive plan also settles cannot tell it apart
    (tmp_path / "n").mkdir()
    weak = (
        text.replace("expected: {to: home, items: [X, Y]}", "expected: {to: home}")
        .replace(
            "      - {selector: message.text, operator: contains, expected: delivered, hard: true}\n",
            "      - {selector: state.items.X.location, operator: equals, expected: home}\n",
        )
        .replace(
            "  - id: got-y\n    name: Fetches Y\n    constraints:\n"
            "      - {selector: call.tool, operator: equals, expected: fetch, hard: true}\n"
            "      - {selector: call.args.item, operator: equals, expected: Y, hard: true}\n",
            "  - id: got-y\n    name: Fetches Y\n    threshold: 0.5\n    constraints:\n"
            "      - {selector: call.tool, operator: equals, expected: fetch, hard: true}\n"
            "      - {selector: call.args.item, operator: equals, expected: Y}\n",
        )
    )
    out = CliRunner().invoke(main, ["check", str(_variant(tmp_path / "n", weak))]).output
    assert "naive_plan settles every milestone" in out


def test_run_early_stop_and_report_separation_from_the_command_line(tmp_path):
    import json

    from click.testing import CliRunner

    from sttui.cli import main

    db = f"sqlite:///{tmp_path / 'r.db'}"
    runner = CliRunner()

    def run(*args):
        result = runner.invoke(main, ["--db", db, "run", str(ERRANDS), "--json", *args], catch_exceptions=False)
        return json.loads(result.output)

    stopped = run("--agent", "baseline:random", "--early-stop", "--stagnation", "2", "--trials", "2")
    for e in stopped["episodes"]:
        assert e["review"]["stop"]["signal"] == "frontier_stagnation"
        assert e["end_reason"].startswith("early stop") and e["review"]["stop"]["steps_saved"] == 20 - e["steps"]
    assert stopped["summary"]["stt"]["review"]["early_stops"] == {"frontier_stagnation": 2}
    oracle = run()
    assert oracle["episodes"][0]["review"]["score"] == 1.0 and oracle["episodes"][0]["review"]["stop"] is None
    run("--agent", "baseline:naive")
    report = json.loads(runner.invoke(main, ["--db", db, "report", "--json"]).output)
    rows = {r["controller"]: r for r in report["controllers"]}
    assert rows["baseline:oracle"]["stage_score"] == 1.0
    assert rows["baseline:naive"]["stage_score"] > rows["baseline:random"]["stage_score"]
    sep = report["separation"]
    # naive and random both fail: pass/fail ties them, stage scores do not
    assert sep["stage_scores"]["distinguished"] > sep["pass_fail"]["distinguished"]


def test_a_predecessor_gap_is_signalled_once_per_milestone():
    ep = play([Say("delivered"), Say("delivered again"), fetch("X")])
    assert [g["step"] for g in signals(ep, "predecessor_gap")] == [1]


def test_the_first_failure_after_a_trigger_is_how_the_change_surfaced_not_an_error():
    # look(Y) fires the trigger; the next failed call shows the change; a second is an error
    ep = play([look("Y"), fetch("Q"), fetch("R"), fetch("X")])
    stage = next(s for s in ep.review.stages if s.milestone == "got-x")
    assert stage.flags == [(3, "error")]
    calm = play([fetch("Q"), fetch("X")])  # no trigger: the failure is an error
    assert next(s for s in calm.review.stages if s.milestone == "got-x").flags == [(1, "error")]


def test_dominators_and_reduction_match_brute_force_on_random_dags():
    import random

    def paths(preds, node):
        """Every path from the entry to node, as lists ending at node."""
        if not preds[node]:
            return [[START, node]]
        return [[*p, node] for q in preds[node] for p in paths(preds, q)]

    rng = random.Random(7)
    for _ in range(200):
        n = rng.randint(2, 8)
        names = [f"m{i}" for i in range(n)]
        edges = {m: sorted(rng.sample(names[:i], rng.randint(0, min(i, 3)))) for i, m in enumerate(names)}
        g = dag(edges)
        for m in names:
            all_paths = paths(g.preds, m)  # dominance on the reduced graph, as the paper takes it
            strict = set.intersection(*(set(p[:-1]) for p in all_paths))  # on every path, m excluded
            # the immediate dominator is the strict dominator nearest to m on any path
            nearest = max(strict, key=lambda d: all_paths[0].index(d))
            assert g.idom[m] == nearest, (edges, m)
            for p in edges[m]:
                implied = any(len(path) > 3 and p in path[:-2] for path in paths(edges, m))
                assert ((p, m) in g.redundant) == implied, (edges, p, m)


def test_path_tolerance_on_a_bundled_task_two_orders_of_the_last_two_milestones():
    from sttui.core.loader import load_task
    from sttui.running.runner import open_episode
    from tests.conftest import ROOT

    loaded = load_task(ROOT / "tasks" / "stt" / "clinic" / "cardiology-rota-s1-easy.yaml")
    book = {"patient_id": "P-ONEILL", "service": "cardiology-review", "clinician_id": "CL-OKAFOR"}
    first = [
        ToolCall("book_appointment", {**book, "site_id": "HARBOURSIDE", "start": "2024-09-12T14:00"}),
        ToolCall("book_appointment", {**book, "site_id": "WESTBROOK", "start": "2024-09-12T14:30"}),
    ]
    text = ToolCall("notify_patient", {"patient_id": "P-ONEILL", "message": "14:30 at Westbrook Health Centre"})
    tell = Say("She is booked at Westbrook at 14:30: Dr Okafor covers Westbrook today.")
    for order in ([text, tell], [tell, text]):
        ep = open_episode(loaded, None, {"agent": "a", "user": "u"})
        ep.start()
        for action in [*first, *order]:
            if ep.turn == "user":
                ep.apply(Reply("Thanks."))
            ep.apply(action)
        assert set(settled(ep)) == {"sees-swap", "booked-westbrook", "told-patient", "told-user"}, order
        assert not signals(ep)


def test_a_state_rule_is_looked_at_again_once_a_path_it_reads_changes():
    # 'delivered' reads state.deliveries: a look and a change elsewhere keep its answer,
    # the delivery changes it
    ep = play([fetch("X"), fetch("Y"), look("Z"), fetch("Z"), DELIVER])
    assert settled(ep)["delivered"] == 5


@pytest.mark.parametrize(
    ("constraints", "share", "lost"),
    [
        ([("call.tool", "equals", "a", 1, False), ("state.x", "equals", 1, 1, False)], 1.0, []),
        ([("call.tool", "equals", "a", 1, False), ("message.text", "contains", "b", 1, False)], 0.5, ["message.text"]),
        (
            [("call.args.to", "equals", "A", 3, False), ("call.args.to", "equals", "B", 1, False)],
            0.75,
            ["call.args.to"],
        ),
        ([("call.args.to", "one_of", ["A", "B"], 1, False), ("call.args.to", "equals", "B", 1, False)], 1.0, []),
        ([("call.tool", "equals", "a", 1, True), ("call.tool", "equals", "b", 1, True)], 0.0, None),
        ([("message.text", "contains", "x", 1, True), ("call.tool", "equals", "b", 3, False)], 0.25, ["call.tool"]),
    ],
)
def test_best_weight_share_of_one_action(constraints, share, lost):
    from sttui.core.review.model import best_share

    got, missing = best_share([c(s, o, e, weight=w, hard=h) for s, o, e, w, h in constraints])
    assert got == pytest.approx(share)
    if lost is not None:
        assert [m.selector for m in missing] == lost
