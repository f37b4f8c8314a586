"""The match store's SQLite layout (`SCHEMA_VERSION` 5) and the upgrades of version-1 to
version-4 files. Statements are separated by ``;`` (a trigger's body kept whole) and run one by
one inside the store's transaction (foreign keys are off while it runs: the new ``matches`` table
replaces the old one in place). The file holds the open matches' seeds: `create_private` and
`private_companions` keep it and its ``-wal`` and ``-shm`` files mode 0600."""

import os
import sqlite3

__all__ = ["SCHEMA_VERSION", "SCHEMA", "VERIFIED", "CLOCKS", "UPGRADE_1", "UPGRADE_2",
           "UPGRADE_3", "UPGRADE_4", "create_private", "private_companions", "install"]

SCHEMA_VERSION = 5  # `meta.schema_version` of the layout below


def create_private(path: str) -> None:
    """Create the store file ``path`` with mode 0600 if it does not exist (before sqlite opens
    it: sqlite gives the -wal and -shm files the database file's mode)."""
    if path == ":memory:" or os.path.exists(path):
        return
    try:
        os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o600))
    except OSError as exc:
        raise ValueError(f"cannot create the match store {path}: {exc}") from None


def private_companions(path: str) -> None:
    """Mode 0600 for the -wal and -shm files of a private store file, whatever the umask (a
    file the user opened up on purpose keeps companions like it)."""
    try:
        if os.stat(path).st_mode & 0o077:
            return
    except OSError:
        return
    for companion in (path + "-wal", path + "-shm"):
        try:
            os.chmod(companion, 0o600)
        except OSError:
            pass  # not there (yet): sqlite creates it with the database file's mode

# the service's kept verify of a closed match (`store.Store.verify`), and its stamp: any write to
# what a verify reads (the match's row, its participants, its hands) bumps the stamp and drops
# the result, whoever writes (issue 50: computed once, never stale)
_BUMP = """
CREATE TRIGGER verified_{table}_{event}_{row} AFTER {event} ON {table} BEGIN
    INSERT INTO verified (match_id, stamp) VALUES ({row}.{column}, 1)
    ON CONFLICT (match_id) DO UPDATE SET stamp = stamp + 1, result = NULL;
END;"""
VERIFIED = """
CREATE TABLE verified (
    match_id TEXT NOT NULL PRIMARY KEY, stamp INTEGER NOT NULL DEFAULT 0, versions TEXT,
    result TEXT);""" + "".join(
    _BUMP.format(table=table, column=column, event=event, row=row)
    for table, column in (("matches", "id"), ("participants", "match_id"),
                          ("hands", "match_id"))
    for event, rows in (("INSERT", ("NEW",)), ("UPDATE", ("OLD", "NEW")), ("DELETE", ("OLD",)))
    for row in rows)

# the simultaneous matches' clocks (`store.Store.open_round`, `store.Store.mark_clock`): when the
# open hand opened to all (wall-clock seconds) and each line's run of timeouts and away mark, so
# a restart goes on where they stood (issue 50, finding 7)
CLOCKS = """
CREATE TABLE rounds (
    match_id TEXT NOT NULL PRIMARY KEY REFERENCES matches(id), hand INTEGER NOT NULL,
    opened_at REAL NOT NULL);
CREATE TABLE clocks (
    match_id TEXT NOT NULL REFERENCES matches(id), name TEXT NOT NULL,
    timeouts INTEGER NOT NULL DEFAULT 0, away INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (match_id, name));
"""

SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE matches (
    id TEXT PRIMARY KEY, created_at TEXT NOT NULL, spec TEXT NOT NULL,
    seed TEXT NOT NULL, salt TEXT NOT NULL, commitment TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('open', 'closed')),
    closed_at TEXT, close_reason TEXT, versions TEXT NOT NULL DEFAULT '{}',
    field_closed INTEGER NOT NULL DEFAULT 0);
CREATE TABLE participants (
    match_id TEXT NOT NULL REFERENCES matches(id), name TEXT NOT NULL, kind TEXT NOT NULL,
    source TEXT NOT NULL, sha256 TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('playing', 'finished', 'unfinished')),
    joined_at TEXT NOT NULL, finished_at TEXT, seq INTEGER NOT NULL,
    key_hash TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (match_id, name));
CREATE TABLE actions (
    match_id TEXT NOT NULL, name TEXT NOT NULL, hand INTEGER NOT NULL, idx INTEGER NOT NULL,
    street INTEGER NOT NULL, seat INTEGER NOT NULL, code INTEGER NOT NULL,
    amount_to INTEGER NOT NULL, added INTEGER NOT NULL, auto TEXT, think_ms INTEGER,
    PRIMARY KEY (match_id, name, hand, idx));
CREATE TABLE hands (
    match_id TEXT NOT NULL, name TEXT NOT NULL, hand INTEGER NOT NULL,
    hero_net INTEGER NOT NULL, record TEXT NOT NULL,
    PRIMARY KEY (match_id, name, hand));
CREATE TABLE doors (
    match_id TEXT NOT NULL, token_hash TEXT NOT NULL PRIMARY KEY,
    kind TEXT NOT NULL CHECK (kind IN ('share', 'invite')), name TEXT, used_by TEXT,
    cap INTEGER, joins INTEGER NOT NULL DEFAULT 0);
""" + VERIFIED + CLOCKS

# version 1 -> 2: seeds as text (128 bits do not fit SQLite's integers), versions, the field
# flag, participant keys and thinking times.
UPGRADE_1 = """
CREATE TABLE matches_v2 (
    id TEXT PRIMARY KEY, created_at TEXT NOT NULL, spec TEXT NOT NULL,
    seed TEXT NOT NULL, salt TEXT NOT NULL, commitment TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('open', 'closed')),
    closed_at TEXT, close_reason TEXT, versions TEXT NOT NULL DEFAULT '{}',
    field_closed INTEGER NOT NULL DEFAULT 0);
INSERT INTO matches_v2 SELECT id, created_at, spec, CAST(seed AS TEXT), salt, commitment, state,
    closed_at, close_reason, '{}', 0 FROM matches;
DROP TABLE matches;
ALTER TABLE matches_v2 RENAME TO matches;
ALTER TABLE participants ADD COLUMN key_hash TEXT NOT NULL DEFAULT '';
ALTER TABLE actions ADD COLUMN think_ms INTEGER;
CREATE TABLE doors (
    match_id TEXT NOT NULL, token_hash TEXT NOT NULL PRIMARY KEY,
    kind TEXT NOT NULL CHECK (kind IN ('share', 'invite')), name TEXT, used_by TEXT);
UPDATE meta SET value = '2' WHERE key = 'schema_version'
"""

# version 2 -> 3: a share link's cap of joins and its count (issue 36: one line per person)
UPGRADE_2 = """
ALTER TABLE doors ADD COLUMN cap INTEGER;
ALTER TABLE doors ADD COLUMN joins INTEGER NOT NULL DEFAULT 0;
UPDATE meta SET value = '3' WHERE key = 'schema_version'
"""

# version 3 -> 4: the service's kept verify (issue 50, finding 5)
UPGRADE_3 = VERIFIED + """
UPDATE meta SET value = '4' WHERE key = 'schema_version'
"""

# version 4 -> 5: the simultaneous clocks kept (issue 50, finding 7)
UPGRADE_4 = CLOCKS + """
UPDATE meta SET value = '5' WHERE key = 'schema_version'
"""


def _statements(script: str):
    """The statements of ``script`` one by one (executescript() would commit the transaction);
    a trigger's body, with its own ``;``, stays whole."""
    pending = ""
    for piece in script.split(";"):
        pending += piece + ";"
        if sqlite3.complete_statement(pending):
            if pending.strip(" \n;"):
                yield pending
            pending = ""


def install(db, path: str, version: int) -> None:
    """Give the open connection ``db`` (inside the store's write transaction) this layout: a
    new file gets `SCHEMA`, an older one its upgrades; ValueError for another SQLite file or
    another version."""
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master")}
    if "meta" not in tables:
        if tables:
            raise ValueError(f"{path} is an SQLite file but not a match store "
                             f"(tables: {sorted(tables)})")
        for stmt in _statements(SCHEMA):
            db.execute(stmt)
        db.execute("INSERT INTO meta VALUES ('schema_version', ?)", (str(version),))
    now = lambda: db.execute(  # noqa: E731
        "SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[0]
    for old, upgrade in (("1", UPGRADE_1), ("2", UPGRADE_2), ("3", UPGRADE_3),
                         ("4", UPGRADE_4)):
        if now() == old:
            for stmt in _statements(upgrade):
                db.execute(stmt)
    if now() != str(version):
        raise ValueError(f"{path}: match store schema version {now()}, this holdemjax reads "
                         f"versions 1 to {version}")
