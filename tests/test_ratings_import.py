"""import-ratings refuses hostile rows one by one, with their numbers, and then loads
nothing; the load itself is one transaction, claims and ratings together."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from sttui.cli import main
from sttui.store.store import Store

INSULIN = "logistics-insulin-reefer-st2-easy"
GOOD = {"item_kind": "task", "item_id": INSULIN, "dimension": "checklist_correctness", "annotator": "ana", "value": 4}


def run(db, path):
    return CliRunner().invoke(main, ["--db", db, "import-ratings", str(path)])


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("[1, 2, 3]", "line 2 is a JSON array, not an object"),
        ("null", "line 2 is a JSON null, not an object"),
        ("7", "line 2 is a JSON number, not an object"),
        ('"task"', "line 2 is a JSON string, not an object"),
        ("{not json", "line 2 is not JSON"),
        ("[" * 100_000 + "]" * 100_000, "line 2 is not JSON"),
        (json.dumps({**GOOD, "value": 3.7}), "score 3.7 is not a whole number"),
        (json.dumps({**GOOD, "value": True}), "score True is not a whole number"),
        (json.dumps({**GOOD, "value": "4.0"}), "score '4.0' is not a whole number"),
        (json.dumps({**GOOD, "item_id": [INSULIN]}), "item_id must be text, got list"),
        (json.dumps({**GOOD, "annotator": {"name": "x"}}), "annotator must be text, got dict"),
        (json.dumps({**GOOD, "comment": "x" * 200_000}), "comment is 200,000 characters; at most 10,000"),
        (json.dumps({**GOOD, "comment": 12}), "comment must be text, got int"),
        (json.dumps({**GOOD, "created_at": "yesterday"}), "created_at 'yesterday' is not a Unix time"),
        (json.dumps({**GOOD, "created_at": 1e300}), "is not a Unix time"),
        ('{"item_kind": "task", "item_id": "x", "dimension": "d", "annotator": "a", "value": NaN}', "is not a whole"),
        (json.dumps({**GOOD, "annotator": "a" * 500}), "annotator is 500 characters; at most 200"),
    ],
)
def test_a_hostile_row_is_refused_with_its_number_and_nothing_is_loaded(tmp_path, line, reason):
    db = f"sqlite:///{tmp_path / 'r.db'}"
    path = tmp_path / "in.jsonl"
    path.write_text(json.dumps(GOOD) + "\n" + line + "\n" + json.dumps({**GOOD, "annotator": "ben"}) + "\n")
    result = run(db, path)
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert "refused row 2:" in result.output and reason in result.output, result.output
    assert "nothing was imported" in result.output
    assert Store(db).ratings() == []


def test_latin_1_bytes_are_refused_with_their_line(tmp_path):
    db = f"sqlite:///{tmp_path / 'r.db'}"
    path = tmp_path / "in.csv"
    header = "item_kind,item_id,dimension,annotator,value,comment,created_at\n"
    path.write_bytes(
        (header + f"task,{INSULIN},checklist_correctness,ana,4,,\n").encode() + "task,x,d,Zoë,4,,\n".encode("latin-1")
    )
    result = run(db, path)
    assert result.exit_code == 1 and "in.csv:3: not UTF-8 text" in result.output and "Traceback" not in result.output
    assert Store(db).ratings() == []


def test_a_csv_row_with_more_fields_than_the_header(tmp_path):
    db = f"sqlite:///{tmp_path / 'r.db'}"
    path = tmp_path / "in.csv"
    path.write_text(
        "item_kind,item_id,dimension,annotator,value,comment,created_at\n"
        f"task,{INSULIN},checklist_correctness,ana,4,,,surplus\n"
    )
    result = run(db, path)
    assert result.exit_code == 1 and "refused row 1: more fields than the header has columns" in result.output


def test_the_load_is_one_transaction_claims_and_ratings_together(db_url):
    """A row whose item filled up between the check and the load fails the whole load."""
    store = Store(db_url)
    for who in ("x", "y", "z"):
        assert store.claim(who, "task", "t-full", 3)
    rows = [
        {"item_kind": "task", "item_id": "t-free", "dimension": "d", "annotator": "ana", "value": 4, "_row": 1},
        {"item_kind": "task", "item_id": "t-full", "dimension": "d", "annotator": "ana", "value": 5, "_row": 2},
    ]
    refused = store.import_ratings(rows, cap=3)
    assert refused == [(2, "task 't-full' reached the cap of 3 annotators meanwhile")]
    assert store.ratings() == [] and ("task", "t-free") not in store.claims()
    assert store.import_ratings(rows[:1], cap=3) == []
    assert [(r["item_id"], r["annotator"], r["value"]) for r in store.ratings()] == [("t-free", "ana", 4)]
    assert store.claims()[("task", "t-free")] == ["ana"]


# -- issue 24: a file that is not ratings, and the same refusals on both backends ---------------


@pytest.mark.parametrize(
    ("name", "content", "says"),
    [
        ("noheader.csv", f"task,{INSULIN},checklist_correctness,ana,4,,\n", "in.csv:1: not a ratings file"),
        ("empty.csv", "", "in.csv: the file is empty (expected the header item_kind,item_id,"),
        ("onlyheader.csv", "item_kind,item_id,dimension,annotator,value,comment,created_at\n", "holds no ratings"),
        ("empty.jsonl", "\n\n", "holds no ratings"),
    ],
)
def test_a_file_that_holds_no_ratings_is_refused(tmp_path, name, content, says):
    db = f"sqlite:///{tmp_path / 'r.db'}"
    path = tmp_path / ("in" + name[name.index(".") :])
    path.write_text(content)
    result = run(db, path)
    assert result.exit_code == 1 and says in result.output and "imported 0" not in result.output, result.output
    assert len([ln for ln in result.output.splitlines() if ln.strip()]) == 1 and "Traceback" not in result.output


def test_a_fifo_is_not_read_as_ratings(tmp_path):
    import os

    os.mkfifo(tmp_path / "in.jsonl")
    result = run(f"sqlite:///{tmp_path / 'r.db'}", tmp_path / "in.jsonl")
    assert result.exit_code == 1 and "not a regular file" in result.output


@pytest.mark.parametrize(
    ("changes", "reason"),
    [
        ({"annotator": "ana\x00x"}, "annotator holds control characters"),
        ({"annotator": "\x1b[31mred\nnewline"}, "annotator holds control characters"),
        ({"item_id": INSULIN + "\x00"}, "item_id holds control characters"),
        ({"comment": "fine\x00"}, "comment holds a NUL character"),
    ],
)
def test_both_backends_refuse_the_same_rows(db_url, tmp_path, changes, reason):
    path = tmp_path / "in.jsonl"
    path.write_text(json.dumps(GOOD) + "\n" + json.dumps({**GOOD, "annotator": "ben", **changes}) + "\n")
    result = run(db_url, path)
    assert result.exit_code == 1 and f"refused row 2: {reason}" in result.output, result.output
    assert "Traceback" not in result.output and Store(db_url).ratings() == []
    path.write_text(
        json.dumps(GOOD) + "\n" + json.dumps({**GOOD, "annotator": "ben", "comment": "two\nlines\t"}) + "\n"
    )
    assert run(db_url, path).exit_code == 0  # a comment may hold line breaks and tabs, on both
    assert sorted(r["annotator"] for r in Store(db_url).ratings()) == ["ana", "ben"]


def test_a_file_imported_twice_adds_nothing_and_an_older_rating_does_not_undo_a_newer(tmp_path):
    db = f"sqlite:///{tmp_path / 'r.db'}"
    path = tmp_path / "in.jsonl"
    rows = [
        {**GOOD, "created_at": 1714557600.0, "comment": "tidy"},
        {**GOOD, "annotator": "ben", "value": 2, "created_at": 1714557700.0},
        {**GOOD, "annotator": "cai", "value": 3},  # (no time: now, at each import)
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    first = run(db, path)
    assert first.exit_code == 0 and first.output.strip() == "imported 3 rating(s)"
    for _ in range(2):
        again = run(db, path)
        assert again.exit_code == 0 and again.output.strip() == "imported 0 rating(s); 3 already present"
    store = Store(db)
    assert len(store.ratings(include_history=True)) == 3
    old = tmp_path / "old.jsonl"  # ana's rating from before the one the record holds
    old.write_text(json.dumps({**GOOD, "value": 1, "created_at": 1000.0}) + "\n")
    assert run(db, old).exit_code == 0
    current = {r["annotator"]: r["value"] for r in store.ratings()}
    assert current == {"ana": 4, "ben": 2, "cai": 3}  # ana's 4 stands; her 1 is history
    history = [r for r in store.ratings(include_history=True) if r["annotator"] == "ana"]
    assert sorted((r["value"], r["superseded_by"] is None) for r in history) == [(1, False), (4, True)]


def test_export_ratings_and_a_study_bundle_refuse_a_missing_folder_and_write_whole(tmp_path, monkeypatch):
    """As `sttui export`: a mistyped folder is an error, not a new folder; a file is replaced
    only by a whole new one, so one that fails leaves the old as it was."""
    from pathlib import Path

    db = f"sqlite:///{tmp_path / 'r.db'}"
    store = Store(db)
    store.rate("ana", "task", INSULIN, "checklist_correctness", 4)
    missing = tmp_path / "nope" / "r.csv"
    for args in (["export-ratings", "-o", str(missing)], ["study", "export", "any", "-o", str(missing)]):
        result = CliRunner().invoke(main, ["--db", db, *args])
        assert result.exit_code == 2 and "does not exist" in result.output, result.output
        assert not missing.parent.exists()
    out = tmp_path / "r.csv"
    out.write_text("the old export\n")

    def full_disk(path, text, encoding=None):  # a write that dies halfway
        with open(path, "w", encoding=encoding) as f:
            f.write(text[:5])
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(Path, "write_text", full_disk)
    result = CliRunner().invoke(main, ["--db", db, "export-ratings", "-o", str(out)])
    assert result.exit_code != 0 and out.read_text() == "the old export\n"
    monkeypatch.undo()
    assert CliRunner().invoke(main, ["--db", db, "export-ratings", "-o", str(out)]).exit_code == 0
    assert out.read_text().startswith("item_kind,item_id,dimension") and not list(tmp_path.glob(".r.csv.*"))
