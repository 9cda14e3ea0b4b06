"""Rule-based vs model-judged stage scores on the same episodes, and what the judges add to
an episode's wall time, from the recorded calls.

The judges are stub models on 127.0.0.1 (tests/helpers/stub_openai.py), called over real
HTTP through litellm: an honest measure of the judging machinery (prompt, call, parse,
escalation, cache) with a fixed simulated model latency, not of any real model's quality.
The stub scores a stage by the share of its calls that succeeded, with low confidence in
the middle of the range, so the adaptive judge escalates some stages.

    .venv/bin/python bench/judges.py [--tasks 4] [--latency 0.02]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import sys
import time
from pathlib import Path
from statistics import fmean

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sttui.config import model_aliases  # noqa: E402
from sttui.controllers.model import preload_litellm  # noqa: E402
from sttui.core.loader import load_task  # noqa: E402
from sttui.running.batch import run_batch  # noqa: E402
from sttui.running.plan import ReviewPlan, RunPlan  # noqa: E402
from tests.helpers.stub_openai import StubServer, completion, say  # noqa: E402

AGENTS = ("baseline:oracle", "baseline:naive", "baseline:random")


def stub_judge(latency: float):
    def respond(request: dict) -> tuple:
        text = request["messages"][0]["content"]
        window = json.loads(text.split("Evidence window:\n", 1)[1])
        calls = [a for a in window if a.get("kind") == "call"]
        ok = sum(1 for a in calls if (a.get("result") or {}).get("success")) / len(calls) if calls else 0.5
        confidence = 0.9 if ok in (0.0, 1.0) else 0.5
        if re.search(r"You are the (standard|specialist) judge", text):
            confidence = 0.9
        answer = {"scores": {"tool_correctness": ok, "goal_progress": ok}, "overall": ok, "confidence": confidence}
        return 200, completion(say(json.dumps(answer)), 400, 40), latency

    return respond


def run(plan: RunPlan) -> tuple[list[dict], float]:
    started = time.perf_counter()
    records = asyncio.run(run_batch(plan, store=None))
    return records, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", type=int, default=4)
    parser.add_argument("--latency", type=float, default=0.02, help="the stub judge's seconds per call")
    args = parser.parse_args()
    os.environ.setdefault("OPENAI_API_KEY", "sk-stub-0123456789")
    preload_litellm()  # its import is paid once per process, not per episode: kept out of the figures
    paths = sorted((ROOT / "tasks" / "stt").rglob("*.yaml"))
    loaded = [t for t in (load_task(p) for p in paths) if t.task.level != "impossible"][: args.tasks]
    with StubServer(stub_judge(args.latency)) as stub:
        models = model_aliases(
            {n: {"model": f"openai/{n}-judge", "api_base": stub.base, "timeout": 10} for n in ("c", "s", "x")}
        )
        rows = []
        for agent in AGENTS:
            for spec in ("rule", "model:s", "adaptive:c,s,x"):
                plan = RunPlan.build(
                    loaded, agent=agent, seed=1, models=models, concurrency=1, review=ReviewPlan(judge_stages=spec)
                )
                records, wall = run(plan)
                rows.append((agent, spec, records, wall))
        print(f"{len(loaded)} stt tasks, {len(AGENTS)} agents; stub judge latency {args.latency * 1000:.0f} ms/call")
        print(
            f"{'agent':<18} {'judge':<16} {'rule score':>10} {'judged':>7} {'calls':>6} {'tokens':>7} "
            f"{'escal.':>6} {'judge s/ep':>10} {'wall s/ep':>9}"
        )
        for agent, spec, records, wall in rows:
            reviewed = [r for r in records if r.get("review")]
            rule = fmean(r["review"]["score"] for r in reviewed)
            judges = [r["review"].get("judges") for r in reviewed if r["review"].get("judges")]
            judged = [j["milestone_score"] for j in judges if j["milestone_score"] is not None]
            tiers = [t for j in judges for t in j["tiers"].values()]
            calls = sum(t["calls"] for t in tiers)
            tokens = sum(t["prompt_tokens"] + t["completion_tokens"] for t in tiers)
            escalations = sum(t["escalations"] for t in tiers)
            seconds = sum(t["seconds"] for t in tiers) / len(reviewed)
            print(
                f"{agent:<18} {spec:<16} {rule:>10.3f} {(f'{fmean(judged):.3f}' if judged else '-'):>7} "
                f"{calls:>6} {tokens:>7} {escalations:>6} {seconds:>10.3f} {wall / len(records):>9.3f}"
            )
        print(f"HTTP requests to the stub: {len(stub.requests)} (the run's cache serves repeated windows)")
        print("judged: mean over milestones of the judged stage score (0 for a milestone never reached), like")
        print("the rule score; '-': no stage closed (nothing to judge). judge s/ep: the tiers' recorded call seconds.")


if __name__ == "__main__":
    main()
