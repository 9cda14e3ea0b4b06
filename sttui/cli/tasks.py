"""Commands about tasks: list, check, generate, play (headless runs are in cli/run.py)."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import click

from sttui.cli.app import checked_name, echo_json, main, open_store, say
from sttui.paths import tasks_root


def task_record(t: Any) -> dict[str, Any]:
    """The stable listing record of a task (a loaded task, or the task index's entry for its
    file): stt tasks have conflict and level, explore ones a family."""
    if hasattr(t, "opening"):  # an index entry: the same fields, without loading the task
        return {
            "id": t.id,
            "kind": t.kind,
            "domain": t.domain,
            "conflict": t.conflict,
            "level": t.level,
            "family": t.family,
            "title": t.title,
            "file": str(t.path),
        }
    stt = t.kind == "stt"
    return {
        "id": t.id,
        "kind": t.kind,
        "domain": t.task.domain,
        "conflict": t.task.conflict if stt else None,
        "level": t.task.level if stt else None,
        "family": None if stt else t.task.rule.family,
        "title": t.task.title,
        "file": str(t.path),
    }


def _select(selection: tuple[str, ...]) -> list[Any]:
    """Task files, folders or ids -> the task index's entries of the tasks chosen (nothing is
    loaded that the index holds); exits with a clear report on bad files."""
    from sttui.core.taskindex import discover, index

    root = tasks_root()
    paths: list[str | Path] = []
    wanted_ids: list[str] = []
    for item in selection or (str(root),):
        if Path(item).exists():
            paths.append(item)
        else:
            wanted_ids.append(item)
    if wanted_ids:
        paths.append(root)
    entries = index().scan(paths)
    chosen = [e for e in entries if e.ok]
    errors = [e for e in entries if not e.ok]
    if wanted_ids:
        by_id = {e.id: e for e in chosen if e.id is not None}
        unknown = [i for i in wanted_ids if i not in by_id]
        if unknown:
            from sttui.core.problems import did_you_mean

            for i in unknown:
                click.echo(f"error: no task '{i}' under {root}{did_you_mean(i, by_id)}", err=True)
                hint = _group_hint(i, chosen)
                if hint:
                    click.echo(f"  {hint}", err=True)
            sys.exit(1)
        # (by the file itself: a folder named by its absolute path is also under a relative root)
        explicit_files = {Path(p).resolve() for p in discover(paths[:-1])}
        explicit = list({f: e for e in chosen if (f := Path(e.path).resolve()) in explicit_files}.values())
        chosen = explicit + [by_id[i] for i in wanted_ids]
    if errors:
        for e in errors:
            for problem in e.problems or ():
                click.echo(f"error: {problem}", err=True)
        sys.exit(1)
    return _unique(chosen)


def _group_hint(name: str, entries: list[Any], one: bool = False) -> str | None:
    """When ``name`` is not a task's id but a domain, a kind or a level of some tasks: what to
    name instead (a selection is of task ids, files and folders: one way to choose). ``one``:
    for a command that opens one task (``play``), where to list them."""
    folded = name.strip().lower()
    for field in ("domain", "kind", "level"):
        files = [Path(e.path).resolve() for e in entries if (getattr(e, field) or "").lower() == folded]
        if not files:
            continue
        folder = Path(os.path.commonpath(files))
        whole = field == "level" or not folder.is_dir() or folder == Path(tasks_root()).resolve()
        try:
            shown = folder.relative_to(Path.cwd())
        except ValueError:
            shown = folder
        if one:
            where = "`sttui tasks`" if whole else f"`sttui tasks {shown}`"
            return f"'{name}' is a {field} of {len(files)} task(s), not one task: {where} lists their ids"
        if whole:
            return f"'{name}' is a {field} of {len(files)} task(s): name the tasks by id, file or folder"
        return f"'{name}' is a {field}: its {len(files)} task(s) are under {shown}; name that folder"
    return None


def _unique(chosen: list[Any]) -> list[Any]:
    """Each task once, in the order first named: overlapping selections (a folder and a task
    inside it) would otherwise run a task twice and count the copies as trials."""
    seen: set[str] = set()
    out: list[Any] = []
    repeated: list[str] = []
    for entry in chosen:
        if entry.id in seen:
            if entry.id not in repeated:
                repeated.append(entry.id)
            continue
        seen.add(entry.id)
        out.append(entry)
    if repeated:
        shown = ", ".join(repeated[:5]) + (f" and {len(repeated) - 5} more" if len(repeated) > 5 else "")
        click.echo(f"note: {len(repeated)} task(s) named more than once, taken once each: {shown}", err=True)
    return out


def _load_selection(selection: tuple[str, ...]) -> list[Any]:
    """Task files, folders or ids -> loaded tasks; exits with a clear report on bad files."""
    from sttui.core.loader import load_task

    return [load_task(e.path) for e in _select(selection)]


@main.command()
@click.argument("paths", nargs=-1)
@click.option("--json", "as_json", is_flag=True, help="Print records as JSON.")
@click.option(
    "--coverage",
    is_flag=True,
    help="Print what the tasks cover: stt subtypes × levels by domain and in total, explore "
    "episodes by rule family × drift kind.",
)
@click.option("--markdown", is_flag=True, help="With --coverage: as the README's Markdown tables.")
@click.option(
    "--difficulty",
    is_flag=True,
    help="Play the naive plan and the random baseline on each stt task and print their outcomes "
    "and stage scores, per task and per level, and the tasks whose level does not order them.",
)
@click.option(
    "--random-seeds",
    type=click.IntRange(min=1),
    default=10,
    show_default=True,
    help="With --difficulty: runs of the random baseline per task (seeds 0 to N-1).",
)
def tasks(
    paths: tuple[str, ...], as_json: bool, coverage: bool, markdown: bool, difficulty: bool, random_seeds: int
) -> None:
    """List tasks: id, kind, domain, conflict subtype, level."""
    if markdown and not coverage:
        click.echo("error: --markdown goes with --coverage", err=True)
        sys.exit(2)
    if markdown and as_json:
        click.echo("error: --markdown and --json are two formats; ask for one", err=True)
        sys.exit(2)
    if coverage and difficulty:
        click.echo("error: --coverage and --difficulty are two reports; ask for one", err=True)
        sys.exit(2)
    if difficulty:
        _print_difficulty(_select(paths), as_json, random_seeds)
        return
    if coverage:
        _print_coverage(_select(paths), as_json, markdown)
        return
    rows = [task_record(t) for t in _select(paths)]  # from the task index: nothing loaded that it holds
    if as_json:
        echo_json(rows)
        return
    from sttui.textout import table, terminal_width

    shown = [{**r, "subtype": r["conflict"] or r["family"], "level": r["level"] or "-"} for r in rows]
    click.echo(table(shown, ["id", "kind", "domain", "subtype", "level", "title"], terminal_width(), listing=True))


def _print_coverage(entries: list[Any], as_json: bool, markdown: bool) -> None:
    """The coverage of the chosen tasks (stt rows from the task index; an explore episode is
    loaded, through the index's cache, for its drift)."""
    from sttui.core.coverage import coverage, drift_kind, render_markdown, render_text
    from sttui.core.explore.task import ExploreTask
    from sttui.core.taskindex import index

    stt = [task_record(e) for e in entries if e.kind == "stt"]
    explore = []
    for e in entries:
        if e.kind != "explore":
            continue
        task = index().load(e.path).task
        assert isinstance(task, ExploreTask)  # the index's kind says so
        after = task.drift.after_batch if task.drift is not None else None
        explore.append({"domain": task.domain, "family": task.rule.family, "drift": drift_kind(after, task.setting)})
    cov = coverage(stt, explore)
    if as_json:
        echo_json(cov)
    else:
        click.echo(render_markdown(cov) if markdown else render_text(cov))


def _print_difficulty(entries: list[Any], as_json: bool, random_seeds: int) -> None:
    """The baselines' difficulty of each chosen stt task (explore episodes are left out: their
    baselines' figures are the metrics of `sttui run`)."""
    from sttui.authoring.difficulty import measure_task, report
    from sttui.core.taskindex import index
    from sttui.textout import table

    stt = [e for e in entries if e.kind == "stt"]
    if not stt:
        click.echo("error: no stt tasks among those chosen", err=True)
        sys.exit(1)
    measured = [measure_task(index().load(e.path), random_seeds) for e in stt]
    rep = report(measured)
    if as_json:
        echo_json(rep | {"random_seeds": random_seeds})
        return

    def num(v: float | None) -> str:
        return "-" if v is None else f"{v:.2f}"

    rows = [
        {
            "id": t["task_id"],
            "level": t["level"],
            "naive": "pass" if t["naive"]["passed"] else "fail",
            "naive items": num(t["naive"]["items"]),
            "naive stage": num(t["naive"]["stage"]),
            "random pass": f"{t['random']['passed']}/{t['random']['runs']}",
            "random items": num(t["random"]["items"]),
            "random stage": num(t["random"]["stage"]),
        }
        for t in rep["tasks"]
    ]
    cols = ["id", "level", "naive", "naive items", "naive stage", "random pass", "random items", "random stage"]
    click.echo(table(rows, cols))
    levels = [
        {
            "level": lvl,
            "tasks": str(v["tasks"]),
            "naive passes": str(v["naive_passed"]),
            "naive items": num(v["naive_items"]),
            "naive stage": num(v["naive_stage"]),
            "random items": num(v["random_items"]),
            "random stage": num(v["random_stage"]),
        }
        for lvl, v in rep["levels"].items()
    ]
    click.echo("\nper level:")
    click.echo(
        table(levels, ["level", "tasks", "naive passes", "naive items", "naive stage", "random items", "random stage"])
    )
    click.echo("\nlevel order (easy >= medium >= hard, by the means above):")
    solvable = [lvl for lvl in ("easy", "medium", "hard") if lvl in rep["levels"]]
    fallback = (
        "holds for both baselines' stage scores" if len(solvable) > 1 else "fewer than two solvable levels to order"
    )
    for line in rep["level_order_breaks"] or [fallback]:
        click.echo(f"  {line}")
    flagged = rep["out_of_order"]
    click.echo(f"\ntasks whose level does not order the baselines' stage scores: {len(flagged)}")
    for f in flagged:
        click.echo(f"  {f['task']} ({f['level']}): {f['why']}")
    click.echo(f"\nrandom baseline: seeds 0-{random_seeds - 1} per task; naive plan: once (deterministic)")


@main.command()
@click.argument("paths", nargs=-1)
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.option(
    "-v", "--verbose", is_flag=True, help="Print each task's notes and controls too: plans, stages, the naive review."
)
@click.option(
    "--random-seeds",
    type=click.IntRange(min=1),
    default=20,
    show_default=True,
    help="Runs of the random baseline per stt task (its pass-rate control).",
)
def check(paths: tuple[str, ...], as_json: bool, verbose: bool, random_seeds: int) -> None:
    """Validate tasks: schema, naive plan breaks, solution works, determinism, milestones, and
    adversarial controls (idle agents, the naive plan without its lookups, the random baseline,
    scripted endings) that must fail."""
    from sttui.authoring.checking import GRAPH_NOTES, check_paths, controls_line

    reports = check_paths(list(paths) or [tasks_root()], random_seeds)
    bad = [r for r in reports if not r.ok]
    if as_json:
        echo_json({"ok": not bad, "tasks": [r.as_dict() for r in reports]})
    else:
        for r in reports:
            mark = "ok  " if r.ok else "FAIL"
            say(f"{mark} {r.task_id or '-':45} {r.file}", hang=5)  # (the file under the id)
            for p in r.problems:
                say(f"     - {p}", hang=2)  # (under the text, past the dash)
            if r.graph in GRAPH_NOTES:
                say(f"       {GRAPH_NOTES[r.graph]}")
            if r.controls:
                say(f"       {controls_line(r.controls)}")
            if verbose:
                for c in r.controls:
                    say(f"       control {c.control}: {c.outcome}{'' if c.ok else ' (must not)'}: {c.detail}")
                for n in r.notes:
                    say(f"       {n}")
        click.echo(f"\n{len(reports) - len(bad)} of {len(reports)} task files pass")
    if not reports:
        click.echo("error: no task files found", err=True)
        sys.exit(1)
    sys.exit(1 if bad else 0)


@main.group()
def generate() -> None:
    """Generate episodes from catalogs."""


@generate.command("explore")
@click.option("--domain", required=True, help="Catalog name under tasks/explore/catalogs/ (or a catalog file).")
@click.option("--family", required=True, type=click.Choice(["additive", "conjunctive", "disjunctive", "lexicographic"]))
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), help="Write here instead of stdout.")
def generate_explore(domain: str, family: str, seed: int, output: Path | None) -> None:
    """A certified explore episode: relevant factors, distractors and a plausible drift that
    changes the optimal action for 25-75 % of post-change cases."""
    import yaml

    from sttui.core.explore.generate import GenerationError, command
    from sttui.core.explore.generate import generate as make
    from sttui.core.loader import load_catalog
    from sttui.core.problems import TaskFileError

    path = (
        Path(domain) if domain.endswith((".yaml", ".yml")) else tasks_root() / "explore" / "catalogs" / f"{domain}.yaml"
    )
    if not path.exists():
        known = sorted(p.stem for p in (tasks_root() / "explore" / "catalogs").glob("*.yaml"))
        click.echo(f"error: no catalog {path}; known domains: {', '.join(known) or 'none'}", err=True)
        sys.exit(1)
    try:
        catalog = load_catalog(path)
        data, share, attempts = make(catalog, family, seed, domain)  # type: ignore[arg-type]  # click checked family's choices
    except TaskFileError as exc:
        for problem in exc.problems:
            click.echo(f"error: {problem}", err=True)
        sys.exit(1)
    except GenerationError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(1)
    header = (
        f"# Generated by: {command(domain, family, seed)}\n"
        f"# Certified: the drift changes the optimal action for {share:.1%} of post-change cases "
        f"(draft {attempts}).\n"
    )
    text = header + yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100, default_flow_style=None)
    if output is None:
        click.echo(text, nl=False)
    else:
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(text, encoding="utf-8")
        click.echo(f"wrote {output} (drift share {share:.0%})", err=True)


def find_task_file(task_id: str, root: Path) -> Path | None:
    """The task file under ``root`` whose ``id`` is ``task_id``, found by reading each file's
    top-level ``id:`` line, without loading (validating, importing) any task."""
    from sttui.core.taskindex import discover, written_id

    return next((path for path in discover([root]) if written_id(path) == task_id), None)


def _play_task(task: str) -> Any:
    """TASK (a file, or an id under the tasks folder) as the task index's entry of its file,
    checked (a file that does not load exits 1 with its problems) but not loaded: the
    workbench loads it after its first paint. Only that one task's file is read."""
    path = Path(task) if Path(task).exists() else find_task_file(task, tasks_root())
    if path is None:  # not found cheaply: the task index tells the ids apart (and suggests one)
        path = _indexed_path(task)
    entry = _entry_or_exit(path)
    if not Path(task).exists() and entry.id != task:  # an id line the quick look misread
        entry = _entry_or_exit(_indexed_path(task))
    return entry


def _one_task(task: str) -> Any:
    """TASK (a file, or an id under the tasks folder) loaded, and only that one task."""
    return _load_or_exit(Path(_play_task(task).path))


def _entry_or_exit(path: Path) -> Any:
    """The task index's entry of ``path`` (from the cache while the file is unchanged, else the
    file is loaded and checked once); a file that does not load exits 1 with its problems."""
    from sttui.core.taskindex import index

    found = index().scan([path])
    if len(found) != 1:  # not a task file (a folder, say): loading it says why
        return _load_or_exit(path)
    entry = found[0]
    if not entry.ok:
        for problem in entry.problems or ():
            click.echo(f"error: {problem}", err=True)
        sys.exit(1)
    return entry


def _load_or_exit(path: Path) -> Any:
    from sttui.core.loader import load_task
    from sttui.core.problems import TaskFileError

    try:
        return load_task(path)
    except TaskFileError as exc:
        for problem in exc.problems:
            click.echo(f"error: {problem}", err=True)
        sys.exit(1)


def _indexed_path(task: str) -> Path:
    """The file of task id ``task`` under the tasks folder, found through the task index (no
    task it holds is loaded); exits naming the closest ids when there is none."""
    from sttui.core.taskindex import index

    entry = index().find(task, [tasks_root()])
    if entry is None:
        from sttui.core.problems import did_you_mean

        entries = _select(())
        ids = {e.id for e in entries}
        click.echo(f"error: no task '{task}' under {tasks_root()}{did_you_mean(task, ids)}", err=True)
        hint = _group_hint(task, entries, one=True)
        if hint:
            click.echo(f"  {hint}", err=True)
        sys.exit(1)
    return Path(entry.path)


@main.command()
@click.argument("task")
@click.option(
    "--agent",
    default=None,
    help="Agent seat: you (human[:NAME], the default), or a controller (baseline:oracle, model:M, …) "
    "and then you take the user seat.",
)
@click.option(
    "--user",
    default=None,
    help="User seat (stt): baseline:scripted (the default), model:M, or human[:NAME] to play it yourself.",
)
@click.option(
    "--as",
    "as_name",
    callback=checked_name,
    default=None,
    help="Your name in the record (default: the config's, or login).",
)
def play(task: str, agent: str | None, user: str | None, as_name: str | None) -> None:
    """Open the play screen on TASK (an id or a file) directly, loading only that task.

    \b
    Which seat is yours:
      play T                         you play the agent; the scripted user answers
      play T --user model:M          you play the agent; a model plays the user
      play T --agent baseline:naive  you play the user; the naive plan is the agent
      play T --user human            you play the user; baseline:oracle is the agent
    If --agent names a controller, its seat is taken and you take the user seat.
    Explore tasks have only the agent seat. With both seats taken, use `sttui run`.
    An unknown controller is an error (exit 2) before anything opens.
    """
    from sttui.config import ConfigError, human_name, load_config
    from sttui.running.seats import PlanProblem, PlayPlan
    from sttui.tui.app import run_app

    ctx = click.get_current_context()
    db = (ctx.find_root().obj or {}).get("db")
    try:
        config = load_config()
    except ConfigError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)
    entry = _play_task(task)
    me = human_name(as_name, config)
    try:
        plan = PlayPlan.build(entry, me, agent, user)
    except PlanProblem as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)
    if plan.named_controllers:  # a controller named: it must exist before anything opens
        from sttui.controllers.registry import ControllerSpecError

        plan = PlayPlan.build(_load_or_exit(Path(entry.path)), me, agent, user)
        try:
            store = open_store() if "replay:" in f"{plan.agent} {plan.user}" else None
            plan.controllers(config.models, store)
        except ControllerSpecError as exc:
            click.echo(f"error: {exc}", err=True)
            sys.exit(2)
    # else the person's seat and the task's own user: nothing to check, and nothing loaded
    # here (the task, the record, their libraries) that the first paint would wait for
    run_app(db_url=db, human=as_name, play=plan, config=config)
