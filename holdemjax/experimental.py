"""Helpers in the spirit of pgx.experimental: auto-reset and random legal actions."""

from __future__ import annotations

from collections.abc import Callable

import jax
import jax.numpy as jnp

from holdemjax import xla
from holdemjax.api import State
from holdemjax.sparse import sparse_cond

__all__ = ["auto_reset", "act_randomly"]


def act_randomly(key: jax.Array, legal_action_mask: jax.Array) -> jax.Array:
    """A uniform random legal action; `legal_action_mask` is `[..., num_actions]` bool.

    Returns int32 `[...]`. One uniform draw per row picks the k-th legal action (cheaper than
    a Gumbel draw per action, which matters when the env step itself is cheap), the bits of
    ``jax.random.uniform(key, ...)`` computed with the hash unrolled (`holdemjax.xla`). A
    row with no legal action returns 0.
    """
    mask = jnp.asarray(legal_action_mask, bool)
    count = mask.sum(axis=-1, keepdims=True, dtype=jnp.int32)
    u = xla.uniform(key, count.shape)
    k = jnp.minimum(jnp.floor(u * count).astype(jnp.int32), count - 1)
    # Computed once (holdemjax.xla): a step compares the action with whole boards.
    return xla.compute_once(_kth_true(mask, k[..., 0]))


_ONE_LOOP = 512  # widest mask searched in one running count; wider ones go block by block
_BLOCK = 32


def _count_through(mask: jax.Array, k: jax.Array) -> tuple[jax.Array, jax.Array]:
    """(positions whose running count of True is <= k, the total count) along the last axis:
    a running count written out column by column, one fused elementwise kernel (XLA's CPU
    ``cumsum`` is a reduce-window whose cost grows with the square of the width)."""
    seen = jnp.zeros_like(k)
    below = jnp.zeros_like(k)
    for j in range(mask.shape[-1]):  # converting column by column keeps it in the one kernel
        seen = seen + mask[..., j].astype(jnp.int32)
        below = below + (seen <= k).astype(jnp.int32)
    return below, seen


def _kth_true(mask: jax.Array, k: jax.Array) -> jax.Array:
    """Index of the (k+1)-th True of each row (0 when k < 0): the position where the running
    count of True first exceeds k, i.e. the number of positions where it is still <= k (the
    count never decreases), as ``argmax(cumsum(mask) > k)`` gives it."""
    width = mask.shape[-1]
    if width <= _ONE_LOOP:
        return _count_through(mask, k)[0]
    blocks = -(-width // _BLOCK)
    pad = [(0, 0)] * (mask.ndim - 1) + [(0, blocks * _BLOCK - width)]
    m = jnp.pad(mask, pad).reshape(mask.shape[:-1] + (blocks, _BLOCK))
    per_block = m.sum(axis=-1, dtype=jnp.int32)  # [..., blocks]
    # The block holding the (k+1)-th True, and how many True come before it.
    seen = jnp.zeros_like(k)
    block = jnp.zeros_like(k)
    before = jnp.zeros_like(k)
    for b in range(blocks):
        seen = seen + per_block[..., b]
        passed = seen <= k
        block = block + passed.astype(jnp.int32)
        before = jnp.where(passed, seen, before)
    inside = jnp.take_along_axis(m, jnp.minimum(block, blocks - 1)[..., None, None], axis=-2)
    return block * _BLOCK + _count_through(inside[..., 0, :], k - before)[0]


def auto_reset(
    step_fn: Callable[[State, jax.Array, jax.Array], State],
    init_fn: Callable[[jax.Array], State],
) -> Callable[[State, jax.Array, jax.Array], State]:
    """Wrap `step_fn` so that a finished game starts over from `init_fn`.

    `wrapped(state, action, key)` splits `key` in two (``jax.random.split``): the first for the
    step, the second for the new game. When the step ends the game, the returned state is the
    new game's first state but keeps the finished step's `rewards`, `terminated` and `truncated`
    (so returns can be collected); the final observation is lost, as in pgx. Works unbatched;
    `vmap` it for batches.
    """

    def wrapped(state: State, action: jax.Array, key: jax.Array) -> State:
        state = state.replace(
            terminated=jnp.bool_(False), truncated=jnp.bool_(False)
        )
        # The two halves of split(key), each computed only where it is used: a step that
        # draws nothing leaves the first unused, and only rows that end compute the second.
        state = step_fn(state, action, xla.split_at(key, 0))
        # Under vmap only the rows that ended compute a new game (see holdemjax.sparse).
        return sparse_cond(
            state.terminated | state.truncated,
            lambda s: init_fn(xla.split_at(key, 1)).replace(
                rewards=s.rewards, terminated=s.terminated, truncated=s.truncated),
            state,
        )

    return wrapped
