"""The stage judges' cache: each answer kept under its question's key (what the judge was
shown, its model and prompt), so a replay or a rerun asks no model the same question twice. A
mixin of ``Store`` (``sttui/store/store.py``); it uses the store's transaction helpers.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from sqlalchemy import insert, select
from sqlalchemy.exc import IntegrityError

from sttui.store.db import in_batches
from sttui.store.tables import StageJudgementRow, table_of

T = TypeVar("T")


class StageJudgements:
    """Reading and keeping stage judges' answers (see the module docstring)."""

    if TYPE_CHECKING:  # Store's transaction helpers, which this mixin's methods run in

        def _write(self, fn: Callable[..., T]) -> T: ...
        def _read_core(self, fn: Callable[..., T]) -> T: ...

    def judgements(self, keys: list[str]) -> dict[str, dict[str, Any]]:
        """Stage judges' answers by cache key (the keys found; read in chunks)."""
        table = table_of(StageJudgementRow)
        out: dict[str, dict[str, Any]] = {}
        for chunk in in_batches(keys):
            query = select(table.c.key, table.c.answer).where(table.c.key.in_(chunk))
            out.update(self._read_core(lambda conn, q=query: dict(conn.execute(q).all())))
        return out

    def save_judgements(self, entries: dict[str, tuple[str, str, dict[str, Any]]]) -> int:
        """Keep answers (key -> (model, prompt version, answer)) not kept yet; a key already
        kept stays as it is (the same key is the same question). Returns how many were added."""
        table = table_of(StageJudgementRow)
        have = self.judgements(list(entries))
        rows = [
            {"key": k, "model": m, "prompt_version": v, "answer": a, "created_at": time.time()}
            for k, (m, v, a) in entries.items()
            if k not in have
        ]
        added = 0
        for row in rows:  # one by one: another process may have kept the same key meanwhile
            try:
                self._write(lambda conn, r=row: conn.execute(insert(table), [r]))
                added += 1
            except IntegrityError:
                continue
        return added
