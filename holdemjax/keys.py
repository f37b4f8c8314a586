"""Cheap draws from keys, shared by the envs."""

from __future__ import annotations

import jax
import jax.numpy as jnp

__all__ = ["key_coin"]

Array = jax.Array


def key_coin(key) -> Array:
    """A fair coin (int32 0 or 1) drawn from `key`: a murmur3 finaliser over the key's words.

    Cheaper than `jax.random.bernoulli` (one Threefry block), which matters because auto-reset
    loops run `init` at every step. Keys made by `jax.random.split`/`fold_in` have
    pseudo-random words; consecutive seeds (`key(0)`, `key(1)`, ...) are mixed by the finaliser.
    """
    words = jax.random.key_data(key).astype(jnp.uint32).reshape(-1)
    h = jnp.uint32(0x9E3779B9)
    for i in range(words.shape[0]):
        h = h ^ words[i]
        h = (h ^ (h >> 16)) * jnp.uint32(0x85EBCA6B)
        h = (h ^ (h >> 13)) * jnp.uint32(0xC2B2AE35)
        h = h ^ (h >> 16)
    return (h >> 31).astype(jnp.int32)
