"""Named rule tests for holdemjax/poker/table.py, one per rule, on hand-made fixed decks.

Rule numbers are the TDA rulebook's (2022 numbering, kept by 2024 for these rules; RP-11 is the
2024 big-blind-ante procedure); "SPEC" is /work/shared/SPEC.md section 2 "Poker rules";
docs/rules.md lists every rule and design choice these tests pin.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from holdemjax.poker import table
from holdemjax.poker.cards import parse_cards
from holdemjax.poker.table import CHECK_CALL, FOLD, RAISE

_start = jax.jit(table.start_hand)
_act = jax.jit(table.act)
_legal = jax.jit(table.legal)

# A board that plays for everyone (royal flush): every showdown on it is a split.
ROYAL = "AsKsQsJsTs"


def make_deck(holes: dict[int, str], board: str) -> np.ndarray:
    """A 52-card deck with seat s's hole cards at 2s, 2s+1 and ``board`` at 18..22; the other
    slots get the unused cards in id order."""
    deck = [-1] * 52
    for seat, text in holes.items():
        deck[2 * seat], deck[2 * seat + 1] = parse_cards(text)
    deck[18:23] = parse_cards(board)
    rest = iter(c for c in range(52) if c not in deck)
    return np.array([c if c >= 0 else next(rest) for c in deck], np.int32)


def start(stacks, button, sb, bb, *, holes=None, board="2c7d9hJc3s", in_hand=None,
          sb_posts=True, blinds=(10, 20), ante=0):
    stacks = np.asarray(stacks, np.int32)
    in_hand = stacks > 0 if in_hand is None else np.asarray(in_hand, bool)
    deck = make_deck(holes or {}, board)
    t = _start(stacks, in_hand, button, sb, bb, sb_posts, blinds[0], blinds[1], ante, deck)
    assert int(table.total_chips(t)) == int(stacks.sum())
    return t


def play(t, *moves):
    """Apply ``(seat, kind, amount)`` moves, checking the actor and chip conservation each step."""
    total = int(table.total_chips(t))
    for seat, kind, amount in moves:
        assert int(t.to_act) == seat, f"expected seat {seat} to act, got {int(t.to_act)}"
        t = _act(t, kind, amount)
        assert int(table.total_chips(t)) == total
    return t


def check_down(t):
    """Check/call until the hand ends."""
    while not bool(t.hand_over):
        t = play(t, (int(t.to_act), CHECK_CALL, 0))
    return t


def legal_dict(t):
    lg = _legal(t)
    return {k: (bool(v) if v.dtype == bool else int(v)) for k, v in vars(lg).items()}


# ---------------------------------------------------------------------------------------------
# Blinds, order of action
# ---------------------------------------------------------------------------------------------


def test_blinds_and_action_order_six_max():
    """SPEC 2: blinds posted by SB and BB; pre-flop the first seat after the BB acts first,
    post-flop the first seat after the button."""
    t = start([1000] * 6, button=0, sb=1, bb=2)
    assert t.bets.tolist() == [0, 10, 20, 0, 0, 0]
    assert t.stacks.tolist() == [1000, 990, 980, 1000, 1000, 1000]
    assert int(t.current_bet) == 20 and int(t.street) == table.PREFLOP
    t = play(t, (3, CHECK_CALL, 0), (4, CHECK_CALL, 0), (5, CHECK_CALL, 0), (0, CHECK_CALL, 0),
             (1, CHECK_CALL, 0))
    assert legal_dict(t)["can_check"]  # the big blind's option
    t = play(t, (2, CHECK_CALL, 0))
    assert int(t.street) == table.FLOP and int(t.revealed) == 3
    assert int(t.to_act) == 1  # first seat after the button
    assert t.bets.tolist() == [0] * 6 and t.contrib.tolist() == [20] * 6


def test_heads_up_button_posts_small_blind_acts_first_preflop_last_after():
    """TDA Rule 34 / SPEC 2: heads-up the button posts the small blind, acts first pre-flop and
    last on every later street."""
    for stacks, button, other in (([500, 500], 0, 1), ([0, 500, 0, 0, 700, 0], 4, 1)):
        n = len(stacks)
        alive = np.asarray(stacks) > 0
        btn, sb, bb, posts = table.first_positions(alive, button)
        assert (int(btn), int(sb), int(bb), bool(posts)) == (button, button, other, True)
        t = start(stacks, btn, sb, bb)
        assert int(t.bets[button]) == 10 and int(t.bets[other]) == 20, n
        assert int(t.to_act) == button
        t = play(t, (button, CHECK_CALL, 0), (other, CHECK_CALL, 0))
        assert int(t.street) == table.FLOP and int(t.to_act) == other
        t = play(t, (other, CHECK_CALL, 0), (button, CHECK_CALL, 0))
        assert int(t.street) == table.TURN and int(t.to_act) == other


def test_short_small_blind_posts_what_it_has():
    """SPEC 2 / start_hand: a small blind shorter than the blind posts all it has (all-in)."""
    t = start([1000, 6, 1000], button=0, sb=1, bb=2)
    assert t.bets.tolist() == [0, 6, 20] and bool(t.allin[1])
    assert int(t.to_act) == 0 and legal_dict(t)["call_amount"] == 20


# ---------------------------------------------------------------------------------------------
# Bet sizes, reopening
# ---------------------------------------------------------------------------------------------


def test_min_bet_is_big_blind():
    """TDA Rule 43 / SPEC 2: the minimum opening bet is the big blind."""
    t = start([1000] * 3, button=0, sb=1, bb=2)
    t = play(t, (0, CHECK_CALL, 0), (1, CHECK_CALL, 0), (2, CHECK_CALL, 0))
    lg = legal_dict(t)
    assert lg["can_check"] and lg["can_raise"]
    assert lg["min_raise_to"] == 20 and lg["max_raise_to"] == 980
    t = play(t, (1, RAISE, 5))  # below the minimum: clamped up to the big blind
    assert int(t.bets[1]) == 20 and int(t.min_raise) == 20


def test_min_raise_is_last_raise_size():
    """TDA Rule 43: a raise must be at least the largest previous bet or raise of the round."""
    t = start([5000] * 6, button=0, sb=1, bb=2)
    assert legal_dict(t)["min_raise_to"] == 40
    t = play(t, (3, RAISE, 60))  # raise of 40
    assert legal_dict(t)["min_raise_to"] == 100
    t = play(t, (4, RAISE, 200))  # raise of 140
    assert legal_dict(t)["min_raise_to"] == 340
    t = play(t, (5, RAISE, 340))  # exactly the minimum: still 140
    assert legal_dict(t)["min_raise_to"] == 480
    t = play(t, (0, FOLD, 0), (1, FOLD, 0), (2, FOLD, 0), (3, FOLD, 0), (4, CHECK_CALL, 0))
    assert int(t.street) == table.FLOP and legal_dict(t)["min_raise_to"] == 20  # resets each street


def test_short_all_in_does_not_reopen_betting():
    """TDA Rule 47: an all-in short of a full raise does not reopen the betting to players who
    already acted and do not face a full raise; players yet to act may still raise."""
    t = start([1000, 1000, 1000, 150], button=0, sb=1, bb=2)
    t = play(t, (3, CHECK_CALL, 0), (0, CHECK_CALL, 0), (1, CHECK_CALL, 0), (2, CHECK_CALL, 0))
    t = play(t, (1, RAISE, 100), (2, CHECK_CALL, 0))
    t = play(t, (3, RAISE, 1000))  # all-in for 130 in total: a raise of 30 < 100
    assert int(t.current_bet) == 130 and int(t.min_raise) == 100
    lg = legal_dict(t)  # seat 0 has not acted on the flop: raising is open to it
    assert int(t.to_act) == 0 and lg["can_raise"] and lg["min_raise_to"] == 230
    t = play(t, (0, CHECK_CALL, 0))
    lg = legal_dict(t)  # back to seat 1: acted, faces 30 < 100
    assert int(t.to_act) == 1 and not lg["can_raise"] and lg["call_amount"] == 30
    assert lg["min_raise_to"] == 0 and lg["max_raise_to"] == 0
    t = play(t, (1, RAISE, 900))  # raise not open: played as a call
    assert int(t.bets[1]) == 130
    assert int(t.to_act) == 2 and not legal_dict(t)["can_raise"]


def test_two_short_all_ins_together_reopen():
    """TDA Rule 47 (Illustration Addendum example): A bets 100, B all-in 125, C calls, D all-in
    200, E calls: A faces a full raise of 100 and may raise again (minimum still the last full
    raise, 100); C faces only 75 and may not."""
    #        seat:  0(btn) 1=A   2=B  3=C   4=D  5=E
    t = start([2000, 2000, 145, 2000, 220, 2000], button=0, sb=1, bb=2)
    t = play(t, (3, CHECK_CALL, 0), (4, CHECK_CALL, 0), (5, CHECK_CALL, 0), (0, FOLD, 0),
             (1, CHECK_CALL, 0), (2, CHECK_CALL, 0))
    assert int(t.street) == table.FLOP
    t = play(t, (1, RAISE, 100), (2, RAISE, 125), (3, CHECK_CALL, 0), (4, RAISE, 200),
             (5, CHECK_CALL, 0))
    assert bool(t.allin[2]) and bool(t.allin[4]) and int(t.min_raise) == 100
    lg = legal_dict(t)
    assert int(t.to_act) == 1 and lg["can_raise"] and lg["min_raise_to"] == 300
    t = play(t, (1, CHECK_CALL, 0))
    lg = legal_dict(t)
    assert int(t.to_act) == 3 and not lg["can_raise"] and lg["call_amount"] == 75


# ---------------------------------------------------------------------------------------------
# Big blind ante, short big blind
# ---------------------------------------------------------------------------------------------


def test_big_blind_ante_short_big_blind_posts_blind_first():
    """TDA 2024 RP-11 / SPEC 2: one big-blind ante, posted by the big blind; when short, the blind
    is taken first and the ante from what is left; the ante is dead money in the main pot."""
    t = start([1000, 1000, 30, 1000], button=0, sb=1, bb=2, ante=20)
    assert int(t.bets[2]) == 20 and int(t.dead) == 10 and bool(t.allin[2])
    assert int(t.current_bet) == 20 and int(t.to_act) == 3
    full = start([1000, 1000, 1000, 1000], button=0, sb=1, bb=2, ante=20)
    assert int(full.dead) == 20 and int(full.stacks[2]) == 960 and int(full.contrib[2]) == 20


def test_ante_is_dead_money_never_returned():
    """RP-11: the ante is never returned as an uncalled bet; everyone folding to the big blind
    gives it back its blind plus the ante and the small blind."""
    t = start([1000, 1000, 1000, 1000], button=0, sb=1, bb=2, ante=20)
    t = play(t, (3, FOLD, 0), (0, FOLD, 0), (1, FOLD, 0))
    assert bool(t.hand_over) and not bool(t.showdown)
    assert t.winnings.tolist() == [0, 0, 50, 0]  # own 20 back, the small blind's 10, the ante 20
    assert t.stacks.tolist() == [1000, 990, 1010, 1000]


def test_big_blind_all_in_for_less_callers_match_full_blind():
    """Design choice (docs/rules.md): a big blind all-in for less than the blind still makes
    callers match the full big blind; the excess of a lone caller is returned uncalled."""
    t = start([1000, 1000, 5, 1000], button=0, sb=1, bb=2)
    assert int(t.bets[2]) == 5 and int(t.current_bet) == 20
    lg = legal_dict(t)
    assert lg["call_amount"] == 20 and lg["min_raise_to"] == 40
    t = play(t, (3, CHECK_CALL, 0), (0, FOLD, 0), (1, FOLD, 0))
    assert bool(t.hand_over)  # nobody left to act against: the board runs out
    # contributions 10 (SB, folded), 5 (BB all-in), 20 (seat 3): 10 of seat 3's 20 is uncalled;
    # the pots are 15 (BB and seat 3) and 10 (seat 3 alone).
    assert int(t.winnings[3]) + int(t.winnings[2]) == 35 and int(t.winnings[3]) >= 20


# ---------------------------------------------------------------------------------------------
# Pots
# ---------------------------------------------------------------------------------------------


def test_three_way_all_in_two_side_pots():
    """TDA Rule 21 / SPEC 2: side pots by contribution level; the short stack wins the main pot,
    the middle stack the side pot, the big stack gets its uncalled excess back."""
    holes = {0: "AhAd", 1: "KhKd", 2: "QhQd"}  # seat 0 best, then 1, then 2
    t = start([100, 300, 1000], button=0, sb=1, bb=2, holes=holes, board="2c7d9s3h4c")
    t = play(t, (0, RAISE, 100), (1, RAISE, 300))
    assert not legal_dict(t)["can_raise"]  # everyone else is all-in: nobody could answer
    t = play(t, (2, RAISE, 1000))  # so the raise is played as a call of 300
    assert bool(t.hand_over) and bool(t.showdown) and int(t.revealed) == 5
    # main pot 3 x 100 -> seat 0; side pot 2 x 200 -> seat 1; seat 2 keeps its other 700.
    assert t.winnings.tolist() == [300, 400, 0]
    assert t.stacks.tolist() == [300, 400, 700]


def test_odd_chip_to_first_seat_left_of_button():
    """TDA Rule 20: in a split the odd chip goes to the first winner clockwise from the button."""
    holes = {0: "2c3d", 1: "4c5d", 2: "2h3c", 3: "4h5h"}  # the board plays for everyone
    # Three-handed: button calls, SB folds, BB checks: 25 split, seat 2 is first after button 0.
    t = start([1000] * 3, 0, 1, 2, holes=holes, board=ROYAL, blinds=(5, 10))
    t = check_down(play(t, (0, CHECK_CALL, 0), (1, FOLD, 0), (2, CHECK_CALL, 0)))
    assert t.winnings.tolist() == [12, 0, 13]
    # Four-handed: UTG and button call, both blinds fold: 35 split, UTG (seat 3) comes before
    # the button itself going clockwise from the button.
    t = start([1000] * 4, 0, 1, 2, holes=holes, board=ROYAL, blinds=(5, 10))
    t = play(t, (3, CHECK_CALL, 0), (0, CHECK_CALL, 0), (1, FOLD, 0), (2, FOLD, 0))
    t = check_down(t)
    assert t.winnings.tolist() == [17, 0, 0, 18]


def test_split_side_pot_each_pot_split_separately():
    """TDA Rules 20-21: each pot is split separately, its odd chip to the first winner left of the
    button. Seat 1 (short) wins the main pot alone; seats 2 and 3 tie for the side pot."""
    holes = {0: "7c9d", 1: "AhAd", 2: "KhKd", 3: "KcKs"}
    board = "Qh8d5s3c2h"
    t = start([1000, 51, 1000, 1000], button=0, sb=1, bb=2, holes=holes, board=board,
              blinds=(5, 10))
    t = play(t, (3, RAISE, 201), (0, CHECK_CALL, 0), (1, CHECK_CALL, 0), (2, CHECK_CALL, 0))
    # main: 4 x 51 = 204 -> seat 1; side: 3 x 150 = 450 -> seats 2 and 3, 225 each.
    t = check_down(t)
    assert t.winnings.tolist() == [0, 204, 225, 225]
    t = start([1000, 51, 1000, 1000], button=0, sb=1, bb=2, holes=holes, board=board,
              blinds=(5, 10), ante=10)
    t = play(t, (3, RAISE, 100), (0, RAISE, 200), (1, CHECK_CALL, 0), (2, CHECK_CALL, 0),
             (3, CHECK_CALL, 0))
    # main: 4 x 51 + ante 10 = 214 -> seat 1; side: 3 x 149 = 447 -> 224 to seat 2 (first left
    # of the button), 223 to seat 3.
    t = check_down(t)
    assert t.winnings.tolist() == [0, 214, 224, 223]


def test_uncalled_bet_returned():
    """SPEC 2: the part of the largest contribution above the second largest is returned."""
    holes = {0: "AhAd", 1: "KhKd", 2: "2c3d"}
    t = start([1000, 300, 1000], button=0, sb=1, bb=2, holes=holes, board="2s7d9cJh4c")
    t = play(t, (0, RAISE, 1000), (1, CHECK_CALL, 0), (2, FOLD, 0))
    assert t.winnings.tolist() == [620 + 700, 0, 0]  # pot 300 + 300 + 20; 700 back
    t = start([1000, 1000, 1000], button=0, sb=1, bb=2)
    t = play(t, (0, RAISE, 60), (1, CHECK_CALL, 0), (2, CHECK_CALL, 0))
    t = play(t, (1, RAISE, 500), (2, FOLD, 0), (0, FOLD, 0))
    assert t.winnings.tolist() == [0, 680, 0] and t.stacks.tolist() == [940, 1120, 940]


def test_everyone_folds_no_showdown():
    """SPEC 2: a hand won by everyone else folding pays without a showdown."""
    t = start([1000] * 6, button=0, sb=1, bb=2)
    t = play(t, (3, FOLD, 0), (4, FOLD, 0), (5, FOLD, 0), (0, FOLD, 0), (1, FOLD, 0))
    assert bool(t.hand_over) and not bool(t.showdown) and int(t.revealed) == 0
    assert int(t.to_act) == table.NO_SEAT and int(t.street) == table.HAND_OVER
    assert t.stacks.tolist() == [1000, 990, 1010, 1000, 1000, 1000]
    t = start([1000] * 3, button=0, sb=1, bb=2)
    t = play(t, (0, CHECK_CALL, 0), (1, CHECK_CALL, 0), (2, CHECK_CALL, 0), (1, RAISE, 40),
             (2, FOLD, 0), (0, FOLD, 0))
    assert int(t.revealed) == 3 and not bool(t.showdown)


def test_all_in_run_out_to_showdown():
    """SPEC 2: when no seat can act any more the board runs out (fixed by the deck) and the hand
    goes to showdown inside the same ``act``."""
    holes = {0: "AhAd", 1: "KhKd", 2: "QhQd", 3: "JhJd"}
    t = start([500, 500, 500, 2000], button=0, sb=1, bb=2, holes=holes, board="2s7d9c3h4c")
    t = play(t, (3, RAISE, 500), (0, CHECK_CALL, 0), (1, CHECK_CALL, 0), (2, CHECK_CALL, 0))
    assert bool(t.hand_over) and int(t.revealed) == 5 and bool(t.showdown)
    assert t.stacks.tolist() == [2000, 0, 0, 1500]
    t = start([500, 500, 500, 2000], button=0, sb=1, bb=2, holes=holes, board="2s7d9c3h4c")
    t = play(t, (3, CHECK_CALL, 0), (0, CHECK_CALL, 0), (1, CHECK_CALL, 0), (2, CHECK_CALL, 0))
    t = play(t, (1, RAISE, 480), (2, CHECK_CALL, 0), (3, FOLD, 0), (0, CHECK_CALL, 0))
    assert bool(t.hand_over) and int(t.revealed) == 5  # flop all-in: turn and river run out


def test_blinds_all_in_run_out_inside_start_hand():
    """start_hand: if the blinds leave nobody able to act, the hand runs out at once."""
    holes = {0: "AhAd", 1: "KhKd"}
    t = start([10, 20], button=0, sb=0, bb=1, holes=holes, board="2s7d9c3h4c")
    assert bool(t.hand_over) and bool(t.showdown) and t.stacks.tolist() == [20, 10]
    t = start([10, 15], button=0, sb=0, bb=1, holes=holes, board="2s7d9c3h4c")
    assert bool(t.hand_over) and t.stacks.tolist() == [20, 5]  # 5 of the big blind uncalled


def test_seat_with_nothing_at_stake_is_skipped():
    """Design choice (docs/rules.md): a seat is asked to act only if somebody else live can still
    put in more than its current bet; the big blind facing only a smaller all-in is skipped."""
    holes = {0: "AhAd", 1: "KhKd", 2: "QhQd"}
    t = start([15, 1000, 1000], button=0, sb=1, bb=2, holes=holes, board="2s7d9c3h4c")
    t = play(t, (0, CHECK_CALL, 0), (1, FOLD, 0))  # button all-in for 15 < 20; SB folds
    assert bool(t.hand_over) and t.stacks.tolist() == [40, 990, 985]  # 5 of the BB uncalled


def test_fold_allowed_when_checking_is_free():
    """Design choice (docs/rules.md): FOLD always folds, even when checking is free (the RL action
    menu masks it); ``legal.can_fold`` is True at every decision."""
    t = start([1000] * 3, button=0, sb=1, bb=2)
    t = play(t, (0, CHECK_CALL, 0), (1, CHECK_CALL, 0))
    lg = legal_dict(t)
    assert lg["can_check"] and lg["can_fold"]
    t = play(t, (2, FOLD, 0))
    assert bool(t.folded[2]) and int(t.street) == table.FLOP


# ---------------------------------------------------------------------------------------------
# Clamping and illegal kinds
# ---------------------------------------------------------------------------------------------


def test_clamping_amounts_and_kinds():
    """Design choice (docs/rules.md, act): raise-to below the minimum becomes the minimum raise,
    above the stack becomes all-in; RAISE with raising closed is CHECK_CALL; CHECK_CALL facing a
    bet calls (all-in if short); kinds outside 0..2 are clipped; act on a finished hand is a
    no-op."""
    t = start([1000] * 4, button=0, sb=1, bb=2)
    assert int(play(t, (3, RAISE, 21)).bets[3]) == 40
    assert int(play(t, (3, RAISE, -50)).bets[3]) == 40
    assert int(play(t, (3, RAISE, 10**9)).bets[3]) == 1000
    assert int(play(t, (3, RAISE, 77)).bets[3]) == 77
    assert bool(play(t, (3, -3, 0)).folded[3])  # clipped to FOLD
    assert int(play(t, (3, 9, 0)).bets[3]) == 40  # clipped to RAISE, amount 0 -> min raise
    assert int(play(t, (3, CHECK_CALL, 500)).bets[3]) == 20  # amount ignored
    short = start([1000, 1000, 1000, 35], button=0, sb=1, bb=2)
    lg = legal_dict(short)  # a stack too small for a min raise may only raise all-in
    assert lg["can_raise"] and lg["min_raise_to"] == lg["max_raise_to"] == 35
    assert int(play(short, (3, RAISE, 1)).bets[3]) == 35
    shorter = start([1000, 1000, 1000, 15], button=0, sb=1, bb=2)
    assert not legal_dict(shorter)["can_raise"] and legal_dict(shorter)["call_amount"] == 15
    assert int(play(shorter, (3, RAISE, 500)).bets[3]) == 15  # closed -> call all-in
    done = play(t, (3, FOLD, 0), (0, FOLD, 0), (1, FOLD, 0))
    assert bool(done.hand_over)
    again = _act(done, RAISE, 100)
    assert jax.tree.all(jax.tree.map(lambda a, b: bool((a == b).all()), done, again))
    lg = legal_dict(done)
    assert not lg["can_fold"] and not lg["can_check"] and not lg["can_raise"]


# ---------------------------------------------------------------------------------------------
# Positions between hands
# ---------------------------------------------------------------------------------------------


def positions(fn, *args):
    return tuple(int(x) if x.dtype != bool else bool(x) for x in fn(*args))


def test_first_positions():
    """SPEC 2: hand one: SB = next alive seat after the button, BB = next after the SB."""
    alive = np.array([True, False, True, True, False, True])
    assert positions(table.first_positions, alive, 0) == (0, 2, 3, True)
    assert positions(table.first_positions, alive, 1) == (1, 2, 3, True)  # empty button seat
    assert positions(table.first_positions, alive, 5) == (5, 0, 2, True)


def test_dead_button_after_elimination_at_small_blind():
    """TDA Rule 32 (dead button): the SB busts; the BB moves on one seat, the previous BB posts
    the small blind and the button goes to the busted SB's empty seat."""
    alive = np.array([True, False, True, True, True, True])  # seat 1 (the SB) busted
    assert positions(table.next_positions, alive, 0, 1, 2) == (1, 2, 3, True)
    # the next hand: the button moves on to seat 2 normally
    assert positions(table.next_positions, alive, 1, 2, 3) == (2, 3, 4, True)


def test_dead_small_blind_after_elimination_at_big_blind():
    """TDA Rule 32: the BB busts; next hand nobody posts the small blind (dead SB at the busted
    seat), the BB moves to the next alive seat, the button to the previous SB."""
    alive = np.array([True, True, False, True, True, True])  # seat 2 (the BB) busted
    btn, sb, bb, posts = positions(table.next_positions, alive, 0, 1, 2)
    assert (btn, sb, bb, posts) == (1, 2, 3, False)
    t = start([1000, 1000, 0, 1000, 1000, 1000], btn, sb, bb, sb_posts=posts)
    assert t.bets.tolist() == [0, 0, 0, 20, 0, 0] and int(t.to_act) == 4
    t = play(t, (4, CHECK_CALL, 0), (5, CHECK_CALL, 0), (0, CHECK_CALL, 0), (1, CHECK_CALL, 0),
             (3, CHECK_CALL, 0))
    assert int(t.to_act) == 3  # post-flop: first seat after the button (1) that can act


def test_nobody_skips_the_big_blind():
    """TDA Rule 32: two seats busting together never let a player skip the big blind."""
    alive = np.array([True, True, False, False, True, True])  # BB (2) and seat 3 busted
    assert positions(table.next_positions, alive, 0, 1, 2) == (1, 2, 4, False)


def test_heads_up_transition_nobody_posts_big_blind_twice():
    """TDA Rule 34: on reaching heads-up the button is adjusted so no player posts the big blind
    twice in a row; the button posts the small blind."""
    # three left: button 0, SB 1, BB 2.
    for busted, want in ((2, (1, 1, 0)), (0, (2, 2, 1)), (1, (2, 2, 0))):
        alive = np.array([True, True, True])
        alive[busted] = False
        btn, sb, bb, posts = positions(table.next_positions, alive, 0, 1, 2)
        assert (btn, sb, bb) == want and posts
        assert bb != 2  # the previous big blind does not post it again
    # and heads-up keeps alternating
    alive = np.array([True, False, True])
    assert positions(table.next_positions, alive, 0, 0, 2) == (2, 2, 0, True)
    assert positions(table.next_positions, alive, 2, 2, 0) == (0, 0, 2, True)


# ---------------------------------------------------------------------------------------------
# Invariants, jit / vmap
# ---------------------------------------------------------------------------------------------

_vstart = jax.jit(jax.vmap(table.start_hand))
_vact = jax.jit(jax.vmap(table.act))
_vlegal = jax.jit(jax.vmap(table.legal))
_vpay = jax.jit(jax.vmap(table.pay_if_ended))
_vact_unpaid = jax.jit(jax.vmap(lambda t, k, a: table.act(t, k, a, pay=False)))


def assert_same_tables(a, b, rows=slice(None)):
    for name, x in vars(a).items():
        assert (np.asarray(x)[rows] == np.asarray(getattr(b, name))[rows]).all(), name


def random_batch(rng, batch, n=6):
    stacks = rng.integers(1, 3000, size=(batch, n)).astype(np.int32)
    stacks[rng.random((batch, n)) < 0.15] = 0
    stacks[:, :2] = np.maximum(stacks[:, :2], 1)
    alive = stacks > 0
    btn, sb, bb, posts = jax.vmap(table.first_positions)(alive, rng.integers(0, n, batch))
    decks = np.stack([rng.permutation(52) for _ in range(batch)]).astype(np.int32)
    ante = np.where(rng.random(batch) < 0.5, 20, 0).astype(np.int32)
    return _vstart(stacks, alive, btn, sb, bb, posts, np.full(batch, 10, np.int32),
                   np.full(batch, 20, np.int32), ante, decks), stacks.sum(1)


def random_actions(rng, lg):
    b = lg.can_raise.shape[0]
    kind = rng.integers(0, 3, b).astype(np.int32)
    lo, hi = np.asarray(lg.min_raise_to), np.asarray(lg.max_raise_to)
    amount = np.where(rng.random(b) < 0.5, lo,
                      rng.integers(0, np.maximum(hi, 1) + 30)).astype(np.int32)
    return kind, amount


def test_chips_conserved_on_every_step_of_random_hands():
    """Chip conservation: sum(stacks) + sum(contrib) + dead is constant across every transition
    (random hands, random and sometimes out-of-range actions)."""
    rng = np.random.default_rng(7)
    tables, total = random_batch(rng, 256)
    for _ in range(80):
        assert (np.asarray(table.total_chips(tables)) == total).all()
        assert (np.asarray(tables.stacks) >= 0).all() and (np.asarray(tables.bets) >= 0).all()
        kinds, amounts = random_actions(rng, _vlegal(tables))
        paid = _vact(tables, kinds, amounts)
        # pay=False leaves a hand the decision ends unpaid; `pay_if_ended` pays it exactly as `act`
        # does, and leaves every other table (waiting, or over before the decision) alone.
        unpaid = _vact_unpaid(tables, kinds, amounts)
        ended = np.asarray(paid.hand_over & ~tables.hand_over)
        assert not np.asarray(unpaid.hand_over & ~tables.hand_over).any()
        assert (np.asarray(unpaid.to_act)[ended] < 0).all()
        assert_same_tables(_vpay(unpaid), paid)
        tables = paid
    assert np.asarray(tables.hand_over).all()
    assert (np.asarray(tables.stacks).sum(1) == total).all()
    assert (np.asarray(tables.winnings).sum(1) <= total).all()


def test_vmapped_rows_equal_unbatched_runs():
    """jit + vmap: every row of a batched run (rows at different streets) equals its own
    unbatched run; compiled once per shape."""
    rng = np.random.default_rng(3)
    batch = 8
    tables, _ = random_batch(rng, batch)
    rows = [jax.tree.map(lambda x, i=i: x[i], tables) for i in range(batch)]
    for _ in range(12):
        kinds, amounts = random_actions(rng, _vlegal(tables))
        tables = _vact(tables, kinds, amounts)
        rows = [_act(r, kinds[i], amounts[i]) for i, r in enumerate(rows)]
        for i, r in enumerate(rows):
            got = jax.tree.map(lambda x, i=i: x[i], tables)
            same = jax.tree.map(lambda a, b: bool((np.asarray(a) == np.asarray(b)).all()), got, r)
            assert jax.tree.all(same), f"row {i} differs"


def test_act_traces_once_per_shape():
    """Retrace guard: ``act`` under jit compiles once for a given table shape."""
    import chex

    traced = chex.assert_max_traces(table.act, n=1)
    step = jax.jit(traced)
    t = start([1000] * 6, button=0, sb=1, bb=2)
    for kind in (CHECK_CALL, CHECK_CALL, RAISE, FOLD):
        t = step(t, jnp.int32(kind), jnp.int32(100))
    chex.clear_trace_counter()


def test_start_hand_without_its_ending_equals_start_hand_wherever_the_hand_waits():
    """``start_hand(..., can_end=False)`` (the first deal of a format whose first hand waits:
    `tournament.first_hand_waits`) leaves the payout out of the program: on every deal that
    waits for a decision it is ``start_hand`` leaf by leaf; the random deals include hands over
    from the blinds, where the two differ (the payout is what was left out) until `pay_if_ended`."""
    rng = np.random.default_rng(11)
    stacks = rng.integers(1, 40, size=(256, 6)).astype(np.int32)  # short: many all-in blinds
    stacks[rng.random((256, 6)) < 0.6] = 0
    stacks[:, :2] = np.maximum(stacks[:, :2], 1)
    alive = stacks > 0
    btn, sb, bb, posts = jax.vmap(table.first_positions)(alive, rng.integers(0, 6, 256))
    decks = np.stack([rng.permutation(52) for _ in range(256)]).astype(np.int32)
    args = (stacks, alive, btn, sb, bb, posts, np.full(256, 10, np.int32),
            np.full(256, 20, np.int32), np.full(256, 20, np.int32), decks)
    full = _vstart(*args)
    lean = jax.jit(jax.vmap(lambda *a: table.start_hand(*a, can_end=False)))(*args)
    waits = ~np.asarray(full.hand_over)
    assert 0 < waits.sum() < 256
    assert_same_tables(full, lean, waits)
    assert not (np.asarray(lean.hand_over)).any()
    # ... and `pay_if_ended` pays the others (nobody to act) as `start_hand` does
    # (`tournament.advance` deals with can_end=False and pays every hand in one place).
    assert (np.asarray(lean.to_act)[~waits] < 0).all()
    assert_same_tables(_vpay(lean), full)
