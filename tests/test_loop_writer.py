"""Headless runs on SQLite commit in the event loop itself (sttui/store/loop_writer.py): no
writer thread, the same guarantees. Every event is committed before the next action is asked
for, and soon even when nobody waits. Ready episodes share a commit. Failures, retries and
interrupts lose nothing."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time
from typing import Any

import pytest

from sttui.core.events import Event
from sttui.errors import StoreError
from sttui.store.loop_writer import LoopWriter, headless_writer
from sttui.store.store import Store
from sttui.store.writer import WriteFailed, Writer
from tests.conftest import ROOT

TASK = ROOT / "tasks" / "stt" / "logistics" / "insulin-reefer-fault-st2-easy.yaml"


def _event(seq: int) -> Event:
    return Event(seq, "note", "x", {"i": seq}, "")


def _count(path: Any, eid: str) -> int:
    """Events of ``eid`` as another connection sees them (committed ones only)."""
    with sqlite3.connect(path) as conn:
        return conn.execute("select count(*) from events where episode_id = ?", (eid,)).fetchone()[0]


class Log:
    """A record that notes each write (one transaction each) and sync."""

    def __init__(self) -> None:
        self.writes: list[list[tuple[Any, ...]]] = []
        self.syncs = 0

    def write(self, items: list[tuple[Any, ...]]) -> None:
        self.writes.append(list(items))

    def sync(self) -> None:
        self.syncs += 1


def test_a_headless_run_on_sqlite_commits_in_its_loop_with_no_writer_thread(tmp_path):
    from sttui.core.loader import load_task
    from sttui.running.batch import run_batch
    from sttui.running.plan import RunPlan

    store = Store(f"sqlite:///{tmp_path / 'r.db'}")
    plan = RunPlan.build([load_task(TASK)], agent="baseline:oracle", trials=4, seed=3, concurrency=2)
    before = set(threading.enumerate())  # (other tests' workbench writers may still be winding down)
    started: list[list[str]] = []

    def progress(_record: dict[str, Any]) -> None:
        started.append([t.name for t in threading.enumerate() if t not in before])

    records = asyncio.run(run_batch(plan, store=store, progress=progress))
    assert len(records) == 4 and all(r["status"] == "completed" and r["passed"] for r in records)
    assert started and all("sttui-writer" not in names for names in started)
    for r in records:  # every event, in order, and the end
        events = store.events(r["episode"])
        assert [e.seq for e in events] == list(range(1, len(events) + 1))
        assert events[-1].type == "episode_ended" and store.episode(r["episode"]).status == "completed"
    store.close()


def test_the_writer_for_a_record_across_a_network_keeps_its_thread(tmp_path):
    class Url:
        def get_backend_name(self) -> str:
            return "postgresql"

    class Remote:
        class engine:  # (the shape of a Store's engine)
            url = Url()

    writer = headless_writer(Remote())
    assert isinstance(writer, Writer)
    writer.close()
    local = Store(f"sqlite:///{tmp_path / 'r.db'}")
    assert isinstance(headless_writer(local), LoopWriter)
    waiting = headless_writer(local, waits_on_a_person=True)  # (the loop blocks on their answer)
    assert isinstance(waiting, Writer)
    waiting.close()
    local.close()


def test_an_event_is_committed_before_durable_returns_and_ready_steps_share_the_commit(tmp_path, stt_task):
    path = tmp_path / "r.db"
    store = Store(f"sqlite:///{path}")
    ids = [store.create_episode(stt_task, 0, "a", None) for _ in range(3)]
    writer = LoopWriter(store)
    commits: list[int] = []
    write = store.write

    def counted(items: list[tuple[Any, ...]]) -> None:
        commits.append(len(items))
        write(items)

    store.write = counted  # type: ignore[method-assign]

    async def step(eid: str) -> None:
        for seq in (1, 2, 3):
            ticket = writer.submit_event(eid, _event(seq))
        await writer.durable(ticket, eid)
        assert _count(path, eid) == 3  # committed, as another process reads it

    async def run() -> None:
        await asyncio.gather(*(step(eid) for eid in ids))

    asyncio.run(run())
    assert commits == [9]  # three episodes' steps, ready together: one transaction
    writer.close()
    store.close()


def test_an_event_is_committed_soon_even_when_nobody_waits(tmp_path, stt_task):
    path = tmp_path / "r.db"
    store = Store(f"sqlite:///{path}")
    eid = store.create_episode(stt_task, 0, "a", None)
    writer = LoopWriter(store)

    async def run() -> None:
        writer.submit_event(eid, _event(1))
        assert _count(path, eid) == 0  # (not at once: the steps ready to run may join it)
        await asyncio.sleep(0)
        assert _count(path, eid) == 1  # once they have run

    asyncio.run(run())
    writer.submit_event(eid, _event(2))  # outside any loop: at once
    assert _count(path, eid) == 2
    writer.close()
    store.close()


def test_a_write_that_can_never_succeed_fails_its_episode_alone():
    class Refusing(Log):
        def write(self, items: list[tuple[Any, ...]]) -> None:
            if any(item[1] == "bad" for item in items):
                raise StoreError("the record is read-only", transient=False)
            super().write(items)

    record = Refusing()
    writer = LoopWriter(record, deadline=1)

    async def run() -> None:
        good = writer.submit_event("good", _event(1))
        bad = writer.submit_event("bad", _event(1))
        await writer.durable(good, "good")
        with pytest.raises(WriteFailed, match="read-only"):
            await writer.durable(bad, "bad")
        with pytest.raises(WriteFailed):  # and stays failed: its later events are not written
            await writer.durable(writer.submit_event("bad", _event(2)), "bad")

    asyncio.run(run())
    assert [[item[1] for item in w] for w in record.writes] == [["good"]]
    assert set(writer.failed) == {"bad"}
    writer.close()


def test_a_write_that_may_pass_is_retried_until_it_does():
    class Locked(Log):
        refusals = 2

        def write(self, items: list[tuple[Any, ...]]) -> None:
            if self.refusals:
                self.refusals -= 1
                raise StoreError("the record is locked", transient=True)
            super().write(items)

    record = Locked()
    writer = LoopWriter(record, deadline=30)

    async def run() -> None:
        await writer.durable(writer.submit_event("e1", _event(1)), "e1")

    asyncio.run(run())
    assert len(record.writes) == 1 and not writer.failed
    writer.close()


def test_an_interrupt_mid_commit_leaves_the_events_for_the_next_commit():
    class Interrupted(Log):
        interrupts = 1

        def write(self, items: list[tuple[Any, ...]]) -> None:
            if self.interrupts:
                self.interrupts -= 1
                raise KeyboardInterrupt
            super().write(items)

    record = Interrupted()
    writer = LoopWriter(record)
    with pytest.raises(KeyboardInterrupt):
        writer.submit_event("e1", _event(1))  # (outside a loop: committed at once, interrupted)
    writer.submit_event("e1", _event(2))
    writer.close()
    assert [[item[2].seq for item in w] for w in record.writes] == [[1, 2]]
    assert record.syncs == 1 and not writer.failed


def test_flush_from_another_thread_wakes_the_loops_waiters():
    record = Log()
    writer = LoopWriter(record)

    async def run() -> None:
        loop = asyncio.get_running_loop()
        ticket = writer.submit_event("e1", _event(1))
        writer._scheduled_on = loop  # (as if its commit were due later on this loop)
        waiting = asyncio.ensure_future(writer.durable(ticket, "e1"))
        await asyncio.to_thread(writer.flush)  # as run_batch does at its end
        await asyncio.wait_for(waiting, 5)

    asyncio.run(run())
    assert len(record.writes) == 1
    writer.close()


def test_events_from_many_threads_are_committed_in_ticket_order():
    record = Log()
    writer = LoopWriter(record)
    ticket_of: dict[str, int] = {}

    def submitter(n: int) -> None:
        for i in range(200):
            if i % 50 == 0:
                time.sleep(0.002)
            eid = f"t{n}-{i}"
            ticket_of[eid] = writer.submit_event(eid, _event(1))

    threads = [threading.Thread(target=submitter, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    writer.flush()
    committed = [item[1] for w in record.writes for item in w]
    assert len(committed) == 800 and set(committed) == set(ticket_of)
    assert [ticket_of[e] for e in committed] == sorted(ticket_of.values())
    writer.close()


def test_a_run_judged_by_a_person_at_the_terminal_commits_on_the_writer_thread(tmp_path):
    """The person's answer blocks the loop; what other episodes did meanwhile is committed all
    the same, by the thread."""
    from sttui.core.checklist import HumanJudge
    from sttui.core.loader import load_task
    from sttui.running.batch import run_batch
    from sttui.running.plan import RunPlan

    before = set(threading.enumerate())
    seen: list[list[str]] = []

    def ask(episode: Any, item_id: str, question: str) -> tuple[bool, str]:
        seen.append([t.name for t in threading.enumerate() if t not in before])
        return True, ""

    store = Store(f"sqlite:///{tmp_path / 'r.db'}")
    loaded = load_task(ROOT / "tasks" / "stt" / "clinic" / "petct-authorisation-t1-impossible.yaml")
    plan = RunPlan.build([loaded], agent="baseline:oracle", trials=2, seed=3, judge="human")
    records = asyncio.run(run_batch(plan, store=store, judge=HumanJudge(ask)))
    assert len(records) == 2 and all(r["status"] == "completed" for r in records)
    assert seen and all("sttui-writer" in names for names in seen)
    store.close()
