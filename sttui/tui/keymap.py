"""What a keymap in sttui.yaml would break, said when the workbench starts: a key it gives to one
binding that another binding of the same screen already holds (the other would silently stop
working), and binding ids that exist nowhere (a typo remaps nothing)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from textual.binding import Binding
from textual.dom import DOMNode


def _bindings(cls: type[DOMNode]) -> list[Binding]:
    return [b for bs in cls._merge_bindings().key_to_bindings.values() for b in bs]


def bound_keys(binding: Binding, keymap: Mapping[str, str]) -> list[str]:
    """The keys ``binding`` answers to under ``keymap`` (sttui.yaml's, by binding id)."""
    keys = keymap.get(binding.id, binding.key) if binding.id else binding.key
    return [k.strip() for k in keys.split(",") if k.strip()]


def keymap_problems(keymap: Mapping[str, str], scopes: Iterable[type[DOMNode]], app: type[DOMNode]) -> list[str]:
    """One line per problem. ``scopes``: the screens and dialogs, each checked with the app's
    own bindings, since those answer on every screen."""
    app_bindings = _bindings(app)
    known: set[str] = {b.id for b in app_bindings if b.id}
    problems: list[str] = []
    seen: set[tuple[str, str, str]] = set()
    for scope in scopes:
        bindings = _bindings(scope) + app_bindings
        known |= {b.id for b in bindings if b.id}
        holders: dict[str, list[Binding]] = {}
        for b in bindings:
            for key in bound_keys(b, keymap):
                holders.setdefault(key, []).append(b)
        for key, held in holders.items():
            moved = [b for b in held if b.id in keymap]
            for mover in moved:
                for other in held:
                    if other is mover or other.id == mover.id or other.action == mover.action:
                        continue
                    pair = (key, str(mover.id), other.id or other.action)
                    if pair in seen:
                        continue
                    seen.add(pair)
                    name = f"{other.id} ({other.description})" if other.id else f"{other.action}"
                    problems.append(
                        f"keymap: {mover.id} → {key} takes the key of {name} on {scope.__name__}; pick "
                        f"another key, or remap {other.id or other.action} too"
                    )
    for wanted in sorted(set(keymap) - known):
        from sttui.core.problems import did_you_mean

        problems.append(f"keymap: no binding has the id {wanted}{did_you_mean(wanted, sorted(known))}")
    return problems


def workbench_scopes() -> list[type[DOMNode]]:
    """Every screen, dialog and widget of the workbench that has keys of its own."""
    from sttui.tui.annotate import AnnotateScreen, TagList, Tags
    from sttui.tui.candidates import CandidatesScreen
    from sttui.tui.compare import CompareScreen
    from sttui.tui.drafting import DraftScreen
    from sttui.tui.endscreen import EndScreen
    from sttui.tui.explore import ExploreScreen
    from sttui.tui.help import KeysHelp
    from sttui.tui.home import HomeScreen, TaskTable
    from sttui.tui.modals import Confirm, EditValue, ToolForm
    from sttui.tui.play import PlayScreen
    from sttui.tui.refine import RefineScreen
    from sttui.tui.replay import ReplayScreen
    from sttui.tui.reveal import RevealScreen
    from sttui.tui.study import StudyHome, StudyIntro
    from sttui.tui.studywatch import StudyWatchScreen
    from sttui.tui.usersim import UserSimScreen
    from sttui.tui.widgets import SessionTable, WideTable

    return [
        HomeScreen,
        PlayScreen,
        UserSimScreen,
        ExploreScreen,
        ReplayScreen,
        EndScreen,
        RevealScreen,
        DraftScreen,
        CandidatesScreen,
        RefineScreen,
        AnnotateScreen,
        StudyWatchScreen,
        KeysHelp,
        TagList,
        Tags,
        Confirm,
        EditValue,
        ToolForm,
        StudyIntro,
        StudyHome,
        CompareScreen,
        TaskTable,
        SessionTable,
        WideTable,
    ]
