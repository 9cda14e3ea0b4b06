"""Two episodes side by side (``sttui compare EP_A EP_B``, or c in replay): their agent steps
aligned by tool and arguments, one row per pair, and the first step where they differ in kind
marked and scrolled to. Read in a worker; the columns share the screen's width."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.widgets import DataTable, Header, Static

from sttui.tui.app import SttuiApp
from sttui.tui.footer import Footer
from sttui.tui.launch import Launch
from sttui.tui.screen import SttuiScreen

MARKS = {"same": " ", "replace": "≠", "delete": "<", "insert": ">"}
MEANING = "≠ different steps · < only A · > only B"


def _cut(text: str | None, width: int) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= width else text[: max(1, width - 1)] + "…"


class CompareScreen(SttuiScreen[None]):
    """Side by side: A on the left, B on the right; the first divergence in bold with ▶."""

    WORKERS: ClassVar[dict[str, str]] = {"compare": "compare the two episodes"}

    HELP_TITLE = "compare"
    BINDINGS = [
        Binding("d", "first_divergence", "First divergence", id="compare.first"),
        Binding("s", "swap", "Swap sides", id="compare.swap"),
        Binding("escape", "back", "Back", id="compare.back"),
    ]

    def __init__(self, store: Any, episode_a: str, episode_b: str, quits: bool = False):
        super().__init__()
        self.store, self.episode_a, self.episode_b = store, episode_a, episode_b
        self.quits = quits  # opened by `sttui compare`: escape leaves the workbench
        self.found: dict[str, Any] | None = None
        self.first_row: int | None = None

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(f"Comparing {self.episode_a} and {self.episode_b}…", id="compare-title")
        yield Static("", id="compare-first")
        yield DataTable(id="compare-rows", cursor_type="row", zebra_stripes=True)
        yield Static("", id="compare-detail")
        yield Static(MEANING, id="compare-legend", classes="muted")
        yield Footer()

    def on_mount(self) -> None:
        self.load()

    @work(thread=True, exclusive=True, group="compare", exit_on_error=False)
    def load(self) -> None:
        from sttui.store.db import StoreError
        from sttui.study.pairing import compare_episodes

        try:
            found = compare_episodes(self.store, self.episode_a, self.episode_b)
        except StoreError as exc:
            self.post_message(self.Compared(None, f"cannot compare: {exc}"))
            return
        self.post_message(self.Compared(found, None))

    class Compared(Message):
        """The two episodes aligned, or why they cannot be."""

        def __init__(self, found: dict[str, Any] | None, problem: str | None) -> None:
            super().__init__()
            self.found, self.problem = found, problem

    @on(Compared)
    def _compared(self, message: Compared) -> None:
        if message.found is None:
            self.query_one("#compare-title", Static).update(Text(message.problem or ""))
            return
        self.show(message.found)

    def show(self, found: dict[str, Any]) -> None:
        self.found = found
        a, b = found["a"], found["b"]

        def who(side: dict[str, Any]) -> str:
            passed = {True: "passed", False: "failed", None: "unscored"}[side["passed"]]
            return f"{side['id']} {side['agent']} ({passed})"

        title = f"{a['task']}\nA {who(a)}\nB {who(b)}"
        for note in found["notes"]:
            title += f"\nnote: {note}"
        self.query_one("#compare-title", Static).update(Text(title))
        first = found["first_divergence"]
        if first is None:
            line = Text(f"The same kinds of steps throughout ({found['steps'][0]} steps).")
        else:
            line = Text.assemble(
                ("First divergence ", "bold"),
                f"after {first['after_common_steps']} common step(s): A step {first['a_step'] or '-'} "
                f"{first['a']}  vs  B step {first['b_step'] or '-'} {first['b']}",
            )
        self.query_one("#compare-first", Static).update(line)
        self._fill()

    def _fill(self) -> None:
        assert self.found is not None
        table = self.query_one("#compare-rows", DataTable)
        table.clear(columns=True)
        side = max(12, (self.size.width - 20) // 2)  # 3 + 2 + 3 columns, padding 1 each side, scrollbar
        table.add_column("A", width=3, key="a")
        table.add_column("A's step", width=side, key="a_action")
        table.add_column("", width=2, key="mark")
        table.add_column("B", width=3, key="b")
        table.add_column("B's step", width=side, key="b_action")
        self.first_row = self.found["common_prefix"] if self.found["first_divergence"] else None
        for i, r in enumerate(self.found["rows"]):
            first = i == self.first_row
            style = "bold" if first else ""
            mark = "▶" + MARKS[r["match"]] if first else MARKS[r["match"]]
            table.add_row(
                Text(str(r["a"] or ""), style=style),
                Text(_cut(r["a_action"], side), style=style),
                Text(mark, style="bold red" if r["match"] != "same" else ""),
                Text(str(r["b"] or ""), style=style),
                Text(_cut(r["b_action"], side), style=style),
                key=str(i),
            )
        if self.first_row is not None:
            table.move_cursor(row=self.first_row)
        table.focus()

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        """The highlighted pair whole (the columns cut long steps)."""
        if self.found is None or event.cursor_row >= len(self.found["rows"]):
            return
        r = self.found["rows"][event.cursor_row]
        a = f"A {r['a']}: {r['a_action']}" if r["a"] else "A: (no step here)"
        b = f"B {r['b']}: {r['b_action']}" if r["b"] else "B: (no step here)"
        self.query_one("#compare-detail", Static).update(Text(f"{a}\n{b}"))

    def on_resize(self, event: Any) -> None:
        if self.found is not None:
            self._fill()

    def action_first_divergence(self) -> None:
        if self.first_row is not None:
            self.query_one("#compare-rows", DataTable).move_cursor(row=self.first_row)

    def action_swap(self) -> None:
        self.episode_a, self.episode_b = self.episode_b, self.episode_a
        self.load()

    def action_back(self) -> None:
        if self.quits:
            self.app.exit()
        else:
            self.app.pop_screen()


class CompareApp(SttuiApp):
    """The workbench opened on two episodes side by side; escape leaves it."""

    def __init__(self, db_url: str | None, episode_a: str, episode_b: str, config: Any = None):
        super().__init__(Launch.build(db_url=db_url, config=config))
        self.episodes = (episode_a, episode_b)

    def _store_ready(self, store: Any) -> None:
        super()._store_ready(store)
        self.push_screen(CompareScreen(store, *self.episodes, quits=True))
