"""Keeping secrets out of the record: API keys in the environment never reach the
database or an export, wherever they turn up in a payload."""

from __future__ import annotations

import json
import os
import re
from typing import Any

_SECRET_NAME = re.compile(r"(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL)", re.I)
_SECRET_FIELD = re.compile(r"^(api_?key|authorization|password|secret|token|access_token)$", re.I)
REDACTED = "[redacted]"
MIN_LENGTH = 8


def secret_values() -> list[str]:
    """Values of environment variables whose names say they are secrets."""
    found = {v for k, v in os.environ.items() if _SECRET_NAME.search(k) and len(v) >= MIN_LENGTH}
    return sorted(found, key=len, reverse=True)


def scrub(payload: Any, secrets: list[str] | None = None) -> Any:
    """A JSON-safe copy of ``payload`` with secret values and secret-named fields redacted."""
    secrets = secret_values() if secrets is None else secrets
    blob = json.dumps(payload, default=str, ensure_ascii=False)
    found = False
    for value in secrets:
        encoded = json.dumps(value, ensure_ascii=False)[1:-1]
        if encoded in blob:
            blob = blob.replace(encoded, REDACTED)
            found = True
    # Parse back only when something was replaced or JSON would change a value; usually neither.
    data = json.loads(blob) if found or _odd(payload) else payload
    return _redact_fields(data)


def scrub_text(text: str, secrets: list[str] | None = None) -> str:
    """``text`` with secret values replaced: for messages and reasons printed or stored as text."""
    secrets = secret_values() if secrets is None else secrets
    for value in secrets:
        text = text.replace(value, REDACTED)
    return text


def _odd(value: Any) -> bool:
    """Whether ``value`` holds anything JSON would turn into something else (tuples, dates, ...)."""
    if isinstance(value, dict):
        return any(not isinstance(k, str) or _odd(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_odd(v) for v in value)
    return not (value is None or isinstance(value, str | int | float | bool))


def _redact_fields(data: Any) -> Any:
    if isinstance(data, dict):
        return {k: (REDACTED if _SECRET_FIELD.match(str(k)) and v else _redact_fields(v)) for k, v in data.items()}
    if isinstance(data, list):
        return [_redact_fields(v) for v in data]
    return data
