"""`sttui study report` on a small hand-made record: the clustered interval against an
independent computation, the plain one beside it (narrower here), the pairing with a baseline
on the same tasks (and the note when its setting differs), time on task and position."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
from click.testing import CliRunner

from sttui.cli import main
from sttui.core.loader import load_task
from sttui.store.store import Store
from sttui.store.studies import Studies
from sttui.study.running import start
from tests.conftest import ROOT

TASKS = ROOT / "tasks"
FILES = {
    "clinic-dialysis-urgent-t2-easy": TASKS / "stt/clinic/dialysis-urgent-t2-easy.yaml",
    "logistics-insulin-reefer-st2-easy": TASKS / "stt/logistics/insulin-reefer-fault-st2-easy.yaml",
    "clinic-endoscopy-overrun-t3-medium": TASKS / "stt/clinic/endoscopy-overrun-t3-medium.yaml",
    "clinic-kings-bridge-closure-s3-hard": TASKS / "stt/clinic/kings-bridge-closure-s3-hard.yaml",
}
STUDY = f"""\
study: 1
id: hand
tasks: [{", ".join(FILES)}]
replication: 4
participants: [ana, ben, chen, dev]
instructions: Play the agent.
"""
# who passes: ana and ben nearly always, chen and dev nearly never (people differ a lot)
SKILL = {"ana": 1.0, "ben": 1.0, "chen": 0.0, "dev": 0.0}
FLIP = {("ana", 2), ("dev", 1)}  # (participant, position): the exceptions


def finish(store: Store, eid: str, **values) -> None:
    """End a hand-made episode with the events a real one begins and ends with."""
    from sttui.core.events import Event

    store.write(
        [
            ("event", eid, Event(1, "episode_started", "system", {}, "", 1.0)),
            ("event", eid, Event(2, "episode_ended", "system", {"by": "agent", "reason": "done"}, "", 2.0)),
        ]
    )
    store.finish_episode(eid, "completed", **values)


def build(tmp_path: Path) -> tuple[str, Store, list[dict]]:
    db = f"sqlite:///{tmp_path / 'r.db'}"
    path = tmp_path / "study.yaml"
    path.write_text(STUDY, encoding="utf-8")
    store = Store(db)
    start(store, path, TASKS)
    studies = Studies(store)
    made = []
    for name in SKILL:
        while (a := studies.join("hand", name)).slot is not None:
            slot = a.slot
            loaded = load_task(FILES[slot["task_id"]])
            store.create_episode(loaded, 1, f"human:{name}", "baseline:scripted", episode_id=a.episode_id)
            position = slot["position"] + 1
            passed = bool(SKILL[name]) != ((name, position) in FLIP)
            seconds = 100.0 * position + (10 if passed else 0)
            finish(store, a.episode_id, outcome={"passed": passed}, scores={"human_active_seconds": seconds})
            made.append({"who": name, "task": slot["task_id"], "pos": position, "passed": passed, "s": seconds})
    for task_id, file in FILES.items():  # a baseline on the same versions: passes all but the hard one
        loaded = load_task(file)
        for seed in (1, 2):
            eid = store.create_episode(loaded, seed, "baseline:oracle", "baseline:scripted")
            finish(store, eid, outcome={"passed": "hard" not in task_id})
        eid = store.create_episode(loaded, 3, "baseline:naive", "baseline:scripted", setting="static")
        finish(store, eid, outcome={"passed": False})
    return db, store, made


def independent_clustered(clusters: list[list[float]], rounds: int = 2000, seed: int = 0) -> list[float]:
    """Two-stage resampling written out with the generator's raw draws (random.choices draws
    floor(random() * n)), and numpy's percentile: no code shared with sttui."""
    import random

    rng = random.Random(seed)
    stats = []
    for _ in range(rounds):
        total = count = 0.0
        for _ in range(len(clusters)):
            group = clusters[math.floor(rng.random() * len(clusters))]
            for _ in range(len(group)):
                total += group[math.floor(rng.random() * len(group))]
                count += 1
        stats.append(total / count)
    return [round(float(np.percentile(stats, 2.5)), 4), round(float(np.percentile(stats, 97.5)), 4)]


def test_the_report_clusters_by_participant(tmp_path):
    db, _, made = build(tmp_path)
    out = CliRunner().invoke(main, ["--db", db, "study", "report", "hand", "--json"])
    assert out.exit_code == 0, out.stderr
    found = json.loads(out.stdout)
    assert (found["human_episodes"], found["participants"]) == (16, 4)
    rows = {r["level"]: r for r in found["pass_rate"]}
    overall = rows["all"]
    assert overall["pass_rate"] == round(sum(m["passed"] for m in made) / 16, 4)
    clusters = [[float(m["passed"]) for m in made if m["who"] == who] for who in sorted(SKILL)]
    assert overall["clustered_ci"] == independent_clustered(clusters)
    low, high = overall["clustered_ci"]
    plow, phigh = overall["plain_ci"]
    assert high - low > phigh - plow  # people differ: episodes are not independent draws
    assert {r["level"] for r in found["pass_rate"]} == {"easy", "medium", "hard", "all"}
    # time on task: the person's clock, by position
    secs = sorted(m["s"] for m in made)
    assert found["time_on_task"]["seconds"]["median"] == round(float(np.median(secs)), 1)
    assert [p["position"] for p in found["time_on_task"]["by_position"]] == [1, 2, 3, 4]
    assert found["time_on_task"]["seconds_per_position"] > 0


def test_the_report_pairs_each_baseline_with_the_humans_by_task(tmp_path):
    db, _, made = build(tmp_path)
    found = json.loads(CliRunner().invoke(main, ["--db", db, "study", "report", "hand", "--json"]).stdout)
    versus = {v["controller"]: v for v in found["versus"]}
    oracle = versus["baseline:oracle"]
    human = {t: np.mean([m["passed"] for m in made if m["task"] == t]) for t in FILES}
    model = {t: 0.0 if "hard" in t else 1.0 for t in FILES}
    assert oracle["tasks"] == 4 and oracle["episodes"] == 8
    assert oracle["difference"] == round(float(np.mean([human[t] - model[t] for t in FILES])), 4)
    assert oracle["difference_ci"] is not None and oracle["notes"] == []
    naive = versus["baseline:naive"]  # ran static only: said, not paired
    assert naive["tasks"] == 0 and naive["difference"] is None
    assert any("under another setting than the humans'" in n for n in naive["notes"])
    text = CliRunner().invoke(main, ["--db", db, "study", "report", "hand"]).stdout
    assert "clustered 95% CI" in text and "plain (episodes) 95% CI" in text
    assert "baseline:oracle" in text and "note: under another setting" in text


def test_withdrawn_participants_leave_the_report_and_are_counted(tmp_path):
    db, store, _ = build(tmp_path)
    Studies(store).withdraw("hand", "dev")
    found = json.loads(CliRunner().invoke(main, ["--db", db, "study", "report", "hand", "--json"]).stdout)
    assert (found["human_episodes"], found["participants"], found["left_out"]) == (12, 3, {"withdrawn": 4})


def test_the_report_names_where_humans_and_a_model_part_ways(tmp_path):
    """The human's episode takes the naive plan's steps (copied from a real run); the oracle
    checks the pending requests at step 2 where the human books at once."""
    db = f"sqlite:///{tmp_path / 'd.db'}"
    path = tmp_path / "study.yaml"
    path.write_text(
        "study: 1\nid: d\ntasks: [clinic-dialysis-urgent-t2-easy]\nreplication: 1\nparticipants: [ana]\n"
        "instructions: Play.\n",
        encoding="utf-8",
    )
    store = Store(db)
    start(store, path, TASKS)
    env = {"STTUI_TASKS": str(TASKS)}
    for agent in ("oracle", "naive"):
        CliRunner().invoke(
            main, ["--db", db, "run", "clinic-dialysis-urgent-t2-easy", "--agent", f"baseline:{agent}"], env=env
        )
    naive = next(r for r in store.list_episodes() if r.agent == "baseline:naive")
    a = Studies(store).join("d", "ana")
    loaded = load_task(FILES["clinic-dialysis-urgent-t2-easy"])
    store.create_episode(loaded, naive.seed, "human:ana", naive.user, episode_id=a.episode_id)
    store.write([("event", a.episode_id, e) for e in store.events(naive.id)])
    store.finish_episode(a.episode_id, "completed", outcome=naive.outcome, scores={"human_active_seconds": 60})
    found = json.loads(CliRunner().invoke(main, ["--db", db, "study", "report", "d", "--json"]).stdout)
    parts = {d["controller"]: d for d in found["divergence"]}
    oracle = parts["baseline:oracle"]["most_common"]
    assert (oracle["step"], oracle["episodes"]) == (2, 1)
    assert oracle["human"].startswith("book_appointment(") and oracle["model"].startswith("list_requests(")
    assert parts["baseline:naive"]["most_common"] is None and parts["baseline:naive"]["same_throughout"] == 1
    text = CliRunner().invoke(main, ["--db", db, "study", "report", "d"]).stdout
    assert (
        "clinic-dialysis-urgent-t2-easy vs baseline:oracle: most often at step 2 (1 of 1): human book_appointment("
        in text
    )


def test_a_report_with_nothing_played_ends_without_an_empty_heading(tmp_path):
    db = f"sqlite:///{tmp_path / 's.db'}"
    path = tmp_path / "s.yaml"
    path.write_text(
        "study: 1\nid: empty\ntasks: [clinic-dialysis-urgent-t2-easy]\nreplication: 1\n"
        "participants: [ana]\ninstructions: hi\n",
        encoding="utf-8",
    )
    start(Store(db), path, ROOT / "tasks")
    text = CliRunner().invoke(main, ["--db", db, "study", "report", "empty"]).stdout
    assert "0 scored human episode(s)" in text
    assert not text.rstrip().endswith(":"), text  # no heading with nothing under it
