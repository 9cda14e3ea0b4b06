"""The command line: parses, builds objects, hands over. Thin by design.

Each command's module is imported only when that command runs (``COMMANDS`` in cli/app.py)."""

from sttui.cli.app import main

__all__ = ["main"]
