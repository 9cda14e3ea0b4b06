"""Hostile and absurd task files: each gets a one-line problem with file, line and field, in
bounded time, and never a traceback or a hang. The YAML reader gives the same data and line
map as the pure-Python loader on every bundled file, in one pass."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time

import pytest
import yaml

from sttui.core.loader import discover, load_task
from sttui.core.problems import TaskFileError
from sttui.core.yamlio import MAX_BYTES, YamlSyntaxError, load_with_lines
from sttui.tui.launch import Launch
from tests.conftest import FIXTURES, ROOT

GOOD = (FIXTURES / "mini" / "good.yaml").read_text()


def variant(tmp_path, old: str, new: str, name: str = "task.yaml"):
    assert old in GOOD
    shutil.copy(FIXTURES / "mini" / "warehouse.py", tmp_path / "warehouse.py")
    path = tmp_path / name
    path.write_text(GOOD.replace(old, new, 1))
    return path


CASES = [
    # (what, old text, new text, line, field, message fragment)
    ("year 9999 clock", "2024-03-04T08:00:00", "9999-12-31T23:00:00", 16, "clock", "between the years 1900 and 2999"),
    (
        "NaN minutes",
        'start: "2024-03-04T08:00:00"',
        'start: "2024-03-04T08:00:00"\n  tool_minutes: {default: .nan}',
        18,
        "clock.tool_minutes.default",
        "finite number",
    ),
    (
        "negative minutes",
        'start: "2024-03-04T08:00:00"',
        'start: "2024-03-04T08:00:00"\n  tool_minutes: {default: -5}',
        18,
        "clock.tool_minutes.default",
        ">= 0",
    ),
    (
        "infinite minutes",
        'start: "2024-03-04T08:00:00"',
        'start: "2024-03-04T08:00:00"\n  tool_minutes: {default: .inf}',
        18,
        "clock.tool_minutes.default",
        "finite number",
    ),
    (
        "shift_clock 1e15",
        "- {move: crates.CR-1, to: BAY-B}",
        "- {shift_clock: 1.0e+15}",
        26,
        "triggers[0].effects[0].shift_clock",
        "less than or equal to 525600",
    ),
    (
        "30-digit seed",
        "kind: stt",
        "kind: stt\nseed: 123456789012345678901234567890",
        3,
        "seed",
        "less than or equal to 9223372036854775807",
    ),
    ("huge max_steps", "kind: stt", "kind: stt\nmax_steps: 100000000", 3, "max_steps", "less than or equal to 10000"),
    (
        "dotted state key",
        "CR-1: {contents: bearings, location: BAY-A}",
        "CR-1: {contents: bearings, location: BAY-A}\n    CR.2: {contents: x, location: BAY-A}",
        14,
        "initial_state.crates",
        "contains a dot",
    ),
    (
        "duplicate key",
        "domain: warehouse",
        "domain: warehouse\ndomain: depot",
        5,
        "(file)",
        "duplicate key 'domain' (first on line 4)",
    ),
    (
        "recursive alias",
        "withheld: {crate_weight: 40 kg}",
        "withheld: &w {crate_weight: 40 kg, again: *w}",
        20,
        "(file)",
        "contains it",
    ),
]


@pytest.mark.parametrize(("what", "old", "new", "line", "field", "fragment"), CASES, ids=[c[0] for c in CASES])
def test_absurd_values_are_refused_with_file_line_and_field(tmp_path, what, old, new, line, field, fragment):
    path = variant(tmp_path, old, new)
    with pytest.raises(TaskFileError) as info:
        load_task(path)
    got = [(p.line, p.field, p.message) for p in info.value.problems]
    assert any(field == f and fragment in m for _, f, m in got), got
    assert any(ln == line for ln, f, _ in got if f == field), got


def test_a_clock_with_an_offset_against_a_when_at_without_one(tmp_path):
    path = variant(tmp_path, 'start: "2024-03-04T08:00:00"', 'start: "2024-03-04T08:00:00+00:00"')
    text = path.read_text().replace(
        "when: {tool: get_crate, args: {crate_id: CR-1}}", 'when: {at: "2024-03-04T09:00:00"}'
    )
    path.write_text(text)
    with pytest.raises(TaskFileError) as info:
        load_task(path)
    (problem,) = info.value.problems
    assert (problem.line, problem.field) == (24, "triggers[0].when.at")
    assert "without a UTC offset but clock.start is with one" in problem.message


def test_a_billion_laughs_file_is_refused_at_once(tmp_path):
    bomb = "lol: &a [" + ",".join(['"lol"'] * 9) + "]\n"
    bomb += "".join(f"l{i}: &{chr(98 + i)} [" + ",".join([f"*{chr(97 + i)}"] * 9) + "]\n" for i in range(9))
    path = variant(tmp_path, "kind: stt", "kind: stt\nextra:\n" + "".join("  " + ln + "\n" for ln in bomb.splitlines()))
    start = time.process_time()
    with pytest.raises(TaskFileError) as info:
        load_task(path)
    assert time.process_time() - start < 2
    assert "once aliases are expanded" in str(info.value.problems[0])


@pytest.mark.parametrize("shape", ["flow", "block"])
def test_deep_nesting_is_refused(tmp_path, shape):
    if shape == "flow":
        deep = "[" * 10_000 + "]" * 10_000
    else:
        deep = "\n" + "".join("    " + "  " * i + f"k{i}:\n" for i in range(200)) + "    " + "  " * 200 + "v"
    path = variant(tmp_path, "domain: warehouse", f"domain: warehouse\nextra: {deep}")
    with pytest.raises(TaskFileError) as info:
        load_task(path)
    assert "nested deeper than 64 levels" in str(info.value.problems[0])


def test_a_file_over_the_size_limit_is_refused_before_parsing(tmp_path):
    path = variant(tmp_path, "domain: warehouse", "domain: warehouse\n# " + "x" * MAX_BYTES)
    start = time.process_time()
    with pytest.raises(TaskFileError) as info:
        load_task(path)
    assert time.process_time() - start < 1
    assert "task files are limited to 2,000,000" in str(info.value.problems[0])


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_named_like_a_task_neither_hangs_tasks_nor_check(tmp_path):
    folder = tmp_path / "tasks"
    folder.mkdir()
    shutil.copy(FIXTURES / "mini" / "warehouse.py", folder / "warehouse.py")
    (folder / "good.yaml").write_text(GOOD)
    os.mkfifo(folder / "x.yaml")
    assert [p.name for p in discover([folder])] == ["good.yaml"]
    with pytest.raises(TaskFileError, match="not a regular file"):
        load_task(folder / "x.yaml")
    for command in ("tasks", "check"):
        proc = subprocess.run(
            [sys.executable, "-m", "sttui", command, str(folder)],
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=60,
        )
        assert "Traceback" not in proc.stderr and "mini-crate-s1-easy" in proc.stdout


@pytest.mark.parametrize(
    ("path", "text", "fragment"),
    [
        ("schedule: {batches: 1000000000, cases_per_batch: 8, probe_cap: 8}", "batches", "or equal to 1000"),
        ("schedule: {batches: 12, cases_per_batch: 100000, probe_cap: 8}", "cases_per_batch", "or equal to 1000"),
    ],
)
def test_explore_counts_are_bounded(tmp_path, path, text, fragment):
    source = (ROOT / "tasks" / "explore" / "finance" / "additive-1.yaml").read_text()
    old = "schedule: {batches: 12, cases_per_batch: 8, probe_cap: 8}"
    assert old in source
    (tmp_path / "e.yaml").write_text(source.replace(old, path))
    start = time.process_time()
    with pytest.raises(TaskFileError) as info:
        load_task(tmp_path / "e.yaml")
    assert time.process_time() - start < 2
    assert any(text in p.field and fragment in p.message for p in info.value.problems)


def test_an_infinite_explore_range_is_refused(tmp_path):
    source = (ROOT / "tasks" / "explore" / "finance" / "additive-1.yaml").read_text()
    import re

    bad = re.sub(r"range: \[[^\]]*\]", "range: [0, .inf]", source, count=1)
    assert bad != source
    (tmp_path / "e.yaml").write_text(bad)
    with pytest.raises(TaskFileError) as info:
        load_task(tmp_path / "e.yaml")
    assert any("finite number" in p.message and "range" in p.field for p in info.value.problems)


def _pure(text: str):
    """The old two-pass reader: safe_load for data, compose for lines."""
    data = yaml.safe_load(text)
    lines = {}

    def walk(node, loc):
        lines.setdefault(loc, node.start_mark.line + 1)
        if isinstance(node, yaml.MappingNode):
            for k, v in node.value:
                lines[(*loc, k.value)] = k.start_mark.line + 1
                walk(v, (*loc, k.value))
        elif isinstance(node, yaml.SequenceNode):
            for i, item in enumerate(node.value):
                walk(item, (*loc, i))

    walk(yaml.compose(text, Loader=yaml.SafeLoader), ())
    return data, lines


def test_one_pass_gives_the_same_data_and_lines_as_two_on_every_bundled_file():
    files = discover([ROOT / "tasks"]) + sorted((ROOT / "tasks" / "explore" / "catalogs").glob("*.yaml"))
    assert len(files) >= 49
    for f in files:
        text = f.read_text()
        assert load_with_lines(text) == _pure(text), f


def test_the_workbench_never_exits_0_after_a_crash(tmp_path, monkeypatch):
    from textual.app import App

    from sttui.tui import app as tui

    def boom(self):
        raise RuntimeError("a bug")

    monkeypatch.setattr(tui.SttuiApp, "on_mount", boom)
    monkeypatch.setattr(tui.SttuiApp, "run", lambda self: App.run(self, headless=True))
    with pytest.raises(SystemExit) as info:
        tui.run_app(db_url=f"sqlite:///{tmp_path / 'x.db'}")
    assert info.value.code == 1


async def test_home_survives_hostile_task_files_with_a_notice_naming_each(tmp_path):
    from sttui.tui.app import SttuiApp

    folder = tmp_path / "tasks"
    folder.mkdir()
    shutil.copy(FIXTURES / "mini" / "warehouse.py", folder / "warehouse.py")
    (folder / "good.yaml").write_text(GOOD)
    (folder / "bomb.yaml").write_text(
        "a: &a ["
        + ",".join(['"x"'] * 9)
        + "]\n"
        + "".join(f"l{i}: &{chr(98 + i)} [" + ",".join([f"*{chr(97 + i)}"] * 9) + "]\n" for i in range(9))
    )
    (folder / "dup.yaml").write_text(GOOD.replace("domain: warehouse", "domain: warehouse\ndomain: again"))
    (folder / "deep.yaml").write_text("x: " + "[" * 5000 + "]" * 5000)
    if hasattr(os, "mkfifo"):
        os.mkfifo(folder / "pipe.yaml")
    app = SttuiApp(Launch.build(folder, db_url=f"sqlite:///{tmp_path / 'h.db'}", human="ana"))
    async with app.run_test(size=(120, 40)) as pilot:
        home = app.screen
        for _ in range(200):
            await pilot.pause(0.05)
            if getattr(home, "rows", None):
                break
        assert [r.id for r in home.rows] == ["mini-crate-s1-easy"]
        for _ in range(100):  # the notice is a message of its own: under load it lands a little later
            if app._notifications:
                break
            await pilot.pause(0.05)
        shown = " ".join(str(n.message) for n in app._notifications)
        for name in ("bomb.yaml", "dup.yaml", "deep.yaml"):
            assert name in shown, shown


def test_an_unquoted_time_of_day_is_the_time_written_not_yaml_base_60():
    """YAML 1.1 reads ``ready_at: 15:00`` as 900 (minutes and seconds in base 60): a task author
    means a time. Other numbers are read as YAML reads them."""
    data, _ = load_with_lines("ready_at: 15:00\nlong: 1:30:00\npart: 1:30.5\nn: 900\nm: -1_000\nx: 1.5\nq: '15:00'\n")
    assert data == {
        "ready_at": "15:00",
        "long": "1:30:00",
        "part": "1:30.5",
        "n": 900,
        "m": -1000,
        "x": 1.5,
        "q": "15:00",
    }
    assert yaml.safe_load("ready_at: 15:00") == {"ready_at": 900}  # (what plain YAML does)


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("staff: {AV-5: {name: Marcus Webb (AV, hybrid), role: av}}\n", "hybrid)"),
        ("user: {profile: anxious, wants reassurance}\n", "wants reassurance"),
        ("needs: [locked knee, ?meniscal tear]\n", "meniscal tear"),
    ],
)
def test_a_comma_inside_a_flow_mapping_value_is_an_error_at_its_line(text, key):
    """In ``{…}`` a comma ends a value: "Marcus Webb (AV, hybrid)" unquoted was the name "Marcus
    Webb (AV" and a key "hybrid)" with no value (15 bundled files held such a split)."""
    with pytest.raises(YamlSyntaxError) as err:
        load_with_lines("x: 1\n" + text)
    assert err.value.line == 2 and f"'{key}' has no value" in str(err.value) and "quote a value" in str(err.value)
    data, _ = load_with_lines('x: {name: "Marcus Webb (AV, hybrid)", empty: , none: ~}\n')
    assert data == {"x": {"name": "Marcus Webb (AV, hybrid)", "empty": None, "none": None}}


MARKUP_TITLE = "Crates [/] and [b]fees"
MARKUP_QUERY = "[red]Please[/] get crate CR-1 to dispatch [/]."


def markup_task(tmp_path) -> tuple:
    """The mini task with markup in its title and query: shown as written, never read."""
    folder = tmp_path / "tasks"
    folder.mkdir()
    shutil.copy(FIXTURES / "mini" / "warehouse.py", folder / "warehouse.py")
    text = GOOD.replace("title: Move the crate to dispatch", f'title: "{MARKUP_TITLE}"')
    text = text.replace("query: Please get crate CR-1 to dispatch.", f'query: "{MARKUP_QUERY}"')
    (folder / "odd.yaml").write_text(text)
    return folder, load_task(folder / "odd.yaml")


async def test_a_tasks_markup_is_shown_as_written_on_home_and_in_annotation(tmp_path):
    """A title holding ``[/]`` stopped home with a MarkupError (Textual reads a string table
    cell as markup, and the brief under the table was markup too); ``[red]`` coloured a query."""
    from rich.text import Text
    from textual.widgets import DataTable, Static

    from sttui.annotate.queue import task_items
    from sttui.tui.annotate import item_text
    from sttui.tui.app import SttuiApp
    from tests.tui_helpers import wait_for

    folder, loaded = markup_task(tmp_path)
    app = SttuiApp(Launch.build(folder, db_url=f"sqlite:///{tmp_path / 'h.db'}", human="ana"))
    async with app.run_test(size=(120, 40)) as pilot:
        home = app.screen
        await wait_for(pilot, lambda: bool(getattr(home, "rows", None)))
        await pilot.pause()
        table = home.query_one("#tasks", DataTable)
        assert MARKUP_TITLE in [Text.from_markup(str(c)).plain for c in table.get_row_at(0)]
        brief = str(home.query_one("#detail", Static).render())
        assert MARKUP_TITLE in brief and MARKUP_QUERY in brief, brief
        assert app.is_running
    (item,) = task_items([loaded], "task")
    shown = Text.from_markup(item_text(item)).plain
    assert MARKUP_TITLE in shown and MARKUP_QUERY in shown
