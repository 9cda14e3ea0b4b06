"""``sttui serve`` in a real browser: Debian's Chromium, headless, driven by Playwright, with two
annotators rating at once (the browser: ``tests.helpers.chromium``). ``STTUI_SERVE_SHOTS=DIR`` also copies the screenshots to DIR."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from sttui.store.store import Store
from tests.helpers import chromium
from tests.helpers.serving import serving, wait_for

browser = chromium.browser  # the fixture

ITEM = "logistics-insulin-reefer-st2-easy"
# Two annotators at once, each with keys of their own: the ratings say whose keys went where.
KEYS = {"ana": ("4", "5"), "ben": ("2", "3")}


@pytest.mark.timeout(300)
def test_two_annotators_rate_in_chromium_and_a_tokenless_visit_is_refused(tmp_path, browser):
    db = f"sqlite:///{tmp_path / 'serve.db'}"
    shots = tmp_path / "shots"
    shots.mkdir()
    with serving(tmp_path, db, "--annotate", "--filter", "insulin-reefer") as served:
        # no token: 403, and nothing started
        stranger = browser.new_context()
        refused = stranger.new_page().goto(f"{served.base}/")
        assert refused is not None and refused.status == 403
        assert served.children() == []
        stranger.close()

        hosts: set[str] = set()
        pages = {}
        for name in KEYS:
            context = browser.new_context(viewport={"width": 1280, "height": 800})
            page = context.new_page()
            page.on("request", lambda request: hosts.add(urlsplit(request.url).netloc))
            page.goto(served.url)
            if name == "ana":  # the name form, as a person meets it
                page.fill("#name", name)
                page.click("#go")
            else:
                page.goto(f"{served.url}&name={name}")
            pages[name] = page
        for page in pages.values():
            page.wait_for_selector("body.-first-byte", state="attached", timeout=60_000)
        store = Store(db)
        wait_for(lambda: set(store.claims("task").get(("task", ITEM), [])) == set(KEYS), 90, 0.3, "both queues open")
        for name, page in pages.items():
            page.click("#terminal")
            for key in KEYS[name]:
                page.keyboard.press(key)

        def landed() -> dict[str, list[int]]:
            rows = [r for r in store.ratings("task") if r["item_id"] == ITEM]
            got = {n: [r["value"] for r in sorted(rows, key=lambda r: r["id"]) if r["annotator"] == n] for n in KEYS}
            return got if all(len(v) == 2 for v in got.values()) else {}

        got = wait_for(landed, 60, 0.3, "both annotators' ratings in the database")
        assert got == {name: [int(k) for k in keys] for name, keys in KEYS.items()}
        page_shots = []
        for name, page in pages.items():
            path = shots / f"serve-{name}.png"
            page.wait_for_timeout(800)  # the saved line, drawn
            page.screenshot(path=str(path))
            page_shots.append(path)
    assert hosts == {urlsplit(served.base).netloc}, f"the page fetched from elsewhere: {hosts}"
    for path in page_shots:
        data = path.read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000, path  # a drawn terminal, not a blank page
    if keep := os.environ.get("STTUI_SERVE_SHOTS"):
        Path(keep).mkdir(parents=True, exist_ok=True)
        for path in page_shots:
            shutil.copy(path, Path(keep) / path.name)


@pytest.mark.timeout(300)
def test_behind_a_reverse_proxy_the_terminal_connects_through_the_proxy(tmp_path, browser):
    """Behind a lab's proxy the page's websocket went to the address sttui listens on, which
    a browser outside cannot reach: the page named the server's own address whenever the Host
    it was asked by was not one of its names. It now goes to the page's own origin."""
    from tests.helpers.proxy import proxy

    db = f"sqlite:///{tmp_path / 'serve.db'}"
    with serving(tmp_path, db, "--annotate", "--filter", "insulin-reefer") as served, proxy(served.base) as front:
        page = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
        hosts: set[str] = set()
        sockets: list[str] = []
        page.on("request", lambda request: hosts.add(urlsplit(request.url).netloc))
        page.on("websocket", lambda socket: sockets.append(socket.url))
        page.goto(f"{front}/?token={served.token}&name=ana")
        page.wait_for_selector("body.-first-byte", state="attached", timeout=60_000)
        store = Store(db)
        wait_for(lambda: ("task", ITEM) in store.claims("task"), 90, 0.3, "ana's queue open")
        page.click("#terminal")
        page.keyboard.press("4")
        wait_for(lambda: [r["value"] for r in store.ratings("task") if r["annotator"] == "ana"], 60, 0.3, "the rating")
    front_netloc = urlsplit(front).netloc
    assert sockets and all(urlsplit(url).netloc == front_netloc for url in sockets), sockets
    assert hosts <= {front_netloc}, hosts
