"""The agent of the long-episode benchmarks: a fixed cycle of calls on the logistics task
(queries, an empty vehicle moved back and forth, a status message to the user), which never
meets the goal, so an episode runs to its step limit with a state that stays the same size."""

from __future__ import annotations

from typing import Any

from sttui.core.actions import Action, Say, ToolCall

CYCLE: list[Action] = [
    ToolCall("get_vehicle_status", {"vehicle_id": "TRK-9"}),
    ToolCall("list_vehicles", {"location": "HUB-NORTH"}),
    ToolCall("get_route", {"origin": "HUB-NORTH", "destination": "CLINIC-DOWNTOWN"}),
    ToolCall("reposition_vehicle", {"vehicle_id": "TRK-3", "destination": "DEPOT-EAST"}),
    ToolCall("get_inventory", {"site_id": "HUB-NORTH"}),
    ToolCall("reposition_vehicle", {"vehicle_id": "TRK-3", "destination": "HUB-NORTH"}),
    ToolCall("get_site_info", {"site_id": "CLINIC-DOWNTOWN"}),
    Say("Still checking the fleet; nothing to report yet."),
]


class CyclicAgent:
    name = "baseline:cyclic"

    def __init__(self) -> None:
        self.n = 0

    async def act(self, view: Any) -> Action:
        action = CYCLE[self.n % len(CYCLE)]
        self.n += 1
        return action
