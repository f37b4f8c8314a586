"""Hand evaluator: the best five of 5, 6 or 7 cards as one comparable int32.

``evaluate(cards)`` maps card ids ``# [..., n] (n = 5, 6 or 7)`` to a strength ``# [...] int32``:
higher wins, equal ties. The strength is canonical: it depends only on the best five cards, so the
133,784,560 seven-card hands take exactly 4,824 distinct values (7,462 over five-card hands).

Method (branch-free, no lookup tables, only int32 bit operations that fuse into one loop):

1. Each card adds its rank bit ``1 << rank`` to the 13-bit mask of its suit: ``m_c, m_d, m_h, m_s``
   (two masks to an int32 word while the cards are read), and one to its suit's 8-bit field of
   a packed suit-count word.
2. Rank multiplicities come from how many suit masks share a bit: ``ge2`` = bits in at least two
   masks, ``ge3`` in at least three, ``quads`` in all four; ``ranks`` = the union.
3. A flush is the mask of a suit with five or more cards (with 7 cards, at most one suit).
4. Straights: shift the ace copy below the deuce (14-bit mask, so A-2-3-4-5 counts) and AND
   shifted copies until a bit survives only under five ranks in a row; the highest surviving
   bit is the straight's lowest card (0 = the wheel).
5. Each category names a *primary* (what is compared first: quad rank, trips over pair, the
   two pairs, the straight's index) and a *kicker source* mask with how many kickers it keeps;
   kickers are the top ``k`` bits of the source, taken by clearing low bits (at most
   ``n - 5`` of them: every source bit is a card outside the primary).

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

from holdemjax import xla
from holdemjax.poker.cards import NUM_RANKS, NUM_SUITS

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
_KEEP_MASK = 7  # low bits of a row's head word: how many kickers it keeps (<= 5)
_VALID_SIZES = (5, 6, 7)


def _bit_index(mask: jax.Array) -> jax.Array:
    """Index of the highest set bit of each mask (``mask < 2**24``); negative where it is 0.

    Read from the exponent of the mask as a float32 (exact below 2**24): AVX2 has no vector
    count-leading-zeros, which LLVM spells out in about fifteen instructions.
    """
    exponent = jax.lax.bitcast_convert_type(mask.astype(jnp.float32), jnp.int32) >> 23
    return exponent - 127  # 0.0 has exponent 0: -127


def _highest_bit(mask: jax.Array) -> jax.Array:
    """The highest set bit of each mask (``mask < 2**24``) as a one-bit mask (0 where 0).

    The float32 of the mask with its mantissa cleared is that power of two (0.0 stays 0.0).
    """
    bits = jax.lax.bitcast_convert_type(mask.astype(jnp.float32), jnp.int32) & 0x7F800000
    return jax.lax.bitcast_convert_type(bits, jnp.float32).astype(jnp.int32)


def _drop_lowest(mask: jax.Array) -> jax.Array:
    """``mask`` without its lowest set bit."""
    return mask & (mask - 1)


def _top_bits(mask: jax.Array, keep: jax.Array, max_drop: int) -> jax.Array:
    """Keep the ``keep`` highest set bits of ``mask``, which has at most ``keep + max_drop``.

    Clears the lowest set bit (``x & (x - 1)``) while more than ``keep`` bits remain.
    """
    drop = jax.lax.population_count(mask) - keep
    for i in range(max_drop):
        mask = jnp.where(drop > i, _drop_lowest(mask), mask)
    return mask


def _straight_index(mask: jax.Array) -> jax.Array:
    """Best straight in a 13-bit rank mask: 0 = A-2-3-4-5 ... 9 = T-J-Q-K-A; negative = none."""
    ext = (mask << 1) | ((mask >> _ACE) & 1)  # 14 bits: bit 0 = ace low, bit r + 1 = rank r
    runs = ext & (ext >> 1)  # bit b: ranks b, b+1 present
    runs = runs & (runs >> 2)  # b..b+3
    runs = runs & (ext >> 4)  # b..b+4
    return _bit_index(runs)


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

    # 1. Per-suit 13-bit rank masks, two suits to a word: clubs in bits 0..12 and diamonds in
    #    16..28 of `low`, hearts and spades likewise in `high` (cards are distinct, so bits never
    #    collide). Suit counts ride along in 8-bit fields of one word: field s counts suit s.
    low = jnp.zeros(cards.shape[:-1], jnp.int32)
    high = jnp.zeros(cards.shape[:-1], jnp.int32)
    suit_counts = jnp.zeros(cards.shape[:-1], jnp.int32)
    for i in range(num_cards):
        card = cards[..., i]
        bit = jnp.left_shift(1, (card >> 2) + ((card & 1) << 4))  # rank, in its suit's half
        is_high = (card & 2) != 0  # hearts or spades
        low = low | jnp.where(is_high, 0, bit)
        high = high | jnp.where(is_high, bit, 0)
        suit_counts = suit_counts + jnp.left_shift(1, (card & (NUM_SUITS - 1)) << 3)
    half = (1 << NUM_RANKS) - 1
    suit_masks = [low & half, low >> 16, high & half, high >> 16]
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
    # How many trips / pairs, without counting bits: "two or more" = still set without the
    # lowest bit.
    trips2 = _drop_lowest(trips) != 0
    pairs1, pairs2 = pairs != 0, _drop_lowest(pairs) != 0

    # 3. Flush: the suit with >= 5 cards (at most one with <= 7 cards). Adding 3 to a count
    #    field sets its bit 3 exactly when the count is 5..7 (counts are at most 7).
    five = (suit_counts + 0x03030303) & 0x08080808
    flush = jnp.zeros_like(ranks)
    for s, m in enumerate(suit_masks):
        flush = flush | jnp.where((five & (0x08 << (8 * s))) != 0, m, 0)

    # 4. Straights, in the flush suit and in any suit.
    sf_index = _straight_index(flush)
    straight_index = _straight_index(ranks)

    # 5. Category by priority, with its primary and kicker source (the first true row wins).
    full_trips = _highest_bit(trips)  # two trips: the higher one is the full house's trips
    top_two = _drop_lowest(pairs)  # three pairs among seven cards: the lowest one is a kicker
    two_pairs = jnp.where(_drop_lowest(top_two) != 0, top_two, pairs)
    rows = [  # (condition, category, primary, kicker source, kickers kept)
        (sf_index >= 0, STRAIGHT_FLUSH, sf_index, 0, 0),
        (quads != 0, FOUR_OF_A_KIND, quads, ranks & ~quads, 1),
        (trips2 | ((trips != 0) & pairs1), FULL_HOUSE, full_trips,
         (trips & ~full_trips) | pairs, 1),
        (flush != 0, FLUSH, 0, flush, 5),
        (straight_index >= 0, STRAIGHT, straight_index, 0, 0),
        (trips != 0, THREE_OF_A_KIND, trips, ranks & ~trips, 2),
        (pairs2, TWO_PAIR, two_pairs, ranks & ~two_pairs, 1),
        (pairs1, ONE_PAIR, pairs, ranks & ~pairs, 3),
    ]
    # Two select chains: `head` = the strength's category and primary bits with the number of
    # kickers kept in its (free) low bits, and the kicker source.
    head = jnp.full_like(ranks, (HIGH_CARD << CATEGORY_SHIFT) | _HAND_SIZE)
    source = ranks
    # Apply from the lowest priority up, so the highest true condition writes last.
    for cond, c, p, src, k in reversed(rows):
        head = jnp.where(cond, (c << CATEGORY_SHIFT) | (p << PRIMARY_SHIFT) | k, head)
        source = jnp.where(cond, src, source)
    keep = head & _KEEP_MASK
    # A kicker source has at most num_cards - 5 bits more than it keeps: each of its bits is
    # a card outside the primary, and the primary and the kickers make five cards.
    kickers = _top_bits(source, keep, num_cards - _HAND_SIZE)
    strength = (head & ~_KEEP_MASK) | kickers
    # Computed once (holdemjax.xla): the pots compare strengths seat against seat.
    return xla.compute_once(strength)


@jax.jit
def category(strength: jax.Array) -> jax.Array:
    """Category 0..8 of strengths from ``evaluate``: ``# [...] int32 -> [...] int32``."""
    return jnp.asarray(strength, jnp.int32) >> CATEGORY_SHIFT
