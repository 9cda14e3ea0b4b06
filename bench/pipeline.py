"""What one candidate of ``sttui pipeline draft`` costs beyond the model: its injection and
checklist loaded as task files, ``check``'s assessment (plans, controls, the random baseline)
and the record, on the bundled scenario.

The model is a stub on 127.0.0.1 (tests/helpers/stub_openai.py) answering at once over real
HTTP through litellm, with the bundled S3 task's triggers, solution and checklist: a measure of
the pipeline's own machinery, not of any model.

    .venv/bin/python bench/pipeline.py [--candidates 8] [--random-seeds 20]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import yaml  # noqa: E402

from bench._common import loadavg  # noqa: E402
from sttui.controllers.model import ModelConfig, preload_litellm  # noqa: E402
from sttui.drafting.record import _run  # noqa: E402
from sttui.drafting.tasks import draft_tasks, read_scenario  # noqa: E402
from tests.helpers.stub_openai import StubServer, completion, say  # noqa: E402

TASK = yaml.safe_load((ROOT / "tasks/stt/logistics/plasma-bridge-limit-s3-easy.yaml").read_text())
ANSWERS = {
    "conflict injection": {
        "description": "a bridge weight limit",
        "triggers": TASK["triggers"],
        "solution": TASK["solution"],
    },
    "checklist generation": {"checklist": TASK["checklist"]},
    "consistency audit": {"verdict": "consistent", "issues": []},
}


def respond(request: dict) -> tuple:
    stage = request["messages"][0]["content"].split("\n", 1)[0].removeprefix("Stage: ").rstrip(".")
    return 200, completion(say(json.dumps(ANSWERS[stage]))), 0.0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--candidates", type=int, default=8)
    ap.add_argument("--random-seeds", type=int, default=20)
    args = ap.parse_args()
    preload_litellm()
    scenario = read_scenario(ROOT / "scenarios/logistics/plasma-run.yaml", ROOT / "tasks/stt/logistics")
    with StubServer(respond) as server:
        config = ModelConfig(model="openai/stub-model", api_base=server.base, retries=0, alias="stub")
        import os

        os.environ.setdefault("OPENAI_API_KEY", "sk-stub-0123456789")
        wall, cpu = time.perf_counter(), time.process_time()
        record = _run(lambda: draft_tasks(scenario, config, "S3", "easy", args.candidates, 0, args.random_seeds))
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    passed = sum(c["status"] == "passed" for c in record["candidates"])
    size = len(json.dumps(record))
    print(f"{args.candidates} candidates ({passed} passed), random baseline {args.random_seeds} runs each; {loadavg()}")
    print(f"  wall {wall:.2f} s, CPU {cpu:.2f} s: {cpu / args.candidates:.2f} s of CPU per candidate")
    print(f"  record {size / 1024:.0f} KiB ({size / args.candidates / 1024:.0f} KiB per candidate)")


if __name__ == "__main__":
    main()
