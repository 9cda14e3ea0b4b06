"""`sttui compare EP_A EP_B`: agent steps aligned by tool and arguments, the first divergence."""

from __future__ import annotations

import json

from click.testing import CliRunner

from sttui.cli import main
from sttui.core.divergence import Step, compare_steps
from tests.conftest import ROOT


def cli(db: str, *args: str) -> tuple[int, str, str]:
    out = CliRunner().invoke(main, ["--db", db, *args], env={"STTUI_TASKS": str(ROOT / "tasks")})
    return out.exit_code, out.stdout, out.stderr


def step(n: int, *key: str) -> Step:
    return Step(n, n, tuple(key), " ".join(key))


def test_messages_align_whatever_their_words_and_the_first_divergence_is_named():
    a = [step(1, "call", "find", "{}"), step(2, "say"), step(3, "call", "book", '{"x": 1}')]
    b = [step(1, "call", "find", "{}"), step(2, "say"), step(3, "call", "book", '{"x": 2}'), step(4, "end")]
    found = compare_steps(a, b)
    assert found["common_prefix"] == 2
    first = found["first_divergence"]
    assert (first["a_step"], first["b_step"], first["after_common_steps"]) == (3, 3, 2)
    assert compare_steps(a, a)["first_divergence"] is None
    shorter = compare_steps(a[:2], a)["first_divergence"]
    assert (shorter["a_step"], shorter["a"], shorter["b_step"]) == (None, "(nothing: it ended here)", 3)


def test_compare_two_recorded_episodes(tmp_path):
    db = f"sqlite:///{tmp_path / 'c.db'}"
    for agent in ("oracle", "naive"):
        code, _, err = cli(db, "run", "clinic-dialysis-urgent-t2-easy", "--agent", f"baseline:{agent}")
        assert code in (0, 1), err
    listed = json.loads(cli(db, "sessions", "--json")[1])
    ids = {e["agent"]: e["id"] for e in listed}
    code, out, err = cli(db, "compare", ids["baseline:oracle"], ids["baseline:naive"], "--json")
    assert code == 0, err
    found = json.loads(out)
    first = found["first_divergence"]
    assert (first["a_step"], first["b_step"], first["after_common_steps"]) == (2, 2, 1)
    assert first["a"].startswith("list_requests(") and first["b"].startswith("book_appointment(")
    assert found["notes"] == []
    code, out, _ = cli(db, "compare", ids["baseline:oracle"], ids["baseline:oracle"])
    assert "the same kinds of steps throughout (7 steps)" in out
    code, _, err = cli(db, "compare", "nope", ids["baseline:oracle"])
    assert code == 2 and err.startswith("error: no episode 'nope'")


def test_a_step_one_side_skips_is_named_as_such():
    a = [step(1, "call", "find", "{}"), step(2, "call", "look", "{}"), step(3, "say")]
    b = [step(1, "call", "find", "{}"), step(2, "say")]
    first = compare_steps(a, b)["first_divergence"]
    assert (first["a_step"], first["a"], first["b_step"], first["b"]) == (
        2,
        "call look {}",
        None,
        "(no such step: it goes straight on)",
    )


def test_the_steps_both_begin_with_are_common_whatever_comes_after():
    """Both queried first; then one put in three messages before querying as the other did: they
    part ways after step 1 (b's messages), not before it (the matcher alone had matched b's
    later queries to a's and called b's first query an insertion)."""
    a = [step(1, "call", "find", "{}"), step(2, "call", "find", "{}")]
    b = [step(1, "call", "find", "{}")] + [step(n, "say") for n in (2, 3, 4)] + [step(5, "call", "find", "{}")] * 2
    found = compare_steps(a, b)
    assert found["common_prefix"] == 1
    first = found["first_divergence"]
    assert (first["a_step"], first["b_step"], first["after_common_steps"]) == (None, 2, 1)  # b put three in
    row = found["rows"][0]
    assert (row["a"], row["b"], row["match"]) == (1, 1, "same")


def test_two_long_episodes_are_aligned_by_what_lies_between_their_common_ends(monkeypatch):
    """Two 10,000-step episodes of a repeating cycle that part ways once took 1.8 s to align (the
    matcher grows with the square of what it is given); it is given the steps between the steps
    both begin with and both end with."""
    import difflib

    from sttui.core import divergence

    seen: list[int] = []

    class Matcher(difflib.SequenceMatcher):
        def __init__(self, a, b, autojunk):
            seen.append(len(a) + len(b))
            super().__init__(a=a, b=b, autojunk=autojunk)

    monkeypatch.setattr(divergence.difflib, "SequenceMatcher", Matcher)
    a = [step(n, "call", f"t{n % 8}", "{}") for n in range(1, 10_001)]
    b = list(a)
    b[5000] = step(5001, "say")
    found = compare_steps(a, b)
    assert found["first_divergence"]["a_step"] == 5001 and found["common_prefix"] == 5000
    assert [r["match"] for r in found["rows"]].count("same") == 9_999
    assert seen == [2]  # the one step each that differs
