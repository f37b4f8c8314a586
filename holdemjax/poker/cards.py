"""Cards: ids 0..51, text <-> id, the per-hand 52-card permutation and dealing by index.

A card id is ``4 * rank + suit`` with rank 0..12 = 2, 3, ..., K, A and suit 0..3 = c, d, h, s,
so ``2c`` is 0 and ``As`` is 51.

Every hand deals from one full permutation of the 52 cards, drawn from
``fold_in(tournament_key, hand_index)``. Cards are dealt by fixed index: seat ``s`` holds
``deck[2s]`` and ``deck[2s + 1]`` and the board is ``deck[18:23]`` (room for up to nine seats).
Nothing else draws from the deck, so no action (a fold, an all-in run-out, a burn) can shift a
later card, and two lines of play on the same key see the same cards.

Seen from the table (every seat's cards known, the deck not), a board card still to come is
drawn uniformly from the cards no seat position holds and not shown yet (``unseen``: the one
statement of that rule); ``put_on_board`` puts a chosen card there and keeps the rest of the
board a uniform draw (the hold'em envs' chance outcomes, `holdemjax.api`'s ``chance_step``).

The text helpers (``card_id``, ``card_text``, ``parse_cards``, ``cards_text``) are host-side
Python; ``hand_deck``, ``hole_cards``, ``board_cards``, ``unseen`` and ``put_on_board`` are
pure JAX and jit/vmap-able.
"""

from __future__ import annotations

from collections.abc import Iterable

import jax
import jax.numpy as jnp
import numpy as np

from holdemjax import xla
from holdemjax.validate import is_int

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
    "hole_cards",
    "board_cards",
    "unseen",
    "put_on_board",
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
    if not is_int(card):
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


def hand_deck(tournament_key: jax.Array, hand_index) -> jax.Array:
    """The 52-card permutation of one hand of a tournament.

    Args:
      tournament_key: the tournament's PRNG key (consumed by ``fold_in`` only, never split).
      hand_index: int, 0-based hand number within the tournament (may be traced).
    Returns:
      ``# [52] int32``, a permutation of 0..51: ``jax.random.permutation(fold_in(key, hand),
      52)`` (computed without XLA's sort, with the same result).
    """
    return xla.permutation(tournament_key, NUM_CARDS, fold=hand_index)


def dealt_deck(tournament_key: jax.Array, hand_index, num_seats: int) -> jax.Array:
    """``hand_deck(tournament_key, hand_index)`` at the positions a table of ``num_seats``
    deals from (``deck[:2 * num_seats]`` and the board ``deck[18:23]``), -1 at the others:
    what ``table.start_hand`` reads, for less work than the whole permutation.

    ``# [52] int32``; ``num_seats`` static, 1..MAX_SEATS.
    """
    if not 1 <= num_seats <= MAX_SEATS:
        raise ValueError(f"num_seats={num_seats} must be in 1..{MAX_SEATS}")
    dealt = np.r_[0:num_seats * HOLE_CARDS_PER_SEAT, BOARD_OFFSET:BOARD_OFFSET + BOARD_SIZE]
    cards = xla.permutation(tournament_key, NUM_CARDS, dealt, fold=hand_index)
    hole = num_seats * HOLE_CARDS_PER_SEAT
    gap = jnp.full(BOARD_OFFSET - hole, -1, jnp.int32)
    rest = jnp.full(NUM_CARDS - BOARD_OFFSET - BOARD_SIZE, -1, jnp.int32)
    return jnp.concatenate([cards[:hole], gap, cards[hole:], rest])


def permutation_and_inverse(key: jax.Array, size: int) -> tuple[jax.Array, jax.Array]:
    """``(jax.random.permutation(key, size), its inverse)`` as ``# [size] int32`` each, exactly
    those values, computed without XLA's sort (the inverse is its argsort: where each item went).
    ``size`` static; used for random seating."""
    rank = xla.sort_rank(xla.sort_keys(key, size))
    return xla.items_at(rank, np.arange(size)).astype(jnp.int32), rank


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


def unseen(hole: jax.Array, board: jax.Array, visible) -> jax.Array:
    """``# [52] bool``: the cards that may still come on the board once the first ``visible``
    (0..5; traced is fine) of ``board # [5]`` are shown: every card but those at a seat
    position (``hole # [N, 2]``, every seat's two, dealt in or not: by the fixed indices none
    of them is ever on the board) and the board cards shown. Seen from the table, the next
    board card is a uniform draw from these."""
    shown = jnp.where(jnp.arange(BOARD_SIZE) < visible, board, -1)
    used = jnp.concatenate([jnp.reshape(hole, (-1,)), shown])
    return ~(jnp.arange(NUM_CARDS)[:, None] == used[None, :]).any(axis=1)


def put_on_board(board: jax.Array, position, card) -> jax.Array:
    """``# [5] int32``: ``board`` with ``card`` at ``position`` (traced is fine); the card that
    was there moves to the later position that held ``card`` (a swap), or leaves the board when
    ``card`` was at none. For a ``card`` drawn uniformly from `unseen` (``visible`` =
    ``position``) and a board whose hidden cards were a uniform draw, the new board's hidden
    cards are a uniform draw with ``card`` at ``position``: for each card that was there the
    move is a bijection between the boards holding that card there and those holding
    ``card``."""
    at = jnp.arange(BOARD_SIZE)
    board = jnp.asarray(board, jnp.int32)
    old = jnp.sum(jnp.where(at == position, board, 0)).astype(jnp.int32)
    moved = jnp.where((board == card) & (at > position), old, board)
    return jnp.where(at == position, card, moved).astype(jnp.int32)
