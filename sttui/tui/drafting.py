"""Reviewing a milestone draft: the consensus beside every candidate; the author accepts, edits
or drops each milestone and minefield, the checks re-run on every change (in a worker), and
``w`` writes the accepted graph into the task file as ``sttui milestones accept`` does.

Only accepted (or edited) rules are written; an order through a dropped milestone is kept
(``consensus.restrict``). Undecided rules are left out, as dropped ones are.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, ClassVar

from pydantic import ValidationError
from textual import events, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Static

from sttui.config import Config
from sttui.core.loader import LoadedTask
from sttui.core.review import consensus as cs
from sttui.core.review.model import Milestone, Minefield
from sttui.drafting import record as rec
from sttui.tui.app import Placeholder, SttuiApp
from sttui.tui.footer import Footer
from sttui.tui.launch import Launch
from sttui.tui.modals import Confirm, EditValue
from sttui.tui.safetable import DataTable
from sttui.tui.screen import SttuiScreen

PENDING, ACCEPTED, EDITED, DROPPED = "pending", "accepted", "edited", "dropped"
NONE_ACCEPTED = "no milestone accepted yet: accept (a) or edit (e) the ones to keep, then w writes them"
EDITABLE = ("name", "description", "threshold", "constraints")  # of a milestone
MINEFIELD_EDITABLE = ("severity", "reason", "threshold", "constraints")


@dataclass
class Item:
    """One rule of the consensus under review."""

    key: str  # the row key: m:<id> or f:<index>
    kind: str  # milestone | minefield
    rule: Milestone | Minefield
    support: int
    decision: str = PENDING

    @property
    def label(self) -> str:
        return self.rule.id or f"minefield-{self.key.split(':')[1]}"


class ChecksDone(Message):
    """The checks of one version of the chosen graph (``generation``), from the worker."""

    def __init__(self, generation: int, result: dict[str, Any]):
        super().__init__()
        self.generation, self.result = generation, result


class Written(Message):
    """The outcome of writing the graph into the task file: the path, or why not."""

    def __init__(self, path: str | None, error: str | None):
        super().__init__()
        self.path, self.error = path, error


class DraftScreen(SttuiScreen[None]):
    WORKERS: ClassVar[dict[str, str]] = {
        "draft-checks": "run the checks of the graph",
        "draft-write": "write the graph into the task",
    }
    HELP_TITLE = "milestone draft"
    BINDINGS = [
        Binding("a", "accept", "Accept rule", id="drafting.accept"),
        Binding("e", "edit", "Edit rule", id="drafting.edit"),
        Binding("d", "drop", "Drop rule", id="drafting.drop"),
        Binding("u", "undecide", "Undecide rule", id="drafting.undecide"),
        Binding("w", "write", "Write into the task", id="drafting.write"),
        Binding("escape", "leave", "Leave", id="drafting.leave"),
    ]

    def __init__(self, loaded: LoadedTask, draft: dict[str, Any], draft_name: str):
        super().__init__()
        self.loaded, self.draft, self.draft_name = loaded, draft, draft_name
        milestones, minefields = rec.consensus_rules(draft)
        support = {
            (kind, v["id"]): len(v["support"])
            for kind in ("milestones", "minefields")
            for v in (draft.get("vote") or {}).get(kind, [])
            if v["kept"]
        }
        self.items = [Item(f"m:{m.id}", "milestone", m, support.get(("milestones", m.id), 0)) for m in milestones]
        self.items += [
            Item(f"f:{i}", "minefield", f, support.get(("minefields", f.id), 0)) for i, f in enumerate(minefields)
        ]
        self.generation = 0
        self.checks: dict[str, Any] | None = None
        self.checked_generation = -1
        self.written: str | None = None
        self._saved = self._decisions()  # what leaving would lose is what differs from this

    def compose(self) -> ComposeResult:
        d = self.draft
        voters = len((d.get("vote") or {}).get("voters", []))
        title = f"Draft of {d['task']['id']}: {d['method']}"
        if d.get("model"):
            title += f", {d['model']}, prompt {d['prompt_version']}, {len(d['candidates'])} candidates, {voters} voted"
        yield Static(title, id="draft-title", markup=False)  # (the draft file's words, as written)
        with Horizontal(id="draft-main"):
            yield DataTable(id="draft-items", cursor_type="row", zebra_stripes=True)
            with VerticalScroll(id="draft-side"):
                yield Static("", id="draft-rule")
                with Horizontal(id="draft-candidates"):
                    for c in d["candidates"]:
                        yield Static(self._candidate_text(c), classes="draft-candidate")
        yield Static("checks: not run yet", id="draft-checks")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one("#draft-items", DataTable)
        table.add_columns("", "id", "decision", "votes", "name")
        for item in self.items:
            table.add_row(*self._cells(item), key=item.key)
        table.focus()
        self._show_rule()
        self.changed()

    # -- what is shown ------------------------------------------------------------------

    def _cells(self, item: Item) -> tuple[str, ...]:
        name = item.rule.name if isinstance(item.rule, Milestone) else f"{item.rule.severity}: {item.rule.reason}"
        return (item.kind[:4], item.label, item.decision, str(item.support), name)

    def _candidate_text(self, c: dict[str, Any]) -> str:
        lines = [f"[b]#{c['index']}[/b] {c['status']}"]
        lines += [f"  ! {p}" for p in (c["problems"] or c["leaks"])[:3]]
        parsed = c.get("parsed") or {}
        for key in ("milestones", "minefields"):
            found = parsed.get(key)
            rules = found if isinstance(found, list) else []
            for r in rules:
                if isinstance(r, dict):
                    after = r.get("after") or []
                    lines.append(
                        f"  {key[:4]} {r.get('id', '-')}" + (f" ← {', '.join(map(str, after))}" if after else "")
                    )
        return "\n".join(lines).replace("[", "\\[").replace("\\[b]", "[b]").replace("\\[/b]", "[/b]")

    def current(self) -> Item | None:
        table = self.query_one("#draft-items", DataTable)
        if not self.items or table.cursor_row is None or table.cursor_row >= len(self.items):
            return None
        return self.items[table.cursor_row]

    def _show_rule(self) -> None:
        item = self.current()
        if item is None:
            return
        rule = item.rule
        head = rule.name if isinstance(rule, Milestone) else f"{rule.severity}: {rule.reason}"
        lines = [f"{item.kind} {item.label} ({item.decision}, {item.support} votes): {head}"]
        if isinstance(rule, Milestone):
            lines += [f"  {rule.description}"] if rule.description else []
            lines.append(f"  after: {', '.join(rule.after) or '-'}")
        lines.append(f"  threshold {rule.threshold}; constraints:")
        lines += [f"    {c.describe()}" for c in rule.constraints]
        self.query_one("#draft-rule", Static).update("\n".join(lines).replace("[", "\\["))

    def on_data_table_row_highlighted(self, _event: DataTable.RowHighlighted) -> None:
        self._show_rule()

    def _redraw(self, item: Item) -> None:
        table = self.query_one("#draft-items", DataTable)
        for col, value in zip(table.columns, self._cells(item), strict=True):
            table.update_cell(item.key, col, value)
        self._show_rule()

    # -- decisions ----------------------------------------------------------------------

    def _decide(self, decision: str) -> None:
        item = self.current()
        if item is None:
            return
        item.decision = decision
        self._redraw(item)
        self.changed()

    def action_accept(self) -> None:
        self._decide(ACCEPTED)

    def action_drop(self) -> None:
        self._decide(DROPPED)

    def action_undecide(self) -> None:
        self._decide(PENDING)

    def action_edit(self) -> None:
        item = self.current()
        if item is None:
            return
        fields = EDITABLE if item.kind == "milestone" else MINEFIELD_EDITABLE
        dumped = cs.dump_rule(item.rule)
        value = json.dumps({k: dumped[k] for k in fields if k in dumped}, ensure_ascii=False)

        def check(text: str) -> str | None:
            return _edited(item, text)[1]

        def done(text: str | None) -> None:
            if text is None:
                return
            rule, _ = _edited(item, text)
            assert rule is not None
            item.rule, item.decision = rule, EDITED
            self._redraw(item)
            self.changed()

        hint = f"JSON of {', '.join(fields)}; enter keeps it, escape cancels"
        self.app.push_screen(EditValue(f"Edit {item.kind} {item.label}", value, hint, check), done)

    def chosen(self) -> tuple[list[Milestone], list[Minefield]]:
        """The graph that ``w`` writes: accepted and edited rules, order kept through the rest."""
        milestones = [i.rule for i in self.items if isinstance(i.rule, Milestone)]
        keep = [i.rule.id for i in self.items if isinstance(i.rule, Milestone) and i.decision in (ACCEPTED, EDITED)]
        mines = [i.rule for i in self.items if isinstance(i.rule, Minefield) and i.decision in (ACCEPTED, EDITED)]
        return cs.restrict(milestones, keep), mines

    def _decisions(self) -> tuple[tuple[str, str, str], ...]:
        return tuple((i.key, i.decision, repr(i.rule) if i.decision == EDITED else "") for i in self.items)

    def changed(self) -> None:
        """A decision changed: the checks run again on the graph as it now stands."""
        self.generation += 1
        milestones, minefields = self.chosen()
        if not any(i.kind == "milestone" and i.decision in (ACCEPTED, EDITED) for i in self.items):
            # nothing to check yet: not a failed graph, and not the vote's quorum either
            self.checks, self.checked_generation = (
                {"ok": False, "problems": [NONE_ACCEPTED], "notes": []},
                self.generation,
            )
            self.query_one("#draft-checks", Static).update(f"checks: {NONE_ACCEPTED}")
            self.query_one("#draft-checks", Static).set_class(False, "failing")
            return
        self.query_one("#draft-checks", Static).update("checks: running…")
        self.run_checks(self.generation, milestones, minefields)

    @work(thread=True, exclusive=True, group="draft-checks", exit_on_error=False)
    def run_checks(self, generation: int, milestones: list[Milestone], minefields: list[Minefield]) -> None:
        try:
            result = rec.run_checks(self.loaded, milestones, minefields)
        except Exception as exc:  # a check that breaks is a failed check, never a crashed screen
            result = {"ok": False, "problems": [f"the checks failed to run: {type(exc).__name__}: {exc}"], "notes": []}
        self.post_message(ChecksDone(generation, result))

    def on_checks_done(self, message: ChecksDone) -> None:
        if message.generation != self.generation:
            return  # an older version of the graph
        self.checks, self.checked_generation = message.result, message.generation
        r = message.result
        ms, mf = self.chosen()
        head = f"checks of {len(ms)} milestone(s), {len(mf)} minefield(s): " + ("ok" if r["ok"] else "FAIL")
        lines = [head, *(f"  - {p}" for p in r["problems"]), *(f"    {n}" for n in r["notes"][:3])]
        widget = self.query_one("#draft-checks", Static)
        widget.update("\n".join(lines).replace("[", "\\["))
        widget.set_class(not r["ok"], "failing")

    # -- writing ------------------------------------------------------------------------

    def action_write(self) -> None:
        if self.checked_generation != self.generation or self.checks is None:
            self.notify("the checks are still running; write once they are done", severity="warning")
            return
        if not self.checks["ok"]:
            self.notify("the graph fails the checks; nothing written", severity="error")
            return
        self.write_graph(*self.chosen())

    @work(thread=True, exclusive=True, group="draft-write", exit_on_error=False)
    def write_graph(self, milestones: list[Milestone], minefields: list[Minefield]) -> None:
        try:
            written, _ = rec.accept(self.loaded, self.draft, milestones, minefields, self.draft_name)
        except Exception as exc:  # refused by the checks, or the task would not load: said, not raised
            self.post_message(Written(None, " ".join(str(exc).split())[:300]))
            return
        self.post_message(Written(str(written.path), None))

    def on_written(self, message: Written) -> None:
        if message.error:
            self.notify(message.error, severity="error")
            return
        self.written = message.path
        self._saved = self._decisions()
        self.notify(f"written into {message.path}")

    def action_leave(self) -> None:
        unsaved = sum(a != b for a, b in zip(self._decisions(), self._saved, strict=True))
        if not unsaved:
            self._leave()
            return

        def answered(leave: bool | None) -> None:
            if leave:
                self._leave()

        question = f"Leave and lose {unsaved} decision(s) not written into the task? (w writes them)"
        self.app.push_screen(Confirm(question, yes="Leave", no="Stay"), answered)

    def _leave(self) -> None:
        from sttui.tui.app import has_screen_below

        if has_screen_below(self.app):
            self.dismiss(None)
        else:
            self.app.exit()


def _edited(item: Item, text: str) -> tuple[Milestone | Minefield | None, str | None]:
    """The rule with the edited fields, or why the text is refused (one line). The id and the
    order (``after``) are the vote's, so they are not edited here."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        return None, f"not JSON: {exc.msg} at character {exc.pos}"
    if not isinstance(data, dict):
        return None, "expected a JSON object"
    fields = EDITABLE if item.kind == "milestone" else MINEFIELD_EDITABLE
    other = sorted(set(data) - set(fields))
    if other:
        return None, f"only {', '.join(fields)} can be edited here; not {', '.join(other)}"
    merged = {**cs.dump_rule(item.rule), **data}
    try:
        rule = type(item.rule).model_validate(merged)
    except ValidationError as exc:
        err = exc.errors()[0]
        return None, f"{'.'.join(map(str, err['loc']))}: {str(err['msg']).removeprefix('Value error, ')}"
    return rule, None


class DraftingApp(SttuiApp):
    """The workbench's app (styles, keys, palette, keymap) with only the draft's screen."""

    def __init__(self, loaded: LoadedTask, draft: dict[str, Any], draft_name: str, config: Config | None = None):
        super().__init__(Launch.build(config=config))
        self.draft_args = (loaded, draft, draft_name)

    def base_screen(self) -> Screen[Any]:
        return Placeholder()  # no home: leaving the one screen ends the app

    def on_mount(self, event: events.Mount) -> None:  # type: ignore[override]  # takes the event to stop the app's own mount
        event.prevent_default()  # not the workbench's own mount: no home, no store
        if self.config.theme:
            self.theme = self.config.theme
        if self.config.keymap:
            self.set_keymap(self.config.keymap)
        self.push_screen(DraftScreen(*self.draft_args))


def run_review(loaded: LoadedTask, draft: dict[str, Any], draft_name: str, config: Any) -> None:
    DraftingApp(loaded, draft, draft_name, config).run()
