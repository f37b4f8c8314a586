"""AIVAT's chance term under a value of whole states (`holdemjax.luck`, docs/luck.md): the
learned value (a critic) as the value function.

Every env of the suite splits a step at its chance event (`holdemjax.api.Env`:
`step_deterministic`, `chance_outcomes`, `chance_step`; in the hold'em envs the first board card
the step shows). For any value of states ``value(state) -> # [N]`` by player id, the term of
``next_state = env.step(state, action)`` is

    value(next_state) - sum_c P(c) value(chance_step(step_deterministic(state, action), c))

Its mean is zero given everything before the step, whatever ``value`` is: ``step`` is, in
distribution, `chance_step` of the afterstate with ``c`` drawn from `chance_outcomes` (the
env's contract, tested per env), so the sum is the expectation of the first part. With
``samples`` the sum is a mean over that many outcomes drawn from `chance_outcomes` with
``key`` (still unbiased: the draws are independent of the cards when the key is). A step
without a chance event has no term (zero).

The value can be anything of the state: the PPO critic on each player's observation
(`holdemjax.training.ppo_checkpoint.state_value`), a rollout, a table. Its quality decides only
how much luck the terms take out, never their mean.
"""

from __future__ import annotations

from collections.abc import Callable

import jax
import jax.numpy as jnp

from holdemjax.sparse import sparse_cond
from holdemjax.validate import require_int

__all__ = ["StateValue", "chance_term"]

#: ``value(state) -> # [N] float32`` by player id: a value of whole (unbatched) states.
StateValue = Callable[[object], jax.Array]


def chance_term(env, value: StateValue, state, action, next_state, key=None,
                samples: int | None = None) -> jax.Array:
    """``# [N] float32`` by player id: the luck of the chance event of ``env.step(state,
    action)`` (= ``next_state``) under ``value``: ``value(next_state)`` less its expectation over
    the chance outcomes (every outcome weighed by `chance_outcomes`, or ``samples`` of them drawn
    with ``key``). Zero where the step has no chance event or ``state`` was already over. Pure
    and vmap-able; under ``vmap`` only the rows with a chance event compute the outcomes
    (`holdemjax.sparse.sparse_cond`)."""
    if samples is not None:
        require_int("samples", samples, 1, what="an int >= 1 or None")
    if samples is not None and key is None:
        raise ValueError("chance_term: samples need a key (address it by game and step)")
    after = env.step_deterministic(state, action)
    probs = env.chance_outcomes(after)
    has_chance = (probs.max() < 1.0) & ~(state.terminated | state.truncated)
    actual = jnp.asarray(value(next_state), jnp.float32)

    def term(_):
        if samples is None:
            outcomes = jnp.arange(probs.shape[0])
            weights = probs
        else:
            outcomes = jax.random.choice(key, probs.shape[0], (samples,), p=probs)
            weights = jnp.full((samples,), 1.0 / samples, jnp.float32)
        values = jax.vmap(lambda o: value(env.chance_step(after, o)))(outcomes)
        # outcomes of probability zero (a card a seat holds) weigh nothing, whatever they hold
        values = jnp.where(weights[:, None] > 0, jnp.asarray(values, jnp.float32), 0.0)
        return actual - weights @ values

    return sparse_cond(has_chance, term, jnp.zeros_like(actual))
