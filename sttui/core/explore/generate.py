"""The episode generator: from a domain's field catalog to a certified explore episode.

A catalog (``tasks/explore/catalogs/DOMAIN.yaml``) lists the domain's scenario, its four
ordered actions, its fields (with the direction each pushes intervention when relevant),
plausible factor replacements, the fields whose direction may plausibly reverse (each with
its reason), and cross-field constraints. The generator samples relevant factors,
distractors, the family's parameters and a drift (one replacement and one reversal, both
from the catalog's lists, so no implausible flip like "more missed payments, approve more"
is ever drawn), then certifies numerically that
the drift changes the optimal action for a moderate share of post-change cases
(``certify.SHARE_RANGE``), drawing again until it does.
"""

from __future__ import annotations

import random
import shlex
from typing import Any

from pydantic import Field, model_validator

from sttui.core.explore.certify import SHARE_RANGE, drift_share, utility_invariant_violations
from sttui.core.explore.task import (
    ActionSpec,
    Direction,
    ExploreTask,
    Family,
    FieldSpec,
    Strict,
)

RELEVANT = 3
DISTRACTORS = 3
DRIFT_BATCHES = (5, 6, 7)
ATTEMPTS = 400


class CatalogField(FieldSpec):
    """A field, and the direction it pushes intervention when it is a factor. Fields marked
    ``distractor_only`` (say, the branch that took an application) are never factors."""

    direction: Direction | None = None
    distractor_only: bool = False

    @model_validator(mode="after")
    def _direction(self) -> CatalogField:
        if self.direction is None and not self.distractor_only:
            raise ValueError("a field that can be a factor needs a direction")
        return self


class CatalogReplacement(Strict):
    factor: str
    by: str
    direction: Direction
    why: str


class CatalogReversal(Strict):
    """A field whose effect may plausibly flip direction, and the reason a reader can check."""

    field: str
    why: str


class Catalog(Strict):
    domain: str
    title: str
    scenario: str
    actions: list[ActionSpec] = Field(min_length=4, max_length=4)
    fields: list[CatalogField] = Field(min_length=RELEVANT + DISTRACTORS)
    replacements: list[CatalogReplacement] = Field(min_length=1)
    reversals: list[CatalogReversal] = Field(min_length=1)
    exclusive: list[list[str]] = Field(default_factory=list)


class GenerationError(Exception):
    pass


def catalog_problems(cat: Catalog) -> list[tuple[tuple[str | int, ...], str]]:
    """What the schema cannot see, each with where it is: unknown or distractor-only fields in
    replacements, reversals and exclusive groups, and a replacement that leaves no field
    marked reversible to reverse (the drift needs both)."""
    names = {f.name for f in cat.fields}
    only_distractors = {f.name for f in cat.fields if f.distractor_only}
    out: list[tuple[tuple[str | int, ...], str]] = []

    def known(name: str, loc: tuple[str | int, ...], what: str) -> bool:
        if name not in names:
            out.append((loc, f"{what} names unknown field '{name}'"))
        elif name in only_distractors:
            out.append((loc, f"{what} names '{name}', which is marked distractor_only"))
        else:
            return True
        return False

    for i, r in enumerate(cat.replacements):
        known(r.factor, ("replacements", i, "factor"), "replacement")
        known(r.by, ("replacements", i, "by"), "replacement")
    seen: set[str] = set()
    for i, rev in enumerate(cat.reversals):
        if known(rev.field, ("reversals", i, "field"), "reversal") and rev.field in seen:
            out.append((("reversals", i, "field"), f"'{rev.field}' is marked reversible twice"))
        seen.add(rev.field)
    for i, fields in enumerate(cat.exclusive):
        out += [(("exclusive", i), f"exclusive group names unknown field '{n}'") for n in fields if n not in names]
    for i, r in enumerate(cat.replacements):
        group: int | None = next((j for j, g in enumerate(cat.exclusive) if r.factor in g and r.by in g), None)
        if group is not None:
            out.append(
                (
                    ("replacements", i),
                    f"replacement {r.factor} → {r.by} names two fields of exclusive[{group}], which never share an "
                    "episode (the replacement is in it from the start, as a distractor): replace with a field outside "
                    "the group, or drop the group",
                )
            )
    if out:
        return out
    for i, r in enumerate(cat.replacements):
        if not _reversals_for(cat, r):
            out.append(
                (
                    ("replacements", i),
                    f"replacement {r.factor} → {r.by} leaves no field to reverse: mark a field other than these "
                    "two (and not exclusive with them) in reversals",
                )
            )
    return out


def _reversals_for(cat: Catalog, rep: CatalogReplacement) -> list[CatalogReversal]:
    """The reversible fields that can stay a factor through this replacement."""
    return [
        r
        for r in cat.reversals
        if r.field not in (rep.factor, rep.by) and _compatible([rep.factor, rep.by], r.field, cat.exclusive)
    ]


def _compatible(chosen: list[str], candidate: str, exclusive: list[list[str]]) -> bool:
    return not any(candidate in g and any(c in g for c in chosen) for g in exclusive)


def _params(family: Family, rng: random.Random, n: int) -> list[dict[str, float]]:
    if family == "additive":
        raw = [rng.uniform(0.15, 0.6) for _ in range(n)]
        total = sum(raw)
        return [{"weight": round(r / total, 2)} for r in raw]
    low, high = (0.35, 0.65) if family == "lexicographic" else (0.3, 0.7)
    return [{"threshold": round(rng.uniform(low, high), 2)} for _ in range(n)]


def command(domain: str, family: str, seed: int) -> str:
    """The command that makes this episode again, with ``--domain`` as it was given (a catalog
    name, or a catalog file's path as typed), so it reproduces the episode from that folder."""
    return f"sttui generate explore --domain {shlex.quote(domain)} --family {family} --seed {seed}"


def draft(cat: Catalog, family: Family, seed: int, rng: random.Random, domain_arg: str | None = None) -> dict[str, Any]:
    """One candidate episode (as file data); not yet certified. ``domain_arg`` is ``--domain``
    as given (default: the catalog's domain name), for the command the episode records."""
    by_name = {f.name: f for f in cat.fields}
    usable = [r for r in cat.replacements if _compatible([r.factor], r.by, cat.exclusive) and _reversals_for(cat, r)]
    if not usable:
        raise GenerationError("no replacement in the catalog leaves a field marked reversible to reverse")
    rep = rng.choice(usable)
    rev = rng.choice(_reversals_for(cat, rep))
    relevant = [rep.factor, rev.field]
    pool = [f.name for f in cat.fields if f.name not in (rep.factor, rep.by, rev.field)]
    rng.shuffle(pool)
    for name in pool:
        if len(relevant) == RELEVANT:
            break
        if not by_name[name].distractor_only and _compatible([*relevant, rep.by], name, cat.exclusive):
            relevant.append(name)
    distractors = [rep.by]
    for name in pool:
        if len(distractors) == DISTRACTORS:
            break
        if name not in relevant and _compatible(relevant + distractors, name, cat.exclusive):
            distractors.append(name)
    if len(relevant) < RELEVANT or len(distractors) < DISTRACTORS:
        raise GenerationError("the catalog's exclusive groups leave too few compatible fields")
    rng.shuffle(relevant)  # also the lexicographic priority order
    params = _params(family, rng, RELEVANT)
    factors = [{"field": n, "direction": by_name[n].direction, **p} for n, p in zip(relevant, params, strict=True)]
    order = {f.name: i for i, f in enumerate(cat.fields)}
    episode_fields = sorted(relevant + distractors, key=order.__getitem__)
    return {
        "id": f"{cat.domain}-{family}-{seed}",
        "kind": "explore",
        "title": f"{cat.title} ({family} rule, seed {seed})",
        "domain": cat.domain,
        "scenario": " ".join(cat.scenario.split()),
        "fields": [
            by_name[n].model_dump(exclude={"direction", "distractor_only"}, exclude_none=True, exclude_defaults=True)
            | {"name": n, "type": by_name[n].type, "description": by_name[n].description}
            for n in episode_fields
        ],
        "actions": [a.model_dump() for a in cat.actions],
        "rule": {"family": family, "factors": factors},
        "drift": {
            "after_batch": rng.choice(DRIFT_BATCHES),
            "replace": {"factor": rep.factor, "by": rep.by, "direction": rep.direction},
            "reverse": rev.field,
        },
        "schedule": {"batches": 12, "cases_per_batch": 8, "probe_cap": 8},
        "setting": "default",
        "seed": seed,
        "description": f"Generated by `{command(domain_arg or cat.domain, family, seed)}`. "
        f"Replacement: {rep.why}. Reversal of {rev.field}: {rev.why}.",
    }


def generate(
    cat: Catalog, family: Family, seed: int, domain_arg: str | None = None
) -> tuple[dict[str, Any], float, int]:
    """A certified episode, the drift share it certifies, and how many drafts it took."""
    rng = random.Random(f"generate:{cat.domain}:{family}:{seed}")
    lo, hi = SHARE_RANGE
    for attempt in range(1, ATTEMPTS + 1):
        data = draft(cat, family, seed, rng, domain_arg)
        task = ExploreTask.model_validate(data)
        share = drift_share(task)
        if share is not None and lo <= share <= hi and utility_invariant_violations(task, 500) == 0:
            data["description"] += f" Certified drift share: {share:.0%} of post-change cases change optimal action."
            return data, share, attempt
    raise GenerationError(f"no draft met the drift share {lo:.0%}-{hi:.0%} in {ATTEMPTS} attempts")
