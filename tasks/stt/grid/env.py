"""Power-grid field operations: outages, feeders, substations, switching permits, line crews,
storm stand-downs, tie switches, mobile generators and the roads between depots and sites.

Time model. Tool calls advance the simulated clock by a few minutes each. A dispatch or a
switching job is committed at once: the crew leaves at the later of *now* and the moment it is
free (``available_at``), drives the shortest open route its vehicle may use, and the work's
finish time is computed then. Crews stay busy until that time, which later dispatches see.

State sections (plain data, addressable by dotted path):

- ``places`` / ``travel``: depots, substations and districts; road legs ``{from, to, minutes}``,
  optionally ``closed``, ``max_weight_t`` (a bridge's weight limit), ``name`` and ``note``.
- ``substations``: ``{name, place, status: in_service|flooded|offline, note}``.
- ``feeders``: ``{name, substation, area (place), status: energised|out|scheduled|backfed,
  load_mw, customers, restored_at}``. ``scheduled``/``backfed`` carry the time power returns.
- ``outages``: ``{feeder, location (place of the fault as currently known), kind:
  overhead|underground|supply, skill, repair_minutes, needs_permit, priority, deadline,
  status: open|scheduled|backfed, restored_at, crew (repaired by), tie (backfed through), note}``. A ``supply`` outage is a lost
  source (the substation), restored by backfeeding through a tie, not by a repair.
- ``crews``: ``{name, location, status: available|off_shift|reassigned, skills, vehicle,
  vehicle_weight_t, available_at, shift_end, note}``.
- ``permits``: switching permits ``{feeder, valid_from, valid_until, status: active|revoked}``;
  a repair of an outage with ``needs_permit`` must lie wholly inside an active permit on its
  feeder. ``control``: ``{permit_max_minutes, blocks: [{feeder, from, until, reason}]}``.
- ``weather``: ``{forecast, stand_down: {from, until, reason} | null}``: no overhead work may
  overlap the stand-down.
- ``ties``: normally open tie switches ``{name, between: [feeder, feeder], place, capacity_mw,
  status: open|closed}``.
- ``sites``: critical customers ``{name, place, feeder, kind, needs_kva, powered_from}``.
- ``generators``: mobile generators ``{name, location, kva, weight_t, status, available_at}``.
- ``work_orders``: written by the tools (``WO-1``, ``WO-2``…).

Times are ISO timestamps to the minute (``2025-02-11T09:15``).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from sttui.core.env import Environment, Result, check, shortest_route, tool

SWITCHING_MINUTES = 10
HOOKUP_MINUTES = 15
RESTORED = ("scheduled", "backfed")


def _ts(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value) if value else None


def _iso(when: datetime) -> str:
    return when.isoformat(timespec="minutes")


def _hhmm(when: datetime) -> str:
    return when.strftime("%H:%M")


class GridEnv(Environment):
    """State sections: see the module docstring."""

    # -- helpers -----------------------------------------------------------------
    def _new_id(self, section: str, prefix: str) -> str:
        table = self.state.setdefault(section, {})
        n = 1
        while f"{prefix}-{n}" in table:
            n += 1
        return f"{prefix}-{n}"

    def _road(self, weight: float, origin: str, dest: str) -> tuple[float, list[str]] | None:
        """Shortest open route for a vehicle of ``weight`` tonnes (weight limits respected)."""
        if origin == dest:
            return 0.0, [origin]

        def usable(leg: dict[str, Any]) -> bool:
            return leg.get("max_weight_t") is None or weight <= float(leg["max_weight_t"])

        return shortest_route(self.state.get("travel", []), origin, dest, usable)

    def _no_road(self, who: str, weight: float, origin: str, dest: str) -> str:
        text = f"no open route for {who} from {origin} to {dest}"
        limits = [
            f"{leg.get('name') or leg['from'] + '-' + leg['to']} max {leg['max_weight_t']} t"
            for leg in self.state.get("travel", [])
            if not leg.get("closed") and leg.get("max_weight_t") is not None and weight > float(leg["max_weight_t"])
        ]
        closed = [
            f"{leg.get('name') or leg['from'] + '-' + leg['to']}" + (f" ({leg['note']})" if leg.get("note") else "")
            for leg in self.state.get("travel", [])
            if leg.get("closed")
        ]
        if limits:
            text += f"; {who} weighs {weight:g} t, over the limit of: {'; '.join(limits)}"
        if closed:
            text += f"; closed: {'; '.join(closed)}"
        return text

    def _crew_ready(self, crew_id: str, crew: dict[str, Any]) -> tuple[datetime | None, str | None]:
        if crew["status"] != "available":
            note = f" ({crew['note']})" if crew.get("note") else ""
            return None, f"{crew_id} is {crew['status']}{note}"
        at = _ts(crew.get("available_at"))
        return (max(self.now, at) if at else self.now), None

    def _trip(self, crew_id: str, crew: dict[str, Any], dest: str) -> tuple[dict[str, Any] | None, str | None]:
        depart, problem = self._crew_ready(crew_id, crew)
        if problem:
            return None, problem
        assert depart is not None
        weight = float(crew.get("vehicle_weight_t", 3.5))
        found = self._road(weight, crew["location"], dest)
        if found is None:
            return None, self._no_road(crew_id, weight, crew["location"], dest)
        arrive = depart + timedelta(minutes=found[0])
        return {"departs": depart, "arrives": arrive, "path": found[1]}, None

    def _storm_clash(self, start: datetime, end: datetime) -> str | None:
        stand = (self.state.get("weather") or {}).get("stand_down")
        if not stand:
            return None
        s0, s1 = _ts(stand["from"]), _ts(stand["until"])
        if s0 is not None and s1 is not None and start < s1 and s0 < end:
            why = f" ({stand['reason']})" if stand.get("reason") else ""
            return (
                f"overhead work from {_hhmm(start)} to {_hhmm(end)} would overlap the storm stand-down "
                f"{_hhmm(s0)}-{_hhmm(s1)}{why}"
            )
        return None

    def _permit_for(self, feeder_id: str, start: datetime, end: datetime) -> str | None:
        for pid, permit in self.state.get("permits", {}).items():
            if permit["feeder"] != feeder_id or permit["status"] != "active":
                continue
            p0, p1 = _ts(permit["valid_from"]), _ts(permit["valid_until"])
            if p0 is not None and p1 is not None and p0 <= start and end <= p1:
                return pid
        return None

    def _shift_problem(self, crew_id: str, crew: dict[str, Any], end: datetime) -> str | None:
        limit = _ts(crew.get("shift_end"))
        if limit is not None and end > limit:
            return f"{crew_id}'s shift ends at {_hhmm(limit)}; the work would finish at {_hhmm(end)}"
        return None

    def _feeder_power_at(self, feeder_id: str) -> datetime | bool | None:
        """False when the feeder stays dead; None when it is on now; else the time power returns."""
        feeder = self.state["feeders"].get(feeder_id)
        if feeder is None:
            return False
        if feeder["status"] == "energised":
            return None
        if feeder["status"] in RESTORED:
            return _ts(feeder.get("restored_at"))
        return False

    def _settle_feeder(self, feeder_id: str) -> None:
        """The feeder's status from its outages: out while any is open, else on at the latest
        restoration time."""
        feeder = self.state["feeders"][feeder_id]
        mine = [o for o in self.state["outages"].values() if o["feeder"] == feeder_id]
        if not mine:
            return
        if any(o["status"] == "open" for o in mine):
            feeder["status"] = "out"
            feeder["restored_at"] = None
            return
        times = [o["restored_at"] for o in mine if o.get("restored_at")]
        backfed = any(o["status"] == "backfed" for o in mine)
        feeder["status"] = "backfed" if backfed else "scheduled"
        feeder["restored_at"] = max(times) if times else None

    # -- queries ---------------------------------------------------------------
    @tool("query", minutes=2)
    def list_outages(self) -> Result:
        """Every outage on the board: feeder, fault location, kind, priority, status and deadline."""
        return self.ok(outages=[{"outage_id": oid, **o} for oid, o in self.state["outages"].items()], now=self.iso())

    @tool("query", minutes=2)
    def get_outage(self, outage_id: str) -> Result:
        """One outage: its feeder, where the fault is, what repairing it takes, and its status.

        Args:
            outage_id: The outage's id, e.g. OUT-311.
        """
        outage = self.state["outages"].get(outage_id)
        if outage is None:
            return self.fail(f"no outage {outage_id}")
        return self.ok(outage_id=outage_id, **outage)

    @tool("query", minutes=2)
    def get_feeder(self, feeder_id: str) -> Result:
        """One feeder: the substation that supplies it, the area it serves, load and status,
        and the tie switches that connect it to neighbouring feeders.

        Args:
            feeder_id: The feeder's id, e.g. F-12.
        """
        feeder = self.state["feeders"].get(feeder_id)
        if feeder is None:
            return self.fail(f"no feeder {feeder_id}")
        sub = self.state.get("substations", {}).get(feeder["substation"], {})
        ties = [{"tie_id": tid, **t} for tid, t in self.state.get("ties", {}).items() if feeder_id in t["between"]]
        return self.ok(feeder_id=feeder_id, **feeder, substation_status=sub.get("status"), ties=ties)

    @tool("query", minutes=2)
    def get_substation(self, substation_id: str) -> Result:
        """One substation: where it is, whether it is in service, and the feeders it supplies.

        Args:
            substation_id: The substation's id, e.g. SUB-ALDER.
        """
        sub = self.state.get("substations", {}).get(substation_id)
        if sub is None:
            return self.fail(f"no substation {substation_id}")
        feeders = [fid for fid, f in self.state["feeders"].items() if f["substation"] == substation_id]
        return self.ok(substation_id=substation_id, **sub, feeders=feeders)

    @tool("query", minutes=2)
    def list_crews(self, location: str | None = None) -> Result:
        """Field crews, optionally only those at one place: skills, vehicle, status and shift end.

        Args:
            location: A place id such as DEPOT-NORTH; omit for every crew.
        """
        found = [
            {"crew_id": cid, **c}
            for cid, c in self.state["crews"].items()
            if location is None or c["location"] == location
        ]
        return self.ok(crews=found, now=self.iso())

    @tool("query", minutes=2)
    def get_crew(self, crew_id: str) -> Result:
        """One crew: where it is, when it is free, its skills, vehicle weight and shift end.

        Args:
            crew_id: The crew's id, e.g. CR-4.
        """
        crew = self.state["crews"].get(crew_id)
        if crew is None:
            return self.fail(f"no crew {crew_id}")
        return self.ok(crew_id=crew_id, **crew)

    @tool("query", minutes=2)
    def list_permits(self, feeder_id: str | None = None) -> Result:
        """Switching permits issued by the control room, optionally for one feeder, with the
        control room's limits and blocked periods.

        Args:
            feeder_id: Only permits for this feeder; omit for all.
        """
        found = [
            {"permit_id": pid, **p}
            for pid, p in self.state.get("permits", {}).items()
            if feeder_id is None or p["feeder"] == feeder_id
        ]
        return self.ok(permits=found, control=self.state.get("control", {}))

    @tool("query", minutes=2)
    def get_weather(self) -> Result:
        """The storm desk's forecast and any stand-down during which no overhead work may run."""
        return self.ok(**(self.state.get("weather") or {"forecast": "no warnings", "stand_down": None}), now=self.iso())

    @tool("query", minutes=2)
    def get_route(self, origin: str, destination: str, crew_id: str | None = None) -> Result:
        """Drive time and roads between two places, for a given crew's vehicle when named
        (heavy vehicles cannot use weight-limited bridges). Lists closed roads.

        Args:
            origin: Place id to start from.
            destination: Place id to reach.
            crew_id: The crew whose vehicle drives; omit for a light van.
        """
        places = self.state.get("places", {})
        for place in (origin, destination):
            if place not in places:
                return self.fail(f"no place {place}")
        weight = 3.5
        if crew_id is not None:
            crew = self.state["crews"].get(crew_id)
            if crew is None:
                return self.fail(f"no crew {crew_id}")
            weight = float(crew.get("vehicle_weight_t", 3.5))
        closed = [
            {k: leg[k] for k in ("from", "to", "name", "note") if leg.get(k)}
            for leg in self.state.get("travel", [])
            if leg.get("closed")
        ]
        found = self._road(weight, origin, destination)
        if found is None:
            return self.fail(self._no_road(crew_id or "a light van", weight, origin, destination), closed=closed)
        limited = [
            {k: leg[k] for k in ("from", "to", "name", "max_weight_t") if leg.get(k) is not None}
            for leg in self.state.get("travel", [])
            if leg.get("max_weight_t") is not None and not leg.get("closed")
        ]
        return self.ok(minutes=found[0], path=found[1], closed=closed, weight_limits=limited)

    @tool("query", minutes=2)
    def get_site(self, site_id: str) -> Result:
        """A critical customer (hospital, pumping station, care home): its feeder, the
        generator size it needs and whether a generator already powers it.

        Args:
            site_id: The site's id, e.g. SITE-ST-BRIDE.
        """
        site = self.state.get("sites", {}).get(site_id)
        if site is None:
            return self.fail(f"no site {site_id}")
        feeder = self.state["feeders"].get(site["feeder"], {})
        return self.ok(site_id=site_id, **site, feeder_status=feeder.get("status"))

    @tool("query", minutes=2)
    def list_generators(self) -> Result:
        """Mobile generators: where each is, its size (kVA), weight and whether it is free."""
        return self.ok(
            generators=[{"generator_id": gid, **g} for gid, g in self.state.get("generators", {}).items()],
            now=self.iso(),
        )

    @tool("query", minutes=1)
    def get_work_order(self, work_order_id: str) -> Result:
        """A work order written by a dispatch, switching job or generator move.

        Args:
            work_order_id: The work order's id, e.g. WO-1.
        """
        wo = self.state.get("work_orders", {}).get(work_order_id)
        if wo is None:
            return self.fail(f"no work order {work_order_id}")
        return self.ok(work_order_id=work_order_id, **wo)

    # -- operations --------------------------------------------------------------
    @tool("operation", minutes=3)
    def request_permit(self, feeder_id: str, start: str, end: str) -> Result:
        """Ask the control room for a switching permit on a feeder for a window of work.
        Refused when the window is too long or overlaps a period the control room has blocked.

        Args:
            feeder_id: The feeder to be made safe for work.
            start: ISO time the permit starts, e.g. 2025-02-11T10:00.
            end: ISO time the permit ends.
        """
        if feeder_id not in self.state["feeders"]:
            return self.fail(f"no feeder {feeder_id}")
        try:
            t0, t1 = datetime.fromisoformat(start), datetime.fromisoformat(end)
        except ValueError:
            return self.fail(f"not ISO times: {start}, {end}")
        if t1 <= t0:
            return self.fail("the permit must end after it starts")
        if t0 < self.now - timedelta(minutes=1):
            return self.fail(f"the permit cannot start in the past (it is {self.iso()})")
        control = self.state.get("control", {})
        longest = control.get("permit_max_minutes", 240)
        if (t1 - t0).total_seconds() / 60 > longest:
            return self.fail(f"permits run at most {longest} minutes")
        for block in control.get("blocks", []):
            if block.get("feeder") not in (None, feeder_id):
                continue
            b0, b1 = _ts(block["from"]), _ts(block["until"])
            if b0 is not None and b1 is not None and t0 < b1 and b0 < t1:
                why = f": {block['reason']}" if block.get("reason") else ""
                return self.fail(
                    f"the control room issues no permit on {feeder_id} between {_hhmm(b0)} and {_hhmm(b1)}{why}"
                )
        pid = self._new_id("permits", "PMT")
        self.state["permits"][pid] = {
            "feeder": feeder_id,
            "valid_from": _iso(t0),
            "valid_until": _iso(t1),
            "status": "active",
        }
        return self.ok(permit_id=pid, **self.state["permits"][pid])

    @tool("operation", minutes=5)
    def dispatch_crew(self, crew_id: str, outage_id: str, site: str) -> Result:
        """Send a crew to repair an outage's fault at a place. The crew leaves when free, drives
        the shortest route its vehicle may use and repairs the fault on arrival; the feeder is
        back on when the repair ends. Refused when the fault is not at that place, the crew
        lacks the skill, the work needs a permit that does not cover it, overhead work would
        run into a storm stand-down, or the crew's shift would end first.

        Args:
            crew_id: The crew to send.
            outage_id: The outage to repair.
            site: Place id where the crew should go (the fault's location).
        """
        crew = self.state["crews"].get(crew_id)
        outage = self.state["outages"].get(outage_id)
        if crew is None:
            return self.fail(f"no crew {crew_id}")
        if outage is None:
            return self.fail(f"no outage {outage_id}")
        if site not in self.state.get("places", {}):
            return self.fail(f"no place {site}")
        if outage["status"] != "open":
            return self.fail(f"{outage_id} is {outage['status']}")
        if outage["kind"] == "supply":
            return self.fail(f"{outage_id} is a loss of supply at the substation; no repair restores it: backfeed it")
        if site != outage["location"]:
            note = f" ({outage['note']})" if outage.get("note") else ""
            return self.fail(f"{outage_id}'s fault is at {outage['location']}, not at {site}{note}")
        skill = outage.get("skill", outage["kind"])
        if skill not in crew.get("skills", []):
            return self.fail(f"{crew_id} has no {skill} skill (skills: {', '.join(crew.get('skills', []))})")
        trip, problem = self._trip(crew_id, crew, site)
        if problem:
            return self.fail(problem)
        assert trip is not None
        done = trip["arrives"] + timedelta(minutes=outage["repair_minutes"])
        if outage.get("needs_permit") and self._permit_for(outage["feeder"], trip["arrives"], done) is None:
            return self.fail(
                f"no active permit on {outage['feeder']} covers the work from {_hhmm(trip['arrives'])} "
                f"to {_hhmm(done)}; request one first"
            )
        if outage["kind"] == "overhead":
            clash = self._storm_clash(trip["arrives"], done)
            if clash:
                return self.fail(clash)
        problem = self._shift_problem(crew_id, crew, done)
        if problem:
            return self.fail(problem)
        wid = self._new_id("work_orders", "WO")
        self.state["work_orders"][wid] = {
            "type": "repair",
            "crew": crew_id,
            "outage": outage_id,
            "origin": crew["location"],
            "site": site,
            "departs": _iso(trip["departs"]),
            "arrives": _iso(trip["arrives"]),
            "finishes": _iso(done),
            "status": "scheduled",
        }
        outage.update(status="scheduled", crew=crew_id, restored_at=_iso(done))
        crew["location"] = site
        crew["available_at"] = _iso(done)
        self._settle_feeder(outage["feeder"])
        return self.ok(
            work_order_id=wid,
            crew_id=crew_id,
            outage_id=outage_id,
            path=trip["path"],
            departs=_iso(trip["departs"]),
            arrives=_iso(trip["arrives"]),
            restored_at=_iso(done),
        )

    @tool("operation", minutes=3)
    def recall_crew(self, work_order_id: str) -> Result:
        """Call a crew or a generator back from a job it has not yet reached; it returns to
        where it set out from and the job is reopened.

        Args:
            work_order_id: The work order to cancel.
        """
        wo = self.state.get("work_orders", {}).get(work_order_id)
        if wo is None:
            return self.fail(f"no work order {work_order_id}")
        if wo["status"] != "scheduled":
            return self.fail(f"{work_order_id} is {wo['status']}")
        arrives = _ts(wo["arrives"])
        departs = _ts(wo["departs"])
        assert arrives is not None and departs is not None
        who = wo.get("crew") or wo.get("generator")
        if self.now >= arrives:
            return self.fail(f"{who} reached {wo['site']} at {_hhmm(arrives)} and is already working")
        later = [
            wid
            for wid, other in self.state["work_orders"].items()
            if other is not wo
            and other["status"] == "scheduled"
            and (other.get("crew") or other.get("generator")) == who
            and other["departs"] >= wo["finishes"]
        ]
        if later:
            return self.fail(f"{who} has later work ({', '.join(later)}); recall that first")
        driven = max(0.0, (self.now - departs).total_seconds() / 60)
        back = _iso(max(self.now, departs) + timedelta(minutes=driven))
        if wo["type"] == "generator":
            gen = self.state["generators"][wo["generator"]]
            gen.update(status="available", location=wo["origin"], available_at=back, site=None)
            self.state["sites"][wo["site"]].update(powered_from=None, generator=None)
            wo["status"] = "recalled"
            return self.ok(work_order_id=work_order_id, status="recalled", generator_id=wo["generator"], free_at=back)
        crew = self.state["crews"][wo["crew"]]
        crew["location"] = wo["origin"]
        crew["available_at"] = back
        wo["status"] = "recalled"
        if wo["type"] == "repair":
            outage = self.state["outages"][wo["outage"]]
            outage.update(status="open", crew=None, restored_at=None)
            self._settle_feeder(outage["feeder"])
        else:
            tie = self.state["ties"][wo["tie"]]
            tie["status"] = "open"
            for outage in self.state["outages"].values():
                if outage["feeder"] == wo["feeder"] and outage["status"] == "backfed":
                    outage.update(status="open", restored_at=None, tie=None)
            self._settle_feeder(wo["feeder"])
        return self.ok(work_order_id=work_order_id, status="recalled", crew_id=wo["crew"], free_at=crew["available_at"])

    @tool("operation", minutes=5)
    def close_tie(self, tie_id: str, crew_id: str) -> Result:
        """Send a crew with the switching skill to close a tie switch, so a dead feeder is fed
        from its live neighbour. Works only when the dead feeder has no unrepaired fault of its
        own, the neighbour is on and its substation in service, and the tie can carry the dead
        feeder's load. Power returns when the crew has switched.

        Args:
            tie_id: The tie switch to close.
            crew_id: The crew that operates it.
        """
        tie = self.state.get("ties", {}).get(tie_id)
        crew = self.state["crews"].get(crew_id)
        if tie is None:
            return self.fail(f"no tie {tie_id}")
        if crew is None:
            return self.fail(f"no crew {crew_id}")
        if tie["status"] != "open":
            return self.fail(f"{tie_id} is {tie['status']}")
        if "switching" not in crew.get("skills", []):
            return self.fail(f"{crew_id} has no switching skill")
        feeders = self.state["feeders"]
        dead = [f for f in tie["between"] if feeders[f]["status"] != "energised"]
        live = [f for f in tie["between"] if feeders[f]["status"] == "energised"]
        if len(dead) != 1 or len(live) != 1:
            return self.fail(
                f"{tie_id} joins {' and '.join(tie['between'])}; it can feed one dead feeder from one live one"
            )
        dead_id, live_id = dead[0], live[0]
        sub = self.state["substations"].get(feeders[live_id]["substation"], {})
        if sub.get("status") != "in_service":
            return self.fail(f"{live_id}'s substation {feeders[live_id]['substation']} is {sub.get('status')}")
        faults = [
            oid
            for oid, o in self.state["outages"].items()
            if o["feeder"] == dead_id and o["kind"] != "supply" and o["status"] == "open"
        ]
        if faults:
            return self.fail(
                f"{dead_id} still has an unrepaired fault ({', '.join(faults)}); backfeeding it would re-trip"
            )
        load = float(feeders[dead_id].get("load_mw", 0))
        if load > float(tie["capacity_mw"]):
            return self.fail(f"{dead_id} carries {load:g} MW; {tie_id} can carry at most {tie['capacity_mw']} MW")
        trip, problem = self._trip(crew_id, crew, tie["place"])
        if problem:
            return self.fail(problem)
        assert trip is not None
        done = trip["arrives"] + timedelta(minutes=SWITCHING_MINUTES)
        problem = self._shift_problem(crew_id, crew, done)
        if problem:
            return self.fail(problem)
        wid = self._new_id("work_orders", "WO")
        self.state["work_orders"][wid] = {
            "type": "switching",
            "crew": crew_id,
            "tie": tie_id,
            "feeder": dead_id,
            "origin": crew["location"],
            "site": tie["place"],
            "departs": _iso(trip["departs"]),
            "arrives": _iso(trip["arrives"]),
            "finishes": _iso(done),
            "status": "scheduled",
        }
        tie["status"] = "closed"
        crew["location"] = tie["place"]
        crew["available_at"] = _iso(done)
        for outage in self.state["outages"].values():
            if outage["feeder"] == dead_id and outage["status"] == "open":
                outage.update(status="backfed", restored_at=_iso(done), tie=tie_id)
        feeders[dead_id].update(status="backfed", restored_at=_iso(done))
        return self.ok(
            work_order_id=wid,
            tie_id=tie_id,
            feeder_id=dead_id,
            fed_from=live_id,
            path=trip["path"],
            restored_at=_iso(done),
        )

    @tool("operation", minutes=5)
    def deploy_generator(self, generator_id: str, site_id: str) -> Result:
        """Tow a free mobile generator to a critical site and connect it; the site has power
        from the hook-up on. Refused when the generator is too small or cannot get there.

        Args:
            generator_id: The generator to send.
            site_id: The critical site to power.
        """
        gen = self.state.get("generators", {}).get(generator_id)
        site = self.state.get("sites", {}).get(site_id)
        if gen is None:
            return self.fail(f"no generator {generator_id}")
        if site is None:
            return self.fail(f"no site {site_id}")
        if gen["status"] != "available":
            note = f" ({gen['note']})" if gen.get("note") else ""
            return self.fail(f"{generator_id} is {gen['status']}{note}")
        if float(gen["kva"]) < float(site["needs_kva"]):
            return self.fail(f"{generator_id} gives {gen['kva']} kVA; {site_id} needs {site['needs_kva']} kVA")
        if site.get("powered_from"):
            return self.fail(f"{site_id} already has a generator")
        at = _ts(gen.get("available_at"))
        depart = max(self.now, at) if at else self.now
        weight = float(gen.get("weight_t", 3.5))
        found = self._road(weight, gen["location"], site["place"])
        if found is None:
            return self.fail(self._no_road(generator_id, weight, gen["location"], site["place"]))
        arrive = depart + timedelta(minutes=found[0])
        on = arrive + timedelta(minutes=HOOKUP_MINUTES)
        wid = self._new_id("work_orders", "WO")
        self.state["work_orders"][wid] = {
            "type": "generator",
            "generator": generator_id,
            "site": site_id,
            "origin": gen["location"],
            "departs": _iso(depart),
            "arrives": _iso(arrive),
            "finishes": _iso(on),
            "status": "scheduled",
        }
        gen.update(status="deployed", location=site["place"], site=site_id)
        site.update(powered_from=_iso(on), generator=generator_id)
        return self.ok(
            work_order_id=wid, generator_id=generator_id, site_id=site_id, path=found[1], powered_from=_iso(on)
        )

    @tool("operation", minutes=0)
    def wait_until(self, time: str) -> Result:
        """Hold: do nothing until a given time today (at most 8 hours ahead).

        Args:
            time: ISO time to wait for, e.g. 2025-02-11T09:00.
        """
        try:
            until = datetime.fromisoformat(time)
        except ValueError:
            return self.fail(f"not an ISO time: {time}")
        if until <= self.now:
            return self.fail(f"it is already {self.iso()}")
        if until - self.now > timedelta(hours=8):
            return self.fail("you can wait at most 8 hours")
        self.advance((until - self.now).total_seconds() / 60)
        return self.ok(now=self.iso())

    # -- checks ----------------------------------------------------------------
    @check
    def outage_restored_by(self, outage_id: str, deadline: str | None = None) -> tuple[bool, str]:
        """The outage is repaired or backfed no later than ``deadline`` (default: its own,
        as it stands at the end)."""
        outage = self.state["outages"].get(outage_id)
        if outage is None:
            return False, f"no outage {outage_id}"
        limit = deadline or outage.get("deadline")
        at = outage.get("restored_at")
        if outage["status"] not in RESTORED or at is None:
            return False, f"{outage_id} is {outage['status']}"
        if limit is not None and datetime.fromisoformat(at) > datetime.fromisoformat(limit):
            return False, f"{outage_id} restored at {at}, after {limit}"
        return True, f"{outage_id} restored at {at}" + (f" (by {limit})" if limit else "")

    @check
    def feeder_on_by(self, feeder_id: str, deadline: str) -> tuple[bool, str]:
        """The feeder has power again (or never lost it) by ``deadline``."""
        power = self._feeder_power_at(feeder_id)
        if power is False:
            return False, f"{feeder_id} stays off"
        if power is None:
            return True, f"{feeder_id} is energised"
        assert isinstance(power, datetime)
        ok = power <= datetime.fromisoformat(deadline)
        return ok, f"{feeder_id} back at {_iso(power)} (deadline {deadline})"

    @check
    def site_powered_by(self, site_id: str, deadline: str) -> tuple[bool, str]:
        """A critical site has power by ``deadline``: from its feeder or from a generator."""
        site = self.state.get("sites", {}).get(site_id)
        if site is None:
            return False, f"no site {site_id}"
        limit = datetime.fromisoformat(deadline)
        gen = _ts(site.get("powered_from"))
        if gen is not None and gen <= limit:
            return True, f"{site_id} on generator {site.get('generator')} from {_iso(gen)}"
        power = self._feeder_power_at(site["feeder"])
        if power is None:
            return True, f"{site_id}'s feeder {site['feeder']} is energised"
        if isinstance(power, datetime) and power <= limit:
            return True, f"{site_id}'s feeder {site['feeder']} back at {_iso(power)}"
        return False, f"{site_id} has no power by {deadline}"

    @check
    def crew_not_sent(self, crew_id: str) -> tuple[bool, str]:
        """No live (scheduled) work order uses this crew."""
        used = [
            wid
            for wid, wo in self.state.get("work_orders", {}).items()
            if wo.get("crew") == crew_id and wo["status"] == "scheduled"
        ]
        return not used, f"{crew_id} on {', '.join(used)}" if used else f"{crew_id} not sent"
