"""Every export format read back by the library that consumes it: Hugging Face ``datasets``
(openai, sharegpt as JSON; hf as Parquet, and pyarrow), Inspect AI's ``read_eval_log``, and an
independent JSON Patch implementation (``jsonpatch``) for the state diffs."""

from __future__ import annotations

import json
import sys

import pytest
from click.testing import CliRunner

from sttui.cli import main
from sttui.core.events import Event
from sttui.store.store import Store
from tests.conftest import ROOT
from tests.conftest import cli_raising as cli

STT = ROOT / "tasks" / "stt"
TASKS = [
    STT / "logistics" / "insulin-reefer-fault-st2-easy.yaml",
    STT / "clinic" / "cardiology-rota-s1-easy.yaml",
    STT / "air-travel" / "aircraft-swap-seats-st1-easy.yaml",
    STT / "air-travel" / "keflavik-ash-closure-s2-impossible.yaml",
    ROOT / "tasks" / "explore" / "finance" / "additive-1.yaml",
    ROOT / "tasks" / "explore" / "healthcare" / "conjunctive-1.yaml",
]
MODEL = "model:openai/gpt-4o-mini"


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """stt episodes of three domains (oracle and naive, so passes and failures) and explore
    episodes of two families; one of them with model calls in its record."""
    db = f"sqlite:///{tmp_path_factory.mktemp('formats') / 'a.db'}"
    assert cli(db, "run", *TASKS, "--agent", "baseline:oracle").exit_code == 0
    assert cli(db, "run", TASKS[0], TASKS[1], "--agent", "baseline:naive").exit_code == 0
    assert cli(db, "run", TASKS[4], "--agent", "baseline:stale").exit_code == 0
    store = Store(db)
    eid = next(r.id for r in store.list_episodes(controller="oracle") if r.task_id.startswith("logistics-insulin"))
    for tokens in ((120, 30), (200, 12)):  # as a model's calls are recorded (sttui.controllers.model)
        payload = {"model": MODEL, "prompt_tokens": tokens[0], "completion_tokens": tokens[1], "cost": 0.5}
        store.append_event(eid, Event(store.next_seq(eid), "model_call", MODEL, payload, ""))
    store.close()
    return db


def hub_offline(monkeypatch) -> None:
    """huggingface_hub reads HF_HUB_OFFLINE once, when first imported: in a worker where another
    test (openenv-core, through gradio) imported it already, the variable alone comes too late."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    constants = pytest.importorskip("huggingface_hub.constants")
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)


@pytest.fixture
def offline_hf(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    hub_offline(monkeypatch)
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    datasets = pytest.importorskip("datasets")
    return datasets


def kinds(db):
    return [r["kind"] for r in json.loads(cli(db, "sessions", "--json").output)]


@pytest.mark.parametrize("suffix", [".jsonl", ".json"])
def test_openai_and_sharegpt_load_in_hugging_face_datasets(recorded, offline_hf, tmp_path, suffix):
    """datasets 5 falls back to its Json feature where a column's type varies; Arrow's own JSON
    reader (what datasets before 5 used, and the source of the error in issue 16) does not, so
    the JSON lines are read with both."""
    pa_json = pytest.importorskip("pyarrow.json")
    n = len(kinds(recorded))
    for fmt in ("openai", "sharegpt"):
        path = tmp_path / f"{fmt}{suffix}"
        out = cli(recorded, "export", "--all", "--format", fmt, "-o", path)
        assert out.exit_code == 0 and "note:" not in out.output
        written = (
            json.loads(path.read_text()) if suffix == ".json" else list(map(json.loads, path.read_text().splitlines()))
        )
        ds = offline_hf.load_dataset("json", data_files=str(path), split="train", cache_dir=str(tmp_path / "c"))
        assert ds.num_rows == n == len(written)  # every episode, explore ones included
        if suffix == ".jsonl":
            assert pa_json.read_json(path).num_rows == n  # one Arrow type per column, or this raises
        if fmt == "openai":
            roles = {m["role"] for row in ds for m in row["messages"]}
            assert roles == {"system", "user", "assistant", "tool"}
            names = {t["function"]["name"] for row in ds for t in row["tools"]}
            assert {"probe", "submit_batch", "answer_assessment"} <= names and len(names) > 10
            for row, example in zip(ds, written, strict=True):  # loaded as written (Arrow adds null keys)
                assert row["tools"] == example["tools"]
                assert [m["content"] for m in row["messages"]] == [m.get("content") for m in example["messages"]]
        else:
            assert [row["conversations"] for row in ds] == [e["conversations"] for e in written]
            assert [json.loads(row["tools"]) for row in ds] == [json.loads(e["tools"]) for e in written]
            assert {t["from"] for row in ds for t in row["conversations"]} == {
                "human",
                "gpt",
                "function_call",
                "observation",
            }


def test_the_openai_tools_are_arrow_safe_json_schema(recorded, tmp_path):
    path = tmp_path / "o.jsonl"
    cli(recorded, "export", "--all", "--format", "openai", "-o", path)
    text = path.read_text()
    assert '"type": ["' not in text  # no type lists: anyOf
    assert '"anyOf": [' in text
    seen: dict[str, set[str]] = {}

    def walk(value, where):
        seen.setdefault(where, set()).add(type(value).__name__)
        if isinstance(value, dict):
            for k, v in value.items():
                walk(v, f"{where}/{k}")
        elif isinstance(value, list):
            for v in value:
                walk(v, f"{where}/[]")

    for line in text.splitlines():
        walk(json.loads(line)["tools"], "")
    mixed = {w: t for w, t in seen.items() if len(t - {"NoneType"}) > 1}
    assert not mixed, mixed  # one JSON type per path across every tool of every task


def test_arrow_safe_keeps_the_schema_meaning():
    from sttui.exports.schemas import arrow_safe

    assert arrow_safe({"type": ["string", "null"], "enum": ["a", "b"], "description": "d", "default": None}) == {
        "description": "d",
        "anyOf": [{"type": "string", "enum": ["a", "b"]}, {"type": "null"}],
    }
    assert arrow_safe({"type": "integer", "default": 5, "description": "n"}) == {
        "type": "integer",
        "description": "n (default 5)",
    }
    assert arrow_safe({"type": "array", "items": {"type": ["string", "integer"]}})["items"] == {
        "anyOf": [{"type": "string"}, {"type": "integer"}]
    }
    assert arrow_safe({"enum": [1, 2]}) == {"description": "(one of [1, 2])"}


def test_explore_episodes_use_the_models_tool_protocol(recorded, tmp_path):
    from sttui.core.chat import EXPLORE_TOOLS
    from sttui.exports.schemas import arrow_safe_tools

    path = tmp_path / "o.jsonl"
    cli(recorded, "export", "--all", "--format", "openai", "-o", path)
    explore = [
        e for e in map(json.loads, path.read_text().splitlines()) if e["tools"][0]["function"]["name"] == "probe"
    ]
    assert len(explore) == 3 and all(e["tools"] == arrow_safe_tools(EXPLORE_TOOLS) for e in explore)
    msgs = explore[0]["messages"]
    assert msgs[0]["role"] == "system" and "hidden rule" in msgs[0]["content"]
    view = json.loads(msgs[1]["content"])  # the masked view, as the model is sent it
    assert {"scenario", "fields", "actions", "cases", "phase"} <= set(view) and "rule" not in view
    calls = [m["tool_calls"][0]["function"]["name"] for m in msgs if m.get("tool_calls")]
    assert calls.count("submit_batch") == 12 and calls.count("answer_assessment") == 2
    for a, b in zip(msgs[2::3], msgs[3::3], strict=False):  # every call answered before the next view
        assert a["role"] == "assistant" and b["role"] == "tool" and b["tool_call_id"] == a["tool_calls"][0]["id"]
    share = tmp_path / "s.jsonl"
    cli(recorded, "export", "--all", "--format", "sharegpt", "-o", share)
    for example in map(json.loads, share.read_text().splitlines()):
        conv = example["conversations"]
        assert len(conv) % 2 == 0
        for i, turn in enumerate(conv):
            assert turn["from"] in (("human", "observation") if i % 2 == 0 else ("gpt", "function_call"))


def test_hf_parquet_loads_in_datasets_and_pyarrow_and_round_trips(recorded, offline_hf, tmp_path):
    pq = pytest.importorskip("pyarrow.parquet")
    path = tmp_path / "episodes.parquet"
    out = cli(recorded, "export", "--all", "--format", "hf", "-o", path)
    assert out.exit_code == 0, out.output
    sessions = {r["id"]: r for r in json.loads(cli(recorded, "sessions", "--json").output)}
    table = pq.read_table(path)
    assert table.num_rows == len(sessions)
    ds = offline_hf.load_dataset("parquet", data_files=str(path), split="train", cache_dir=str(tmp_path / "c"))
    assert ds.num_rows == len(sessions) and ds.column_names == table.column_names
    openai = tmp_path / "o.jsonl"
    cli(recorded, "export", "--all", "--format", "openai", "-o", openai)
    examples = [json.loads(line) for line in openai.read_text().splitlines()]  # the same episodes, in order
    for row, example in zip(ds, examples, strict=True):
        rec = sessions[row["episode_id"]]
        assert (row["task_id"], row["kind"], row["seed"], row["setting"]) == (
            rec["task_id"],
            rec["kind"],
            rec["seed"],
            rec["setting"],
        )
        assert row["agent"] == rec["agent"] and row["user"] == rec["user"]
        assert row["agent_holders"] == [rec["agent"]]
        scores = rec["scores"] or {}
        if rec["kind"] == "stt":
            assert row["passed"] == rec["outcome"]["passed"] and row["stage_score"] == scores["review"]["score"]
            assert row["level"] in {"easy", "impossible"} and row["subtype"] in {"ST2", "S1", "ST1", "S2"}
            assert row["user_holders"] == ["baseline:scripted-user"]
            assert row["calibrated_accuracy"] is None
        else:
            assert row["calibrated_accuracy"] == scores["calibrated_accuracy"] and row["passed"] is None
            assert row["subtype"] in {"additive", "conjunctive"}
        # the same messages and tools as the openai layout (nulls where a message has no such key)
        messages = [{k: v for k, v in m.items() if v is not None} for m in row["messages"]]
        assert messages == [{k: v for k, v in m.items() if v is not None} for m in example["messages"]]
        assert json.loads(row["tools"]) == example["tools"]
    assert {r["domain"] for r in ds} == {"logistics", "clinic", "air-travel", "finance", "healthcare"}


def test_inspect_log_reads_back_with_messages_scores_and_usage(recorded, tmp_path):
    log_api = pytest.importorskip("inspect_ai.log")
    path = tmp_path / "run.eval"
    out = cli(recorded, "export", "--all", "--format", "inspect", "-o", path)
    assert out.exit_code == 0, out.output
    log = log_api.read_eval_log(str(path))
    sessions = {r["id"]: r for r in json.loads(cli(recorded, "sessions", "--json").output)}
    assert log.status == "success" and len(log.samples) == len(sessions)
    assert {s.name for s in log.results.scores} == {"passed", "stage_score", "calibrated_accuracy"}
    for sample in log.samples:
        rec = sessions[sample.id]
        roles = [m.role for m in sample.messages]
        assert roles[0] == "system" and "user" in roles and "tool" in roles
        calls = [c for m in sample.messages if m.role == "assistant" for c in (m.tool_calls or [])]
        results = [m for m in sample.messages if m.role == "tool"]
        assert calls and {r.tool_call_id for r in results} <= {c.id for c in calls}
        assert all(isinstance(c.arguments, dict) for c in calls) and all(r.function for r in results)
        if rec["kind"] == "stt":
            assert sample.scores["passed"].value == float(rec["outcome"]["passed"])
            assert sample.scores["stage_score"].value == rec["scores"]["review"]["score"]
        else:
            assert sample.scores["calibrated_accuracy"].value == rec["scores"]["calibrated_accuracy"]
            assert {c.function for c in calls} <= {"probe", "submit_batch", "answer_assessment"}
        assert sample.metadata["task_id"] == rec["task_id"] and sample.metadata["agent"] == rec["agent"]
    metered = [s for s in log.samples if s.model_usage]
    assert len(metered) == 1
    usage = metered[0].model_usage[MODEL]
    assert (usage.input_tokens, usage.output_tokens, usage.total_tokens, usage.total_cost) == (320, 42, 362, 1.0)
    assert log.stats.model_usage[MODEL].total_tokens == 362


def test_missing_extras_say_how_to_install_them(recorded, tmp_path, monkeypatch):
    for module in ("inspect_ai", "inspect_ai.log", "pyarrow", "pyarrow.parquet"):
        monkeypatch.setitem(sys.modules, module, None)  # an import of it fails
    for fmt, extra in (("inspect", "sttui[inspect]"), ("hf", "sttui[hf]")):
        out = CliRunner().invoke(main, ["--db", recorded, "export", "--all", "--format", fmt, "-o", tmp_path / "x"])
        assert out.exit_code == 2 and f"pip install '{extra}'" in out.output and "Traceback" not in out.output


def test_state_diffs_are_exported_as_json_patch_that_a_second_implementation_applies(tmp_path):
    jsonpatch = pytest.importorskip("jsonpatch")
    from sttui.core import state as st
    from sttui.exports.patch import json_patch

    before = {
        "fleet": {"v1.2": {"temp": 4, "door/seal": "ok"}, "a~b": [1, 2]},
        "stops": [1, 2, 3],
        "plain": {"x": 1},
        "gone.key": True,
    }
    after = {
        "fleet": {"v1.2": {"temp": 9, "door/seal": "broken", "new.field": None}, "a~b": [1, 5]},
        "stops": [1, 2],
        "plain": {"x": 2, "y": {"z": 1}},
        "fresh/one": {"k.k": 1},
    }
    for diff in (st.diff(before, after), st.sync(st.copy_state(before), after)[0]):
        patch = json_patch(diff)
        assert jsonpatch.apply_patch(before, patch) == after
        assert {"op": "replace", "path": "/fleet/v1.2/door~1seal", "value": "broken"} in patch
        assert {"op": "replace", "path": "/fleet/a~0b/1", "value": 5} in patch
        assert {"op": "remove", "path": "/gone.key"} in patch
        # the dotted path stays as it was, for earlier readers
        assert {
            "op": "changed",
            "path": "fleet.v1.2.temp",
            "old": 4,
            "new": 9,
            "keys": ["fleet", "v1.2", "temp"],
        } in diff
        assert {"op": "changed", "path": "plain.x", "old": 1, "new": 2} in diff  # no dot in a key: as before


def test_jsonl_events_carry_a_patch_and_still_round_trip(recorded, tmp_path):
    jsonpatch = pytest.importorskip("jsonpatch")
    path = tmp_path / "all.jsonl"
    cli(recorded, "export", "--all", "-o", path)
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    changed = [e for e in lines if e.get("record") == "event" and e["type"] in ("tool_result", "trigger_fired")]
    assert changed and all("patch" in e for e in changed)
    with_changes = [e for e in changed if e["patch"]]
    assert with_changes
    for e in with_changes:  # each patch applies to a document holding the values it replaces
        diff = e["payload"].get("state_diff") or e["payload"].get("diff")
        doc: dict = {}
        for d in diff:
            node = doc
            keys = d.get("keys") or d["path"].split(".")
            for k in keys[:-1]:
                node = node.setdefault(k, {})
            if d["op"] != "added":
                node[keys[-1]] = d["old"]
        jsonpatch.apply_patch(doc, e["patch"])  # raises when a path or op is wrong
    again = tmp_path / "again.jsonl"
    fresh = f"sqlite:///{tmp_path / 'b.db'}"
    assert cli(fresh, "import", path).exit_code == 0
    cli(fresh, "export", "--all", "-o", again)
    assert path.read_bytes() == again.read_bytes()


def test_a_record_made_before_diffs_carried_keys_still_compares_equal_in_a_rebuild():
    """A rebuild of an older record through a key holding a dot now emits ``keys`` the record
    lacks; the comparison leaves them out, so the record still reproduces (and nothing else
    is left out: a different value still differs)."""
    from sttui.running.recording import _comparable

    new = {"op": "changed", "path": "fleet.v1.2", "old": 1, "new": 2, "keys": ["fleet", "v1.2"]}
    old = {k: v for k, v in new.items() if k != "keys"}
    replayed = Event(3, "tool_result", "agent", {"tool": "t", "result": {}, "state_diff": [new]}, "")
    recorded = Event(3, "tool_result", "agent", {"tool": "t", "result": {}, "state_diff": [old]}, "")
    assert _comparable(replayed) == _comparable(recorded)
    other = Event(3, "tool_result", "agent", {"tool": "t", "result": {}, "state_diff": [{**old, "new": 3}]}, "")
    assert _comparable(replayed) != _comparable(other)
    fired = Event(4, "trigger_fired", "system", {"trigger": "x", "diff": [new]}, "")
    assert _comparable(fired) == _comparable(Event(4, "trigger_fired", "system", {"trigger": "x", "diff": [old]}, ""))


class FakeHub:
    """huggingface_hub.HfApi with the network replaced by a folder: what an upload would send."""

    calls: list = []

    def __init__(self, remote):
        self.remote = remote

    def create_repo(self, repo_id, **kw):
        FakeHub.calls.append(("create_repo", repo_id, kw))

    def upload_folder(self, *, repo_id, folder_path, **kw):
        import shutil

        FakeHub.calls.append(("upload_folder", repo_id, kw))
        shutil.copytree(folder_path, self.remote, dirs_exist_ok=True)
        return type("CommitInfo", (), {"commit_url": f"https://huggingface.co/datasets/{repo_id}/commit/abc"})()


def test_push_to_hub_uploads_the_parquet_and_a_card_the_loaders_read(recorded, offline_hf, tmp_path, monkeypatch):
    hub = pytest.importorskip("huggingface_hub")
    remote = tmp_path / "remote"
    FakeHub.calls = []
    monkeypatch.setattr(hub, "HfApi", lambda: FakeHub(remote))
    path = tmp_path / "e.parquet"
    out = cli(recorded, "export", "--all", "--format", "hf", "-o", path, "--push-to-hub", "lab/sttui-runs")
    assert out.exit_code == 0, out.output
    assert "pushed 9 episode(s) and a dataset card to lab/sttui-runs" in out.output
    assert FakeHub.calls[0] == (
        "create_repo",
        "lab/sttui-runs",
        {"repo_type": "dataset", "private": True, "exist_ok": True},
    )
    assert FakeHub.calls[1][0] == "upload_folder" and FakeHub.calls[1][2]["repo_type"] == "dataset"
    # the card, as the Hub's own parser reads it
    card = hub.DatasetCard((remote / "README.md").read_text())
    meta = card.data.to_dict()
    assert meta["configs"] == [
        {"config_name": "default", "data_files": [{"split": "train", "path": "data/train-00000-of-00001.parquet"}]}
    ]
    assert "sttui" in meta["tags"] and meta["size_categories"] == ["n<1K"]
    assert "9 episode(s) of 6 task(s)" in card.text and "3 explore, 6 stt" in card.text
    for column in ("`messages`", "`tools`", "`stage_score`", "`calibrated_accuracy`", "`agent_holders, user_holders`"):
        assert column in card.text
    assert "- `baseline:oracle`: 6 episode(s)" in card.text and 'load_dataset("lab/sttui-runs"' in card.text
    # and the repository's layout loads as the Hub would serve it: datasets follows the card
    ds = offline_hf.load_dataset(str(remote), split="train", cache_dir=str(tmp_path / "c"))
    assert ds.num_rows == 9 and (remote / "data" / "train-00000-of-00001.parquet").read_bytes() == path.read_bytes()


def test_push_to_hub_refuses_bad_input_and_reports_a_failed_upload_in_one_line(recorded, tmp_path, monkeypatch):
    out = cli(recorded, "export", "--all", "--format", "openai", "-o", tmp_path / "o.jsonl", "--push-to-hub", "a/b")
    assert out.exit_code == 2 and "use it with --format hf" in out.output
    out = cli(recorded, "export", "--all", "--format", "hf", "-o", tmp_path / "e.parquet", "--push-to-hub", "../x")
    assert out.exit_code == 2 and "expected a repository id such as user/name" in out.output
    hub_offline(monkeypatch)  # the real client, kept off the network
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    out = cli(recorded, "export", "--all", "--format", "hf", "-o", tmp_path / "e.parquet", "--push-to-hub", "lab/x")
    assert out.exit_code == 1 and "could not push to lab/x:" in out.output and "Traceback" not in out.output
    assert "offline mode is enabled" in out.output
    assert (tmp_path / "e.parquet").exists()  # the local file is written all the same


def test_every_format_scrubs_what_became_a_secret_after_recording(recorded, tmp_path, monkeypatch):
    """The exports are the last door: a value that is a secret now (an environment variable
    named ...KEY) is redacted from each file, though the record predates it."""
    pq = pytest.importorskip("pyarrow.parquet")
    log_api = pytest.importorskip("inspect_ai.log")
    secret = "north hub to the downtown clinic"  # in the insulin task's query
    monkeypatch.setenv("LAB_API_KEY", secret)
    texts = {}
    for fmt, name in (("jsonl", "a.jsonl"), ("openai", "o.jsonl"), ("sharegpt", "s.jsonl"), ("hf", "h.parquet")):
        assert cli(recorded, "export", "--all", "--format", fmt, "-o", tmp_path / name).exit_code == 0
        texts[fmt] = (tmp_path / name).read_text() if fmt != "hf" else str(pq.read_table(tmp_path / name).to_pylist())
    assert cli(recorded, "export", "--all", "--format", "inspect", "-o", tmp_path / "r.eval").exit_code == 0
    texts["inspect"] = log_api.read_eval_log(str(tmp_path / "r.eval")).model_dump_json()
    for fmt, text in texts.items():
        assert secret not in text and "[redacted]" in text, fmt


def test_an_explore_episode_whose_turns_do_not_rebuild_is_left_out_with_a_note(recorded, tmp_path):
    store = Store(recorded)
    eid = next(r.id for r in store.list_episodes() if r.kind == "explore")
    with store.engine.begin() as conn:  # a record that no longer matches what the engine does
        rows = conn.exec_driver_sql("select seq, payload from events where episode_id = ?", (eid,)).all()
        seq, payload = next((s, p) for s, p in reversed(rows) if "state_hash" in str(p))
        data = json.loads(payload) if isinstance(payload, str) else payload
        data["state_hash"] = "0" * 64
        conn.exec_driver_sql(
            "update events set payload = ? where episode_id = ? and seq = ?", (json.dumps(data), eid, seq)
        )
    store.close()
    try:
        out = cli(recorded, "export", eid, "--format", "openai", "-o", tmp_path / "o.jsonl")
        assert out.exit_code == 0 and f"{eid}: left out, its turns cannot be rebuilt" in out.output
        assert (tmp_path / "o.jsonl").read_text() == ""
    finally:
        store = Store(recorded)
        with store.engine.begin() as conn:
            conn.exec_driver_sql(
                "update events set payload = ? where episode_id = ? and seq = ?",
                (payload if isinstance(payload, str) else json.dumps(payload), eid, seq),
            )
        store.close()
