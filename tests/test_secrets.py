"""No key leaves the process: not through the database (nor its WAL), an export, stdout, stderr
or a log. Keys are the values of secret-named environment variables and anything shaped like
a well-known key (sk-…, sk-ant-…, hf_…, AKIA…, Bearer …) that a person pastes somewhere."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import logging
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from sttui.cli import main
from sttui.controllers.baselines import PlanAgent, ScriptedUser
from sttui.core.loader import load_task
from sttui.running.recording import run_recorded
from sttui.store.secrets import REDACTED, scrub, scrub_text
from sttui.store.store import Store
from tests.conftest import ROOT
from tests.helpers.stub_openai import StubServer, calls, completion, error, say, tool_call

TASK = ROOT / "tasks" / "stt" / "logistics" / "insulin-reefer-fault-st2-easy.yaml"
ENV_KEY = "sk-test-4f9a8b7c6d5e4f3a2b1c0d9e"  # set in the environment
PASTED = {  # typed by a person, set nowhere
    "openai": "sk-proj-Q7cd93kLm2Xa8TbVw4Rz6Yp1Nn0Ee5Uu",
    "anthropic": "sk-ant-api03-Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe",
    "huggingface": "hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567",
    "aws": "AKIAIOSFODNN7EXAMPLE",
}
ALL_KEYS = [ENV_KEY, *PASTED.values()]


def cli(db, *args, env=None):
    return CliRunner().invoke(main, ["--db", db, *map(str, args)], env=env)


def leaked(blob: str | bytes) -> list[str]:
    text = blob.decode("utf-8", "replace") if isinstance(blob, bytes) else blob
    return [k for k in ALL_KEYS if k in text]


@pytest.mark.parametrize(
    ("text", "clean"),
    [
        (f"my key is {PASTED['openai']}", "my key is [redacted]"),
        (f"anthropic {PASTED['anthropic']}.", "anthropic [redacted]."),
        (f"token={PASTED['huggingface']}", "token=[redacted]"),
        (f"aws {PASTED['aws']} here", "aws [redacted] here"),
        ("Authorization: Bearer abc.DEF-123_xyz", "Authorization: Bearer [redacted]"),
        ('{"error": "bad key Bearer sk-x1y2z3w4"}', '{"error": "bad key Bearer [redacted]"}'),
        (f'"line one\\n{PASTED["openai"]}"', '"line one\\n[redacted]"'),  # inside JSON text
        ("logistics-insulin-reefer-st2-easy", "logistics-insulin-reefer-st2-easy"),
        ("desk-abcdefghijklmnopqrstuvwxyz", "desk-abcdefghijklmnopqrstuvwxyz"),
        ("sk-short", "sk-short"),
        ("Bearer bonds", "Bearer bonds"),
        ("AKIA is a prefix", "AKIA is a prefix"),
    ],
)
def test_key_shapes_are_scrubbed_and_ordinary_text_is_not(text, clean):
    assert scrub_text(text, []) == clean


def test_scrub_covers_keys_values_and_secret_named_fields():
    payload = {"note": f"key {PASTED['openai']}", PASTED["aws"]: 1, "api_key": "short", "n": (1, 2)}
    assert scrub(payload, [ENV_KEY]) == {"note": "key [redacted]", REDACTED: 1, "api_key": REDACTED, "n": [1, 2]}
    assert scrub({"said": f"use {ENV_KEY}"}, [ENV_KEY]) == {"said": "use [redacted]"}


@pytest.fixture
def keyed_task(tmp_path, monkeypatch):
    """A task whose query carries a pasted key, an environment with a key, and an agent that
    pastes keys into its messages."""
    monkeypatch.setenv("OPENAI_API_KEY", ENV_KEY)
    folder = tmp_path / "tasks" / "stt" / "logistics"
    folder.mkdir(parents=True)
    shutil.copy(TASK.parent / "env.py", folder / "env.py")
    text = TASK.read_text()
    assert "\nquery: Please get" in text
    text = text.replace("\nquery: Please get", f"\nquery: My key is {PASTED['anthropic']}. Please get", 1)
    (folder / TASK.name).write_text(text)
    return load_task(folder / TASK.name)


def _record(db_url: str, loaded) -> tuple[Store, str]:
    store = Store(db_url)
    step = type(loaded.task.solution[0])
    said = f"keys: {ENV_KEY} {PASTED['openai']} {PASTED['huggingface']} {PASTED['aws']}"
    agent = PlanAgent(f"model:openai/gpt-4o-mini {PASTED['openai']}", [*loaded.task.solution, step(say=said)])
    eid, _ = asyncio.run(run_recorded(store, loaded, agent, ScriptedUser()))
    store.add_note("ana", f"used {PASTED['huggingface']}", episode_id=eid)
    store.update_episode(eid, end_reason=f"server said Bearer {PASTED['openai']}")
    return store, eid


def _dump(store: Store) -> str:
    tables = ("tasks", "episodes", "events", "notes")
    with store.engine.connect() as conn:
        return "".join(str(row) for t in tables for row in conn.exec_driver_sql(f"select * from {t}"))


def test_keys_never_reach_the_database_or_its_wal(db_url, keyed_task, tmp_path):
    store, _ = _record(db_url, keyed_task)
    assert leaked(_dump(store)) == []
    assert REDACTED in _dump(store)
    if db_url.startswith("sqlite"):
        path = Path(db_url.removeprefix("sqlite:///"))
        wal = path.with_name(path.name + "-wal")
        assert wal.exists()  # read while the store is open, before any checkpoint empties it
        assert leaked(path.read_bytes()) == [] and leaked(wal.read_bytes()) == []
    version = store.task_version(keyed_task.id, keyed_task.content_hash)
    assert version.meta["redacted"] is True and "My key is [redacted]" in version.source
    assert version.content_hash == keyed_task.content_hash  # the hash still names the original file


def compressed_exports(db: str, eid: str, tmp_path: Path) -> list[tuple[str, str]]:
    """The optional formats (their extras installed), exported and read back as text with their
    own readers: Parquet and Inspect's .eval are compressed, so their bytes hide nothing."""
    found = []
    if importlib.util.find_spec("pyarrow") is not None:
        import pyarrow.parquet as pq

        out = tmp_path / "export.parquet"
        assert cli(db, "export", eid, "--format", "hf", "-o", out).exit_code == 0
        found.append(("hf", json.dumps(pq.read_table(out).to_pylist(), default=str)))
    if importlib.util.find_spec("inspect_ai") is not None:
        from inspect_ai.log import read_eval_log

        out = tmp_path / "export.eval"
        assert cli(db, "export", eid, "--format", "inspect", "-o", out).exit_code == 0
        found.append(("inspect", read_eval_log(str(out)).model_dump_json()))
    return found


def test_keys_never_reach_an_export_or_the_cache(keyed_task, tmp_path):
    db = f"sqlite:///{tmp_path / 'k.db'}"
    _, eid = _record(db, keyed_task)
    for fmt in ("jsonl", "openai", "sharegpt"):
        out = tmp_path / f"export.{fmt}"
        assert cli(db, "export", eid, "--format", fmt, "-o", out).exit_code == 0
        assert leaked(out.read_bytes()) == [] and REDACTED in out.read_text(), fmt
    for fmt, text in compressed_exports(db, eid, tmp_path):
        assert leaked(text) == [] and REDACTED in text, fmt
    # the redacted copy is what replay materialises, so no key reaches the cache either
    report = json.loads(cli(db, "replay", eid, "--json").stdout)
    assert report["replayed"] is True and report["trusted_by"] == "recorded here"
    cache = Path(os.environ["STTUI_CACHE_DIR"])
    cached = [p for p in cache.rglob("*") if p.is_file()]
    assert [leaked(p.read_bytes()) for p in cached] == [[]] * len(cached)  # the task index's files too
    assert len([p for p in cached if "taskindex" not in p.parts]) == 2
    # given its folder, replay runs the exact file, key and all, and still prints none
    out = cli(db, "replay", eid, "--json", "--tasks", keyed_task.path.parents[2])
    assert json.loads(out.stdout)["trusted_by"].startswith("task file") and leaked(out.output) == []


def test_an_import_is_scrubbed_on_the_way_in(tmp_path, monkeypatch):
    """An export written elsewhere, by an older sttui or by hand, carrying keys everywhere."""
    db = f"sqlite:///{tmp_path / 'a.db'}"
    cli(db, "run", TASK)
    out = tmp_path / "e.jsonl"
    cli(db, "export", "--all", "-o", out)
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    lines[1]["episode"]["end_reason"] = f"401 Bearer {PASTED['openai']}"  # lines[0]: the header
    lines[1]["episode"]["agent"] = f"model:x {PASTED['aws']}"
    lines[2]["actor"] = f"human:{PASTED['huggingface']}"
    lines[3]["payload"]["pasted"] = PASTED["anthropic"]
    dirty = tmp_path / "dirty.jsonl"
    dirty.write_text("".join(json.dumps(obj) + "\n" for obj in lines))
    fresh = f"sqlite:///{tmp_path / 'b.db'}"
    assert cli(fresh, "import", dirty).exit_code == 0
    assert leaked(_dump(Store(fresh))) == []
    again = tmp_path / "again.jsonl"
    cli(fresh, "export", "--all", "-o", again)
    assert leaked(again.read_bytes()) == []


# -- stdout and stderr --------------------------------------------------------------------


@pytest.fixture
def unauthorised(monkeypatch, _private_dirs):
    """A model server that answers 401 and echoes the key it was sent, and a user config naming it."""
    monkeypatch.setenv("OPENAI_API_KEY", ENV_KEY)
    message = f"Incorrect API key provided: Bearer {ENV_KEY}. Also seen: {PASTED['openai']}"
    with StubServer(lambda request: error(401, message)) as stub:
        config = _private_dirs / "config" / "sttui"
        config.mkdir(parents=True)
        (config / "sttui.yaml").write_text(
            f"models:\n  stub: {{model: openai/stub-model, api_base: '{stub.base}', retries: 0, backoff: 0.01}}\n"
        )
        yield stub


def test_run_prints_no_key_when_the_server_echoes_it(unauthorised, tmp_path):
    db = f"sqlite:///{tmp_path / 'r.db'}"
    for args in (["--json"], []):
        out = cli(db, "run", TASK, "--agent", "model:stub", *args)
        assert unauthorised.requests, "the model was called"
        assert "AuthenticationError" in out.output and "[redacted]" in out.output
        assert leaked(out.stdout) == [] and leaked(out.stderr) == [], args
    assert leaked(_dump(Store(db))) == []


def test_run_json_prints_no_key_a_model_ends_with(monkeypatch, _private_dirs, tmp_path):
    """A model that pastes keys in a message and ends the episode with a reason echoing one."""
    monkeypatch.setenv("OPENAI_API_KEY", ENV_KEY)
    answers = iter(
        [
            completion(say(f"here: {PASTED['openai']} {PASTED['huggingface']} {PASTED['aws']}")),
            completion(
                calls(tool_call("end_episode", {"reason": f"server said Bearer {ENV_KEY}, {PASTED['anthropic']}"}))
            ),
        ]
    )
    with StubServer(lambda request: (200, next(answers), 0.0)) as stub:
        config = _private_dirs / "config" / "sttui"
        config.mkdir(parents=True)
        (config / "sttui.yaml").write_text(f"models:\n  stub: {{model: openai/stub-model, api_base: '{stub.base}'}}\n")
        db = f"sqlite:///{tmp_path / 'r.db'}"
        out = cli(db, "run", TASK, "--agent", "model:stub", "--json")
    assert out.exit_code == 0, out.output
    (episode,) = json.loads(out.stdout)["episodes"]
    assert episode["end_reason"] == "server said Bearer [redacted], [redacted]"
    assert leaked(out.stdout) == [] and leaked(out.stderr) == []
    assert leaked(_dump(Store(db))) == []


def _running_episode(db: str, tmp_path: Path) -> str:
    """An oracle episode cut short, as a killed process leaves it."""
    cli(db, "run", TASK)
    store = Store(db)
    eid = store.list_episodes()[0].id
    store.update_episode(eid, status="running", ended_at=None)
    with sqlite3.connect(db.removeprefix("sqlite:///")) as con:
        con.execute("delete from events where episode_id = ? and seq > 6", (eid,))
    return eid


def test_a_401_mid_resume_gives_one_line_on_stderr_without_the_key(unauthorised, tmp_path):
    db = f"sqlite:///{tmp_path / 'r.db'}"
    eid = _running_episode(db, tmp_path)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(
        [sys.executable, "-m", "sttui", "--db", db, "resume", eid, "--headless", "--agent", "model:stub"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert unauthorised.requests, proc.stderr
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ModelFailure: ") and "[redacted]" in lines[0]
    assert leaked(proc.stdout) == [] and leaked(proc.stderr) == []


def test_an_unexpected_failure_is_one_scrubbed_line_or_a_scrubbed_traceback(tmp_path, monkeypatch):
    db = f"sqlite:///{tmp_path / 'x.db'}"
    cli(db, "run", TASK)

    def broken(*args, **kwargs):
        raise RuntimeError(f"upstream said Authorization: Bearer {PASTED['openai']}\nand more")

    monkeypatch.setattr("sttui.exports.jsonl.jsonl_lines", broken)
    out = cli(db, "export", "--all", "-o", tmp_path / "e.jsonl")
    assert out.exit_code == 1 and "Traceback" not in out.output
    line = out.stderr.strip()  # (where: the line of ``broken`` here, outside sttui)
    assert line.startswith("error: RuntimeError: upstream said Authorization: Bearer [redacted] and more at ")
    assert line.endswith(" (STTUI_DEBUG=1 shows where)") and "\n" not in line
    debug = cli(db, "export", "--all", "-o", tmp_path / "e.jsonl", env={"STTUI_DEBUG": "1"})
    assert "Traceback" in debug.stderr and "def broken" not in debug.stderr and leaked(debug.stderr) == []


def test_a_database_written_before_scrubbing_prints_no_key(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", ENV_KEY)
    db = f"sqlite:///{tmp_path / 'old.db'}"
    cli(db, "run", TASK)
    with sqlite3.connect(tmp_path / "old.db") as con:  # as an older sttui stored it
        con.execute("update episodes set agent = ?, end_reason = ?", (f"model:{ENV_KEY}", PASTED["openai"]))
        con.execute("update events set payload = replace(payload, 'Please', ?)", (f"{PASTED['huggingface']} Please",))
    eid = json.loads(cli(db, "sessions", "--json").stdout)[0]["id"]
    for args in (["sessions"], ["sessions", "--json"], ["replay", "--json", eid]):
        out = cli(db, *args)
        assert leaked(out.stdout) == [] and leaked(out.stderr) == [], args
    for fmt in ("jsonl", "openai", "sharegpt"):  # the user's pasted key is in every format
        out = tmp_path / f"old.{fmt}"
        assert cli(db, "export", eid, "--format", fmt, "-o", out).exit_code == 0
        assert leaked(out.read_text()) == [] and REDACTED in out.read_text(), fmt
    for fmt, text in compressed_exports(db, eid, tmp_path):
        assert leaked(text) == [] and REDACTED in text, fmt


# -- logs ------------------------------------------------------------------------------------


def test_litellm_logs_are_scrubbed(capfd, monkeypatch):
    """litellm redacts some keys in its own logs, not all: not a Hugging Face token, not a key
    of an unfamiliar shape set in the environment. sttui's filter scrubs every record."""
    plain = "correct-horse-battery-staple"
    monkeypatch.setenv("OPENAI_API_KEY", ENV_KEY)
    monkeypatch.setenv("ANTHROPIC_API_KEY", plain)
    from sttui.controllers.model import litellm_module

    litellm_module()
    logger = logging.getLogger("LiteLLM")
    logger.error("request failed: -H 'Authorization: Bearer %s' (%s)", ENV_KEY, PASTED["anthropic"])
    logger.warning("retrying with %s and %s", PASTED["huggingface"], plain)
    try:
        raise ValueError(f"key {PASTED['openai']}")
    except ValueError:
        logger.exception("with a traceback")
    captured = capfd.readouterr()
    logs = captured.out + captured.err
    assert "request failed" in logs and "retrying with" in logs
    assert leaked(logs) == [] and plain not in logs


def test_scrub_json_is_the_text_of_scrub():
    """The store writes events as scrub_json's text: it must read back as scrub's result, for
    plain payloads (the fast path), odd ones (tuples, dates, keys that are not text), key-shaped
    strings, secret values from the environment and secret-named fields."""
    import datetime
    import json

    from sttui.store.secrets import scrub, scrub_json

    key = "sk-" + "a1B2" * 8
    cases = [
        {"tool": "x", "args": {"a": 1, "b": [1, 2.5, None, True]}, "text": "naïve – ok"},
        {"when": datetime.datetime(2024, 8, 15, 6, 0), "pair": (1, 2), 3: "three", "nested": {"t": (4,)}},
        {"message": f"my key is {key}", "list": [f"Bearer {key}"]},
        {"headers": {"Authorization": "Basic Zm9vOmJhcg=="}, "password": "hunter22", "token": "", "ok": "x"},
        {"value": "the value of SECRET_SETTING appears: verysecretvalue123"},
        "just text with sk-nothing",
        [1, {"API_KEY": "abc"}],
    ]
    for payload in cases:
        for secrets in ([], ["verysecretvalue123"]):
            assert json.loads(scrub_json(payload, secrets)) == scrub(payload, secrets), payload


def test_scrub_json_catches_every_key_shape_and_secret_named_field():
    """scrub_json decides from the JSON text whether to walk the payload (with fewer looks than
    one per marker): a key of every shape, and every secret-named field, must still be redacted."""
    import json

    from sttui.store.secrets import _STARTS, REDACTED, scrub, scrub_json

    keys = [
        "sk-" + "a1B2" * 6,
        "hf_" + "a1B2" * 6,
        "AKIA" + "ABCD1234EFGH5678",
        "ASIA" + "ABCD1234EFGH5678",
        *(f"gh{c}_" + "a1B2" * 9 for c in "pousr"),
        "github_pat_" + "a1B2" * 9,
        "AIza" + "a1B2c3D4e5" * 3 + "f6G7h",
        "xoxb-" + "a1B2" * 4,
    ]
    assert {m for m in _STARTS if not any(k.startswith(m) for k in keys)} == set()  # a key for each start
    for key in keys:
        payload = {"tool": "lookup", "result": {"note": f"the key is {key} here"}}
        text = scrub_json(payload, [])
        assert key not in text and REDACTED in text, key
        assert json.loads(text) == scrub(payload, [])
    for field in ("api_key", "ApiKey", "Authorization", "PASSWORD", "secret", "token", "access_token"):
        payload = {"request": {field: "plainvalue", "other": "kept"}}
        assert json.loads(scrub_json(payload, [])) == {"request": {field: REDACTED, "other": "kept"}}, field
    # a key that only ends like a secret-named one is walked, and comes out as it went in
    ordinary = {"monkey": "x", "hotkey": "ctrl-k", "primary_key": 3}
    assert scrub_json(ordinary, []) == json.dumps(ordinary, ensure_ascii=False)


def test_scrub_json_writes_the_text_json_dumps_would():
    """The stored text of a payload with nothing to redact is exactly ``json.dumps``'s (with
    ``default=str``, unescaped non-ASCII): the encoder made once writes no different rows."""
    import datetime
    import json

    from sttui.store.secrets import scrub_json

    cases = [
        {"tool": "x", "result": {"ok": True, "n": -3, "x": 2.5e-300, "big": 2**80, "none": None, "nz": -0.0}},
        {"text": "naïve – 東京 \U0001f600", "esc": 'q " b \\ t \t n \n \x00 \u2028', "nan": float("nan")},
        {"when": datetime.date(2024, 8, 15), "pair": (1, (2, 3)), 7: "seven", 2.5: "half", None: 0, True: 1},
        [1, [2, [3, {"deep": [{}]}]], ""],
        "plain",
        12,
    ]
    for payload in cases:
        assert scrub_json(payload, []) == json.dumps(payload, default=str, ensure_ascii=False), payload


def test_a_secret_named_field_is_found_however_its_name_is_written():
    """The field names scrub redacts match ignoring case (which takes ``ſ`` for s, ``ı`` and ``İ``
    for i) and with one newline after them: the JSON-text checks that let a payload skip the walk
    must not miss those (they did: such a field reached the record in clear)."""
    import json

    from sttui.store.secrets import REDACTED, scrub, scrub_json, scrub_stored

    for name in ("token\n", "ſecret", "authorızation", "authorİzation", "paſſword", "api_\u212aey", "Access_Token\n"):
        payload = {"request": {name: "plainvalue", "other": "kept"}}
        expected = {"request": {name: REDACTED, "other": "kept"}}
        assert scrub(payload, []) == expected, name
        assert json.loads(scrub_json(payload, [])) == expected, name
        assert scrub_stored(payload, []) == expected, name


def test_scrub_stored_stores_the_text_scrub_would():
    """An episode's scores, outcome and end go through scrub_stored: written as JSON (as the store's
    JSON columns write them, and as events are), they are scrub's text, whatever the value holds."""
    import datetime
    import enum
    import json
    import random

    from sttui.store.secrets import scrub, scrub_stored

    class Level(enum.IntEnum):
        HIGH = 3

    class Name(str):
        pass

    key = "sk-" + "a1B2" * 8
    cases: list = [
        {"reward": 0.5, "control": {"agent": 3, "human": 0, "switches": []}, "review": None, "x": 2.5e-300},
        {"when": datetime.datetime(2024, 8, 15, 6, 0), "pair": (1, (2, 3)), 7: "seven", 2.5: "half", None: 0},
        {1: "int key", "1": "text key"},  # two keys that become one
        {"nan": float("nan"), "inf": float("inf"), "nz": -0.0, "big": 2**80, "level": Level.HIGH, "n": Name("x")},
        {"text": "naïve – 東京 \U0001f600", "esc": 'q " b \\ t \t n \n \x00 \u2028'},
        {"message": f"my key is {key}", "list": [f"Bearer {key}"], "note": "Basic Zm9vOmJhcg=="},
        {"headers": {"Authorization": "x"}, "password": "hunter22", "token": "", "ok": "x", "monkey": 1},
        {"value": "the value of SECRET_SETTING appears: verysecretvalue123", "set": {1}},
        f"RuntimeError: boom with {key}",
        "done",
        [1, {"API_KEY": "abc"}, ()],
        {"ſecret": "v", "token\n": "v"},
    ]
    rng = random.Random(7)
    words = ["ok", "key", "token", "sk-", "x" * 30, "Bearer", "naïve", "secret", "a\nb", "verysecretvalue123"]

    def grown(depth: int):  # random nested scores
        if depth == 0 or rng.random() < 0.3:
            return rng.choice([1, -2.5, None, True, rng.choice(words), (1, 2), 10**20])
        if rng.random() < 0.5:
            return [grown(depth - 1) for _ in range(rng.randint(0, 4))]
        return {rng.choice(words) + str(rng.randint(0, 3)): grown(depth - 1) for _ in range(rng.randint(0, 4))}

    cases += [grown(4) for _ in range(300)]
    for payload in cases:
        for secrets in ([], ["verysecretvalue123"]):
            mine, theirs = scrub_stored(payload, secrets), scrub(payload, secrets)
            for ascii_only in (True, False):
                assert json.dumps(mine, ensure_ascii=ascii_only) == json.dumps(theirs, ensure_ascii=ascii_only), payload


def test_the_quick_look_never_misses_what_the_full_scan_finds():
    """``_shaped`` decides whether the key-shape regexes run at all (on every event recorded and
    every listing written). On texts made to sit at its edges (starts without a key after them,
    keys after word characters, escapes and control characters, JSON forms), scrubbing with it
    gives exactly what always running the full scan gives."""
    import json
    import random

    from sttui.store.secrets import _BEARER, KEY_SHAPES, REDACTED, _shaped, scrub, scrub_text

    def always(text: str) -> str:  # scrub_text without the quick look
        text = KEY_SHAPES.sub(REDACTED, text)
        return _BEARER.sub(lambda m: m.group(1) + m.group(2) + REDACTED, text)

    pieces = [
        "sk-",
        "hf_",
        "AKIA",
        "ASIA",
        "ghp_",
        "gho_",
        "ghs_",
        "github_pat_",
        "AIza",
        "xoxb-",
        "xoxq-",
        "gh",
        "task-",
        "a1B2c3D4",
        "ABCD1234",
        "EFGH5678",
        "-",
        "_",
        " ",
        "\\n",
        "\n",
        "\t",
        "\n",
        "\x01",
        '"',
        "é",
        "東",
        "Bearer ",
        "basic ",
        "through",
        "x" * 20,
        "Z" * 16,
        "9",
    ]
    rng = random.Random(7)
    found = 0
    for _ in range(20_000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 14)))
        if KEY_SHAPES.search(text):
            found += 1
            assert _shaped(text), text
        assert scrub_text(text, []) == always(text), text
        payload = {"note": text, "list": [text, {"k": text}]}
        assert scrub(payload, []) == json.loads(
            json.dumps({"note": always(text), "list": [always(text), {"k": always(text)}]})
        ), text
        assert _shaped(json.dumps(text, ensure_ascii=False)) or not KEY_SHAPES.search(text), text
    assert found > 1000  # (the cases do reach the keys)
