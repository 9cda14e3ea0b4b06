"""What recording does once per episode stays cheap: a task version recorded already is found
without a pool checkout or a path resolved."""

from __future__ import annotations

import pytest
from sqlalchemy import event as sa_event

import sttui.store.store as store_module
from sttui.store.store import Store


def _stored_once(path, task) -> None:
    """``task``'s version recorded in ``path`` by an earlier run (another Store, as another
    process would have)."""
    first = Store(f"sqlite:///{path}")
    first.register_task(task)
    first.close()


def test_a_recorded_version_is_looked_up_on_the_held_connection(tmp_path, stt_task, mini_task):
    path = tmp_path / "r.db"
    _stored_once(path, stt_task)
    _stored_once(path, mini_task)
    store = Store(f"sqlite:///{path}")
    checkouts: list[object] = []
    sa_event.listen(store.engine, "checkout", lambda *a: checkouts.append(a))
    for i, task in enumerate((stt_task, mini_task, stt_task)):
        items = store.episode_items(task, 1, "baseline:oracle", None, f"ep{i}")
        assert [item[0] for item in items] == ["episode"]  # stored already: only the episode's row
    # one checkout at most: the held connection's own opening, not one per version looked up
    assert len(checkouts) <= 1
    store.close()


def test_a_version_not_recorded_yet_is_still_stored(tmp_path, stt_task):
    store = Store(f"sqlite:///{tmp_path / 'r.db'}")
    items = store.episode_items(stt_task, 1, "baseline:oracle", None, "ep1")
    assert [item[0] for item in items] == ["version", "episode"]
    store.write(items)
    again = Store(f"sqlite:///{tmp_path / 'r.db'}")
    assert [item[0] for item in again.episode_items(stt_task, 1, "baseline:oracle", None, "ep2")] == ["episode"]
    store.close()
    again.close()


def test_a_recorded_version_needs_no_path_resolved(tmp_path, stt_task, monkeypatch):
    path = tmp_path / "r.db"
    _stored_once(path, stt_task)
    store = Store(f"sqlite:///{path}")

    def resolved(loaded: object) -> bool:
        raise AssertionError("a version recorded already was looked for in the cache")

    monkeypatch.setattr(store_module, "_from_the_record", resolved)
    assert [item[0] for item in store.episode_items(stt_task, 1, "a", None, "ep1")] == ["episode"]
    store.close()


def test_a_lookup_fault_says_what_failed(tmp_path, stt_task):
    """A look-up the record refuses comes out as the store's error, as through SQLAlchemy."""
    from sttui.errors import StoreError

    store = Store(f"sqlite:///{tmp_path / 'r.db'}")
    assert store._appender is not None
    with pytest.raises(StoreError):
        store._appender.scalar("SELECT origin FROM no_such_table WHERE task_id = ?", ("x",))
    # and the held connection works again afterwards
    assert store._appender.scalar("SELECT 1", ()) == 1
    store.close()
