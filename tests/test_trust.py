"""Imported records are data, never code: a stored task version is written only inside sttui's
private cache, under names sttui chooses, and its environment code runs only when trusted
(recorded here, matched by a task file the user gave, or --trust). A task file's env: never
names code outside its folder and the three above. No temp folders are left behind."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import shutil
import sqlite3
import stat
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from sttui.cli import main
from sttui.store.store import Store
from sttui.tui.launch import Launch
from tests.conftest import FIXTURES, ROOT

TASK = ROOT / "tasks" / "stt" / "logistics" / "insulin-reefer-fault-st2-easy.yaml"


def cli(db, *args, env=None):
    return CliRunner().invoke(main, ["--db", db, *map(str, args)], env=env)


def own_task(tmp_path: Path, name: str = "own") -> Path:
    """A copy of a bundled task under another title: a version of its own, outside the bundled tasks."""
    folder = tmp_path / name / "stt" / "logistics"
    folder.mkdir(parents=True)
    shutil.copy(TASK.parent / "env.py", folder / "env.py")
    text = TASK.read_text().replace("\ntitle: ", "\ntitle: (own copy) ", 1)
    (folder / TASK.name).write_text(text)
    return folder / TASK.name


def first_id(db: str) -> str:
    return json.loads(cli(db, "sessions", "--json").output)[0]["id"]


@pytest.fixture
def exported(tmp_path):
    """An oracle episode of the user's own task, recorded in one database and exported."""
    task = own_task(tmp_path)
    db = f"sqlite:///{tmp_path / 'home.db'}"
    assert cli(db, "run", task).exit_code == 0
    path = tmp_path / "episode.jsonl"
    assert cli(db, "export", "--all", "-o", path).exit_code == 0
    return {"db": db, "task": task, "file": path, "episode": first_id(db)}


def content_hash(text: str, env: bytes) -> str:
    return hashlib.sha256(text.encode() + env).hexdigest()


def tamper(export: Path, out: Path, env_ref: str, code: str) -> Path:
    """The export, rewritten by an attacker who keeps its hashes consistent: ``code`` runs on import."""
    lines = export.read_text().splitlines()
    head = json.loads(lines[1])  # lines[0] is the export's header
    task = head["task"]
    task["env_ref"] = env_ref
    task["env_source"] = task["env_source"] + "\n" + code
    task["content_hash"] = content_hash(task["source"], task["env_source"].encode())
    head["episode"]["task_hash"] = task["content_hash"]
    out.write_text("\n".join([lines[0], json.dumps(head), *lines[2:]]) + "\n")
    return out


def files_under(folder: Path) -> set[str]:
    """Files under the cache, but for the task index (``taskindex/``: the parsed task files of the
    user's own task folders, which commands read whatever record they are given)."""
    if not folder.exists():
        return set()
    return {
        str(p.relative_to(folder))
        for p in folder.rglob("*")
        if p.is_file() and p.relative_to(folder).parts[0] != "taskindex"
    }


# -- an import's code never runs unless trusted ------------------------------------------


ENV_REFS = {  # what an attacker may put in env_ref: never a path sttui writes or imports
    "absolute-sitecustomize": "{tmp}/site/sitecustomize:LogisticsEnv",
    "normal-ref": "logistics.env:LogisticsEnv",
    "sitecustomize-name": "sitecustomize:LogisticsEnv",
    "absolute-dot-py": "{tmp}/site/sitecustomize.py",
    "dotdot": "../../../../{tmp}/site/x:LogisticsEnv",
    "windows-dotdot": "..\\..\\site\\x.py:LogisticsEnv",
    "nul-byte": "site/x\x00.py:LogisticsEnv",
    "very-long": "a" * 5000 + ":LogisticsEnv",
}


@pytest.mark.parametrize("env_ref", list(ENV_REFS.values()), ids=list(ENV_REFS))
def test_an_imported_version_writes_nothing_and_runs_nothing(exported, tmp_path, env_ref):
    env_ref = env_ref.format(tmp=tmp_path)
    marker = tmp_path / "ran.txt"
    evil = tamper(
        exported["file"], tmp_path / "evil.jsonl", env_ref, f"import pathlib; pathlib.Path({str(marker)!r}).touch()\n"
    )
    db = f"sqlite:///{tmp_path / 'victim.db'}"
    cache = Path(os.environ["STTUI_CACHE_DIR"])
    imported = cli(db, "import", evil)
    if "\x00" in env_ref:  # a NUL is refused by import itself, alike on SQLite and PostgreSQL
        assert imported.exit_code == 1 and "NUL" in imported.output and "nothing was imported" in imported.output
        assert not marker.exists() and files_under(cache) == set()
        return
    assert imported.exit_code == 0
    eid = exported["episode"]

    replay = cli(db, "replay", eid)
    assert replay.exit_code == 1 and "Traceback" not in replay.output
    assert "not replayed:" in replay.output and "was imported from a file" in replay.output
    assert "--trust" in replay.output and "episode_started" in replay.output  # the events are listed
    as_json = json.loads(cli(db, "replay", eid, "--json").stdout)
    assert as_json["replayed"] is False and len(as_json["events"]) > 5
    for fmt in ("openai", "sharegpt", "jsonl"):  # exports take the tools from the record, as data
        out = tmp_path / f"x.{fmt}"
        assert cli(db, "export", eid, "--format", fmt, "-o", out).exit_code == 0
        assert out.read_text().count("\n") == (1 if fmt != "jsonl" else len(as_json["events"]) + 3)
    for fmt, module, name in (("hf", "pyarrow", "x.parquet"), ("inspect", "inspect_ai", "x.eval")):
        if importlib.util.find_spec(module) is not None:  # optional extras
            assert cli(db, "export", eid, "--format", fmt, "-o", tmp_path / name).exit_code == 0, fmt
    assert cli(db, "resume", eid, "--headless").exit_code == 1  # (it is not running either)
    for args in (["fork", eid, "--at", 5, "--headless"], ["refine", eid, "--drop", 1, "--json"]):
        out = cli(db, *args)
        assert out.exit_code != 0 and "not trusted" in out.output and "Traceback" not in out.output, args
    assert not marker.exists()
    assert not (tmp_path / "site").exists() and not Path("sitecustomize.py").exists()
    assert files_under(cache) == set()

    # --trust: the user vouches for the code, which then runs, from sttui's own copy
    trusted = cli(db, "replay", eid, "--trust")
    assert trusted.exit_code == 0 and "task code run as: --trust" in trusted.output, trusted.output[-600:]
    assert marker.exists()
    digest = json.loads(evil.read_text().splitlines()[1])["task"]["content_hash"]
    assert files_under(cache) == {f"versions/{digest}/task.yaml", f"versions/{digest}/environment.py"}
    assert not (tmp_path / "site").exists()


def test_a_version_disguised_as_an_explore_task_runs_nothing(exported, tmp_path):
    """Explore tasks carry no code and always load; a record calling an stt task explore must not
    get its module run that way."""
    marker = tmp_path / "ran.txt"
    evil = tamper(
        exported["file"], tmp_path / "evil.jsonl", "logistics.env:LogisticsEnv", f"open({str(marker)!r}, 'w')"
    )
    lines = evil.read_text().splitlines()
    head = json.loads(lines[1])
    head["task"]["kind"] = head["episode"]["kind"] = "explore"
    evil.write_text("\n".join([lines[0], json.dumps(head), *lines[2:]]) + "\n")
    db = f"sqlite:///{tmp_path / 'victim.db'}"
    assert cli(db, "import", evil).exit_code == 0
    for args in (["replay"], ["export", "--format", "openai", "-o", tmp_path / "o.jsonl"]):
        out = cli(db, *args[:1], exported["episode"], *args[1:])
        assert "Traceback" not in out.output, args
    out = cli(db, "replay", exported["episode"])
    assert out.exit_code == 1 and "not replayed" in out.output
    assert not marker.exists()
    assert files_under(Path(os.environ["STTUI_CACHE_DIR"])) == set()


def test_what_makes_a_version_trusted(exported, tmp_path):
    """Recorded here; a task file with the same hash; import --trust; --trust. Nothing else."""
    eid, task = exported["episode"], exported["task"]
    here = json.loads(cli(exported["db"], "replay", eid, "--json").stdout)
    assert here["replayed"] is True and here["trusted_by"] == "recorded here"

    db = f"sqlite:///{tmp_path / 'other.db'}"
    cli(db, "import", exported["file"])
    cases = {
        "nothing": ([], None),
        "its task folder": (["--tasks", task.parent.parent], f"task file {task}"),
        "a folder with another version": (["--tasks", ROOT / "tasks"], None),
        "--trust": (["--trust"], "--trust"),
    }
    for case, (args, trusted_by) in cases.items():
        out = cli(db, "replay", eid, "--json", *args)
        report = json.loads(out.stdout)
        assert report["replayed"] is (trusted_by is not None), case
        assert out.exit_code == (0 if trusted_by else 1), case
        if trusted_by:
            assert report["trusted_by"] == trusted_by and report["reproduces_record"] is True, case

    vouched = f"sqlite:///{tmp_path / 'vouched.db'}"
    cli(vouched, "import", exported["file"], "--trust")
    report = json.loads(cli(vouched, "replay", eid, "--json").stdout)
    assert report["replayed"] is True and report["trusted_by"] == "imported with --trust"


@pytest.mark.parametrize("env", ["environment:LogisticsEnv", "logistics.env:LogisticsEnv"])
def test_refine_runs_an_import_only_with_trust_and_never_makes_it_recorded_here(exported, tmp_path, env):
    """refine --save --trust vouches for one command. The refined episode must not store the
    version again from sttui's cache copy: with ``env: environment:...`` (the cache copy's name)
    that marked the import recorded here, and its code ran on every later replay; with its own
    env: the save failed (no module beside the copy)."""
    marker = tmp_path / "ran.txt"
    evil = tamper(exported["file"], tmp_path / "evil.jsonl", env, f"open({str(marker)!r}, 'w')\n")
    lines = evil.read_text().splitlines()
    head = json.loads(lines[1])
    task = head["task"]
    task["source"] = task["source"].replace("env: logistics.env:LogisticsEnv", f"env: {env}")
    task["content_hash"] = head["episode"]["task_hash"] = content_hash(task["source"], task["env_source"].encode())
    evil.write_text("\n".join([lines[0], json.dumps(head), *lines[2:]]) + "\n")
    db = f"sqlite:///{tmp_path / 'victim.db'}"
    assert cli(db, "import", evil).exit_code == 0
    eid = exported["episode"]

    refused = cli(db, "refine", eid, "--drop", "1", "--json")
    assert refused.exit_code == 2 and "not trusted" in refused.output and "Traceback" not in refused.output
    assert not marker.exists()

    saved = cli(db, "refine", eid, "--save", "--trust", "--json")
    assert saved.exit_code == 0, saved.output
    assert marker.exists()  # vouched for: it ran, from sttui's own copy
    marker.unlink()
    version = Store(db).task_version(task["task_id"], task["content_hash"])
    assert version.origin == "imported"
    for episode in (eid, json.loads(saved.stdout)["saved"]):
        out = cli(db, "replay", episode)
        assert out.exit_code == 1 and "was imported from a file" in out.output, episode
    assert not marker.exists()


def test_an_export_of_a_bundled_task_replays_from_the_bundled_file(tmp_path):
    db, fresh = f"sqlite:///{tmp_path / 'a.db'}", f"sqlite:///{tmp_path / 'b.db'}"
    cli(db, "run", TASK)
    cli(db, "export", "--all", "-o", tmp_path / "e.jsonl")
    cli(fresh, "import", tmp_path / "e.jsonl")
    report = json.loads(cli(fresh, "replay", first_id(fresh), "--json").stdout)
    assert report["replayed"] is True and report["trusted_by"] == f"task file {TASK.relative_to(ROOT)}"


def test_running_the_file_makes_its_version_recorded_and_replaces_an_imported_copy(exported, tmp_path):
    """An import may carry a copy under the right id and hash with other text (flagged redacted, so
    no hash check can catch it); the user running the real file puts the real text in its place."""
    evil = tamper(exported["file"], tmp_path / "evil.jsonl", "logistics.env:LogisticsEnv", "# not the real one")
    head = json.loads(evil.read_text().splitlines()[1])
    real_hash = json.loads(exported["file"].read_text().splitlines()[1])["task"]["content_hash"]
    head["task"]["content_hash"] = head["episode"]["task_hash"] = real_hash
    head["task"]["meta"]["redacted"] = True
    rest = evil.read_text().splitlines()
    evil.write_text("\n".join([rest[0], json.dumps(head), *rest[2:]]) + "\n")
    db = f"sqlite:///{tmp_path / 'b.db'}"
    assert cli(db, "import", evil).exit_code == 0
    store = Store(db)
    version = store.task_version("logistics-insulin-reefer-st2-easy", real_hash)
    assert version.origin == "imported" and version.env_source.endswith("# not the real one")
    assert cli(db, "run", exported["task"]).exit_code == 0
    version = store.task_version("logistics-insulin-reefer-st2-easy", real_hash)
    assert version.origin == "recorded" and version.env_source == (exported["task"].parent / "env.py").read_text()
    shutil.rmtree(exported["task"].parent)  # the file is gone; the recorded copy replays on its own
    report = json.loads(cli(db, "replay", exported["episode"], "--json").stdout)
    assert report["replayed"] is True and report["trusted_by"] == "recorded here"


def test_an_import_whose_text_does_not_match_its_hash_is_refused(exported, tmp_path):
    lines = exported["file"].read_text().splitlines()
    head = json.loads(lines[1])
    head["task"]["env_source"] += "\n# changed after the hash was taken\n"
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join([lines[0], json.dumps(head), *lines[2:]]) + "\n")
    db = f"sqlite:///{tmp_path / 'b.db'}"
    out = cli(db, "import", bad)
    assert out.exit_code == 1 and "does not match its hash" in out.output and "nothing was imported" in out.output
    assert json.loads(cli(db, "sessions", "--json").output) == []


def test_an_imported_origin_is_never_taken_from_the_file(exported, tmp_path):
    lines = exported["file"].read_text().splitlines()
    head = json.loads(lines[1])
    head["task"]["origin"] = "recorded"
    forged = tmp_path / "forged.jsonl"
    forged.write_text("\n".join([lines[0], json.dumps(head), *lines[2:]]) + "\n")
    db = f"sqlite:///{tmp_path / 'b.db'}"
    out = cli(db, "import", forged)  # a field an export never carries: the file is refused whole
    assert out.exit_code == 1 and "unknown field(s) origin" in out.output and "nothing was imported" in out.output
    assert json.loads(cli(db, "sessions", "--json").output) == []


def test_a_database_from_before_origins_counts_its_versions_as_imported(tmp_path):
    path = tmp_path / "old.db"
    shutil.copy(FIXTURES / "db" / "schema-0001.db", path)
    store = Store(f"sqlite:///{path}")
    with store.engine.connect() as conn:
        origins = {row[0] for row in conn.exec_driver_sql("select origin from tasks")}
    assert origins <= {"unknown"}


# -- the private cache ---------------------------------------------------------------------


def test_the_cache_is_private_named_by_content_and_checked(exported, tmp_path):
    cache = Path(os.environ["STTUI_CACHE_DIR"])
    eid = exported["episode"]
    assert cli(exported["db"], "replay", eid).exit_code == 0
    (folder,) = (cache / "versions").iterdir()
    head = json.loads(exported["file"].read_text().splitlines()[1])
    assert folder.name == head["task"]["content_hash"]
    assert sorted(p.name for p in folder.iterdir()) == ["environment.py", "task.yaml"]
    for d in (cache, cache / "versions", folder):
        assert stat.S_IMODE(d.stat().st_mode) == 0o700
    for f in folder.iterdir():
        assert stat.S_IMODE(f.stat().st_mode) & 0o077 == 0
    # a copy changed on disk is rewritten from the record before it is loaded
    (folder / "environment.py").write_text("raise SystemExit('tampered')\n")
    os.chmod(cache, 0o755)
    report = json.loads(cli(exported["db"], "replay", eid, "--json").stdout)
    assert report["reproduces_record"] is True
    assert (folder / "environment.py").read_text() == head["task"]["env_source"]
    assert stat.S_IMODE(cache.stat().st_mode) == 0o700
    assert cli(exported["db"], "replay", eid).exit_code == 0
    assert len(list((cache / "versions").iterdir())) == 1  # reused, nothing piles up


@pytest.mark.skipif(not hasattr(os, "getuid") or os.getuid() != 0, reason="needs root to give a folder away")
def test_a_cache_folder_owned_by_someone_else_is_refused(exported):
    cache = Path(os.environ["STTUI_CACHE_DIR"])
    shutil.rmtree(cache, ignore_errors=True)  # (making the record filled the task index there)
    cache.mkdir(parents=True)
    os.chown(cache, 65534, 65534)
    out = cli(exported["db"], "replay", exported["episode"])
    assert out.exit_code == 1 and "belongs to another user" in out.output
    assert list(cache.iterdir()) == []


# -- a version that no longer loads ----------------------------------------------------------


def _broken_version(tmp_path: Path) -> tuple[str, str]:
    """An episode whose environment reads a file beside it, which the record does not keep."""
    task = own_task(tmp_path, "fragile")
    (task.parent / "rates.json").write_text("{}")
    env = task.parent / "env.py"
    env.write_text(env.read_text() + "\nimport pathlib\npathlib.Path(__file__).with_name('rates.json').read_text()\n")
    db = f"sqlite:///{tmp_path / 'f.db'}"
    assert cli(db, "run", task).exit_code == 0
    shutil.rmtree(tmp_path / "fragile")
    return db, first_id(db)


def test_replay_and_export_of_a_version_that_no_longer_loads(tmp_path):
    db, eid = _broken_version(tmp_path)
    out = cli(db, "replay", eid)
    assert out.exit_code == 1 and "Traceback" not in out.output
    assert "not replayed: task logistics-insulin-reefer-st2-easy version" in out.output
    assert "no longer loads" in out.output and "rates.json" in out.output
    report = json.loads(cli(db, "replay", eid, "--json").stdout)
    assert report["replayed"] is False and report["events"][-1]["type"] == "episode_ended"
    jsonl = tmp_path / "e.jsonl"
    assert cli(db, "export", eid, "-o", jsonl).exit_code == 0
    assert len(jsonl.read_text().splitlines()) == len(report["events"]) + 3  # header, episode, trailer
    openai = tmp_path / "o.jsonl"
    assert cli(db, "export", eid, "--format", "openai", "-o", openai).exit_code == 0
    assert len(openai.read_text().splitlines()) == 1  # its tools are in the record

    # a version stored before tools were kept must be loaded for them: said, and left out
    with sqlite3.connect(tmp_path / "f.db") as con:
        con.execute("update tasks set tools = null")
    out = cli(db, "export", eid, "--format", "openai", "-o", openai)
    assert out.exit_code == 0 and "left out, its tools are unknown" in out.output and "no longer loads" in out.output
    assert "--format jsonl exports its events" in out.output and openai.read_text() == ""


def test_replay_of_an_episode_whose_version_is_missing(tmp_path):
    db = f"sqlite:///{tmp_path / 'm.db'}"
    cli(db, "run", TASK)
    with sqlite3.connect(tmp_path / "m.db") as con:
        con.execute("delete from tasks")
    eid = first_id(db)
    out = cli(db, "replay", eid)
    assert out.exit_code == 1 and "not replayed: the record has no copy of task" in out.output
    jsonl = tmp_path / "e.jsonl"
    out = cli(db, "export", eid, "-o", jsonl)
    assert out.exit_code == 0 and "no copy of its task version; its events are exported" in out.output
    assert json.loads(jsonl.read_text().splitlines()[1])["task"] is None


# -- temp folders ------------------------------------------------------------------------------


def test_no_temp_folders_are_left_behind(exported, tmp_path, monkeypatch):
    temp = tmp_path / "temp"
    temp.mkdir()
    monkeypatch.setenv("TMPDIR", str(temp))
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    db, eid = exported["db"], exported["episode"]
    fresh = f"sqlite:///{tmp_path / 'fresh.db'}"
    Store(db).update_episode(eid, status="running", ended_at=None)  # resumable
    with sqlite3.connect(tmp_path / "home.db") as con:
        con.execute("delete from events where episode_id = ? and type = 'episode_ended'", (eid,))
    (tmp_path / "a-file").write_text("")
    commands = [  # name, exit code, command; failures too
        ("replay", 0, [db, "replay", eid]),
        ("export jsonl", 0, [db, "export", eid, "-o", tmp_path / "1.jsonl"]),
        ("export openai", 0, [db, "export", eid, "--format", "openai", "-o", tmp_path / "2.jsonl"]),
        ("export sharegpt", 0, [db, "export", eid, "--format", "sharegpt", "-o", tmp_path / "3.jsonl"]),
        ("export into a file", 2, [db, "export", eid, "-o", tmp_path / "a-file" / "x.jsonl"]),
        ("import", 0, [fresh, "import", exported["file"]]),
        ("import again", 0, [fresh, "import", exported["file"]]),
        ("replay imported", 1, [fresh, "replay", eid]),
        ("fork imported", 1, [fresh, "fork", eid, "--at", 5, "--headless"]),
        ("refine imported", 2, [fresh, "refine", eid, "--drop", 1]),
        ("replay imported --trust", 0, [fresh, "replay", eid, "--trust"]),
        ("refine imported --trust", 0, [fresh, "refine", eid, "--drop", 1, "--save", "--trust"]),
        ("resume", 0, [db, "resume", eid, "--headless"]),
        ("resume again", 1, [db, "resume", eid, "--headless"]),
    ]
    for name, code, (url, *args) in commands:
        out = cli(url, *args)
        assert out.exit_code == code, (name, out.output)
        assert [p.name for p in temp.iterdir()] == [], name


# -- the workbench -------------------------------------------------------------------------------


async def test_the_workbench_neither_resumes_nor_reviews_an_untrusted_version(exported, tmp_path):
    from sttui.tui.app import SttuiApp
    from sttui.tui.replay import reviewed
    from tests.tui_helpers import wait_for

    marker = tmp_path / "ran.txt"
    evil = tamper(
        exported["file"], tmp_path / "evil.jsonl", "logistics.env:LogisticsEnv", f"open({str(marker)!r}, 'w')\n"
    )
    lines = evil.read_text().splitlines()
    head = json.loads(lines[1])
    head["episode"]["status"] = "running"
    # a running episode, as an older sttui exported it (no header or trailer): its end not yet reached
    evil.write_text("\n".join([json.dumps(head), *lines[2:-2]]) + "\n")
    db = f"sqlite:///{tmp_path / 'victim.db'}"
    assert cli(db, "import", evil).exit_code == 0
    eid = exported["episode"]
    store = Store(db)
    record = store.episode(eid)
    episode, why = reviewed(store, record, store.events(eid))
    assert episode is None and "not trusted" in why

    app = SttuiApp(Launch.build(ROOT / "tasks", db_url=db, human="ana", resume_episode=eid))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: any("cannot resume" in n.message for n in app._notifications))
        assert type(pilot.app.screen).__name__ == "HomeScreen"
        (message,) = [n.message for n in app._notifications if "cannot resume" in n.message]
        assert "not trusted" in message and "--trust" in message
    assert not marker.exists()
    out = cli(db, "resume", eid)
    assert out.exit_code == 1 and "cannot resume" in out.output and "not trusted" in out.output


async def test_the_workbench_replay_shows_an_untrusted_version_and_runs_none_of_it(exported, tmp_path):
    """The replay screen lists the imported episode's rows; its fork (k) and refine (E) keys
    refuse in a notice, and the record's code never runs."""
    from textual.widgets import DataTable

    from sttui.tui.modals import EditValue
    from sttui.tui.replay import ReplayScreen
    from tests.tui_helpers import ScreenApp, wait_for

    marker = tmp_path / "ran.txt"
    evil = tamper(
        exported["file"], tmp_path / "evil.jsonl", "logistics.env:LogisticsEnv", f"open({str(marker)!r}, 'w')\n"
    )
    db = f"sqlite:///{tmp_path / 'victim.db'}"
    assert cli(db, "import", evil).exit_code == 0
    store, eid = Store(db), exported["episode"]
    app = ScreenApp(lambda: ReplayScreen(store, eid), store=store)
    async with app.run_test(size=(130, 40)) as pilot:
        table = app.screen.query_one("#events", DataTable)
        await wait_for(pilot, lambda: table.row_count > 5)
        await pilot.press("E")
        await wait_for(pilot, lambda: any("not trusted" in n.message for n in app._notifications))
        table.move_cursor(row=4)
        await pilot.press("k")
        await wait_for(pilot, lambda: isinstance(app.screen, EditValue))
        await pilot.press("enter")
        await wait_for(pilot, lambda: any("cannot fork" in n.message for n in app._notifications))
        assert isinstance(app.screen, ReplayScreen)
    assert not marker.exists()
    assert files_under(Path(os.environ["STTUI_CACHE_DIR"])) == set()
    assert [e.id for e in store.list_episodes()] == [eid]  # no fork was written
