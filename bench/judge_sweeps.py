"""How the rule judge reads what people add to a finished report: every solvable task's (the
bundled ones and the held-out domains') last oracle report, played after the oracle's calls
with one of these changes, and judged.

- a correction appended ("Correction: R, not W.", "Sorry, I meant R.", "Update: it's now on
  R.", "It went on R in the end.", "That got pushed back to R." …): each must fail;
- a remark, question or condition appended ("R was my first choice.", "R is on standby.",
  "Should I also book R as a backup?", "Nothing changed for R." …): each must pass;
- a slip put right in place of the value ("W, sorry, R" must fail; "R, sorry, W" must pass; and
  for a figure "W - no, R" and "W (I mean R)" must fail, "R - no, W" must pass);
- a change marked in place of the value as lists and chats mark one ("R → W", "W (was R)", "W ✅
  (R ❌)" must pass; "W → R", "R (was W)", "R ✅ (W ❌)" must fail; no arrow for a time, whose
  arrow is a leg: "AMS 11:45 → JFK 20:00"), where the report names W once;
- every sentence hedged, "Not sure, but …": must fail;
- every sentence doubted in one of the tests' ``DOUBTS`` ("To the best of my knowledge, …",
  "…, I'm told.", "… (not verified)" …): must fail.

W is the fact's value (an id, a time or a name: a venue, a site, a caterer) as the report writes
it, R another value of its list that the report does not name (a time: 20 minutes off); a slip
only where the report writes W once. The sentences are the tests' own
(``tests/test_reports_as_typed.py``), which fail on any misjudged one; this prints the counts,
to compare one version of the judge with another (``--code DIR``: a checkout to judge with).

    python bench/judge_sweeps.py [--code DIR]
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--code", type=Path, default=ROOT, help="the checkout whose judge is measured")
    code = parser.parse_args().code.resolve()
    sys.path.insert(0, str(code))  # (sttui and the tests' helpers from there; the sentences from here)
    spec = importlib.util.spec_from_file_location("sweeps", ROOT / "tests" / "test_reports_as_typed.py")
    assert spec is not None and spec.loader is not None
    t = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(t)

    print(f"== judge sweeps: judge code {code}")
    started = time.perf_counter()
    tally: Counter[str] = Counter()
    wrong: Counter[str] = Counter()

    def judge(family: str, task_id: str, report: str, passes: bool) -> None:
        tally[family] += 1
        if (not t._failing(t._play(task_id, last=report))) is not passes:
            wrong[family] += 1

    for task_id in t._reports():
        final = t._last_report(task_id)
        for fact, written, other in t._others(task_id, final):
            for said in t.CORRECTIONS.get(fact.kind, ()):
                judge("correction appended (must fail)", task_id, final + said.format(r=other, w=written), False)
            for said in t.REMARKS.get(fact.kind, ()):
                judge("remark appended (must pass)", task_id, final + said.format(r=other, w=written), True)
        for fact, written, other in t._slipped(task_id, final):
            at = final.find(written)
            forms = [("{w}, sorry, {r}", False), ("{r}, sorry, {w}", True)]
            if fact.kind in ("id", "time"):  # a figure put right by one of its own form
                forms += [("{w} - no, {r}", False), ("{r} - no, {w}", True), ("{w} (I mean {r})", False)]
            for form, passes in forms:
                slip = final[:at] + form.format(r=other, w=written) + final[at + len(written) :]
                judge(f"slip '{form}' (must {'pass' if passes else 'fail'})", task_id, slip, passes)
        for fact, written, other in t._marked(task_id, final):
            for form, passes in t.MARKED.get(fact.kind, ()):
                family = f"change marked '{form}' (must {'pass' if passes else 'fail'})"
                judge(family, task_id, t.marked(final, written, form, other), passes)
        hedged = " ".join("Not sure, but " + s[0].lower() + s[1:] for s in t._SENTENCES.split(final.strip()) if s)
        judge("every sentence 'Not sure, but …' (must fail)", task_id, hedged, False)
        for form in t.DOUBTS:
            judge("every sentence doubted, 12 forms (must fail)", task_id, t._doubted(final, form), False)
    for family in tally:
        print(f"   {family:<46} {wrong[family]:>4} misjudged of {tally[family]:,}")
    print(f"=> {sum(wrong.values())} misjudged of {sum(tally.values()):,} ({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
