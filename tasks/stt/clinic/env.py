"""Outpatient clinic scheduling: sites, clinicians, rooms, equipment, patients,
appointments, referrals (prior authorisations) and patient transport.

State sections (all plain data, addressable by dotted path):

- ``places`` / ``travel``: sites and residential districts, road legs between them.
- ``sites``: ``{name, status: open|closed, hours: [HH:MM, HH:MM], step_free, closures: [{from, to, reason}]}``.
- ``services``: ``{name, specialty, duration, room_type, equipment (type or null),
  requires_referral, requires (service or null), report_minutes}``.
- ``clinicians``: ``{name, specialty, status: active|off, shifts: {YYYY-MM-DD: {site, start, end}}}``.
- ``rooms``: ``{name, site, type, status: available|out_of_service}``.
- ``equipment``: ``{name, type, location (site), room (or null), status: operational|failed,
  transfers: [{at, to}]}`` (planned moves of portable equipment).
- ``patients``: ``{name, dob, mobility: ambulatory|wheelchair|stretcher, location (place),
  ready_from (ISO or null), preferred_sites, needs}``.
- ``referrals``: ``{patient, service, site (or null for any), valid_until, status: active|revoked, insurer}``.
- ``appointments``: ``{patient, service, clinician, site, room, equipment, start, end,
  status: booked|held|in_progress|completed|cancelled, referral, hold_expires}``.
- ``vehicles``: ``{name, kind: car|wheelchair_van|ambulance, base, status: available|out_of_service,
  shift: [HH:MM, HH:MM]}``.
- ``transports``: ``{patient, appointment, vehicle, from, to, pickup, arrival, delay_minutes,
  status: booked|cancelled|handoff_failed}``.
- ``requests``: waiting-list / triage requests ``{patient, service, priority, needed_by, note, status}``.
- ``notifications``: messages sent to patients.
- ``policy`` (optional): ``{checkin_minutes: 10, max_wait_minutes: 90}``.

Times are ISO timestamps to the minute (``2024-09-12T10:15``).
"""

from __future__ import annotations

import functools
from datetime import datetime, timedelta
from typing import Any, Literal

from sttui.core.env import Environment, Result, check, tool

ACTIVE = ("booked", "in_progress")
VEHICLE_FITS = {
    "ambulatory": ("car", "wheelchair_van", "ambulance"),
    "wheelchair": ("wheelchair_van", "ambulance"),
    "stretcher": ("ambulance",),
}


@functools.lru_cache(maxsize=8192)
def _dt(text: str) -> datetime:
    """A timestamp read once: ``find_slots`` checks every slot against every booking, and the
    same few hundred strings were parsed tens of thousands of times (datetimes never change)."""
    return datetime.fromisoformat(text)


def _fmt(when: datetime) -> str:
    return when.isoformat(timespec="minutes")


@functools.lru_cache(maxsize=8192)
def _at(date: str, hhmm: str) -> datetime:
    return datetime.fromisoformat(f"{date}T{hhmm}")


def _overlap(a0: datetime, a1: datetime, b0: datetime, b1: datetime) -> bool:
    return a0 < b1 and b0 < a1


class ClinicEnv(Environment):
    """Clinic scheduling across several sites with patient transport."""

    # Results may share dicts with the state: the engine copies every result (docs §2).

    # -- internal helpers --------------------------------------------------------
    def _policy(self, key: str, default: int) -> int:
        return int(self.state.get("policy", {}).get(key, default))

    def _new_id(self, prefix: str, section: dict[str, Any]) -> str:
        n = 1
        while f"{prefix}-{n}" in section:
            n += 1
        return f"{prefix}-{n}"

    def _blocking(self, apt: dict[str, Any]) -> bool:
        """Does this appointment occupy its clinician, room, equipment and patient?"""
        if apt.get("status") in ACTIVE:
            return True
        if apt.get("status") == "held":
            expires = apt.get("hold_expires")
            return expires is None or self.now < _dt(expires)
        return False

    def _equipment_site(self, eq: dict[str, Any], when: datetime) -> str:
        site = eq.get("location")
        for move in sorted(eq.get("transfers", []), key=lambda m: m["at"]):
            if _dt(move["at"]) <= when:
                site = move["to"]
        return site

    def _site_closed(self, site: dict[str, Any], start: datetime, end: datetime) -> str | None:
        if site.get("status", "open") != "open":
            return f"site is {site.get('status')}" + (f" ({site['closure_reason']})" if site.get("closure_reason") else "")
        for c in site.get("closures", []):
            if _overlap(start, end, _dt(c["from"]), _dt(c["to"])):
                return f"site closed {c['from']} to {c['to']} ({c.get('reason', 'closure')})"
        date = start.date().isoformat()
        opens, closes = site.get("hours", ["00:00", "23:59"])
        if start < _at(date, opens) or end > _at(date, closes):
            return f"outside opening hours {opens}-{closes}"
        return None

    def _problems(self, apt: dict[str, Any], exclude: str | None = None, patient_checks: bool = True,
                  prereq: bool = True, first: bool = False) -> list[str]:
        """Everything that makes an appointment invalid in the current state. ``first``: stop
        after the first kind of check that finds one (``find_slots`` only asks whether any does,
        for every slot, room and device, and most of them fail)."""
        out: list[str] = []
        svc = self.state["services"].get(apt["service"])
        if svc is None:
            return [f"unknown service {apt['service']}"]
        start, end = _dt(apt["start"]), _dt(apt["end"])
        date = start.date().isoformat()
        site = self.state["sites"].get(apt["site"])
        if site is None:
            return [f"unknown site {apt['site']}"]
        closed = self._site_closed(site, start, end)
        if closed:
            out.append(f"{apt['site']}: {closed}")
        if first and out:
            return out
        # clinician
        cl = self.state["clinicians"].get(apt["clinician"])
        if cl is None:
            out.append(f"unknown clinician {apt['clinician']}")
        else:
            if cl.get("status", "active") != "active":
                out.append(f"{apt['clinician']} is {cl['status']}")
            if cl["specialty"] != svc["specialty"]:
                out.append(f"{apt['clinician']} is {cl['specialty']}, {apt['service']} needs {svc['specialty']}")
            shift = cl.get("shifts", {}).get(date)
            if shift is None:
                out.append(f"{apt['clinician']} has no shift on {date}")
            elif shift["site"] != apt["site"]:
                out.append(f"{apt['clinician']} works at {shift['site']} on {date}, not {apt['site']}")
            elif start < _at(date, shift["start"]) or end > _at(date, shift["end"]):
                out.append(f"{apt['clinician']} works {shift['start']}-{shift['end']} on {date}")
        if first and out:
            return out
        # room
        room = self.state["rooms"].get(apt.get("room") or "")
        if room is None:
            out.append(f"no room {apt.get('room')}")
        else:
            if room["site"] != apt["site"]:
                out.append(f"room {apt['room']} is at {room['site']}")
            if room["type"] != svc["room_type"]:
                out.append(f"room {apt['room']} is a {room['type']} room, {apt['service']} needs {svc['room_type']}")
            if room.get("status", "available") != "available":
                out.append(f"room {apt['room']} is {room['status']}")
        if first and out:
            return out
        # equipment
        if svc.get("equipment"):
            eq = self.state["equipment"].get(apt.get("equipment") or "")
            if eq is None:
                out.append(f"{apt['service']} needs {svc['equipment']}; none assigned")
            else:
                if eq["type"] != svc["equipment"]:
                    out.append(f"{apt['equipment']} is a {eq['type']}, not {svc['equipment']}")
                if eq.get("status", "operational") != "operational":
                    out.append(f"{apt['equipment']} is {eq['status']}")
                for down in eq.get("outages", []):
                    if _overlap(start, end, _dt(down["from"]), _dt(down["to"])):
                        out.append(f"{apt['equipment']} is out of service {down['from']} to {down['to']}"
                                   f" ({down.get('reason', 'outage')})")
                for when in (start, end - timedelta(minutes=1)):
                    where = self._equipment_site(eq, when)
                    if where != apt["site"]:
                        out.append(f"{apt['equipment']} is at {where} at {_fmt(when)}, not {apt['site']}")
                        break
                if eq.get("room") and eq["room"] != apt.get("room"):
                    out.append(f"{apt['equipment']} is installed in room {eq['room']}")
        if first and out:
            return out
        # double booking
        for oid, other in self.state["appointments"].items():
            if oid == exclude or not self._blocking(other):
                continue
            if not _overlap(start, end, _dt(other["start"]), _dt(other["end"])):
                continue
            span = f"{oid} {other['start'][11:]}-{other['end'][11:]}"
            if other["clinician"] == apt["clinician"]:
                out.append(f"{apt['clinician']} is busy with {span}")
            if apt.get("room") and other.get("room") == apt.get("room"):
                out.append(f"room {apt['room']} is taken by {span}")
            if apt.get("equipment") and other.get("equipment") == apt.get("equipment"):
                out.append(f"{apt['equipment']} is in use by {span}")
            if patient_checks and apt.get("patient") and other.get("patient") == apt.get("patient"):
                out.append(f"{apt['patient']} already has {span}")
        if not patient_checks or not apt.get("patient") or (first and out):
            return out
        patient = self.state["patients"].get(apt["patient"])
        if patient is None:
            out.append(f"unknown patient {apt['patient']}")
            return out
        if patient.get("mobility") in ("wheelchair", "stretcher") and not site.get("step_free", True):
            out.append(f"{apt['site']} has no step-free access for a {patient['mobility']} user")
        if first and out:
            return out
        # referral / prior authorisation
        if svc.get("requires_referral"):
            ref = self.state.get("referrals", {}).get(apt.get("referral") or "")
            if ref is None:
                out.append(f"{apt['service']} needs a referral; none attached")
            else:
                if ref["patient"] != apt["patient"] or ref["service"] != apt["service"]:
                    out.append(f"referral {apt['referral']} is for {ref['patient']} / {ref['service']}")
                if ref.get("status", "active") != "active":
                    out.append(f"referral {apt['referral']} is {ref['status']}")
                if ref.get("site") and ref["site"] != apt["site"]:
                    out.append(f"referral {apt['referral']} authorises {ref['site']}, not {apt['site']}")
                if start >= _dt(ref["valid_until"]):
                    out.append(f"referral {apt['referral']} expires {ref['valid_until']}, before {apt['start']}")
        if first and out:
            return out
        # prerequisite result (e.g. a review needs the scan reported first)
        if prereq and svc.get("requires"):
            gap = int(svc.get("report_minutes", 0))
            ok_prior = [
                oid for oid, o in self.state["appointments"].items()
                if oid != exclude and o["patient"] == apt["patient"] and o["service"] == svc["requires"]
                and (o["status"] == "completed" or (o["status"] in ACTIVE and not self._problems(o, oid, prereq=False)))
                and _dt(o["end"]) + timedelta(minutes=gap) <= start
            ]
            if not ok_prior:
                out.append(f"{apt['service']} needs a valid {svc['requires']} ending at least {gap} min before")
        return out

    def _apt_problems(self, apt_id: str) -> list[str]:
        apt = self.state["appointments"][apt_id]
        if apt["status"] == "held":
            if apt.get("hold_expires") and self.now >= _dt(apt["hold_expires"]):
                return [f"hold expired at {apt['hold_expires']}"]
            return ["slot is only held, not confirmed"] + self._problems(apt, apt_id)
        if apt["status"] != "booked":
            return [f"appointment is {apt['status']}"]
        return self._problems(apt, apt_id)

    def _allocate(self, apt: dict[str, Any], room_id: str | None, equipment_id: str | None,
                  exclude: str | None = None) -> str | None:
        """Fill in room and equipment (when not given) so the appointment is valid, apart from a
        prerequisite result (a booking may precede its scan); the error, or None."""
        svc = self.state["services"][apt["service"]]
        rooms = [room_id] if room_id else sorted(
            r for r, room in self.state["rooms"].items()
            if room["site"] == apt["site"] and room["type"] == svc["room_type"])
        if not rooms:
            return f"{apt['site']} has no {svc['room_type']} room"
        eqs: list[str | None] = [None]
        if svc.get("equipment"):
            if equipment_id:
                eqs = [equipment_id]
            else:
                start = _dt(apt["start"])
                eqs = sorted(e for e, eq in self.state["equipment"].items()
                             if eq["type"] == svc["equipment"] and self._equipment_site(eq, start) == apt["site"])
                if not eqs:
                    elsewhere = ", ".join(f"{e} at {self._equipment_site(eq, start)}"
                                          for e, eq in sorted(self.state["equipment"].items())
                                          if eq["type"] == svc["equipment"])
                    return (f"no {svc['equipment']} at {apt['site']} at {apt['start']}"
                            + (f" ({elsewhere})" if elsewhere else ""))
        best: list[str] | None = None
        for r in rooms:
            for e in eqs:
                if e and not equipment_id and self.state["equipment"][e].get("room") not in (None, r):
                    continue
                trial = {**apt, "room": r, "equipment": e}
                probs = self._problems(trial, exclude, prereq=False)
                if not probs:
                    apt["room"], apt["equipment"] = r, e
                    return None
                if best is None or len(probs) < len(best):
                    best = probs
        return "; ".join(best or ["no suitable room and equipment combination"])

    def _prereq_warnings(self, apt: dict[str, Any], exclude: str | None) -> list[str]:
        full = self._problems(apt, exclude)
        return [p for p in full if " needs a valid " in p]

    def _patient_place(self, patient_id: str, when: datetime, exclude_apt: str | None = None) -> tuple[str, str | None]:
        """Where the patient is at ``when``: (place, problem)."""
        patient = self.state["patients"][patient_id]
        place = patient.get("location")
        latest: datetime | None = None
        for oid, o in self.state["appointments"].items():
            if oid == exclude_apt or o["patient"] != patient_id or o["status"] not in ("booked", "in_progress", "completed"):
                continue
            s, e = _dt(o["start"]), _dt(o["end"])
            if s.date() != when.date():
                continue
            if s < when < e:
                return o["site"], f"{patient_id} is in appointment {oid} until {o['end']}"
            if e <= when and (latest is None or e > latest):
                latest, place = e, o["site"]
        return place, None

    def _transport_problems(self, tr: dict[str, Any], exclude: str | None = None) -> list[str]:
        out: list[str] = []
        if tr.get("status") != "booked":
            return [f"transport is {tr.get('status')}" + (f": {tr['note']}" if tr.get("note") else "")]
        apt = self.state["appointments"].get(tr["appointment"])
        patient = self.state["patients"].get(tr["patient"])
        vehicle = self.state["vehicles"].get(tr["vehicle"])
        if apt is None or patient is None or vehicle is None:
            return ["unknown appointment, patient or vehicle"]
        if apt["status"] not in ("booked", "held"):
            out.append(f"appointment {tr['appointment']} is {apt['status']}")
        if vehicle.get("status", "available") != "available":
            out.append(f"{tr['vehicle']} is {vehicle['status']}")
        if vehicle["kind"] not in VEHICLE_FITS.get(patient.get("mobility", "ambulatory"), ()):
            out.append(f"{tr['vehicle']} ({vehicle['kind']}) cannot carry a {patient['mobility']} patient")
        pickup = _dt(tr["pickup"])
        minutes = self.travel_minutes(tr["from"], apt["site"])
        if tr["to"] != apt["site"]:
            out.append(f"transport goes to {tr['to']} but {tr['appointment']} is at {apt['site']}")
        dest = self.state["sites"].get(apt["site"], {})
        if dest.get("status", "open") != "open" or any(
                _overlap(pickup, _dt(apt["start"]), _dt(c["from"]), _dt(c["to"])) for c in dest.get("closures", [])):
            out.append(f"destination {apt['site']} is closed")
        if minutes is None:
            out.append(f"no open route from {tr['from']} to {apt['site']}")
            return out
        arrival = pickup + timedelta(minutes=minutes + tr.get("delay_minutes", 0))
        latest = _dt(apt["start"]) - timedelta(minutes=self._policy("checkin_minutes", 10))
        if arrival > latest:
            out.append(f"arrives {_fmt(arrival)}, after check-in deadline {_fmt(latest)} for {apt['start']}")
        earliest = _dt(apt["start"]) - timedelta(minutes=self._policy("max_wait_minutes", 90))
        if arrival < earliest:
            out.append(f"arrives {_fmt(arrival)}, more than {self._policy('max_wait_minutes', 90)} min before {apt['start']}")
        date = pickup.date().isoformat()
        v0, v1 = vehicle.get("shift", ["00:00", "23:59"])
        if pickup < _at(date, v0) or arrival > _at(date, v1):
            out.append(f"{tr['vehicle']} operates {v0}-{v1}")
        place, busy = self._patient_place(tr["patient"], pickup)
        if busy:
            out.append(busy)
        elif place != tr["from"]:
            out.append(f"{tr['patient']} will be at {place} at {tr['pickup']}, not {tr['from']}")
        if patient.get("ready_from") and pickup < _dt(patient["ready_from"]):
            out.append(f"{tr['patient']} is not ready before {patient['ready_from']}")
        out.extend(self._vehicle_clashes(tr, pickup, arrival, exclude))
        return out

    def _vehicle_clashes(self, tr: dict[str, Any], pickup: datetime, arrival: datetime,
                         exclude: str | None) -> list[str]:
        """The vehicle must be free, and able to drive to the pickup from its base (after its shift
        starts) or from its previous drop-off, and on to its next pickup. A van cannot set off
        before the trip was booked (``booked_at``; trips in the initial state have none)."""
        out: list[str] = []
        vehicle = self.state["vehicles"][tr["vehicle"]]
        date = pickup.date().isoformat()
        booked = _dt(tr["booked_at"]) if tr.get("booked_at") else None
        prev: tuple[datetime, str, str] | None = None  # (free at, place, what)
        nxt: tuple[datetime, str, str] | None = None
        for oid, other in self.state.get("transports", {}).items():
            if oid == exclude or other.get("status") != "booked" or other["vehicle"] != tr["vehicle"]:
                continue
            o0 = _dt(other["pickup"])
            o1 = _dt(other["arrival"]) + timedelta(minutes=other.get("delay_minutes", 0))
            if _overlap(pickup, arrival, o0, o1):
                out.append(f"{tr['vehicle']} is on {oid} {other['pickup'][11:]}-{_fmt(o1)[11:]}")
            elif o1 <= pickup and (prev is None or o1 > prev[0]):
                prev = (o1, other["to"], f"{oid} drop-off at {other['to']}")
            elif o0 >= arrival and (nxt is None or o0 < nxt[0]):
                nxt = (o0, other["from"], f"{oid} pickup at {other['from']}")
        start: tuple[datetime, str, str] | None = prev
        if start is None and vehicle.get("base"):
            v0 = vehicle.get("shift", ["00:00", "23:59"])[0]
            start = (_at(date, v0), vehicle["base"], f"its base {vehicle['base']}")
        if start is not None:
            free = start[0] if booked is None else max(start[0], booked)
            leg = self.travel_minutes(start[1], tr["from"])
            if leg is None:
                out.append(f"{tr['vehicle']} cannot reach {tr['from']} from {start[2]}: no open route")
            elif free + timedelta(minutes=leg) > pickup:
                out.append(f"{tr['vehicle']} cannot reach {tr['from']} before "
                           f"{_fmt(free + timedelta(minutes=leg))} (from {start[2]}, {leg:.0f} min)")
        if nxt is not None:
            leg = self.travel_minutes(tr["to"], nxt[1])
            if leg is None or arrival + timedelta(minutes=leg) > nxt[0]:
                out.append(f"{tr['vehicle']} would then miss {nxt[2]} at {_fmt(nxt[0])}")
        return out

    def _apt_view(self, apt_id: str) -> dict[str, Any]:
        apt = self.state["appointments"][apt_id]
        view = {"appointment_id": apt_id, **apt}
        if apt["status"] == "booked":
            view["issues"] = self._apt_problems(apt_id)
        elif apt["status"] == "held":
            view["issues"] = [p for p in self._apt_problems(apt_id) if not p.startswith("slot is only held")]
        return view

    def _transport_view(self, tr_id: str) -> dict[str, Any]:
        tr = self.state["transports"][tr_id]
        view = {"transport_id": tr_id, **tr}
        apt = self.state["appointments"].get(tr["appointment"])
        minutes = self.travel_minutes(tr["from"], apt["site"]) if apt else None
        view["expected_arrival"] = None if minutes is None else _fmt(
            _dt(tr["pickup"]) + timedelta(minutes=minutes + tr.get("delay_minutes", 0)))
        if tr.get("status") == "booked":
            view["issues"] = self._transport_problems(tr, tr_id)
        return view

    # -- queries -------------------------------------------------------------------
    @tool("query", minutes=2)
    def list_sites(self) -> Result:
        """All clinic sites with their opening state, hours and step-free access."""
        sites = [{"site_id": s, "name": v["name"], "status": v.get("status", "open"), "hours": v.get("hours"),
                  "step_free": v.get("step_free", True), "closures": v.get("closures", [])}
                 for s, v in self.state["sites"].items()]
        return self.ok(sites=sites)

    @tool("query", minutes=2)
    def get_site(self, site_id: str) -> Result:
        """One site: opening state, hours, closures, rooms and the equipment there now.

        Args:
            site_id: The site's id, e.g. HARBOURSIDE.
        """
        site = self.state["sites"].get(site_id)
        if site is None:
            return self.fail(f"no site {site_id}; sites: {', '.join(self.state['sites'])}")
        rooms = [{"room_id": r, **room} for r, room in self.state["rooms"].items() if room["site"] == site_id]
        equipment = [{"equipment_id": e, "type": eq["type"], "status": eq.get("status", "operational"),
                      "room": eq.get("room"), "transfers": eq.get("transfers", [])}
                     for e, eq in self.state["equipment"].items() if self._equipment_site(eq, self.now) == site_id]
        return self.ok(site_id=site_id, **site, rooms=rooms, equipment=equipment)

    @tool("query", minutes=2)
    def get_route(self, origin: str, destination: str) -> Result:
        """Fastest open road route between two places, with travel time in minutes.

        Args:
            origin: Place id where the trip starts (a site or a district).
            destination: Place id where the trip ends.
        """
        for place in (origin, destination):
            if place not in self.state["places"]:
                return self.fail(f"no place {place}")
        path = self.route(origin, destination)
        if path is None:
            return self.fail(f"no open route from {origin} to {destination}")
        closed = [f"{leg['from']}-{leg['to']}" + (f" ({leg['name']})" if leg.get("name") else "")
                  for leg in self.state.get("travel", []) if leg.get("closed")]
        return self.ok(origin=origin, destination=destination, path=path,
                       minutes=self.travel_minutes(origin, destination), closed_roads=closed)

    @tool("query", minutes=2)
    def get_clinician(self, clinician_id: str) -> Result:
        """One clinician: specialty, status, shifts by date (site and hours) and their appointments.

        Args:
            clinician_id: The clinician's id, e.g. CL-OKAFOR.
        """
        cl = self.state["clinicians"].get(clinician_id)
        if cl is None:
            return self.fail(f"no clinician {clinician_id}")
        apts = sorted(({"appointment_id": a, "start": o["start"], "end": o["end"], "site": o["site"],
                        "room": o.get("room"), "status": o["status"], "patient": o["patient"]}
                       for a, o in self.state["appointments"].items()
                       if o["clinician"] == clinician_id and o["status"] in ("booked", "held", "in_progress")),
                      key=lambda x: x["start"])
        return self.ok(clinician_id=clinician_id, **cl, appointments=apts)

    @tool("query", minutes=2)
    def find_clinicians(self, specialty: str, date: str | None = None) -> Result:
        """Clinicians of a specialty, with where and when they work (on one date if given).

        Args:
            specialty: e.g. cardiology, radiology, nephrology.
            date: A date YYYY-MM-DD to show only that day's shift; omit for all shifts.
        """
        found = []
        for cid, cl in self.state["clinicians"].items():
            if cl["specialty"] != specialty:
                continue
            shifts = cl.get("shifts", {})
            if date is not None:
                shifts = {date: shifts[date]} if date in shifts else {}
            found.append({"clinician_id": cid, "name": cl["name"], "status": cl.get("status", "active"),
                          "shifts": shifts})
        return self.ok(specialty=specialty, clinicians=found)

    @tool("query", minutes=2)
    def get_patient(self, patient_id: str) -> Result:
        """One patient: mobility, location, preferences, and their appointments, referrals and transports.

        Args:
            patient_id: The patient's id, e.g. P-YUSUF.
        """
        p = self.state["patients"].get(patient_id)
        if p is None:
            return self.fail(f"no patient {patient_id}")
        apts = sorted(({"appointment_id": a, "service": o["service"], "start": o["start"], "end": o["end"],
                        "site": o["site"], "clinician": o["clinician"], "status": o["status"]}
                       for a, o in self.state["appointments"].items() if o["patient"] == patient_id),
                      key=lambda x: x["start"])
        refs = [{"referral_id": r, **ref} for r, ref in self.state.get("referrals", {}).items()
                if ref["patient"] == patient_id]
        trs = [{"transport_id": t, "appointment": tr["appointment"], "vehicle": tr["vehicle"], "from": tr["from"],
                "to": tr["to"], "pickup": tr["pickup"], "status": tr["status"]}
               for t, tr in self.state.get("transports", {}).items() if tr["patient"] == patient_id]
        return self.ok(patient_id=patient_id, **p, appointments=apts, referrals=refs, transports=trs)

    @tool("query", minutes=2)
    def get_appointment(self, appointment_id: str) -> Result:
        """One appointment, with any issues that make it invalid right now (clashes, closures, expiry).

        Args:
            appointment_id: e.g. APT-1 or APT-0912-04.
        """
        if appointment_id not in self.state["appointments"]:
            return self.fail(f"no appointment {appointment_id}")
        return self.ok(**self._apt_view(appointment_id))

    @tool("query", minutes=2)
    def get_referral(self, referral_id: str) -> Result:
        """One referral / prior authorisation: patient, service, authorised site and expiry.

        Args:
            referral_id: e.g. REF-7731.
        """
        ref = self.state.get("referrals", {}).get(referral_id)
        if ref is None:
            return self.fail(f"no referral {referral_id}")
        return self.ok(referral_id=referral_id, **ref)

    @tool("query", minutes=2)
    def list_equipment(self, equipment_type: str | None = None, site_id: str | None = None) -> Result:
        """Equipment items with status, current site, fixed room and planned transfers.

        Args:
            equipment_type: e.g. MRI, ultrasound, dialysis_machine; omit for all.
            site_id: Only items at this site now; omit for all sites.
        """
        items = []
        for e, eq in self.state["equipment"].items():
            here = self._equipment_site(eq, self.now)
            if equipment_type is not None and eq["type"] != equipment_type:
                continue
            if site_id is not None and here != site_id:
                continue
            items.append({"equipment_id": e, **eq, "site_now": here})
        return self.ok(equipment=items)

    @tool("query", minutes=2)
    def get_equipment(self, equipment_id: str) -> Result:
        """One equipment item: type, status, site now, fixed room, planned transfers and bookings.

        Args:
            equipment_id: e.g. US-PORT-2.
        """
        eq = self.state["equipment"].get(equipment_id)
        if eq is None:
            return self.fail(f"no equipment {equipment_id}")
        uses = sorted(({"appointment_id": a, "start": o["start"], "end": o["end"], "site": o["site"]}
                       for a, o in self.state["appointments"].items()
                       if o.get("equipment") == equipment_id and self._blocking(o)), key=lambda x: x["start"])
        return self.ok(equipment_id=equipment_id, **eq, site_now=self._equipment_site(eq, self.now), bookings=uses)

    @tool("query", minutes=3)
    def find_slots(self, service: str, date: str, site_id: str | None = None, clinician_id: str | None = None,
                   patient_id: str | None = None, earliest: str | None = None, latest: str | None = None,
                   limit: int = 10) -> Result:
        """Free, valid start times for a service on one date (15-minute grid), with site, clinician,
        room and equipment. Checks shifts, opening hours, closures, rooms, equipment and clashes;
        with patient_id also the patient's own clashes, access needs and referral.

        Args:
            service: Service id, e.g. mri-lumbar, dialysis, echo.
            date: Date YYYY-MM-DD.
            site_id: Only this site; omit for every site.
            clinician_id: Only this clinician; omit for all of the right specialty.
            patient_id: Also check this patient's clashes, step-free access and referral.
            earliest: Earliest start, HH:MM.
            latest: Latest start, HH:MM.
            limit: Most slots to return (default 10).
        """
        svc = self.state["services"].get(service)
        if svc is None:
            return self.fail(f"no service {service}; services: {', '.join(self.state['services'])}")
        try:
            _at(date, "00:00")
            if earliest:
                _at(date, earliest)
            if latest:
                _at(date, latest)
        except ValueError:
            return self.fail("date must be YYYY-MM-DD and earliest/latest HH:MM")
        if patient_id is not None and patient_id not in self.state["patients"]:
            return self.fail(f"no patient {patient_id}")
        referral = None
        if patient_id is not None and svc.get("requires_referral"):
            referral = next((r for r, ref in self.state.get("referrals", {}).items()
                             if ref["patient"] == patient_id and ref["service"] == service
                             and ref.get("status", "active") == "active"), None)
        dur = timedelta(minutes=svc["duration"])
        slots = []
        for cid, cl in sorted(self.state["clinicians"].items()):
            if cl["specialty"] != svc["specialty"] or (clinician_id and cid != clinician_id):
                continue
            shift = cl.get("shifts", {}).get(date)
            if not shift or (site_id and shift["site"] != site_id):
                continue
            t = _at(date, shift["start"])
            if earliest:
                t = max(t, _at(date, earliest))
            while t.minute % 15:
                t += timedelta(minutes=1)
            stop = _at(date, shift["end"])
            while t + dur <= stop:
                if latest and t > _at(date, latest):
                    break
                if t >= self.now:
                    trial = {"patient": patient_id, "service": service, "clinician": cid, "site": shift["site"],
                             "start": _fmt(t), "end": _fmt(t + dur), "room": None, "equipment": None,
                             "referral": referral}
                    if self._allocate_quiet(trial, patient_id is not None) is None:
                        slots.append({"start": trial["start"], "end": trial["end"], "site": trial["site"],
                                      "clinician": cid, "room": trial["room"], "equipment": trial["equipment"]})
                t += timedelta(minutes=15)
        slots.sort(key=lambda s: (s["start"], s["site"], s["clinician"]))
        return self.ok(service=service, date=date, duration=svc["duration"], slots=slots[:max(limit, 1)],
                       more=max(0, len(slots) - max(limit, 1)))

    def _allocate_quiet(self, trial: dict[str, Any], with_patient: bool) -> str | None:
        svc = self.state["services"][trial["service"]]
        rooms = sorted(r for r, room in self.state["rooms"].items()
                       if room["site"] == trial["site"] and room["type"] == svc["room_type"])
        eqs: list[str | None] = [None]
        if svc.get("equipment"):
            eqs = sorted(e for e, eq in self.state["equipment"].items() if eq["type"] == svc["equipment"])
        for r in rooms:
            for e in eqs:
                t = {**trial, "room": r, "equipment": e}
                if not self._problems(t, patient_checks=with_patient, first=True):
                    trial["room"], trial["equipment"] = r, e
                    return None
        return "none"

    @tool("query", minutes=2)
    def list_vehicles(self, kind: str | None = None) -> Result:
        """Transport vehicles with kind, base, status, shift hours and their booked trips.

        Args:
            kind: car, wheelchair_van or ambulance; omit for all.
        """
        out = []
        for vid, v in self.state["vehicles"].items():
            if kind is not None and v["kind"] != kind:
                continue
            trips = sorted(({"transport_id": t, "pickup": tr["pickup"], "arrival": tr["arrival"],
                             "from": tr["from"], "to": tr["to"]}
                            for t, tr in self.state.get("transports", {}).items()
                            if tr["vehicle"] == vid and tr["status"] == "booked"), key=lambda x: x["pickup"])
            out.append({"vehicle_id": vid, **v, "trips": trips})
        return self.ok(vehicles=out)

    @tool("query", minutes=2)
    def get_transport(self, transport_id: str) -> Result:
        """One patient transport booking, with any issues that make it fail right now.

        Args:
            transport_id: e.g. TR-1 or TR-0912-04.
        """
        if transport_id not in self.state.get("transports", {}):
            return self.fail(f"no transport {transport_id}")
        return self.ok(**self._transport_view(transport_id))

    @tool("query", minutes=2)
    def list_requests(self, status: str | None = None) -> Result:
        """The scheduling work queue: booking requests with priority and needed-by time.

        Args:
            status: pending or scheduled; omit for all.
        """
        reqs = [{"request_id": r, **q} for r, q in self.state.get("requests", {}).items()
                if status is None or q.get("status") == status]
        order = {"emergency": 0, "urgent": 1, "soon": 2, "routine": 3}
        reqs.sort(key=lambda q: (order.get(q.get("priority", "routine"), 9), q.get("needed_by") or ""))
        return self.ok(requests=reqs)

    # -- operations ----------------------------------------------------------------
    @tool("operation", minutes=5)
    def book_appointment(self, patient_id: str, service: str, clinician_id: str, site_id: str, start: str,
                         room_id: str | None = None, equipment_id: str | None = None,
                         referral_id: str | None = None, request_id: str | None = None) -> Result:
        """Book an appointment. Room and equipment are chosen automatically when omitted; a
        required referral is found automatically when omitted. Fails with the reasons if invalid.

        Args:
            patient_id: The patient, e.g. P-YUSUF.
            service: Service id, e.g. mri-lumbar.
            clinician_id: The clinician, e.g. CL-OKAFOR.
            site_id: The site, e.g. HARBOURSIDE.
            start: Start time, ISO format, e.g. 2024-09-12T10:15.
            room_id: A specific room; omit to choose automatically.
            equipment_id: A specific equipment item; omit to choose automatically.
            referral_id: The referral / authorisation to use; omit to pick the patient's active one.
            request_id: The work-queue request this booking fulfils, if any.
        """
        svc = self.state["services"].get(service)
        if svc is None:
            return self.fail(f"no service {service}")
        if patient_id not in self.state["patients"]:
            return self.fail(f"no patient {patient_id}")
        if site_id not in self.state["sites"]:
            return self.fail(f"no site {site_id}")
        if clinician_id not in self.state["clinicians"]:
            return self.fail(f"no clinician {clinician_id}")
        try:
            t0 = _dt(start)
        except ValueError:
            return self.fail("start must be an ISO time like 2024-09-12T10:15")
        if t0 < self.now:
            return self.fail(f"{start} is in the past (now {self.iso()})")
        if svc.get("requires_referral") and referral_id is None:
            referral_id = next((r for r, ref in self.state.get("referrals", {}).items()
                                if ref["patient"] == patient_id and ref["service"] == service
                                and ref.get("status", "active") == "active"), None)
        apt = {"patient": patient_id, "service": service, "clinician": clinician_id, "site": site_id,
               "room": None, "equipment": None, "start": _fmt(t0), "end": _fmt(t0 + timedelta(minutes=svc["duration"])),
               "status": "booked", "referral": referral_id}
        if request_id is not None and request_id not in self.state.get("requests", {}):
            return self.fail(f"no request {request_id}")
        error = self._allocate(apt, room_id, equipment_id)
        if error:
            return self.fail(f"cannot book: {error}")
        apt_id = self._new_id("APT", self.state["appointments"])
        self.state["appointments"][apt_id] = apt
        if request_id is not None:
            self.state["requests"][request_id]["status"] = "scheduled"
            self.state["requests"][request_id]["appointment"] = apt_id
        warnings = self._prereq_warnings(apt, apt_id)
        return self.ok(appointment_id=apt_id, **apt, **({"warnings": warnings} if warnings else {}))

    @tool("operation", minutes=4)
    def reschedule_appointment(self, appointment_id: str, start: str, site_id: str | None = None,
                               clinician_id: str | None = None, room_id: str | None = None,
                               equipment_id: str | None = None) -> Result:
        """Move a booked or held appointment to a new time (and optionally site, clinician, room,
        equipment), keeping its id. Linked transport is NOT changed. Fails with reasons if invalid.

        Args:
            appointment_id: The appointment to move.
            start: New start, ISO format, e.g. 2024-09-12T13:30.
            site_id: New site; omit to keep.
            clinician_id: New clinician; omit to keep.
            room_id: New room; omit to choose automatically.
            equipment_id: New equipment item; omit to choose automatically.
        """
        apt = self.state["appointments"].get(appointment_id)
        if apt is None:
            return self.fail(f"no appointment {appointment_id}")
        if apt["status"] not in ("booked", "held"):
            return self.fail(f"{appointment_id} is {apt['status']} and cannot be moved")
        try:
            t0 = _dt(start)
        except ValueError:
            return self.fail("start must be an ISO time like 2024-09-12T10:15")
        if t0 < self.now:
            return self.fail(f"{start} is in the past (now {self.iso()})")
        if site_id is not None and site_id not in self.state["sites"]:
            return self.fail(f"no site {site_id}")
        if clinician_id is not None and clinician_id not in self.state["clinicians"]:
            return self.fail(f"no clinician {clinician_id}")
        svc = self.state["services"][apt["service"]]
        new = {**apt, "start": _fmt(t0), "end": _fmt(t0 + timedelta(minutes=svc["duration"])),
               "site": site_id or apt["site"], "clinician": clinician_id or apt["clinician"], "status": "booked"}
        error = self._allocate(new, room_id, equipment_id, exclude=appointment_id)
        if error:
            return self.fail(f"cannot reschedule: {error}")
        new["status"] = apt["status"]
        apt.update(new)
        moved = [t for t, tr in self.state.get("transports", {}).items()
                 if tr["appointment"] == appointment_id and tr["status"] == "booked"]
        extra: dict[str, Any] = {}
        if moved:
            extra["note"] = f"transport {', '.join(moved)} is still booked for the old plan; check or replace it"
        warnings = self._prereq_warnings(apt, appointment_id)
        if warnings:
            extra["warnings"] = warnings
        return self.ok(appointment_id=appointment_id, **apt, **extra)

    @tool("operation", minutes=3)
    def cancel_appointment(self, appointment_id: str, reason: str | None = None) -> Result:
        """Cancel a booked or held appointment. Linked transport is NOT cancelled automatically.

        Args:
            appointment_id: The appointment to cancel.
            reason: Why, for the record.
        """
        apt = self.state["appointments"].get(appointment_id)
        if apt is None:
            return self.fail(f"no appointment {appointment_id}")
        if apt["status"] not in ("booked", "held"):
            return self.fail(f"{appointment_id} is {apt['status']} and cannot be cancelled")
        apt["status"] = "cancelled"
        if reason:
            apt["cancel_reason"] = reason
        linked = [t for t, tr in self.state.get("transports", {}).items()
                  if tr["appointment"] == appointment_id and tr["status"] == "booked"]
        return self.ok(appointment_id=appointment_id, status="cancelled", linked_transports_still_booked=linked)

    @tool("operation", minutes=3)
    def confirm_hold(self, appointment_id: str) -> Result:
        """Confirm a held slot as a booked appointment, before its hold expires.

        Args:
            appointment_id: The held appointment.
        """
        apt = self.state["appointments"].get(appointment_id)
        if apt is None:
            return self.fail(f"no appointment {appointment_id}")
        if apt["status"] != "held":
            return self.fail(f"{appointment_id} is {apt['status']}, not held")
        if apt.get("hold_expires") and self.now >= _dt(apt["hold_expires"]):
            return self.fail(f"the hold on {appointment_id} expired at {apt['hold_expires']}")
        probs = self._problems(apt, appointment_id)
        if probs:
            return self.fail(f"cannot confirm: {'; '.join(probs)}")
        apt["status"] = "booked"
        return self.ok(appointment_id=appointment_id, **apt)

    @tool("operation", minutes=8)
    def transfer_referral(self, referral_id: str, site_id: str) -> Result:
        """Ask the insurer to re-issue a referral / prior authorisation for another site.
        The expiry stays the same.

        Args:
            referral_id: The referral to transfer.
            site_id: The site that will provide the service.
        """
        ref = self.state.get("referrals", {}).get(referral_id)
        if ref is None:
            return self.fail(f"no referral {referral_id}")
        if site_id not in self.state["sites"]:
            return self.fail(f"no site {site_id}")
        if ref.get("status", "active") != "active":
            return self.fail(f"referral {referral_id} is {ref['status']}")
        if self.now >= _dt(ref["valid_until"]):
            return self.fail(f"referral {referral_id} expired at {ref['valid_until']}")
        svc = self.state["services"][ref["service"]]
        if not any(r["site"] == site_id and r["type"] == svc["room_type"] for r in self.state["rooms"].values()):
            return self.fail(f"{site_id} does not provide {ref['service']}")
        ref["site"] = site_id
        return self.ok(referral_id=referral_id, **ref)

    @tool("operation", minutes=5)
    def book_transport(self, patient_id: str, appointment_id: str, vehicle_id: str, pickup_time: str,
                       pickup_place: str | None = None) -> Result:
        """Book patient transport to an appointment. The vehicle must suit the patient's mobility,
        be free and on shift, and arrive by the check-in time (10 min before the start).

        Args:
            patient_id: The patient.
            appointment_id: The appointment the trip goes to.
            vehicle_id: The vehicle, e.g. VAN-2.
            pickup_time: Pickup time, ISO format, e.g. 2024-09-12T09:20.
            pickup_place: Where to collect the patient; omit for where they will be at that time.
        """
        if patient_id not in self.state["patients"]:
            return self.fail(f"no patient {patient_id}")
        apt = self.state["appointments"].get(appointment_id)
        if apt is None:
            return self.fail(f"no appointment {appointment_id}")
        if apt["patient"] != patient_id:
            return self.fail(f"{appointment_id} is not {patient_id}'s appointment")
        if vehicle_id not in self.state["vehicles"]:
            return self.fail(f"no vehicle {vehicle_id}")
        try:
            pickup = _dt(pickup_time)
        except ValueError:
            return self.fail("pickup_time must be an ISO time like 2024-09-12T09:20")
        if pickup < self.now:
            return self.fail(f"{pickup_time} is in the past (now {self.iso()})")
        if pickup_place is None:
            pickup_place, _ = self._patient_place(patient_id, pickup)
        if pickup_place not in self.state["places"]:
            return self.fail(f"no place {pickup_place}")
        minutes = self.travel_minutes(pickup_place, apt["site"])
        if minutes is None:
            return self.fail(f"no open route from {pickup_place} to {apt['site']}")
        tr = {"patient": patient_id, "appointment": appointment_id, "vehicle": vehicle_id, "from": pickup_place,
              "to": apt["site"], "pickup": _fmt(pickup), "arrival": _fmt(pickup + timedelta(minutes=minutes)),
              "delay_minutes": 0, "status": "booked", "booked_at": self.iso()}
        probs = self._transport_problems(tr)
        if probs:
            return self.fail(f"cannot book transport: {'; '.join(probs)}")
        transports = self.state.setdefault("transports", {})
        tr_id = self._new_id("TR", transports)
        transports[tr_id] = tr
        return self.ok(transport_id=tr_id, **tr, route=self.route(pickup_place, apt["site"]))

    @tool("operation", minutes=3)
    def cancel_transport(self, transport_id: str) -> Result:
        """Cancel a booked patient transport.

        Args:
            transport_id: The transport to cancel.
        """
        tr = self.state.get("transports", {}).get(transport_id)
        if tr is None:
            return self.fail(f"no transport {transport_id}")
        if tr["status"] != "booked":
            return self.fail(f"{transport_id} is {tr['status']}")
        tr["status"] = "cancelled"
        return self.ok(transport_id=transport_id, status="cancelled")

    @tool("operation", minutes=2)
    def notify_patient(self, patient_id: str, message: str) -> Result:
        """Send a message (SMS / phone call note) to a patient about their care.

        Args:
            patient_id: The patient.
            message: What to tell them.
        """
        if patient_id not in self.state["patients"]:
            return self.fail(f"no patient {patient_id}")
        self.state.setdefault("notifications", []).append(
            {"patient": patient_id, "at": self.iso(), "message": message})
        return self.ok(patient_id=patient_id, sent_at=self.iso())

    # -- checks ------------------------------------------------------------------------
    @check
    def appointment_valid(self, appointment_id: str) -> tuple[bool, str]:
        """The appointment exists, is booked, and is valid in the final state."""
        if appointment_id not in self.state["appointments"]:
            return False, f"no appointment {appointment_id}"
        probs = self._apt_problems(appointment_id)
        return (not probs, "; ".join(probs) if probs else f"{appointment_id} is booked and valid")

    def _matching(self, patient_id: str, service: str, site_id: str | None, clinician_id: str | None,
                  not_before: str | None, not_after: str | None) -> tuple[list[str], list[str]]:
        good, notes = [], []
        for aid, apt in sorted(self.state["appointments"].items()):
            if apt["patient"] != patient_id or apt["service"] != service or apt["status"] != "booked":
                continue
            probs = self._apt_problems(aid)
            if site_id and apt["site"] != site_id:
                probs.append(f"at {apt['site']}, wanted {site_id}")
            if clinician_id and apt["clinician"] != clinician_id:
                probs.append(f"with {apt['clinician']}, wanted {clinician_id}")
            if not_before and _dt(apt["start"]) < _dt(not_before):
                probs.append(f"starts {apt['start']}, before {not_before}")
            if not_after and _dt(apt["end"]) > _dt(not_after):
                probs.append(f"ends {apt['end']}, after {not_after}")
            if probs:
                notes.append(f"{aid}: {'; '.join(probs)}")
            else:
                good.append(aid)
        return good, notes

    @check
    def patient_booked(self, patient_id: str, service: str, site_id: str | None = None,
                       clinician_id: str | None = None, not_before: str | None = None,
                       not_after: str | None = None) -> tuple[bool, str]:
        """Exactly one valid booked appointment of ``service`` for the patient, within the window
        (``not_after`` bounds the end), optionally at a site / with a clinician."""
        good, notes = self._matching(patient_id, service, site_id, clinician_id, not_before, not_after)
        if len(good) == 1:
            return True, f"{good[0]} valid"
        if len(good) > 1:
            return False, f"duplicate bookings: {', '.join(good)}"
        return False, "no valid booking" + (f" ({' | '.join(notes)})" if notes else "")

    @check
    def transport_ok(self, patient_id: str, service: str | None = None) -> tuple[bool, str]:
        """Every booked appointment of the patient (of ``service`` if given) has exactly one valid
        booked transport that gets the patient there by check-in."""
        apts = [a for a, o in sorted(self.state["appointments"].items())
                if o["patient"] == patient_id and o["status"] == "booked" and (service is None or o["service"] == service)]
        if not apts:
            return False, f"{patient_id} has no booked appointment" + (f" for {service}" if service else "")
        bad = []
        for aid in apts:
            trs = [(t, tr) for t, tr in self.state.get("transports", {}).items()
                   if tr["appointment"] == aid and tr["status"] == "booked"]
            if not trs:
                bad.append(f"{aid}: no transport")
                continue
            if len(trs) > 1:
                bad.append(f"{aid}: several transports {', '.join(t for t, _ in trs)}")
                continue
            probs = self._transport_problems(trs[0][1], trs[0][0])
            if probs:
                bad.append(f"{trs[0][0]} for {aid}: {'; '.join(probs)}")
        return (not bad, " | ".join(bad) if bad else f"transport valid for {', '.join(apts)}")

    @check
    def no_double_booking(self) -> tuple[bool, str]:
        """No clinician, room, equipment item, patient or vehicle is booked twice at once."""
        clashes = []
        items = sorted((a, o) for a, o in self.state["appointments"].items() if self._blocking(o))
        for i, (a, x) in enumerate(items):
            for b, y in items[i + 1:]:
                if not _overlap(_dt(x["start"]), _dt(x["end"]), _dt(y["start"]), _dt(y["end"])):
                    continue
                for key in ("clinician", "room", "equipment", "patient"):
                    if x.get(key) and x.get(key) == y.get(key):
                        clashes.append(f"{a}/{b} share {key} {x[key]}")
        trs = sorted((t, tr) for t, tr in self.state.get("transports", {}).items() if tr["status"] == "booked")
        for i, (a, x) in enumerate(trs):
            for b, y in trs[i + 1:]:
                if x["vehicle"] == y["vehicle"] and _overlap(
                        _dt(x["pickup"]), _dt(x["arrival"]) + timedelta(minutes=x.get("delay_minutes", 0)),
                        _dt(y["pickup"]), _dt(y["arrival"]) + timedelta(minutes=y.get("delay_minutes", 0))):
                    clashes.append(f"{a}/{b} share vehicle {x['vehicle']}")
        return (not clashes, "; ".join(clashes) if clashes else "no double bookings")

    @check
    def no_stale_transport(self) -> tuple[bool, str]:
        """Every booked transport is valid (none left for cancelled or moved appointments)."""
        bad = [f"{t}: {'; '.join(p)}" for t, tr in sorted(self.state.get("transports", {}).items())
               if tr["status"] == "booked" and (p := self._transport_problems(tr, t))]
        return (not bad, " | ".join(bad) if bad else "all booked transports valid")

    @check
    def patient_appointments_valid(self, patient_id: str) -> tuple[bool, str]:
        """Every booked or held appointment of the patient is valid (held ones must be confirmed)."""
        bad = []
        for aid, apt in sorted(self.state["appointments"].items()):
            if apt["patient"] == patient_id and apt["status"] in ("booked", "held"):
                probs = self._apt_problems(aid)
                if probs:
                    bad.append(f"{aid}: {'; '.join(probs)}")
        return (not bad, " | ".join(bad) if bad else f"all of {patient_id}'s appointments valid")

    @check
    def patient_notified(self, patient_id: str, mentions: list[str] | None = None) -> tuple[bool, str]:
        """The patient was sent a message (mentioning each of ``mentions``, case-insensitive)."""
        msgs = [n["message"].lower() for n in self.state.get("notifications", []) if n["patient"] == patient_id]
        if not msgs:
            return False, f"{patient_id} was never notified"
        need = [m.lower() for m in (mentions or [])]
        if any(all(m in text for m in need) for text in msgs):
            return True, f"{patient_id} notified"
        return False, f"no message to {patient_id} mentions all of {', '.join(need)}"
