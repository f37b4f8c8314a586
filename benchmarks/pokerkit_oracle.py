"""PokerKit as an oracle for holdemjax's rules engine (holdemjax/poker/table.py): no hand skipped.

Random hands are played in our engine (batched: one jitted ``vmap`` of ``act`` per seat count),
with random legal actions biased toward raises and all-ins; every decision is recorded with what
``legal`` offered. Each hand is then replayed in PokerKit 0.7.7 (``NoLimitTexasHoldem``,
``Mode.TOURNAMENT``, the same hole cards and board, the same actions) and compared at every
decision: who acts, can fold, can check, call amount, can raise, min and max raise-to; and at the
end every final stack, against PokerKit's own pushes. Every hand is compared; a hand that cannot
be set up or replayed is a mismatch, never a skip.

Where our rules (docs/rules.md) differ from PokerKit's, the harness either sets PokerKit up to
follow our rule for the whole hand (an *emulation*) or excuses exactly one decision or one
payout after checking, independently of both engines, that TDA's rule says what we do there (an
*exemption*). Each is counted and printed by kind (``DIFFERENCES``) with the rule it follows:

Emulations (set up per hand):

* ``bb_ante_blind_first`` (TDA RP-11). PokerKit posts antes before blinds; the big-blind ante
  takes the blind first. PokerKit is given, as the big blind's ante, exactly what the big blind
  has left after the blind (``min(ante, stack - big_blind)``); counted where that is less than
  the ante.
* ``dead_small_blind`` (TDA Rule 32). PokerKit has no dead small blind; it gets one blind (the
  big blind) at index 0, the first seat after the (possibly empty) button.
* ``short_big_blind`` (our documented choice; TDA is silent). A big blind all-in for less than
  the blind still makes callers match the full blind. PokerKit would let them match what was
  posted, so it is given the big blind's stack as exactly the blind: its betting then follows our
  rule, and every decision is compared. Its pot arithmetic cannot (the big blind has chips there
  that it has not here), so the final stacks of these hands are checked against an independent
  side-pot computation (``tda_payout``: contributions from the compared actions, PokerKit's own
  hand ranking, TDA Rules 20/21), which the harness also checks against PokerKit's pushes on
  every other hand.

Exemptions (one decision or one payout each):

* ``pk_check_nothing_at_stake``: PokerKit asks a seat whose only action is to check (every other
  live seat is all-in for no more than its bet); our engine skips such seats. Played as a check
  in PokerKit, after checking that nothing is at stake.
* ``pk_call_phantom_blind``: in a short-big-blind hand, PokerKit asks the small blind to call the
  part of the big blind that was never posted when nobody else can put in more than the small
  blind already has; our engine skips that seat (nothing is at stake). Played as a call in
  PokerKit (the chips stay out of the separate pot arithmetic).
* ``fold_when_check_is_free`` (TDA non-standard folds: a fold when checking is free is binding):
  our engine accepts it, PokerKit's tournament mode refuses it. Compared as a difference of
  ``can_fold`` only at decisions where checking is free; the random policy never folds there.
* ``pk_reopens_after_short_all_in`` (TDA Rules 43/47): PokerKit measures a full raise against
  the largest raise so far on the street starting from zero, so an all-in raise smaller than the
  big blind reopens the betting there. Excused at one decision when PokerKit allows a raise, an
  independent TDA tracker of the street (last full raise, who acted) says the seat faces less
  than a full raise after acting, and PokerKit's own full-raise measure is below the big blind.
* ``pk_refuses_reopen`` (TDA Rule 47): after short all-ins that together make a full raise,
  PokerKit sometimes refuses a raise that TDA allows. Excused at one decision when the TDA
  tracker says the betting is reopened; if our policy raised there, the raise is replayed in
  PokerKit with its short all-in bookkeeping cleared (counted as ``pk_forced_reopen``).
* ``pk_merged_pots`` (TDA Rules 20/21): PokerKit removes the losing hands before it builds the
  pots, so side pots whose remaining contenders coincide are merged and split once, which can
  move an odd chip. Where our final stacks differ from PokerKit's, they must equal PokerKit's
  own pre-merge pots (read when the showdown begins) split separately among PokerKit's own
  winners of the merged pot (odd chip to the first winner left of the button), and some merged
  pot must hold two or more of them with two or more winners.

Run ``python benchmarks/pokerkit_oracle.py --hands 100000 --workers 2 --json
benchmarks/results/pokerkit_oracle.json`` for the big check; the CI test
(tests/poker/test_table_pokerkit.py) runs a few thousand through ``run_oracle``.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import json
import multiprocessing
import pathlib
import platform
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor

import jax
import jax.numpy as jnp
import numpy as np

from holdemjax.poker import table as T
from holdemjax.poker.cards import card_text

# Blind pairs (small, big): the sng ladder plus a few odd ones.
BLINDS = ((1, 2), (5, 10), (10, 20), (15, 30), (25, 50), (40, 80), (60, 120), (100, 200), (7, 20))

#: Every documented difference the harness counts: kind -> (what is counted, rule it follows).
DIFFERENCES = {
    "bb_ante_blind_first": ("hands whose short big blind posts the blind first and a reduced "
                            "ante (PokerKit: ante first)", "TDA RP-11 (big-blind ante)"),
    "dead_small_blind": ("hands with a dead small blind (PokerKit: one blind at index 0)",
                         "TDA Rule 32 (dead button)"),
    "short_big_blind": ("hands whose big blind posts less than the blind; callers match the "
                        "full blind (PokerKit given the blind as the stack; payout checked by "
                        "tda_payout)", "docs/rules.md design choice (TDA silent)"),
    "pk_check_nothing_at_stake": ("PokerKit-only check-only decisions our engine skips",
                                  "docs/rules.md: seats with nothing at stake are skipped"),
    "pk_call_phantom_blind": ("PokerKit-only calls of the unposted part of a short big blind",
                              "docs/rules.md: seats with nothing at stake are skipped"),
    "fold_when_check_is_free": ("decisions where our engine accepts a fold with checking free "
                                "(PokerKit refuses it)", "TDA non-standard folds (binding)"),
    "pk_reopens_after_short_all_in": ("decisions where PokerKit reopens the betting after an "
                                      "all-in raise below the big blind", "TDA Rules 43/47"),
    "pk_refuses_reopen": ("decisions where PokerKit refuses a raise after short all-ins that "
                          "make a full raise together", "TDA Rule 47"),
    "pk_forced_reopen": ("of those, raises replayed in PokerKit with its short all-in "
                         "bookkeeping cleared", "TDA Rule 47"),
    "pk_merged_pots": ("hands where PokerKit's merging of pots moved an odd chip; ours split "
                       "each pot", "TDA Rules 20/21"),
}

# ----------------------------------------------------------------------------------------------
# Hand generation (host side, numpy)
# ----------------------------------------------------------------------------------------------


def random_hands(rng: np.random.Generator, num_seats: int, count: int) -> dict[str, np.ndarray]:
    """``count`` random hands for ``num_seats`` seats: who is in, stacks (very short to deep),
    blinds, sometimes a big-blind ante, positions (fresh, or after eliminations so that dead
    buttons and dead small blinds occur) and a shuffled deck."""
    n = num_seats
    out = {k: [] for k in ("stacks", "in_hand", "prev_alive", "prev_button", "fresh", "small_blind",
                           "big_blind", "ante", "deck")}
    for _ in range(count):
        k = int(rng.choice(np.arange(2, n + 1))) if n > 2 else 2
        in_hand = np.zeros(n, bool)
        in_hand[rng.choice(n, size=k, replace=False)] = True
        sbl, bbl = BLINDS[rng.integers(len(BLINDS))]
        kind = rng.random(n)
        stacks = np.where(
            kind < 0.3,
            rng.integers(1, 3 * bbl + 1, size=n),  # 0-3 big blinds, some below one
            np.where(kind < 0.65, rng.integers(3 * bbl, 40 * bbl, size=n),
                     rng.integers(40 * bbl, 300 * bbl, size=n)),
        )
        stacks = np.where(in_hand, stacks, 0).astype(np.int32)
        fresh = rng.random() < 0.5 or k == n
        prev_alive = in_hand.copy()
        if not fresh:  # some seats busted on the previous hand
            empty = np.flatnonzero(~in_hand)
            gone = rng.choice(empty, size=rng.integers(1, min(3, len(empty)) + 1), replace=False)
            prev_alive[gone] = True
        out["stacks"].append(stacks)
        out["in_hand"].append(in_hand)
        out["prev_alive"].append(prev_alive)
        out["prev_button"].append(int(rng.integers(n)))
        out["fresh"].append(fresh)
        out["small_blind"].append(sbl)
        out["big_blind"].append(bbl)
        out["ante"].append(bbl if rng.random() < 0.4 else 0)
        out["deck"].append(rng.permutation(52).astype(np.int32))
    hands = {k: np.asarray(v) for k, v in out.items()}
    # Positions: first_positions on the previous alive set, then (if seats busted) next_positions.
    fp = jax.jit(jax.vmap(T.first_positions))
    np_ = jax.jit(jax.vmap(T.next_positions))
    b0, s0, bb0, _ = fp(hands["prev_alive"], hands["prev_button"])
    b1, s1, bb1, p1 = np_(hands["in_hand"], b0, s0, bb0)
    b2, s2, bb2, p2 = fp(hands["in_hand"], hands["prev_button"])
    fresh = hands["fresh"]
    hands["button"] = np.where(fresh, b2, b1).astype(np.int32)
    hands["sb"] = np.where(fresh, s2, s1).astype(np.int32)
    hands["bb"] = np.where(fresh, bb2, bb1).astype(np.int32)
    hands["sb_posts"] = np.where(fresh, p2, p1).astype(bool)
    return hands


# ----------------------------------------------------------------------------------------------
# Our engine: batched random play with recorded decisions
# ----------------------------------------------------------------------------------------------


@dataclasses.dataclass
class Decision:
    seat: int
    can_fold: bool
    can_check: bool
    call_amount: int
    can_raise: bool
    min_raise_to: int
    max_raise_to: int
    kind: int
    amount: int  # raise-to for RAISE


@dataclasses.dataclass
class PlayedHand:
    stacks: list[int]
    in_hand: list[bool]
    button: int
    sb: int
    bb: int
    sb_posts: bool
    small_blind: int
    big_blind: int
    ante: int
    hole: list[list[int]]
    board: list[int]
    decisions: list[Decision]
    final_stacks: list[int]


_START = jax.jit(jax.vmap(T.start_hand))


@jax.jit
def _step(tables, kinds, amounts):
    tables = jax.vmap(T.act)(tables, kinds, amounts)
    return tables, jax.vmap(T.legal)(tables)


_LEGAL = jax.jit(jax.vmap(T.legal))


def choose_actions(rng: np.random.Generator, lg: dict[str, np.ndarray]):
    """Random legal actions, biased toward raises and all-ins; never a fold when checking is
    free (PokerKit's tournament mode cannot replay it)."""
    b = lg["can_raise"].shape[0]
    u = rng.random(b)
    raise_ = lg["can_raise"] & (u < 0.4)
    fold = ~raise_ & ~lg["can_check"] & (u > 0.7)
    kind = np.where(raise_, T.RAISE, np.where(fold, T.FOLD, T.CHECK_CALL))
    lo, hi = lg["min_raise_to"].astype(np.int64), lg["max_raise_to"].astype(np.int64)
    v = rng.random(b)
    between = lo + np.floor(rng.random(b) * (hi - lo + 1)).astype(np.int64)
    amount = np.where(v < 0.35, lo, np.where(v < 0.6, hi, np.minimum(between, hi)))
    return kind.astype(np.int32), np.where(raise_, amount, 0).astype(np.int32)


def play_engine(hands: dict[str, np.ndarray], rng: np.random.Generator, max_steps: int = 400):
    """Play every hand of one seat count to the end in our engine; return ``PlayedHand``s.
    Asserts chip conservation at every step."""
    args = [hands[k] for k in ("stacks", "in_hand", "button", "sb", "bb", "sb_posts",
                               "small_blind", "big_blind", "ante", "deck")]
    tables = _START(*[jnp.asarray(a) for a in args])
    lg = _LEGAL(tables)
    total0 = np.asarray(T.total_chips(tables))
    b = total0.shape[0]
    decisions: list[list[Decision]] = [[] for _ in range(b)]
    hole, board = np.asarray(tables.hole), np.asarray(tables.board)
    for _ in range(max_steps):
        over = np.asarray(tables.hand_over)
        if over.all():
            break
        lgn = {k: np.asarray(v) for k, v in dataclasses.asdict(lg).items()}
        to_act = np.asarray(tables.to_act)
        kinds, amounts = choose_actions(rng, lgn)
        for i in np.flatnonzero(~over):
            decisions[i].append(Decision(
                int(to_act[i]), bool(lgn["can_fold"][i]), bool(lgn["can_check"][i]),
                int(lgn["call_amount"][i]), bool(lgn["can_raise"][i]),
                int(lgn["min_raise_to"][i]), int(lgn["max_raise_to"][i]),
                int(kinds[i]), int(amounts[i])))
        tables, lg = _step(tables, jnp.asarray(kinds), jnp.asarray(amounts))
        total = np.asarray(T.total_chips(tables))
        assert (total == total0).all(), "chips not conserved"
    else:
        raise AssertionError("hands did not finish")
    final = np.asarray(tables.stacks)
    played = []
    for i in range(b):
        played.append(PlayedHand(
            hands["stacks"][i].tolist(), hands["in_hand"][i].tolist(), int(hands["button"][i]),
            int(hands["sb"][i]), int(hands["bb"][i]), bool(hands["sb_posts"][i]),
            int(hands["small_blind"][i]), int(hands["big_blind"][i]), int(hands["ante"][i]),
            hole[i].tolist(), board[i].tolist(), decisions[i], final[i].tolist()))
    return played


# ----------------------------------------------------------------------------------------------
# Independent rules: the TDA reopening tracker and the side-pot arithmetic
# ----------------------------------------------------------------------------------------------


class StreetTracker:
    """TDA Rules 43/47 for one betting round, kept apart from both engines: the street total to
    match, the last full bet or raise (the big blind at the start of a round), who acted."""

    def __init__(self, bets: list[int], current: int, big_blind: int):
        self.bets = list(bets)
        self.current = current
        self.last_full = big_blind
        self.acted: set[int] = set()

    def reopened(self, i: int) -> bool:
        """May seat ``i`` raise as far as reopening goes (TDA 47): it has not acted on this round,
        or it faces at least a full raise since (several short all-ins may add up to one)."""
        return i not in self.acted or self.current - self.bets[i] >= self.last_full

    def call(self, i: int, amount: int) -> None:
        self.bets[i] += amount
        self.acted.add(i)

    def fold(self, i: int) -> None:
        self.acted.add(i)

    def raise_to(self, i: int, amount: int) -> None:
        increment = amount - self.current
        if increment >= self.last_full:  # a full raise (TDA 43): it sets the next minimum
            self.last_full = increment
        self.current = max(self.current, amount)
        self.bets[i] = amount
        self.acted.add(i)


def tda_payout(contrib: list[int], dead: int, live: list[bool], rank: list) -> list[int]:
    """Chips each player collects (index order = clockwise from the first seat left of the
    button), by the rules of docs/rules.md written out plainly: the part of the largest
    contribution above the second largest goes back to its owner; one pot per distinct live
    contribution level (TDA Rule 21), the chips between two live levels from every player, the
    dead ante in the main pot, the chips above the top live level in the top pot; each pot split
    among its best live hands (``rank``: comparable, higher wins), the odd chips to the first of
    them (TDA Rule 20)."""
    k = len(contrib)
    rest = list(contrib)
    top = max(rest)
    owners = [i for i in range(k) if rest[i] == top]
    if len(owners) == 1:
        second = max((rest[i] for i in range(k) if i != owners[0]), default=0)
        rest[owners[0]] = second
    payout = [top - rest[i] if i in owners and len(owners) == 1 else 0 for i in range(k)]
    levels = sorted({rest[i] for i in range(k) if live[i]})
    prev = 0
    for j, level in enumerate(levels):
        cap = max(rest) if j == len(levels) - 1 else level
        amount = sum(min(c, cap) - min(c, prev) for c in rest) + (dead if j == 0 else 0)
        contenders = [i for i in range(k) if live[i] and rest[i] >= level]
        if len(contenders) == 1:
            winners = contenders
        else:
            best = max(rank[i] for i in contenders)
            winners = [i for i in contenders if rank[i] == best]
        share, odd = divmod(amount, len(winners))
        for i in winners:
            payout[i] += share
        payout[winners[0]] += odd
        prev = cap
    return payout


# ----------------------------------------------------------------------------------------------
# PokerKit replay
# ----------------------------------------------------------------------------------------------


@dataclasses.dataclass
class Replay:
    mismatches: list[str]
    counts: Counter = dataclasses.field(default_factory=Counter)
    decisions: int = 0


def _cards(ids) -> str:
    return "".join(card_text(c) for c in ids)


def _rank(hole, board):
    from pokerkit import StandardHighHand

    return StandardHighHand.from_game(_cards(hole), _cards(board))


def replay_pokerkit(h: PlayedHand) -> Replay:
    """Replay one of our hands in PokerKit; compare every decision and the final stacks."""
    from pokerkit import Automation, Mode, NoLimitTexasHoldem

    rep = Replay([])
    n = len(h.stacks)
    seats = [s for s in range(n) if h.in_hand[s] and h.stacks[s] > 0]
    order = sorted(seats, key=lambda s: (s - h.button - 1) % n)  # PokerKit index -> our seat
    index = {s: j for j, s in enumerate(order)}
    k = len(order)
    bb_stack = h.stacks[h.bb]
    short_bb = bb_stack < h.big_blind
    ante = min(h.ante, max(bb_stack - h.big_blind, 0))  # ours: blind first, then the ante
    if 0 < h.big_blind <= bb_stack and ante < h.ante:
        rep.counts["bb_ante_blind_first"] += 1
    dead_sb = not (h.sb_posts and h.in_hand[h.sb] and h.stacks[h.sb] > 0)
    if k == 2:
        layout_ok = not dead_sb and order == [h.bb, h.sb]
        blinds, antes = (h.small_blind, h.big_blind), {1: ante}  # PokerKit reverses heads-up
    elif dead_sb:
        layout_ok = order[0] == h.bb
        blinds, antes = (h.big_blind,), {0: ante}
        rep.counts["dead_small_blind"] += 1
    else:
        layout_ok = order[0] == h.sb and order[1] == h.bb
        blinds, antes = (h.small_blind, h.big_blind), {1: ante}
    if not layout_ok:
        rep.mismatches.append(f"blinds at seats sb {h.sb} bb {h.bb} cannot be PokerKit's order "
                              f"{order}")
        return rep
    pk_stacks = [h.stacks[s] for s in order]
    if short_bb:  # PokerKit follows our rule when the big blind can post the whole blind
        pk_stacks[index[h.bb]] = h.big_blind
        rep.counts["short_big_blind"] += 1

    a = Automation
    state = NoLimitTexasHoldem.create_state(
        (a.ANTE_POSTING, a.BET_COLLECTION, a.BLIND_OR_STRADDLE_POSTING,
         a.HOLE_CARDS_SHOWING_OR_MUCKING, a.CHIPS_PUSHING, a.CHIPS_PULLING,
         a.RUNOUT_COUNT_SELECTION),
        False,  # antes are dead money in the main pot
        antes,
        blinds,
        h.big_blind,
        tuple(pk_stacks),
        k,
        mode=Mode.TOURNAMENT,
    )
    for s in order:
        state.deal_hole(_cards(h.hole[s]))
    # Contributions for the independent pot arithmetic: the blinds as posted here (the short
    # big blind's real amount), then every compared action.
    posted = [0] * k  # PokerKit's blinds (its bets may be collected already: all-in blinds)
    for op in state.operations:
        if type(op).__name__ == "BlindOrStraddlePosting":
            posted[op.player_index] += op.amount
    contrib = list(posted)
    if short_bb:
        contrib[index[h.bb]] = bb_stack
    real_reach = {index[h.bb]: bb_stack} if short_bb else {}
    street = state.street_index
    tracker = StreetTracker(posted, h.big_blind, h.big_blind)
    folded = [False] * k
    pre_kill = None  # PokerKit's pots when the showdown begins, before any hand is killed
    unkilled = None
    dealt = 0
    i = 0
    while state.status:
        if state.can_kill_hand():
            if pre_kill is None:
                pre_kill = [(p.amount, p.player_indices) for p in state.pots]
                unkilled = list(state.statuses)
            unkilled[state.kill_hand().player_index] = False
            continue
        if state.can_burn_card():
            state.burn_card("??")
            continue
        if state.can_deal_board():
            take = 3 if dealt == 0 else 1
            state.deal_board(_cards(h.board[dealt:dealt + take]))
            dealt += take
            continue
        actor = state.actor_index
        if actor is None:
            rep.mismatches.append(f"PokerKit stuck (no actor) at decision {i}")
            return rep
        if state.street_index != street:
            street = state.street_index
            tracker = StreetTracker(state.bets, 0, h.big_blind)
        pk_call = state.checking_or_calling_amount
        pk_raise = state.can_complete_bet_or_raise_to()
        ours = h.decisions[i] if i < len(h.decisions) else None
        if ours is None or ours.seat != order[actor]:
            # A decision PokerKit asks for and our engine skips: allowed only where nothing is
            # at stake (every other live player can put in no more than this player's bet).
            others = [real_reach.get(j, state.bets[j] + state.stacks[j])
                      for j in range(k) if j != actor and state.statuses[j]]
            at_stake = max(others, default=0) > state.bets[actor]
            if not at_stake and pk_call == 0 and not pk_raise:
                state.check_or_call()
                rep.counts["pk_check_nothing_at_stake"] += 1
                continue
            if not at_stake and short_bb and pk_call > 0:
                state.check_or_call()
                rep.counts["pk_call_phantom_blind"] += 1
                continue
            who = None if ours is None else ours.seat
            rep.mismatches.append(f"decision {i}: PokerKit seat {order[actor]} acts, ours {who}")
            return rep
        where = f"decision {i} (seat {ours.seat})"
        if state.can_fold() != ours.can_fold:
            if ours.can_check and not state.can_fold() and pk_call == 0:
                rep.counts["fold_when_check_is_free"] += 1
            else:
                rep.mismatches.append(f"{where}: can_fold PokerKit {state.can_fold()} ours "
                                      f"{ours.can_fold}")
        if (pk_call == 0) != ours.can_check:
            rep.mismatches.append(f"{where}: can_check PokerKit {pk_call == 0} ours "
                                  f"{ours.can_check}")
        if pk_call != ours.call_amount:
            rep.mismatches.append(f"{where}: call_amount PokerKit {pk_call} ours "
                                  f"{ours.call_amount}")
        force_raise = False
        if pk_raise != ours.can_raise:
            tda_open = tracker.reopened(actor)
            pk_full = state.completion_betting_or_raising_amount  # PokerKit's full-raise measure
            if pk_raise and not tda_open and pk_full < h.big_blind:
                rep.counts["pk_reopens_after_short_all_in"] += 1
            elif not pk_raise and tda_open and actor in tracker.acted:
                rep.counts["pk_refuses_reopen"] += 1
                force_raise = ours.kind == T.RAISE
            else:
                rep.mismatches.append(f"{where}: can_raise PokerKit {pk_raise} ours "
                                      f"{ours.can_raise} (TDA reopened: {tda_open})")
        elif pk_raise:
            lo = state.min_completion_betting_or_raising_to_amount
            hi = state.max_completion_betting_or_raising_to_amount
            if (lo, hi) != (ours.min_raise_to, ours.max_raise_to):
                rep.mismatches.append(f"{where}: raise-to range PokerKit {lo}..{hi} ours "
                                      f"{ours.min_raise_to}..{ours.max_raise_to}")
        if rep.mismatches:
            return rep
        if ours.kind == T.FOLD:
            state.fold()
            tracker.fold(actor)
            folded[actor] = True
        elif ours.kind == T.CHECK_CALL:
            contrib[actor] += pk_call
            tracker.call(actor, pk_call)
            state.check_or_call()
        else:
            contrib[actor] += ours.amount - tracker.bets[actor]
            tracker.raise_to(actor, ours.amount)
            if force_raise:  # PokerKit's short all-in bookkeeping, not TDA 47, refused it
                state.consecutive_short_all_in_amounts.clear()
                state.acted_player_indices.discard(actor)
                rep.counts["pk_forced_reopen"] += 1
            state.complete_bet_or_raise_to(ours.amount)
        i += 1
        rep.decisions += 1
    if i != len(h.decisions):
        rep.mismatches.append(f"PokerKit ended after {i} decisions, ours took {len(h.decisions)}")
        return rep
    final = [h.final_stacks[s] for s in order]
    start = [h.stacks[s] for s in order]
    live = [not f for f in folded]
    rank = [_rank(h.hole[s], h.board) if live[j] else None for j, s in enumerate(order)]
    dead = ante
    ante_of = [ante if s == h.bb else 0 for s in order]
    payout = tda_payout(contrib, dead, live, rank)
    tda_final = [start[j] - contrib[j] - ante_of[j] + payout[j] for j in range(k)]
    if sum(tda_final) != sum(start):
        rep.mismatches.append(f"independent pot arithmetic lost chips: {tda_final} vs {start}")
    if final != tda_final:
        rep.mismatches.append(f"final stacks: independent pot arithmetic {tda_final} ours {final}")
    if short_bb:
        return rep  # PokerKit's pots hold the unposted part of the big blind
    pk_final = list(state.stacks)
    if final == pk_final:
        return rep
    # PokerKit merged pots: our stacks must be its own pre-merge pots split separately among
    # its own winners of each merged pot.
    explained, merged = _split_unmerged(state, pre_kill, unkilled, k)
    if explained is not None and merged:
        pushed = [0] * k
        for op in state.operations:
            if type(op).__name__ == "ChipsPushing":
                pushed = [x + y for x, y in zip(pushed, op.amounts)]
        want = [pk_final[j] - pushed[j] + explained[j] for j in range(k)]
        if want == final:
            rep.counts["pk_merged_pots"] += 1
            return rep
    rep.mismatches.append(f"final stacks PokerKit {pk_final} ours {final}")
    return rep


def _split_unmerged(state, pre_kill, unkilled, k):
    """PokerKit's pre-merge pots split separately among the winners PokerKit paid for the
    merged pot each belongs to. Returns (payout per index, whether a merge could move a chip)."""
    if pre_kill is None or unkilled is None:
        return None, False
    pushes = [op for op in state.operations if type(op).__name__ == "ChipsPushing"]
    groups: list[list[int]] = []  # pre-kill pot amounts grouped as PokerKit merged them
    keys: list[tuple] = []
    for amount, players in pre_kill:
        key = tuple(j for j in players if unkilled[j])
        if keys and keys[-1] == key:
            groups[-1].append(amount)
        else:
            keys.append(key)
            groups.append([amount])
    by_pot: dict[int, list[int]] = {}
    for op in pushes:
        got = by_pot.setdefault(op.pot_index, [0] * k)
        for j in range(k):
            got[j] += op.amounts[j]
    if sorted(by_pot) != list(range(len(groups))):
        return None, False
    payout = [0] * k
    merged = False
    for g, amounts in enumerate(groups):
        got = by_pot[g]
        if sum(got) != sum(amounts):
            return None, False
        winners = [j for j in range(k) if got[j] > 0]
        merged |= len(amounts) > 1 and len(winners) > 1
        for amount in amounts:
            share, odd = divmod(amount, len(winners))
            for j in winners:
                payout[j] += share
            payout[winners[0]] += odd
    return payout, merged


def _memoize_pokerkit_hands() -> None:
    """Cache PokerKit's own hand ranking (``Lookup.get_entry`` and ``from_game``): the same
    results, several times faster, since a showdown compares the same hands again and again."""
    from pokerkit import StandardHighHand
    from pokerkit.lookups import Lookup

    if getattr(Lookup, "_oracle_memo", False):
        return
    get_entry, from_game = Lookup.get_entry, StandardHighHand.from_game.__func__
    entries: dict = {}
    games: dict = {}

    def cached_entry(self, cards):
        cards = tuple(cards)
        key = (type(self), cards)
        if key not in entries:
            entries[key] = get_entry(self, cards)
        return entries[key]

    def cached_game(cls, hole_cards, board_cards=()):
        hole = tuple(hole_cards) if not isinstance(hole_cards, str) else hole_cards
        board = tuple(board_cards) if not isinstance(board_cards, str) else board_cards
        key = (cls, hole, board)
        if key not in games:
            games[key] = from_game(cls, hole, board)
        return games[key]

    Lookup.get_entry = cached_entry
    StandardHighHand.from_game = classmethod(cached_game)
    Lookup._oracle_memo = True


def _replay_many(hands: list[PlayedHand]) -> list[Replay]:
    import warnings

    warnings.filterwarnings("ignore")  # PokerKit warns when dealt cards repeat its own deck
    _memoize_pokerkit_hands()
    return [replay_pokerkit(h) for h in hands]


@dataclasses.dataclass
class OracleResult:
    hands: int
    compared: int
    decisions: int
    mismatched_hands: int
    counts: Counter
    examples: list[str]


def run_oracle(num_hands: int, seed: int = 0, seat_counts=(2, 3, 6, 9), batch: int = 1024,
               workers: int = 1, progress=None) -> OracleResult:
    """Play ``num_hands`` random hands split over ``seat_counts`` and replay every one in
    PokerKit."""
    rng = np.random.default_rng(seed)
    counts: Counter = Counter({kind: 0 for kind in DIFFERENCES})
    examples: list[str] = []
    done = compared = decisions = bad = 0
    per = [num_hands // len(seat_counts)] * len(seat_counts)
    per[-1] += num_hands - sum(per)
    # spawn, not fork: the parent runs JAX's threads, and the workers only need PokerKit.
    pool = (ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"))
            if workers > 1 else None)
    try:
        for n, total in zip(seat_counts, per):
            left = total
            while left > 0:
                size = min(batch, left)
                played = play_engine(random_hands(rng, n, size), rng)
                if pool is None:
                    reps = _replay_many(played)
                else:
                    chunks = [played[j::workers] for j in range(workers)]
                    parts = list(pool.map(_replay_many, chunks))
                    reps = [None] * len(played)
                    for j, part in enumerate(parts):
                        reps[j::workers] = part
                for h, r in zip(played, reps):
                    compared += 1
                    decisions += r.decisions
                    counts.update(r.counts)
                    if r.mismatches:
                        bad += 1
                        if len(examples) < 10:
                            examples.append(f"{r.mismatches[0]} | {h}")
                done += size
                left -= size
                if progress is not None:
                    progress(size)
    finally:
        if pool is not None:
            pool.shutdown()
    return OracleResult(done, compared, decisions, bad, counts, examples)


def summary_lines(res: OracleResult) -> list[str]:
    """The result as text: totals, then every documented difference by kind with its rule."""
    lines = [f"hands played and compared with PokerKit: {res.compared} of {res.hands}, "
             f"decisions compared: {res.decisions}, mismatched hands: {res.mismatched_hands}"]
    width = max(map(len, DIFFERENCES))
    for kind, (what, rule) in DIFFERENCES.items():
        lines.append(f"  {kind:<{width}} {res.counts.get(kind, 0):>8}  {rule}: {what}")
    unknown = sorted(set(res.counts) - set(DIFFERENCES))
    lines += [f"  UNDOCUMENTED {kind}: {res.counts[kind]}" for kind in unknown]
    return lines


def main(argv=None) -> int:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--batch", type=int, default=2048)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--json", type=pathlib.Path, help="write the result here (the committed "
                        "benchmarks/results/pokerkit_oracle.json)")
    args = parser.parse_args(argv)
    console = Console()
    start = time.perf_counter()
    with Progress("[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(),
                  TimeRemainingColumn(), console=console) as bar:
        task = bar.add_task("hands", total=args.hands)

        def advance(k: int) -> None:
            bar.advance(task, k)
            if not console.is_terminal:  # a log file: one plain line per batch
                done = int(bar.tasks[0].completed)
                print(f"{done}/{args.hands} hands, {time.perf_counter() - start:.0f} s", flush=True)

        res = run_oracle(args.hands, args.seed, batch=args.batch, workers=args.workers,
                         progress=advance)
    secs = time.perf_counter() - start
    for line in summary_lines(res):
        console.print(line, markup=False)
    console.print(f"time {secs:.0f} s")
    style = "green" if res.mismatched_hands == 0 else "red"
    console.print(f"[{style}]mismatched hands: {res.mismatched_hands}[/{style}]")
    for line in res.examples:
        console.print(line, markup=False)
    if args.json is not None:
        import pokerkit

        doc = {
            "date": dt.date.today().isoformat(),
            "command": "python benchmarks/pokerkit_oracle.py " + " ".join(
                sys.argv[1:] if argv is None else argv),
            "versions": {"pokerkit": pokerkit.__version__ if hasattr(pokerkit, "__version__")
                         else _version("pokerkit"), "jax": jax.__version__,
                         "python": platform.python_version()},
            "git": _git_state(),
            "seed": args.seed,
            "hands": res.hands,
            "compared": res.compared,
            "decisions": res.decisions,
            "mismatched_hands": res.mismatched_hands,
            "differences": {kind: {"count": int(res.counts.get(kind, 0)), "rule": rule,
                                   "what": what}
                            for kind, (what, rule) in DIFFERENCES.items()},
            "seconds": round(secs),
            "examples": res.examples,
        }
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(doc, indent=1) + "\n")
    return 0 if res.mismatched_hands == 0 else 1


def _git_state() -> dict:
    """The commit the run was made on, and whether the rules engine had local changes."""
    import subprocess

    root = pathlib.Path(__file__).resolve().parents[1]

    def git(*a):
        return subprocess.run(["git", *a], cwd=root, capture_output=True, text=True).stdout.strip()

    return {"commit": git("rev-parse", "HEAD"),
            "engine_changed": bool(git("status", "--porcelain", "--", "holdemjax/poker"))}


def _version(dist: str) -> str:
    from importlib.metadata import version

    return version(dist)


if __name__ == "__main__":
    sys.exit(main())
