"""`contains` (§5): what it means on a number and on a list of mappings; loading refuses what
can never hold, with file:line and what to write instead."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml

from sttui.core.actions import ToolCall
from sttui.core.checklist import evaluate_checklist
from sttui.core.expect import Expect
from sttui.core.loader import load_task
from sttui.core.problems import TaskFileError
from sttui.core.review import operators
from sttui.running.runner import open_episode
from tests.conftest import FIXTURES

GOOD = FIXTURES / "mini" / "good.yaml"
STATE = {
    "year": 1900,
    "flag": True,
    "code": "BA1900",
    "messages": [{"to": "P-1", "text": "Please go to Westbrook at 14:00"}, {"to": "P-2", "text": "Cancelled"}],
    "tags": ["urgent", "cold"],
}


@pytest.mark.parametrize(
    ("path", "want", "holds"),
    [
        ("code", "1900", True),
        ("code", 1900, True),  # a number is looked for as written
        ("code", True, False),
        ("messages", "Westbrook", True),  # a text search looks into the items' text values
        ("messages", "Harbourside", False),
        ("messages", "westbrook", False),  # case counts, as for text
        ("messages", {"to": "P-2"}, True),
        ("tags", "urgent", True),
        ("tags", "urg", False),  # items of a list of texts are compared whole
        ("year", 1900, False),
        ("flag", True, False),
    ],
)
def test_contains_by_kind_of_value(path, want, holds):
    assert Expect.model_validate({"path": path, "contains": want}).evaluate(STATE)[0] is holds


@pytest.mark.parametrize(
    ("path", "want", "why"),
    [
        ("year", 1900, "contains has no meaning on a number (nothing is inside 1900): write equals: 1900"),
        ("flag", True, "contains has no meaning on a boolean"),
        ("code", ["BA"], "contains on text looks for text, and ['BA'] is a list"),
        ("messages", 7, "the items are mappings, never a number: write contains: {FIELD: 7}"),
    ],
)
def test_what_has_no_meaning_says_what_to_write(path, want, why):
    assert why in (Expect.model_validate({"path": path, "contains": want}).why_not(STATE[path]) or "")


def test_milestones_search_text_in_a_list_of_mappings_too():
    assert operators.contains(STATE["messages"], "WESTBROOK")  # case-insensitive there, as for text
    assert not operators.contains(STATE["messages"], "Harbourside")


def _task(tmp_path: Path, state: dict, item: dict) -> Path:
    data = yaml.safe_load(GOOD.read_text(encoding="utf-8"))
    data["initial_state"].update(copy.deepcopy(state))
    data["checklist"].append(item)
    (tmp_path / "warehouse.py").write_bytes((GOOD.parent / "warehouse.py").read_bytes())
    path = tmp_path / "task.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False, width=200), encoding="utf-8")
    return path


def test_loading_refuses_contains_on_a_number_at_its_line(tmp_path):
    path = _task(tmp_path, {"year": 1900}, {"id": "year", "expect": {"path": "year", "contains": 1900}})
    with pytest.raises(TaskFileError) as info:
        load_task(path)
    [problem] = info.value.problems
    line = next(n for n, t in enumerate(path.read_text().splitlines(), 1) if "contains: 1900" in t)
    assert str(problem).startswith(f"{problem.file}:{line}: checklist[2].expect.contains: contains has no meaning")
    assert "write equals: 1900" in problem.message and "year is 1900 in initial_state" in problem.message


def test_loading_refuses_it_in_a_state_trigger_too(tmp_path):
    path = _task(tmp_path, {"year": 1900}, {"id": "x", "expect": {"path": "year", "equals": 1900}})
    data = yaml.safe_load(path.read_text())
    data["triggers"].append(
        {"id": "late", "when": {"state": {"path": "year", "contains": 19}}, "effects": [{"set": "year", "value": 1}]}
    )
    path.write_text(yaml.safe_dump(data, sort_keys=False, width=200), encoding="utf-8")
    with pytest.raises(TaskFileError) as info:
        load_task(path)
    assert [p.field for p in info.value.problems] == ["triggers[1].when.state.contains"]


def test_a_text_search_over_messages_loads_and_passes(tmp_path, mini_task):
    path = _task(
        tmp_path,
        {"messages": STATE["messages"]},
        {"id": "told", "expect": {"path": "messages", "contains": "Westbrook"}},
    )
    loaded = load_task(path)
    ep = open_episode(loaded, 0, {"agent": "a", "user": "u"})
    ep.start()
    ep.apply(ToolCall("get_crate", {"crate_id": "CR-1"}))
    told = next(i for i in evaluate_checklist(ep) if i.id == "told")
    assert told.passed, told.detail


def test_a_number_that_appears_later_fails_with_the_reason(tmp_path):
    """A path that is not a number at the start but becomes one: the detail says why."""
    path = _task(tmp_path, {"log": {}}, {"id": "n", "expect": {"path": "log", "contains": 3}})
    data = yaml.safe_load(path.read_text())
    data["triggers"][0]["effects"].append({"set": "log", "value": 3})
    path.write_text(yaml.safe_dump(data, sort_keys=False, width=200), encoding="utf-8")
    ep = open_episode(load_task(path), 0, {"agent": "a", "user": "u"})
    ep.start()
    ep.apply(ToolCall("get_crate", {"crate_id": "CR-1"}))
    item = next(i for i in evaluate_checklist(ep) if i.id == "n")
    assert not item.passed
    assert (
        item.detail
        == "log contains 3: actual 3 (contains has no meaning on a number (nothing is inside 3): write equals: 3 (or in: [..], gte, lte))"
    )
