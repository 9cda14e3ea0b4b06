"""`sttui fork EP --at N`: take over a recorded episode from one of its rows (see sttui.forking)."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
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
    from sttui.config import ConfigError, human_name, load_config
    from sttui.controllers.registry import ControllerSpecError, make_agent, make_user
    from sttui.forking import BadRow, ForkProblem, fork_point, write_fork
    from sttui.recording import recorded_settings
    from sttui.recording import resume as resume_episode
    from sttui.session import PlanProblem, PlayPlan, is_human
    from sttui.store.db import StoreError
    from sttui.versions import VersionProblem, open_version

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
    has_user = loaded.kind == "stt"
    if headless:
        if is_human(agent) or is_human(user):
            _fail("--headless plays the rest without a person; name a model or a baseline", 2)
        agent_spec = agent or record.agent
        user_spec = (user or record.user) if has_user else None
        if is_human(agent_spec) or is_human(user_spec):
            _fail(f"the recorded {'agent' if is_human(agent_spec) else 'user'} is a person: name --agent/--user", 2)
    else:
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
    try:  # every controller checked before anything is written
        for spec in (agent_spec, user_spec):
            if spec is not None and not is_human(spec):
                if spec is agent_spec:
                    make_agent(spec, loaded, record.seed, models, store)
                else:
                    make_user(spec, models, seed=record.seed)
    except ControllerSpecError as exc:
        _fail(str(exc), 2)
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
    agent_c = make_agent(agent_spec, loaded, record.seed, models, store, recorded_settings(events))
    user_c = make_user(user_spec, models, seed=record.seed) if user_spec else None
    rebuilt, result = asyncio.run(resume_episode(store, new, agent_c, user_c, loaded=loaded))
    if result is None:  # (checked above, so only a store that changed under us)
        _fail(f"cannot fork {record.id}: {rebuilt.mismatch}")
    assert result is not None
    out = {
        "episode": new.id,
        "forked_from": {"episode": record.id, "seq": seq},
        "step": point.step,
        "replayed_actions": point.actions,
        "task_version": record.task_hash,
        "task_changed": note is not None,
        "plan_cannot_continue": blind,
        **result.as_dict(),
    }
    if as_json:
        echo_json(out)
        return
    click.echo(
        f"forked {record.id} at row {seq} (step {point.step}, {point.actions} actions replayed, state hashes "
        f"match the record) as {new.id}"
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
    from sttui.session import is_human

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
