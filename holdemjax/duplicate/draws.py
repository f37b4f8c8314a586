"""Coordinate-addressed bot draws on the host: threefry2x32 ``fold_in`` and ``bits`` in plain
Python (the hash of `holdemjax.xla.threefry2x32`, on ints), bit for bit what JAX 0.10 computes
(``jax_threefry_partitionable`` on, its default).

The reference bots draw ``draw_below(coordinate_key(key, hand, seat, street, rank), n)`` with
``holdemjax.bots.random_bot``; host-side bots (the tiers of `holdemjax.duplicate.tiers`) call
the functions of this module instead and get the same numbers without JAX, in microseconds.
A key is two uint32 words (``jax.random.key_data`` of a threefry key).

* ``fold_in(key, d)`` = ``threefry2x32(key, (0, d))``: JAX seeds the 32-bit datum into a key
  ``(d >> 32, d & 0xffffffff)`` (zero high word) and hashes it with ``key``.
* ``bits(key)`` (a scalar uint32) = ``y0 ^ y1`` of ``threefry2x32(key, (0, 0))``: the
  partitionable generator hashes the element's 64-bit index split into two words.
"""

from __future__ import annotations

import functools

from holdemjax.validate import require_int
from holdemjax.xla import threefry2x32  # Python ints in, Python ints out: no JAX

__all__ = ["fold_in", "bits", "coordinate_key", "draw_below", "key_words"]

_MASK = 0xFFFFFFFF


def key_words(key) -> tuple[int, int]:
    """A key as two Python ints in 0..2**32-1, from any pair of integers (a tuple, a list, a
    numpy ``uint32[2]``). Raises ValueError naming the bad value."""
    try:
        w0, w1 = (int(w) for w in key)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"a bot key must be two uint32 words, got {key!r}") from exc
    if not (0 <= w0 <= _MASK and 0 <= w1 <= _MASK):
        raise ValueError(f"a bot key must be two uint32 words, got {key!r}")
    return w0, w1


def fold_in(key, data: int) -> tuple[int, int]:
    """``jax.random.key_data(jax.random.fold_in(key, uint32(data)))`` as two ints.

    ``data`` is taken modulo 2**32, as ``jnp.asarray(data, jnp.uint32)`` wraps it.
    """
    k0, k1 = key_words(key)
    return threefry2x32(k0, k1, 0, int(data) & _MASK)


def bits(key) -> int:
    """``jax.random.bits(key, (), jnp.uint32)`` as an int (partitionable threefry)."""
    k0, k1 = key_words(key)
    y0, y1 = threefry2x32(k0, k1, 0, 0)
    return y0 ^ y1


@functools.lru_cache(maxsize=4096)
def _hand_seat_key(k0: int, k1: int, hand: int, seat: int) -> tuple[int, int]:
    # A bot folds the same (key, hand, seat) prefix at every decision of a hand: cache it.
    return fold_in(fold_in((k0, k1), hand), seat)


def coordinate_key(key_words_, hand: int, seat: int, street: int, rank: int) -> tuple[int, int]:
    """The key of one decision: ``fold_in`` of hand, seat, street, rank in that order (what
    ``holdemjax.bots.random_bot.coordinate_key`` computes), as two ints."""
    k0, k1 = key_words(key_words_)
    for name, v in (("hand", hand), ("seat", seat), ("street", street), ("rank", rank)):
        require_int(f"coordinate {name}", v)
    prefix = _hand_seat_key(k0, k1, int(hand) & _MASK, int(seat) & _MASK)
    return fold_in(fold_in(prefix, street), rank)


def draw_below(key, n: int) -> int:
    """An int in ``[0, n)``: ``bits(key) mod n`` (``random_bot.draw_below``; 1 <= n < 2**31)."""
    require_int("draw_below: n", n, 1, 2**31 - 1, what="an integer in 1..2**31-1")
    return bits(key) % int(n)
