"""A model provider's failures end the episode as errored with the provider's reason, keys
scrubbed, never a traceback: authentication, not found, bad request, an empty answer, a
runaway answer. Retries wait at least the provider's Retry-After, with jitter."""

from __future__ import annotations

import json
import random
import time

import pytest
from click.testing import CliRunner

from sttui.cli import main
from sttui.controllers import model as model_mod
from sttui.store.store import Store
from tests.conftest import ROOT
from tests.helpers.stub_openai import StubServer, calls, completion, error, planner, say, tool_call

STT = ROOT / "tasks" / "stt" / "logistics" / "insulin-reefer-fault-st2-easy.yaml"
KEY = "sk-stub-0123456789abcdef"


def episode_task() -> str:
    from sttui.core.loader import load_task

    return load_task(STT).id


@pytest.fixture(autouse=True)
def _key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("STTUI_TRUST_CWD", "1")  # the working directory's sttui.yaml points at the stub


def run(tmp_path, monkeypatch, respond, retries=1):
    db = f"sqlite:///{tmp_path / 'f.db'}"
    with StubServer(respond) as stub:
        (tmp_path / "sttui.yaml").write_text(
            f"models:\n  stub: {{model: openai/stub-model, api_base: '{stub.base}', retries: {retries}, backoff: 0.01}}\n"
        )
        monkeypatch.chdir(tmp_path)
        out = CliRunner().invoke(main, ["--db", db, "run", str(STT), "--agent", "model:stub", "--json"])
    return out, Store(db), stub


@pytest.mark.parametrize(
    ("status", "kind"),
    [(401, "AuthenticationError"), (404, "NotFoundError"), (400, "BadRequestError"), (403, "APIError")],
)
def test_a_refusing_provider_ends_the_episode_errored_with_its_reason_and_no_key(tmp_path, monkeypatch, status, kind):
    out, store, stub = run(tmp_path, monkeypatch, lambda r: error(status, f"bad credentials: Bearer {KEY}"))
    assert out.exit_code == 1, out.output  # an errored episode is no clean run for a script
    assert out.stderr.strip().splitlines() == [
        f"error: 1 of 1 episode(s) errored; the first, {episode_task()} trial 0: "
        + json.loads(out.stdout)["episodes"][0]["error"]
    ]
    data = json.loads(out.stdout)
    episode = data["episodes"][0]
    assert episode["status"] == "errored" and kind in episode["error"]
    assert KEY not in out.output and KEY not in (out.stderr or "")
    assert len(stub.requests) == 1  # not retried: it will not get better
    record = store.list_episodes()[0]
    assert record.status == "errored" and kind in record.end_reason and KEY not in record.end_reason


def test_an_answer_with_no_choices_errors_the_episode(tmp_path, monkeypatch):
    empty = {**completion(say("x")), "choices": []}
    out, store, _ = run(tmp_path, monkeypatch, lambda r: (200, empty, 0.0))
    episode = json.loads(out.stdout)["episodes"][0]
    assert episode["status"] == "errored" and "no choices" in episode["error"]
    assert store.list_episodes()[0].status == "errored"


def test_a_runaway_answer_is_cut_and_refused_and_the_record_stays_small(tmp_path, monkeypatch):
    huge = say("x" * 3_000_000)
    out, store, stub = run(tmp_path, monkeypatch, lambda r: (200, completion(huge), 0.0))
    episode = json.loads(out.stdout)["episodes"][0]
    assert episode["status"] == "errored" and "broke the protocol" in episode["error"]
    assert "answers are limited to 200,000" in episode["error"]
    store.close()
    size = sum(p.stat().st_size for p in tmp_path.glob("f.db*"))
    assert size < 2_000_000, size
    # the repair requests never carry the runaway answer back
    assert all(len(json.dumps(r)) < 1_000_000 for r in stub.requests)


def test_retry_after_is_honoured(tmp_path, monkeypatch):
    loaded_steps = [calls(tool_call("end_episode", {"reason": "done"}, "call_end"))]
    script = planner(loaded_steps)
    first = [True]

    def respond(request):
        if first[0]:
            first[0] = False
            status, body, _ = error(429, "slow down")
            return status, body, 0.0, {"Retry-After": "1"}
        return script(request)

    start = time.monotonic()
    out, _, stub = run(tmp_path, monkeypatch, respond, retries=2)
    assert json.loads(out.stdout)["episodes"][0]["status"] == "completed"
    assert time.monotonic() - start >= 1.0 and len(stub.requests) == 2


def test_backoff_has_jitter_and_a_cap_on_retry_after():
    random.seed(3)
    waits = {round(model_mod._wait(1.0, Exception()), 6) for _ in range(20)}
    assert len(waits) > 10 and all(0.5 <= w <= 1.5 for w in waits)

    class Slow(Exception):
        class response:
            headers = {"retry-after": "100000"}

    assert model_mod._wait(1.0, Slow()) == model_mod.MAX_RETRY_AFTER


def test_a_provider_failure_while_resuming_ends_the_episode_errored(tmp_path, monkeypatch):
    from sttui.core.actions import ToolCall
    from sttui.core.loader import load_task
    from sttui.running.recording import Recorder
    from sttui.running.runner import open_episode

    db = f"sqlite:///{tmp_path / 'r.db'}"
    store = Store(db)
    loaded = load_task(STT)
    eid = store.create_episode(loaded, 0, "baseline:oracle", "baseline:scripted-user")
    episode = open_episode(loaded, 0, {"agent": "baseline:oracle", "user": "baseline:scripted-user"})
    episode.listeners.append(Recorder(store, eid))
    episode.start()
    step = loaded.task.solution[0]
    episode.apply(ToolCall(step.tool, dict(step.args)))  # one step, then the process went away
    with StubServer(lambda r: error(401, f"bad key Bearer {KEY}")) as stub:
        (tmp_path / "sttui.yaml").write_text(
            f"models:\n  stub: {{model: openai/stub-model, api_base: '{stub.base}', retries: 0}}\n"
        )
        monkeypatch.chdir(tmp_path)
        out = CliRunner().invoke(main, ["--db", db, "resume", eid, "--headless", "--agent", "model:stub"])
    assert out.exit_code == 1 and "AuthenticationError" in out.output and KEY not in out.output
    record = store.episode(eid)
    assert record.status == "errored" and "AuthenticationError" in record.end_reason


def test_a_missing_api_key_is_final_not_retried(tmp_path, monkeypatch):
    """litellm reports a missing key as an InternalServerError; retrying cannot mend it, so the
    episode errors at once with what to set, and the stub never sees a request."""
    monkeypatch.delenv("OPENAI_API_KEY")
    monkeypatch.delenv("OPENAI_ADMIN_KEY", raising=False)
    out, store, stub = run(tmp_path, monkeypatch, lambda r: completion(say("unused")), retries=3)
    assert out.exit_code == 1, out.output
    error = json.loads(out.stdout)["episodes"][0]["error"]
    assert "no credentials for this provider" in error and "OPENAI_API_KEY" in error
    assert stub.requests == []
    faults = [e for e in store.events(store.list_episodes()[0].id) if e.type == "model_fault"]
    assert len(faults) == 1  # one attempt, not four with backoff


def test_a_malformed_answer_keeps_the_one_line_reason_without_litellms_traceback_or_paths(tmp_path, monkeypatch):
    """A usage that is not an object makes litellm raise "Invalid response object" followed by
    its own traceback, with the paths of its files: the reason stays, the rest goes."""
    broken = {**completion(say("x")), "usage": "lots"}
    out, store, _ = run(tmp_path, monkeypatch, lambda r: (200, broken, 0.0))
    episode = json.loads(out.stdout)["episodes"][0]
    record = store.list_episodes()[0]
    for text in (episode["error"], record.end_reason, out.stderr):
        assert "Invalid response object" in text, text
        assert "Traceback" not in text and "site-packages" not in text and 'File "' not in text, text
        assert "\n" not in text.strip(), text
    assert record.status == "errored"
