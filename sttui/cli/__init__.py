"""The command line: parses, builds objects, hands over. Thin by design."""

from sttui.cli import compare, fork, gold, milestones, new, pipeline, ratings, records, refine, rl, serve, study, tasks  # noqa: F401  (registers the commands)
from sttui.cli.app import main

__all__ = ["main"]
