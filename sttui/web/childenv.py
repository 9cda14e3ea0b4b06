"""The environment an app process starts with. A browser session is someone else at the
keyboard: without ``--allow-models`` it gets no API key, so a model handoff from the browser
cannot spend the lab's credits or read its cloud keys."""

from __future__ import annotations

import re
from collections.abc import Mapping

# What the workbench needs to run: the interpreter and its paths, the user's config and
# cache folders, locale and time zone, sttui's own settings, and the record's connection
# (libpq's PG* variables, for a team on PostgreSQL).
KEEP_NAMES = frozenset(
    {"PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TZ", "TMPDIR", "TEMP", "TMP"}
    | {"PYTHONPATH", "PYTHONHOME", "PYTHONIOENCODING", "PYTHONUTF8", "VIRTUAL_ENV", "NO_COLOR", "SYSTEMROOT"}
)
KEEP_PREFIXES = ("LC_", "XDG_", "STTUI_", "PG")
# Never passed without --allow-models, whatever the lists above say.
SECRET_NAME = re.compile(
    r"(API_?KEY|_KEY$|^KEY$|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH)|^(AWS|AZURE|GOOGLE|GCP|OPENAI|ANTHROPIC"
    r"|LITELLM|HF|HUGGING_?FACE|COHERE|MISTRAL|GROQ|GEMINI|DEEPSEEK|TOGETHER|OPENROUTER|XAI|VERTEX)_",
    re.I,
)
LIBPQ = frozenset({"PGPASSWORD", "PGPASSFILE"})


def is_secret_name(name: str) -> bool:
    return SECRET_NAME.search(name) is not None


def child_environment(environ: Mapping[str, str], *, allow_models: bool, db_url: str | None) -> dict[str, str]:
    """The app process's environment. ``allow_models``: all of ``environ``, keys included, as a
    terminal session would have. Otherwise only the names above, and never a secret-looking one
    (libpq's password excepted: the record itself needs it). ``db_url`` becomes ``STTUI_DB``,
    so it is not on a command line that ``ps`` shows."""
    if allow_models:
        env = dict(environ)
    else:
        env = {
            k: v
            for k, v in environ.items()
            if (k in KEEP_NAMES or k.startswith(KEEP_PREFIXES)) and (k in LIBPQ or not is_secret_name(k))
        }
    if db_url:
        env["STTUI_DB"] = db_url
    return env
