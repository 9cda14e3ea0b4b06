"""YAML reading through ``safe_load``, plus a map from field locations to line numbers."""

from __future__ import annotations

from typing import Any

import yaml

from sttui.core.problems import Loc


class YamlSyntaxError(Exception):
    def __init__(self, line: int | None, message: str):
        self.line = line
        super().__init__(message)


def load_with_lines(text: str) -> tuple[Any, dict[Loc, int]]:
    """Parse YAML safely and record the line where each key or item starts.

    The data comes from ``yaml.safe_load``; the line map from composing the same text
    with the safe loader, so no tag outside plain YAML can ever be constructed.
    """
    try:
        data = yaml.safe_load(text)
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else None
        reason = exc.problem or str(exc)
        if exc.context:
            reason = f"{exc.context}, {reason}"
        raise YamlSyntaxError(line, f"malformed YAML: {reason}") from None
    except yaml.YAMLError as exc:  # pragma: no cover - non-marked errors are rare
        raise YamlSyntaxError(None, f"malformed YAML: {exc}") from None
    lines: dict[Loc, int] = {}
    if node is not None:
        _walk(node, (), lines)
    return data, lines


def _walk(node: yaml.Node, loc: Loc, lines: dict[Loc, int]) -> None:
    lines.setdefault(loc, node.start_mark.line + 1)
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            key = key_node.value
            child = (*loc, key)
            lines[child] = key_node.start_mark.line + 1
            _walk(value_node, child, lines)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            _walk(item, (*loc, i), lines)


def line_of(lines: dict[Loc, int], loc: Loc) -> int | None:
    """The line of the deepest known prefix of ``loc``."""
    for n in range(len(loc), -1, -1):
        found = lines.get(tuple(loc[:n]))
        if found is not None:
            return found
    return None
