"""Store throughput, in one run against a bare reference.

1. Durable events per second through the store into SQLite (each committed on its own),
   against a bare ``sqlite3`` insert-and-commit loop of the same rows with the same
   settings (WAL, synchronous=FULL). Reports the ratio (target: at most 3x slower).
2. Time to open a 5,000-event episode (read all its events).
3. Time to list 10,000 episodes.

    python bench/store.py [--events 2000]
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import time
from pathlib import Path

from _common import scratch
from sqlalchemy import insert

from sttui.core.events import Event
from sttui.core.loader import load_task
from sttui.store.store import Store
from sttui.store.tables import EpisodeRow, EventRow

ROOT = Path(__file__).resolve().parent.parent
TASK = ROOT / "tasks" / "stt" / "logistics" / "insulin-reefer-fault-st2-easy.yaml"


def payload(i: int) -> dict:
    return {
        "tool": "get_vehicle_status",
        "result": {"success": True, "vehicle_id": f"TRK-{i % 9}", "status": "available", "location": "HUB-NORTH"},
        "state_diff": [],
        "state_hash": f"{i:064x}",
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", type=int, default=2000)
    args = parser.parse_args()
    tmp = scratch("sttui-bench-")
    loaded = load_task(TASK)
    n = args.events

    store = Store(f"sqlite:///{tmp / 'store.db'}")
    eid = store.create_episode(loaded, 0, "baseline:oracle", None)
    events = [
        Event(i, "tool_result", "baseline:oracle", payload(i), "2024-08-15T06:00:00", time.time())
        for i in range(1, n + 1)
    ]
    start = time.perf_counter()
    for e in events:
        store.append_event(eid, e)
    store_rate = n / (time.perf_counter() - start)

    con = sqlite3.connect(tmp / "bare.db", isolation_level=None)
    for pragma in ("journal_mode=WAL", "synchronous=FULL", "foreign_keys=ON"):
        con.execute(f"PRAGMA {pragma}")
    con.execute(
        "create table events (id integer primary key, episode_id text, seq int, wall_time real, "
        "sim_time text, actor text, type text, payload text, unique(episode_id, seq))"
    )
    start = time.perf_counter()
    for e in events:
        con.execute("BEGIN")
        con.execute(
            "insert into events (episode_id, seq, wall_time, sim_time, actor, type, payload) values (?,?,?,?,?,?,?)",
            (eid, e.seq, e.wall_time, e.sim_time, e.actor, e.type, json.dumps(e.payload)),
        )
        con.execute("COMMIT")
    bare_rate = n / (time.perf_counter() - start)

    big = store.create_episode(loaded, 0, "baseline:oracle", None)
    with store.engine.begin() as conn:
        conn.execute(
            insert(EventRow),
            [
                {
                    "episode_id": big,
                    "seq": i,
                    "wall_time": 0.0,
                    "sim_time": "",
                    "actor": "a",
                    "type": "tool_result",
                    "payload": payload(i),
                }
                for i in range(1, 5001)
            ],
        )
        conn.execute(
            insert(EpisodeRow),
            [
                {
                    "id": f"bench{i:07d}",
                    "task_id": loaded.id,
                    "task_hash": loaded.content_hash,
                    "kind": "stt",
                    "seed": 0,
                    "setting": "default",
                    "status": "completed",
                    "agent": "baseline:oracle",
                    "user": None,
                    "steps": 8,
                    "started_at": 1.7e9 + i,
                    "clean_baseline": True,
                }
                for i in range(10_000)
            ],
        )
    start = time.perf_counter()
    opened = store.events(big)
    open_s = time.perf_counter() - start
    start = time.perf_counter()
    listed = store.list_episodes()
    list_s = time.perf_counter() - start
    assert len(opened) == 5000 and len(listed) >= 10_000

    print(f"durable events through the store (SQLite, WAL, synchronous=FULL): {store_rate:,.0f} events/s")
    print(f"reference: bare sqlite3 insert+commit of the same rows:           {bare_rate:,.0f} events/s")
    print(
        f"store / bare: {bare_rate / store_rate:.2f}x slower (target <= 3x: "
        f"{'met' if bare_rate / store_rate <= 3 else 'NOT met'})"
    )
    print(f"open a 5,000-event episode: {open_s * 1000:.0f} ms")
    print(f"list 10,000 episodes: {list_s * 1000:.0f} ms")


if __name__ == "__main__":
    main()
