"""Cold-chain logistics: vehicles, depots, clinics, shipments and temperature limits."""

from __future__ import annotations

from datetime import datetime, timedelta

from sttui.core.env import Environment, Result, check, tool


class LogisticsEnv(Environment):
    """State sections: places, travel, vehicles, sites, inventory, shipments."""

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
        found = [{"vehicle_id": vid, **v} for vid, v in self.state["vehicles"].items()
                 if location is None or v["location"] == location]
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
        return self.ok(site_id=site_id, **site)

    @tool("query", minutes=2)
    def get_inventory(self, site_id: str) -> Result:
        """Stock held at a site, by goods.

        Args:
            site_id: The site's place id, e.g. HUB-NORTH.
        """
        if site_id not in self.state["sites"]:
            return self.fail(f"no site {site_id}")
        return self.ok(site_id=site_id, stock=self.state["inventory"].get(site_id, {}))

    @tool("query", minutes=2)
    def get_route(self, origin: str, destination: str) -> Result:
        """Fastest open road route between two places, with its travel time in minutes.

        Args:
            origin: Place id where the trip starts.
            destination: Place id where the trip ends.
        """
        for place in (origin, destination):
            if place not in self.state["places"]:
                return self.fail(f"no place {place}")
        path = self.route(origin, destination)
        if path is None:
            return self.fail(f"no open route from {origin} to {destination}")
        return self.ok(origin=origin, destination=destination, path=path,
                       minutes=self.travel_minutes(origin, destination))

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

    # -- operations ------------------------------------------------------------
    @tool("operation", minutes=5)
    def create_shipment(self, goods: str, quantity: int, origin: str, destination: str,
                        deadline: str | None = None) -> Result:
        """Book a shipment of goods from a site's stock to a destination.

        Args:
            goods: Goods name as listed in inventory, e.g. insulin.
            quantity: Units to ship.
            origin: Site id holding the stock.
            destination: Site id receiving it.
            deadline: Latest delivery time, ISO format, e.g. 2024-08-15T10:00:00.
        """
        for site in (origin, destination):
            if site not in self.state["sites"]:
                return self.fail(f"no site {site}")
        if quantity <= 0:
            return self.fail("quantity must be positive")
        have = self.state["inventory"].get(origin, {}).get(goods, 0)
        if have < quantity:
            return self.fail(f"{origin} holds only {have} {goods}")
        self.state["inventory"][origin][goods] = have - quantity
        sid = f"SHP-{len(self.state['shipments']) + 1}"
        cold = goods in self.state.get("cold_chain_goods", [])
        self.state["shipments"][sid] = {
            "goods": goods, "quantity": quantity, "origin": origin, "destination": destination,
            "deadline": deadline, "status": "booked", "vehicle": None, "cold_chain": cold,
            "delivered_at": None, "max_temp_c": 8 if cold else None, "temp_ok": None,
        }
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
        return self.ok(shipment_id=shipment_id, vehicle_id=vehicle_id, status="assigned",
                       refrigerated=vehicle["refrigerated"])

    @tool("operation", minutes=5)
    def dispatch(self, shipment_id: str) -> Result:
        """Send an assigned shipment on its way; it arrives after the route's travel time.

        Args:
            shipment_id: The assigned shipment to send.
        """
        shipment = self.state["shipments"].get(shipment_id)
        if shipment is None:
            return self.fail(f"no shipment {shipment_id}")
        if shipment["status"] != "assigned":
            return self.fail(f"{shipment_id} is {shipment['status']}; assign a vehicle first")
        vehicle = self.state["vehicles"][shipment["vehicle"]]
        minutes = self.travel_minutes(shipment["origin"], shipment["destination"])
        if minutes is None:
            return self.fail(f"no open route from {shipment['origin']} to {shipment['destination']}")
        arrival = self.now + timedelta(minutes=minutes)
        site = self.state["sites"][shipment["destination"]]
        if site.get("status", "open") != "open":
            return self.fail(f"{shipment['destination']} is {site['status']} and cannot receive")
        opens, closes = site.get("receiving", ["00:00", "23:59"])
        hhmm = arrival.strftime("%H:%M")
        if not opens <= hhmm <= closes:
            return self.fail(f"arrival at {hhmm} is outside {shipment['destination']} receiving hours "
                             f"{opens}-{closes}")
        temp_ok = not shipment["cold_chain"] or (vehicle["refrigerated"] and vehicle["refrigeration"] == "ok")
        shipment.update(status="delivered", delivered_at=arrival.isoformat(timespec="minutes"), temp_ok=temp_ok)
        vehicle["location"] = shipment["destination"]
        stock = self.state["inventory"].setdefault(shipment["destination"], {})
        stock[shipment["goods"]] = stock.get(shipment["goods"], 0) + shipment["quantity"]
        return self.ok(shipment_id=shipment_id, status="delivered", delivered_at=shipment["delivered_at"],
                       temperature_ok=temp_ok)

    @tool("operation", minutes=5)
    def cancel_shipment(self, shipment_id: str) -> Result:
        """Cancel a shipment that has not left; its stock returns to the origin.

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
        return self.ok(shipment_id=shipment_id, status="cancelled")

    # -- checks ----------------------------------------------------------------
    @check
    def no_temperature_violation(self) -> tuple[bool, str]:
        """Every delivered cold-chain shipment travelled with working refrigeration."""
        bad = [sid for sid, s in self.state["shipments"].items()
               if s["status"] == "delivered" and s["cold_chain"] and not s["temp_ok"]]
        return (not bad, f"violations: {', '.join(bad)}" if bad else "all cold-chain deliveries within limits")

    @check
    def delivered_by(self, destination: str, goods: str, quantity: int, deadline: str) -> tuple[bool, str]:
        """At least ``quantity`` of ``goods`` delivered to ``destination`` by ``deadline``."""
        limit = datetime.fromisoformat(deadline)
        total = sum(s["quantity"] for s in self.state["shipments"].values()
                    if s["status"] == "delivered" and s["destination"] == destination and s["goods"] == goods
                    and datetime.fromisoformat(s["delivered_at"]) <= limit)
        return total >= quantity, f"{total} of {quantity} {goods} delivered to {destination} by {deadline}"
