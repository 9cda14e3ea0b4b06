"""sttui: a terminal workbench for interactive agent-benchmark episodes."""

__version__ = "0.1.0"
