"""The grid domain's environment rules that its tasks lean on, one by one: calling back a crew
or a generator, what a backfeed records, and the refusals a dispatch or a switching meets."""

from __future__ import annotations

import copy
from pathlib import Path

from sttui.core.loader import load_task

GRID = Path(__file__).resolve().parent.parent / "tasks" / "stt" / "grid"


def env_of(stem: str):
    """The task's environment on its initial state at its start time (no trigger fired)."""
    loaded = load_task(GRID / f"{stem}.yaml")
    task = loaded.task
    return loaded.env_cls(copy.deepcopy(task.initial_state), task.clock.start)


def test_a_recall_waits_for_the_crews_later_work_to_be_recalled_first():
    env = env_of("moorland-storm-early-t1-hard")
    assert env.dispatch_crew(crew_id="CR-90", outage_id="OUT-1401", site="GORSE")["work_order_id"] == "WO-1"
    assert env.dispatch_crew(crew_id="CR-90", outage_id="OUT-1403", site="BRACKEN")["work_order_id"] == "WO-2"
    refused = env.recall_crew(work_order_id="WO-1")
    assert refused == {"success": False, "error": "CR-90 has later work (WO-2); recall that first"}
    assert env.state["outages"]["OUT-1401"]["status"] == "scheduled"  # nothing changed
    assert env.recall_crew(work_order_id="WO-2")["success"]
    back = env.recall_crew(work_order_id="WO-1")
    assert back["success"] and env.state["crews"]["CR-90"]["location"] == "DEPOT-MOOR"
    assert env.state["outages"]["OUT-1401"]["status"] == "open" and env.state["feeders"]["F-601"]["status"] == "out"


def test_a_generator_on_the_road_can_be_called_back_and_replaced():
    env = env_of("tollgate-bridge-limit-s3-medium")
    sent = env.deploy_generator(generator_id="GEN-7", site_id="SITE-LARCH")
    assert sent["success"] and env.deploy_generator(generator_id="GEN-5", site_id="SITE-LARCH")["success"] is False
    back = env.recall_crew(work_order_id=sent["work_order_id"])
    assert back["success"] and back["generator_id"] == "GEN-7"
    assert env.state["generators"]["GEN-7"]["status"] == "available"
    assert env.state["generators"]["GEN-7"]["location"] == "DEPOT-TOLL"
    assert env.state["sites"]["SITE-LARCH"]["powered_from"] is None
    assert env.deploy_generator(generator_id="GEN-5", site_id="SITE-LARCH")["success"]


def test_a_backfed_outage_names_its_tie_until_the_switching_is_recalled():
    env = env_of("weir-backfeed-flooded-s2-easy")
    done = env.close_tie(tie_id="TIE-9", crew_id="CR-4")
    assert done["success"] and env.state["outages"]["OUT-401"]["tie"] == "TIE-9"
    assert env.state["outages"]["OUT-401"]["restored_at"] == done["restored_at"]
    assert env.recall_crew(work_order_id=done["work_order_id"])["success"]
    assert env.state["outages"]["OUT-401"]["tie"] is None and env.state["feeders"]["F-31"]["status"] == "out"
    assert env.state["ties"]["TIE-9"]["status"] == "open"


def test_a_tie_too_small_for_the_dead_feeder_is_refused():
    env = env_of("weir-backfeed-flooded-s2-easy")
    refused = env.close_tie(tie_id="TIE-8", crew_id="CR-4")
    assert refused == {"success": False, "error": "F-31 carries 2.2 MW; TIE-8 can carry at most 1.5 MW"}


def test_overhead_work_into_the_stand_down_is_refused():
    env = env_of("hawthorn-gale-early-t1-easy")
    env.state["weather"]["stand_down"]["from"] = "2025-11-18T11:30"
    refused = env.dispatch_crew(crew_id="CR-12", outage_id="OUT-610", site="HAWTHORN")
    assert refused["success"] is False and "overlap the storm stand-down 11:30-20:00" in refused["error"]
    assert env.dispatch_crew(crew_id="CR-14", outage_id="OUT-610", site="HAWTHORN")["restored_at"] == "2025-11-18T11:10"


def test_a_permit_inside_a_control_block_is_refused_and_one_after_it_covers_the_work():
    env = env_of("kingsmead-fault-under-railway-s1-hard")
    refused = env.request_permit(feeder_id="F-701", start="2026-01-14T09:30", end="2026-01-14T13:30")
    assert refused["success"] is False and "between 00:00 and 10:30" in refused["error"]
    granted = env.request_permit(feeder_id="F-701", start="2026-01-14T10:30", end="2026-01-14T14:30")
    assert granted == {
        "success": True,
        "permit_id": "PMT-1",
        "feeder": "F-701",
        "valid_from": "2026-01-14T10:30",
        "valid_until": "2026-01-14T14:30",
        "status": "active",
    }


def test_a_heavy_vehicle_gets_no_route_over_a_weight_limited_bridge():
    env = env_of("pennant-ford-flooded-s3-easy")
    env.state["travel"][0]["closed"] = True
    refused = env.dispatch_crew(crew_id="CR-8", outage_id="OUT-520", site="PENNANT")
    assert refused["success"] is False
    assert "CR-8 weighs 12 t, over the limit of: Cefn Bridge max 7.5 t" in refused["error"]
    assert "closed: Afon ford" in refused["error"]
