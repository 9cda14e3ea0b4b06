"""The venues domain's rules that its tasks' conflicts rest on: each one is what makes a naive
plan fail there, so each is pinned here on a bundled task's own state."""

from __future__ import annotations

import copy

import pytest

from sttui.core.loader import load_task
from tests.conftest import ROOT

VENUES = ROOT / "tasks" / "stt" / "venues"


def env_of(name: str, changes: dict | None = None):
    """The task's environment on a copy of its initial state, at the clock's start; ``changes``
    set dotted paths first (a trigger's effect, by hand)."""
    loaded = load_task(VENUES / f"{name}.yaml")
    state = copy.deepcopy(loaded.task.initial_state)
    for path, value in (changes or {}).items():
        *head, last = path.split(".")
        node = state
        for key in head:
            node = node[int(key)] if isinstance(node, list) else node[key]
        if isinstance(node, list):
            node[int(last)] = value
        else:
            node[last] = value
    return loaded.env_cls(state, loaded.task.clock.start)


def test_a_change_to_a_confirmed_event_sends_it_back_to_draft():
    env = env_of("hybrid-tech-pulled-st1-easy")
    assert env.confirm_event(event_id="EV-BOARD")["success"]
    assert env.event_ready(event_id="EV-BOARD")[0]
    assert env.assign_staff(event_id="EV-BOARD", staff_id="AV-5")["success"]
    assert env.state["events"]["EV-BOARD"]["status"] == "draft"
    assert not env.event_ready(event_id="EV-BOARD")[0]


def test_a_heavy_truck_avoids_weight_limits_and_may_arrive_too_late():
    env = env_of("gala-expo-overrun-t3-hard")
    assert env.assign_room(event_id="EV-GALA", room_id="R-CORN-HALL")["success"]
    issues = env.get_event(event_id="EV-GALA")["issues"]
    late = "CAT-SALT can be on site at 18:10 (food leaves 17:00, 70 min drive); needed by 18:00"
    assert late in issues, issues
    assert env.get_route(origin="SALT-DEPOT", destination="CORN", weight_t=7.5)["minutes"] == 70
    assert env.get_route(origin="SALT-DEPOT", destination="CORN")["minutes"] == 20


def test_a_heavy_truck_with_no_open_route_cannot_cater():
    env = env_of("flood-briefing-priority-t2-hard")
    assert env.assign_room(event_id="EV-LAUNCH", room_id="R-FOUNDRY-HALL")["success"]
    issues = env.get_event(event_id="EV-LAUNCH")["issues"]
    assert "CAT-SALT's 7.5 t vehicle has no open route from SALT-DEPOT to FOUNDRY" in issues, issues
    assert env.get_route(origin="SALT-DEPOT", destination="FOUNDRY", weight_t=7.5)["success"] is False


def test_a_closed_leg_sends_traffic_the_long_way():
    env = env_of("kitchen-fire-lane-st2-hard", {"travel.1.closed": True})
    assert env.get_route(origin="HEARTH-KITCHEN", destination="MILL", weight_t=7.5)["minutes"] == 55
    env = env_of("kitchen-fire-lane-st2-hard")
    assert env.get_route(origin="HEARTH-KITCHEN", destination="MILL", weight_t=7.5)["minutes"] == 20


def test_the_noise_curfew_refuses_a_late_end():
    env = env_of("gala-expo-overrun-t3-hard")
    moved = env.reschedule_event(event_id="EV-GALA", start="2025-09-20T20:00", end="2025-09-20T23:30")
    assert moved["success"] is False and "23:00 noise curfew" in moved["error"]


def test_an_event_cannot_be_moved_into_the_past():
    env = env_of("bsl-interpreter-court-st1-impossible")
    moved = env.reschedule_event(event_id="EV-DEAF-FORUM", start="2025-02-19T10:00", end="2025-02-19T12:00")
    assert moved["success"] is False and "before now" in moved["error"]


def test_fire_capacity_is_a_hard_limit():
    env = env_of("museum-fire-panel-st2-medium", {"rooms.R-MUS-GALLERY.capacity": 110})
    refused = env.confirm_event(event_id="EV-OCEAN-LECTURE")
    assert refused["success"] is False and "certified for 110 people" in refused["error"]


@pytest.mark.parametrize(
    ("origin", "pickup", "why"),
    [
        ("NORTH-AIRPORT", "2025-11-20T14:50", "is at SOUTH-AIRPORT, not NORTH-AIRPORT"),
        ("SOUTH-AIRPORT", "2025-11-20T14:30", "ready at SOUTH-AIRPORT only from 14:50"),
        ("SOUTH-AIRPORT", "2025-11-20T14:50", "the speaker is needed by 15:15"),
    ],
)
def test_a_transfer_must_meet_the_speaker_where_and_when_they_are(origin, pickup, why):
    env = env_of(
        "fog-diversion-meet-st3-medium",
        {"speakers.SP-NAKAMURA.location": "SOUTH-AIRPORT", "speakers.SP-NAKAMURA.ready_at": "2025-11-20T14:50"},
    )
    booked = env.book_transfer(
        speaker_id="SP-NAKAMURA", event_id="EV-CLOSING-KEYNOTE", vehicle_id="CAR-2", origin=origin, pickup_time=pickup
    )
    assert booked["success"] is False and why in booked["error"]


def test_a_staff_member_cannot_work_two_overlapping_events():
    env = env_of("flood-briefing-priority-t2-hard")
    env.state["events"]["EV-BRIEFING"] = {
        **env.state["events"]["EV-LAUNCH"],
        "room": None,
        "staff": {},
        "catering": False,
        "speaker_needed": False,
    }
    refused = env.assign_staff(event_id="EV-BRIEFING", staff_id="AV-7")
    assert refused["success"] is False and "AV-7 is working EV-LAUNCH" in refused["error"]


def test_lasts_catches_a_move_that_cuts_an_event_short():
    env = env_of("park-ride-handover-st3-hard")
    assert env.lasts(event_id="EV-TALK-REYES", minutes=60)[0]
    assert env.reschedule_event(event_id="EV-TALK-REYES", start="2025-08-09T10:15", end="2025-08-09T11:00")["success"]
    passed, why = env.lasts(event_id="EV-TALK-REYES", minutes=60)
    assert not passed and "runs 45 minutes" in why
