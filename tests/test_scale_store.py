"""Large records on both backends: lookups by id or prefix through an index, light rows that
read like full ones, streamed listings with the same text as before, pages that never overlap."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable

import pytest
from click.testing import CliRunner
from sqlalchemy import insert, text

from sttui.cli import main
from sttui.controllers.baselines import PlanAgent, ScriptedUser
from sttui.running.recording import run_recorded
from sttui.store.db import StoreError
from sttui.store.store import Store
from sttui.store.tables import EpisodeRow
from sttui.textout import table, table_lines


def _row(eid: str, i: int, **over: object) -> dict[str, object]:
    row: dict[str, object] = {
        "id": eid,
        "task_id": f"task-{i % 7}",
        "task_hash": f"h{i % 3}",
        "kind": "stt",
        "seed": i,
        "setting": "default",
        "status": "completed",
        "agent": f"baseline:agent{i % 4}",
        "user": None if i % 5 == 0 else "baseline:scripted-user",
        "outcome": {"passed": i % 2 == 0, "items": [1, 2]},
        "scores": {"review": {"score": i / 10, "completion": 0.5, "settled": 1, "milestones": 2, "stop": None}},
        "end_reason": "plan finished",
        "steps": i,
        "state_hash": "s",
        "started_at": 1_700_000_000.0 + i,
        "ended_at": None,
        "clean_baseline": True,
    }
    row.update(over)
    return row


def _fill(store: Store, rows: list[dict[str, object]]) -> None:
    with store.engine.begin() as conn:
        conn.execute(insert(EpisodeRow.__table__), rows)  # type: ignore[arg-type]


def _varied(n: int) -> list[dict[str, object]]:
    """Rows with every shape a listing or report reads: no outcome, outcome JSON null, explore
    accuracy, a review with a stop, working time, incomplete, scores without any of those."""
    rows = [_row(f"{i:04x}aa{i:06d}", i) for i in range(n)]
    for i, r in enumerate(rows):
        shape = i % 8
        if shape == 1:
            r.update(outcome=None, scores=None, status="running")
        elif shape == 2:
            r.update(kind="explore", outcome=None, scores={"calibrated_accuracy": 0.625, "incomplete": True})
        elif shape == 3:
            stop = {"signal": "frontier_stagnation", "step": 4, "steps_saved": 30}
            r["scores"] = {"review": {"score": 0.5, "completion": 1.0, "settled": 2, "milestones": 2, "stop": stop}}
        elif shape == 4:
            verdict = {"verdict": "not_satisfied", "reason": "wrong van", "by": "human:ana"}
            r["scores"] = {"human_active_seconds": 61.5, "other": 1, "user_verdict": verdict}
        elif shape == 5:
            r["scores"] = {"only": "other keys"} if i % 16 == 5 else {"only": "other keys", "user_verdict": "satisfied"}
        elif shape == 6:
            r.update(status="errored", outcome={})
        elif shape == 7 and i % 16 == 7:  # a seat that changed hands, as recorded since handoff
            control = {"agent_steps": {"human:ana": 3, "model:m": 5}, "user_turns": {"baseline:u": 2}}
            r["scores"] = {
                "control": control,
                "review": {"score": 1.0, "completion": 1.0, "settled": 1, "milestones": 1},
            }
        elif shape == 7:
            r["scores"] = {"control": "not a mapping"}
    return rows


def test_exact_id_first_then_prefix_then_ambiguity(db_url):
    store = Store(db_url)
    _fill(store, [_row("abc", 1), _row("abcd", 2), _row("abx1", 3), _row("a%c_1", 4), _row("zz9", 5)])
    assert store.episode("abc").id == "abc"  # exact, though "abcd" shares the prefix
    assert store.episode("abcd").id == "abcd"
    assert store.episode("abx").id == "abx1"
    assert store.episode("zz").id == "zz9"
    with pytest.raises(StoreError, match="matches several episodes"):
        store.episode("ab")
    with pytest.raises(StoreError, match="no episode 'ac'"):
        store.episode("ac")  # after "abx1" and before "zz9": nothing starts with it
    assert store.episode("a%").id == "a%c_1"  # LIKE's wildcards are matched as themselves
    with pytest.raises(StoreError, match="no episode 'a_c'"):
        store.episode("a_c")
    with pytest.raises(StoreError, match="no episode"):
        store.episode("")


def test_a_prefix_lookup_is_answered_by_an_index(db_url):
    store = Store(db_url)
    _fill(store, [_row(f"{i:012x}", i) for i in range(0, 3000, 7)])
    condition = store._prefix("00a")
    sql = str(condition.compile(store.engine, compile_kwargs={"literal_binds": True}))
    with store.engine.connect() as conn:
        if store.engine.url.get_backend_name() == "postgresql":
            conn.exec_driver_sql("SET enable_seqscan = off")  # can the planner use an index at all?
            plan = " ".join(r[0] for r in conn.execute(text(f"EXPLAIN SELECT id FROM episodes WHERE {sql}")))
            assert "Index" in plan and "Seq Scan" not in plan, plan
        else:
            rows = conn.execute(text(f"EXPLAIN QUERY PLAN SELECT id FROM episodes WHERE {sql}")).all()
            plan = " ".join(str(r[-1]) for r in rows)
            assert plan.startswith("SEARCH") and "INDEX" in plan.upper(), plan


def test_forks_and_seat_changes_are_found_by_their_own_index(db_url):
    """``report`` and ``sessions`` look for the few forks and seat changes among every episode:
    a partial index of those events answers, never a read of every episode's events."""
    from sqlalchemy import event as sa_event

    from sttui.store.tables import EventRow

    store = Store(db_url)
    ids = [f"{i:012x}" for i in range(40)]
    _fill(store, [_row(eid, i) for i, eid in enumerate(ids)])
    kinds = {3: "forked", 5: "seat_changed", 7: "forked", 8: "tool_result"}
    events = [
        {"episode_id": eid, "seq": seq, "wall_time": 0.0, "sim_time": "", "actor": "a", "type": t, "payload": {}}
        for i, eid in enumerate(ids)
        for seq, t in enumerate(["episode_started", kinds.get(i, "message"), "episode_ended"], 1)
    ]
    with store.engine.begin() as conn:
        conn.execute(insert(EventRow.__table__), events)  # type: ignore[arg-type]
    sent: list[str] = []
    listener = lambda *a: sent.append(a[2])  # noqa: E731 - (conn, cursor, statement, …)
    sa_event.listen(store.engine, "before_cursor_execute", listener)
    assert store.episode_ids_with("forked", ids[:5]) == {ids[3]}
    assert store.episode_ids_with("forked", ids) == {ids[3], ids[7]}
    assert store.episode_ids_with("seat_changed", ids) == {ids[5]}
    assert store.episode_ids_with("tool_result", ids) == {ids[8]}  # any other type: as before
    sa_event.remove(store.engine, "before_cursor_execute", listener)
    with store.engine.connect() as conn:
        for kind, statement in zip(("forked", "seat_changed"), (sent[0], sent[2]), strict=True):
            assert kind in statement, statement
            if store.engine.url.get_backend_name() == "postgresql":
                conn.exec_driver_sql("SET enable_seqscan = off")
                plan = " ".join(r[0] for r in conn.exec_driver_sql(f"EXPLAIN {statement}"))
            else:
                plan = " ".join(str(r[-1]) for r in conn.exec_driver_sql(f"EXPLAIN QUERY PLAN {statement}"))
            assert f"ix_events_{kind}" in plan, plan


def test_summaries_read_like_full_records(db_url):
    store = Store(db_url)
    _fill(store, _varied(80))
    with store.engine.begin() as conn:  # an outcome stored as JSON null, as finishing an explore episode writes it
        conn.execute(EpisodeRow.__table__.update().where(EpisodeRow.id == "0002aa000002").values(outcome=None))
    full = {r.id: r for r in store.iter_episodes()}
    light = list(store.summaries())
    assert [r.id for r in light] == list(full)
    for r in light:
        f = full[r.id]
        for name in ("task_id", "task_hash", "kind", "seed", "setting", "status", "agent", "user", "steps"):
            assert getattr(r, name) == getattr(f, name)
        assert (r.outcome is None) == (f.outcome is None) and bool(r.outcome) == bool(f.outcome)
        if f.outcome is not None:
            assert r.outcome.get("passed") == f.outcome.get("passed")
        assert (r.scores is None) == (f.scores is None) and bool(r.scores) == bool(f.scores)
        for key in ("calibrated_accuracy", "incomplete", "human_active_seconds"):
            assert (f.scores or {}).get(key) == (r.scores or {}).get(key)
            assert (key in (f.scores or {})) == (key in (r.scores or {}))
        fr, lr = (f.scores or {}).get("review"), (r.scores or {}).get("review")
        assert bool(fr) == bool(lr)
        if fr:
            assert {k: lr[k] for k in ("score", "completion", "settled", "milestones")} == {
                k: fr[k] for k in ("score", "completion", "settled", "milestones")
            }
            assert bool(fr.get("stop")) == bool(lr.get("stop"))
            if fr.get("stop"):
                assert dict(lr["stop"]) == fr["stop"]
    plain = list(store.summaries(review=False))
    assert all(not (r.scores or {}).get("review") for r in plain)
    assert [(r.outcome or {}).get("passed") for r in plain] == [(r.outcome or {}).get("passed") for r in light]


def _pages(store: Store, meanwhile: Callable[[int], None] = lambda n: None) -> list[list[str]]:
    """The newest-first listing, ten at a time, each page after the last one's (started_at, id);
    ``meanwhile(n)`` runs after the n-th page."""
    pages: list[list[str]] = []
    after = None
    while page := list(store.summaries(limit=10, after=after)):
        pages.append([r.id for r in page])
        after = (page[-1].started_at, page[-1].id)
        meanwhile(len(pages))
    return pages


def test_an_episode_recorded_between_pages_neither_shifts_nor_repeats_a_row(db_url):
    """Paging by where the last page ended: an episode recorded while someone pages starts
    later than every row shown, so the next pages hold exactly the rows that were left."""
    store = Store(db_url)
    rows = _varied(35)
    for r in rows[8:13]:
        r["started_at"] = 1_800_000_000.0  # a run of equal start times across a page's end
    _fill(store, rows)
    before = [r.id for r in store.iter_episodes()]

    def record(n: int) -> None:
        if n == 1:
            _fill(store, [{**_varied(1)[0], "id": "recorded-meanwhile", "started_at": 1_900_000_000.0}])

    pages = _pages(store, record)
    assert [i for page in pages for i in page] == before
    assert next(r.id for r in store.iter_episodes()) == "recorded-meanwhile"


def test_pages_follow_each_other_without_overlap(db_url):
    store = Store(db_url)
    rows = _varied(45)
    for r in rows[:10]:
        r["started_at"] = 1_800_000_000.0  # ties on the start time: the id decides
    _fill(store, rows)
    everything = [r.id for r in store.iter_episodes()]
    pages = _pages(store)
    assert [len(p) for p in pages] == [10, 10, 10, 10, 5]
    assert [i for page in pages for i in page] == everything and len(set(everything)) == 45
    assert store.count_episodes() == 45 and store.count_episodes(status="running") == sum(
        1 for r in rows if r["status"] == "running"
    )
    assert [r.id for r in store.iter_episodes(status=("completed", "errored"))] == [
        i for i in everything if next(r for r in rows if r["id"] == i)["status"] in ("completed", "errored")
    ]


def _old_sessions_text(store: Store, **filters: object) -> str:
    """What ``sessions`` printed when it held every record: the same rows, built from full records."""
    from sttui.cli.listing import _control_fields, _outcome, _when, episode_controls
    from sttui.core.verdicts import label

    records = store.list_episodes(**filters)  # type: ignore[arg-type]
    controls = episode_controls(store, records)
    rows = [
        {
            "id": r.id,
            "task": r.task_id,
            "status": r.status,
            "outcome": _outcome(r),
            "agent": _control_fields(r, controls)["agent_label"],
            "user": _control_fields(r, controls)["user_label"],
            "user verdict": label((r.scores or {}).get("user_verdict")),
            "steps": r.steps,
            "started": _when(r.started_at),
        }
        for r in records
    ]
    columns = ["id", "task", "status", "outcome", "agent", "user", "user verdict", "steps", "started"]
    return table(rows, columns) + "\n" + f"\n{len(records)} episode(s)\n"


def test_sessions_streams_the_same_text_as_before(db_url, monkeypatch):
    store = Store(db_url)
    _fill(store, _varied(2600))  # more than a spool chunk and a fetch batch
    runner = CliRunner()
    out = runner.invoke(main, ["--db", db_url, "sessions"])
    assert out.exit_code == 0, out.output
    assert out.output == _old_sessions_text(store)
    assert "mixed (model:m 5, human:ana 3)" in out.output
    out = runner.invoke(main, ["--db", db_url, "sessions", "--status", "errored", "--controller", "agent1"])
    assert out.output == _old_sessions_text(store, status="errored", controller="agent1")
    out = runner.invoke(main, ["--db", db_url, "sessions", "--task", "nothing-like-it"])
    assert out.output == _old_sessions_text(store, task="nothing-like-it")
    out = runner.invoke(main, ["--db", db_url, "sessions", "--json", "--limit", "300"])
    from sttui.cli.listing import _control_fields, episode_controls

    records = store.list_episodes(limit=300)
    controls = episode_controls(store, records)
    expected = [
        {
            **r.as_dict(),
            **_control_fields(r, controls),
            "forked_from": None,
            "user_verdict": r.scores.get("user_verdict"),
        }
        if r.scores
        else {**r.as_dict(), **_control_fields(r, controls), "forked_from": None, "user_verdict": None}
        for r in records
    ]  # (no forks)
    assert '"verdict": "not_satisfied"' in out.output
    assert '"agent_holder": "mixed"' in out.output  # (scores.control read by the light rows too)
    # to a pipe: one compact line an item, the same JSON (indented only on a terminal, below)
    assert out.output == "[\n" + ",\n".join(json.dumps(e, default=str) for e in expected) + "\n]\n"
    assert json.loads(out.output) == json.loads(json.dumps(expected, default=str))
    assert runner.invoke(main, ["--db", db_url, "sessions", "--json", "--task", "none"]).output == "[]\n"


def test_streamed_table_lines_are_the_table_whatever_the_cells_hold():
    """Cells that look like format fields, numbers, None, control characters, wide text, and more
    rows than a spooled chunk: the streamed lines are ``table``'s, line for line."""
    cells = ["{}", "{0}", "{x:>9}", "}{", 12, 3.5, None, "a\x1b[2Jb", "日本語", "", "  padded  "]
    columns = ["id", "{name}", "n"]
    rows = [{"id": f"ep{i}", "{name}": cells[i % len(cells)], "n": cells[(i * 7) % len(cells)]} for i in range(2500)]
    rows.append({"id": "missing cells"})
    assert list(table_lines(iter(rows), columns)) == table(rows, columns).split("\n")


def test_sessions_json_is_indented_on_a_terminal_and_one_line_an_item_in_a_pipe(tmp_path):
    """A person at a terminal reads the list indented; a pipe gets one compact line an item
    (the C encoder: 100,000 records in a fifth of the time). Both parse to the same list."""
    import os
    import subprocess
    import sys

    from tests.helpers.terminal import in_a_terminal

    url = f"sqlite:///{tmp_path / 'r.db'}"
    _fill(Store(url), _varied(12))
    args = [sys.executable, "-m", "sttui", "--db", url, "sessions", "--json"]
    env = {**os.environ, "HOME": str(tmp_path), "COLUMNS": "200", "NO_COLOR": "1"}
    piped = subprocess.run(args, capture_output=True, text=True, env=env, timeout=60, check=True).stdout
    status, shown = in_a_terminal(args[3:], env, columns=200)
    assert status == 0
    items = json.loads(piped)
    assert len(items) == 12 and json.loads(shown) == items
    assert shown == json.dumps(items, indent=2) + "\n"
    assert piped.splitlines()[1:-1] == [json.dumps(i) + ("," if n < 11 else "") for n, i in enumerate(items)]


def test_sessions_memory_does_not_grow_with_the_record(tmp_path):
    """The listing is streamed: twice the episodes cost a few hundred bytes more per extra
    episode (the spooled cells), not the kilobytes a held record costs."""
    import tracemalloc

    def peak(n: int) -> int:
        url = f"sqlite:///{tmp_path / f'{n}.db'}"
        _fill(Store(url), _varied(n))
        tracemalloc.start()
        try:
            out = CliRunner().invoke(main, ["--db", url, "sessions"])
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
            assert out.exit_code == 0 and f"{n} episode(s)" in out.output

    small, large = peak(3000), peak(9000)
    assert (large - small) / 6000 < 600, (small, large)


def test_a_recorded_episode_is_found_by_its_prefix(db_url, stt_task):
    store = Store(db_url)
    eid, _ = asyncio.run(
        run_recorded(store, stt_task, PlanAgent("baseline:oracle", stt_task.task.solution), ScriptedUser())
    )
    assert store.episode(eid[:4]).id == eid and store.episode(eid).steps > 0


def test_first_error_marks_are_counted_by_the_database_as_from_the_whole_log(db_url, stt_task):
    """``agreement`` reads each label's step from the database; it must be the step the whole
    event log gives (``step_of_events``), and the review's suggestion the record's."""
    from sttui.cli.ratings import _first_error_agreement
    from sttui.core.replaying import step_of_events

    store = Store(db_url)
    ids = []
    for plan in (stt_task.task.solution, stt_task.task.naive_plan):
        eid, _ = asyncio.run(run_recorded(store, stt_task, PlanAgent("baseline:x", plan), ScriptedUser()))
        ids.append(eid)
    marks = [(ids[0], 1), (ids[0], 6), (ids[1], 9), (ids[1], 99_999)]  # the last: no such event
    for who, (eid, seq) in zip(("ana", "ben", "ana", "ben"), marks, strict=True):
        store.label_episode(who, eid, ["other"], first_error_seq=seq)
    store.label_episode("chen", ids[1], ["other"])  # no step marked: not counted
    expected = []
    for label in store.labels():
        seq, eid = label["first_error_seq"], label["episode_id"]
        if seq is None:
            continue
        review = (store.episode(eid).scores or {}).get("review") or {}
        suggested = review.get("first_error")
        expected.append((step_of_events(store.events(eid)).get(seq, 0), suggested["step"] if suggested else None))
    assert store.agent_steps_at([(eid, seq) for eid, seq in marks])[(ids[1], 99_999)] == 0
    from sttui.annotate.first_errors import suggestion_agreement

    assert _first_error_agreement(store) == suggestion_agreement(expected)
    assert sorted(m for m, _ in expected) != [0, 0, 0, 0]  # (the steps really are counted)


def test_report_from_light_rows_is_the_report_from_full_records(db_url):
    """``report`` now reads light rows and every task version's meta at once: its figures must
    be those computed from full records with a version lookup per task, as before."""
    from sttui.analysis.comparison import FINISHED, compare
    from sttui.cli.report import _task_meta
    from sttui.store.tables import TaskRow

    store = Store(db_url)
    rows = _varied(400)
    for i, r in enumerate(rows):
        r["setting"] = ("default", "static", "no-user")[i % 3] if r["kind"] == "stt" else "default"
    _fill(store, rows)
    versions = [
        {"task_id": f"task-{t}", "kind": "stt", "content_hash": f"h{h}", "title": "t", "source": "x",
         "created_at": 0.0, "origin": "recorded",
         "meta": {"level": ("easy", "hard")[(t + h) % 2], "conflict": "T1"} if (t, h) != (3, 0) else {}}
        for t in range(7) for h in range(3) if (t, h) != (5, 1)
    ]  # fmt: skip
    with store.engine.begin() as conn:
        conn.execute(insert(TaskRow.__table__), versions)  # type: ignore[arg-type]
    old_records = [r for status in FINISHED for r in store.list_episodes(status=status)]
    old_meta: dict[str, dict[str, object]] = {}
    for r in old_records:
        if r.kind == "stt" and r.task_id not in old_meta:
            version = store.task_version(r.task_id, r.task_hash)
            if version is not None and "level" in version.meta:
                old_meta[r.task_id] = {"level": version.meta["level"], "conflict": version.meta["conflict"]}
    new_records = [r for status in FINISHED for r in store.summaries(status=status)]
    assert _task_meta(store, new_records) == old_meta
    assert json.dumps(compare(new_records, old_meta), default=str) == json.dumps(
        compare(old_records, old_meta), default=str
    )
    runner = CliRunner()
    out = runner.invoke(main, ["--db", db_url, "report", "--json"])
    assert out.exit_code == 0 and json.loads(out.output) == json.loads(json.dumps(compare(old_records, old_meta)))


def test_a_database_at_the_newest_schema_opens_without_alembic(tmp_path):
    """Opening a record already at the newest schema reads its version and starts no migration
    machinery (alembic costs a quarter of a second to import); the newest revision read from the
    files is alembic's own."""
    import subprocess
    import sys

    from sttui.store import db as dbmod

    assert dbmod._head_from_files() == dbmod.head_revision()
    url = f"sqlite:///{tmp_path / 'r.db'}"
    Store(url)  # made and migrated here
    code = "import sys; from sttui.store.store import Store; Store(sys.argv[1]); print('alembic' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code, url], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
    fresh = f"sqlite:///{tmp_path / 'new.db'}"
    out = subprocess.run([sys.executable, "-c", code, fresh], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "True"  # a new database is migrated as always


def test_a_recorded_run_creates_each_episode_in_the_commit_of_its_first_events(tmp_path, monkeypatch, stt_task):
    """Creating an episode goes into the writer's group commit: the row and its first events are
    one transaction, and the run stays durable step by step (every event committed in order)."""
    from sttui.core.settings import RunSettings
    from sttui.running.batch import run_batch
    from sttui.running.plan import ReviewPlan, RunPlan

    store = Store(f"sqlite:///{tmp_path / 'g.db'}")
    calls: list[list[tuple[str, str]]] = []
    real = Store.write

    def write(self, items):
        names = {"version": lambda i: i[1].task_id, "episode": lambda i: i[1]["id"]}
        calls.append([(i[0], names.get(i[0], lambda i: i[1])(i)) for i in items])
        return real(self, items)

    monkeypatch.setattr(Store, "write", write)
    plan = RunPlan.build(
        [stt_task],
        agent="baseline:oracle",
        user=None,
        trials=3,
        seed=None,
        judge="rule",
        review=ReviewPlan(False, None),
        settings=RunSettings(False, False, None),
        record=True,
        concurrency=2,
        models={},
    )
    records = asyncio.run(run_batch(plan, store=store))
    assert all(r["status"] == "completed" for r in records)
    for r in records:
        eid = r["episode"]
        (created,) = [c for c in calls if ("episode", eid) in c]
        assert ("event", eid) in created  # with its first events
        assert sum(("update", eid) in c for c in calls) == 1
        events = store.events(eid)
        assert [e.seq for e in events] == list(range(1, len(events) + 1)) and store.episode(eid).status == "completed"
    # the task's version: with the first episodes only (each created before it was committed)
    assert [i for i, c in enumerate(calls) if any(kind == "version" for kind, _ in c)] == [0]


def test_a_start_time_names_the_minute_datetime_names():
    """``sessions`` formats 100,000 start times through ``time.localtime``; each names the
    minute ``datetime.fromtimestamp`` names, at the edges of a second too (microseconds that
    round up into the next one)."""
    import random
    from datetime import datetime

    from sttui.cli.listing import _when

    rng = random.Random(1)
    cases = [0.5, 1.0, 59.9999996, 59.9999994, 1_700_000_039.9999995, 1_700_000_039.99999949, 4e9, None, 0.0]
    cases += [rng.uniform(1, 4e9) for _ in range(20_000)]
    cases += [int(rng.uniform(1, 4e9)) + 0.9999995 + rng.random() * 5e-7 for _ in range(5_000)]
    for ts in cases:
        assert _when(ts) == (datetime.fromtimestamp(ts).strftime("%Y-%m-%d %H:%M") if ts else "-"), ts


@pytest.mark.parametrize("zone", ["UTC", "Europe/Berlin", "Asia/Kathmandu", "America/St_Johns"])
def test_a_listings_start_minute_is_the_one_datetime_names(monkeypatch, zone):
    """``sessions`` names each start's local minute once per minute (a cache of minutes): the
    same text ``datetime`` gives, across a change of clocks, in zones 45 and 30 minutes off the
    hour, at the end of a minute, and where microseconds round up into the next one."""
    import time
    from datetime import datetime

    from sttui.cli import listing

    monkeypatch.setenv("TZ", zone)
    time.tzset()
    listing._minute.cache_clear()
    try:
        spring = 1_711_846_800.0  # 2024-03-31 01:00 UTC: clocks change in Europe that night
        stamps = [spring + k * 37.25 for k in range(-400, 400)]
        stamps += [spring + 59.9999996, spring + 3599.99999, 1_700_000_000.5, 59.0, 1.0]
        for ts in stamps:
            assert listing._when(ts) == datetime.fromtimestamp(ts).strftime("%Y-%m-%d %H:%M"), ts
    finally:
        monkeypatch.undo()
        time.tzset()
        listing._minute.cache_clear()


def test_the_sessions_text_filter_finds_each_word_in_the_id_task_agent_user_or_status(db_url):
    """Home's sessions filter (``Filters.text``), on both backends: every word must be a part
    of the id, task, agent, user or status, in any case; % and _ are letters, not patterns;
    pages and counts are of the matching episodes alone."""
    store = Store(db_url)
    rows = _varied(40)
    rows[3].update(task_id="clinic-100%_done", agent="human:Ana")
    _fill(store, rows)

    def ids(**filters: object) -> list[str]:
        return [r.id for r in store.summaries(**filters)]  # type: ignore[arg-type]

    everything = ids()
    assert ids(text="task-3") == [r.id for r in store.summaries() if r.task_id == "task-3"] != []
    assert (
        ids(text="AGENT1 RUNNING")
        == [r.id for r in store.summaries() if r.agent == "baseline:agent1" and r.status == "running"]
        != []
    )
    assert ids(text="ana") == ids(text="HUMAN:ana") == [rows[3]["id"]]  # the agent, any case
    assert ids(text="100%_") == [rows[3]["id"]] and ids(text="100__") == [] and ids(text="%") == [rows[3]["id"]]
    assert ids(text="scripted-user task-1") == [
        r.id for r in store.summaries() if r.task_id == "task-1" and r.user == "baseline:scripted-user"
    ]
    assert ids(text=f"{rows[7]['id']}") == [rows[7]["id"]]  # the id
    assert ids(text="  ") == everything
    pasted = " ".join(["task-3", *(f"w{i}" for i in range(5000))])  # a paragraph pasted: its first words
    assert ids(text=pasted) == [] and ids(text="task-3 " * 5000) == ids(text="task-3")
    assert store.count_episodes(text="task-3") == len(ids(text="task-3"))
    first = ids(text="task-3", limit=2)
    last = next(r for r in store.summaries(text="task-3", limit=2) if r.id == first[-1])
    rest = ids(text="task-3", after=(last.started_at, last.id))
    assert first + rest == ids(text="task-3")
