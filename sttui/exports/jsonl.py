"""The full record as JSON lines (what ``sttui import`` reads back): a header, each episode with
its task version and its events, and a trailer with the counts, so an import notices a file cut
short. Events that changed the state also carry their change as an RFC 6902 JSON Patch.

A lone surrogate (half of a UTF-16 pair, which UTF-8 cannot hold) in a record made before the
import refused them is written as JSON's own escape (``\\ud800``), so the export never fails
over one and keeps the text exactly; ``sttui import`` refuses such a line, as no record can
store one (``sttui.exports.importing``)."""

from __future__ import annotations

import codecs
import json
import re
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


_LONE = re.compile("[\ud800-\udfff]")
ESCAPE_LONE_SURROGATES = "sttui-json-escape"


def _escape_lone_surrogates(exc: UnicodeError) -> tuple[str, int]:
    """A codec error handler: each lone surrogate as its JSON escape. In a line of JSON every one
    is inside a string (``json.dumps`` writes nothing else but ASCII), so the line still reads
    back as the same text. Anything else UTF-8 cannot encode is still an error."""
    if not isinstance(exc, UnicodeEncodeError) or not all(_LONE.match(c) for c in exc.object[exc.start : exc.end]):
        raise exc
    return "".join(f"\\u{ord(c):04x}" for c in exc.object[exc.start : exc.end]), exc.end


codecs.register_error(ESCAPE_LONE_SURROGATES, _escape_lone_surrogates)


def lone_surrogate_notes(lines: list[str], first: int = 1) -> list[str]:
    """Which lines of an export hold a lone surrogate, named by episode and event where they
    are the record's; ``first``: the first's number."""
    notes = []
    for n, line in enumerate(lines, first):
        if not _LONE.search(line):
            continue
        obj = json.loads(line)
        where = f"line {n}"
        if obj.get("record") == "event":
            where = f"episode {obj['episode_id']} event {obj['seq']}"
        elif obj.get("record") == "episode":
            where = f"episode {obj['episode']['id']}"
        notes.append(
            f"{where} holds a lone surrogate (half of a UTF-16 pair), written as its JSON escape; "
            "`sttui import` refuses it (no record can store one): replace it in the file to import it"
        )
    return notes


def write_lines(path: Any, lines: Iterable[str], array: bool = False, progress: Any = None) -> list[str]:
    """Write ``lines`` to ``path`` as they come (one JSON object a line, or with ``array`` one
    JSON array), never the whole export in memory: 10,000 episodes had taken 3.7 GB. A lone
    surrogate is written as its JSON escape; the notes name where. ``progress(n)`` is called
    with the lines written so far, now and then."""
    notes: list[str] = []
    with open(path, "w", encoding="utf-8", errors=ESCAPE_LONE_SURROGATES, newline="\n") as out:
        if array:
            out.write("[\n")
        n = 0
        for n, line in enumerate(lines, 1):
            if not line.isascii() and _LONE.search(line):
                notes.extend(lone_surrogate_notes([line], first=n))
            if array:
                out.write(line if n == 1 else ",\n" + line)
            else:
                out.write(line + "\n")
            if progress is not None and n % 1000 == 0:
                progress(n)
        if array:
            out.write("\n]\n" if n else "]\n")
    return notes
