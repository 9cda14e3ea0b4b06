"""The cost of one engine step, with the milestone review on: every bundled stt task's solution
replayed on a fresh episode (argument checks, the review's screen and close, triggers, the
tool, the clock, the state diff, the hash, the event), in CPU time per agent step. Episode
creation is timed apart. As references in the same rounds: the same calls on a bare
environment, and the engine with the review off.

Target: at most 100 us per solution-replay step (the fallback of the issue's target when
tau2-bench cannot run beside it; ``bench/tau2_step.py`` compares with tau2-bench's
``get_response`` where it can).

    python bench/step.py [--rounds 7] [--profile]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import ROOT, cpu, fmt, header, median, paired, verdict

from sttui.core import state as st
from sttui.core.actions import Reply, Say, ToolCall
from sttui.core.loader import load_all
from sttui.running.runner import open_episode


def tasks() -> list:
    loaded, errors = load_all([ROOT / "tasks" / "stt"])
    assert not errors, errors
    return [t for t in loaded if t.kind == "stt"]


def replay_round(stt: list, review: bool) -> tuple[float, float, int]:
    """(CPU seconds creating episodes, CPU seconds stepping, agent steps)."""
    import sttui.running.runner as runner

    saved = runner.review_for
    if not review:
        runner.review_for = lambda *a, **k: None  # type: ignore[assignment]
    create = steps_cpu = 0.0
    steps = 0
    try:
        for t in stt:
            t0 = cpu()
            ep = open_episode(t, None, {"agent": "a", "user": "u"})
            ep.start()
            t1 = cpu()
            create += t1 - t0
            for s in t.task.solution:
                if ep.ended is not None:
                    break
                if ep.turn == "user":
                    ep.apply(Reply("(continue)"))
                ep.apply(Say(s.say) if s.say is not None else ToolCall(s.tool, s.args))
                steps += 1
            steps_cpu += cpu() - t1
    finally:
        runner.review_for = saved
    return create, steps_cpu, steps


def bare_round(stt: list) -> tuple[float, int]:
    t0 = cpu()
    n = 0
    for t in stt:
        env = t.env_cls(st.copy_state(t.task.initial_state), t.task.clock.start, t.task.seed)
        for s in t.task.solution:
            if s.tool:
                getattr(env, s.tool)(**s.args)
            n += 1
    return cpu() - t0, n


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    header("engine step (solution replays)")
    stt = tasks()
    replay_round(stt, True)  # build and cache the review graphs first
    if args.profile:
        import cProfile
        import pstats

        prof = cProfile.Profile()
        prof.enable()
        for _ in range(5):
            replay_round(stt, True)
        prof.disable()
        pstats.Stats(prof).sort_stats("tottime").print_stats(25)
        return
    per: dict[str, list[float]] = {"review": [], "plain": [], "bare": [], "create": []}

    def with_review() -> float:
        c, s, n = replay_round(stt, True)
        per["review"].append(s / n)
        per["create"].append(c / len(stt))
        return s / n

    def plain() -> float:
        _, s, n = replay_round(stt, False)
        per["plain"].append(s / n)
        return s / n

    def bare() -> float:
        s, n = bare_round(stt)
        per["bare"].append(s / n)
        return s / n

    start = time.perf_counter()
    paired({"review": with_review, "plain": plain, "bare": bare}, args.rounds)
    steps = sum(len(t.task.solution) for t in stt)
    print(f"   {len(stt)} tasks, {steps} solution steps per round ({time.perf_counter() - start:.1f} s)")
    print(f"   engine step, review on:  {fmt(per['review'][-args.rounds :], 'us', 1e6)} CPU")
    print(f"   engine step, review off: {fmt(per['plain'][-args.rounds :], 'us', 1e6)} CPU")
    print(f"   bare tool call:          {fmt(per['bare'][-args.rounds :], 'us', 1e6)} CPU")
    print(f"   episode creation + start (review on): {fmt(per['create'][-args.rounds :], 'us', 1e6)} CPU")
    m = median(per["review"][-args.rounds :])
    print(f"step with the review on: {m * 1e6:.1f} us; target <= 100 us: {verdict(m <= 100e-6)}")


if __name__ == "__main__":
    main()
