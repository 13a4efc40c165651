"""The index's file: its tables, and opening it so that a reader always gets an index it can
use (one made again when the file is damaged or of another format, one in memory when the file
cannot be written)."""

from __future__ import annotations

import os
import sqlite3

from rewind.store.repository import Store

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Self

INDEX_FILE = "index.sqlite"
FORMAT = "3"
_BUSY_SECONDS = 30.0

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS tips (ref TEXT PRIMARY KEY, session TEXT NOT NULL, tip TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS entries (
    session TEXT NOT NULL,
    number INTEGER NOT NULL,
    commit_id TEXT NOT NULL,
    id TEXT NOT NULL,
    kind TEXT NOT NULL,
    started REAL NOT NULL,
    prompt TEXT NOT NULL,
    agent TEXT NOT NULL,
    labels TEXT NOT NULL,
    record BLOB NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS entries_by_number ON entries (session, number);
CREATE INDEX IF NOT EXISTS entries_by_id ON entries (id);
CREATE INDEX IF NOT EXISTS entries_damaged ON entries (session, number) WHERE kind = 'damaged';
CREATE INDEX IF NOT EXISTS entries_restores ON entries (session, number)
    WHERE kind IN ('restore', 'undo', 'redo');
CREATE TABLE IF NOT EXISTS touches (
    path BLOB NOT NULL,
    session TEXT NOT NULL,
    number INTEGER NOT NULL,
    at REAL NOT NULL,
    PRIMARY KEY (path, session, number)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS touches_by_entry ON touches (session, number);
CREATE TABLE IF NOT EXISTS diffstats (
    old TEXT NOT NULL,
    new TEXT NOT NULL,
    added INTEGER NOT NULL,
    removed INTEGER NOT NULL,
    binary INTEGER NOT NULL,
    PRIMARY KEY (old, new)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS blames (
    path BLOB PRIMARY KEY,
    chain TEXT NOT NULL,
    origins BLOB NOT NULL
) WITHOUT ROWID;
"""


def index_path(store: Store) -> str:
    return store.state_path(INDEX_FILE)


def _connect(path: str) -> sqlite3.Connection:
    connection = sqlite3.connect(path, timeout=_BUSY_SECONDS, isolation_level=None)
    connection.execute("PRAGMA journal_mode=WAL")
    connection.execute("PRAGMA synchronous=NORMAL")
    return connection


def _remove_index(path: str) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        try:
            os.unlink(path + suffix)
        except FileNotFoundError:
            pass


class IndexDatabase:
    """The store's index file, open (``db``); use as a context manager (it closes the
    connection). When the file cannot be opened for writing, ``db`` is an index in memory."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.path = index_path(store)
        self.in_memory = False
        try:
            self.db = self._open()
        except sqlite3.OperationalError as error:  # a full disk, a read-only store
            self.db = self._in_memory(error)

    def _open(self) -> sqlite3.Connection:
        try:
            return self._open_checked()
        except sqlite3.OperationalError:
            raise
        except sqlite3.DatabaseError as error:
            self.store.log_problem(f"the index {self.path} was unusable ({error}); rebuilt it")
            _remove_index(self.path)
            return self._open_checked()

    def _in_memory(self, error: Exception) -> sqlite3.Connection:
        """An index of this process only, made from the commits: slower, never wrong."""
        self.store.log_problem(
            f"the index {self.path} could not be written ({error}); read the commits instead"
        )
        self.in_memory = True
        self.path = ":memory:"
        return self._open_checked()

    def _open_checked(self) -> sqlite3.Connection:
        db = _connect(self.path)
        try:
            db.executescript(_SCHEMA)
            row = db.execute("SELECT value FROM meta WHERE key = 'format'").fetchone()
            if row is None:
                db.execute("INSERT OR REPLACE INTO meta VALUES ('format', ?)", (FORMAT,))
            elif row[0] != FORMAT:
                db.close()
                _remove_index(self.path)  # a cache of another format: made again
                return self._open_checked()
        except BaseException:
            db.close()
            raise
        return db

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.db.close()
