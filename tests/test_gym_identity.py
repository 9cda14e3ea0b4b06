"""Issue 27's throughput work keeps every run exactly as it was: a bench-style scripted run
(``bench/bridges.py``: every bundled stt task's oracle and naive actions through ``GymEnv``)
gives the same observations, rewards and record (every event, state hashes included) with the
speed-ups on as with each of them off."""

from __future__ import annotations

import json
import sys
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


def _clinic_module() -> Any:
    clinic = next(t for t in _TASKS if t.task.domain == "clinic")
    assert clinic.env_cls is not None
    return sys.modules[clinic.env_cls.__module__]


def test_the_run_has_state_hashes_to_compare():
    lines = _run([t for t in _TASKS if t.task.domain == "clinic"])
    assert sum('"state_hash"' in line for line in lines) > 100


def test_clinic_slots_read_once_per_query_change_nothing(monkeypatch):
    """find_slots reads the blocking appointments, each site's closures at a time and the rooms
    and equipment for a site once for all its candidate slots, and the clinic parses each
    timestamp once: off (read afresh each time), every run is the same."""
    fast = _run()
    module = _clinic_module()
    allocate = module.ClinicEnv._allocate_quiet
    monkeypatch.setattr(module.ClinicEnv, "_read_once", lambda self: (None, None))
    monkeypatch.setattr(
        module.ClinicEnv, "_allocate_quiet", lambda self, trial, wp, pools=None: allocate(self, trial, wp)
    )
    monkeypatch.setattr(module, "_dt", module.datetime.fromisoformat)
    assert _run() == fast


@pytest.mark.parametrize("bad", [{"start": "not a time"}, {"clinician": None}, {"end": None}])
def test_clinic_slots_over_an_unreadable_appointment_fail_as_they_always_did(bad, monkeypatch):
    """An appointment that cannot be read: find_slots raises the same error as when every
    candidate slot reads it afresh (the agent sees that error)."""
    module = _clinic_module()
    loaded = next(t for t in _TASKS if t.id == "clinic-kings-bridge-closure-s3-hard")
    state = json.loads(json.dumps(loaded.task.initial_state))
    apt = next(iter(state["appointments"].values()))
    for k, v in bad.items():
        if v is None:
            apt.pop(k, None)
        else:
            apt[k] = v

    def slots() -> list[str]:
        env = module.ClinicEnv(json.loads(json.dumps(state)), loaded.task.clock.start, 0)
        out = []
        for service in state["services"]:
            for date in sorted({s for c in state["clinicians"].values() for s in c.get("shifts", {})}):
                try:
                    out.append(json.dumps(env.find_slots(service, date)))
                except Exception as exc:
                    out.append(f"{type(exc).__name__}: {exc}")
        return out

    fast = slots()
    assert any(": " in line and not line.startswith("{") for line in fast)  # it does fail somewhere
    monkeypatch.setattr(module.ClinicEnv, "_read_once", lambda self: (None, None))
    assert slots() == fast


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


def _slot_battery(module: Any, state: dict[str, Any], now: Any) -> list[str]:
    """find_slots for every service on every shift date, for anyone and for each patient, at
    every site and for each one, on a copy of ``state`` at clock ``now``."""
    env = module.ClinicEnv(json.loads(json.dumps(state)), now, 0)
    dates = sorted({d for c in state["clinicians"].values() for d in c.get("shifts", {})})
    out = []
    for service in state["services"]:
        for date in dates:
            for patient in (None, *state.get("patients", {})):
                for site in (None, *state["sites"]):
                    try:
                        got: Any = env.find_slots(service, date, site_id=site, patient_id=patient, limit=50)
                    except Exception as exc:
                        got = f"{type(exc).__name__}: {exc}"
                    out.append(json.dumps(got, default=str))
    return out


def test_clinic_slots_read_once_give_every_answer_read_afresh_gives(monkeypatch):
    """Beyond what the plans ask: every clinic task's state at the start and where its oracle
    and naive plans leave it, asked for slots of every service, date, patient and site (closed
    sites and hours included), answers the same with what find_slots reads once read afresh."""
    from sttui.bridges.episodes import Stepper

    module = _clinic_module()
    states = []
    for loaded in (t for t in _TASKS if t.task.domain == "clinic"):
        states.append((loaded.task.initial_state, loaded.task.clock.start))
        for plan in ("oracle", "naive"):
            s = Stepper(loaded, loaded.task.seed)
            s.reset()
            for a in _PLANS[(loaded.id, plan)]:
                if s.done:
                    break
                s.step(a)
            assert s.episode is not None
            states.append((s.episode.env.state, s.episode.env.now))
    fast = [_slot_battery(module, state, now) for state, now in states]
    assert sum('"start"' in line for lines in fast for line in lines) > 100  # slots found
    allocate = module.ClinicEnv._allocate_quiet
    monkeypatch.setattr(module.ClinicEnv, "_read_once", lambda self: (None, None))
    monkeypatch.setattr(
        module.ClinicEnv, "_allocate_quiet", lambda self, trial, wp, pools=None: allocate(self, trial, wp)
    )
    monkeypatch.setattr(module, "_dt", module.datetime.fromisoformat)
    assert [_slot_battery(module, state, now) for state, now in states] == fast


@pytest.mark.parametrize(
    "bad",
    [
        {"outages": [{"from": "not a time", "to": "2024-09-12T10:00"}]},
        {"outages": [{"from": "2024-09-12T09:00+01:00", "to": "2024-09-12T10:00+01:00"}]},
        {"outages": "soon"},
        {"transfers": [{"at": "2024-09-12T10:00"}]},
        {"transfers": [{"at": 5, "to": "X"}, {"at": "2024-09-12T10:00", "to": "X"}]},
    ],
)
def test_clinic_slots_with_unreadable_equipment_fail_as_they_always_did(bad, monkeypatch):
    """Equipment whose outages or transfers cannot be read (each item in turn, on every clinic
    task that has equipment): a slot refused because the clinician is busy is not tried with the
    other rooms and equipment only when their checks cannot fail to read; so find_slots answers,
    or raises, as when every room and equipment is tried."""
    module = _clinic_module()
    cases = []
    for loaded in (t for t in _TASKS if t.task.domain == "clinic" and t.task.initial_state.get("equipment")):
        for eq_id in loaded.task.initial_state["equipment"]:
            state = json.loads(json.dumps(loaded.task.initial_state))
            state["equipment"][eq_id].update(json.loads(json.dumps(bad)))
            cases.append((state, loaded.task.clock.start))
    assert cases
    fast = [_slot_battery(module, state, now) for state, now in cases]
    allocate = module.ClinicEnv._allocate_quiet
    monkeypatch.setattr(module.ClinicEnv, "_read_once", lambda self: (None, None))
    monkeypatch.setattr(
        module.ClinicEnv, "_allocate_quiet", lambda self, trial, wp, pools=None: allocate(self, trial, wp)
    )
    assert [_slot_battery(module, state, now) for state, now in cases] == fast
