"""Run the stub server in a process of its own, answering with a plan from a JSON file.

    python -m tests.helpers.stub_process PLAN.json [DELAY]
Prints the port, then serves until killed.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from tests.helpers.stub_openai import StubServer, planner


def main() -> None:
    steps = json.loads(Path(sys.argv[1]).read_text())
    delay = float(sys.argv[2]) if len(sys.argv) > 2 else 0.0
    with StubServer(planner(steps, delay=delay)) as stub:
        print(stub.port, flush=True)
        while True:
            time.sleep(3600)


if __name__ == "__main__":
    main()
