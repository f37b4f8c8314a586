"""Cards: ids 0..51, text <-> id, the per-hand 52-card permutation and dealing by index.

A card id is ``4 * rank + suit`` with rank 0..12 = 2, 3, ..., K, A and suit 0..3 = c, d, h, s,
so ``2c`` is 0 and ``As`` is 51.

Every hand deals from one full permutation of the 52 cards, drawn from
``fold_in(tournament_key, hand_index)``. Cards are dealt by fixed index: seat ``s`` holds
``deck[2s]`` and ``deck[2s + 1]`` and the board is ``deck[18:23]`` (room for up to nine seats).
Nothing else draws from the deck, so no action (a fold, an all-in run-out, a burn) can shift a
later card, and two lines of play on the same key see the same cards.

The text helpers (``card_id``, ``card_text``, ``parse_cards``, ``cards_text``) are host-side
Python; ``hand_deck``, ``hole_cards`` and ``board_cards`` are pure JAX and jit/vmap-able.
"""

from __future__ import annotations

from collections.abc import Iterable

import jax
import jax.numpy as jnp
import numpy as np

__all__ = [
    "NUM_CARDS",
    "NUM_RANKS",
    "NUM_SUITS",
    "RANKS",
    "SUITS",
    "MAX_SEATS",
    "HOLE_CARDS_PER_SEAT",
    "BOARD_OFFSET",
    "BOARD_SIZE",
    "card_id",
    "card_text",
    "card_rank",
    "card_suit",
    "parse_cards",
    "cards_text",
    "hand_deck",
    "dealt_deck",
    "permutation_and_inverse",
    "split_key_data",
    "hole_cards",
    "board_cards",
]

NUM_CARDS = 52
RANKS = "23456789TJQKA"  # rank index 0..12
SUITS = "cdhs"  # suit index 0..3: clubs, diamonds, hearts, spades
NUM_RANKS = len(RANKS)
NUM_SUITS = len(SUITS)
MAX_SEATS = 9
HOLE_CARDS_PER_SEAT = 2
BOARD_OFFSET = MAX_SEATS * HOLE_CARDS_PER_SEAT  # 18: the board follows every possible seat's cards
BOARD_SIZE = 5


# ----------------------------------------------------------------------------------------------
# Host-side text helpers
# ----------------------------------------------------------------------------------------------


def card_id(text: str) -> int:
    """``"As" -> 51``. Rank is one of ``RANKS`` (case-insensitive), suit one of ``SUITS``."""
    if not isinstance(text, str) or len(text) != 2:
        raise ValueError(f"bad card {text!r}: expected two characters like 'As'")
    rank = RANKS.find(text[0].upper())
    suit = SUITS.find(text[1].lower())
    if rank < 0 or suit < 0:
        raise ValueError(f"bad card {text!r}: rank must be one of {RANKS}, suit one of {SUITS}")
    return NUM_SUITS * rank + suit


def _check_id(card: object) -> int:
    """Return ``card`` as a Python int if it is an integer id in 0..51, else raise ValueError."""
    if isinstance(card, bool) or not isinstance(card, (int, np.integer)):
        raise ValueError(f"bad card id {card!r}: expected an integer in 0..{NUM_CARDS - 1}")
    value = int(card)
    if not 0 <= value < NUM_CARDS:
        raise ValueError(f"bad card id {value}: expected an integer in 0..{NUM_CARDS - 1}")
    return value


def card_text(card: int) -> str:
    """``51 -> "As"``."""
    value = _check_id(card)
    return RANKS[value // NUM_SUITS] + SUITS[value % NUM_SUITS]


def card_rank(card):
    """Rank 0..12 (2..A) of card ids; works on ints and on arrays of any shape."""
    return card // NUM_SUITS


def card_suit(card):
    """Suit 0..3 (c, d, h, s) of card ids; works on ints and on arrays of any shape."""
    return card % NUM_SUITS


def parse_cards(text: str, *, allow_duplicates: bool = False) -> list[int]:
    """``"AsKd Tc" -> [51, 45, 32]``; spaces (and commas) between cards are optional.

    Raises ``ValueError`` naming the bad card, or the repeated one unless ``allow_duplicates``.
    """
    if not isinstance(text, str):
        raise ValueError(f"bad cards {text!r}: expected a string like 'AsKd'")
    compact = "".join(text.replace(",", " ").split())
    if len(compact) % 2:
        raise ValueError(f"bad cards {text!r}: odd number of characters (last: {compact[-1]!r})")
    ids = [card_id(compact[i : i + 2]) for i in range(0, len(compact), 2)]
    if not allow_duplicates:
        seen: set[int] = set()
        for card in ids:
            if card in seen:
                raise ValueError(f"duplicate card {card_text(card)!r} in {text!r}")
            seen.add(card)
    return ids


def cards_text(ids: Iterable[int], sep: str = "") -> str:
    """``[51, 45, 32] -> "AsKdTc"`` (``sep`` goes between cards). Accepts lists and arrays."""
    return sep.join(card_text(c) for c in np.asarray(ids).reshape(-1).tolist())


# ----------------------------------------------------------------------------------------------
# Pure JAX dealing
# ----------------------------------------------------------------------------------------------


_ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))


def _unfused(x: jax.Array) -> jax.Array:
    """``x`` unchanged, as the result of a reduction (a performance hint, for XLA on the CPU).

    XLA fuses a chain of cheap elementwise ops into each of its consumers and recomputes it
    there, once per consumer and per element of a broadcast: a seven-card strength compared
    seat against seat (``[N, N]``) would rerun the whole evaluator N times per seat, and the
    dealt cards would be recounted by every field that reads them. A reduction is not fused
    into its consumers, so the value is computed once and stored. (``optimization_barrier``
    does not stop this fusion.)
    """
    both = jnp.stack([x, jnp.zeros_like(x)])
    return both.any(axis=0) if x.dtype == jnp.bool_ else both.sum(axis=0, dtype=x.dtype)


def _threefry2x32(k1, k2, x1, x2):
    """The Threefry-2x32 hash (20 rounds) that ``jax.random``'s default PRNG uses, unrolled.

    JAX lowers its own on the CPU as a rolled loop of five steps, each a few small kernels with
    copies between them; unrolled, XLA fuses the whole hash into one elementwise kernel. The
    arithmetic is the same (uint32, wrapping), so are the bits.
    """
    u32 = lambda v: jnp.asarray(v, jnp.uint32)  # noqa: E731
    ks = (k1, k2, k1 ^ k2 ^ u32(0x1BD11BDA))
    x1, x2 = x1 + ks[0], x2 + ks[1]
    for step in range(5):
        for r in _ROTATIONS[step % 2]:
            x1 = x1 + x2
            x2 = x1 ^ ((x2 << u32(r)) | (x2 >> u32(32 - r)))
        x1 = x1 + ks[(step + 1) % 3]
        x2 = x2 + ks[(step + 2) % 3] + u32(step + 1)
    return x1, x2


def _fast_threefry(key: jax.Array) -> bool:
    """Whether ``key`` uses the threefry PRNG under the counter layout `_sort_keys` assumes."""
    if not jax.config.jax_threefry_partitionable:
        return False
    if jnp.issubdtype(key.dtype, jax.dtypes.prng_key):
        return str(jax.random.key_impl(key)) == "threefry2x32"
    return jax.config.jax_default_prng_impl == "threefry2x32"


def split_key_data(key_data: jax.Array) -> tuple[jax.Array, jax.Array]:
    """``jax.random.split(key_data)`` (two keys) of raw key data of the default PRNG, the same
    values, with the hash unrolled (`_threefry2x32`): key i hashes the counter pair (0, i)."""
    if not _fast_threefry(key_data):
        first, second = jax.random.split(key_data)
        return first, second
    k1, k2 = key_data[0], key_data[1]
    zero = jnp.uint32(0)
    b1, b2 = _threefry2x32(k1, k2, zero, jnp.arange(2, dtype=jnp.uint32))
    return jnp.stack([b1[0], b2[0]]), jnp.stack([b1[1], b2[1]])


def _sort_keys(key: jax.Array, size: int, fold=None) -> jax.Array:
    """The 32-bit sort keys ``jax.random.permutation(fold_in(key, fold), size)`` draws (``key``
    itself when ``fold`` is None). One sort round for ``size <= 1,000``: ``_shuffle`` splits
    the key once and sorts ``arange(size)`` by ``bits(subkey)``, stably.

    For the default threefry PRNG the three hashes (fold_in, split, bits) are computed here,
    unrolled (`_threefry2x32`), exactly as ``jax.random`` defines them for its partitionable
    counter layout: fold_in hashes the counter pair (0, data), the second key of a split is the
    hash of (0, 1), and bit i of ``bits`` is the xor of the hash of (0, i). Any other PRNG goes
    through ``jax.random``.
    """
    rounds = int(np.ceil(3 * np.log(max(1, size)) / np.log(np.iinfo(np.uint32).max)))
    if rounds != 1:  # never for a deck; guards the equivalence below
        raise ValueError(f"a permutation of {size} items takes {rounds} sort rounds, not 1")
    if not _fast_threefry(key):
        if fold is not None:
            key = jax.random.fold_in(key, fold)
        return jax.random.bits(jax.random.split(key)[1], (size,), jnp.uint32)
    data = jax.random.key_data(key) if jnp.issubdtype(key.dtype, jax.dtypes.prng_key) else key
    k1, k2 = data[0], data[1]
    zero = jnp.uint32(0)
    if fold is not None:
        k1, k2 = _threefry2x32(k1, k2, zero, jnp.asarray(fold).astype(jnp.uint32))
    k1, k2 = _threefry2x32(k1, k2, zero, jnp.uint32(1))  # split(key)[1]
    b1, b2 = _threefry2x32(k1, k2, zero, jnp.arange(size, dtype=jnp.uint32))
    return b1 ^ b2


def _stable_rank_exact(keys: jax.Array) -> jax.Array:
    """Position of each item in the stable sort of ``keys`` (ties broken by index)."""
    ids = jnp.arange(keys.shape[-1])
    before = (keys[None, :] < keys[:, None]) | (
        (keys[None, :] == keys[:, None]) & (ids[None, :] < ids[:, None]))  # [i, j]: j before i
    return before.sum(axis=1, dtype=jnp.int32)


def _sort_rank(keys: jax.Array) -> jax.Array:
    """``# [S] uint32 -> [S] int32``: where each item lands in a stable sort by ``keys``.

    The same permutation as XLA's stable sort, without the sort (slow on the CPU, above all
    under ``vmap``): an item's rank is the number of keys below it. Ties of 32-bit keys (about
    one hand in three million) make those counts collide, which shows as a rank sum below
    ``0 + 1 + ... + S-1``; only then the exact count with ties broken by index is computed, in a
    loop that runs (for the whole batch, under ``vmap``) only when some row needs it.
    """
    size = keys.shape[-1]
    # A sum over j of one compare each, elementwise: XLA fuses it into one loop.
    rank = sum((keys[j] < keys).astype(jnp.int32) for j in range(size))
    # The keys ride in the loop and come out zeroed: were they passed through unchanged, XLA
    # would see the exact count as loop-invariant and compute it before the loop, every time.
    rank, _ = jax.lax.while_loop(
        lambda c: c[0].sum() != size * (size - 1) // 2,
        lambda c: (_stable_rank_exact(c[1]), jnp.zeros_like(c[1])),
        (rank, keys))
    return rank


def _items_at(rank: jax.Array, positions) -> jax.Array:
    """``# [len(positions)] int32``: the item whose rank is each of the static ``positions``."""
    positions = np.asarray(positions, np.int32)
    return _unfused(sum(jnp.where(rank[i] == positions, i, 0) for i in range(rank.shape[-1])))


def _permutation(key: jax.Array, size: int, positions=None, fold=None) -> jax.Array:
    """``jax.random.permutation(key, size)`` exactly (of ``fold_in(key, fold)`` unless
    ``fold`` is None; its entries at the static ``positions``, or all of them), computed from
    ranks instead of a sort."""
    rank = _sort_rank(_sort_keys(key, size, fold))
    positions = np.arange(size) if positions is None else positions
    return _items_at(rank, positions).astype(jnp.int32)


def hand_deck(tournament_key: jax.Array, hand_index) -> jax.Array:
    """The 52-card permutation of one hand of a tournament.

    Args:
      tournament_key: the tournament's PRNG key (consumed by ``fold_in`` only, never split).
      hand_index: int, 0-based hand number within the tournament (may be traced).
    Returns:
      ``# [52] int32``, a permutation of 0..51: ``jax.random.permutation(fold_in(key, hand),
      52)`` (computed without XLA's sort, with the same result).
    """
    return _permutation(tournament_key, NUM_CARDS, fold=hand_index)


def dealt_deck(tournament_key: jax.Array, hand_index, num_seats: int) -> jax.Array:
    """``hand_deck(tournament_key, hand_index)`` at the positions a table of ``num_seats``
    deals from (``deck[:2 * num_seats]`` and the board ``deck[18:23]``), -1 at the others:
    what ``table.start_hand`` reads, for less work than the whole permutation.

    ``# [52] int32``; ``num_seats`` static, 1..MAX_SEATS.
    """
    if not 1 <= num_seats <= MAX_SEATS:
        raise ValueError(f"num_seats={num_seats} must be in 1..{MAX_SEATS}")
    dealt = np.r_[0:num_seats * HOLE_CARDS_PER_SEAT, BOARD_OFFSET:BOARD_OFFSET + BOARD_SIZE]
    cards = _permutation(tournament_key, NUM_CARDS, dealt, fold=hand_index)
    hole = num_seats * HOLE_CARDS_PER_SEAT
    gap = jnp.full(BOARD_OFFSET - hole, -1, jnp.int32)
    rest = jnp.full(NUM_CARDS - BOARD_OFFSET - BOARD_SIZE, -1, jnp.int32)
    return jnp.concatenate([cards[:hole], gap, cards[hole:], rest])


def permutation_and_inverse(key: jax.Array, size: int) -> tuple[jax.Array, jax.Array]:
    """``(jax.random.permutation(key, size), its inverse)`` as ``# [size] int32`` each, exactly
    those values, computed without XLA's sort (the inverse is its argsort: where each item went).
    ``size`` static; used for random seating."""
    rank = _sort_rank(_sort_keys(key, size))
    return _items_at(rank, np.arange(size)).astype(jnp.int32), rank


def hole_cards(deck: jax.Array, num_seats: int) -> jax.Array:
    """Hole cards by seat: seat ``s`` gets ``deck[2s], deck[2s + 1]``.

    Args:
      deck: ``# [..., 52] int32`` from ``hand_deck`` (leading batch axes allowed).
      num_seats: static int, 1..MAX_SEATS.
    Returns:
      ``# [..., num_seats, 2] int32``.
    """
    if not 1 <= num_seats <= MAX_SEATS:
        raise ValueError(f"num_seats={num_seats} must be in 1..{MAX_SEATS}")
    dealt = deck[..., : num_seats * HOLE_CARDS_PER_SEAT]
    return dealt.reshape(deck.shape[:-1] + (num_seats, HOLE_CARDS_PER_SEAT))


def board_cards(deck: jax.Array) -> jax.Array:
    """The five board cards ``deck[18:23]`` (flop 0..2, turn 3, river 4).

    ``# [..., 52] int32 -> [..., 5] int32``.
    """
    return deck[..., BOARD_OFFSET : BOARD_OFFSET + BOARD_SIZE]
