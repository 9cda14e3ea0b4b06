"""One of several processes writing to one database at once.

    python -m tests.helpers.writer DB_URL NAME N TASK_FILE
Creates an episode, appends N events one commit at a time, and rates N items.
"""

from __future__ import annotations

import sys
import time

from sttui.core.events import Event
from sttui.core.loader import load_task
from sttui.store.store import Store


def main() -> None:
    url, name, n, path = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    store = Store(url)
    eid = store.create_episode(load_task(path), 0, f"human:{name}", None)
    for i in range(1, n + 1):
        store.append_event(eid, Event(i, "note", f"human:{name}", {"i": i, "by": name}, "", time.time()))
        store.rate(name, "task", f"item-{i}", "consistency", 1 + i % 5)
    print(eid, flush=True)


if __name__ == "__main__":
    main()
