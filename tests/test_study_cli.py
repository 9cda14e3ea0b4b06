"""The experimenter's commands: `sttui study start`, `status` (stuck slots named), `withdraw`,
and one clear line for bad input (failing tasks, an unknown participant, a full study)."""

from __future__ import annotations

import json
import time
from pathlib import Path

from click.testing import CliRunner
from sqlalchemy import text

from sttui.cli import main
from sttui.store.store import Store
from sttui.store.studies import Studies
from tests.conftest import ROOT

STUDY = """\
study: 1
id: pilot
tasks: [clinic-dialysis-urgent-t2-easy, logistics-insulin-reefer-st2-easy]
replication: 1
participants: {people}
instructions: Play the agent.
time_limit: {{minutes: 5}}
"""


def cli(db: str, *args: str) -> tuple[int, str, str]:
    out = CliRunner().invoke(main, ["--db", db, *args], env={"STTUI_TASKS": str(ROOT / "tasks")})
    return out.exit_code, out.stdout, out.stderr


def write(tmp_path: Path, people: str = "[ana, ben]", body: str = STUDY) -> Path:
    path = tmp_path / "study.yaml"
    path.write_text(body.format(people=people), encoding="utf-8")
    return path


def test_start_then_status_names_stuck_slots(db_url, tmp_path):
    path = write(tmp_path)
    code, out, err = cli(db_url, "study", "start", str(path))
    assert code == 0, err
    assert "study pilot started: 2 slots for 2 participant(s)" in out
    store = Store(db_url)
    Studies(store).join("pilot", "ana")  # assigned; the session never opened its episode
    got = Studies(store).join("pilot", "ben")
    from sttui.core.loader import load_task

    loaded = load_task(ROOT / "tasks/stt/logistics/insulin-reefer-fault-st2-easy.yaml")
    store.create_episode(loaded, 1, "human:ben", "baseline:scripted", episode_id=got.episode_id)
    with store.engine.begin() as conn:  # both were long ago
        conn.execute(text("UPDATE study_slots SET assigned_at = :t"), {"t": time.time() - 3600})
        conn.execute(text("UPDATE episodes SET started_at = :t"), {"t": time.time() - 3600})
    code, out, err = cli(db_url, "study", "status", "pilot", "--json")
    assert code == 0, err
    found = json.loads(out)
    stuck = {s["participant"]: s["why"] for s in found["stuck"]}
    assert stuck["ana"].startswith("assigned, but its episode was never opened")
    assert stuck["ben"] == f"running for 60 min (episode {got.episode_id})"  # past twice the 5 min limit
    assert [p["current"] for p in found["participants"]] == [
        "clinic-dialysis-urgent-t2-easy",
        "logistics-insulin-reefer-st2-easy",
    ]
    code, out, _ = cli(db_url, "study", "status", str(path))  # by file too
    assert "stuck slots:\n  ana · clinic-dialysis-urgent-t2-easy (position 0): assigned" in out
    assert "  clinic-dialysis-urgent-t2-easy: 0/1" in out


def test_editing_the_file_after_the_start_changes_nothing(tmp_path):
    db = f"sqlite:///{tmp_path / 's.db'}"
    path = write(tmp_path)
    assert cli(db, "study", "start", str(path), "--no-check")[0] == 0
    path.write_text(path.read_text().replace("replication: 1", "replication: 2"))
    code, _, err = cli(db, "study", "start", str(path), "--no-check")
    assert code == 2 and "started from another version of its file" in err
    code, out, err = cli(db, "study", "status", str(path))
    assert code == 0 and "changed since study pilot started; the study runs as it started" in err
    assert "replication 1 per task" in out


def test_bad_input_gets_one_clear_line(tmp_path):
    db = f"sqlite:///{tmp_path / 's.db'}"
    code, _, err = cli(db, "study", "join", "nope", "--as", "a b")
    assert (code, err.strip()) == (2, "error: --as 'a b': a name is 1 to 40 letters, digits, '.', '_' or '-'")
    code, _, err = cli(db, "study", "join", "nope", "--as", "ana")
    assert (code, err.strip()) == (2, "error: no study 'nope' in the record; `sttui study start FILE` starts it")
    path = write(tmp_path, "{anonymous: 1}")
    assert cli(db, "study", "start", str(path), "--no-check")[0] == 0
    store = Store(db)
    Studies(store).join("pilot", "first")
    code, _, err = cli(db, "study", "join", "pilot", "--as", "second")
    assert (code, err.strip()) == (2, "error: study 'pilot' is full: all 1 participant slots are taken")
    code, _, err = cli(db, "study", "withdraw", "pilot", "zed")
    assert (code, err.strip()) == (2, "error: 'zed' is not a participant of study 'pilot'")
    code, out, _ = cli(db, "study", "withdraw", "pilot", "first")
    assert code == 0 and "data kept" in out
    code, _, err = cli(db, "study", "join", "pilot", "--as", "first")
    assert code == 2 and "withdrew from study 'pilot'" in err


def test_start_refuses_tasks_that_fail_check(tmp_path):
    bad = tmp_path / "bad" / "clinic"
    bad.mkdir(parents=True)
    src = (ROOT / "tasks/stt/clinic/dialysis-urgent-t2-easy.yaml").read_text()
    (bad / "env.py").write_text((ROOT / "tasks/stt/clinic/env.py").read_text())
    (bad / "t.yaml").write_text(src.partition("\nsolution:")[0] + '\nsolution:\n  - {say: "done"}\n')
    body = STUDY.replace("[clinic-dialysis-urgent-t2-easy, logistics-insulin-reefer-st2-easy]", "[bad/]")
    db = f"sqlite:///{tmp_path / 's.db'}"
    code, _, err = cli(db, "study", "start", str(write(tmp_path, body=body)))
    assert code == 1
    assert err.startswith("error: task clinic-dialysis-urgent-t2-easy fails `sttui check`: ")
    assert len(err.strip().splitlines()) == 1
    assert Studies(Store(db)).study("pilot") is None


def test_a_finished_task_is_not_shown_as_being_played(tmp_path):
    db = f"sqlite:///{tmp_path / 's.db'}"
    assert cli(db, "study", "start", str(write(tmp_path)), "--no-check")[0] == 0
    store = Store(db)
    got = Studies(store).join("pilot", "ana")
    from sttui.core.loader import load_task

    loaded = load_task(ROOT / "tasks/stt/clinic/dialysis-urgent-t2-easy.yaml")
    store.create_episode(loaded, 1, "human:ana", "baseline:scripted", episode_id=got.episode_id)
    assert (
        json.loads(cli(db, "study", "status", "pilot", "--json")[1])["participants"][0]["current"]
        == got.slot["task_id"]
    )
    store.finish_episode(
        got.episode_id, "completed", outcome={"passed": False}, end_reason="time limit of 1 minutes reached"
    )
    ana = json.loads(cli(db, "study", "status", "pilot", "--json")[1])["participants"][0]
    assert (ana["current"], ana["done"], ana["outcomes"]) == (None, 1, {"limit": 1})
    assert ana["status"] == ("finished" if ana["total"] == 1 else "active")  # (not "active" with nothing left)
    code, out, _ = cli(db, "study", "tokens", "pilot")  # a named study has no slots' tokens to list
    assert code == 0 and out.startswith("study pilot names its participants: it has no anonymous slots")


def test_status_columns_stay_aligned_with_a_long_name():
    from sttui.study.progress import render

    def person(name, joined, done, total, seconds):
        return {"participant": name, "joined_as": joined, "outcomes": {}, "seconds_on_task": seconds,
                "current": None, "status": "active", "done": done, "total": total}  # fmt: skip

    found = {
        "study": "s",
        "replication": 1,
        "participants": [person("ana", None, 1, 1, 90), person("p02", "a-rather-long-name", 10, 12, 1234.5)],
        "tasks": [],
        "stuck": [],
    }
    header, *rows = render(found)[1:4]
    for column in ("status", "time"):
        at = header.index(column) + len(column) if column == "time" else header.index(column)
        for row in rows:  # each value ends (time) or starts (status) where its heading does
            assert row[at - 1] != " " if column == "time" else row[at - 1] == " " and row[at] != " ", (column, row)
