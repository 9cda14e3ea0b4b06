"""`sttui export` and `sttui import`: the record's episodes as files, and such files back into
it. Exports never run a task's code; an import is checked whole before anything is written."""

from __future__ import annotations

import glob
import os
import re
import secrets
import stat
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

import click

from sttui.cli.app import main, open_store
from sttui.cli.progress import Progress
from sttui.cli.records import _episode, _fail, _task_dirs, tasks_option, trust_option


@main.command("export")
@click.argument("episodes", nargs=-1)
@click.option("--all", "everything", is_flag=True, help="Export every episode.")
@click.option(
    "--demonstrations",
    is_flag=True,
    help="Only verified demonstrations (`sttui refine --save --demonstration`), with their provenance.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["jsonl", "openai", "sharegpt", "hf", "inspect"]),
    default="jsonl",
    show_default=True,
)
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), required=True)
@click.option(
    "--push-to-hub",
    "repo_id",
    metavar="REPO",
    help="With --format hf: also upload the file and a dataset card to this Hugging Face dataset "
    "repository (created private if new; your huggingface_hub login).",
)
@trust_option
@tasks_option
def export_cmd(
    episodes: tuple[str, ...],
    everything: bool,
    demonstrations: bool,
    fmt: str,
    output: Path,
    repo_id: str | None,
    trust: bool,
    task_dirs: tuple[Path, ...],
) -> None:
    """Export episodes: the full event log (jsonl), training data (openai, sharegpt), a Parquet
    dataset (hf, needs sttui[hf]) or an Inspect AI .eval log (inspect, needs sttui[inspect]).

    Training data goes to FILE as a JSON array when its name ends in .json, else as JSON lines.
    --demonstrations keeps only verified refined episodes, with their provenance (refined_from,
    edits, editor) in each example's metadata.

    Never runs a task's code: the tools come from the record. Only task versions stored before
    tools were kept are opened, under the same trust rule as replay (--trust, --tasks).
    """
    from sttui.exports.jsonl import jsonl_lines, write_lines
    from sttui.exports.rows import is_demonstration
    from sttui.exports.training import training_lines

    if not episodes and not everything and not demonstrations:
        _fail("name episodes to export, or pass --all (or --demonstrations)", 2)
    check_folder(output)
    store = open_store()
    records = [_episode(store, e) for e in episodes] if episodes else store.list_episodes()
    if demonstrations:
        records = [r for r in records if is_demonstration(r.scores)]
        if not records:
            _fail("no verified demonstrations to export (`sttui refine EP ... --save --demonstration` makes one)")
    records = sorted(records, key=lambda r: (r.started_at, r.id))
    if repo_id is not None and fmt != "hf":
        _fail("--push-to-hub uploads the Parquet dataset: use it with --format hf", 2)
    if repo_id is not None and not _REPO_ID.fullmatch(repo_id):
        _fail(f"--push-to-hub {repo_id!r}: expected a repository id such as user/name", 2)
    if fmt in ("hf", "inspect"):
        _export_file(store, records, fmt, output, trust, _task_dirs(task_dirs), repo_id)
        return
    notes: list[str] = []
    if fmt == "jsonl":
        for rec in records:
            if store.task_version(rec.task_id, rec.task_hash) is None:
                notes.append(f"{rec.id}: the record has no copy of its task version; its events are exported")
        lines: Iterable[str] = jsonl_lines(store, records)
        written = len(records)
    else:
        found, notes = training_lines(store, records, fmt, trust=trust, task_dirs=_task_dirs(task_dirs))
        lines, written = found, len(found)
    # a .json file holds one JSON array (what LLaMA-Factory and most loaders read as json); any
    # other name gets one example per line (jsonl); the full record is always JSON lines
    array = fmt != "jsonl" and output.suffix.lower() == ".json"
    layout = "a JSON array" if array else "one JSON object per line"
    if fmt == "jsonl" and output.suffix.lower() == ".json":
        notes.append("the full record is always JSON lines (what `sttui import` reads), whatever the name")
    progress = None
    if fmt == "jsonl":  # (an export of 10,000 episodes takes a minute)
        progress = Progress(f"exporting {len(records):,} episode(s) to {output}", None, unit="lines", verb="written")
    notes += write_whole(output, lambda path: write_lines(path, lines, array, progress and progress.at))
    if progress is not None:
        progress.done()
    for note in notes:
        click.echo(f"note: {note}", err=True)
    click.echo(f"wrote {written} episode(s) to {output} ({fmt}, {layout})", err=True)


_REPO_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,95}/[A-Za-z0-9][A-Za-z0-9._-]{0,95}")


def _export_file(
    store: Any, records: list[Any], fmt: str, output: Path, trust: bool, task_dirs: Any, repo_id: str | None = None
) -> None:
    """A Parquet dataset (hf) or an Inspect log (inspect): one row or sample per episode; the
    Parquet file also to a Hugging Face dataset repository when ``repo_id`` names one."""
    from sttui.errors import MissingExtra
    from sttui.exports.transcripts import transcripts

    found, notes = transcripts(store, records, trust, task_dirs)
    try:
        if fmt == "hf":
            from sttui.exports.hf import write_parquet

            written = write_whole(output, lambda path: write_parquet(found, path))
            layout = "Parquet, one row per episode"
        else:
            from sttui.exports.inspect_log import write_inspect_log

            if output.suffix != ".eval":
                notes.append("Inspect reads logs named *.eval; name the file so for `inspect view`")
            written = write_whole(output, lambda path: write_inspect_log(found, path))
            layout = "Inspect AI log, one sample per episode"
    except MissingExtra as exc:
        _fail(str(exc), 2)
    for note in notes:
        click.echo(f"note: {note}", err=True)
    click.echo(f"wrote {written} episode(s) to {output} ({fmt}, {layout})", err=True)
    if repo_id is not None:
        from sttui.exports.hub import push

        try:
            url = push(found, output, repo_id)
        except MissingExtra as exc:
            _fail(str(exc), 2)
        except Exception as exc:  # network, login, permissions: the Hub's reason in one line
            _fail(f"could not push to {repo_id}: {type(exc).__name__}: {' '.join(str(exc).split())[:300]}")
        click.echo(f"pushed {written} episode(s) and a dataset card to {repo_id}: {url}", err=True)


def check_folder(output: Path) -> None:
    """Refuse an output whose folder is missing, as ``--db`` does: a mistyped path is an error,
    not a new folder."""
    folder = output.absolute().parent
    if folder.is_dir():
        return
    if folder.exists():
        _fail(f"cannot write {output}: {folder} is not a folder", 2)
    _fail(
        f"the folder {folder} for {output} does not exist; check the path, or make the folder first: mkdir -p {folder}",
        2,
    )


T = TypeVar("T")


def write_whole(output: Path, write: Callable[[Path], T]) -> T:
    """``write(path)`` to a temporary file beside ``output``, put in its place only once written
    whole and on the disk: an export that fails leaves the file it was to replace as it was, and
    no part of itself. The new file has the mode the old one had (else the umask's), as a file
    written in place would; a link is followed to its file; a device or a pipe (``-o
    /dev/stdout``) is written as it is, as it cannot be replaced."""
    target = Path(os.path.realpath(output))
    if target.exists() and not target.is_file():
        return write(target)
    tmp = target.with_name(f".{target.name}.{secrets.token_hex(4)}.part{target.suffix}")
    try:
        result = write(tmp)
        if target.exists():
            os.chmod(tmp, stat.S_IMODE(target.stat().st_mode))
        fd = os.open(tmp, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, target)
    except BaseException as exc:
        tmp.unlink(missing_ok=True)
        if isinstance(exc, OSError):
            _fail(f"cannot write {output}: {exc.strerror or exc}; {output} was left as it was")
        raise
    for left in stale_parts(target):
        left.unlink(missing_ok=True)
        click.echo(f"note: removed {left.name}, left beside {output.name} by an export that was stopped", err=True)
    return result


STALE_AFTER = 600.0  # seconds unwritten: an export still writing its part touches it far more often


def stale_parts(target: Path, now: float | None = None) -> list[Path]:
    """The temporary files of exports to ``target`` killed before they finished (``kill -9``
    leaves no chance to remove one): named as :func:`write_whole` names them and unwritten for
    ``STALE_AFTER`` seconds, so an export to the same file still under way keeps its own."""
    now = time.time() if now is None else now
    pattern = re.compile(rf"\.{re.escape(target.name)}\.[0-9a-f]{{8}}\.part{re.escape(target.suffix)}")
    out = []
    try:
        candidates = list(target.parent.glob(f".{glob.escape(target.name)}.*.part*"))
    except OSError:
        return []
    for path in candidates:
        try:
            if pattern.fullmatch(path.name) and path.is_file() and now - path.stat().st_mtime >= STALE_AFTER:
                out.append(path)
        except OSError:
            continue
    return sorted(out)


@main.command("import")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--trust",
    is_flag=True,
    help="Vouch for the file's task code: its versions then replay without --trust, with your permissions.",
)
def import_cmd(file: Path, trust: bool) -> None:
    """Read back a jsonl export (episodes, events and their task versions), all or nothing.

    An episode already in the record is left as it is when the file's copy is the same (or
    behind it), continued when the file's copy goes on from the record's running one (resumed
    and finished elsewhere), and refuses the whole file when the two differ otherwise.

    The file is data: nothing in it is written to disk or run. Its task versions are kept as
    imported; their code runs only when trusted (see `sttui replay --help`).
    """
    from sttui.exports.importing import ImportProblem, import_jsonl

    store = open_store(write=True)
    try:
        done = import_jsonl(store, file, trust=trust)
    except ImportProblem as exc:
        _fail(f"{exc}; nothing was imported")
    for note in done.notes:
        click.echo(f"note: {note}", err=True)
    went_on = (
        f"; {done.continued} continued from the file (its events after the record's, and its end)"
        if done.continued
        else ""
    )
    click.echo(f"imported {done.added} episode(s); {done.present} already present{went_on}")
