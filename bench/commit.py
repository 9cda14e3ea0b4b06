"""Durable event commits through the store against a bare ``sqlite3`` loop at the SAME settings,
in alternating rounds of one run.

Each side writes the same events, one transaction per event (an event committed before the next
action, as the runner waits for it), into its own SQLite file in WAL mode:

- the store: ``Store.append_event`` (the payload scrubbed of secrets and encoded as JSON, then
  one INSERT and COMMIT on the connection the store holds for events, with the engine's own
  settings: ``sttui/store/appends.py``);
- the reference: a bare ``sqlite3`` connection, ``BEGIN; INSERT; COMMIT`` of the same row
  (payload encoded by ``json.dumps``) into a table of the same shape.

Both at ``synchronous=NORMAL`` (the store's default: the disk is synced about once a second, the
README's power-cut bound) and both at ``synchronous=FULL`` (every commit synced). Figures: wall
and CPU per event, medians of the rounds. Target: the store at most 1.25x the bare loop.

    python bench/commit.py [--events 1000] [--full-events 200] [--rounds 5]
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import ROOT, cpu, fmt, header, median, result, scratch

TASK = ROOT / "tasks" / "stt" / "logistics" / "insulin-reefer-fault-st2-easy.yaml"


def payload(i: int) -> dict:
    return {
        "tool": "get_vehicle_status",
        "result": {"success": True, "vehicle_id": f"TRK-{i % 9}", "status": "available", "location": "HUB-NORTH"},
        "state_diff": [],
        "state_hash": f"{i:064x}",
    }


def side_by_side(sync: str, n: int, rounds: int, loaded: object, tmp: Path) -> None:
    """The store and the bare loop at ``synchronous=sync``, ``n`` events a round."""
    from sqlalchemy import event as sa_event

    from sttui.core.events import Event
    from sttui.store.store import Store

    events = [
        Event(i, "tool_result", "baseline:oracle", payload(i), "2024-08-15T06:00:00", time.time())
        for i in range(1, n + 1)
    ]
    store = Store(f"sqlite:///{tmp / f'store-{sync}.db'}")
    if sync == "FULL":  # the store's connections at FULL, as the bare loop is

        @sa_event.listens_for(store.engine, "connect")
        def _full(dbapi_conn, _record):  # type: ignore[no-untyped-def]
            dbapi_conn.execute("PRAGMA synchronous=FULL")

        store.engine.dispose()
    con = sqlite3.connect(tmp / f"bare-{sync}.db", isolation_level=None, check_same_thread=False)
    for pragma in ("journal_mode=WAL", f"synchronous={sync}", "foreign_keys=ON", "busy_timeout=5000"):
        con.execute(f"PRAGMA {pragma}")
    con.execute(
        "create table events (id integer primary key, episode_id text, seq int, wall_time real, "
        "sim_time text, actor text, type text, payload text, unique(episode_id, seq))"
    )
    walls: dict[str, list[float]] = {"store": [], "bare": []}
    cpus: dict[str, list[float]] = {"store": [], "bare": []}

    def store_round() -> None:
        eid = store.create_episode(loaded, 0, "baseline:oracle", None)
        c0, w0 = cpu(), time.perf_counter()
        for e in events:
            store.append_event(eid, e)
        walls["store"].append((time.perf_counter() - w0) / n)
        cpus["store"].append((cpu() - c0) / n)

    def bare_round(k: list[int] = [0]) -> None:  # noqa: B006 - a round counter
        k[0] += 1
        eid = f"bare{k[0]}"
        c0, w0 = cpu(), time.perf_counter()
        for e in events:
            con.execute("BEGIN")
            con.execute(
                "insert into events (episode_id, seq, wall_time, sim_time, actor, type, payload) "
                "values (?,?,?,?,?,?,?)",
                (eid, e.seq, e.wall_time, e.sim_time, e.actor, e.type, json.dumps(e.payload)),
            )
            con.execute("COMMIT")
        walls["bare"].append((time.perf_counter() - w0) / n)
        cpus["bare"].append((cpu() - c0) / n)

    store_round(), bare_round()  # warm-up
    walls = {"store": [], "bare": []}
    cpus = {"store": [], "bare": []}
    for r in range(rounds):
        for side in (store_round, bare_round) if r % 2 == 0 else (bare_round, store_round):
            side()
    for side in ("bare", "store"):
        print(f"   {sync:<6} {side:<5} wall {fmt(walls[side], 'µs', 1e6)} CPU {fmt(cpus[side], 'µs', 1e6)} per event")
    wr = [a / b for a, b in zip(walls["store"], walls["bare"], strict=True)]
    cr = [a / b for a, b in zip(cpus["store"], cpus["bare"], strict=True)]
    result(
        f"durable event commit vs bare sqlite3, synchronous={sync}",
        f"wall {median(wr):.2f}x ({min(wr):.2f}-{max(wr):.2f}) of the bare loop's "
        f"{median(walls['bare']) * 1e6:.0f} µs, CPU {median(cr):.2f}x",
        "<= 1.25x",
        median(wr) <= 1.25,
    )
    store.close()
    con.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", type=int, default=1000)
    parser.add_argument("--full-events", type=int, default=200, help="events a round at FULL (each syncs)")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    header("durable event commits: the store against a bare sqlite3 loop")
    from sttui.core.loader import load_task

    tmp = scratch("sttui-bench-commit-")
    loaded = load_task(TASK)
    for sync in ("NORMAL", "FULL"):
        side_by_side(sync, args.events if sync == "NORMAL" else args.full_events, args.rounds, loaded, tmp)


if __name__ == "__main__":
    main()
