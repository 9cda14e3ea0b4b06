"""The SQLite listing indexes (migration 0012): what they save ``sttui sessions`` and ``sttui
report``, and what they cost each episode written.

1. **Reads.** The episodes of a record (``--records``, the 100,000-episode record ``bench/all.py``
   makes) copied into a scratch file with the plain indexes of the schema before 0012 (no events: the
   listing's count of a running episode's steps finds none); the two commands' queries
   (``sttui/store/peek.py``), each read to its end, first with the indexes before 0012 and then
   as it leaves them. Wall time per query, best and median of ``--rounds``.
2. **Writes.** An episode's row inserted when it starts and updated when it ends, each in its
   own commit (``synchronous=NORMAL``, WAL, as the store writes), with outcomes and scores taken
   from that record: microseconds per episode, with the indexes before 0012 and as 0012 leaves
   them (the listing indexes in, the plain ones they begin with out), in alternating rounds.

    python bench/listing_indexes.py [--records sqlite:////tmp/sttui-bench-100k.db] [--rounds 3]
"""

from __future__ import annotations

import argparse
import importlib.util
import sqlite3
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import ROOT, header, median

MIGRATION = ROOT / "sttui" / "store" / "migrations" / "versions" / "0012_listing_indexes.py"
PLAIN = (
    "CREATE INDEX ix_episodes_started ON episodes (started_at)",
    "CREATE INDEX ix_episodes_status_started ON episodes (status, started_at)",
    "CREATE INDEX ix_episodes_status ON episodes (status)",
    "CREATE INDEX ix_episodes_task_id ON episodes (task_id)",
    "CREATE INDEX ix_episodes_id_pattern ON episodes (id)",
)


def migration() -> Any:
    spec = importlib.util.spec_from_file_location("listing_indexes", MIGRATION)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def make(conn: sqlite3.Connection, on: bool) -> None:
    """The episodes' indexes as migration 0012 leaves them (``on``), or as they were before it."""
    found = migration()
    for name, columns in found.INDEXES.items():
        conn.execute(f"DROP INDEX IF EXISTS {name}")
        if on:
            conn.execute(f"CREATE INDEX {name} ON episodes ({', '.join(columns)})")
    for name, columns in found.REPLACED.items():
        conn.execute(f"DROP INDEX IF EXISTS {name}")
        if not on:
            conn.execute(f"CREATE INDEX {name} ON episodes ({columns})")
    conn.commit()


def read(conn: sqlite3.Connection, sql: str, args: tuple[Any, ...]) -> float:
    start = time.perf_counter()
    cursor = conn.execute(sql, args)
    while cursor.fetchmany(2000):
        pass
    return time.perf_counter() - start


def reads(source: str, work: Path, rounds: int) -> None:
    from sttui.store.peek import _ORDER, LISTING_SQL, REPORT_SQL

    path = work / "episodes.db"
    conn = sqlite3.connect(path)
    conn.execute("ATTACH DATABASE ? AS src", (f"file:{source}?mode=ro",))
    for table in ("episodes", "events"):  # (no events: the listing counts a running one's steps from them)
        ddl = conn.execute("SELECT sql FROM src.sqlite_master WHERE type = 'table' AND name = ?", (table,)).fetchone()
        conn.execute(ddl[0])
    conn.execute("INSERT INTO episodes SELECT * FROM src.episodes ORDER BY rowid")
    conn.commit()
    conn.execute("DETACH DATABASE src")
    for statement in PLAIN:
        conn.execute(statement)
    conn.commit()
    count = conn.execute("SELECT count(*) FROM episodes").fetchone()[0]
    print(f"   {count:,} episodes copied to a scratch file")
    queries = {
        "sessions' listing": (f"{LISTING_SQL} {_ORDER}", ()),
        "report's rows (completed)": (REPORT_SQL, ("completed",)),
    }
    for on in (False, True):
        make(conn, on)
        pages = conn.execute("PRAGMA page_count").fetchone()[0] * conn.execute("PRAGMA page_size").fetchone()[0]
        print(f"   {'as 0012 leaves them' if on else 'before 0012'} (file {pages / 1e6:,.0f} MB):")
        for name, (sql, args) in queries.items():
            read(conn, sql, args)  # (warm: the file in the page cache, as on a second call)
            times = [read(conn, sql, args) for _ in range(rounds)]
            print(f"     {name:<28} best {min(times):.2f} s, median {median(times):.2f} s")
    conn.close()


def writes(source: str, work: Path, rounds: int, episodes: int) -> None:
    src = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
    ddl = src.execute("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'episodes'").fetchone()[0]
    samples = src.execute(
        "SELECT outcome, scores FROM episodes WHERE outcome IS NOT NULL LIMIT ?", (episodes,)
    ).fetchall()
    src.close()
    costs: dict[bool, list[float]] = {False: [], True: []}
    for r in range(rounds):
        for on in (False, True) if r % 2 == 0 else (True, False):
            path = work / f"writes-{r}-{int(on)}.db"
            conn = sqlite3.connect(path)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute(ddl)
            for statement in PLAIN:
                conn.execute(statement)
            make(conn, on)
            start = time.perf_counter()
            for i, (outcome, scores) in enumerate(samples):
                conn.execute(
                    "INSERT INTO episodes (id, task_id, task_hash, kind, seed, setting, status, agent, user, steps, "
                    "started_at, clean_baseline) VALUES (?, 't', 'h', 'stt', 0, 'default', 'running', 'a', 'u', 0, ?, 1)",
                    (f"{i:012d}", time.time()),
                )
                conn.commit()
                conn.execute(
                    "UPDATE episodes SET status = 'completed', outcome = ?, scores = ?, steps = 7, ended_at = ? "
                    "WHERE id = ?",
                    (outcome, scores, time.time(), f"{i:012d}"),
                )
                conn.commit()
            costs[on].append((time.perf_counter() - start) / len(samples) * 1e6)
            conn.close()
    plain, indexed = median(costs[False]), median(costs[True])
    print(
        f"   an episode written (insert at its start, update at its end, each committed), {len(samples):,} "
        f"episodes, {rounds} rounds: {plain:.0f} µs before 0012, {indexed:.0f} µs as 0012 leaves the "
        f"indexes ({indexed - plain:+.0f} µs)"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--records", default="sqlite:////tmp/sttui-bench-100k.db")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--episodes", type=int, default=1000, help="episodes written a round")
    args = parser.parse_args()
    header("the SQLite listing indexes")
    source = args.records.removeprefix("sqlite:///")
    if not Path(source).is_file():
        sys.exit(f"no record at {source}: make it with bench/gen.py records {args.records}")
    with tempfile.TemporaryDirectory(prefix="sttui-bench-indexes-") as work:
        reads(source, Path(work), args.rounds)
        writes(source, Path(work), args.rounds, args.episodes)


if __name__ == "__main__":
    main()
