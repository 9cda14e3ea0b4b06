"""Compiling a milestone graph from several candidate graphs by majority (DynSTEER §3.2, C.2-C.3).

Pure logic: parse and validate candidates, flag those that leak the reference solution, vote,
and reduce. The model call lives in ``sttui.drafting``; the rules are in docs/task-format.md
part 3 ("Drafting a graph by consensus").

**Equivalence.** Two milestones (or two minefields) are equivalent when their *signatures* are
equal. A constraint's signature is ``(selector, operator)``, plus the tool names for a
``call.tool`` constraint (``call.tool equals rebook`` and ``call.tool equals check_in`` look at
the same selector but mean different actions). A rule's signature is the set of its
constraints' signatures: order, ids, names, weights, thresholds, ``hard`` and the other
expected values do not count. When one candidate holds several rules with the same signature
(two minefields on ``call.args.to_flights``, say), they are matched across candidates in the
order written: the second such rule is equivalent to the other candidates' second one.

**Majority.** With V voting candidates (valid and not leaking), a signature is kept when at
least half of them contain it (2·support ≥ V). Its representative is the rule from the first
supporting candidate. An edge a → b between kept milestones is kept when at least half of the
voters order a's member before b's member (b's member has a's among its ancestors, through
any path); when both directions reach half, neither is kept. The kept edges are then
transitively reduced.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from sttui.core.review.graph import find_cycle, topological, transitive_reduction
from sttui.core.review.model import Constraint, Milestone, Minefield

R = TypeVar("R", Milestone, Minefield)


class Candidate(BaseModel):
    """The JSON a model answers with: a plan in words, then the graph in the task's own schema."""

    model_config = ConfigDict(extra="forbid")

    plan: list[str] = Field(default_factory=list)
    milestones: list[dict[str, Any]] = Field(min_length=1)
    minefields: list[dict[str, Any]] = Field(default_factory=list)


def parse_answer(raw: str) -> tuple[dict[str, Any] | None, str | None]:
    """The candidate object in a model's answer (the outermost ``{...}``, fences allowed), or why not."""
    start, end = raw.find("{"), raw.rfind("}")
    if start < 0 or end < start:
        return None, "the answer holds no JSON object"
    try:
        data = json.loads(raw[start : end + 1])
    except json.JSONDecodeError as exc:
        return None, f"the answer's JSON does not parse: {exc.msg} at character {exc.pos}"
    if not isinstance(data, dict):
        return None, "the answer's JSON is not an object"
    return data, None


def schema_problems(data: dict[str, Any]) -> tuple[list[Milestone], list[Minefield], list[str]]:
    """The candidate's rules in the task model (so the task's own validation applies), and
    every schema problem as ``where: what``."""
    problems: list[str] = []
    try:
        cand = Candidate.model_validate(data)
    except ValidationError as exc:
        return [], [], [_pydantic(err, ()) for err in exc.errors()]
    milestones = _validated(Milestone, cand.milestones, "milestones", problems)
    minefields = _validated(Minefield, cand.minefields, "minefields", problems)
    return milestones, minefields, problems


def _validated(model: type[R], items: list[Any], section: str, problems: list[str]) -> list[R]:
    """The items that validate as ``model``; each problem of the others added to ``problems``."""
    out: list[R] = []
    for i, item in enumerate(items):
        try:
            out.append(model.model_validate(item))
        except ValidationError as exc:
            problems.extend(_pydantic(err, (section, i)) for err in exc.errors())
    return out


def _pydantic(err: Any, prefix: tuple[Any, ...]) -> str:
    where = ".".join(str(p) for p in (*prefix, *err["loc"])) or "(top level)"
    return f"{where}: {str(err['msg']).removeprefix('Value error, ')}"


def leaks(milestones: list[Milestone], minefields: list[Minefield], solution: list[Any]) -> list[str]:
    """How a candidate reproduces the reference solution, which the model was never shown: a rule
    pinning every argument of a solution call that has two or more (``call.tool`` naming the
    tool, a ``call.args.<name>`` equals per argument with the solution's exact value), or a
    ``message.text`` constraint expecting the solution's exact message."""
    out: list[str] = []
    says = {s.say.strip() for s in solution if getattr(s, "say", None)}
    for rule in [*milestones, *minefields]:
        name = getattr(rule, "id", None) or "minefield"
        tools = _tools(rule.constraints)
        args = {
            c.path.removeprefix("args."): c.expected
            for c in rule.constraints
            if c.root == "call" and c.path.startswith("args.") and c.operator == "equals"
        }
        for i, step in enumerate(solution):
            if step.tool is None or len(step.args) < 2 or step.tool not in tools:
                continue
            if all(k in args and args[k] == v for k, v in step.args.items()):
                out.append(f"{name} pins solution step {i + 1}'s exact arguments: {step.tool}({_short(step.args)})")
        for c in rule.constraints:
            if c.root == "message" and isinstance(c.expected, str) and c.expected.strip() in says:
                out.append(f"{name} expects the solution's exact message to the user")
    return out


def _short(args: dict[str, Any]) -> str:
    return ", ".join(f"{k}={json.dumps(v)}" for k, v in args.items())


def _tools(constraints: list[Constraint]) -> set[str]:
    names: set[str] = set()
    for c in constraints:
        if c.selector == "call.tool" and c.operator in ("equals", "one_of"):
            names.update(str(v) for v in (c.expected if c.operator == "one_of" else [c.expected]))
    return names


def signature(rule: Milestone | Minefield) -> tuple[str, ...]:
    """The canonical form a vote matches on (see the module docstring), sorted, as text."""
    parts = set()
    for c in rule.constraints:
        if c.selector == "call.tool" and c.operator in ("equals", "one_of"):
            parts.add(f"call.tool {c.operator} {'|'.join(sorted(_tools([c])))}")
        else:
            parts.add(f"{c.selector.strip()} {c.operator}")
    return tuple(sorted(parts))


def keyed(rules: list[Any]) -> list[tuple[Any, tuple[str, ...]]]:
    """Each rule with its vote key: its signature, and for the second and later rules of one
    candidate with the same signature, ``#2``, ``#3``...: they are told apart in the order written."""
    seen: dict[tuple[str, ...], int] = {}
    out = []
    for rule in rules:
        sig = signature(rule)
        seen[sig] = seen.get(sig, 0) + 1
        out.append((rule, sig if seen[sig] == 1 else (*sig, f"#{seen[sig]}")))
    return out


@dataclass
class Voter:
    """One valid, non-leaking candidate, as the vote sees it."""

    index: int
    milestones: list[Milestone]
    minefields: list[Minefield]


@dataclass
class Vote:
    """What the vote kept, with every signature's support, for the record."""

    voters: list[int]
    milestones: list[dict[str, Any]] = field(default_factory=list)  # {signature, id, support, kept}
    minefields: list[dict[str, Any]] = field(default_factory=list)
    edges: list[dict[str, Any]] = field(default_factory=list)  # {before, after, support, kept}
    redundant: list[tuple[str, str]] = field(default_factory=list)
    kept_milestones: list[Milestone] = field(default_factory=list)
    kept_minefields: list[Minefield] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "voters": self.voters,
            "quorum": quorum(len(self.voters)),
            "milestones": self.milestones,
            "minefields": self.minefields,
            "edges": self.edges,
            "redundant": [list(e) for e in self.redundant],
        }


def quorum(voters: int) -> int:
    """The least support that is at least half of the voters."""
    return (voters + 1) // 2


def _ancestors(milestones: list[Milestone]) -> dict[str, set[str]]:
    preds = {m.id: [a for a in m.after if a != m.id] for m in milestones}
    out: dict[str, set[str]] = {}
    for m in topological(preds):
        out[m] = set()
        for p in preds[m]:
            out[m] |= {p} | out.get(p, set())
    return out


def vote(voters: list[Voter]) -> Vote:
    """Majority merge of the voters' graphs, then transitive reduction."""
    result = Vote([v.index for v in voters])
    need = quorum(len(voters))
    if not voters:
        return result
    # milestones: signature -> (representative, {voter index: that voter's milestone id})
    groups: dict[tuple[str, ...], tuple[Milestone, dict[int, str]]] = {}
    for v in voters:
        for m, sig in keyed(v.milestones):
            groups.setdefault(sig, (m, {}))[1][v.index] = m.id
    kept: dict[tuple[str, ...], str] = {}
    used: set[str] = set()
    for sig, (rep, members) in groups.items():
        ok = len(members) >= need
        new_id = rep.id
        if ok:
            n = 2
            while new_id in used:
                new_id, n = f"{rep.id}-{n}", n + 1
            used.add(new_id)
            kept[sig] = new_id
        result.milestones.append(
            {"signature": list(sig), "id": new_id if ok else rep.id, "support": sorted(members), "kept": ok}
        )
    ancestors = {v.index: _ancestors(v.milestones) for v in voters}
    preds: dict[str, list[str]] = {kept[s]: [] for s in kept}
    support: dict[tuple[str, str], list[int]] = {}
    for a_sig, a_id in kept.items():
        for b_sig, b_id in kept.items():
            if a_sig == b_sig:
                continue
            backers = [
                v.index
                for v in voters
                if v.index in groups[a_sig][1]
                and v.index in groups[b_sig][1]
                and groups[a_sig][1][v.index] in ancestors[v.index].get(groups[b_sig][1][v.index], set())
            ]
            if backers:
                support[(a_id, b_id)] = backers
    for (a, b), backers in support.items():
        ok = len(backers) >= need and len(support.get((b, a), [])) < need
        result.edges.append({"before": a, "after": b, "support": backers, "kept": ok})
        if ok:
            preds[b].append(a)
    order = topological(preds)
    reduced, result.redundant = transitive_reduction(preds, order)
    for sig, new_id in kept.items():
        rep = groups[sig][0]
        result.kept_milestones.append(rep.model_copy(update={"id": new_id, "after": reduced[new_id]}))
    result.kept_milestones.sort(key=lambda m: order.index(m.id))
    mine_groups: dict[tuple[str, ...], tuple[Minefield, set[int]]] = {}
    for v in voters:
        for f, sig in keyed(v.minefields):
            mine_groups.setdefault(sig, (f, set()))[1].add(v.index)
    for sig, (mine, voted) in mine_groups.items():
        ok = len(voted) >= need
        result.minefields.append({"signature": list(sig), "id": mine.id, "support": sorted(voted), "kept": ok})
        if ok:
            result.kept_minefields.append(mine)
    return result


def restrict(milestones: list[Milestone], keep: list[str]) -> list[Milestone]:
    """The graph on the milestones ``keep`` alone: an order through a dropped milestone is kept
    as a direct edge (a → dropped → c gives a → c), then transitively reduced."""
    anc = _ancestors(milestones)
    chosen = [m for m in milestones if m.id in keep]
    ids = {m.id for m in chosen}
    preds = {m.id: [a for a in (m2.id for m2 in milestones) if a in ids and a in anc[m.id]] for m in chosen}
    if find_cycle(preds):  # cannot happen on a DAG; kept for safety of edited input
        raise ValueError("the milestones form a cycle")
    order = topological(preds)
    reduced, _ = transitive_reduction(preds, order)
    return [m.model_copy(update={"after": reduced[m.id]}) for m in chosen]


def dump_rule(rule: Milestone | Minefield) -> dict[str, Any]:
    """A rule as a task file writes it: defaults left out, the documented order of fields."""
    data = rule.model_dump(mode="json", exclude_defaults=True, exclude={"constraints"})
    front = [k for k in ("id", "name", "severity", "reason", "description", "after", "threshold") if k in data]
    out: dict[str, Any] = {k: data[k] for k in front}
    out["constraints"] = []
    for c in rule.constraints:
        item = c.model_dump(mode="json", exclude_defaults=True)
        if "expected" in c.model_fields_set:  # `equals null` keeps its expected value
            item["expected"] = c.expected
        out["constraints"].append(
            {k: item[k] for k in ("selector", "operator", "expected", "weight", "hard", "similarity") if k in item}
        )
    return out
