"""Models in the seats, through litellm: the agent (stt and explore), the user simulator,
and the judge of impossible tasks.

litellm is imported lazily, with LITELLM_LOCAL_MODEL_COST_MAP=True set first: its import is
slow and would otherwise reach for the network. Keys come only from the environment
(OPENAI_API_KEY, OPENAI_BASE_URL / OPENAI_API_BASE, ANTHROPIC_API_KEY, ...), as litellm reads them.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import re
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from sttui.config import ModelAlias
from sttui.core.actions import Action, Assess, EndEpisode, Probe, Reply, Satisfied, Say, SubmitBatch, ToolCall
from sttui.core.callsyntax import MAX_NESTING, nesting
from sttui.core.chat import EXPLORE_TOOLS, openai_messages
from sttui.core.checklist import ItemResult
from sttui.core.env import ToolSpec
from sttui.core.storable import storable, text_problem
from sttui.prompts import prompt
from sttui.store.secrets import scrub_text

PROTOCOL_REPAIRS = 3  # answers that break the protocol, sent back with the reason, per turn
DONE_MARK = "[DONE]"

END_TOOL = {
    "type": "function",
    "function": {
        "name": "end_episode",
        "description": "End the episode when the work is finished or cannot go on.",
        "parameters": {"type": "object", "properties": {"reason": {"type": "string"}}, "additionalProperties": False},
    },
}


class ModelFailure(Exception):
    """The model could not give a valid action: retries exhausted or the protocol kept breaking."""


@dataclass(frozen=True)
class ModelConfig(ModelAlias):
    """How to reach one model: a config alias's fields (or a bare model string's defaults), the
    alias it came by, and the trial's sampling seed."""

    alias: str | None = None
    seed: int | None = None  # the trial's seed, sent as the sampling seed where the provider takes one

    @property
    def label(self) -> str:
        return self.alias or self.model


def resolve_model(name: str, models: Mapping[str, ModelAlias] | None = None) -> ModelConfig:
    """``name`` is an alias from the config's ``models`` section, or a litellm model string."""
    entry = (models or {}).get(name)
    if entry is None:
        return ModelConfig(model=name)
    return ModelConfig(alias=name, **asdict(entry))


_LITELLM: Any = None  # the module once imported and set up
_LITELLM_LOCK = threading.Lock()


def litellm_module() -> Any:
    """litellm, imported on first use (seconds: call it off the event loop, see ``litellm_async``)."""
    global _LITELLM
    if _LITELLM is not None:
        return _LITELLM
    with _LITELLM_LOCK:
        if _LITELLM is None:
            os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
            import litellm

            litellm.suppress_debug_info = True
            _scrub_logs()
            _LITELLM = litellm
    return _LITELLM


def preload_litellm() -> None:
    """Import litellm and warm it up with a mock call (no request leaves the process), so the
    first real call does not pay for the imports litellm leaves until then (~0.3-1 s more).
    Meant for a thread, ahead of the first call; a failing warm-up is left to the real call."""
    litellm = litellm_module()
    with contextlib.suppress(Exception):
        litellm.completion(
            model="openai/warm-up", messages=[{"role": "user", "content": "-"}], mock_response="-", num_retries=0
        )


def litellm_ready() -> bool:
    return _LITELLM is not None


async def litellm_async() -> Any:
    """litellm for a coroutine: imported in a thread the first time, so an event loop (the
    workbench's) keeps running meanwhile; a preload already under way is waited for, not repeated."""
    if _LITELLM is not None:
        return _LITELLM
    return await asyncio.to_thread(litellm_module)


_LOGS_SCRUBBED = False


def _scrub_logs() -> None:
    """litellm logs through its own stderr handlers (verbosely with LITELLM_LOG=DEBUG, headers
    included): every record they write is scrubbed of keys first."""
    global _LOGS_SCRUBBED
    if _LOGS_SCRUBBED:
        return
    import logging

    from sttui.store.secrets import SecretFilter

    scrubber = SecretFilter()
    for name in ("LiteLLM", "LiteLLM Router", "LiteLLM Proxy", "litellm"):
        logger = logging.getLogger(name)
        logger.addFilter(scrubber)
        for handler in logger.handlers:
            handler.addFilter(scrubber)
    _LOGS_SCRUBBED = True


@dataclass
class Usage:
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float | None = None
    retries: int = 0

    def add(self, usage: dict[str, Any], cost: float | None) -> None:
        self.calls += 1
        self.prompt_tokens += int(usage.get("prompt_tokens") or 0)
        self.completion_tokens += int(usage.get("completion_tokens") or 0)
        if cost is not None:
            self.cost = (self.cost or 0.0) + cost


@dataclass
class ModelClient:
    """One model, called with bounded retries and exponential backoff on transient faults."""

    config: ModelConfig
    usage: Usage = field(default_factory=Usage)
    record: Callable[[str, dict[str, Any]], None] | None = None
    _priced: bool | None = None

    in_flight_since: float | None = None  # time.monotonic() when the call under way began

    async def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None) -> dict[str, Any]:
        self.in_flight_since = time.monotonic()
        try:
            return await self._complete(messages, tools)
        finally:
            self.in_flight_since = None

    async def _complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None) -> dict[str, Any]:
        litellm = await litellm_async()
        transient = (
            litellm.Timeout,
            litellm.RateLimitError,
            litellm.InternalServerError,
            litellm.ServiceUnavailableError,
            litellm.APIConnectionError,
            litellm.BadGatewayError,
        )
        kwargs: dict[str, Any] = {
            "model": self.config.model,
            "messages": messages,
            "timeout": self.config.timeout,
            "num_retries": 0,
        }
        if tools:
            kwargs["tools"] = tools
        for key in ("api_base", "temperature", "max_tokens", "seed"):
            value = getattr(self.config, key)
            if value is not None:
                kwargs[key] = value
        if self.config.seed is not None:
            kwargs["drop_params"] = True  # a provider without sampling seeds gets the call without one
        delay = self.config.backoff
        for attempt in range(self.config.retries + 1):
            started = time.perf_counter()
            try:
                response = await litellm.acompletion(**kwargs)
            except transient as exc:
                reason = _reason(exc)
                self._note("model_fault", {"attempt": attempt + 1, "error": reason})
                if _missing_credentials(exc):  # litellm calls this a server error; no retry mends it
                    raise ModelFailure(
                        f"{self.config.label}: no credentials for this provider ({reason}); set its API key "
                        "in the environment (e.g. OPENAI_API_KEY)"
                    ) from None
                if attempt == self.config.retries:
                    raise ModelFailure(f"{self.config.label} failed after {attempt + 1} attempts: {reason}") from None
                self.usage.retries += 1
                await asyncio.sleep(_wait(delay, exc))
                delay *= 2
                continue
            except Exception as exc:  # bad request, authentication, not found, ...: retrying will not help
                raise ModelFailure(f"{self.config.label}: {_reason(exc)}") from None
            choices = getattr(response, "choices", None) or []
            if not choices:
                raise ModelFailure(f"{self.config.label}: the provider answered with no choices")
            message = _capped(choices[0].message.model_dump())
            usage = (response.usage.model_dump() if getattr(response, "usage", None) else {}) or {}
            cost = self._cost(litellm, response)
            self.usage.add(usage, cost)
            self._note(
                "model_call",
                {
                    "model": self.config.label,
                    "prompt_tokens": usage.get("prompt_tokens"),
                    "completion_tokens": usage.get("completion_tokens"),
                    "cost": cost,
                    "seconds": round(time.perf_counter() - started, 4),
                },
            )
            return message
        raise ModelFailure("unreachable")  # pragma: no cover

    def _cost(self, litellm: Any, response: Any) -> float | None:
        """litellm's price of the call; unknown models have none: it stays unknown, never invented.
        Looking a model up is costly, so a model found unpriced once is not looked up again."""
        hidden = getattr(response, "_hidden_params", None) or {}
        if hidden.get("response_cost") is not None:
            return float(hidden["response_cost"])
        if self._priced is False:
            return None
        try:
            cost: float = litellm.completion_cost(completion_response=response)
        except Exception:
            self._priced = False
            return None
        self._priced = True
        return cost

    def _note(self, kind: str, payload: dict[str, Any]) -> None:
        if self.record is not None:
            self.record(kind, payload)


MAX_ANSWER_CHARS = 200_000  # an answer's text and arguments; beyond this it is cut and refused

MAX_RETRY_AFTER = 120.0  # seconds: a provider asking for longer is treated as down


def too_long(size: int) -> str:
    """The refusal of an answer over ``MAX_ANSWER_CHARS`` (a model's, or a bridge client's message)."""
    return (
        f"Your answer was {size:,} characters long; answers are limited to {MAX_ANSWER_CHARS:,}. Nothing was executed."
    )


_NO_CREDENTIALS = ("missing credentials", "api_key client option must be set", "no api key", "api key not found")


def _missing_credentials(exc: Exception) -> bool:
    """A missing API key, which litellm reports as an InternalServerError: final, never retried."""
    text = str(exc).lower()
    return any(marker in text for marker in _NO_CREDENTIALS)


# litellm puts its own traceback into some messages ("Invalid response object Traceback (most
# recent call last): File "/…/site-packages/litellm/…"); the reason is what comes before it.
_TRACEBACK = re.compile(r"Traceback \(most recent call last\)|\bFile \"[^\"]*\", line \d+")
# A local path (/home/…/x.py, C:\\…): not part of a URL (after ':' or '/') nor of a word.
_PATH = re.compile(r"(?<![\w:/.\\])(?:[A-Za-z]:)?[/\\](?:[\w.@~+-]+[/\\])+[\w.@~+-]*")


def _reason(exc: Exception) -> str:
    """The provider's reason in one line, secrets scrubbed (an echoed ``Bearer sk-…`` too),
    without a traceback or a local path that came inside the message."""
    text = str(exc)
    cut = _TRACEBACK.search(text)
    if cut:
        text = text[: cut.start()]
    text = _PATH.sub("…", text)
    text = " ".join(text.split()).rstrip(" :-") or "no reason given"
    return scrub_text(f"{type(exc).__name__}: {text[:300]}")


def _wait(delay: float, exc: Exception) -> float:
    """Backoff with jitter (so many episodes retrying at once spread out), but never sooner
    than the provider's Retry-After."""
    wait = delay * (0.5 + random.random())
    headers = getattr(getattr(exc, "response", None), "headers", None) or {}
    try:
        after = float(headers.get("retry-after") or 0)
    except (TypeError, ValueError):
        after = 0.0
    return max(wait, min(after, MAX_RETRY_AFTER))


def _capped(message: dict[str, Any]) -> dict[str, Any]:
    """The answer, its text and tool arguments cut to ``MAX_ANSWER_CHARS`` so a runaway answer
    cannot flood the record; a cut answer is marked and will be refused as unusable."""
    out = dict(message)
    content = out.get("content")
    if isinstance(content, str) and len(content) > MAX_ANSWER_CHARS:
        out["content"] = content[:MAX_ANSWER_CHARS]
        out["truncated"] = len(content)
    calls = []
    for call in out.get("tool_calls") or []:
        fn = dict(call.get("function") or {})
        args = fn.get("arguments")
        if isinstance(args, str) and len(args) > MAX_ANSWER_CHARS:
            fn["arguments"] = args[:MAX_ANSWER_CHARS]
            out["truncated"] = max(out.get("truncated", 0), len(args))
        calls.append({**call, "function": fn})
    if calls:
        out["tool_calls"] = calls[:16]
        if len(calls) > 16:
            out["truncated"] = out.get("truncated", 0) or len(calls)
    return out


def _calls(message: dict[str, Any]) -> list[dict[str, Any]]:
    return list(message.get("tool_calls") or [])


class _ModelSeat:
    """What the agent and user model controllers share: the client, the record, the debug view."""

    def __init__(self, spec: str, config: ModelConfig):
        self.name = spec if spec.startswith("model:") else f"model:{spec}"
        self.client = ModelClient(config)
        self.last_messages: list[dict[str, Any]] = []
        self.feedback: list[str] = []  # an overseer's reasons for rejecting calls, for the next request

    @property
    def record(self) -> Callable[[str, dict[str, Any]], None] | None:
        return self.client.record

    @record.setter
    def record(self, fn: Callable[[str, dict[str, Any]], None] | None) -> None:
        self.client.record = fn

    @property
    def usage(self) -> Usage:
        return self.client.usage

    @property
    def thinking_since(self) -> float | None:
        """When the model call under way began (time.monotonic()), or None."""
        return self.client.in_flight_since

    async def _ask(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None,
        parse: Callable[[dict[str, Any]], Action | str],
    ) -> Action:
        for note in self.feedback:
            messages.append({"role": "user", "content": note})
        self.feedback.clear()
        for _ in range(PROTOCOL_REPAIRS):
            self.last_messages = list(messages)
            message = await self.client.complete(messages, tools)
            outcome = parse(message) if "truncated" not in message else too_long(message["truncated"])
            if not isinstance(outcome, str):
                return outcome
            # (text no record can keep, or no request can carry, is kept as its escapes)
            kept = storable(message) if "truncated" not in message else {"truncated": message["truncated"]}
            self.client._note("model_refused", {"reason": outcome, "answer": kept})
            messages = [
                *messages,
                {k: v for k, v in kept.items() if k in ("role", "content", "tool_calls")},
                {"role": "user", "content": f"[Protocol] {outcome}"},
            ]
            answered = _calls(message)
            if "truncated" in message:  # a runaway answer is not sent back in full
                messages[-2] = {"role": "assistant", "content": "(an answer too long to keep)"}
                answered = []
            for call in answered:  # every call needs an answer before the next request
                messages.insert(
                    -1,
                    {
                        "role": "tool",
                        "tool_call_id": call["id"],
                        "content": json.dumps({"success": False, "error": "not executed: " + outcome}),
                    },
                )
        raise ModelFailure(f"{self.name} broke the protocol {PROTOCOL_REPAIRS} times in one turn: {outcome}")


class ModelAgent(_ModelSeat):
    """A model in the agent seat: same tools, same view, one call per turn."""

    def __init__(self, spec: str, config: ModelConfig, tools: dict[str, ToolSpec] | None = None):
        super().__init__(spec, config)
        self.tools = tools
        self._schemas = [s.openai_schema() for s in tools.values()] + [END_TOOL] if tools is not None else None

    async def act(self, view: Any) -> Action:
        if isinstance(view, dict):  # an explore episode's masked view
            text = json.dumps(view, ensure_ascii=False, default=str)
            messages = [{"role": "system", "content": prompt("agent_explore.md")}, {"role": "user", "content": text}]
            return await self._ask(messages, EXPLORE_TOOLS, _parse_explore)
        assert self.tools is not None
        messages = openai_messages(view.items, prompt("agent_stt.md"))
        return await self._ask(messages, self._schemas, _parse_stt)


def _one_call(message: dict[str, Any]) -> tuple[str, dict[str, Any]] | str | None:
    calls = _calls(message)
    if len(calls) > 1:
        names = ", ".join(c["function"]["name"] for c in calls)
        return f"Make exactly one tool call per turn; you made {len(calls)} ({names}). Nothing was executed."
    if not calls:
        return None
    fn = calls[0]["function"]
    deep = nesting(fn.get("arguments") or "")
    if deep > MAX_NESTING:
        return f"The arguments of {fn['name']} nest {deep} levels deep; at most {MAX_NESTING}. Nothing was executed."
    try:
        args = json.loads(fn.get("arguments") or "{}")
    except json.JSONDecodeError as exc:
        return f"The arguments of {fn['name']} are not valid JSON ({exc.msg}). Nothing was executed."
    if not isinstance(args, dict):
        return f"The arguments of {fn['name']} must be a JSON object. Nothing was executed."
    bad = text_problem(fn["name"], "the tool's name") or text_problem(args, "arguments")
    if bad is not None:
        return f"{unstorable(bad)} Nothing was executed."
    return fn["name"], args


def unstorable(problem: str) -> str:
    """The refusal of text no record can store (``core.storable``), said to the model."""
    return f"Your answer cannot be recorded: {problem}."


def _parse_stt(message: dict[str, Any]) -> Action | str:
    call = _one_call(message)
    if isinstance(call, str):
        return call
    if call is None:
        text = (message.get("content") or "").strip()
        bad = text_problem(text, "message")
        if bad is not None:
            return f"{unstorable(bad)} Nothing was sent."
        return Say(text) if text else "Reply with one tool call or a message to the user."
    name, args = call
    if name == "end_episode":
        return EndEpisode(str(args.get("reason") or "the agent ended the episode"))
    return ToolCall(name, args)


def _parse_explore(message: dict[str, Any]) -> Action | str:
    call = _one_call(message)
    if isinstance(call, str):
        return call
    if call is None:
        return "Use one of the tools: probe, submit_batch or answer_assessment."
    name, args = call
    if name == "probe":
        return Probe(args.get("cases"))  # type: ignore[arg-type]  # Probe checks its cases when applied
    if name == "submit_batch":
        return SubmitBatch(args.get("actions"))  # type: ignore[arg-type]  # checked when applied
    if name == "answer_assessment":
        return Assess(args.get("relevant") or {}, args.get("changes"))
    return f"There is no tool {name!r}; use probe, submit_batch or answer_assessment."


class ModelUser(_ModelSeat):
    """A model as the user simulator, following STT-Arena: keep to the profile, reveal withheld
    details only when asked directly, and signal completion when satisfied."""

    async def act(self, view: Any) -> Action:
        system = prompt("user_sim.md").format(
            goal=view.goal, profile=json.dumps(view.profile), withheld=json.dumps(view.withheld, default=str)
        )
        messages = [{"role": "system", "content": system}]
        for m in view.messages:  # the agent speaks to the model as "user"; its own words are "assistant"
            messages.append({"role": "assistant" if m["from"] == "user" else "user", "content": m["text"]})

        def parse(message: dict[str, Any]) -> Action | str:
            text = (message.get("content") or "").strip()
            if not text:
                return "Reply to the assistant in one short message."
            bad = text_problem(text, "message")
            if bad is not None:
                return f"{unstorable(bad)} Nothing was sent."
            if DONE_MARK in text:
                return Satisfied(text.replace(DONE_MARK, "").strip())
            return Reply(text)

        return await self._ask(messages, None, parse)


class ModelJudge:
    """The judge of impossible tasks: the two-item checklist as a JSON verdict with evidence."""

    def __init__(self, spec: str, config: ModelConfig):
        self.name = spec if spec.startswith("model:") else f"model:{spec}"
        self.client = ModelClient(config)

    def judge(self, episode: Any) -> list[ItemResult]:
        raise RuntimeError("the model judge is asynchronous; the runner awaits ajudge")

    async def ajudge(self, episode: Any) -> list[ItemResult]:
        lines = []
        for item in episode.view:
            if item["type"] == "message":
                lines.append(f"{item['from']}: {item['text']}")
            elif item["type"] == "tool_call":
                lines.append(f"agent calls {item['tool']}({json.dumps(item['args'])})")
            elif item["type"] == "tool_result":
                lines.append(f"result: {json.dumps(item['result'])[:400]}")
        reason = episode.task.judge.reason if episode.task.judge else ""
        text = prompt("judge.md").format(reason=reason, transcript="\n".join(lines))
        messages = [{"role": "user", "content": text}]
        last = ""
        for _ in range(PROTOCOL_REPAIRS):
            message = await self.client.complete(messages, None)
            last = (message.get("content") or "").strip()
            verdict = _verdict(last)
            if verdict is not None:
                return verdict
            messages = [
                *messages,
                {"role": "assistant", "content": last},
                {"role": "user", "content": "Answer with the JSON object only, as specified."},
            ]
        raise ModelFailure(f"{self.name} gave no usable verdict: {last[:200]}")


def _verdict(text: str) -> list[ItemResult] | None:
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end < start:
        return None
    try:
        data = json.loads(text[start : end + 1])
        out = []
        for key in ("recognised_infeasibility", "informed_user"):
            item = data[key]
            out.append(ItemResult(key, bool(item["passed"]), f"model: {item.get('evidence', '')}"))
        return out
    except (json.JSONDecodeError, KeyError, TypeError):
        return None
