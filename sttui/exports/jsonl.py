"""The full record as JSON lines (what ``sttui import`` reads back): a header, each episode with
its task version and its events, and a trailer with the counts, so an import notices a file cut
short. Events that changed the state also carry their change as an RFC 6902 JSON Patch."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

from sttui.exports.patch import event_patch
from sttui.store.secrets import scrub_text, secret_values
from sttui.store.store import EpisodeRecord, Store


def dump(obj: Any, secrets: list[str] | None = None) -> str:
    """One line of an export, scrubbed of secrets (the record is already; this is the last door)."""
    return scrub_text(json.dumps(obj, sort_keys=True, ensure_ascii=False), secrets)


def jsonl_lines(store: Store, records: Iterable[EpisodeRecord]) -> Iterator[str]:
    """The full record, line by line. ``patch`` beside an event's payload is derived from its
    dotted diff (kept as it was, for readers of earlier exports); an import ignores it."""
    from sttui.exports.importing import header, trailer

    secrets = secret_values()
    episodes = events = 0
    yield dump(header(), secrets)
    for rec in records:
        version = store.task_version(rec.task_id, rec.task_hash)
        task = version.portable() if version else None
        yield dump({"record": "episode", "episode": rec.as_dict(), "task": task}, secrets)
        episodes += 1
        for e in store.events(rec.id):
            events += 1
            line: dict[str, Any] = {
                "record": "event",
                "episode_id": rec.id,
                "seq": e.seq,
                "type": e.type,
                "actor": e.actor,
                "sim_time": e.sim_time,
                "wall_time": e.wall_time,
                "payload": e.payload,
            }
            patch = event_patch(e.type, e.payload)
            if patch is not None:
                line["patch"] = patch
            yield dump(line, secrets)
    yield dump(trailer(episodes, events), secrets)
