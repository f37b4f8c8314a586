"""The store's SQLite file: opened private, its schema installed, one connection per thread.

`Store` inherits `Database` for its plumbing alone; what it reads and writes, and what it
seals, is the store's (`store.Store`). Transactions are explicit: every write is one
``BEGIN IMMEDIATE`` (writers queue), WAL mode, ``synchronous=NORMAL``. Rows come back as
`sqlite3.Row`, read by column name.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
from typing import Self

from holdemjax.duplicate.schema import SCHEMA_VERSION, create_private, install, private_companions

__all__ = ["Database"]


class Database:
    """One store file (created with its schema if missing). Use as a context manager or `close`."""

    def __init__(self, path: str | os.PathLike):
        self.path = os.fspath(path)
        create_private(self.path)  # the file holds the open matches' seeds: mode 0600
        self._local, self._conns, self._guard = threading.local(), [], threading.Lock()
        try:
            self._open()
        except BaseException as exc:
            self.close()
            if isinstance(exc, sqlite3.DatabaseError):
                raise ValueError(f"{self.path} is not a match store: {exc}") from None
            raise

    @property
    def _db(self) -> sqlite3.Connection:
        """This thread's connection. Transactions are explicit (BEGIN IMMEDIATE: writers queue);
        check_same_thread=False only so that `close` may close them all (each has one user)."""
        conn = getattr(self._local, "conn", None)
        if conn is None:
            try:
                conn = sqlite3.connect(self.path, timeout=30, isolation_level=None,
                                       check_same_thread=False)
            except sqlite3.Error as exc:
                raise ValueError(f"cannot open the match store {self.path}: {exc}") from None
            conn.row_factory = sqlite3.Row
            conn.execute("PRAGMA foreign_keys=ON")
            conn.execute("PRAGMA synchronous=NORMAL")
            with self._guard:
                self._conns.append(conn)
            self._local.conn = conn
        return conn

    def _open(self) -> None:
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()  # makes -wal, -shm
        private_companions(self.path)
        with self._tx() as db:  # under the write lock: two processes may open a new file
            install(db, self.path, SCHEMA_VERSION)

    def close(self, *, this_thread: bool = False) -> None:
        """Close every thread's connection (the store is not used after); with ``this_thread``,
        the calling thread's alone (a worker thread done with the store)."""
        with self._guard:
            gone = [getattr(self._local, "conn", None)] if this_thread else self._conns
            self._conns = [c for c in self._conns if c not in gone]
        for conn in filter(None, gone):
            conn.close()
        self._local.conn = None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    @contextlib.contextmanager
    def _tx(self):
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            yield db
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")

    def _one(self, sql: str, args=()):
        """The first column of the first row of ``sql`` (a single value), or None."""
        row = self._db.execute(sql, args).fetchone()
        return None if row is None else row[0]
