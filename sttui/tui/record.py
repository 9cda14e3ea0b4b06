"""When and how the workbench opens the record: off the UI thread, once, when something first
needs it (``with_record``); until then home's sessions pane reads a SQLite file on its own
(``sessions_reader``, through ``sttui.store.peek``: no SQLAlchemy). Nothing that records runs
before the record is open, since every event is committed there as it happens."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from textual import work
from textual.app import App
from textual.message import Message

from sttui.tui.toasts import withdraw

if TYPE_CHECKING:
    from sttui.store.store import Store

    _AppBase = App[None]
else:
    _AppBase = object


class RecordOpened(Message):
    """The record is open (``Store``): sessions may start from now on, not before."""

    def __init__(self, store: Any) -> None:
        self.store = store
        super().__init__()


class RecordUnavailable(Message):
    """The record could not be opened: why, in one line."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__()


class RecordNeeded(Message):
    """Home's sessions pane cannot read the file on its own: the record opens instead."""


class RecordAccess(_AppBase):
    """The app's side of the record (a mixin of ``SttuiApp``, listed before ``App``). The app
    says what an open record starts (``_store_ready``) and what a failure does
    (``_record_unavailable``)."""

    store: Store | None

    def _init_record(self) -> None:
        self.store = None
        self._peek: Any = None  # home's read-only look at a SQLite record, until it opens (False: none)
        self._peek_lock = threading.Lock()
        self._record_opening = False
        self._record_waiting: dict[object, Callable[[], object]] = {}  # what runs once the record is open
        self._record_said: set[str] = set()  # the "opening the record" notices on screen meanwhile

    if TYPE_CHECKING:  # the app's (its launch's)

        @property
        def db_url(self) -> str | None: ...

    def _store_ready(self, store: Any) -> None:
        self.store = store

    def _record_unavailable(self, reason: str) -> None:
        self.notify(f"the record is unavailable: {reason}", severity="error", timeout=30)

    def with_record(self, then: Callable[[], object], doing: str | None = None) -> None:
        """Run ``then`` (on the UI thread) once the record is open: now if it is, else when it
        opens (its first use in this sitting opens it, off the UI thread), saying so when
        ``doing`` names what waits. Asked again for the same ``doing`` meanwhile, only the newest
        waits (enter pressed twice plays once)."""
        if self.store is not None:
            then()
            return
        key: object = doing if doing else object()
        waiting = key in self._record_waiting  # (and said so: once is enough, a filter typed key by key)
        self._record_waiting.pop(key, None)  # (then re-inserted: the newest runs last)
        self._record_waiting[key] = then
        if doing and not waiting:
            said = f"opening the record; {doing} once it is open"
            self._record_said.add(said)
            self.notify(said, timeout=3)
        if not self._record_opening:
            self._record_opening = True
            self.open_store()

    def sessions_reader(self) -> Any:
        """What home's sessions pane reads (in a worker): the record when it is open, else a
        read-only look at its SQLite file (``sttui.store.peek``: no SQLAlchemy, which is a third
        of home's memory). None when neither is at hand yet: the record is then opened, and home
        lists its sessions when it is."""
        if self.store is not None:
            return self.store
        with self._peek_lock:
            if self._peek is None:
                from sttui.store.peek import Peek, resolve_url

                self._peek = Peek.open(resolve_url(self.db_url)) or False
            peek = self._peek
        if peek is False:
            self.post_message(RecordNeeded())
            return None
        return peek

    @work(thread=True, exclusive=True, group="store", exit_on_error=False)
    def open_store(self) -> None:
        """Open the record (SQLAlchemy, the migrations check): the answer comes back as a message."""
        from sttui.store.db import StoreError
        from sttui.store.store import Store

        try:
            store = Store(self.db_url)
        except StoreError as exc:
            self.post_message(RecordUnavailable(str(exc)))
            return
        except Exception as exc:  # anything else: one line, never a traceback on the screen
            self.post_message(RecordUnavailable(" ".join(f"{type(exc).__name__}: {exc}".split())))
            return
        self.post_message(RecordOpened(store))

    def on_record_needed(self, _message: RecordNeeded) -> None:
        self.with_record(lambda: None)

    def on_record_opened(self, message: RecordOpened) -> None:
        self._record_opening = False
        self._withdraw_notices()
        self._store_ready(message.store)
        waiting, self._record_waiting = self._record_waiting, {}
        for then in waiting.values():
            then()

    def on_record_unavailable(self, message: RecordUnavailable) -> None:
        self._record_opening = False
        self._withdraw_notices()
        self._record_waiting.clear()  # (each waited for the record: the notice says why it will not come)
        self._record_unavailable(message.reason)

    def _withdraw_notices(self) -> None:
        """Take the "opening the record" notices off the screen once it has opened (or will not):
        they would stay over the screen the wait was for (a play screen's table, the replay)."""
        said, self._record_said = self._record_said, set()
        withdraw(self, lambda n: n.message in said)

    def on_unmount(self) -> None:
        with self._peek_lock:  # (a read in a worker finishes first: the reader takes one at a time)
            if self._peek:
                self._peek.close()
            self._peek = None
