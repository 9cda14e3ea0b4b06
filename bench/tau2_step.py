"""An engine step against tau2-bench's ``get_response`` over a comparable tool mix, in one run.

tau2-bench needs Python 3.12 or newer, so it runs in a child process of its own interpreter
(``--tau2-python``, a venv with tau2-bench installed from its source), in rounds alternating
with sttui's. Each side measures its own CPU time around the calls alone:

- sttui: every bundled stt task's solution replayed on a fresh episode with the milestone
  review on (as ``bench/step.py``), per agent step;
- tau2-bench: every retail task's golden actions (``evaluation_criteria.actions``: order
  lookups, user lookups, product details, returns, exchanges, cancellations, modifications)
  sent to a fresh retail environment with ``get_response``, per call, logging at ERROR as
  ``tau2 run`` sets it by default.

Target: an engine step at most 0.5x a ``get_response`` call.

    python -m venv /tmp/tau2/venv && /tmp/tau2/venv/bin/pip install -e /path/to/tau2-bench
    python bench/tau2_step.py --tau2-python /tmp/tau2/venv/bin/python [--rounds 5]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import fmt, header, median, paired, scratch, verdict
from step import bare_round, replay_round, tasks

TAU2 = """
import json, sys, time
from loguru import logger
logger.remove()
logger.add(sys.stderr, level="ERROR")  # tau2 run's default log level
from tau2.data_model.message import ToolCall
from tau2.domains.retail.environment import get_environment, get_tasks
work = []
for t in get_tasks():
    actions = t.evaluation_criteria.actions if t.evaluation_criteria else None
    if actions:
        work.append([(a.name, a.arguments, a.requestor) for a in actions])
get_environment()  # warm: the database read once, as every round after
spent, calls = 0.0, 0
for acts in work:
    env = get_environment()
    t0 = time.process_time()
    for i, (name, args, requestor) in enumerate(acts):
        env.get_response(ToolCall(id=str(i), name=name, arguments=args, requestor=requestor))
        calls += 1
    spent += time.process_time() - t0
bare = 0.0
for acts in work:  # the same calls on the bare tools, without get_response around them
    env = get_environment()
    t0 = time.process_time()
    for name, args, requestor in acts:
        try:
            env.make_tool_call(name, requestor=requestor, **args)
        except Exception:
            pass
    bare += time.process_time() - t0
print(json.dumps({"per_call": spent / calls, "bare": bare / calls, "calls": calls, "tasks": len(work)}))
"""


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tau2-python", required=True, help="a Python >= 3.12 with tau2-bench installed")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    header("an engine step against tau2-bench's get_response")
    script = scratch("sttui-bench-tau2-") / "tau2_round.py"
    script.write_text(TAU2)
    stt = tasks()
    replay_round(stt, True)
    info: dict[str, object] = {}
    bare: dict[str, list[float]] = {"sttui": [], "tau2": []}

    def ours() -> float:
        _, spent, steps = replay_round(stt, True)
        tools, n = bare_round(stt)
        bare["sttui"].append(tools / n)
        return spent / steps

    def theirs() -> float:
        out = subprocess.run([args.tau2_python, str(script)], capture_output=True, text=True, check=True)
        data = json.loads(out.stdout.strip().splitlines()[-1])
        info.update(data)
        bare["tau2"].append(data["bare"])
        return data["per_call"]

    res = paired({"sttui": ours, "tau2": theirs}, args.rounds, warmup=0)
    version = subprocess.run([args.tau2_python, "--version"], capture_output=True, text=True).stdout.strip()
    print(f"   sttui engine step, review on:        {fmt(res['sttui'], 'us', 1e6)} CPU ({len(stt)} tasks' solutions)")
    print(
        f"   tau2-bench get_response (retail):    {fmt(res['tau2'], 'us', 1e6)} CPU "
        f"({info.get('calls')} golden actions of {info.get('tasks')} tasks, {version})"
    )
    over = {k: [a - b for a, b in zip(res[k], bare[k], strict=True)] for k in ("sttui", "tau2")}
    print(f"   the bare tools alone: sttui {fmt(bare['sttui'], 'us', 1e6)}, tau2 {fmt(bare['tau2'], 'us', 1e6)}")
    print(
        f"   around the tools: sttui's step {fmt(over['sttui'], 'us', 1e6)}, tau2's get_response "
        f"{fmt(over['tau2'], 'us', 1e6)}"
    )
    ratios = [a / b for a, b in zip(res["sttui"], res["tau2"], strict=True)]
    print(
        f"sttui step / tau2 get_response: {median(ratios):.2f}x ({min(ratios):.2f}-{max(ratios):.2f}); "
        f"target <= 0.5x: {verdict(median(ratios) <= 0.5)}"
    )


if __name__ == "__main__":
    main()
