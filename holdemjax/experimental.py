"""Helpers in the spirit of pgx.experimental: auto-reset and random legal actions."""

from __future__ import annotations

from typing import Callable

import jax
import jax.numpy as jnp

from holdemjax import threefry
from holdemjax.api import State
from holdemjax.sparse import sparse_cond

__all__ = ["auto_reset", "act_randomly"]


def act_randomly(key: jax.Array, legal_action_mask: jax.Array) -> jax.Array:
    """A uniform random legal action; `legal_action_mask` is `[..., num_actions]` bool.

    Returns int32 `[...]`. One uniform draw per row picks the k-th legal action (cheaper than
    a Gumbel draw per action, which matters when the env step itself is cheap), the bits of
    ``jax.random.uniform(key, ...)`` computed with the hash unrolled (`holdemjax.threefry`). A
    row with no legal action returns 0.
    """
    mask = jnp.asarray(legal_action_mask, bool)
    count = mask.sum(axis=-1, keepdims=True, dtype=jnp.int32)
    u = threefry.uniform(key, count.shape)
    k = jnp.minimum(jnp.floor(u * count).astype(jnp.int32), count - 1)
    return jnp.argmax(jnp.cumsum(mask, axis=-1, dtype=jnp.int32) > k, axis=-1).astype(jnp.int32)


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
        state = step_fn(state, action, threefry.split_at(key, 0))
        # Under vmap only the rows that ended compute a new game (see holdemjax.sparse).
        return sparse_cond(
            state.terminated | state.truncated,
            lambda s: init_fn(threefry.split_at(key, 1)).replace(
                rewards=s.rewards, terminated=s.terminated, truncated=s.truncated),
            state,
        )

    return wrapped
