"""How long pip takes to resolve the README's two install commands on a fresh machine: a new
virtual environment, no pip cache, the package index as configured (``pip install --dry-run``,
so nothing is installed and the figures are the resolver's and the downloads').

Reference in the same run: resolving textual alone. For each it prints the wall seconds, the
distributions pip fetched, and the package whose releases it tried most (the resolver going
back through them one by one is what made the test extra slow).

``--uncapped`` also resolves the test extra with the ``boto3`` cap of pyproject.toml's
``inspect`` extra taken out (a copy of the project in a scratch folder), stopped at
``--limit`` seconds: the figure the cap is there for. Needs the package index; not a test.

    python bench/install.py [--uncapped] [--limit 1800]
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import ROOT, header, scratch

CAP = re.compile(r'^\s*"boto3<[^"]*",\n', re.M)
FETCHED = re.compile(r"(?:Downloading|Using cached) (?:\S+/)?([A-Za-z0-9_.]+?)-(\d[^-\s]*?)(?:-py|-cp|\.tar|\.zip)")


def resolve(spec: str, limit: float) -> tuple[float, int, str, bool]:
    """(wall seconds, distributions fetched, the package tried most and how often, finished)
    for ``pip install --dry-run spec`` in a new virtual environment with no cache."""
    where = scratch("sttui-install-")
    subprocess.run([sys.executable, "-m", "venv", str(where / "venv")], check=True)
    log = where / "pip.log"
    argv = [str(where / "venv" / "bin" / "pip"), "install", "--dry-run", "--no-cache-dir", "-q", "--log", str(log)]
    t0 = time.monotonic()
    try:
        subprocess.run([*argv, spec], check=True, timeout=limit, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        finished = True
    except subprocess.TimeoutExpired:
        finished = False
    seconds = time.monotonic() - t0
    tried = Counter(name.lower() for name, _ in set(FETCHED.findall(log.read_text(errors="replace"))))
    most = tried.most_common(1)
    return seconds, sum(tried.values()), f"{most[0][0]} x{most[0][1]}" if most else "-", finished


def uncapped_copy() -> Path:
    """The project's sources with the boto3 cap taken out of pyproject.toml."""
    copy = scratch("sttui-uncapped-") / "sttui"
    shutil.copytree(ROOT, copy, ignore=shutil.ignore_patterns(".venv", ".git", "sessions", "__pycache__", "*.db"))
    text = (copy / "pyproject.toml").read_text(encoding="utf-8")
    if not CAP.search(text):
        raise SystemExit("pyproject.toml has no boto3 cap to take out")
    (copy / "pyproject.toml").write_text(CAP.sub("", text), encoding="utf-8")
    return copy


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--uncapped", action="store_true", help="also resolve the test extra without the boto3 cap")
    parser.add_argument("--limit", type=float, default=1800.0, help="seconds before a resolve is stopped")
    args = parser.parse_args()
    header("pip's resolve of the README's install commands, fresh venv, no cache")
    rows = [
        ("textual alone (reference)", "textual"),
        ("sttui (the first command)", f"{ROOT}"),
        ("sttui[test] (the second command)", f"{ROOT}[test]"),
    ]
    if args.uncapped:
        rows.append(("sttui[test] without the boto3 cap", f"{uncapped_copy()}[test]"))
    for name, spec in rows:
        seconds, fetched, most, finished = resolve(spec, args.limit)
        end = "" if finished else f"  (stopped at {args.limit:g} s, not resolved)"
        print(f"{name:38} {seconds:7.1f} s  {fetched:4} fetched  most tried: {most}{end}", flush=True)


if __name__ == "__main__":
    main()
