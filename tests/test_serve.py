"""``sttui serve``: the token on the page and the websocket, what an app process is started with,
and the cap of raters across browser sessions. The browser itself: test_serve_browser.py."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import socket
import subprocess
import sys
from pathlib import Path

import aiohttp
import pytest
from click.testing import CliRunner

from sttui.cli import main
from sttui.store.store import Store
from sttui.web.access import TokenFileError, Tokens
from sttui.web.childenv import child_environment
from tests.helpers.serving import Served, proc_argv, proc_environ, serving, wait_for

ITEM = "logistics-insulin-reefer-st2-easy"
KEYS = {
    "OPENAI_API_KEY": "sk-serve-test-openai-0123456789",
    "ANTHROPIC_API_KEY": "sk-ant-serve-test-0123456789",
    "HF_TOKEN": "hf_servetest0123456789",
    "AWS_ACCESS_KEY_ID": "AKIASERVETEST0123456",
    "AWS_SECRET_ACCESS_KEY": "serve-test-aws-secret",
    "LAB_SECRET": "serve-test-lab-secret",
    "GITHUB_TOKEN": "ghp_servetest0123456789",
}


def _db(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'serve.db'}"


def _app_processes(served: Served) -> list[int]:
    """The app processes (``sttui serve-session``) below the server."""
    out = []
    for pid in served.children():
        try:
            if "serve-session" in proc_argv(pid):
                out.append(pid)
        except OSError:
            continue
    return out


async def _status(url: str) -> int:
    async with aiohttp.ClientSession() as http, http.get(url) as response:
        return response.status


async def _ws_status(url: str, origin: str | None = None) -> int:
    """The HTTP status a websocket handshake gets (101 when it opens), as a browser on the page
    ``origin`` would open it."""
    async with aiohttp.ClientSession() as http:
        try:
            async with http.ws_connect(url, origin=origin):
                return 101
        except aiohttp.WSServerHandshakeError as exc:
            return exc.status


# -- tokens and the child's environment, alone ----------------------------------------------------


def test_tokens_open_only_with_the_exact_token():
    tokens, token = Tokens.generate()
    assert len(token) >= 32 and re.fullmatch(r"[0-9a-f]+", token)
    assert tokens.owner(token) is not None and tokens.owner(token).name is None
    for wrong in (None, "", token[:-1], token + "0", token.upper(), "é" + token[1:]):
        assert tokens.owner(wrong) is None


def test_per_person_tokens_name_their_owner_and_bad_files_say_why(tmp_path):
    good = tmp_path / "tokens.yaml"
    good.write_text("ana: aaaaaaaaaaaaaaaaaaaa1\nben: bbbbbbbbbbbbbbbbbbbb2\n")
    tokens = Tokens.from_file(good)
    assert tokens.owner("bbbbbbbbbbbbbbbbbbbb2").name == "ben" and tokens.owner("aaaaaaaaaaaaaaaaaaaa1").name == "ana"
    assert tokens.owner("cccccccccccccccccccc3") is None
    bad = {
        "short.yaml": ("ana: short\n", "16 printable ASCII characters"),
        "list.yaml": ("- aaaaaaaaaaaaaaaaaaaa1\n", "expected a mapping"),
        "name.yaml": ("'a b': aaaaaaaaaaaaaaaaaaaa1\n", "a name is letters"),
        "same.yaml": ("ana: aaaaaaaaaaaaaaaaaaaa1\nben: aaaaaaaaaaaaaaaaaaaa1\n", "the same token as ana"),
        "yaml.yaml": ("ana: [\n", "not YAML"),
    }
    for file, (text, message) in bad.items():
        (tmp_path / file).write_text(text)
        with pytest.raises(TokenFileError, match=re.escape(message)):
            Tokens.from_file(tmp_path / file)
    with pytest.raises(TokenFileError, match=r"missing\.yaml"):
        Tokens.from_file(tmp_path / "missing.yaml")


def test_the_childs_environment_has_no_keys_unless_models_are_allowed():
    environ = {"PATH": "/usr/bin", "HOME": "/home/a", "LANG": "C.UTF-8", "STTUI_TASKS": "/t", "PGHOST": "db"}
    environ |= {"PGPASSWORD": "pgpass", "STTUI_ACCESS_TOKEN": "x" * 20, "EDITOR": "vi"} | KEYS
    plain = child_environment(environ, allow_models=False, db_url="sqlite:///x.db")
    assert plain == {
        "PATH": "/usr/bin",
        "HOME": "/home/a",
        "LANG": "C.UTF-8",
        "STTUI_TASKS": "/t",
        "PGHOST": "db",
        "PGPASSWORD": "pgpass",  # the record's own connection
        "STTUI_DB": "sqlite:///x.db",
    }
    allowed = child_environment(environ, allow_models=True, db_url=None)
    assert allowed == environ


# -- the server: who gets in ------------------------------------------------------------------------


async def test_no_token_or_a_wrong_one_gets_403_and_starts_no_process(tmp_path):
    with serving(tmp_path, _db(tmp_path), "--annotate") as served:
        token = served.token
        assert token and served.url == f"{served.base}/?token={token}"
        for url in (f"{served.base}/", f"{served.base}/?token=wrong", f"{served.base}/?token={token[:-1]}"):
            assert await _status(url) == 403, url
        wrong_with_query = served.ws("wrong", "ana") + f"?token={token}"
        for url in (served.ws("wrong", "ana"), served.ws(token[:-1], "ana"), served.ws("", "ana"), wrong_with_query):
            assert await _ws_status(url) in (403, 404), url
        assert await _ws_status(served.ws("wrong", "ana")) == 403
        await asyncio.sleep(1)
        assert served.children() == [], "a refused request started a process"
        # the static files (textual-serve's own script and font) need no token; nothing else is served
        assert await _status(f"{served.base}/static/js/textual.js") == 200
        assert await _status(f"{served.base}/download/x?token={token}") == 404
        # the control: the right token on the websocket does start one
        async with aiohttp.ClientSession() as http, http.ws_connect(served.ws(token, "ana")):
            pids = await asyncio.to_thread(wait_for, lambda: _app_processes(served), 60, 0.2, "an app process")
            assert len(pids) == 1
    assert "refused GET '/ws'" in served.output() and served.output().count(token) == 1  # printed once, never logged


async def test_the_page_asks_a_name_and_passes_it_to_the_session(tmp_path):
    with serving(tmp_path, _db(tmp_path), "--annotate") as served:
        async with aiohttp.ClientSession() as http:
            async with http.get(served.url) as response:
                form = await response.text()
                assert response.status == 200 and 'name="name"' in form and served.token in form
                assert "Content-Security-Policy" in response.headers and "ws://" not in form
            async with http.get(served.url + "&name=a%20b") as response:
                assert response.status == 400 and "ASCII letters, digits" in await response.text()
            async with http.get(served.url + "&name=ana") as response:
                page = await response.text()
                assert response.status == 200 and f"/ws/{served.token}/ana" in page
                assert "googleapis" not in page and "https://" not in page  # nothing fetched from outside
            assert served.children() == []
            async with http.ws_connect(served.ws(served.token, "ana")):
                (pid,) = await asyncio.to_thread(wait_for, lambda: _app_processes(served), 60, 0.2, "an app process")
                argv = proc_argv(pid)
                assert argv[argv.index("serve-session") :] == ["serve-session", "--as", "ana", "--annotate", "tasks"]


async def test_per_person_tokens_decide_the_name_and_home_opens_without_annotate(tmp_path):
    tokens = tmp_path / "tokens.yaml"
    tokens.write_text("ana: aaaaaaaaaaaaaaaaaaaa1\nben: bbbbbbbbbbbbbbbbbbbb2\n")
    with serving(tmp_path, _db(tmp_path), "--token-file", str(tokens)) as served:
        assert served.token is None and "2 annotators" in served.output()
        assert await _status(f"{served.base}/?token=bbbbbbbbbbbbbbbbbbbb2") == 200  # no name asked
        assert await _status(f"{served.base}/?token=cccccccccccccccccccc3") == 403
        # ben's token, whatever name the path says
        async with aiohttp.ClientSession() as http, http.ws_connect(served.ws("bbbbbbbbbbbbbbbbbbbb2", "mallory")):
            (pid,) = await asyncio.to_thread(wait_for, lambda: _app_processes(served), 60, 0.2, "an app process")
            argv = proc_argv(pid)
            assert argv[argv.index("serve-session") :] == ["serve-session", "--as", "ben"]  # home: no --annotate


@pytest.mark.parametrize("allow", [False, True], ids=["stripped", "allow-models"])
async def test_api_keys_reach_the_app_process_only_with_allow_models(tmp_path, allow):
    env = dict(os.environ) | KEYS
    args = ["--annotate", "--allow-models"] if allow else ["--annotate"]
    with serving(tmp_path, _db(tmp_path), *args, env=env) as served:
        async with aiohttp.ClientSession() as http, http.ws_connect(served.ws(served.token, "ana")):
            (pid,) = await asyncio.to_thread(wait_for, lambda: _app_processes(served), 60, 0.2, "an app process")
            child = proc_environ(pid)
    assert child["STTUI_DB"] == _db(tmp_path) and child["HOME"] == os.environ["HOME"]
    assert child["TEXTUAL_DRIVER"].endswith("WebDriver")
    for name, value in KEYS.items():
        assert (child.get(name) == value) if allow else (name not in child and value not in child.values()), name
    assert ("warning: --allow-models" in served.output()) == allow


# -- the cap of raters, across browser sessions ----------------------------------------------------


async def _annotator(served: Served, name: str, screens: dict[str, bytearray], rate: asyncio.Event) -> None:
    """One browser session, as textual-serve's page script speaks it: read the screen, press 1."""
    screen = screens.setdefault(name, bytearray())
    async with (
        aiohttp.ClientSession() as http,
        http.ws_connect(served.ws(served.token, name) + "?width=120&height=40") as ws,
    ):
        await ws.send_json(["resize", {"width": 120, "height": 40}])

        async def read() -> None:
            async for message in ws:
                if message.type == aiohttp.WSMsgType.BINARY:
                    screen.extend(message.data)

        reader = asyncio.create_task(read())
        await rate.wait()
        await ws.send_json(["stdin", "1"])
        await asyncio.sleep(4)
        reader.cancel()


def _showing(screen: bytearray) -> str | None:
    text = screen.decode(errors="replace")
    if "Nothing left to rate" in text:
        return "nothing"
    if "Query" in text and "Checklist" in text:
        return "item"
    return None


async def test_the_cap_of_three_raters_holds_across_browser_sessions(tmp_path, db_url):
    """Four people open the queue on one item at once; three get it, the fourth is told there is
    nothing left, and only three ratings land."""
    names = ("ana", "ben", "chloe", "dev")
    with serving(tmp_path, db_url, "--annotate", "--filter", "insulin-reefer") as served:
        screens: dict[str, bytearray] = {}
        rate = asyncio.Event()
        sessions = [asyncio.create_task(_annotator(served, name, screens, rate)) for name in names]

        def all_shown() -> bool:
            return len(screens) == 4 and all(_showing(s) for s in screens.values())

        await asyncio.to_thread(wait_for, all_shown, 90, 0.3, "four sessions to show their queue")
        rate.set()
        await asyncio.gather(*sessions)
    shown = {name: _showing(screens[name]) for name in names}
    assert sorted(shown.values()) == ["item", "item", "item", "nothing"], shown
    store = Store(db_url)
    assert len(store.claims("task")[("task", ITEM)]) == 3
    raters = {r["annotator"] for r in store.ratings("task") if r["item_id"] == ITEM}
    assert raters == {n for n, s in shown.items() if s == "item"}


# -- bad input: one clear line --------------------------------------------------------------------


def test_bad_input_gets_one_line_not_a_traceback(tmp_path, monkeypatch):
    runner = CliRunner()
    db = ["--db", _db(tmp_path)]
    (tmp_path / "bad.yaml").write_text("ana: short\n")
    result = runner.invoke(main, [*db, "serve", "--token-file", str(tmp_path / "bad.yaml")])
    assert result.exit_code == 2 and "error:" in result.output and "Traceback" not in result.output
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = runner.invoke(main, [*db, "serve", "--port", str(port)])
    assert result.exit_code == 2 and "the port is in use" in result.output, result.output
    monkeypatch.setitem(sys.modules, "textual_serve", None)
    monkeypatch.setitem(sys.modules, "textual_serve.server", None)
    monkeypatch.delitem(sys.modules, "sttui.web.server", raising=False)
    result = runner.invoke(main, [*db, "serve"])
    assert result.exit_code == 2 and "pip install 'sttui[serve]'" in result.output, result.output


def test_a_host_beyond_loopback_warns(tmp_path):
    with serving(tmp_path, _db(tmp_path), "--host", "0.0.0.0") as served:
        assert "warning: listening on 0.0.0.0" in served.output()
    with serving(tmp_path, _db(tmp_path)) as served:
        assert "warning" not in served.output() and served.base.startswith("http://127.0.0.1:")


# -- hostile input (issue 24) ----------------------------------------------------------------------


def _alive(pid: int) -> bool:
    """Running (a zombie waiting for its parent counts as gone)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


async def _open_sessions(served: Served, http: aiohttp.ClientSession, names: list[str]) -> list:
    sockets = [await http.ws_connect(served.ws(served.token, n)) for n in names]
    await asyncio.to_thread(wait_for, lambda: len(_app_processes(served)) == len(names), 60, 0.2, "app processes")
    return sockets


@pytest.mark.parametrize("stop", ["SIGTERM", "SIGKILL"])
async def test_a_flood_of_keys_is_refused_and_no_app_process_outlives_its_websocket_or_the_server(tmp_path, stop):
    """A 200,000-character paste once kept its app process growing after everyone had left.
    Now: the frame is refused, the process ends with its websocket, and none outlives the server
    (asked to stop, or killed outright)."""
    with serving(tmp_path, _db(tmp_path), "--annotate") as served:
        async with aiohttp.ClientSession() as http:
            flooded, pasted, kept = await _open_sessions(served, http, ["ana", "ben", "chloe"])
            pids = _app_processes(served)
            await flooded.send_json(["stdin", "x" * 200_000])  # over any message a session reads
            await pasted.send_json(["stdin", "y" * 60_000])  # a message it reads: a paste over the cap
            await asyncio.to_thread(wait_for, lambda: "dropped keys" in served.output(), 30, 0.2, "the drop said")
            await asyncio.to_thread(wait_for, lambda: len(_app_processes(served)) == 2, 30, 0.2, "one session ended")
            await pasted.close()  # closing a websocket ends its process
            await asyncio.to_thread(wait_for, lambda: len(_app_processes(served)) == 1, 30, 0.2, "its process gone")
            assert served.output().count("dropped keys") == 1
            os.kill(served.proc.pid, getattr(signal, stop))  # the server alone, not its group
            await asyncio.to_thread(served.proc.wait, 30)
            await asyncio.to_thread(wait_for, lambda: not any(map(_alive, pids)), 20, 0.2, "every app process gone")
            await kept.close()
            await flooded.close()
    assert "Traceback" not in served.output()


async def test_plain_requests_get_a_4xx_and_one_log_line(tmp_path):
    """A GET without an upgrade on a websocket's address, and a request line over 8,190 bytes:
    each a 4xx and one line in the log, never a traceback."""
    with serving(tmp_path, _db(tmp_path), "--annotate") as served:
        assert await _status(served.ws(served.token, "ana").replace("ws://", "http://")) == 400
        reader, writer = await asyncio.open_connection("127.0.0.1", int(served.base.rsplit(":", 1)[1]))
        writer.write(b"GET /" + b"a" * 9000 + b" HTTP/1.1\r\nHost: x\r\n\r\n")
        await writer.drain()
        status_line = await asyncio.wait_for(reader.readline(), 10)
        writer.close()
        assert status_line.split()[1] in (b"400", b"414"), status_line
        await asyncio.sleep(0.5)
        assert served.children() == []
    out = served.output()
    assert "Traceback" not in out and "Error handling request" not in out and "Unhandled exception" not in out, out
    assert out.count("without a websocket upgrade") == 1 and out.count("could not read") == 1, out


async def test_sessions_are_capped_per_token_and_in_all_with_a_clear_page(tmp_path):
    tokens = tmp_path / "tokens.yaml"
    ana, ben, chloe = ("aaaaaaaaaaaaaaaaaaaa1", "bbbbbbbbbbbbbbbbbbbb2", "cccccccccccccccccccc3")
    tokens.write_text(f"ana: {ana}\nben: {ben}\nchloe: {chloe}\n")
    args = ("--token-file", str(tokens), "--sessions-per-token", "1", "--max-sessions", "2")
    with serving(tmp_path, _db(tmp_path), *args) as served:
        async with aiohttp.ClientSession() as http:
            first = await http.ws_connect(served.ws(ana, "x"))
            await asyncio.to_thread(wait_for, lambda: len(_app_processes(served)) == 1, 60, 0.2, "ana's session")
            assert await _ws_status(served.ws(ana, "x")) == 429  # ana's second tab
            async with http.get(f"{served.base}/?token={ana}") as response:
                assert response.status == 429 and "--sessions-per-token" in await response.text()
            second = await http.ws_connect(served.ws(ben, "x"))
            await asyncio.to_thread(wait_for, lambda: len(_app_processes(served)) == 2, 60, 0.2, "ben's session")
            assert await _ws_status(served.ws(chloe, "x")) == 429  # the server is full
            async with http.get(f"{served.base}/?token={chloe}") as response:
                assert response.status == 429 and "--max-sessions" in await response.text()
            assert len(_app_processes(served)) == 2
            await first.close()
            await asyncio.to_thread(wait_for, lambda: len(_app_processes(served)) == 1, 30, 0.2, "ana's session gone")
            # room again: the server frees the slot once the child has stopped, a moment after it is gone
            status = 429
            for _ in range(150):
                async with http.get(f"{served.base}/?token={chloe}") as response:
                    status = response.status
                if status != 429:
                    break
                await asyncio.sleep(0.2)
            assert status == 200
            await second.close()


async def test_the_page_gives_its_websocket_as_a_path_whatever_the_headers_say(tmp_path):
    """The page's script puts the websocket on the page's own origin (the browser's test goes
    through a proxy); the server writes only the path, so no Host or X-Forwarded header, forged
    or a proxy's, is echoed into the page or decides where the keys go."""
    with serving(tmp_path, _db(tmp_path), "--annotate") as served:
        port = served.base.rsplit(":", 1)[1]
        path = f"/ws/{served.token}/ana"
        async with aiohttp.ClientSession() as http:
            for headers in (
                {"Host": f"evil.example:{port}"},
                {"Host": "lab.example", "X-Forwarded-Proto": "https", "X-Forwarded-Host": "evil.example"},
                {},
            ):
                async with http.get(served.url + "&name=ana", headers=headers) as response:
                    page = await response.text()
                assert response.status == 200
                assert f'data-session-websocket-url="{path}"' in page, page[-1200:]
                assert "evil.example" not in page and "lab.example" not in page and "ws://" not in page


async def test_a_page_on_another_site_opens_nothing_without_the_token(tmp_path):
    """The token is the one credential and never an ambient one (no cookie), so a page elsewhere
    cannot borrow a visitor's session: its websocket without the token, or with a wrong one, is
    refused before any process starts. The Origin is not what decides: with the token, a page
    served through a lab's proxy under another name opens its session."""
    with serving(tmp_path, _db(tmp_path), "--annotate") as served:
        for token in ("", "x" * 40):
            assert await _ws_status(served.ws(token, "ana"), origin="https://evil.example") == 403
        assert _app_processes(served) == []
        assert await _ws_status(served.ws(served.token, "ana"), origin="https://sttui.lab.example") == 101


def test_token_files_that_are_not_small_utf8_mappings_get_one_line(tmp_path):
    good = "aaaaaaaaaaaaaaaaaaaa1"
    cases = {
        "dup.yaml": (f"ana: {good}\nana: bbbbbbbbbbbbbbbbbbbb2\n", "ana is given twice (lines 1 and 2)"),
        "big.yaml": (f"ana: {good}\n# " + "x" * 40_000_000 + "\n", "larger than 256 KB"),
        "utf16.yaml": (f"ana: {good}\n".encode("utf-16"), "UTF-8 text"),
        "binary.yaml": (b"\x89PNG\r\n\x1a\n\xff\xfe\xfd", "not UTF-8"),
        "ctrl.yaml": (f'"\\x1b[31mred": {good}\n', "a name is letters"),
    }
    for file, (content, message) in cases.items():
        path = tmp_path / file
        path.write_bytes(content if isinstance(content, bytes) else content.encode())
        with pytest.raises(TokenFileError, match=re.escape(message)):
            Tokens.from_file(path)
    os.mkfifo(tmp_path / "fifo.yaml")
    for special in (tmp_path / "fifo.yaml", Path("/dev/zero")):
        with pytest.raises(TokenFileError, match="not a regular file"):
            Tokens.from_file(special)
    (tmp_path / "words.yaml").write_text(f"yes: {good}\n'no': bbbbbbbbbbbbbbbbbbbb2\n1: cccccccccccccccccccc3\n")
    tokens = Tokens.from_file(tmp_path / "words.yaml")
    assert tokens.owner(good).name == "yes" and tokens.owner("bbbbbbbbbbbbbbbbbbbb2").name == "no"
    assert tokens.owner("cccccccccccccccccccc3").name == "1"  # names are strings, as written


def test_a_session_process_says_nothing_of_keys_posted_after_its_app_ended(tmp_path):
    """A session closed mid-flood left Textual's key thread posting to the ended app: a warning
    for each post, and once (two threads' first warnings at once) a traceback in serve's log.
    The app process's setup drops that warning and imports what formatting one needs first."""
    script = (
        "import sys, gc, warnings\n"
        "from sttui.cli.serve import quiet_driver_shutdown\n"
        "quiet_driver_shutdown()\n"
        "assert 'tracemalloc' in sys.modules\n"
        "from textual.message_pump import MessagePump\n"
        "pending = MessagePump()._post_message(None)\n"
        "del pending; gc.collect()\n"
        "warnings.warn('another warning still shows', RuntimeWarning)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "never awaited" not in done.stderr and "another warning still shows" in done.stderr, done.stderr


async def test_a_session_kept_busy_with_keys_still_ends_with_its_websocket(tmp_path):
    """Keys at the most a session takes, for seconds, keep its process busy; closing the
    websocket still ends it within the grace periods (it once waited on the busy process)."""
    with serving(tmp_path, _db(tmp_path), "--annotate") as served:
        async with aiohttp.ClientSession() as http:
            (ws,) = await _open_sessions(served, http, ["ana"])
            (pid,) = _app_processes(served)
            await asyncio.sleep(2)
            for _ in range(100):  # 16,000 characters every 50 ms: more than the rate, all day long
                await ws.send_json(["stdin", "x" * 16_000])
                await asyncio.sleep(0.05)
            closed = asyncio.get_running_loop().time()
            await ws.close()
            await asyncio.to_thread(wait_for, lambda: not _alive(pid), 15, 0.1, "the busy process gone")
            took = asyncio.get_running_loop().time() - closed
    assert took < 12 and "Traceback" not in served.output(), (took, served.output()[-2000:])
