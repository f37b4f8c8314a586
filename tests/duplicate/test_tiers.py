"""The reference tiers (holdemjax/duplicate/tiers.py, docs/tiers.md) and their host draws
(holdemjax/duplicate/draws.py): exact JAX draws, legality over thousands of states,
coordinate-addressed randomness, determinism across processes, the data file's checksum, the
documented constants, and each tier's behaviour pinned by the rules of docs/tiers.md.

Spots are built with the engine (`rotation.host_hand` on a stacked deck, six seats, button 0:
SB 1, BB 2, UTG 3, HJ 4, CO 5; 100 BB at 10/20), so every view is a real protocol view.
"""

from __future__ import annotations

import importlib.util
import json
import os
import pathlib
import random
import re
import subprocess
import sys

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from holdemjax.bots import baseline
from holdemjax.bots.random_bot import coordinate_key as jax_coordinate_key
from holdemjax.bots.random_bot import draw_below as jax_draw_below
from holdemjax.duplicate import draws, rotation, tiers
from holdemjax.poker import table
from holdemjax.poker.cards import parse_cards

ROOT = pathlib.Path(__file__).resolve().parents[2]
F, C, R = table.FOLD, table.CHECK_CALL, table.RAISE
KEY = (7, 11)
BTN, SB, BB, UTG, HJ, CO = 0, 1, 2, 3, 4, 5
OPEN_CO = [(F, 0), (F, 0), (R, 60)]  # UTG and HJ fold, the cutoff opens to 3 BB


def stacked_deck(holes: dict, board: str = "") -> list[int]:
    """A deck giving ``holes[seat]`` ("AsKd") and the board; other cards in id order."""
    deck: list = [None] * 52
    for seat, cards in holes.items():
        deck[2 * seat], deck[2 * seat + 1] = parse_cards(cards)
    for i, c in enumerate(parse_cards(board)):
        deck[18 + i] = c
    rest = [c for c in range(52) if c not in deck]
    return [c if c is not None else rest.pop(0) for c in deck]


def spot(holes: dict, script, board: str = "", stack=2000) -> dict:
    """The protocol view after the scripted ``(kind, amount)`` actions."""
    h = rotation.host_hand(None, 0, deck=stacked_deck(holes, board), stack=stack, button=BTN)
    for kind, amount in script:
        h.apply(kind, amount)
    return h.view()


def legal(action, view) -> bool:
    kind, amount = action
    if kind in (F, C):
        return amount == 0
    r = view["legal"]["raise"]
    return kind == R and r is not None and r[0] <= amount <= r[1]


def all_tiers(view, key=KEY) -> dict:
    return {t: tiers.decide(t, view, key) for t in tiers.TIERS}


# ------------------------------------------------------------------------------------ draws
def test_host_draws_equal_jax_on_thousands_of_keys():
    """fold_in, bits and the coordinate draw equal JAX's (threefry, partitionable) exactly."""
    rng = np.random.default_rng(0)
    words = rng.integers(0, 2**32, size=(2000, 2), dtype=np.uint64).astype(np.uint32)
    data = rng.integers(0, 2**32, size=2000, dtype=np.uint64).astype(np.uint32)
    keys = jax.vmap(jax.random.wrap_key_data)(jnp.asarray(words))
    folded = np.asarray(jax.vmap(lambda k, d: jax.random.key_data(jax.random.fold_in(k, d)))(
        keys, jnp.asarray(data)))
    bits = np.asarray(jax.vmap(lambda k: jax.random.bits(k, (), jnp.uint32))(keys))
    for i in range(len(words)):
        w = tuple(int(x) for x in words[i])
        assert draws.fold_in(w, int(data[i])) == tuple(int(x) for x in folded[i])
        assert draws.bits(w) == int(bits[i])
    coords = rng.integers(0, 9, size=(1000, 4))
    ns = rng.integers(1, 2**31 - 1, size=1000)
    ref = np.asarray(jax.vmap(lambda k, c, n: jax_draw_below(
        jax_coordinate_key(k, c[0], c[1], c[2], c[3]), n))(
        keys[:1000], jnp.asarray(coords), jnp.asarray(ns, jnp.uint32)))
    for i in range(1000):
        w = tuple(int(x) for x in words[i])
        got = draws.draw_below(draws.coordinate_key(w, *map(int, coords[i])), int(ns[i]))
        assert got == int(ref[i])


def test_draws_reject_bad_arguments():
    with pytest.raises(ValueError, match="two uint32 words"):
        draws.fold_in((1, 2**32), 0)
    with pytest.raises(ValueError, match="n must be"):
        draws.draw_below((1, 2), 0)


# ------------------------------------------------------------------------------- legality
def _chaos(rng: random.Random):
    """A host player acting at random: fold, check/call, min, max or any raise-to."""
    def act(view, state):
        r = view["legal"]["raise"]
        pick = rng.randrange(5)
        if pick == 0:
            return F, 0
        if pick == 1 or r is None:
            return C, 0
        return R, (r[0], r[1], rng.randint(r[0], r[1]))[pick - 2]
    return act


def test_every_tier_is_legal_over_thousands_of_random_states():
    """At every decision of hands played by a mix of tiers and a random player, with uneven
    and short stacks, antes and odd blinds, each tier returns an exactly legal action and never
    folds when checking is free."""
    rng = random.Random(1)
    chaos = _chaos(rng)
    seen = {"n": 0, "bad": []}

    def probe(actor):
        def act(view, state):
            seen["n"] += 1
            for t in tiers.TIERS:
                a = tiers.decide(t, view, (view["hand"], 99))
                if not legal(a, view) or (a[0] == F and view["legal"]["check"]):
                    seen["bad"].append((t, a, view))
            return actor(view, state)
        return act

    key = jax.random.key(3)
    for hand in range(300):
        seats = rng.choice((2, 6, 6, 9))
        bb = rng.choice((20, 20, 50, 100))
        blinds = (bb // 2, bb, rng.choice((0, bb)))
        stacks = [rng.choice((1, 2, 5, 12, 30, 100, 250)) * bb + rng.randrange(bb)
                  for _ in range(seats)]
        players = [probe(chaos if rng.random() < 0.4 else
                         (lambda t: lambda v, s: tiers.decide(t, v, (1, 2)))(
                             rng.choice(tiers.TIERS))) for _ in range(seats)]
        rec = rotation.play_host_hand(players, key, hand, stack=stacks, blinds=blinds)
        assert rec.faults == []
    assert seen["n"] >= 2000, seen["n"]
    assert seen["bad"] == []


# ---------------------------------------------------------------------- addressed draws
def _line(first_action, key=KEY):
    """A hand of six advanced bots on deal 4, except that UTG's first action is forced;
    returns {(seat, street, rank): u} of every other bot decision and the history."""
    drawn = {}

    def bot(view, state):
        if view["seat"] == UTG and view["decision"] == 0:
            return first_action
        drawn[(view["seat"], view["street"], view["decision"])] = tiers.draw(view, key)
        return tiers.decide("advanced", view, key)

    rec = rotation.play_host_hand([bot] * 6, jax.random.key(0), 4, stack=2000)
    return drawn, rec.history


def test_a_line_that_differs_early_shifts_no_later_draw():
    """UTG folds in one line and raises in the other: the lines diverge (different histories,
    different later decisions), yet every decision coordinate both lines reach draws the same
    u, and it is the JAX bots' draw at those coordinates."""
    a, hist_a = _line((F, 0))
    b, hist_b = _line((R, 100))
    assert hist_a != hist_b
    common = set(a) & set(b)
    assert len(common) >= 3 and set(a) != set(b)
    for c in common:
        assert a[c] == b[c]
        jax_u = jax_draw_below(jax_coordinate_key(jax.random.wrap_key_data(
            jnp.asarray(KEY, jnp.uint32)), 4, *c), 10000)
        assert a[c] == int(jax_u)


def test_the_draw_is_the_coordinates_not_the_history():
    """Two views of one seat at the same coordinates after different histories draw the same;
    another rank draws differently (for this key)."""
    v1 = spot({CO: "Kc9d"}, [(F, 0), (F, 0)])
    v2 = spot({CO: "Kc9d"}, [(C, 0), (F, 0)])
    assert v1["history"] != v2["history"]
    assert tiers.draw(v1, KEY) == tiers.draw(v2, KEY)
    assert tiers.draw(dict(v1, decision=1), KEY) != tiers.draw(v1, KEY)


_CHILD = """
import json, sys
from holdemjax.duplicate import tiers
views = json.loads(sys.argv[1])
print(json.dumps([[tiers.decide(t, v, (5, 6)) for t in tiers.TIERS] for v in views]))
"""


def test_three_fresh_processes_give_one_answer():
    """Mixed spots (the hijack's open and the big blind's flop play depend on u) decided in
    three fresh interpreters with different hash seeds: one answer, the same as here."""
    views = [spot({HJ: "Kc9d"}, [(F, 0)]),
             spot({BB: "Ah4h", BTN: "QcJd"}, [(F, 0)] * 3 + [(R, 60), (F, 0), (C, 0)],
                  board="8h5h2c3d9s")]
    expected = [[list(tiers.decide(t, v, (5, 6))) for t in tiers.TIERS] for v in views]
    answers = set()
    for seed in ("0", "1", "12345"):
        env = dict(os.environ, PYTHONHASHSEED=seed, JAX_PLATFORMS="cpu")
        out = subprocess.run([sys.executable, "-c", _CHILD, json.dumps(views)], env=env,
                             capture_output=True, text=True, timeout=120, check=True)
        answers.add(out.stdout.strip())
    assert len(answers) == 1
    assert json.loads(answers.pop()) == expected


# ------------------------------------------------------------------------------ data, docs
def test_the_tiers_read_the_checksummed_table(monkeypatch):
    """The pre-flop table is the shipped file, checked by its SHA-256 at load."""
    tiers._preflop_table.cache_clear()
    baseline.load_preflop.cache_clear()
    monkeypatch.setattr(baseline, "PREFLOP_SHA256", "0" * 64)
    try:
        with pytest.raises(ValueError, match="checksum"):
            tiers.decide("advanced", spot({UTG: "AcAd"}, []), KEY)
    finally:
        monkeypatch.undo()
        tiers._preflop_table.cache_clear()
        baseline.load_preflop.cache_clear()
    assert tiers.decide("advanced", spot({UTG: "AcAd"}, []), KEY)[0] == R


def test_docs_constants_table_matches_params():
    """docs/tiers.md lists every constant of every tier with the code's value."""
    text = (ROOT / "docs" / "tiers.md").read_text()
    rows = {}
    for m in re.finditer(r"^\| `(\w+)` \| `([^`]*)` \| `([^`]*)` \| `([^`]*)` \|", text, re.M):
        rows[m.group(1)] = m.group(2, 3, 4)
    fields = [f.name for f in tiers.Params.__dataclass_fields__.values()]
    assert sorted(rows) == sorted(fields)
    for name in fields:
        for tier, doc in zip(tiers.TIERS, rows[name]):
            code = getattr(tiers.PARAMS[tier], name)
            assert doc.replace(" ", "") == repr(code).replace(" ", ""), (name, tier)


def test_unknown_tier_and_bad_view_are_named():
    with pytest.raises(ValueError, match="unknown tier 'expert'"):
        tiers.decide("expert", spot({UTG: "AcAd"}, []), KEY)
    with pytest.raises(ValueError, match="lacks"):
        tiers.decide("beginner", {"seat": 0}, KEY)


# ---------------------------------------------------------------- behaviour, rule by rule
def test_pf2_everyone_folds_72o_under_the_gun():
    assert all_tiers(spot({UTG: "7c2d"}, [])) == {t: (F, 0) for t in tiers.TIERS}


def test_pf2_advanced_plays_position_beginner_ignores_it():
    """K9o: advanced folds it UTG and opens it on the button to 5/2 BB; the beginner limps
    it in both seats."""
    utg = all_tiers(spot({UTG: "Kc9d"}, []))
    btn = all_tiers(spot({BTN: "Kc9d"}, [(F, 0)] * 3))
    assert utg["advanced"] == (F, 0) and btn["advanced"] == (R, 50)
    assert utg["beginner"] == btn["beginner"] == (C, 0)


def test_pf2_beginner_first_in_is_the_same_from_every_seat():
    """open_top is one value for every position: over all 169 classes, the beginner's
    first-in action UTG equals its action on the button."""
    utg, btn = spot({UTG: "2c3d"}, []), spot({BTN: "2c3d"}, [(F, 0)] * 3)
    ranks = "23456789TJQKA"
    for hi in range(13):
        for lo in range(hi + 1):
            for suited in ((False, True) if hi != lo else (False,)):
                hole = [ranks[hi] + "c", ranks[lo] + ("c" if suited else "d")]
                a = tiers.decide("beginner", dict(utg, hole=hole), KEY)
                b = tiers.decide("beginner", dict(btn, hole=hole), KEY)
                assert a == b, hole


def test_pf3_beginner_calls_a_raise_with_any_pair():
    for pair in ("2c2d", "5h5s", "9c9d"):
        v = spot({BTN: pair}, OPEN_CO)
        assert tiers.decide("beginner", v, KEY) == (C, 0), pair
    assert tiers.decide("intermediate", spot({BTN: "2c2d"}, OPEN_CO), KEY) == (F, 0)


def test_pf3_advanced_set_mines_only_with_implied_odds():
    """22 calls a 3 BB open with 100 BB behind (to_call * 15 <= stack) and folds at 20 BB."""
    assert tiers.decide("advanced", spot({BTN: "2c2d"}, OPEN_CO), KEY) == (C, 0)
    assert tiers.decide("advanced", spot({BTN: "2c2d"}, OPEN_CO, stack=400), KEY) == (F, 0)


def test_pf3_aces_reraise_and_advanced_sizes_by_position():
    """AA re-raises for every tier; advanced 3-bets QQ to 3x in position (button) and to 4x
    out of position (small blind)."""
    assert all(a[0] == R for a in all_tiers(spot({BTN: "AcAd"}, OPEN_CO)).values())
    assert tiers.decide("advanced", spot({BTN: "QcQd"}, OPEN_CO), KEY) == (R, 180)
    assert tiers.decide("advanced", spot({SB: "QcQd"}, OPEN_CO + [(F, 0)]), KEY) == (R, 240)


def _class_actions(tier: str, view: dict, key=(3, 4)) -> dict:
    """How many of the 169 classes fold, call and raise in ``view`` (hole swapped in)."""
    ranks, c = "23456789TJQKA", {F: 0, C: 0, R: 0}
    for hi in range(13):
        for lo in range(hi + 1):
            for suited in ((False, True) if hi != lo else (False,)):
                hole = [ranks[hi] + "c", ranks[lo] + ("c" if suited else "d")]
                c[tiers.decide(tier, dict(view, hole=hole), key)[0]] += 1
    return c


def test_pf3_no_tier_lacks_a_calling_range():
    """Facing one raise, every tier calls with some classes, folds others and re-raises a
    few, on the button and in the big blind; on the button the beginner calls widest
    (call_top 6000 and any pair) and the advanced tier re-raises most (light 3-bets)."""
    btn = {t: _class_actions(t, spot({BTN: "2c3d"}, OPEN_CO)) for t in tiers.TIERS}
    bb = {t: _class_actions(t, spot({BB: "2c3d"}, OPEN_CO + [(F, 0), (F, 0)]))
          for t in tiers.TIERS}
    for t in tiers.TIERS:
        assert min(btn[t].values()) >= 3 and min(bb[t].values()) >= 3, (t, btn[t], bb[t])
        assert bb[t][C] >= 20, (t, bb[t])
    assert btn["beginner"][C] > 2 * max(btn["intermediate"][C], btn["advanced"][C])
    assert btn["advanced"][R] > btn["intermediate"][R] > btn["beginner"][R]


def test_pf4_kings_four_bet_and_trash_folds_to_a_three_bet():
    three_bet = OPEN_CO + [(R, 180)]  # the button 3-bets
    v = spot({CO: "KcKd"}, three_bet + [(F, 0), (F, 0)])
    assert all(a[0] == R for a in all_tiers(v).values())
    v = spot({CO: "9c6d"}, three_bet + [(F, 0), (F, 0)])
    assert all(a == (F, 0) for a in all_tiers(v).values())


def test_pf1_short_stacks_push_or_fold():
    """At 10 BB intermediate and advanced shove A8o first in on the button (all-in is the
    raise max); the beginner has no push/fold mode and limps it."""
    v = spot({BTN: "Ac8d"}, [(F, 0)] * 3, stack=200)
    got = all_tiers(v)
    assert got["advanced"] == got["intermediate"] == (R, 200)
    assert got["beginner"] == (C, 0)


_FLOP = [(F, 0)] * 3 + [(R, 60), (F, 0), (C, 0)]  # button opens, the big blind calls


def test_po3_advanced_prices_a_flush_draw_beginner_calls_any_draw():
    """Kh7h on 8h5h2c (a flush draw, 9 outs): the big blind bets. Advanced calls a third of
    the pot (price 1905 <= 9 x 300) and folds to a pot-size bet (3333 > 2700); the beginner
    calls both (9 x 500)."""
    small = spot({BTN: "Kh7h"}, _FLOP + [(R, 40)], board="8h5h2c3d9s")
    big = spot({BTN: "Kh7h"}, _FLOP + [(R, 130)], board="8h5h2c3d9s")
    assert tiers.decide("advanced", small, KEY) == (C, 0)
    assert tiers.decide("advanced", big, KEY) == (F, 0)
    assert tiers.decide("beginner", small, KEY) == tiers.decide("beginner", big, KEY) == (C, 0)


#: (hole, board, outs) on paired boards: docs/tiers.md's outs, each rank counted once.
PAIRED_BOARD_OUTS = [
    ("9cTd", "7s7hJc", 4),    # only an 8 completes 7-8-9-T-J: a gutshot
    ("9cTd", "7s7h7dJc", 4),  # trips on the board: still one rank (an 8)
    ("3c4d", "2s2h6c", 4),    # only a 5 completes 2-3-4-5-6
    ("5c6d", "4s4hKc", 0),    # 4-5-6 and a king: no one rank makes a straight
]


@pytest.mark.parametrize("hole,board,outs", PAIRED_BOARD_OUTS)
def test_straight_outs_count_a_paired_rank_once(hole, board, outs):
    """docs/tiers.md (outs): an open-ended draw is two or more ranks that would complete a
    straight, a gutshot one rank (4 outs). A pair on the board is one rank: each rank counts
    once in the rank set, so a paired card never adds a phantom rank (the bug: the rank bits
    were summed, 7+7 reading as an 8)."""
    hole_ids, board_ids = parse_cards(hole), parse_cards(board)
    for tier in tiers.TIERS:
        assert tiers.hand_strength(hole_ids, board_ids, tiers.PARAMS[tier])[1] == outs, tier


def test_po3_river_bottom_pair_facing_a_pot_bet():
    """2h7h on Kd8s2c3d9c (bottom pair), the button bets the pot on the river: the beginner
    calls, intermediate and advanced fold."""
    v = spot({BB: "2h7h", BTN: "QcJd"}, _FLOP + [(C, 0)] * 5 + [(R, 130)],
             board="Kd8s2c3d9c")
    assert all_tiers(v) == {"beginner": (C, 0), "intermediate": (F, 0), "advanced": (F, 0)}


def test_po2_po3_a_set_never_folds_and_is_bet_or_raised():
    """Bottom set on the flop: checked to, intermediate bets 3/4 pot (value_u 10000);
    facing a bet, intermediate and advanced raise, the beginner (raise_hs MONSTER) calls."""
    checked = spot({BTN: "2h2d"}, _FLOP + [(C, 0)], board="Kd8s2c3d9c")
    assert tiers.decide("intermediate", checked, KEY) == (R, 97)  # 130 * 3 // 4
    bet = spot({BTN: "2h2d"}, _FLOP + [(R, 60)], board="Kd8s2c3d9c")
    got = all_tiers(bet)
    assert got["intermediate"][0] == got["advanced"][0] == R
    assert got["beginner"] == (C, 0)


def test_po1_committed_good_hands_go_all_in():
    """Top pair, top kicker with less behind than the pot: all-in for intermediate and
    advanced (commit_hs GOOD)."""
    v = spot({BTN: "AcKd"}, _FLOP + [(C, 0)], board="Kh8s2c3d9c", stack=[150, 2000, 150,
                                                                         2000, 2000, 2000])
    got = all_tiers(v)
    assert v["stacks"][BTN] <= v["pot"]
    assert got["intermediate"] == got["advanced"] == (R, v["legal"]["raise"][1])


# ------------------------------------------------------------------------------ styles
def _style_module():
    spec = importlib.util.spec_from_file_location("tiers_style",
                                                  ROOT / "benchmarks" / "tiers_style.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_tier_styles_differ_as_documented():
    """On 40 identical deals x 4 rotations: the beginner is the loosest and most passive
    (highest VPIP, lowest PFR and aggression), the advanced tier re-raises most often."""
    style = _style_module()
    rows = {r["name"]: r for r in style.table_rows(style.run(40, seed=1))}
    beg, mid, adv = rows["beginner"], rows["intermediate"], rows["advanced"]
    assert beg["vpip"] > mid["vpip"] and beg["vpip"] > adv["vpip"]
    assert beg["pfr"] < mid["pfr"] and beg["pfr"] < adv["pfr"]
    assert beg["af"] < mid["af"] and beg["af"] < adv["af"]
    assert adv["three_bet"] >= mid["three_bet"]
    assert all(r["faults"] == 0 for r in rows.values())


def test_the_intermediate_tier_is_tied_to_the_baselines_constants_and_vocabulary():
    """Issue 14: one vocabulary per code. The tiers' intents are the baseline's `Intent`, their
    exact actions the engine's `table.Kind`; the intermediate tier plays the JAX baseline's
    ranges (holdemjax/bots/baseline.py constants), so a change of one shows here."""
    from holdemjax.poker import table

    assert tiers._FOLD is baseline.Intent.FOLD and tiers._RAISE is baseline.Intent.RAISE
    assert tiers.CHECK_CALL is table.Kind.CHECK_CALL and tiers.RAISE is table.Kind.RAISE
    # a fold intent is the table's default action (the host's one legality module)
    facing = {"fold": True, "check": False, "call": 20, "raise": None}
    assert tiers._exact(tiers._FOLD, 0, facing)[0] is table.Kind.FOLD
    p = tiers.PARAMS["intermediate"]
    b = baseline
    assert p.open_top == b.OPEN_TOP and p.hu_bonus == b.HEADS_UP_BONUS
    assert (p.steal_extra, p.steal_u) == (b.STEAL_EXTRA, b.STEAL_U)
    assert (p.limp_top, p.sb_complete_top) == (b.LIMP_TOP, b.SB_COMPLETE_TOP)
    assert p.open_size == (b.OPEN_SIZE_BB, 1)
    assert (p.three_bet_top, p.three_bet_jam_bb) == (b.THREE_BET_TOP, b.THREE_BET_JAM_BB)
    assert p.call_top == (b.CALL_TOP, b.CALL_TOP)
    assert (p.call_odds_penalty, p.odds_max_share) == (b.CALL_ODDS_PENALTY, b.CALL_ODDS_MAX_SHARE)
    assert (p.four_bet_top, p.four_bet_jam_bb) == (b.FOUR_BET_TOP, b.FOUR_BET_JAM_BB)
    assert (p.call_3bet_top, p.call_3bet_penalty) == (b.CALL_3BET_TOP, b.CALL_3BET_PENALTY)
    assert (p.short_bb, p.push_top) == (b.SHORT_BB, b.PUSH_TOP)
    assert (p.very_short_bb, p.very_short_bonus) == (b.VERY_SHORT_BB, b.VERY_SHORT_BONUS)
    assert (p.jam_over_top, p.short_call_penalty) == (b.JAM_OVER_TOP, b.SHORT_CALL_PENALTY)
    assert (p.value_bet, p.good_bet) == (b.VALUE_BET, b.PAIR_BET)
    assert (p.semi_u[0], p.cbet_u[0], p.bluff_u[0]) == (b.SEMI_BLUFF_U, b.CBET_U, b.BLUFF_U)
    assert p.raise_limit == b.RAISE_LIMIT
