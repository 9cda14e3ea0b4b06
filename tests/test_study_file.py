"""The study file (``study: 1``): validated with file:line errors; its design (who plays which
task, in which order) and `sttui study check`."""

from __future__ import annotations

import itertools
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner
from pydantic import ValidationError

from sttui.cli import main
from sttui.core.problems import TaskFileError
from sttui.study.design import design, williams
from sttui.study.spec import load_study
from tests.conftest import ROOT

TASKS = ["clinic-dialysis-urgent-t2-easy", "logistics-insulin-reefer-st2-easy"]
GOOD = """\
study: 1
id: pilot
tasks: [clinic-dialysis-urgent-t2-easy, logistics-insulin-reefer-st2-easy]
replication: 2
participants: [ana, ben, chen]
instructions: |
  # Welcome
  You play the agent.
time_limit: {minutes: 10, warn_at: 8}
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "study.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def problems(tmp_path: Path, text: str) -> list[str]:
    with pytest.raises(TaskFileError) as err:
        load_study(write(tmp_path, text))
    return [str(p) for p in err.value.problems]


def test_a_good_file_loads_frozen(tmp_path):
    loaded = load_study(write(tmp_path, GOOD))
    s = loaded.study
    assert (s.id, s.replication, s.names, s.seat, s.order.design) == (
        "pilot",
        2,
        ["ana", "ben", "chen"],
        "agent",
        "latin-square",
    )
    assert s.time_limit is not None and (s.time_limit.minutes, s.time_limit.warn_at) == (10, 8)
    with pytest.raises(ValidationError):
        s.replication = 5  # type: ignore[misc]


def test_errors_name_file_line_and_field(tmp_path):
    text = GOOD.replace("replication: 2", "replication: 0\nrepetitions: 3").replace(
        "{minutes: 10, warn_at: 8}", "{minutes: 5, warn_at: 8}"
    )
    found = problems(tmp_path, text)
    assert "study.yaml:4: replication: expected a number >= 1; got 0" in [f.split("/")[-1] for f in found]
    assert any(
        f.endswith(
            "study.yaml:5: repetitions: unknown field 'repetitions' (did you mean replication?); expected one of: study, id, title, tasks, seat, setting, replication, participants, order, practice, instructions, time_limit, breaks, consent"
        )
        for f in found
    ), found
    assert any(":10: time_limit: warn_at (8) must come before the limit (5 minutes)" in f for f in found), found


@pytest.mark.parametrize(
    "change, expected",
    [
        (("study: 1", "study: 2"), ":1: study: expected the format version 1; got 2"),
        (
            ("participants: [ana, ben, chen]", "participants: [ana, ana]"),
            ":5: participants[1]: participant 'ana' is named twice (both on line 5)",
        ),
        (
            ("participants: [ana, ben, chen]", "participants: {anonymous: 0}"),
            ":5: participants: expected a list of names, or {anonymous: N} with N from 1 to 10000; got {'anonymous': 0}",
        ),
        (
            ("participants: [ana, ben, chen]", "participants: [ana, 'b c']"),
            ":5: participants[1]: a participant's name is 1 to 40 ASCII letters",
        ),
        (
            ("participants: [ana, ben, chen]", "participants: [ana, 7]"),
            ":5: participants[1]: a participant's name is 1 to 40 ASCII letters",
        ),
        (
            ("participants: [ana, ben, chen]", "participants: lots"),
            ":5: participants: expected a list of names, or {anonymous: N}",
        ),
        (
            ("replication: 2\n", "replication: 2\nsetting: dynamic\n"),
            ":5: setting: expected one of default, static, no-user, static/no-user, stationary, evidence_given, "
            "forced_probe; got 'dynamic'",
        ),
        (
            ("time_limit", "practice: [clinic-dialysis-urgent-t2-easy]\ntime_limit"),
            ":9: practice[0]: 'clinic-dialysis-urgent-t2-easy' is also a scored task",
        ),
        (
            ("seat: agent\n" if False else "replication: 2\n", "replication: 2\nseat: both\n"),
            ":5: seat: expected 'agent' or 'user'; got 'both'",
        ),
        (
            ("  You play the agent.\n", "  You play the agent.\nid: again\n"),
            ":9: (file): duplicate key 'id' (first on line 2)",
        ),
    ],
)
def test_each_mistake_gets_its_line(tmp_path, change, expected):
    found = problems(tmp_path, GOOD.replace(*change))
    assert any(expected in f for f in found), found


def test_instructions_are_required(tmp_path):
    text = GOOD.split("instructions:")[0] + "time_limit: {minutes: 3}\n"
    assert any("instructions: required field is missing" in f for f in problems(tmp_path, text))


def test_williams_square_is_balanced():
    for n in range(2, 9):
        rows = williams(n)
        assert all(sorted(r) == list(range(n)) for r in rows)
        first = Counter(r[0] for r in rows)
        pairs = Counter((r[i], r[i + 1]) for r in rows for i in range(n - 1))
        assert len(set(first.values())) == 1 and len(first) == n
        assert len(pairs) == n * (n - 1) and len(set(pairs.values())) == 1  # each ordered pair equally often


@pytest.mark.parametrize("tasks, reps, people", [(10, 3, 3), (10, 3, 4), (8, 3, 4), (7, 2, 5), (5, 5, 5), (3, 1, 7)])
def test_design_meets_replication_and_never_repeats_a_task(tmp_path, tasks, reps, people):
    names = ", ".join(f"p{i}" for i in range(people))
    text = GOOD.replace("replication: 2", f"replication: {reps}").replace("[ana, ben, chen]", f"[{names}]")
    s = load_study(write(tmp_path, text)).study
    ids = [f"t{i}" for i in range(tasks)]
    plan = design(s, ids)
    assert plan.problems == []
    who = plan.who_sees()
    assert {t: len(p) for t, p in who.items()} == dict.fromkeys(ids, reps)
    assert all(len(set(p)) == len(p) for p in who.values())
    loads = Counter(sl.participant for sl in plan.slots)
    assert max(loads.values()) - min(loads.values()) <= max(1, reps)
    for name, slots in itertools.groupby(
        sorted(plan.slots, key=lambda x: (x.participant, x.position)), key=lambda x: x.participant
    ):
        assert [x.position for x in slots] == list(range(loads[name]))


def test_design_needs_as_many_participants_as_replications(tmp_path):
    text = GOOD.replace("replication: 2", "replication: 3").replace("[ana, ben, chen]", "[ana, ben]")
    plan = design(load_study(write(tmp_path, text)).study, [f"t{i}" for i in range(10)])
    assert plan.problems == [
        "10 task(s) × 3 replication(s) needs at least 3 participants (each plays a task at most once); the study has 2"
    ]


def test_random_blocks_are_seeded_per_participant(tmp_path):
    text = GOOD.replace("time_limit", "order: {design: random-blocks, seed: 7}\ntime_limit").replace(
        "replication: 2", "replication: 3"
    )
    s = load_study(write(tmp_path, text)).study
    ids = [f"t{i}" for i in range(6)]
    a, b = design(s, ids), design(s, ids)
    assert a.slots == b.slots
    orders = {n: [x.task_id for x in a.of(n)] for n in s.names}
    assert len({tuple(o) for o in orders.values()}) == 3  # shuffled differently per participant
    assert all(sorted(o) == ids for o in orders.values())  # 3 of 3 people: everyone plays everything


def test_practice_comes_first_and_is_not_scored(tmp_path):
    text = GOOD.replace("time_limit", "practice: [logistics-pembrolizumab-goods-in-t1-easy]\ntime_limit")
    plan = design(load_study(write(tmp_path, text)).study, TASKS)
    for name in ("ana", "ben", "chen"):
        first = plan.of(name)[0]
        assert (first.task_id, first.practice, first.position, first.replication) == (
            "logistics-pembrolizumab-goods-in-t1-easy",
            True,
            0,
            0,
        )
    assert "logistics-pembrolizumab-goods-in-t1-easy" not in plan.who_sees()


def run_check(tmp_path: Path, text: str, *args: str) -> tuple[int, str, str]:
    path = write(tmp_path, text)
    out = CliRunner().invoke(main, ["study", "check", str(path), *args], env={"STTUI_TASKS": str(ROOT / "tasks")})
    return out.exit_code, out.stdout, out.stderr


def test_check_says_who_sees_each_task_and_checks_the_tasks(tmp_path):
    code, out, err = run_check(tmp_path, GOOD)
    assert code == 0, err
    assert "design ok: 4 scored slots; 1–2 task(s) per participant" in out
    assert "  clinic-dialysis-urgent-t2-easy: ana, ben" in out
    assert "tasks: every task passes `sttui check`" in out


def test_check_refuses_a_design_that_cannot_be_met(tmp_path):
    code, out, _ = run_check(tmp_path, GOOD.replace("replication: 2", "replication: 4"), "--no-tasks")
    assert code == 1
    assert "design cannot be met: 2 task(s) × 4 replication(s) needs at least 4 participants" in out


def test_check_names_an_unknown_task_and_a_bad_block_at_their_lines(tmp_path):
    text = GOOD.replace("logistics-insulin-reefer-st2-easy]", "logistics-insulin-reefer-st2-eazy]").replace(
        "time_limit", "order: {blocks: [[clinic-dialysis-urgent-t2-easy], [nope]]}\ntime_limit"
    )
    code, _, err = run_check(tmp_path, text, "--no-tasks")
    assert code == 1
    assert "study.yaml:3: tasks[1]: no task 'logistics-insulin-reefer-st2-eazy' under" in err
    assert "(did you mean logistics-insulin-reefer-st2-easy?)" in err
    assert "study.yaml:9: order.blocks[1][0]: 'nope' is not one of the study's tasks" in err


def test_check_reports_a_task_that_fails_sttui_check(tmp_path):
    bad = tmp_path / "bad" / "clinic"
    bad.mkdir(parents=True)
    src = (ROOT / "tasks" / "stt" / "clinic" / "dialysis-urgent-t2-easy.yaml").read_text()
    env = ROOT / "tasks" / "stt" / "clinic" / "env.py"
    (bad / "env.py").write_text(env.read_text())
    # a solution that does nothing cannot pass (the milestones after it are left out with it)
    head, _, _ = src.partition("\nsolution:")
    assert head != src
    (bad / "t.yaml").write_text(head + '\nsolution:\n  - {say: "done"}\n')
    text = GOOD.replace("[clinic-dialysis-urgent-t2-easy, logistics-insulin-reefer-st2-easy]", "[bad/]").replace(
        "replication: 2", "replication: 1"
    )
    code, out, err = run_check(tmp_path, text)
    assert code == 1, (out, err)
    assert "task fails check: clinic-dialysis-urgent-t2-easy:" in out


@pytest.mark.parametrize("blocks", [2, 3, 5, 6])
def test_each_participant_follows_their_row_of_the_square(tmp_path, blocks):
    ids = [f"t{i}" for i in range(blocks * 2)]
    groups = [ids[2 * b : 2 * b + 2] for b in range(blocks)]
    people = ", ".join(f"p{i}" for i in range(7))
    order = "order: {blocks: [" + ", ".join("[" + ", ".join(g) + "]" for g in groups) + "]}\n"
    text = (
        GOOD.replace("[ana, ben, chen]", f"[{people}]")
        .replace("replication: 2", "replication: 7")
        .replace("time_limit", order + "time_limit")
    )
    s = load_study(write(tmp_path, text)).study
    plan = design(s, ids)
    rows = williams(blocks)
    for j, name in enumerate(s.names):
        expected = [t for b in rows[j % len(rows)] for t in groups[b]]  # everyone plays everything here
        assert [x.task_id for x in plan.of(name)] == expected


def test_one_run_reports_every_problem_it_can_find(tmp_path):
    """Fixing a file never reveals a further round: bad names (each of them), a task listed
    twice, an unknown task, a bad block and a missing seed all come in the first run."""
    text = (
        GOOD.replace(
            "logistics-insulin-reefer-st2-easy]",
            "logistics-insulin-reefer-st2-eazy, clinic-dialysis-urgent-t2-easy]",
        )
        .replace("[ana, ben, chen]", "[ana, 'b c', ben, 'd e', chen]")
        .replace(
            "time_limit",
            "order: {design: random-blocks, blocks: [[clinic-dialysis-urgent-t2-easy], [nope]]}\ntime_limit",
        )
    )
    code, _, err = run_check(tmp_path, text, "--no-tasks")
    assert code == 1
    for expected in (
        "study.yaml:3: tasks[1]: no task 'logistics-insulin-reefer-st2-eazy' under",
        "study.yaml:3: tasks[2]: 'clinic-dialysis-urgent-t2-easy' is listed twice",
        "study.yaml:5: participants[1]: a participant's name is",
        "study.yaml:5: participants[3]: a participant's name is",
        "study.yaml:9: order.seed: random-blocks draws each participant's order from a seed",
        "study.yaml:9: order.blocks[1][0]: 'nope' is not one of the study's tasks",
    ):
        assert expected in err, (expected, err)
    assert "order.blocks[1]" in err and "eazy' is not one of" not in err  # the typo is reported once, at tasks[1]


def test_a_design_that_cannot_be_met_comes_with_the_files_other_problems(tmp_path):
    text = GOOD.replace("replication: 2", "replication: 4").replace("[ana, ben, chen]", "[ana, ben, 'c d']")
    found = problems(tmp_path, text)
    assert any(":4: replication: 2 task(s) × 4 replication(s) needs at least 4 participants" in f for f in found)
    assert any(":5: participants[2]: a participant's name is" in f for f in found), found


@pytest.mark.parametrize(
    "limit, got",
    [
        ("{minutes: 100000000000, warn_at: 99999999999}", "got 1e+11"),
        ("{minutes: .inf}", "got inf"),
        ("{minutes: .nan}", "got nan"),
        ("{minutes: 0}", "got 0"),
        ("{minutes: 1441}", "got 1441"),
        ("{minutes: 20, warn_at: 0}", "got 0"),
    ],
)
def test_a_time_limit_is_above_0_and_at_most_a_day(tmp_path, limit, got):
    found = problems(tmp_path, GOOD.replace("{minutes: 10, warn_at: 8}", limit))
    expected = f"expected a number of minutes above 0 and at most 1440 (24 hours); {got}"
    assert any(f.endswith(expected) and ":9: time_limit." in f for f in found), found
    assert not any(">=" in f for f in found), found


def test_a_limit_of_a_day_loads_and_a_break_is_bounded_too(tmp_path):
    text = GOOD.replace("{minutes: 10, warn_at: 8}", "{minutes: 1440, warn_at: 1439.5}")
    assert load_study(write(tmp_path, text)).study.time_limit is not None
    found = problems(tmp_path, text + "breaks: {every: 2, minutes: 2000}\n")
    assert any(":10: breaks.minutes: expected a number of minutes above 0 and at most 1440" in f for f in found)


def test_one_minute_is_singular(tmp_path):
    found = problems(tmp_path, GOOD.replace("{minutes: 10, warn_at: 8}", "{minutes: 1, warn_at: 2}"))
    assert any(f.endswith("time_limit: warn_at (2) must come before the limit (1 minute)") for f in found), found


def test_a_name_is_ascii_and_the_message_says_so(tmp_path):
    found = problems(tmp_path, GOOD.replace("[ana, ben, chen]", "[ana, Zoë, chen]"))
    assert any(
        ":5: participants[1]: a participant's name is 1 to 40 ASCII letters, digits, '.', '_' or '-'" in f
        and f.endswith("got 'Zoë' ('Zoe' would do)")
        for f in found
    ), found


def test_too_many_anonymous_slots_says_the_whole_range(tmp_path):
    found = problems(tmp_path, GOOD.replace("[ana, ben, chen]", "{anonymous: 100000}"))
    assert any("{anonymous: N} with N from 1 to 10000; got {'anonymous': 100000}" in f for f in found), found


def test_names_that_differ_only_in_case_are_one_name(tmp_path):
    text = GOOD.replace("participants: [ana, ben, chen]", "participants:\n  - ana\n  - ben\n  - ANA")
    found = problems(tmp_path, text)
    assert any(
        f.endswith(
            "study.yaml:8: participants[2]: participants 'ana' and 'ANA' are one name (lines 6 and 8): "
            "names are compared ignoring case"
        )
        for f in found
    ), found


def test_random_blocks_need_a_seed_in_the_file(tmp_path):
    seedless = GOOD.replace("time_limit", "order: {design: random-blocks}\ntime_limit")
    assert any(
        ":9: order.seed: random-blocks draws each participant's order from a seed" in f
        for f in problems(tmp_path, seedless)
    )
    seeded = load_study(write(tmp_path, seedless.replace("random-blocks}", "random-blocks, seed: 0}"))).study
    assert (seeded.order.design, seeded.order.seed) == ("random-blocks", 0)
    assert load_study(write(tmp_path, GOOD)).study.order.design == "latin-square"  # no seed needed there


def test_a_stored_study_is_read_under_the_rules_it_was_started_with():
    """A study started before a rule was added (a limit over a day, names that differ only in
    case) is still read back from the record and from a bundle; a file gets every rule."""
    import pydantic

    from sttui.study.spec import STORED, Study

    spec = {
        "study": 1,
        "id": "old",
        "tasks": ["t"],
        "participants": ["ana", "ANA"],
        "instructions": "x",
        "time_limit": {"minutes": 2000, "warn_at": 1500},
        "breaks": {"every": 1, "minutes": 2000},
    }
    read = Study.model_validate(spec, context=STORED)
    assert read.participants == ("ana", "ANA") and read.time_limit.minutes == 2000
    with pytest.raises(pydantic.ValidationError):
        Study.model_validate(spec)
    with pytest.raises(pydantic.ValidationError, match="named twice"):
        Study.model_validate({**spec, "participants": ["ana", "ana"]}, context=STORED)
