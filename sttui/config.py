"""The config file, ``sttui.yaml``: the file ``STTUI_CONFIG`` names, else the working
directory's, else the user config directory's.

    name: ana                 # who "human" is in the record, unless --as says otherwise
    theme: textual-light
    keymap: {play.end: ctrl+e, play.god_view: f6}   # binding id -> key(s)
    handoff_model: fast       # the model F10 hands a seat to
    models:                   # aliases for model:NAME
      fast: {model: openai/gpt-4o-mini, temperature: 0}
      local: ollama/qwen3:8b
    trusted_folders: [~/lab/bench]   # user config only: working directories whose sttui.yaml may set endpoints

Read with plain checks (no model library), because it is read on every start, into one frozen
:class:`Config`: every section typed, an unknown section or model field a one-line error.

A ``sttui.yaml`` in the working directory is data that came with the folder (a cloned repository,
an unpacked archive). It may not choose where model requests go, since they carry the user's API
keys: an endpoint there (``api_base``, a URL as a model) is refused unless the user trusts that
folder, by listing it under ``trusted_folders`` in the user config or with ``STTUI_TRUST_CWD=1``.
A file that ``STTUI_CONFIG`` names was chosen by the user, and is read as the user config is.
"""

from __future__ import annotations

import difflib
import getpass
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


class ConfigError(Exception):
    pass


CONFIG_ENV = "STTUI_CONFIG"  # the path of the config file to read instead of the usual places


@dataclass(frozen=True)
class ModelAlias:
    """One entry of the ``models`` section: what ``model:NAME`` means and how to reach it.
    Secrets never live here: litellm reads keys from the environment."""

    model: str
    api_base: str | None = None
    temperature: float | None = 0.0
    max_tokens: int | None = 1024
    timeout: float = 60.0
    retries: int = 3
    backoff: float = 1.0  # seconds before the first retry; doubles each time


# each field of a model alias: (the types it takes, the words for what was expected)
_ALIAS_FIELDS: dict[str, tuple[tuple[type, ...], str]] = {
    "model": ((str,), "a litellm model string"),
    "api_base": ((str, type(None)), "a URL"),
    "temperature": ((int, float, type(None)), "a number"),
    "max_tokens": ((int, type(None)), "a whole number"),
    "timeout": ((int, float), "a number of seconds"),
    "retries": ((int,), "a whole number"),
    "backoff": ((int, float), "a number of seconds"),
}


@dataclass(frozen=True)
class Config:
    name: str | None = None
    theme: str | None = None
    keymap: Mapping[str, str] = field(default_factory=dict)
    models: Mapping[str, ModelAlias] = field(default_factory=dict)  # model:NAME -> the model it names
    handoff_model: str | None = None  # the model F10 hands a seat to (an alias or a model string)
    trusted_folders: tuple[str, ...] = ()  # user config only (see the module's note)


SECTIONS = ("name", "theme", "keymap", "models", "handoff_model", "trusted_folders")


def config_paths() -> list[Path]:
    """The working directory's sttui.yaml, then the user's (see ``sttui.paths.config_root``)."""
    from sttui.paths import config_root

    return [Path("sttui.yaml"), config_root() / "sttui.yaml"]


def model_aliases(data: Any, where: str = "models") -> dict[str, ModelAlias]:
    """The ``models`` section, checked: each alias a model string or a mapping of the fields of
    :class:`ModelAlias` (``where``: how an error names the section)."""
    if data is None:
        return {}
    if not isinstance(data, Mapping):
        raise ConfigError(f"{where}: expected alias: model pairs, like fast: openai/gpt-4o-mini")
    out: dict[str, ModelAlias] = {}
    for name, entry in data.items():
        at = f"{where}.{name}"
        if isinstance(entry, str):
            out[str(name)] = ModelAlias(entry)
            continue
        if not isinstance(entry, Mapping):
            raise ConfigError(f"{at}: expected a model string, or a mapping with model: and its settings")
        unknown = sorted(set(entry) - set(_ALIAS_FIELDS))
        if unknown or "model" not in entry:
            optional = ", ".join(k for k in _ALIAS_FIELDS if k != "model")
            raise ConfigError(
                f"{at}: expected model and optionally {optional}"
                + (f"; unknown: {', '.join(unknown)}" if unknown else "")
            )
        for key, value in entry.items():
            types, what = _ALIAS_FIELDS[key]
            if not isinstance(value, types) or isinstance(value, bool):
                raise ConfigError(f"{at}.{key}: expected {what}, got {value!r}")
        out[str(name)] = ModelAlias(**entry)
    return out


def parse_config(data: Any, where: str) -> Config:
    if data is None:
        return Config()
    if not isinstance(data, dict):
        raise ConfigError(f"{where}: expected a mapping of settings")
    unknown = [k for k in data if k not in SECTIONS]
    if unknown:
        # (difflib here, not core's did_you_mean: the base layer imports nothing above it)
        close = difflib.get_close_matches(str(unknown[0]), SECTIONS, n=1, cutoff=0.6)
        hint = f" (did you mean {close[0]}?)" if close else ""
        raise ConfigError(f"{where}: {unknown[0]}: not a setting{hint}; the settings are {', '.join(SECTIONS)}")
    for key in ("name", "theme", "handoff_model"):
        if data.get(key) is not None and not isinstance(data[key], str):
            raise ConfigError(f"{where}: {key}: expected text, got {data[key]!r}")
    keymap = data.get("keymap") or {}
    if not isinstance(keymap, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in keymap.items()):
        raise ConfigError(f"{where}: keymap: expected binding id: key pairs, like play.end: ctrl+q")
    folders = data.get("trusted_folders") or []
    if not isinstance(folders, list) or not all(isinstance(f, str) for f in folders):
        raise ConfigError(f"{where}: trusted_folders: expected a list of folders")
    return Config(
        name=data.get("name"),
        theme=data.get("theme"),
        keymap=dict(keymap),
        models=model_aliases(data.get("models"), f"{where}: models"),
        handoff_model=data.get("handoff_model"),
        trusted_folders=tuple(folders),
    )


ENDPOINT_FIELDS = ("api_base", "base_url", "api_url", "endpoint")  # where a request, and its key, goes
TRUST_CWD_ENV = "STTUI_TRUST_CWD"


def _load(path: Path) -> Any:
    """The file's YAML, unchecked (the endpoint rule reads it before the settings are checked).
    The YAML reader is imported here: a start without a config file does not load it."""
    import yaml

    try:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:  # one line: where, and what the parser stopped at
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark is not None else str(path)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ConfigError(f"{where}: not valid YAML: {problem}") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc}") from None


def _read(path: Path) -> Config:
    return parse_config(_load(path), str(path))


def endpoints(data: Any) -> list[str]:
    """Where a config file's ``data`` chooses a host for model requests, as ``models.NAME.FIELD``
    locations. Read from the file as written, so a misspelt endpoint field is caught too."""
    if not isinstance(data, dict):
        return []
    found = []
    models = data.get("models") or {}
    for name, entry in models.items() if isinstance(models, dict) else []:
        if isinstance(entry, str) and "://" in entry:
            found.append(f"models.{name}")
        elif isinstance(entry, dict):
            found += [f"models.{name}.{key}" for key in ENDPOINT_FIELDS if entry.get(key)]
            if "://" in str(entry.get("model", "")):
                found.append(f"models.{name}.model")
    if "://" in str(data.get("handoff_model", "")):
        found.append("handoff_model")
    return found


def trusted_folders(user: Config) -> list[Path]:
    """The user config's ``trusted_folders``: working directories whose sttui.yaml may set endpoints."""
    return [Path(f).expanduser().resolve() for f in user.trusted_folders]


def load_config() -> Config:
    """The file ``STTUI_CONFIG`` names, else the working directory's ``sttui.yaml``, else the
    user's; see the module's note on endpoints."""
    chosen_path = os.environ.get(CONFIG_ENV)
    if chosen_path:
        path = Path(chosen_path).expanduser()
        if not path.is_file():
            raise ConfigError(
                f"{CONFIG_ENV}={chosen_path}: no such file (unset it to read sttui.yaml from the usual places)"
            )
        return _read(path)
    here, user_path = config_paths()
    if here.is_file() and not (user_path.is_file() and here.resolve() == user_path.resolve()):
        data = _load(here)
        if isinstance(data, dict) and "trusted_folders" in data:
            raise ConfigError(f"{here}: trusted_folders: only your user config ({user_path}) can trust folders")
        chosen = endpoints(data)
        if chosen and not _cwd_trusted(user_path):
            raise ConfigError(
                f"{here}: {chosen[0]}: a sttui.yaml in the working directory may not choose where model "
                f"requests go (they carry your API keys); to allow it, list this folder under trusted_folders "
                f"in {user_path}, or set {TRUST_CWD_ENV}=1, or move the setting to {user_path}"
            )
        return parse_config(data, str(here))
    if user_path.is_file():
        return _read(user_path)
    return Config()


def _cwd_trusted(user_path: Path) -> bool:
    if os.environ.get(TRUST_CWD_ENV) == "1":
        return True
    if not user_path.is_file():
        return False
    return Path.cwd().resolve() in trusted_folders(_read(user_path))


def human_name(explicit: str | None = None, config: Config | None = None) -> str:
    """``human:NAME``: --as, else the config's name, else the login name."""
    name = explicit or (config.name if config else None)
    if not name:
        try:
            name = getpass.getuser()
        except OSError:
            name = "anonymous"
    return name if name.startswith("human") else f"human:{name}"
