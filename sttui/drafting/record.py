"""The record of a draft: every candidate (raw and parsed), why each was dropped or flagged, the
vote, the consensus graph and its checks. Written as one JSON file so a draft can be
re-examined (``milestones show``) and re-merged without calling the model again.

Validation is the task's own: each candidate's rules are parsed with the task model
(``Milestone``/``Minefield``) and checked with the task's semantic checks
(``sttui.core.task_semantics``) on the task with the candidate's graph in place (tools,
parameters, state paths, cycles, reachable thresholds); only the problems in the milestones
and minefields are the candidate's.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from sttui.core.loader import LoadedTask
from sttui.core.problems import format_loc
from sttui.core.review import consensus as cs
from sttui.core.review.model import Milestone, Minefield
from sttui.core.task import SttTask
from sttui.core.task_semantics import semantic_problems

FORMAT = "sttui-milestones-draft/1"


class DraftError(Exception):
    """A draft file that cannot be used, in one line."""


def with_graph(loaded: LoadedTask, milestones: list[Milestone], minefields: list[Minefield]) -> LoadedTask:
    """``loaded`` with another graph in place; its own version key, so the review's graph cache
    never hands it the task's own graph."""
    task = loaded.task.model_copy(update={"milestones": milestones, "minefields": minefields})
    digest = hashlib.sha256(
        json.dumps([[cs.dump_rule(m) for m in milestones], [cs.dump_rule(m) for m in minefields]]).encode()
    ).hexdigest()[:16]
    return LoadedTask(task, loaded.env_cls, loaded.path, f"{loaded.content_hash}+draft-{digest}")


def graph_problems(loaded: LoadedTask, milestones: list[Milestone], minefields: list[Minefield]) -> list[str]:
    """The task's semantic checks of the milestones and minefields, on the task with this graph."""
    task = with_graph(loaded, milestones, minefields).task
    assert isinstance(task, SttTask) and loaded.env_cls is not None  # drafts are of stt tasks
    return [
        f"{format_loc(loc)}: {message}"
        for loc, message in semantic_problems(task, loaded.env_cls)
        if loc and loc[0] in ("milestones", "minefields")
    ]


def judge_candidate(
    loaded: LoadedTask, index: int, seed: int | None, raw: str, check_leaks: bool = True
) -> dict[str, Any]:
    """One candidate's entry in the record: parsed, then ``invalid`` (with problems), ``leaking``
    (with how) or ``valid``. A graph derived from the solution is not checked for leaks: it is
    the solution, by the author's explicit choice."""
    entry: dict[str, Any] = {"index": index, "seed": seed, "raw": raw, "parsed": None, "problems": [], "leaks": []}
    data, why = cs.parse_answer(raw)
    if data is None:
        entry.update(status="invalid", problems=[why])
        return entry
    entry["parsed"] = data
    milestones, minefields, problems = cs.schema_problems(data)
    if not problems:
        problems = graph_problems(loaded, milestones, minefields)
    if problems:
        entry.update(status="invalid", problems=problems)
        return entry
    solution = loaded.task.solution if isinstance(loaded.task, SttTask) else []
    leaks = cs.leaks(milestones, minefields, solution) if check_leaks else []
    entry.update(status="leaking" if leaks else "valid", leaks=leaks)
    return entry


def rules_of(entry: dict[str, Any]) -> tuple[list[Milestone], list[Minefield]]:
    milestones, minefields, _ = cs.schema_problems(entry["parsed"])
    return milestones, minefields


def merge(loaded: LoadedTask, candidates: list[dict[str, Any]]) -> dict[str, Any]:
    """The vote over the valid candidates, the consensus graph and its checks, as record fields."""
    voters = [cs.Voter(c["index"], *rules_of(c)) for c in candidates if c["status"] == "valid"]
    result = cs.vote(voters)
    return {
        "vote": result.as_dict(),
        "consensus": {
            "milestones": [cs.dump_rule(m) for m in result.kept_milestones],
            "minefields": [cs.dump_rule(m) for m in result.kept_minefields],
        },
        "checks": run_checks(loaded, result.kept_milestones, result.kept_minefields),
    }


def run_checks(loaded: LoadedTask, milestones: list[Milestone], minefields: list[Minefield]) -> dict[str, Any]:
    """What ``sttui check`` verifies of a graph: the loader's checks, then the solution settles
    every milestone and the naive plan does not. {ok, problems, notes}."""
    if not milestones:
        return {"ok": False, "problems": ["no milestone reached the quorum"], "notes": []}
    problems = graph_problems(loaded, milestones, minefields)
    notes: list[str] = []
    if not problems:
        from sttui.authoring.checking import review_check

        played, notes = _run(lambda: review_check(with_graph(loaded, milestones, minefields)))
        problems.extend(played)
    return {"ok": not problems, "problems": problems, "notes": notes}


def _run(make: Any) -> Any:
    """``asyncio.run(make())``, in a thread of its own when this one already runs an event loop
    (a coroutine or a test calling in), since plays are asynchronous."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(make())
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(lambda: asyncio.run(make())).result()


def new_draft(
    loaded: LoadedTask,
    answers: list[dict[str, Any]],
    *,
    method: str,
    model: str | None,
    prompt_version: str | None,
    seed: int | None,
    prompt_text: str | None = None,
) -> dict[str, Any]:
    """The whole record of a draft from the model's answers ([{seed, raw}])."""
    candidates = [
        judge_candidate(loaded, i, a.get("seed"), a["raw"], check_leaks=method != "solution")
        | ({"usage": a["usage"]} if "usage" in a else {})
        for i, a in enumerate(answers)
    ]
    return {
        "format": FORMAT,
        "task": {"id": loaded.id, "file": str(loaded.path), "content_hash": loaded.content_hash},
        "method": method,
        "model": model,
        "prompt_version": prompt_version,
        "prompt": prompt_text,
        "seed": seed,
        "seeds": [a.get("seed") for a in answers],
        "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "candidates": candidates,
        **merge(loaded, candidates),
    }


def from_solution(loaded: LoadedTask) -> dict[str, Any]:
    """The explicit fallback: one candidate, the sequential graph derived from the solution."""
    from sttui.core.review.derive import derive_milestones

    milestones = derive_milestones(loaded.task, loaded.env_cls)
    if not milestones:  # (no candidate, no vote: a draft of nothing would talk of quorums)
        raise DraftError(
            "the solution changes nothing a milestone can check (an impossible task's solution looks, "
            "its operations fail, and it says why): there is no graph to derive. Write its milestones by "
            "hand (task format, Part 3), or ask a model (--model M), or leave the task without a stage review"
        )
    raw = json.dumps({"plan": [], "milestones": [cs.dump_rule(m) for m in milestones], "minefields": []}, indent=1)
    return new_draft(
        loaded, [{"seed": None, "raw": raw}], method="solution", model=None, prompt_version=None, seed=None
    )


def remerge(loaded: LoadedTask, draft: dict[str, Any]) -> dict[str, Any]:
    """The draft judged and voted again from its recorded answers (no model call): after a task
    edit, or a change of the rules."""
    answers = [{k: c[k] for k in ("seed", "raw", "usage") if k in c} for c in draft["candidates"]]
    again = new_draft(
        loaded,
        answers,
        method=draft["method"],
        model=draft.get("model"),
        prompt_version=draft.get("prompt_version"),
        seed=draft.get("seed"),
        prompt_text=draft.get("prompt"),
    )
    again["created_at"] = draft.get("created_at")
    return again


def read_draft(path: str | Path) -> dict[str, Any]:
    """A draft file, or a DraftError saying in one line why it is not one."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise DraftError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DraftError(f"{path}: not a milestones draft ({type(exc).__name__}: {exc})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise DraftError(f'{path}: not a milestones draft (expected "format": "{FORMAT}")')
    problem = _shape_problem(data)
    if problem:
        raise DraftError(f"{path}: a broken milestones draft: {problem}")
    try:
        consensus_rules(data)
    except DraftError as exc:
        raise DraftError(f"{path}: {exc}") from None
    return data


def _shape_problem(data: dict[str, Any]) -> str | None:
    """What the commands read of a draft, checked once, so a hand-edited file fails in one line."""
    task = data.get("task")
    if not isinstance(task, dict) or not isinstance(task.get("id"), str):
        return "task.id is missing"
    if data.get("method") not in ("consensus", "solution"):
        return "method is neither consensus nor solution"
    if not isinstance(data.get("consensus"), dict):
        return "consensus is missing"
    candidates = data.get("candidates")
    if not isinstance(candidates, list):
        return "candidates is not a list"
    for i, c in enumerate(candidates):
        if not (
            isinstance(c, dict)
            and isinstance(c.get("raw"), str)
            and c.get("status") in ("valid", "invalid", "leaking")
            and isinstance(c.get("problems"), list)
            and isinstance(c.get("leaks"), list)
        ):
            return f"candidates[{i}] lacks raw, status, problems or leaks"
    return None


def write_draft(path: str | Path, draft: dict[str, Any]) -> None:
    """The draft (or any drafting record: task drafts, episode reviews) as JSON, written
    atomically, secrets scrubbed like every other way out (a model may echo a key)."""
    from sttui.drafting.write import _atomic_write
    from sttui.store.secrets import scrub

    _atomic_write(Path(path), json.dumps(scrub(draft), indent=2, ensure_ascii=False) + "\n")


def summary_lines(draft: dict[str, Any]) -> list[str]:
    """A draft for the terminal: candidates, the vote, the consensus and its checks."""
    out = [
        f"draft of {draft['task']['id']} ({draft['method']}"
        + (
            f", model {draft['model']}, prompt {draft['prompt_version']}, seeds {draft['seeds']}"
            if draft.get("model")
            else ""
        )
        + ")"
    ]
    for c in draft["candidates"]:
        why = "; ".join(c["problems"] or c["leaks"])
        out.append(f"  candidate {c['index']} (seed {c['seed']}): {c['status']}" + (f": {why}" if why else ""))
    vote = draft.get("vote") or {}
    if vote:
        out.append(f"vote: {len(vote['voters'])} voter(s), quorum {vote['quorum']}")
        for kind in ("milestones", "minefields"):
            for v in vote[kind]:
                mark = "kept " if v["kept"] else "dropped"
                out.append(f"  {kind[:-1]} {mark} {v['id']}: support {len(v['support'])} {v['support']}")
        for e in vote["edges"]:
            out.append(
                f"  edge {'kept ' if e['kept'] else 'dropped'} {e['before']} → {e['after']}: support {len(e['support'])}"
            )
        for a, b in vote.get("redundant", []):
            out.append(f"  edge {a} → {b} implied by another path: removed (transitive reduction)")
    out.append("consensus:")
    for m in draft["consensus"]["milestones"]:
        out.append(f"  milestone {m['id']} after [{', '.join(m.get('after', []))}]: {m.get('name', '')}")
    for m in draft["consensus"]["minefields"]:
        out.append(f"  minefield {m.get('id') or '-'} ({m['severity']}): {m['reason']}")
    checks = draft.get("checks") or {}
    out.append("checks: " + ("ok" if checks.get("ok") else "FAIL"))
    out.extend(f"  - {p}" for p in checks.get("problems", []))
    out.extend(f"    {n}" for n in checks.get("notes", []))
    return out


def consensus_rules(draft: dict[str, Any]) -> tuple[list[Milestone], list[Minefield]]:
    """The draft's consensus graph in the task model (a DraftError if it does not validate)."""
    try:
        milestones = [Milestone.model_validate(m) for m in draft["consensus"]["milestones"]]
        minefields = [Minefield.model_validate(m) for m in draft["consensus"]["minefields"]]
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(map(str, err["loc"])) or "(rule)"
        raise DraftError(f"the draft's consensus is not a valid graph: {where}: {err['msg']}") from None
    except (KeyError, TypeError) as exc:
        raise DraftError(f"the draft's consensus is not a valid graph: {type(exc).__name__}: {exc}") from None
    return milestones, minefields


def choose(
    milestones: list[Milestone], minefields: list[Minefield], keep: list[str] | None
) -> tuple[list[Milestone], list[Minefield]]:
    """The graph on the ids in ``keep`` (milestones and minefields; None keeps all), with the
    order through dropped milestones kept (``consensus.restrict``)."""
    if keep is None:
        return milestones, minefields
    known = {m.id for m in milestones} | {f.id for f in minefields if f.id}
    unknown = [k for k in keep if k not in known]
    if unknown:
        raise DraftError(f"no milestone or minefield {', '.join(unknown)} in the draft's consensus")
    return cs.restrict(milestones, keep), [f for f in minefields if f.id in keep]


def accept(
    loaded: LoadedTask, draft: dict[str, Any], milestones: list[Milestone], minefields: list[Minefield], name: str
) -> tuple[LoadedTask, dict[str, Any]]:
    """Check the chosen graph as ``sttui check`` would, then write it into the task file.
    A graph that fails the checks is refused with them (DraftError), and nothing is written."""
    from sttui.drafting.write import write_graph

    checks = run_checks(loaded, milestones, minefields)
    if not checks["ok"]:
        raise DraftError("the graph fails the checks, nothing written: " + "; ".join(checks["problems"]))
    origin = {
        "method": draft["method"],
        "model": draft.get("model"),
        "prompt": draft.get("prompt_version"),
        "draft": name,
    }
    written = write_graph(
        loaded.path,
        [cs.dump_rule(m) for m in milestones],
        [cs.dump_rule(m) for m in minefields],
        {k: v for k, v in origin.items() if v is not None},
    )
    return written, checks
