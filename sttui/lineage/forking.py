"""Forking an episode: a new episode whose prefix is a recorded one's, played on from a row.

``--at N`` names an event seq (a row of the replay, the number ``sttui replay`` prints): the
fork takes every recorded action whose event is at or before row N (a tool call's result and
the triggers it fired come with it). The prefix is replayed on a fresh environment of the
recorded task version with the recorded seed, and every replayed engine event, state hashes
and diffs included, must equal the recorded one; otherwise nothing is written and the fork is
refused with where the two diverged.

The new episode is then written as a running episode holding the prefix's engine events
(their seqs kept, so row N of the fork is row N of the original), with ``forked_from``
{episode, seq} in its ``episode_started`` payload and ``clean_baseline`` false, and a
``forked`` meta event after the prefix. From there a fork is a resume of that new episode
(``recording.resume`` headless, ``PlaySession(..., resume=record)`` in the workbench): one way
to rebuild and play on. Its scores carry ``lineage`` when it finishes.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from sttui.core.events import Event
from sttui.core.loader import LoadedTask
from sttui.core.replaying import actions_with_seqs, engine_events, step_of_events
from sttui.running.recording import rebuild
from sttui.store.store import EpisodeRecord, Store, new_episode_id


class ForkProblem(ValueError):
    """A fork that cannot be made; the message says why in one line."""


class BadRow(ForkProblem):
    """The row asked for is not one to fork from (out of range, at or after the end): bad input."""


class Diverged(ForkProblem):
    """The record does not replay as recorded: the message says where and what differed."""


@dataclass(frozen=True)
class ForkPoint:
    """Where a fork is taken: the recorded events it keeps and what they amount to."""

    seq: int  # the row asked for
    step: int  # agent steps taken up to it
    actions: int  # recorded actions replayed
    prefix: list[Event]  # the recorded events the fork keeps (through row ``seq``'s action)


def fork_point(loaded: LoadedTask, record: EpisodeRecord, events: list[Event], seq: int) -> ForkPoint:
    """The prefix of ``record`` up to row ``seq``, replayed and checked against the record.

    Raises ``ForkProblem`` for a row out of range, a row at or after the episode's end, or a
    replay that does not reproduce the record (with the seq, step and what differed)."""
    last = events[-1].seq if events else 0
    if not 1 <= seq <= last:
        raise BadRow(f"episode {record.id} has rows 1-{last}; --at {seq} is out of range")
    acts = actions_with_seqs(loaded.kind, events)
    taken = sum(1 for s, _, _ in acts if s <= seq)
    # the cut: everything before the next action's event (the row's consequences come along)
    cut = acts[taken][0] if taken < len(acts) else last + 1
    prefix = [e for e in events if e.seq < cut]
    ended = next((e for e in engine_events(loaded.kind, prefix) if e.type == "episode_ended"), None)
    if ended is not None:
        raise BadRow(
            f"episode {record.id} ended at row {ended.seq}; fork from a row before it (--at {ended.seq - 1} or less)"
        )
    rebuilt = rebuild(loaded, record, prefix)
    if loaded.kind == "stt":
        steps = step_of_events(events)
    else:  # an explore episode's steps are its actions (probes, batches, assessments)
        steps = {e.seq: sum(1 for s, _, _ in acts if s <= e.seq) for e in events}
    if not rebuilt.matches:
        at = rebuilt.diverged
        if at is not None:
            what = ", ".join(rebuilt.differed) or "its payload"
            where = f"row {at.seq} (step {steps.get(at.seq, 0)}, {at.type}): {what} differ(s) from the replay"
        else:
            where = rebuilt.mismatch or "the replay does not reproduce the record"
        raise Diverged(f"cannot fork {record.id} at row {seq}: the record diverges from its replay at {where}")
    if rebuilt.episode.ended is not None:
        raise BadRow(f"episode {record.id} ends with the action at row {seq}; fork from an earlier row")
    return ForkPoint(seq, steps.get(seq, 0), taken, prefix)


def write_fork(
    store: Store,
    loaded: LoadedTask,
    record: EpisodeRecord,
    point: ForkPoint,
    agent: str,
    user: str | None,
) -> EpisodeRecord:
    """Write the fork as a new running episode holding the prefix's engine events, in one
    transaction (all or nothing); never a clean baseline. Returns its record."""
    eid = new_episode_id()
    # the version is the record's, stored already: never stored again (an imported version would
    # otherwise be written as recorded here, and its code trusted from then on)
    items = store.episode_items(loaded, record.seed, agent, user, eid, record.setting, store_version=False)
    for item in items:
        if item[0] == "episode":
            item[1]["clean_baseline"] = False
    lineage = {"episode": record.id, "seq": point.seq}
    kept = engine_events(loaded.kind, point.prefix)
    for e in kept:
        payload = {**e.payload, "forked_from": lineage} if e.type == "episode_started" else e.payload
        items.append(("event", eid, Event(e.seq, e.type, e.actor, payload, e.sim_time, e.wall_time)))
    sim = kept[-1].sim_time if kept else ""
    after = (point.prefix[-1].seq if point.prefix else 0) + 1
    note = {"forked_from": lineage, "step": point.step, "replayed_actions": point.actions, "agent": agent, "user": user}
    items.append(("event", eid, Event(after, "forked", "system", note, sim, time.time())))
    store.write(items)
    return store.episode(eid)
