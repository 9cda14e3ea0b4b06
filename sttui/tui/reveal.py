"""The reveal: the hidden rule before and after the drift, the drift marked on the curve,
and the scores beside the random, stale and oracle references. In a study it says only that
the task ended, as the end screen does: the rule would teach the participant's next task."""

from __future__ import annotations

from typing import Any

from rich.markup import escape
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Static

from sttui.controllers.explore_baselines import ExploreStale
from sttui.core.explore.episode import ExploreEpisode
from sttui.core.explore.metrics import metrics
from sttui.tui.episode_over import EpisodeOverScreen
from sttui.tui.footer import Footer


def rule_text(rule: dict[str, Any]) -> str:
    lines = [f"family: {rule['family']}"]
    for i, f in enumerate(rule["factors"], 1):
        param = ", ".join(f"{k} {v}" for k, v in f.items() if k in ("weight", "threshold"))
        lines.append(f"  {i}. {f['field']} ({f['direction']}; {param})")
    return "\n".join(lines)


def curve(values: list[float], drift_after: int | None, width: int = 30) -> str:
    """One bar per batch; a line marks where the rule drifted."""
    lines = []
    for i, v in enumerate(values, 1):
        bar = "█" * max(0, round(v * width)) if v > 0 else "░" * min(width, round(-v * width))
        lines.append(f"  batch {i:>2}  {v:>6.0%}  {bar}")
        if drift_after is not None and i == drift_after:
            lines.append("  " + "─" * 12 + " the rule drifted here " + "─" * 12)
    return "\n".join(lines)


def references(ep: ExploreEpisode) -> dict[str, dict[str, float] | None]:
    """CA and EA of the reference policies on the same cases: random (in expectation: CA 0, EA
    the share of best actions), stale (keeps acting on the rule from before the drift: what not
    adapting costs; None without a drift) and the oracle (always a best action: 100%)."""
    unplayed = ExploreEpisode(ep.task, ep.seed)
    unplayed.start()
    random = metrics(unplayed)  # unplayed batches score what a random policy scores in expectation
    out: dict[str, dict[str, float] | None] = {
        "random": {"ca": random["calibrated_accuracy"], "ea": random["exact_accuracy"]},
        "stale": None,
        "oracle": {"ca": 1.0, "ea": 1.0},
    }
    if ep.post_rule is not None:
        shadow = ExploreEpisode(ep.task, ep.seed)
        agent = ExploreStale("stale", ep.task)
        shadow.start()
        while shadow.ended is None:
            view = shadow.agent_view()
            if view["phase"] == "window":
                shadow.apply(agent.best(ep.task.rule, view["cases"]))
            else:
                shadow.apply(agent.assessment(view["phase"]))
        stale = metrics(shadow)
        out["stale"] = {"ca": stale["calibrated_accuracy"], "ea": stale["exact_accuracy"]}
    return out


class RevealScreen(EpisodeOverScreen):
    HELP_TITLE = "the reveal"
    BINDINGS = [
        Binding("r", "replay", "Replay it", id="reveal.replay"),
        Binding("escape,enter", "home", "Home", id="reveal.home"),
    ]

    def compose(self) -> ComposeResult:
        ep = self.result.episode
        assert isinstance(ep, ExploreEpisode)
        if self.session.in_study:  # the hidden rule and the scores are the researcher's
            yield from self.study_ending(ep.steps)
            return
        m = self.result.metrics or {}
        reveal = ep.reveal()
        refs = references(ep)

        def pct(key: str) -> str:
            v = m.get(key)
            return "-" if v is None else f"{v:.0%}"

        def ref(name: str, key: str) -> str:
            v = (refs.get(name) or {}).get(key)
            return "-" if v is None else f"{v:.0%}"

        scores = [
            "[b]Scores[/b]" + " " * 24 + f"{'you':>6}   {'random':>6}   {'stale':>6}   {'oracle':>6}",
            f"  calibrated accuracy (CA)    {pct('calibrated_accuracy'):>6}   {ref('random', 'ca'):>6}   "
            f"{ref('stale', 'ca'):>6}   {ref('oracle', 'ca'):>6}",
            f"  exact accuracy (EA)         {pct('exact_accuracy'):>6}   {ref('random', 'ea'):>6}   "
            f"{ref('stale', 'ea'):>6}   {ref('oracle', 'ea'):>6}",
            "  [dim]CA: 0% is random, 100% always the best action; below 0 is worse than random.[/dim]",
            f"  factor recognition (FR)     {pct('factor_recognition'):>6}",
            f"  change recognition (CR)     {pct('change_recognition'):>6}",
            f"  unique probes               {m.get('unique_probes', 0):>6}",
            f"  re-probes after change      {m.get('reprobes_after_change', '-'):>6}",
            f"  first post-change loss      {pct('first_post_change_loss'):>6}",
        ]
        with VerticalScroll(id="reveal"):
            yield Static(f"[b]The hidden rule of {escape(ep.task.title)}[/b]", id="reveal-title")
            yield Static("\n".join(scores) + "\n", id="reveal-scores")  # first: what the person came for
            yield Static("[b]Before the drift[/b]\n" + escape(rule_text(reveal["before"])))
            if "after" in reveal:
                atoms = escape(", ".join(f"{k} {v}" for a in reveal["atoms"] for k, v in a.items()))
                yield Static(
                    f"[b]After batch {reveal['drift_after_batch']}[/b] ({atoms})\n" + escape(rule_text(reveal["after"]))
                )
            yield Static(f"distractors before the drift: {', '.join(reveal['distractors'])}\n", markup=False)
            yield Static(
                "[b]Calibrated accuracy per batch[/b]\n"
                + curve(m.get("ca_per_batch", []), reveal.get("drift_after_batch")),
                id="reveal-curve",
            )
        yield Footer()

    def on_mount(self) -> None:
        self.session.close()
