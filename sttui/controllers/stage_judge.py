"""Model judges of milestone stages (DynSTEER's stage-wise review), through the one model
client (``ModelClient``: litellm, retries, Retry-After, scrubbed reasons).

Each closed stage is judged from its evidence window only (its actions and their results;
never the solution, never what the agent did not do in that window). ``model:M`` asks one
model once. ``adaptive:CHEAP,STANDARD,SPECIALIST`` asks the cheap judge (two samples) first and
escalates to the next tier when the policy in ``sttui/core/review/judging.py`` says so (low
confidence, samples that disagree, a minefield touched); the specialist scores only the
weakest dimensions so far. The tier that decided, the path and why are recorded per stage,
with the weights, tokens, cost and seconds per tier, and cache hits.

Judging happens between turns and never changes what the agent sees. A judge that fails
leaves the stage unjudged with the reason; the run goes on.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from sttui.config import ModelAlias
from sttui.controllers.model import ModelClient, ModelConfig, ModelFailure
from sttui.core.review.judging import (
    DIMENSIONS,
    PROMPT_VERSION,
    TIERS,
    JudgeSpec,
    JudgeSpecError,
    base_weights,
    cache_key,
    escalation,
    judged_first_error,
    tilted_weights,
    weighted_score,
)
from sttui.prompts import prompt

if TYPE_CHECKING:
    from sttui.store.store import Store

CHEAP_SAMPLES = 2  # the cheap tier's samples under adaptive: their spread is its uncertainty


def stage_window(review: Any, stage: Any) -> dict[str, Any]:
    """A stage's evidence window as plain data: the actions of its steps, the minefields they
    touched, and the milestone's name when it is the task's own (a derived milestone is named
    after the solution, so only its id is shown)."""
    actions = []
    for a in review.actions:
        if stage.first <= a.step <= stage.last:
            item: dict[str, Any] = {"step": a.step, "kind": a.kind}
            if a.kind == "call":
                item |= {"tool": a.tool, "args": a.args, "result": a.result}
            elif a.text:
                item["text"] = a.text
            actions.append(item)
    name = None
    if stage.milestone is not None and not review.derived:
        name = review.graph.milestones[stage.milestone].name
    reasons = {m.id or f"minefield-{i + 1}": m.reason for i, m in enumerate(review.minefields)}
    mines = [
        {"step": step, "minefield": m, "reason": reasons.get(m, "")}
        for step, ms in sorted(review.mine_steps.items())
        if stage.first <= step <= stage.last
        for m in ms
    ]
    return {"milestone": stage.milestone or "(open stage)", "name": name, "minefields": mines, "actions": actions}


def parse_answer(text: str) -> dict[str, Any] | None:
    """The judge's JSON: dimension scores in [0, 1], an overall score and a confidence."""
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end < start:
        return None
    try:
        data = json.loads(text[start : end + 1])
        scores = {d: _unit(v) for d, v in (data.get("scores") or {}).items() if d in DIMENSIONS}
        overall = _unit(data["overall"])
        confidence = data.get("confidence")
        return {
            "scores": scores,
            "overall": overall,
            "confidence": None if confidence is None else _unit(confidence),
            "evidence": str(data.get("evidence") or "")[:300],
        }
    except (json.JSONDecodeError, KeyError, TypeError, ValueError, AttributeError):
        return None


def _unit(v: Any) -> float:
    x = float(v)
    if not 0.0 <= x <= 1.0:
        raise ValueError(x)
    return x


class JudgeCache:
    """Stage judges' answers by cache key: in memory (shared by a run's episodes, seeded from
    an episode's recorded judgements), then the database's ``stage_judgements`` table. New
    answers are kept in memory and written by :meth:`save` (at the end of a run or a
    re-judging), so the run's writer is never raced from the event loop."""

    def __init__(self, answers: dict[str, Any] | None = None, store: Store | None = None):
        self.answers: dict[str, dict[str, Any]] = dict(answers or {})
        self.store = store
        self.fresh: dict[str, tuple[str, str, dict[str, Any]]] = {}

    async def get(self, key: str) -> dict[str, Any] | None:
        if key in self.answers:
            return self.answers[key]
        if self.store is None:
            return None
        found = (await asyncio.to_thread(self.store.judgements, [key])).get(key)
        if found is not None:
            self.answers[key] = found
        return found

    def put(self, key: str, model: str, answer: dict[str, Any]) -> None:
        self.answers[key] = answer
        self.fresh[key] = (model, PROMPT_VERSION, answer)

    def save(self) -> int:
        """Write the new answers to the database (none on a read-only one); how many were added."""
        if self.store is None or not self.fresh or getattr(self.store, "read_only", False):
            return 0
        added = self.store.save_judgements(self.fresh)
        self.fresh = {}
        return added


class StageJudge:
    """The stage judges of one episode. ``cache``: answers by key, shared between episodes,
    seeded from recorded judgements and backed by the database, so a replay asks no model twice."""

    def __init__(self, spec: JudgeSpec, configs: list[ModelConfig], cache: JudgeCache | None = None):
        self.spec = spec
        roles = TIERS if spec.mode == "adaptive" else ("single",)
        self.tiers = [(role, ModelClient(c)) for role, c in zip(roles, configs, strict=True)]
        self.cache = cache if cache is not None else JudgeCache()
        self.seconds = {role: 0.0 for role, _ in self.tiers}
        self.hits = {role: 0 for role, _ in self.tiers}
        self.escalations = {role: 0 for role, _ in self.tiers}
        for role, client in self.tiers:
            client.record = lambda kind, p, r=role: self._note(r, kind, p)
        self.stages: list[dict[str, Any]] = []
        self.deficits: dict[str, float] = dict.fromkeys(DIMENSIONS, 0.0)
        self.used: set[str] = set()  # the cache keys this episode's stages were judged with
        self.milestones = 0  # the graph's milestones, for a score comparable with the rule review's

    def _note(self, role: str, kind: str, payload: dict[str, Any]) -> None:
        if kind == "model_call":
            self.seconds[role] += payload.get("seconds") or 0.0

    async def catch_up(self, episode: Any) -> None:
        """Judge the stages closed since the last call; feed the low-quality rule."""
        review = getattr(episode, "review", None)
        if review is None:
            return
        self.milestones = len(review.graph.order)
        while len(self.stages) < len(review.stages):
            stage = review.stages[len(self.stages)]
            position = len(self.stages)
            judged = await self.judge(review, stage, position, len(review.graph.order))
            self.stages.append(judged)
            review.judges = self.summary(review.settings.stage_threshold)
            if judged["score"] is not None and review.external_scores:
                signal = review.stage_scored(stage.milestone, judged["score"], stage.last)
                if signal is not None:
                    episode.review_signal(signal)
        review.judges = self.summary(review.settings.stage_threshold)

    async def judge(self, review: Any, stage: Any, position: int, total: int) -> dict[str, Any]:
        window = stage_window(review, stage)
        minefield = bool(window["minefields"])
        weights = tilted_weights(base_weights(minefield, stage.settled, position, total), self.deficits)
        out: dict[str, Any] = {
            "milestone": stage.milestone,
            "steps": [stage.first, stage.last],
            "rule_score": round(stage.score, 4),
            "weights": weights,
            "path": [],
        }
        decided: dict[str, Any] | None = None
        for i, (role, client) in enumerate(self.tiers):
            n = CHEAP_SAMPLES if role == "cheap" else 1
            focus = _weakest(decided) if role == "specialist" else None
            try:
                samples = [await self._ask(role, client, window, k, focus) for k in range(n)]
            except ModelFailure as exc:
                out["path"].append({"tier": role, "error": str(exc)})
                if decided is None and i == len(self.tiers) - 1:
                    return out | {"score": None, "unjudged": str(exc)}
                if decided is None:
                    continue
                break
            answer = _merge(decided, samples, focus)
            why = escalation(samples, minefield, first_tier=i == 0) if i < len(self.tiers) - 1 else None
            step = {"tier": role, "model": client.config.label, "overall": [s["overall"] for s in samples]}
            step["confidence"] = [s["confidence"] for s in samples]
            decided = answer | {"tier": role}
            if why is None:
                out["path"].append(step | {"decided": True})
                break
            self.escalations[role] += 1
            out["path"].append(step | {"escalated": why})
        if decided is None:  # (every tier failed: reported above)
            return out | {"score": None, "unjudged": "no judge answered"}
        score = weighted_score(decided["scores"], weights) if decided["scores"] else decided["overall"]
        for d, s in decided["scores"].items():
            self.deficits[d] += 1.0 - s
        return out | {
            "score": round(score, 4),
            "decided_by": decided["tier"],
            "dimensions": decided["scores"],
            "evidence": decided.get("evidence", ""),
        }

    async def _ask(
        self, role: str, client: ModelClient, window: dict[str, Any], sample: int, focus: list[str] | None
    ) -> dict[str, Any]:
        # (the prompt file's own hash too: an edited prompt is a new question even before
        # PROMPT_VERSION is bumped)
        key = cache_key(window, client.config.model, f"{role}/{sample}/{','.join(focus or [])}/{_prompt_hash()}")
        self.used.add(key)
        cached = await self.cache.get(key)
        if cached is not None:
            self.hits[role] += 1
            return cached
        dims = [d for d in DIMENSIONS if not focus or d in focus]
        text = prompt("stage_judge.md").format(
            role=role if role != "single" else "stage",
            dimensions="\n".join(f"- {d}: {DIMENSIONS[d]}" for d in dims),
            focus=f"Focus: score only {', '.join(focus)} (a specialist review).\n" if focus else "",
            stage=f"{window['milestone']}" + (f" ({window['name']})" if window["name"] else ""),
            window=json.dumps(window["actions"], ensure_ascii=False, default=str, indent=0)[:20000],
            minefields=json.dumps(window["minefields"], ensure_ascii=False) if window["minefields"] else "none",
        )
        messages: list[dict[str, Any]] = [{"role": "user", "content": text}]
        last = ""
        for _ in range(2):
            message = await client.complete(messages, None)
            last = (message.get("content") or "").strip()
            answer = parse_answer(last)
            if answer is not None:
                self.cache.put(key, client.config.model, answer)
                return answer
            messages += [
                {"role": "assistant", "content": last},
                {"role": "user", "content": "Answer with the JSON object only, as specified."},
            ]
        raise ModelFailure(f"{client.config.label} gave no usable stage judgement: {last[:120]}")

    def summary(self, threshold: float) -> dict[str, Any]:
        """The record of this episode's stage judges (kept in ``scores.review.judges``)."""
        tiers = {}
        for role, client in self.tiers:
            u = client.usage
            tiers[role] = {
                "model": client.config.label,
                "calls": u.calls,
                "prompt_tokens": u.prompt_tokens,
                "completion_tokens": u.completion_tokens,
                "cost": u.cost,
                "seconds": round(self.seconds[role], 4),
                "escalations": self.escalations[role],
                "cache_hits": self.hits[role],
            }
        judged = [s["score"] for s in self.stages if s.get("score") is not None]
        unjudged = len(self.stages) - len(judged)
        return {
            "spec": self.spec.label,
            "prompt_version": PROMPT_VERSION,
            "stages": list(self.stages),
            "score": round(sum(judged) / len(judged), 4) if judged else None,  # over the stages judged
            # like the rule review's score: over the milestones, 0 for one never reached (an
            # unjudged stage is left out)
            "milestone_score": round(sum(judged) / (self.milestones - unjudged), 4)
            if judged and self.milestones > unjudged
            else None,
            "unjudged": unjudged,
            "tiers": tiers,
            "first_error": judged_first_error(self.stages, threshold),
            "cache": self.cache_entries(),
        }

    def cache_entries(self) -> dict[str, Any]:
        """The answers this episode's stages were judged with, by key: stored with the
        episode, read back to seed the cache of a replay or a re-report."""
        return {k: self.cache.answers[k] for k in sorted(self.used) if k in self.cache.answers}


@functools.cache
def _prompt_hash() -> str:
    return hashlib.sha256(prompt("stage_judge.md").encode()).hexdigest()[:16]


def _weakest(answer: dict[str, Any] | None, n: int = 2) -> list[str] | None:
    """The dimensions a specialist looks at: the lowest-scored so far."""
    if not answer or not answer.get("scores"):
        return None
    return sorted(answer["scores"], key=lambda d: answer["scores"][d])[:n]


def _merge(before: dict[str, Any] | None, samples: list[dict[str, Any]], focus: list[str] | None) -> dict[str, Any]:
    """The samples' mean; a specialist's scores replace only its focus dimensions."""
    scores: dict[str, float] = {}
    for d in DIMENSIONS:
        got = [s["scores"][d] for s in samples if d in s["scores"]]
        if got:
            scores[d] = sum(got) / len(got)
    overall = sum(s["overall"] for s in samples) / len(samples)
    if focus and before:
        scores = {**before["scores"], **{d: v for d, v in scores.items() if d in focus}}
    return {"scores": scores, "overall": overall, "evidence": samples[-1].get("evidence", "")}


def make_stage_judge(
    spec: JudgeSpec, models: Mapping[str, ModelAlias] | None = None, cache: JudgeCache | None = None
) -> StageJudge | None:
    """None for ``rule``; else a judge whose tiers resolve through the config's model aliases."""
    if spec.mode == "rule":
        return None
    from sttui.controllers.model import resolve_model

    try:
        configs = [resolve_model(m, models) for m in spec.models]
    except ValueError as exc:
        raise JudgeSpecError(f"--judge-stages: sttui.yaml: {exc}") from None
    return StageJudge(spec, configs, cache)
