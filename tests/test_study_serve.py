"""`sttui serve --study STUDY`: each browser session plays its participant's next task; a token
file naming people who are not participants, or an unknown study, is refused in one line."""

from __future__ import annotations

import pytest
import yaml
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


async def _drain(ws) -> None:
    async for _ in ws:
        pass


async def test_a_study_token_opens_its_slot_and_a_second_page_takes_over_the_first(tmp_path):
    import asyncio
    import os

    import aiohttp

    from sttui.store.store import Store
    from sttui.store.studies import Studies
    from tests.helpers.serving import proc_argv, proc_environ, serving, wait_for

    db = f"sqlite:///{tmp_path / 's.db'}"
    path = tmp_path / "study.yaml"
    path.write_text(STUDY.replace("participants: [ana, ben]", "participants: {anonymous: 2}"), encoding="utf-8")
    tokens = tmp_path / "tokens.yaml"
    assert cli(db, "study", "start", str(path), "--no-check", "--token-file", str(tokens))[0] == 0
    token = yaml.safe_load(tokens.read_text())["p01"]  # shown once at start: the record keeps its hash only
    assert Studies(Store(db)).people("pilot")[0].token != token
    env = {**os.environ, "STTUI_TASKS": str(ROOT / "tasks")}

    def sessions(served) -> list[int]:
        found = []
        for pid in served.children():
            try:
                if "serve-session" in proc_argv(pid):
                    found.append(pid)
            except OSError:
                continue
        return found

    with serving(tmp_path, db, "--study", "pilot", env=env) as served:
        assert "participants open" in served.output() and "sttui study tokens pilot --reissue NAME" in served.output()
        async with aiohttp.ClientSession() as http:
            async with http.get(f"{served.base}/?token={token}") as page:
                assert page.status == 200 and f"/ws/{token}/p01" in await page.text()  # no name asked
            first = await http.ws_connect(served.ws(token, "anything"))  # the token names the slot
            reading = asyncio.create_task(_drain(first))  # answers the server's pings, as a page does
            (pid,) = await asyncio.to_thread(wait_for, lambda: sessions(served), 60, 0.2, "the session")
            argv, child = proc_argv(pid), proc_environ(pid)
            assert argv[-4:] == ["--as", "p01", "--study", "pilot"] and token not in " ".join(argv)
            assert child["STTUI_STUDY_TOKEN"] == token
            second = await http.ws_connect(served.ws(token, "p01"))  # the page opened again
            # at once, not when the first page's heartbeat would have lapsed
            await asyncio.to_thread(
                wait_for, lambda: (s := sessions(served)) and pid not in s, 8, 0.2, "the first session ended"
            )
            assert len(sessions(served)) == 1
            await first.close()
            await second.close()
            reading.cancel()
            async with http.get(f"{served.base}/?token={token[:-1]}") as page:
                assert page.status == 403
