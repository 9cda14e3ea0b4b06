"""The milestone review on screen: the frontier panel (done, ready, blocked) for the god view
and replay, and the stage timeline for replay. Rendering only: the review is the core's."""

from __future__ import annotations

import textwrap
from typing import Any

from rich.text import Text

from sttui.core.review.stages import flags_text
from sttui.core.review.tracker import Review

SIGNAL_TEXT = {
    "frontier_stagnation": "frontier stagnation",
    "fatal_minefield": "fatal minefield",
    "warn_minefield": "minefield (warn)",
    "predecessor_gap": "predecessor gap",
}


def signal_line(signal: dict[str, Any]) -> str:
    """A stop signal in words, for a warning or a panel line."""
    kind = signal["signal"]
    what = SIGNAL_TEXT.get(kind, kind)
    if kind.endswith("_minefield"):
        when = "before the call ran" if signal.get("before_call") else "after the action"
        return f"step {signal['step']}: {what} {signal['minefield']}: {signal['reason']} ({when})"
    if kind == "frontier_stagnation":
        return f"step {signal['step']}: {what}: no milestone for {signal['actions']} actions (since step {signal['since']})"
    if kind == "predecessor_gap":
        return f"step {signal['step']}: {what}: matches {signal['milestone']} before {', '.join(signal['missing'])}"
    return f"step {signal.get('step', '?')}: {what}"


def frontier_text(review: Review, at: int | None = None, state: Any = None) -> Text:
    """Done (with the step and stage score), ready (with, given the state, which of its
    constraints hold for the last action: why it has not settled), and blocked (with what
    each waits on)."""
    front = review.frontier(at)
    scores = {s.milestone: s.score for s in review.stages}
    g = review.graph
    out = Text()
    title = "Milestones" + (" (derived from the solution)" if review.derived else "")
    out.append(f"{title}" + (f" after step {at}" if at is not None else "") + "\n", style="bold")
    for m in front["done"]:
        if m == "start":
            continue
        out.append("  ✓ ", style="green")
        out.append(f"{m}  ", style="green")
        out.append(f"step {review.settled[m]} · stage {scores.get(m, 0):.2f}\n", style="dim")
    last = None
    if state is not None:
        done_actions = [a for a in review.actions if at is None or a.step <= at]
        last = done_actions[-1] if done_actions else None
    for m in front["ready"]:
        out.append("  ▶ ", style="bold yellow")
        out.append(f"{m}", style="yellow")
        out.append(f"  {g.milestones[m].name}\n", style="dim")
        if state is not None:
            for text, ok in review.explain(m, state, last):
                # shortened at a word boundary; the pane wraps it between words, never inside one
                short = textwrap.shorten(text, 110, placeholder=" …")
                out.append(f"      {'✓' if ok else '✗'} {short}\n", style="green" if ok else "dim red")
    for m in front["blocked"]:
        waiting = [p for p in g.preds[m] if p not in front["done"]]
        out.append(f"  · {m}", style="dim")
        out.append(f"  waits on {', '.join(waiting)}\n", style="dim")
    signals = [s for s in review.signals if at is None or s["step"] <= at]
    if signals:
        out.append("Signals\n", style="bold")
        for s in signals[-6:]:
            style = "bold red" if s.get("stops") else "yellow"
            out.append(f"  {signal_line(s)}\n", style=style)
    return out


def _bar(score: float, width: int = 10) -> str:
    full = round(score * width)
    return "█" * full + "░" * (width - full)


# a stage's flags as the timeline names them: "error" alone read as the first error, which is
# only placed in a stage scoring below the threshold (or at a minefield)
FLAG_NAMES = {"error": "failed call", "retry": "blind retry", "no_op": "no-op", "minefield": "minefield"}


def timeline_text(review: Review, threshold: float, first: dict[str, Any] | None) -> Text:
    """One line per stage in settlement order: its window, score bar and flags."""
    out = Text()
    out.append("Stages", style="bold")
    out.append(f"  steps, score (threshold {threshold:.2f})\n", style="dim")
    for stage in review.all_stages():
        name = stage.milestone or "open stage"
        low = stage.score < threshold
        out.append(f"  {name[:16]:<16} ", style="red" if low else "")
        out.append(f"{stage.first:>2}–{stage.last:<3} ", style="dim")
        out.append(_bar(stage.score, 6), style="red" if low else "green")
        out.append(f" {stage.score:.2f}\n")
        if stage.flags:
            flags = flags_text(stage.flags, lambda flag: FLAG_NAMES.get(flag, flag), most=5)
            out.append(f"      {flags}\n", style="dim")
    if first:
        out.append(f"First error: step {first['step']}: {first['why']}\n", style="bold red")
    if review.stop:
        out.append(f"Early stop: {signal_line(review.stop)}\n", style="bold red")
    return out
