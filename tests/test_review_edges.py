"""Table tests at the edges of the milestone review (DynSTEER): flags and stage scores at
their boundaries, first-error localisation, and a review driven action by action with plain
states, so every signal, stage and summary figure is written out by hand. The mutation run
(README, "Mutation testing") measures how many one-line mutants these tests catch."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from sttui.core.review.graph import START, Graph
from sttui.core.review.model import Milestone, Minefield, ReviewSettings
from sttui.core.review.operators import Closed
from sttui.core.review.stages import Stage, first_error, flags_of, score_window
from sttui.core.review.tracker import Review

OK = {"success": True}
FAILED = {"success": False, "error": "no"}


def call(step: int, tool: str, result: dict | None = None, kind: str = "query", changed: bool = False, **args: Any):
    return Closed(step, "call", tool, args, OK if result is None else result, tool_kind=kind, changed=changed)


def say(step: int, text: str) -> Closed:
    return Closed(step, "message", text=text)


# -- flags, stage scores, first error -----------------------------------------------------


@pytest.mark.parametrize(
    ("window", "mines", "flags"),
    [
        ([call(1, "look")], set(), []),
        ([call(1, "look", FAILED)], set(), [(1, "error")]),
        ([call(1, "look", {"error": "refused"})], set(), [(1, "error")]),  # no success: not a success
        # the first failure after a trigger is how the change surfaced: no error
        ([Closed(1, "call", "look", {}, FAILED, tool_kind="query", surfaced=True)], set(), []),
        ([Closed(1, "call", "look", {}, None, tool_kind="query")], set(), []),  # not answered yet
        # a message does not stop the scan of the window
        ([say(1, "hello"), call(2, "look", FAILED)], set(), [(2, "error")]),
        ([say(1, "hello")], {1}, [(1, "minefield")]),
        # the same call answered the same: a retry, however far apart in the window
        ([call(1, "look", item="X"), call(2, "look", item="Y"), call(3, "look", item="X")], set(), [(3, "retry")]),
        # the same call with a different answer: re-reading after a change is no retry
        ([call(1, "look", {"success": True, "at": "shop"}), call(2, "look", {"success": True, "at": "van"})], set(), []),
        ([call(1, "look", item="X"), call(2, "look", item="Z")], set(), []),
        # an operation that succeeded and changed nothing is a no-op; a failed one is an error only
        ([call(1, "fetch", kind="operation")], set(), [(1, "no_op")]),
        ([call(1, "fetch", kind="operation", changed=True)], set(), []),
        ([call(1, "fetch", FAILED, kind="operation")], set(), [(1, "error")]),
        # every flag of a step, in order: minefield, error, retry, no-op
        ([call(1, "cancel", FAILED), call(2, "cancel", FAILED)], {2}, [(1, "error"), (2, "minefield"), (2, "error"),
                                                                          (2, "retry")]),
        ([call(1, "fetch", kind="operation"), call(2, "fetch", kind="operation")], set(), [(1, "no_op"), (2, "retry"),
                                                                                          (2, "no_op")]),
    ],
)  # fmt: skip
def test_flags_of_a_window(window, mines, flags):
    assert flags_of(window, mines) == flags


@pytest.mark.parametrize(
    ("size", "flags", "score"),
    [
        (0, [], 1.0),  # an empty window: nothing went wrong
        (4, [], 1.0),
        (4, [(1, "error")], 0.75),
        (4, [(1, "minefield")], 0.75),
        (4, [(1, "retry"), (2, "no_op")], 0.5 + 0.25),
        (4, [(1, "error"), (1, "retry"), (1, "minefield")], 0.75),  # a step costs its worst flag only
        (4, [(1, "retry"), (1, "no_op")], 0.875),
        (2, [(1, "error"), (2, "error")], 0.0),
        (3, [(1, "retry"), (2, "error"), (3, "no_op")], 1 - 2 / 3),
    ],
)
def test_stage_score_is_one_minus_the_cost_per_action(size, flags, score):
    window = [call(i + 1, "look") for i in range(size)]
    assert score_window(window, flags) == pytest.approx(score)


@pytest.mark.parametrize(
    ("stages", "threshold", "mines", "expected"),
    [
        ([], 0.5, [], None),
        ([], 0.5, [3, 1], {"step": 1, "why": "touched a minefield"}),
        # a stage exactly at the threshold is not a low stage
        ([Stage("m", START, 1, 2, 0.5, [(1, "error")])], 0.5, [], None),
        ([Stage("m", START, 1, 4, 0.25, [(2, "error"), (1, "retry")])], 0.5, [],
         {"step": 2, "why": "error in m (stage score 0.25)"}),
        ([Stage("m", START, 1, 5, 0.4, [(3, "no_op")])], 0.5, [], {"step": 3, "why": "no-op in m (stage score 0.40)"}),
        ([Stage(None, "m", 4, 6, 0.0, [(5, "retry")])], 0.5, [],
         {"step": 5, "why": "retry in the open stage (stage score 0.00)"}),
        ([Stage(None, "m", 4, 6, 0.0, [])], 0.5, [], {"step": 4, "why": "no milestone reached from here on"}),
        ([Stage("m", START, 1, 2, 0.0, [])], 0.5, [], None),  # a settled stage without flags points nowhere
        # the earliest candidate wins, whatever its kind
        ([Stage("m", START, 1, 4, 0.0, [(2, "error")])], 0.5, [3], {"step": 2, "why": "error in m (stage score 0.00)"}),
        ([Stage("m", START, 1, 4, 0.0, [(2, "error")])], 0.5, [1], {"step": 1, "why": "touched a minefield"}),
        ([Stage("a", START, 1, 2, 0.0, [(2, "error")]), Stage("b", "a", 3, 4, 1.0, [])], 0.0, [], None),
    ],
)  # fmt: skip
def test_first_error(stages, threshold, mines, expected):
    assert first_error(stages, threshold, mines) == expected


@pytest.mark.parametrize(
    ("stage", "expected"),
    [
        (
            Stage("m", START, 1, 3, 2 / 3, [(2, "retry")]),
            {"milestone": "m", "anchor": START, "steps": [1, 3], "score": 0.6667, "settled": True,
             "flags": [[2, "retry"]]},
        ),
        (
            Stage(None, "m", 4, 4, 0.0),
            {"milestone": None, "anchor": "m", "steps": [4, 4], "score": 0.0, "settled": False, "flags": []},
        ),
    ],
)  # fmt: skip
def test_stage_as_dict(stage, expected):
    assert stage.as_dict() == expected


# -- a review driven by hand ----------------------------------------------------------------


def make(milestones: list[dict], minefields: list[dict] | None = None, **options: Any) -> Review:
    graph = Graph.build([Milestone.model_validate(m) for m in milestones])
    mines = [Minefield.model_validate(m) for m in minefields or []]
    settings = ReviewSettings(**options.pop("settings", {}))
    return Review(graph, mines, settings, **options)


def tool(name: str) -> dict:
    return {"selector": "call.tool", "operator": "equals", "expected": name, "hard": True}


def ms(mid: str, *constraints: dict, after: list[str] | None = None, **kw: Any) -> dict:
    return {"id": mid, "name": mid.title(), "constraints": list(constraints), "after": after or []} | kw


CHAIN = [
    ms("a", tool("fetch")),
    ms("b", tool("pack"), after=["a"]),
    ms("c", {"selector": "message.text", "operator": "contains", "expected": "done", "hard": True}, after=["b"]),
]


def drive(review: Review, actions: list[Closed], state: dict | None = None) -> list[tuple[str, dict]]:
    state = state if state is not None else {}
    review.begin(state)
    out = []
    for a in actions:
        out += review.close(a, state)
    return out


def test_stage_windows_open_after_the_anchor_settles():
    r = make(CHAIN)
    # a settles on a failed fetch (its rule asks only for the call); b's window is steps 2..3
    events = drive(r, [call(1, "fetch", FAILED), call(2, "look"), call(3, "pack", kind="operation", changed=True)])
    assert [e for e, _ in events] == ["milestone_settled", "milestone_settled"]
    assert events[0][1] == {
        "milestone": "a",
        "name": "A",
        "step": 1,
        "constraint_share": 1.0,
        "anchor": START,
        "steps": [1, 1],
        "score": 0.0,
        "settled": True,
        "flags": [[1, "error"]],
    }
    assert events[1][1]["steps"] == [2, 3] and events[1][1]["score"] == 1.0 and events[1][1]["anchor"] == "a"
    assert r.frontier() == {"done": ["a", "b"], "ready": ["c"], "blocked": []}
    assert r.frontier(at=0) == {"done": [], "ready": ["a"], "blocked": ["b", "c"]}
    assert r.frontier(at=1) == {"done": ["a"], "ready": ["b"], "blocked": ["c"]}
    assert r.frontier(at=3) == r.frontier()


def test_summary_of_an_unfinished_review():
    r = make(CHAIN)
    drive(r, [call(1, "fetch", FAILED), call(2, "look"), call(3, "pack", kind="operation", changed=True)])
    assert r.open_stage() is None  # nothing happened after the last settlement yet
    r.close(call(4, "look", FAILED), {})
    r.close(say(5, "still working"), {})
    summary = r.summary(steps=5, max_steps=20)
    assert summary == {
        "milestones": 3,
        "settled": 2,
        "completion": 0.6667,
        "score": 0.3333,  # (0 + 1 + 0) / 3: c never reached
        "derived": False,
        "stages": [
            {"milestone": "a", "anchor": START, "steps": [1, 1], "score": 0.0, "settled": True,
             "flags": [[1, "error"]]},
            {"milestone": "b", "anchor": "a", "steps": [2, 3], "score": 1.0, "settled": True, "flags": []},
            {"milestone": None, "anchor": "b", "steps": [4, 5], "score": 0.0, "settled": False,
             "flags": [[4, "error"]]},
        ],
        "signals": [],
        "first_error": {"step": 1, "why": "error in a (stage score 0.00)"},
        "stop": None,
        "would_stop": None,
    }  # fmt: skip
    assert r.score() == pytest.approx(1 / 3)


def test_a_finished_review_has_no_open_stage_even_if_the_agent_goes_on():
    r = make(CHAIN, derived=True)
    drive(r, [call(1, "fetch"), call(2, "pack"), say(3, "done"), call(4, "look")])
    assert r.open_stage() is None and len(r.all_stages()) == 3
    summary = r.summary(steps=4, max_steps=10)
    assert summary["completion"] == 1.0 and summary["derived"] is True and summary["first_error"] is None


def test_an_open_stage_from_the_start_and_from_the_latest_settlement():
    r = make(CHAIN)
    drive(r, [call(1, "look"), call(2, "look")])
    assert r.open_stage() == Stage(None, START, 1, 2, 0.0, [(2, "retry")])
    assert r.first_error() == {"step": 2, "why": "retry in the open stage (stage score 0.00)"}
    parallel = make([ms("a", tool("fetch")), ms("b", tool("pack")), ms("c", tool("ship"), after=["a", "b"])])
    drive(parallel, [call(1, "pack"), call(2, "fetch"), call(3, "look")])
    # the tail starts after the latest settlement (a, at step 2), whatever the ids sort to
    assert parallel.open_stage() == Stage(None, "a", 3, 3, 0.0, [])


def test_no_open_stage_before_any_action():
    r = make(CHAIN)
    r.begin({})
    assert r.open_stage() is None and r.all_stages() == [] and r.first_error() is None


def test_a_review_without_milestones_scores_full():
    r = make([])
    drive(r, [call(1, "look")])
    assert r.score() == 1.0
    s = r.summary(steps=1, max_steps=5)
    assert (s["milestones"], s["settled"], s["completion"], s["score"], s["stages"]) == (0, 0, 1.0, 1.0, [])


def test_constraint_share_is_reported_to_four_places():
    soft = [{"selector": f"call.args.{k}", "operator": "equals", "expected": 1} for k in "xyz"]
    r = make([ms("a", tool("fetch"), *soft, threshold=0.6)])
    events = drive(r, [call(1, "fetch", x=1, y=2, z=1)])
    assert events[0][1]["constraint_share"] == 0.75  # weights: the hard tool 1, x 1, z 1 of 4
    r = make([ms("a", *soft, threshold=0.6)])
    events = drive(r, [call(1, "fetch", x=1, y=2, z=1)])
    assert events[0][1]["constraint_share"] == 0.6667


BLOCKED = [
    ms("a", tool("fetch")),
    ms("b", tool("deliver"), {"selector": "call.args.to", "operator": "equals", "expected": "home"}, after=["a"]),
]


def test_predecessor_gap_and_frontier_stagnation_signals():
    r = make(BLOCKED, settings={"stagnation": 2})
    r.begin({})
    assert r.close(call(1, "deliver", to="shop"), {}) == []  # b blocked, and its rule does not hold: no gap
    gap = {"signal": "predecessor_gap", "step": 2, "milestone": "b", "missing": ["a"], "stops": False}
    stagnation = {"signal": "frontier_stagnation", "step": 2, "since": 1, "actions": 2, "stops": True}
    assert r.close(call(2, "deliver", to="home"), {}) == [("stop_signal", gap), ("stop_signal", stagnation)]
    assert r.close(call(3, "deliver", to="home"), {}) == []  # a gap is signalled once; stagnation once per run
    assert r.close(call(4, "fetch"), {})[0][0] == "milestone_settled"
    assert r.idle == 0 and r.signals == [gap, stagnation]
    assert r.stopping() is None  # without early stop nothing ends the run
    summary = r.summary(steps=6, max_steps=20)
    assert summary["would_stop"] == stagnation | {"steps_saved": 4} and summary["stop"] is None


def test_under_early_stop_the_first_stopping_signal_ends_the_run():
    r = make(BLOCKED, settings={"stagnation": 3}, early_stop=True)
    drive(r, [call(1, "deliver", to="home"), call(2, "look"), call(3, "look"), call(4, "look")])
    assert [s["signal"] for s in r.signals] == ["predecessor_gap", "frontier_stagnation"]
    assert r.stopping() == r.signals[1]
    r.stop = r.stopping()
    assert r.summary(steps=3, max_steps=20)["stop"] == r.signals[1] | {"steps_saved": 17}
    assert r.summary(steps=3, max_steps=20)["would_stop"] is None


MINES = [
    {  # no id: named by its place
        "severity": "fatal",
        "reason": "cancels the order",
        "constraints": [tool("cancel"), {"selector": "call.args.order", "operator": "equals", "expected": "O-1"}],
    },
    {
        "severity": "warn",
        "reason": "holds Z",
        "constraints": [{"selector": "state.items.Z.held", "operator": "equals", "expected": True}],
    },
    {
        "id": "booked",
        "severity": "warn",
        "reason": "a booking went through",
        "constraints": [tool("book"), {"selector": "call.result.success", "operator": "equals", "expected": True}],
    },
    {
        "id": "cancelled",
        "severity": "fatal",
        "reason": "the order is cancelled",
        "constraints": [{"selector": "state.orders.O-1", "operator": "updated", "expected": {"status": "cancelled"}}],
    },
    {
        "id": "half",
        "severity": "warn",
        "reason": "both a and b",
        "constraints": [
            {"selector": "state.a", "operator": "equals", "expected": 1},
            {"selector": "state.b", "operator": "equals", "expected": 1},
        ],
    },
]


def world(z: bool = False, order: str = "open", a: int = 0, b: int = 0) -> dict:
    return {"items": {"Z": {"held": z}}, "orders": {"O-1": {"status": order}}, "a": a, "b": b}


def mine(step: int, mid: str, severity: str, reason: str, before: bool) -> dict:
    return {
        "signal": f"{severity}_minefield",
        "step": step,
        "minefield": mid,
        "reason": reason,
        "before_call": before,
        "stops": severity == "fatal",
    }


def test_minefields_decided_from_the_call_are_screened_before_it_runs():
    r = make(CHAIN, MINES)
    r.begin(world())
    assert r.screen(1, "cancel", {"order": "O-2"}, world()) == []  # the right tool, another order
    fatal = mine(1, "minefield-1", "fatal", "cancels the order", True)
    assert r.screen(1, "cancel", {"order": "O-1"}, world()) == [fatal]
    assert r.intercepts([fatal]) is None  # only under early stop
    early = make(CHAIN, MINES, early_stop=True)
    early.begin(world())
    assert early.intercepts(early.screen(1, "cancel", {"order": "O-1"}, world())) == fatal
    assert early.intercepts([mine(1, "x", "warn", "r", True)]) is None


def test_minefields_on_the_result_and_the_state_are_judged_after_the_action():
    r = make(CHAIN, MINES, settings={"stagnation": 50})
    r.begin(world())
    assert r.close(call(1, "book", FAILED), world()) == []
    assert r.close(call(2, "book"), world(), changed=[]) == [
        ("stop_signal", mine(2, "booked", "warn", "a booking went through", False))
    ]
    z = mine(3, "minefield-2", "warn", "holds Z", False)
    assert r.close(call(3, "grab"), world(z=True), changed=["items.Z.held"]) == [("stop_signal", z)]
    assert r.close(call(4, "look"), world(z=True), changed=[]) == []  # still holding: signalled once
    # a state minefield with nothing changed is not judged again, but the ones after it are
    assert r.close(call(5, "book"), world(z=True), changed=[]) == [
        ("stop_signal", mine(5, "booked", "warn", "a booking went through", False))
    ]
    assert r.close(call(6, "drop"), world(), changed=["items.Z.held"]) == []  # let go
    again = mine(7, "minefield-2", "warn", "holds Z", False)
    assert r.close(call(7, "grab"), world(z=True), changed=["items.Z"]) == [("stop_signal", again)]
    assert r.close(call(8, "drop"), world(), changed=["items"]) == []
    assert r.close(call(9, "grab"), world(z=True), changed=["items.Z.held"]) == [
        ("stop_signal", mine(9, "minefield-2", "warn", "holds Z", False))
    ]
    # a change below the path a rule reads (and above it, at step 7) makes it judge again
    cancelled = mine(10, "cancelled", "fatal", "the order is cancelled", False)
    assert r.close(
        call(10, "cancel", order="O-2"), world(z=True, order="cancelled"), changed=["orders.O-1.status"]
    ) == [("stop_signal", cancelled)]
    assert r.close(call(11, "look"), world(z=True, order="cancelled", a=1)) == []  # half of "half": no hit
    assert sorted(r.mine_steps) == [2, 3, 5, 7, 9, 10]
    assert r.first_error() == {"step": 1, "why": "error in the open stage (stage score 0.00)"}


UNCHANGED = [
    ms("a", tool("set")),
    ms("b", tool("check"), {"selector": "state.x", "operator": "unchanged_since", "expected": "a", "hard": True},
       after=["a"]),
    ms("c", tool("finish"),
       {"selector": "state.y", "operator": "updated", "hard": True},
       {"selector": "state.z", "operator": "equals", "expected": 1, "hard": True},
       {"selector": "state.w", "operator": "unchanged_since", "hard": True},
       after=["b"]),
]  # fmt: skip


def test_unchanged_since_compares_with_the_state_at_the_named_milestone():
    r = make(UNCHANGED)
    start = {"x": 0, "y": 0, "z": 0, "w": 0}
    r.begin(start)
    assert r.close(call(1, "set"), {**start, "x": 1})[0][1]["milestone"] == "a"
    # x changed since the start, but not since a settled
    assert r.close(call(2, "check"), {**start, "x": 1})[0][1]["milestone"] == "b"
    r2 = make(UNCHANGED)
    r2.begin(start)
    r2.close(call(1, "set"), {**start, "x": 1})
    assert r2.close(call(2, "check"), {**start, "x": 2}) == []  # x moved after a: b does not settle


def test_a_gap_is_judged_against_the_episodes_start():
    start = {"x": 0, "y": 0, "z": 0, "w": 0}
    r = make(UNCHANGED)
    r.begin(start)
    # c is blocked; its rule holds against the start (y updated, z 1, w as at the start)
    events = r.close(call(1, "finish"), {**start, "y": 5, "z": 1})
    assert events == [("stop_signal", {"signal": "predecessor_gap", "step": 1, "milestone": "c",
                                       "missing": ["b"], "stops": False})]  # fmt: skip
    for state in ({**start, "z": 1}, {**start, "y": 5}, {**start, "y": 5, "z": 1, "w": 1}):
        fresh = make(UNCHANGED)
        fresh.begin(start)
        assert fresh.close(call(1, "finish"), state) == []


def test_explain_shows_each_constraint_against_the_anchor_state():
    start = {"x": 0, "y": 0, "z": 0, "w": 0}
    r = make(UNCHANGED)
    r.begin(start)
    now = {**start, "x": 1, "y": 2, "z": 1}
    # c's anchor (b) has not settled: its state-change constraints compare with the start
    assert r.explain("c", now, call(1, "finish")) == [
        ("call.tool equals 'finish' (hard)", True),
        ("state.y updated (hard)", True),
        ("state.z equals 1 (hard)", True),
        ("state.w unchanged_since (hard)", True),
    ]
    assert [held for _, held in r.explain("c", {**now, "z": 0}, call(1, "look"))] == [False, True, False, True]
    assert [held for _, held in r.explain("c", now)] == [False, True, True, True]  # no action: no call to match
    r.close(call(1, "set"), now)
    assert r.explain("b", {**now, "x": 3}, call(2, "check")) == [
        ("call.tool equals 'check' (hard)", True),
        ("state.x unchanged_since 'a' (hard)", False),
    ]


def test_review_defaults():
    r = Review(Graph.build([Milestone.model_validate(m) for m in CHAIN]), [])
    assert r.early_stop is False and r.derived is False and r.settings == ReviewSettings()
    drive(r, [call(1, "look")] * 3)
    assert r.stopping() is None and r.summary(3, 10)["derived"] is False


def test_the_review_does_not_change_the_state_it_reads():
    r = make(UNCHANGED, MINES)
    state = {"x": 0, "y": 0, "z": 0, "w": 0, **world()}
    before = copy.deepcopy(state)
    drive(r, [call(1, "set"), call(2, "check"), call(3, "finish")], state)
    assert state == before


def test_unchanged_since_can_name_a_milestone_before_the_anchor():
    steady = {"selector": "state.x", "operator": "unchanged_since", "expected": "a", "hard": True}
    chain = [ms("a", tool("set")), ms("b", tool("pack"), after=["a"]), ms("c", tool("finish"), steady, after=["b"])]
    r = make(chain)
    r.begin({"x": 0})
    r.close(call(1, "set"), {"x": 1})
    r.close(call(2, "pack"), {"x": 1})
    assert [p["milestone"] for _, p in r.close(call(3, "finish"), {"x": 1})] == ["c"]  # as when a settled


def test_a_minefield_can_compare_with_the_start():
    untouched = {
        "id": "untouched",
        "severity": "warn",
        "reason": "finishes without touching w",
        "constraints": [tool("finish"), {"selector": "state.w", "operator": "unchanged_since", "hard": True}],
    }
    r = make(CHAIN, [untouched])
    r.begin({"w": 0})
    assert r.close(call(1, "finish"), {"w": 0}) == [
        ("stop_signal", mine(1, "untouched", "warn", "finishes without touching w", False))
    ]
    assert r.close(call(2, "finish"), {"w": 1}) == []


def test_explain_compares_with_the_anchor_once_it_has_settled():
    start = {"x": 0, "y": 0, "z": 0, "w": 0}
    r = make(UNCHANGED)
    r.begin(start)
    r.close(call(1, "set"), {**start, "y": 2})
    r.close(call(2, "check"), {**start, "y": 2})  # b settles with y already 2
    # y changed since the start but not since b, c's anchor: not updated within c's window
    assert ("state.y updated (hard)", False) in r.explain("c", {**start, "y": 2, "z": 1}, call(3, "finish"))
    assert ("state.y updated (hard)", True) in r.explain("c", {**start, "y": 3, "z": 1}, call(3, "finish"))


@pytest.mark.parametrize("early_stop", [True, False])
def test_a_fatal_minefield_is_a_stopping_signal_and_a_warning_is_not(early_stop):
    r = make(CHAIN, MINES, early_stop=early_stop, settings={"stagnation": 50})
    r.begin(world())
    r.close(call(1, "grab"), world(z=True))  # the warning about Z
    assert r.stopping() is None and r.summary(1, 20)["would_stop"] is None
    r.close(call(2, "cancel", order="O-2"), world(z=True, order="cancelled"))
    fatal = mine(2, "cancelled", "fatal", "the order is cancelled", False)
    assert r.stopping() == (fatal if early_stop else None)
    assert r.summary(5, 20)["would_stop"] == fatal | {"steps_saved": 3}


@pytest.mark.parametrize(
    ("text", "want", "found"),
    [
        ("dne, insulin went on trk 9", "TRK-9", True),  # an id as people write ids (core.facts)
        ("trk9 left at 6", "TRK-9", True),
        ("moved to TRK-09", "TRK-9", True),
        ("rebooked on kl 1189", "KL1189", True),
        ("on trk 90", "TRK-9", False),  # whole runs only
        ("on TRK-90", "TRK-9", True),  # (the text as written contains it: as before)
        ("the reefer's refrigeration failed", "refrigerat", True),  # not an id: text in text
        ("the reefer failed", "refrigerat", False),
        ("at 0930", "09:30", False),  # a time is not an id (and not read as one)
    ],
)
def test_contains_finds_an_id_in_text_as_people_write_it(text, want, found):
    from sttui.core.review.operators import contains

    assert contains(text, want) is found


def test_a_stages_flags_are_one_line_of_runs_however_long_the_episode():
    """A 10,000-step episode's blind retries had printed one line of 128,000 characters."""
    from sttui.core.review.stages import flags_text

    assert flags_text([]) == ""
    assert flags_text([(3, "error"), (5, "retry"), (6, "retry"), (7, "retry"), (9, "retry")]) == (
        "error @3, retry @5-7, retry @9"
    )
    many = [(s, "retry") for s in range(4, 10_000) if s % 1000]
    text = flags_text(many, lambda f: f"blind {f}", most=3)
    assert text == "blind retry @4-999, blind retry @1001-1999, blind retry @2001-2999, … and 7 more"
