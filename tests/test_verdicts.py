"""People check the judge: verdict items (the judge's pass or fail on a recorded episode,
rated right / wrong / can't tell by up to three annotators), and the judge's agreement with
their majority as accuracy and Cohen's kappa with 95 % intervals."""

from __future__ import annotations

import asyncio
import json
import random

import pytest
from click.testing import CliRunner
from textual.widgets import Static

from sttui.annotate import judge_agreement as ja
from sttui.annotate.dimensions import DimensionsError, load_dimensions
from sttui.annotate.queue import Queue, verdict_items
from sttui.cli import main
from sttui.controllers.baselines import PlanAgent, ScriptedUser
from sttui.core.loader import load_task
from sttui.running.recording import run_recorded
from sttui.store.store import Store
from sttui.tui.app import SttuiApp
from sttui.tui.launch import Launch
from tests.conftest import ROOT
from tests.tui_helpers import wait_for

IMPOSSIBLE = ROOT / "tasks" / "stt" / "logistics" / "mull-blood-ferry-s3-impossible.yaml"
STT = ROOT / "tasks" / "stt" / "logistics" / "insulin-reefer-fault-st2-easy.yaml"
RIGHT, WRONG, CANT = 1, 2, 3


# -- kappa and accuracy against independent computations --------------------------------------
def pairs_of(a: int, b: int, c: int, d: int) -> list[tuple[bool, bool]]:
    """A 2 x 2 table as (judge passed, people passed) pairs."""
    return [(True, True)] * a + [(True, False)] * b + [(False, True)] * c + [(False, False)] * d


def sklearn_kappa(y1: list[bool], y2: list[bool]) -> float:
    """sklearn.metrics.cohen_kappa_score, unweighted, written out: 1 - sum(w * C) / sum(w * E)
    with C the confusion matrix, E the outer product of its marginals over its total, w 1 - I."""
    labels = [False, True]
    confusion = [[sum(1 for p, q in zip(y1, y2, strict=True) if p == i and q == j) for j in labels] for i in labels]
    total = sum(map(sum, confusion))
    rows = [sum(r) for r in confusion]
    cols = [sum(confusion[i][j] for i in range(2)) for j in range(2)]
    expected = [[rows[i] * cols[j] / total for j in range(2)] for i in range(2)]
    weight = [[0 if i == j else 1 for j in range(2)] for i in range(2)]
    observed = sum(weight[i][j] * confusion[i][j] for i in range(2) for j in range(2))
    chance = sum(weight[i][j] * expected[i][j] for i in range(2) for j in range(2))
    return 1 - observed / chance


def test_kappa_and_accuracy_of_a_hand_worked_table():
    # judge pass & people pass 20, judge pass & people fail 5, judge fail & people pass 10, both fail 15:
    # p_o = 35/50 = 0.7; judge passes 25/50, people 30/50: p_e = .5 * .6 + .5 * .4 = 0.5; kappa = .2 / .5
    pairs = pairs_of(20, 5, 10, 15)
    assert ja.accuracy(pairs) == pytest.approx(0.7)
    assert ja.kappa(pairs) == pytest.approx(0.4)
    assert ja.table(pairs) == {
        "judge_pass_people_pass": 20,
        "judge_pass_people_fail": 5,
        "judge_fail_people_pass": 10,
        "judge_fail_people_fail": 15,
    }


def test_kappa_matches_sklearns_formula_on_random_tables():
    rng = random.Random(3)
    for _ in range(200):
        pairs = [(rng.random() < 0.6, rng.random() < 0.4) for _ in range(rng.randint(2, 40))]
        judge, people = [j for j, _ in pairs], [h for _, h in pairs]
        if len(set(judge)) == 1 and set(judge) == set(people):
            continue  # undefined (0/0) for sklearn as for us: below
        assert ja.kappa(pairs) == pytest.approx(sklearn_kappa(judge, people), abs=1e-12)
        assert ja.accuracy(pairs) == pytest.approx(sum(j == h for j, h in pairs) / len(pairs))


def test_perfect_chance_and_constant_raters():
    perfect = pairs_of(6, 0, 0, 4)
    assert ja.kappa(perfect) == 1.0 and ja.accuracy(perfect) == 1.0 and ja.kappa_note(perfect) is None
    chance = pairs_of(5, 5, 5, 5)  # the judge's verdict tells nothing about the people's
    assert ja.kappa(chance) == 0.0 and ja.accuracy(chance) == 0.5
    opposite = pairs_of(0, 3, 3, 0)
    assert ja.kappa(opposite) == -1.0 and ja.accuracy(opposite) == 0.0
    constant_judge = pairs_of(7, 3, 0, 0)  # the judge passes everything; people fail 3 of 10
    assert ja.kappa(constant_judge) == 0.0 and ja.accuracy(constant_judge) == pytest.approx(0.7)
    assert ja.kappa(constant_judge) == pytest.approx(sklearn_kappa([True] * 10, [True] * 7 + [False] * 3))
    assert "the judge gave every item pass: kappa is 0" in ja.kappa_note(constant_judge)
    constant_people = pairs_of(2, 0, 3, 0)
    assert ja.kappa(constant_people) == 0.0 and "the people gave every item pass" in ja.kappa_note(constant_people)
    one_class = pairs_of(0, 0, 0, 5)  # both always fail: p_e = 1, kappa is 0/0
    assert ja.kappa(one_class) is None and ja.accuracy(one_class) == 1.0
    assert "one class only, kappa is undefined" in ja.kappa_note(one_class)
    assert ja.kappa([]) is None and ja.accuracy([]) is None


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        ([RIGHT, RIGHT, WRONG], (RIGHT, None)),
        ([WRONG, WRONG], (WRONG, None)),
        ([RIGHT, WRONG], (None, "no_majority")),  # a tie
        ([RIGHT, WRONG, CANT], (None, "no_majority")),
        ([RIGHT, CANT], (None, "no_majority")),
        ([CANT, CANT, RIGHT], (None, "majority_cant_tell")),
        ([RIGHT, RIGHT, CANT], (RIGHT, None)),
        ([RIGHT], (None, "fewer_than_two_ratings")),
    ],
)
def test_the_peoples_majority(values, expected):
    assert ja.majority(values) == expected


def test_intervals_are_the_house_resamples_of_each_statistic():
    """The vectorised intervals equal accuracy and kappa computed one resample at a time over
    the same seeded resamples (core.stats._indices), undefined kappas left out."""
    from sttui.core.stats import LEVEL, _indices, _quantile

    rng = random.Random(1)
    for n in (2, 5, 30):
        pairs = [(rng.random() < 0.7, rng.random() < 0.6) for _ in range(n)]
        accs, kappas = [], []
        for row in _indices(n).tolist():
            sample = [pairs[i] for i in row]
            accs.append(ja.accuracy(sample))
            k = ja.kappa(sample)
            if k is not None:
                kappas.append(k)
        tail = (1 - LEVEL) / 2
        acc_ci, kappa_ci = ja.intervals(pairs)
        accs.sort()
        kappas.sort()
        assert acc_ci == [round(_quantile(accs, tail), 6), round(_quantile(accs, 1 - tail), 6)]
        if len(kappas) >= len(accs) / 2:
            assert kappa_ci == [round(_quantile(kappas, tail), 6), round(_quantile(kappas, 1 - tail), 6)]
        else:
            assert kappa_ci is None
    assert ja.intervals(pairs_of(1, 0, 0, 0)) == (None, None)  # one item: nothing to resample
    assert ja.intervals(pairs_of(3, 0, 0, 0))[1] is None  # kappa undefined on every resample


def test_judge_agreement_leaves_out_and_counts_items_without_a_majority():
    def rows(item, *values):
        return [
            {"item_kind": "verdict", "item_id": item, "dimension": "verdict_correct", "annotator": f"a{i}", "value": v}
            for i, v in enumerate(values)
        ]

    ratings = [
        *rows("e1", RIGHT, RIGHT, WRONG),  # rule passed, people agree: (T, T)
        *rows("e2", WRONG, WRONG, RIGHT),  # rule passed, people say fail: (T, F)
        *rows("e3", RIGHT, RIGHT, RIGHT),  # rule failed, people agree: (F, F)
        *rows("e4", RIGHT, WRONG),  # tie
        *rows("e5", CANT, CANT, WRONG),  # majority can't tell
        *rows("e6", RIGHT),  # one rating
        *rows("e7", WRONG, WRONG, WRONG),  # a model judge passed, people say fail
        *rows("gone", RIGHT, RIGHT),  # no recorded verdict
    ]
    ratings.append({**ratings[0], "dimension": "overall_quality", "value": 5})  # another dimension: ignored
    ratings.append({**ratings[0], "annotator": "z", "value": 4})  # none of the choices: ignored, counted
    verdicts = {e: (p, "rule") for e, p in (("e1", True), ("e2", True), ("e3", False), ("e4", True))}
    verdicts |= {"e5": (False, "rule"), "e6": (True, "rule"), "e7": (True, "model:m")}
    found = ja.judge_agreement(ratings, verdicts)
    assert found["items"] == 8 and found["without_verdict"] == 1 and found["ignored_ratings"] == 1
    model, rule = found["judges"]
    assert rule["judge"] == "rule" and rule["items"] == 6 and rule["compared"] == 3
    assert rule["left_out"] == {"fewer_than_two_ratings": 1, "no_majority": 1, "majority_cant_tell": 1}
    assert rule["accuracy"] == pytest.approx(2 / 3)
    # table a=1 (e1), b=1 (e2), c=0, d=1 (e3): p_o 2/3, judge passes 2/3, people 1/3: p_e = 2/9 + 2/9 = 4/9
    assert rule["kappa"] == pytest.approx((2 / 3 - 4 / 9) / (1 - 4 / 9))
    assert model["judge"] == "model:m" and model["compared"] == 1 and model["accuracy"] == 0.0
    assert model["kappa"] == 0.0 and model["accuracy_ci"] is None  # one item: no interval


# -- the dimension ---------------------------------------------------------------------------
def test_the_verdict_dimension_is_categorical_with_three_choices(tmp_path):
    dims = load_dimensions(ROOT / "annotations" / "dimensions.yaml")
    (d,) = dims.of("verdicts")
    assert d.id == "verdict_correct" and d.categorical and d.values == (1, 2, 3)
    assert d.anchors[1].startswith("Right") and d.anchors[2].startswith("Wrong") and "Can't tell" in d.anchors[3]
    bad = tmp_path / "d.yaml"
    bad.write_text("verdicts:\n  - {id: verdict_correct, name: V, anchors: {1: a, 2: b}, categorical: true}\n")
    with pytest.raises(DimensionsError, match="three choices: 1 right, 2 wrong, 3 can't tell"):
        load_dimensions(bad)
    bad.write_text("verdicts:\n  - {id: other, name: V, anchors: {1: a, 3: b}, categorical: true}\n")
    with pytest.raises(DimensionsError, match=r"verdicts\[0\]\.anchors: a categorical dimension numbers"):
        load_dimensions(bad)


# -- the record: verdict items on SQLite and PostgreSQL -----------------------------------------
def record(store: Store, path=IMPOSSIBLE, plan: str = "solution", agent: str = "baseline:oracle") -> str:
    loaded = load_task(path)
    steps = getattr(loaded.task, plan)
    eid, _ = asyncio.run(run_recorded(store, loaded, PlanAgent(agent, steps), ScriptedUser()))
    return eid


def test_verdict_items_in_the_record_with_the_cap_and_the_choices(db_url):
    store = Store(db_url)
    passed = record(store)  # the oracle on an impossible task: the rule judge passes it
    failed = record(store, plan="naive_plan", agent="baseline:naive")
    checked = record(store, STT)
    assert store.verdicts_of() == {passed: (True, "rule"), failed: (False, "rule"), checked: (True, "checklist")}
    assert store.verdicts_of([failed, "nope"]) == {failed: (False, "rule")}
    judged = store.judged_episodes()
    assert [eid for eid, _ in judged] == [passed, failed, checked]
    dims = load_dimensions(ROOT / "annotations" / "dimensions.yaml")
    items = verdict_items(judged)
    assert [i.kind for i in items] == ["verdict"] * 3 and items[0].title == f"verdict on {IMPOSSIBLE_ID}"
    for who in ("ana", "ben", "chloe", "dev"):
        queue = Queue(store, who, items, dims, "verdicts")
        if who == "dev":  # three annotators hold every item: nothing is left for a fourth
            assert queue.next_items() == [] and not queue.claim(items[0])
            continue
        for item in queue.next_items():
            assert queue.claim(item)
            with pytest.raises(ValueError, match="Verdict correct takes 1, 2, 3; got 4"):
                queue.rate(item, "verdict_correct", 4)
            queue.rate(item, "verdict_correct", WRONG if (who, item.id) == ("ana", failed) else RIGHT)
        assert queue.progress() == (3, 3)
    rows = store.ratings("verdict")
    assert len(rows) == 9 and {r["value"] for r in rows} == {RIGHT, WRONG}
    found = ja.judge_agreement(store.ratings(), store.verdicts_of())
    assert [(j["judge"], j["compared"], j["accuracy"]) for j in found["judges"]] == [
        ("checklist", 1, 1.0),
        ("rule", 2, 1.0),
    ]


IMPOSSIBLE_ID = "logistics-mull-blood-ferry-s3-impossible"


def test_a_verdict_item_shows_the_final_messages_and_the_verdict_blind(tmp_path):
    from sttui.annotate.verdicts import verdict_body

    store = Store(f"sqlite:///{tmp_path / 'v.db'}")
    loaded = load_task(STT)
    from sttui.core.task import Step

    plan = [*loaded.task.naive_plan, Step(say="Signed, human:zoe.")]  # a message naming its author
    eid, _ = asyncio.run(run_recorded(store, loaded, PlanAgent("human:zoe", plan), ScriptedUser(), seed=0))
    body = verdict_body(store.episode(eid), store.events(eid))
    assert body["passed"] is False and body["judged_by"] == "checklist"
    assert [m["from"] for m in body["messages"]][:3] == ["user", "agent", "user"]
    assert body["messages"][1]["text"] == "The insulin is on its way on TRK-7."
    assert "Signed, agent." in [m["text"] for m in body["messages"]]
    assert [(i["id"], i["passed"]) for i in body["items"]] == [("delivered", False), ("cold", True), ("report", False)]
    assert "0 of 500 insulin delivered" in body["items"][0]["detail"]
    assert "zoe" not in json.dumps(body)  # who played is blind


def test_a_verdict_item_shows_the_calls_among_and_after_the_final_messages(tmp_path):
    """A claim made before the call that makes it true reads as false without the calls: the
    item shows them in order with their results, refused and failed ones marked, and says how
    many earlier calls it leaves out (only the latest FINAL_CALLS)."""
    from sttui.annotate.verdicts import FINAL_CALLS, verdict_body
    from sttui.core.task import Step
    from sttui.tui.annotate import verdict_text

    store = Store(f"sqlite:///{tmp_path / 'v.db'}")
    loaded = load_task(STT)
    look = Step(tool="list_vehicles", args={"location": "HUB-NORTH"})
    plan = [
        Step(say="Booked: the insulin goes out on TRK-9."),  # claimed before any call
        *[look] * FINAL_CALLS,  # enough calls that the earliest are left out
        Step(tool="teleport", args={"to": "CLINIC-DOWNTOWN"}),  # no such tool: refused
        Step(tool="dispatch", args={"shipment_id": "SHP-99"}),  # no such shipment: failed
        *loaded.task.solution,
    ]
    eid, _ = asyncio.run(run_recorded(store, loaded, PlanAgent("human:zoe", plan), ScriptedUser(), seed=0))
    events = store.events(eid)
    body = verdict_body(store.episode(eid), events)
    turns = body["turns"]
    calls = [t for t in turns if "call" in t]
    assert len(calls) == FINAL_CALLS  # the latest, in order
    made = [e for e in events if e.type == "tool_call"]
    assert [t["seq"] for t in calls] == [e.seq for e in made[-FINAL_CALLS:]]
    gaps = [t["gap"] for t in turns if "gap" in t]
    assert sum(gaps) == len(made) - FINAL_CALLS > 0
    seqs = [t["seq"] for t in turns if "seq" in t]
    assert seqs == sorted(seqs)  # messages and calls in the order they happened
    claim = next(i for i, t in enumerate(turns) if t.get("text") == "Booked: the insulin goes out on TRK-9.")
    dispatched = next(i for i, t in enumerate(turns) if t.get("call") == "dispatch(shipment_id=SHP-1)")
    assert claim < dispatched and turns[dispatched]["ok"] is True
    assert "status" in turns[dispatched]["result"]
    refused = next(t for t in turns if t.get("call", "").startswith("teleport("))
    assert refused["ok"] is False and refused["result"].startswith("refused: ")
    failed = next(t for t in turns if t.get("call") == "dispatch(shipment_id=SHP-99)")
    assert failed["ok"] is False and failed["result"].startswith("failed: ")
    text = verdict_text(body)
    assert "earlier call(s) not shown" in text
    assert f"#{turns[dispatched]['seq']} call dispatch(shipment_id=SHP-1) ✓" in text
    assert "zoe" not in json.dumps(body)  # still blind


def test_a_call_whose_result_never_came_says_so():
    """A record that stopped between a call and its result (a kill): the call is shown, marked
    as having no result, and the message after it still follows."""
    from sttui.annotate.verdicts import _turns
    from sttui.core.events import Event

    events = [
        Event(1, "message", "agent", {"from": "agent", "text": "On it."}, ""),
        Event(2, "tool_call", "agent", {"tool": "dispatch", "args": {"shipment_id": "SHP-1"}}, ""),
        Event(3, "message", "agent", {"from": "agent", "text": "Done."}, ""),
    ]
    turns = _turns(events, 1)
    assert [t.get("text") or t.get("call") for t in turns] == ["On it.", "dispatch(shipment_id=SHP-1)", "Done."]
    assert turns[1]["ok"] is False and turns[1]["result"] == "no result recorded"


# -- agreement from a record with three annotators -----------------------------------------------
def test_agreement_reports_each_judge_against_three_annotators(tmp_path, monkeypatch):
    from sttui.controllers.model import ModelConfig, ModelJudge
    from tests.helpers.stub_openai import StubServer, completion, say

    monkeypatch.setenv("OPENAI_API_KEY", "sk-stub-0123456789")
    db = f"sqlite:///{tmp_path / 'g.db'}"
    store = Store(db)
    rule = [record(store) for _ in range(2)] + [record(store, plan="naive_plan", agent="baseline:naive")]
    verdict = {
        "recognised_infeasibility": {"passed": True, "evidence": "all sailings cancelled"},
        "informed_user": {"passed": True, "evidence": "told the user"},
    }
    loaded = load_task(IMPOSSIBLE)
    model = []
    with StubServer(lambda request: (200, completion(say("Verdict:\n" + json.dumps(verdict))), 0)) as stub:
        config = ModelConfig(model="openai/stub-model", api_base=stub.base, backoff=0.01, timeout=5)
        for plan in ("solution", "naive_plan"):  # the model judge passes both
            eid, result = asyncio.run(
                run_recorded(
                    store,
                    loaded,
                    PlanAgent("baseline:x", getattr(loaded.task, plan)),
                    ScriptedUser(),
                    judge=ModelJudge("model:stub", config),
                )
            )
            assert result.outcome.judged_by == "model:stub"
            model.append(eid)
    # rule: passed, passed, failed; people: right (3-0), wrong (2-1), right (2-1, one can't tell)
    # model: passed, passed; people: right (2-1), wrong (3-0)
    ratings = {
        rule[0]: (RIGHT, RIGHT, RIGHT),
        rule[1]: (WRONG, WRONG, RIGHT),
        rule[2]: (RIGHT, CANT, RIGHT),
        model[0]: (RIGHT, RIGHT, WRONG),
        model[1]: (WRONG, WRONG, WRONG),
    }
    for eid, values in ratings.items():
        for who, v in zip(("ana", "ben", "chloe"), values, strict=True):
            store.rate(who, "verdict", eid, "verdict_correct", v)
    store.rate("ana", "task", "t1", "checklist_correctness", 4)
    store.rate("ben", "task", "t1", "checklist_correctness", 5)
    runner = CliRunner()
    data = json.loads(runner.invoke(main, ["--db", db, "agreement", "--json"]).output)
    assert "verdict_correct" not in data["dimensions"]  # unordered choices: not in the ordinal table
    assert list(data["dimensions"]) == ["checklist_correctness"]
    judges = {j["judge"]: j for j in data["judge"]["judges"]}
    # rule: table a=1 (rule[0]), b=1 (rule[1]: people fail it), c=0, d=1 (rule[2])
    r = judges["rule"]
    assert (r["items"], r["compared"], r["accuracy"]) == (3, 3, pytest.approx(2 / 3))
    assert r["kappa"] == pytest.approx(0.4)  # p_o 2/3, p_e 4/9: (2/3 - 4/9) / (5/9)
    assert r["accuracy_ci"][0] <= 2 / 3 <= r["accuracy_ci"][1]
    # model: passed both; people pass one, fail the other: accuracy 1/2, the judge is constant: kappa 0
    m = judges["model:stub"]
    assert (m["compared"], m["accuracy"], m["kappa"]) == (2, 0.5, 0.0)
    assert "the judge gave every item pass: kappa is 0" in m["kappa_note"]
    assert data["judge"]["items"] == 5 and data["judge"]["ratings"] == 15
    text = runner.invoke(main, ["--db", db, "agreement"]).output
    assert "The judge against the people's majority (5 verdict item(s), 15 rating(s)" in text
    assert "model:stub" in text and "66.7% [" in text and "0.40 [" in text
    assert "note (model:stub): the judge gave every item pass" in text


def test_import_refuses_a_verdict_score_outside_its_choices(tmp_path):
    db = f"sqlite:///{tmp_path / 'i.db'}"
    store = Store(db)
    eid = record(store)
    path = tmp_path / "in.csv"
    path.write_text(
        "item_kind,item_id,dimension,annotator,value,comment,created_at\n"
        f"verdict,{eid},verdict_correct,ana,4,,\nverdict,{eid},verdict_correct,ben,2,,\nverdict,nope,verdict_correct,ben,2,,\n"
    )
    result = CliRunner().invoke(main, ["--db", db, "import-ratings", str(path)])
    assert result.exit_code == 1
    assert "refused row 1: score 4 is not one of verdict_correct's choices 1, 2, 3" in result.output
    assert "refused row 3: no verdict item 'nope'" in result.output
    path.write_text(
        f"item_kind,item_id,dimension,annotator,value,comment,created_at\nverdict,{eid},verdict_correct,ben,2,,\n"
    )
    assert CliRunner().invoke(main, ["--db", db, "import-ratings", str(path)]).exit_code == 0
    assert [r["value"] for r in store.ratings("verdict")] == [2]


# -- the keyboard ----------------------------------------------------------------------------------
async def test_rate_verdicts_by_keyboard_with_skip_and_undo(tmp_path):
    db = f"sqlite:///{tmp_path / 'k.db'}"
    store = Store(db)
    made = [
        await asyncio.to_thread(record, store, STT, "naive_plan", "baseline:naive"),
        await asyncio.to_thread(record, store),
        await asyncio.to_thread(record, store, IMPOSSIBLE, "naive_plan", "baseline:naive"),
    ]
    first, second, third = sorted(made)  # the queue's order: least-rated first, then by id
    verdicts = store.verdicts_of()

    def said_last(eid: str) -> str:
        return [e.payload["text"] for e in store.events(eid) if e.type == "message"][-1]

    app = SttuiApp(Launch.build(ROOT / "tasks", db_url=db, human="ana", annotate=("verdicts", None)))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "AnnotateScreen")
        screen = pilot.app.screen
        await wait_for(pilot, lambda: screen.item is not None and bool(screen.item.body))
        assert screen.item.id == first
        shown = str(screen.query_one("#item", Static).render())
        passed, judge = verdicts[first]
        assert f"Verdict: {'PASS' if passed else 'FAIL'}" in shown and f"judged by {judge}" in shown
        assert said_last(first) in shown and "Final messages" in shown
        assert "1-3 rates" in str(screen.query_one("#dimensions", Static).render())
        assert "Can't tell" in str(screen.query_one("#anchors", Static).render())
        await pilot.press("4")  # not a choice: nothing is saved
        assert "Verdict correct takes 1, 2, 3" in str(screen.query_one("#feedback", Static).render())
        assert store.ratings_by("ana") == []
        await pilot.press("1")  # right: committed, and on to the next
        await wait_for(pilot, lambda: screen.item is not None and screen.item.id == second)
        await wait_for(pilot, lambda: bool(screen.item.body))
        assert f"judged by {verdicts[second][1]}" in str(screen.query_one("#item", Static).render())
        await pilot.press("u")  # undo takes back the first, and returns to it
        await wait_for(pilot, lambda: screen.item.id == first)
        assert store.ratings_by("ana") == []
        await pilot.press("2")  # wrong, this time
        await wait_for(pilot, lambda: screen.item.id == second)
        await pilot.press("s")  # skip the second
        await wait_for(pilot, lambda: screen.item.id == third)
        await wait_for(pilot, lambda: bool(screen.item.body))
        await pilot.press("3")
        await wait_for(pilot, lambda: screen.item is None)
    current = {r["item_id"]: r["value"] for r in store.ratings_by("ana")}
    assert current == {first: WRONG, third: CANT}
    history = [r for r in store.ratings_by("ana", include_history=True) if r["item_id"] == first]
    assert [(r["value"], r["withdrawn"]) for r in history] == [(1, False), (0, True), (2, False)]
    assert all(r["item_kind"] == "verdict" for r in store.ratings_by("ana"))


async def test_home_opens_the_verdict_queue(tmp_path):
    from tests.tui_helpers import ready

    db = f"sqlite:///{tmp_path / 'h.db'}"
    eid = await asyncio.to_thread(record, Store(db))
    async with SttuiApp(Launch.build(ROOT / "tasks", db_url=db, human="ana")).run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("v")
        await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "AnnotateScreen")
        screen = pilot.app.screen
        await wait_for(pilot, lambda: screen.item is not None and bool(screen.item.body))
        assert screen.queue.kind == "verdicts" and screen.item.id == eid


def test_a_verdict_is_disputed_whenever_two_annotators_chose_differently(tmp_path):
    db = f"sqlite:///{tmp_path / 'a.db'}"
    store = Store(db)
    store.rate("ana", "verdict", "e1", "verdict_correct", RIGHT)
    store.rate("ben", "verdict", "e1", "verdict_correct", WRONG)  # one point apart, yet opposite
    store.rate("ana", "verdict", "e2", "verdict_correct", RIGHT)
    store.rate("ben", "verdict", "e2", "verdict_correct", RIGHT)
    out = CliRunner().invoke(main, ["--db", db, "adjudicate", "--as", "lead"], input="4\n2\nben is right\n").output
    assert "verdict e1 · verdict_correct" in out and "verdict e2" not in out
    assert "2: Wrong: the episode should have got the other verdict." in out
    assert "adjudicated value (1-3, or 0 to leave it)" in out and "Error: 4 is not in the range 0<=x<=3" in out
    assert [(a["item_id"], a["value"]) for a in store.adjudications()] == [("e1", WRONG)]
