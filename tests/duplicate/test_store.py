"""The store: schema, crash safety (one action per transaction, resume), joining, sealing,
closing by the expected participants or at the deadline."""

from __future__ import annotations

import datetime as dt
import sqlite3

import pytest

from holdemjax.duplicate import match, references, scores
from holdemjax.duplicate.names import BadName
from holdemjax.duplicate.store import Sealed, Store

T0 = dt.datetime(2030, 1, 1, 12, tzinfo=dt.UTC)
SPEC = dict(seats=6, hands=3)
KEY = "a-line-key"


def test_schema_version_and_foreign_files(tmp_path):
    path = tmp_path / "s.sqlite"
    Store(path).close()
    db = sqlite3.connect(path)
    db.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
    db.commit()
    db.close()
    with pytest.raises(ValueError, match="schema version 99, this holdemjax reads versions 1 "
                       "to 5"):
        Store(path)
    other = tmp_path / "other.sqlite"
    sqlite3.connect(other).execute("CREATE TABLE t (x)").connection.close()
    with pytest.raises(ValueError, match="not a match store"):
        Store(other)
    text = tmp_path / "notes.txt"
    text.write_text("x" * 200)
    with pytest.raises(ValueError, match="notes.txt is not a match store"):
        Store(text)


class _Crash(Exception):
    pass


class _CrashingBot(match.BotHero):
    """A registered bot that dies (like a killed process) at its n-th decision."""

    def __init__(self, name, at):
        super().__init__(name)
        self.at, self.calls = at, 0

    def decide(self, hand):
        self.calls += 1
        if self.calls == self.at:
            raise _Crash()
        return super().decide(hand)


def test_a_crash_loses_at_most_the_action_in_flight(tmp_path):
    with Store(tmp_path / "s.sqlite") as s:
        m = s.create_match(match.MatchSpec(**SPEC), seed=3)
        match.play_line(s, m.id, "whole", match.BotHero("advanced"))
        with pytest.raises(_Crash):
            match.play_line(s, m.id, "crashed", _CrashingBot("advanced", at=4), key=KEY)
        hand, stored = s.progress(m.id, "crashed", KEY)
        with pytest.raises(match.MatchError, match="started by advanced"):
            # only its own policy
            match.play_line(s, m.id, "crashed", match.BotHero("random"), key=KEY)
        with pytest.raises(match.MatchError, match="is a bot participant, not a person"):
            match.play_line(s, m.id, "crashed", _Script(1), key=KEY)
        with pytest.raises(match.MatchError, match="no line of that name opens with that key"):
            match.play_line(s, m.id, "crashed", match.BotHero("advanced"))
        assert match.play_line(s, m.id, "crashed", match.BotHero("advanced"), key=KEY) == "finished"
        s.close_match(m.id)
        whole = s.lines(m.id)["whole"].hands
        played = [a for h in range(hand) for a in whole[h]["actions"]] + stored
        flat = [a for h in range(3) for a in whole[h]["actions"]]
        hero_before = sum(1 for a in played if a[1] == 0)
        assert hero_before == 3 and played == flat[:len(played)]  # everything up to the crash
        assert s.lines(m.id)["crashed"].hands == whole  # resumed, same line


def test_join_rules(tmp_path):
    with Store(tmp_path / "s.sqlite") as s:
        m = s.create_match(match.MatchSpec(**SPEC, participants=1), seed=4)
        with pytest.raises(BadName, match="reserved"):  # a malformed name (service: 422)
            match.play_line(s, m.id, "REF:me", match.BotHero("random"))
        assert match.play_line(s, m.id, "solo", match.BotHero("random")) == "finished"
        assert s.match(m.id).state == "closed" and s.match(m.id).close_reason == "complete"
        with pytest.raises(match.MatchError, match="closed"):
            match.play_line(s, m.id, "late", match.BotHero("random"))
        with pytest.raises(match.MatchError, match="kept as played \\(finished\\)"):
            match.play_line(s, m.id, "solo", match.BotHero("random"))
        # issue 36 point 8: the store never plays: the close it made when the last line
        # finished played no reference line; whoever reads the results plays them
        assert set(s.lines(m.id)) == {"solo"}
        references.play(s, m.id)
        lines = s.lines(m.id)
        assert {f"ref:{t}" for t in match.tier_names()} <= set(lines)
        assert all(len(line.hands) == 3 for line in lines.values())
        board = scores.leaderboard(m.spec, lines)
        assert board["compared_with"] == "ref:intermediate"
        assert [p["name"] for p in board["participants"]].count("ref:intermediate") == 1


def test_full_match_refuses_another(tmp_path):
    with Store(tmp_path / "s.sqlite") as s:
        m = s.create_match(match.MatchSpec(**SPEC, participants=1), seed=4)
        s.join(m.id, "first", "bot", "random", "", T0)
        with pytest.raises(match.MatchError, match="full: 1 participants joined"):
            match.play_line(s, m.id, "second", match.BotHero("random"))


class _Script:
    """A person who calls at every decision and walks away after ``n`` of them."""

    kind, source, sha256 = "person", "terminal", ""

    def __init__(self, n):
        self.n = n

    def begin(self, *a):
        pass

    def new_hand(self, hand):
        pass

    def decide(self, hand):
        self.n -= 1
        if self.n < 0:
            raise match.Quit()
        return 1, 0, None

    def hand_over(self, *a):
        pass

    def end(self):
        pass


def test_sealed_until_the_deadline_then_unfinished_lines_are_kept(tmp_path):
    clock = [T0]
    with Store(tmp_path / "s.sqlite") as s:
        m = s.create_match(match.MatchSpec(**SPEC, deadline="2030-01-01T13:00Z"), seed=5, now=T0)
        assert match.play_line(s, m.id, "bot", match.BotHero("beginner"), now=lambda: clock[0]) \
            == "finished"
        assert match.play_line(s, m.id, "eve", _Script(3), now=lambda: clock[0], key=KEY) \
            == "paused"
        with pytest.raises(Sealed, match="sealed until it closes.*deadline 2030-01-01T13:00"):
            s.require_closed(m.id)
        hand, stored = s.progress(m.id, "eve", KEY)
        clock[0] = T0 + dt.timedelta(hours=2)
        # resuming after the deadline: the match closes instead, keeping the line
        with pytest.raises(match.MatchError, match="closed \\(deadline\\).*kept as played"):
            match.play_line(s, m.id, "eve", _Script(50), now=lambda: clock[0], key=KEY)
        record = s.require_closed(m.id)
        assert record.close_reason == "deadline"
        eve = s.participant(m.id, "eve")
        assert eve.status == "unfinished"
        assert s.progress(m.id, "eve") == (hand, stored)  # kept as played, never deleted
        assert len(s.lines(m.id)["eve"].hands) == hand
        board = scores.leaderboard(record.spec, s.lines(m.id))
        assert {p["name"]: p["hands"] for p in board["participants"]} == {"bot": 3}
        assert {p["name"]: p["hands"] for p in board["unfinished"]} == {"eve": hand}


def test_close_is_idempotent_and_reveals(tmp_path):
    with Store(tmp_path / "s.sqlite") as s:
        m = s.create_match(match.MatchSpec(**SPEC), seed=6)
        with pytest.raises(Sealed):
            s.verify(m.id)
        first = s.close_match(m.id, "closed")
        again = s.close_match(m.id, "other reason")
        assert first == again and first.close_reason == "closed"
        # issue 36 point 8: closing is a write, never a line played (it played three)
        assert s.verify(m.id)["hands_checked"] == 0 and s.references(m.id) == {}
        references.play(s, m.id)
        result = s.verify(m.id)
        assert result["ok"] and result["seed"] == 6 and result["hands_checked"] == 9  # 3 refs
        with pytest.raises(ValueError, match="deadline .* is not in the future"):
            s.create_match(match.MatchSpec(**SPEC, deadline="2000-01-01T00:00Z"))


def test_the_deadline_stops_a_line_in_play(tmp_path):
    calls = [0]

    def now():  # the deadline passes while the line is being played
        calls[0] += 1
        return T0 if calls[0] < 6 else T0 + dt.timedelta(hours=2)

    with Store(tmp_path / "s.sqlite") as s:
        m = s.create_match(match.MatchSpec(**SPEC, deadline="2030-01-01T13:00Z"), seed=8, now=T0)
        assert match.play_line(s, m.id, "eve", _Script(50), now=now) == "closed"
        assert s.match(m.id).close_reason == "deadline"
        assert s.participant(m.id, "eve").status == "unfinished"
        hand, stored = s.progress(m.id, "eve")
        assert hand + len(stored) > 0  # what was played before the deadline is kept


def test_a_line_closed_by_another_process_never_grows(tmp_path):
    path = tmp_path / "s.sqlite"
    with Store(path) as s, Store(path) as other:
        m = s.create_match(match.MatchSpec(**SPEC), seed=9)

        class _CloseMidway(_Script):
            def decide(self, hand):  # the organiser closes the match during this decision
                if self.n == 48:
                    other.close_match(m.id, "closed")
                return super().decide(hand)

        assert match.play_line(s, m.id, "eve", _CloseMidway(50)) == "closed"
        hand, stored = s.progress(m.id, "eve")
        mine = [a for a in stored if a[1] == 0] + [
            a for rec in s.lines(m.id)["eve"].hands.values() for a in rec["actions"] if a[1] == 0]
        assert len(mine) == 2  # the third decision, taken after the close, was not saved
        assert s.participant(m.id, "eve").status == "unfinished"


_V1 = """
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
INSERT INTO meta VALUES ('schema_version', '1');
"""


def test_a_version_1_store_is_upgraded_and_its_32_bit_seed_deals_as_before(tmp_path):
    """A store written before 128-bit seeds (schema 1, the layout above): it opens, its open
    match takes a line (no versions were recorded, so none is checked), closes and verifies."""
    import json

    path = tmp_path / "old.sqlite"
    db = sqlite3.connect(path)
    db.executescript(_V1)
    spec = match.MatchSpec(**SPEC)
    db.execute("INSERT INTO matches VALUES ('m1', '2026-01-01T00:00:00+00:00', ?, 4000000000, "
               "'ab', ?, 'open', NULL, NULL)",
               (json.dumps(spec.as_dict()), match.commitment(4_000_000_000, "ab")))
    db.commit()
    db.close()
    with Store(path) as s:
        assert s.match("m1").versions == {} and s.match("m1").seed is None
        assert match.play_line(s, "m1", "late", match.BotHero("advanced")) == "finished"
        s.close_match("m1")
        references.play(s, "m1")
        assert s.match("m1").seed == 4_000_000_000
        result = s.verify("m1")
        assert result["ok"] and result["hands_replayed"] == 12  # the line and 3 references
        first = s.lines("m1")["late"].hands[0]
    import jax

    from holdemjax.poker import cards
    deck = cards.hand_deck(jax.random.fold_in(jax.random.key(4_000_000_000), 0), 0)
    assert first["hole"][0] == [cards.card_text(int(c)) for c in deck[:2]]  # old derivation
    # upgraded through version 2 and 3 (the share links' caps), 4 (the kept verify) to 5 (the
    # simultaneous clocks)
    assert sqlite3.connect(path).execute("SELECT value FROM meta").fetchone() == ("5",)


def test_a_version_4_store_is_upgraded_and_keeps_the_clocks(tmp_path):
    """A store written before the simultaneous clocks were kept (schema 4: today's layout less
    `schema.CLOCKS`) opens as version 5, its matches as they were, and keeps a clock."""
    path = tmp_path / "v4.sqlite"
    with Store(path) as s:
        mid = s.create_match(match.MatchSpec(**SPEC, simultaneous=True), seed=3).id
    db = sqlite3.connect(path)
    db.executescript("DROP TABLE rounds; DROP TABLE clocks; "
                     "UPDATE meta SET value = '4' WHERE key = 'schema_version';")
    db.close()
    with Store(path) as s:
        assert s.match(mid).spec.simultaneous and s.clock_marks(mid, "ann") == (0, False)
        assert s.open_round(mid, 0, 1000.0) == 1000.0
        assert s.open_round(mid, 0, 1030.0) == 1000.0  # the first sight of the hand is kept
        assert s.open_round(mid, 1, 1040.0) == 1040.0
        s.mark_clock(mid, "ann", 2, True)
    with Store(path) as s:
        assert s.clock_marks(mid, "ann") == (2, True)
        assert s.open_round(mid, 1, 1090.0) == 1040.0
    assert sqlite3.connect(path).execute("SELECT value FROM meta").fetchone() == ("5",)


def test_reads_never_close_a_match_closing_is_a_call(tmp_path):
    """Issue 36 point 8: closing is an explicit call. A match whose deadline passed stays open
    (and sealed) through every read — `lines`, `verify`, `require_closed` closed it before —
    until `refresh` (called by the CLI's commands and the service's routes) closes it."""
    then = dt.datetime(2020, 1, 1, tzinfo=dt.UTC)
    with Store(tmp_path / "s.sqlite") as s:
        m = s.create_match(match.MatchSpec(**SPEC, deadline="2020-01-02T00:00Z"), seed=3, now=then)
        for read in (s.lines, s.verify, s.require_closed):
            with pytest.raises(Sealed):
                read(m.id)
        assert s.match(m.id).state == "open"
        assert s.refresh(m.id) == "closed" and s.match(m.id).close_reason == "deadline"
        assert s.lines(m.id) == {}
