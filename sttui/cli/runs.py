"""``sttui run --run-id``: one worker of a shared run, and what it prints."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from typing import Any

import click

from sttui.cli.app import echo_json


def run_shared(plan: Any, store: Any, run_id: str, shard: Any, *, as_json: bool, printer: Callable[..., None]) -> None:
    """Work on the run until every item this worker may claim is done; then the run's summary
    (all workers' episodes, one per item) if the whole run is done, else where it stands."""
    from sttui.running.batch import report
    from sttui.running.sharding import run_records, run_worker, worker_name
    from sttui.store.runs import RunMismatch

    worker = worker_name()

    def said(r: dict[str, Any]) -> None:
        outcome = (
            r["status"] if r["status"] != "completed" or "passed" not in r else ("pass" if r["passed"] else "FAIL")
        )
        took = f", taken over from {r['taken_from']}" if r.get("taken_from") else ""
        click.echo(f"{run_id} item {r['run_item']}: {r['task']} trial {r['trial']} {outcome}{took}", err=True)

    try:
        mine = asyncio.run(run_worker(plan, store, run_id, shard, worker=worker, progress=None if as_json else said))
    except RunMismatch as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)
    except KeyboardInterrupt:  # hand the items back now rather than when the leases lapse
        released = store.release_claims(run_id, worker)
        click.echo(f"interrupted: {released} item(s) of run {run_id} handed back to the other workers", err=True)
        sys.exit(130)
    full = run_records(store, run_id, plan)
    counts = store.run_progress(run_id)
    total = sum(counts.values())
    state = {
        "id": run_id,
        "worker": worker,
        "shard": str(shard),
        "items": total,
        "done": counts["done"],
        "complete": full is not None,
        "ran_here": sum(r["status"] != "superseded" for r in mine),
    }
    if full is None:
        if as_json:
            echo_json({"run": state, "episodes": mine, "summary": None})
        else:
            click.echo(
                f"{worker} ran {state['ran_here']} item(s) of run {run_id} (shard {shard}); "
                f"{counts['done']} of {total} done, the rest with other workers. "
                f"`sttui report --run-id {run_id}` once they finish (the last worker prints the summary)"
            )
    else:
        summary = report(full)
        if as_json:
            echo_json({"run": state, "episodes": full, "summary": summary})
        else:
            click.echo(f"run {run_id}: all {total} items done ({state['ran_here']} here)\n")
            printer(plan, full, summary)
    lost = [r for r in mine if r.get("record_failed")]
    if lost:  # no success over a lost write; another worker reruns the item
        click.echo(
            f"error: {len(lost)} episode(s) could not be recorded in full: {lost[0]['error']}. This worker stopped "
            "claiming and handed their items back to the run for another worker",
            err=True,
        )
        sys.exit(3)
    from sttui.cli.run import _exit_if_errored

    _exit_if_errored(mine)
