"""What the review screen shows and does, for a task draft and for an episode review alike:
one row per candidate, its text for the detail pane (diff, audit or ratings, checks), and the
three decisions. Every decision and edit is saved into the record file as it is made."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sttui.drafting import episodes as ep
from sttui.drafting import tasks as td


class ReviewError(Exception):
    """A decision that cannot be made, in one line."""


class Review:
    """A record under review. Subclasses know their kind of candidate."""

    title = ""
    items_key = ""

    def __init__(self, record: dict[str, Any], path: Path):
        self.record, self.path = record, Path(path)

    @property
    def items(self) -> list[dict[str, Any]]:
        items: list[dict[str, Any]] = self.record[self.items_key]  # (as the record file holds them)
        return items

    def decision(self, i: int) -> str:
        review = self.items[i].get("review") or {}
        return str(review.get("decision", "pending"))

    def row(self, i: int) -> tuple[str, str, str, str]:
        c = self.items[i]
        where = c.get("failed_stage") or ("" if c["status"] == "passed" else (c["reasons"] or ["-"])[0].split(":")[0])
        return (c.get("id") or f"#{i}", c["status"], where or "-", self.decision(i))

    def save(self) -> None:
        td.write_record(self.path, self.record)

    def _decided(self, i: int) -> None:
        if self.decision(i) != "pending":
            raise ReviewError(f"{self.row(i)[0]} is {self.decision(i)} already")

    def reject(self, i: int) -> None:
        self._decided(i)
        self._reject(i)
        self.save()

    def accept(self, i: int) -> str:
        self._decided(i)
        try:
            path = self._accept(i)
        except td.PipelineError as exc:
            raise ReviewError(str(exc)) from None
        self.save()
        return str(path)

    def edit(self, i: int, text: str) -> None:
        self._decided(i)
        try:
            self._edit(i, text)
        except td.PipelineError as exc:
            raise ReviewError(str(exc)) from None
        self.save()

    def _reject(self, i: int) -> None:
        raise NotImplementedError

    def _accept(self, i: int) -> Path:
        raise NotImplementedError

    def _edit(self, i: int, text: str) -> None:
        raise NotImplementedError

    def text(self, i: int) -> str | None:
        raise NotImplementedError

    def detail(self, i: int) -> list[str]:
        raise NotImplementedError


class TaskReview(Review):
    items_key = "candidates"

    def __init__(self, record: dict[str, Any], path: Path, scenario: td.Scenario):
        super().__init__(record, path)
        self.scenario = scenario
        r = record
        self.title = f"Task draft of {r['scenario'].get('id')}: {r['subtype']} {r['level']}, {r['model']}"

    def text(self, i: int) -> str | None:
        return self.items[i].get("task_yaml")

    def _reject(self, i: int) -> None:
        td.reject(self.record, i)

    def _accept(self, i: int) -> Path:
        return td.accept(self.scenario, self.record, i)

    def _edit(self, i: int, text: str) -> None:
        td.recheck(self.scenario, self.record, i, text)

    def detail(self, i: int) -> list[str]:
        c = self.items[i]
        st = c["stages"]
        out = [f"{c.get('id') or '-'} (seed {c['seed']}): {c['status']}" + (" (edited)" if c.get("edited") else "")]
        out += [f"  ! {r}" for r in c["reasons"]]
        audit = st.get("audit")
        out.append("")
        if audit is None:
            out.append("audit: not run")
        else:
            out.append(f"audit: {audit.get('verdict') or audit.get('skipped') or 'no verdict'}")
            out += [f"  - {x['kind']}: {x['where']}: {x['what']}" for x in audit.get("issues", [])]
            if audit.get("of"):
                out.append(f"  (of {audit['of']})")
        check = st.get("assessment")
        out.append("")
        if check is None:
            out.append("checks: not run")
        else:
            out.append("checks: " + ("ok" if check["ok"] else "FAIL"))
            out += [f"  - {p}" for p in check["problems"]]
            out += [f"    {n}" for n in check.get("notes", [])[-3:]]
        out.append("")
        if c.get("task_yaml"):
            out.append("diff against the scenario:")
            out += td.diff_lines(self.scenario.data, c["task_yaml"])
        else:
            for stage in ("inject", "checklist"):
                if stage in st and not st[stage]["ok"]:
                    out.append(f"{stage} answer:")
                    out += st[stage]["raw"].splitlines()[:40]
        return out


class EpisodeReview(Review):
    items_key = "episodes"

    def __init__(self, record: dict[str, Any], path: Path):
        super().__init__(record, path)
        self.title = f"Episode review, {record['model']}, into {record['into']}"

    def text(self, i: int) -> str | None:
        text: str | None = self.items[i]["text"]
        return text

    def _reject(self, i: int) -> None:
        ep.reject(self.record, i)

    def _accept(self, i: int) -> Path:
        return ep.accept(self.record, i)

    def _edit(self, i: int, text: str) -> None:
        ep.recheck(self.record, i, text)

    def detail(self, i: int) -> list[str]:
        e = self.items[i]
        r = e["rating"]
        out = [f"{e['id']} ({e['file']}): {e['status']}" + (" (edited)" if e.get("edited") else "")]
        out += [f"  ! {x}" for x in e["reasons"]]
        out.append("")
        scores = ", ".join(f"{k} {v}/5" for k, v in (r.get("scores") or {}).items())
        out.append(f"model: {r.get('verdict') or 'no verdict'}" + (f" ({scores})" if scores else ""))
        out += [f"  - {x}" for x in r.get("reasons", [])]
        if r.get("of"):
            out.append(f"  (of {r['of']})")
        out.append("")
        out.append("checks: " + ("ok" if e["check"]["ok"] else "FAIL"))
        out += [f"  - {p}" for p in e["check"]["problems"]]
        out += [f"    {n}" for n in e["check"].get("notes", [])]
        out.append("")
        out.append("episode (a new file in the bundle):")
        out += [f"+{line}" for line in e["text"].splitlines()]
        return out


def open_review(
    record: dict[str, Any],
    path: Path,
    scenario: str | Path | None = None,
    domain: str | Path | None = None,
    into: str | Path | None = None,
) -> Review:
    """The review of a task draft or of an episode review. A record is data: the scenario and
    domain folder (whose environment is imported, and where accepted tasks go) or the bundle
    folder are named by the person reviewing, never taken from the record's own paths."""
    if record.get("format") == ep.FORMAT:
        if into is None:
            raise ReviewError("name the folder accepted episodes go into (--into DIR); the record's is not followed")
        record["into"] = str(into)
        return EpisodeReview(record, path)
    if scenario is None:
        raise ReviewError("name the draft's scenario (--scenario FILE); the record's paths are not followed")
    s = record["scenario"]
    try:
        read = td.read_scenario(scenario, domain)
    except td.PipelineError as exc:
        raise ReviewError(f"the scenario: {exc}") from None
    if read.data["id"] != s.get("id"):
        raise ReviewError(f"{scenario} is scenario {read.data['id']}, not the draft's {s.get('id')}")
    if read.content_hash != s.get("content_hash"):
        raise ReviewError(
            f"the scenario {scenario} (or its environment) changed since the draft; draft again to review"
        )
    return TaskReview(record, path, read)
