"""YAML reading: safe, bounded, one pass, plus a map from field locations to line numbers.

One parse gives both the data and the line map: the text is composed once into a node
graph (with libyaml when it is there, else the pure-Python parser), the graph is checked
against the limits below, and the data is constructed from it by the safe constructor, so
no tag outside plain YAML can ever be constructed. When libyaml refuses a file, the
pure-Python parser reads it again for its clearer message.

Limits (documented in docs/task-format.md, "Limits"): a file of at most ``MAX_BYTES``;
nesting at most ``MAX_DEPTH`` deep; at most ``MAX_NODES`` values once aliases are expanded
(a "billion laughs" file is refused, not expanded); no alias that contains itself; no
key twice in one mapping.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import yaml

from sttui.core.problems import Loc

MAX_BYTES = 2_000_000
MAX_DEPTH = 64
MAX_NODES = 200_000

_FAST = getattr(yaml, "CSafeLoader", None)
_NULL = "tag:yaml.org,2002:null"


class YamlSyntaxError(Exception):
    def __init__(self, line: int | None, message: str):
        self.line = line
        super().__init__(message)


def read_text(path: Path, max_bytes: int = MAX_BYTES) -> str:
    """A regular file's text, refusing what is not one (a FIFO would block) or is too big.

    Raises OSError or UnicodeDecodeError for the caller to report, or ValueError with the reason."""
    info = os.stat(path)
    if not stat.S_ISREG(info.st_mode):
        raise ValueError("not a regular file")
    if info.st_size > max_bytes:
        raise ValueError(f"the file is {info.st_size:,} bytes; task files are limited to {max_bytes:,}")
    with open(path, "rb") as f:
        raw = f.read(max_bytes + 1)
    if len(raw) > max_bytes:
        raise ValueError(f"the file is over {max_bytes:,} bytes; task files are limited to {max_bytes:,}")
    return raw.decode("utf-8")


def load_with_lines(text: str) -> tuple[Any, dict[Loc, int]]:
    """Parse YAML safely within the limits and record the line where each key or item starts."""
    if len(text) > MAX_BYTES:
        raise YamlSyntaxError(None, f"the text is over {MAX_BYTES:,} characters; the limit is {MAX_BYTES:,}")
    node = _compose(text)
    if node is None:
        return None, {}
    lines: dict[Loc, int] = {}
    _check(node, lines)
    try:
        data = _Constructor("").construct_document(node)
    except yaml.MarkedYAMLError as exc:
        raise _syntax(exc) from None
    except RecursionError:
        raise YamlSyntaxError(None, f"malformed YAML: nested deeper than {MAX_DEPTH} levels") from None
    return data, lines


class _Constructor(yaml.SafeLoader):
    """The safe constructor, with a value YAML cannot build (Feb 30th, hour 25) reported at its
    line like any other YAML error instead of escaping as a bare ValueError, and an unquoted
    time of day (``ready_at: 15:00``) kept as the text written: YAML 1.1 reads it as 900."""

    def construct_yaml_timestamp(self, node: yaml.ScalarNode) -> Any:
        try:
            return super().construct_yaml_timestamp(node)
        except (ValueError, OverflowError) as exc:
            raise yaml.constructor.ConstructorError(
                None, None, f"{node.value!r} is not a real date or time ({exc})", node.start_mark
            ) from None

    def construct_yaml_int(self, node: yaml.ScalarNode) -> Any:
        if ":" in node.value:  # 15:00 is a time of day here, not YAML 1.1's base 60 (900)
            return node.value
        return super().construct_yaml_int(node)

    def construct_yaml_float(self, node: yaml.ScalarNode) -> Any:
        if ":" in node.value:  # (the same for 15:30.5)
            return node.value
        return super().construct_yaml_float(node)


_Constructor.add_constructor("tag:yaml.org,2002:timestamp", _Constructor.construct_yaml_timestamp)
_Constructor.add_constructor("tag:yaml.org,2002:int", _Constructor.construct_yaml_int)
_Constructor.add_constructor("tag:yaml.org,2002:float", _Constructor.construct_yaml_float)


def _compose(text: str) -> yaml.Node | None:
    loaders = [_FAST, yaml.SafeLoader] if _FAST is not None else [yaml.SafeLoader]
    for i, loader in enumerate(loaders):
        try:
            return yaml.compose(text, Loader=loader)
        except yaml.MarkedYAMLError as exc:
            if i + 1 < len(loaders):
                continue  # the pure-Python parser explains it better
            raise _syntax(exc) from None
        except yaml.YAMLError as exc:
            if i + 1 < len(loaders):
                continue
            raise YamlSyntaxError(None, f"malformed YAML: {exc}") from None
        except RecursionError:
            raise YamlSyntaxError(None, f"malformed YAML: nested deeper than {MAX_DEPTH} levels") from None
    return None  # pragma: no cover


def _syntax(exc: yaml.MarkedYAMLError) -> YamlSyntaxError:
    mark = exc.problem_mark or exc.context_mark
    line = mark.line + 1 if mark else None
    reason = exc.problem or str(exc)
    if exc.context:
        reason = f"{exc.context}, {reason}"
    return YamlSyntaxError(line, f"malformed YAML: {reason}")


def _line(node: yaml.Node) -> int:
    return node.start_mark.line + 1


def _check(root: yaml.Node, lines: dict[Loc, int]) -> None:
    """Walk the node graph once, without recursion: the line map, depth, duplicate keys, and
    the size with aliases expanded (each shared node counted every time it is used). Scalars,
    most of a task file, are handled where they are met; only collections go on the stack."""
    scalar = yaml.ScalarNode
    sizes: dict[int, int] = {}  # id(collection) -> values below it, aliases expanded
    on_path: set[int] = set()
    if isinstance(root, scalar):
        lines.setdefault((), _line(root))
        return
    # (node, loc, depth, children pushed?)
    stack: list[tuple[yaml.Node, Loc | None, int, bool]] = [(root, (), 1, False)]
    while stack:
        node, loc, depth, expanded = stack.pop()
        key = id(node)
        if expanded:
            on_path.discard(key)
            total = 1
            for child_node in _children(node):
                total += 1 if isinstance(child_node, scalar) else sizes[id(child_node)]
            sizes[key] = total
            if total > MAX_NODES:
                raise YamlSyntaxError(
                    _line(node),
                    f"malformed YAML: over {MAX_NODES:,} values once aliases are expanded (an alias bomb?)",
                )
            continue
        if loc is not None:
            lines.setdefault(loc, _line(node))
        if depth > MAX_DEPTH:
            raise YamlSyntaxError(_line(node), f"malformed YAML: nested deeper than {MAX_DEPTH} levels")
        if key in on_path:
            raise YamlSyntaxError(_line(node), "malformed YAML: an alias refers to a value that contains it")
        if key in sizes:
            continue  # an alias to a value already measured: its lines are those of the first use
        on_path.add(key)
        stack.append((node, loc, depth, True))
        deeper = depth + 1
        if isinstance(node, yaml.MappingNode):
            seen: dict[Any, int] = {}
            for key_node, value_node in node.value:
                name = key_node.value if isinstance(key_node, scalar) else None
                if name is not None and key_node.tag != "tag:yaml.org,2002:merge":
                    if name in seen:
                        raise YamlSyntaxError(
                            _line(key_node),
                            f"duplicate key '{name}' (first on line {seen[name]}); each key may appear once",
                        )
                    seen[name] = _line(key_node)
                if (
                    node.flow_style
                    and isinstance(value_node, scalar)
                    and value_node.tag == _NULL
                    and value_node.value == ""
                    and value_node.start_mark.index == key_node.end_mark.index
                ):  # "{name: Marcus Webb (AV, hybrid)}": the comma ended the name; "hybrid)" is a key
                    raise YamlSyntaxError(
                        _line(key_node),
                        f"'{name}' has no value: in {{…}} a comma ends a value, so the words after it became "
                        f'a key of their own; quote a value that holds a comma (name: "Marcus Webb (AV, hybrid)")',
                    )
                child = None if loc is None or name is None else (*loc, name)
                if child is not None:
                    lines[child] = _line(key_node)
                for part, where in ((key_node, None), (value_node, child)):
                    if not isinstance(part, scalar):
                        stack.append((part, where, deeper, False))
                    elif deeper > MAX_DEPTH:
                        raise YamlSyntaxError(_line(part), f"malformed YAML: nested deeper than {MAX_DEPTH} levels")
        elif isinstance(node, yaml.SequenceNode):
            for i, item in enumerate(node.value):
                where = None if loc is None else (*loc, i)
                if not isinstance(item, scalar):
                    stack.append((item, where, deeper, False))
                    continue
                if where is not None:
                    lines.setdefault(where, _line(item))
                if deeper > MAX_DEPTH:
                    raise YamlSyntaxError(_line(item), f"malformed YAML: nested deeper than {MAX_DEPTH} levels")


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


def line_of(lines: dict[Loc, int], loc: Loc) -> int | None:
    """The line of the deepest known prefix of ``loc``."""
    for n in range(len(loc), -1, -1):
        found = lines.get(tuple(loc[:n]))
        if found is not None:
            return found
    return None
