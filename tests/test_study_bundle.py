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


def rate_episodes(store: Store) -> int:
    """Ratings on the study's episodes, as episodes and as verdicts, with a changed one (only the
    current rating travels) and gold on two of them; how many current ratings."""
    episodes = sorted(r.id for r in store.list_episodes())
    for i, eid in enumerate(episodes[:12]):
        for j, who in enumerate(("ana", "ben", "cy")):
            store.rate(who, "episode", eid, "overall", 1 + (i + j) % 5, "fine" if j == 0 else None, created_at=10.0 + i)
        store.rate("ana", "verdict", eid, "verdict_correct", 1 + i % 2, created_at=50.0 + i)
    store.rate("ben", "episode", episodes[0], "overall", 5, created_at=99.0)  # supersedes ben's first
    store.set_gold("lead", "episode", episodes[1], "overall", 2, 3)
    store.set_gold("lead", "episode", episodes[2], "overall", 4, 4)
    return 12 * 4


def test_the_bundle_gives_the_same_report_elsewhere(tmp_path, db_url):
    here, store, _ = build(tmp_path)
    Studies(store).withdraw("hand", "dev")
    rated = rate_episodes(store)
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
    # the ratings of its episodes came too: the same agreement, the same gold standing, the same rows
    for args in (("agreement", "--json"), ("agreement",), ("gold", "list")):
        mine, theirs = cli(here, *args), cli(db_url, *args)
        assert mine[0] == theirs[0] == 0 and mine[1] == theirs[1], args
    assert len(Store(db_url).ratings()) == rated and json.loads(cli(db_url, "agreement", "--json")[1])["judge"]
    exported = [tmp_path / "mine.csv", tmp_path / "theirs.csv"]
    for db, out in zip((here, db_url), exported, strict=True):
        assert cli(db, "export-ratings", "-o", str(out))[0] == 0
    assert exported[0].read_text() == exported[1].read_text()
    assert cli(db_url, "import", str(bundle))[1].startswith("imported 0 episode(s); 28 already present")
    assert len(Store(db_url).ratings(include_history=True)) == rated  # nothing twice


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


def test_a_damaged_rating_in_the_bundle_imports_nothing(tmp_path):
    here, store, _ = build(tmp_path)
    rate_episodes(store)
    bundle = tmp_path / "hand.jsonl"
    assert cli(here, "study", "export", "hand", "-o", str(bundle))[0] == 0
    lines = bundle.read_text().splitlines()
    for damage, says in (
        (lambda s: s["ratings"][3].update(value=7), "hand.jsonl:2: ratings[3].value: expected a whole rating 1 to 5"),
        (lambda s: s["ratings"][0].update(item_id="elsewhere"), "rates episode elsewhere, which the bundle does not"),
        (lambda s: s["gold"][0].update(low=5, high=2), "hand.jsonl:2: gold[0]: expected 1 <= low <= high <= 5"),
    ):
        study = json.loads(lines[1])
        damage(study)
        bundle.write_text("\n".join([lines[0], json.dumps(study), *lines[2:]]) + "\n")
        other = f"sqlite:///{tmp_path / 'other.db'}"
        code, _, err = cli(other, "import", str(bundle))
        assert code != 0 and says in err and "Traceback" not in err, err
        assert Store(other).list_episodes() == [] and Store(other).ratings() == []
