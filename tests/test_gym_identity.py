"""Issue 27's throughput work keeps every run exactly as it was: a bench-style scripted run
(``bench/bridges.py``: every bundled stt task's oracle and naive actions through ``GymEnv``)
gives the same observations, rewards and record (every event, state hashes included) with the
speed-ups on as with each of them off."""

from __future__ import annotations

import json
from typing import Any

import pytest

pytest.importorskip("openenv")

from sttui.bridges.episodes import action_data, baseline_actions, select_tasks
from sttui.bridges.openenv_env import GymEnv, ServeConfig

_TASKS = select_tasks("stt")
_PLANS = {(t.id, plan): baseline_actions(t, plan, t.task.seed)[0] for t in _TASKS for plan in ("oracle", "naive")}


def _run(tasks: list[Any] = _TASKS) -> list[str]:
    """One line of JSON per observation and per recorded event, over every task and plan."""
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
