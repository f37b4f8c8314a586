"""The match store: the one sealed-aware repository over one SQLite file.

Every read of lines, results, progress or seed goes through a public method of `Store`, and
none of them returns sealed data for an open match (``tests/duplicate/test_sealing.py`` calls
every public method on an open match and looks for it in what comes back):

* `match` shows the seed and salt only once the match is closed; the commitment from creation;
* `participants` shows, while the match is open, only who took part (status ``"joined"``);
* `lines`, `verify` and the kept verify (`kept_verify`, `keep_verify`) raise `Sealed` while the
  match is open; `progress` too, except for the participant's own line with its key;
* a participant's own line is dealt through `seat` with the key `join` returned (only its
  SHA-256 is stored): the `Seat` deals the next hand and plays the bots; the seed never leaves it.

The CLI and the web service are clients of this class alone; this module alone queries the
file (a `Seat` through the `LineRows` the store hands it, `doors.Doors` through its door
methods; the file, its connections and transactions: `database`; its layout: `schema`). It
only stores: it never plays a line. Every write is one transaction, a line one action at a
time. ``meta.schema_version`` names the layout; version-1 to -4 files are upgraded in place
(32-bit seeds deal as before, `spec.root_key`), others refused. A match closes by a call:
`close_match` (the operator), `refresh` (deadline passed, or nobody can join and every line is
finished), never as a side effect of a read.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import secrets
import sqlite3

from holdemjax.duplicate import records
from holdemjax.duplicate import spec as match_spec
from holdemjax.duplicate.database import Database
from holdemjax.duplicate.doors import Doors, Refused, Unknown, WrongKey
from holdemjax.duplicate.doors import key_hash as _key_hash
from holdemjax.duplicate.records import JOINED, Line, MatchRecord, Participant, Round, Sealed
from holdemjax.duplicate.schema import SCHEMA_VERSION
from holdemjax.duplicate.seat import Seat

__all__ = ["SCHEMA_VERSION", "Store", "LineRows", "MatchRecord", "Participant", "Line", "Sealed",
           "JOINED", "Round"]


class Store(Database, Doors):
    """One store file (created with its schema if missing: `database.Database`, its connections
    and transactions). Use as a context manager or `close`."""

    # ------------------------------------------------------------------------ matches
    def create_match(self, spec: match_spec.MatchSpec, seed: int | None = None,
                     now: dt.datetime | None = None) -> MatchRecord:
        """A new open match under this process's `spec.versions`; ``seed`` None draws a
        128-bit one. Returns its public record (id and commitment; no seed)."""
        seed = match_spec.match_seed(seed)
        now = now or match_spec.utcnow()
        if spec.deadline is not None and match_spec.parse_time(spec.deadline) <= now:
            raise ValueError(f"deadline {spec.deadline} is not in the future")
        salt = match_spec.new_salt()
        with self._tx() as db:
            while True:
                match_id = secrets.token_hex(4)
                if db.execute("SELECT 1 FROM matches WHERE id = ?", (match_id,)).fetchone() is None:
                    break
            db.execute("INSERT INTO matches VALUES (?, ?, ?, ?, ?, ?, 'open', NULL, NULL, ?, 0)",
                       (match_id, now.isoformat(), json.dumps(spec.as_dict()), str(seed), salt,
                        match_spec.commitment(seed, salt), json.dumps(match_spec.versions())))
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
        shown = reveal or r["state"] == "closed"
        return MatchRecord(
            id=r["id"], created_at=r["created_at"],
            spec=match_spec.MatchSpec.from_dict(json.loads(r["spec"])),
            seed=int(r["seed"]) if shown else None, salt=r["salt"] if shown else None,
            commitment=r["commitment"], state=r["state"], closed_at=r["closed_at"],
            close_reason=r["close_reason"], versions=json.loads(r["versions"]),
            field_closed=bool(r["field_closed"]))

    def match(self, match_id: str) -> MatchRecord:
        """The match ``match_id`` (seed and salt only once closed); `doors.Unknown` when there
        is none."""
        return self._record(match_id, reveal=False)

    def match_ids(self, *, open_only: bool = False) -> list[str]:
        """The matches' ids, oldest first (``open_only``: the open ones)."""
        where = " WHERE state = 'open'" if open_only else ""
        return [r["id"] for r in self._db.execute(f"SELECT id FROM matches{where} "
                                                  "ORDER BY created_at")]

    # ---------------------------------------------------------- the doors' rows (`doors`)
    def insert_door(self, match_id: str, token_hash: str, kind: str, name: str | None,
                    cap: int | None = None) -> None:
        with self._tx() as db:
            db.execute("INSERT OR IGNORE INTO doors VALUES (?, ?, ?, ?, NULL, ?, 0)",
                       (match_id, token_hash, kind, name, cap))

    def find_door(self, match_id: str, token_hash: str) -> sqlite3.Row | None:
        """The door with that token hash (columns ``kind``, ``name``, ``used_by``, ``cap``,
        ``joins``, in that order), or None."""
        return self._db.execute("SELECT kind, name, used_by, cap, joins FROM doors WHERE "
                                "match_id = ? AND token_hash = ?",
                                (match_id, token_hash)).fetchone()

    def count_join(self, match_id: str, token_hash: str, step: int = 1) -> bool:
        """Count a join through a share link (``step`` -1 gives one back); False at its cap."""
        with self._tx() as db:
            done = db.execute("UPDATE doors SET joins = joins + ? WHERE match_id = ? AND "
                              "token_hash = ? AND (? < 0 OR cap IS NULL OR joins < cap)",
                              (step, match_id, token_hash, step))
            return done.rowcount == 1

    def secret(self) -> bytes:
        """The key the service signs with (made on first use, kept: a restart keeps it)."""
        with self._tx() as db:
            db.execute("INSERT OR IGNORE INTO meta VALUES ('service_secret', ?)",
                       (secrets.token_hex(32),))
        return bytes.fromhex(self._one("SELECT value FROM meta WHERE key = 'service_secret'"))

    def use_door(self, match_id: str, token_hash: str, name: str) -> None:
        with self._tx() as db:
            db.execute("UPDATE doors SET used_by = ? WHERE match_id = ? AND token_hash = ?",
                       (name, match_id, token_hash))

    # -------------------------------------------------------------------- participants
    def _participants(self, match_id: str) -> list[Participant]:
        rows = self._db.execute(
            "SELECT name, kind, source, sha256, status, joined_at, finished_at FROM participants "
            "WHERE match_id = ? ORDER BY seq", (match_id,))
        return [Participant(**r) for r in rows]

    def participants(self, match_id: str, *, references: bool = False) -> list[Participant]:
        """Participants in joining order (reference lines only with ``references``). While the
        match is open every status is `JOINED` and ``finished_at`` None: taking part is all
        that shows."""
        out = [p for p in self._participants(match_id) if references or p.kind != "reference"]
        if self._row(match_id)["state"] == "open":
            out = [dataclasses.replace(p, status=JOINED, finished_at=None) for p in out]
        return out

    def participant(self, match_id: str, name: str) -> Participant | None:
        return next((p for p in self.participants(match_id, references=True) if p.name == name),
                    None)

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
    def authorized(self, match_id: str, name: str, key: str | None) -> bool:
        """Whether ``key`` opens ``name``'s line (False for an unknown name)."""
        stored = self._one("SELECT key_hash FROM participants WHERE match_id = ? AND name = ?",
                           (match_id, name))
        return (stored is not None and isinstance(key, str)
                and secrets.compare_digest(stored, _key_hash(key)))

    def seat(self, match_id: str, name: str, key: str | None, *, reference: bool = False,
             clock: bool = False) -> Seat:
        """The `Seat` of ``name``'s own line (its key required; `doors.WrongKey`, one message
        for every failure, when the key is wrong or the name unknown). ``clock``: no key, for
        the service's clock to play out the hand of a line that is behind in a simultaneous
        match (`round`; `doors.Refused` for any other line)."""
        if clock:
            r = self.round(match_id)
            if r is None or r.hand is None or name not in r.behind:
                raise Refused(f"{name!r} is not behind in a simultaneous match {match_id}")
        elif not (reference and self._row(match_id)["state"] == "closed"):
            if not self.authorized(match_id, name, key):
                raise WrongKey.of(match_id, name)
        m = self._record(match_id, reveal=True)
        part = next(p for p in self._participants(match_id) if p.name == name)
        return Seat(LineRows(self, match_id, name), m, part, reference=reference)

    def joining_seat(self, match_id: str) -> Seat:
        """A `Seat` of no line (versions checked, a hero begun before it joins)."""
        return Seat(None, self._record(match_id, reveal=True), None)

    def round(self, match_id: str) -> Round | None:
        """Where a simultaneous match (`MatchSpec.simultaneous`) stands: the hand open to every
        line and the lines that have not finished it (`records.Round`); None for a match that is
        not simultaneous or is closed. Public to the field by design: everyone plays hand k at
        once, so who is still on it is who everyone waits for; nothing else of a line shows."""
        m = self.match(match_id)
        if not m.spec.simultaneous or m.state != "open":
            return None
        parts = [p.name for p in self._participants(match_id) if p.kind != "reference"]
        if not parts or not m.field_complete(len(parts)):
            return Round(None, ())  # nothing is dealt before the field is complete
        done = {r["name"]: r["hands"] for r in self._db.execute(
            "SELECT name, COUNT(*) AS hands FROM hands WHERE match_id = ? GROUP BY name",
            (match_id,))}
        hand = min(done.get(n, 0) for n in parts)
        return Round(hand, tuple(n for n in parts if done.get(n, 0) == hand)
                     if hand < m.spec.hands else ())

    def open_round(self, match_id: str, hand: int, now: float) -> float:
        """When hand ``hand`` of a simultaneous match opened to all, in wall-clock seconds: the
        ``now`` of the first call for that hand (a later hand replaces an earlier one). Kept, so
        that a restarted service runs the hand's clock on from there (issue 50, finding 7)."""
        with self._tx() as db:
            db.execute("INSERT INTO rounds VALUES (?, ?, ?) ON CONFLICT (match_id) DO UPDATE "
                       "SET hand = excluded.hand, opened_at = excluded.opened_at "
                       "WHERE hand < excluded.hand", (match_id, hand, now))
            row = db.execute("SELECT hand, opened_at FROM rounds WHERE match_id = ?",
                             (match_id,)).fetchone()
        return float(row["opened_at"]) if row["hand"] == hand else now

    def clock_marks(self, match_id: str, name: str) -> tuple[int, bool]:
        """(the hands run out in a row, away) of a line of a simultaneous match, as
        `mark_clock` kept them ((0, False) when never kept). Public to the field like `round`:
        whether the field waits for a line is what everyone sees."""
        row = self._db.execute("SELECT timeouts, away FROM clocks WHERE match_id = ? AND "
                               "name = ?", (match_id, name)).fetchone()
        return (0, False) if row is None else (int(row["timeouts"]), bool(row["away"]))

    def mark_clock(self, match_id: str, name: str, timeouts: int, away: bool) -> None:
        """Keep a line's run of hands run out and its away mark (`clock_marks` reads them)."""
        with self._tx() as db:
            db.execute("INSERT OR REPLACE INTO clocks VALUES (?, ?, ?, ?)",
                       (match_id, name, int(timeouts), int(bool(away))))

    def references(self, match_id: str) -> dict[str, str]:
        """Reference line -> its status: the house's bot lines, not sealed (`references`)."""
        self._row(match_id)
        return {p.name: p.status for p in self._participants(match_id)
                if p.kind == "reference"}

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
        if self._row(match_id)["state"] != "closed" and not self.authorized(match_id, name, key):
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
        now = now or match_spec.utcnow()
        if m.spec.deadline is not None and now >= match_spec.parse_time(m.spec.deadline):
            self.close_match(match_id, "deadline", now)
            return "closed"
        parts = [p for p in self._participants(match_id) if p.kind != "reference"]
        if m.field_complete(len(parts)) and parts and all(p.status == "finished" for p in parts):
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

    def close_match(self, match_id: str, reason: str = "closed",
                    now: dt.datetime | None = None) -> MatchRecord:
        """Close the match (idempotent): unfinished lines are closed as played so far (kept,
        status "unfinished") and the seed is revealed. The reference lines are the caller's
        (`references.play`): the store plays nothing."""
        now = now or match_spec.utcnow()
        with self._tx() as db:
            if self.match(match_id).state == "open":
                db.execute("UPDATE participants SET status = 'unfinished', finished_at = ? "
                           "WHERE match_id = ? AND status = 'playing' AND kind != 'reference'",
                           (now.isoformat(), match_id))
                db.execute("UPDATE matches SET state = 'closed', closed_at = ?, close_reason = ? "
                           "WHERE id = ?", (now.isoformat(), reason, match_id))
        return self.match(match_id)

    def require_closed(self, match_id: str) -> MatchRecord:
        """The closed match's record, else `Sealed` saying how it closes (a read: `refresh`)."""
        m = self.match(match_id)
        if m.state != "closed":
            raise records.sealed_until(m)
        return m

    def verify(self, match_id: str, commitment: str | None = None) -> dict:
        """`verify.verify` of a closed match (`Sealed` while open), every call (`verify.kept`)."""
        from holdemjax.duplicate import verify

        m = self.require_closed(match_id)
        return verify.verify(m, self._lines(match_id, True), commitment)

    def kept_verify(self, match_id: str, versions: str) -> tuple[int, dict | None]:
        """(the closed match's stamp, its verify kept under ``versions`` or None; `Sealed` while
        open). Any write to the match's row, its participants or its hands (reference lines after
        close, an edit behind the store's back) bumps the stamp and drops it (`schema.VERIFIED`)."""
        self.require_closed(match_id)
        row = self._db.execute("SELECT stamp, versions, result FROM verified WHERE match_id = ?",
                               (match_id,)).fetchone()
        if row is None:
            return 0, None
        kept = row["versions"] == versions and row["result"]
        return row["stamp"], json.loads(row["result"]) if kept else None

    def keep_verify(self, match_id: str, stamp: int, versions: str, result: dict) -> bool:
        """Keep ``result``, computed from what the store held at ``stamp``; False, keeping
        nothing, when the stamp moved meanwhile. `Sealed` while open."""
        self.require_closed(match_id)
        with self._tx() as db:  # kept only if the stamp is still the one it was computed at
            kept = db.execute("INSERT OR REPLACE INTO verified SELECT ?, ?, ?, ? WHERE COALESCE("
                              "(SELECT stamp FROM verified WHERE match_id = ?), 0) = ?",
                              (match_id, stamp, versions, json.dumps(result), match_id, stamp))
        return kept.rowcount == 1


class LineRows:
    """The rows of one line: what its `Seat` reads and writes (each write one transaction).
    Handed out by `Store.seat` alone, with the line's key checked."""

    def __init__(self, store: Store, match_id: str, name: str):
        self._store, self.match_id, self.name = store, match_id, name

    def progress(self) -> tuple[int, list]:
        """(the first unfinished hand, the actions stored for it so far)."""
        return self._store._progress(self.match_id, self.name)

    def decisions(self, hero: int) -> int:
        """The line's stored actions of seat ``hero``, every hand."""
        return int(self._store._one("SELECT COUNT(*) FROM actions WHERE match_id = ? AND "
                                    "name = ? AND seat = ?", (self.match_id, self.name, hero)))

    def _playing(self, db) -> bool:
        row = db.execute("SELECT status FROM participants WHERE match_id = ? AND name = ?",
                         (self.match_id, self.name)).fetchone()
        return row is not None and row["status"] == "playing"

    def add_action(self, hand: int, idx: int, action, think_ms: int | None) -> bool:
        """Save one action; False, saving nothing, when the line was closed meanwhile."""
        with self._store._tx() as db:
            if not self._playing(db):
                return False
            db.execute("INSERT INTO actions VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                       (self.match_id, self.name, hand, idx, *[int(x) for x in action[:5]],
                        action[5], None if think_ms is None else int(think_ms)))
        return True

    def finish_hand(self, record: dict, last: bool, now: dt.datetime) -> bool:
        """Save a finished hand (and finish the line after its last); False when the line was
        closed meanwhile (nothing saved)."""
        with self._store._tx() as db:
            if not self._playing(db):
                return False
            db.execute("INSERT INTO hands VALUES (?, ?, ?, ?, ?)",
                       (self.match_id, self.name, record["hand"], record["hero_net"],
                        json.dumps(record)))
            if last:
                db.execute("UPDATE participants SET status = 'finished', finished_at = ? "
                           "WHERE match_id = ? AND name = ? AND status = 'playing'",
                           (now.isoformat(), self.match_id, self.name))
        return True
