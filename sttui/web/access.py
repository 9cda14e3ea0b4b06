"""Who may open a session: one token printed at start (as Jupyter does), or per-person tokens
from a file, so the record names the token's owner. textual-serve has no authentication of its
own; every request but the bundled static files passes through here."""

from __future__ import annotations

import hmac
import re
import secrets
from dataclasses import dataclass
from pathlib import Path

import yaml

# A name goes into the record and onto the app's command line: keep it short and plain.
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$")
MIN_TOKEN = 16


class TokenFileError(ValueError):
    """A token file that cannot be used; the message says which line or field and why."""


@dataclass(frozen=True)
class Owner:
    """Who presented a valid token: ``name`` is the token's owner, or None for the shared token
    (then the browser session says its name)."""

    name: str | None


def valid_name(name: str | None) -> bool:
    return bool(name) and NAME.fullmatch(name or "") is not None


class Tokens:
    """The tokens that open the workbench. Checked with ``hmac.compare_digest`` against every
    known token (no early exit), so a guess learns nothing from the time it took."""

    def __init__(self, owners: dict[str, str | None]):
        self._owners = {token.encode(): name for token, name in owners.items()}

    @classmethod
    def generate(cls) -> tuple[Tokens, str]:
        """One fresh shared token. Hex, so no secret scrubber mistakes it for a key's shape."""
        token = secrets.token_hex(24)
        return cls({token: None}), token

    @classmethod
    def from_file(cls, path: Path) -> Tokens:
        """A YAML mapping of annotator name to token (``ana: 3f9c…``), one token per person."""
        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8"))
        except OSError as exc:
            raise TokenFileError(f"{path}: {exc.strerror or exc}") from None
        except yaml.YAMLError as exc:
            raise TokenFileError(f"{path}: not YAML ({str(exc).splitlines()[0]})") from None
        if not isinstance(data, dict) or not data:
            raise TokenFileError(f"{path}: expected a mapping of annotator name to token, e.g. 'ana: <token>'")
        owners: dict[str, str | None] = {}
        for name, token in data.items():
            name = str(name)
            if not valid_name(name):
                raise TokenFileError(f"{path}: {name!r}: a name is letters, digits, '.', '_' or '-' (40 at most)")
            if not isinstance(token, str) or len(token) < MIN_TOKEN or not token.isascii() or not token.isprintable():
                raise TokenFileError(
                    f"{path}: {name}: the token must be text of {MIN_TOKEN} printable ASCII characters or more "
                    "(python3 -c 'import secrets; print(secrets.token_hex(24))' makes one)"
                )
            if token in owners:
                raise TokenFileError(f"{path}: {name}: the same token as {owners[token]}; give each person their own")
            owners[token] = name
        return cls(owners)

    def __len__(self) -> int:
        return len(self._owners)

    def owner(self, presented: str | None) -> Owner | None:
        """The owner of ``presented``, or None when it opens nothing."""
        if not presented:
            return None
        given = presented.encode("utf-8", "surrogateescape")
        found: Owner | None = None
        for token, name in self._owners.items():
            if hmac.compare_digest(given, token):
                found = Owner(name)
        return found
