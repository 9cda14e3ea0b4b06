"""What judging the agent's reports costs: one checklist evaluation (the ``tell`` item with its
claims check) as the scripted user and the live views call it, on an episode that grows to
many messages, and one message checked alone (``message_mismatches``). Then one long message
of N sentences that each claim an operation (by an id, a person's name, "him" after a name, an
accented name the quote cannot match): its claims must cost in proportion to its length (each
clause is looked for from where the last was found, within a window), so the per-sentence
cost at the largest N over the smallest is printed, about 1 when linear. Last, one message of
100 and 400 KB of times given to five subjects, and one echoing the user's own time, never the
booked one (the per-KB cost ratio of each, about 1 when linear).

Figures are CPU time, medians with their range over rounds (bench/_common.py).

    .venv/bin/python bench/reports.py [--messages 10 100 1000] [--rounds 7] [--sentences 500 2000 8000]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench._common import cpu, fmt, loadavg  # noqa: E402
from sttui.core.actions import Reply, Say, ToolCall  # noqa: E402
from sttui.core.checklist import evaluate_checklist  # noqa: E402
from sttui.core.episode import Episode  # noqa: E402
from sttui.core.loader import load_task  # noqa: E402
from sttui.core.reports import message_mismatches, report_mismatches  # noqa: E402

TASK = ROOT / "tasks/stt/air-travel/bergen-reaccommodation-t2-hard.yaml"  # five facts, many flights
CHATTER = (
    "Checking KL1187 and KL1189 for you: the 17:40 is gone, the 19:10 may have seats; "
    "I've looked at SK271 via Oslo too, landing 20:25. Half past seven is the latest option."
)


def episode(messages: int) -> Episode:
    loaded = load_task(TASK)
    task = loaded.task.model_copy(update={"max_steps": 10_000})
    ep = Episode(task, loaded.env_cls)
    ep.start()
    for step in loaded.task.solution:
        if step.tool is not None:
            ep.apply(ToolCall(step.tool, dict(step.args)))
        else:
            last = step.say or ""
    for i in range(messages - 1):
        ep.apply(Say(f"({i}) {CHATTER}"))
        ep.apply(Reply("ok"))
    ep.apply(Say(last))
    return ep


def big_state(vehicles: int) -> list[float]:
    """The insulin solution on a state with ``vehicles`` more trucks: the checklist evaluated
    after every call (the state changes, so the facts and their rivals are read again)."""
    loaded = load_task(ROOT / "tasks/stt/logistics/insulin-reefer-fault-st2-easy.yaml")
    state = dict(loaded.task.initial_state)
    state["vehicles"] = dict(state["vehicles"]) | {
        f"TRK-{1000 + i}": {"type": "box truck", "refrigerated": False, "refrigeration": "none",
                            "location": "DEPOT-EAST", "status": "available", "capacity_units": 900}
        for i in range(vehicles)
    }  # fmt: skip
    task = loaded.task.model_copy(update={"initial_state": state})
    ep = Episode(task, loaded.env_cls)
    ep.start()
    out = []
    for step in task.solution:
        if step.tool is not None:
            ep.apply(ToolCall(step.tool, dict(step.args)))
        else:
            ep.apply(Say(step.say or ""))
        start = cpu()
        items = evaluate_checklist(ep)
        out.append(cpu() - start)
    assert all(i.passed for i in items), items
    return out


DIALYSIS = ROOT / "tasks/stt/clinic/dialysis-urgent-t2-easy.yaml"
CLAIMS = {
    "a name": "I've texted Tomasz his time. ",
    "him, after a name": "Tomasz is fine and I've texted him. ",
    "an id": "I've booked APT-2 for him. ",
    "an accented name": "I've texted José. ",
    "the passive": "Tomasz has been texted, and APT-2 is booked. ",
    "you": "I've texted you. ",
}


def claiming(message: str) -> Episode:
    """The dialysis solution's bookings, no text sent, then ``message``: its claims unsupported."""
    loaded = load_task(DIALYSIS)
    ep = Episode(loaded.task, loaded.env_cls)
    ep.start()
    for step in loaded.task.solution:
        if step.tool is not None and step.tool != "notify_patient":
            ep.apply(ToolCall(step.tool, dict(step.args)))
    ep.apply(Say(message))
    return ep


def timed(fn, rounds: int) -> list[float]:
    out = []
    for _ in range(rounds):
        start = cpu()
        fn()
        out.append(cpu() - start)
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--messages", type=int, nargs="+", default=[10, 100, 1000])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--vehicles", type=int, default=10_000)
    parser.add_argument("--sentences", type=int, nargs="+", default=[500, 2000, 8000])
    args = parser.parse_args()
    print(f"bench/reports.py: {TASK.name}, {loadavg()}")
    for n in args.messages:
        ep = episode(n)
        first = timed(lambda ep=ep: evaluate_checklist(ep), 1)  # builds the per-episode caches
        assert next(i for i in evaluate_checklist(ep) if i.id == "report").passed
        again = timed(lambda ep=ep: evaluate_checklist(ep), args.rounds)
        one = timed(lambda ep=ep: message_mismatches(ep, CHATTER), args.rounds)
        print(f"  {n:>5} agent messages: checklist first {fmt(first)}, then {fmt(again)}; one message alone {fmt(one)}")
    big = big_state(args.vehicles)
    print(
        f"  insulin task with {args.vehicles:,} more vehicles: checklist after each of the solution's "
        f"calls {fmt(big)} (state changed, facts read again)"
    )
    long = CHATTER * 60  # ~10k characters
    ep = episode(1)
    print(f"  one message of {len(long):,} characters alone: {fmt(timed(lambda: message_mismatches(ep, long), 5))}")
    for label, sentence in CLAIMS.items():
        each = {}
        for n in args.sentences:
            built = [claiming(sentence * n) for _ in range(2)]
            seconds = min(min(timed(lambda ep=ep: report_mismatches(ep), 1)) for ep in built)
            each[n] = seconds / n * 1e6
            print(
                f"  one message of {n:,} claims by {label} ({len(sentence) * n:,} chars): {seconds:.2f} s, {each[n]:.0f} us each"
            )
        first, last = args.sentences[0], args.sentences[-1]
        print(f"    per claim at {last:,} / at {first:,}: {each[last] / each[first]:.2f}x (linear: about 1)")
    # a long message of times and people for five facts with subjects (each time found is checked
    # against the times found before it: linear only when that is a lookup, not a scan)
    sizes = {}
    for kb in (100, 400):
        runs = [many_times(kb * 1000, nonce) for nonce in range(3)]  # (a text of its own each: nothing cached)
        sizes[kb] = min(timed(lambda ep=ep: evaluate_checklist(ep), 1)[0] for ep in runs)
        print(f"  one message of {kb} KB of times for five subjects ({MANY.name}): {sizes[kb]:.2f} s")
    print(f"    per KB at 400 / at 100: {sizes[400] / 4 / sizes[100]:.2f}x (linear: about 1)")
    for kb in (100, 400):
        runs = [many_times(kb * 1000, nonce, ECHOES, ECHO) for nonce in range(3)]
        sizes[kb] = min(timed(lambda ep=ep: evaluate_checklist(ep), 1)[0] for ep in runs)
        print(f"  one message of {kb} KB echoing the user's own time ({ECHOES.name}): {sizes[kb]:.2f} s")
    print(f"    per KB at 400 / at 100: {sizes[400] / 4 / sizes[100]:.2f}x (linear: about 1)")


MANY = ROOT / "tasks/stt/clinic/kings-bridge-closure-s3-hard.yaml"
TIMES = "Leonard: VAN-2 collects him at 08:40. Eileen's review is moved to 11:30, VAN-1 collects her at 10:00. "


def many_times(size: int, nonce: int = 0, task: Path = MANY, text: str = TIMES) -> Episode:
    loaded = load_task(task)
    ep = Episode(loaded.task, loaded.env_cls)
    ep.start()
    for step in loaded.task.solution:
        if step.tool is not None:
            ep.apply(ToolCall(step.tool, dict(step.args)))
    if ep.turn == "user":
        ep.apply(Reply("ok"))
    ep.apply(Say(f"Run {nonce}. " + (text * (size // len(text) + 1))[:size]))
    return ep


# the user's own time ("any time from 14:00") echoed, never the booked one: each echo is read for
# whether its clause books it (linear only when the clauses are read in one pass)
ECHOES = ROOT / "tasks/stt/clinic/cardiology-rota-s1-easy.yaml"
ECHO = "Margaret sees Dr Okafor at Westbrook as you wanted, something from 14:00 "


if __name__ == "__main__":
    main()
