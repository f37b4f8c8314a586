"""The match store: one SQLite file holding matches, participants, their lines and progress.

Every write is one transaction (``BEGIN IMMEDIATE`` ... ``COMMIT``), and a line is written one
action at a time, so a crash loses at most the action in flight; `progress` is where a line
resumes. The file runs in WAL mode with ``synchronous=NORMAL``: a commit survives a crash of the
process (not necessarily a power cut, which may lose the last commits but never corrupts the
file). ``meta.schema_version`` names the layout; a file of another version is refused.

The store also keeps each match's life: created open with its seed committed
(`match.commitment`), joined by participants, closed by `close_match` (explicitly, at the
deadline via `refresh`, or once the expected participants have all finished), and sealed until
then (`require_closed`). The seed is in the file from the start: sealing is enforced by the
commands, for participants who use them; whoever holds the file is the trusted organiser.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import os
import secrets
import sqlite3

from holdemjax.duplicate import match as M
from holdemjax.validate import require_int

__all__ = ["SCHEMA_VERSION", "Store", "MatchRecord", "Participant", "Line", "Sealed"]

SCHEMA_VERSION = 1
_REF = "ref:"  # reference lines: "ref:<tier>", played at close; no participant may use the prefix

_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE matches (
    id TEXT PRIMARY KEY, created_at TEXT NOT NULL, spec TEXT NOT NULL,
    seed INTEGER NOT NULL, salt TEXT NOT NULL, commitment TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('open', 'closed')),
    closed_at TEXT, close_reason TEXT);
CREATE TABLE participants (
    match_id TEXT NOT NULL REFERENCES matches(id), name TEXT NOT NULL, kind TEXT NOT NULL,
    source TEXT NOT NULL, sha256 TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('playing', 'finished', 'unfinished')),
    joined_at TEXT NOT NULL, finished_at TEXT, seq INTEGER NOT NULL,
    PRIMARY KEY (match_id, name));
CREATE TABLE actions (
    match_id TEXT NOT NULL, name TEXT NOT NULL, hand INTEGER NOT NULL, idx INTEGER NOT NULL,
    street INTEGER NOT NULL, seat INTEGER NOT NULL, code INTEGER NOT NULL,
    amount_to INTEGER NOT NULL, added INTEGER NOT NULL, auto TEXT,
    PRIMARY KEY (match_id, name, hand, idx));
CREATE TABLE hands (
    match_id TEXT NOT NULL, name TEXT NOT NULL, hand INTEGER NOT NULL,
    hero_net INTEGER NOT NULL, record TEXT NOT NULL,
    PRIMARY KEY (match_id, name, hand));
"""


class Sealed(M.MatchError):
    """Results, histories and progress of an open match are sealed."""


@dataclasses.dataclass(frozen=True)
class MatchRecord:
    """One match row. ``seed`` and ``salt`` are for the engine and for `verify` only: show them
    only when ``state == "closed"``."""

    id: str
    created_at: str
    spec: M.MatchSpec
    seed: int
    salt: str
    commitment: str
    state: str
    closed_at: str | None
    close_reason: str | None


@dataclasses.dataclass(frozen=True)
class Participant:
    name: str
    kind: str  # "wasm", "bot", "person" or "reference"
    source: str
    sha256: str
    status: str  # "playing", "finished", "unfinished" (closed before its end)
    joined_at: str
    finished_at: str | None


@dataclasses.dataclass
class Line:
    """A participant's line: its finished hands by index (`match.Hand.record` dicts)."""

    participant: Participant
    hands: dict

    @property
    def name(self) -> str:
        return self.participant.name

    @property
    def reference(self) -> bool:
        return self.participant.kind == "reference"


class Store:
    """One store file (created with its schema if missing). Use as a context manager or `close`."""

    def __init__(self, path: str | os.PathLike):
        self.path = os.fspath(path)
        # isolation_level=None: transactions are explicit (BEGIN IMMEDIATE takes the write lock
        # up front, so two processes playing in one store queue instead of deadlocking).
        try:
            self._db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        except sqlite3.Error as exc:
            raise ValueError(f"cannot open the match store {self.path}: {exc}") from None
        try:
            self._open()
        except BaseException as exc:
            self._db.close()
            if isinstance(exc, sqlite3.DatabaseError):
                raise ValueError(f"{self.path} is not a match store: {exc}") from None
            raise

    def _open(self) -> None:
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute("PRAGMA foreign_keys=ON")
        with self._tx() as db:  # under the write lock: two processes may open a new file
            tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master")}
            if "meta" not in tables:
                if tables:
                    raise ValueError(f"{self.path} is an SQLite file but not a match store "
                                     f"(tables: {sorted(tables)})")
                # statement by statement: executescript() would commit the transaction
                for stmt in filter(str.strip, _SCHEMA.split(";")):
                    db.execute(stmt)
                db.execute("INSERT INTO meta VALUES ('schema_version', ?)",
                           (str(SCHEMA_VERSION),))
        version = self._one("SELECT value FROM meta WHERE key = 'schema_version'")
        if version != str(SCHEMA_VERSION):
            raise ValueError(f"{self.path}: match store schema version {version}, this holdemjax "
                             f"reads version {SCHEMA_VERSION}")

    # ------------------------------------------------------------------------ plumbing
    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _tx(self):
        store = self

        class _Tx:
            def __enter__(self):
                store._db.execute("BEGIN IMMEDIATE")
                return store._db

            def __exit__(self, kind, *rest):
                store._db.execute("ROLLBACK" if kind else "COMMIT")

        return _Tx()

    def _one(self, sql: str, args=()):
        row = self._db.execute(sql, args).fetchone()
        return None if row is None else row[0]

    # ------------------------------------------------------------------------ matches
    def create_match(self, spec: M.MatchSpec, seed: int | None = None,
                     now: dt.datetime | None = None) -> MatchRecord:
        """A new open match; ``seed`` None draws one. Returns its record (print only ``id`` and
        ``commitment`` while it is open)."""
        if seed is None:
            seed = secrets.randbelow(M.SEED_LIMIT)
        seed = require_int("seed", seed, 0, M.SEED_LIMIT - 1)
        now = now or M.utcnow()
        if spec.deadline is not None and M.parse_time(spec.deadline) <= now:
            raise ValueError(f"deadline {spec.deadline} is not in the future")
        salt = M.new_salt()
        with self._tx() as db:
            while True:
                match_id = secrets.token_hex(4)
                if db.execute("SELECT 1 FROM matches WHERE id = ?", (match_id,)).fetchone() is None:
                    break
            db.execute("INSERT INTO matches VALUES (?, ?, ?, ?, ?, ?, 'open', NULL, NULL)",
                       (match_id, now.isoformat(), json.dumps(spec.as_dict()), seed, salt,
                        M.commitment(seed, salt)))
        return self.match(match_id)

    def match(self, match_id: str) -> MatchRecord:
        """The match ``match_id``; MatchError naming the known ids when there is none."""
        row = self._db.execute("SELECT * FROM matches WHERE id = ?", (match_id,)).fetchone()
        if row is None:
            known = [r[0] for r in self._db.execute("SELECT id FROM matches ORDER BY created_at")]
            raise M.MatchError(f"no match {match_id!r} in {self.path}; matches: "
                               f"{', '.join(known) or 'none'}")
        spec = M.MatchSpec.from_dict(json.loads(row[2]))
        return MatchRecord(row[0], row[1], spec, int(row[3]), row[4], row[5], row[6], row[7],
                           row[8])

    def match_ids(self) -> list[str]:
        return [r[0] for r in self._db.execute("SELECT id FROM matches ORDER BY created_at")]

    # -------------------------------------------------------------------- participants
    def participants(self, match_id: str, *, references: bool = False) -> list[Participant]:
        """Participants in joining order (reference lines only with ``references``)."""
        rows = self._db.execute(
            "SELECT name, kind, source, sha256, status, joined_at, finished_at FROM participants "
            "WHERE match_id = ? ORDER BY seq", (match_id,))
        out = [Participant(*r) for r in rows]
        return out if references else [p for p in out if p.kind != "reference"]

    def participant(self, match_id: str, name: str) -> Participant | None:
        return next((p for p in self.participants(match_id, references=True) if p.name == name),
                    None)

    def check_can_join(self, match_id: str, name: str, *, reference: bool = False) -> None:
        """MatchError saying why ``name`` cannot join (bad name, closed, full)."""
        if not isinstance(name, str) or not name.strip() or len(name) > 64:
            raise M.MatchError(f"participant name must be 1..64 characters, got {name!r}")
        if name.startswith(_REF) != reference:
            raise M.MatchError(f"participant name {name!r}: the prefix {_REF!r} is reserved "
                               "for reference lines")
        if self.participant(match_id, name) is not None:
            raise M.MatchError(f"{name!r} already took part in match {match_id}")
        m = self.match(match_id)
        if reference:
            return
        if m.state != "open":
            raise M.MatchError(f"match {match_id} is closed ({m.close_reason})")
        expected = m.spec.participants
        if expected is not None and len(self.participants(match_id)) >= expected:
            raise M.MatchError(f"match {match_id} is full: {expected} participants joined")

    def join(self, match_id: str, name: str, kind: str, source: str, sha256: str,
             now: dt.datetime, *, reference: bool = False) -> None:
        """Add a participant with an empty line (checks `check_can_join` inside the write)."""
        with self._tx() as db:
            self.check_can_join(match_id, name, reference=reference)
            seq = self._one("SELECT COALESCE(MAX(seq), -1) + 1 FROM participants "
                            "WHERE match_id = ?", (match_id,))
            db.execute("INSERT INTO participants VALUES (?, ?, ?, ?, ?, 'playing', ?, NULL, ?)",
                       (match_id, name, kind, source, sha256, now.isoformat(), seq))

    # ----------------------------------------------------------------------------- lines
    def _playing(self, match_id: str, name: str) -> bool:
        return self._one("SELECT status FROM participants WHERE match_id = ? AND name = ?",
                         (match_id, name)) == "playing"

    def add_action(self, match_id: str, name: str, hand: int, idx: int, action) -> bool:
        """Save one action ``[street, seat, code, to, added, auto]`` of an unfinished hand.
        Returns False, saving nothing, when the line was closed meanwhile (the match closed in
        another process): a closed line never grows."""
        with self._tx() as db:
            if not self._playing(match_id, name):
                return False
            db.execute("INSERT INTO actions VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                       (match_id, name, hand, idx, *[int(x) for x in action[:5]], action[5]))
        return True

    def finish_hand(self, match_id: str, name: str, record: dict, *, last: bool,
                    now: dt.datetime) -> bool:
        """Save a finished hand (and finish the line after its last hand), in one transaction;
        False when the line was closed meanwhile (nothing saved)."""
        with self._tx() as db:
            if not self._playing(match_id, name):
                return False
            db.execute("INSERT INTO hands VALUES (?, ?, ?, ?, ?)",
                       (match_id, name, record["hand"], record["hero_net"], json.dumps(record)))
            if last:
                db.execute("UPDATE participants SET status = 'finished', finished_at = ? "
                           "WHERE match_id = ? AND name = ? AND status = 'playing'",
                           (now.isoformat(), match_id, name))
        return True

    def progress(self, match_id: str, name: str) -> tuple[int, list]:
        """(index of the first unfinished hand, the actions stored for it so far)."""
        done = self._one("SELECT COUNT(*) FROM hands WHERE match_id = ? AND name = ?",
                         (match_id, name))
        rows = self._db.execute(
            "SELECT street, seat, code, amount_to, added, auto FROM actions WHERE match_id = ? "
            "AND name = ? AND hand = ? ORDER BY idx", (match_id, name, done)).fetchall()
        return int(done), [list(r) for r in rows]

    def lines(self, match_id: str, *, references: bool = True) -> dict[str, Line]:
        """Every participant's line by name, finished hands only (the sealed data: callers
        outside this module go through `require_closed` first)."""
        out = {p.name: Line(p, {}) for p in self.participants(match_id, references=references)}
        for name, hand, record in self._db.execute(
                "SELECT name, hand, record FROM hands WHERE match_id = ? ORDER BY hand",
                (match_id,)):
            if name in out:
                out[name].hands[int(hand)] = json.loads(record)
        return out

    # ------------------------------------------------------------------------ life cycle
    def refresh(self, match_id: str, now: dt.datetime | None = None) -> str:
        """Close the match if its deadline passed, or if the expected participants all joined
        and finished; return its state ("open" / "closed")."""
        m = self.match(match_id)
        if m.state != "open":
            return m.state
        now = now or M.utcnow()
        if m.spec.deadline is not None and now >= M.parse_time(m.spec.deadline):
            self.close_match(match_id, "deadline", now)
            return "closed"
        parts = self.participants(match_id)
        expected = m.spec.participants
        if (expected is not None and len(parts) >= expected
                and all(p.status != "playing" for p in parts)):
            self.close_match(match_id, "complete", now)
            return "closed"
        return "open"

    def close_match(self, match_id: str, reason: str = "closed",
                    now: dt.datetime | None = None) -> MatchRecord:
        """Close the match (idempotent): unfinished lines are closed as played so far (kept,
        status "unfinished"), the seed is revealed, and the reference lines are played."""
        now = now or M.utcnow()
        with self._tx() as db:
            if self.match(match_id).state == "open":
                db.execute("UPDATE participants SET status = 'unfinished', finished_at = ? "
                           "WHERE match_id = ? AND status = 'playing' AND kind != 'reference'",
                           (now.isoformat(), match_id))
                db.execute("UPDATE matches SET state = 'closed', closed_at = ?, close_reason = ? "
                           "WHERE id = ?", (now.isoformat(), reason, match_id))
        self.ensure_references(match_id)
        return self.match(match_id)

    def ensure_references(self, match_id: str) -> None:
        """Play (or finish) a reference line per tier ("ref:<tier>" in the hero seat, the hero
        seat's key) over every hand: the style table's bot rows and the comparison line of a
        one-participant match."""
        for tier in M.tier_names():
            name = _REF + tier
            part = self.participant(match_id, name)
            if part is None or part.status == "playing":
                M.play_line(self, match_id, name, M.BotHero(tier), kind="reference",
                            reference=True)

    def require_closed(self, match_id: str, now: dt.datetime | None = None) -> MatchRecord:
        """The match record if it is closed; `Sealed` (saying how it will close) if not."""
        if self.refresh(match_id, now) == "closed":
            m = self.match(match_id)
            self.ensure_references(match_id)
            return m
        m = self.match(match_id)
        parts = self.participants(match_id)
        ways = [f"`holdemjax duplicate close {match_id}`"]
        if m.spec.deadline:
            ways.append(f"its deadline {m.spec.deadline}")
        if m.spec.participants is not None:
            ways.append(f"all {m.spec.participants} participants finishing "
                        f"({len(parts)} joined)")
        raise Sealed(f"match {match_id} is sealed until it closes: results, hand histories and "
                     f"progress stay hidden; it closes by {' or '.join(ways)}")

    def verify(self, match_id: str, commitment: str | None = None) -> dict:
        """Check a closed match: the revealed seed and salt hash to the commitment (the stored
        one, and ``commitment`` if given: the one published at creation), and every stored hand
        of every line holds the hole cards and board of the deck recomputed from the seed.
        Returns ``{"ok", "problems", "hands_checked", ...}``."""
        from holdemjax.poker.cards import BOARD_OFFSET, BOARD_SIZE, card_text

        m = self.require_closed(match_id)
        recomputed = M.commitment(m.seed, m.salt)
        problems = []
        for label, published in (("stored", m.commitment), ("given", commitment)):
            if published is not None and published.strip().lower() != recomputed:
                problems.append(f"the {label} commitment {published} is not SHA-256 of "
                                f"'{m.salt}:{m.seed}' = {recomputed}")
        n, decks, checked = m.spec.seats, {}, 0
        for line in self.lines(match_id).values():
            for h, rec in sorted(line.hands.items()):
                if h not in decks:
                    d = [card_text(int(c)) for c in M.deck(m.seed, h)]
                    decks[h] = ([d[2 * s:2 * s + 2] for s in range(n)],
                                d[BOARD_OFFSET:BOARD_OFFSET + BOARD_SIZE])
                hole, board = decks[h]
                if rec["hole"] != hole or rec["board"] != board:
                    problems.append(f"{line.name} hand {h + 1}: stored cards {rec['hole']} "
                                    f"{rec['board']} differ from the deck of the seed: {hole} "
                                    f"{board}")
                checked += 1
        return {"match": match_id, "seed": m.seed, "salt": m.salt, "commitment": m.commitment,
                "recomputed": recomputed, "hands_checked": checked, "decks": len(decks),
                "problems": problems, "ok": not problems}
