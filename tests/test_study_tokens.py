"""Participants' tokens are stored hashed: the record (or a copy of it) holds no token, yet the
tokens printed at the start, the token file written then, and a reissued token all work."""

from __future__ import annotations

import stat

import pytest
import yaml
from click.testing import CliRunner
from sqlalchemy import text

from sttui.cli import main
from sttui.store import db as dbmod
from sttui.store.store import Store
from sttui.store.studies import Studies, StudyProblem, hash_token
from sttui.study.running import start
from tests.test_study_store import TASKS, study_file


def cli(db: str, *args: str) -> tuple[int, str, str]:
    out = CliRunner().invoke(main, ["--db", db, *args])
    return out.exit_code, out.stdout, out.stderr


def test_tokens_are_stored_hashed_and_still_let_people_in(db_url, tmp_path):
    store = Store(db_url)
    started = start(store, study_file(tmp_path, "{anonymous: 3}"), TASKS)
    tokens = started.tokens
    assert sorted(tokens) == ["p01", "p02", "p03"] and all(len(t) >= 16 for t in tokens.values())
    studies = Studies(store)
    kept = {p.name: p.token for p in studies.people("pilot")}
    assert kept == {name: hash_token(t) for name, t in tokens.items()}
    assert not set(tokens.values()) & set(kept.values())
    assert start(store, study_file(tmp_path, "{anonymous: 3}"), TASKS).tokens == {}  # never made again
    assert studies.join("pilot", "mo", token=tokens["p02"]).participant == "p02"
    with pytest.raises(StudyProblem, match="no participant of study 'pilot' has that token"):
        studies.join("pilot", None, token=kept["p03"])  # the stored hash is not a token
    new = studies.reissue("pilot", "p03")
    with pytest.raises(StudyProblem, match="has that token"):
        studies.join("pilot", None, token=tokens["p03"])  # the lost token stops working
    assert studies.join("pilot", "zoe", token=new).participant == "p03"


def test_no_token_is_in_the_sqlite_file(tmp_path):
    path = tmp_path / "s.db"
    started = start(Store(f"sqlite:///{path}"), study_file(tmp_path, "{anonymous: 4}"), TASKS)
    raw = b"".join(p.read_bytes() for p in tmp_path.glob("s.db*"))  # the file, and its write-ahead log
    assert all(t.encode() not in raw for t in started.tokens.values())


def test_the_token_file_written_at_the_start_serves_the_study(tmp_path):
    db = f"sqlite:///{tmp_path / 's.db'}"
    tokens = tmp_path / "tokens.yaml"
    code, out, err = cli(
        db, "study", "start", str(study_file(tmp_path, "{anonymous: 2}")), "--no-check", "--token-file", str(tokens)
    )
    assert code == 0, err
    written = yaml.safe_load(tokens.read_text())
    assert sorted(written) == ["p01", "p02"] and all(f"  {n}  {t}" in out for n, t in written.items())
    assert stat.S_IMODE(tokens.stat().st_mode) == 0o600
    from sttui.web.access import Tokens

    assert Tokens.from_file(tokens).owner(written["p02"]).name == "p02"  # serve reads it as it is
    # serve's session for p02's token joins under the name p02, and takes the slot p02
    assert Studies(Store(db)).join("pilot", "p02").participant == "p02"
    listed = cli(db, "study", "tokens", "pilot")[1]
    assert "p01\ttoken (hashed)\t\n" in listed and "p02\ttoken (hashed)\tp02" in listed
    assert not any(t in listed for t in written.values())
    code, out, _ = cli(db, "study", "tokens", "pilot", "--reissue", "p01")
    assert code == 0 and out.startswith("p01\t") and out.split("\t")[1].strip() != written["p01"]
    code, _, err = cli(db, "study", "tokens", "pilot", "--reissue", "nobody")
    assert code == 2 and "'nobody' is not an anonymous slot of study 'pilot'" in err
    code, _, err = cli(
        db,
        "study",
        "start",
        str(study_file(tmp_path, "{anonymous: 2}", pilot="pilot2")),
        "--no-check",
        "--token-file",
        str(tokens),
    )
    assert code == 2 and "exists and is left as it is; the tokens are printed above" in err


def test_plain_tokens_of_an_older_record_are_hashed_by_the_migration(tmp_path):
    url = f"sqlite:///{tmp_path / 'old.db'}"
    engine = dbmod.make_engine(url, create=True)
    dbmod.migrate(engine, url, "0009_gold")
    with engine.begin() as conn:
        conn.execute(text("insert into studies values ('s', 'd', 'x', '{}', '{}', 0)"))
        conn.execute(
            text(
                "insert into study_participants (study_id, idx, name, token, status) values "
                "('s', 0, 'p01', 'plain-token-0123456789', 'open'), ('s', 1, 'p02', NULL, 'open')"
            )
        )
    engine.dispose()
    store = Store(url)
    assert [p.token for p in Studies(store).people("s")] == [hash_token("plain-token-0123456789"), None]
