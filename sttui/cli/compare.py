"""`sttui compare EP_A EP_B`: two episodes side by side, aligned by tool and arguments, and the
first step at which their actions differ in kind."""

from __future__ import annotations

import sys

import click

from sttui.cli.app import echo_json, main, open_store


@main.command("compare")
@click.argument("episode_a")
@click.argument("episode_b")
@click.option("--width", type=int, default=48, help="Characters per side.")
@click.option("--json", "as_json", is_flag=True)
def compare_cmd(episode_a: str, episode_b: str, width: int, as_json: bool) -> None:
    """Align the agent steps of two episodes (a person's and a model's on one task, say) by
    tool and arguments, and name the first step where they part ways. Messages align with
    messages whatever their words."""
    from sttui.core.divergence import agent_steps, compare_steps
    from sttui.store.db import StoreError

    store = open_store()
    try:
        a, b = store.episode(episode_a), store.episode(episode_b)
    except StoreError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)
    found = compare_steps(agent_steps(a.kind, store.events(a.id)), agent_steps(b.kind, store.events(b.id)))
    found = {
        "a": {"id": a.id, "task": a.task_id, "agent": a.agent},
        "b": {"id": b.id, "task": b.task_id, "agent": b.agent},
        **found,
    }
    notes = []
    if a.task_id != b.task_id:
        notes.append(
            f"the episodes are of different tasks ({a.task_id}, {b.task_id}): aligned by tool and arguments only"
        )
    elif a.task_hash != b.task_hash:
        notes.append("the episodes ran on different versions of the task")
    found["notes"] = notes
    if as_json:
        echo_json(found)
        return
    w = max(20, width)

    def cut(text: str | None) -> str:
        text = text or ""
        return text if len(text) <= w else text[: w - 1] + "…"

    click.echo(f"A {a.id} {a.agent} · B {b.id} {b.agent} · {a.task_id}")
    for note in notes:
        click.echo(f"note: {note}")
    marks = {"same": " ", "replace": "≠", "delete": "<", "insert": ">"}
    for r in found["rows"]:
        left = f"{r['a']:>3} {cut(r['a_action'])}" if r["a"] else ""
        right = f"{r['b']:>3} {cut(r['b_action'])}" if r["b"] else ""
        click.echo(f"{left:<{w + 4}} {marks[r['match']]} {right}")
    first = found["first_divergence"]
    if first is None:
        click.echo(f"the same kinds of steps throughout ({found['steps'][0]} steps)")
    else:
        click.echo(
            f"first divergence after {first['after_common_steps']} common step(s): A step {first['a_step'] or '-'} "
            f"{first['a'] or '(nothing)'}  vs  B step {first['b_step'] or '-'} {first['b'] or '(nothing)'}"
        )
