"""Plain-text tables and reports for the command line."""

from __future__ import annotations

import itertools
import pickle
import re
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from rich.cells import cell_len

from sttui.safetext import control_free, visible

PART_GAP = re.compile(r" {2,}(?:·  )?")
"""Where a line's parts meet: two spaces or more (``  ·  `` with its dot)."""


def terminal_width() -> int | None:
    """The width of the terminal standard output writes to, or None when it writes to a pipe
    or a file: what a script reads keeps its lines whole."""
    try:
        if not sys.stdout.isatty():
            return None
    except (AttributeError, ValueError):  # (a stream closed or without isatty)
        return None
    return shutil.get_terminal_size().columns


def fit(text: str, width: int | None, hang: int = 4) -> str:
    """``text`` for a terminal ``width`` columns wide: a line wider than that is broken where
    its parts meet (``PART_GAP``), so a phrase such as ``random 0/20 passed`` stays whole, and a
    part still too wide between its words, never inside one (the terminal would cut
    ``portview`` into ``portv`` and ``iew``). The lines it is broken into start ``hang``
    columns in from the line's own indent. A word wider than the terminal stays whole, where it
    is, for the terminal to wrap (a path, copied, is still the path). ``width`` None: ``text``
    as it is."""
    if width is None or not text:
        return text
    return "\n".join(_fit_line(line, width, hang) for line in text.split("\n"))


def _fit_line(line: str, width: int, hang: int) -> str:
    """One line of ``fit``: parts placed whole where they fit, words where a part does not."""
    if cell_len(line) <= width:
        return line
    body = line.lstrip(" ")
    lead = len(line) - len(body)
    under = lead + hang if width - lead - hang >= 20 else min(lead, max(width - 20, 0))
    lines: list[str] = []
    current, used, fresh = " " * lead, lead, True

    def new_line() -> None:
        nonlocal current, used, fresh
        lines.append(current.rstrip())
        current, used, fresh = " " * under, under, True

    def place(gap: str, word: str) -> None:
        nonlocal current, used, fresh
        size = cell_len(word)
        # (a word too wide for a line of its own stays where it is: breaking before it would
        # leave "FAIL" or a bullet's dash alone on a line, and cut nothing less)
        if not fresh and used + len(gap) + size > width and under + size <= width:
            new_line()
        if not fresh:
            current += gap
            used += len(gap)
        current += word
        used += size
        fresh = False

    pos = 0
    gaps = [*PART_GAP.finditer(body), None]
    before = ""
    for gap in gaps:
        part = body[pos : gap.start() if gap else len(body)]
        size = cell_len(part)
        if not fresh and used + len(before) + size > width and under + size <= width:
            new_line()  # the part starts a line of its own, where it fits whole
        for i, word in enumerate(part.split(" ")):
            place(before if i == 0 else " ", word)
        if gap:
            before, pos = gap.group(), gap.end()
    lines.append(current.rstrip())
    return "\n".join(lines)


def table(rows: list[dict[str, Any]], columns: list[str], width: int | None = None, *, listing: bool = False) -> str:
    """Rows as aligned columns; each cell one line of visible text (``sttui.safetext.visible``:
    a newline or an escape sequence in a name shows as ``\\n``/``\\x1b``, it cannot forge a row).
    ``width``: the terminal's (``terminal_width``). A table wider than that is shown a row to a
    block, each cell beside its column's name (``blocks``, as psql's ``\\x auto``): the terminal
    would break every row across lines, mid-cell, and no column would line up. A ``listing``
    (a row to a line, read down) keeps its rows on their lines instead: its last column is cut
    to the width, ending "…" (as ``gh`` lists), where that leaves it 10 characters or more."""
    cells = [{c: visible(r.get(c, "")) for c in columns} for r in rows]
    widths = {c: max([len(c)] + [len(r[c]) for r in cells]) for c in columns}
    over = 0 if width is None else sum(widths.values()) + 2 * (len(columns) - 1) - width
    if over > 0 and listing:
        last = columns[-1]
        room = widths[last] - over
        if room >= max(10, len(last)):
            widths[last] = room
            for r in cells:
                if len(r[last]) > room:
                    r[last] = r[last][: room - 1] + "…"
    elif over > 0:
        return blocks(cells, columns, width)
    lines = ["  ".join(c.ljust(widths[c]) for c in columns).rstrip(), "  ".join("-" * widths[c] for c in columns)]
    lines += ["  ".join(r[c].ljust(widths[c]) for c in columns).rstrip() for r in cells]
    return "\n".join(lines)


def blocks(rows: list[dict[str, Any]], columns: list[str], width: int | None = None) -> str:
    """Each row as a block of lines, a cell to a line after its column's name, a blank line
    between rows; a cell too wide for ``width`` goes on under itself (``fit``)."""
    named = max(map(len, columns), default=0)
    out: list[str] = []
    for r in rows:
        if out:
            out.append("")
        for c in columns:
            line = f"{c:<{named}}  {visible(r.get(c, ''))}".rstrip()
            out.append(fit(line, width, named + 2))
    return "\n".join(out)


def table_lines(rows: Iterable[dict[str, Any]], columns: list[str]) -> Iterator[str]:
    """``table`` line by line, from rows read once as they come (``cell_lines``, each row's cells
    in the order of ``columns``, a missing one blank)."""
    blanks = [""] * len(columns)
    return cell_lines((tuple(map(r.get, columns, blanks)) for r in rows), columns)


@dataclass
class Narrow:
    """How a listing (a row to a line, read down) gives way on a terminal ``width`` columns
    wide, rather than letting the terminal break every row across lines: first the widest of
    the ``shrink`` columns is cut, one character at a time, down to no fewer than its minimum
    (with "…" where cut: in the ``middle`` of a task id, keeping its end, else at the end);
    then, if it still does not fit, the ``drop`` columns are left out in that order, and the
    rest cut again from their full widths. ``hidden`` names those left out, once the lines are
    written, for the listing to say so."""

    width: int
    shrink: dict[str, int]
    middle: frozenset[str] = frozenset()
    drop: tuple[str, ...] = ()
    hidden: list[str] = field(default_factory=list)

    def plan(self, columns: list[str], widths: list[int]) -> list[int | None]:
        """Each column's width on the terminal (None: left out), from its full width."""
        natural = dict(zip(columns, widths, strict=True))
        kept = list(columns)
        for gone in (None, *self.drop):
            if gone is not None and gone in kept:
                kept.remove(gone)
                self.hidden.append(gone)
            sized = dict(natural)
            over = sum(sized[c] for c in kept) + 2 * (len(kept) - 1) - self.width
            while over > 0:
                cuttable = [c for c in kept if c in self.shrink and sized[c] > max(self.shrink[c], len(c))]
                if not cuttable:
                    break
                widest = max(cuttable, key=lambda c: sized[c])
                sized[widest] -= 1
                over -= 1
            if over <= 0:
                break
        return [sized[c] if c in kept else None for c in columns]


def cut(text: str, width: int, middle: bool = False) -> str:
    """``text`` in ``width`` characters: as it is if it fits, else cut with "…" (in the middle,
    keeping two thirds from the start and its end: ``logistics-vacc…t1-hard``; or at the end)."""
    if len(text) <= width:
        return text
    if middle and width >= 4:
        tail = (width - 1) // 3
        return text[: width - 1 - tail] + "…" + text[len(text) - tail :]
    return text[: max(width - 1, 0)] + "…"


def cell_lines(rows: Iterable[Sequence[Any]], columns: list[str], narrow: Narrow | None = None) -> Iterator[str]:
    """``table``'s lines for rows given as their cells, one per column in order: the cells are
    spooled (in memory up to a few MB, then to a private temporary file) while the column widths
    are found, then written out. Memory stays bounded whatever the listing's length. The checks
    run a chunk of rows at a time (the widths by ``max`` over each column, anything a terminal
    would obey by one search of the chunk's text): a listing of 100,000 rows is not 900,000
    steps of Python. ``narrow``: how the lines give way to a terminal too narrow for them."""
    widths = [len(c) for c in columns]
    with tempfile.SpooledTemporaryFile(max_size=16 << 20) as spool:
        chunk: list[tuple[str, ...]] = []
        chunks = 0
        for r in rows:
            chunk.append(tuple(c if type(c) is str else str(c) for c in r))
            if len(chunk) >= _CHUNK:
                _settle(chunk, widths)
                pickle.dump(chunk, spool, pickle.HIGHEST_PROTOCOL)
                chunk, chunks = [], chunks + 1
        _settle(chunk, widths)
        shape: Callable[[Sequence[str]], Sequence[str]] | None = None
        if narrow is not None:
            planned = narrow.plan(columns, widths)
            if planned != widths:
                shape = _shaper(columns, widths, planned, narrow.middle)
                widths = [w for w in planned if w is not None]
        # each row through one format call (a cell padded as ``str.ljust`` pads it): a listing of
        # 100,000 rows writes them in half the time of a join per row
        line = "  ".join(f"{{:<{w}}}" for w in widths).format
        if shape is None:
            yield line(*columns).rstrip()
        else:
            yield line(*shape(columns)).rstrip()
        yield "  ".join("-" * w for w in widths)
        spool.seek(0)
        for _ in range(chunks):
            for cells in pickle.load(spool):
                yield line(*(cells if shape is None else shape(cells))).rstrip()
        for cells in chunk:
            yield line(*(cells if shape is None else shape(cells))).rstrip()


def _shaper(
    columns: list[str], widths: list[int], planned: list[int | None], middle: frozenset[str]
) -> Callable[[Sequence[str]], Sequence[str]]:
    """A row's cells as ``Narrow.plan`` placed them: those left out gone, those cut cut."""
    kept = [i for i, w in enumerate(planned) if w is not None]
    cuts = [(i, w, columns[i] in middle) for i, w in enumerate(planned) if w is not None and w < widths[i]]

    def shape(cells: Sequence[str]) -> Sequence[str]:
        out = list(cells)
        for i, w, mid in cuts:
            out[i] = cut(out[i], w, mid)
        return [out[i] for i in kept]

    return shape


_CHUNK = 1000  # rows checked and spooled at a time


def _settle(chunk: list[tuple[str, ...]], widths: list[int]) -> None:
    """A chunk's cells made visible (``visible``, in the rows that need it) and its columns'
    widths taken into ``widths``."""
    if not chunk:
        return
    if not control_free("".join(itertools.chain.from_iterable(chunk))):  # (almost no chunk has any)
        for i, cells in enumerate(chunk):
            if not control_free("".join(cells)):
                chunk[i] = tuple(visible(c) for c in cells)
    for i, column in enumerate(zip(*chunk, strict=True)):
        widest = max(map(len, column))
        if widest > widths[i]:
            widths[i] = widest


def echo_lines(lines: Iterable[str], echo: Callable[[str], Any], chunk: int = 500) -> int:
    """Write lines a chunk at a time (whole lines, so nothing on a line is split between two
    writes); returns how many were written. Together they read as ``echo("\\n".join(lines))``."""
    n = 0
    buffer: list[str] = []
    for line in lines:
        buffer.append(line)
        n += 1
        if len(buffer) >= chunk:
            echo("\n".join(buffer))
            buffer.clear()
    if buffer:
        echo("\n".join(buffer))
    return n


def ci(bounds: list[float] | None) -> str:
    """A 95 % interval as text, or nothing when there is none (fewer than two tasks)."""
    return f"  [{bounds[0]:.1%}, {bounds[1]:.1%}]" if bounds else ""


def pass_report(summary: dict[str, Any], agent: str) -> str:
    errored = summary.get("errored") or 0
    lines = [
        f"Pass@1 for {agent} over {summary['n']} episodes"
        + (f" ({errored} errored, counted as failures)" if errored else ""),
        f"  overall (weighted by level counts)  {summary['overall']:.1%}{ci(summary.get('overall_ci'))}",
        f"  overall (paper's level weights)     {summary['overall_paper_weights']:.1%}",
    ]
    for level, v in summary["levels"].items():
        lines.append(f"  {level:<12} n={v['n']:<3} {v['pass_at_1']:.1%}")
    lines.append("  by subtype: " + "  ".join(f"{c} {v['pass_at_1']:.0%}" for c, v in summary["conflicts"].items()))
    if summary.get("trials", 1) > 1:
        lines.append(f"Over {summary['trials']} trials per task (95 % bootstrap intervals over tasks):")
        lines += pass_k_lines(summary)
    return "\n".join(lines)


def shown_ks(trials: int) -> list[int]:
    """The k a text report shows: every k up to 8, then doublings and the last (136 trials
    had printed 136 rows per controller; ``--json`` keeps every k)."""
    ks = list(range(1, min(trials, 8) + 1))
    k = 16
    while k < trials:
        ks.append(k)
        k *= 2
    return ks + ([trials] if trials > 8 else [])


def pass_k_lines(summary: dict[str, Any]) -> list[str]:
    """Pass@k beside pass^k, each with its interval (``run`` and ``report``), for the k of
    :func:`shown_ks`."""
    trials = summary["trials"]
    lines = ["  pass@k: at least one of k trials passes; pass^k: all k of k pass"]
    if trials > 8:
        lines[0] += f" (k up to 8, then doublings and {trials}; --json has every k)"
    for k in shown_ks(trials):
        at, hat = f"pass@{k}", f"pass^{k}"
        left = f"{summary['pass_at_k'][at]:.1%}{ci(summary['pass_at_k_ci'].get(at))}"
        right = f"{summary['pass_hat_k'][hat]:.1%}{ci(summary['pass_hat_k_ci'].get(hat))}"
        lines.append(f"  {at:<8} {left:<24}  {hat:<8} {right}")
    return lines


def score_ci(value: float, bounds: list[float] | None) -> str:
    """A mean score (0 to 1) with its interval, as two decimals."""
    return f"{value:.2f}" + (f" [{bounds[0]:.2f}, {bounds[1]:.2f}]" if bounds else "")


def review_columns(review: dict[str, Any] | None) -> dict[str, str]:
    """An episode's review in a few table cells."""
    if not review:
        return {"stages": "-", "milestones": "-", "first error": "-", "early stop": "-"}
    first = review.get("first_error")
    stop = review.get("stop")
    return {
        "stages": f"{review['score']:.2f}",
        "milestones": f"{review['settled']}/{review['milestones']}",
        "first error": f"step {first['step']}" if first else "-",
        "early stop": f"{stop['signal']} @{stop['step']} (saved {stop['steps_saved']})" if stop else "-",
    }


def review_report(t: dict[str, Any]) -> str:
    lines = [
        f"Milestone review over {t['n']} episodes",
        f"  mean stage score {score_ci(t['mean_score'], t.get('mean_score_ci'))}"
        + f"  ·  mean milestone completion {t['mean_completion']:.1%}",
    ]
    if t["early_stops"]:
        stops = ", ".join(f"{k} {v}" for k, v in t["early_stops"].items())
        lines.append(
            f"  early stops: {stops}; {t['steps_saved']} steps saved ({t['steps_saved_share']:.1%} of steps run + saved; "
            "saved = step budget left when stopped, an upper bound)"
        )
    if t["would_stop"]:
        would = ", ".join(f"{k} {v}" for k, v in t["would_stop"].items())
        lines.append(
            f"  would have stopped (counterfactual on complete runs): {would}; "
            f"{t['would_save_share']:.1%} of the steps run would have been saved"
        )
    judges = t.get("judges")
    if judges:
        mean = judges["mean_milestone_score"]
        lines.append(
            f"  stage judges: mean judged score {'-' if mean is None else f'{mean:.2f}'} over {judges['episodes']} "
            f"episodes; {judges['unjudged_stages']} stage(s) unjudged"
        )
        rows = [{**r, "cost": "unknown" if r["cost"] is None else f"{r['cost']:.6f}"} for r in judges["tiers"]]
        lines += ["  " + line for line in table(rows, list(rows[0])).splitlines()] if rows else []
    return "\n".join(lines)


def _pct(v: float | None) -> str:
    return "-" if v is None else f"{v:.1%}"


def _num(v: float | None) -> str:
    return "-" if v is None else f"{v:.1f}"


def explore_table(episodes: list[dict[str, Any]], width: int | None = None) -> str:
    """Each explore episode's metrics, a row each."""
    rows = []
    for e in episodes:
        m = e["metrics"]
        rows.append(
            {
                "task": e["task"],
                "family": e["family"],
                "setting": e["setting"],
                "CA": _pct(m["calibrated_accuracy"]) + (" (incomplete)" if m.get("incomplete") else ""),
                "EA": _pct(m["exact_accuracy"]),
                "probes": m["unique_probes"],
                "re-probes": m.get("reprobes_after_change", "-"),
                "FR": _pct(m.get("factor_recognition")),
                "CR": _pct(m.get("change_recognition")),
                "post-change loss": _pct(m.get("first_post_change_loss")),
            }
        )
    cols = ["task", "family", "setting", "CA", "EA", "probes", "re-probes", "FR", "CR", "post-change loss"]
    return table(rows, cols, width)


def explore_summary(summary: dict[str, Any], agent: str) -> str:
    """The explore metrics over the episodes, with their intervals."""
    s = summary
    lines = [
        f"Explore metrics for {agent} over {s['n']} episodes"
        + (
            f" ({s['incomplete']} incomplete: unplayed batches score as a random policy, CA 0)"
            if s.get("incomplete")
            else ""
        ),
        f"  calibrated accuracy  {_pct(s['calibrated_accuracy'])}{ci(s.get('calibrated_accuracy_ci'))}"
        "   (random 0%, oracle 100% in expectation)",
        f"  exact accuracy       {_pct(s['exact_accuracy'])}",
        f"  unique probes        {_num(s['unique_probes'])}    re-probes after change {_num(s['reprobes_after_change'])}",
        f"  factor recognition   {_pct(s['factor_recognition'])}",
        f"  change recognition   {_pct(s['change_recognition'])}   "
        f"(paired assessments completed: {_pct(s['change_assessment_completion'])})",
        f"  first post-change loss {_pct(s['first_post_change_loss'])}",
    ]
    return "\n".join(lines)
