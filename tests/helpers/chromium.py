"""Headless Chromium for browser tests: Debian's package (``.ci/browser-start`` installs it),
driven by Playwright. In CI (``CI`` set) a missing browser fails the test; elsewhere it skips and
says why. Tests take the ``browser`` fixture by importing it from here."""

from __future__ import annotations

import os
import shutil

import pytest

CHROMIUM = os.environ.get("STTUI_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
FLAGS = [
    "--no-sandbox",  # root in CI
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]  # headless is Playwright's own flag; each launch gets a fresh profile of its own


def missing(reason: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"{reason}; CI runs .ci/browser-start, which installs it")
    pytest.skip(f"{reason} (install Debian's chromium: .ci/browser-start)")


@pytest.fixture
def browser():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        missing("the playwright package is missing (pip install -e '.[test]')")
    if not (os.path.isfile(CHROMIUM) and os.access(CHROMIUM, os.X_OK)):
        missing(f"no Chromium at {CHROMIUM}")
    with sync_playwright() as pw:
        launched = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        try:
            yield launched
        finally:
            launched.close()
