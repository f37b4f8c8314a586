"""The XLA helpers: values computed in forms XLA's CPU backend handles well, each bit for bit
what the plain form computes. One module for all of them (no other module restates one):

* **Draws.** ``jax.random``'s draws of the default PRNG (`split`, `split_at`, `fold_in`, `bits`,
  `uniform`, `bernoulli`, `randint`) with the Threefry-2x32 hash written out as 20 rounds of
  uint32 arithmetic (`threefry2x32`). JAX lowers the hash on the CPU as a rolled loop of five
  steps, each a few small kernels with copies between them; under ``vmap``, in a step that
  runs every few microseconds (auto-reset, random play, an env's ``init``), those loops cost
  more than the game. Unrolled, XLA fuses the hash into one elementwise kernel.
  ``benchmarks/bench_xla_helpers.py`` measures both (``benchmarks/results/xla_helpers.json``).
* **Permutations from ranks.** `permutation` is ``jax.random.permutation`` of a short vector
  (a deck) computed by counting (`sort_rank`, `items_at`) instead of XLA's sort, which is slow
  on the CPU under ``vmap``; ties of the 32-bit sort keys are redone exactly.
* **A coin from a key.** `key_coin`: a fair coin from a key's words (a murmur3 finaliser),
  cheaper than a Threefry block, for the envs that choose who starts at every auto-reset. Not
  ``jax.random``'s draw (no env promises one there).
* **Compute once.** `compute_once` keeps a value XLA would otherwise recompute inside every
  consumer it fuses into (a hand's strength compared seat against seat, a split's key read by
  its two halves). One form for every use; the benchmark above chose it.

Draws return exactly what the ``jax.random`` function of the same name returns for keys of the
default ``threefry2x32`` PRNG with ``jax_threefry_partitionable`` on (JAX's default): same keys,
same bits, same floats. For any other PRNG or setting they call ``jax.random`` itself. Keys may
be typed (``jax.random.key``) or raw (``jax.random.PRNGKey``, or ``key_data``); a new key has
the kind of the key it came from. Single keys only, as in ``jax.random``: use ``vmap`` for
batches. `threefry2x32` also takes Python ints, for the host's draws
(`holdemjax.duplicate.draws`). Tests: tests/test_xla.py, tests/poker/test_cards.py.
"""

from __future__ import annotations

from collections.abc import Sequence

import jax
import jax.numpy as jnp
import numpy as np

__all__ = ["threefry2x32", "compute_once", "once_by_loop", "once_by_reduction", "split",
           "split_at", "fold_in", "bits", "uniform", "bernoulli", "randint", "sort_keys",
           "stable_rank_exact", "sort_rank", "items_at", "permutation", "key_coin"]

_ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))
_PARITY = 0x1BD11BDA  # Threefry's key-schedule constant
_MASK = 0xFFFFFFFF


# ------------------------------------------------------------------------------ the hash
def threefry2x32(k1, k2, x1, x2):
    """The Threefry-2x32 hash (20 rounds) of the counter pair ``(x1, x2)`` under the key words
    ``(k1, k2)``; returns the two output words.

    Array inputs are taken as uint32 (broadcasting) and give uint32 arrays; four Python ints
    give two Python ints in 0..2**32-1, computed without JAX (for the host)."""
    if all(isinstance(v, int) for v in (k1, k2, x1, x2)):
        wrap = lambda v: v & _MASK  # noqa: E731
    else:
        k1, k2, x1, x2 = (jnp.asarray(v, jnp.uint32) for v in (k1, k2, x1, x2))
        wrap = lambda v: v  # noqa: E731 (uint32 arithmetic wraps by itself)
    ks = (k1, k2, k1 ^ k2 ^ _PARITY)
    x1, x2 = wrap(x1 + ks[0]), wrap(x2 + ks[1])
    for step in range(5):
        for r in _ROTATIONS[step % 2]:
            x1 = wrap(x1 + x2)
            x2 = x1 ^ wrap((x2 << r) | (x2 >> (32 - r)))
        x1 = wrap(x1 + ks[(step + 1) % 3])
        x2 = wrap(x2 + ks[(step + 2) % 3] + (step + 1))
    return x1, x2


# ------------------------------------------------------------------------- compute once
def once_by_loop(x: jax.Array) -> jax.Array:
    """``x`` unchanged, as the operand of a while loop of one trip (its trip count read from the
    data, so XLA cannot remove it): a loop operand is a buffer, computed once."""
    once = (x.reshape(-1)[0].astype(jnp.int32) | 1) & 1  # 1, read from the data

    def body(c):
        i, _, value = c
        return i + 1, value, value

    return jax.lax.while_loop(lambda c: c[0] < once, body,
                              (jnp.int32(0), jnp.zeros_like(x), x))[1]


def once_by_reduction(x: jax.Array) -> jax.Array:
    """``x`` unchanged, as the result of a reduction (``x + 0`` over a stacked axis): XLA does
    not fuse a reduction into its consumers, so the value is stored."""
    both = jnp.stack([x, jnp.zeros_like(x)])
    return both.any(axis=0) if x.dtype == jnp.bool_ else both.sum(axis=0, dtype=x.dtype)


_ONCE = once_by_reduction  # the one form every caller gets (see compute_once)


def compute_once(x: jax.Array) -> jax.Array:
    """``x`` (an integer or bool array) unchanged, computed once and stored (a performance hint
    for XLA on the CPU).

    XLA fuses a chain of cheap elementwise ops into each of its consumers and recomputes it
    there, once per consumer and per element of a broadcast: a seven-card strength compared
    seat against seat (``[N, N]``) would rerun the whole evaluator N times per seat.

    One form for every caller: a reduction (`once_by_reduction`), chosen over a one-trip while
    loop (`once_by_loop`) by ``benchmarks/bench_xla_helpers.py`` (its figures:
    ``benchmarks/results/xla_helpers.json``, docs/benchmarks.md): sng-6 and the evaluator as
    fast or faster, with fewer kernels (every loop trip costs an accelerator a round trip to the
    host), though the loop runs some side games' random play faster.
    ``lax.optimization_barrier`` does not stop the fusion at all."""
    x = jnp.asarray(x)
    if not (jnp.issubdtype(x.dtype, jnp.integer) or x.dtype == jnp.bool_):
        raise TypeError(f"compute_once takes integer or bool arrays, got {x.dtype}")
    return x if x.size == 0 else _ONCE(x)


# ------------------------------------------------------------------------------- draws
def _words(key) -> tuple[jax.Array, jax.Array, object] | None:
    """(k1, k2, how to wrap new key data like ``key``), or None when ``jax.random`` must draw."""
    if not jax.config.jax_threefry_partitionable:
        return None
    if jnp.issubdtype(getattr(key, "dtype", None), jax.dtypes.prng_key):
        impl = jax.random.key_impl(key)
        if str(impl) != "threefry2x32" or key.shape != ():
            return None
        data = jax.random.key_data(key)
        return data[0], data[1], lambda d: jax.random.wrap_key_data(d, impl=impl)
    if jax.config.jax_default_prng_impl != "threefry2x32":
        return None
    key = jnp.asarray(key)
    if key.shape != (2,) or key.dtype != jnp.uint32:
        return None
    return key[0], key[1], lambda d: d


def _shape(num) -> tuple[int, ...]:
    return tuple(int(n) for n in num) if isinstance(num, Sequence) else (int(num),)


def _counters(shape: tuple[int, ...]) -> tuple[jax.Array, jax.Array]:
    """The 64-bit iota over ``shape`` as (high, low) uint32 words (JAX's counter layout)."""
    size = int(np.prod(shape, dtype=np.int64))
    if size >= 2**32:
        raise ValueError(f"{size} draws are more than this module's 32-bit counters allow")
    low = jnp.arange(size, dtype=jnp.uint32).reshape(shape)
    return jnp.zeros(shape, jnp.uint32), low


def split(key, num: int | Sequence[int] = 2):
    """``jax.random.split(key, num)``."""
    words = _words(key)
    if words is None:
        return jax.random.split(key, num)
    k1, k2, wrap = words
    b1, b2 = threefry2x32(k1, k2, *_counters(_shape(num)))
    return wrap(compute_once(jnp.stack([b1, b2], axis=-1)))


def split_at(key, index: int):
    """``jax.random.split(key, num)[index]`` for any ``num > index``: with JAX's partitionable
    layout key ``i`` of a split depends only on ``i``, so one key costs one hash."""
    words = _words(key)
    if words is None:
        return jax.random.split(key, index + 1)[index]
    k1, k2, wrap = words
    return wrap(compute_once(jnp.stack(threefry2x32(k1, k2, 0, index))))


def fold_in(key, data):
    """``jax.random.fold_in(key, data)`` (``data`` a scalar, taken as uint32)."""
    words = _words(key)
    if words is None:
        return jax.random.fold_in(key, data)
    k1, k2, wrap = words
    b1, b2 = threefry2x32(k1, k2, 0, jnp.asarray(data).astype(jnp.uint32))
    return wrap(compute_once(jnp.stack([b1, b2])))


def bits(key, shape: Sequence[int] = ()) -> jax.Array:
    """``jax.random.bits(key, shape)``: uint32."""
    words = _words(key)
    if words is None:
        return jax.random.bits(key, tuple(shape), jnp.uint32)
    k1, k2, _ = words
    b1, b2 = threefry2x32(k1, k2, *_counters(tuple(shape)))
    return b1 ^ b2


def uniform(key, shape: Sequence[int] = ()) -> jax.Array:
    """``jax.random.uniform(key, shape)``: float32 in [0, 1)."""
    if _words(key) is None:
        return jax.random.uniform(key, tuple(shape))
    one = np.array(1.0, np.float32).view(np.uint32)
    mantissa = (bits(key, shape) >> jnp.uint32(32 - 23)) | jnp.uint32(one)
    floats = jax.lax.bitcast_convert_type(mantissa, jnp.float32) - jnp.float32(1.0)
    return jnp.maximum(jnp.float32(0.0), floats * jnp.float32(1.0) + jnp.float32(0.0))


def bernoulli(key, shape: Sequence[int] = ()) -> jax.Array:
    """``jax.random.bernoulli(key, 0.5, shape)``: bool."""
    if _words(key) is None:
        return jax.random.bernoulli(key, 0.5, tuple(shape))
    return uniform(key, shape) < jnp.float32(0.5)


def randint(key, shape: Sequence[int], minval: int, maxval: int) -> jax.Array:
    """``jax.random.randint(key, shape, minval, maxval)`` for int32 and Python-int bounds
    ``-2**31 <= minval < maxval < 2**31``: int32."""
    if not (isinstance(minval, int) and isinstance(maxval, int)
            and -2**31 <= minval < maxval < 2**31):
        raise ValueError(f"randint here takes int bounds minval < maxval, got {minval}, {maxval}")
    if _words(key) is None:
        return jax.random.randint(key, tuple(shape), minval, maxval)
    k_high, k_low = split(key)  # randint draws twice 32 bits and reduces them mod the span
    span = maxval - minval
    high, low = bits(k_high, shape), bits(k_low, shape)
    # JAX's 2**32 mod span, in its wrapping uint32 arithmetic: (2**16 mod span)**2 mod 2**32.
    multiplier = (((2**16 % span) ** 2) % 2**32) % span
    offset = ((high % jnp.uint32(span)) * jnp.uint32(multiplier) + low % jnp.uint32(span))
    offset = offset % jnp.uint32(span)
    return jnp.int32(minval) + offset.astype(jnp.int32)


# ---------------------------------------------------------------- permutations from ranks
def sort_keys(key: jax.Array, size: int, fold=None) -> jax.Array:
    """The 32-bit sort keys ``jax.random.permutation(fold_in(key, fold), size)`` draws (``key``
    itself when ``fold`` is None). One sort round for ``size <= 1,000``: ``_shuffle`` splits
    the key once and sorts ``arange(size)`` by ``bits(subkey)``, stably. The three hashes
    (fold_in, the split's second key, bits) chain here without being stored between them."""
    rounds = int(np.ceil(3 * np.log(max(1, size)) / np.log(np.iinfo(np.uint32).max)))
    if rounds != 1:  # never for a deck; guards the equivalence below
        raise ValueError(f"a permutation of {size} items takes {rounds} sort rounds, not 1")
    words = _words(key)
    if words is None:
        if fold is not None:
            key = jax.random.fold_in(key, fold)
        return jax.random.bits(jax.random.split(key)[1], (size,), jnp.uint32)
    k1, k2, _ = words
    if fold is not None:
        k1, k2 = threefry2x32(k1, k2, 0, jnp.asarray(fold).astype(jnp.uint32))
    k1, k2 = threefry2x32(k1, k2, 0, 1)  # split(key)[1]
    b1, b2 = threefry2x32(k1, k2, *_counters((size,)))
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
    return compute_once(sum(jnp.where(rank[i] == positions, i, 0)
                            for i in range(rank.shape[-1])))


def permutation(key: jax.Array, size: int, positions=None, fold=None) -> jax.Array:
    """``jax.random.permutation(key, size)`` exactly (of ``fold_in(key, fold)`` unless
    ``fold`` is None; its entries at the static ``positions``, or all of them), computed from
    ranks instead of a sort."""
    rank = sort_rank(sort_keys(key, size, fold))
    positions = np.arange(size) if positions is None else positions
    return items_at(rank, positions).astype(jnp.int32)


# ------------------------------------------------------------------------------ a coin
def key_coin(key) -> jax.Array:
    """A fair coin (int32 0 or 1) drawn from ``key``: a murmur3 finaliser over the key's words.

    Cheaper than ``jax.random.bernoulli`` (one Threefry block), which matters because auto-reset
    loops run ``init`` at every step. Keys made by ``jax.random.split``/``fold_in`` have
    pseudo-random words; consecutive seeds (``key(0)``, ``key(1)``, ...) are mixed by the
    finaliser."""
    words = jax.random.key_data(key).astype(jnp.uint32).reshape(-1)
    h = jnp.uint32(0x9E3779B9)
    for i in range(words.shape[0]):
        h = h ^ words[i]
        h = (h ^ (h >> 16)) * jnp.uint32(0x85EBCA6B)
        h = (h ^ (h >> 13)) * jnp.uint32(0xC2B2AE35)
        h = h ^ (h >> 16)
    return (h >> 31).astype(jnp.int32)
