"""The one rules engine for every no-limit hold'em table: state and transitions, pure JAX.

A ``Table`` is one hand at a table of ``N`` seats (``N`` static, 2..9). ``start_hand`` posts the
blinds and the big-blind ante, deals by fixed index and returns the first decision;
``act(table, kind, amount)`` applies one decision and then everything that needs no decision
(gathering bets, the next street, all-in run-outs, showdown, paying the pots), so every returned
table is either waiting for ``table.to_act`` or has ``hand_over`` (or, with ``pay=False``, ended
and left for ``pay_if_ended`` to pay). ``legal(table)`` says what that seat may do.
``first_positions`` / ``next_positions`` place the button and blinds between hands
(dead-button rule). Chips are int32 and exact; ``sum(stacks) + sum(contrib) + dead`` never changes
during a hand (``total_chips``).

All functions are jit/vmap-able: fixed shapes, no Python branching on traced values. Every rule
and every choice made where the rules are silent is listed in docs/rules.md; the main ones:

* ``kind`` is clipped to FOLD..RAISE. FOLD always folds (also when checking is free: the engine
  allows it, the RL menu masks it). CHECK_CALL checks, or calls (all-in if short). RAISE with
  raising closed is a CHECK_CALL. A raise-to amount is clipped to ``[min_raise_to,
  max_raise_to]`` (below: the minimum raise; above the stack: all-in). ``act`` on a finished
  hand returns it unchanged.
* A big blind all-in for less than the blind still sets ``current_bet`` to the full big blind.
* Seats with nothing left to decide are skipped: a seat acts only if somebody else still live
  can put in more than the seat's current bet.
"""

from __future__ import annotations

import enum
import functools

import jax
import jax.numpy as jnp
from flax import struct

from holdemjax.poker._positions import NO_SEAT, first_positions, next_positions
from holdemjax.poker._positions import first_after as _first_after
from holdemjax.poker._pots import pay_pots
from holdemjax.poker.cards import board_cards, hole_cards
from holdemjax.poker.evaluator import evaluate
from holdemjax.sparse import sparse_cond

__all__ = ["Kind", "Street", "FOLD", "CHECK_CALL", "RAISE", "NUM_KINDS", "PREFLOP", "FLOP",
    "TURN", "RIVER", "HAND_OVER", "NUM_STREETS", "NO_SEAT", "Table", "Legal", "start_hand",
    "legal", "act", "first_positions", "next_positions", "total_chips",
    "pot_total", "with_cards", "decided", "begin", "pay_if_ended", "showdown_winnings"]


class Kind(enum.IntEnum):
    """The engine's action kinds (``act``): its exact actions."""

    FOLD = 0
    CHECK_CALL = 1
    RAISE = 2  # bet or raise; the amount is the raise-to (the seat's street total after it)


class Street(enum.IntEnum):
    """``Table.street``: the betting round, HAND_OVER once the hand is finished and paid."""

    PREFLOP = 0
    FLOP = 1
    TURN = 2
    RIVER = 3
    HAND_OVER = 4


FOLD, CHECK_CALL, RAISE = Kind.FOLD, Kind.CHECK_CALL, Kind.RAISE
NUM_KINDS = len(Kind)
PREFLOP, FLOP, TURN, RIVER, HAND_OVER = Street
NUM_STREETS = 4  # PREFLOP..RIVER

_VISIBLE = (0, 3, 4, 5, 5)  # board cards visible at each street; a showdown shows all five


@struct.dataclass
class Table:
    """One hand at an N-seat table. Scalars are ``# []``; dtypes are fixed per field."""

    stacks: jax.Array  # [N] int32 chips behind (not yet put in)
    bets: jax.Array  # [N] int32 chips put in on the current street (part of contrib)
    contrib: jax.Array  # [N] int32 chips put in this hand, blinds and bets; the ante excluded
    dead: jax.Array  # [] int32 dead money in the main pot (the big-blind ante)
    folded: jax.Array  # [N] bool folded this hand
    allin: jax.Array  # [N] bool dealt in with no chips behind
    in_hand: jax.Array  # [N] bool dealt into this hand (seated, alive, chips > 0 at the start)
    acted: jax.Array  # [N] bool made a decision on this street (blinds are not decisions)
    button: jax.Array  # [] int32 button seat (may be empty: dead button)
    sb: jax.Array  # [] int32 small-blind seat (may be empty: dead small blind)
    bb: jax.Array  # [] int32 big-blind seat
    to_act: jax.Array  # [] int32 seat to decide, NO_SEAT (-1) once the hand is over
    street: jax.Array  # [] int32 PREFLOP..RIVER, HAND_OVER at the end
    current_bet: jax.Array  # [] int32 street total every seat must match (full BB pre-flop)
    min_raise: jax.Array  # [] int32 last full bet/raise increment this street (>= big blind)
    hole: jax.Array  # [N, 2] int32 hole cards by seat (deck[2s], deck[2s+1])
    board: jax.Array  # [5] int32 all five board cards, fixed at the deal (deck[18:23])
    revealed: jax.Array  # [] int32 board cards visible: 0, 3, 4 or 5
    strength: jax.Array  # [N] int32 showdown strength of hole + board (evaluator.evaluate)
    hand_over: jax.Array  # [] bool the hand is finished and paid
    showdown: jax.Array  # [] bool the hand ended with two or more live seats (cards shown)
    winnings: jax.Array  # [N] int32 chips collected at the end (returned uncalled bet included)
    start_stacks: jax.Array  # [N] int32 stacks before the blinds and ante of this hand
    small_blind: jax.Array  # [] int32
    big_blind: jax.Array  # [] int32 also the minimum bet
    ante: jax.Array  # [] int32 big-blind ante asked for (0 = none); ``dead`` is what was posted
    num_decisions: jax.Array  # [] int32 decisions taken this hand (all seats)

    @property
    def num_seats(self) -> int:
        return self.stacks.shape[-1]


@struct.dataclass
class Legal:
    """What ``table.to_act`` may do. All False/0 when the hand is over."""

    can_fold: jax.Array  # [] bool always True at a decision (even when checking is free)
    can_check: jax.Array  # [] bool nothing to call
    call_amount: jax.Array  # [] int32 chips a call adds, capped at the stack (0 when checking)
    can_raise: jax.Array  # [] bool a bet/raise is open to this seat
    min_raise_to: jax.Array  # [] int32 smallest raise-to (all-in when short); 0 if closed
    max_raise_to: jax.Array  # [] int32 largest raise-to (all-in); 0 if closed


# ----------------------------------------------------------------------------------------------
# Small helpers (all static in N)
# ----------------------------------------------------------------------------------------------


_i32 = functools.partial(jnp.asarray, dtype=jnp.int32)


def _at(values: jax.Array, me: jax.Array) -> jax.Array:
    """``values[seat]`` for the one-hot mask ``me``, as a masked sum (cheaper than a gather
    under ``vmap`` on CPU)."""
    return jnp.sum(jnp.where(me, values, 0)).astype(values.dtype)


def _max_of_others(values: jax.Array) -> jax.Array:
    """``# [N] -> [N]``: for each seat, the max of ``values`` over the other seats."""
    top = values.max()
    is_top = values == top
    second = jnp.max(jnp.where(is_top, jnp.iinfo(jnp.int32).min, values))
    return jnp.where(is_top & (is_top.sum() == 1), second, top)


def _tree_where(cond: jax.Array, a, b):
    return jax.tree.map(lambda x, y: jnp.where(cond, x, y), a, b)


def total_chips(table: Table) -> jax.Array:
    """``sum(stacks) + sum(contrib) + dead``: constant through every transition of a hand."""
    return table.stacks.sum(-1) + table.contrib.sum(-1) + table.dead


def pot_total(table: Table) -> jax.Array:
    """Chips in the middle: every contribution (current bets included) plus the dead ante."""
    return table.contrib.sum(-1) + table.dead


def _strengths(hole: jax.Array, board: jax.Array) -> jax.Array:
    """``# [N] int32`` each seat's showdown strength: its hole cards and all five board cards."""
    seven = jnp.concatenate([hole, jnp.broadcast_to(board, hole.shape[:-1] + (5,))], axis=-1)
    return evaluate(seven).astype(jnp.int32)


def with_cards(table: Table, hole: jax.Array, board: jax.Array) -> Table:
    """``table`` with ``hole # [N, 2]`` and ``board # [5]`` as the cards dealt, the showdown
    strengths recomputed (a hypothetical deal of the same betting, e.g. for a best response's
    rollouts; the caller keeps the cards already shown and the cards distinct)."""
    hole, board = _i32(hole), _i32(board)
    return table.replace(hole=hole, board=board, strength=_strengths(hole, board))


def _live(t: Table) -> jax.Array:
    return t.in_hand & ~t.folded


def _needs_action(t: Table) -> jax.Array:
    """``# [N] bool``: seats that still have a decision on this street.

    A seat decides if it is live with chips behind, somebody else live can still put in more than
    this seat's current bet (otherwise nothing is at stake: the seat is skipped), and it either
    faces a bet or has not acted on this street yet.
    """
    live = _live(t)
    can_move = live & ~t.allin
    reach = jnp.where(live, t.bets + t.stacks, -1)  # the most each live seat can have in
    at_stake = _max_of_others(reach) > t.bets
    return can_move & at_stake & ((t.bets < t.current_bet) | ~t.acted)


def showdown_winnings(t: Table) -> jax.Array:
    """``# [N] int32`` what each seat collects if the hand ends now on its five board cards
    (`_pots.pay_pots`, as `act` pays): a check-down's payout, for a table not `hand_over`."""
    return pay_pots(t.contrib, t.dead, _live(t), t.strength, t.button)


def _finish(t: Table, winnings: jax.Array | None = None) -> Table:
    """Pay the pots (``winnings``, default `showdown_winnings`) and close the hand."""
    fold_win = _live(t).sum() <= 1
    if winnings is None:
        winnings = showdown_winnings(t)
    zeros = jnp.zeros_like(t.stacks)
    return t.replace(
        stacks=t.stacks + winnings,
        bets=zeros,
        contrib=zeros,
        dead=_i32(0),
        to_act=_i32(NO_SEAT),
        street=_i32(HAND_OVER),
        current_bet=_i32(0),
        revealed=jnp.where(fold_win, t.revealed, 5).astype(jnp.int32),
        hand_over=jnp.asarray(True),
        showdown=~fold_win,
        winnings=winnings,
    )


def _advance(t: Table, last: jax.Array, sparse: bool = True, pay: bool = True) -> Table:
    """From a table right after a decision by seat ``last`` (or after the blinds, with ``last`` =
    the big blind), move to the next decision or finish the hand (``pay``: static; False leaves
    a hand that ends as it is, nobody to act, for `pay_if_ended`)."""
    nxt = _first_after(_needs_action(t), last)
    live = _live(t)
    can_move = live & ~t.allin
    fold_win = live.sum() <= 1
    new_street = ~fold_win & (can_move.sum() >= 2) & (t.street < RIVER)

    waiting = t.replace(to_act=nxt)
    street = t.street + 1
    moved = t.replace(
        bets=jnp.zeros_like(t.bets),
        acted=jnp.zeros_like(t.acted),
        street=street,
        current_bet=_i32(0),
        min_raise=t.big_blind,
        revealed=jnp.asarray(_VISIBLE, jnp.int32)[jnp.minimum(street, HAND_OVER)],
        to_act=_first_after(can_move, t.button),  # everyone able to move decides on a new street
    )
    round_over = nxt == NO_SEAT
    out = _tree_where(round_over & new_street, moved, waiting)
    finish = round_over & ~new_street
    if not pay:
        return out
    if not sparse:
        return _tree_where(finish, _finish(t), out)
    # Pots are paid only on the rows whose hand ends (under vmap too: see holdemjax.sparse). The
    # sparse form carries the winnings alone (each carried or read leaf costs a gather and a
    # scatter per pass in the batched program); closing the hand is a cheap select.
    winnings = sparse_cond(finish, lambda _: showdown_winnings(t), jnp.zeros_like(t.stacks))
    return _tree_where(finish, _finish(t, winnings), out)


# ----------------------------------------------------------------------------------------------
# Public API
# ----------------------------------------------------------------------------------------------


def start_hand(stacks, in_hand, button, sb, bb, sb_posts, small_blind, big_blind, ante, deck, *,
               can_end: bool = True) -> Table:
    """Post blinds and ante, deal, and return the first decision (or the finished hand).

    Args:
      stacks: ``# [N] int32`` chips of each seat before the hand.
      in_hand: ``# [N] bool`` seats dealt in (seated and alive); seats with 0 chips are left out.
      button, sb, bb: seat indices (``first_positions`` / ``next_positions``).
      sb_posts: bool, False for a dead small blind (nobody posts it).
      small_blind, big_blind: blind sizes; the big blind is also the minimum bet.
      ante: big-blind ante (0 for none): posted by the big blind after the blind, from what is
        left, as dead money in the main pot.
      deck: ``# [52] int32`` the hand's permutation (``cards.hand_deck``); seat s holds
        deck[2s], deck[2s+1], the board is deck[18:23].
      can_end: static; False when the caller knows the hand cannot be over after the blinds
        (two or more dealt seats keep chips behind, e.g. `tournament.first_hand_waits`): the
        payout of a hand over from the blinds is then left out of the program.
    """
    stacks = _i32(stacks)
    n = stacks.shape[-1]
    seats = jnp.arange(n)
    button, sb, bb = _i32(button), _i32(sb), _i32(bb)
    small_blind, big_blind, ante = _i32(small_blind), _i32(big_blind), _i32(ante)
    in_hand = jnp.asarray(in_hand, bool) & (stacks > 0)

    is_bb = (seats == bb) & in_hand
    is_sb = (seats == sb) & in_hand & jnp.asarray(sb_posts, bool) & ~is_bb
    blind = jnp.where(is_bb, jnp.minimum(stacks, big_blind), 0)
    blind = jnp.where(is_sb, jnp.minimum(stacks, small_blind), blind)
    behind = stacks - blind
    ante_paid = jnp.where(is_bb, jnp.minimum(behind, ante), 0)  # blind first, then the ante
    behind = behind - ante_paid

    hole = hole_cards(_i32(deck), n)
    board = board_cards(_i32(deck))
    no = jnp.zeros((n,), bool)
    table = Table(
        stacks=behind,
        bets=blind,
        contrib=blind,
        dead=ante_paid.sum().astype(jnp.int32),
        folded=no,
        allin=in_hand & (behind == 0),
        in_hand=in_hand,
        acted=no,
        button=button,
        sb=sb,
        bb=bb,
        to_act=_i32(NO_SEAT),
        street=_i32(PREFLOP),
        current_bet=big_blind,
        min_raise=big_blind,
        hole=hole,
        board=board,
        revealed=_i32(0),
        strength=_strengths(hole, board),
        hand_over=jnp.asarray(False),
        showdown=jnp.asarray(False),
        winnings=jnp.zeros((n,), jnp.int32),
        start_stacks=stacks,
        small_blind=small_blind,
        big_blind=big_blind,
        ante=ante,
        num_decisions=_i32(0),
    )
    if not can_end:
        return table.replace(to_act=_first_after(_needs_action(table), bb))
    return begin(table)


def begin(table: Table) -> Table:
    """The first decision of a table right after the blinds, or the hand run out and paid when
    nobody can act: ``start_hand(...)`` is ``begin(start_hand(..., can_end=False))``."""
    return _advance(table, table.bb, sparse=False)


def pay_if_ended(table: Table) -> Table:
    """A hand left unpaid (nobody to act, not ``hand_over``: ``act(..., pay=False)``, a deal
    with ``can_end=False`` where nobody can act) run out and paid as `begin` / `act` would (with
    nobody to act there is no street to go on to: the river's betting is over, or at most one
    seat can move); others unchanged."""
    return _tree_where(~table.hand_over & (table.to_act < 0), _finish(table), table)


def legal(table: Table) -> Legal:
    """What the seat to act may do (TDA Rules 43 and 47, no-limit).

    * Call amount: up to ``current_bet``, capped at the stack.
    * Raising is open unless this seat already acted on the street and faces less than a full
      raise since (a short all-in, or several that together stay short of ``min_raise``), the
      call would already put it all-in, or nobody else live could put in more chips.
    * ``min_raise_to = current_bet + min_raise`` (a first bet: the big blind), or all-in when the
      stack is smaller; ``max_raise_to`` = all-in.
    """
    t = table
    p = jnp.maximum(t.to_act, 0)
    deciding = ~t.hand_over & (t.to_act >= 0)
    me = jnp.arange(t.num_seats) == p
    bet, stack = _at(t.bets, me), _at(t.stacks, me)
    facing = jnp.maximum(t.current_bet - bet, 0)
    reopened = ~(t.acted & me).any() | (facing >= t.min_raise)
    live = _live(t)
    reach = jnp.where(live & ~me, t.bets + t.stacks, -1)
    contested = reach.max() > t.current_bet
    can_raise = deciding & reopened & (stack > facing) & contested
    all_in_to = bet + stack
    min_to = jnp.minimum(t.current_bet + t.min_raise, all_in_to)
    return Legal(
        can_fold=deciding,
        can_check=deciding & (facing == 0),
        call_amount=jnp.where(deciding, jnp.minimum(facing, stack), 0).astype(jnp.int32),
        can_raise=can_raise,
        min_raise_to=jnp.where(can_raise, min_to, 0).astype(jnp.int32),
        max_raise_to=jnp.where(can_raise, all_in_to, 0).astype(jnp.int32),
    )


def act(table: Table, kind, amount=0, pay: bool = True) -> Table:
    """Apply one decision of ``table.to_act`` and advance to the next decision or the hand's end
    (``pay``: static; False leaves a hand it ends unpaid, nobody to act: `pay_if_ended`).

    Args:
      kind: FOLD, CHECK_CALL or RAISE (other values are clipped into this range).
      amount: raise-to for RAISE (the seat's street total after the raise), clipped to
        ``[min_raise_to, max_raise_to]``; ignored otherwise. RAISE when raising is closed to this
        seat is played as CHECK_CALL.
    Returns the same table when the hand is already over.
    """
    t = table
    out = _advance(decided(t, kind, amount), jnp.maximum(t.to_act, 0), pay=pay)
    return _tree_where(t.hand_over | (t.to_act < 0), t, out)


def decided(table: Table, kind, amount=0) -> Table:
    """`act`'s first half: the decision's chips in (its fold, all-in, raise sizes), no next
    seat, street or payout: the contributions any board cards it brings out come out on
    (`holdemjax.luck` reads them). Meaningful while a seat is to act."""
    t = table
    n = t.num_seats
    p = jnp.maximum(t.to_act, 0)
    lg = legal(t)
    kind = jnp.clip(_i32(kind), FOLD, RAISE)
    is_fold = kind == FOLD
    is_raise = (kind == RAISE) & lg.can_raise
    me = jnp.arange(n) == p
    bet = _at(t.bets, me)
    new_bet = jnp.where(
        is_raise, jnp.clip(_i32(amount), lg.min_raise_to, lg.max_raise_to), bet + lg.call_amount
    )
    new_bet = jnp.where(is_fold, bet, new_bet)
    add = jnp.where(me, new_bet - bet, 0)
    stacks = t.stacks - add
    increment = new_bet - t.current_bet
    full = is_raise & (increment >= t.min_raise)  # a short all-in leaves min_raise alone
    return t.replace(
        stacks=stacks,
        bets=t.bets + add,
        contrib=t.contrib + add,
        folded=t.folded | (me & is_fold),
        allin=t.allin | (me & (stacks == 0)),
        acted=t.acted | me,
        current_bet=jnp.maximum(t.current_bet, new_bet),
        min_raise=jnp.where(full, increment, t.min_raise),
        num_decisions=t.num_decisions + 1,
    )
