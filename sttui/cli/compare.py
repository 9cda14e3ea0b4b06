"""`sttui compare EP_A EP_B`: two episodes side by side, aligned by tool and arguments, and the
first step at which their actions differ in kind: a screen in a terminal, text or JSON otherwise."""

from __future__ import annotations

import sys

import click

from sttui.cli.app import echo_json, main, open_store, say


@main.command("compare")
@click.argument("episode_a")
@click.argument("episode_b")
@click.option("--print", "as_text", is_flag=True, help="Print the alignment instead of opening the screen.")
@click.option(
    "--width",
    type=int,
    default=None,
    help="With --print: characters per side (default: half the terminal's width, or 48 in a pipe).",
)
@click.option("--json", "as_json", is_flag=True)
def compare_cmd(episode_a: str, episode_b: str, as_text: bool, width: int | None, as_json: bool) -> None:
    """Align the agent steps of two episodes (a person's and a model's on one task, say) by
    tool and arguments, and name the first step where they part ways. Messages align with
    messages whatever their words. Opens the side-by-side screen (escape leaves it); --print,
    --json, or output that is not a terminal, prints instead."""
    from sttui.store.db import StoreError
    from sttui.study.pairing import compare_episodes

    store = open_store()
    try:
        found = compare_episodes(store, episode_a, episode_b)
    except StoreError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)
    if as_json:
        echo_json(found)
        return
    if not as_text and sys.stdout.isatty() and sys.stdin.isatty():
        from sttui.tui.compare import CompareApp

        app = CompareApp(store.url, found["a"]["id"], found["b"]["id"])
        app.run()
        if app.return_code:
            raise SystemExit(app.return_code)
        return
    from sttui.textout import terminal_width

    a, b = found["a"], found["b"]
    columns = terminal_width()
    # a row is the two sides, each its step number and action (w + 4), and the mark between
    w = max(20, width if width is not None else 48 if columns is None else (columns - 11) // 2)

    def cut(text: str | None) -> str:
        text = text or ""
        return text if len(text) <= w else text[: w - 1] + "…"

    say(f"A {a['id']} {a['agent']} · B {b['id']} {b['agent']} · {a['task']}")
    for note in found["notes"]:
        say(f"note: {note}")
    marks = {"same": " ", "replace": "≠", "delete": "<", "insert": ">"}
    for r in found["rows"]:
        left = f"{r['a']:>3} {cut(r['a_action'])}" if r["a"] else ""
        right = f"{r['b']:>3} {cut(r['b_action'])}" if r["b"] else ""
        click.echo(f"{left:<{w + 4}} {marks[r['match']]} {right}")
    first = found["first_divergence"]
    if first is None:
        say(f"the same kinds of steps throughout ({found['steps'][0]} steps)")
    else:
        say(
            f"first divergence after {first['after_common_steps']} common step(s): A step {first['a_step'] or '-'} "
            f"{first['a'] or '(nothing)'}  vs  B step {first['b_step'] or '-'} {first['b'] or '(nothing)'}"
        )
