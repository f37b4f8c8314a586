"""A hint for XLA's CPU fusion: compute a value once and keep it in memory.

XLA fuses a chain of cheap elementwise ops into each of its consumers and recomputes it there,
once per consumer and per element of a broadcast. When a costly chain (a hand's strength, a
sampled action) feeds a consumer that reads it many times (seat against seat, an action
compared with every cell of a board), that recomputation costs more than the chain itself.
`compute_once` stops it: a while loop's operand is a buffer, so the value is computed once; the
loop runs one trip (its trip count is read from the data, so XLA cannot remove the loop) and
returns the value unchanged.

The other ways to stop that fusion cost more here: a reduction (``jnp.stack([x, 0]).sum(0)``)
keeps XLA from vectorizing the loop that computes ``x`` (several times slower for the evaluator
in a profile; no results file), and
``lax.optimization_barrier`` does not stop the fusion at all.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

__all__ = ["compute_once"]


def compute_once(x: jax.Array) -> jax.Array:
    """``x`` (an integer or bool array) unchanged, computed once and stored."""
    x = jnp.asarray(x)
    if x.size == 0:
        return x
    if not (jnp.issubdtype(x.dtype, jnp.integer) or x.dtype == jnp.bool_):
        raise TypeError(f"compute_once takes integer or bool arrays, got {x.dtype}")
    once = (x.reshape(-1)[0].astype(jnp.int32) | 1) & 1  # 1, read from the data

    def body(c):
        i, _, value = c
        return i + 1, value, value

    return jax.lax.while_loop(lambda c: c[0] < once, body,
                              (jnp.int32(0), jnp.zeros_like(x), x))[1]
