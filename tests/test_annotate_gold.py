"""Gold items: stored with history on both backends, mixed into each queue at one in N without
the cap, indistinguishable on screen, and qualifying and watching annotators in `agreement`."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from textual.widgets import Static

from sttui.annotate.dimensions import load_dimensions
from sttui.annotate.queue import Item, Queue
from sttui.cli import main
from sttui.store.store import Store
from sttui.tui.app import SttuiApp
from sttui.tui.launch import Launch
from tests.conftest import ROOT
from tests.tui_helpers import wait_for

INSULIN = "logistics-insulin-reefer-st2-easy"
DIMS = ("query_checklist_consistency", "checklist_correctness", "dynamics_plausibility")


def cli(db: str, *args: str) -> tuple[int, str, str]:
    out = CliRunner().invoke(main, ["--db", db, *args])
    return out.exit_code, out.stdout, out.stderr


def test_gold_is_kept_with_its_history(db_url):
    store = Store(db_url)
    store.set_gold("lead", "task", "t1", "checklist_correctness", 4, 5, "the checklist is sound")
    store.set_gold("lead", "task", "t1", "checklist_correctness", 5, 5)  # changed: the first is history
    store.set_gold("lead", "task", "t2", "checklist_correctness", 2, 2)
    assert store.unset_gold("lead", "task", "t2", "checklist_correctness")
    assert not store.unset_gold("lead", "task", "t2", "checklist_correctness")
    assert [(g["item_id"], g["low"], g["high"]) for g in store.gold()] == [("t1", 5, 5)]
    assert store.gold("verdict") == []
    with store.engine.connect() as conn:
        rows = conn.exec_driver_sql("select item_id, low, superseded_by is not null, withdrawn from gold order by id")
        assert [tuple(r) for r in rows] == [
            ("t1", 4, True, False),
            ("t1", 5, False, False),
            ("t2", 2, True, False),
            ("t2", 0, False, True),
        ]
    with pytest.raises(ValueError, match="range LOW-HIGH"):
        store.set_gold("lead", "task", "t1", "checklist_correctness", 5, 4)


def _items(n: int) -> list[Item]:
    return [Item("task", f"t{i:02d}", f"task {i}") for i in range(n)]


def _work_through(queue: Queue) -> list[str]:
    """Rate every item the queue hands out, in its order, as the screen does."""
    order = []
    while True:
        left = queue.next_items()
        if not left:
            return order
        item = left[0]
        assert queue.claim(item)
        for d in queue.dimensions:
            queue.rate(item, d.id, 4)
        order.append(item.id)


@pytest.mark.parametrize("rate", [10, 4])
def test_gold_is_mixed_in_at_one_in_n_for_every_annotator(tmp_path, rate):
    store = Store(f"sqlite:///{tmp_path / 'q.db'}")
    dims = load_dimensions()
    gold = {"t03", "t11", "t17", "t25"}
    for g in gold:
        store.set_gold("lead", "task", g, "checklist_correctness", 4, 5)
    orders, places = {}, set()
    for who in ("ana", "ben", "chloe"):
        orders[who] = order = _work_through(Queue(store, who, _items(40), dims, "tasks", rate))
        assert len(order) == 40 and set(order) >= gold
        shown = [i for i, item in enumerate(order) if item in gold]
        assert [i // rate for i in shown] == [0, 1, 2, 3], order  # one gold item in each run of `rate`
        places |= {i % rate for i in shown}
    assert len(places) > 1  # at no fixed place in the run: counting items does not give gold away
    # a fourth annotator: every ordinary item has its three already (the cap); gold has no cap
    assert sorted(_work_through(Queue(store, "dev", _items(40), dims, "tasks", rate))) == sorted(gold)
    assert all(len(store.claims("task")[("task", g)]) == 4 for g in gold)
    assert len({tuple(i for i in o if i in gold) for o in orders.values()}) > 1  # each meets gold in their own order
    ordinary = [k for k, v in store.claims("task").items() if k[1] not in gold]
    assert all(len(store.claims("task")[k]) <= 3 for k in ordinary)


def test_gold_left_when_the_ordinary_items_run_out_comes_last(tmp_path):
    store = Store(f"sqlite:///{tmp_path / 'q.db'}")
    for g in ("t01", "t05", "t07"):
        store.set_gold("lead", "task", g, "checklist_correctness", 4, 5)
    order = _work_through(Queue(store, "ana", _items(8), load_dimensions(), "tasks", 10))
    plain = [i for i in order if i not in ("t01", "t05", "t07")]
    assert plain == ["t00", "t02", "t03", "t04", "t06"] and len(order) == 8
    assert order.index("t06") <= 5  # at most the one gold item of the first run before it; the rest after


def test_a_gold_rate_of_zero_mixes_in_none(tmp_path):
    store = Store(f"sqlite:///{tmp_path / 'q.db'}")
    store.set_gold("lead", "task", "t03", "checklist_correctness", 4, 5)
    order = _work_through(Queue(store, "ana", _items(6), load_dimensions(), "tasks", 0))
    assert order == ["t00", "t01", "t02", "t04", "t05"]


def _app(db: str, name: str, text_filter: str, gold_rate: int | None = None) -> SttuiApp:
    return SttuiApp(Launch.build(ROOT / "tasks", db_url=db, human=name, annotate=("tasks", text_filter, gold_rate)))


async def _screen_of(db: str, text_filter: str, gold_rate: int | None) -> tuple[str, list, str, str]:
    async with _app(db, "ana", text_filter, gold_rate).run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "AnnotateScreen")
        screen = pilot.app.screen
        await wait_for(pilot, lambda: screen.item is not None)
        await pilot.pause()
        shown = screen.item.id
        svg = pilot.app.export_screenshot()
        layout = [(w.id, sorted(w.classes), w.display) for w in screen.walk_children()]
        keys = sorted(b.binding.id or "" for b in screen.active_bindings.values() if b.binding.show)
        await pilot.press("4", "4", "4")
        await wait_for(pilot, lambda: screen.item is None or screen.item.id != shown)
        return shown, [layout, keys], svg, str(screen.query_one("#status-bar", Static).render())


async def test_a_gold_item_looks_exactly_like_an_ordinary_one(tmp_path):
    """The same item shown as gold (first, at a rate of 1) and as an ordinary item gives the same
    screen, byte for byte; a gold item beside another ordinary item differs only in its text."""
    gold_db, plain_db = f"sqlite:///{tmp_path / 'gold.db'}", f"sqlite:///{tmp_path / 'plain.db'}"
    Store(gold_db).set_gold("lead", "task", INSULIN, "checklist_correctness", 4, 5)
    Store(plain_db)
    as_gold = await _screen_of(gold_db, "insulin-reefer", 1)
    as_plain = await _screen_of(plain_db, "insulin-reefer", 1)
    assert as_gold[0] == as_plain[0] == INSULIN
    assert as_gold[2] == as_plain[2]  # the whole screen, as an SVG
    assert Store(gold_db).ratings_by("ana")[0]["item_id"] == INSULIN  # rated like any item
    # gold among ordinary items: the first item shown is gold, the layout the same as an ordinary one's
    Store(gold_db).set_gold("lead", "task", "logistics-cold-chain-reroute-st1-easy", "checklist_correctness", 3, 3)
    other = await _screen_of(plain_db, "logistics", 1)
    assert other[0] != INSULIN and other[1] == as_gold[1]
    assert "gold" not in as_gold[2].lower() and "gold" not in as_gold[3].lower()


def _gold_rows(store: Store, who: str, marks: str, start: float) -> None:
    """``who`` rates gold items g00, g01, … in order, right (R) or wrong (W)."""
    for i, mark in enumerate(marks):
        store.rate(who, "task", f"g{i:02d}", "checklist_correctness", 4 if mark == "R" else 1, created_at=start + i)


def test_agreement_counts_only_qualified_annotators_and_says_whom_it_left_out(db_url):
    db = db_url
    store = Store(db)
    ordinary = [("ana", 4), ("ben", 2), ("chen", 1), ("dev", 5), ("eve", 4)]
    for who, value in ordinary:
        for item in ("t1", "t2"):
            store.rate(who, "task", item, "checklist_correctness", value, created_at=1.0)
    before = json.loads(cli(db, "agreement", "--json")[1])
    assert before["dimensions"]["checklist_correctness"]["ratings"] == 10 and before["gold"]["left_out"] == []
    for i in range(30):
        store.set_gold("lead", "task", f"g{i:02d}", "checklist_correctness", 4, 5)
    _gold_rows(store, "ana", "R" * 12, 100)  # qualified
    _gold_rows(store, "ben", "RRR", 100)  # too few gold items yet
    _gold_rows(store, "chen", "R" * 20 + "RRWWRWRWRW", 100)  # 25 of 30 right, but 5 of the latest 10: drifting
    _gold_rows(store, "dev", "RRWWRWRWRW", 100)  # 50 %: unqualified
    _gold_rows(store, "eve", "RRRRWRRRRR", 100)  # 90 %: qualified
    code, out, err = cli(db, "agreement", "--json")
    assert code == 0, err
    found = json.loads(out)
    assert found["dimensions"]["checklist_correctness"]["ratings"] == 4  # ana and eve on t1, t2; no gold ratings
    assert found["dimensions"]["checklist_correctness"]["items"] == 2
    left = {x["annotator"]: (x["status"], x["why"]) for x in found["gold"]["left_out"]}
    assert left == {
        "ben": ("unqualified", "rated 3 gold item(s); 5 needed to qualify"),
        "chen": ("drifting", "50% right on their latest 10 gold items, below 80% (83% overall)"),
        "dev": ("unqualified", "50% right on gold (5 of 10); 80% needed"),
    }
    chen = found["gold"]["kinds"]["task"]["annotators"]["chen"]
    assert [w["accuracy"] for w in chen["windows"]] == [1.0, 1.0, 0.5] and chen["latest"] == 0.5
    assert found["gold"]["kinds"]["task"]["annotators"]["eve"]["status"] == "qualified"
    code, out, err = cli(db, "agreement")
    assert "left out: chen on task items, drifting: 50% right on their latest 10 gold items" in out
    assert "left out: ben on task items, unqualified: rated 3 gold item(s); 5 needed to qualify" in out
    assert "100% 100% 50%" in out  # chen's accuracy by window of 10 gold items, over time
    # chen is back above 80 % on the latest ten: counted again
    _gold_rows(store, "chen", "R" * 30, 200)
    assert "chen" not in {x["annotator"] for x in json.loads(cli(db, "agreement", "--json")[1])["gold"]["left_out"]}


def test_adjudication_shows_only_the_ratings_that_count(tmp_path):
    db = f"sqlite:///{tmp_path / 'g.db'}"
    store = Store(db)
    for i in range(5):
        store.set_gold("lead", "task", f"g{i:02d}", "checklist_correctness", 4, 5)
    _gold_rows(store, "ana", "RRRRR", 1)
    _gold_rows(store, "ben", "RRRRR", 1)
    _gold_rows(store, "mallory", "WWWWW", 1)
    for who, value in (("ana", 2), ("ben", 2), ("mallory", 5)):
        store.rate(who, "task", "t1", "checklist_correctness", value)
    code, out, _ = cli(db, "adjudicate", "--as", "lead")
    assert code == 0
    assert "left out: mallory on task items, unqualified: 0% right on gold" in out
    assert "no disputed items" in out  # mallory's 5 against their 2s would be a dispute


def test_gold_from_the_command_line_and_its_bad_input(tmp_path):
    db = f"sqlite:///{tmp_path / 'c.db'}"
    code, out, err = cli(db, "gold", "set", f"task:{INSULIN}", "checklist_correctness", "4-5", "--as", "lead")
    assert code == 0 and "= 4-5" in out, err
    assert f"task {INSULIN} · checklist_correctness = 4-5  by lead" in cli(db, "gold", "list")[1]
    assert json.loads(cli(db, "gold", "list", "--json")[1])[0]["low"] == 4
    for args, says in (
        (("task:nope", "checklist_correctness", "4"), "no task item 'nope'"),
        ((f"task:{INSULIN}", "nope", "4"), "task items are rated on query_checklist_consistency"),
        ((f"task:{INSULIN}", "checklist_correctness", "5-4"), "a range LOW-HIGH of 1, 2, 3, 4, 5"),
        ((f"task:{INSULIN}", "checklist_correctness", "x"), "a range LOW-HIGH"),
        (("tasks:x", "checklist_correctness", "4"), "ITEM is KIND:ID"),
        (("verdict:abc", "verdict_correct", "4"), "of 1, 2, 3 (e.g."),
    ):
        code, out, err = cli(db, "gold", "set", *args, "--as", "lead")
        assert code == 2 and says in err and err.count("\n") == 1 and "Traceback" not in err, (args, err)
    assert cli(db, "gold", "unset", f"task:{INSULIN}", "checklist_correctness", "--as", "lead")[0] == 0
    code, _, err = cli(db, "gold", "unset", f"task:{INSULIN}", "checklist_correctness", "--as", "lead")
    assert code == 2 and "is not gold on checklist_correctness" in err


def test_bad_gold_settings_get_one_line(tmp_path):
    from sttui.annotate.dimensions import DimensionsError

    base = (ROOT / "annotations" / "dimensions.yaml").read_text()
    for setting, says in (
        ("gold: {rate: -1}", "gold.rate: expected a whole number from 0 to 1000"),
        ("gold: {min_accuracy: 80}", "gold.min_accuracy: expected a share from 0 to 1"),
        ("gold: {windows: 3}", "gold.windows: unknown"),
        ("gold: [1]", "gold: expected a mapping"),
    ):
        path = tmp_path / "dimensions.yaml"
        path.write_text(base.replace("gold: {rate: 10, min_accuracy: 0.8, min_items: 5, window: 10}", setting))
        with pytest.raises(DimensionsError, match=says):
            load_dimensions(path)
    assert load_dimensions().gold.rate == 10


def test_first_wrong_steps_of_an_unqualified_annotator_do_not_count(tmp_path, stt_task):
    from tests.test_study_report import finish

    db = f"sqlite:///{tmp_path / 'f.db'}"
    store = Store(db)
    eids = [store.create_episode(stt_task, seed, "human:ana", None) for seed in range(6)]
    for eid in eids:
        finish(store, eid, outcome={"passed": True})
    for who in ("ana", "mallory"):
        store.label_episode(who, eids[0], [], None, 2)
    assert json.loads(cli(db, "agreement", "--json")[1])["first_error"]["marked"] == 2
    for i, eid in enumerate(eids[1:]):
        store.set_gold("lead", "episode", eid, "overall", 4, 5)
        store.rate("ana", "episode", eid, "overall", 4, created_at=float(i))
        store.rate("mallory", "episode", eid, "overall", 1, created_at=float(i))
    found = json.loads(cli(db, "agreement", "--json")[1])
    assert found["first_error"]["marked"] == 1  # ana's mark; mallory is 0 % right on episode gold
    assert [x["annotator"] for x in found["gold"]["left_out"]] == ["mallory"]


def test_gold_moves_to_another_record_with_list_csv_and_import(tmp_path):
    """`gold list --csv` writes what `gold import` reads: gold travels with the ratings, and
    `agreement` on the copy leaves out whom the source leaves out."""
    src, dst = f"sqlite:///{tmp_path / 's.db'}", f"sqlite:///{tmp_path / 'd.db'}"
    assert cli(src, "gold", "set", f"task:{INSULIN}", "checklist_correctness", "4-5", "--as", "lead")[0] == 0
    assert cli(src, "gold", "set", f"task:{INSULIN}", "query_checklist_consistency", "5", "--as", "lead")[0] == 0
    code, out, _ = cli(src, "gold", "list", "--csv")
    assert code == 0 and out.splitlines()[0] == "item_kind,item_id,dimension,value,note"
    moved = tmp_path / "gold.csv"
    moved.write_text(out)
    code, out, err = cli(dst, "gold", "import", str(moved), "--as", "lead")
    assert code == 0, err
    keep = ("item_kind", "item_id", "dimension", "low", "high", "note")
    assert [{k: g[k] for k in keep} for g in Store(dst).gold()] == [{k: g[k] for k in keep} for g in Store(src).gold()]


def test_a_gold_file_sets_all_its_items_or_none(tmp_path):
    db = f"sqlite:///{tmp_path / 'i.db'}"
    good = tmp_path / "gold.csv"
    good.write_text(
        "item_kind,item_id,dimension,value,note\n"
        f"task,{INSULIN},checklist_correctness,4-5,sound\n"
        f"task,{INSULIN},query_checklist_consistency,5,\n"
    )
    code, out, err = cli(db, "gold", "import", str(good), "--as", "lead")
    assert code == 0 and "gold set on 2 item dimension(s)" in out, err
    assert [(g["dimension"], g["low"], g["high"], g["note"]) for g in Store(db).gold()] == [
        ("checklist_correctness", 4, 5, "sound"),
        ("query_checklist_consistency", 5, 5, None),
    ]
    bad = tmp_path / "bad.csv"
    bad.write_text(
        "item_kind,item_id,dimension,value,note\n"
        f"task,{INSULIN},dynamics_plausibility,3,\n"  # fine, but not set: another row is bad
        f"task,{INSULIN},checklist_correctness,9,\n"
        "task,nope,checklist_correctness,4,\n"
        "tasks,x,checklist_correctness,4,\n"
        "task,short\n"
    )
    code, _, err = cli(db, "gold", "import", str(bad), "--as", "lead")
    assert code == 2
    assert f"{bad}:3: value: one rating or a range LOW-HIGH of 1, 2, 3, 4, 5" in err
    assert f"{bad}:4: item_id: no task item 'nope'" in err
    assert f"{bad}:5: item_kind: expected one of task, explore, episode, verdict" in err
    assert f"{bad}:6: expected 5 fields" in err and "4 of 5 row(s) refused; no gold was set" in err
    assert len(Store(db).gold()) == 2
    for content, says in ((b"a,b\n", ":1: expected the header"), (b"\xff\xfe", ":1: not UTF-8"), (b"x\0", "NUL")):
        bad.write_bytes(content)
        code, _, err = cli(db, "gold", "import", str(bad), "--as", "lead")
        assert code == 2 and says in err and err.count("\n") == 1, err
