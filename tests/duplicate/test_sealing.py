"""Sealing lives in the repository (`holdemjax.duplicate.store.Store`), not in its callers.

The test calls every public method of `Store` on an open match (a method without a call in
`CALLS` fails the test, so a method added later is covered the day it is written) and looks
for sealed data in what it returns or raises: the seed, the salt, another line's progress,
hands or status. Then: 128-bit seeds, versions checked before dealing, `verify` replaying the
bots, and the early close that never forfeits anyone.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import sqlite3

import jax
import numpy as np
import pytest

from holdemjax.duplicate import match, references
from holdemjax.duplicate.store import JOINED, Sealed, Store

SEED = 2**100 + 12345  # a 128-bit seed: its decimal text must never show while open
KEY = "alice-key-0001"
SPEC = match.MatchSpec(seats=3, hands=2)


def _calls(m, store):
    """One call per public method, on the open match (name -> thunk)."""
    return {
        "close": None, "create_match": None, "match": lambda: store.match(m.id),
        "match_ids": store.match_ids, "participants": lambda: store.participants(m.id),
        "participant": lambda: store.participant(m.id, "alice"),
        "check_can_join": lambda: store.check_can_join(m.id, "carol"),
        "join": lambda: store.join(m.id, "dave", "bot", "random", "", match.utcnow()),
        "seat": lambda: store.seat(m.id, "alice", "wrong-key-123"),
        "progress": lambda: store.progress(m.id, "alice"),
        "lines": lambda: store.lines(m.id), "refresh": lambda: store.refresh(m.id),
        "require_closed": lambda: store.require_closed(m.id),
        "verify": lambda: store.verify(m.id),
        "kept_verify": lambda: store.kept_verify(m.id, "{}"),
        "keep_verify": lambda: store.keep_verify(m.id, 0, "{}", {"ok": True}),
        "add_door": lambda: store.add_door(m.id, "invite"),
        "door": lambda: store.door(m.id, "no-such-token"),
        "join_by_door": lambda: store.join_by_door(m.id, store.add_door(m.id), "erin", "api",
                                                   "http", match.utcnow()),
        "references": lambda: store.references(m.id),
        "authorized": lambda: store.authorized(m.id, "alice", "wrong-key-123"),
        "joining_seat": lambda: store.joining_seat(m.id),
        "insert_door": lambda: store.insert_door(m.id, "0" * 64, "share", None),
        "find_door": lambda: store.find_door(m.id, "0" * 64),
        "use_door": lambda: store.use_door(m.id, "0" * 64, "zed"),
        "count_join": lambda: store.count_join(m.id, "0" * 64),
        "round": lambda: store.round(m.id), "secret": store.secret,
        "open_round": lambda: store.open_round(m.id, 0, 1000.0),
        "clock_marks": lambda: store.clock_marks(m.id, "alice"),
        "mark_clock": lambda: store.mark_clock(m.id, "zed", 1, False),
        "close_field": None, "close_match": None,  # they close: checked apart below
    }


def _text(value) -> str:
    if dataclasses.is_dataclass(value):
        value = dataclasses.asdict(value)
    return json.dumps(value, default=repr) if not isinstance(value, str) else value


def test_no_public_method_returns_sealed_data_for_an_open_match(tmp_path):
    with Store(tmp_path / "s.sqlite") as store:
        m = store.create_match(SPEC, seed=SEED)
        salt = sqlite3.connect(store.path).execute("SELECT salt FROM matches").fetchone()[0]
        match.play_line(store, m.id, "alice", match.BotHero("advanced"), key=KEY)  # finished
        match.play_line(store, m.id, "bob", match.BotHero("random"), key="bob-key-0001")
        public = {n for n, f in inspect.getmembers(Store, inspect.isfunction)
                  if not n.startswith("_")}
        calls = _calls(m, store)
        assert public == set(calls), f"add the new methods to CALLS: {public ^ set(calls)}"
        secrets_ = [str(SEED), salt, "status='finished'", '"status": "finished"', "hero_net"]
        for name, call in calls.items():
            if call is None:
                continue
            try:
                out = _text(call())
            except (Sealed, match.MatchError) as exc:
                out = str(exc)
            for secret in secrets_:
                assert secret not in out, (name, secret, out[:300])
        assert store.match(m.id).seed is None and store.match(m.id).salt is None
        assert {p.status for p in store.participants(m.id)} == {JOINED}
        assert store.progress(m.id, "alice", KEY)[0] == 2  # one's own line, with its key
        seat = store.seat(m.id, "alice", KEY)  # deals one's own line; shows no seed
        shown = {k: v for k, v in vars(seat).items() if not k.startswith("_")}
        assert str(SEED) not in repr(shown) + repr(seat) and salt not in repr(shown)
        store.close_match(m.id)
        assert store.match(m.id).seed == SEED and store.match(m.id).salt == salt
        assert store.participant(m.id, "alice").status == "finished"


def test_a_128_bit_seed_reaches_the_decks_and_old_seeds_deal_as_before():
    legacy = match.deck(7, 3)
    key = jax.random.fold_in(jax.random.key(7), match.DEAL_DOMAIN)  # the 32-bit derivation
    from holdemjax.poker import cards

    assert (legacy == np.asarray(cards.hand_deck(key, 3))).all()
    high = [match.deck(7 + (1 << b), 0) for b in (40, 80, 127)]  # only a high bit differs
    assert all(not (d == match.deck(7, 0)).all() for d in high)
    assert not (high[0] == high[1]).all() and not (high[1] == high[2]).all()
    with pytest.raises(ValueError, match="seed must be 0..2\\*\\*128-1|seed must be 0.."):
        match.deck(2**128, 0)


def test_a_line_is_not_dealt_under_other_versions(tmp_path):
    with Store(tmp_path / "s.sqlite") as store:
        m = store.create_match(SPEC, seed=3)
        db = sqlite3.connect(store.path)
        bad = {**match.versions(), "engine": "0" * 64}
        db.execute("UPDATE matches SET versions = ?", (json.dumps(bad),))
        db.commit()
        with pytest.raises(match.MatchError, match="other versions.*engine 000000000000"):
            match.play_line(store, m.id, "alice", match.BotHero("random"))
        assert store.participants(m.id) == []  # refused before joining


def test_verify_replays_every_reference_bot_decision(tmp_path):
    with Store(tmp_path / "s.sqlite") as store:
        m = store.create_match(SPEC, seed=SEED)
        match.play_line(store, m.id, "alice", match.BotHero("advanced"))
        store.close_match(m.id)
        references.play(store, m.id)  # closing plays nothing: the caller plays them
        good = store.verify(m.id)
        assert good["ok"] and good["hands_replayed"] == good["hands_checked"] == 8  # 4 lines
        db = sqlite3.connect(store.path)
        name, hand, text = db.execute("SELECT name, hand, record FROM hands WHERE name = "
                                      "'alice' ORDER BY hand LIMIT 1").fetchone()
        record = json.loads(text)
        i = next(i for i, a in enumerate(record["actions"]) if a[1] != m.spec.hero)
        a = record["actions"][i]
        # a bot that folded is made to check (or the reverse): same cards, another decision
        a[2] = 1 if a[2] == 0 else 0
        db.execute("UPDATE hands SET record = ? WHERE name = ? AND hand = ?",
                   (json.dumps(record), name, hand))
        db.commit()
        bad = store.verify(m.id)
        assert not bad["ok"] and any("alice hand 1 does not replay" in p
                                     for p in bad["problems"]), bad["problems"]


def test_verify_is_computed_once_per_closed_match_and_recomputed_after_any_change(
        tmp_path, monkeypatch):
    """Issue 50, finding 5: ``GET .../verify`` replayed every hand on each call. The service's
    verify (`verify.kept`) is kept in the store, and thrown away by any change to what it read
    (a hand, a participant, the match: a trigger, whoever writes) or under other versions."""
    from holdemjax.duplicate import verify

    calls = []
    real = verify.verify
    monkeypatch.setattr(verify, "verify", lambda *a, **k: calls.append(1) or real(*a, **k))
    with Store(tmp_path / "s.sqlite") as store:
        m = store.create_match(SPEC, seed=SEED)
        match.play_line(store, m.id, "alice", match.BotHero("advanced"))
        store.close_match(m.id)
        first = verify.kept(store, m.id)
        assert first["ok"] and first["hands_checked"] == 2 and len(calls) == 1
        assert verify.kept(store, m.id) == first and len(calls) == 1  # kept
        assert store.verify(m.id)["ok"] and len(calls) == 2  # the CLI's: always replayed
        references.play(store, m.id)  # lines written after close: what was kept is stale
        assert verify.kept(store, m.id)["hands_checked"] == 8 and len(calls) == 3
        assert verify.kept(store, m.id)["hands_checked"] == 8 and len(calls) == 3
        db = sqlite3.connect(store.path)  # a change behind the store's back
        db.execute("UPDATE hands SET record = replace(record, '\"net\": [', '\"net\": [1') "
                   "WHERE name = 'alice' AND hand = 0")
        db.commit()
        bad = verify.kept(store, m.id)
        assert not bad["ok"] and len(calls) == 4, bad["problems"]
        other = {**match.versions(), "engine": "0" * 64}
        monkeypatch.setattr("holdemjax.duplicate.spec.versions", lambda: other)
        verify.kept(store, m.id)
        assert len(calls) == 5  # kept under other versions: replayed under these
        # computed while the stamp moved (a hand written meanwhile): returned, not kept
        stamp, _ = store.kept_verify(m.id, "v")
        db.execute("DELETE FROM hands WHERE name = 'alice' AND hand = 1")
        db.commit()
        assert not store.keep_verify(m.id, stamp, "v", {"ok": True})
        assert store.kept_verify(m.id, "v")[1] is None


def test_the_match_closes_once_the_field_is_closed_and_every_line_finished(tmp_path):
    with Store(tmp_path / "s.sqlite") as store:
        deadline = (match.utcnow().replace(microsecond=0).isoformat())[:10] + "T23:59:59Z"
        spec = dataclasses.replace(SPEC, deadline="2999-01-01T00:00Z")
        m = store.create_match(spec, seed=5)
        assert deadline  # the deadline is far: only the early path can close it
        match.play_line(store, m.id, "alice", match.BotHero("random"))
        paused = iter([match.Quit()])

        class Pauser(match.BotHero):
            def decide(self, hand):
                raise next(paused, None) or RuntimeError("no second session here")

        assert match.play_line(store, m.id, "bob", Pauser("random"), key=KEY) == "paused"
        assert store.close_field(m.id) == "open"  # bob is still within the deadline
        with pytest.raises(match.MatchError, match="field closed"):
            store.check_can_join(m.id, "carol")
        assert match.play_line(store, m.id, "bob", match.BotHero("random"), key=KEY) == "finished"
        rec = store.match(m.id)
        assert rec.state == "closed" and rec.close_reason == "complete"
        assert {p.status for p in store.participants(m.id)} == {"finished"}  # nobody forfeited
