"""The milestone DAG: validation, transitive reduction, topological order, immediate
dominators (which anchor each stage's evidence window) and the ready frontier."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from sttui.core.problems import did_you_mean
from sttui.core.review.model import Milestone

START = "start"  # the augmented entry node: settled when the episode starts

Loc = tuple[str | int, ...]


def graph_problems(milestones: list[Milestone]) -> Iterable[tuple[Loc, str]]:
    """Duplicate ids, dangling references and cycles, as (location, message)."""
    ids: dict[str, int] = {}
    for i, m in enumerate(milestones):
        if m.id == START:
            yield ("milestones", i, "id"), f"'{START}' is reserved for the episode's start"
        elif m.id in ids:
            yield ("milestones", i, "id"), f"duplicate milestone id '{m.id}'"
        ids.setdefault(m.id, i)
    for i, m in enumerate(milestones):
        for j, ref in enumerate(m.after):
            if ref == m.id:
                yield ("milestones", i, "after", j), f"milestone '{m.id}' cannot come after itself"
            elif ref not in ids:
                yield ("milestones", i, "after", j), f"no milestone '{ref}'{did_you_mean(ref, ids)}"
        for j, c in enumerate(m.constraints):
            if c.operator == "unchanged_since" and c.expected not in (None, START) and c.expected not in ids:
                yield (
                    ("milestones", i, "constraints", j, "expected"),
                    f"no milestone '{c.expected}'{did_you_mean(str(c.expected), ids)} (or 'start')",
                )
    cycle = find_cycle({m.id: [a for a in m.after if a in ids and a != m.id] for m in milestones})
    if cycle:
        first = ids[cycle[0]]
        yield ("milestones", first, "after"), "the milestones form a cycle: " + " → ".join(cycle)


def find_cycle(preds: dict[str, list[str]]) -> list[str] | None:
    """A cycle in the 'after' relation, as ids in precedence order, or None."""
    colour: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        colour[node] = 1
        stack.append(node)
        for p in preds.get(node, []):
            if colour.get(p) == 1:
                loop = [*stack[stack.index(p) :], p]
                return list(reversed(loop))
            if colour.get(p) is None:
                found = visit(p)
                if found:
                    return found
        stack.pop()
        colour[node] = 2
        return None

    for node in preds:
        if colour.get(node) is None:
            found = visit(node)
            if found:
                return found
    return None


@dataclass
class Graph:
    """A validated, transitively reduced milestone DAG."""

    milestones: dict[str, Milestone]
    preds: dict[str, list[str]]  # after reduction
    order: list[str]  # topological
    idom: dict[str, str]
    redundant: list[tuple[str, str]]  # (before, after) edges the reduction removed

    @classmethod
    def build(cls, milestones: list[Milestone]) -> Graph:
        """Build from milestones that passed :func:`graph_problems`."""
        by_id = {m.id: m for m in milestones}
        preds = {m.id: list(dict.fromkeys(m.after)) for m in milestones}
        order = topological(preds)
        reduced, redundant = transitive_reduction(preds, order)
        return cls(by_id, reduced, order, immediate_dominators(reduced, order), redundant)

    def ready(self, settled: set[str]) -> list[str]:
        """Unsettled milestones whose predecessors have all settled, in topological order."""
        return [m for m in self.order if m not in settled and all(p in settled for p in self.preds[m])]

    def blocked(self, settled: set[str]) -> list[str]:
        return [m for m in self.order if m not in settled and not all(p in settled for p in self.preds[m])]


def topological(preds: dict[str, list[str]]) -> list[str]:
    """Kahn's algorithm, stable in the order the milestones were written."""
    remaining = {m: set(ps) for m, ps in preds.items()}
    order: list[str] = []
    while remaining:
        free = [m for m, ps in remaining.items() if not ps]
        if not free:
            raise ValueError("the milestones form a cycle")
        for m in free:
            order.append(m)
            del remaining[m]
        for ps in remaining.values():
            ps.difference_update(free)
    return order


def transitive_reduction(
    preds: dict[str, list[str]], order: list[str]
) -> tuple[dict[str, list[str]], list[tuple[str, str]]]:
    """Drop every edge p → m that another path from p to m already implies."""
    ancestors: dict[str, set[str]] = {}
    for m in order:
        ancestors[m] = set()
        for p in preds[m]:
            ancestors[m] |= {p} | ancestors[p]
    reduced: dict[str, list[str]] = {}
    redundant: list[tuple[str, str]] = []
    for m in order:
        keep = []
        for p in preds[m]:
            if any(p in ancestors[q] for q in preds[m] if q != p):
                redundant.append((p, m))
            else:
                keep.append(p)
        reduced[m] = keep
    return reduced, redundant


def immediate_dominators(preds: dict[str, list[str]], order: list[str]) -> dict[str, str]:
    """Each milestone's immediate dominator from the augmented entry ``start``: the nearest
    milestone on every path to it. In a DAG, taken in topological order, it is the common
    ancestor of the predecessors in the dominator tree."""
    idom: dict[str, str] = {}
    depth: dict[str, int] = {START: 0}

    def meet(a: str, b: str) -> str:
        while a != b:
            if depth[a] < depth[b]:
                a, b = b, a
            a = idom[a]
        return a

    for m in order:
        ps = preds[m]
        if not ps:
            d = START
        else:
            d = ps[0]
            for p in ps[1:]:
                d = meet(d, p)
        idom[m] = d
        depth[m] = depth[d] + 1
    return idom
