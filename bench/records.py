"""Large records: ``sessions``, ``report`` and ``agreement`` on a record of 100,000 episodes,
and looking an episode up by id or prefix.

1. Each command is a fresh child process, measured alone: its CPU time and peak resident
   memory (``wait4``), and its wall time (on PostgreSQL the server's work shows in wall time,
   not in the child's CPU). Target: each at most 3 s and 150 MB.
2. ``Store.episode`` by exact id and by a 6-character prefix, in-process: CPU per lookup, and
   the query plan SQLite or PostgreSQL chooses for it.

    python bench/gen.py records sqlite:////tmp/sttui-100k.db
    python bench/records.py sqlite:////tmp/sttui-100k.db [--rounds 5]
"""

from __future__ import annotations

import argparse
import contextlib
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import STTUI, fmt, header, median, result, run_child, verdict

COMMANDS = {
    "sessions": ["sessions"],
    "sessions --json": ["sessions", "--json"],
    "report": ["report"],
    "report --json": ["report", "--json"],
    "agreement": ["agreement"],
}


def lookups(url: str, n: int) -> None:
    from sqlalchemy import text

    from sttui.store.store import Store

    store = Store(url)
    with store.engine.connect() as conn:
        ids = [r[0] for r in conn.execute(text("SELECT id FROM episodes"))]
        total = len(ids)
        pg = store.engine.url.get_backend_name() == "postgresql"
        probe = ids[0][:6]
        plan_sql = (
            "EXPLAIN SELECT * FROM episodes WHERE id >= :a AND id < :b"
            if pg
            else "EXPLAIN QUERY PLAN SELECT * FROM episodes WHERE id >= :a AND id < :b"
        )
        plan = [" ".join(map(str, r)) for r in conn.execute(text(plan_sql), {"a": probe, "b": probe + "g"})]
    rng = random.Random(0)
    chosen = rng.sample(ids, min(n, total))
    for name, refs in (("exact id", chosen), ("6-char prefix", [i[:6] for i in chosen])):
        times = []
        for ref in refs:
            t0 = time.process_time()
            w0 = time.perf_counter()
            with contextlib.suppress(Exception):  # an ambiguous prefix is an answer too
                store.episode(ref)
            times.append((time.process_time() - t0, time.perf_counter() - w0))
        cpu = [c for c, _ in times]
        wall = [w for _, w in times]
        print(
            f"   Store.episode by {name:<14} CPU {median(cpu) * 1e3:.2f} ms, wall {median(wall) * 1e3:.2f} ms "
            f"(median of {len(times)}, max wall {max(wall) * 1e3:.1f} ms) over {total:,} episodes"
        )
    print(f"   plan for a prefix range: {' | '.join(plan)}")
    # the reference, in the same run: the lookup as it was (LIKE 'prefix%', which SQLite answers
    # by a scan, being case-insensitive), by the same prefixes
    from sqlalchemy import select

    from sttui.store.tables import EpisodeRow

    times = []
    with store.engine.connect() as conn:
        for ref in [i[:6] for i in chosen[:20]]:
            t0 = time.perf_counter()
            conn.execute(select(EpisodeRow.__table__).where(EpisodeRow.id.startswith(ref)).limit(3)).all()
            times.append(time.perf_counter() - t0)
    print(f"   reference, LIKE 'prefix%' as before: wall {median(times) * 1e3:.2f} ms (median of {len(times)})")
    store.close()


def pages(url: str) -> None:
    """Home's sessions pane reading its next page deep in the record (500 episodes after the
    50,000th): through ``Store.summaries(after=…)`` as home does, against the same page read by
    OFFSET (how it was read before), in the same run."""
    from sqlalchemy import text

    from sttui.store.store import Store

    store = Store(url)
    with store.engine.connect() as conn:
        total = conn.execute(text("SELECT count(*) FROM episodes")).scalar_one()
    if total < 50_500:
        store.close()
        return
    deep = total // 2
    if url.startswith("sqlite"):  # home's query on SQLite as it was, by OFFSET
        from sttui.store.peek import SESSIONS_SQL

        before, what = SESSIONS_SQL, "the same query"
    else:
        before, what = "SELECT id FROM episodes ORDER BY started_at DESC, id DESC", "ids only"
    first = next(store.summaries(limit=1, after=None))
    last = list(store.summaries(limit=deep))[-1]
    keyset, offset = [], []
    for _ in range(3):
        t0 = time.perf_counter()
        page = list(store.summaries(limit=500, after=(last.started_at, last.id)))
        keyset.append(time.perf_counter() - t0)
        with store.engine.connect() as conn:
            t0 = time.perf_counter()
            conn.execute(text(f"{before} LIMIT 500 OFFSET :n"), {"n": deep}).all()
            offset.append(time.perf_counter() - t0)
    assert page and first.id != page[0].id
    print(
        f"   home's next page of 500 after the {deep:,}th episode: {median(keyset) * 1e3:.0f} ms "
        f"(by where the last page ended); the same page by OFFSET {median(offset) * 1e3:.0f} ms ({what})"
    )
    store.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--lookups", type=int, default=200)
    parser.add_argument("--only", nargs="*", default=None, help="commands to run (default: all)")
    parser.add_argument("--no-lookups", action="store_true", help="only the commands")
    args = parser.parse_args()
    header(f"large records: {args.url.split('@')[-1]}")
    rows = {}
    names = args.only or list(COMMANDS)
    for i in range(args.rounds):
        for name in names if i % 2 == 0 else names[::-1]:
            child = run_child([STTUI, "--db", args.url, *COMMANDS[name]])
            assert child.status == 0, child.stderr.decode()[-2000:]
            rows.setdefault(name, []).append(child)
    for name in names:
        cs = rows[name]
        cpu, wall, mem = [c.cpu for c in cs], [c.wall for c in cs], [c.peak_mb for c in cs]
        ok = median(wall) <= 3.0 and median(cpu) <= 3.0 and median(mem) <= 150
        print(
            f"   sttui {name:<16} CPU {fmt(cpu, 's', 1, 2)}  wall {fmt(wall, 's', 1, 2)}  "
            f"peak {fmt(mem, 'MB', 1, 0)}  <= 3 s and 150 MB: {verdict(ok)}"
        )
        if name in ("sessions", "report"):
            result(
                f"100k episodes: {name}",
                f"wall {median(wall):.2f} s, CPU {median(cpu):.2f} s, peak {median(mem):.0f} MB",
                "<= 3 s, <= 150 MB",
                ok,
            )
    if not args.no_lookups:
        lookups(args.url, args.lookups)
        pages(args.url)


if __name__ == "__main__":
    main()
