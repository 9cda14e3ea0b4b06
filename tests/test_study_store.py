"""A study in the record: started once from its file (edits change nothing), its slots assigned
safely when participants join at the same moment (processes, on SQLite and PostgreSQL), a
SIGKILL mid-join leaving nothing half-assigned, and withdrawal keeping the data."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sttui.store.store import Store
from sttui.store.studies import Studies, StudyProblem
from sttui.study.running import start
from tests.conftest import ROOT

TASKS = ROOT / "tasks"
STUDY = """\
study: 1
id: pilot
tasks: [clinic-dialysis-urgent-t2-easy, logistics-insulin-reefer-st2-easy, clinic-cardiology-rota-s1-easy]
replication: 2
participants: {people}
practice: [logistics-pembrolizumab-goods-in-t1-easy]
instructions: Play the agent seat.
"""


def study_file(tmp_path: Path, people: str = "[ana, ben, chen]", **edits: str) -> Path:
    text = STUDY.format(people=people)
    for old, new in edits.items():
        text = text.replace(old, new)
    path = tmp_path / "study.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def started(db_url: str, tmp_path: Path, people: str = "[ana, ben, chen]") -> Store:
    store = Store(db_url)
    start(store, study_file(tmp_path, people), TASKS)
    return store


def test_start_stores_the_file_and_task_versions_once(db_url, tmp_path):
    store = started(db_url, tmp_path)
    row = Studies(store).study("pilot")
    assert row.source == study_file(tmp_path).read_text()
    assert set(row.tasks) == {
        "logistics-pembrolizumab-goods-in-t1-easy",
        "clinic-dialysis-urgent-t2-easy",
        "logistics-insulin-reefer-st2-easy",
        "clinic-cardiology-rota-s1-easy",
    }
    for task_id, digest in row.tasks.items():
        assert store.task_version(task_id, digest) is not None  # the exact version is kept
    assert start(store, study_file(tmp_path), TASKS).created is False  # the same file joins
    edited = study_file(tmp_path, **{"replication: 2": "replication: 3"})
    with pytest.raises(StudyProblem, match="started from another version of its file"):
        start(store, edited, TASKS)
    assert Studies(store).study("pilot").spec["replication"] == 2
    slots = Studies(store).slots("pilot")
    assert len(slots) == 3 + 3 * 2  # practice for each + 3 tasks × 2 replications


def test_join_takes_practice_then_the_order_and_resumes_an_unfinished_slot(db_url, tmp_path):
    store = started(db_url, tmp_path)
    studies = Studies(store)
    first = studies.join("pilot", "ana")
    assert first.slot["task_id"] == "logistics-pembrolizumab-goods-in-t1-easy" and first.slot["practice"]
    assert (first.resume, first.acknowledged, first.done, first.total) == (False, False, 0, 2)
    again = studies.join("pilot", "ana")  # closed the terminal before the episode existed
    assert (again.slot, again.episode_id, again.resume) == (first.slot, first.episode_id, False)
    from sttui.core.loader import load_task

    loaded = load_task(TASKS / "stt" / "logistics" / "pembrolizumab-goods-in-t1-easy.yaml")
    store.create_episode(loaded, 1, "human:ana", "baseline:scripted", episode_id=first.episode_id)
    resumed = studies.join("pilot", "ana")
    assert (resumed.episode_id, resumed.resume) == (first.episode_id, True)
    store.finish_episode(first.episode_id, "completed")
    nxt = studies.join("pilot", "ana")
    assert nxt.slot["position"] == 1 and not nxt.slot["practice"] and nxt.episode_id != first.episode_id
    with pytest.raises(
        StudyProblem, match="'zoe' is not a participant of study 'pilot'; its participants are: ana, ben, chen"
    ):
        studies.join("pilot", "zoe")
    with pytest.raises(StudyProblem, match="no study 'nope' in the record"):
        studies.join("nope", "ana")


def test_withdrawing_keeps_the_data_and_marks_it(db_url, tmp_path):
    store = started(db_url, tmp_path)
    studies = Studies(store)
    got = studies.join("pilot", "ben")
    assert studies.withdraw("pilot", "ben") == 3  # the assigned practice and two pending slots
    with pytest.raises(StudyProblem, match="ben withdrew from study 'pilot'; their data is kept"):
        studies.join("pilot", "ben")
    mine = [s for s in studies.slots("pilot") if s.participant == "ben"]
    assert {s.status for s in mine} == {"withdrawn"}
    assert [s.episode_id for s in mine if s.episode_id] == [got.episode_id]  # the link stays
    assert [p.status for p in studies.people("pilot") if p.name == "ben"] == ["withdrawn"]


def test_an_anonymous_study_is_full_after_n_joiners(db_url, tmp_path):
    store = started(db_url, tmp_path, "{anonymous: 2}")
    studies = Studies(store)
    a, b = studies.join("pilot", "x"), studies.join("pilot", "y")
    assert {a.participant, b.participant} == {"p01", "p02"}
    assert studies.join("pilot", "x").participant == a.participant  # the same person again
    with pytest.raises(StudyProblem, match="study 'pilot' is full: all 2 participant slots are taken"):
        studies.join("pilot", "z")
    token = studies.reissue("pilot", b.participant)  # the record holds only hashes: a new token
    assert studies.join("pilot", None, token=token).participant == b.participant
    with pytest.raises(StudyProblem, match="no participant of study 'pilot' has that token"):
        studies.join("pilot", None, token="forged")


JOINER = """
import json, sys, time
from sttui.store.store import Store
from sttui.store.studies import Studies, StudyProblem
url, name, at = sys.argv[1], sys.argv[2], float(sys.argv[3])
studies = Studies(Store(url))
time.sleep(max(0.0, at - time.time()))
try:
    got = studies.join("pilot", name)
    print(json.dumps({"participant": got.participant, "slot": got.slot, "episode": got.episode_id}))
except StudyProblem as exc:
    print(json.dumps({"error": str(exc)}))
"""


def _spawn(args: list[str], tmp_path: Path, script: str) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(
        [sys.executable, "-c", script, *args],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_joiners_at_the_same_moment_never_share_a_slot(db_url, tmp_path):
    """Eight processes join a study of five anonymous slots at one instant (two of them twice
    under the same name): five distinct participants, each slot given once, three told it is full."""
    store = started(db_url, tmp_path, "{anonymous: 5}")
    at = time.time() + 3.0
    names = ["a", "b", "c", "d", "e", "f", "a", "b"]
    procs = [_spawn([db_url, n, str(at)], tmp_path, JOINER) for n in names]
    results = []
    for p in procs:
        out, err = p.communicate(timeout=60)
        assert p.returncode == 0, err
        results.append(json.loads(out.strip().splitlines()[-1]))
    joined = [r for r in results if "participant" in r]
    full = [r for r in results if "error" in r]
    by_name: dict[str, set] = {}
    for name, r in zip(names, results, strict=True):
        if "participant" in r:
            by_name.setdefault(name, set()).add((r["participant"], r["episode"]))
    assert all(len(v) == 1 for v in by_name.values())  # the same name twice: the same slot and episode
    people = {next(iter(v))[0] for v in by_name.values()}
    assert len(people) == len(by_name) == 5
    assert len(full) == 8 - len(joined) and all("is full" in r["error"] for r in full)
    assigned = [s for s in Studies(store).slots("pilot") if s.status == "assigned"]
    assert len(assigned) == 5 and len({s.episode_id for s in assigned}) == 5
    assert {s.participant for s in assigned} == people


KILLED = """
import sys, time
import sttui.store.studies as studies_mod
from sttui.store.store import Store
url = sys.argv[1]
def stall():  # inside the join's transaction: the participant is bound, the slot not yet taken
    print("inside", flush=True)
    time.sleep(60)
    return "never"
studies_mod.new_episode_id = stall
studies_mod.Studies(Store(url)).join("pilot", "victim")
"""


def test_a_join_killed_midway_leaves_nothing_half_assigned(db_url, tmp_path):
    store = started(db_url, tmp_path, "{anonymous: 2}")
    victim = _spawn([db_url], tmp_path, KILLED)
    assert victim.stdout.readline().strip() == "inside"
    os.kill(victim.pid, signal.SIGKILL)
    victim.wait(timeout=30)
    assert victim.returncode == -signal.SIGKILL
    studies = Studies(store)
    people = studies.people("pilot")
    assert [p.joined_as for p in people] == [None, None]  # the binding died with the transaction
    assert {s.status for s in studies.slots("pilot")} == {"pending"}
    t0 = time.time()
    got = studies.join("pilot", "next")  # the lock died with the process: no wait, the first slot
    assert time.time() - t0 < 10
    assert got.participant == "p01" and got.slot["position"] == 0
