"""Plain-text tables and reports for the command line."""

from __future__ import annotations

from typing import Any


def table(rows: list[dict[str, Any]], columns: list[str]) -> str:
    widths = {c: max([len(c)] + [len(str(r.get(c, ""))) for r in rows]) for c in columns}
    lines = ["  ".join(c.ljust(widths[c]) for c in columns).rstrip(), "  ".join("-" * widths[c] for c in columns)]
    lines += ["  ".join(str(r.get(c, "")).ljust(widths[c]) for c in columns).rstrip() for r in rows]
    return "\n".join(lines)


def pass_report(summary: dict[str, Any], agent: str) -> str:
    lines = [
        f"Pass@1 for {agent} over {summary['n']} episodes",
        f"  overall (weighted by level counts)  {summary['overall']:.1%}",
        f"  overall (paper's level weights)     {summary['overall_paper_weights']:.1%}",
    ]
    for level, v in summary["levels"].items():
        lines.append(f"  {level:<12} n={v['n']:<3} {v['pass_at_1']:.1%}")
    lines.append("  by subtype: " + "  ".join(f"{c} {v['pass_at_1']:.0%}" for c, v in summary["conflicts"].items()))
    return "\n".join(lines)
