"""The config file, ``sttui.yaml``: in the working directory, else the user config directory.

    name: ana                 # who "human" is in the record, unless --as says otherwise
    theme: textual-light
    keymap: {play.end: ctrl+q, play.god_view: f9}   # binding id -> key(s)

Read with plain checks (no model library), because it is read on every start.
"""

from __future__ import annotations

import getpass
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml


class ConfigError(Exception):
    pass


@dataclass
class Config:
    name: str | None = None
    theme: str | None = None
    keymap: dict[str, str] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)  # sections other features read (models, ...)


def config_paths() -> list[Path]:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return [Path("sttui.yaml"), Path(base) / "sttui" / "sttui.yaml"]


def parse_config(data: Any, where: str) -> Config:
    if data is None:
        return Config()
    if not isinstance(data, dict):
        raise ConfigError(f"{where}: expected a mapping of settings")
    for key in ("name", "theme"):
        if data.get(key) is not None and not isinstance(data[key], str):
            raise ConfigError(f"{where}: {key}: expected text, got {data[key]!r}")
    keymap = data.get("keymap") or {}
    if not isinstance(keymap, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in keymap.items()):
        raise ConfigError(f"{where}: keymap: expected binding id: key pairs, like play.end: ctrl+q")
    extra = {k: v for k, v in data.items() if k not in ("name", "theme", "keymap")}
    return Config(data.get("name"), data.get("theme"), dict(keymap), extra)


def load_config() -> Config:
    for path in config_paths():
        if path.is_file():
            try:
                data = yaml.safe_load(path.read_text(encoding="utf-8"))
            except yaml.YAMLError as exc:
                raise ConfigError(f"{path}: not valid YAML: {exc}") from None
            return parse_config(data, str(path))
    return Config()


def human_name(explicit: str | None = None, config: Config | None = None) -> str:
    """``human:NAME``: --as, else the config's name, else the login name."""
    name = explicit or (config.name if config else None)
    if not name:
        try:
            name = getpass.getuser()
        except OSError:
            name = "anonymous"
    return name if name.startswith("human") else f"human:{name}"
