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
# A token file names a team: a few KB. Anything larger is not one, and is not read whole.
MAX_TOKEN_FILE = 256 * 1024


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
        """A YAML mapping of annotator name to token (``ana: 3f9c…``), one token per person.
        Only a regular file of at most ``MAX_TOKEN_FILE`` bytes of UTF-8 text is read (a FIFO
        would hang the server, /dev/zero would never end); names are taken as written (``yes``
        stays the name "yes"), and a name given twice is refused rather than one token lost."""
        text = _read_token_file(path)
        try:
            document = yaml.compose(text, Loader=yaml.SafeLoader)
        except yaml.YAMLError as exc:
            raise TokenFileError(f"{path}: not YAML ({str(exc).splitlines()[0]})") from None
        if not isinstance(document, yaml.MappingNode) or not document.value:
            raise TokenFileError(f"{path}: expected a mapping of annotator name to token, e.g. 'ana: <token>'")
        owners: dict[str, str | None] = {}
        lines: dict[str, int] = {}
        for key, value in document.value:
            line = key.start_mark.line + 1
            name = key.value if isinstance(key, yaml.ScalarNode) else None  # the text as written: no booleans
            if not isinstance(name, str) or not valid_name(name):
                shown = name if isinstance(name, str) else "(not a name)"
                raise TokenFileError(
                    f"{path}:{line}: {shown!r}: a name is letters, digits, '.', '_' or '-' (40 at most)"
                )
            if name in lines:
                raise TokenFileError(f"{path}:{line}: {name} is given twice (lines {lines[name]} and {line})")
            lines[name] = line
            token = value.value if isinstance(value, yaml.ScalarNode) else None
            if not isinstance(token, str) or len(token) < MIN_TOKEN or not token.isascii() or not token.isprintable():
                raise TokenFileError(
                    f"{path}:{line}: {name}: the token must be text of {MIN_TOKEN} printable ASCII characters or "
                    "more (python3 -c 'import secrets; print(secrets.token_hex(24))' makes one)"
                )
            if token in owners:
                raise TokenFileError(
                    f"{path}:{line}: {name}: the same token as {owners[token]}; give each person their own"
                )
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


def _read_token_file(path: Path) -> str:
    """The file's text, or a ``TokenFileError`` saying why it is not a token file."""
    from sttui.files import NotRegular, TooBig, read_bounded

    try:
        data = read_bounded(path, MAX_TOKEN_FILE)
    except NotRegular:
        raise TokenFileError(f"{path}: not a regular file (a token file is a small YAML file)") from None
    except TooBig:
        raise TokenFileError(
            f"{path}: larger than {MAX_TOKEN_FILE // 1024} KB; a token file is a short YAML mapping"
        ) from None
    except OSError as exc:
        raise TokenFileError(f"{path}: {exc.strerror or exc}") from None
    if b"\0" in data:
        raise TokenFileError(f"{path}: holds NUL bytes (binary, or UTF-16); a token file is UTF-8 text")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise TokenFileError(f"{path}:{line}: not UTF-8 text; a token file is UTF-8 YAML") from None
