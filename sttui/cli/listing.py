"""What the record listings show of each episode: when, how it went, who held the seats
(mixed control), where it came from (forks, refinements); streamed a chunk of records at a
time, so a listing of any length is never held whole."""

from __future__ import annotations

import functools
import time
from collections.abc import Iterable, Iterator
from datetime import datetime
from typing import Any

from sttui.safetext import visible


def _when(ts: float | None) -> str:
    """The local minute an episode started, as ``datetime.fromtimestamp(ts)`` names it; through
    ``time.localtime`` (a listing of 100,000 formats as many), which names the same minute unless
    the microseconds round up into the next second: those go through ``datetime``."""
    if not ts:
        return "-"
    if ts >= 0 and ts - int(ts) < 0.9999995:
        return _minute(int(ts) // 60)
    return datetime.fromtimestamp(ts).strftime("%Y-%m-%d %H:%M")


@functools.lru_cache(maxsize=4096)
def _minute(minute: int) -> str:
    """The local minute that starts ``minute`` minutes after the epoch (every offset a zone has
    used is whole minutes, so each second of that minute names it): episodes that start in the
    same minute, as a batch run's do, are named once."""
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(minute * 60))


def _outcome(rec: Any) -> str:
    if rec.outcome is not None:
        return "pass" if rec.outcome.get("passed") else "fail"
    if rec.scores and rec.scores.get("calibrated_accuracy") is not None:
        return f"CA {rec.scores['calibrated_accuracy']:.0%}"
    return "-"


def episode_controls(store: Any, records: list[Any], handed: set[str] | None = None) -> dict[str, dict[str, Any]]:
    """Control summaries, by episode id, for the records whose scores lack one (running
    episodes, and those recorded before summaries were kept) and whose seat changed hands:
    tallied from their events. The others had one controller per seat, as their row says.
    ``handed``: every episode whose seat changed hands, found once by a caller that asks for
    many chunks (else one query finds them among ``records``)."""
    from sttui.core.control import control_summary, valid_control

    lacking = [r.id for r in records if valid_control((r.scores or {}).get("control")) is None]
    found = store.episode_ids_with("seat_changed", lacking) if handed is None else handed.intersection(lacking)
    return {eid: control_summary(store.events(eid)) for eid in sorted(found)}


def with_controls(store: Any, records: Iterable[Any], chunk: int = 500) -> Iterator[tuple[Any, dict[str, Any]]]:
    """``records`` streamed, each with the control summaries ``episode_controls`` finds for its
    chunk, so a long listing is never held whole. The seat changes are few and have their own
    index: one query finds them all first, not one per chunk."""
    handed = store.episodes_with_event("seat_changed")
    batch: list[Any] = []
    for r in records:
        batch.append(r)
        if len(batch) == chunk:
            controls = episode_controls(store, batch, handed)
            yield from ((b, controls) for b in batch)
            batch = []
    if batch:
        controls = episode_controls(store, batch, handed)
        yield from ((b, controls) for b in batch)


def _with_forks(
    store: Any, rows: Iterable[tuple[Any, dict[str, Any]]], chunk: int = 500
) -> Iterator[tuple[Any, dict[str, Any], dict[str, dict[str, Any]]]]:
    """``rows`` (record, controls) streamed, each with the forks of its chunk (see
    ``forks.forks_among``)."""
    from sttui.lineage.forks import forks_among

    forked = store.episodes_with_event("forked")  # (few, by their own index: one query, not one a chunk)
    batch: list[tuple[Any, dict[str, Any]]] = []

    def flush() -> Iterator[tuple[Any, dict[str, Any], dict[str, dict[str, Any]]]]:
        forks = forks_among(store, [r.id for r, _ in batch], forked)
        for r, controls in batch:
            yield r, controls, forks

    for row in rows:
        batch.append(row)
        if len(batch) == chunk:
            yield from flush()
            batch = []
    if batch:
        yield from flush()


def family_tree(store: Any, records: list[Any]) -> list[str]:
    """Episodes as a family tree: roots newest first, each fork (``fork @SEQ``) and refinement
    (``refined``) indented under the episode it came from, children oldest first."""
    from sttui.lineage.forks import forks_among
    from sttui.store.db import in_batches

    by_id = {r.id: r for r in records}
    parent: dict[str, tuple[str, str]] = {}
    for chunk in in_batches(records):
        for eid, origin in forks_among(store, [r.id for r in chunk]).items():
            parent[eid] = (str(origin["episode"]), f"fork @{origin['seq']}")
    for r in records:
        refined_from = ((r.scores or {}).get("lineage") or {}).get("refined_from")
        if refined_from:
            parent[r.id] = (str(refined_from), "refined")
    children: dict[str, list[Any]] = {}
    for r in sorted(records, key=lambda r: (r.started_at, r.id)):
        up = parent.get(r.id)
        if up is not None and up[0] in by_id:
            children.setdefault(up[0], []).append(r)
    lines: list[str] = []

    def show(r: Any, lead: str, branch: str, how: str) -> None:
        how = f"  [{how}]" if how else ""
        fields = (r.id, r.task_id, r.status, _outcome(r), r.agent)
        lines.append(f"{lead}{branch}" + "  ".join(visible(f) for f in fields) + visible(how))
        kids = children.get(r.id, [])
        deeper = lead + ("" if not branch else ("   " if branch == "└─ " else "│  "))
        for n, kid in enumerate(kids):
            show(kid, deeper, "└─ " if n == len(kids) - 1 else "├─ ", parent[kid.id][1])

    for r in records:
        up = parent.get(r.id)
        if up is None or up[0] not in by_id:
            show(r, "", "", f"{up[1]} of {up[0]}" if up else "")
    lines.append(f"\n{len(records)} episode(s)")
    return lines


def _control_fields(record: Any, controls: dict[str, dict[str, Any]]) -> dict[str, Any]:
    from sttui.analysis.comparison import control_of, holder
    from sttui.core.control import seat_label

    control = control_of(record, controls)
    return {
        "control": control,
        "agent_holder": holder(record, controls, control),
        "agent_label": seat_label(record.agent, control.get("agent_steps") if control else None),
        "user_label": seat_label(record.user, control.get("user_turns") if control else None),
    }
