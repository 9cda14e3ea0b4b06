"""The config file, ``sttui.yaml``: in the working directory, else the user config directory.

    name: ana                 # who "human" is in the record, unless --as says otherwise
    theme: textual-light
    keymap: {play.end: ctrl+e, play.god_view: f6}   # binding id -> key(s)
    trusted_folders: [~/lab/bench]   # user config only: working directories whose sttui.yaml may set endpoints

Read with plain checks (no model library), because it is read on every start.

A ``sttui.yaml`` in the working directory is data that came with the folder (a cloned repository,
an unpacked archive). It may not choose where model requests go, since they carry the user's API
keys: an endpoint there (``api_base``, a URL as a model) is refused unless the user trusts that
folder, by listing it under ``trusted_folders`` in the user config or with ``STTUI_TRUST_CWD=1``.
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
    """The working directory's sttui.yaml, then the user's (see ``sttui.paths.config_root``)."""
    from sttui.paths import config_root

    return [Path("sttui.yaml"), config_root() / "sttui.yaml"]


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


ENDPOINT_FIELDS = ("api_base", "base_url", "api_url", "endpoint")  # where a request, and its key, goes
TRUST_CWD_ENV = "STTUI_TRUST_CWD"


def _read(path: Path) -> Config:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: not valid YAML: {exc}") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc}") from None
    return parse_config(data, str(path))


def endpoints(config: Config) -> list[str]:
    """Where ``config`` chooses a host for model requests, as ``models.NAME.FIELD`` locations."""
    found = []
    models = config.extra.get("models") or {}
    for name, entry in models.items() if isinstance(models, dict) else []:
        if isinstance(entry, str) and "://" in entry:
            found.append(f"models.{name}")
        elif isinstance(entry, dict):
            found += [f"models.{name}.{key}" for key in ENDPOINT_FIELDS if entry.get(key)]
            if "://" in str(entry.get("model", "")):
                found.append(f"models.{name}.model")
    if "://" in str(config.extra.get("handoff_model", "")):
        found.append("handoff_model")
    return found


def trusted_folders(user: Config, where: str) -> list[Path]:
    """The user config's ``trusted_folders``: working directories whose sttui.yaml may set endpoints."""
    folders = user.extra.get("trusted_folders") or []
    if not isinstance(folders, list) or not all(isinstance(f, str) for f in folders):
        raise ConfigError(f"{where}: trusted_folders: expected a list of folders")
    return [Path(f).expanduser().resolve() for f in folders]


def load_config() -> Config:
    """The working directory's ``sttui.yaml``, else the user's; see the module's note on endpoints."""
    here, user_path = config_paths()
    if here.is_file() and not (user_path.is_file() and here.resolve() == user_path.resolve()):
        config = _read(here)
        if "trusted_folders" in config.extra:
            raise ConfigError(f"{here}: trusted_folders: only your user config ({user_path}) can trust folders")
        chosen = endpoints(config)
        if chosen and not _cwd_trusted(user_path):
            raise ConfigError(
                f"{here}: {chosen[0]}: a sttui.yaml in the working directory may not choose where model "
                f"requests go (they carry your API keys); to allow it, list this folder under trusted_folders "
                f"in {user_path}, or set {TRUST_CWD_ENV}=1, or move the setting to {user_path}"
            )
        return config
    if user_path.is_file():
        return _read(user_path)
    return Config()


def _cwd_trusted(user_path: Path) -> bool:
    if os.environ.get(TRUST_CWD_ENV) == "1":
        return True
    if not user_path.is_file():
        return False
    return Path.cwd().resolve() in trusted_folders(_read(user_path), str(user_path))


def human_name(explicit: str | None = None, config: Config | None = None) -> str:
    """``human:NAME``: --as, else the config's name, else the login name."""
    name = explicit or (config.name if config else None)
    if not name:
        try:
            name = getpass.getuser()
        except OSError:
            name = "anonymous"
    return name if name.startswith("human") else f"human:{name}"
