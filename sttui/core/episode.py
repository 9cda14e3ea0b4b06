"""One stt episode: the protocol (one tool call per agent turn, messages, ending),
trigger activation around each call, the clock, the event stream and the agent's view.

Deterministic given the task, the seed and the actions, so an episode can always be
rebuilt from its recorded actions.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from sttui.core import events as ev
from sttui.core import state as st
from sttui.core.actions import Action, EndEpisode, Reply, Satisfied, Say, ToolCall
from sttui.core.env import Environment, Result
from sttui.core.problems import did_you_mean
from sttui.core.review.operators import Closed
from sttui.core.review.tracker import Review
from sttui.core.schema import check_args
from sttui.core.settings import DEFAULT, RunSettings, no_user_opening
from sttui.core.task import SttTask, Trigger
from sttui.core.triggers import TriggerState, activated_by_call, apply_effects

_CASCADE_LIMIT = 32


class ProtocolError(Exception):
    """An action that is not allowed now (wrong seat's turn, episode over)."""


class Episode:
    """A running stt episode. Feed it actions with :meth:`apply`; read events and views."""

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
        self.seed = task.seed if seed is None else seed
        self.env = env_cls(st.copy_state(task.initial_state), task.clock.start, self.seed)
        self.tools = env_cls.tool_specs
        self.triggers = TriggerState()
        self.events: list[ev.Event] = []
        self.listeners: list[Callable[[ev.Event], None]] = []
        self.view: list[dict[str, Any]] = []  # what the agent seat has seen, in order
        self.turn = "agent"
        self.steps = 0  # agent actions taken
        self.tool_calls = 0
        self.ended: dict[str, Any] | None = None
        self.actors = actors or {"agent": "agent", "user": "user"}
        self._minutes = task.clock.tool_minutes
        self._verify_queries = verify_queries
        self._state_json: str | None = None  # canonical JSON of the state, kept while queries run
        self._key_json: dict[str, str] = {}  # canonical JSON of each top-level key, kept while unchanged
        self._notices: list[str] = []  # announced during a call; shown after its result
        self._keep_history = keep_history
        self._dirty = False
        self.history: list[tuple[int, dict[str, Any]]] = [(0, st.copy_state(self.env.state))] if keep_history else []
        self.review = review
        self._changed_paths: list[str] = []  # state paths changed since the review last looked
        self._closed: Closed | None = None  # the call that just closed, for the review
        self._unsurfaced = False  # a trigger fired and no call has failed since

    # -- lifecycle ---------------------------------------------------------------
    def start(self) -> None:
        payload: dict[str, Any] = {"task": self.task.id, "seed": self.seed, "state_hash": self.state_hash()}
        if self.review is not None:  # how the run is reviewed, so a rebuild reviews it the same way
            payload["review"] = {"early_stop": self.review.early_stop, "stagnation": self.review.settings.stagnation}
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
            self.history[0] = (0, st.copy_state(self.env.state))
        self._dirty = False
        if self.review is not None:
            self.review.begin(self.env.state)

    @property
    def now(self) -> datetime:
        return self.env.now

    def apply(self, action: Action, actor: str | None = None) -> Result | None:
        """Apply one action from the seat whose turn it is; returns a tool's result."""
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
        elif isinstance(action, Satisfied):
            if action.text:
                self._message("user", action.text, actor)
            self.end("user", "the user is satisfied", actor)
        return None

    def end(self, by: str, reason: str, actor: str, stop: dict[str, Any] | None = None) -> None:
        if self.ended is None:
            self.ended = {"by": by, "reason": reason}
            payload = {"by": by, "reason": reason, "state_hash": self.state_hash(), "steps": self.steps}
            if stop is not None:
                payload["stop"] = stop
            self._emit(ev.EPISODE_ENDED, actor, payload)

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

    def _stop(self, signal: dict[str, Any]) -> None:
        """Early stop: the run ends here, with the reason and the step budget it saved."""
        assert self.review is not None
        self.review.stop = signal
        what = {"fatal_minefield": f"fatal minefield ({signal.get('reason', '')})"}.get(
            signal["signal"], f"no frontier progress for {signal.get('actions', 0)} actions"
        )
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
                error = f"intercepted before it ran: {fatal['reason']}"
                result = self._result(name, args, Environment.fail(error), [], actor, refused=True)
                self._closed = None
                self._stop(fatal)
                return result

        self.tool_calls += 1
        for trig in self.active_triggers:
            if self._pending(trig) and activated_by_call(trig, name, args, self.triggers, "before"):
                self._fire(trig, actor)
        trusted = spec.kind == "query" and not self._verify_queries
        # copied after any 'before' trigger, so the diff is the tool's own
        before = None if trusted else st.copy_state(self.env.state)
        error = self.triggers.blocked(name, args)
        if error is not None:
            result = Environment.fail(error)
        else:
            try:
                result = getattr(self.env, name)(**args)
            except Exception as exc:  # a bug in environment code must not kill the episode
                result = Environment.fail(f"internal error in {name}: {type(exc).__name__}: {exc}")
        try:
            self.env.now += timedelta(minutes=self._duration(name, spec.minutes))
        except OverflowError:  # bounded by the task format's limits; a defensive stop, not a crash
            result = Environment.fail("the simulated clock cannot go past the year 9999")
        diff = [] if before is None else st.diff(before, self.env.state)
        if diff:
            self._changed(diff)
        result = self._result(name, args, result, diff, actor)
        for trig in self.active_triggers:
            if self._pending(trig) and activated_by_call(trig, name, args, self.triggers, "after"):
                self._fire(trig, actor)
        self._fire_passive(actor)
        self._flush_notices()
        self._snapshot_if_changed()
        return result

    def _changed(self, diff: list[dict[str, Any]]) -> None:
        """The state changed where ``diff`` says: the canonical JSON of those top-level keys
        is recomputed when the hash is next needed, the rest is reused."""
        self._state_json = None
        for d in diff:
            self._key_json.pop(d["path"].split(".", 1)[0], None)
            self._changed_paths.append(d["path"])
        self._dirty = True

    def _snapshot_if_changed(self) -> None:
        if self._keep_history and self._dirty:
            self.history.append((self.steps, st.copy_state(self.env.state)))
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
        self, name: str, args: Any, result: Any, diff: list[dict[str, Any]], actor: str, refused: bool = False
    ) -> Result:
        if not isinstance(result, dict) or "success" not in result:
            result = Environment.fail(f"internal error in {name}: tool returned {result!r}")
        result = st.copy_state(result)  # tools may return live state; what was seen must not change later
        payload: dict[str, Any] = {"tool": name, "result": result, "state_diff": diff, "state_hash": self.state_hash()}
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
        self.view.append({"type": "tool_call", "id": call_id, "tool": name, "args": args})
        self.view.append({"type": "tool_result", "id": call_id, "tool": name, "result": result})
        self._emit(ev.TOOL_RESULT, actor, payload)
        return result

    # -- triggers ----------------------------------------------------------------
    def _pending(self, trig: Trigger) -> bool:
        return not (trig.once and trig.id in self.triggers.fired)

    def _fire(self, trig: Trigger, actor: str) -> None:
        before = st.copy_state(self.env.state)
        clock_before = self.env.now
        error = None
        try:
            apply_effects(trig, self.env, self.triggers)
        except st.PathError as exc:  # an effect on a path the run has removed: recorded, not fatal
            error = str(exc)
        diff = st.diff(before, self.env.state)  # (effects before a failing one still count)
        if diff:
            self._changed(diff)
        self.triggers.fired[trig.id] = self.triggers.fired.get(trig.id, 0) + 1
        self._unsurfaced = True
        payload: dict[str, Any] = {
            "trigger": trig.id,
            "announce": bool(trig.announce),
            "diff": diff,
            "state_hash": self.state_hash(),
        }
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
        """Fire time, call-count and state triggers until nothing more activates."""
        for _ in range(_CASCADE_LIMIT):
            fired_any = False
            for trig in self.active_triggers:
                if not self._pending(trig):
                    continue
                when = trig.when
                if when.at is not None:
                    due = self.env.now >= when.at
                elif when.after_calls is not None:
                    due = self.tool_calls >= when.after_calls
                elif when.state is not None:
                    due = when.state.evaluate(self.env.state)[0]
                else:
                    continue
                if due:
                    self._fire(trig, actor)
                    fired_any = True
            if not fired_any:
                return

    # -- messages, events, views --------------------------------------------------
    def _message(self, sender: str, text: str, actor: str) -> None:
        self.view.append({"type": "message", "from": sender, "text": text})
        self._emit(ev.MESSAGE, actor, {"from": sender, "text": text})

    def _emit(self, kind: str, actor: str, payload: dict[str, Any]) -> None:
        event = ev.Event(len(self.events) + 1, kind, actor, payload, self.env.now.isoformat())
        self.events.append(event)
        for listener in self.listeners:
            listener(event)

    def snapshot(self) -> dict[str, Any]:
        """Everything that determines what happens next: state, clock, triggers."""
        return {"state": self.env.state, "clock": self.env.now.isoformat(), "triggers": self.triggers.snapshot()}

    def state_hash(self) -> str:
        """SHA-256 over the canonical snapshot; the state's JSON is reused while it is unchanged."""
        if self._state_json is None:
            state, cache = self.env.state, self._key_json
            parts = []
            for key in sorted(state):
                text = cache.get(key)
                if text is None:
                    text = cache[key] = st.canonical(state[key])
                parts.append(f"{json.dumps(key)}:{text}")
            self._state_json = "{" + ",".join(parts) + "}"  # exactly st.canonical(state), by parts
        rest = st.canonical({"clock": self.env.now.isoformat(), "triggers": self.triggers.snapshot()})
        return hashlib.sha256(f"{self._state_json}|{rest}".encode()).hexdigest()
