"""Issue 27's throughput work keeps every run exactly as it was: a bench-style scripted run
(``bench/bridges.py``: every bundled stt task's oracle and naive actions through ``GymEnv``)
gives the same observations, rewards and record (every event, state hashes included) with the
speed-ups on as with each of them off."""

from __future__ import annotations

import json
from typing import Any
from unittest import mock

import pytest

pytest.importorskip("openenv")

from sttui.bridges.episodes import action_data, baseline_actions, select_tasks
from sttui.bridges.openenv_env import GymEnv, ServeConfig
from sttui.core.episode import Episode

_TASKS = select_tasks("stt")
_PLANS = {(t.id, plan): baseline_actions(t, plan, t.task.seed)[0] for t in _TASKS for plan in ("oracle", "naive")}


def _run(tasks: list[Any] = _TASKS, hashed: bool = True) -> list[str]:
    """One line of JSON per observation and per recorded event, over every task and plan.
    ``hashed``: every event with its state hash, as a recorded run has them (an unrecorded
    ``GymEnv`` episode's events carry none); False: as ``GymEnv`` runs by default."""
    if hashed:  # the engine's flag reads True whatever the bridge sets
        with mock.patch.object(Episode, "hashes", property(lambda self: True, lambda self, value: None), create=True):
            return _run(tasks, hashed=False)
    env = GymEnv(ServeConfig(tasks))
    out: list[str] = []
    for loaded in tasks:
        for plan in ("oracle", "naive"):
            obs, _ = env.reset(options={"task": loaded.id})
            out.append(json.dumps(obs, default=repr))
            session = env.env.session
            assert session is not None
            for a in _PLANS[(loaded.id, plan)]:
                obs, reward, done, _, _ = env.step(action_data(a))
                out.append(json.dumps([obs, reward, done], default=repr))
                if done:
                    break
            episode = session.stepper.episode
            assert episode is not None and episode.ended is not None, (loaded.id, plan)
            out += [json.dumps([e.seq, e.type, e.actor, e.payload, e.sim_time], default=repr) for e in episode.events]
    return out


def test_the_run_has_state_hashes_to_compare():
    lines = _run([t for t in _TASKS if t.task.domain == "clinic"])
    assert sum('"state_hash"' in line for line in lines) > 100


def test_an_unrecorded_episode_is_the_same_without_its_state_hashes():
    """``GymEnv`` with no recorder hashes no state: every observation, reward and event is
    what it is with every hash worked out, less the ``state_hash`` of each event."""
    plain = _run(hashed=False)
    hashed = _run(hashed=True)
    assert not any('"state_hash"' in line for line in plain)

    def without_hash(line: str) -> str:
        data = json.loads(line)
        if len(data) == 5 and isinstance(data[3], dict):  # an event: [seq, type, actor, payload, time]
            data[3].pop("state_hash", None)
        return json.dumps(data)

    assert sum('"state_hash"' in line for line in hashed) > 500
    assert [without_hash(line) for line in hashed] == [without_hash(line) for line in plain]


def test_a_recorded_bridge_episode_hashes_every_event(tmp_path):
    """With a recorder (``record=``), every event carries its state hash, as ``sttui run``
    records it, and the last one is the episode's hash now."""
    from sttui.bridges.episodes import Stepper

    loaded = next(t for t in _TASKS if t.task.domain == "clinic")
    heard: list[Any] = []
    stepper = Stepper(loaded, loaded.task.seed, on_event=heard.append)
    stepper.reset()
    for a in _PLANS[(loaded.id, "oracle")]:
        if stepper.done:
            break
        stepper.step(a)
    episode = stepper.episode
    assert isinstance(episode, Episode) and episode.hashes
    hashed = [e for e in heard if e.type in ("episode_started", "tool_result", "trigger_fired", "episode_ended")]
    assert hashed and all("state_hash" in e.payload for e in hashed)
    assert hashed[-1].payload["state_hash"] == episode.state_hash()


def test_a_served_task_is_found_by_its_id_as_a_scan_finds_it():
    """The served tasks' ids are read once (every reset looks one up); the first task with the
    id wins, as the scan's first match did, and a list changed in place is read again."""
    from sttui.bridges.episodes import BridgeError

    tasks = _TASKS[:5]
    config = ServeConfig([tasks[0], tasks[1], tasks[0], tasks[2]])
    assert config.task(None) is tasks[0]
    assert [config.task(t.id) for t in tasks[:3]] == [tasks[0], tasks[1], tasks[2]]
    config.tasks[1] = tasks[3]
    assert config.task(tasks[3].id) is tasks[3]
    with pytest.raises(BridgeError, match=f"no task '{tasks[1].id}' is served here"):
        config.task(tasks[1].id)
    config.tasks.append(tasks[4])
    assert config.task(tasks[4].id) is tasks[4]


def test_reviews_sharing_their_graphs_plan_change_nothing(monkeypatch):
    """Every review of a task shares what its graph and minefields give before any action (the
    paths to keep, the rules' reads, the first frontier); made afresh for each review, every
    run is the same. Two reviews of one task stay apart as they settle."""
    from sttui.core.review import tracker
    from sttui.core.review.derive import review_for

    loaded = next(t for t in _TASKS if t.task.milestones and t.task.minefields)
    first, second = review_for(loaded), review_for(loaded)
    assert first is not None and second is not None
    assert first._reads is second._reads and first._ready is second._ready
    fresh = tracker._Plan(first.graph, first.minefields)
    assert (first._paths, first._reads, first._read_prefixes, first._ready, first._blocked) == (
        fresh.paths,
        fresh.reads,
        fresh.read_prefixes,
        fresh.ready,
        fresh.blocked,
    )
    assert (first._mines_before, first._mines_after) == (fresh.mines_before, fresh.mines_after)
    shared = _run()
    assert first._plan.frontiers  # the frontiers reached were kept for the task's next reviews
    for done, (ready, blocked) in first._plan.frontiers.items():
        assert (ready, blocked) == (first.graph.ready(set(done)), first.graph.blocked(set(done)))
    monkeypatch.setattr(tracker, "_plan_of", tracker._Plan)
    monkeypatch.setattr(
        tracker._Plan, "frontier", lambda self, done: (self.graph.ready(done), self.graph.blocked(done))
    )
    assert _run() == shared


def test_a_review_plan_is_made_again_when_the_minefields_change():
    from sttui.core.review import tracker

    loaded = next(t for t in _TASKS if t.task.milestones and t.task.minefields)
    review = tracker.Review(tracker.Graph.build(loaded.task.milestones), list(loaded.task.minefields))
    mines = review.minefields
    before = tracker._plan_of(review.graph, mines)
    assert tracker._plan_of(review.graph, mines) is before
    mines.pop()
    after = tracker._plan_of(review.graph, mines)
    assert after is not before and len(after.mines_before) + len(after.mines_after) == len(mines)


def test_an_unrecorded_explore_episode_is_the_same_without_its_state_hashes():
    """The explore engine too: stepped with no recorder, its probe results, batch feedback and
    assessments carry no state hash, and everything else is as a recorded run has it."""
    from sttui.bridges.episodes import Stepper

    loaded = select_tasks("explore")[0]
    actions, _ = baseline_actions(loaded, "oracle", loaded.task.seed)

    def play(recorded: bool) -> tuple[list[Any], list[Any]]:
        heard: list[Any] = []
        stepper = Stepper(loaded, loaded.task.seed, on_event=heard.append if recorded else None)
        stepper.reset()
        views = [stepper.explore_view()]
        for a in actions:
            if stepper.done:
                break
            stepper.step(a)
            views.append(json.dumps(stepper.explore_view(), default=repr))
        assert stepper.episode is not None and stepper.episode.hashes is recorded
        events = [[e.seq, e.type, e.actor, dict(e.payload)] for e in stepper.episode.events]
        return [*views, stepper.verdict()], events

    plain, plain_events = play(False)
    hashed, hashed_events = play(True)
    assert sum("state_hash" in e[3] for e in hashed_events) > 5
    assert not any("state_hash" in e[3] for e in plain_events)
    for e in hashed_events:
        e[3].pop("state_hash", None)
    assert (plain, plain_events) == (hashed, hashed_events)
