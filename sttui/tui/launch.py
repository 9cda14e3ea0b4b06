"""What the command line asks the workbench to open, read once and frozen: the typed config,
the person, the record, the tasks folder and what to open first. ``SttuiApp`` owns one; its
screens reach it as ``self.app.launch`` (through :class:`sttui.tui.screen.SttuiScreen`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from sttui.config import Config, human_name
from sttui.paths import tasks_root

if TYPE_CHECKING:
    from sttui.lineage.refining import Refinement
    from sttui.running.seats import PlayPlan


# the annotation queue to open: its kind, a text filter, and the gold rate (None: the dimensions file's)
Annotate = tuple[str, str | None] | tuple[str, str | None, int | None]


@dataclass(frozen=True)
class Launch:
    config: Config = field(default_factory=Config)
    tasks_dir: Path = field(default_factory=tasks_root)
    db_url: str | None = None  # None: the default record (sessions/sttui.db or STTUI_DB)
    human: str = "human"  # human:NAME, who the person is in the record
    play: PlayPlan | None = None  # `sttui play TASK`: open this task at once
    resume_episode: str | None = None  # `sttui resume EP`
    annotate: Annotate | None = None  # `sttui annotate --items KIND [--filter F] [--gold-rate N]`: the queue to open
    refine: Refinement | None = None  # `sttui refine EP`: the editor to open

    @classmethod
    def build(
        cls,
        tasks_dir: Path | None = None,
        *,
        config: Config | None = None,
        db_url: str | None = None,
        human: str | None = None,
        play: PlayPlan | None = None,
        resume_episode: str | None = None,
        annotate: Annotate | None = None,
        refine: Refinement | None = None,
    ) -> Launch:
        """The launch with defaults filled in: the default tasks folder, an empty config, and
        the person from --as, else the config's name, else the login name."""
        config = config or Config()
        return cls(
            config,
            tasks_dir or tasks_root(),
            db_url,
            human_name(human, config),
            play,
            resume_episode,
            annotate,
            refine,
        )
