"""One stt episode: the protocol (one tool call per agent turn, messages, ending),
trigger activation around each call, the clock, the event stream and the agent's view.

Deterministic given the task, the seed and the actions, so an episode can always be
rebuilt from its recorded actions.
"""

from __future__ import annotations

import json
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sttui.core import events as ev
from sttui.core import state as st
from sttui.core import verdicts
from sttui.core.actions import Action, EndEpisode, GaveUp, NotSatisfied, Reply, Satisfied, Say, ToolCall
from sttui.core.env import Environment, Result
from sttui.core.problems import did_you_mean
from sttui.core.review.operators import Closed
from sttui.core.review.tracker import Review
from sttui.core.schema import check_args
from sttui.core.settings import DEFAULT, RunSettings, no_user_opening
from sttui.core.state_digest import StateDigest, opening
from sttui.core.task import SttTask, Trigger
from sttui.core.triggers import TriggerState, activated_by_call, apply_effects

_CASCADE_LIMIT = 32


@dataclass(frozen=True)
class InternalError:
    """A tool that raised during a call: the step, the tool, what the agent was told and the
    traceback's frames (innermost last)."""

    step: int
    tool: str
    message: str
    frames: list[traceback.FrameSummary]


class ProtocolError(Exception):
    """An action that is not allowed now (wrong seat's turn, episode over)."""


class Episode:
    """A running stt episode. Feed it actions with :meth:`apply`; read events and views."""

    # Whole on purpose: an episode's whole state is set here, in one place, so every field a
    # step reads is visible at once.
    def __init__(
        self,
        task: SttTask,
        env_cls: type[Environment],
        seed: int | None = None,
        actors: dict[str, str] | None = None,
        verify_queries: bool = False,
        keep_history: bool = False,
        review: Review | None = None,
        settings: RunSettings = DEFAULT,
    ):
        """``verify_queries`` diffs around query tools too (``sttui check`` does, to prove they
        change nothing); otherwise queries are trusted and skip the copy and the diff.
        ``keep_history`` keeps a snapshot of the state after every step that changed it, so a
        diff is available between any two steps (replay and the god view use it).
        ``review`` follows the milestone graph as actions close (and, under early stop, ends
        the run on a stop signal); its events go into the same stream, never into the view.
        ``settings`` holds the papers' ablations: ``static`` turns the triggers off, ``no_user``
        leaves the user seat empty (messages to the user get no answer; the turn stays here)."""
        self.task = task
        self.settings = settings
        self.active_triggers: list[Trigger] = [] if settings.static else list(task.triggers)
        # the same, sorted by what activates them (each list in the task's order)
        self._by_tool: dict[str, list[Trigger]] = {}
        self._passive: list[Trigger] = []
        for trig in self.active_triggers:
            if trig.when.tool is not None:
                self._by_tool.setdefault(trig.when.tool, []).append(trig)
            else:
                self._passive.append(trig)
        self._state_version = 0  # bumped whenever the state is seen to change
        # top-level key -> the state version its value last changed at (absent: never), so a
        # reader that looks under some keys only can keep what it read under the others
        self._key_versions: dict[Any, int] = {}
        self._false_at: dict[int, int] = {}  # state trigger -> the state version it was last false at
        self.seed = task.seed if seed is None else seed
        self.env = env_cls(st.copy_state(task.initial_state), task.clock.start, self.seed)
        # a private copy of the state as it was when last compared: an operation is diffed
        # against it (no copy of the whole state before each call), and its values are replaced,
        # never mutated, so history snapshots share them
        start = opening(task)
        # whether the state began as the task's initial state (a top-level key the engine has
        # seen no change under still holds its initial value)
        self._from_initial = self.env.state == start.state
        if self._from_initial:  # (an environment may set up more in __init__)
            self._shadow: dict[str, Any] = dict(start.state)
            self._hashing = StateDigest(start)
        else:
            self._shadow = st.copy_state(self.env.state)
            self._hashing = StateDigest()
        self.tools = env_cls.tool_specs
        self.triggers = TriggerState()
        self.events: list[ev.Event] = []
        self.keep_events = True  # False: events go to the listeners only (a rebuild that compares as it goes)
        # False: events carry no ``state_hash`` (an in-process episode nobody records, where
        # hashing the changed state after every step was the engine's largest cost of its own);
        # :meth:`state_hash` still answers when asked
        self.hashes = True
        self._emitted = 0
        self.listeners: list[Callable[[ev.Event], object]] = []  # what a listener returns is ignored
        self.lineage: str | None = None  # the episode this one was forked from (``recording.rebuild``)
        self.view: list[dict[str, Any]] = []  # what the agent seat has seen, in order (append-only)
        self.messages: list[dict[str, Any]] = []  # the view's messages, in order (append-only)
        self.calls: list[dict[str, Any]] = []  # the view's tool calls, in order (append-only)
        self.turn = "agent"
        self.steps = 0  # agent actions taken
        self.tool_calls = 0
        self.ended: dict[str, Any] | None = None
        self.user_verdict: dict[str, Any] | None = None  # what the user seat concluded (core.verdicts)
        self.actors = actors or {"agent": "agent", "user": "user"}
        self._minutes = task.clock.tool_minutes
        self._verify_queries = verify_queries
        self._iso: tuple[Any, str] = (None, "")  # the clock and its ISO text, for events
        self._triggers_json: tuple[int, str] | None = None  # (trigger version, canonical JSON of their snapshot)
        self._notices: list[str] = []  # announced during a call; shown after its result
        self._keep_history = keep_history
        self._dirty = False
        # snapshots share the shadow's values (replaced on change, never mutated): a step that
        # changes one key costs one key, not a copy of the whole state
        self.history: list[tuple[int, dict[str, Any]]] = [(0, dict(self._shadow))] if keep_history else []
        self.review = review
        self._changed_paths: list[str] = []  # state paths changed since the review last looked
        self._closed: Closed | None = None  # the call that just closed, for the review
        self._unsurfaced = False  # a trigger fired and no call has failed since
        # tools that raised, with where (the agent sees only "internal error in …"; ``sttui
        # check`` names the line of the environment module)
        self.internal_errors: list[InternalError] = []

    # -- lifecycle ---------------------------------------------------------------
    def start(self) -> None:
        payload: dict[str, Any] = {"task": self.task.id, "seed": self.seed}
        if self.hashes:
            payload["state_hash"] = self.state_hash()
        if self.review is not None:  # how the run is reviewed, so a rebuild reviews it the same way
            payload["review"] = {"early_stop": self.review.early_stop, "stagnation": self.review.settings.stagnation}
            if self.review.low_quality is not None:
                lq = self.review.low_quality
                payload["review"]["low_quality"] = [lq.n, lq.threshold] + (
                    ["judged"] if self.review.external_scores else []
                )
        if not self.settings.is_default:  # so is the setting it ran under
            payload["settings"] = self.settings.as_dict()
        self._emit(ev.EPISODE_STARTED, "system", payload)
        self._fire_passive("system")
        opening = self.task.query
        if self.settings.no_user:
            user = self.task.user
            opening = no_user_opening(self.task.query, user.goal, user.withheld_values)
        self._message("user", opening, self.actors["user"])
        self._flush_notices()
        if self._keep_history and self._dirty:  # triggers due at the start changed the opening state
            self.history[0] = (0, dict(self._shadow))
        self._dirty = False
        if self.review is not None:
            self.review.begin(self.env.state)

    @property
    def now(self) -> datetime:
        return self.env.now

    def apply(self, action: Action, actor: str | None = None, *, result: bool = True) -> Result | None:
        """Apply one action from the seat whose turn it is; returns a tool's result (the caller's
        own copy). ``result=False``: the caller reads none (the runner), so none is copied."""
        got = self._apply(action, actor)
        return st.copy_state(got) if result and got is not None else None

    def _apply(self, action: Action, actor: str | None) -> Result | None:
        if self.ended is not None:
            raise ProtocolError("the episode has ended")
        if isinstance(action, ToolCall | Say | EndEpisode):
            if self.turn != "agent":
                raise ProtocolError("it is the user's turn")
            actor = actor or self.actors["agent"]
            self.steps += 1
            if isinstance(action, ToolCall):
                result = self._call(action.tool, action.args, actor)
                closed = self._closed
            elif isinstance(action, Say):
                self._message("agent", action.text, actor)
                self.turn = "agent" if self.settings.no_user else "user"
                result, closed = None, Closed(self.steps, "message", text=action.text)
            else:
                self._review_closed(Closed(self.steps, "end", text=action.reason))
                self.end("agent", action.reason, actor)
                return None
            if closed is not None:
                self._review_closed(closed)
            if self.ended is None and self.steps >= self.task.max_steps:
                self.end("limit", f"step limit of {self.task.max_steps} reached", "system")
            return result
        if self.turn != "user":
            raise ProtocolError("it is the agent's turn")
        actor = actor or self.actors["user"]
        if isinstance(action, Reply):
            self._message("user", action.text, actor)
            self.turn = "agent"
        elif isinstance(action, Satisfied | NotSatisfied | GaveUp):
            if action.text:
                self._message("user", action.text, actor)
            verdict = verdicts.of_action(action, actor)
            self.end("user", verdicts.end_reason(verdict), actor, user_verdict=verdict)
        return None

    def end(
        self,
        by: str,
        reason: str,
        actor: str,
        stop: dict[str, Any] | None = None,
        user_verdict: dict[str, Any] | None = None,
    ) -> None:
        """``user_verdict``: what the user seat concluded when it is the one ending (§ verdicts)."""
        if self.ended is None:
            self.ended = {"by": by, "reason": reason}
            payload: dict[str, Any] = {"by": by, "reason": reason}
            if self.hashes:
                payload["state_hash"] = self.state_hash()
            payload["steps"] = self.steps
            if stop is not None:
                payload["stop"] = stop
            if user_verdict is not None:
                payload["user_verdict"] = self.user_verdict = user_verdict
            self._emit(ev.EPISODE_ENDED, actor, payload)

    def pass_time(self, until: datetime) -> None:
        """Move the clock on to ``until`` with no action and fire what falls due (time and then
        state triggers): the world going on after the last call. Not part of the protocol (no
        agent can wait without a tool); ``sttui check`` uses it to judge a state once every
        scheduled change has happened."""
        if until > self.env.now:
            self.env.now = until
        self._fire_passive("system")

    def give_user_verdict(self, verdict: dict[str, Any]) -> None:
        """The user seat's verdict on an episode it did not end (a scripted user's, once the agent
        or the step limit ended it): recorded as a ``user_verdict`` event, outside the engine's
        own events (a rebuild replays actions, and this is none)."""
        if self.ended is None or self.user_verdict is not None:
            raise ProtocolError("a user verdict is given once, after the episode has ended")
        self.user_verdict = verdict
        self._emit(verdicts.EVENT, verdict["by"], dict(verdict))

    # -- review ------------------------------------------------------------------
    def _review_closed(self, closed: Closed) -> None:
        review = self.review
        if review is None or self.ended is not None:
            return
        changed, self._changed_paths = self._changed_paths, []
        for kind, payload in review.close(closed, self.env.state, changed):
            self._emit(kind, "review", payload)
        stop = review.stopping()
        if stop is not None and closed.kind != "end":  # an ending run saves nothing by stopping
            self._stop(stop)

    def review_signal(self, signal: dict[str, Any]) -> None:
        """A signal raised outside the action clock (a stage judged after it closed): recorded,
        and under early stop it ends the run before the next action is asked for."""
        if self.review is None or self.ended is not None:
            return
        self._emit(ev.STOP_SIGNAL, "review", signal)
        if self.review.stopping() is signal:
            self._stop(signal)

    def _stop(self, signal: dict[str, Any]) -> None:
        """Early stop: the run ends here, with the reason and the step budget it saved."""
        assert self.review is not None
        self.review.stop = signal
        what = {
            "fatal_minefield": f"fatal minefield ({signal.get('reason', '')})",
            "low_quality": f"{signal.get('n')} consecutive stages scored below {signal.get('threshold')}",
        }.get(signal["signal"], f"no frontier progress for {signal.get('actions', 0)} actions")
        stop = {"signal": signal["signal"], "step": signal["step"], "steps_saved": self.task.max_steps - self.steps}
        self.end("review", f"early stop: {what}", "review", stop)

    # -- tool calls --------------------------------------------------------------
    def _call(self, name: str, args: Any, actor: str) -> Result:
        self._emit(ev.TOOL_CALL, actor, {"tool": name, "args": args})
        spec = self.tools.get(name)
        if spec is None:
            result = Environment.fail(
                f"unknown tool '{name}'{did_you_mean(name, self.tools)}; available: {', '.join(self.tools)}"
            )
            return self._result(name, args, result, [], actor, refused=True)
        problem = check_args(args, spec.parameters, name)
        if problem:
            return self._result(name, args, Environment.fail(problem), [], actor, refused=True)

        if self.review is not None:
            signals = self.review.screen(self.steps, name, args, self.env.state)
            for signal in signals:
                self._emit(ev.STOP_SIGNAL, "review", signal)
            fatal = self.review.intercepts(signals)
            if fatal is not None:  # strict: the call never runs
                intercepted = Environment.fail(f"intercepted before it ran: {fatal['reason']}")
                result = self._result(name, args, intercepted, [], actor, refused=True)
                self._closed = None
                self._stop(fatal)
                return result

        self.tool_calls += 1
        for trig in self._by_tool.get(name, ()):
            if self._pending(trig) and activated_by_call(trig, name, args, self.triggers, "before"):
                self._fire(trig, actor)
        trusted = spec.kind == "query" and not self._verify_queries
        # the shadow is current here (any 'before' trigger synced it), so the diff is the tool's own
        error = self.triggers.blocked(name, args)
        if error is not None:
            result = Environment.fail(error)
        else:
            try:
                result = getattr(self.env, name)(**args)
            except Exception as exc:  # a bug in environment code must not kill the episode
                result = Environment.fail(f"internal error in {name}: {type(exc).__name__}: {exc}")
                frames = traceback.extract_tb(exc.__traceback__)
                self.internal_errors.append(InternalError(self.steps, name, result["error"], frames))
        try:
            self.env.now += timedelta(minutes=self._duration(name, spec.minutes))
        except OverflowError:  # bounded by the task format's limits; a defensive stop, not a crash
            result = Environment.fail("the simulated clock cannot go past the year 9999")
        diff = [] if trusted else self._sync()
        result = self._result(name, args, result, diff, actor)
        for trig in self._by_tool.get(name, ()):
            if self._pending(trig) and activated_by_call(trig, name, args, self.triggers, "after"):
                self._fire(trig, actor)
        self._fire_passive(actor)
        self._flush_notices()
        self._snapshot_if_changed()
        return result

    def _sync(self) -> list[dict[str, Any]]:
        """What changed since the state was last compared (the shadow is brought up to date): the
        canonical JSON of the changed top-level keys is recomputed when the hash is next needed,
        the rest is reused."""
        diff, changed = st.sync(self._shadow, self.env.state)
        if diff:
            self._hashing.changed(changed, self._shadow)
            self._changed_paths.extend(d["path"] for d in diff)
            self._dirty = True
            self._state_version += 1
            for key in changed:
                self._key_versions[key] = self._state_version
        return diff

    def _snapshot_if_changed(self) -> None:
        if self._keep_history and self._dirty:
            self.history.append((self.steps, dict(self._shadow)))
        self._dirty = False

    def state_at(self, step: int) -> dict[str, Any]:
        """The state after agent step ``step`` (0 = the start); needs ``keep_history``."""
        if not self._keep_history:
            raise ValueError("this episode keeps no history; open it with keep_history=True")
        return next(state for at, state in reversed(self.history) if at <= step)

    def diff_between(self, first: int, second: int) -> list[dict[str, Any]]:
        """What changed in the state from after step ``first`` to after step ``second``."""
        return st.diff(self.state_at(first), self.state_at(second))

    def _flush_notices(self) -> None:
        self.view.extend({"type": "notice", "text": n} for n in self._notices)
        self._notices.clear()

    def _duration(self, name: str, declared: float | None) -> float:
        if name in self._minutes:
            return self._minutes[name]
        if declared is not None:
            return declared
        return self._minutes.get("default", 5)

    def _result(
        self, name: str, args: Any, returned: Any, diff: list[dict[str, Any]], actor: str, refused: bool = False
    ) -> Result:
        if not isinstance(returned, dict) or "success" not in returned:
            returned = Environment.fail(f"internal error in {name}: tool returned {returned!r}")
            self.internal_errors.append(
                InternalError(self.steps, name, returned["error"], [])
            )  # (`sttui check` says it)
        result: Result = st.copy_state(returned)  # tools may return live state; what was seen must not change later
        payload: dict[str, Any] = {"tool": name, "result": result, "state_diff": diff}
        if self.hashes:
            payload["state_hash"] = self.state_hash()
        if refused:
            payload["refused"] = True
        spec = self.tools.get(name)
        surfaced = self._unsurfaced and not refused and not result.get("success", False)
        if surfaced:
            self._unsurfaced = False
        self._closed = Closed(
            self.steps,
            "call",
            name,
            args if isinstance(args, dict) else {},
            result,
            tool_kind=spec.kind if spec else None,
            changed=bool(diff),
            surfaced=surfaced,
        )
        call_id = f"call_{self.steps}"
        call = {"type": "tool_call", "id": call_id, "tool": name, "args": args}
        self.view.append(call)
        self.calls.append(call)
        self.view.append({"type": "tool_result", "id": call_id, "tool": name, "result": result})
        self._emit(ev.TOOL_RESULT, actor, payload)
        return result  # the recorded result: ``apply`` gives its caller a copy

    # -- triggers ----------------------------------------------------------------
    def _pending(self, trig: Trigger) -> bool:
        return not (trig.once and trig.id in self.triggers.fired)

    def _fire(self, trig: Trigger, actor: str) -> None:
        clock_before = self.env.now
        error = None
        try:
            apply_effects(trig, self.env, self.triggers)
        except st.PathError as exc:  # an effect on a path the run has removed: recorded, not fatal
            error = str(exc)
        diff = self._sync()  # (effects before a failing one still count)
        self.triggers.fired[trig.id] = self.triggers.fired.get(trig.id, 0) + 1
        self.triggers.version += 1
        self._unsurfaced = True
        payload: dict[str, Any] = {
            "trigger": trig.id,
            "announce": bool(trig.announce),
            "diff": diff,
        }
        if self.hashes:
            payload["state_hash"] = self.state_hash()
        if error:
            payload["error"] = error
        if self.env.now != clock_before:
            payload["clock"] = {"old": clock_before.isoformat(), "new": self.env.now.isoformat()}
        if trig.announce:
            notice = trig.announce if isinstance(trig.announce, str) else (trig.description or trig.id)
            payload["notice"] = notice
            self._notices.append(notice)
        self._emit(ev.TRIGGER_FIRED, "environment", payload)

    def _fire_passive(self, actor: str) -> None:
        """Fire time, call-count and state triggers until nothing more activates. A state
        trigger found false is not evaluated again until the state changes."""
        if not self._passive:
            return
        for _ in range(_CASCADE_LIMIT):
            fired_any = False
            for trig in self._passive:
                if not self._pending(trig):
                    continue
                when = trig.when
                if when.at is not None:
                    due = self.env.now >= when.at
                elif when.after_calls is not None:
                    due = self.tool_calls >= when.after_calls
                elif when.state is not None:
                    if self._false_at.get(id(trig)) == self._state_version:
                        continue
                    due = when.state.evaluate(self.env.state)[0]
                    if not due:
                        self._false_at[id(trig)] = self._state_version
                else:
                    continue
                if due:
                    self._fire(trig, actor)
                    fired_any = True
            if not fired_any:
                return

    # -- messages, events, views --------------------------------------------------
    def _message(self, sender: str, text: str, actor: str) -> None:
        message = {"type": "message", "from": sender, "text": text}
        self.view.append(message)
        self.messages.append(message)
        self._emit(ev.MESSAGE, actor, {"from": sender, "text": text})

    def _emit(self, kind: str, actor: str, payload: dict[str, Any]) -> None:
        now = self.env.now
        if now != self._iso[0]:  # the same clock stamps several events of a step
            self._iso = (now, now.isoformat())
        self._emitted += 1
        event = ev.Event(self._emitted, kind, actor, payload, self._iso[1])
        if self.keep_events:
            self.events.append(event)
        for listener in self.listeners:
            listener(event)

    def snapshot(self) -> dict[str, Any]:
        """Everything that determines what happens next: state, clock, triggers."""
        return {"state": self.env.state, "clock": self.env.now.isoformat(), "triggers": self.triggers.snapshot()}

    def state_hash(self) -> str:
        """SHA-256 over the canonical snapshot: the state's JSON is reused while it is unchanged
        (and so is the digest of it, which is copied and finished with the rest), and so is the
        JSON of the clock and triggers while neither changed."""
        version = self.triggers.version
        if self._triggers_json is None or self._triggers_json[0] != version:
            self._triggers_json = (version, st.canonical(self.triggers.snapshot()))
        # exactly st.canonical({"clock": ..., "triggers": ...}): sorted keys, no spaces
        rest = f'{{"clock":{json.dumps(self.env.now.isoformat())},"triggers":{self._triggers_json[1]}}}'
        digest = self._hashing.digest(self.env.state).copy()
        digest.update(rest.encode())
        return digest.hexdigest()
