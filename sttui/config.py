"""The config file, ``sttui.yaml``: in the working directory, else the user config directory.

name: ana                 # who "human" is in the record, unless --as says otherwise
theme: textual-light
keymap: {play.end: ctrl+q, play.god_view: f9}   # binding id -> key(s)
"""

from __future__ import annotations

import getpass
import os
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from sttui.core.problems import format_loc


class ConfigError(Exception):
    pass


class Config(BaseModel):
    model_config = ConfigDict(extra="allow")

    name: str | None = None
    theme: str | None = None
    keymap: dict[str, str] = Field(default_factory=dict)


def config_paths() -> list[Path]:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return [Path("sttui.yaml"), Path(base) / "sttui" / "sttui.yaml"]


def load_config() -> Config:
    for path in config_paths():
        if path.is_file():
            try:
                data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
                return Config.model_validate(data)
            except yaml.YAMLError as exc:
                raise ConfigError(f"{path}: not valid YAML: {exc}") from None
            except ValidationError as exc:
                err = exc.errors()[0]
                raise ConfigError(f"{path}: {format_loc(err['loc'])}: {err['msg']}") from None
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
