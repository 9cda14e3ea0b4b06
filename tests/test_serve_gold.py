"""Gold items in the browser (``sttui serve --annotate``): mixed into the queue at the rate given,
shown as any item is, and rated into the record as any rating is."""

from __future__ import annotations

import asyncio
import json

import aiohttp
from click.testing import CliRunner

from sttui.cli import main
from sttui.store.store import Store
from tests.conftest import ROOT
from tests.helpers.serving import proc_argv, serving, wait_for
from tests.test_serve import _app_processes

ITEM = "logistics-vaccine-truck-outbreak-st1-hard"  # the last of the eleven logistics tasks in the queue's order

DIMS = 3  # the dimensions of a task item


def _rated_items(db: str, who: str) -> list[str]:
    """The items ``who`` rated on every dimension, in the order they were finished."""
    rows = Store(db).ratings_by(who)
    done = [i for i in dict.fromkeys(r["item_id"] for r in rows) if sum(r["item_id"] == i for r in rows) == DIMS]
    return sorted(done, key=lambda i: max(r["id"] for r in rows if r["item_id"] == i))


async def test_gold_is_mixed_in_and_rated_in_the_browser(tmp_path):
    db = f"sqlite:///{tmp_path / 'serve.db'}"
    Store(db).set_gold("lead", "task", ITEM, "checklist_correctness", 4, 5)
    screen = bytearray()
    with serving(tmp_path, db, "--annotate", "--filter", "logistics", "--gold-rate", "2") as served:
        async with (
            aiohttp.ClientSession() as http,
            http.ws_connect(served.ws(served.token, "ana") + "?width=120&height=40") as ws,
        ):
            await ws.send_json(["resize", {"width": 120, "height": 40}])

            async def read() -> None:
                async for message in ws:
                    if message.type == aiohttp.WSMsgType.BINARY:
                        screen.extend(message.data)

            reader = asyncio.create_task(read())
            (pid,) = await asyncio.to_thread(wait_for, lambda: _app_processes(served), 60, 0.2, "an app process")
            argv = proc_argv(pid)
            assert argv[argv.index("serve-session") :][-4:] == ["--filter", "logistics", "--gold-rate", "2"]
            await asyncio.to_thread(wait_for, lambda: b"Checklist" in screen, 90, 0.3, "the first item")
            for n in (1, 2):  # at one in two, the gold item is one of the first two
                await asyncio.sleep(1)
                for key in ("4",) * DIMS:
                    await ws.send_json(["stdin", key])
                    await asyncio.sleep(0.3)
                await asyncio.to_thread(
                    wait_for, lambda n=n: len(_rated_items(db, "ana")) == n, 60, 0.3, f"{n} item(s) rated"
                )
            reader.cancel()
    first, second = _rated_items(db, "ana")
    assert ITEM in (first, second) and first != second  # one in two is gold: one of the first two
    low = bytes(screen).lower().replace(str(ROOT).lower().encode(), b"")  # a checkout may sit in a folder "gold"
    at = low.find(b"gold")
    assert at < 0, low[at - 300 : at + 100]  # nothing the browser drew names it
    standing = json.loads(CliRunner().invoke(main, ["--db", db, "agreement", "--json"]).stdout)["gold"]
    ana = standing["kinds"]["task"]["annotators"]["ana"]
    assert (ana["gold_rated"], ana["right"], ana["status"]) == (1, 1, "unqualified")  # one of the five needed


def test_a_gold_rate_without_the_annotation_queue_is_refused(tmp_path):
    """--gold-rate only means something for --annotate: without it, one line, not a silent no-op."""
    out = CliRunner().invoke(main, ["--db", f"sqlite:///{tmp_path / 'g.db'}", "serve", "--gold-rate", "2"])
    assert out.exit_code == 2
    assert out.stderr.strip() == "error: --gold-rate mixes gold into the annotation queue: it needs --annotate"
