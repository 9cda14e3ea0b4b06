"""One of several annotators claiming places on the same items at once.

    python -m tests.helpers.claimer DB_URL NAME ITEMS CAP
Prints how many claims were granted.
"""

from __future__ import annotations

import sys

from sttui.store.store import Store


def main() -> None:
    url, name, items, cap = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    store = Store(url)
    granted = 0
    for i in range(items):
        if store.claim(name, "task", f"item-{i}", cap):
            granted += 1
            store.rate(name, "task", f"item-{i}", "checklist_correctness", 1 + i % 5)
    print(granted, flush=True)


if __name__ == "__main__":
    main()
