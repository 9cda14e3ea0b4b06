"""Cold-chain logistics: vehicles, depots, clinics, shipments and temperature limits.

Time model. Tool calls advance the simulated clock by a few minutes each. A dispatch is
committed at once: the vehicle leaves at the latest of *now*, the moment it is free
(``available_at``) and the moment the goods are released at the origin (``holds`` or stock
still in transit there), and the delivery time is computed from the vehicle's route.
Vehicles and stock then stay busy or in transit until those times, which later bookings see.

Optional state sections and fields (all absent in the simplest tasks):

- ``travel[i].max_weight_t``: vehicles heavier than this (``gross_weight_t``) cannot use the leg;
  ``travel[i].name`` / ``note`` describe it.
- ``vehicles.X.available_at``: ISO time from which the vehicle is free where it stands.
- ``vehicles.X.return_by``: ``{place, time, reason}``: after any trip the vehicle must still be
  able to reach ``place`` by ``time`` (a driver's shift end, a reassignment elsewhere).
- ``sites.X.cold_storage`` / ``max_dwell_minutes``: how long cold goods may wait there during a
  handoff; ``capacity_units``: most units the site can hold.
- ``holds``: ``{site: {goods: ISO}}`` stock at a site that is not released before that time.
- ``shippers``: ``{site: {available, units_per_shipper, hold_minutes}}`` validated passive
  shippers that keep cold goods within limits for ``hold_minutes`` after packing.
- ``orders``: ``{order_id: {site, goods, quantity, deadline, priority, status}}``.
"""

from __future__ import annotations

import itertools
import math
from datetime import datetime, timedelta
from typing import Any

from sttui.core.env import Environment, Result, check, shortest_route, tool

PRIORITY_RANK = {"critical": 0, "urgent": 1, "high": 2, "routine": 3}
TRANSFER_MINUTES = 10


def _ts(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value) if value else None


def _iso(when: datetime) -> str:
    return when.isoformat(timespec="minutes")


class LogisticsEnv(Environment):
    """State sections: places, travel, vehicles, sites, inventory, shipments (see module doc)."""

    # Results may share dicts with the state: the engine copies every result (docs §2).

    # -- helpers -----------------------------------------------------------------
    def _leg_open(self, leg: dict[str, Any], vehicle: dict[str, Any] | None) -> bool:
        if leg.get("closed"):
            return False
        if vehicle is not None and leg.get("max_weight_t") is not None:
            return float(vehicle.get("gross_weight_t", 0)) <= float(leg["max_weight_t"])
        return True

    def _vroute(self, vehicle: dict[str, Any] | None, origin: str, dest: str) -> tuple[float, list[str]] | None:
        """Shortest open route for this vehicle (weight limits respected), or None."""
        if origin == dest:
            return 0.0, [origin]
        return shortest_route(self.state.get("travel", []), origin, dest, lambda leg: self._leg_open(leg, vehicle))

    def _legs_on(self, path: list[str]) -> list[dict[str, Any]]:
        """The open legs along a path (the fastest one between each pair of places)."""
        out = []
        for a, b in itertools.pairwise(path):
            legs = [
                leg
                for leg in self.state.get("travel", [])
                if not leg.get("closed")
                and (
                    (leg["from"] == a and leg["to"] == b)
                    or (not leg.get("oneway") and leg["from"] == b and leg["to"] == a)
                )
            ]
            if legs:
                out.append(min(legs, key=lambda leg: leg["minutes"]))
        return out

    def _restrictions(self, path: list[str]) -> list[dict[str, Any]]:
        found = []
        for leg in self._legs_on(path):
            if leg.get("max_weight_t") is not None or leg.get("note"):
                item = {"from": leg["from"], "to": leg["to"]}
                for key in ("name", "max_weight_t", "note"):
                    if leg.get(key) is not None:
                        item[key] = leg[key]
                found.append(item)
        return found

    def _closures(self) -> list[dict[str, Any]]:
        """Closed legs of the network, with their names and notes."""
        out = []
        for leg in self.state.get("travel", []):
            if leg.get("closed"):
                item = {"from": leg["from"], "to": leg["to"]}
                for key in ("name", "note"):
                    if leg.get(key):
                        item[key] = leg[key]
                out.append(item)
        return out

    def _no_route(self, who: str, origin: str, dest: str) -> str:
        text = f"no open route{' for ' + who if who else ''} from {origin} to {dest}"
        vehicle = self.state["vehicles"].get(who) if who else None
        if vehicle is not None:
            open_path = self._vroute(None, origin, dest)
            if open_path is not None:
                weight = float(vehicle.get("gross_weight_t", 0))
                limits = [
                    f"{r.get('name') or r['from'] + '-' + r['to']} max {r['max_weight_t']} t"
                    for r in self._restrictions(open_path[1])
                    if r.get("max_weight_t") is not None and weight > float(r["max_weight_t"])
                ]
                if limits:
                    return text + f" ({who} weighs {weight:g} t; weight limits: {'; '.join(limits)})"
        closed = [
            f"{c.get('name') or c['from'] + '-' + c['to']}" + (f" ({c['note']})" if c.get("note") else "")
            for c in self._closures()
        ]
        return text + (f"; closed: {'; '.join(closed)}" if closed else "")

    def _free_at(self, vehicle: dict[str, Any]) -> datetime:
        at = _ts(vehicle.get("available_at"))
        return max(self.now, at) if at else self.now

    def _ready_at(self, site: str, goods: str) -> datetime:
        """When stock of ``goods`` at ``site`` can leave: release holds and stock in transit there."""
        ready = self.now
        hold = _ts(self.state.get("holds", {}).get(site, {}).get(goods))
        if hold and hold > ready:
            ready = hold
        for s in self.state["shipments"].values():
            if s["status"] == "delivered" and s["destination"] == site and s["goods"] == goods:
                at = _ts(s["delivered_at"])
                if at and at > ready:
                    ready = at
        return ready

    def _return_problem(self, vid: str, vehicle: dict[str, Any], end: str, arrival: datetime) -> str | None:
        """Why a trip ending at ``end`` at ``arrival`` breaks the vehicle's return_by limit."""
        limit = vehicle.get("return_by")
        if not limit:
            return None
        back = self._vroute(vehicle, end, limit["place"])
        deadline = _ts(limit["time"])
        reason = f" ({limit['reason']})" if limit.get("reason") else ""
        if back is None:
            return f"{vid} could not get from {end} to {limit['place']} afterwards{reason}"
        at = arrival + timedelta(minutes=back[0])
        if at > deadline:
            return (
                f"{vid} must be at {limit['place']} by {_iso(deadline)[11:]}{reason}; after this trip "
                f"it would get there at {_iso(at)[11:]}"
            )
        return None

    def _receiving_problem(self, site_id: str, arrival: datetime) -> str | None:
        site = self.state["sites"][site_id]
        opens, closes = site.get("receiving", ["00:00", "23:59"])
        hhmm = arrival.strftime("%H:%M")
        if not opens <= hhmm <= closes:
            return f"arrival at {hhmm} is outside {site_id} receiving hours {opens}-{closes}"
        return None

    def _site_closed(self, site_id: str) -> str | None:
        site = self.state["sites"][site_id]
        if site.get("status", "open") != "open":
            return f"{site_id} is {site['status']}"
        return None

    def _plan(self, shipment: dict[str, Any]) -> tuple[dict[str, Any] | None, str | None]:
        """Work out a dispatch without changing state: (plan, None) or (None, reason)."""
        vid = shipment["vehicle"]
        vehicle = self.state["vehicles"][vid]
        origin, dest = shipment["origin"], shipment["destination"]
        if vehicle["status"] != "available":
            return None, f"{vid} is {vehicle['status']}"
        if vehicle["location"] != origin:
            return None, f"{vid} is at {vehicle['location']}, not at {origin}"
        closed = self._site_closed(origin)
        if closed:
            return None, f"cannot load: {closed}"
        depart = max(self._free_at(vehicle), self._ready_at(origin, shipment["goods"]))
        handoff = shipment.get("handoff")
        first_stop = handoff["site"] if handoff else dest
        route1 = self._vroute(vehicle, origin, first_stop)
        if route1 is None:
            return None, self._no_route(vid, origin, first_stop)
        arrive1 = depart + timedelta(minutes=route1[0])
        problem = self._return_problem(vid, vehicle, first_stop, arrive1)
        if problem:
            return None, problem
        plan: dict[str, Any] = {
            "departs": depart,
            "legs": [{"vehicle": vid, "path": route1[1], "departs": depart, "arrives": arrive1}],
        }
        cold = shipment["cold_chain"]
        passive = shipment.get("packaging")
        carriers = [vehicle]
        arrival = arrive1
        if handoff:
            hsite_id, vid2 = handoff["site"], handoff["vehicle"]
            hsite = self.state["sites"][hsite_id]
            closed = self._site_closed(hsite_id)
            if closed:
                return None, f"handoff site {closed}"
            window = self._receiving_problem(hsite_id, arrive1)
            if window:
                return None, f"handoff at {hsite_id}: {window}"
            vehicle2 = self.state["vehicles"][vid2]
            if vehicle2["status"] != "available":
                return None, f"handoff vehicle {vid2} is {vehicle2['status']}"
            if vehicle2["location"] != hsite_id:
                return None, f"handoff vehicle {vid2} is at {vehicle2['location']}, not at {hsite_id}"
            if shipment["quantity"] > vehicle2["capacity_units"]:
                return None, f"handoff vehicle {vid2} carries at most {vehicle2['capacity_units']} units"
            depart2 = max(arrive1 + timedelta(minutes=TRANSFER_MINUTES), self._free_at(vehicle2))
            dwell = (depart2 - arrive1).total_seconds() / 60
            limit = hsite.get("max_dwell_minutes")
            if cold and not passive and not hsite.get("cold_storage") and limit is not None and dwell > limit:
                return None, (
                    f"handoff at {hsite_id} falls through: {vid2} can take over only at "
                    f"{_iso(depart2)[11:]}, so the goods would wait {dwell:.0f} min on a dock without "
                    f"cold storage (limit {limit} min)"
                )
            route2 = self._vroute(vehicle2, hsite_id, dest)
            if route2 is None:
                return None, self._no_route(vid2, hsite_id, dest)
            arrival = depart2 + timedelta(minutes=route2[0])
            problem = self._return_problem(vid2, vehicle2, dest, arrival)
            if problem:
                return None, problem
            plan["legs"].append({"vehicle": vid2, "path": route2[1], "departs": depart2, "arrives": arrival})
            plan["dwell_minutes"] = dwell
            carriers.append(vehicle2)
        closed = self._site_closed(dest)
        if closed:
            return None, f"{closed} and cannot receive"
        window = self._receiving_problem(dest, arrival)
        if window:
            return None, window
        site = self.state["sites"][dest]
        if site.get("capacity_units") is not None:
            held = sum(self.state["inventory"].get(dest, {}).values())
            if held + shipment["quantity"] > site["capacity_units"]:
                return None, (
                    f"{dest} is full: it holds {held} of {site['capacity_units']} units and cannot "
                    f"take {shipment['quantity']} more"
                )
        temp_ok = True
        if cold:
            if passive:
                temp_ok = arrival <= _ts(passive["hold_until"])
            else:
                temp_ok = all(v["refrigerated"] and v["refrigeration"] == "ok" for v in carriers)
        plan.update(arrives=arrival, temp_ok=temp_ok)
        return plan, None

    @staticmethod
    def _show(plan: dict[str, Any]) -> dict[str, Any]:
        legs = [
            {
                "vehicle": leg["vehicle"],
                "path": leg["path"],
                "departs": _iso(leg["departs"]),
                "arrives": _iso(leg["arrives"]),
            }
            for leg in plan["legs"]
        ]
        out = {
            "departs": _iso(plan["departs"]),
            "arrives": _iso(plan["arrives"]),
            "legs": legs,
            "temperature_ok": plan["temp_ok"],
        }
        if "dwell_minutes" in plan:
            out["handoff_wait_minutes"] = round(plan["dwell_minutes"])
        return out

    # -- queries ---------------------------------------------------------------
    @tool("query", minutes=2)
    def get_vehicle_status(self, vehicle_id: str) -> Result:
        """Current status of one vehicle: location, availability, refrigeration, capacity.

        Args:
            vehicle_id: The vehicle's id, e.g. TRK-7.
        """
        vehicle = self.state["vehicles"].get(vehicle_id)
        if vehicle is None:
            return self.fail(f"no vehicle {vehicle_id}")
        return self.ok(vehicle_id=vehicle_id, **vehicle)

    @tool("query", minutes=2)
    def list_vehicles(self, location: str | None = None) -> Result:
        """Vehicles in the fleet, optionally only those at one place.

        Args:
            location: A place id such as HUB-NORTH; omit for the whole fleet.
        """
        found = [
            {"vehicle_id": vid, **v}
            for vid, v in self.state["vehicles"].items()
            if location is None or v["location"] == location
        ]
        return self.ok(vehicles=found)

    @tool("query", minutes=2)
    def get_site_info(self, site_id: str) -> Result:
        """Opening state and receiving hours of a depot, hub or clinic.

        Args:
            site_id: The site's place id, e.g. CLINIC-DOWNTOWN.
        """
        site = self.state["sites"].get(site_id)
        if site is None:
            return self.fail(f"no site {site_id}")
        extra: dict[str, Any] = {}
        if site.get("capacity_units") is not None:
            extra["units_held"] = sum(self.state["inventory"].get(site_id, {}).values())
        return self.ok(site_id=site_id, **site, **extra)

    @tool("query", minutes=2)
    def get_inventory(self, site_id: str) -> Result:
        """Stock held at a site, by goods, with release holds, stock still in transit there and
        passive shippers on hand.

        Args:
            site_id: The site's place id, e.g. HUB-NORTH.
        """
        if site_id not in self.state["sites"]:
            return self.fail(f"no site {site_id}")
        extra: dict[str, Any] = {}
        holds = self.state.get("holds", {}).get(site_id)
        if holds:
            extra["released_from"] = holds
        incoming = [
            {"shipment_id": sid, "goods": s["goods"], "quantity": s["quantity"], "arrives": s["delivered_at"]}
            for sid, s in self.state["shipments"].items()
            if s["status"] == "delivered" and s["destination"] == site_id and _ts(s["delivered_at"]) > self.now
        ]
        if incoming:
            extra["in_transit_to_site"] = incoming
        if site_id in self.state.get("shippers", {}):
            extra["passive_shippers"] = self.state["shippers"][site_id]
        return self.ok(site_id=site_id, stock=self.state["inventory"].get(site_id, {}), **extra)

    @tool("query", minutes=2)
    def get_route(self, origin: str, destination: str, vehicle_id: str | None = None) -> Result:
        """Fastest open road route between two places, with its travel time in minutes. Give a
        vehicle to get the route that vehicle may legally take (weight limits).

        Args:
            origin: Place id where the trip starts.
            destination: Place id where the trip ends.
            vehicle_id: Optional vehicle id, e.g. TRK-7, to respect its weight.
        """
        for place in (origin, destination):
            if place not in self.state["places"]:
                return self.fail(f"no place {place}")
        if vehicle_id is not None:
            vehicle = self.state["vehicles"].get(vehicle_id)
            if vehicle is None:
                return self.fail(f"no vehicle {vehicle_id}")
            found = self._vroute(vehicle, origin, destination)
            if found is None:
                return self.fail(self._no_route(vehicle_id, origin, destination))
            extra: dict[str, Any] = {}
            fastest = self._vroute(None, origin, destination)
            if fastest is not None and fastest[0] < found[0]:
                weight = float(vehicle.get("gross_weight_t", 0))
                extra["avoids"] = [
                    r
                    for r in self._restrictions(fastest[1])
                    if r.get("max_weight_t") is not None and weight > float(r["max_weight_t"])
                ]
            return self.ok(
                origin=origin,
                destination=destination,
                vehicle_id=vehicle_id,
                path=found[1],
                minutes=found[0],
                restrictions=self._restrictions(found[1]),
                **extra,
            )
        path = self.route(origin, destination)
        if path is None:
            return self.fail(self._no_route("", origin, destination))
        extra: dict[str, Any] = {}
        restrictions = self._restrictions(path)
        if restrictions:
            extra["restrictions"] = restrictions
        return self.ok(
            origin=origin, destination=destination, path=path, minutes=self.travel_minutes(origin, destination), **extra
        )

    @tool("query", minutes=2)
    def get_shipment(self, shipment_id: str) -> Result:
        """Status of one shipment.

        Args:
            shipment_id: The shipment's id, e.g. SHP-1.
        """
        shipment = self.state["shipments"].get(shipment_id)
        if shipment is None:
            return self.fail(f"no shipment {shipment_id}")
        return self.ok(shipment_id=shipment_id, **shipment)

    @tool("query", minutes=2)
    def list_orders(self, status: str | None = None) -> Result:
        """Delivery orders in the queue, most urgent first (priority, then deadline).

        Args:
            status: Only orders with this status, e.g. open; omit for all.
        """
        orders = [
            {"order_id": oid, **o}
            for oid, o in self.state.get("orders", {}).items()
            if status is None or o.get("status") == status
        ]
        orders.sort(key=lambda o: (PRIORITY_RANK.get(o.get("priority", "routine"), 9), o.get("deadline") or ""))
        return self.ok(orders=orders)

    # -- operations ------------------------------------------------------------
    @tool("operation", minutes=5)
    def create_shipment(
        self,
        goods: str,
        quantity: int,
        origin: str,
        destination: str,
        deadline: str | None = None,
        order_id: str | None = None,
    ) -> Result:
        """Book a shipment of goods from a site's stock to a destination.

        Args:
            goods: Goods name as listed in inventory, e.g. insulin.
            quantity: Units to ship.
            origin: Site id holding the stock.
            destination: Site id receiving it.
            deadline: Latest delivery time, ISO format, e.g. 2024-08-15T10:00:00.
            order_id: Optional order this shipment serves, e.g. ORD-4101.
        """
        for site in (origin, destination):
            if site not in self.state["sites"]:
                return self.fail(f"no site {site}")
        if quantity <= 0:
            return self.fail("quantity must be positive")
        if order_id is not None:
            order = self.state.get("orders", {}).get(order_id)
            if order is None:
                return self.fail(f"no order {order_id}")
            if order["site"] != destination or order["goods"] != goods:
                return self.fail(f"{order_id} is for {order['goods']} to {order['site']}")
        have = self.state["inventory"].get(origin, {}).get(goods, 0)
        if have < quantity:
            return self.fail(f"{origin} holds only {have} {goods}")
        self.state["inventory"][origin][goods] = have - quantity
        sid = f"SHP-{len(self.state['shipments']) + 1}"
        cold = goods in self.state.get("cold_chain_goods", [])
        self.state["shipments"][sid] = {
            "goods": goods,
            "quantity": quantity,
            "origin": origin,
            "destination": destination,
            "deadline": deadline,
            "status": "booked",
            "vehicle": None,
            "cold_chain": cold,
            "delivered_at": None,
            "max_temp_c": 8 if cold else None,
            "temp_ok": None,
        }
        if order_id is not None:
            self.state["shipments"][sid]["order_id"] = order_id
        return self.ok(shipment_id=sid, status="booked", cold_chain=cold)

    @tool("operation", minutes=5)
    def assign_vehicle(self, shipment_id: str, vehicle_id: str) -> Result:
        """Put a booked shipment on a vehicle that is available at the shipment's origin.

        Args:
            shipment_id: The shipment to load.
            vehicle_id: The vehicle to carry it.
        """
        shipment = self.state["shipments"].get(shipment_id)
        vehicle = self.state["vehicles"].get(vehicle_id)
        if shipment is None:
            return self.fail(f"no shipment {shipment_id}")
        if vehicle is None:
            return self.fail(f"no vehicle {vehicle_id}")
        if shipment["status"] not in ("booked", "assigned"):
            return self.fail(f"{shipment_id} is {shipment['status']} and cannot be reassigned")
        if vehicle["status"] != "available":
            return self.fail(f"{vehicle_id} is {vehicle['status']}")
        if vehicle["location"] != shipment["origin"]:
            return self.fail(f"{vehicle_id} is at {vehicle['location']}, not at {shipment['origin']}")
        if shipment["quantity"] > vehicle["capacity_units"]:
            return self.fail(f"{vehicle_id} carries at most {vehicle['capacity_units']} units")
        shipment["vehicle"] = vehicle_id
        shipment["status"] = "assigned"
        return self.ok(
            shipment_id=shipment_id, vehicle_id=vehicle_id, status="assigned", refrigerated=vehicle["refrigerated"]
        )

    @tool("operation", minutes=3)
    def plan_handoff(self, shipment_id: str, site_id: str, vehicle_id: str) -> Result:
        """Plan a cross-dock handoff for an assigned shipment: its vehicle carries it to the
        handoff site, where a second vehicle takes over for the rest of the trip. Returns the
        expected timings; the handoff happens when the shipment is dispatched.

        Args:
            shipment_id: The assigned shipment.
            site_id: Depot or cross-dock where the goods change vehicle.
            vehicle_id: The vehicle that takes over there.
        """
        shipment = self.state["shipments"].get(shipment_id)
        if shipment is None:
            return self.fail(f"no shipment {shipment_id}")
        if shipment["status"] != "assigned":
            return self.fail(f"{shipment_id} is {shipment['status']}; assign its first vehicle before a handoff")
        if site_id not in self.state["sites"]:
            return self.fail(f"no site {site_id}")
        if site_id in (shipment["origin"], shipment["destination"]):
            return self.fail("the handoff site must lie between origin and destination")
        if vehicle_id not in self.state["vehicles"]:
            return self.fail(f"no vehicle {vehicle_id}")
        if vehicle_id == shipment["vehicle"]:
            return self.fail(f"{vehicle_id} already carries {shipment_id}")
        shipment["handoff"] = {"site": site_id, "vehicle": vehicle_id, "status": "planned"}
        plan, problem = self._plan(shipment)
        if problem:
            return self.ok(shipment_id=shipment_id, handoff=shipment["handoff"], warning=problem)
        return self.ok(shipment_id=shipment_id, handoff=shipment["handoff"], estimate=self._show(plan))

    @tool("operation", minutes=2)
    def cancel_handoff(self, shipment_id: str) -> Result:
        """Drop a planned handoff, so the shipment's own vehicle drives all the way.

        Args:
            shipment_id: The shipment whose handoff to drop.
        """
        shipment = self.state["shipments"].get(shipment_id)
        if shipment is None:
            return self.fail(f"no shipment {shipment_id}")
        if not shipment.get("handoff") or shipment["handoff"]["status"] != "planned":
            return self.fail(f"{shipment_id} has no planned handoff")
        del shipment["handoff"]
        return self.ok(shipment_id=shipment_id, handoff=None)

    @tool("operation", minutes=5)
    def pack_passive(self, shipment_id: str) -> Result:
        """Pack a booked cold-chain shipment into validated passive shippers from its origin's
        stock, so it stays within limits for the shippers' hold time even on an unrefrigerated
        vehicle.

        Args:
            shipment_id: The shipment to pack.
        """
        shipment = self.state["shipments"].get(shipment_id)
        if shipment is None:
            return self.fail(f"no shipment {shipment_id}")
        if shipment["status"] not in ("booked", "assigned"):
            return self.fail(f"{shipment_id} is {shipment['status']}")
        if not shipment["cold_chain"]:
            return self.fail(f"{shipment['goods']} is not cold-chain goods")
        if shipment.get("packaging"):
            return self.fail(f"{shipment_id} is already packed")
        stock = self.state.get("shippers", {}).get(shipment["origin"])
        if not stock:
            return self.fail(f"{shipment['origin']} has no passive shippers")
        needed = math.ceil(shipment["quantity"] / stock["units_per_shipper"])
        if stock["available"] < needed:
            return self.fail(f"{shipment_id} needs {needed} shippers; {shipment['origin']} has {stock['available']}")
        stock["available"] -= needed
        hold_until = self.now + timedelta(minutes=stock["hold_minutes"])
        shipment["packaging"] = {
            "type": "passive shipper",
            "shippers": needed,
            "packed_at": self.iso(),
            "hold_until": _iso(hold_until),
        }
        return self.ok(shipment_id=shipment_id, **shipment["packaging"])

    @tool("operation", minutes=5)
    def dispatch(self, shipment_id: str) -> Result:
        """Send an assigned shipment on its way. The vehicle leaves as soon as it is free and the
        goods are released; the shipment arrives after the route's travel time.

        Args:
            shipment_id: The assigned shipment to send.
        """
        shipment = self.state["shipments"].get(shipment_id)
        if shipment is None:
            return self.fail(f"no shipment {shipment_id}")
        if shipment["status"] != "assigned":
            return self.fail(f"{shipment_id} is {shipment['status']}; assign a vehicle first")
        plan, problem = self._plan(shipment)
        if problem:
            return self.fail(problem)
        assert plan is not None
        arrival = _iso(plan["arrives"])
        shipment.update(
            status="delivered", departed_at=_iso(plan["departs"]), delivered_at=arrival, temp_ok=plan["temp_ok"]
        )
        for leg in plan["legs"]:
            vehicle = self.state["vehicles"][leg["vehicle"]]
            vehicle["location"] = leg["path"][-1]
            vehicle["available_at"] = _iso(leg["arrives"])
        if shipment.get("handoff"):
            shipment["handoff"]["status"] = "completed"
        stock = self.state["inventory"].setdefault(shipment["destination"], {})
        stock[shipment["goods"]] = stock.get(shipment["goods"], 0) + shipment["quantity"]
        order = self.state.get("orders", {}).get(shipment.get("order_id") or "")
        if order is not None:
            order["delivered_units"] = order.get("delivered_units", 0) + shipment["quantity"]
            late = order.get("deadline") and plan["arrives"] > datetime.fromisoformat(order["deadline"])
            if not plan["temp_ok"]:
                order["status"] = "delivered with temperature excursion"
            elif late:
                order["status"] = "delivered late"
            elif order["delivered_units"] >= order["quantity"] and order.get("status") != "delivered late":
                order["status"] = "fulfilled"
            else:
                order["status"] = "partly delivered"
        return self.ok(
            shipment_id=shipment_id,
            status="delivered",
            delivered_at=arrival,
            temperature_ok=plan["temp_ok"],
            **{k: v for k, v in self._show(plan).items() if k not in ("arrives", "temperature_ok")},
        )

    @tool("operation", minutes=5)
    def cancel_shipment(self, shipment_id: str) -> Result:
        """Cancel a shipment that has not left; its stock (and any shippers) return to the origin.

        Args:
            shipment_id: The shipment to cancel.
        """
        shipment = self.state["shipments"].get(shipment_id)
        if shipment is None:
            return self.fail(f"no shipment {shipment_id}")
        if shipment["status"] not in ("booked", "assigned"):
            return self.fail(f"{shipment_id} is {shipment['status']} and cannot be cancelled")
        shipment["status"] = "cancelled"
        stock = self.state["inventory"].setdefault(shipment["origin"], {})
        stock[shipment["goods"]] = stock.get(shipment["goods"], 0) + shipment["quantity"]
        if shipment.get("packaging"):
            self.state["shippers"][shipment["origin"]]["available"] += shipment["packaging"]["shippers"]
        return self.ok(shipment_id=shipment_id, status="cancelled")

    @tool("operation", minutes=5)
    def reposition_vehicle(self, vehicle_id: str, destination: str) -> Result:
        """Drive an empty vehicle to another place, leaving as soon as it is free.

        Args:
            vehicle_id: The vehicle to move.
            destination: Place id to drive to.
        """
        vehicle = self.state["vehicles"].get(vehicle_id)
        if vehicle is None:
            return self.fail(f"no vehicle {vehicle_id}")
        if destination not in self.state["places"]:
            return self.fail(f"no place {destination}")
        if vehicle["status"] != "available":
            return self.fail(f"{vehicle_id} is {vehicle['status']}")
        if vehicle["location"] == destination:
            return self.fail(f"{vehicle_id} is already at {destination}")
        loaded = [
            sid
            for sid, s in self.state["shipments"].items()
            if s["status"] == "assigned" and s["vehicle"] == vehicle_id
        ]
        if loaded:
            return self.fail(f"{vehicle_id} is loaded with {', '.join(loaded)}; dispatch or cancel first")
        found = self._vroute(vehicle, vehicle["location"], destination)
        if found is None:
            return self.fail(self._no_route(vehicle_id, vehicle["location"], destination))
        depart = self._free_at(vehicle)
        arrive = depart + timedelta(minutes=found[0])
        problem = self._return_problem(vehicle_id, vehicle, destination, arrive)
        if problem:
            return self.fail(problem)
        origin = vehicle["location"]
        vehicle["location"] = destination
        vehicle["available_at"] = _iso(arrive)
        return self.ok(
            vehicle_id=vehicle_id,
            origin=origin,
            destination=destination,
            path=found[1],
            departs=_iso(depart),
            available_there_at=_iso(arrive),
        )

    @tool("operation", minutes=0)
    def wait_until(self, time: str) -> Result:
        """Hold: do nothing until a given time today (at most 12 hours ahead).

        Args:
            time: ISO time to wait for, e.g. 2024-08-15T09:00:00.
        """
        try:
            until = datetime.fromisoformat(time)
        except ValueError:
            return self.fail(f"not an ISO time: {time}")
        if until <= self.now:
            return self.fail(f"it is already {self.iso()}")
        if until - self.now > timedelta(hours=12):
            return self.fail("you can wait at most 12 hours")
        self.advance((until - self.now).total_seconds() / 60)
        return self.ok(now=self.iso())

    # -- checks ----------------------------------------------------------------
    @check
    def no_temperature_violation(self) -> tuple[bool, str]:
        """Every delivered cold-chain shipment travelled with working refrigeration."""
        bad = [
            sid
            for sid, s in self.state["shipments"].items()
            if s["status"] == "delivered" and s["cold_chain"] and not s["temp_ok"]
        ]
        return (not bad, f"violations: {', '.join(bad)}" if bad else "all cold-chain deliveries within limits")

    @check
    def delivered_by(self, destination: str, goods: str, quantity: int, deadline: str) -> tuple[bool, str]:
        """At least ``quantity`` of ``goods`` delivered to ``destination`` by ``deadline``."""
        limit = datetime.fromisoformat(deadline)
        total = sum(
            s["quantity"]
            for s in self.state["shipments"].values()
            if s["status"] == "delivered"
            and s["destination"] == destination
            and s["goods"] == goods
            and datetime.fromisoformat(s["delivered_at"]) <= limit
        )
        return total >= quantity, f"{total} of {quantity} {goods} delivered to {destination} by {deadline}"

    @check
    def delivered_exactly(self, destination: str, goods: str, quantity: int) -> tuple[bool, str]:
        """Exactly ``quantity`` of ``goods`` delivered to ``destination`` (no over-supply)."""
        total = sum(
            s["quantity"]
            for s in self.state["shipments"].values()
            if s["status"] == "delivered" and s["destination"] == destination and s["goods"] == goods
        )
        return total == quantity, f"{total} {goods} delivered to {destination}; wanted exactly {quantity}"

    @check
    def order_fulfilled(self, order_id: str) -> tuple[bool, str]:
        """The order's full quantity reached its site by its (current) deadline, within temperature
        limits. Shipments count when linked to the order, or unlinked with the same site and goods."""
        order = self.state.get("orders", {}).get(order_id)
        if order is None:
            return False, f"no order {order_id}"
        limit = datetime.fromisoformat(order["deadline"])
        total = 0
        for s in self.state["shipments"].values():
            linked = s.get("order_id")
            if s["status"] != "delivered" or (linked is not None and linked != order_id):
                continue
            if linked is None and (s["destination"] != order["site"] or s["goods"] != order["goods"]):
                continue
            if datetime.fromisoformat(s["delivered_at"]) <= limit and s["temp_ok"] is not False:
                total += s["quantity"]
        return (
            total >= order["quantity"],
            f"{total} of {order['quantity']} {order['goods']} for {order_id} at {order['site']} by {order['deadline']}",
        )

    @check
    def nothing_delivered_to(self, destination: str) -> tuple[bool, str]:
        """No delivered shipment ended at ``destination``."""
        hits = [
            sid
            for sid, s in self.state["shipments"].items()
            if s["status"] == "delivered" and s["destination"] == destination
        ]
        return not hits, f"delivered there: {', '.join(hits)}" if hits else f"nothing delivered to {destination}"
