"""The HUD (holdemjax/series/hud.py) on hands written by hand: each expected count is worked out
in the comment beside it from the definitions of the module's docstring."""

from __future__ import annotations

import pytest

from holdemjax.series import hud
from holdemjax.series.protocol import CALL, CHECK, FOLD, RAISE

PRE, FLOP, TURN, RIVER = 0, 1, 2, 3


def expect(**counts) -> dict:
    """A seat's counts in one hand: ``hands=1`` and zeros unless given."""
    return {k: counts.get(k, 1 if k == "hands" else 0) for k in hud.COUNTS}


def hand(actions, net, *, flop=True, showdown=False, dealt=None):
    return hud.Hand.of(actions, net, flop=flop, showdown=showdown, dealt=dealt)


# Hand A: S3 opens, S4 folds, S5 calls, S0 3-bets, S1 S2 fold, S3 calls, S5 folds; flop S3
# checks, S0 bets, S3 calls; turn checked; river S3 bets, S0 calls; S0 wins the showdown.
HAND_A = hand([(PRE, 3, RAISE), (PRE, 4, FOLD), (PRE, 5, CALL), (PRE, 0, RAISE), (PRE, 1, FOLD),
               (PRE, 2, FOLD), (PRE, 3, CALL), (PRE, 5, FOLD),
               (FLOP, 3, CHECK), (FLOP, 0, RAISE), (FLOP, 3, CALL),
               (TURN, 3, CHECK), (TURN, 0, CHECK), (RIVER, 3, RAISE), (RIVER, 0, CALL)],
              [650, -10, -20, -580, 0, -40], showdown=True)

# Hand B: S2 not dealt in (eliminated). S3 limps, S4 folds, S5 limps, S0 (small blind) folds,
# S1 (big blind) checks; flop S1 bets, S3 folds, S5 calls; checked down; S5 wins.
HAND_B = hand([(PRE, 3, CALL), (PRE, 4, FOLD), (PRE, 5, CALL), (PRE, 0, FOLD), (PRE, 1, CHECK),
               (FLOP, 1, RAISE), (FLOP, 3, FOLD), (FLOP, 5, CALL),
               (TURN, 1, CHECK), (TURN, 5, CHECK), (RIVER, 1, CHECK), (RIVER, 5, CHECK)],
              [-10, -60, 0, -20, 0, 90], showdown=True,
              dealt=[True, True, False, True, True, True])

# Hand C: S4 opens, S5 calls, S0 S1 fold, S2 calls, S3 folds; flop S2 bets into the aggressor
# (a donk bet), S4 calls, S5 folds; turn S2 checks, S4 bets, S2 folds. No showdown.
HAND_C = hand([(PRE, 4, RAISE), (PRE, 5, CALL), (PRE, 0, FOLD), (PRE, 1, FOLD), (PRE, 2, CALL),
               (PRE, 3, FOLD), (FLOP, 2, RAISE), (FLOP, 4, CALL), (FLOP, 5, FOLD),
               (TURN, 2, CHECK), (TURN, 4, RAISE), (TURN, 2, FOLD)],
              [-10, -20, -100, 0, 190, -60])

# Hand D: S0 opens, S1 S2 call, S3 S4 S5 fold; flop S1 S2 check, S0 bets, S1 raises, S2 folds,
# S0 folds. No showdown.
HAND_D = hand([(PRE, 0, RAISE), (PRE, 1, CALL), (PRE, 2, CALL), (PRE, 3, FOLD), (PRE, 4, FOLD),
               (PRE, 5, FOLD), (FLOP, 1, CHECK), (FLOP, 2, CHECK), (FLOP, 0, RAISE),
               (FLOP, 1, RAISE), (FLOP, 2, FOLD), (FLOP, 0, FOLD)],
              [-160, 220, -60, 0, 0, 0])

# Hand E: S5 opens, S0 calls, the rest fold; flop S0 checks, S5 bets, S0 folds.
HAND_E = hand([(PRE, 5, RAISE), (PRE, 0, CALL), (PRE, 1, FOLD), (PRE, 2, FOLD), (PRE, 3, FOLD),
               (PRE, 4, FOLD), (FLOP, 0, CHECK), (FLOP, 5, RAISE), (FLOP, 0, FOLD)],
              [-60, -20, 0, 0, 0, 80])

# Hand F: as E, but S5 checks the flop behind; turn S0 bets, S5 folds.
HAND_F = hand([(PRE, 5, RAISE), (PRE, 0, CALL), (PRE, 1, FOLD), (PRE, 2, FOLD), (PRE, 3, FOLD),
               (PRE, 4, FOLD), (FLOP, 0, CHECK), (FLOP, 5, CHECK), (TURN, 0, RAISE),
               (TURN, 5, FOLD)],
              [80, -20, 0, 0, 0, -60])

# Hand G: S2 moves all-in, S3 calls all-in, S4 S5 S0 (small blind) S1 (big blind) fold; the
# board runs out (no decision after the flop), S2 and S3 chop: each wins half the dead blinds.
HAND_G = hand([(PRE, 2, RAISE), (PRE, 3, CALL), (PRE, 4, FOLD), (PRE, 5, FOLD), (PRE, 0, FOLD),
               (PRE, 1, FOLD)],
              [-10, -20, 15, 15, 0, 0], showdown=True)

CASES = [
    # VPIP: S0 raised; PFR: it raised; 3-bet: its first decision faced one raise (S3's) and it
    # re-raised; c-bet: S0 made the last pre-flop raise and nobody bet the flop before it bet;
    # saw the flop and showed down with net +650 (won); post-flop: the flop bet, the river call.
    (HAND_A, 0, expect(vpip_hands=1, pfr_hands=1, three_bet_chances=1, three_bets=1,
                       cbet_chances=1, cbets=1, saw_flop=1, showdowns=1, won_at_showdown=1,
                       postflop_bets=1, postflop_calls=1)),
    # S3 opened (VPIP, PFR); its first decision faced no raise and its second two: no 3-bet
    # chance; its first flop decision after S0's c-bet is a call: a fold-to-c-bet chance, not
    # folded; showed down with net -580 (not won); post-flop: the flop call, the river bet.
    (HAND_A, 3, expect(vpip_hands=1, pfr_hands=1, fold_to_cbet_chances=1, saw_flop=1,
                       showdowns=1, postflop_bets=1, postflop_calls=1)),
    # S5 called the open (VPIP; a 3-bet chance, not taken), folded to the 3-bet: no flop.
    (HAND_A, 5, expect(vpip_hands=1, three_bet_chances=1)),
    # S4 folded facing the open: a 3-bet chance not taken, nothing voluntary.
    (HAND_A, 4, expect(three_bet_chances=1)),
    # S1's first decision faced two raises (the open and the 3-bet): no 3-bet chance.
    (HAND_A, 1, expect()),
    # The big blind's free check is not voluntary; no pre-flop raise, so its flop bet is no
    # c-bet and nobody faces one; it saw the flop, showed down and lost (net -60); one bet.
    (HAND_B, 1, expect(saw_flop=1, showdowns=1, postflop_bets=1)),
    # S3 limped (VPIP), saw the flop and folded to a bet that was no c-bet: no chance.
    (HAND_B, 3, expect(vpip_hands=1, saw_flop=1)),
    # S5 limped, called the flop bet, checked down and won (net +90).
    (HAND_B, 5, expect(vpip_hands=1, saw_flop=1, showdowns=1, won_at_showdown=1,
                       postflop_calls=1)),
    # S2 was not dealt in: nothing counts, not even the hand.
    (HAND_B, 2, expect(hands=0)),
    # The small blind folded pre-flop: no flop seen though the board reached it.
    (HAND_B, 0, expect()),
    # S4 opened, but S2 bet the flop before S4's first flop decision: no c-bet chance; the flop
    # call and the turn bet are post-flop actions; no showdown.
    (HAND_C, 4, expect(vpip_hands=1, pfr_hands=1, saw_flop=1, postflop_bets=1,
                       postflop_calls=1)),
    # S2 called the open (3-bet chance not taken), led the flop (a bet, not a c-bet), folded the
    # turn.
    (HAND_C, 2, expect(vpip_hands=1, three_bet_chances=1, saw_flop=1, postflop_bets=1)),
    # S5 folded to the donk bet: no c-bet was made, so no fold-to-c-bet chance.
    (HAND_C, 5, expect(vpip_hands=1, three_bet_chances=1, saw_flop=1)),
    # S0 opened and c-bet when checked to (chance, taken), then folded to the raise.
    (HAND_D, 0, expect(vpip_hands=1, pfr_hands=1, cbet_chances=1, cbets=1, saw_flop=1,
                       postflop_bets=1)),
    # S1 faced the open (3-bet chance, called), checked, then faced the c-bet as the only flop
    # bet: a fold-to-c-bet chance, and it raised (not a fold).
    (HAND_D, 1, expect(vpip_hands=1, three_bet_chances=1, fold_to_cbet_chances=1, saw_flop=1,
                       postflop_bets=1)),
    # S2's first decision after the c-bet came after S1's raise: it faced a raise, not the
    # c-bet: no chance.
    (HAND_D, 2, expect(vpip_hands=1, three_bet_chances=1, saw_flop=1)),
    # S0 called the open, checked, and folded to the c-bet: a chance, taken.
    (HAND_E, 0, expect(vpip_hands=1, three_bet_chances=1, fold_to_cbet_chances=1,
                       folds_to_cbet=1, saw_flop=1)),
    # S5 c-bet at its first flop decision: chance, taken.
    (HAND_E, 5, expect(vpip_hands=1, pfr_hands=1, cbet_chances=1, cbets=1, saw_flop=1,
                       postflop_bets=1)),
    # S5 checked the flop behind at its c-bet spot: a chance not taken; the turn fold is no
    # fold to a c-bet.
    (HAND_F, 5, expect(vpip_hands=1, pfr_hands=1, cbet_chances=1, saw_flop=1)),
    # S0's turn bet: a post-flop bet, but the c-bet spot was S5's.
    (HAND_F, 0, expect(vpip_hands=1, three_bet_chances=1, saw_flop=1, postflop_bets=1)),
    # All-in pre-flop, the board run out: the flop was seen and the showdown reached; S2 won
    # chips (+15, half the dead blinds).
    (HAND_G, 2, expect(vpip_hands=1, pfr_hands=1, saw_flop=1, showdowns=1, won_at_showdown=1)),
    (HAND_G, 3, expect(vpip_hands=1, three_bet_chances=1, saw_flop=1, showdowns=1,
                       won_at_showdown=1)),
    # The big blind folded to the all-in: a 3-bet chance, nothing else.
    (HAND_G, 1, expect(three_bet_chances=1)),
]


@pytest.mark.parametrize("h,seat,want", CASES)
def test_counts_of_one_seat_in_one_hand(h, seat, want):
    assert hud.count(h, seat) == want


def test_figures_over_hands():
    """S0 over hands A-G: the cases above for A, D, E, F; in B it folds the small blind with no
    raise before it (nothing but the hand), in C and G it folds facing one raise (a 3-bet
    chance each)."""
    total = {}
    for h in (HAND_A, HAND_B, HAND_C, HAND_D, HAND_E, HAND_F, HAND_G):
        total = hud.add(total, hud.count(h, 0))
    f = hud.figures(total)
    assert f["hands"] == 7
    assert (f["vpip_hands"], f["vpip"]) == (4, 400 / 7)  # A (raise), D (raise), E, F (calls)
    assert (f["pfr_hands"], f["pfr"]) == (2, 200 / 7)  # A, D
    # chances: A (S3's open), C (S4's open), E and F (S5's), G (S2's all-in); taken in A only
    assert (f["three_bet_chances"], f["three_bets"], f["three_bet"]) == (5, 1, 20.0)
    assert (f["cbet_chances"], f["cbets"], f["cbet"]) == (2, 2, 100.0)  # A, D
    assert (f["fold_to_cbet_chances"], f["folds_to_cbet"], f["fold_to_cbet"]) == (1, 1, 100.0)
    assert (f["saw_flop"], f["showdowns"], f["wtsd"]) == (4, 1, 25.0)  # A D E F; A
    assert (f["won_at_showdown"], f["wsd"]) == (1, 100.0)
    # bets: A's flop bet, D's c-bet, F's turn bet; the one call: A's river call
    assert (f["postflop_bets"], f["postflop_calls"], f["af"]) == (3, 1, 3.0)


def test_no_chance_gives_none():
    f = hud.figures(hud.count(HAND_B, 2))  # not dealt in: no hand at all
    assert f["hands"] == 0 and all(f[k] is None for k in hud.FIGURES)
    f = hud.figures(hud.count(HAND_G, 1))  # one folded hand: VPIP 0%, no flop, no AF
    assert (f["vpip"], f["three_bet"]) == (0.0, 0.0)
    assert f["cbet"] is f["fold_to_cbet"] is f["wtsd"] is f["wsd"] is f["af"] is None


def _series_hand(n, actions, net, *, board=True, showdown=False, dealt=(True,) * 3, done=True):
    """A hand as a series replay records it (docs/series.md), three seats, stacks 1000."""
    events = [{"type": "hand_start"}] + [{"type": "action"}] * len(actions)
    events += [{"type": "board", "street": 1}] if board else []
    events += [{"type": "showdown", "cards": []}] if showdown else []
    rec = {"hand": n, "stacks": [1000] * 3, "hole": [["As", "Kd"] if d else None for d in dealt],
           "actions": [{"street": s, "seat": seat, "code": c, "to": 0, "added": 0, "auto": None,
                        "used_ns": 0} for s, seat, c in actions], "events": events}
    if done:
        rec["stacks_after"] = [1000 + x for x in net]
    return rec


def test_series_hud_follows_slots_across_seatings():
    """Two tournaments with different seatings: each slot's counts come from its own seats;
    a seat not dealt in and an unfinished hand (an interruption) count for nobody."""
    t0 = {"player_at_seat": [0, 1, 2], "hands": [
        # seat 0 (slot 0) opens, seat 1 (slot 1) calls, seat 2 (slot 2) folds; flop seat 1
        # checks, seat 0 bets (c-bet), seat 1 folds (fold to c-bet)
        _series_hand(0, [(PRE, 0, RAISE), (PRE, 1, CALL), (PRE, 2, FOLD), (FLOP, 1, CHECK),
                         (FLOP, 0, RAISE), (FLOP, 1, FOLD)], [70, -60, -10]),
        # unfinished: no stacks_after, not counted
        _series_hand(1, [(PRE, 0, RAISE)], [0, 0, 0], board=False, done=False)]}
    t1 = {"player_at_seat": [2, 0, 1], "hands": [
        # seat 0 (slot 2) not dealt; seat 1 (slot 0) calls, seat 2 (slot 1) checks; checked
        # down to a showdown won by seat 2 (slot 1)
        _series_hand(0, [(PRE, 1, CALL), (PRE, 2, CHECK), (FLOP, 1, CHECK), (FLOP, 2, CHECK)],
                     [0, -20, 20], showdown=True, dealt=(False, True, True))]}
    slot0, slot1, slot2 = hud.series_hud([t0, t1], 3)
    assert (slot0["hands"], slot0["vpip_hands"], slot0["pfr_hands"]) == (2, 2, 1)
    assert (slot0["cbet_chances"], slot0["cbets"]) == (1, 1)
    assert (slot0["saw_flop"], slot0["showdowns"], slot0["won_at_showdown"]) == (2, 1, 0)
    assert (slot1["hands"], slot1["vpip_hands"], slot1["three_bet_chances"]) == (2, 1, 1)
    assert (slot1["fold_to_cbet_chances"], slot1["folds_to_cbet"]) == (1, 1)
    assert (slot1["showdowns"], slot1["won_at_showdown"], slot1["wsd"]) == (1, 1, 100.0)
    assert (slot2["hands"], slot2["three_bet_chances"], slot2["saw_flop"]) == (1, 1, 0)
