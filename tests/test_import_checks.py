"""A jsonl import is checked whole, then written in one transaction: any bad line refuses the
file with its line, and nothing of it is imported, not even the episodes before the bad one."""

from __future__ import annotations

import json

import pytest

from sttui.store.store import Store
from tests.conftest import cli


def second_episode_line(lines):
    return [i for i, obj in enumerate(lines) if obj.get("record") == "episode"][1]


def write(tmp_path, objs, raw=None):
    path = tmp_path / "in.jsonl"
    text = "".join(json.dumps(o) + "\n" for o in objs) if raw is None else raw
    path.write_text(text)
    return path


def refused(db_url, path, fragment):
    out = cli(db_url, "import", path)
    assert out.exit_code == 1, out.output
    assert fragment in out.output and "nothing was imported" in out.output, out.output
    assert "Traceback" not in out.output
    store = Store(db_url)
    assert store.list_episodes() == []
    store.close()


def test_the_export_imports_whole(exported, tmp_path):
    db = f"sqlite:///{tmp_path / 'ok.db'}"
    out = cli(db, "import", write(tmp_path, exported))
    assert out.exit_code == 0 and "imported 2 episode(s)" in out.output


def event_of_second(lines, k=2):
    start = second_episode_line(lines)
    return start + k  # its k-th event


@pytest.mark.parametrize(
    ("change", "fragment"),
    [
        (lambda o: o.update(seq=10**30), "less than or equal to 10000000"),
        (lambda o: o.update(wall_time="yesterday"), "wall_time: input should be a valid number"),
        (lambda o: o.update(actor={"x": 1}), "actor: input should be a valid string"),
        (lambda o: o.update(payload=[1, 2]), "payload: input should be a valid dictionary"),
        (lambda o: o.update(seq=1), "repeats seq 1; expected 2"),
        (lambda o: o.update(seq=5), "skips to seq 5; expected 2"),
        (lambda o: o.update(type="DROP TABLE"), "type: string should match pattern"),
        (lambda o: o.update(surplus=1), "extra inputs are not permitted"),
    ],
)
def test_a_bad_event_in_the_second_episode_refuses_the_whole_file(exported, tmp_path, db_url, change, fragment):
    lines = [dict(o) for o in exported]
    change(lines[event_of_second(lines)])
    refused(db_url, write(tmp_path, lines), fragment)


@pytest.mark.parametrize(
    ("field", "value", "fragment"),
    [
        ("seed", 10**30, "less than or equal to 9223372036854775807"),
        ("status", "finished", "episode status 'finished'"),
        ("started_at", "2024-01-01", "started_at: input should be a valid number"),
        ("steps", {"n": 3}, "steps: input should be a valid integer"),
        ("id", "../../etc", "id: string should match pattern"),
        ("clean_baseline", "yes", "clean_baseline: input should be a valid boolean"),
    ],
)
def test_a_bad_episode_field_refuses_the_whole_file(exported, tmp_path, field, value, fragment):
    lines = [dict(o) for o in exported]
    i = second_episode_line(lines)
    lines[i] = {**lines[i], "episode": {**lines[i]["episode"], field: value}}
    refused(f"sqlite:///{tmp_path / 'x.db'}", write(tmp_path, lines), fragment)


def test_nan_and_deep_json_are_refused(exported, tmp_path):
    text = "".join(json.dumps(o) + "\n" for o in exported)
    nan = text.replace('"wall_time": ', '"wall_time": NaN, "x": ', 1)
    refused(f"sqlite:///{tmp_path / 'a.db'}", write(tmp_path, [], nan), "NaN is not a number JSON allows")
    deep = text.replace("\n", "\n" + "[" * 100_000 + "]" * 100_000 + "\n", 1)
    refused(f"sqlite:///{tmp_path / 'b.db'}", write(tmp_path, [], deep), "nested too deeply")


def test_a_file_cut_at_a_line_boundary_is_refused(exported, tmp_path):
    cut = exported[:-3]  # the trailer and the explore episode's last two events are gone
    refused(
        f"sqlite:///{tmp_path / 'a.db'}", write(tmp_path, cut), "ends before its end record: the file was cut short"
    )
    # an export from before headers: the completed episode's end is missing, and that is noticed
    legacy = [o for o in exported if o["record"] in ("episode", "event")][:-1]
    refused(f"sqlite:///{tmp_path / 'b.db'}", write(tmp_path, legacy), "is completed but its events never end it")
    # a trailer that does not match what the file holds
    lying = [*exported[:-1], {**exported[-1], "events": 3}]
    refused(f"sqlite:///{tmp_path / 'c.db'}", write(tmp_path, lying), "the export says it holds 2 episode(s) and 3")


def test_an_episode_twice_in_one_file_is_refused(exported, tmp_path):
    body = [o for o in exported if o["record"] in ("episode", "event")]
    first = body[: second_episode_line(exported) - 1]  # the stt episode and its events
    header, trailer = exported[0], {**exported[-1], "episodes": 3, "events": exported[-1]["events"] + len(first) - 1}
    path = write(tmp_path, [header, *body, *first, trailer])
    refused(f"sqlite:///{tmp_path / 'd.db'}", path, "appears twice (first on line 2)")


def test_lines_after_the_end_are_refused(exported, tmp_path):
    refused(f"sqlite:///{tmp_path / 'e.db'}", write(tmp_path, [*exported, exported[1]]), "lines after the export's end")


@pytest.mark.parametrize("where", ["episode", "event", "key"])
def test_a_nul_anywhere_is_refused_alike_on_both_backends(exported, tmp_path, db_url, where):
    """PostgreSQL cannot store a NUL in text or JSON; SQLite could. Both refuse it, with its line."""
    import copy

    objs = copy.deepcopy(exported)
    if where == "episode":
        next(o for o in objs if o.get("record") == "episode")["episode"]["agent"] = "human:a\x00b"
    elif where == "event":
        next(o for o in objs if o.get("type") == "message")["payload"]["text"] = "nul\x00here"
    else:
        next(o for o in objs if o.get("type") == "message")["payload"]["x\x00"] = 1
    refused(db_url, write(tmp_path, objs), "holds a NUL character")
