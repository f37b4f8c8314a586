"""Per-player generalized advantage estimation over a rollout of many-player tables (the PPO
trainer's advantages, `holdemjax.training.ppo_trainer`).

A decision's return runs to the same player's next decision, or to the end of its episode
(``end``: the tournament, or the hand with objective "hand"): GAE with ``gamma`` and ``lam``
over each player's own decisions. At a ``cut`` (a hand's end with objective "hand-td") the later
advantages stop flowing back while the values still bootstrap. A decision with neither a
successor nor an end in the rollout is not trained on; its value still bootstraps the earlier.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

__all__ = ["per_player_gae"]


def per_player_gae(traj, gamma: float, lam: float):
    """``(adv # [T, B], train # [T, B] bool)`` of a rollout ``traj`` (time-major fields
    ``end``, ``cut``, ``learn`` ``# [T, B]``; ``shaped`` ``# [T, B, N]`` rewards by player id;
    ``actor`` ``# [T, B]`` the player id that decided; ``value`` ``# [T, B]``), computed
    backwards in time with one `lax.scan`."""
    B, n = traj.shaped.shape[1:]
    zeros = jnp.zeros((B, n), jnp.float32)

    def back(carry, tr):
        next_value, next_adv, reward, known = carry
        d = tr.end[:, None]
        # An episode ended here: what follows in the rollout is another one.
        next_value = jnp.where(d, 0.0, next_value)
        # A cut: the next hand's value bootstraps this one's return, its advantages do not
        # flow back.
        next_adv = jnp.where(d | tr.cut[:, None], 0.0, next_adv)
        reward = jnp.where(d, tr.shaped, reward + tr.shaped)
        known = known | d
        mine = (jnp.arange(n) == tr.actor[:, None]) & tr.learn[:, None]  # [B, N]
        pick = lambda x: (x * mine).sum(1)
        has_next = (known & mine).any(1)
        delta = pick(reward) + gamma * pick(next_value) - tr.value
        adv = jnp.where(has_next, delta + gamma * lam * pick(next_adv), 0.0)
        next_value = jnp.where(mine, tr.value[:, None], next_value)
        next_adv = jnp.where(mine, adv[:, None], next_adv)
        reward = jnp.where(mine, 0.0, reward)
        known = known | mine
        return (next_value, next_adv, reward, known), (adv, tr.learn & has_next)

    init = (zeros, zeros, zeros, jnp.zeros((B, n), bool))
    _, (adv, train) = jax.lax.scan(back, init, traj, reverse=True)
    return adv, train
