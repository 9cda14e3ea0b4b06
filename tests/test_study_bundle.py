"""A study exported as one bundle and imported into another record gives the same report,
digit for digit; a bundle whose study record is damaged imports nothing."""

from __future__ import annotations

import json

from click.testing import CliRunner

from sttui.cli import main
from sttui.store.store import Store
from sttui.store.studies import Studies
from tests.test_study_report import build


def cli(db: str, *args: str) -> tuple[int, str, str]:
    out = CliRunner().invoke(main, ["--db", db, *args])
    return out.exit_code, out.stdout, out.stderr


def test_the_bundle_gives_the_same_report_elsewhere(tmp_path, db_url):
    here, store, _ = build(tmp_path)
    Studies(store).withdraw("hand", "dev")
    bundle = tmp_path / "hand.jsonl"
    code, out, err = cli(here, "study", "export", "hand", "-o", str(bundle))
    assert code == 0, err
    assert '"tokens"' not in bundle.read_text() and '"token"' not in bundle.read_text()
    code, out, err = cli(db_url, "import", str(bundle))  # another machine's record
    assert code == 0, err
    assert "imported 28 episode(s)" in out  # 16 human, 8 oracle, 4 naive
    for args in (("study", "report", "hand"), ("study", "report", "hand", "--json"), ("study", "status", "hand")):
        mine, theirs = cli(here, *args), cli(db_url, *args)
        assert mine[0] == theirs[0] == 0
        assert mine[1] == theirs[1]
    found = json.loads(cli(db_url, "study", "report", "hand", "--json")[1])
    assert found["left_out"] == {"withdrawn": 4}
    assert cli(db_url, "import", str(bundle))[1].startswith("imported 0 episode(s); 28 already present")


def test_a_damaged_study_record_imports_nothing(tmp_path):
    here, _, _ = build(tmp_path)
    bundle = tmp_path / "hand.jsonl"
    assert cli(here, "study", "export", "hand", "-o", str(bundle))[0] == 0
    lines = bundle.read_text().splitlines()
    study = json.loads(lines[1])
    study["slots"][0]["surprise"] = 1
    lines[1] = json.dumps(study)
    bundle.write_text("\n".join(lines) + "\n")
    other = f"sqlite:///{tmp_path / 'other.db'}"
    code, _, err = cli(other, "import", str(bundle))
    assert code != 0 and "hand.jsonl:2: a slot has the fields" in err and "nothing was imported" in err
    assert Store(other).list_episodes() == []
