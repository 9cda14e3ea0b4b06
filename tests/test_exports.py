"""Exports: jsonl round trips exactly; openai and sharegpt files follow their formats;
replay says plainly when the task changed and what differs."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest
from click.testing import CliRunner

from sttui.cli import main
from tests.conftest import ROOT

TASK = ROOT / "tasks" / "stt" / "logistics" / "insulin-reefer-fault-st2-easy.yaml"
EXPLORE = ROOT / "tasks" / "explore" / "finance" / "additive-1.yaml"


def cli(db, *args, env=None):
    result = CliRunner().invoke(main, ["--db", db, *map(str, args)], env=env, catch_exceptions=False)
    return result


@pytest.fixture
def recorded(tmp_path):
    db = f"sqlite:///{tmp_path / 'a.db'}"
    assert cli(db, "run", TASK, EXPLORE, "--agent", "baseline:oracle").exit_code == 0
    assert cli(db, "run", TASK, "--agent", "baseline:naive").exit_code == 0
    return db


def test_jsonl_round_trip_is_identical(recorded, tmp_path):
    first, second = tmp_path / "one.jsonl", tmp_path / "two.jsonl"
    assert cli(recorded, "export", "--all", "-o", first).exit_code == 0
    fresh = f"sqlite:///{tmp_path / 'b.db'}"
    out = cli(fresh, "import", first)
    assert out.exit_code == 0 and "imported 3 episode(s); 0 already present" in out.output
    assert "imported 0 episode(s); 3 already present" in cli(fresh, "import", first).output
    assert cli(fresh, "export", "--all", "-o", second).exit_code == 0
    assert first.read_bytes() == second.read_bytes()
    # and an imported episode replays from the task version carried in the export
    eid = json.loads(first.read_text().splitlines()[1])["episode"]["id"]
    replay = cli(fresh, "replay", eid, "--json")
    assert json.loads(replay.output)["reproduces_record"] is True


def test_corrupt_export_is_refused_with_its_line(recorded, tmp_path):
    good = tmp_path / "good.jsonl"
    cli(recorded, "export", "--all", "-o", good)
    lines = good.read_text().splitlines()
    lines[3] = lines[3][: len(lines[3]) // 2]
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(lines) + "\n")
    fresh = f"sqlite:///{tmp_path / 'c.db'}"
    out = CliRunner().invoke(main, ["--db", fresh, "import", str(bad)])
    assert out.exit_code == 1 and f"{bad}:4: not JSON" in out.output and "nothing was imported" in out.output
    assert "Traceback" not in out.output
    assert json.loads(cli(fresh, "sessions", "--json").output) == []


def test_openai_export_matches_the_chat_fine_tuning_format(recorded, tmp_path):
    path = tmp_path / "o.jsonl"
    out = cli(recorded, "export", "--all", "--format", "openai", "-o", path)
    assert out.exit_code == 0 and "note:" not in out.output
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert len(lines) == 3  # explore episodes too (their layout: tests/test_export_formats.py)
    for example in lines:
        assert set(example) == {"messages", "tools", "parallel_tool_calls"}
        for tool in example["tools"]:
            assert tool["type"] == "function" and tool["function"]["parameters"]["type"] == "object"
            assert isinstance(tool["function"]["name"], str) and tool["function"]["description"]
        msgs = example["messages"]
        assert msgs[0]["role"] == "system" and msgs[1]["role"] == "user"
        open_calls: set[str] = set()
        for m in msgs:
            assert m["role"] in {"system", "user", "assistant", "tool"}
            if m["role"] == "assistant" and m.get("tool_calls"):
                assert m["content"] is None and len(m["tool_calls"]) == 1  # one call per turn
                call = m["tool_calls"][0]
                assert call["type"] == "function" and isinstance(json.loads(call["function"]["arguments"]), dict)
                open_calls.add(call["id"])
            elif m["role"] == "tool":
                assert m["tool_call_id"] in open_calls
                open_calls.remove(m["tool_call_id"])
                json.loads(m["content"])
            else:
                assert isinstance(m["content"], str)
        assert not open_calls
    # the oracle's messages: silent triggers never appear
    assert "reefer-fault" not in path.read_text()


def test_sharegpt_export_follows_llamafactory_rules(recorded, tmp_path):
    path = tmp_path / "s.jsonl"
    cli(recorded, "export", "--all", "--format", "sharegpt", "-o", path)
    for line in path.read_text().splitlines():
        example = json.loads(line)
        assert set(example) == {"conversations", "system", "tools"}
        tools = json.loads(example["tools"])  # a JSON string, as LLaMA-Factory expects
        assert all({"name", "description", "parameters"} <= set(t) for t in tools)
        conv = example["conversations"]
        assert len(conv) % 2 == 0  # LLaMA-Factory's SharegptDatasetConverter drops odd-length examples
        for i, turn in enumerate(conv):
            allowed = ("human", "observation") if i % 2 == 0 else ("gpt", "function_call")
            assert turn["from"] in allowed, (i, turn)
            if turn["from"] == "function_call":
                call = json.loads(turn["value"])
                assert set(call) == {"name", "arguments"} and call["name"] in {t["name"] for t in tools}


def test_replay_says_when_the_task_changed_and_how_the_outcome_differs(tmp_path):
    tasks = tmp_path / "tasks" / "stt" / "logistics"
    tasks.mkdir(parents=True)
    shutil.copy(TASK, tasks / TASK.name)
    shutil.copy(TASK.parent / "env.py", tasks / "env.py")
    db = f"sqlite:///{tmp_path / 'r.db'}"
    env = {"STTUI_TASKS": str(tmp_path / "tasks")}
    assert cli(db, "run", tasks / TASK.name, env=env).exit_code == 0
    eid = json.loads(cli(db, "sessions", "--json").output)[0]["id"]
    same = json.loads(cli(db, "replay", eid, "--json", env=env).output)
    assert same["current_version"] == "unchanged" and same["reproduces_record"] is True
    text = (
        (tasks / TASK.name)
        .read_text()
        .replace(
            'quantity: 500, deadline: "2024-08-15T10:00:00"}\n  - id: cold',
            'quantity: 800, deadline: "2024-08-15T10:00:00"}\n  - id: cold',
        )
    )
    assert "quantity: 800" in text
    (tasks / TASK.name).write_text(text)
    out = cli(db, "replay", eid, env=env).output
    assert "THE TASK FILE HAS CHANGED" in out
    assert "passed: yes -> no" in out and "items.delivered: yes -> no" in out


def test_sessions_filters_and_json_shape(recorded):
    rows = json.loads(cli(recorded, "sessions", "--json").output)
    assert len(rows) == 3
    assert {"id", "task_id", "status", "agent", "user", "outcome", "scores", "started_at"} <= set(rows[0])
    naive = json.loads(cli(recorded, "sessions", "--controller", "naive", "--json").output)
    assert len(naive) == 1 and naive[0]["outcome"]["passed"] is False
    assert json.loads(cli(recorded, "sessions", "--task", "finance", "--json").output)[0]["kind"] == "explore"
    assert json.loads(cli(recorded, "sessions", "--since", "2999-01-01", "--json").output) == []
    table = cli(recorded, "sessions").output
    assert "3 episode(s)" in table and "CA 100%" in table


def test_unreachable_database_from_the_command_line():
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(
        [sys.executable, "-m", "sttui", "--db", "postgresql://x@127.0.0.1:9/none", "sessions"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=60,
    )
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "cannot reach the database" in proc.stderr and "check that the server is running" in proc.stderr


def test_report_compares_controllers_on_the_same_tasks(recorded, tmp_path):
    cli(recorded, "run", ROOT / "tasks" / "stt" / "clinic" / "cardiology-rota-s1-easy.yaml")  # oracle only
    from sttui.store.store import Store

    store = Store(recorded)
    eid = store.list_episodes(controller="naive")[0].id
    store.update_episode(eid, scores={"human_active_seconds": 90.0})  # as a person's episode records it
    data = json.loads(cli(recorded, "report", "--json").output)
    assert data["common_stt_tasks"] == ["logistics-insulin-reefer-st2-easy"]
    rows = {r["controller"]: r for r in data["controllers"]}
    assert rows["baseline:oracle"]["stt_common_pass_at_1"] == 1.0 and rows["baseline:oracle"]["episodes"] == 3
    assert rows["baseline:naive"]["stt_common_pass_at_1"] == 0.0
    assert rows["baseline:naive"]["human_seconds_per_episode"] == 90.0
    text = cli(recorded, "report").output
    assert "baseline:oracle" in text and "100.0%" in text and "1.5 min" in text


def test_replay_prints_words_and_rounded_numbers(recorded):
    import re

    for row in json.loads(cli(recorded, "sessions", "--json").output):
        out = cli(recorded, "replay", row["id"]).output
        assert "{'" not in out and "': " not in out, out  # no Python dicts
        assert not re.search(r"\d\.\d{3,}", out), out  # no float printed unrounded
        if row["kind"] == "explore":
            assert "calibrated accuracy 100%" in out and "ca per batch 1.00 1.00" in out
        elif row["outcome"]["passed"]:
            assert "re-scored on the recorded version: pass   checklist: delivered ✓  cold ✓" in out
        else:
            assert "re-scored on the recorded version: fail   checklist: delivered ✗" in out


def test_training_exports_are_a_json_array_in_a_json_file_and_lines_otherwise(recorded, tmp_path):
    for fmt in ("sharegpt", "openai"):
        array, lines = tmp_path / f"{fmt}.json", tmp_path / f"{fmt}.jsonl"
        out = cli(recorded, "export", "--all", "--format", fmt, "-o", array)
        assert "a JSON array" in out.output
        examples = json.loads(array.read_text())  # the whole file is one JSON document
        assert isinstance(examples, list) and len(examples) == 3 and all(isinstance(e, dict) for e in examples)
        cli(recorded, "export", "--all", "--format", fmt, "-o", lines)
        assert [json.loads(line) for line in lines.read_text().splitlines()] == examples
    # the full record stays JSON lines whatever its name, and says so
    out = cli(recorded, "export", "--all", "-o", tmp_path / "all.json")
    assert "always JSON lines" in out.output and len((tmp_path / "all.json").read_text().splitlines()) > 3
    readme = (ROOT / "README.md").read_text()
    assert "-o train.json` writes one JSON array" in readme and "one example per line" in readme
