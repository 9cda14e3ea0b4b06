"""`sttui serve --study STUDY`: each browser session plays its participant's next task; a token
file naming people who are not participants, or an unknown study, is refused in one line."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from sttui.cli import main
from tests.conftest import ROOT

pytest.importorskip("textual_serve")

STUDY = """\
study: 1
id: pilot
tasks: [clinic-dialysis-urgent-t2-easy]
replication: 1
participants: [ana, ben]
instructions: Play the agent.
"""


def cli(db: str, *args: str) -> tuple[int, str, str]:
    out = CliRunner().invoke(main, ["--db", db, *args], env={"STTUI_TASKS": str(ROOT / "tasks")})
    return out.exit_code, out.stdout, out.stderr


@pytest.fixture
def started(tmp_path):
    db = f"sqlite:///{tmp_path / 's.db'}"
    path = tmp_path / "study.yaml"
    path.write_text(STUDY, encoding="utf-8")
    assert cli(db, "study", "start", str(path), "--no-check")[0] == 0
    return db


def test_a_token_file_naming_strangers_is_refused(started, tmp_path):
    tokens = tmp_path / "tokens.yaml"
    tokens.write_text("ana: " + "a" * 24 + "\nzed: " + "z" * 24 + "\n", encoding="utf-8")
    code, _, err = cli(started, "serve", "--study", "pilot", "--token-file", str(tokens), "--port", "0")
    assert code == 2
    assert err.strip() == "error: the token file names people who are not participants of study pilot: zed"


def test_an_unknown_study_is_refused(started):
    code, _, err = cli(started, "serve", "--study", "nope", "--port", "0")
    assert code == 2 and err.strip() == "error: no study 'nope' in the record; `sttui study start FILE` starts it"


def test_each_session_runs_the_study_for_its_person():
    from sttui.web.access import Tokens
    from sttui.web.server import Mode, SttuiServer

    tokens, _ = Tokens.generate()
    server = SttuiServer(tokens, Mode(study="pilot"), db_url=None, allow_models=False, environ={})
    command = server.command_for("ana")
    assert command.endswith("serve-session --as ana --study pilot")
