"""XLA helpers of the rules engine (private to `holdemjax.poker`): ways of computing values
that XLA's CPU backend handles badly, with exactly the values of the plain form.

* `unfused`: a value computed once and stored (a performance hint against recomputation in
  fused consumers);
* `split_key_data`, `sort_keys`: ``jax.random``'s Threefry-2x32 draws with the hash unrolled
  (`holdemjax.threefry.hash2x32`: one fused kernel instead of a rolled loop), bit for bit;
* `sort_rank`, `items_at`, `permutation`: ``jax.random.permutation`` computed from ranks
  (counting) instead of XLA's sort, with the same result (ties redone exactly).

`holdemjax.poker.cards` deals with them (``hand_deck``, ``dealt_deck``,
``permutation_and_inverse``); `benchmarks/check_deal_equivalence.py` and tests/poker/test_cards.py
check the equalities.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from holdemjax.threefry import hash2x32

__all__ = ["unfused", "fast_threefry", "split_key_data", "sort_keys",
           "stable_rank_exact", "sort_rank", "items_at", "permutation"]


def unfused(x: jax.Array) -> jax.Array:
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


def fast_threefry(key: jax.Array) -> bool:
    """Whether ``key`` uses the threefry PRNG under the counter layout `sort_keys` assumes."""
    if not jax.config.jax_threefry_partitionable:
        return False
    if jnp.issubdtype(key.dtype, jax.dtypes.prng_key):
        return str(jax.random.key_impl(key)) == "threefry2x32"
    return jax.config.jax_default_prng_impl == "threefry2x32"


def split_key_data(key_data: jax.Array) -> tuple[jax.Array, jax.Array]:
    """``jax.random.split(key_data)`` (two keys) of raw key data of the default PRNG, the same
    values, with the hash unrolled (`hash2x32`): key i hashes the counter pair (0, i)."""
    if not fast_threefry(key_data):
        first, second = jax.random.split(key_data)
        return first, second
    k1, k2 = key_data[0], key_data[1]
    zero = jnp.uint32(0)
    b1, b2 = hash2x32(k1, k2, zero, jnp.arange(2, dtype=jnp.uint32))
    return jnp.stack([b1[0], b2[0]]), jnp.stack([b1[1], b2[1]])


def sort_keys(key: jax.Array, size: int, fold=None) -> jax.Array:
    """The 32-bit sort keys ``jax.random.permutation(fold_in(key, fold), size)`` draws (``key``
    itself when ``fold`` is None). One sort round for ``size <= 1,000``: ``_shuffle`` splits
    the key once and sorts ``arange(size)`` by ``bits(subkey)``, stably.

    For the default threefry PRNG the three hashes (fold_in, split, bits) are computed here,
    unrolled (`hash2x32`), exactly as ``jax.random`` defines them for its partitionable
    counter layout: fold_in hashes the counter pair (0, data), the second key of a split is the
    hash of (0, 1), and bit i of ``bits`` is the xor of the hash of (0, i). Any other PRNG goes
    through ``jax.random``.
    """
    rounds = int(np.ceil(3 * np.log(max(1, size)) / np.log(np.iinfo(np.uint32).max)))
    if rounds != 1:  # never for a deck; guards the equivalence below
        raise ValueError(f"a permutation of {size} items takes {rounds} sort rounds, not 1")
    if not fast_threefry(key):
        if fold is not None:
            key = jax.random.fold_in(key, fold)
        return jax.random.bits(jax.random.split(key)[1], (size,), jnp.uint32)
    data = jax.random.key_data(key) if jnp.issubdtype(key.dtype, jax.dtypes.prng_key) else key
    k1, k2 = data[0], data[1]
    zero = jnp.uint32(0)
    if fold is not None:
        k1, k2 = hash2x32(k1, k2, zero, jnp.asarray(fold).astype(jnp.uint32))
    k1, k2 = hash2x32(k1, k2, zero, jnp.uint32(1))  # split(key)[1]
    b1, b2 = hash2x32(k1, k2, zero, jnp.arange(size, dtype=jnp.uint32))
    return b1 ^ b2


def stable_rank_exact(keys: jax.Array) -> jax.Array:
    """Position of each item in the stable sort of ``keys`` (ties broken by index).

    One item's count per loop step: every buffer is one row of ``keys`` (an ``[S, S]``
    comparison would be 10 KiB for a deck, and a program holding a buffer above 512 bytes,
    even in a branch it rarely takes, makes XLA:CPU run all of it on its thread pool)."""
    size = keys.shape[-1]
    ids = jnp.arange(size)

    def count(i, rank):
        k = keys[i]
        before = (keys < k) | ((keys == k) & (ids < i))  # items sorted before item i
        return rank.at[i].set(before.sum(dtype=jnp.int32))

    return jax.lax.fori_loop(0, size, count, jnp.zeros(size, jnp.int32))


def sort_rank(keys: jax.Array) -> jax.Array:
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
        lambda c: (stable_rank_exact(c[1]), jnp.zeros_like(c[1])),
        (rank, keys))
    return rank


def items_at(rank: jax.Array, positions) -> jax.Array:
    """``# [len(positions)] int32``: the item whose rank is each of the static ``positions``."""
    positions = np.asarray(positions, np.int32)
    return unfused(sum(jnp.where(rank[i] == positions, i, 0) for i in range(rank.shape[-1])))


def permutation(key: jax.Array, size: int, positions=None, fold=None) -> jax.Array:
    """``jax.random.permutation(key, size)`` exactly (of ``fold_in(key, fold)`` unless
    ``fold`` is None; its entries at the static ``positions``, or all of them), computed from
    ranks instead of a sort."""
    rank = sort_rank(sort_keys(key, size, fold))
    positions = np.arange(size) if positions is None else positions
    return items_at(rank, positions).astype(jnp.int32)
