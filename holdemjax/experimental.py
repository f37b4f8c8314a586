"""Helpers in the spirit of pgx.experimental: auto-reset and random legal actions."""

from __future__ import annotations

from typing import Callable

import jax
import jax.numpy as jnp

from holdemjax.api import State
from holdemjax.sparse import sparse_cond

__all__ = ["auto_reset", "act_randomly"]


def act_randomly(key: jax.Array, legal_action_mask: jax.Array) -> jax.Array:
    """A uniform random legal action; `legal_action_mask` is `[..., num_actions]` bool.

    Returns int32 `[...]`. One uniform draw per row picks the k-th legal action (cheaper than
    a Gumbel draw per action, which matters when the env step itself is cheap). A row with no
    legal action returns 0.
    """
    mask = jnp.asarray(legal_action_mask, bool)
    count = mask.sum(axis=-1, keepdims=True, dtype=jnp.int32)
    u = jax.random.uniform(key, count.shape)
    k = jnp.minimum(jnp.floor(u * count).astype(jnp.int32), count - 1)
    return jnp.argmax(jnp.cumsum(mask, axis=-1, dtype=jnp.int32) > k, axis=-1).astype(jnp.int32)


def auto_reset(
    step_fn: Callable[[State, jax.Array, jax.Array], State],
    init_fn: Callable[[jax.Array], State],
) -> Callable[[State, jax.Array, jax.Array], State]:
    """Wrap `step_fn` so that a finished game starts over from `init_fn`.

    `wrapped(state, action, key)` splits `key` in two: one for the step, one for the new game.
    When the step ends the game, the returned state is the new game's first state but keeps the
    finished step's `rewards`, `terminated` and `truncated` (so returns can be collected); the
    final observation is lost, as in pgx. Works unbatched; `vmap` it for batches.
    """

    def wrapped(state: State, action: jax.Array, key: jax.Array) -> State:
        k_step, k_init = jax.random.split(key)
        state = state.replace(
            terminated=jnp.bool_(False), truncated=jnp.bool_(False)
        )
        state = step_fn(state, action, k_step)
        # Under vmap only the rows that ended compute a new game (see holdemjax.sparse).
        return sparse_cond(
            state.terminated | state.truncated,
            lambda s: init_fn(k_init).replace(rewards=s.rewards, terminated=s.terminated,
                                              truncated=s.truncated),
            state,
        )

    return wrapped
