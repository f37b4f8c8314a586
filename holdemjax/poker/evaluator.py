"""Hand evaluator: the best five of 5, 6 or 7 cards as one comparable int32.

``evaluate(cards)`` maps card ids ``# [..., n] (n = 5, 6 or 7)`` to a strength ``# [...] int32``:
higher wins, equal ties. The strength is canonical: it depends only on the best five cards, so the
133,784,560 seven-card hands take exactly 4,824 distinct values (7,462 over five-card hands).

Method (branch-free, no lookup tables, only int32 bit operations that fuse into one loop):

1. Each card adds its rank bit ``1 << rank`` to the 13-bit mask of its suit: ``m_c, m_d, m_h, m_s``,
   and one to its suit's 4-bit field of a packed suit-count word.
2. Rank multiplicities come from how many suit masks share a bit: ``ge2`` = bits in at least two
   masks, ``ge3`` in at least three, ``quads`` in all four; ``ranks`` = the union.
3. A flush is the mask of a suit with five or more cards (with 7 cards, at most one suit).
4. Straights: shift the ace copy below the deuce (14-bit mask, so A-2-3-4-5 counts) and AND five
   shifted copies; the highest surviving bit is the straight's lowest card (0 = the wheel).
5. Each category names a *primary* (what is compared first: quad rank, trips over pair, the
   two pairs, the straight's index) and a *kicker source* mask with how many kickers it keeps;
   kickers are the top ``k`` bits of the source, taken by clearing low bits.

Layout of a strength (bit 31 is never set, so strengths are non-negative)::

    bits 26..29  category 0..8 (HIGH_CARD .. STRAIGHT_FLUSH)
    bits 13..25  primary: a 13-bit rank mask, or the straight index 0..9
    bits  0..12  kickers: a 13-bit rank mask

Within a category, comparing masks as integers compares their ranks from the top down, which is
exactly the poker order.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from holdemjax.poker.cards import NUM_RANKS, NUM_SUITS, _unfused

__all__ = [
    "HIGH_CARD",
    "ONE_PAIR",
    "TWO_PAIR",
    "THREE_OF_A_KIND",
    "STRAIGHT",
    "FLUSH",
    "FULL_HOUSE",
    "FOUR_OF_A_KIND",
    "STRAIGHT_FLUSH",
    "NUM_CATEGORIES",
    "CATEGORY_NAMES",
    "CATEGORY_SHIFT",
    "PRIMARY_SHIFT",
    "evaluate",
    "category",
]

HIGH_CARD = 0
ONE_PAIR = 1
TWO_PAIR = 2
THREE_OF_A_KIND = 3
STRAIGHT = 4
FLUSH = 5
FULL_HOUSE = 6
FOUR_OF_A_KIND = 7
STRAIGHT_FLUSH = 8
NUM_CATEGORIES = 9
CATEGORY_NAMES = (
    "high card",
    "one pair",
    "two pair",
    "three of a kind",
    "straight",
    "flush",
    "full house",
    "four of a kind",
    "straight flush",
)

PRIMARY_SHIFT = NUM_RANKS  # 13: kickers take the low 13 bits
CATEGORY_SHIFT = 2 * NUM_RANKS  # 26: primary takes the next 13
_ACE = NUM_RANKS - 1  # rank index of the ace
_STRAIGHT_LEN = 5
_HAND_SIZE = 5
_VALID_SIZES = (5, 6, 7)
_COUNT_BITS = 4  # width of one suit's card count in the packed suit-count word
_COUNT_MASK = (1 << _COUNT_BITS) - 1


def _highest_bit(mask: jax.Array) -> jax.Array:
    """The highest set bit of each mask as a one-bit mask (0 where the mask is 0)."""
    top = 31 - jax.lax.clz(mask)  # -1 where mask == 0
    return jnp.where(mask != 0, jnp.left_shift(1, jnp.maximum(top, 0)), 0)


def _top_bits(mask: jax.Array, keep: jax.Array, max_set: int) -> jax.Array:
    """Keep the ``keep`` highest set bits of ``mask`` (which has at most ``max_set`` bits).

    Clears the lowest set bit (``x & (x - 1)``) while more than ``keep`` bits remain.
    """
    count = jax.lax.population_count(mask)
    for _ in range(max(max_set - 1, 0)):
        too_many = count > keep
        mask = jnp.where(too_many, mask & (mask - 1), mask)
        count = count - too_many.astype(count.dtype)
    return mask


def _straight_index(mask: jax.Array) -> jax.Array:
    """Best straight in a 13-bit rank mask: 0 = A-2-3-4-5 ... 9 = T-J-Q-K-A; -1 = none."""
    ext = (mask << 1) | ((mask >> _ACE) & 1)  # 14 bits: bit 0 = ace low, bit r + 1 = rank r
    runs = ext
    for shift in range(1, _STRAIGHT_LEN):
        runs = runs & (ext >> shift)  # bit b survives iff bits b..b+4 are all set
    return 31 - jax.lax.clz(runs)


@jax.jit
def evaluate(cards: jax.Array) -> jax.Array:
    """Strength of the best five-card hand (jitted; fine to call inside jit, vmap and scan).

    Args:
      cards: ``# [..., n] int`` card ids 0..51 (``4 * rank + suit``), ``n`` in 5, 6, 7; the cards of
        one hand must be distinct (not checked).
    Returns:
      ``# [...] int32`` strength: higher wins, equal ties; ``category(strength)`` is its category.
    """
    cards = jnp.asarray(cards)
    num_cards = cards.shape[-1]
    if num_cards not in _VALID_SIZES:
        raise ValueError(f"evaluate takes 5, 6 or 7 cards on the last axis, got {num_cards}")
    cards = cards.astype(jnp.int32)

    # 1. Per-suit 13-bit rank masks (cards are distinct, so bits never collide). Suit counts ride
    #    along in 4-bit fields of one word: field s holds how many cards have suit s.
    suit_masks = [jnp.zeros(cards.shape[:-1], jnp.int32) for _ in range(NUM_SUITS)]
    suit_counts = jnp.zeros(cards.shape[:-1], jnp.int32)
    for i in range(num_cards):
        card = cards[..., i]
        bit = jnp.left_shift(1, card >> 2)  # # [...] 1 << rank
        suit = card & (NUM_SUITS - 1)
        suit_masks = [m | jnp.where(suit == s, bit, 0) for s, m in enumerate(suit_masks)]
        suit_counts = suit_counts + jnp.left_shift(1, suit * _COUNT_BITS)
    mc, md, mh, ms = suit_masks

    # 2. Rank multiplicities from overlaps of the suit masks.
    # Pair the suits as (c, d) and (h, s): a rank is in >= 3 suits iff it fills one pair and
    # touches the other; in >= 2 iff it fills a pair or touches both.
    both_cd, both_hs = mc & md, mh & ms
    any_cd, any_hs = mc | md, mh | ms
    ranks = any_cd | any_hs  # at least one
    ge2 = both_cd | both_hs | (any_cd & any_hs)
    ge3 = (both_cd & any_hs) | (both_hs & any_cd)
    quads = both_cd & both_hs
    trips = ge3 & ~quads  # exactly three
    pairs = ge2 & ~ge3  # exactly two
    num_trips = jax.lax.population_count(trips)
    num_pairs = jax.lax.population_count(pairs)

    # 3. Flush: the suit with >= 5 cards (at most one with <= 7 cards).
    flush = jnp.zeros_like(ranks)
    for s, m in enumerate(suit_masks):
        count = (suit_counts >> (s * _COUNT_BITS)) & _COUNT_MASK
        flush = flush | jnp.where(count >= _HAND_SIZE, m, 0)

    # 4. Straights, in the flush suit and in any suit.
    sf_index = _straight_index(flush)
    straight_index = _straight_index(ranks)

    # 5. Category by priority, with its primary and kicker source (the first true row wins).
    full_trips = _highest_bit(trips)  # two trips: the higher one is the full house's trips
    two_pairs = _top_bits(pairs, 2, 3)  # up to three pairs among seven cards
    rows = [  # (condition, category, primary, kicker source, kickers kept)
        (sf_index >= 0, STRAIGHT_FLUSH, sf_index, 0, 0),
        (quads != 0, FOUR_OF_A_KIND, quads, ranks & ~quads, 1),
        (
            (num_trips >= 2) | ((num_trips == 1) & (num_pairs >= 1)),
            FULL_HOUSE,
            full_trips,
            (trips & ~full_trips) | pairs,
            1,
        ),
        (flush != 0, FLUSH, 0, flush, 5),
        (straight_index >= 0, STRAIGHT, straight_index, 0, 0),
        (num_trips == 1, THREE_OF_A_KIND, trips, ranks & ~trips, 2),
        (num_pairs >= 2, TWO_PAIR, two_pairs, ranks & ~two_pairs, 1),
        (num_pairs == 1, ONE_PAIR, pairs, ranks & ~pairs, 3),
    ]
    cat = jnp.full_like(ranks, HIGH_CARD)
    primary = jnp.zeros_like(ranks)
    source = ranks
    keep = jnp.full_like(ranks, _HAND_SIZE)
    # Apply from the lowest priority up, so the highest true condition writes last.
    for cond, c, p, src, k in reversed(rows):
        cat = jnp.where(cond, c, cat)
        primary = jnp.where(cond, p, primary)
        source = jnp.where(cond, src, source)
        keep = jnp.where(cond, k, keep)
    kickers = _top_bits(source, keep, num_cards)
    # Stored once (see `cards._unfused`): the pots compare strengths seat against seat.
    return _unfused((cat << CATEGORY_SHIFT) | (primary << PRIMARY_SHIFT) | kickers)


@jax.jit
def category(strength: jax.Array) -> jax.Array:
    """Category 0..8 of strengths from ``evaluate``: ``# [...] int32 -> [...] int32``."""
    return jnp.asarray(strength, jnp.int32) >> CATEGORY_SHIFT
