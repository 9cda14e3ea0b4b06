"""Writing an accepted graph into its task file, in place.

Only the top-level ``milestones``, ``minefields`` and ``milestones_origin`` blocks are replaced
(or appended when absent); every other byte of the file stays as it was, comments and order
included. In place rather than an included file because a task version is one YAML file and
one environment module: the content hash, the stored versions that replay runs on, and exports
all hold exactly those two, so a graph in a third file would escape them. The file is written
atomically and loaded again; if it does not load, the original is put back.
"""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path
from typing import Any

import yaml

from sttui.core.loader import LoadedTask, _load_task
from sttui.core.problems import TaskFileError

BLOCKS = ("milestones", "minefields", "milestones_origin")
_TOP_KEY = re.compile(r"^([A-Za-z_][\w-]*)\s*:")


def _spans(lines: list[str]) -> dict[str, tuple[int, int]]:
    """Each top-level key's lines [start, end): up to the next top-level key, without the blank
    and comment lines just before it (they belong to what follows)."""
    starts = [(i, m.group(1)) for i, line in enumerate(lines) if (m := _TOP_KEY.match(line))]
    out: dict[str, tuple[int, int]] = {}
    for n, (i, key) in enumerate(starts):
        end = starts[n + 1][0] if n + 1 < len(starts) else len(lines)
        while end > i + 1 and (not lines[end - 1].strip() or lines[end - 1].startswith("#")):
            end -= 1
        out[key] = (i, end)
    return out


def _block(key: str, value: Any) -> list[str]:
    if value is None or value == []:
        return []
    if key == "milestones_origin":
        return [f"{key}: {_flow(value)}\n"]
    out = [f"{key}:\n"]
    for rule in value:
        head = {k: v for k, v in rule.items() if k != "constraints"}
        first = True
        for k, v in head.items():
            out.append(("  - " if first else "    ") + f"{k}: {_flow(v)}\n")
            first = False
        out.append(("  - " if first else "    ") + "constraints:\n")
        for c in rule["constraints"]:
            out.append(f"      - {_flow(c)}\n")
    return out


def _flow(value: Any) -> str:
    """One value as YAML on one line (flow style), quoted where YAML needs it."""
    text = yaml.safe_dump([value], default_flow_style=True, sort_keys=False, width=1_000_000, allow_unicode=True)
    return text.strip()[1:-1]


def replace_blocks(text: str, values: dict[str, Any]) -> str:
    """``text`` with the given top-level blocks replaced, appended, or removed (value None/[])."""
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    spans = _spans(lines)
    present = sorted(((spans[k], k) for k in values if k in spans), reverse=True)
    for (start, end), key in present:  # from the bottom up, so earlier spans stay valid
        lines[start:end] = _block(key, values[key])
    for key in BLOCKS:
        if key in values and key not in spans:
            lines.extend(_block(key, values[key]))
    return "".join(lines)


def write_graph(
    path: Path, milestones: list[dict[str, Any]], minefields: list[dict[str, Any]], origin: dict[str, Any]
) -> LoadedTask:
    """Write the graph into the task file at ``path`` and load it again (restoring the original
    and raising TaskFileError when it does not load)."""
    original = path.read_text(encoding="utf-8")
    text = replace_blocks(original, {"milestones": milestones, "minefields": minefields, "milestones_origin": origin})
    _atomic_write(path, text)
    try:
        return _load_task(path)
    except TaskFileError:
        _atomic_write(path, original)
        raise


def _atomic_write(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
