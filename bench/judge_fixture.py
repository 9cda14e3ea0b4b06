"""The rule judge's accuracy on the verdict fixture (tests/fixtures/judge/messages.yaml): each
message played after the task's solution calls, its two items compared with the expected
verdicts. ``--code`` runs another tree's judge on this tree's fixture, which is how the
figure before a change is taken:

    .venv/bin/python bench/judge_fixture.py                    # this tree's judge
    .venv/bin/python bench/judge_fixture.py --code ../other-tree  # another tree's judge, same fixture

It prints the share of items and of messages judged as expected, by kind and for the hurried
cases, the time per message (episode included) and per judgement (the judge alone, CPU), and
(``--wrong``) each message judged otherwise.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--code", type=Path, default=ROOT, help="the tree whose sttui judges (default: this one)")
    parser.add_argument("--fixture", type=Path, default=ROOT / "tests" / "fixtures" / "judge" / "messages.yaml")
    parser.add_argument("--tasks", type=Path, default=ROOT / "tasks" / "stt")
    parser.add_argument("--wrong", action="store_true", help="list each message judged otherwise")
    parser.add_argument("--long", type=int, default=1000, help="statements in the one long message timed (0: none)")
    args = parser.parse_args()
    sys.path.insert(0, str(args.code.resolve()))

    import yaml

    from sttui.controllers.controls import CallsThenSay
    from sttui.core.actions import Reply
    from sttui.core.checklist import RuleJudge
    from sttui.core.loader import load_all
    from sttui.running.runner import run_episode

    class PatientUser:
        name = "control:patient-user"

        async def act(self, view):
            return Reply("Go on.")

    cases = yaml.safe_load(args.fixture.read_text())
    tasks = {t.id: t for t in load_all([args.tasks])[0]}
    items = defaultdict(lambda: [0, 0])  # group -> [right, total]
    messages = defaultdict(lambda: [0, 0])
    wrong: list[str] = []
    episodes = []
    started = time.perf_counter()
    for i, case in enumerate(cases):
        loaded = tasks[case["task"]]
        agent = CallsThenSay("control:fixture", loaded.task.solution, case["say"])
        result = asyncio.run(run_episode(loaded, agent, PatientUser()))
        episodes.append(result.episode)
        got = {it.id: "pass" if it.passed else "fail" for it in result.outcome.items}
        groups = ["all", f"kind {case['kind']}"] + (["hurried"] if case.get("hurried") else [])
        right_items = sum(got[k] == v for k, v in case["expect"].items())
        for g in groups:
            items[g][0] += right_items
            items[g][1] += len(case["expect"])
            messages[g][0] += got == case["expect"]
            messages[g][1] += 1
        if got != case["expect"]:
            wrong.append(f"  #{i} {case['task']}: got {got}, expected {case['expect']}\n    {case['say']}")
    seconds = time.perf_counter() - started
    judge = RuleJudge()
    judging = []
    for _ in range(5):  # the judge alone on the finished episodes, best of five rounds
        t0 = time.process_time()
        for episode in episodes:
            judge.judge(episode)
        judging.append(time.process_time() - t0)
    print(f"judge code: {args.code}  fixture: {args.fixture} ({len(cases)} messages)")
    for g in sorted(messages, key=lambda g: (g != "all", g)):
        (ri, ti), (rm, tm) = items[g], messages[g]
        print(f"{g:<22} items {ri}/{ti} = {ri / ti:.3f}   messages {rm}/{tm} = {rm / tm:.3f}")
    print(f"{seconds / len(cases) * 1000:.1f} ms per message, the episode included (wall)")
    print(f"{min(judging) / len(cases) * 1000:.2f} ms CPU per judgement (the rule judge alone, best of 5)")
    if args.long:  # one message stating it N times: the judge must stay linear in the message
        loaded = tasks["logistics-mull-blood-ferry-s3-impossible"]
        say = ["I cannot deliver because of the gale. " * args.long]
        result = asyncio.run(
            run_episode(loaded, CallsThenSay("control:long", loaded.task.solution, say), PatientUser())
        )
        t0 = time.process_time()
        judge.judge(result.episode)
        print(
            f"{time.process_time() - t0:.2f} s CPU to judge one message of {args.long} statements ({len(say[0])} chars)"
        )
    if args.wrong:
        print("\n".join(wrong) or "  none judged otherwise")


if __name__ == "__main__":
    main()
