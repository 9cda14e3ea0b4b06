"""The Inspect bridge under what a lab's runs do to it (found by an outside tester): Inspect's
own limits on a sample, a run interrupted, several values in one ``-T``, parameters that cannot
be used, and answers sttui's record cannot take."""

from __future__ import annotations

import logging
import math
import time

import anyio
import pytest

pytest.importorskip("inspect_ai")

from inspect_ai import eval as inspect_eval
from inspect_ai._util.error import PrerequisiteError
from inspect_ai.log import read_eval_log, resolve_sample_attachments
from inspect_ai.model import ModelOutput, get_model

from sttui.bridges import inspect_params, inspect_tasks
from sttui.bridges.episodes import action_data, baseline_actions, select_tasks
from sttui.bridges.inspect_tasks import InspectAgent, _play, explore, stt
from sttui.core.settings import RunSettings
from sttui.store.store import Store
from tests.test_bridge_inspect import USAGE, scripted

TASK = "air-ams-connection-t3-easy"


def _outputs(actions) -> list[ModelOutput]:
    """mockllm's answers for these agent actions (as ``scripted`` makes them), to mix with others."""
    out = []
    for a in actions:
        d = action_data(a)
        out.append(_said(d["message"]) if "message" in d else _tool(d["tool"], d["args"]))
    return out


def _said(text: str) -> ModelOutput:
    out = ModelOutput.from_content("mockllm", text)
    out.usage = USAGE
    return out


def _run(task, model, tmp_path, **limits):
    [log] = inspect_eval(task, model=model, log_dir=str(tmp_path / "logs"), display="none", max_samples=1, **limits)
    return read_eval_log(log.location)


# -- 1. Inspect's limits on a sample end the episode as sttui's step limit does -------------


def test_a_message_limit_ends_the_episode_as_a_limit_scored_on_its_state(tmp_path):
    """It used to leave no result: the scorer's KeyError failed the whole eval."""
    url = f"sqlite:///{tmp_path / 'r.db'}"
    talk = get_model("mockllm/model", custom_outputs=[_said("Looking into it.") for _ in range(20)])
    log = _run(stt(tasks=TASK, record=url), talk, tmp_path, message_limit=6)
    assert log.status == "success"
    [sample] = log.samples
    assert sample.limit is not None and sample.limit.type == "message"
    score = sample.scores["checklist"]
    assert score.value["passed"] == 0.0 and score.answer == "Inspect's message limit of 6 reached"
    record = Store(url).episode(score.metadata["episode"])
    assert (record.status, record.end_reason) == ("completed", "Inspect's message limit of 6 reached")


def test_a_limit_is_scored_on_the_state_reached(tmp_path):
    """Every call of the oracle's, then talk, no report, past the message limit: the checklist
    judges the state the calls left (rebooked, checked in: those items pass) and the missing
    report (that item fails), as it judges an episode sttui's step limit ends."""
    [loaded] = select_tasks("stt", task=TASK)
    actions, _ = baseline_actions(loaded, "oracle", loaded.task.seed)
    calls = [a for a in actions if getattr(a, "tool", None)]
    model = get_model("mockllm/model", custom_outputs=[*_outputs(calls), *(_said("One moment.") for _ in range(40))])
    log = _run(stt(tasks=TASK), model, tmp_path, message_limit=2 * len(calls) + 6)
    [sample] = log.samples
    assert sample.limit is not None and sample.limit.type == "message"
    items = {i["id"]: i["passed"] for i in sample.scores["checklist"].metadata["checklist"]}
    told = {i.id for i in loaded.task.checklist if i.tell}
    assert told and all(not items[i] for i in told)
    assert all(ok for i, ok in items.items() if i not in told)


def test_a_time_limit_ends_the_episode_as_a_limit(tmp_path):
    url = f"sqlite:///{tmp_path / 'r.db'}"

    def slow():
        while True:
            time.sleep(0.4)  # (a model that takes its time)
            yield _said("Still checking.")

    log = _run(stt(tasks=TASK, record=url), get_model("mockllm/model", custom_outputs=slow()), tmp_path, time_limit=1)
    [sample] = log.samples
    assert sample.limit is not None and sample.limit.type == "time"
    score = sample.scores["checklist"]
    assert score.value["passed"] == 0.0 and score.answer == "Inspect's time limit of 1 s reached"
    assert Store(url).episode(score.metadata["episode"]).end_reason == "Inspect's time limit of 1 s reached"


def test_a_sample_with_no_result_scores_as_unplayed_not_a_keyerror():
    from inspect_ai.model import ChatMessageUser
    from inspect_ai.scorer import Target
    from inspect_ai.solver import TaskState

    state = TaskState(
        model="mockllm/model", sample_id=TASK, epoch=1, input="hi", messages=[ChatMessageUser(content="hi")]
    )
    stt_score = anyio.run(inspect_tasks.checklist(), state, Target(""))
    assert stt_score.value["passed"] == 0.0 and stt_score.explanation.startswith("no episode result")
    explore_score = anyio.run(inspect_tasks.explore_metrics(), state, Target(""))
    assert all(math.isnan(v) for v in explore_score.value.values())


# -- 2. an interrupted run leaves its episodes stopped, as sttui run does -----------------------


def test_a_cancelled_sample_leaves_its_episode_stopped_not_errored(tmp_path):
    """Ctrl-C cancels every sample under way: each was recorded `errored` (with a cancel scope's
    address), which counted it as a failure in `sttui report`."""
    [loaded] = select_tasks("stt", task=TASK)
    url = f"sqlite:///{tmp_path / 'r.db'}"
    kept: list[dict] = []

    class Waiting(InspectAgent):
        async def act(self, view):
            await anyio.sleep(30)

    async def interrupted() -> None:
        with anyio.move_on_after(0.3):
            await _play(
                loaded,
                Waiting(get_model("mockllm/model"), loaded),
                None,
                1,
                RunSettings(),
                url,
                lambda result, episode: kept.append(result),
            )

    anyio.run(interrupted)
    assert kept == []  # nothing to score: Inspect scores no cancelled sample
    [record] = Store(url).list_episodes()
    assert record.status == "stopped"
    assert record.end_reason == "interrupted (Inspect cancelled the sample: Ctrl-C or a cancel) at step 0"


# -- 3. -T values as Inspect reads them, and ones that cannot be used ----------------------------


def test_several_values_in_one_parameter_as_inspect_reads_a_comma_list():
    two = ["air-ams-connection-t3-easy", "clinic-dialysis-urgent-t2-easy"]
    assert [s.id for s in stt(tasks=two).dataset] == two  # `-T tasks=a,b` arrives as a list
    assert [s.id for s in stt(tasks=",".join(two)).dataset] == two
    assert {s.metadata["domain"] for s in stt(domain=["clinic", "grid"]).dataset} == {"clinic", "grid"}
    assert {s.metadata["level"] for s in stt(level="easy,hard").dataset} == {"easy", "hard"}


@pytest.mark.parametrize(
    ("make", "said"),
    [
        (
            lambda: stt(level="9"),
            "sttui/stt: no stt task under .* has level 9; they have easy, hard, impossible, medium",
        ),
        (lambda: stt(domain="nowhere"), "has domain nowhere; they have air-travel, clinic, grid, logistics, venues"),
        (lambda: explore(level="hard"), "has rule family hard; they have additive, "),
        (lambda: stt(trials="abc"), "trials: expected a whole number of at least 1; got 'abc'"),
        (lambda: stt(trials=1.5), "trials: expected a whole number of at least 1; got 1.5"),
        (lambda: stt(seed="abc"), "seed: expected a whole number from 0 to 2\\^63-1; got 'abc'"),
        (lambda: stt(static="maybe"), "static: expected true or false; got 'maybe'"),
        (
            lambda: stt(setting="statc"),
            "setting: expected one of default, static, no-user, static/no-user for sttui/stt",
        ),
        (
            lambda: explore(setting="static"),
            "setting: expected one of default, stationary, evidence_given, forced_probe",
        ),
        (lambda: stt(folder=["a", "b"]), "folder: one folder; got 2"),
        (lambda: stt(user="human"), "user: a person cannot hold a seat in an Inspect run"),
        (lambda: stt(user="bogus"), "user: expected baseline:scripted or model:M; got 'bogus'"),
        (lambda: stt(no_user=True, user="baseline:scripted"), "no-user setting leaves the user seat empty"),
        (
            lambda: stt(record="sqlite:////nonexistent-dir/x.db"),
            "record: the folder /nonexistent-dir .* check the path \\(-T record\\)",
        ),
    ],
)
def test_a_parameter_that_cannot_be_used_is_one_line_before_any_sample_runs(make, said):
    with pytest.raises(PrerequisiteError) as raised:
        make()
    assert raised.value.message.startswith("sttui/") and "\n" not in raised.value.message
    assert __import__("re").search(said, raised.value.message), raised.value.message


def test_setting_names_the_papers_settings_for_stt_too(tmp_path):
    [loaded] = select_tasks("stt", task=TASK)
    actions, _ = baseline_actions(loaded, "oracle", loaded.task.seed, settings=RunSettings(static=True))
    url = f"sqlite:///{tmp_path / 'r.db'}"
    log = _run(stt(tasks=TASK, setting="static", record=url), scripted(actions), tmp_path)
    episode = log.samples[0].scores["checklist"].metadata["episode"]
    assert Store(url).episode(episode).setting == "static"


def test_a_password_in_record_is_warned_of_as_inspect_logs_task_parameters(tmp_path, monkeypatch, caplog):
    assert inspect_params.names_a_password("postgresql+psycopg://alice:s3cret@db/x")
    assert not inspect_params.names_a_password("postgresql+psycopg://alice@db/x")
    assert not inspect_params.names_a_password(f"sqlite:///{tmp_path / 'r.db'}")
    url = "postgresql+psycopg://alice:s3cret@db/x"
    monkeypatch.setattr(inspect_params, "record", lambda value, opener: inspect_params.Record(value, None))
    with caplog.at_level(logging.WARNING):
        stt(tasks=TASK, record=url)
    assert "record= holds a password" in caplog.text and "s3cret" not in caplog.text


# -- 4. answers sttui's record cannot take, refused back as in sttui run --------------------------


def _tool(name: str, args: dict, parse_error: str | None = None) -> ModelOutput:
    out = ModelOutput.for_tool_call("mockllm", name, args)
    out.usage = USAGE
    if parse_error is not None:
        out.choices[0].message.tool_calls[0].parse_error = parse_error
    return out


def test_unrecordable_oversized_and_unparsed_answers_are_refused_and_the_turn_goes_on(tmp_path, db_url):
    """A NUL in a message (it had been recorded, so the export could not be imported), a lone
    surrogate in arguments (a UnicodeEncodeError had ended the eval), a 200,001-character
    message (the documented limit was not kept), and arguments Inspect could not parse (they had
    run as `{}`): each is refused back to the model, and the oracle that follows passes."""
    [loaded] = select_tasks("stt", task=TASK)
    actions, _ = baseline_actions(loaded, "oracle", loaded.task.seed)
    first = actions[0]
    nul, surrogate = _said("hello\x00world"), _tool(first.tool, {k: f"{v}\ud800" for k, v in first.args.items()})
    huge = _said("x" * 200_001)
    unparsed = _tool(first.tool, {}, parse_error="Expecting ',' delimiter: line 1 column 9")
    outputs = _outputs(actions)
    # (at most two refusals a turn: a third would end the episode, as in sttui run)
    model = get_model("mockllm/model", custom_outputs=[nul, surrogate, outputs[0], huge, unparsed, *outputs[1:]])
    log = _run(stt(tasks=TASK, record=db_url), model, tmp_path)
    [sample] = log.samples
    score = sample.scores["checklist"]
    assert score.value["passed"] == 1.0, score.explanation
    store = Store(db_url)
    events = store.events(score.metadata["episode"])
    assert sum(1 for e in events if e.type == "tool_call") == sum(1 for a in actions if getattr(a, "tool", None))
    assert not any("\x00" in str(e.payload) for e in events)
    told = {  # what the model was told back, in the requests Inspect logged (long texts attached)
        m.text
        for e in resolve_sample_attachments(sample).events
        if e.event == "model"
        for m in e.input
        if m.role == "user" and m.text.startswith("[Protocol]")
    }
    assert told == {
        "[Protocol] Your answer cannot be recorded: message holds a NUL character (\\u0000). Nothing was sent.",
        f"[Protocol] Your answer cannot be recorded: arguments.{next(iter(first.args))} holds a lone surrogate "
        "(\\ud800), which is no character. Nothing was executed.",
        "[Protocol] Your answer was 200,001 characters long; answers are limited to 200,000. Nothing was executed.",
        f"[Protocol] The arguments of {first.tool} are not valid JSON (Expecting ',' delimiter: line 1 column 9). "
        "Nothing was executed.",
    }


def test_a_sample_that_errors_keeps_its_transcript_and_episode_id_and_its_steps(tmp_path):
    """An error Inspect reports (here the model's provider failing mid-episode): the sample
    still carries the transcript so far and the sttui episode id, and the record counts the
    steps taken (it said 0)."""
    [loaded] = select_tasks("stt", task=TASK)
    actions, _ = baseline_actions(loaded, "oracle", loaded.task.seed)
    url = f"sqlite:///{tmp_path / 'r.db'}"

    def failing():
        yield from _outputs(actions[:3])
        raise RuntimeError("the provider fell over")

    model = get_model("mockllm/model", custom_outputs=failing())
    [log] = inspect_eval(
        stt(tasks=TASK, record=url), model=model, log_dir=str(tmp_path / "logs"), display="none", fail_on_error=False
    )
    [sample] = read_eval_log(log.location).samples
    assert sample.error is not None and "the provider fell over" in sample.error.message
    kept = sample.metadata["sttui"]
    assert kept["status"] == "errored" and kept["steps"] == 3
    assert sum(1 for m in sample.messages if m.role == "tool") == 3
    record = Store(url).episode(kept["episode"])
    assert (record.status, record.steps) == ("errored", 3)
