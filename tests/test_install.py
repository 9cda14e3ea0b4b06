"""A lean install: PostgreSQL's driver as an extra, the platform's folders, a portable
migration lock, and litellm kept off the start-up path."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time

import pytest

from sttui.errors import StoreError
from sttui.store.db import make_engine
from sttui.store.store import Store
from tests.conftest import ROOT


def test_a_postgresql_url_without_the_driver_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "psycopg", None)  # as if `pip install sttui` without [postgres]
    with pytest.raises(StoreError, match=r"pip install 'sttui\[postgres\]'"):
        make_engine("postgresql+psycopg://someone@127.0.0.1:1/lab")


def test_the_cache_and_config_folders_are_the_platforms(monkeypatch, tmp_path):
    from sttui.config import config_paths
    from sttui.paths import cache_root

    monkeypatch.delenv("STTUI_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xc"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xf"))
    if sys.platform.startswith("linux"):
        assert cache_root() == tmp_path / "xc" / "sttui"
        assert config_paths()[1] == tmp_path / "xf" / "sttui" / "sttui.yaml"
        monkeypatch.delenv("XDG_CACHE_HOME")
        monkeypatch.delenv("XDG_CONFIG_HOME")
        monkeypatch.setenv("HOME", str(tmp_path / "home"))
        assert cache_root() == tmp_path / "home" / ".cache" / "sttui"
        assert config_paths()[1] == tmp_path / "home" / ".config" / "sttui" / "sttui.yaml"
    monkeypatch.setenv("STTUI_CACHE_DIR", str(tmp_path / "mine"))
    assert cache_root() == tmp_path / "mine"


def test_a_new_sqlite_file_waits_for_the_migration_lock_another_process_holds(tmp_path):
    """The lock is filelock's, so it is taken wherever sttui runs (before: skipped without fcntl)."""
    db = tmp_path / "shared.db"
    holder = textwrap.dedent(
        f"""
        import sys, time
        from filelock import FileLock
        with FileLock({str(db) + ".migrate-lock"!r}):
            print("held", flush=True)
            time.sleep(1.5)
        """
    )
    proc = subprocess.Popen([sys.executable, "-c", holder], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
        start = time.monotonic()
        Store(f"sqlite:///{db}").list_episodes()
        waited = time.monotonic() - start
    finally:
        proc.wait(timeout=30)
    assert waited >= 1.0  # it waited for the other process before migrating


def test_opening_home_and_playing_never_imports_litellm(tmp_path):
    """litellm is core (handing a seat to a model is core) but never on the start-up path: home
    opens and a person plays a baseline-user episode without importing it, keys in the
    environment or not. (Only a configured model makes the play screen preload it.)"""
    code = textwrap.dedent(
        f"""
        import asyncio, sys
        sys.path.insert(0, {str(ROOT)!r})
        from tests.tui_helpers import open_play, wait_for
        from textual.widgets import Input
        from sttui.core.callsyntax import format_call
        from sttui.core.loader import load_task
        from sttui.tui.app import SttuiApp
        from sttui.tui.launch import Launch

        STT = {str(ROOT / "tasks" / "stt" / "logistics" / "insulin-reefer-fault-st2-easy.yaml")!r}

        async def main():
            app = SttuiApp(Launch.build({str(ROOT / "tasks")!r}, db_url={f"sqlite:///{tmp_path / 'w.db'}"!r}, human="ana"))
            async with app.run_test(size=(120, 40)) as pilot:
                screen = await open_play(pilot, STT, "agent", "PlayScreen")
                await pilot.press("f5")
                for step in load_task(STT).task.solution:
                    if screen.episode.ended:
                        break
                    entry = screen.query_one("#entry", Input)
                    entry.value = format_call(step.tool, step.args) if step.tool else "> " + step.say
                    await pilot.press("enter")
                    await wait_for(pilot, lambda: screen.human.waiting or screen.episode.ended)
                assert screen.episode.ended, "the episode did not end"
            bad = sorted(m for m in sys.modules if m.split(".")[0] == "litellm")
            print("litellm" if bad else "clean")

        asyncio.run(main())
        """
    )
    env = {**os.environ, "OPENAI_API_KEY": "sk-not-a-real-key-0123456789abcdef"}
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, env=env, timeout=240
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip().splitlines()[-1] == "clean"
