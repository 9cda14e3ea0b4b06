"""Errors every layer may raise and the command line turns into one line each.

Kept in a module of their own, with no imports, so the command line can catch them without
loading the database layer first."""

from __future__ import annotations


class StoreError(Exception):
    """A database problem explained for a person: what happened and what to check.

    ``transient``: whether trying again later may succeed (a lock, a full disk, a dropped
    connection), as opposed to a read-only or mismatched database."""

    def __init__(self, message: str, transient: bool = False):
        super().__init__(message)
        self.transient = transient


class MissingExtra(Exception):
    """An optional feature whose libraries are not installed; the message says how to install them."""
