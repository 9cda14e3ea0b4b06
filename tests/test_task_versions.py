"""Episodes of one task recorded under two task versions: `replay` says in one line when it
re-scores under a version other than the recorded one, and `report` shows when a pass rate
changed with the version."""

from __future__ import annotations

import json
import shutil

from click.testing import CliRunner

from sttui.analysis.version_shifts import shift_line, version_shifts
from sttui.cli import main
from sttui.store.store import Store
from tests.conftest import ROOT

TASK = ROOT / "tasks" / "stt" / "logistics" / "insulin-reefer-fault-st2-easy.yaml"
TASK_ID = "logistics-insulin-reefer-st2-easy"


def cli(db: str, *args, env=None):
    return CliRunner().invoke(main, ["--db", db, *map(str, args)], env=env, catch_exceptions=False)


def two_versions(tmp_path) -> tuple[str, dict[str, str], list[str], list[str], str, str]:
    """Two oracle episodes on the task as bundled (they pass), then two on a version that asks
    for 800 doses (they fail); and one naive episode on each version (both fail)."""
    tasks = tmp_path / "tasks" / "stt" / "logistics"
    tasks.mkdir(parents=True)
    shutil.copy(TASK, tasks / TASK.name)
    shutil.copy(TASK.parent / "env.py", tasks / "env.py")
    db = f"sqlite:///{tmp_path / 'v.db'}"
    env = {"STTUI_TASKS": str(tmp_path / "tasks")}
    assert cli(db, "run", tasks / TASK.name, "--agent", "baseline:oracle", "--trials", "2", env=env).exit_code == 0
    assert cli(db, "run", tasks / TASK.name, "--agent", "baseline:naive", env=env).exit_code == 0
    old_ids = {r["id"] for r in json.loads(cli(db, "sessions", "--json").output)}
    text = (tasks / TASK.name).read_text()
    changed = text.replace(
        'quantity: 500, deadline: "2024-08-15T10:00:00"}', 'quantity: 800, deadline: "2024-08-15T10:00:00"}'
    )
    assert changed != text
    (tasks / TASK.name).write_text(changed)
    assert cli(db, "run", tasks / TASK.name, "--agent", "baseline:oracle", "--trials", "2", env=env).exit_code == 0
    assert cli(db, "run", tasks / TASK.name, "--agent", "baseline:naive", env=env).exit_code == 0
    rows = json.loads(cli(db, "sessions", "--json").output)
    # the oracle's episodes (ids are random: sorted, a naive one could come first)
    old = sorted(r["id"] for r in rows if r["id"] in old_ids and r["agent"] == "baseline:oracle")
    new = sorted(r["id"] for r in rows if r["id"] not in old_ids and r["agent"] == "baseline:oracle")
    store = Store(db)
    old_hash = store.episode(old[0]).task_hash
    new_hash = store.episode(new[0]).task_hash
    assert old_hash != new_hash
    return db, env, old, new, old_hash, new_hash


def test_report_and_replay_name_the_task_version_a_pass_rate_or_a_score_belongs_to(tmp_path):
    db, env, old, new, old_hash, new_hash = two_versions(tmp_path)
    data = json.loads(cli(db, "report", "--json").output)
    shifts = {s["controller"]: s for s in data["task_versions"]}
    oracle = shifts["baseline:oracle"]
    assert oracle["task"] == TASK_ID and oracle["pass_rate_changed"] is True
    assert [(v["version"], v["episodes"], v["passed"]) for v in oracle["versions"]] == [
        (old_hash, 2, 2),
        (new_hash, 2, 0),
    ]
    naive = shifts["baseline:naive"]  # two versions, the naive plan fails on both: no change
    assert naive["pass_rate_changed"] is False and [v["pass_rate"] for v in naive["versions"]] == [0.0, 0.0]
    out = cli(db, "report").output
    assert "Episodes of one task recorded under more than one task version (1 with a pass rate that changed" in out
    assert (
        f"CHANGED {TASK_ID} · baseline:oracle: 2 task versions; pass 100% (2) on {old_hash[:12]} → 0% (2) on "
        f"{new_hash[:12]}"
    ) in out
    assert f"{TASK_ID} · baseline:naive: 2 task versions; pass 0% (1) on {old_hash[:12]} → 0% (1)" in out
    assert "(the same on each)" in out

    # replay: re-scored on the recorded version, then under the current one, which it names
    replayed = cli(db, "replay", old[0], env=env).output
    assert "re-scored on the recorded version: pass" in replayed
    assert f"re-scored under task version {new_hash[:12]}, not the recorded {old_hash[:12]}: fail" in replayed
    as_json = json.loads(cli(db, "replay", old[0], "--json", env=env).output)
    assert as_json["rescored_note"] == f"re-scored under task version {new_hash[:12]}, not the recorded {old_hash[:12]}"
    same = cli(db, "replay", new[0], env=env).output  # recorded on the current version: nothing to say
    assert "re-scored under task version" not in same and "re-scored on the recorded version: fail" in same


def test_one_version_per_task_gives_no_shift():
    class R:
        def __init__(self, task_hash, passed, started):
            self.id, self.task_id, self.task_hash, self.kind = f"e{started}", "t", task_hash, "stt"
            self.status, self.agent, self.setting, self.started_at = "completed", "model:m", "default", started
            self.outcome, self.scores = {"passed": passed}, {}

    assert version_shifts([R("a" * 64, True, 1), R("a" * 64, False, 2)]) == []
    # the versions in the order of their first episode, not of their hashes
    found = version_shifts([R("f" * 64, True, 1), R("a" * 64, False, 2), R("a" * 64, True, 3)])
    assert [v["version"][0] for v in found[0]["versions"]] == ["f", "a"]
    assert shift_line(found[0]) == f"t · model:m: 2 task versions; pass 100% (1) on {'f' * 12} → 50% (2) on {'a' * 12}"
