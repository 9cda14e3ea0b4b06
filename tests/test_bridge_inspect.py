"""sttui's tasks run by the real Inspect AI (sttui/bridges/inspect_tasks.py), with its mockllm
model scripted with a baseline's actions: the oracle's pass, the naive plan's fail, and every
score equals the one ``sttui run`` gives on the same actions."""

from __future__ import annotations

import math
import os
import socket
import subprocess
import sys
import time
import tomllib
import urllib.request
from pathlib import Path

import pytest

pytest.importorskip("inspect_ai")

from inspect_ai import eval as inspect_eval
from inspect_ai.log import read_eval_log
from inspect_ai.model import ModelOutput, ModelUsage, get_model

from sttui.bridges.episodes import action_data, baseline_actions, select_tasks
from sttui.bridges.inspect_tasks import explore, stt

ROOT = Path(__file__).resolve().parent.parent
USAGE = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)  # mockllm counts none itself then
# An offline stand-in for the tokenizer file mockllm counts usage with when an output has none
# (tiktoken downloads it); only the subprocess running `inspect eval` with unscripted mockllm needs it.
TOKENIZER = """import tiktoken, tiktoken.registry
tiktoken.registry.ENCODINGS["o200k_base"] = tiktoken.Encoding(name="o200k_base", pat_str=r"\\S+|\\s+",
    mergeable_ranks={bytes([i]): i for i in range(256)}, special_tokens={})
"""


def scripted(actions):
    """mockllm answering with these agent actions, one generate call each."""
    outputs = []
    for a in actions:
        d = action_data(a)
        out = (
            ModelOutput.from_content("mockllm", d["message"])
            if "message" in d
            else ModelOutput.for_tool_call("mockllm", d["tool"], d["args"])
        )
        out.usage = USAGE
        outputs.append(out)
    return get_model("mockllm/model", custom_outputs=outputs)


def run_inspect(task, model, log_dir):
    [log] = inspect_eval(task, model=model, log_dir=str(log_dir), display="none", max_samples=1)
    assert log.status == "success", log.error
    return log


STT_CASES = [
    "air-ams-connection-t3-easy",
    "clinic-mri-authorisation-t1-hard",
    "air-inverness-crew-cascade-st2-impossible",
]


@pytest.mark.parametrize("task_id", STT_CASES)
def test_stt_oracle_passes_naive_fails_with_sttui_runs_scores(task_id, tmp_path):
    [loaded] = select_tasks("stt", task=task_id)
    for baseline, should_pass in (("oracle", True), ("naive", False)):
        actions, expected = baseline_actions(loaded, baseline, loaded.task.seed)
        assert expected.passed is should_pass  # what `sttui run --agent baseline:B` gives
        log = run_inspect(stt(tasks=task_id), scripted(actions), tmp_path / baseline)
        [sample] = read_eval_log(log.location).samples  # the .eval file reads back
        score = sample.scores["checklist"]
        assert score.value["passed"] == (1.0 if should_pass else 0.0)
        assert score.value["stage_score"] == expected.review["score"]
        assert score.metadata["checklist"] == [i.as_dict() for i in expected.outcome.items]
        assert score.metadata["steps"] == expected.steps
        assert sample.id == task_id
        assert any(m.role == "tool" for m in sample.messages)  # the episode's transcript is the sample's
        metrics = {s.name: s.metrics["mean"].value for s in log.results.scores}
        assert metrics["passed"] == (1.0 if should_pass else 0.0)


def test_explore_scores_equal_sttui_run(tmp_path):
    loaded = select_tasks("explore")[0]
    for baseline in ("oracle", "stale"):
        actions, expected = baseline_actions(loaded, baseline, loaded.task.seed)
        log = run_inspect(explore(tasks=loaded.id), scripted(actions), tmp_path / baseline)
        [sample] = read_eval_log(log.location).samples
        value = sample.scores["explore_metrics"].value
        m = expected.metrics
        for short, key in (("CA", "calibrated_accuracy"), ("EA", "exact_accuracy"), ("FR", "factor_recognition")):
            want = m.get(key)
            assert math.isnan(value[short]) if want is None else value[short] == pytest.approx(want), short
        assert sample.scores["explore_metrics"].metadata["metrics"] == m


def test_trials_are_epochs_on_sttui_runs_seeds_with_pass_at_k(tmp_path):
    """Two trials: epoch i on seed base+i (RunPlan.seed_for), and pass@2 among the reductions."""
    [loaded] = select_tasks("stt", task=STT_CASES[0])
    first, _ = baseline_actions(loaded, "oracle", 5)
    second, _ = baseline_actions(loaded, "naive", 6)
    log = run_inspect(stt(tasks=loaded.id, trials=2, seed=5), scripted(first + second), tmp_path)
    samples = read_eval_log(log.location).samples
    assert [(s.epoch, s.scores["checklist"].metadata["seed"]) for s in samples] == [(1, 5), (2, 6)]
    assert [s.scores["checklist"].value["passed"] for s in samples] == [1.0, 0.0]
    reducers = {s.reducer for s in log.results.scores}
    assert reducers == {"mean", "pass_at_2"}
    by = {(s.name, s.reducer): s.metrics["mean"].value for s in log.results.scores}
    assert by[("passed", "mean")] == 0.5 and by[("passed", "pass_at_2")] == 1.0


def test_record_puts_the_episode_in_the_sttui_record(tmp_path):
    from sttui.running.recording import rebuild
    from sttui.store.store import Store

    [loaded] = select_tasks("stt", task=STT_CASES[0])
    actions, expected = baseline_actions(loaded, "oracle", loaded.task.seed)
    url = f"sqlite:///{tmp_path / 'inspect.db'}"
    log = run_inspect(stt(tasks=loaded.id, record=url), scripted(actions), tmp_path)
    episode_id = log.samples[0].scores["checklist"].metadata["episode"]
    store = Store(url)
    record = store.episode(episode_id)
    assert record.status == "completed" and record.outcome["passed"] is True
    assert record.scores["review"]["score"] == expected.review["score"]
    assert rebuild(loaded, record, store.events(episode_id)).matches  # replay reproduces the recorded episode


def test_selection_parameters_and_a_bad_one(tmp_path):
    assert {s.id for s in stt(level="impossible").dataset} == {
        t.id for t in select_tasks("stt") if t.task.level == "impossible"
    }
    assert {s.metadata["domain"] for s in stt(domain="clinic").dataset} == {"clinic"}
    from inspect_ai._util.error import PrerequisiteError  # (Inspect prints its message alone)

    with pytest.raises(PrerequisiteError, match="no stt task nope"):
        stt(tasks="nope")
    with pytest.raises(PrerequisiteError, match=r"setting: expected one of default, stationary.*got 'bogus'"):
        explore(setting="bogus")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_inspect_eval_finds_the_tasks_by_entry_point_and_inspect_view_serves_the_log(tmp_path):
    """`inspect eval sttui/stt --model mockllm/model` through the entry point pyproject.toml
    declares (installed here as a bare dist-info), then `inspect view` on its log."""
    from importlib.metadata import entry_points

    entry = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["entry-points"]["inspect_ai"]
    (tmp_path / "site").mkdir()
    if not any(e.name == "sttui" for e in entry_points(group="inspect_ai")):
        # not installed with its entry points here (an install older than them): declare them
        # as a bare dist-info; with both, Inspect finds the name twice and finds no task
        dist = tmp_path / "site" / "sttui_entry-0.dist-info"
        dist.mkdir()
        (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: sttui-entry\nVersion: 0\n")
        (dist / "entry_points.txt").write_text("[inspect_ai]\n" + "".join(f"{k} = {v}\n" for k, v in entry.items()))
    (tmp_path / "site" / "sitecustomize.py").write_text(TOKENIZER)
    # this tree's sttui through a link, not ROOT itself on the path: a sttui.egg-info that
    # `pip install -e` leaves in ROOT would then shadow the installed distribution, whose
    # editable-install record is what Inspect reads to name the tasks sttui/…
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "sttui").symlink_to(ROOT / "sttui", target_is_directory=True)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path / "src"), str(tmp_path / "site")])}
    inspect_bin = Path(sys.executable).parent / "inspect"
    logs = tmp_path / "logs"
    done = subprocess.run(
        [
            *(str(inspect_bin), "eval", "sttui/stt", "-T", f"tasks={STT_CASES[0]}", "--model", "mockllm/model"),
            *("--log-dir", str(logs), "--display", "plain"),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    [path] = logs.glob("*.eval")
    log = read_eval_log(str(path))
    assert log.eval.task.endswith("sttui-stt") and log.status == "success"
    assert log.samples[0].scores["checklist"].value["passed"] == 0.0  # mockllm's default text does nothing
    port = _free_port()
    view = subprocess.Popen(
        [str(inspect_bin), "view", "--log-dir", str(logs), "--host", "127.0.0.1", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd=tmp_path,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/logs", timeout=5) as r:
                    body = r.read().decode()
                break
            except OSError:
                if time.monotonic() > deadline or view.poll() is not None:
                    raise
                time.sleep(0.3)
        assert path.name in body
    finally:
        view.terminate()
        view.wait(timeout=10)


def test_a_model_that_breaks_the_protocol_errors_its_episode_as_sttui_run_does(tmp_path):
    """Text where a tool call is needed, three times in a turn: the episode errors and scores
    as `sttui run` scores an errored explore episode (unplayed batches at a random policy's
    score); the sample completes and the eval goes on, as a run does."""
    from sttui.core.explore.metrics import metrics
    from sttui.running.runner import open_episode

    loaded = select_tasks("explore")[0]
    texts = [ModelOutput.from_content("mockllm", "I think I will wait.") for _ in range(3)]
    for out in texts:
        out.usage = USAGE
    log = run_inspect(explore(tasks=loaded.id), get_model("mockllm/model", custom_outputs=texts), tmp_path)
    score = read_eval_log(log.location).samples[0].scores["explore_metrics"]
    assert score.metadata["status"] == "errored" and "broke the protocol 3 times" in score.explanation
    untouched = open_episode(loaded, loaded.task.seed, {"agent": "a", "user": "none"})
    untouched.start()
    assert score.value["CA"] == pytest.approx(metrics(untouched)["calibrated_accuracy"])
