"""Exports of recorded episodes; the layouts live in ``sttui.exports`` (this name is kept for
callers of earlier versions).

Exports never run a task's code: the tools are stored with each version as data. An import is
data too: its task versions are stored as ``imported`` (their code runs only when trusted, see
``sttui.versions``), never written anywhere, and every line is scrubbed of secrets on the way
in and on the way out.
"""

from __future__ import annotations

from sttui.exports.jsonl import jsonl_lines
from sttui.exports.training import training_lines

FORMATS = ("jsonl", "openai", "sharegpt", "hf", "inspect")

__all__ = ["FORMATS", "jsonl_lines", "training_lines"]
