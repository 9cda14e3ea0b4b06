"""`sttui fork EP --at N`: take over a recorded episode from one of its rows (see sttui.lineage.forking)."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from sttui.cli.app import echo_json, main, open_store
from sttui.cli.records import _fail, _task_dirs, tasks_option, trust_option
from sttui.config import ModelAlias


def changed_note(record: Any, dirs: list[Path]) -> str | None:
    """One line when the task's file changed since the episode was recorded (the fork uses the
    recorded version all the same), else None."""
    from sttui.core.taskindex import index

    entry = index().find(record.task_id, dirs)
    if entry is None or entry.content_hash == record.task_hash:
        return None
    return (
        f"note: task {record.task_id} changed since {record.id} was recorded; the fork uses the recorded "
        f"version {record.task_hash[:12]} (the file is now {(entry.content_hash or '')[:12]})"
    )


@main.command()
@click.argument("episode")
@click.option("--at", "seq", type=int, required=True, help="The row (event seq, as `sttui replay` numbers them).")
@click.option(
    "--agent", default=None, help="Controller for the agent seat from there (default: you; headless: as recorded)."
)
@click.option("--user", default=None, help="Controller for the user seat from there (`human` puts you there).")
@click.option("--headless", is_flag=True, help="Play the rest without the TUI (baselines and models).")
@trust_option
@tasks_option
@click.option("--json", "as_json", is_flag=True)
def fork(
    episode: str,
    seq: int,
    agent: str | None,
    user: str | None,
    headless: bool,
    trust: bool,
    task_dirs: tuple[Path, ...],
    as_json: bool,
) -> None:
    """Fork EPISODE at row N: a new episode that replays the recorded actions up to that row on a
    fresh environment of the recorded task version (recorded seed), checks every state hash
    against the record, and plays on from there.

    N is an event seq, a row of the replay: the actions at or before it are taken (a call's
    result and the triggers it fired come with it). Without --headless the workbench opens with
    you in the agent seat (``--user human``: the user seat). The fork records
    ``forked_from {episode, seq}`` and is never a clean baseline. A record that does not replay
    as recorded is refused with where it diverged."""
    from sttui.config import ConfigError, load_config
    from sttui.exports.versions import VersionProblem, open_version
    from sttui.lineage.forking import BadRow, ForkProblem, fork_point, write_fork
    from sttui.store.db import StoreError

    store = open_store(write=True)
    try:
        record = store.episode(episode)
    except StoreError as exc:
        _fail(str(exc), 2)
    if not headless and (trust or task_dirs):
        _fail("--trust and --tasks work with --headless; the workbench forks only trusted task versions", 2)
    dirs = _task_dirs(task_dirs)
    try:
        opened = open_version(store, record, trust=trust, task_dirs=dirs if headless else None)
    except VersionProblem as exc:
        _fail(f"cannot fork {record.id}: {exc}")
    loaded = opened.loaded
    try:
        config = load_config()
    except ConfigError as exc:
        _fail(str(exc), 2)
    models = config.models
    agent_spec, user_spec = _seat_specs(record, loaded, agent, user, headless, config)
    _check_controllers(agent_spec, user_spec, loaded, record, models, store)
    events = store.events(record.id)
    try:
        point = fork_point(loaded, record, events, seq)
    except ForkProblem as exc:
        _fail(str(exc), 2 if isinstance(exc, BadRow) else 1)  # a bad row is bad input; a divergence is not
    blind = _plan_cannot_continue(loaded, agent_spec, point, models, store, record.seed)
    if blind and not as_json:
        click.echo(f"note: {blind}", err=True)
    note = changed_note(record, dirs)
    if note and not as_json:
        click.echo(note, err=True)
    new = write_fork(store, loaded, record, point, agent_spec, user_spec)
    if not headless:
        from sttui.tui.app import run_app

        store.close()
        click.echo(f"forked {record.id} at row {seq} (step {point.step}) as {new.id}", err=True)
        run_app(db_url=store.url, resume_episode=new.id, config=config)
        return
    fork_ = _Fork(store, loaded, record, new, point, events, agent_spec, user_spec, models, seq, note, blind)
    _play_on_headless(fork_, as_json)


def _seat_specs(
    record: Any, loaded: Any, agent: str | None, user: str | None, headless: bool, config: Any
) -> tuple[str, str | None]:
    """Who holds each seat of the fork: as recorded unless named; headless, never a person; in
    the workbench, you in the seat ``--user human`` or the agent seat names."""
    from sttui.config import human_name
    from sttui.running.session import PlanProblem, PlayPlan, is_human

    has_user = loaded.kind == "stt"
    if headless:
        return headless_seats(record, loaded, agent, user)
    me = human_name(None, config)
    try:
        plan = PlayPlan.build(loaded, me, agent, user)
    except PlanProblem as exc:
        _fail(str(exc), 2)
    # with you in the user seat, the agent seat goes on as recorded unless --agent says otherwise
    recorded_agent = record.agent if not is_human(record.agent) else "baseline:oracle"
    agent_spec = plan.person if plan.seat == "agent" else (agent or recorded_agent)
    recorded_user = record.user if not is_human(record.user) else None
    user_spec = plan.person if plan.seat == "user" else ((plan.user or recorded_user) if has_user else None)
    return agent_spec, user_spec


def headless_seats(record: Any, loaded: Any, agent: str | None, user: str | None) -> tuple[str, str | None]:
    """Who holds each seat when the rest is played without the TUI (a fork or a resume): as
    recorded unless named, and never a person, who would be waited for with no screen to
    answer on (exits 2 naming the seat to give)."""
    from sttui.running.session import is_human

    if is_human(agent) or is_human(user):
        _fail("--headless plays the rest without a person; name a model or a baseline", 2)
    agent_spec = agent or record.agent
    user_spec = (user or record.user) if loaded.kind == "stt" else None
    if is_human(agent_spec) or is_human(user_spec):
        seat = "agent" if is_human(agent_spec) else "user"
        _fail(f"the recorded {seat} is a person ({agent_spec if seat == 'agent' else user_spec}): name --{seat}", 2)
    return agent_spec, user_spec


def _check_controllers(
    agent_spec: str, user_spec: str | None, loaded: Any, record: Any, models: Mapping[str, Any], store: Any
) -> None:
    """Every controller named is made once, so a bad name fails before anything is written."""
    from sttui.controllers.registry import ControllerSpecError, make_agent, make_user
    from sttui.running.session import is_human

    try:
        if not is_human(agent_spec):
            make_agent(agent_spec, loaded, record.seed, models, store)
        if user_spec is not None and not is_human(user_spec):
            make_user(user_spec, models, seed=record.seed)
    except ControllerSpecError as exc:
        _fail(str(exc), 2)


@dataclass(frozen=True)
class _Fork:
    """A fork written to the record, and what its headless run needs."""

    store: Any
    loaded: Any
    record: Any  # the episode forked
    new: Any  # the fork
    point: Any  # where it forks (fork_point)
    events: list[Any]  # the forked episode's events
    agent: str
    user: str | None
    models: Mapping[str, Any]
    seq: int
    note: str | None  # the task file changed since
    blind: str | None  # why the plan cannot continue, if it cannot


def _play_on_headless(f: _Fork, as_json: bool) -> None:
    """Play the fork on without the workbench, and say how it ended."""
    from sttui.controllers.registry import make_agent, make_user
    from sttui.running.recording import recorded_settings
    from sttui.running.recording import resume as resume_episode

    agent_c = make_agent(f.agent, f.loaded, f.record.seed, f.models, f.store, recorded_settings(f.events))
    user_c = make_user(f.user, f.models, seed=f.record.seed) if f.user else None
    rebuilt, result = asyncio.run(resume_episode(f.store, f.new, agent_c, user_c, loaded=f.loaded))
    if result is None:  # (checked above, so only a store that changed under us)
        _fail(f"cannot fork {f.record.id}: {rebuilt.mismatch}")
    assert result is not None
    out = {
        "episode": f.new.id,
        "forked_from": {"episode": f.record.id, "seq": f.seq},
        "step": f.point.step,
        "replayed_actions": f.point.actions,
        "task_version": f.record.task_hash,
        "task_changed": f.note is not None,
        "plan_cannot_continue": f.blind,
        **result.as_dict(),
    }
    if as_json:
        echo_json(out)
        return
    click.echo(
        f"forked {f.record.id} at row {f.seq} (step {f.point.step}, {f.point.actions} actions replayed, state hashes "
        f"match the record) as {f.new.id}"
    )
    outcome = "pass" if result.passed else ("fail" if result.passed is False else "-")
    click.echo(f"finished: {outcome} in {result.steps} steps ({result.end_reason})")


def _plan_cannot_continue(
    loaded: Any, agent_spec: str, point: Any, models: Mapping[str, ModelAlias], store: Any, seed: int
) -> str | None:
    """What to say before a fixed-plan baseline (oracle, naive) takes the agent seat of a fork it
    cannot continue: it resumes by position, so after anyone else's steps it plays the rest of
    its plan blind, and a failure then is the plan's, not the episode's."""
    from sttui.controllers.registry import make_agent
    from sttui.core.replaying import actions_of
    from sttui.running.session import is_human

    if is_human(agent_spec):
        return None
    check = getattr(make_agent(agent_spec, loaded, seed, models, store), "cannot_continue", None)
    why = check([a for _, a in actions_of(loaded.kind, point.prefix)]) if check else None
    if why is None:
        return None
    return (
        f"{agent_spec} plays a fixed plan and cannot recover from this fork ({why}); it goes on with the "
        "rest of its plan as written. To see the episode recover, name a model (--agent model:M)"
    )
