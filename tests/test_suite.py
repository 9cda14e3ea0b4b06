"""The bundled suite: coverage of the taxonomy, validation, and the baselines' verdicts."""

from __future__ import annotations

import json
from collections import Counter

from click.testing import CliRunner

from sttui.cli import main
from sttui.core.loader import load_all
from sttui.core.task import CONFLICTS
from tests.conftest import ROOT


def _stt():
    tasks, errors = load_all([ROOT / "tasks" / "stt"])
    assert not errors, [str(p) for e in errors for p in e.problems]
    return tasks


def test_every_subtype_at_every_level():
    tasks = _stt()
    combos = Counter((t.task.conflict, t.task.level) for t in tasks)
    for conflict in CONFLICTS:
        for level in ("easy", "medium", "hard", "impossible"):
            assert combos[(conflict, level)] >= 1, (conflict, level)
    assert len({t.task.domain for t in tasks}) >= 3
    assert len(tasks) >= 37


def test_sttui_check_passes_on_the_bundled_tasks():
    result = CliRunner().invoke(main, ["check", str(ROOT / "tasks"), "--json"], catch_exceptions=False)
    report = json.loads(result.output)
    assert [t["file"] for t in report["tasks"] if not t["ok"]] == []
    assert result.exit_code == 0 and report["ok"] is True
    assert len(report["tasks"]) >= 33 + 16
    # every stt task survives the adversarial controls: idle agents, the naive plan without its
    # lookups (left out, and replaced by waiting as long), the random baseline and,
    # on impossible tasks, the solution's calls ending in a claim, an apology or buried words
    idle = ["end-at-once", "polite", "do-nothing", "no-lookups", "no-lookups-waits"]
    scripted = ["claims-success", "vague-apology", "cause-in-words"]
    ids = {t.id for t in _stt()}
    stt = {t["task"]: t["controls"] for t in report["tasks"] if t["task"] in ids}
    assert len(stt) == len(ids) >= 33
    for task, controls in stt.items():
        impossible = task.endswith("impossible")
        assert [c["control"] for c in controls] == [*idle, "random", *(scripted if impossible else [])], task
        assert all(c["ok"] for c in controls), (task, controls)
        assert {c["outcome"] for c in controls if c["control"] != "random"} == {"failed"}, task
        random = next(c for c in controls if c["control"] == "random")
        assert int(random["outcome"].split("/")[0]) <= (0 if impossible else 2), task


def test_oracle_passes_every_solvable_task_and_naive_fails_them(tmp_path):
    runner = CliRunner()
    db = f"sqlite:///{tmp_path / 'r.db'}"
    oracle = json.loads(runner.invoke(main, ["--db", db, "run", str(ROOT / "tasks" / "stt"), "--json"]).output)
    naive = json.loads(
        runner.invoke(
            main, ["--db", db, "run", str(ROOT / "tasks" / "stt"), "--agent", "baseline:naive", "--json"]
        ).output
    )
    assert all(e["passed"] for e in oracle["episodes"])
    assert not any(e["passed"] for e in naive["episodes"])
    assert oracle["summary"]["stt"]["overall"] == 1.0 and naive["summary"]["stt"]["overall"] == 0.0
    first = oracle["episodes"][0]
    assert {"task", "agent", "passed", "checklist", "steps", "episode", "level", "conflict"} <= set(first)
    assert set(oracle["summary"]["stt"]["levels"]) == {"easy", "medium", "hard", "impossible"}
    assert set(oracle["summary"]["stt"]["conflicts"]) == set(CONFLICTS)


def test_check_fails_a_task_whose_naive_plan_passes(tmp_path):
    import shutil

    src = ROOT / "tasks" / "stt" / "logistics"
    dst = tmp_path / "logistics"
    dst.mkdir()
    shutil.copy(src / "env.py", dst / "env.py")
    text = (src / "insulin-reefer-fault-st2-easy.yaml").read_text()
    # make the trigger harmless: the naive plan then succeeds and check must say so
    text = text.replace(
        "- {set: vehicles.TRK-7.status, value: out of service}", "- {set: vehicles.TRK-7.note, value: x}"
    )
    text = text.replace(
        "- {set: vehicles.TRK-7.refrigeration, value: failed}", "- {set: vehicles.TRK-7.note2, value: x}"
    )
    (dst / "task.yaml").write_text(text)
    result = CliRunner().invoke(main, ["check", str(dst)])
    assert result.exit_code == 1
    assert "naive_plan passes the checklist; the triggers must break it" in result.output


def test_human_judge_at_the_terminal(tmp_path):
    task = ROOT / "tasks" / "stt" / "logistics" / "mull-blood-ferry-s3-impossible.yaml"
    runner = CliRunner()
    yes = runner.invoke(
        main, ["run", str(task), "--no-record", "--judge", "human", "--json"], input="y\nnamed the gale\ny\n\n"
    )
    assert yes.exit_code == 0, yes.output
    episode = json.loads(yes.stdout[yes.stdout.index("{") :])["episodes"][0]
    assert episode["judged_by"] == "human" and episode["passed"] is True
    assert episode["checklist"][0]["detail"] == "human: named the gale"
    no = runner.invoke(main, ["run", str(task), "--no-record", "--judge", "human", "--json"], input="y\n\nn\n\n")
    assert json.loads(no.stdout[no.stdout.index("{") :])["episodes"][0]["passed"] is False


def test_every_bundled_stt_task_has_its_own_milestones_and_minefields():
    for t in _stt():
        assert len(t.task.milestones) >= 3, t.id
        assert t.task.minefields, t.id
        ids = [m.id for m in t.task.milestones]
        assert len(set(ids)) == len(ids), t.id


def test_a_domain_kind_or_level_named_as_a_task_says_what_to_name(tmp_path, monkeypatch):
    """`sttui run clinic` names a domain, not a task: the error says which folder to name."""
    monkeypatch.chdir(ROOT)
    runner = CliRunner()
    db = f"sqlite:///{tmp_path / 'r.db'}"
    said = {}
    for name in ("clinic", "explore", "hard", "no-such-thing"):
        result = runner.invoke(main, ["--db", db, "run", name, "--no-record"])
        assert result.exit_code == 1
        said[name] = result.output.splitlines()
    assert said["clinic"][0] == "error: no task 'clinic' under tasks"
    clinic = len(list((ROOT / "tasks" / "stt" / "clinic").glob("*.yaml")))
    assert (
        said["clinic"][1]
        == f"  'clinic' is a domain: its {clinic} task(s) are under tasks/stt/clinic; name that folder"
    )
    assert said["explore"][1].startswith("  'explore' is a kind: its ") and said["explore"][1].endswith(
        "are under tasks/explore; name that folder"
    )
    assert (
        said["hard"][1].startswith("  'hard' is a level of ")
        and "name the tasks by id, file or folder" in said["hard"][1]
    )
    assert said["no-such-thing"] == ["error: no task 'no-such-thing' under tasks"]
    played = runner.invoke(main, ["--db", db, "play", "clinic"])
    assert played.exit_code == 1
    assert played.output.splitlines()[1] == (
        f"  'clinic' is a domain of {clinic} task(s), not one task: `sttui tasks tasks/stt/clinic` lists their ids"
    )
