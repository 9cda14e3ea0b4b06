"""Build the large inputs the scale benchmarks run on, from the bundled tasks, so anyone can
reproduce the figures.

    python bench/gen.py tasks DIR [--count 2000]
        DIR/ holds COUNT task files: copies of the bundled ones with new ids (``<id>-c0001``…),
        in the same folder layout, each stt domain's environment module beside its copies.

    python bench/gen.py records URL [--episodes 100000] [--tasks 2000] [--events full|none] [--labels 3000]
        a record of EPISODES synthetic episodes: each bundled task is run once by the oracle,
        naive and random baselines (real, recorded episodes: their task versions are stored),
        then episodes are cloned from those with new ids, controllers, settings, statuses,
        outcomes, start times and, with ``--events full``, a copy of their events, spread over
        about TASKS task ids (the copies' ids of ``gen.py tasks``, each with a stored version);
        plus ratings by three annotators of 2,000 tasks and of 5,000 episodes, and LABELS
        first-error labels.

    python bench/gen.py long URL [--steps 10000]
        one recorded stt episode of STEPS agent steps (a cyclic agent: queries, vehicle moves
        back and forth, a message to the user every 8 steps) on a copy of the bundled
        insulin task with max_steps raised; prints its id.

URL is an SQLAlchemy URL (sqlite:///path.db or postgresql+psycopg://…).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import re
import shutil
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

TASKS = ROOT / "tasks"
INSULIN = TASKS / "stt" / "logistics" / "insulin-reefer-fault-st2-easy.yaml"
CONTROLLERS = (
    "baseline:oracle",
    "baseline:naive",
    "baseline:random",
    "model:openai/gpt-4o-mini",
    "model:anthropic/claude-sonnet",
    "human:ana",
    "human:ben",
)
SETTINGS = ("default",) * 6 + ("static", "no-user")
ANNOTATORS = ("ana", "ben", "chen")


def bundled_files() -> list[Path]:
    from sttui.core.loader import discover

    return discover([TASKS])


def gen_tasks(out: Path, count: int) -> None:
    """COUNT task files under OUT: copies of the bundled ones with new ids, same layout."""
    files = bundled_files()
    if out.exists():
        shutil.rmtree(out)
    for f in files:  # environment modules (and anything else but task files) once per folder
        dest = out / f.parent.relative_to(TASKS)
        if not dest.exists():
            dest.mkdir(parents=True)
            for other in f.parent.iterdir():
                if other.suffix == ".py":
                    shutil.copy2(other, dest / other.name)
    texts = {f: f.read_text(encoding="utf-8") for f in files}
    for n in range(count):
        f = files[n % len(files)]
        suffix = f"c{n // len(files) + 1:04d}"
        text = re.sub(r"^id: (\S+)", lambda m, s=suffix: f"id: {m.group(1)}-{s}", texts[f], count=1, flags=re.M)
        dest = out / f.parent.relative_to(TASKS) / f"{f.stem}-{suffix}{f.suffix}"
        dest.write_text(text, encoding="utf-8")
    print(f"wrote {count} task files under {out} (from {len(files)} bundled)")


async def _templates(store: object) -> list[str]:
    """Real recorded episodes to clone: oracle, naive and random on every bundled task."""
    from sttui.controllers.registry import make_agent, make_user
    from sttui.core.loader import load_all
    from sttui.running.recording import run_recorded

    loaded, errors = load_all([TASKS])
    assert not errors, errors
    ids = []
    for t in loaded:
        for spec in ("baseline:oracle", "baseline:naive", "baseline:random"):
            if t.kind == "explore" and spec == "baseline:naive":
                continue
            agent = make_agent(spec, t, t.task.seed)
            user = make_user("baseline:scripted", seed=t.task.seed) if t.kind == "stt" else None
            eid, _ = await run_recorded(store, t, agent, user)  # type: ignore[arg-type]
            ids.append(eid)
    return ids


def gen_records(url: str, episodes: int, events: str, labels: int, seed: int = 0, tasks: int = 2000) -> None:
    from sqlalchemy import insert

    from sttui.store.store import Store
    from sttui.store.tables import EpisodeRow, EventRow

    start = time.perf_counter()
    store = Store(url)
    template_ids = asyncio.run(_templates(store))
    templates = [store.episode(i) for i in template_ids]
    template_events = {
        r.id: [
            {
                "seq": e.seq,
                "wall_time": e.wall_time,
                "sim_time": e.sim_time,
                "actor": e.actor,
                "type": e.type,
                "payload": e.payload,
            }
            for e in store.events(r.id)
        ]
        for r in templates
    }
    print(f"{len(templates)} template episodes recorded in {time.perf_counter() - start:.1f} s")
    rng = random.Random(seed)
    now = time.time()
    made = len(templates)
    all_ids = list(template_ids)
    batch: list[dict[str, object]] = []
    event_batch: list[dict[str, object]] = []
    clones = max(0, episodes - made)
    distinct = len({r.task_id for r in templates})
    copies = max(1, -(-tasks // distinct))  # clones spread over about `tasks` task ids
    versions: set[tuple[str, str, str]] = set()

    def flush() -> None:
        with store.engine.begin() as conn:
            if batch:
                conn.execute(insert(EpisodeRow.__table__), batch)  # type: ignore[arg-type]
            if event_batch:
                conn.execute(insert(EventRow.__table__), event_batch)  # type: ignore[arg-type]
        batch.clear()
        event_batch.clear()

    for _ in range(clones):
        t = rng.choice(templates)
        copy = rng.randint(1, copies)
        task_id = f"{t.task_id}-c{copy:04d}"  # the ids `gen.py tasks` gives its copies
        versions.add((t.task_id, t.task_hash, task_id))
        eid = f"{rng.getrandbits(48):012x}"
        agent = rng.choice(CONTROLLERS)
        status = rng.choices(("completed", "errored", "running", "stopped"), (90, 4, 4, 2))[0]
        passed = rng.random() < {"baseline:oracle": 0.95, "baseline:naive": 0.2}.get(agent, 0.5)
        outcome = dict(t.outcome or {}) if t.outcome else None
        if outcome is not None:
            outcome["passed"] = passed
        scores = dict(t.scores or {}) if t.scores else None
        if scores and agent.startswith("human:"):
            scores["human_active_seconds"] = round(rng.uniform(60, 1200), 3)
        started = now - rng.uniform(0, 365 * 86400)
        batch.append(
            {
                "id": eid,
                "task_id": task_id,
                "task_hash": t.task_hash,
                "kind": t.kind,
                "seed": rng.randint(0, 10_000),
                "setting": rng.choice(SETTINGS) if t.kind == "stt" else t.setting,
                "status": status,
                "agent": agent,
                "user": t.user,
                "outcome": outcome if status != "running" else None,
                "scores": scores if status != "running" else None,
                "end_reason": t.end_reason if status != "running" else None,
                "steps": t.steps,
                "state_hash": t.state_hash,
                "started_at": started,
                "ended_at": started + 60 if status != "running" else None,
                "clean_baseline": rng.random() < 0.95,
            }
        )
        if events == "full":
            event_batch.extend({**e, "episode_id": eid} for e in template_events[t.id])
        all_ids.append(eid)
        if len(batch) >= 1000:
            flush()
            made += 1000
            if made % 10_000 < 1000:
                print(f"  {made:,} episodes ({time.perf_counter() - start:.0f} s)", flush=True)
    flush()
    _versions(store, versions)
    _ratings(store, all_ids, labels, rng)
    print(f"{len(all_ids):,} episodes in {url.split('?')[0]} ({time.perf_counter() - start:.0f} s)")


def _versions(store: object, versions: set[tuple[str, str, str]]) -> None:
    """A stored task version for every cloned task id: its template's, under the new id."""
    from sqlalchemy import insert, select

    from sttui.store.tables import TaskRow

    with store.engine.begin() as conn:  # type: ignore[attr-defined]
        rows = {(r.task_id, r.content_hash): r for r in conn.execute(select(TaskRow.__table__))}
        out = []
        for task_id, task_hash, new_id in sorted(versions):
            r = rows[(task_id, task_hash)]._asdict()
            r.pop("id")
            out.append({**r, "task_id": new_id})
        if out:
            conn.execute(insert(TaskRow.__table__), out)  # type: ignore[arg-type]
    print(f"{len(versions):,} task versions for the cloned task ids")


def _ratings(store: object, episode_ids: list[str], labels: int, rng: random.Random) -> None:
    """Ratings by three annotators of every task on its dimensions and of 5,000 episodes, and
    ``labels`` first-error labels (two annotators per labelled episode)."""
    from sqlalchemy import insert

    from sttui.store.tables import LabelRow, RatingRow

    s = store  # type: ignore[assignment]
    ids = {name: s.annotator_id(name) for name in ANNOTATORS}  # type: ignore[attr-defined]
    now = time.time()
    rows = []
    tasks = [f.stem for f in bundled_files()]
    task_items = [f"{t}-c{n:04d}" for n in range(1, 41) for t in tasks][:2000]
    for item in task_items:
        for dim in ("query_checklist_consistency", "checklist_correctness", "dynamics_plausibility"):
            base = rng.randint(2, 5)
            for name in ANNOTATORS:
                value = min(5, max(1, base + rng.choice((-1, 0, 0, 0, 1))))
                rows.append(
                    dict(
                        item_kind="task",
                        item_id=item,
                        dimension=dim,
                        annotator_id=ids[name],
                        value=value,
                        comment=None,
                        created_at=now,
                        withdrawn=False,
                    )
                )
    for eid in rng.sample(episode_ids, min(5000, len(episode_ids))):
        base = rng.randint(1, 5)
        for name in ANNOTATORS:
            value = min(5, max(1, base + rng.choice((-1, 0, 1))))
            rows.append(
                dict(
                    item_kind="episode",
                    item_id=eid,
                    dimension="overall_quality",
                    annotator_id=ids[name],
                    value=value,
                    comment=None,
                    created_at=now,
                    withdrawn=False,
                )
            )
    label_rows = []
    for eid in rng.sample(episode_ids, min(labels, len(episode_ids))):
        for name in ANNOTATORS[:2]:
            label_rows.append(
                dict(
                    episode_id=eid,
                    annotator_id=ids[name],
                    tags=["stale-state execution"],
                    other=None,
                    first_error_seq=rng.randint(3, 12),
                    created_at=now,
                )
            )
    with s.engine.begin() as conn:  # type: ignore[attr-defined]
        conn.execute(insert(RatingRow.__table__), rows)  # type: ignore[arg-type]
        if label_rows:
            conn.execute(insert(LabelRow.__table__), label_rows)  # type: ignore[arg-type]
    print(f"{len(rows):,} ratings, {len(label_rows):,} labels")


def long_task(folder: Path, steps: int) -> Path:
    """A copy of the insulin task, in its own folder beside a copy of its environment, whose
    step limit is ``steps``."""
    dest = folder / "logistics"
    dest.mkdir(parents=True, exist_ok=True)
    shutil.copy2(INSULIN.parent / "env.py", dest / "env.py")
    text = INSULIN.read_text(encoding="utf-8")
    text = re.sub(r"^id: (\S+)", r"id: \1-long", text, count=1, flags=re.M)
    text = text.replace("\ntitle:", f"\nmax_steps: {steps}\ntitle:", 1)
    path = dest / "insulin-long.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def gen_long(url: str, steps: int, folder: Path) -> str:
    from _long import CyclicAgent

    from sttui.controllers.baselines import ScriptedUser
    from sttui.core.loader import load_task
    from sttui.running.recording import run_recorded
    from sttui.store.store import Store

    loaded = load_task(long_task(folder, steps))
    store = Store(url)
    start = time.perf_counter()
    eid, result = asyncio.run(run_recorded(store, loaded, CyclicAgent(), ScriptedUser()))
    n = len(store.events(eid))
    print(f"episode {eid}: {result.steps} steps, {n:,} events ({time.perf_counter() - start:.0f} s)")
    print(json.dumps({"episode": eid}))
    return eid


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="what", required=True)
    t = sub.add_parser("tasks")
    t.add_argument("out", type=Path)
    t.add_argument("--count", type=int, default=2000)
    r = sub.add_parser("records")
    r.add_argument("url")
    r.add_argument("--episodes", type=int, default=100_000)
    r.add_argument("--events", choices=("full", "none"), default="full")
    r.add_argument("--labels", type=int, default=3000)
    r.add_argument("--seed", type=int, default=0)
    r.add_argument("--tasks", type=int, default=2000, help="task ids the clones spread over")
    lg = sub.add_parser("long")
    lg.add_argument("url")
    lg.add_argument("--steps", type=int, default=10_000)
    lg.add_argument("--tasks", type=Path, default=None, help="folder for the long task's copy (default: a temp dir)")
    args = parser.parse_args()
    if args.what == "tasks":
        gen_tasks(args.out, args.count)
    elif args.what == "records":
        gen_records(args.url, args.episodes, args.events, args.labels, args.seed, args.tasks)
    else:
        import tempfile

        gen_long(args.url, args.steps, args.tasks or Path(tempfile.mkdtemp(prefix="sttui-long-")))


if __name__ == "__main__":
    main()
