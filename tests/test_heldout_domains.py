"""Three domains outside testers wrote from the docs alone (``tests/fixtures/heldout``): every
task passes ``sttui check``, and the reports people typed at their end are judged as they
should be (``reports.yaml``: honest ones pass, a wrong fact or an evasion fails), and so are
the conversations they held there (``conversations.yaml``)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from sttui.bridges.episodes import Stepper
from sttui.cli import main
from sttui.core.actions import EndEpisode, Say, ToolCall
from sttui.core.checklist import score
from sttui.core.loader import load_task
from tests.conftest import ROOT
from tests.helpers.played import played

HELDOUT = Path(__file__).parent / "fixtures" / "heldout"
REPORTS = yaml.safe_load((HELDOUT / "reports.yaml").read_text(encoding="utf-8"))
CONVERSATIONS = yaml.safe_load((HELDOUT / "conversations.yaml").read_text(encoding="utf-8"))
FILES = {load_task(f).id: f for f in sorted(HELDOUT.glob("*/*.yaml"))}
BUNDLED = {load_task(f).id: f for f in sorted((ROOT / "tasks" / "stt").glob("*/*.yaml"))}


def test_the_heldout_domains_pass_check():
    result = CliRunner().invoke(main, ["check", *(str(HELDOUT / d) for d in ("harbour", "windfarm", "pharmacy"))])
    assert result.exit_code == 0, result.output
    assert "11 of 11 task files pass" in result.output


@pytest.mark.parametrize("row", REPORTS, ids=[f"{r['task']}:{i}" for i, r in enumerate(REPORTS)])
def test_a_report_typed_at_the_end_is_judged_as_it_should_be(row):
    outcome = score(played(FILES[row["task"]], reports=(row["report"],)))
    assert outcome.passed is row["passes"], [i.detail for i in outcome.items if not i.passed]


RHONA = "harbour-rhona-off-sick-st2-hard"  # SAIL-301 goes on the Solan (FB-7); FB-2 is another boat


@pytest.mark.parametrize(
    ("report", "passes"),
    [
        # the wrong boat put on the trip, the right one named only as too deep for the marina
        ("SAIL-301 goes on FB-2 with Morag Sinclair. FB-7 draws too much for Sealock Marina, so it leaves "
         "from North Pier at 11:20.", False),
        # the right boat's name with the wrong id in brackets, then named right again (a known gap, closed)
        ("SAIL-301 goes on the Solan (FB-2) with Morag Sinclair. The Solan draws too much for Sealock "
         "Marina, so it leaves from North Pier at 11:20.", False),
        ("SAIL-301 goes on FB-2 (the Solan) with Morag Sinclair. The Solan draws too much for Sealock "
         "Marina, so it leaves from North Pier at 11:20.", False),
        ("SAIL-301 goes on the Solan (FB-7) with Morag Sinclair. The Solan draws too much for Sealock "
         "Marina, so it leaves from North Pier at 11:20.", True),
        ("SAIL-301 goes on FB-7 with Morag Sinclair from North Pier at 11:20. FB-2 is too small for the group.", True),
        ("FB-2 was too small for the group, so SAIL-301 goes on FB-7 with Morag Sinclair, leaving North Pier "
         "at 11:20.", True),
    ],
)  # fmt: skip
def test_a_boat_too_deep_for_a_pier_is_not_put_there_nor_a_name_beside_another_boats_id(report, passes):
    """ "FB-7 draws too much for Sealock Marina" puts FB-7 nowhere: its "for" is not the "for" of
    "FB-7 for SAIL-301", and a message that put FB-2 on the trip had passed. "The Solan (FB-2)"
    gives FB-2, the id written exactly; the Solan named again after it had passed the lie."""
    outcome = score(played(FILES[RHONA], reports=(report,)))
    assert outcome.passed is passes, [i.detail for i in outcome.items if not i.passed]


def test_a_mistyped_tell_path_is_one_problem_with_the_close_field(tmp_path):
    """An outside tester's `tell` path named `delivery` for `delivery_time`: check said "no such
    key" with no hint, and a second problem, under --static, blamed the static checklist."""
    shutil.copytree(HELDOUT / "harbour", tmp_path / "harbour")
    task = tmp_path / "harbour" / "kelp-wharf-crane-s2-medium.yaml"
    text = task.read_text(encoding="utf-8")
    assert "path: sailings.SAIL-204.departs, kind: time" in text
    task.write_text(
        text.replace("path: sailings.SAIL-204.departs, kind: time", "path: sailings.SAIL-204.depart, kind: time")
    )
    result = CliRunner().invoke(main, ["check", str(task), "--json", "--random-seeds", "2"])
    [report] = json.loads(result.output)["tasks"]
    told = [p for p in report["problems"] if "fact 'departure' cannot be read" in p]
    assert len(told) == 1 and "no such key 'depart' in sailings.SAIL-204 (did you mean departs?)" in told[0]
    assert not any("under --static" in p for p in report["problems"]), report["problems"]


@pytest.mark.parametrize("talk", CONVERSATIONS, ids=[c["name"] for c in CONVERSATIONS])
def test_a_conversation_at_the_end_is_judged_as_it_should_be(talk):
    """The agent's messages in turn after the solution's calls, the scripted user answering
    each as in ``sttui run`` (it may end the episode before the last): a correction counts, and
    so does a wrong one sent after "I'll double-check … and get back to you"."""
    loaded = load_task((FILES if talk["tasks"] == "heldout" else BUNDLED)[talk["task"]])
    stepper = Stepper(loaded, loaded.task.seed)
    stepper.reset()
    for step in loaded.task.solution:
        if step.tool is not None:
            stepper.step(ToolCall(step.tool, dict(step.args)))
    for text in talk["messages"]:
        if stepper.done:
            break
        stepper.step(Say(text))
    if not stepper.done:
        stepper.step(EndEpisode("done"))
    assert (stepper.verdict() == 1.0) is talk["passes"], talk["why"]
