"""The batch runner (``run_batch``) at its edges: what each record and each stored episode
says for a completed trial, an errored stt trial (a failure that keeps its review so far), an
errored explore trial (unplayed batches at a random policy's score), settings, a judge, and
the usage a metered controller reports. Controllers are the real baselines, wrapped so they
meter like a model and can fail on cue."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

import pytest

import sttui.running.batch as batch
from sttui.config import model_aliases
from sttui.controllers.explore_baselines import ExploreOracle
from sttui.controllers.registry import make_agent
from sttui.core.actions import EndEpisode
from sttui.core.checklist import ItemResult
from sttui.core.explore.metrics import metrics
from sttui.core.loader import load_task
from sttui.core.settings import RunSettings
from sttui.running.plan import ReviewPlan, RunPlan
from sttui.running.runner import open_episode
from sttui.store.store import Store
from tests.conftest import ROOT

STT = ROOT / "tasks" / "stt" / "logistics" / "insulin-reefer-fault-st2-easy.yaml"
EXPLORE = ROOT / "tasks" / "explore" / "finance" / "additive-1.yaml"
IMPOSSIBLE = ROOT / "tasks" / "stt" / "logistics" / "mull-blood-ferry-s3-impossible.yaml"


class Metered:
    """A real controller that meters like a model (``usage``, and a ``record`` hook the runner
    fills in) and fails once it has acted ``fail_after`` times."""

    def __init__(self, inner: Any, usage: Any = None, fail_after: int | None = None):
        self.inner, self.name, self.fail_after = inner, inner.name, fail_after
        if usage is not None:  # an unmetered controller (a baseline) has no usage at all
            self.usage = usage
        self.record: Any = None
        self.acted = 0

    async def act(self, view: Any) -> Any:
        if self.record is not None:
            self.record("asked", {"n": self.acted})
        if self.fail_after is not None and self.acted >= self.fail_after:
            raise RuntimeError(f"boom after {self.acted}")
        self.acted += 1
        return await self.inner.act(view)


def usage(calls: int, prompt: int, completion: int, cost: float | None) -> SimpleNamespace:
    return SimpleNamespace(calls=calls, prompt_tokens=prompt, completion_tokens=completion, cost=cost)


@pytest.fixture
def seats(monkeypatch):
    """Wrap the controllers the runner makes; note what each was made with."""
    made: list[tuple] = []
    options: dict[str, Any] = {"agent_usage": None, "user_usage": None, "fail_after": None}
    real_agent, real_user = batch.make_agent, batch.make_user

    def agent(spec, loaded, seed, models, store, settings):
        made.append(("agent", spec, seed, models, store))
        real = real_agent(spec, loaded, seed, models, store, settings)
        return Metered(real, options["agent_usage"], options["fail_after"])

    def user(spec, models, seed):
        made.append(("user", spec, seed, models))
        return Metered(real_user(spec, models, seed=seed), options["user_usage"])

    monkeypatch.setattr(batch, "make_agent", agent)
    monkeypatch.setattr(batch, "make_user", user)
    return SimpleNamespace(made=made, options=options)


def run(plan: RunPlan, store: Store | None = None, **kw: Any) -> list[dict[str, Any]]:
    return asyncio.run(batch.run_batch(plan, store=store, **kw))


def test_each_completed_trial_is_one_record_and_one_stored_episode(tmp_path, seats):
    store = Store(f"sqlite:///{tmp_path / 'r.db'}")
    seats.options.update(agent_usage=usage(2, 10, 5, 0.25), user_usage=usage(1, 3, 1, None))
    loaded = load_task(STT)
    models = model_aliases({"m": {"model": "openai/x"}})
    plan = RunPlan.build([loaded], agent="baseline:oracle", trials=2, seed=40, models=models)
    seen: list[dict] = []
    records = run(plan, store, progress=seen.append)
    assert sorted(seen, key=lambda r: r["trial"]) == records  # progress hears of every record
    assert [(r["trial"], r["seed"], r["setting"], r["status"]) for r in records] == [
        (0, 40, "default", "completed"),
        (1, 41, "default", "completed"),
    ]
    assert sorted(m[:3] for m in seats.made) == [
        ("agent", "baseline:oracle", 40),
        ("agent", "baseline:oracle", 41),
        ("user", "baseline:scripted", 40),
        ("user", "baseline:scripted", 41),
    ]
    assert all(m[3] == models for m in seats.made) and {m[4] for m in seats.made if m[0] == "agent"} == {store}
    for r in records:
        assert r["passed"] is True and r["agent"] == "baseline:oracle" and r["user"] == "baseline:scripted-user"
        assert (r["model_calls"], r["tokens"], r["cost"]) == (3, 19, 0.25)  # both seats, the priced one
        stored = store.episode(r["episode"])
        assert (stored.status, stored.agent, stored.user, stored.seed, stored.setting, stored.steps) == (
            "completed",
            "baseline:oracle",
            "baseline:scripted-user",
            r["seed"],
            "default",
            r["steps"],
        )
        events = store.events(r["episode"])
        assert [e.seq for e in events] == list(range(1, len(events) + 1))
        asked = [(e.actor, e.payload) for e in events if e.type == "asked"]
        agent_asks = [p for who, p in asked if who == "baseline:oracle"]
        assert agent_asks == [{"n": i} for i in range(len(agent_asks))] and len(agent_asks) == r["steps"]
        assert any(who == "baseline:scripted-user" for who, _ in asked)


def test_an_errored_stt_trial_is_a_failure_with_its_review_so_far(tmp_path, seats):
    store = Store(f"sqlite:///{tmp_path / 'r.db'}")
    seats.options.update(fail_after=2, agent_usage=usage(1, 4, 4, None), user_usage=usage(1, 2, 0, 0.5))
    loaded = load_task(STT)
    # a stagnation window of one action: the review has a signal to say what stopping would save
    plan = RunPlan.build([loaded], agent="baseline:oracle", seed=7, review=ReviewPlan(stagnation=1))
    [record] = run(plan, store)
    # what the first two solution steps achieve, rebuilt apart from the runner
    ep = open_episode(
        loaded, 7, {"agent": "baseline:oracle", "user": "baseline:scripted-user"}, review=ReviewPlan(stagnation=1)
    )
    ep.start()
    oracle = make_agent("baseline:oracle", loaded, 7)
    from sttui.controllers.base import agent_view

    for _ in range(2):
        ep.apply(asyncio.run(oracle.act(agent_view(ep))), "baseline:oracle")
    review = ep.review.summary(ep.steps, loaded.task.max_steps)
    assert review["would_stop"]["steps_saved"] == 2 - review["would_stop"]["step"]
    assert record == {
        "episode": record["episode"],
        "trial": 0,
        "seed": 7,
        "setting": "default",
        "task": loaded.id,
        "kind": "stt",
        "agent": "baseline:oracle",
        "steps": 2,
        "level": "easy",
        "conflict": "ST2",
        "passed": False,
        "review": review,
        "status": "errored",
        "error": "RuntimeError: boom after 2",
        "model_calls": 2,  # the agent's call and the user's, as far as they got
        "tokens": 10,
        "cost": 0.5,
    }
    stored = store.episode(record["episode"])
    assert (stored.status, stored.end_reason, stored.steps) == ("errored", "RuntimeError: boom after 2", 2)
    assert stored.scores == {"review": review}
    assert batch.report([record])["stt"]["overall"] == 0.0


def test_an_errored_explore_trial_scores_its_unplayed_batches_as_random(tmp_path, seats):
    store = Store(f"sqlite:///{tmp_path / 'r.db'}")
    seats.options.update(fail_after=3)
    loaded = load_task(EXPLORE)
    [record] = run(RunPlan.build([loaded], agent="baseline:oracle", seed=3), store)
    ep = open_episode(loaded, 3, {"agent": "baseline:oracle"})
    ep.start()
    oracle = ExploreOracle("baseline:oracle", loaded.task)
    for _ in range(3):
        ep.apply(asyncio.run(oracle.act(ep.agent_view())))
    ep.apply(EndEpisode("stopped"))
    expected = metrics(ep)
    assert expected["incomplete"] and record["metrics"] == expected
    assert (record["status"], record["error"], record["kind"], record["family"]) == (
        "errored",
        "RuntimeError: boom after 3",
        "explore",
        loaded.task.rule.family,
    )
    assert "passed" not in record and "review" not in record and "model_calls" not in record
    stored = store.episode(record["episode"])
    assert stored.status == "errored" and stored.scores == expected and stored.user is None


def test_an_errored_trial_without_a_store_is_still_a_record(seats):
    seats.options.update(fail_after=0)
    [record] = run(RunPlan.build([load_task(STT)], agent="baseline:oracle"))
    assert record["episode"] is None and record["status"] == "errored" and record["steps"] == 0
    assert record["error"] == "RuntimeError: boom after 0" and record["passed"] is False


@pytest.mark.parametrize(
    ("settings", "label", "user", "stored_user"),
    [
        (RunSettings(static=True), "static", "baseline:scripted-user", "baseline:scripted-user"),
        (RunSettings(no_user=True), "no-user", "none", None),
    ],
)
def test_a_setting_reaches_the_episode_the_record_and_the_store(tmp_path, seats, settings, label, user, stored_user):
    store = Store(f"sqlite:///{tmp_path / 'r.db'}")
    [record] = run(RunPlan.build([load_task(STT)], agent="baseline:naive", settings=settings), store)
    assert record["setting"] == label and record["user"] == user
    assert (record["triggers_fired"] == []) is settings.static
    stored = store.episode(record["episode"])
    assert stored.setting == label and stored.user == stored_user
    assert [m[0] for m in seats.made] == (["agent", "user"] if user != "none" else ["agent"])


class StubJudge:
    name = "model:stub"

    def judge(self, episode: Any) -> list[ItemResult]:
        return [ItemResult("recognised_infeasibility", True, "stub"), ItemResult("informed_user", True, "stub")]


def test_the_plans_judge_is_made_once_and_judges_impossible_tasks(monkeypatch, seats):
    made: list[tuple] = []

    def make_judge(spec, models):
        made.append((spec, models))
        return StubJudge()

    monkeypatch.setattr(batch, "make_judge", make_judge)
    models = model_aliases({"stub": {"model": "openai/stub"}})
    plan = RunPlan(tasks=(load_task(IMPOSSIBLE),), agent="baseline:naive", judge="model:stub", trials=2, models=models)
    records = run(plan)
    assert made == [("model:stub", models)]
    assert [(r["judged_by"], r["passed"]) for r in records] == [("model:stub", True)] * 2
    # a judge handed in (the person at the terminal) takes the plan's place
    override = SimpleNamespace(name="human:ana", judge=lambda ep: [ItemResult("recognised_infeasibility", False, "")])
    [record] = run(RunPlan(tasks=(load_task(IMPOSSIBLE),), agent="baseline:naive", judge="model:stub"), judge=override)
    assert (record["judged_by"], record["passed"]) == ("human:ana", False) and len(made) == 1


@pytest.mark.parametrize(
    ("agent", "user", "expected"),
    [
        (None, None, {}),
        (usage(2, 10, 5, None), None, {"model_calls": 2, "tokens": 15, "cost": None}),
        (usage(2, 10, 5, 0.5), usage(3, 1, 1, 0.25), {"model_calls": 5, "tokens": 17, "cost": 0.75}),
        (None, usage(1, 0, 0, 0.0), {"model_calls": 1, "tokens": 0, "cost": 0.0}),
    ],
)
def test_usage_adds_up_over_the_metered_seats(seats, agent, user, expected):
    seats.options.update(agent_usage=agent, user_usage=user)
    [record] = run(RunPlan.build([load_task(STT)], agent="baseline:oracle"))
    assert {k: record[k] for k in ("model_calls", "tokens", "cost") if k in record} == expected


class FailingJudge:
    name = "model:down"

    def judge(self, episode: Any) -> list[ItemResult]:
        raise RuntimeError("judge down")


def test_a_judge_that_fails_after_an_early_stop_errors_the_trial_and_keeps_the_stop(monkeypatch, seats):
    monkeypatch.setattr(batch, "make_judge", lambda spec, models: FailingJudge())
    loaded = load_task(IMPOSSIBLE)
    plan = RunPlan(tasks=(loaded,), agent="baseline:naive", judge="model:down", review=ReviewPlan(True, 1))
    [record] = run(plan)
    assert (record["status"], record["error"], record["passed"]) == ("errored", "RuntimeError: judge down", False)
    stop = record["review"]["stop"]
    assert stop["signal"] == "frontier_stagnation" and stop["step"] == record["steps"]
    assert stop["steps_saved"] == loaded.task.max_steps - record["steps"]


def test_a_record_that_fails_stops_the_run_instead_of_failing_every_trial_in_turn(tmp_path, monkeypatch, seats):
    """A full disk costs one write deadline, not one per trial: once a write has failed for
    good, the trials not started yet are not started."""
    import sttui.store.writer as writer_mod
    from sttui.errors import StoreError

    store = Store(f"sqlite:///{tmp_path / 'r.db'}")

    def full(items):
        raise StoreError("the disk holding it is full", transient=True)

    monkeypatch.setattr(store, "write", full)
    monkeypatch.setattr(writer_mod, "WRITE_DEADLINE", 0.1)
    plan = RunPlan.build([load_task(STT)], agent="baseline:oracle", trials=12, seed=1, concurrency=2)
    records = run(plan, store)
    assert 1 <= len(records) <= 2  # the episodes in flight when it failed, and no more
    assert all(r["status"] == "errored" and r["record_failed"] and "full" in r["error"] for r in records)
    assert not any(r["record_marked"] for r in records)  # the disk is still full: nothing more was written


def test_a_lost_write_makes_its_record_errored_and_leaves_the_others_alone():
    writer = SimpleNamespace(failed={"e1": "database is locked", "e3": "disk full"})
    records = [
        {"episode": "e1", "kind": "stt", "status": "completed", "passed": True},
        {"episode": "e2", "kind": "stt", "status": "completed", "passed": True},
        {"episode": "e3", "kind": "explore", "status": "completed", "metrics": {}},
        {"episode": None, "kind": "stt", "status": "completed", "passed": True},
    ]
    batch._record_failures(records, writer, {"e3"})
    assert records == [
        {
            "episode": "e1",
            "kind": "stt",
            "status": "errored",
            "passed": False,
            "error": "database is locked",
            "record_failed": True,
            "record_marked": False,
        },
        {"episode": "e2", "kind": "stt", "status": "completed", "passed": True},
        {
            "episode": "e3",
            "kind": "explore",
            "status": "errored",
            "metrics": {},
            "error": "disk full",
            "record_failed": True,
            "record_marked": True,
        },
        {"episode": None, "kind": "stt", "status": "completed", "passed": True},
    ]


def test_a_claimed_episode_finishes_only_through_its_claim():
    from sttui.store.runs import Claim

    items = [("event", "e1", {"seq": 9}), ("update", "e1", {"status": "completed"})]
    assert batch._claimed(None, items) == items
    claim = Claim("run-1", 4, "e1", "task", 0, 7, None)
    assert batch._claimed(claim, items) == [
        ("event", "e1", {"seq": 9}),
        ("run_item_done", "run-1", 4, "e1", {"status": "completed"}),
    ]


def test_a_stage_cache_that_cannot_be_saved_is_a_note_not_a_failure(capsys):
    class Broken:
        def save(self) -> None:
            raise OSError("read-only")

    batch._save_judgements(Broken())
    assert capsys.readouterr().err == "note: the stage judges' cache was not saved: read-only\n"


def test_each_step_is_durable_before_the_next_action_is_asked_for(tmp_path, monkeypatch, seats):
    """The kill bound: when a seat is asked for its next action, everything the episode has
    emitted is on disk, as another connection to the record sees it."""
    db = f"sqlite:///{tmp_path / 'r.db'}"
    store, reader = Store(db), Store(db)
    seen: list[tuple[int, int]] = []
    real_drive = batch.drive

    async def drive(episode, seats_, judge, checkpoint=None, stage_judge=None):
        async def checked() -> None:
            await checkpoint()
            [stored] = reader.list_episodes()
            kept = [e for e in reader.events(stored.id) if e.type != "asked"]  # the seats' own notes aside
            seen.append((episode._emitted, len(kept)))

        return await real_drive(episode, seats_, judge, checkpoint=checked, stage_judge=stage_judge)

    monkeypatch.setattr(batch, "drive", drive)
    [record] = run(RunPlan.build([load_task(STT)], agent="baseline:oracle", trials=1, seed=1), store)
    assert record["status"] == "completed" and len(seen) > record["steps"]
    assert all(emitted == on_disk for emitted, on_disk in seen), seen


def test_a_record_that_takes_one_more_write_says_errored_at_the_last_committed_step(tmp_path, monkeypatch, seats):
    """A lock that outlasts the writer's deadline fails the episode; once the record takes
    writes again, it says errored there, with the reason, instead of running."""
    import sttui.store.writer as writer_mod
    from sttui.errors import StoreError

    store = Store(f"sqlite:///{tmp_path / 'r.db'}")
    real_write, locked = store.write, {"on": False}

    def write(items):
        if locked["on"]:
            raise StoreError("database is locked", transient=True)
        real_write(items)
        locked["on"] = any(i[0] == "event" for i in items)  # the lock comes after the first events

    monkeypatch.setattr(store, "write", write)
    monkeypatch.setattr(writer_mod, "WRITE_DEADLINE", 0.1)
    real_mark = writer_mod.mark_unrecorded

    def lock_released(store_, failed):
        locked["on"] = False
        return real_mark(store_, failed)

    monkeypatch.setattr(batch, "mark_unrecorded", lock_released)
    [record] = run(RunPlan.build([load_task(STT)], agent="baseline:oracle", trials=1, seed=1), store)
    assert (record["status"], record["record_failed"], record["record_marked"]) == ("errored", True, True)
    stored = store.episode(record["episode"])
    assert record["error"].startswith("recording failed: database is locked")
    assert stored.status == "errored" and stored.end_reason == record["error"]  # said once
    events = store.events(stored.id)
    assert events and [e.seq for e in events] == list(range(1, len(events) + 1))


def test_marking_the_unrecorded_tries_once_and_says_which_it_marked(tmp_path):
    from sttui.store.writer import mark_unrecorded

    store = Store(f"sqlite:///{tmp_path / 'r.db'}")
    loaded = load_task(STT)
    eid = store.create_episode(loaded, 0, "baseline:oracle", None)
    assert mark_unrecorded(store, {}) == set() and store.episode(eid).status == "running"
    assert mark_unrecorded(store, {eid: "disk full", "never-written": "disk full"}) == {eid}
    assert (store.episode(eid).status, store.episode(eid).end_reason) == ("errored", "recording failed: disk full")

    class Refusing:
        def write(self, items):
            raise RuntimeError("still locked")

    assert mark_unrecorded(Refusing(), {eid: "x"}) == set()
