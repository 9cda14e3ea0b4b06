"""Workers that report instead of crashing the app.

Every worker runs with ``exit_on_error=False``: Textual's default ends the whole app when a
worker raises, which would take a person's open episode down with a failed sessions list.
Instead the screen (or the app) that ran the worker hears ``Worker.StateChanged`` and shows
one notice: what was being done, what went wrong, and what to check. Results come back as
typed messages, never through ``call_from_thread``.
"""

from __future__ import annotations

from typing import ClassVar

from textual.worker import Worker, WorkerState


def advice(error: BaseException) -> str:
    """What to check after ``error``, in the words a person can act on.

    Recognised by module name, so this screen-side code need not import SQLAlchemy to know
    a database error when it sees one.
    """
    module = type(error).__module__ or ""
    if module.startswith(("sqlalchemy", "sqlite3", "psycopg")) or "StoreUnavailable" in type(error).__name__:
        return "check the record: --db or STTUI_DB, that the file or server is reachable, and the disk has room"
    if isinstance(error, OSError):
        return "check the file or folder it names, and that the disk has room"
    return "the rest of the app still works; STTUI_DEBUG=1 shows where it failed"


def failure_notice(doing: str, error: BaseException | None) -> str:
    """One notice for a failed worker: ``could not <doing>: <error> (<advice>)``."""
    if error is None:
        return f"could not {doing}"
    text = str(error).strip().splitlines()[0] if str(error).strip() else ""
    what = f"{type(error).__name__}: {text}" if text else type(error).__name__
    return f"could not {doing}: {what}. {advice(error)[0].upper()}{advice(error)[1:]}."


class ReportsWorkerFailures:
    """Mixin for a screen or the app: a worker that fails becomes a notice, and the app runs on.

    ``WORKERS`` names what each worker group does ("load the sessions"); a group not named
    is reported by its worker's name.
    """

    WORKERS: ClassVar[dict[str, str]] = {}

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state is not WorkerState.ERROR:
            return
        worker = event.worker
        doing = self.WORKERS.get(worker.group) or self.WORKERS.get(worker.name) or worker.name or "finish a task"
        self.notify(failure_notice(doing, worker.error), title="sttui", severity="error", timeout=20)  # type: ignore[attr-defined]  # mixed into a Screen or App, which have notify
