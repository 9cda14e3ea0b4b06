"""Annotation: agreement statistics, blinding, the keyboard queue, the atomic cap, rating files."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys

import pytest
from click.testing import CliRunner
from textual.widgets import Static

from sttui.annotate.agreement import agreement, alpha, disputes, pairwise
from sttui.annotate.dimensions import load_dimensions
from sttui.cli import main
from sttui.store.store import Store
from sttui.tui.app import SttuiApp
from sttui.tui.launch import Launch
from tests.conftest import ROOT
from tests.tui_helpers import screen_text, wait_for

ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


def rows_from(matrix: list[list[float]], dimension: str = "d") -> list[dict]:
    out = []
    for a, ratings in enumerate(matrix):
        for i, v in enumerate(ratings):
            if not (isinstance(v, float) and math.isnan(v)):
                out.append(
                    {
                        "item_kind": "task",
                        "item_id": f"u{i}",
                        "dimension": dimension,
                        "annotator": f"coder{a}",
                        "value": int(v),
                        "comment": None,
                    }
                )
    return out


def test_alpha_matches_krippendorffs_documented_example():
    n = float("nan")
    # Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability": 4 coders, 12 units.
    data = [
        [1, 2, 3, 3, 2, 1, 4, 1, 2, n, n, n],
        [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, n, 3],
        [n, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, n],
        [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, n],
    ]
    result = agreement(rows_from(data), cap=3)
    assert result["dimensions"]["d"]["alpha"] == pytest.approx(0.815, abs=5e-4)  # ordinal, as published


def test_percent_and_within_one_agreement_by_hand():
    ratings = {"a": {"x": 4, "y": 4, "z": 5}, "b": {"x": 1, "y": 3}, "c": {"x": 2}}
    # a: pairs (4,4) (4,5) (4,5): exact 1/3, within-1 3/3; b: (1,3): 0 and 0; c: one rating, no pair
    assert pairwise(ratings, 0) == pytest.approx((1 / 3 + 0) / 2)
    assert pairwise(ratings, 1) == pytest.approx((1 + 0) / 2)
    summary = agreement(
        [
            {"item_kind": "task", "item_id": i, "dimension": "d", "annotator": who, "value": v, "comment": None}
            for i, by in ratings.items()
            for who, v in by.items()
        ],
        positive=(4, 5),
        cap=3,
    )["dimensions"]["d"]
    assert summary["mean"] == pytest.approx(19 / 6) and summary["positive_share"] == pytest.approx(3 / 6)
    assert summary["complete_items"] == 1 and summary["items"] == 3


def test_degenerate_data_gets_a_note_not_a_crash():
    same = {"a": {"x": 4, "y": 4}, "b": {"x": 4, "y": 4}}
    value, note = alpha(same)
    assert value is None and "every rating is 4" in note
    value, note = alpha({"a": {"x": 3}, "b": {"y": 5}})
    assert value is None and "fewer than two raters" in note
    assert agreement([])["overall"]["alpha_note"]


def test_disputes_are_spreads_of_two_or_more():
    rows = [
        {"item_kind": "task", "item_id": "t", "dimension": "d", "annotator": a, "value": v, "comment": None}
        for a, v in (("ana", 2), ("ben", 4), ("chloe", 3))
    ]
    rows += [
        {"item_kind": "task", "item_id": "u", "dimension": "d", "annotator": a, "value": v, "comment": None}
        for a, v in (("ana", 3), ("ben", 4))
    ]
    assert [d["item_id"] for d in disputes(rows)] == ["t"]


def test_the_bundled_dimensions_have_anchors_for_every_point():
    dims = load_dimensions(ROOT / "annotations" / "dimensions.yaml")
    assert [d.id for d in dims.of("tasks")] == [
        "query_checklist_consistency",
        "checklist_correctness",
        "dynamics_plausibility",
    ]
    assert [d.id for d in dims.of("explore")] == ["field_realism", "change_plausibility", "distractor_quality"]
    assert dims.of("episodes")[0].optional and dims.cap == 3
    scales = [d for ds in dims.by_kind.values() for d in ds if not d.categorical]
    assert all(sorted(d.anchors) == [1, 2, 3, 4, 5] for d in scales)
    assert [d.id for ds in dims.by_kind.values() for d in ds if d.categorical] == ["verdict_correct"]


def _app(db, name, kind="tasks", text_filter=None):
    return SttuiApp(Launch.build(ROOT / "tasks", db_url=db, human=name, annotate=(kind, text_filter)))


async def _annotating(pilot):
    await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "AnnotateScreen")
    await wait_for(pilot, lambda: pilot.app.screen.item is not None)
    return pilot.app.screen


async def test_rate_a_queue_of_five_by_keyboard_with_skip_and_undo(tmp_path):
    db = f"sqlite:///{tmp_path / 'a.db'}"
    async with _app(db, "ana", text_filter="logistics").run_test(size=(120, 40)) as pilot:
        screen = await _annotating(pilot)
        first = screen.item.id
        await pilot.press("4", "5")  # two dimensions
        await pilot.press("u")  # undo the second: withdrawn, superseding
        assert screen.queue.mine(screen.item, "checklist_correctness") is None
        await pilot.press("3", "2")  # rate it again, then the third: the item is done
        await wait_for(pilot, lambda: screen.item.id != first)
        second = screen.item.id
        await pilot.press("s")  # skip
        await wait_for(pilot, lambda: screen.item.id != second)
        for _ in range(4):  # four more items, three keys each
            current = screen.item.id
            await pilot.press("3", "4", "5")
            await wait_for(pilot, lambda c=current: screen.item is None or screen.item.id != c)
        done, assigned = screen.queue.progress()
        assert done == 5 and assigned >= 5
        assert "5 of" in str(screen.query_one("#status-bar", Static).render())
    store = Store(db)
    current = store.ratings_by("ana")
    assert len({r["item_id"] for r in current}) == 5 and second not in {r["item_id"] for r in current}
    history = [
        r
        for r in store.ratings_by("ana", include_history=True)
        if r["item_id"] == first and r["dimension"] == "checklist_correctness"
    ]
    assert [(r["value"], r["withdrawn"]) for r in history] == [(5, False), (0, True), (3, False)]
    assert all(r["superseded_by"] for r in history[:2])  # nothing deleted: each superseded


async def test_episode_marks_are_not_offered_on_task_items(tmp_path):
    db = f"sqlite:///{tmp_path / 'a.db'}"
    async with _app(db, "ana", text_filter="logistics").run_test(size=(120, 40)) as pilot:
        screen = await _annotating(pilot)
        assert screen.item.kind == "task"
        shown = {b.binding.id for b in screen.active_bindings.values() if b.binding.show}
        assert "annotate.comment" in shown
        assert not {"annotate.tags", "annotate.first_error"} & shown


async def test_blinding_annotator_b_never_sees_a(tmp_path):
    db = f"sqlite:///{tmp_path / 'b.db'}"
    store = Store(db)
    store.rate(
        "ana", "task", "logistics-insulin-reefer-st2-easy", "query_checklist_consistency", 1, "ANA-SECRET-COMMENT"
    )
    store.claim("ana", "task", "logistics-insulin-reefer-st2-easy", 3)
    async with _app(db, "ben", text_filter="insulin-reefer").run_test(size=(120, 40)) as pilot:
        screen = await _annotating(pilot)
        text = " ".join(str(w.render()) for w in screen.query(Static))
        assert "ANA-SECRET" not in text and "ana" not in text.lower().split()
        assert screen.queue.mine(screen.item, "query_checklist_consistency") is None
        assert all(r["annotator"] == "ben" for r in screen.queue.store.ratings_by("ben"))


def test_the_cap_holds_with_four_annotators_claiming_at_once(db_url):
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "tests.helpers.claimer", db_url, name, "10", "3"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
            env=ENV,
        )
        for name in ("ana", "ben", "chloe", "dev")
    ]
    granted = []
    for p in procs:
        out, err = p.communicate(timeout=180)
        assert p.returncode == 0, err
        granted.append(int(out))
    store = Store(db_url)
    claims = store.claims("task")
    assert sum(granted) == 30 and all(len(v) == 3 for v in claims.values()) and len(claims) == 10
    ratings = store.ratings("task")
    assert len(ratings) == 30 and all(
        len({r["annotator"] for r in ratings if r["item_id"] == i}) == 3 for i in {r["item_id"] for r in ratings}
    )


def test_ratings_export_import_round_trip_with_bad_rows(tmp_path):
    db = f"sqlite:///{tmp_path / 'r.db'}"
    store = Store(db)
    store.rate("ana", "task", "logistics-insulin-reefer-st2-easy", "checklist_correctness", 4, "fine, mostly")
    store.rate("ben", "explore", "finance-additive-1", "field_realism", 5)
    runner = CliRunner()
    for fmt in ("csv", "jsonl"):
        out = tmp_path / f"r.{fmt}"
        assert runner.invoke(main, ["--db", db, "export-ratings", "--format", fmt, "-o", str(out)]).exit_code == 0
        lines = out.read_text().splitlines()
        bad = tmp_path / f"bad.{fmt}"
        if fmt == "csv":
            assert lines[0] == "item_kind,item_id,dimension,annotator,value,comment,created_at"
            extra = [
                "task,no-such-task,checklist_correctness,chloe,3,,",
                "task,logistics-insulin-reefer-st2-easy,checklist_correctness,chloe,9,,",
            ]
        else:
            extra = [
                json.dumps(
                    {
                        "item_kind": "task",
                        "item_id": "no-such-task",
                        "dimension": "checklist_correctness",
                        "annotator": "chloe",
                        "value": 3,
                    }
                ),
                json.dumps(
                    {
                        "item_kind": "task",
                        "item_id": "logistics-insulin-reefer-st2-easy",
                        "dimension": "checklist_correctness",
                        "annotator": "chloe",
                        "value": 9,
                    }
                ),
            ]
        bad.write_text("\n".join(lines + extra) + "\n")
        fresh = f"sqlite:///{tmp_path / f'fresh-{fmt}.db'}"
        result = runner.invoke(main, ["--db", fresh, "import-ratings", str(bad)])
        assert result.exit_code == 1 and "2 of 4 row(s) refused; nothing was imported" in result.output
        assert "no task item 'no-such-task'" in result.output and "score 9 is out of range 1-5" in result.output
        assert Store(fresh).ratings() == []  # all or nothing: the good rows wait for the file to be fixed
        result = runner.invoke(main, ["--db", fresh, "import-ratings", str(out)])
        assert result.exit_code == 0 and "imported 2 rating(s)" in result.output
        again = tmp_path / f"again.{fmt}"
        runner.invoke(main, ["--db", fresh, "export-ratings", "--format", fmt, "-o", str(again)])
        assert again.read_text() == out.read_text()


INSULIN = "logistics-insulin-reefer-st2-easy"
DIALYSIS = "clinic-dialysis-urgent-t2-easy"


def _import(tmp_path, db: str, rows: list[str], code: int = 0) -> str:
    path = tmp_path / "in.csv"
    path.write_text("item_kind,item_id,dimension,annotator,value,comment,created_at\n" + "\n".join(rows) + "\n")
    result = CliRunner().invoke(main, ["--db", db, "import-ratings", str(path)])
    assert result.exit_code == code, result.output
    return result.output


@pytest.mark.parametrize(
    ("row", "reason"),
    [
        (
            f"task,{INSULIN},field_realism,ana,4,,",
            "dimension 'field_realism' is rated on explore items, not on task items",
        ),
        (
            "explore,finance-additive-1,checklist_correctness,ana,4,,",
            "dimension 'checklist_correctness' is rated on task items, not on explore items",
        ),
        (f"task,{INSULIN},overall_quality,ana,4,,", "dimension 'overall_quality' is rated on episode items"),
        (f"task,{INSULIN},realism,ana,4,,", "no dimension 'realism'"),
    ],
)
def test_import_refuses_a_dimension_of_another_kind_of_item(row, reason):
    from sttui.annotate.queue import KIND_OF_ITEMS
    from sttui.annotate.ratings_io import COLUMNS, check_rows

    dims = load_dimensions()
    by_kind = {item: {d.id for d in dims.of(kinds)} for kinds, item in KIND_OF_ITEMS.items()}
    known = {("task", INSULIN), ("explore", "finance-additive-1")}
    rows = [
        dict(zip(COLUMNS, r.split(","), strict=True)) for r in (row, f"task,{INSULIN},checklist_correctness,ana,4,,")
    ]
    good, refused = check_rows(rows, known, by_kind)
    assert [r.row for r in refused] == [1] and reason in refused[0].reason
    assert [g["dimension"] for g in good] == ["checklist_correctness"]


def test_import_enforces_the_annotator_cap(tmp_path):
    """Three annotators per item (annotations/dimensions.yaml): a fourth is refused, whether the
    three are in the file, already in the database, or hold a place in the queue."""
    db = f"sqlite:///{tmp_path / 'c.db'}"
    store = Store(db)
    store.rate("ana", "task", DIALYSIS, "checklist_correctness", 3)
    store.rate("ben", "task", DIALYSIS, "checklist_correctness", 4)
    assert store.claim("cy", "task", DIALYSIS, 3)  # cy has a place in the queue, not yet rated
    rows = [
        *(f"task,{INSULIN},checklist_correctness,{who},4,," for who in ("ana", "ben", "cy", "dee")),
        f"task,{INSULIN},dynamics_plausibility,ana,5,,",  # ana holds a place: another dimension is fine
        f"task,{DIALYSIS},checklist_correctness,dee,2,,",  # ana, ben and cy hold the three places
        f"task,{DIALYSIS},checklist_correctness,ana,5,,",  # a rater of the item may re-rate it
        f"task,{DIALYSIS},query_checklist_consistency,cy,4,,",
        f"task,{DIALYSIS},field_realism,ana,4,,",  # an explore dimension
    ]
    out = _import(tmp_path, db, rows, code=1)
    assert "refused row 4: task 'logistics-insulin-reefer-st2-easy' already has 3 annotators (the cap is 3)" in out
    assert "refused row 6: task 'clinic-dialysis-urgent-t2-easy' already has 3 annotators" in out
    assert "refused row 9: dimension 'field_realism' is rated on explore items, not on task items" in out
    assert "3 of 9 row(s) refused; nothing was imported" in out
    assert len(store.ratings()) == 2  # only the two made above
    out = _import(tmp_path, db, [r for i, r in enumerate(rows, 1) if i not in (4, 6, 9)])
    assert "imported 6 rating(s)" in out
    for item in (INSULIN, DIALYSIS):
        assert {r["annotator"] for r in store.ratings(item_id=item)} <= {"ana", "ben", "cy"}
        assert len({r["annotator"] for r in store.ratings(item_id=item)}) == 3
    assert sorted(store.claims("task")[("task", INSULIN)]) == ["ana", "ben", "cy"]  # the queue sees the places
    assert [r["value"] for r in store.ratings(item_id=DIALYSIS) if r["annotator"] == "ana"] == [5]


def test_agreement_and_adjudication_from_the_command_line(tmp_path):
    db = f"sqlite:///{tmp_path / 'g.db'}"
    store = Store(db)
    for who, value in (("ana", 2), ("ben", 5), ("chloe", 4)):
        store.rate(who, "task", "t1", "checklist_correctness", value)
        store.rate(who, "task", "t2", "checklist_correctness", 4)
    runner = CliRunner()
    data = json.loads(runner.invoke(main, ["--db", db, "agreement", "--json"]).output)
    dim = data["dimensions"]["checklist_correctness"]
    assert dim["complete_items"] == 2 and dim["positive_share"] == pytest.approx(5 / 6)
    table = runner.invoke(main, ["--db", db, "agreement"]).output
    assert "Checklist correctness" in table and "within 1" in table
    out = runner.invoke(main, ["--db", db, "adjudicate", "--as", "lead"], input="4\nbetween ana and ben\n").output
    assert "ana: 2" in out and "ben: 5" in out and "recorded" in out
    assert store.adjudications()[0]["value"] == 4 and store.adjudications()[0]["adjudicator"] == "lead"
    assert len(store.ratings(item_id="t1")) == 3  # the three ratings are untouched
    assert "all adjudicated" in runner.invoke(main, ["--db", db, "adjudicate", "--as", "lead"]).output


def test_episode_labels_supersede(tmp_path):
    db = f"sqlite:///{tmp_path / 'l.db'}"
    store = Store(db)
    from sttui.core.loader import load_task

    eid = store.create_episode(
        load_task(ROOT / "tasks/stt/logistics/insulin-reefer-fault-st2-easy.yaml"), 0, "model:x", None
    )
    store.label_episode("ana", eid, ["stale_state_execution"], None, 7)
    store.label_episode("ana", eid, ["trigger_misdiagnosis", "other"], "ignored the user", 5)
    labels = store.labels(eid)
    assert len(labels) == 1 and labels[0]["tags"] == ["trigger_misdiagnosis", "other"]
    assert labels[0]["first_error_seq"] == 5 and labels[0]["other"] == "ignored the user"


async def test_an_episodes_events_are_walked_and_read_whole_by_keys_at_80x24(tmp_path):
    """At 80×24 an event's row is cut at the edge and the pane under the table is out of sight:
    the arrows walk the events (not the dimensions, which tab walks), f marks the one
    highlighted, and enter reads it whole in a reader that escape closes."""
    import asyncio as _asyncio

    from sttui.controllers.baselines import PlanAgent, ScriptedUser
    from sttui.core.loader import load_task
    from sttui.running.recording import run_recorded
    from sttui.tui.replay import detail

    db = f"sqlite:///{tmp_path / 'e.db'}"
    store = Store(db)
    loaded = load_task(ROOT / "tasks/stt/logistics/insulin-reefer-fault-st2-easy.yaml")
    eid, _ = await _asyncio.to_thread(
        lambda: _asyncio.run(
            run_recorded(store, loaded, PlanAgent("baseline:naive", loaded.task.naive_plan), ScriptedUser())
        )
    )
    async with _app(db, "ana", kind="episodes").run_test(size=(80, 24)) as pilot:
        screen = await _annotating(pilot)
        await wait_for(pilot, lambda: len(screen.events) > 5)
        table = screen.query_one("#episode-events")
        first = next(i for i, e in enumerate(screen.events) if e.type == "message" and e.payload["from"] == "user")
        dim = screen.dim
        start = table.cursor_row
        for _ in range(abs(start - first)):
            await pilot.press("up" if start > first else "down")
        assert table.cursor_row == first and start != first
        assert screen.dim == dim  # the arrows moved through the events only
        text = screen.events[first].payload["text"]
        assert len(text) > 40 and text not in " ".join(screen_text(pilot.app))  # cut at 80 columns
        await pilot.press("enter")
        await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "Reader")
        shown = str(pilot.app.screen.query_one("#reader-text").render())
        assert shown == str(detail(screen.events[first])) and text[:30] in shown
        await pilot.press("escape")
        await wait_for(pilot, lambda: pilot.app.screen is screen)
        call = next(i for i, e in enumerate(screen.events) if e.type == "tool_call")
        for _ in range(abs(call - first)):
            await pilot.press("down" if call > first else "up")
        await pilot.press("f")
        await pilot.press("tab")  # the dimensions move by tab
        assert screen.dim == (dim + 1) % len(screen.queue.dimensions) or len(screen.queue.dimensions) == 1
        # a long episode's far end in one key; page keys move twenty events
        await pilot.press("end")
        assert table.cursor_row == len(screen.events) - 1
        await pilot.press("home", "pagedown")
        assert table.cursor_row == min(20, len(screen.events) - 1)
        await pilot.press("pageup")
        assert table.cursor_row == 0 and screen.dim == (dim + 1) % len(screen.queue.dimensions)
    assert store.labels(eid, "ana")[0]["first_error_seq"] == screen.events[call].seq


async def test_rate_an_episode_with_failure_tags_and_the_first_wrong_step(tmp_path):
    import asyncio as _asyncio

    from sttui.controllers.baselines import PlanAgent, ScriptedUser
    from sttui.core.loader import load_task
    from sttui.running.recording import run_recorded

    db = f"sqlite:///{tmp_path / 'e.db'}"
    store = Store(db)
    loaded = load_task(ROOT / "tasks/stt/logistics/insulin-reefer-fault-st2-easy.yaml")
    eid, _ = await _asyncio.to_thread(
        lambda: _asyncio.run(
            run_recorded(store, loaded, PlanAgent("baseline:naive", loaded.task.naive_plan), ScriptedUser())
        )
    )
    async with _app(db, "ana", kind="episodes").run_test(size=(120, 40)) as pilot:
        screen = await _annotating(pilot)
        assert screen.item.id == eid
        await wait_for(pilot, lambda: len(screen.events) > 5)
        table = screen.query_one("#episode-events")
        assert screen.events[0].type == "episode_started"
        table.move_cursor(row=0)
        await pilot.pause()
        await pilot.press("f")  # not an agent step: refused, nothing saved
        assert "#1 is episode started, not an agent step" in str(screen.query_one("#feedback").render())
        assert store.labels(eid, "ana") == []
        row = [i for i, e in enumerate(screen.events) if e.type == "tool_call"][1]  # the second call
        table.move_cursor(row=row)
        await pilot.pause()
        shown = str(screen.query_one("#event-detail").render())
        assert f"#{screen.events[row].seq} {screen.events[row].type}" in shown
        marked = screen.events[row].seq
        await pilot.press("f")  # the highlighted event is the first wrong step
        await pilot.press("t")
        await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "Tags")
        pilot.app.screen.query_one("#modes").select("stale_state_execution")
        pilot.app.screen.query_one("#other").focus()
        await pilot.press("enter")
        await wait_for(pilot, lambda: type(pilot.app.screen).__name__ == "AnnotateScreen")
        await pilot.press("2")  # overall quality
    label = store.labels(eid, "ana")[0]
    assert label["tags"] == ["stale_state_execution"] and label["first_error_seq"] == marked
    assert store.ratings_by("ana")[0]["value"] == 2 and store.ratings_by("ana")[0]["item_kind"] == "episode"


def test_alpha_interval_is_the_bootstrap_of_alpha_computed_in_blocks():
    """The interval is computed for many resamples at once: it must be exactly the seeded
    bootstrap of krippendorff's alpha over the rated items that it replaces."""
    import random

    from sttui.annotate import agreement as ag
    from sttui.core.stats import bootstrap

    def reference(ratings):
        units = [by for by in ratings.values() if len(by) >= 2]
        found = bootstrap(units, lambda s: alpha({str(i): by for i, by in enumerate(s)})[0], rounds=ag.ALPHA_ROUNDS)
        return [round(found[0], 6), round(found[1], 6)] if found else None

    rng = random.Random(5)
    for n in (2, 4, 9, 40):
        ratings = {}
        for i in range(n):
            base = rng.randint(1, 5)
            ratings[f"i{i}"] = {
                f"a{j}": min(5, max(1, base + rng.choice([-1, 0, 1]))) for j in range(rng.randint(1, 4))
            }
        assert ag.alpha_interval(ratings) == reference(ratings), n
    assert ag.alpha_interval({f"i{i}": {"a": 2, "b": 2} for i in range(6)}) is None  # no variation
