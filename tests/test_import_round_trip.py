"""The jsonl round trip's edges: an export replaces its file only once written whole and keeps a
lone surrogate exactly; an import refuses what no record can store, what is not an sttui export
(empty, a device, a FIFO, an unknown format, a newer version, nesting past its limit), and a
copy of an episode that differs from the record's, and goes on with one resumed and finished
elsewhere. Every refusal is one line naming the file, the line and the field."""

from __future__ import annotations

import copy
import errno
import json
import os
import sqlite3
import threading
import time

import pytest

from sttui.exports.importing import MAX_DEPTH
from tests.conftest import cli


def write(path, objs):
    path.write_text("".join(json.dumps(o, sort_keys=True, ensure_ascii=False) + "\n" for o in objs))
    return path


def file_of(objs):
    """An export of these episode and event records, with its header and a trailer that agrees."""
    body = [o for o in objs if o["record"] in ("episode", "event")]
    episodes = sum(1 for o in body if o["record"] == "episode")
    return [{"record": "export", "format": "sttui-jsonl", "version": 2}, *body, _end(episodes, len(body) - episodes)]


def _end(episodes, events):
    return {"record": "end", "episodes": episodes, "events": events}


def episode(objs, k=0):
    """The k-th episode of an export with its events."""
    starts = [i for i, o in enumerate(objs) if o.get("record") == "episode"]
    i = starts[k]
    return [
        o for o in objs[i:] if o is objs[i] or (o["record"] == "event" and o["episode_id"] == objs[i]["episode"]["id"])
    ]


def running_copy(objs, events):
    """The episode as it was after its first ``events`` events, still running (as exported
    before it was resumed and finished elsewhere)."""
    head, *rest = copy.deepcopy(objs)
    head["episode"].update(status="running", outcome=None, scores=None, end_reason=None, ended_at=None, steps=3)
    return [head, *rest[:events]]


def refused(out, *fragments):
    assert out.exit_code != 0, out.output
    assert all(f in out.output for f in fragments), out.output
    assert "Traceback" not in out.output and len(out.output.strip().splitlines()) == 1, out.output


def listed(db):
    return json.loads(cli(db, "sessions", "--json").output)


# 1. An export is written whole or not at all, and a lone surrogate in the record is kept exactly.


def plant_lone_surrogate(db_path, episode_id, seq):
    """A lone surrogate in an event's payload, stored as an import before they were refused
    stored it (JSON's escape in the payload's text)."""
    with sqlite3.connect(db_path) as conn:
        (text,) = conn.execute("SELECT payload FROM events WHERE episode_id=? AND seq=?", (episode_id, seq)).fetchone()
        payload = json.loads(text)
        payload["text"] = "bad \ud800 here"
        conn.execute("UPDATE events SET payload=? WHERE episode_id=? AND seq=?", (json.dumps(payload), episode_id, seq))


def test_an_export_keeps_a_lone_surrogate_exactly_and_never_empties_its_file(exported, tmp_path):
    db = f"sqlite:///{tmp_path / 'a.db'}"
    assert cli(db, "import", write(tmp_path / "in.jsonl", exported)).exit_code == 0
    message = next(o for o in exported if o.get("type") == "message")
    plant_lone_surrogate(tmp_path / "a.db", message["episode_id"], message["seq"])
    backup = tmp_path / "backup.jsonl"
    backup.write_text("yesterday's backup\n")
    backup.chmod(0o640)
    out = cli(db, "export", "--all", "-o", backup)
    assert out.exit_code == 0, out.output
    assert f"episode {message['episode_id']} event {message['seq']} holds a lone surrogate" in out.output
    lines = backup.read_bytes().decode("utf-8").splitlines()  # UTF-8 throughout
    (line,) = [x for x in lines if f'"seq": {message["seq"]},' in x and message["episode_id"] in x]
    assert "bad \\ud800 here" in line and json.loads(line)["payload"]["text"] == "bad \ud800 here"  # lossless
    assert backup.stat().st_mode & 0o777 == 0o640  # the file's mode, as writing in place kept it
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []  # no temporary left
    # no record can store one: the import refuses that line, naming it and the field
    out = cli(f"sqlite:///{tmp_path / 'b.db'}", "import", backup)
    refused(out, f"{backup}:{lines.index(line) + 1}: payload.text holds a lone surrogate (\\ud800", "nothing was")


@pytest.mark.parametrize("fmt", ["jsonl", "openai", "hf"])
def test_a_failed_export_leaves_the_file_it_would_replace_as_it_was(exported, tmp_path, monkeypatch, fmt):
    db = f"sqlite:///{tmp_path / 'a.db'}"
    assert cli(db, "import", write(tmp_path / "in.jsonl", exported)).exit_code == 0
    target = tmp_path / "out" / f"backup.{'parquet' if fmt == 'hf' else 'jsonl'}"
    target.parent.mkdir()
    target.write_bytes(b"the last good copy\n")
    full = OSError(errno.ENOSPC, "No space left on device")
    if fmt == "hf":  # the Parquet writer fails half way through its file

        def half_written(found, path):
            path.write_bytes(b"PAR1 half")
            raise full

        monkeypatch.setattr("sttui.exports.hf.write_parquet", half_written)
    else:  # the disk fills as the file is flushed

        def no_room(fd):
            raise full

        monkeypatch.setattr(os, "fsync", no_room)
    out = cli(db, "export", "--all", "--format", fmt, "-o", target)
    refused(out, f"cannot write {target}: No space left on device")
    assert target.read_bytes() == b"the last good copy\n"
    assert [p.name for p in target.parent.iterdir()] == [target.name]


# 2. A lone surrogate is refused at import, like a NUL, alike on both backends.


@pytest.mark.parametrize(
    ("where", "field"), [("payload", "payload.text"), ("key", "payload.k\\ud800"), ("agent", "episode.agent")]
)
def test_a_lone_surrogate_is_refused_at_import_with_its_line_and_field(exported, tmp_path, db_url, where, field):
    objs = copy.deepcopy(exported)
    message = next(i for i, o in enumerate(objs) if o.get("type") == "message")
    line = message + 1
    if where == "payload":
        objs[message]["payload"]["text"] = "half \ud800 a pair"
    elif where == "key":
        objs[message]["payload"]["k\ud800"] = 1
    else:
        line = 2
        objs[1]["episode"]["agent"] = "human:\udc00"
    path = tmp_path / "in.jsonl"
    path.write_text("".join(json.dumps(o) + "\n" for o in objs))  # (ASCII: the pair's half as an escape)
    refused(cli(db_url, "import", path), f"{path}:{line}: {field} holds a lone surrogate", "nothing was imported")
    assert listed(db_url) == []
    # a whole pair is a character like any other
    objs[message]["payload"]["text"] = "\U0001f600"
    objs[1]["episode"]["agent"] = exported[1]["episode"]["agent"]
    objs[message]["payload"].pop("k\ud800", None)
    path.write_text("".join(json.dumps(o) + "\n" for o in objs))
    assert cli(db_url, "import", path).exit_code == 0


# 3. An episode already in the record: the same copy is left, a copy that goes on from it is
# taken, any other copy refuses the file.


def test_an_episode_resumed_and_finished_elsewhere_is_taken_from_the_file(exported, tmp_path):
    db = f"sqlite:///{tmp_path / 'a.db'}"
    stt = episode(exported)
    early = running_copy(stt, 10)
    assert "imported 1 episode(s)" in cli(db, "import", write(tmp_path / "early.jsonl", file_of(early))).output
    finished = write(tmp_path / "finished.jsonl", file_of(stt))
    out = cli(db, "import", finished)
    assert out.exit_code == 0 and "imported 0 episode(s); 0 already present; 1 continued from the file" in out.output
    again = tmp_path / "again.jsonl"
    assert cli(db, "export", "--all", "-o", again).exit_code == 0
    assert again.read_bytes() == finished.read_bytes()  # the record's copy is now the finished one
    assert "imported 0 episode(s); 1 already present" in cli(db, "import", finished).output
    # the running copy again: the record's goes further, and is kept
    out = cli(db, "import", tmp_path / "early.jsonl")
    assert out.exit_code == 0 and "the record's copy goes further than the file's" in out.output
    assert "1 already present" in out.output
    assert cli(db, "export", "--all", "-o", again).exit_code == 0 and again.read_bytes() == finished.read_bytes()


def changed_field(objs, **fields):
    head, *rest = copy.deepcopy(objs)
    head["episode"].update(fields)
    return [head, *rest]


def changed_event(objs, k):
    out = copy.deepcopy(objs)
    out[k]["wall_time"] += 1.0
    return out


def one_more_event(objs):
    last = objs[-1]
    return [*objs, {**last, "seq": last["seq"] + 1, "type": "note", "payload": {"text": "after the end"}}]


@pytest.mark.parametrize(
    ("held", "other", "fragments"),
    [
        (  # another agent and seed under the same id
            lambda s: s,
            lambda s: changed_field(s, agent="baseline:naive", seed=7),
            ["21 events in the record, 21 in the file", "fields seed, agent differ"],
        ),
        (  # the record's copy has ended: a longer copy cannot go on from it
            lambda s: s,
            one_more_event,
            ["21 events in the record, 22 in the file"],
        ),
        (  # the record's running copy and the file's part ways at its fifth event
            lambda s: running_copy(s, 10),
            lambda s: changed_event(s, 5),
            ["status running in the record, completed in the file", "10 events in the record", "differ from event 5"],
        ),
        (  # the same events, ended another way
            lambda s: s,
            lambda s: changed_field(s, end_reason="elsewhere"),
            ["fields end_reason differ"],
        ),
    ],
)
def test_another_copy_of_an_episode_in_the_record_refuses_the_whole_file(exported, tmp_path, held, other, fragments):
    db = f"sqlite:///{tmp_path / 'a.db'}"
    stt, explore = episode(exported), episode(exported, 1)
    assert len(stt) == 22  # the episode and its 21 events
    assert cli(db, "import", write(tmp_path / "held.jsonl", file_of(held(stt)))).exit_code == 0
    before = tmp_path / "before.jsonl"
    cli(db, "export", "--all", "-o", before)
    path = write(tmp_path / "in.jsonl", file_of([*explore, *other(stt)]))  # a new episode, then the other copy
    line = len(explore) + 2
    out = cli(db, "import", path)
    eid = stt[0]["episode"]["id"]
    refused(out, f"{path}:{line}: episode {eid} is already in the record with other contents", "nothing was imported")
    assert all(f in out.output for f in fragments), out.output
    assert f"sttui export {eid} -o FILE" in out.output
    assert [r["id"] for r in listed(db)] == [eid]  # all or nothing: the new episode is not in either
    after = tmp_path / "after.jsonl"
    cli(db, "export", "--all", "-o", after)
    assert after.read_bytes() == before.read_bytes()


# 4. Only a regular file is read: a device or a FIFO would never end or never begin.


def test_a_device_or_a_fifo_is_refused_at_once(tmp_path):
    db = f"sqlite:///{tmp_path / 'a.db'}"
    refused(cli(db, "import", "/dev/null"), "/dev/null: not a regular file", "nothing was imported")
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    result = []
    worker = threading.Thread(target=lambda: result.append(cli(db, "import", fifo)), daemon=True)
    worker.start()
    worker.join(30)
    if worker.is_alive():  # let the hung read go: open the FIFO's other end
        with open(fifo, "w"):
            pass
        worker.join(30)
        pytest.fail("the import of a FIFO waited for a writer")
    refused(result[0], f"{fifo}: not a regular file", "nothing was imported")


# 5. What is not an sttui export is refused: an empty file, another format, a newer version.


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("", "in.jsonl: the file is empty: not an sttui export"),
        ("\n  \n\n", "in.jsonl: the file is empty: not an sttui export"),
        ('{"record": "export", "format": "evil", "version": 2}\n', "in.jsonl:1: export format 'evil' is not sttui's"),
        (
            '{"record": "export", "format": "sttui-jsonl", "version": 999}\n',
            "in.jsonl:1: export version 999; this sttui reads version 2 and earlier; upgrade sttui",
        ),
        ('{"record": "export", "format": "sttui-jsonl", "version": "2"}\n', "in.jsonl:1: export version '2'"),
    ],
)
def test_what_is_not_an_sttui_export_is_refused(exported, tmp_path, text, fragment):
    path = tmp_path / "in.jsonl"
    body = "".join(json.dumps(o) + "\n" for o in exported[1:]) if text.strip() else ""
    path.write_text(text + body)
    db = f"sqlite:///{tmp_path / 'a.db'}"
    refused(cli(db, "import", path), fragment, "nothing was imported")


# 6. Nesting: a stated limit, checked before anything recurses, one line past it.


def nested(levels, kinds="["):
    value: object = 1
    for i in range(levels):
        value = [value] if kinds[i % len(kinds)] == "[" else {"k": value}
    return value


@pytest.mark.parametrize(("levels", "kinds"), [(MAX_DEPTH - 1, "["), (MAX_DEPTH - 1, "[{"), (MAX_DEPTH + 8, "[")])
def test_nesting_up_to_the_limit_round_trips_and_past_it_is_refused_in_one_line(exported, tmp_path, levels, kinds):
    objs = copy.deepcopy(exported)
    k = next(i for i, o in enumerate(objs) if o.get("type") == "message")
    # the line is the event (1), its payload (2), then the value: MAX_DEPTH - 2 levels fit
    objs[k]["payload"]["deep"] = nested(levels - 2, kinds)
    objs[k]["payload"]["brackets"] = "[{" * 1000  # inside a string: no nesting
    path = write(tmp_path / "in.jsonl", objs)
    db = f"sqlite:///{tmp_path / 'a.db'}"
    out = cli(db, "import", path)
    if levels <= MAX_DEPTH:
        assert out.exit_code == 0, out.output
        again = tmp_path / "again.jsonl"
        assert cli(db, "export", "--all", "-o", again).exit_code == 0
        assert again.read_bytes() == path.read_bytes()
    else:
        refused(out, f"{path}:{k + 1}: nested too deeply: more than {MAX_DEPTH} levels", "nothing was imported")


@pytest.mark.parametrize("levels", [300, 400, 900, 5_000, 100_000])
def test_any_depth_past_the_limit_gets_the_same_line(exported, tmp_path, levels):
    text = "".join(json.dumps(o) + "\n" for o in exported)
    deep = '"deep": ' + "[" * levels + "]" * levels + ", "
    path = tmp_path / "in.jsonl"
    path.write_text(text.replace('"payload": {', '"payload": {' + deep, 1))
    line = next(i for i, o in enumerate(exported, 1) if "payload" in o)
    out = cli(f"sqlite:///{tmp_path / 'a.db'}", "import", path)
    refused(out, f"{path}:{line}: nested too deeply: more than {MAX_DEPTH} levels", "nothing was imported")


# 7. A pattern in a message is shown as it is.


def test_a_bad_episode_id_shows_the_real_pattern(exported, tmp_path):
    objs = copy.deepcopy(exported)
    objs[1]["episode"]["id"] = "../../etc"
    out = cli(f"sqlite:///{tmp_path / 'a.db'}", "import", write(tmp_path / "in.jsonl", objs))
    refused(out, "in.jsonl:2: episode field id: string should match pattern '^[A-Za-z0-9_-]+$'")


# 8. A missing folder is refused, as --db refuses one: a mistyped path is an error.


@pytest.mark.parametrize("fmt", ["jsonl", "openai", "hf"])
def test_an_export_to_a_missing_folder_is_refused_and_makes_none(exported, tmp_path, fmt):
    db = f"sqlite:///{tmp_path / 'a.db'}"
    assert cli(db, "import", write(tmp_path / "in.jsonl", exported)).exit_code == 0
    out = cli(db, "export", "--all", "--format", fmt, "-o", tmp_path / "nodir" / "x.jsonl")
    refused(out, f"the folder {tmp_path / 'nodir'} for {tmp_path / 'nodir' / 'x.jsonl'} does not exist", "mkdir -p")
    assert out.exit_code == 2 and not (tmp_path / "nodir").exists()
    (tmp_path / "afile").write_text("")
    refused(cli(db, "export", "--all", "-o", tmp_path / "afile" / "x.jsonl"), f"{tmp_path / 'afile'} is not a folder")


def test_the_next_export_removes_the_part_a_killed_export_left_and_keeps_one_under_way(exported, tmp_path):
    """``kill -9`` mid-export leaves its hidden part beside the target; the next export to that
    file removes it (saying so), but not the part of an export still writing (touched lately),
    nor files of other names."""
    db = f"sqlite:///{tmp_path / 'a.db'}"
    assert cli(db, "import", write(tmp_path / "in.jsonl", exported)).exit_code == 0
    target = tmp_path / "backup.jsonl"
    killed = tmp_path / ".backup.jsonl.0badc0de.part.jsonl"
    writing = tmp_path / ".backup.jsonl.12345678.part.jsonl"
    other = tmp_path / ".backup.jsonl.notes.part.jsonl"
    for path in (killed, writing, other):
        path.write_text('{"record": "export"\n')
    long_ago = time.time() - 3600
    os.utime(killed, (long_ago, long_ago))
    os.utime(other, (long_ago, long_ago))
    out = cli(db, "export", "--all", "-o", target)
    assert out.exit_code == 0, out.output
    assert f"removed {killed.name}, left beside backup.jsonl by an export that was stopped" in out.output
    assert not killed.exists() and writing.exists() and other.exists()
    assert target.read_text().count('"record": "episode"') == 2


def test_an_export_is_written_as_it_is_read_never_whole_in_memory(exported, tmp_path, monkeypatch):
    """10,000 episodes had taken 3.7 GB (every line, then the text, then its bytes, held at
    once): the lines now go to the file as they come. Seen from inside the line source: by its
    last line, the earlier ones are already in the file being written."""
    from sttui.exports import jsonl

    db = f"sqlite:///{tmp_path / 'a.db'}"
    assert cli(db, "import", write(tmp_path / "in.jsonl", exported)).exit_code == 0
    real = jsonl.jsonl_lines
    seen: list[int] = []

    def watched(store, records):
        for line in real(store, records):
            yield line
        for _ in range(20_000):  # (more than a write buffer holds)
            yield line
        part = next(tmp_path.glob(".big.jsonl.*.part.jsonl"))
        seen.append(part.stat().st_size)
        yield line

    monkeypatch.setattr(jsonl, "jsonl_lines", watched)
    out = cli(db, "export", "--all", "-o", tmp_path / "big.jsonl")
    assert out.exit_code == 0, out.output
    assert seen and seen[0] > 1_000_000


def test_an_import_checks_then_writes_an_episode_at_a_time(exported, tmp_path):
    """11,809 episodes had taken 3.7 GB to import (the whole file parsed and held): the file is
    read twice, each time an episode at a time: the first read checks everything, the second
    writes. Seen from outside: an episode is given before the file's later lines are read."""
    from sttui.exports.importing import ImportProblem, walk_export

    cut = [*exported[:-1], {"record": "nonsense"}]  # a problem on the last line
    walked = walk_export(write(tmp_path / "cut.jsonl", cut))
    first = next(walked)  # the first episode, whole, before the last line is reached
    assert first.record.id == exported[1]["episode"]["id"] and first.events
    with pytest.raises(ImportProblem, match=r"cut\.jsonl:.*expected a record of type"):
        list(walked)


def test_a_file_changed_between_the_check_and_the_write_imports_nothing(exported, tmp_path, monkeypatch):
    from sttui.store.store import Store as RealStore

    db = f"sqlite:///{tmp_path / 'a.db'}"
    path = write(tmp_path / "in.jsonl", exported)
    real = RealStore.import_episodes

    def meanwhile(self, items, *args, **kw):  # someone rewrites the file after it was checked
        changed = copy.deepcopy(exported)
        changed[2]["wall_time"] = (changed[2]["wall_time"] or 0) + 1
        write(path, changed)
        return real(self, items, *args, **kw)

    monkeypatch.setattr(RealStore, "import_episodes", meanwhile)
    out = cli(db, "import", path)
    refused(out, "the file changed while it was imported; nothing was imported")
    monkeypatch.undo()
    assert listed(db) == []
