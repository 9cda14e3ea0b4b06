"""Drafting whole stt tasks from a static scenario, as STT-Arena builds its tasks (§2.2, §E):
conflict injection, checklist generation, dual-agent assessment and a consistency audit, each
candidate kept with the stage it failed and why; then a person reviews them.

A scenario is a task file without the dynamic parts (triggers, checklist, solution, ...):
the world, the request and the naive plan. The model proposes the rest; every candidate is a
task file in the record (``task_yaml``) that the loader validates and ``sttui check``'s own
code (``check_loaded``) plays. The record holds the model, the seeds, every prompt and every
answer, as milestone drafts do (``sttui.drafting.record``).
"""

from __future__ import annotations

import asyncio
import difflib
import hashlib
import json
import re
import tempfile
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import yaml

from sttui.core.env import Environment
from sttui.core.envload import EnvImportError, import_env
from sttui.core.problems import TaskFileError, display_path
from sttui.core.review import consensus as cs
from sttui.core.taxonomy import CONFLICTS, LEVELS
from sttui.core.yamlio import YamlSyntaxError, line_of, load_with_lines, read_text

FORMAT = "sttui-task-draft/1"
PROMPT_VERSION = "task-draft/1"
STAGES = ("inject", "checklist", "assessment", "audit")
# what the pipeline proposes, so a scenario has none of it
PROPOSED = (
    "triggers",
    "checklist",
    "solution",
    "judge",
    "static_checklist",
    "static_skip",
    "milestones",
    "minefields",
    "milestones_origin",
    "review",
)
REQUIRED = ("id", "title", "domain", "env", "initial_state", "clock", "user", "query", "naive_plan")
ISSUE_KINDS = ("contradiction", "missing_link", "implausible_transition")
SUBTYPES = {
    "T1": "window expiry: a time window closes or shrinks before the planned action",
    "T2": "priority reorder: a more urgent demand arrives and must be served first",
    "T3": "delay propagation: an upstream activity slips and pushes later steps past their times",
    "S1": "site mismatch: an entity is not where the record says",
    "S2": "site closure: a planned site becomes unusable and an alternative is needed",
    "S3": "route restriction: the way between places is blocked or restricted",
    "ST1": "resource shift: a resource is moved or reassigned elsewhere at a given time",
    "ST2": "failure cascade: one failure propagates to dependent resources or steps",
    "ST3": "handoff failure: a hand-over between parties at a place and time falls through",
}
LEVEL_TEXT = {
    "easy": "one isolated conflict, one corrective action",
    "medium": "a few coordinated corrections",
    "hard": "long-horizon, cascading constraints that need global replanning",
    "impossible": "no valid completion: success is recognising it and telling the user",
}
_PLACEHOLDER_CHECK = "pipeline-placeholder"


class PipelineError(Exception):
    """A scenario or draft that cannot be used, in one line."""


@dataclass
class Scenario:
    """A static scenario: its data, the domain folder it belongs to and its environment."""

    path: Path
    data: dict[str, Any]
    domain_dir: Path
    env_cls: type[Environment]
    env_path: Path
    content_hash: str


def read_scenario(path: str | Path, domain_dir: str | Path | None = None) -> Scenario:
    """The scenario at ``path`` for the domain in ``domain_dir`` (default: the scenario's folder),
    checked as a task without its dynamic parts; a PipelineError in ``file:line: field`` form."""
    path = Path(path)
    name = display_path(path)
    try:
        text = read_text(path)
        data, lines = load_with_lines(text)
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise PipelineError(f"{name}: cannot read: {exc}") from None
    except YamlSyntaxError as exc:
        raise PipelineError(f"{name}:{exc.line}: (file): {exc}") from None
    if not isinstance(data, dict):
        raise PipelineError(f"{name}:1: (top level): expected a mapping of scenario fields")
    for key in PROPOSED:
        if key in data:
            raise PipelineError(
                f"{name}:{line_of(lines, (key,))}: {key}: a scenario has no {key}; the pipeline proposes it"
            )
    for key in REQUIRED:
        if key not in data:
            raise PipelineError(f"{name}:1: {key}: required in a scenario (a task's {', '.join(REQUIRED)})")
    folder = Path(domain_dir) if domain_dir is not None else path.parent
    if not isinstance(data["env"], str) or ":" not in data["env"]:
        raise PipelineError(f"{name}:{line_of(lines, ('env',))}: env: expected module:Class")
    try:
        env_cls, env_path = import_env(data["env"], folder / "scenario.yaml")
    except EnvImportError as exc:
        raise PipelineError(f"{name}:{line_of(lines, ('env',))}: env: {str(exc).removeprefix('env: ')}") from None
    digest = hashlib.sha256(text.encode() + env_path.read_bytes()).hexdigest()[:16]
    scenario = Scenario(path, data, folder, env_cls, env_path, digest)
    placeholder = task_data(scenario, "S1", "easy", 0, {"triggers": _placeholder_triggers(), "solution": None}, None)
    problems = load_problems(scenario, placeholder)
    own = [p for p in problems if p.split(": ", 2)[1].split(".")[0].split("[")[0] not in ("triggers", "checklist")]
    if own:
        raise PipelineError(f"{name}: the scenario does not load as a task: {own[0]}")
    return scenario


def _placeholder_triggers() -> list[dict[str, Any]]:
    return [{"id": _PLACEHOLDER_CHECK, "when": {"after_calls": 10_000}, "effects": [{"shift_clock": 0}]}]


def task_data(
    scenario: Scenario,
    subtype: str,
    level: str,
    index: int,
    injected: dict[str, Any],
    checked: dict[str, Any] | None,
) -> dict[str, Any]:
    """The candidate task: the scenario with the proposed parts in place (a placeholder
    checklist before the checklist stage, so the injection loads on its own)."""
    s = scenario.data
    out: dict[str, Any] = {
        "id": f"{s['id']}-{subtype.lower()}-{level}-{index}",
        "kind": "stt",
        "title": injected["title"]
        if isinstance(injected.get("title"), str) and injected["title"].strip()
        else s["title"],
        "domain": s["domain"],
        "conflict": subtype,
        "level": level,
        "env": s["env"],
    }
    if injected.get("description"):
        out["description"] = injected["description"]
    for key in ("seed", "max_steps"):
        if key in s:
            out[key] = s[key]
    for key in ("initial_state", "clock", "user", "query"):
        out[key] = s[key]
    out["triggers"] = injected.get("triggers")
    if checked is None:
        first = next(iter(s["initial_state"]), "places") if isinstance(s["initial_state"], dict) else "places"
        out["checklist"] = [{"id": _PLACEHOLDER_CHECK, "expect": {"path": first, "exists": True}}]
    else:
        out["checklist"] = checked.get("checklist")
        if "judge" in checked:
            out["judge"] = checked["judge"]
    if level == "impossible" and "judge" not in out:
        out["judge"] = {"reason": "placeholder until the checklist stage", "evidence": ["placeholder"]}
    out["naive_plan"] = s["naive_plan"]
    out["solution"] = injected.get("solution") if injected.get("solution") is not None else s["naive_plan"]
    return out


def dump_task(data: dict[str, Any]) -> str:
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100)


def _load_text(scenario: Scenario, text: str, folder: Path, name: str) -> Any:
    """Load a candidate's YAML from ``folder/name`` with the scenario's environment module."""
    from sttui.core.loader import _load_task

    file = folder / name
    file.write_text(text, encoding="utf-8")
    return _load_task(file, env_file=scenario.env_path)


def load_problems(scenario: Scenario, data: dict[str, Any]) -> list[str]:
    """The loader's problems of a candidate task (``file:line: field: message``), none if it loads."""
    with tempfile.TemporaryDirectory(prefix="sttui-draft-") as tmp:
        try:
            _load_text(scenario, dump_task(data), Path(tmp), "candidate.yaml")
        except TaskFileError as exc:
            return [str(p).replace(f"{tmp}/", "") for p in exc.problems]
    return []


def _stage(ok: bool, **fields: Any) -> dict[str, Any]:
    return {"ok": ok, **fields}


def parse_injection(raw: str) -> tuple[dict[str, Any] | None, list[str]]:
    data, why = cs.parse_answer(raw)
    if data is None:
        return None, [str(why)]
    problems = []
    if not isinstance(data.get("triggers"), list) or not data["triggers"]:
        problems.append("triggers: expected a non-empty list of triggers")
    if not isinstance(data.get("solution"), list) or not data["solution"]:
        problems.append("solution: expected a non-empty list of steps")
    for key in ("description", "title"):
        if key in data and not isinstance(data[key], str):
            problems.append(f"{key}: expected text")
    return (None if problems else data), problems


def parse_checklist(raw: str, level: str) -> tuple[dict[str, Any] | None, list[str]]:
    data, why = cs.parse_answer(raw)
    if data is None:
        return None, [str(why)]
    if not isinstance(data.get("checklist"), list) or not data["checklist"]:
        return None, ["checklist: expected a non-empty list of items"]
    for i, item in enumerate(data["checklist"]):
        if isinstance(item, dict) and ("code" in item or "python" in item):
            return None, [f"checklist[{i}]: code is not data; use expect, check or tell"]
    if level == "impossible" and not isinstance(data.get("judge"), dict):
        return None, ["judge: an impossible task needs a judge {reason, evidence}"]
    return {k: data[k] for k in ("checklist", "judge") if k in data}, []


def parse_audit(raw: str) -> tuple[dict[str, Any] | None, list[str]]:
    """The auditor's structured verdict, or why it is not one."""
    data, why = cs.parse_answer(raw)
    if data is None:
        return None, [f"the auditor's answer: {why}"]
    verdict, issues = data.get("verdict"), data.get("issues", [])
    if verdict not in ("consistent", "inconsistent"):
        return None, ["the auditor's answer: verdict is neither consistent nor inconsistent"]
    if not isinstance(issues, list):
        return None, ["the auditor's answer: issues is not a list"]
    clean = []
    for i, issue in enumerate(issues):
        if (
            not isinstance(issue, dict)
            or issue.get("kind") not in ISSUE_KINDS
            or not isinstance(issue.get("what"), str)
        ):
            return None, [f"the auditor's answer: issues[{i}] needs kind ({', '.join(ISSUE_KINDS)}) and what"]
        clean.append({"kind": issue["kind"], "where": str(issue.get("where", "")), "what": issue["what"]})
    return {"verdict": verdict, "issues": clean}, []


def scenario_inputs(scenario: Scenario) -> str:
    """The scenario for the prompts: the request, the user, the tools, the state, the naive plan."""
    s = scenario.data
    tools = [{**spec.openai_schema()["function"], "kind": spec.kind} for spec in scenario.env_cls.tool_specs.values()]
    checks = sorted(scenario.env_cls.check_names)
    parts = {
        "request": s["query"],
        "user": s["user"],
        "clock": s["clock"],
        "tools": tools,
        "environment checks": checks,
        "initial state": s["initial_state"],
        "naive plan": s["naive_plan"],
    }
    return _sections(parts)


def _sections(parts: dict[str, Any]) -> str:
    return "\n\n".join(
        f"## {k}\n{v if isinstance(v, str) else json.dumps(v, default=str, ensure_ascii=False)}"
        for k, v in parts.items()
    )


def inject_prompt(scenario: Scenario, subtype: str, level: str) -> str:
    from sttui.prompts import prompt

    return (
        prompt("task_inject.md")
        .replace("{subtype_text}", SUBTYPES[subtype])
        .replace("{subtype}", subtype)
        .replace("{level_text}", LEVEL_TEXT[level])
        .replace("{level}", level)
        .replace("{inputs}", scenario_inputs(scenario))
    )


def checklist_prompt(scenario: Scenario, level: str, injected: dict[str, Any]) -> str:
    from sttui.prompts import prompt

    extra = _sections(
        {
            "level": level,
            "conflict design": injected.get("description", ""),
            "triggers": injected["triggers"],
            "solution": injected["solution"],
        }
    )
    return prompt("task_checklist.md").replace("{inputs}", scenario_inputs(scenario) + "\n\n" + extra)


def audit_prompt(data: dict[str, Any]) -> str:
    """What the auditor reads: the query, initial state, conflict, triggers, checklist, level."""
    from sttui.prompts import prompt

    parts = {
        "query": data["query"],
        "initial state": data["initial_state"],
        "conflict": {
            "subtype": data["conflict"],
            "meaning": SUBTYPES[data["conflict"]],
            "design": data.get("description", ""),
        },
        "triggers": data["triggers"],
        "checklist": data["checklist"],
        "level": {"level": data["level"], "meaning": LEVEL_TEXT[data["level"]]},
    }
    if "judge" in data:
        parts["judge"] = data["judge"]
    return prompt("task_audit.md").replace("{inputs}", _sections(parts))


async def assess(scenario: Scenario, text: str, random_seeds: int) -> dict[str, Any]:
    """The dual-agent assessment: ``sttui check``'s own code on the candidate (naive plan fails,
    solution passes, adversarial controls hold, determinism, ...)."""
    from sttui.authoring.checking import check_loaded

    with tempfile.TemporaryDirectory(prefix="sttui-draft-") as tmp:
        try:
            loaded = _load_text(scenario, text, Path(tmp), "candidate.yaml")
        except TaskFileError as exc:
            problems = [str(p).replace(f"{tmp}/", "") for p in exc.problems]
            return _stage(False, problems=problems, notes=[], controls=[])
        report = await check_loaded(loaded, "candidate.yaml", random_seeds)
    clean = [p.replace(f"{tmp}/", "") for p in report.problems]
    return _stage(report.ok, problems=clean, notes=report.notes, controls=[c.as_dict() for c in report.controls])


async def run_candidate(
    scenario: Scenario,
    config: Any,
    subtype: str,
    level: str,
    index: int,
    seed: int,
    inject_text: str,
    random_seeds: int,
) -> dict[str, Any]:
    """One candidate through the four stages. A stage that fails is recorded with why; the
    assessment and the audit both run whenever the candidate loads, so the reviewer sees both."""
    from sttui.drafting.ask import ask_one

    cand: dict[str, Any] = {"index": index, "seed": seed, "id": None, "stages": {}, "task_yaml": None, "review": None}
    stages = cand["stages"]
    answer = await ask_one(config, inject_text, seed)
    injected, problems = parse_injection(answer["raw"])
    data = None
    if injected is not None:
        data = task_data(scenario, subtype, level, index, injected, None)
        cand["id"] = data["id"]
        problems = [
            p
            for p in load_problems(scenario, data)
            if p.split(": ", 2)[1].split(".")[0].split("[")[0] not in ("checklist", "judge")
        ]
    stages["inject"] = _stage(not problems, raw=answer["raw"], problems=problems, usage=answer["usage"])
    if problems or injected is None:
        return _finish(cand)

    text = checklist_prompt(scenario, level, injected)
    answer = await ask_one(config, text, seed)
    checked, problems = parse_checklist(answer["raw"], level)
    if checked is not None:
        data = task_data(scenario, subtype, level, index, injected, checked)
        problems = load_problems(scenario, data)
    stages["checklist"] = _stage(not problems, prompt=text, raw=answer["raw"], problems=problems, usage=answer["usage"])
    if problems or checked is None:
        return _finish(cand)
    assert data is not None
    cand["task_yaml"] = dump_task(data)

    stages["assessment"] = await assess(scenario, cand["task_yaml"], random_seeds)
    text = audit_prompt(data)
    answer = await ask_one(config, text, seed)
    verdict, problems = parse_audit(answer["raw"])
    if verdict is not None:
        problems = [
            f"{i['kind']}: {i['where']}: {i['what']}" if i["where"] else f"{i['kind']}: {i['what']}"
            for i in verdict["issues"]
        ]
        if verdict["verdict"] == "inconsistent" and not problems:
            problems = ["the auditor calls it inconsistent without naming an issue"]
    stages["audit"] = _stage(
        not problems,
        prompt=text,
        raw=answer["raw"],
        verdict=(verdict or {}).get("verdict"),
        issues=(verdict or {}).get("issues", []),
        problems=problems,
        usage=answer["usage"],
    )
    return _finish(cand)


def _finish(cand: dict[str, Any]) -> dict[str, Any]:
    """Status, the first failing stage and every reason, from the stages."""
    stages = cand["stages"]
    failed = [s for s in STAGES if s in stages and not stages[s]["ok"]]
    missing = [s for s in STAGES if s not in stages]
    cand["status"] = "passed" if not failed and not missing else "failed"
    cand["failed_stage"] = failed[0] if failed else None
    cand["reasons"] = [f"{s}: {p}" for s in failed for p in stages[s]["problems"]]
    if failed and missing:
        cand["reasons"].append(f"not run: {', '.join(missing)} (after {failed[0]} failed)")
    return cand


async def draft_tasks(
    scenario: Scenario,
    config: Any,
    subtype: str,
    level: str,
    count: int,
    seed: int,
    random_seeds: int = 20,
) -> dict[str, Any]:
    """The whole record: ``count`` candidates, candidate i sampled with seed ``seed + i``."""
    if subtype not in CONFLICTS or level not in LEVELS:
        raise PipelineError(f"subtype must be one of {', '.join(CONFLICTS)} and level one of {', '.join(LEVELS)}")
    text = inject_prompt(scenario, subtype, level)
    candidates = await asyncio.gather(
        *(run_candidate(scenario, config, subtype, level, i, seed + i, text, random_seeds) for i in range(count))
    )
    return {
        "format": FORMAT,
        "scenario": {
            "id": scenario.data["id"],
            "file": str(scenario.path),
            "domain_dir": str(scenario.domain_dir),
            "content_hash": scenario.content_hash,
        },
        "subtype": subtype,
        "level": level,
        "model": config.label,
        "prompt_version": PROMPT_VERSION,
        "prompt": text,
        "seed": seed,
        "seeds": [seed + i for i in range(count)],
        "random_seeds": random_seeds,
        "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "candidates": list(candidates),
    }


# -- the record on disk, and the review's decisions ------------------------------------------


def read_task_draft(path: str | Path) -> dict[str, Any]:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise PipelineError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise PipelineError(f"{path}: not a task draft ({type(exc).__name__}: {exc})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise PipelineError(f'{path}: not a task draft (expected "format": "{FORMAT}")')
    scen = data.get("scenario")
    if not isinstance(scen, dict) or not all(isinstance(scen.get(k), str) for k in ("file", "domain_dir")):
        raise PipelineError(f"{path}: a broken task draft: scenario.file or scenario.domain_dir is missing")
    cands = data.get("candidates")
    if not isinstance(cands, list):
        raise PipelineError(f"{path}: a broken task draft: candidates is not a list")
    for i, c in enumerate(cands):
        problem = _candidate_problem(c)
        if problem:
            raise PipelineError(f"{path}: a broken task draft: candidates[{i}]: {problem}")
    return data


def _candidate_problem(c: Any) -> str | None:
    """What the review reads of a candidate, checked once, so a hand-edited record fails in one line."""
    if not isinstance(c, dict) or c.get("status") not in ("passed", "failed"):
        return "status is neither passed nor failed"
    if not isinstance(c.get("reasons"), list) or not isinstance(c.get("stages"), dict):
        return "reasons or stages is missing"
    for name, stage in c["stages"].items():
        if name not in STAGES or not isinstance(stage, dict) or not isinstance(stage.get("problems"), list):
            return f"stages.{name} is not a stage with problems"
    if c.get("task_yaml") is not None and not isinstance(c["task_yaml"], str):
        return "task_yaml is not text"
    if c.get("id") is not None and not re.fullmatch(r"[a-z0-9][a-z0-9-]*", str(c["id"])):
        return "id is not lowercase letters, digits and dashes"
    return None


def write_record(path: str | Path, record: dict[str, Any]) -> None:
    """A task draft or episode review as JSON: written as milestone drafts are."""
    from sttui.drafting.record import write_draft

    write_draft(path, record)


def diff_lines(scenario_data: dict[str, Any], task_yaml: str) -> list[str]:
    """The candidate against its scenario, as a unified diff of their YAML."""
    return list(
        difflib.unified_diff(
            dump_task(scenario_data).splitlines(),
            task_yaml.splitlines(),
            "scenario",
            "candidate",
            lineterm="",
            n=1,
        )
    )


def recheck(scenario: Scenario, record: dict[str, Any], index: int, text: str) -> dict[str, Any]:
    """An edited candidate: loaded and assessed again (the audit's verdict stays the unedited
    one's, marked so); the proposal is kept as ``proposed_yaml``."""
    from sttui.drafting.record import _run

    cand = record["candidates"][index]
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise PipelineError(f"not YAML: {' '.join(str(exc).split())[:200]}") from None
    if not isinstance(data, dict) or not isinstance(data.get("id"), str):
        raise PipelineError("expected a task (a mapping with an id)")
    cand.setdefault("proposed_yaml", cand.get("task_yaml"))
    cand["task_yaml"], cand["id"], cand["edited"] = text, data["id"], True
    cand["stages"]["assessment"] = _run(lambda: assess(scenario, text, record.get("random_seeds", 20)))
    if "audit" in cand["stages"]:
        cand["stages"]["audit"]["of"] = "the candidate as proposed, before the edit"
    for stage in ("inject", "checklist"):  # the edit replaces what they produced
        cand["stages"].setdefault(stage, _stage(True, problems=[]))
        if not cand["stages"][stage]["ok"]:
            cand["stages"][stage] = {**cand["stages"][stage], "ok": True, "superseded_by_edit": True}
    if "audit" not in cand["stages"]:
        cand["stages"]["audit"] = _stage(True, problems=[], skipped="not audited: written by the reviewer")
    return _finish(cand)


def accept(scenario: Scenario, record: dict[str, Any], index: int) -> Path:
    """Write the candidate as a task file beside the domain's and check it there; a candidate
    whose assessment failed, a taken file name, or a file ``check`` fails is refused and
    nothing stays written."""
    from sttui.authoring.checking import check_paths

    cand = record["candidates"][index]
    if not cand.get("task_yaml"):
        raise PipelineError(f"candidate {index} never became a task (failed at {cand.get('failed_stage')})")
    if not cand["stages"].get("assessment", {}).get("ok"):
        raise PipelineError(f"candidate {index} fails the assessment; edit it until check passes, or reject it")
    if not re.fullmatch(r"[a-z0-9][a-z0-9-]*", str(cand.get("id"))):  # a file name, never a path
        raise PipelineError(f"candidate {index}'s id {cand.get('id')!r} is not lowercase letters, digits and dashes")
    target = scenario.domain_dir / f"{cand['id']}.yaml"
    if target.exists():
        raise PipelineError(f"{display_path(target)} exists already; nothing written")
    head = f"# Drafted by sttui pipeline draft ({record.get('model')}, prompt {record.get('prompt_version')}, "
    head += f"seed {cand.get('seed')}) and accepted in review" + (" after an edit" if cand.get("edited") else "") + "\n"
    target.write_text(head + cand["task_yaml"], encoding="utf-8")
    try:
        [report] = _check(check_paths, target, record.get("random_seeds", 20))
    except BaseException:
        target.unlink(missing_ok=True)
        raise
    if not report.ok:
        target.unlink(missing_ok=True)
        raise PipelineError(f"check fails the written task, removed: {report.problems[0]}")
    cand["review"] = {"decision": "accepted", "file": str(target), "at": _now()}
    return target


def _check(check_paths: Any, target: Path, seeds: int) -> Any:
    """``check_paths`` (it runs its own event loop): in a thread when one already runs here."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return check_paths([target], seeds)
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(check_paths, [target], seeds).result()


def reject(record: dict[str, Any], index: int, why: str = "") -> None:
    record["candidates"][index]["review"] = {"decision": "rejected", "why": why, "at": _now()}


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def summary_lines(record: dict[str, Any]) -> list[str]:
    out = [
        f"task draft of {record['scenario'].get('id')}: {record['subtype']} {record['level']}, "
        f"model {record['model']}, prompt {record['prompt_version']}, seeds {record['seeds']}"
    ]
    for c in record["candidates"]:
        review = c.get("review") or {}
        line = f"  candidate {c['index']} (seed {c['seed']}) {c.get('id') or '-'}: {c['status']}"
        if c.get("failed_stage"):
            line += f" at {c['failed_stage']}"
        if review:
            line += f"; {review['decision']}" + (f" → {review['file']}" if review.get("file") else "")
        out.append(line)
        out.extend(f"      - {r}" for r in c["reasons"][:6])
    return out
