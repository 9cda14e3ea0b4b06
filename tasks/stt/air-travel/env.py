"""Air-travel rebooking: airports, flights, bookings, passengers, transit and entry
rules, baggage, seats and irregular operations.

All times are UTC, written as ISO timestamps without an offset.

State sections (a task includes those it needs; all but ``places``, ``airports``,
``flights``, ``passengers`` and ``bookings`` are optional):

- ``places``: terminals (or single-terminal airports) as places:
  ``{"LHR-T5": {"airport": "LHR", "name": "Heathrow Terminal 5"}}``.
- ``travel``: ground legs between places (terminal transfers, airport-to-airport
  coaches, roads), used for connection times and ground transfers.
- ``airports``: ``{IATA: {name, city, country, status, mct_minutes, airside_transit,
  closure_reason, remarks}}``.
- ``countries``: ``{CC: {name, zone}}``; the zone is a border area such as SCHENGEN.
- ``transit_rules``: ``{CC: {atv_required_for: [nationalities], exempt_visas: [...], notes}}``.
- ``entry_rules``: ``{zone: {visa_free_for: [nationalities], accepted_visas: [...]}}``.
- ``airlines``: ``{code: {name, alliance, interline_partners, checkin_close_minutes,
  change_fee, notices}}``.
- ``flights``: ``{number: {airline, dep, arr (place ids), departs, arrives, delay_minutes,
  status, aircraft, seats: {cabin: free}, fares: {cabin: price}, seatmap, crew_pairing,
  remarks}}``. A seatmap is ``{layout: "ABC|DEF", rows: [first, last], free: [seats]}``.
- ``crews``: ``{pairing: {base, duty_limit_end, flights, status}}``.
- ``passengers``: ``{id: {name, nationality, visas, ssr, tier, notes}}``.
- ``bookings``: ``{locator: {passengers, origin, destination, validating_carrier, status,
  ttl, fare_total, currency, waivers, vouchers, change_fees, frequent_flyer, remarks,
  segments: [{flight, cabin, status, passengers, seats, checked_in}]}}``. A segment's
  status is confirmed, flown or cancelled.
- ``bags``: ``{tag: {booking, passenger, location, custody, routing, status, forwarded}}``;
  ``routing`` lists the flights still ahead of the bag; ``custody`` is the airline
  holding it now (its first flight must be that airline or an interline partner).
- ``disruption``: free-form reaccommodation data (e.g. a queue of locators).
- ``notifications``: messages sent to passengers.
"""

from __future__ import annotations

import copy
from datetime import datetime, timedelta
from itertools import pairwise
from typing import Any, Literal

from sttui.core.env import Environment, Result, check, tool

DISRUPTION_DELAY = 60  # minutes of delay that count as a disruption (free changes, waivers)


def _dt(text: str) -> datetime:
    return datetime.fromisoformat(text)


def _fmt(when: datetime) -> str:
    return when.isoformat(timespec="minutes")


class AirTravelEnv(Environment):
    """Airline disruption desk: rebook, re-route, re-seat and check in passengers."""

    # ======================================================================
    # helpers
    # ======================================================================
    def _section(self, name: str) -> dict[str, Any]:
        return self.state.get(name) or {}

    def _airport_of(self, place: str) -> str:
        info = self._section("places").get(place)
        if isinstance(info, dict) and info.get("airport"):
            return info["airport"]
        return place

    def _place_for(self, code: str) -> str | None:
        """A place id for an airport code or place id."""
        places = self._section("places")
        if code in places:
            return code
        for pid, info in places.items():
            if isinstance(info, dict) and info.get("airport") == code:
                return pid
        return None

    def _origin(self, f: dict[str, Any]) -> str:
        return self._airport_of(f["dep"])

    def _dest(self, f: dict[str, Any]) -> str:
        return self._airport_of(f["arr"])

    def _etd(self, f: dict[str, Any]) -> datetime:
        return _dt(f["departs"]) + timedelta(minutes=f.get("delay_minutes") or 0)

    def _eta(self, f: dict[str, Any]) -> datetime:
        return _dt(f["arrives"]) + timedelta(minutes=f.get("delay_minutes") or 0)

    def _mct(self, airport: str) -> int:
        return int(self._section("airports").get(airport, {}).get("mct_minutes", 60))

    def _close_minutes(self, f: dict[str, Any]) -> int:
        return int(self._section("airlines").get(f["airline"], {}).get("checkin_close_minutes", 45))

    def _partners(self, airline: str) -> list[str]:
        return list(self._section("airlines").get(airline, {}).get("interline_partners") or [])

    def _flight_view(self, number: str) -> dict[str, Any]:
        f = self.state["flights"][number]
        view: dict[str, Any] = {
            "flight_number": number,
            "airline": f["airline"],
            "origin": self._origin(f),
            "destination": self._dest(f),
            "departure_terminal": f["dep"],
            "arrival_terminal": f["arr"],
            "scheduled_departure": f["departs"],
            "scheduled_arrival": f["arrives"],
            "estimated_departure": _fmt(self._etd(f)),
            "estimated_arrival": _fmt(self._eta(f)),
            "delay_minutes": f.get("delay_minutes") or 0,
            "status": f.get("status", "scheduled"),
        }
        for key in ("aircraft", "gate", "crew_pairing", "seats", "fares"):
            if key in f:
                view[key] = copy.deepcopy(f[key])
        if f.get("status", "scheduled") not in ("cancelled", "departed", "landed"):
            view["checkin_closes"] = _fmt(self._etd(f) - timedelta(minutes=self._close_minutes(f)))
        if f.get("seatmap"):
            sm = f["seatmap"]
            view["seatmap"] = {
                "layout": sm.get("layout"),
                "rows": sm.get("rows"),
                "free_seats": sorted(sm.get("free") or [], key=self._seat_key),
            }
        if f.get("remarks"):
            view["remarks"] = list(f["remarks"])
        return view

    # -- seats -------------------------------------------------------------
    @staticmethod
    def _seat_key(seat: str) -> tuple[int, str]:
        digits = "".join(ch for ch in seat if ch.isdigit())
        return (int(digits) if digits else 0, "".join(ch for ch in seat if ch.isalpha()))

    @staticmethod
    def _split_seat(seat: str) -> tuple[int, str] | None:
        seat = seat.strip().upper()
        if len(seat) < 2 or not seat[:-1].isdigit() or not seat[-1].isalpha():
            return None
        return int(seat[:-1]), seat[-1]

    def _seat_exists(self, seatmap: dict[str, Any], seat: str) -> bool:
        parts = self._split_seat(seat)
        if parts is None:
            return False
        row, letter = parts
        first, last = seatmap.get("rows", [0, -1])
        return first <= row <= last and letter in seatmap.get("layout", "").replace("|", "")

    def _seat_kind(self, seatmap: dict[str, Any], seat: str) -> str:
        parts = self._split_seat(seat)
        layout = seatmap.get("layout", "")
        if parts is None:
            return "unknown"
        letter = parts[1]
        letters = layout.replace("|", "")
        if letters and letter in (letters[0], letters[-1]):
            return "window"
        for block in layout.split("|"):
            if letter in block and (letter == block[0] or letter == block[-1]):
                return "aisle"
        return "middle"

    # -- bookings ----------------------------------------------------------
    def _pax_segments(
        self, booking: dict[str, Any], pid: str, statuses: tuple[str, ...] = ("confirmed", "flown")
    ) -> list[dict[str, Any]]:
        segs = [
            s
            for s in booking.get("segments", [])
            if s.get("status") in statuses and pid in s.get("passengers", []) and s["flight"] in self.state["flights"]
        ]
        return sorted(segs, key=lambda s: self._etd(self.state["flights"][s["flight"]]))

    def _carrier_accepted(self, booking: dict[str, Any], airline: str) -> bool:
        validating = booking.get("validating_carrier")
        return airline == validating or airline in self._partners(validating)

    def _connection_problem(self, a: str, b: str, for_bags: bool = False) -> str | None:
        fa, fb = self.state["flights"][a], self.state["flights"][b]
        arr_ap, dep_ap = self._dest(fa), self._origin(fb)
        if for_bags and arr_ap != dep_ap:
            return (
                f"bags cannot be transferred from {a} (arrives {arr_ap}) to {b} (departs {dep_ap}): different airports"
            )
        ground = self.travel_minutes(fa["arr"], fb["dep"])
        if ground is None:
            return f"no ground connection from {fa['arr']} to {fb['dep']} between {a} and {b}"
        need = self._mct(dep_ap) + ground
        gap = (self._etd(fb) - self._eta(fa)).total_seconds() / 60
        if gap < need:
            where = fa["arr"] if fa["arr"] == fb["dep"] else f"{fa['arr']} -> {fb['dep']}"
            return (
                f"connection {a} -> {b} at {where} has {int(gap)} min; needs {int(need)} min "
                f"(minimum connection time {self._mct(dep_ap)} + ground transfer {int(ground)})"
            )
        return None

    def _zone(self, airport: str) -> str:
        country = self._section("airports").get(airport, {}).get("country", airport)
        return self._section("countries").get(country, {}).get("zone", country)

    def _nat_zone(self, nationality: str) -> str:
        return self._section("countries").get(nationality, {}).get("zone", nationality)

    def _may_enter(self, pax: dict[str, Any], zone: str) -> bool:
        if self._nat_zone(pax.get("nationality", "")) == zone:
            return True
        rules = self._section("entry_rules").get(zone)
        if rules is None:
            return True
        if pax.get("nationality") in (rules.get("visa_free_for") or []):
            return True
        visas = pax.get("visas") or []
        return any(v in visas for v in (rules.get("accepted_visas") or []))

    def _doc_problems(self, pid: str, flights: list[str]) -> list[str]:
        pax = self._section("passengers").get(pid, {})
        name = pax.get("name", pid)
        nat = pax.get("nationality", "")
        visas = pax.get("visas") or []
        airports = self._section("airports")
        out: list[str] = []
        for a, b in pairwise(flights):
            fa, fb = self.state["flights"][a], self.state["flights"][b]
            here = self._origin(fb)
            zone = self._zone(here)
            came_from, going_to = self._zone(self._origin(fa)), self._zone(self._dest(fb))
            if self._dest(fa) != here:
                if not self._may_enter(pax, zone):
                    out.append(
                        f"{name} ({nat}) must enter {zone} to change airports "
                        f"({self._dest(fa)} -> {here}) but holds no valid entry visa"
                    )
                continue
            if came_from == zone or going_to == zone:
                if came_from != zone and not self._may_enter(pax, zone):
                    out.append(f"{name} ({nat}) enters {zone} at {here} without a valid entry visa")
                continue
            # airside (international-to-international) transit
            ap = airports.get(here, {})
            if not ap.get("airside_transit", True):
                if not self._may_enter(pax, zone):
                    out.append(
                        f"{name} ({nat}): airside transit at {here} is suspended and the passenger "
                        f"cannot enter {zone} to connect landside"
                    )
                continue
            country = ap.get("country", here)
            rule = self._section("transit_rules").get(country, {})
            if nat in (rule.get("atv_required_for") or []):
                exempt = [*(rule.get("exempt_visas") or []), f"ATV-{country}"]
                if not any(v in visas for v in exempt):
                    out.append(f"{name} ({nat}) needs an airport transit visa for {here} ({country})")
        if flights:
            last = self._dest(self.state["flights"][flights[-1]])
            first = self._origin(self.state["flights"][flights[0]])
            zone = self._zone(last)
            if self._zone(first) != zone and not self._may_enter(pax, zone):
                out.append(f"{name} ({nat}) holds no valid entry document for {last} ({zone})")
        return out

    def _itinerary_problems(self, locator: str, pid: str) -> tuple[list[str], str | None, str | None]:
        """(problems, final arrival airport, final estimated arrival) of one passenger."""
        booking = self.state["bookings"][locator]
        segs = self._pax_segments(booking, pid)
        if not segs:
            return [f"{pid} has no active segments"], None, None
        flights = [s["flight"] for s in segs]
        fl = self.state["flights"]
        airports = self._section("airports")
        problems: list[str] = []
        if self._origin(fl[flights[0]]) != booking.get("origin"):
            problems.append(f"itinerary starts at {self._origin(fl[flights[0]])}, not {booking.get('origin')}")
        for seg in segs:
            if seg["status"] == "flown":
                continue
            f = fl[seg["flight"]]
            if f.get("status") == "cancelled":
                problems.append(f"{seg['flight']} is cancelled")
            for ap in (self._origin(f), self._dest(f)):
                if airports.get(ap, {}).get("status", "open") != "open":
                    problems.append(f"{seg['flight']} uses {ap}, which is {airports[ap]['status']}")
            if not self._carrier_accepted(booking, f["airline"]):
                problems.append(
                    f"{seg['flight']} is operated by {f['airline']}, which does not accept tickets "
                    f"validated by {booking.get('validating_carrier')} (no interline agreement)"
                )
        for a, b in pairwise(flights):
            issue = self._connection_problem(a, b)
            if issue:
                problems.append(issue)
        problems += self._doc_problems(pid, flights)
        last = fl[flights[-1]]
        return problems, self._dest(last), _fmt(self._eta(last))

    def _disrupted(self, locator: str) -> bool:
        """A flight of the booking (even one already replaced) was cancelled, a confirmed
        flight is delayed, or a passenger's itinerary is broken."""
        booking = self.state["bookings"][locator]
        for seg in booking.get("segments", []):
            f = self.state["flights"].get(seg["flight"])
            if f is None:
                continue
            if f.get("status") == "cancelled":
                return True
            if seg.get("status") == "confirmed" and (f.get("delay_minutes") or 0) >= DISRUPTION_DELAY:
                return True
        return any(self._itinerary_problems(locator, pid)[0] for pid in booking.get("passengers", []))

    def _release_seat(self, flight: str, seg: dict[str, Any], pid: str) -> None:
        seat = (seg.get("seats") or {}).pop(pid, None)
        sm = self.state["flights"].get(flight, {}).get("seatmap")
        if seat and sm is not None and self._seat_exists(sm, seat) and seat not in sm.setdefault("free", []):
            sm["free"].append(seat)

    def _remove_pax(self, booking: dict[str, Any], seg: dict[str, Any], pids: list[str]) -> None:
        f = self.state["flights"].get(seg["flight"])
        for pid in pids:
            if pid in seg["passengers"]:
                self._release_seat(seg["flight"], seg, pid)
                seg["passengers"].remove(pid)
                if pid in seg.get("checked_in", []):
                    seg["checked_in"].remove(pid)
                if f is not None and "seats" in f:
                    f["seats"][seg["cabin"]] = f["seats"].get(seg["cabin"], 0) + 1
        if not seg["passengers"]:
            seg["status"] = "cancelled"

    def _find_segment(
        self, booking: dict[str, Any], flight: str, pids: list[str] | None = None
    ) -> dict[str, Any] | None:
        for seg in booking.get("segments", []):
            if (
                seg["flight"] == flight
                and seg.get("status") == "confirmed"
                and (pids is None or all(p in seg["passengers"] for p in pids))
            ):
                return seg
        return None

    def _bag_route_problems(
        self, location: str, routing: list[str], destination: str, custody: str | None = None
    ) -> list[str]:
        fl = self.state["flights"]
        if not routing:
            return ["empty routing"]
        missing = [n for n in routing if n not in fl]
        if missing:
            return [f"no flight {', '.join(missing)}"]
        out: list[str] = []
        here = self._airport_of(location)
        if self._origin(fl[routing[0]]) != here:
            out.append(f"bag is at {here} but {routing[0]} departs {self._origin(fl[routing[0]])}")
        first = fl[routing[0]]["airline"]
        if custody and first != custody and first not in self._partners(custody):
            out.append(
                f"bag is held by {custody}, which has no interline baggage agreement with {first} ({routing[0]})"
            )
        for n in routing:
            if fl[n].get("status") == "cancelled":
                out.append(f"{n} is cancelled")
        for a, b in pairwise(routing):
            issue = self._connection_problem(a, b, for_bags=True)
            if issue:
                out.append(issue)
            ca, cb = fl[a]["airline"], fl[b]["airline"]
            if ca != cb and cb not in self._partners(ca):
                out.append(f"no interline baggage agreement for the {ca} -> {cb} transfer ({a} -> {b})")
        if self._dest(fl[routing[-1]]) != destination:
            out.append(f"routing ends at {self._dest(fl[routing[-1]])}, not {destination}")
        return out

    def _with_owner(self, bag: dict[str, Any], own_segs: list[dict[str, Any]]) -> bool:
        """The bag is at the airport its owner departs from next (so it must fly with them)."""
        if not own_segs:
            return False
        first = self.state["flights"][own_segs[0]["flight"]]
        return self._airport_of(bag.get("location", "")) == self._origin(first)

    @staticmethod
    def _as_list(value: Any) -> list[Any]:
        if value is None:
            return []
        return list(value) if isinstance(value, list | tuple) else [value]

    # ======================================================================
    # queries
    # ======================================================================
    @tool("query", minutes=2)
    def get_booking(self, locator: str) -> Result:
        """A booking (PNR): passengers, segments with flight times and status, ticketing, bags.

        Args:
            locator: The six-character booking reference, e.g. QK7M2P.
        """
        booking = self.state["bookings"].get(locator)
        if booking is None:
            return self.fail(f"no booking {locator}")
        out = copy.deepcopy(booking)
        names = self._section("passengers")
        out["passenger_names"] = {p: names.get(p, {}).get("name", p) for p in booking.get("passengers", [])}
        for seg in out.get("segments", []):
            f = self.state["flights"].get(seg["flight"])
            if f is not None:
                seg.update(
                    origin=self._origin(f),
                    destination=self._dest(f),
                    departure_terminal=f["dep"],
                    arrival_terminal=f["arr"],
                    estimated_departure=_fmt(self._etd(f)),
                    estimated_arrival=_fmt(self._eta(f)),
                    flight_status=f.get("status", "scheduled"),
                    airline=f["airline"],
                )
        if booking.get("status") == "held" and booking.get("ttl"):
            out["hold_state"] = "expired" if self.now > _dt(booking["ttl"]) else "active"
        out["bags"] = [
            {"tag": t, **copy.deepcopy(b)} for t, b in self._section("bags").items() if b.get("booking") == locator
        ]
        return self.ok(locator=locator, as_of=self.iso(), **out)

    @tool("query", minutes=2)
    def get_passenger(self, passenger_id: str) -> Result:
        """A passenger profile: name, nationality, visas held, special service requests, notes.

        Args:
            passenger_id: The passenger id as listed on the booking, e.g. P-LE.
        """
        pax = self._section("passengers").get(passenger_id)
        if pax is None:
            return self.fail(f"no passenger {passenger_id}")
        return self.ok(passenger_id=passenger_id, **copy.deepcopy(pax))

    @tool("query", minutes=2)
    def get_flight_status(self, flight_number: str) -> Result:
        """Live status of one flight: terminals, scheduled and estimated times, delay, seats
        left per cabin, fares, aircraft, seat map, check-in close and operational remarks.

        Args:
            flight_number: The flight id as used in bookings and searches, e.g. KL641.
        """
        if flight_number not in self.state["flights"]:
            return self.fail(f"no flight {flight_number}")
        return self.ok(as_of=self.iso(), **self._flight_view(flight_number))

    @tool("query", minutes=3)
    def search_flights(self, origin: str, destination: str, date: str | None = None) -> Result:
        """Direct flights between two airports, with estimated times, status, seats and fares.

        Args:
            origin: Departure airport IATA code, e.g. AMS.
            destination: Arrival airport IATA code, e.g. JFK.
            date: Optional departure date (UTC), YYYY-MM-DD; omit for all dates.
        """
        found = []
        for number, f in self.state["flights"].items():
            if self._origin(f) != origin or self._dest(f) != destination:
                continue
            if date and not f["departs"].startswith(date):
                continue
            view = self._flight_view(number)
            view.pop("seatmap", None)
            found.append(view)
        found.sort(key=lambda v: v["estimated_departure"])
        return self.ok(as_of=self.iso(), origin=origin, destination=destination, flights=found)

    @tool("query", minutes=2)
    def get_airport(self, code: str) -> Result:
        """An airport: operating status, closures, minimum connection time, transit facilities,
        terminals and ground transfers from its terminals.

        Args:
            code: The airport's IATA code, e.g. LHR.
        """
        ap = self._section("airports").get(code)
        if ap is None:
            return self.fail(f"no airport {code}")
        terminals = [
            p for p, info in self._section("places").items() if isinstance(info, dict) and info.get("airport") == code
        ]
        legs = []
        for leg in self.state.get("travel", []):
            if leg["from"] in terminals or leg["to"] in terminals:
                legs.append(
                    {
                        "from": leg["from"],
                        "to": leg["to"],
                        "minutes": leg["minutes"],
                        "mode": leg.get("mode", "ground"),
                        "open": not leg.get("closed", False),
                    }
                )
        return self.ok(code=code, as_of=self.iso(), terminals=terminals, ground_transfers=legs, **copy.deepcopy(ap))

    @tool("query", minutes=2)
    def get_transit_rules(self, country: str) -> Result:
        """Transit and entry rules of a country (ISO code, e.g. DE) or of an airport's country
        (IATA code, e.g. FRA): airport-transit-visa requirements and border-zone entry rules.

        Args:
            country: ISO country code such as DE, or an airport IATA code such as FRA.
        """
        airports = self._section("airports")
        if country in airports:
            country = airports[country].get("country", country)
        info = self._section("countries").get(country)
        if info is None:
            return self.fail(f"no country {country}")
        zone = info.get("zone", country)
        return self.ok(
            country=country,
            name=info.get("name", country),
            zone=zone,
            transit=copy.deepcopy(self._section("transit_rules").get(country, {})),
            entry=copy.deepcopy(self._section("entry_rules").get(zone, {"restrictions": "none"})),
            airports_in_country={
                c: {"airside_transit": a.get("airside_transit", True), "status": a.get("status", "open")}
                for c, a in airports.items()
                if a.get("country") == country
            },
        )

    @tool("query", minutes=2)
    def get_ground_transfer(self, origin: str, destination: str) -> Result:
        """Fastest open ground route between two terminals or airports, in minutes.

        Args:
            origin: A terminal (e.g. LGW-S) or airport code (e.g. LGW).
            destination: A terminal (e.g. LHR-T5) or airport code (e.g. LHR).
        """
        a, b = self._place_for(origin), self._place_for(destination)
        if a is None or b is None:
            return self.fail(f"unknown place {origin if a is None else destination}")
        path = self.route(a, b)
        if path is None:
            return self.fail(f"no open ground route from {a} to {b}")
        return self.ok(origin=a, destination=b, path=path, minutes=self.travel_minutes(a, b))

    @tool("query", minutes=2)
    def get_baggage(self, locator: str) -> Result:
        """Checked bags of a booking: tag, owner, current location, remaining routing, status.

        Args:
            locator: The booking reference.
        """
        if locator not in self.state["bookings"]:
            return self.fail(f"no booking {locator}")
        bags = [{"tag": t, **copy.deepcopy(b)} for t, b in self._section("bags").items() if b.get("booking") == locator]
        return self.ok(locator=locator, bags=bags)

    @tool("query", minutes=2)
    def get_airline(self, code: str) -> Result:
        """An airline: alliance, interline partners (ticket and baggage acceptance), check-in
        close, change fee and current notices.

        Args:
            code: Two-letter airline code, e.g. BA.
        """
        info = self._section("airlines").get(code)
        if info is None:
            return self.fail(f"no airline {code}")
        return self.ok(code=code, **copy.deepcopy(info))

    @tool("query", minutes=2)
    def get_crew_pairing(self, pairing: str) -> Result:
        """A crew pairing: the flights it operates, its duty-time limit and status.

        Args:
            pairing: Crew pairing id as shown on a flight, e.g. CP-4471.
        """
        info = self._section("crews").get(pairing)
        if info is None:
            return self.fail(f"no crew pairing {pairing}")
        return self.ok(pairing=pairing, **copy.deepcopy(info))

    @tool("query", minutes=3)
    def list_affected_bookings(self, flight_number: str) -> Result:
        """Bookings with passengers still confirmed on a flight (the reaccommodation list).

        Args:
            flight_number: The disrupted flight, e.g. KL1187.
        """
        if flight_number not in self.state["flights"]:
            return self.fail(f"no flight {flight_number}")
        names = self._section("passengers")
        out = []
        for loc, b in self.state["bookings"].items():
            for seg in b.get("segments", []):
                if seg["flight"] == flight_number and seg.get("status") == "confirmed":
                    out.append(
                        {
                            "locator": loc,
                            "passengers": [
                                {
                                    "passenger_id": p,
                                    "name": names.get(p, {}).get("name", p),
                                    "ssr": list(names.get(p, {}).get("ssr") or []),
                                }
                                for p in seg["passengers"]
                            ],
                        }
                    )
        queue = (self._section("disruption").get(flight_number) or {}).get("queue")
        extra = {"reaccommodation_queue": list(queue)} if queue is not None else {}
        return self.ok(flight_number=flight_number, bookings=out, **extra)

    @tool("query", minutes=2)
    def check_itinerary(self, locator: str) -> Result:
        """Validate a booking as it stands now: for each passenger, connections against minimum
        connection times, cancelled flights, closed airports, carrier acceptance and transit
        or entry documents; plus ticketing state and bag routings.

        Args:
            locator: The booking reference.
        """
        booking = self.state["bookings"].get(locator)
        if booking is None:
            return self.fail(f"no booking {locator}")
        report = {}
        for pid in booking.get("passengers", []):
            problems, where, when = self._itinerary_problems(locator, pid)
            report[pid] = {
                "flights": [s["flight"] for s in self._pax_segments(booking, pid)],
                "arrives": where,
                "estimated_arrival": when,
                "problems": problems,
            }
        bags = {}
        for tag, bag in self._section("bags").items():
            if bag.get("booking") == locator and bag.get("status") != "delivered":
                bags[tag] = self._bag_route_problems(
                    bag.get("location", ""), bag.get("routing") or [], booking.get("destination"), bag.get("custody")
                )
        return self.ok(
            locator=locator, as_of=self.iso(), ticketing=booking.get("status"), passengers=report, bag_problems=bags
        )

    @tool("query", minutes=0)
    def wait(self, minutes: int) -> Result:
        """Wait, e.g. for a system to come back; nothing else happens meanwhile.

        Args:
            minutes: How long to wait, 1 to 120 minutes.
        """
        if not 1 <= minutes <= 120:
            return self.fail("minutes must be between 1 and 120")
        self.advance(minutes)
        return self.ok(now=self.iso())

    # ======================================================================
    # operations
    # ======================================================================
    @tool("operation", minutes=5)
    def ticket_booking(self, locator: str) -> Result:
        """Issue tickets for a held booking at its held fare, before its ticketing time limit.

        Args:
            locator: The held booking's reference.
        """
        booking = self.state["bookings"].get(locator)
        if booking is None:
            return self.fail(f"no booking {locator}")
        if booking.get("status") == "ticketed":
            return self.fail(f"{locator} is already ticketed")
        if booking.get("status") != "held":
            return self.fail(f"{locator} is {booking.get('status')} and cannot be ticketed")
        if booking.get("ttl") and self.now > _dt(booking["ttl"]):
            booking["status"] = "lapsed"
            for seg in booking.get("segments", []):
                if seg.get("status") == "confirmed":
                    self._remove_pax(booking, seg, list(seg["passengers"]))
            return self.fail(
                f"ticketing time limit {booking['ttl']} has passed; the hold on {locator} lapsed "
                f"and its seats were released"
            )
        booking["status"] = "ticketed"
        code = {"LH": "220", "BA": "125", "KL": "074", "AA": "001", "UA": "016"}.get(
            booking.get("validating_carrier", ""), "999"
        )
        booking["tickets"] = {
            p: f"{code}-{2400000000 + 17 * i + len(locator)}"
            for i, p in enumerate(booking.get("passengers", []), start=1)
        }
        return self.ok(
            locator=locator,
            status="ticketed",
            tickets=booking["tickets"],
            fare_total=booking.get("fare_total"),
            currency=booking.get("currency"),
        )

    @tool("operation", minutes=5)
    def book_flight(
        self,
        locator: str,
        flight_number: str,
        cabin: Literal["F", "J", "W", "Y"] = "Y",
        passenger_ids: list[str] | None = None,
    ) -> Result:
        """Add a flight segment to a booking for some or all of its passengers.

        Args:
            locator: The booking reference.
            flight_number: The flight to add.
            cabin: Cabin: F first, J business, W premium economy, Y economy.
            passenger_ids: Passengers to book; omit for everyone on the booking.
        """
        booking = self.state["bookings"].get(locator)
        if booking is None:
            return self.fail(f"no booking {locator}")
        if booking.get("status") not in ("ticketed", "held"):
            return self.fail(f"{locator} is {booking.get('status')}")
        pids = passenger_ids or list(booking.get("passengers", []))
        unknown = [p for p in pids if p not in booking.get("passengers", [])]
        if unknown:
            return self.fail(f"not on {locator}: {', '.join(unknown)}")
        problem = self._bookable(booking, [flight_number], cabin, len(pids), pids)
        if problem:
            return self.fail(problem)
        seg = self._add_segment(booking, flight_number, cabin, pids)
        return self.ok(locator=locator, segment=copy.deepcopy(seg))

    def _bookable(
        self, booking: dict[str, Any], flights: list[str], cabin: str, count: int, pids: list[str]
    ) -> str | None:
        for n in flights:
            f = self.state["flights"].get(n)
            if f is None:
                return f"no flight {n}"
            if f.get("status") in ("cancelled", "departed", "landed"):
                return f"{n} is {f['status']}"
            if self._etd(f) <= self.now:
                return f"{n} has already departed"
            if f.get("seats", {}).get(cabin, 0) < count:
                return f"{n} has only {f.get('seats', {}).get(cabin, 0)} seat(s) left in cabin {cabin}"
            if f["airline"] != booking.get("validating_carrier") and f["airline"] not in (booking.get("waivers") or []):
                return (
                    f"{n} is operated by {f['airline']}; a booking validated by {booking.get('validating_carrier')} "
                    f"needs an approved waiver for {f['airline']} first (request_waiver)"
                )
        pax = self._section("passengers")
        minor = any("UMNR" in (pax.get(p, {}).get("ssr") or []) for p in pids)
        if minor and (
            len(flights) != 1 or self.state["flights"][flights[0]]["airline"] != booking.get("validating_carrier")
        ):
            return (
                "unaccompanied-minor (UMNR) service is only available on a single direct flight "
                f"operated by {booking.get('validating_carrier')}"
            )
        return None

    def _add_segment(self, booking: dict[str, Any], flight: str, cabin: str, pids: list[str]) -> dict[str, Any]:
        f = self.state["flights"][flight]
        f["seats"][cabin] = f["seats"].get(cabin, 0) - len(pids)
        seg = {
            "flight": flight,
            "cabin": cabin,
            "status": "confirmed",
            "passengers": list(pids),
            "seats": {},
            "checked_in": [],
        }
        booking.setdefault("segments", []).append(seg)
        return seg

    @tool("operation", minutes=5)
    def cancel_segment(self, locator: str, flight_number: str, passenger_ids: list[str] | None = None) -> Result:
        """Cancel a confirmed flight segment for some or all of its passengers; seats are released.

        Args:
            locator: The booking reference.
            flight_number: The segment's flight.
            passenger_ids: Passengers to remove; omit for all on that segment.
        """
        booking = self.state["bookings"].get(locator)
        if booking is None:
            return self.fail(f"no booking {locator}")
        seg = self._find_segment(booking, flight_number, passenger_ids)
        if seg is None:
            return self.fail(f"no confirmed segment {flight_number} on {locator} for those passengers")
        self._remove_pax(booking, seg, list(passenger_ids or seg["passengers"]))
        return self.ok(locator=locator, flight_number=flight_number, segment_status=seg["status"])

    @tool("operation", minutes=5)
    def rebook(
        self,
        locator: str,
        from_flights: list[str],
        to_flights: list[str],
        passenger_ids: list[str] | None = None,
        cabin: Literal["F", "J", "W", "Y"] | None = None,
    ) -> Result:
        """Replace confirmed segments of a booking with other flights, in one step. Free of
        charge when the booking is disrupted or holds a waiver; otherwise the change fee applies.
        Flights of another airline than the validating carrier need an approved waiver.
        Check-in on replaced segments is lost and checked bags keep their old routing.

        Args:
            locator: The booking reference.
            from_flights: Flights of the booking to give up, e.g. ["KL641"].
            to_flights: Replacement flights in travel order, e.g. ["KL643"] or ["KL1143", "SK271"].
            passenger_ids: Passengers to move; omit for everyone on the from segments.
            cabin: Cabin on the new flights; omit to keep the current cabin.
        """
        booking = self.state["bookings"].get(locator)
        if booking is None:
            return self.fail(f"no booking {locator}")
        if booking.get("status") != "ticketed":
            return self.fail(f"{locator} is {booking.get('status')}; only ticketed bookings can be rebooked")
        if not from_flights or not to_flights:
            return self.fail("from_flights and to_flights must not be empty")
        segs = []
        for n in from_flights:
            seg = self._find_segment(booking, n, passenger_ids)
            if seg is None:
                return self.fail(f"no confirmed segment {n} on {locator} for those passengers")
            segs.append(seg)
        pids = list(passenger_ids or segs[0]["passengers"])
        new_cabin = cabin or segs[0]["cabin"]
        problem = self._bookable(booking, [n for n in to_flights if n not in from_flights], new_cabin, len(pids), pids)
        if problem:
            return self.fail(problem)
        free = self._disrupted(locator) or bool(booking.get("waivers"))
        fee = (
            0
            if free
            else int(self._section("airlines").get(booking.get("validating_carrier"), {}).get("change_fee", 150))
            * len(pids)
        )
        for seg in segs:
            self._remove_pax(booking, seg, pids)
        added = [self._add_segment(booking, n, new_cabin, pids) for n in to_flights]
        booking["change_fees"] = booking.get("change_fees", 0) + fee
        bags = [
            t
            for t, b in self._section("bags").items()
            if b.get("booking") == locator
            and b.get("passenger") in pids
            and b.get("status") != "delivered"
            and set(b.get("routing") or []) & set(from_flights)
        ]
        return self.ok(
            locator=locator,
            passengers=pids,
            cancelled=list(from_flights),
            new_segments=[copy.deepcopy(s) for s in added],
            change_fee=fee,
            bags_still_routed_on_old_flights=bags,
        )

    @tool("operation", minutes=5)
    def request_waiver(self, locator: str, carrier: str, reason: str) -> Result:
        """Ask for an involuntary-reroute waiver (endorsement) so a disrupted booking can be
        moved onto flights of another carrier that interlines with the validating carrier.

        Args:
            locator: The booking reference.
            carrier: Two-letter code of the carrier to endorse the ticket to, e.g. DL.
            reason: Short reason, e.g. "KL641 misconnect after KL1112 delay".
        """
        booking = self.state["bookings"].get(locator)
        if booking is None:
            return self.fail(f"no booking {locator}")
        validating = booking.get("validating_carrier")
        if carrier == validating:
            return self.fail(f"no waiver needed for the validating carrier {carrier}")
        if carrier not in self._section("airlines"):
            return self.fail(f"no airline {carrier}")
        if carrier not in self._partners(validating):
            return self.fail(f"{validating} has no interline agreement with {carrier}; cannot endorse")
        if not self._disrupted(locator):
            return self.fail(f"waiver denied: no disruption on {locator}")
        waivers = booking.setdefault("waivers", [])
        if carrier not in waivers:
            waivers.append(carrier)
        return self.ok(locator=locator, carrier=carrier, waiver_code=f"WVR-{locator}-{carrier}", reason=reason)

    @tool("operation", minutes=3)
    def assign_seat(self, locator: str, flight_number: str, passenger_id: str, seat: str) -> Result:
        """Assign (or change) a passenger's seat on a confirmed segment, from the flight's free seats.

        Args:
            locator: The booking reference.
            flight_number: The segment's flight.
            passenger_id: The passenger to seat.
            seat: Seat such as 38D (row number and letter).
        """
        booking = self.state["bookings"].get(locator)
        if booking is None:
            return self.fail(f"no booking {locator}")
        seg = self._find_segment(booking, flight_number, [passenger_id])
        if seg is None:
            return self.fail(f"{passenger_id} has no confirmed segment {flight_number} on {locator}")
        f = self.state["flights"][flight_number]
        if f.get("status") == "cancelled":
            return self.fail(f"{flight_number} is cancelled")
        sm = f.get("seatmap")
        if not sm:
            return self.fail(f"seat selection is not available on {flight_number}")
        seat = seat.strip().upper()
        if not self._seat_exists(sm, seat):
            return self.fail(f"seat {seat} does not exist on {flight_number} ({f.get('aircraft', 'aircraft')})")
        if (seg.get("seats") or {}).get(passenger_id) == seat:
            return self.ok(locator=locator, flight_number=flight_number, passenger_id=passenger_id, seat=seat)
        if seat not in (sm.get("free") or []):
            return self.fail(f"seat {seat} on {flight_number} is taken")
        self._release_seat(flight_number, seg, passenger_id)
        sm["free"].remove(seat)
        seg.setdefault("seats", {})[passenger_id] = seat
        return self.ok(
            locator=locator,
            flight_number=flight_number,
            passenger_id=passenger_id,
            seat=seat,
            seat_type=self._seat_kind(sm, seat),
        )

    @tool("operation", minutes=5)
    def check_in(self, locator: str, flight_number: str | None = None, passenger_id: str | None = None) -> Result:
        """Check passengers in (window: 24 h before departure until the airline's check-in close).
        Runs a travel-document check (transit and entry) on each passenger's whole itinerary.

        Args:
            locator: The booking reference.
            flight_number: Only this segment; omit for every upcoming segment.
            passenger_id: Only this passenger; omit for everyone.
        """
        booking = self.state["bookings"].get(locator)
        if booking is None:
            return self.fail(f"no booking {locator}")
        if booking.get("status") != "ticketed":
            return self.fail(f"{locator} is {booking.get('status')}; only ticketed bookings can be checked in")
        segs = [
            s
            for s in booking.get("segments", [])
            if s.get("status") == "confirmed"
            and (flight_number is None or s["flight"] == flight_number)
            and (passenger_id is None or passenger_id in s["passengers"])
        ]
        if not segs:
            return self.fail("no confirmed segment to check in")
        errors = []
        for seg in segs:
            f = self.state["flights"][seg["flight"]]
            etd = self._etd(f)
            if f.get("status") == "cancelled":
                errors.append(f"{seg['flight']} is cancelled")
            elif self.now < etd - timedelta(hours=24):
                errors.append(f"check-in for {seg['flight']} opens at {_fmt(etd - timedelta(hours=24))}")
            elif self.now > etd - timedelta(minutes=self._close_minutes(f)):
                errors.append(
                    f"check-in for {seg['flight']} closed at {_fmt(etd - timedelta(minutes=self._close_minutes(f)))}"
                )
            if not self._carrier_accepted(booking, f["airline"]):
                errors.append(
                    f"{f['airline']} cannot accept a ticket validated by "
                    f"{booking.get('validating_carrier')} on {seg['flight']} (no interline agreement)"
                )
        pids = [passenger_id] if passenger_id else list(booking.get("passengers", []))
        for pid in pids:
            flights = [s["flight"] for s in self._pax_segments(booking, pid)]
            for problem in self._doc_problems(pid, flights):
                errors.append(f"document check (Timatic): {problem}")
        if errors:
            return self.fail("check-in refused: " + "; ".join(errors))
        done = []
        for seg in segs:
            for pid in seg["passengers"]:
                if (passenger_id is None or pid == passenger_id) and pid not in seg.setdefault("checked_in", []):
                    seg["checked_in"].append(pid)
            done.append(
                {"flight": seg["flight"], "checked_in": list(seg["checked_in"]), "seats": dict(seg.get("seats") or {})}
            )
        return self.ok(locator=locator, segments=done)

    @tool("operation", minutes=5)
    def check_bags(self, locator: str, passenger_id: str, count: int) -> Result:
        """Check a checked-in passenger's bags through to the booking's destination along the
        passenger's upcoming flights. Fails when the bags cannot be transferred all the way
        (change of airport, too short a connection, no interline baggage agreement).

        Args:
            locator: The booking reference.
            passenger_id: The bags' owner.
            count: Number of bags, 1 to 4.
        """
        booking = self.state["bookings"].get(locator)
        if booking is None:
            return self.fail(f"no booking {locator}")
        if not 1 <= count <= 4:
            return self.fail("count must be between 1 and 4")
        segs = self._pax_segments(booking, passenger_id, ("confirmed",))
        if not segs:
            return self.fail(f"{passenger_id} has no upcoming segment on {locator}")
        if passenger_id not in segs[0].get("checked_in", []):
            return self.fail(f"{passenger_id} must be checked in on {segs[0]['flight']} first")
        routing = [s["flight"] for s in segs]
        first = self.state["flights"][routing[0]]
        problems = self._bag_route_problems(first["dep"], routing, booking.get("destination"))
        if problems:
            return self.fail("cannot check bags through: " + "; ".join(problems))
        bags = self.state.setdefault("bags", {})
        tags = []
        for _ in range(count):
            tag = f"{first['airline']}{731400 + len(bags) + 1}"
            bags[tag] = {
                "booking": locator,
                "passenger": passenger_id,
                "location": first["dep"],
                "custody": first["airline"],
                "routing": list(routing),
                "status": "checked",
                "forwarded": False,
            }
            tags.append(tag)
        return self.ok(
            locator=locator,
            passenger_id=passenger_id,
            tags=tags,
            routing=routing,
            through_to=booking.get("destination"),
        )

    @tool("operation", minutes=5)
    def reroute_bag(self, tag: str, flight_numbers: list[str]) -> Result:
        """Re-route a checked bag from where it is now onto a new chain of flights to the
        booking's destination. A bag not travelling on its owner's flights is sent as a
        forwarded (rush) bag.

        Args:
            tag: The bag tag, e.g. BA731455.
            flight_numbers: Flights in order, the first departing where the bag is now.
        """
        bag = self._section("bags").get(tag)
        if bag is None:
            return self.fail(f"no bag {tag}")
        booking = self.state["bookings"][bag["booking"]]
        problems = self._bag_route_problems(
            bag.get("location", ""), flight_numbers, booking.get("destination"), bag.get("custody")
        )
        if problems:
            return self.fail(f"cannot route {tag}: " + "; ".join(problems))
        own_segs = self._pax_segments(booking, bag["passenger"], ("confirmed",))
        own = {s["flight"] for s in own_segs}
        if not set(flight_numbers) <= own and self._with_owner(bag, own_segs):
            return self.fail(
                f"cannot route {tag}: the bag is where its owner departs, so it must travel on the "
                f"owner's flights ({', '.join(s['flight'] for s in own_segs)}) - passenger/bag "
                f"reconciliation forbids sending it unaccompanied"
            )
        bag["routing"] = list(flight_numbers)
        bag["forwarded"] = not set(flight_numbers) <= own
        bag["status"] = "forwarding" if bag["forwarded"] else "rerouted"
        return self.ok(tag=tag, routing=bag["routing"], status=bag["status"], location=bag.get("location"))

    @tool("operation", minutes=3)
    def issue_voucher(self, locator: str, passenger_id: str, kind: Literal["hotel", "meal", "transport"]) -> Result:
        """Issue a care voucher to a passenger of a disrupted booking (hotel only when the
        passenger's next flight leaves on a later day).

        Args:
            locator: The booking reference.
            passenger_id: The passenger.
            kind: hotel, meal or transport.
        """
        booking = self.state["bookings"].get(locator)
        if booking is None:
            return self.fail(f"no booking {locator}")
        if passenger_id not in booking.get("passengers", []):
            return self.fail(f"{passenger_id} is not on {locator}")
        cancelled = any(
            self.state["flights"].get(s["flight"], {}).get("status") == "cancelled" for s in booking.get("segments", [])
        )
        if not (cancelled or self._disrupted(locator)):
            return self.fail(f"{locator} has no disruption; vouchers are not due")
        if kind == "hotel":
            segs = self._pax_segments(booking, passenger_id, ("confirmed",))
            if not segs or self._etd(self.state["flights"][segs[0]["flight"]]).date() <= self.now.date():
                return self.fail("a hotel voucher needs the passenger's next flight to leave on a later day")
        vouchers = booking.setdefault("vouchers", [])
        code = f"VCH-{locator}-{len(vouchers) + 1}"
        vouchers.append({"passenger": passenger_id, "kind": kind, "code": code, "issued": self.iso()})
        return self.ok(locator=locator, passenger_id=passenger_id, kind=kind, code=code)

    @tool("operation", minutes=2)
    def notify_passenger(self, passenger_id: str, message: str) -> Result:
        """Send a text message to a passenger's phone.

        Args:
            passenger_id: The passenger.
            message: The text to send.
        """
        if passenger_id not in self._section("passengers"):
            return self.fail(f"no passenger {passenger_id}")
        self.state.setdefault("notifications", []).append(
            {"passenger": passenger_id, "sent": self.iso(), "message": message}
        )
        return self.ok(passenger_id=passenger_id, sent=self.iso())

    @tool("operation", minutes=5)
    def add_frequent_flyer(self, locator: str, passenger_id: str, program: str, number: str) -> Result:
        """Attach a frequent-flyer number to a passenger on a booking.

        Args:
            locator: The booking reference.
            passenger_id: The passenger.
            program: Programme name, e.g. Miles & More.
            number: Membership number.
        """
        booking = self.state["bookings"].get(locator)
        if booking is None:
            return self.fail(f"no booking {locator}")
        if passenger_id not in booking.get("passengers", []):
            return self.fail(f"{passenger_id} is not on {locator}")
        booking.setdefault("frequent_flyer", {})[passenger_id] = {"program": program, "number": number}
        return self.ok(locator=locator, passenger_id=passenger_id, program=program, number=number)

    # ======================================================================
    # checks
    # ======================================================================
    @check
    def itinerary_ok(
        self,
        locator: str,
        destination: str | list[str],
        arrive_by: str | None = None,
        passenger_ids: list[str] | None = None,
    ) -> tuple[bool, str]:
        """Ticketed; each passenger's itinerary is connected (MCT and ground transfers), uses
        operating flights, open airports and accepted carriers, passes transit/entry rules,
        and ends at ``destination`` (one of, if a list) by ``arrive_by``."""
        booking = self.state["bookings"].get(locator)
        if booking is None:
            return False, f"no booking {locator}"
        if booking.get("status") != "ticketed":
            return False, f"{locator} is {booking.get('status')}, not ticketed"
        allowed = self._as_list(destination)
        notes = []
        for pid in passenger_ids or booking.get("passengers", []):
            problems, where, when = self._itinerary_problems(locator, pid)
            if where is not None and where not in allowed:
                problems.append(f"ends at {where}, not {'/'.join(allowed)}")
            if arrive_by and when and _dt(when) > _dt(arrive_by):
                problems.append(f"arrives {when}, after {arrive_by}")
            if problems:
                return False, f"{pid}: " + "; ".join(problems)
            notes.append(f"{pid} {'-'.join(s['flight'] for s in self._pax_segments(booking, pid))} arr {when}")
        return True, "; ".join(notes)

    @check
    def checked_in(self, locator: str, passenger_ids: list[str] | None = None) -> tuple[bool, str]:
        """Every passenger is checked in on every upcoming (confirmed) segment."""
        booking = self.state["bookings"].get(locator)
        if booking is None:
            return False, f"no booking {locator}"
        missing = []
        upcoming = [s for s in booking.get("segments", []) if s.get("status") == "confirmed"]
        if not upcoming:
            return False, f"{locator} has no confirmed upcoming segment"
        for seg in upcoming:
            for pid in seg["passengers"]:
                if (passenger_ids is None or pid in passenger_ids) and pid not in seg.get("checked_in", []):
                    missing.append(f"{pid} on {seg['flight']}")
        return not missing, ("not checked in: " + ", ".join(missing)) if missing else "all checked in"

    @check
    def bags_ok(self, locator: str, min_per_passenger: int = 0) -> tuple[bool, str]:
        """Every bag of the booking is routed from where it is to the destination with valid
        transfers; an accompanied bag flies on its owner's flights; each passenger has at
        least ``min_per_passenger`` bags."""
        booking = self.state["bookings"].get(locator)
        if booking is None:
            return False, f"no booking {locator}"
        counts = {p: 0 for p in booking.get("passengers", [])}
        for tag, bag in self._section("bags").items():
            if bag.get("booking") != locator or bag.get("status") == "delivered":
                continue
            counts[bag.get("passenger")] = counts.get(bag.get("passenger"), 0) + 1
            problems = self._bag_route_problems(
                bag.get("location", ""), bag.get("routing") or [], booking.get("destination"), bag.get("custody")
            )
            if problems:
                return False, f"{tag}: " + "; ".join(problems)
            own_segs = self._pax_segments(booking, bag["passenger"], ("confirmed",))
            if not bag.get("forwarded") or self._with_owner(bag, own_segs):
                own = {s["flight"] for s in own_segs}
                if not set(bag.get("routing") or []) <= own:
                    return False, f"{tag} is routed on {bag['routing']}, not on its owner's flights"
        short = [p for p, n in counts.items() if n < min_per_passenger]
        if short:
            return False, f"fewer than {min_per_passenger} bag(s) for {', '.join(short)}"
        return True, f"bags routed correctly ({sum(counts.values())})"

    @check
    def seated_together(self, locator: str, flight_number: str) -> tuple[bool, str]:
        """All passengers of the segment have existing seats in one row, side by side with no aisle between."""
        booking = self.state["bookings"].get(locator)
        if booking is None:
            return False, f"no booking {locator}"
        seg = self._find_segment(booking, flight_number)
        if seg is None:
            return False, f"no confirmed segment {flight_number}"
        sm = self.state["flights"][flight_number].get("seatmap") or {}
        seats = [(seg.get("seats") or {}).get(p) for p in seg["passengers"]]
        if None in seats:
            return False, f"unseated passengers: {seats}"
        if not all(self._seat_exists(sm, s) for s in seats):
            return False, f"seats {seats} do not all exist on the current aircraft"
        rows = {self._split_seat(s)[0] for s in seats}  # type: ignore[index]
        if len(rows) != 1:
            return False, f"seats {seats} are in different rows"
        letters = [self._split_seat(s)[1] for s in seats]  # type: ignore[index]
        for block in sm.get("layout", "").split("|"):
            idx = sorted(block.index(ch) for ch in letters if ch in block)
            if len(idx) == len(letters):
                ok = idx == list(range(idx[0], idx[0] + len(idx)))
                return ok, f"seats {seats}" + ("" if ok else " are not adjacent")
        return False, f"seats {seats} are split by an aisle"

    @check
    def seat_type(
        self, locator: str, passenger_id: str, kind: Literal["window", "aisle"], flight_numbers: list[str] | None = None
    ) -> tuple[bool, str]:
        """The passenger holds an existing seat of that kind on the given flights (default:
        every upcoming segment)."""
        booking = self.state["bookings"].get(locator)
        if booking is None:
            return False, f"no booking {locator}"
        segs = self._pax_segments(booking, passenger_id, ("confirmed",))
        if flight_numbers is not None:
            segs = [s for s in segs if s["flight"] in flight_numbers]
            if len(segs) != len(flight_numbers):
                return False, f"{passenger_id} is not on all of {flight_numbers}"
        if not segs:
            return False, f"{passenger_id} has no upcoming segment"
        for seg in segs:
            seat = (seg.get("seats") or {}).get(passenger_id)
            sm = self.state["flights"][seg["flight"]].get("seatmap") or {}
            if not seat or not self._seat_exists(sm, seat) or self._seat_kind(sm, seat) != kind:
                return False, f"{seg['flight']}: seat {seat} is not a valid {kind} seat"
        return True, ", ".join(f"{s['flight']} {s['seats'][passenger_id]}" for s in segs)

    @check
    def on_flight(self, locator: str, passenger_id: str, flight_number: str) -> tuple[bool, str]:
        """The passenger holds a confirmed segment on that flight."""
        booking = self.state["bookings"].get(locator)
        if booking is None:
            return False, f"no booking {locator}"
        ok = self._find_segment(booking, flight_number, [passenger_id]) is not None
        return ok, f"{passenger_id} {'is' if ok else 'is not'} confirmed on {flight_number}"

    @check
    def has_voucher(self, locator: str, passenger_id: str, kind: str) -> tuple[bool, str]:
        """A voucher of that kind was issued to the passenger."""
        booking = self.state["bookings"].get(locator) or {}
        ok = any(v.get("passenger") == passenger_id and v.get("kind") == kind for v in booking.get("vouchers", []))
        return ok, f"{kind} voucher for {passenger_id}: {'yes' if ok else 'no'}"

    @check
    def notified(
        self,
        passenger_id: str,
        all_of: list[str] | None = None,
        any_of: list[str] | None = None,
        itinerary_of: str | None = None,
    ) -> tuple[bool, str]:
        """One message to the passenger mentions every ``all_of`` term, at least one ``any_of``
        term, and (with ``itinerary_of``, a locator) every upcoming flight of the passenger."""
        must = [t.lower() for t in (all_of or [])]
        if itinerary_of:
            booking = self.state["bookings"].get(itinerary_of) or {}
            must += [s["flight"].lower() for s in self._pax_segments(booking, passenger_id, ("confirmed",))]
        some = [t.lower() for t in (any_of or [])]
        for note in self.state.get("notifications") or []:
            if note.get("passenger") != passenger_id:
                continue
            text = note.get("message", "").lower()
            if all(t in text for t in must) and (not some or any(t in text for t in some)):
                return True, f"message at {note.get('sent')}"
        return False, f"no message to {passenger_id} mentioning {must} and one of {some}"
