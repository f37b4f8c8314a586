"""The match store: the one sealed-aware repository over one SQLite file.

Every read of lines, results, progress or seed goes through a public method of `Store`, and
none of them returns sealed data for an open match (``tests/duplicate/test_sealing.py`` calls
every public method on an open match and looks for it in what comes back):

* `match` shows the seed and salt only once the match is closed (`MatchRecord.seed` is None
  before); the commitment is public from creation;
* `participants` shows, while the match is open, only who took part (status ``"joined"``):
  not their progress, not their pauses;
* `lines` and `verify` raise `Sealed` while the match is open; `progress` too, except for the
  participant's own line with its key;
* a participant's own line is dealt through `seat` with the key `join` returned (only its
  SHA-256 is stored): the `Seat` deals the next hand and plays the bots; the seed never leaves it.

The CLI and the web service are clients of this class alone. Whoever holds the file can still
open it with sqlite3: the service is the way to keep the seed from participants.

Every write is one transaction (``BEGIN IMMEDIATE`` ... ``COMMIT``), and a line is written one
action at a time, so a crash loses at most the action in flight. WAL mode, ``synchronous=NORMAL``.
``meta.schema_version`` names the layout; a version-1 file is upgraded in place (its 32-bit
seeds deal as before, `spec.root_key`; its matches have no recorded versions), others refused.

A match closes (`refresh`) at its deadline (unfinished lines are kept as played, status
``"unfinished"``), or as soon as nobody can join any more (the expected participants joined, or
the operator closed the field: `close_field`) and every line that joined is finished (reason
``"complete"``; nobody is forfeited on that path), or when the operator closes it.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import os
import secrets
import sqlite3

from holdemjax.duplicate import match as M
from holdemjax.duplicate.doors import Doors, Refused, Unknown, WrongKey
from holdemjax.duplicate.doors import key_hash as _key_hash
from holdemjax.duplicate.names import BadName, fold, normal
from holdemjax.duplicate.schema import SCHEMA, UPGRADE_1, create_private, private_companions
from holdemjax.duplicate.seat import Seat
from holdemjax.validate import require_int

__all__ = ["SCHEMA_VERSION", "Store", "MatchRecord", "Participant", "Line", "Sealed", "JOINED"]

SCHEMA_VERSION = 2
JOINED = "joined"  # the status every participant shows while the match is open
_REF = "ref:"  # reference lines: "ref:<tier>", played at close; no participant may use the prefix

class Sealed(M.MatchError):
    """Results, histories and progress of an open match are sealed."""


@dataclasses.dataclass(frozen=True)
class MatchRecord:
    """One match as anyone may see it: ``seed`` and ``salt`` are None until it is closed.
    ``versions``: the checksums it was created under (`spec.versions`; empty for a match of a
    version-1 store)."""

    id: str
    created_at: str
    spec: M.MatchSpec
    seed: int | None
    salt: str | None
    commitment: str
    state: str
    closed_at: str | None
    close_reason: str | None
    versions: dict
    field_closed: bool


@dataclasses.dataclass(frozen=True)
class Participant:
    name: str
    kind: str  # "wasm", "bot", "person", "api" or "reference"
    source: str
    sha256: str
    status: str  # "playing", "finished", "unfinished"; JOINED while the match is open
    joined_at: str
    finished_at: str | None


@dataclasses.dataclass
class Line:
    """A participant's line: its finished hands by index (`match.Hand.record` dicts) and the
    thinking time of each hero decision, in ms (``think_ms``; None where not measured)."""

    participant: Participant
    hands: dict
    think_ms: list = dataclasses.field(default_factory=list)

    @property
    def name(self) -> str:
        return self.participant.name

    @property
    def reference(self) -> bool:
        return self.participant.kind == "reference"




class Store(Doors):
    """One store file (created with its schema if missing). Use as a context manager or `close`."""

    def __init__(self, path: str | os.PathLike):
        self.path = os.fspath(path)
        create_private(self.path)  # the file holds the open matches' seeds: mode 0600
        # isolation_level=None: transactions are explicit (BEGIN IMMEDIATE takes the write lock
        # up front, so two processes playing in one store queue instead of deadlocking).
        # check_same_thread=False: the service hands a connection to one worker at a time.
        try:
            self._db = sqlite3.connect(self.path, timeout=30, isolation_level=None,
                                       check_same_thread=False)
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
        self._db.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()  # makes -wal, -shm
        private_companions(self.path)
        with self._tx() as db:  # under the write lock: two processes may open a new file
            tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master")}
            if "meta" not in tables:
                if tables:
                    raise ValueError(f"{self.path} is an SQLite file but not a match store "
                                     f"(tables: {sorted(tables)})")
                # statement by statement: executescript() would commit the transaction
                for stmt in filter(str.strip, SCHEMA.split(";")):
                    db.execute(stmt)
                db.execute("INSERT INTO meta VALUES ('schema_version', ?)",
                           (str(SCHEMA_VERSION),))
            elif self._one("SELECT value FROM meta WHERE key = 'schema_version'") == "1":
                for stmt in filter(str.strip, UPGRADE_1.split(";")):
                    db.execute(stmt)
        version = self._one("SELECT value FROM meta WHERE key = 'schema_version'")
        if version != str(SCHEMA_VERSION):
            raise ValueError(f"{self.path}: match store schema version {version}, this holdemjax "
                             f"reads versions 1 and {SCHEMA_VERSION}")
        self._db.execute("PRAGMA foreign_keys=ON")

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
        """A new open match under this process's `spec.versions`; ``seed`` None draws a
        128-bit one. Returns its public record (id and commitment; no seed)."""
        seed = M.new_seed() if seed is None else require_int("seed", seed, 0, M.SEED_LIMIT - 1)
        now = now or M.utcnow()
        if spec.deadline is not None and M.parse_time(spec.deadline) <= now:
            raise ValueError(f"deadline {spec.deadline} is not in the future")
        salt = M.new_salt()
        with self._tx() as db:
            while True:
                match_id = secrets.token_hex(4)
                if db.execute("SELECT 1 FROM matches WHERE id = ?", (match_id,)).fetchone() is None:
                    break
            db.execute("INSERT INTO matches VALUES (?, ?, ?, ?, ?, ?, 'open', NULL, NULL, ?, 0)",
                       (match_id, now.isoformat(), json.dumps(spec.as_dict()), str(seed), salt,
                        M.commitment(seed, salt), json.dumps(M.versions())))
        return self.match(match_id)

    def _row(self, match_id: str):
        row = self._db.execute(
            "SELECT id, created_at, spec, seed, salt, commitment, state, closed_at, close_reason, "
            "versions, field_closed FROM matches WHERE id = ?", (match_id,)).fetchone()
        if row is None:  # nothing about the file or the other matches: `doors.Unknown`
            raise Unknown(f"no match {match_id!r}")
        return row

    def _record(self, match_id: str, *, reveal: bool) -> MatchRecord:
        r = self._row(match_id)
        shown = reveal or r[6] == "closed"
        return MatchRecord(r[0], r[1], M.MatchSpec.from_dict(json.loads(r[2])),
                           int(r[3]) if shown else None, r[4] if shown else None, r[5], r[6],
                           r[7], r[8], json.loads(r[9]), bool(r[10]))

    def match(self, match_id: str) -> MatchRecord:
        """The match ``match_id`` (seed and salt only once closed); `doors.Unknown` when there
        is none."""
        return self._record(match_id, reveal=False)

    def match_ids(self) -> list[str]:
        return [r[0] for r in self._db.execute("SELECT id FROM matches ORDER BY created_at")]

    # -------------------------------------------------------------------- participants
    def _participants(self, match_id: str) -> list[Participant]:
        rows = self._db.execute(
            "SELECT name, kind, source, sha256, status, joined_at, finished_at FROM participants "
            "WHERE match_id = ? ORDER BY seq", (match_id,))
        return [Participant(*r) for r in rows]

    def participants(self, match_id: str, *, references: bool = False) -> list[Participant]:
        """Participants in joining order (reference lines only with ``references``). While the
        match is open every status is `JOINED` and ``finished_at`` None: taking part is all
        that shows."""
        out = [p for p in self._participants(match_id) if references or p.kind != "reference"]
        if self._row(match_id)[6] == "open":
            out = [dataclasses.replace(p, status=JOINED, finished_at=None) for p in out]
        return out

    def participant(self, match_id: str, name: str) -> Participant | None:
        return next((p for p in self.participants(match_id, references=True) if p.name == name),
                    None)

    def check_can_join(self, match_id: str, name: str, *, reference: bool = False) -> None:
        """Why ``name`` cannot join: `names.BadName` (a ValueError) for a name that breaks the
        rules of `names.normal` or is not written in its normal form; `doors.Refused` for a
        name taken (`names.fold`: case and look-alike letters do not make a new name), a
        closed match, a full one, a closed field."""
        canon = normal(name)
        if canon != name:
            raise BadName(f"participant name {name!r} is not in its normal form: write "
                          f"{canon!r} (NFKC, no white space around it)")
        if fold(name).startswith(_REF) != reference:
            raise BadName(f"participant name {name!r}: the prefix {_REF!r} is reserved "
                          "for reference lines")
        mine = fold(name)
        taken = next((p.name for p in self._participants(match_id) if fold(p.name) == mine),
                     None)
        if taken is not None:
            same = "" if taken == name else f" (as {taken!r}: case and look-alike letters count"\
                                            " as the same name)"
            raise Refused(f"{name!r} already took part in match {match_id}{same}")
        m = self.match(match_id)
        if reference:
            return
        if m.state != "open":
            raise Refused(f"match {match_id} is closed ({m.close_reason})")
        if m.field_closed:
            raise Refused(f"match {match_id} takes no more participants (field closed)")
        expected = m.spec.participants
        if expected is not None and len(self.participants(match_id)) >= expected:
            raise Refused(f"match {match_id} is full: {expected} participants joined")

    def join(self, match_id: str, name: str, kind: str, source: str, sha256: str,
             now: dt.datetime, *, key: str | None = None, reference: bool = False) -> str:
        """Add a participant with an empty line (checks `check_can_join` inside the write).
        Returns its key (``key``, or a fresh one): the only way to its line while open."""
        key = secrets.token_urlsafe(24) if key is None else key
        if not isinstance(key, str) or len(key) < 8:
            raise ValueError(f"a participant key must be a string of 8+ characters, got {key!r}")
        with self._tx() as db:
            self.check_can_join(match_id, name, reference=reference)
            seq = self._one("SELECT COALESCE(MAX(seq), -1) + 1 FROM participants "
                            "WHERE match_id = ?", (match_id,))
            db.execute("INSERT INTO participants VALUES (?, ?, ?, ?, ?, 'playing', ?, NULL, ?, ?)",
                       (match_id, name, kind, source, sha256, now.isoformat(), seq,
                        _key_hash(key)))
        return key

    def close_field(self, match_id: str, now: dt.datetime | None = None) -> str:
        """The operator stops joining (idempotent); the match then closes as soon as every
        line that joined is finished. Returns the state after `refresh`."""
        with self._tx() as db:
            db.execute("UPDATE matches SET field_closed = 1 WHERE id = ?", (match_id,))
        return self.refresh(match_id, now)

    # ----------------------------------------------------------------------------- lines
    def _authorized(self, match_id: str, name: str, key: str | None) -> bool:
        stored = self._one("SELECT key_hash FROM participants WHERE match_id = ? AND name = ?",
                           (match_id, name))
        return (stored is not None and isinstance(key, str)
                and secrets.compare_digest(stored, _key_hash(key)))

    def seat(self, match_id: str, name: str, key: str | None, *,
             reference: bool = False) -> Seat:
        """The `Seat` of ``name``'s own line (its key required; `doors.WrongKey`, one message
        for every failure, when the key is wrong or the name unknown)."""
        if not (reference and self._row(match_id)[6] == "closed"):
            if not self._authorized(match_id, name, key):
                raise WrongKey.of(match_id, name)
        m = self._record(match_id, reveal=True)
        part = next(p for p in self._participants(match_id) if p.name == name)
        return Seat(self, m, part, reference=reference)

    def _progress(self, match_id: str, name: str) -> tuple[int, list]:
        done = self._one("SELECT COUNT(*) FROM hands WHERE match_id = ? AND name = ?",
                         (match_id, name))
        rows = self._db.execute(
            "SELECT street, seat, code, amount_to, added, auto FROM actions WHERE match_id = ? "
            "AND name = ? AND hand = ? ORDER BY idx", (match_id, name, done)).fetchall()
        return int(done), [list(r) for r in rows]

    def progress(self, match_id: str, name: str, key: str | None = None) -> tuple[int, list]:
        """(index of the first unfinished hand, the actions stored for it so far): for anyone
        once the match is closed, before only with the line's key."""
        if self._row(match_id)[6] != "closed" and not self._authorized(match_id, name, key):
            raise Sealed(f"match {match_id} is open: the progress of {name!r} is sealed")
        return self._progress(match_id, name)

    def lines(self, match_id: str, *, references: bool = True) -> dict[str, Line]:
        """Every participant's line by name, finished hands only (`Sealed` while open)."""
        self.require_closed(match_id)
        return self._lines(match_id, references)

    def _lines(self, match_id: str, references: bool) -> dict[str, Line]:
        out = {p.name: Line(p, {}) for p in self._participants(match_id)
               if references or p.kind != "reference"}
        for name, hand, record in self._db.execute(
                "SELECT name, hand, record FROM hands WHERE match_id = ? ORDER BY hand",
                (match_id,)):
            if name in out:
                out[name].hands[int(hand)] = json.loads(record)
        for name, ms in self._db.execute(
                "SELECT a.name, a.think_ms FROM actions a JOIN hands h ON a.match_id = h.match_id "
                "AND a.name = h.name AND a.hand = h.hand WHERE a.match_id = ? AND a.seat = ? "
                "ORDER BY a.hand, a.idx", (match_id, self.match(match_id).spec.hero)):
            if name in out:
                out[name].think_ms.append(ms)
        return out

    # ------------------------------------------------------------------------ life cycle
    def refresh(self, match_id: str, now: dt.datetime | None = None) -> str:
        """Close the match if its deadline passed (reason "deadline"), or if nobody can join
        any more and every line that joined is finished (reason "complete"); return its state."""
        m = self.match(match_id)
        if m.state != "open":
            return m.state
        now = now or M.utcnow()
        if m.spec.deadline is not None and now >= M.parse_time(m.spec.deadline):
            self.close_match(match_id, "deadline", now)
            return "closed"
        parts = [p for p in self._participants(match_id) if p.kind != "reference"]
        expected = m.spec.participants
        nobody_can_join = m.field_closed or (expected is not None and len(parts) >= expected)
        if nobody_can_join and parts and all(p.status == "finished" for p in parts):
            self._close_complete(match_id, now)
            return "closed"
        return "open"

    def _close_complete(self, match_id: str, now: dt.datetime) -> None:
        # The early path: every line is finished, so no status changes (nobody is forfeited).
        with self._tx() as db:
            db.execute("UPDATE matches SET state = 'closed', closed_at = ?, close_reason = "
                       "'complete' WHERE id = ? AND state = 'open' AND NOT EXISTS (SELECT 1 "
                       "FROM participants WHERE match_id = ? AND status = 'playing' AND kind "
                       "!= 'reference')", (now.isoformat(), match_id, match_id))
        self._ensure_references(match_id)

    def close_match(self, match_id: str, reason: str = "closed",
                    now: dt.datetime | None = None, *, progress=None) -> MatchRecord:
        """Close the match (idempotent): unfinished lines are closed as played so far (kept,
        status "unfinished"), the seed is revealed, and the reference lines are played
        (``progress(done, total)``: hands of reference lines played so far, of all)."""
        now = now or M.utcnow()
        with self._tx() as db:
            if self.match(match_id).state == "open":
                db.execute("UPDATE participants SET status = 'unfinished', finished_at = ? "
                           "WHERE match_id = ? AND status = 'playing' AND kind != 'reference'",
                           (now.isoformat(), match_id))
                db.execute("UPDATE matches SET state = 'closed', closed_at = ?, close_reason = ? "
                           "WHERE id = ?", (now.isoformat(), reason, match_id))
        self._ensure_references(match_id, progress)
        return self.match(match_id)

    def play_references(self, match_id: str, progress=None) -> None:
        """Play what is missing of the reference lines (sealed like every line; played at
        creation by the CLI and the service, else at close): one per tier, ``"ref:<tier>"``
        in the hero seat with the hero seat's key, over every hand; the style table's bot rows
        and the comparison of a one-participant match. ``progress(done, total)`` in hands."""
        self._ensure_references(match_id, progress)

    def _ensure_references(self, match_id: str, progress=None) -> None:
        tiers = M.tier_names()
        hands = self.match(match_id).spec.hands
        for i, tier in enumerate(tiers):
            name = _REF + tier
            part = next((p for p in self._participants(match_id) if p.name == name), None)
            if part is None or part.status == "playing":
                each = None if progress is None else (
                    lambda done, _, i=i: progress(i * hands + done, len(tiers) * hands))
                M.play_line(self, match_id, name, M.BotHero(tier), kind="reference",
                            reference=True, progress=each)

    def require_closed(self, match_id: str, now: dt.datetime | None = None) -> MatchRecord:
        """The match record if it is closed; `Sealed` (saying how it will close) if not."""
        if self.refresh(match_id, now) == "closed":
            self._ensure_references(match_id)
            return self.match(match_id)
        m = self.match(match_id)
        ways = [f"`holdemjax duplicate close {match_id}`"]
        if m.spec.deadline:
            ways.append(f"its deadline {m.spec.deadline}")
        ways.append("every line finishing once nobody can join"
                    + (f" ({m.spec.participants} participants)" if m.spec.participants else
                       " (the operator closes the field)"))
        raise Sealed(f"match {match_id} is sealed until it closes: results, hand histories and "
                     f"progress stay hidden; it closes by {' or '.join(ways)}")

    def verify(self, match_id: str, commitment: str | None = None) -> dict:
        """`verify.verify` of a closed match (`Sealed` while open)."""
        from holdemjax.duplicate import verify

        m = self.require_closed(match_id)
        return verify.verify(m, self._lines(match_id, True), commitment)
