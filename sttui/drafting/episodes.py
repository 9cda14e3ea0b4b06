"""Reviewing candidate explore episodes before they are bundled (AdaExploreBench §3.1): ``check``
(structure, numbers, the drift's share) and a model's ratings of realism, plausibility of the
change and distractor quality. An episode the model rejects, or that fails ``check``, cannot be
accepted; one a person rejects is not bundled either. Accepting copies the episode into the
bundle folder; the record keeps every episode, rating and decision (it is the rejected list).
"""

from __future__ import annotations

import asyncio
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sttui.core.problems import TaskFileError, display_path
from sttui.core.review import consensus as cs
from sttui.core.yamlio import read_text
from sttui.drafting.tasks import PipelineError

FORMAT = "sttui-episode-review/1"
PROMPT_VERSION = "episode-review/1"
RATINGS = ("realism", "change_plausibility", "distractor_quality")
LOWEST = 3  # a rating below this rejects the episode, whatever the verdict says


def parse_rating(raw: str) -> tuple[dict[str, Any] | None, list[str]]:
    """The model's ratings, or why the answer is not one."""
    data, why = cs.parse_answer(raw)
    if data is None:
        return None, [f"the rater's answer: {why}"]
    scores = {}
    for key in RATINGS:
        value = data.get(key)
        if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= 5:
            return None, [f"the rater's answer: {key} must be an integer from 1 to 5"]
        scores[key] = value
    if data.get("verdict") not in ("accept", "reject"):
        return None, ["the rater's answer: verdict is neither accept nor reject"]
    reasons = [str(r) for r in data.get("reasons", []) if isinstance(r, str | int | float)]
    return {"scores": scores, "verdict": data["verdict"], "reasons": reasons}, []


def rating_problems(rating: dict[str, Any]) -> list[str]:
    out = [f"{k} rated {v} (below {LOWEST})" for k, v in rating["scores"].items() if v < LOWEST]
    if rating["verdict"] == "reject":
        out.insert(0, "the model rejects it: " + ("; ".join(rating["reasons"]) or "no reason given"))
    return out


async def check_text(path: Path, text: str) -> dict[str, Any]:
    """``sttui check``'s explore checks of an episode's text, at its own place (for the catalog)."""
    from sttui.authoring.checking import check_explore
    from sttui.core.loader import _load_task

    tmp = path.with_name(f".{path.name}.review-tmp")  # beside it, for its catalog; never read as an episode
    tmp.write_text(text, encoding="utf-8")
    try:
        loaded = _load_task(tmp)
        if loaded.kind != "explore":
            return {
                "ok": False,
                "problems": [f"{display_path(path)}: not an explore episode"],
                "notes": [],
                "loaded": False,
            }
        report = await check_explore(loaded, display_path(path))
    except TaskFileError as exc:
        problems = [str(p).replace(tmp.name, path.name) for p in exc.problems]
        return {"ok": False, "problems": problems, "notes": [], "loaded": False}
    finally:
        tmp.unlink(missing_ok=True)
    return {"ok": report.ok, "problems": report.problems, "notes": report.notes, "id": loaded.id}


async def rate_one(path: Path, config: Any, index: int, seed: int) -> dict[str, Any]:
    from sttui.drafting.ask import ask_one
    from sttui.prompts import prompt

    entry: dict[str, Any] = {"index": index, "file": str(path), "seed": seed, "text": "", "review": None}
    try:
        text = read_text(path)
    except (OSError, UnicodeDecodeError, ValueError) as exc:  # kept, with why; nothing to rate
        entry["check"] = {"ok": False, "problems": [f"{display_path(path)}: cannot read: {exc}"], "notes": []}
        entry["rating"] = {"ok": False, "problems": ["not rated: the file cannot be read"]}
        entry["id"] = path.stem
        return _finish(entry)
    entry["text"] = text
    entry["check"] = await check_text(path, text)
    entry["id"] = entry["check"].pop("id", None) or path.stem
    if entry["check"].pop("loaded", True) is False:  # not an episode: nothing for the model to rate
        entry["rating"] = {"ok": False, "problems": ["not rated: it does not load as an explore episode"]}
        return _finish(entry)
    asked = prompt("episode_review.md").replace("{inputs}", "## episode\n" + text)
    answer = await ask_one(config, asked, seed)
    rating, problems = parse_rating(answer["raw"])
    if rating is not None:
        problems = rating_problems(rating)
    entry["rating"] = {"ok": not problems, "prompt": asked, "raw": answer["raw"], "usage": answer["usage"]}
    entry["rating"] |= rating or {}
    entry["rating"]["problems"] = problems
    return _finish(entry)


def _finish(entry: dict[str, Any]) -> dict[str, Any]:
    reasons = [f"check: {p}" for p in entry["check"]["problems"]] + [
        f"rating: {p}" for p in entry["rating"]["problems"]
    ]
    entry["status"] = "failed" if reasons else "passed"
    entry["reasons"] = reasons
    return entry


async def rate_episodes(files: list[Path], config: Any, into: Path, seed: int) -> dict[str, Any]:
    entries = await asyncio.gather(*(rate_one(f, config, i, seed + i) for i, f in enumerate(files)))
    return {
        "format": FORMAT,
        "into": str(into),
        "model": config.label,
        "prompt_version": PROMPT_VERSION,
        "seed": seed,
        "seeds": [seed + i for i in range(len(files))],
        "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "episodes": list(entries),
    }


def read_episode_review(path: str | Path) -> dict[str, Any]:
    import json

    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise PipelineError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise PipelineError(f"{path}: not an episode review ({type(exc).__name__}: {exc})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise PipelineError(f'{path}: neither a task draft nor an episode review (expected "format": "{FORMAT}")')
    eps = data.get("episodes")
    if not isinstance(data.get("into"), str) or not isinstance(eps, list):
        raise PipelineError(f"{path}: a broken episode review: into or episodes is missing")
    for i, e in enumerate(eps):
        if not (
            isinstance(e, dict)
            and isinstance(e.get("text"), str)
            and isinstance(e.get("file"), str)
            and e.get("status") in ("passed", "failed")
            and isinstance(e.get("reasons"), list)
            and isinstance(e.get("check"), dict)
            and isinstance(e["check"].get("problems"), list)
            and isinstance(e.get("rating"), dict)
        ):
            raise PipelineError(
                f"{path}: a broken episode review: episodes[{i}] lacks text, file, status, reasons, check or rating"
            )
    return data


def recheck(record: dict[str, Any], index: int, text: str) -> dict[str, Any]:
    """An edited episode, checked again; the model's rating stays the unedited one's, marked so."""
    from sttui.drafting.record import _run

    entry = record["episodes"][index]
    entry.setdefault("proposed_text", entry["text"])
    entry["text"], entry["edited"] = text, True
    place = Path(record["into"]) / _name(entry)  # where it would be bundled: its catalog is found from there
    place.parent.mkdir(parents=True, exist_ok=True)
    entry["check"] = _run(lambda: check_text(place, text))
    entry["id"] = entry["check"].pop("id", None) or entry["id"]
    entry["check"].pop("loaded", None)
    entry["rating"]["of"] = "the episode as proposed, before the edit"
    return _finish(entry)


def accept(record: dict[str, Any], index: int) -> Path:
    """Bundle the episode: only one that passes check and the model's review."""
    entry = record["episodes"][index]
    if entry["status"] != "passed" or entry["reasons"]:
        why = entry["reasons"][0] if entry["reasons"] else "it did not pass"
        raise PipelineError(f"episode {entry['id']} cannot be bundled: {why}")
    into = Path(record["into"])
    target = into / _name(entry)
    if target.exists():
        raise PipelineError(f"{display_path(target)} exists already; nothing written")
    into.mkdir(parents=True, exist_ok=True)
    from sttui.drafting.record import _run

    again = _run(lambda: check_text(target, entry["text"]))  # the record is data: check again, in place
    if not again["ok"]:
        raise PipelineError(f"check fails episode {entry['id']} in {display_path(into)}: {again['problems'][0]}")
    target.write_text(entry["text"], encoding="utf-8")
    entry["review"] = {"decision": "accepted", "file": str(target), "at": _now()}
    return target


def _name(entry: dict[str, Any]) -> str:
    """The episode's file name in the bundle: a plain name, never a path."""
    name = Path(entry["file"]).name
    if not re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9_.-]*\.ya?ml", name):
        raise PipelineError(f"episode file name {name!r} is not a plain NAME.yaml")
    return name


def reject(record: dict[str, Any], index: int, why: str = "") -> None:
    record["episodes"][index]["review"] = {"decision": "rejected", "why": why, "at": _now()}


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def summary_lines(record: dict[str, Any]) -> list[str]:
    out = [f"episode review, model {record['model']}, prompt {record['prompt_version']}, into {record['into']}"]
    for e in record["episodes"]:
        scores = e["rating"].get("scores") or {}
        shown = ", ".join(f"{k} {v}" for k, v in scores.items()) or "no rating"
        review = e.get("review") or {}
        line = f"  {e['id']}: {e['status']} ({shown})" + (f"; {review['decision']}" if review else "")
        out.append(line)
        out.extend(f"      - {r}" for r in e["reasons"][:4])
    return out
