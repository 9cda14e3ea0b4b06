"""Conference and event venues: an event-operations desk that puts on meetings, dinners and
briefings across several venues, with rooms, caterers, speakers, event staff (AV crews,
interpreters), ground transfers, fire-safety capacities and noise curfews.

State sections (all plain data, addressable by dotted path):

- ``places`` / ``travel``: venues, stations, airports, depots; road legs between them. A leg
  may carry ``max_weight_t`` (a weight limit: heavier vehicles may not use it) and ``closed``.
- ``venues``: ``{name, place, status: open|closed, curfew: HH:MM (amplified events must end by
  then), closure_reason}``.
- ``rooms``: ``{name, venue, capacity (fire-safety certified headcount), features: [...],
  status: available|closed, note}``.
- ``events``: ``{name, client, start, end, setup (minutes before start the room and staff are
  needed, default 30), headcount, needs: [room features], staff_needed: {role: skill},
  catering: bool, speaker_needed: bool, room, caterer, staff: {role: staff id}, speaker,
  status: draft|confirmed|cancelled, priority: routine|urgent}``.
- ``staff``: ``{name, role: av|interpreter|steward, skills: [...], base (place),
  status: available|off, shift: [ISO, ISO]}``.
- ``caterers``: ``{name, base (place), max_covers, weight_t (of its delivery vehicle),
  status: active|unavailable, lead (minutes on site before the start, default 60),
  dispatch (ISO: when its food can leave the kitchen, or null)}``.
- ``speakers``: ``{name, location (place), ready_at (ISO: when they are at that place),
  available_until (ISO), status: confirmed|withdrawn}``.
- ``vehicles``: ``{name, kind, seats, base, weight_t, status: available|out_of_service}``.
- ``transfers``: ``{speaker, event, vehicle, origin, pickup, arrive, status: booked|cancelled}``.
- ``requests``: ``{event, priority, note, status}``.
- ``notices``: messages sent to speakers, clients, caterers and staff.
- ``policy`` (optional): ``{briefing_minutes: 15}`` (a speaker is at the venue this long
  before the start).

Times are ISO timestamps to the minute (``2025-05-14T09:30``). Resources of an event are
checked afresh on every read, so a change to the world shows as an issue of the event.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any, Literal

from sttui.core.env import Environment, Result, check, tool

ROLES = ("av", "interpreter", "steward")


def _dt(text: str) -> datetime:
    return datetime.fromisoformat(text)


def _fmt(when: datetime) -> str:
    return when.isoformat(timespec="minutes")


def _overlap(a0: datetime, a1: datetime, b0: datetime, b1: datetime) -> bool:
    return a0 < b1 and b0 < a1


class VenuesEnv(Environment):
    """Event operations across several venues, with staff, caterers, speakers and transfers."""

    # -- internal helpers -----------------------------------------------------------
    def _event(self, event_id: str) -> dict[str, Any] | None:
        return self.state["events"].get(event_id)

    def _span(self, ev: dict[str, Any]) -> tuple[datetime, datetime]:
        """When the event holds its room and staff: from set-up to the end."""
        return _dt(ev["start"]) - timedelta(minutes=ev.get("setup", 30)), _dt(ev["end"])

    def _live(self, exclude: str | None = None) -> list[tuple[str, dict[str, Any]]]:
        return [
            (e, ev)
            for e, ev in sorted(self.state["events"].items())
            if e != exclude and ev.get("status") != "cancelled"
        ]

    def _usable(self, weight_t: float | None):
        if not weight_t:
            return None
        return lambda leg: leg.get("max_weight_t") is None or weight_t <= leg["max_weight_t"]

    def _minutes(self, origin: str, dest: str, weight_t: float | None = None) -> float | None:
        return self.travel_minutes(origin, dest, self._usable(weight_t))

    def _venue_place(self, ev: dict[str, Any]) -> str | None:
        room = self.state["rooms"].get(ev.get("room") or "")
        if room is None:
            return None
        venue = self.state["venues"].get(room["venue"])
        return venue["place"] if venue else None

    def _room_problems(self, ev: dict[str, Any], room_id: str, event_id: str | None) -> list[str]:
        room = self.state["rooms"].get(room_id)
        if room is None:
            return [f"no room {room_id}"]
        out: list[str] = []
        venue = self.state["venues"].get(room["venue"], {})
        end = _dt(ev["end"])
        if venue.get("status", "open") != "open":
            out.append(
                f"venue {room['venue']} is {venue.get('status')}"
                + (f" ({venue['closure_reason']})" if venue.get("closure_reason") else "")
            )
        curfew = venue.get("curfew")
        if curfew and end > datetime.fromisoformat(f"{ev['end'][:10]}T{curfew}"):
            out.append(f"{room['venue']} has a {curfew} noise curfew; the event ends {ev['end'][11:]}")
        if room.get("status", "available") != "available":
            out.append(f"room {room_id} is {room['status']}" + (f" ({room['note']})" if room.get("note") else ""))
        if room["capacity"] < ev["headcount"]:
            out.append(f"room {room_id} is certified for {room['capacity']} people; the event has {ev['headcount']}")
        missing = [f for f in ev.get("needs", []) if f not in room.get("features", [])]
        if missing:
            out.append(f"room {room_id} lacks {', '.join(missing)}")
        s0, s1 = self._span(ev)
        for oid, other in self._live(event_id):
            if other.get("room") == room_id and _overlap(s0, s1, *self._span(other)):
                out.append(f"room {room_id} is taken by {oid} {other['start'][11:]}-{other['end'][11:]}")
        return out

    def _staff_problems(self, ev: dict[str, Any], staff_id: str, role: str, event_id: str | None) -> list[str]:
        person = self.state["staff"].get(staff_id)
        if person is None:
            return [f"no staff member {staff_id}"]
        out: list[str] = []
        need = ev.get("staff_needed", {}).get(role)
        if person["role"] != role:
            out.append(f"{staff_id} is {person['role']} staff, not {role}")
        if need and need not in person.get("skills", []):
            out.append(f"{staff_id} lacks {need}")
        if person.get("status", "available") != "available":
            out.append(f"{staff_id} is {person['status']}" + (f" ({person['note']})" if person.get("note") else ""))
        s0, s1 = self._span(ev)
        shift = person.get("shift")
        if not shift or s0 < _dt(shift[0]) or s1 > _dt(shift[1]):
            when = f"{shift[0][11:]}-{shift[1][11:]}" if shift else "no shift"
            out.append(f"{staff_id} works {when}; needed {_fmt(s0)[11:]}-{_fmt(s1)[11:]}")
        place = self._venue_place(ev)
        if place and self._minutes(person["base"], place) is None:
            out.append(f"{staff_id} cannot reach the venue from {person['base']}")
        for oid, other in self._live(event_id):
            if other.get("staff", {}).get(role) == staff_id and _overlap(s0, s1, *self._span(other)):
                out.append(f"{staff_id} is working {oid} {other['start'][11:]}-{other['end'][11:]}")
        return out

    def _caterer_problems(self, ev: dict[str, Any], caterer_id: str, event_id: str | None) -> list[str]:
        cat = self.state["caterers"].get(caterer_id)
        if cat is None:
            return [f"no caterer {caterer_id}"]
        out: list[str] = []
        if cat.get("status", "active") != "active":
            out.append(f"{caterer_id} is {cat['status']}" + (f" ({cat['note']})" if cat.get("note") else ""))
        if cat["max_covers"] < ev["headcount"]:
            out.append(f"{caterer_id} serves at most {cat['max_covers']} covers; the event has {ev['headcount']}")
        lead = timedelta(minutes=cat.get("lead", 60))
        due = _dt(ev["start"]) - lead
        place = self._venue_place(ev)
        if place:
            minutes = self._minutes(cat["base"], place, cat.get("weight_t"))
            if minutes is None:
                out.append(
                    f"{caterer_id}'s {cat.get('weight_t')} t vehicle has no open route from {cat['base']} to {place}"
                )
            elif cat.get("dispatch"):
                arrive = _dt(cat["dispatch"]) + timedelta(minutes=minutes)
                if arrive > due:
                    out.append(
                        f"{caterer_id} can be on site at {_fmt(arrive)[11:]} (food leaves {cat['dispatch'][11:]},"
                        f" {int(minutes)} min drive); needed by {_fmt(due)[11:]}"
                    )
        for oid, other in self._live(event_id):
            if other.get("caterer") == caterer_id and _overlap(
                due, _dt(ev["end"]), _dt(other["start"]) - lead, _dt(other["end"])
            ):
                out.append(f"{caterer_id} is serving {oid} {other['start'][11:]}-{other['end'][11:]}")
        return out

    def _speaker_problems(self, ev: dict[str, Any], speaker_id: str, event_id: str | None) -> list[str]:
        sp = self.state["speakers"].get(speaker_id)
        if sp is None:
            return [f"no speaker {speaker_id}"]
        out: list[str] = []
        if sp.get("status", "confirmed") != "confirmed":
            out.append(f"{speaker_id} has {sp['status']}" + (f" ({sp['note']})" if sp.get("note") else ""))
        if sp.get("available_until") and _dt(ev["end"]) > _dt(sp["available_until"]):
            out.append(f"{speaker_id} must leave at {sp['available_until'][11:]}; the event ends {ev['end'][11:]}")
        for oid, other in self._live(event_id):
            if other.get("speaker") == speaker_id and _overlap(
                _dt(ev["start"]), _dt(ev["end"]), _dt(other["start"]), _dt(other["end"])
            ):
                out.append(f"{speaker_id} speaks at {oid} {other['start'][11:]}-{other['end'][11:]}")
        return out

    def _briefing(self) -> int:
        return int(self.state.get("policy", {}).get("briefing_minutes", 15))

    def _transfer_problems(self, tr: dict[str, Any], transfer_id: str | None) -> list[str]:
        out: list[str] = []
        sp = self.state["speakers"].get(tr["speaker"], {})
        ev = self.state["events"].get(tr["event"], {})
        veh = self.state["vehicles"].get(tr["vehicle"])
        if veh is None:
            return [f"no vehicle {tr['vehicle']}"]
        if veh.get("status", "available") != "available":
            out.append(f"{tr['vehicle']} is {veh['status']}" + (f" ({veh['note']})" if veh.get("note") else ""))
        if sp.get("location") != tr["origin"]:
            out.append(f"{tr['speaker']} is at {sp.get('location')}, not {tr['origin']}")
        pickup = _dt(tr["pickup"])
        if sp.get("ready_at") and pickup < _dt(sp["ready_at"]):
            out.append(
                f"{tr['speaker']} is ready at {tr['origin']} only from {sp['ready_at'][11:]}; pickup {tr['pickup'][11:]}"
            )
        if self._minutes(veh["base"], tr["origin"], veh.get("weight_t")) is None:
            out.append(f"{tr['vehicle']} cannot reach {tr['origin']} from its base")
        place = self._venue_place(ev) if ev else None
        if place is None:
            out.append(f"{tr['event']} has no venue yet")
        else:
            minutes = self._minutes(tr["origin"], place, veh.get("weight_t"))
            if minutes is None:
                out.append(f"no open route from {tr['origin']} to {place}")
            else:
                arrive = pickup + timedelta(minutes=minutes)
                due = _dt(ev["start"]) - timedelta(minutes=self._briefing())
                if arrive > due:
                    out.append(
                        f"arrives {_fmt(arrive)[11:]} ({int(minutes)} min from {tr['origin']});"
                        f" the speaker is needed by {_fmt(due)[11:]}"
                    )
        for oid, other in sorted(self.state["transfers"].items()):
            if (
                oid != transfer_id
                and other["status"] == "booked"
                and other["vehicle"] == tr["vehicle"]
                and _overlap(pickup, _dt(tr["arrive"]), _dt(other["pickup"]), _dt(other["arrive"]))
            ):
                out.append(f"{tr['vehicle']} is on {oid} {other['pickup'][11:]}-{other['arrive'][11:]}")
        return out

    def _speaker_transfer(self, event_id: str, speaker_id: str) -> tuple[str, dict[str, Any]] | None:
        for tid, tr in sorted(self.state["transfers"].items()):
            if tr["event"] == event_id and tr["speaker"] == speaker_id and tr["status"] == "booked":
                return tid, tr
        return None

    def _problems(self, event_id: str) -> list[str]:
        """Everything that stops the event going ahead as planned in the current state."""
        ev = self.state["events"][event_id]
        if ev.get("status") == "cancelled":
            return [f"{event_id} is cancelled"]
        out: list[str] = []
        if not ev.get("room"):
            out.append("no room assigned")
        else:
            out += self._room_problems(ev, ev["room"], event_id)
        staff = ev.get("staff", {})
        for role, _skill in sorted(ev.get("staff_needed", {}).items()):
            if not staff.get(role):
                out.append(f"no {role} staff assigned")
            else:
                out += self._staff_problems(ev, staff[role], role, event_id)
        if ev.get("catering"):
            if not ev.get("caterer"):
                out.append("no caterer assigned")
            else:
                out += self._caterer_problems(ev, ev["caterer"], event_id)
        if ev.get("speaker_needed"):
            sid = ev.get("speaker")
            if not sid:
                out.append("no speaker assigned")
            else:
                out += self._speaker_problems(ev, sid, event_id)
                sp = self.state["speakers"].get(sid, {})
                place = self._venue_place(ev)
                due = _dt(ev["start"]) - timedelta(minutes=self._briefing())
                if place and sp.get("location") == place:
                    if sp.get("ready_at") and _dt(sp["ready_at"]) > due:
                        out.append(f"{sid} is at the venue only from {sp['ready_at'][11:]}; needed by {_fmt(due)[11:]}")
                elif place:
                    found = self._speaker_transfer(event_id, sid)
                    if found is None:
                        out.append(f"{sid} is at {sp.get('location')} with no transfer to the venue")
                    else:
                        out += [f"{found[0]}: {p}" for p in self._transfer_problems(found[1], found[0])]
        return out

    def _event_view(self, event_id: str) -> dict[str, Any]:
        ev = self.state["events"][event_id]
        room = self.state["rooms"].get(ev.get("room") or "")
        return {
            "event_id": event_id,
            **ev,
            "venue": room["venue"] if room else None,
            "issues": self._problems(event_id),
        }

    def _touch(self, ev: dict[str, Any]) -> None:
        """A change to a confirmed event sends it back to draft: it must be confirmed again."""
        if ev.get("status") == "confirmed":
            ev["status"] = "draft"

    def _editable(self, event_id: str) -> tuple[dict[str, Any] | None, str | None]:
        ev = self._event(event_id)
        if ev is None:
            return None, f"no event {event_id}"
        if ev.get("status") == "cancelled":
            return None, f"{event_id} is cancelled"
        return ev, None

    # -- queries ------------------------------------------------------------------------
    @tool("query", minutes=2)
    def list_venues(self) -> Result:
        """Every venue with its place, status, noise curfew and rooms (capacity, features, status)."""
        out = []
        for vid, v in sorted(self.state["venues"].items()):
            rooms = [
                {
                    "room_id": r,
                    "name": room["name"],
                    "capacity": room["capacity"],
                    "features": room.get("features", []),
                    "status": room.get("status", "available"),
                }
                for r, room in sorted(self.state["rooms"].items())
                if room["venue"] == vid
            ]
            out.append({"venue_id": vid, **v, "rooms": rooms})
        return self.ok(venues=out)

    @tool("query", minutes=2)
    def get_venue(self, venue_id: str) -> Result:
        """One venue: place, status, curfew, its rooms and the events booked in them.

        Args:
            venue_id: The venue, e.g. V-HARBOUR.
        """
        v = self.state["venues"].get(venue_id)
        if v is None:
            return self.fail(f"no venue {venue_id}; venues: {', '.join(sorted(self.state['venues']))}")
        rooms = {r: room for r, room in sorted(self.state["rooms"].items()) if room["venue"] == venue_id}
        events = [
            {
                "event_id": e,
                "name": ev["name"],
                "room": ev.get("room"),
                "start": ev["start"],
                "end": ev["end"],
                "status": ev.get("status"),
            }
            for e, ev in self._live()
            if ev.get("room") in rooms
        ]
        return self.ok(venue_id=venue_id, **v, rooms=rooms, events=events)

    @tool("query", minutes=2)
    def get_room(self, room_id: str) -> Result:
        """One room: venue, fire-safety capacity, features, status and its bookings.

        Args:
            room_id: The room, e.g. R-HARBOUR-A.
        """
        room = self.state["rooms"].get(room_id)
        if room is None:
            return self.fail(f"no room {room_id}")
        bookings = [
            {"event_id": e, "start": ev["start"], "end": ev["end"], "setup": ev.get("setup", 30)}
            for e, ev in self._live()
            if ev.get("room") == room_id
        ]
        return self.ok(room_id=room_id, **room, bookings=bookings)

    @tool("query", minutes=3)
    def find_rooms(self, event_id: str) -> Result:
        """Rooms that could hold the event at its time (capacity, features, status, curfew, clashes),
        and, for every other room, why not.

        Args:
            event_id: The event, e.g. EV-LAUNCH.
        """
        ev = self._event(event_id)
        if ev is None:
            return self.fail(f"no event {event_id}")
        fits, others = [], []
        for r, room in sorted(self.state["rooms"].items()):
            probs = self._room_problems(ev, r, event_id)
            row = {"room_id": r, "venue": room["venue"], "capacity": room["capacity"]}
            if probs:
                others.append({**row, "why_not": probs})
            else:
                fits.append(row)
        return self.ok(event_id=event_id, rooms=fits, unsuitable=others)

    @tool("query", minutes=2)
    def get_event(self, event_id: str) -> Result:
        """One event with its room, venue, staff, caterer, speaker, status and current issues.

        Args:
            event_id: The event, e.g. EV-LAUNCH.
        """
        if event_id not in self.state["events"]:
            return self.fail(f"no event {event_id}")
        return self.ok(**self._event_view(event_id))

    @tool("query", minutes=2)
    def list_events(self, venue_id: str | None = None) -> Result:
        """Events (not cancelled) with their times, rooms, status and priority.

        Args:
            venue_id: Only events in this venue's rooms; omit for all.
        """
        out = []
        for e, ev in self._live():
            room = self.state["rooms"].get(ev.get("room") or "")
            if venue_id and (room is None or room["venue"] != venue_id):
                continue
            out.append(
                {
                    "event_id": e,
                    "name": ev["name"],
                    "start": ev["start"],
                    "end": ev["end"],
                    "headcount": ev["headcount"],
                    "room": ev.get("room"),
                    "status": ev.get("status"),
                    "priority": ev.get("priority", "routine"),
                }
            )
        return self.ok(events=out)

    @tool("query", minutes=2)
    def list_staff(self, role: Literal["av", "interpreter", "steward"] | None = None) -> Result:
        """Event staff with role, skills, base, shift, status and the events they work.

        Args:
            role: av, interpreter or steward; omit for all.
        """
        out = []
        for sid, person in sorted(self.state["staff"].items()):
            if role and person["role"] != role:
                continue
            work = [e for e, ev in self._live() if sid in ev.get("staff", {}).values()]
            out.append({"staff_id": sid, **person, "events": work})
        return self.ok(staff=out)

    @tool("query", minutes=2)
    def get_staff(self, staff_id: str) -> Result:
        """One staff member: role, skills, base, shift, status and events.

        Args:
            staff_id: The staff member, e.g. AV-2.
        """
        person = self.state["staff"].get(staff_id)
        if person is None:
            return self.fail(f"no staff member {staff_id}")
        work = [e for e, ev in self._live() if staff_id in ev.get("staff", {}).values()]
        return self.ok(staff_id=staff_id, **person, events=work)

    @tool("query", minutes=2)
    def list_caterers(self) -> Result:
        """Caterers with base, covers, vehicle weight, status, lead time, dispatch time and events."""
        out = []
        for cid, cat in sorted(self.state["caterers"].items()):
            work = [e for e, ev in self._live() if ev.get("caterer") == cid]
            out.append({"caterer_id": cid, **cat, "events": work})
        return self.ok(caterers=out)

    @tool("query", minutes=2)
    def get_caterer(self, caterer_id: str) -> Result:
        """One caterer: base, covers, vehicle weight, status, lead time, dispatch time, events.

        Args:
            caterer_id: The caterer, e.g. CAT-SALT.
        """
        cat = self.state["caterers"].get(caterer_id)
        if cat is None:
            return self.fail(f"no caterer {caterer_id}")
        work = [e for e, ev in self._live() if ev.get("caterer") == caterer_id]
        return self.ok(caterer_id=caterer_id, **cat, events=work)

    @tool("query", minutes=2)
    def get_speaker(self, speaker_id: str) -> Result:
        """One speaker: where they are and from when, until when they are free, status, events
        and transfers.

        Args:
            speaker_id: The speaker, e.g. SP-OKONJO.
        """
        sp = self.state["speakers"].get(speaker_id)
        if sp is None:
            return self.fail(f"no speaker {speaker_id}")
        events = [e for e, ev in self._live() if ev.get("speaker") == speaker_id]
        transfers = {t: tr for t, tr in sorted(self.state["transfers"].items()) if tr["speaker"] == speaker_id}
        return self.ok(speaker_id=speaker_id, **sp, events=events, transfers=transfers)

    @tool("query", minutes=2)
    def list_speakers(self) -> Result:
        """Every speaker with location, readiness, availability and status."""
        return self.ok(speakers=[{"speaker_id": s, **sp} for s, sp in sorted(self.state["speakers"].items())])

    @tool("query", minutes=2)
    def list_vehicles(self) -> Result:
        """Transfer vehicles with kind, seats, base, weight and status, and their booked transfers."""
        out = []
        for vid, veh in sorted(self.state["vehicles"].items()):
            trips = [
                t
                for t, tr in sorted(self.state["transfers"].items())
                if tr["vehicle"] == vid and tr["status"] == "booked"
            ]
            out.append({"vehicle_id": vid, **veh, "transfers": trips})
        return self.ok(vehicles=out)

    @tool("query", minutes=2)
    def get_transfer(self, transfer_id: str) -> Result:
        """One ground transfer with its current issues.

        Args:
            transfer_id: The transfer, e.g. TR-1.
        """
        tr = self.state["transfers"].get(transfer_id)
        if tr is None:
            return self.fail(f"no transfer {transfer_id}")
        issues = self._transfer_problems(tr, transfer_id) if tr["status"] == "booked" else []
        return self.ok(transfer_id=transfer_id, **tr, issues=issues)

    @tool("query", minutes=2)
    def get_route(self, origin: str, destination: str, weight_t: float | None = None) -> Result:
        """Shortest open road route between two places, in minutes, with the places on it.

        Args:
            origin: Place id.
            destination: Place id.
            weight_t: The vehicle's weight in tonnes, to avoid legs with a lower weight limit.
        """
        places = self.state.get("places", {})
        for p in (origin, destination):
            if p not in places:
                return self.fail(f"no place {p}")
        path = self.route(origin, destination, self._usable(weight_t))
        if path is None:
            return self.fail(
                f"no open route from {origin} to {destination}" + (f" for a {weight_t} t vehicle" if weight_t else "")
            )
        return self.ok(
            origin=origin, destination=destination, minutes=self._minutes(origin, destination, weight_t), via=path
        )

    @tool("query", minutes=2)
    def list_requests(self, status: str | None = None) -> Result:
        """Requests in the desk's queue, with the event, priority and note.

        Args:
            status: e.g. pending; omit for all.
        """
        reqs = [
            {"request_id": r, **q}
            for r, q in sorted(self.state.get("requests", {}).items())
            if status is None or q.get("status") == status
        ]
        return self.ok(requests=reqs)

    # -- operations --------------------------------------------------------------------
    @tool("operation", minutes=4)
    def assign_room(self, event_id: str, room_id: str) -> Result:
        """Put the event in a room (replacing its current room). Refused if the room cannot hold it.

        Args:
            event_id: The event.
            room_id: The room.
        """
        ev, err = self._editable(event_id)
        if ev is None:
            return self.fail(err or "")
        probs = self._room_problems(ev, room_id, event_id)
        if probs:
            return self.fail("; ".join(probs))
        ev["room"] = room_id
        self._touch(ev)
        return self.ok(
            event_id=event_id, room=room_id, venue=self.state["rooms"][room_id]["venue"], status=ev["status"]
        )

    @tool("operation", minutes=3)
    def assign_staff(self, event_id: str, staff_id: str) -> Result:
        """Put a staff member on the event in their role (replacing whoever held that role).
        Refused if they cannot work it.

        Args:
            event_id: The event.
            staff_id: The staff member.
        """
        ev, err = self._editable(event_id)
        if ev is None:
            return self.fail(err or "")
        person = self.state["staff"].get(staff_id)
        if person is None:
            return self.fail(f"no staff member {staff_id}")
        role = person["role"]
        if role not in ev.get("staff_needed", {}):
            return self.fail(f"{event_id} needs no {role} staff")
        probs = self._staff_problems(ev, staff_id, role, event_id)
        if probs:
            return self.fail("; ".join(probs))
        ev.setdefault("staff", {})[role] = staff_id
        self._touch(ev)
        return self.ok(event_id=event_id, role=role, staff_id=staff_id, status=ev["status"])

    @tool("operation", minutes=4)
    def assign_caterer(self, event_id: str, caterer_id: str) -> Result:
        """Give the event's catering to a caterer (replacing the current one). Refused if they
        cannot serve it.

        Args:
            event_id: The event.
            caterer_id: The caterer.
        """
        ev, err = self._editable(event_id)
        if ev is None:
            return self.fail(err or "")
        if not ev.get("catering"):
            return self.fail(f"{event_id} has no catering")
        probs = self._caterer_problems(ev, caterer_id, event_id)
        if probs:
            return self.fail("; ".join(probs))
        ev["caterer"] = caterer_id
        self._touch(ev)
        return self.ok(event_id=event_id, caterer=caterer_id, status=ev["status"])

    @tool("operation", minutes=3)
    def assign_speaker(self, event_id: str, speaker_id: str) -> Result:
        """Put a speaker on the event (replacing the current one). Refused if they cannot do it.

        Args:
            event_id: The event.
            speaker_id: The speaker.
        """
        ev, err = self._editable(event_id)
        if ev is None:
            return self.fail(err or "")
        if not ev.get("speaker_needed"):
            return self.fail(f"{event_id} has no speaker slot")
        probs = self._speaker_problems(ev, speaker_id, event_id)
        if probs:
            return self.fail("; ".join(probs))
        ev["speaker"] = speaker_id
        self._touch(ev)
        return self.ok(event_id=event_id, speaker=speaker_id, status=ev["status"])

    @tool("operation", minutes=4)
    def reschedule_event(self, event_id: str, start: str, end: str) -> Result:
        """Move the event to new times in its room. Refused if its room cannot hold it then;
        check its staff, caterer and speaker afterwards.

        Args:
            event_id: The event.
            start: New start, ISO (2025-05-14T10:00).
            end: New end, ISO.
        """
        ev, err = self._editable(event_id)
        if ev is None:
            return self.fail(err or "")
        try:
            s, e = _dt(start), _dt(end)
        except ValueError:
            return self.fail("start and end must be ISO timestamps like 2025-05-14T10:00")
        if e <= s:
            return self.fail("the end must be after the start")
        if s.date() != _dt(ev["start"]).date():
            return self.fail("an event can only move within its day")
        if s - timedelta(minutes=ev.get("setup", 30)) < self.now:
            return self.fail(
                f"too late to move {event_id} to {_fmt(s)[11:]}: its set-up would start before now ({self.iso()[11:]})"
            )
        trial = {**ev, "start": _fmt(s), "end": _fmt(e)}
        if ev.get("room"):
            probs = self._room_problems(trial, ev["room"], event_id)
            if probs:
                return self.fail("; ".join(probs))
        ev["start"], ev["end"] = _fmt(s), _fmt(e)
        self._touch(ev)
        return self.ok(
            event_id=event_id, start=ev["start"], end=ev["end"], status=ev["status"], issues=self._problems(event_id)
        )

    @tool("operation", minutes=4)
    def book_transfer(self, speaker_id: str, event_id: str, vehicle_id: str, origin: str, pickup_time: str) -> Result:
        """Book a car to take a speaker from a place to the event's venue. Refused if it cannot work.

        Args:
            speaker_id: The speaker.
            event_id: The event they speak at (its room decides the venue).
            vehicle_id: The vehicle.
            origin: Where to collect them (a place id).
            pickup_time: ISO pickup time.
        """
        if speaker_id not in self.state["speakers"]:
            return self.fail(f"no speaker {speaker_id}")
        ev = self._event(event_id)
        if ev is None:
            return self.fail(f"no event {event_id}")
        if origin not in self.state.get("places", {}):
            return self.fail(f"no place {origin}")
        try:
            pickup = _dt(pickup_time)
        except ValueError:
            return self.fail("pickup_time must be an ISO timestamp like 2025-05-14T08:30")
        place = self._venue_place(ev)
        veh = self.state["vehicles"].get(vehicle_id)
        if veh is None:
            return self.fail(f"no vehicle {vehicle_id}")
        minutes = self._minutes(origin, place, veh.get("weight_t")) if place else None
        tr = {
            "speaker": speaker_id,
            "event": event_id,
            "vehicle": vehicle_id,
            "origin": origin,
            "pickup": _fmt(pickup),
            "arrive": _fmt(pickup + timedelta(minutes=minutes or 0)),
            "status": "booked",
        }
        probs = self._transfer_problems(tr, None)
        if probs:
            return self.fail("; ".join(probs))
        n = 1
        while f"TR-{n}" in self.state["transfers"]:
            n += 1
        self.state["transfers"][f"TR-{n}"] = tr
        self._touch(ev)
        return self.ok(transfer_id=f"TR-{n}", **tr)

    @tool("operation", minutes=2)
    def cancel_transfer(self, transfer_id: str) -> Result:
        """Cancel a booked transfer.

        Args:
            transfer_id: The transfer.
        """
        tr = self.state["transfers"].get(transfer_id)
        if tr is None:
            return self.fail(f"no transfer {transfer_id}")
        if tr["status"] != "booked":
            return self.fail(f"{transfer_id} is {tr['status']}")
        tr["status"] = "cancelled"
        return self.ok(transfer_id=transfer_id, status="cancelled")

    @tool("operation", minutes=3)
    def confirm_event(self, event_id: str) -> Result:
        """Confirm the event with the client and every supplier. Refused while it has issues.

        Args:
            event_id: The event.
        """
        ev, err = self._editable(event_id)
        if ev is None:
            return self.fail(err or "")
        probs = self._problems(event_id)
        if probs:
            return self.fail(f"{event_id} cannot be confirmed: " + "; ".join(probs), issues=probs)
        ev["status"] = "confirmed"
        return self.ok(event_id=event_id, status="confirmed")

    @tool("operation", minutes=3)
    def cancel_event(self, event_id: str, reason: str) -> Result:
        """Cancel an event (frees its room, staff, caterer and speaker).

        Args:
            event_id: The event.
            reason: Why, for the client.
        """
        ev, err = self._editable(event_id)
        if ev is None:
            return self.fail(err or "")
        ev["status"] = "cancelled"
        ev["cancel_reason"] = reason
        return self.ok(event_id=event_id, status="cancelled")

    @tool("operation", minutes=2)
    def notify(self, recipient: str, message: str) -> Result:
        """Send a message to a speaker, caterer, staff member or an event's client (by event id).

        Args:
            recipient: A speaker, caterer, staff or event id.
            message: What to tell them.
        """
        known = ("speakers", "caterers", "staff", "events")
        if not any(recipient in self.state[k] for k in known):
            return self.fail(f"no speaker, caterer, staff member or event {recipient}")
        self.state.setdefault("notices", []).append({"to": recipient, "at": self.iso(), "message": message})
        return self.ok(recipient=recipient, sent_at=self.iso())

    # -- checks ------------------------------------------------------------------------------
    @check
    def event_ready(self, event_id: str, venue_id: str | None = None) -> tuple[bool, str]:
        """The event is confirmed and nothing stops it going ahead (optionally at a venue)."""
        ev = self._event(event_id)
        if ev is None:
            return False, f"no event {event_id}"
        probs = self._problems(event_id)
        if ev.get("status") != "confirmed":
            probs = [f"{event_id} is {ev.get('status')}, not confirmed", *probs]
        if venue_id:
            room = self.state["rooms"].get(ev.get("room") or "")
            if room is None or room["venue"] != venue_id:
                probs.append(f"{event_id} is not at {venue_id}")
        return (not probs, "; ".join(probs) if probs else f"{event_id} confirmed and ready")

    @check
    def notified(self, recipient: str, mentions: list[str] | None = None) -> tuple[bool, str]:
        """The recipient was sent a message (mentioning each of ``mentions``, case-insensitive)."""
        msgs = [n["message"].lower() for n in self.state.get("notices", []) if n["to"] == recipient]
        if not msgs:
            return False, f"{recipient} was never notified"
        need = [m.lower() for m in (mentions or [])]
        if any(all(m in text for m in need) for text in msgs):
            return True, f"{recipient} notified"
        return False, f"no message to {recipient} mentions all of {', '.join(need)}"

    @check
    def lasts(self, event_id: str, minutes: int) -> tuple[bool, str]:
        """The event still runs for ``minutes`` (a move may not cut it short)."""
        ev = self._event(event_id)
        if ev is None:
            return False, f"no event {event_id}"
        length = int((_dt(ev["end"]) - _dt(ev["start"])).total_seconds() // 60)
        return (
            length == minutes,
            f"{event_id} runs {length} minutes ({ev['start'][11:]}-{ev['end'][11:]}), wanted {minutes}",
        )

    @check
    def untouched(self, event_id: str) -> tuple[bool, str]:
        """Another client's event still stands as it was booked: not cancelled, still confirmed."""
        ev = self._event(event_id)
        if ev is None:
            return False, f"no event {event_id}"
        if ev.get("status") != "confirmed":
            return False, f"{event_id} is {ev.get('status')}"
        return True, f"{event_id} still confirmed"
