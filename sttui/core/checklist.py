"""Judging an episode: the checklist on the final state, and judges for impossible tasks."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, Protocol

from sttui.core import events as ev

if TYPE_CHECKING:
    from sttui.core.episode import Episode

DEFAULT_PHRASES = (
    "cannot",
    "can't",
    "can not",
    "unable",
    "not possible",
    "impossible",
    "infeasible",
    "no way to",
    "won't be able",
    "not be able",
)


@dataclass(frozen=True)
class ItemResult:
    id: str
    passed: bool
    detail: str

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def evaluate_checklist(episode: Episode) -> list[ItemResult]:
    """Each checklist item against the episode's current state."""
    out: list[ItemResult] = []
    for item in episode.task.checklist:
        if item.expect is not None:
            ok, actual = item.expect.evaluate(episode.env.state)
            detail = f"{item.expect.describe()}: actual {actual!r}"
        else:
            try:
                got = getattr(episode.env, item.check)(**item.args)  # type: ignore[arg-type]
            except Exception as exc:  # a check that crashes is a failed check, with the reason
                got = (False, f"check raised {type(exc).__name__}: {exc}")
            ok, detail = (bool(got[0]), str(got[1])) if isinstance(got, tuple) else (bool(got), "")
            detail = f"{item.check}(): {detail}" if detail else f"{item.check}()"
        out.append(ItemResult(item.id, ok, detail))
    return out


class Judge(Protocol):
    """Decides the two-item checklist of an impossible task from the episode record."""

    name: str

    def judge(self, episode: Episode) -> list[ItemResult]: ...


class RuleJudge:
    """The transparent default: every rule it applies is in the detail of each item.

    - ``recognised_infeasibility``: every trigger fired (the agent met the conflict), and
      an agent message after that names at least one of the task's ``judge.evidence`` terms.
    - ``informed_user``: an agent message after the last trigger fired uses an
      infeasibility phrase (``judge.phrases`` or a default list).
    """

    name = "rule"

    def judge(self, episode: Episode) -> list[ItemResult]:
        task = episode.task
        assert task.judge is not None
        phrases = [p.lower() for p in (task.judge.phrases or DEFAULT_PHRASES)]
        evidence = [e.lower() for e in task.judge.evidence]
        fired_at: dict[str, int] = {}
        messages: list[tuple[int, str]] = []
        for event in episode.events:
            if event.type == ev.TRIGGER_FIRED:
                fired_at.setdefault(event.payload["trigger"], event.seq)
            elif event.type == ev.MESSAGE and event.payload["from"] == "agent":
                messages.append((event.seq, event.payload["text"]))
        missing = [t.id for t in task.triggers if t.id not in fired_at]
        last = max(fired_at.values(), default=0)
        later = [text.lower() for seq, text in messages if seq > last]
        named = sorted({e for e in evidence for text in later if e in text})
        told = sorted({p for p in phrases for text in later if p in text})
        if missing:
            recog = ItemResult(
                "recognised_infeasibility", False, f"the agent never met trigger(s) {', '.join(missing)}"
            )
        elif not named:
            recog = ItemResult(
                "recognised_infeasibility",
                False,
                "no message after the conflict names its cause (" + ", ".join(evidence) + ")",
            )
        else:
            recog = ItemResult("recognised_infeasibility", True, "named: " + ", ".join(named))
        if told:
            inform = ItemResult("informed_user", True, "said: " + ", ".join(told))
        else:
            inform = ItemResult(
                "informed_user", False, "no message after the conflict tells the user it cannot be done"
            )
        return [recog, inform]


class HumanJudge:
    """A person decides each item: ``ask(episode, item_id, question) -> (passed, note)`` shows
    them the episode (the TUI, or the terminal for ``sttui run --judge human``) and asks."""

    name = "human"
    QUESTIONS = {
        "recognised_infeasibility": "Did the agent recognise that the task cannot be completed, and why?",
        "informed_user": "Did the agent clearly tell the user that it cannot be done?",
    }

    def __init__(self, ask: Any):
        self.ask = ask

    def judge(self, episode: Episode) -> list[ItemResult]:
        out = []
        for item_id, question in self.QUESTIONS.items():
            passed, note = self.ask(episode, item_id, question)
            out.append(ItemResult(item_id, bool(passed), f"human: {note}" if note else "human"))
        return out


@dataclass(frozen=True)
class Outcome:
    passed: bool
    items: list[ItemResult]
    judged_by: str  # 'checklist' or the judge's name

    def as_dict(self) -> dict[str, Any]:
        return {"passed": self.passed, "judged_by": self.judged_by, "items": [i.as_dict() for i in self.items]}


def score(episode: Episode, judge: Judge | None = None) -> Outcome:
    """The episode's outcome: the checklist, or the judge's two items on impossible tasks."""
    if episode.task.level == "impossible":
        judge = judge or RuleJudge()
        items = judge.judge(episode)
        return Outcome(all(i.passed for i in items), items, judge.name)
    items = evaluate_checklist(episode)
    return Outcome(all(i.passed for i in items), items, "checklist")
