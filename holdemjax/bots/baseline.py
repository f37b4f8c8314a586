"""The scripted baseline: position and hand strength, integer decisions, legal menu actions only.

docs/baseline.md states the strategy exactly (every threshold below is in its tables; a test
checks that the two agree); the bundled wasm baseline must play exactly the same way. In short:

* pre-flop: the hand's class (169) gives a strength percentile ``top`` (basis points of the
  1,326 combos that are stronger; AA is 22) and equities against 1..5 random hands, from the
  versioned table ``data/preflop_v1.json``. Ranges depend on the seats still to act behind
  (``after``), heads-up, how many bets/raises the street has seen, and the effective stack in
  big blinds (12 or less: push/fold).
* post-flop: the made-hand category of the best five of hole + visible board, counted only when
  it beats what the board makes alone, the pair's rank against the board's top card, four to a
  flush and open-ended straight draws, and pot odds (integer: ``to_call * 10000 <= T *
  (pot + to_call)``).
* one draw ``u`` in [0, 10000) per decision, from the coordinate key, mixes steals and bluffs.

Every decision is made in int32 arithmetic (no floats), so a C port can replicate it exactly.
"""

from __future__ import annotations

import enum
import functools
import hashlib
import json
import pathlib

import jax
import jax.numpy as jnp
import numpy as np

from holdemjax.bots.random_bot import coordinate_key, coordinates, draw_below
from holdemjax.poker import evaluator, table
from holdemjax.poker.actions import CHECK_CALL, FOLD, MIN_RAISE

__all__ = ["PREFLOP_PATH", "PREFLOP_SHA256", "Intent", "load_preflop", "hand_class", "features",
           "decide_at", "decide", "probabilities", "act",
           "policy"]

PREFLOP_PATH = pathlib.Path(__file__).parent / "data" / "preflop_v1.json"
PREFLOP_SHA256 = "0db41beffd7bfcec2d56314b5ffdd7debd9c5a4beb456db08cb345ca9b7d26cf"

# ---------------------------------------------------------------------------------- constants
# Pre-flop ranges: a hand plays when its ``top`` (basis points, smaller = stronger) is <= the
# threshold. Lists are indexed by ``after`` = live seats still to act behind (clipped to 0..5).
OPEN_TOP = (1500, 4000, 4000, 2700, 2000, 1500)  # raise first in (after 0: BB vs limpers)
HEADS_UP_BONUS = 2500  # added to OPEN_TOP and PUSH_TOP when two players are dealt in
STEAL_EXTRA = 1500  # after 1 or 2: also raise with top <= OPEN_TOP + this when u < STEAL_U
STEAL_U = 3000
LIMP_TOP = 2500  # call a limped pot (1+ limpers, nothing raised)
SB_COMPLETE_TOP = 5000  # the small blind completes in an unraised pot
OPEN_SIZE_BB = 3  # open to 3 BB plus 1 BB per limper
THREE_BET_TOP = 350  # facing one raise: re-raise to 3x
THREE_BET_JAM_BB = 25  # ... all-in instead when the effective stack is <= this (BB)
CALL_TOP = 1300  # facing one raise: call
CALL_ODDS_PENALTY = 1500  # ... or when (eq_k - this) * (pot + call) >= 10000 * call
CALL_ODDS_MAX_SHARE = 5  # ... and the call is at most 1/5 of the seat's chips
FOUR_BET_TOP = 150  # facing 2+ raises: re-raise to 5/2 x (all-in if eff <= FOUR_BET_JAM_BB)
FOUR_BET_JAM_BB = 40
CALL_3BET_TOP = 400  # facing 2+ raises: call if the call is at most 1/3 of the chips
CALL_3BET_PENALTY = 2500  # ... or by pot odds with this penalty
SHORT_BB = 12  # effective stack <= this (BB): push/fold
PUSH_TOP = (2500, 5500, 4500, 3500, 2800, 2200)  # shove first in (after 0: BB vs limpers)
VERY_SHORT_BB = 6  # effective stack <= this: PUSH_TOP + VERY_SHORT_BONUS
VERY_SHORT_BONUS = 1500
JAM_OVER_TOP = 1200  # short, facing a raise: shove (or call if raising is closed)
SHORT_CALL_PENALTY = 800  # short, facing a raise: call by pot odds, penalty per raise
# Post-flop bet sizes (fractions of the pot, num/den) and call thresholds (price, bp).
VALUE_BET = (3, 4)  # strong hands (tier 3)
PAIR_BET = (1, 2)  # top pair or better (tier 2), semi-bluffs, c-bets and bluffs
SEMI_BLUFF_U = 4000  # draw, nothing to call: bet when u < this
CBET_U = 6000  # flop, we raised pre-flop, 1-2 opponents: c-bet when u < this
BLUFF_U = 1500  # heads-up, nothing made: bet when u < this
PAIR_PRICE = (4500, 3000)  # tier 2 calls up to this price (street raises <= 1, >= 2)
WEAK_PAIR_PRICE = (2600, 2200, 1800)  # weak pair calls up to this price (flop, turn, river)
DRAW_PRICE = ((3500, 3100, 4500), (1950, 1700, 3000))  # (flush, straight, both) x (flop, turn)
RAISE_LIMIT = 3  # tier 3 stops raising (calls) once the street has this many bets/raises

# Tiers of a post-flop hand.
NOTHING, WEAK, GOOD, STRONG = 0, 1, 2, 3


class Intent(enum.IntEnum):
    """What a reference bot means to do before it becomes an action (a menu action here, an
    exact engine action in `holdemjax.duplicate.tiers`)."""

    FOLD = 0  # fold (check when checking is free)
    CALL = 1  # check or call
    RAISE = 2  # bet or raise to a target amount


_FOLD, _CALL, _RAISE = Intent


# -------------------------------------------------------------------------------- the data file
@functools.cache
def load_preflop(path: str | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(equity ``# [169, 5] int32`` bp vs 1..5 random hands, top ``# [169] int32`` bp).

    Checks the file's SHA-256 against ``PREFLOP_SHA256`` (only for the shipped file).
    """
    p = pathlib.Path(path) if path else PREFLOP_PATH
    raw = p.read_bytes()
    if path is None and hashlib.sha256(raw).hexdigest() != PREFLOP_SHA256:
        raise ValueError(f"{p}: checksum mismatch (expected sha256 {PREFLOP_SHA256})")
    data = json.loads(raw)
    return (np.asarray(data["equity_bp"], np.int32), np.asarray(data["top_bp"], np.int32))


@functools.cache
def _shipped_preflop() -> tuple[np.ndarray, np.ndarray]:
    """The shipped table, read and checksummed once per process (on first use, not import)."""
    return load_preflop()


def hand_class(hole: jax.Array) -> jax.Array:
    """Class 0..168 of two hole cards: pair 13r+r, suited 13hi+lo, offsuit 13lo+hi."""
    r, s = hole // 4, hole % 4
    hi, lo = jnp.maximum(r[..., 0], r[..., 1]), jnp.minimum(r[..., 0], r[..., 1])
    return jnp.where(s[..., 0] == s[..., 1], 13 * hi + lo, 13 * lo + hi).astype(jnp.int32)


# ----------------------------------------------------------------------------------- features
_RANK_BITS = np.left_shift(1, np.arange(13, dtype=np.int32))  # [13] int32: bit of each rank


def _straight_mask(ranks: jax.Array) -> jax.Array:
    """Bool: a 13-bit rank mask (int32, any shape) holds five in a row (A-2-3-4-5 too)."""
    ext = (ranks << 1) | ((ranks >> 12) & 1)
    run = ext
    for shift in range(1, 5):
        run = run & (ext >> shift)
    return run != 0


def _straight_outs(ranks: jax.Array) -> jax.Array:
    """How many ranks would complete a straight not already there (0 if there is one)."""
    missing = (ranks & _RANK_BITS) == 0
    outs = (_straight_mask(ranks | _RANK_BITS) & missing).sum()
    return jnp.where(_straight_mask(ranks), 0, outs)


def _counts(cards: jax.Array, seen: jax.Array):
    """Rank counts ``# [13]``, suit counts ``# [4]``, rank mask and per-suit rank masks ``# [4]``
    of the cards marked ``seen`` (one-hot sums: no scatter, no order)."""
    rank_hot = ((cards // 4)[:, None] == jnp.arange(13)) & seen[:, None]  # [C, 13]
    suit_hot = ((cards % 4)[:, None] == jnp.arange(4)) & seen[:, None]  # [C, 4]
    ranks = rank_hot.sum(0)
    suits = suit_hot.sum(0)
    card_bits = jnp.where(seen, 1 << (cards // 4), 0)  # distinct cards: sums are ORs per suit
    suit_masks = (suit_hot * card_bits[:, None]).sum(0)
    return ranks, suits, jnp.where(ranks > 0, _RANK_BITS, 0).sum(), suit_masks


def _category(ranks, suits, rank_mask, suit_masks) -> jax.Array:
    """Category 0..8 of the best five of the counted cards (``evaluator.category`` of them for
    five to seven cards; fewer cards make only pairs, trips and quads)."""
    flush = jnp.where(suits >= 5, suit_masks, 0).sum()
    n4, n3, n2 = (ranks == 4).sum(), (ranks == 3).sum(), (ranks == 2).sum()
    return jnp.select(
        [_straight_mask(flush), n4 > 0, (n3 >= 2) | ((n3 >= 1) & (n2 >= 1)), flush != 0,
         _straight_mask(rank_mask), n3 >= 1, n2 >= 2, n2 == 1],
        [evaluator.STRAIGHT_FLUSH, evaluator.FOUR_OF_A_KIND, evaluator.FULL_HOUSE,
         evaluator.FLUSH, evaluator.STRAIGHT, evaluator.THREE_OF_A_KIND, evaluator.TWO_PAIR,
         evaluator.ONE_PAIR], evaluator.HIGH_CARD).astype(jnp.int32)


def _postflop(hole: jax.Array, board: jax.Array, street: jax.Array):
    """(tier, flush draw, straight draw, one pair) of ``hole`` on the board seen at ``street``."""
    shown = jnp.arange(5) < jnp.asarray((0, 3, 4, 5, 5))[jnp.clip(street, 0, 4)]
    cards = jnp.concatenate([hole, board])
    b_ranks, b_suits, b_mask, b_suit_masks = _counts(board, shown)
    seen = jnp.concatenate([jnp.ones(2, bool), shown])
    ranks, suits, mask, suit_masks = _counts(cards, seen)
    cat_all = _category(ranks, suits, mask, suit_masks)
    cat_board = _category(b_ranks, b_suits, b_mask, b_suit_masks)
    eff = jnp.where(cat_all > cat_board, cat_all, evaluator.HIGH_CARD)
    eff = jnp.where((cat_board >= evaluator.ONE_PAIR) & (eff == evaluator.TWO_PAIR),
                    evaluator.ONE_PAIR, eff)
    # The pair a hole card makes (with the other hole card or the board), against the top card.
    h_rank = hole // 4
    pair_rank = jnp.max(jnp.where(ranks[h_rank] >= 2, h_rank, -1))
    top_board = 31 - jax.lax.clz(b_mask)  # -1 before the flop
    good_pair = (eff == evaluator.ONE_PAIR) & (pair_rank >= top_board)
    # Draws: four to a flush with a hole card of the suit; 2+ straight outs the board lacks.
    h_suits = (hole % 4)[:, None] == jnp.arange(4)
    flush_draw = (h_suits.any(0) & (suits == 4)).any() & (cat_all < evaluator.FLUSH)
    straight_draw = (_straight_outs(mask) >= 2) & (_straight_outs(b_mask) < 2)
    straight_draw = straight_draw & (cat_all < evaluator.STRAIGHT)
    early = street < table.RIVER
    flush_draw, straight_draw = flush_draw & early, straight_draw & early
    tier = jnp.select(
        [eff >= evaluator.TWO_PAIR, good_pair,
         (eff == evaluator.ONE_PAIR) | flush_draw | straight_draw],
        [STRONG, GOOD, WEAK], NOTHING)
    return tier.astype(jnp.int32), flush_draw, straight_draw, eff == evaluator.ONE_PAIR


def features(view) -> dict:
    """The integer quantities the baseline decides on (for tests, docs and debugging), from a
    `tournament.Decision` view."""
    t = view.table
    n = t.num_seats
    seat = jnp.maximum(t.to_act, 0)
    seats = jnp.arange(n)
    lg = table.legal(t)
    live = t.in_hand & ~t.folded
    others = live & (seats != seat)
    reach = t.bets + t.stacks  # chips each seat can have in on this street
    bb = jnp.maximum(t.big_blind, 1)
    street = jnp.clip(t.street, 0, 3)
    dist = (seats - seat) % n
    after = (others & (dist <= (t.bb - seat) % n)).sum()
    limpers = (others & (seats != t.bb) & (t.bets >= t.current_bet)).sum()
    opp_reach = jnp.max(jnp.where(others, reach, 0))
    return dict(
        seat=seat,
        street=street,
        dealt=t.in_hand.sum().astype(jnp.int32),
        opponents=others.sum().astype(jnp.int32),
        after=jnp.minimum(after, 5).astype(jnp.int32),
        limpers=limpers.astype(jnp.int32),
        raises=view.street_raises[street].sum().astype(jnp.int32),
        we_raised_preflop=view.street_raises[0, seat] > 0,
        reach=reach[seat],
        stack=t.stacks[seat],
        eff_bb=(jnp.minimum(reach[seat], opp_reach) // bb).astype(jnp.int32),
        pot=table.pot_total(t),
        to_call=lg.call_amount,
        current_bet=t.current_bet,
        big_blind=bb,
        is_sb=(seat == t.sb) & (t.bets[seat] < bb),
        hole=t.hole[seat],
        board=t.board,
    )


# ----------------------------------------------------------------------------------- decisions
def _odds_ok(equity, pot_after, to_call):
    """``equity * (pot + call) >= 10000 * call`` (int32; chips < 2**31 / 10000)."""
    return equity * pot_after >= 10000 * to_call


def _preflop(f, u, equity, top):
    """(intent, raise-to target) before the flop."""
    k = jnp.clip(f["opponents"], 1, 5) - 1
    eq = equity[k]
    bb, to_call, cur, reach = f["big_blind"], f["to_call"], f["current_bet"], f["reach"]
    pot_after = f["pot"] + to_call
    raises, after, eff = f["raises"], f["after"], f["eff_bb"]
    hu = jnp.where(f["dealt"] == 2, HEADS_UP_BONUS, 0)
    open_top = jnp.asarray(OPEN_TOP)[after] + hu

    # Short stack: push/fold.
    push_top = (jnp.asarray(PUSH_TOP)[after] + hu
                + jnp.where(eff <= VERY_SHORT_BB, VERY_SHORT_BONUS, 0))
    short_first = jnp.where(top <= push_top, _RAISE, _FOLD)
    short_call = _odds_ok(eq - SHORT_CALL_PENALTY * raises, pot_after, to_call)
    short_facing = jnp.where(top <= JAM_OVER_TOP, _RAISE, jnp.where(short_call, _CALL, _FOLD))
    short = jnp.where(raises == 0, short_first, short_facing)

    # Deep, nothing raised yet.
    steal = (after >= 1) & (after <= 2) & (top <= open_top + STEAL_EXTRA) & (u < STEAL_U)
    limp = ((f["limpers"] >= 1) & (top <= LIMP_TOP)) | (f["is_sb"] & (top <= SB_COMPLETE_TOP))
    first = jnp.where((top <= open_top) | steal, _RAISE, jnp.where(limp, _CALL, _FOLD))
    open_to = (OPEN_SIZE_BB + f["limpers"]) * bb
    # Deep, facing one raise.
    odds1 = _odds_ok(eq - CALL_ODDS_PENALTY, pot_after, to_call)
    odds1 = odds1 & (to_call * CALL_ODDS_MAX_SHARE <= reach)
    one = jnp.where(top <= THREE_BET_TOP, _RAISE,
                    jnp.where((top <= CALL_TOP) | odds1, _CALL, _FOLD))
    three_to = jnp.where(eff <= THREE_BET_JAM_BB, reach, 3 * cur)
    # Deep, facing two or more raises.
    odds2 = _odds_ok(eq - CALL_3BET_PENALTY, pot_after, to_call)
    call2 = ((top <= CALL_3BET_TOP) & (3 * to_call <= reach)) | odds2
    two = jnp.where(top <= FOUR_BET_TOP, _RAISE, jnp.where(call2, _CALL, _FOLD))
    four_to = jnp.where(eff <= FOUR_BET_JAM_BB, reach, (5 * cur) // 2)

    deep = jnp.select([raises == 0, raises == 1], [first, one], two)
    deep_to = jnp.select([raises == 0, raises == 1], [open_to, three_to], four_to)
    is_short = eff <= SHORT_BB
    return jnp.where(is_short, short, deep), jnp.where(is_short, reach, deep_to)


def _postflop_intent(f, u):
    """(intent, raise-to target) on the flop, turn and river."""
    tier, fd, sd, pair = _postflop(f["hole"], f["board"], f["street"])
    street, raises = f["street"], f["raises"]
    pot, to_call, cur, reach = f["pot"], f["to_call"], f["current_bet"], f["reach"]
    pot_after = pot + to_call
    value_to = cur + (VALUE_BET[0] * pot) // VALUE_BET[1]
    small_to = cur + (PAIR_BET[0] * pot) // PAIR_BET[1]
    raise_to = cur + pot_after  # a pot-sized raise
    committed = (tier >= GOOD) & (f["stack"] <= pot)

    # Nothing to call: bet or check.
    cbet = (street == table.FLOP) & f["we_raised_preflop"] & (f["opponents"] <= 2) & (u < CBET_U)
    bluff = (f["opponents"] == 1) & (u < BLUFF_U)
    semi = (fd | sd) & (u < SEMI_BLUFF_U)
    bet_small = (tier == GOOD) | ((tier == WEAK) & semi) | ((tier == NOTHING) & (cbet | bluff))
    free = jnp.where((tier == STRONG) | bet_small, _RAISE, _CALL)
    free_to = jnp.where(tier == STRONG, value_to, small_to)

    # Facing a bet: raise, call by price, or fold.
    def price_ok(threshold):
        return to_call * 10000 <= threshold * pot_after

    draw_t = jnp.asarray(DRAW_PRICE)[jnp.clip(street - 1, 0, 1)]
    draw_price = jnp.select([fd & sd, fd, sd], [draw_t[2], draw_t[0], draw_t[1]], 0)
    weak_price = jnp.where(pair, jnp.asarray(WEAK_PAIR_PRICE)[jnp.clip(street - 1, 0, 2)], 0)
    good_price = jnp.where(raises <= 1, PAIR_PRICE[0], PAIR_PRICE[1])
    call_t = jnp.select([tier == GOOD, tier == WEAK], [good_price,
                        jnp.maximum(draw_price, weak_price)], 0)
    facing = jnp.where((tier == STRONG) & (raises < RAISE_LIMIT), _RAISE,
                       jnp.where((tier == STRONG) | price_ok(call_t), _CALL, _FOLD))
    facing_to = jnp.where(3 * raise_to >= 2 * reach, reach, raise_to)

    intent = jnp.where(to_call == 0, free, facing)
    target = jnp.where(to_call == 0, free_to, facing_to)
    return jnp.where(committed, _RAISE, intent), jnp.where(committed, reach, target)


def to_menu(intent, target, mask, amounts) -> jax.Array:
    """A legal menu action for an intent: FOLD (CHECK_CALL when checking is free), CHECK_CALL,
    or the legal raise entry nearest ``target`` (ties: the smaller; CHECK_CALL if none)."""
    idx = jnp.arange(mask.shape[0])
    is_raise = mask & (idx >= MIN_RAISE)
    dist = jnp.where(is_raise, jnp.abs(amounts - target), jnp.iinfo(jnp.int32).max)
    raise_action = jnp.where(is_raise.any(), jnp.argmin(dist), CHECK_CALL)
    action = jnp.select([intent == _FOLD, intent == _RAISE], [FOLD, raise_action], CHECK_CALL)
    action = jnp.where(mask[action], action, CHECK_CALL)
    return jnp.where(mask[action], action, jnp.argmax(mask)).astype(jnp.int32)


#: The draw ``u`` is uniform over this many outcomes, one draw per decision.
_DRAW_OUTCOMES = 10000
#: Every threshold the draw is compared with (``u < T``): a decision is the same for every ``u``
#: between two consecutive ones, so its distribution has at most five outcomes.
_U_THRESHOLDS = tuple(sorted({BLUFF_U, STEAL_U, SEMI_BLUFF_U, CBET_U}))


def decide_at(menu, view, mask: jax.Array, u) -> jax.Array:
    """The baseline's menu action (``# [] int32``, always legal) for the decision ``view``
    (`tournament.Decision`) under ``menu`` (`actions.Menu`) with its legal ``mask``, had its
    draw been ``u`` (int32 in [0, `_DRAW_OUTCOMES`)): the one rule `decide` and `probabilities`
    share. Pure and jit/vmap-able."""
    equity_np, top_np = _shipped_preflop()
    f = features(view)
    t = view.table
    cls = hand_class(f["hole"])
    equity = jnp.asarray(equity_np)[cls]
    top = jnp.asarray(top_np)[cls]
    pre_intent, pre_to = _preflop(f, u, equity, top)
    post_intent, post_to = _postflop_intent(f, u)
    pre = f["street"] == table.PREFLOP
    intent = jnp.where(pre, pre_intent, post_intent)
    target = jnp.where(pre, pre_to, post_to)
    _, amounts = menu.mask_and_amounts(t, table.legal(t))
    return to_menu(intent, target, mask, amounts)


def decide(menu, view, mask: jax.Array, key: jax.Array) -> jax.Array:
    """The baseline's menu action (``# [] int32``, always legal): `decide_at` with its one draw
    ``u`` in [0, 10000), at the coordinates of the decision under ``key`` (the bot's per-game
    key). Pure and jit/vmap-able.
    """
    u = draw_below(coordinate_key(key, *coordinates(view)), _DRAW_OUTCOMES)
    return decide_at(menu, view, mask, u)


def probabilities(menu, view, mask: jax.Array) -> jax.Array:
    """``# [A] float32``: the distribution of `decide` over the menu actions at the decision
    ``view`` (``u`` uniform in [0, 10000)): `decide_at` at the first ``u`` of each segment
    between the sorted `_U_THRESHOLDS`, weighed by the segment's length / 10,000. (``u`` is 32
    random bits mod 10,000: the true weights differ by less than 2e-6.)"""
    starts = np.asarray((0,) + _U_THRESHOLDS, np.int32)
    lengths = np.diff(np.append(starts, _DRAW_OUTCOMES)).astype(np.int32)
    picks = jax.vmap(lambda u: decide_at(menu, view, mask, u))(jnp.asarray(starts))
    counts = jnp.zeros(mask.shape[0], jnp.int32).at[picks].add(jnp.asarray(lengths))
    return counts.astype(jnp.float32) / jnp.float32(_DRAW_OUTCOMES)


def act(env, state, key: jax.Array) -> jax.Array:
    """The baseline's menu action for ``state.current_player`` (``# [] int32``), always legal:
    `decide` on ``env.decision(state)``."""
    return decide(env.menu, env.decision(state), state.legal_action_mask, key)


def policy(env, state) -> jax.Array:
    """``# [A] float32``: `probabilities` of `act` at ``state`` (the player to act's)."""
    return probabilities(env.menu, env.decision(state), state.legal_action_mask)
