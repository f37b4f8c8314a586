"""``jax.random`` draws of the default PRNG, bit for bit, with the hash unrolled.

On the CPU, JAX lowers its Threefry-2x32 hash as a rolled loop of five steps, each a few small
kernels with copies between them; under ``vmap`` in a step that runs every few microseconds
(auto-reset, random play, an env's ``init``) those loops cost more than the game. Written out
as 20 rounds of uint32 arithmetic, XLA fuses the hash into one elementwise kernel.

Every function here returns exactly what the ``jax.random`` function of the same name returns
for keys of the default ``threefry2x32`` PRNG with ``jax_threefry_partitionable`` on (JAX's
default): same keys, same bits, same floats. For any other PRNG or setting it calls
``jax.random`` itself. Keys may be typed (``jax.random.key``) or raw (``jax.random.PRNGKey``);
a new key has the kind of the key it came from. Single keys only, as in ``jax.random``: use
``vmap`` for batches. ``tests/test_threefry.py`` checks the equality.
"""

from __future__ import annotations

from collections.abc import Sequence

import jax
import jax.numpy as jnp
import numpy as np

__all__ = ["hash2x32", "split", "split_at", "fold_in", "bits", "uniform", "bernoulli", "randint"]

_ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))
_PARITY = 0x1BD11BDA  # Threefry's key-schedule constant


def hash2x32(k1, k2, x1, x2):
    """The Threefry-2x32 hash (20 rounds) of the counter pair ``(x1, x2)`` under key words
    ``(k1, k2)``; all uint32, broadcasting. Returns the two output words."""
    u32 = lambda v: jnp.asarray(v, jnp.uint32)
    k1, k2, x1, x2 = map(u32, (k1, k2, x1, x2))
    ks = (k1, k2, k1 ^ k2 ^ u32(_PARITY))
    x1, x2 = x1 + ks[0], x2 + ks[1]
    for step in range(5):
        for r in _ROTATIONS[step % 2]:
            x1 = x1 + x2
            x2 = x1 ^ ((x2 << u32(r)) | (x2 >> u32(32 - r)))
        x1 = x1 + ks[(step + 1) % 3]
        x2 = x2 + ks[(step + 2) % 3] + u32(step + 1)
    return x1, x2


def _stored(x: jax.Array) -> jax.Array:
    """``x`` unchanged, as the result of a reduction: XLA does not fuse a reduction into its
    consumers, so a hash read by several consumers (the two halves of a key, two keys of a
    split) is computed once instead of once per consumer."""
    return jnp.stack([x, jnp.zeros_like(x)]).sum(axis=0, dtype=x.dtype)


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
    hi, lo = _counters(_shape(num))
    b1, b2 = hash2x32(k1, k2, hi, lo)
    return wrap(_stored(jnp.stack([b1, b2], axis=-1)))


def split_at(key, index: int):
    """``jax.random.split(key, num)[index]`` for any ``num > index``: with JAX's partitionable
    layout key ``i`` of a split depends only on ``i``, so one key costs one hash."""
    words = _words(key)
    if words is None:
        return jax.random.split(key, index + 1)[index]
    k1, k2, wrap = words
    b1, b2 = hash2x32(k1, k2, 0, jnp.uint32(index))
    return wrap(_stored(jnp.stack([b1, b2])))


def fold_in(key, data):
    """``jax.random.fold_in(key, data)`` (``data`` a scalar, taken as uint32)."""
    words = _words(key)
    if words is None:
        return jax.random.fold_in(key, data)
    k1, k2, wrap = words
    b1, b2 = hash2x32(k1, k2, 0, jnp.asarray(data).astype(jnp.uint32))
    return wrap(_stored(jnp.stack([b1, b2])))


def bits(key, shape: Sequence[int] = ()) -> jax.Array:
    """``jax.random.bits(key, shape)``: uint32."""
    words = _words(key)
    if words is None:
        return jax.random.bits(key, tuple(shape), jnp.uint32)
    k1, k2, _ = words
    b1, b2 = hash2x32(k1, k2, *_counters(tuple(shape)))
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
