"""CI installs `.ci/requirements.lock` with ``--no-deps``, then runs the README's test command,
which resolves `pyproject.toml` against what is installed. A lock that no longer meets the
project's requirements (a bound raised, a package added, the lock not rewritten) would have
pip fetch and replace packages mid-run, unreviewed; so every requirement of the base install
and the test extra (with the extras it includes) is met by the lock's pinned version."""

from __future__ import annotations

import re
import tomllib

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.conftest import ROOT

PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s\\;]+)", re.M)


def _lock() -> dict[str, str]:
    text = (ROOT / ".ci" / "requirements.lock").read_text(encoding="utf-8")
    return {canonicalize_name(name): version for name, version in PIN.findall(text)}


def _requirements() -> list[Requirement]:
    """The base dependencies and the test extra's, following ``sttui[...]`` into the extras it names."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    extras = project["optional-dependencies"]
    out = [Requirement(r) for r in project["dependencies"]]
    todo, seen = ["test"], set()
    while todo:
        extra = todo.pop()
        if extra in seen:
            continue
        seen.add(extra)
        for text in extras[extra]:
            req = Requirement(text)
            if canonicalize_name(req.name) == "sttui":
                todo += sorted(req.extras)
            else:
                out.append(req)
    return out


def unmet(reqs: list[Requirement], lock: dict[str, str]) -> list[str]:
    """The requirements (of the test install's markers) the lock's pins do not meet."""
    return [
        f"{r} (lock: {lock.get(canonicalize_name(r.name), 'absent')})"
        for r in reqs
        if (r.marker is None or r.marker.evaluate({"extra": "test"}))
        and not r.specifier.contains(lock.get(canonicalize_name(r.name), "0.0.0.dev0"), prereleases=True)
    ]


def test_the_lock_meets_every_requirement_of_the_test_install():
    lock, reqs = _lock(), _requirements()
    names = {canonicalize_name(r.name) for r in reqs}
    assert {"textual", "litellm", "psycopg", "textual-serve", "inspect-ai", "openenv-core", "boto3"} <= names
    missing = unmet(reqs, lock)
    assert not missing, "run .ci/lock after changing pyproject.toml: " + "; ".join(missing)


def test_a_requirement_the_lock_does_not_meet_is_named():
    """The boto3 cap under the lock's pin, and a package the lock lacks, are both caught."""
    lock = _lock()
    pinned = lock["boto3"]
    reqs = [Requirement(f"boto3<{pinned}"), Requirement("boto3>=1"), Requirement("not-in-the-lock>=1")]
    assert unmet(reqs, lock) == [f"boto3<{pinned} (lock: {pinned})", "not-in-the-lock>=1 (lock: absent)"]
