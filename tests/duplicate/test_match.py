"""The match definition, its deals and keys, one hand through the engine, the registered bots."""

from __future__ import annotations

import hashlib

import jax
import numpy as np
import pytest

from holdemjax.duplicate import draws, match
from holdemjax.poker import table
from holdemjax.series import protocol


@pytest.mark.parametrize("kwargs, message", [
    ({"seats": 1}, "seats must be 2..9, got 1"),
    ({"seats": 10}, "seats must be 2..9, got 10"),
    ({"hero": 6}, "hero must be 0..5, got 6"),
    ({"hands": 0}, "hands must be 1..100000, got 0"),
    ({"big_blind": 5, "small_blind": 10}, "big_blind must be >= 10, got 5"),
    ({"seats": 4, "bots": ("beginner", "advanced")}, "each of the 3 seats"),  # one: for all
    ({"seats": 3, "bots": ("beginner", "expert")}, "unknown tier 'expert'"),
    ({"deadline": "tomorrow"}, "bad time 'tomorrow'"),
    ({"stack": 1.5}, "stack must be an integer, got 1.5"),
])
def test_spec_names_the_bad_value(kwargs, message):
    with pytest.raises(ValueError, match=message):
        match.MatchSpec(**kwargs)


def test_one_tier_names_every_bot_seat():
    """docs/duplicate.md: ``bots`` is a tier per seat or one tier for all (the CLI and the
    service alike: issue 50, finding 7)."""
    for bots in ("beginner", ("beginner",), ["beginner"]):
        assert match.MatchSpec(seats=4, bots=bots).bots == ("beginner",) * 3
    assert match.MatchSpec.from_dict({"seats": 3, "bots": "advanced"}).bots == ("advanced",) * 2


def test_spec_round_trip_and_seats():
    spec = match.MatchSpec(seats=4, hero=2, bots=("beginner", "advanced", "intermediate"),
                           deadline="2030-01-02T03:04:05")
    assert match.MatchSpec.from_dict(spec.as_dict()) == spec
    assert spec.deadline == "2030-01-02T03:04:05+00:00"  # naive means UTC
    assert [spec.tier_at(s) for s in range(4)] == ["beginner", "advanced", None, "intermediate"]
    assert match.MatchSpec(seats=3).bots == ("intermediate", "intermediate")
    with pytest.raises(ValueError, match="unknown match settings"):
        match.MatchSpec.from_dict({**spec.as_dict(), "colour": "red"})


def test_commitment_is_sha256_of_salt_and_seed():
    assert match.commitment(42, "ab") == hashlib.sha256(b"ab:42").hexdigest()
    assert match.commitment(42, "ab") != match.commitment(42, "ac") != match.commitment(43, "ab")
    assert len(match.new_salt()) == 32 and match.new_salt() != match.new_salt()


@pytest.mark.parametrize("seats", [2, 3, 6, 9])
def test_positions_match_the_engine(seats):
    first = jax.jit(table.first_positions)
    for hand in range(seats + 1):
        button = hand % seats
        b, sb, bb, _ = first(np.ones(seats, bool), button)
        assert match.positions(seats, hand) == (int(b), int(sb), int(bb))


def test_bot_keys_and_decks_from_the_seed():
    # The bot key with the pure-Python threefry of draws.py (key(seed) has the words (0, seed)).
    seed = 987654
    for seat in (0, 3):
        domain = draws.fold_in((0, seed), match.BOT_DOMAIN)
        assert match.bot_key(seed, seat) == draws.fold_in(domain, seat)
    assert match.bot_key(seed, 1) != match.bot_key(seed, 2) != match.bot_key(seed + 1, 2)
    d = match.deck(seed, 7)
    assert sorted(d.tolist()) == list(range(52))
    assert not np.array_equal(d, match.deck(seed, 8)) and np.array_equal(d, match.deck(seed, 7))


def test_hand_records_exact_actions():
    spec = match.MatchSpec(seats=6, hands=1, stack=1000)
    hand = match.Hand(spec, 5, 0)  # button 0, SB 1, BB 2: seat 3 acts first
    for _ in range(2):  # seats 3 and 4 fold
        hand.apply(table.FOLD)
    assert hand.to_act == 5 and hand.events[0]["type"] == "hand_start"
    # below the minimum: min-raise
    assert hand.apply(table.RAISE, 5)[:5] == [0, 5, protocol.RAISE, 40, 40]
    assert hand.apply(table.CHECK_CALL)[:5] == [0, 0, protocol.CALL, 40, 40]
    assert hand.apply(table.FOLD)[:5] == [0, 1, protocol.FOLD, 10, 0]
    assert hand.apply(table.RAISE, 10**6)[:5] == [0, 2, protocol.RAISE, 1000, 980]  # above: all-in
    assert hand.apply(table.FOLD)[:5] == [0, 5, protocol.FOLD, 40, 0]
    view = hand.view()
    assert view["seat"] == 0 and view["decision"] == 1 and view["hand"] == 0
    assert view["history"] == [a[:4] for a in hand.actions]
    assert view["legal"]["raise"] is None and view["legal"]["call"] == 960
    hand.apply(table.CHECK_CALL)
    assert hand.over
    rec = hand.record()
    assert rec["net"][5] == -40 and rec["net"][1] == -10 and sum(rec["net"]) == 0
    assert rec["showdown"] and rec["hero_folded_on"] is None
    assert [e["type"] for e in hand.events][-5:] == ["board", "board", "board", "showdown",
                                                     "result"]
    again = match.Hand(spec, 5, 0)
    match.replay(again, hand.actions[:2])  # through the one loop
    assert again.actions == hand.actions[:2]
    with pytest.raises(match.MatchError, match="does not replay"):
        # seat 5 is to act, not seat 0
        match.replay(again, [[0, 0, protocol.CALL, 1000, 960, None]])


def _view(legal, hand=0, seat=1, street=0, decision=0):
    return {"hand": hand, "seat": seat, "street": street, "decision": decision, "legal": legal}


def test_random_bot_is_uniform_over_the_offered_kinds():
    key = (1, 2)
    facing = {"fold": True, "check": False, "call": 20, "raise": [40, 200]}
    free = {"fold": True, "check": True, "call": 0, "raise": None}
    picks = [match.bot_decide("random", _view(facing, hand=h), key) for h in range(300)]
    kinds = [k for k, _ in picks]
    assert {kinds.count(k) for k in (table.FOLD, table.CHECK_CALL, table.RAISE)} \
        <= set(range(70, 131))
    assert all(40 <= a <= 200 for k, a in picks if k == table.RAISE)
    assert {match.bot_decide("random", _view(free, hand=h), key)[0] for h in range(50)} == \
        {table.CHECK_CALL}  # nothing to fold to and no raise offered: only check
    # addressed by coordinates: the same decision draws the same, whatever came before
    assert match.bot_decide("random", _view(facing, 9, 1, 2, 3), key) == \
        match.bot_decide("random", {**_view(facing, 9, 1, 2, 3), "history": [[0, 1, 3, 60]]}, key)
    with pytest.raises(ValueError, match="unknown bot 'mystery'"):
        match.bot_decide("mystery", _view(facing), key)


def test_bot_draws_do_not_shift_when_another_line_adds_decisions(tmp_path, monkeypatch):
    """Two heroes that play differently from hand 0 on: every bot decision that exists in both
    lines (same hand, seat, street, rank) draws the same number."""
    from holdemjax.duplicate import tiers
    from holdemjax.duplicate.store import Store

    seen: dict = {}
    real = tiers.draw

    def spy(view, key):
        u = real(view, key)
        seen.setdefault(current[0], {})[(view["hand"], view["seat"], view["street"],
                                         view["decision"])] = u
        return u

    monkeypatch.setattr(tiers, "draw", spy)
    current = [""]
    with Store(tmp_path / "s.sqlite") as s:
        m = s.create_match(match.MatchSpec(seats=6, hands=6), seed=11)
        for hero in ("random", "advanced"):
            current[0] = hero
            match.play_line(s, m.id, hero, match.BotHero(hero))
        s.close_match(m.id)
        lines = s.lines(m.id, references=False)
    a, b = seen["random"], seen["advanced"]
    common = set(a) & set(b)
    assert len(common) >= 10 and all(a[c] == b[c] for c in common)
    differ = [h for h in range(6) if lines["random"].hands[h]["actions"]
              != lines["advanced"].hands[h]["actions"]]
    assert differ and any(c[0] >= differ[0] for c in common)  # draws after the lines part


def test_a_jax_bot_plays_a_line_and_matches_the_wasm_baseline(tmp_path):
    """Issue #8: participants may be JAX policies. `jax-baseline` (holdemjax.bots.baseline,
    jitted) and the bundled baseline.wasm (cross-checked to play as it) play identical lines on
    the same deals: zero divergent hands."""
    from holdemjax.duplicate.policy import WasmHero
    from holdemjax.duplicate.store import Store
    from holdemjax.series.policies import bundled

    with Store(tmp_path / "s.sqlite") as s:
        m = s.create_match(match.MatchSpec(seats=6, hands=12), seed=7)
        assert match.play_line(s, m.id, "jax", match.BotHero("jax-baseline")) == "finished"
        assert match.play_line(s, m.id, "wasm", WasmHero(bundled("baseline"))) == "finished"
        assert match.play_line(s, m.id, "rnd", match.BotHero("jax-random")) == "finished"
        s.close_match(m.id)
        lines = s.lines(m.id, references=False)
    hero_actions = [a for h in lines["jax"].hands.values() for a in h["actions"]
                    if a[1] == m.spec.hero]
    assert len(hero_actions) >= 12
    assert all(lines["jax"].hands[h]["actions"] == lines["wasm"].hands[h]["actions"]
               for h in range(12))
    assert any(lines["rnd"].hands[h]["actions"] != lines["jax"].hands[h]["actions"]
               for h in range(12))
