"""Stage judges run again over recorded episodes, for ``sttui replay --judge-stages`` and
``sttui report --judge-stages``: the answers recorded with an episode and the database's
cache are looked up first, so the same judges on the same windows cost nothing."""

from __future__ import annotations

from typing import Any

import click

from sttui.cli.records import _fail, _task_dirs


def judge_spec(text: str) -> Any:
    from sttui.core.review.judging import JudgeSpec, JudgeSpecError

    try:
        return JudgeSpec.parse(text)
    except JudgeSpecError as exc:
        _fail(str(exc), 2)


def recorded_judges(record: Any) -> dict[str, Any] | None:
    return ((record.scores or {}).get("review") or {}).get("judges")


def rejudge(episode: Any, record: Any, spec: Any, store: Any) -> dict[str, Any]:
    """Judge a rebuilt episode's closed stages; the answers recorded with the episode and the
    database's cache are looked up first, so the same judges on the same windows cost nothing.
    New answers go into the database's cache (when it can be written)."""
    import asyncio

    from sttui.config import ConfigError, load_config
    from sttui.controllers.stage_judge import JudgeCache, make_stage_judge
    from sttui.core.review.judging import JudgeSpecError

    try:
        models = load_config().models
    except ConfigError as exc:
        _fail(str(exc), 2)
    cache = JudgeCache((recorded_judges(record) or {}).get("cache"), store)
    try:
        judge = make_stage_judge(spec, models, cache)
    except JudgeSpecError as exc:
        _fail(str(exc), 2)
    assert judge is not None
    asyncio.run(judge.catch_up(episode))
    try:
        cache.save()
    except Exception as exc:  # a cache that cannot be written costs only future calls
        click.echo(f"note: the stage judges' cache was not saved: {exc}", err=True)
    return judge.summary(episode.review.settings.stage_threshold)


def report_judges(
    store: Any, stt_ids: list[str], spec: Any, trust: bool, recorded: list[dict[str, Any]]
) -> dict[str, Any] | None:
    """The stage judges' figures per tier: as recorded (``recorded``: each stt episode's recorded
    judges, in the report's order, taken out of the JSON by the database as the episodes were
    read), or (``spec``, not rule-only) re-judged on the rebuilt episodes ``stt_ids``, with the
    recorded judgements as the cache."""
    from sttui.core.review.summary import judge_tiers

    found: list[dict[str, Any]] = []
    notes: list[str] = []
    if spec is None or spec.mode == "rule":
        found = list(recorded)
        stt_ids = []
    if stt_ids:  # (the rebuilding machinery imported only to re-judge)
        from sttui.core.episode import Episode as SttEpisode
        from sttui.exports.versions import VersionProblem, open_version
        from sttui.running.recording import rebuild
    for episode_id in stt_ids:
        full = store.episode(episode_id)
        try:
            opened = open_version(store, full, trust=trust, task_dirs=_task_dirs(()))
            rebuilt = rebuild(opened.loaded, full, store.events(full.id), keep_events=False)
        except (VersionProblem, Exception) as exc:  # one episode that does not rebuild is a note
            notes.append(f"{full.id}: not re-judged: {exc}")
            continue
        if isinstance(rebuilt.episode, SttEpisode) and rebuilt.episode.review is not None:
            found.append(rejudge(rebuilt.episode, full, spec, store))
    if not found and not notes:
        return None
    return {
        "episodes": len(found),
        "judged_stages": sum(1 for j in found for s in j["stages"] if s.get("score") is not None),
        "tiers": judge_tiers(found),
        "notes": notes,
    }


def judge_lines(judges: dict[str, Any]) -> str:
    from sttui.core.review.summary import judge_tiers
    from sttui.textout import table

    lines = []
    for s in judges["stages"]:
        name = s["milestone"] or "open stage"
        if s.get("score") is None:
            lines.append(f"  {name:<24} unjudged: {s.get('unjudged')}")
            continue
        path = " -> ".join(p["tier"] + (f" ({p['escalated']})" if p.get("escalated") else "") for p in s["path"])
        lines.append(f"  {name:<24} judged {s['score']:.2f} (rule {s['rule_score']:.2f}) by {s['decided_by']}: {path}")
    if judges.get("first_error"):
        lines.append(f"  judges' first error: step {judges['first_error']['step']}: {judges['first_error']['why']}")
    rows = [{**r, "cost": "unknown" if r["cost"] is None else f"{r['cost']:.6f}"} for r in judge_tiers([judges])]
    lines.append(table(rows, list(rows[0])) if rows else "")
    return "\n".join(lines)
