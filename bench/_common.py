"""What the scale benchmarks share: CPU time, paired rounds, medians with their range, the
load average, and child processes measured on their own (CPU time and peak memory of that one
child, from ``wait4``).

The machine these figures come from is shared and noisy, so every figure is CPU time, not wall
time, and every comparison runs its two sides in alternating rounds.
"""

from __future__ import annotations

import atexit
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
STTUI = str(Path(PYTHON).with_name("sttui"))

# The figures are for an installed, warm sttui, whose bytecode Python has cached on first use.
# A shell that forbids writing bytecode would have every child compile sttui from source again
# (about half a second of a launch), so children of a benchmark may write it.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)


def scratch(prefix: str, dir: Path | None = None) -> Path:
    """A new temporary folder, removed when the benchmark exits: its records and caches are
    megabytes, and a run of ``all.py`` makes dozens of them."""
    path = Path(tempfile.mkdtemp(prefix=prefix, dir=dir))
    atexit.register(shutil.rmtree, path, ignore_errors=True)
    return path


def loadavg() -> str:
    try:
        one, five, fifteen = os.getloadavg()
    except OSError:  # pragma: no cover - not POSIX
        return "load average unknown"
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} ({os.cpu_count()} cores)"


def cpu() -> float:
    """CPU seconds of this process so far (user + system, every thread)."""
    return time.process_time()


def fmt(values: Sequence[float], unit: str = "ms", scale: float = 1000.0, digits: int = 1) -> str:
    """``median (min-max, n rounds)`` of ``values`` given in seconds (or any base unit)."""
    med = statistics.median(values) * scale
    lo, hi = min(values) * scale, max(values) * scale
    return f"{med:,.{digits}f} {unit} ({lo:,.{digits}f}-{hi:,.{digits}f}, {len(values)} rounds)"


def median(values: Sequence[float]) -> float:
    return statistics.median(values)


@dataclass
class Child:
    """One finished child process: its CPU seconds, peak resident memory (MB), wall seconds,
    exit status and output."""

    cpu: float
    peak_mb: float
    wall: float
    status: int
    stdout: bytes
    stderr: bytes


def run_child(
    args: Sequence[str], env: dict[str, str] | None = None, cwd: Path | None = None, stdin: bytes | None = None
) -> Child:
    """Run a command to its end and measure that process alone (``wait4`` gives its own rusage).

    Its output is kept to the last 64 kB: Linux counts the spawning process's resident set in
    a child's peak (``ru_maxrss`` is carried across exec), so a parent that held the output of a
    100,000-episode listing would inflate every later child's peak memory."""
    import tempfile

    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(
            list(args),
            stdout=out,
            stderr=err,
            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
            env={**os.environ, **(env or {})},
            cwd=cwd or ROOT,
        )
        if stdin is not None:
            assert proc.stdin is not None
            proc.stdin.write(stdin)
            proc.stdin.close()
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - start
        return Child(
            usage.ru_utime + usage.ru_stime,
            usage.ru_maxrss / 1024,
            wall,
            proc.returncode,
            _tail(out),
            _tail(err),
        )


def _tail(f: Any, keep: int = 65536) -> bytes:
    size = f.seek(0, os.SEEK_END)
    f.seek(max(0, size - keep))
    return f.read()


def paired(sides: dict[str, Callable[[], float]], rounds: int, warmup: int = 1) -> dict[str, list[float]]:
    """Alternate the sides round by round (after ``warmup`` unmeasured rounds each); each call
    returns its own measurement. The order within a round alternates too."""
    names = list(sides)
    for _ in range(warmup):
        for name in names:
            sides[name]()
    out: dict[str, list[float]] = {n: [] for n in names}
    for i in range(rounds):
        order = names if i % 2 == 0 else names[::-1]
        for name in order:
            out[name].append(sides[name]())
    return out


def verdict(ok: bool) -> str:
    return "met" if ok else "NOT met"


def header(title: str) -> None:
    print(f"== {title}")
    print(f"   python {sys.version.split()[0]}, {loadavg()}")


def ratio_line(name: str, ours: Sequence[float], ref: Sequence[float], target: float | None = None) -> str:
    """Median of the per-round ratios (paired rounds), with their range."""
    ratios = [a / b for a, b in zip(ours, ref, strict=False) if b]
    text = f"{name}: {statistics.median(ratios):.2f}x ({min(ratios):.2f}-{max(ratios):.2f}, {len(ratios)} rounds)"
    if target is not None:
        text += f"; target <= {target:g}x: {verdict(statistics.median(ratios) <= target)}"
    return text


def env_without_cache(cache: Path) -> dict[str, Any]:
    return {"STTUI_CACHE_DIR": str(cache)}


def result(row: str, figure: str, goal: str, ok: bool) -> None:
    """One row of issue 26's table: ``=> row | figure | goal | met`` (bench/all.py collects these)."""
    print(f"=> {row} | {figure} | {goal} | {verdict(ok)}")
