"""The actor-critic network of `holdemjax.training.ppo` (Flax linen) and its input features.

The network sees only a player's observation (`holdemjax.envs.sng_obs`, 226 floats for six
seats). Before the MLPs, `features` adds quantities computed from that observation alone, so the
policy stays a function of what the player sees, but does not have to learn card arithmetic from
52-hot vectors in a few minutes of CPU training:

* the observation itself, squashed by ``sign(x) * log1p(|x|)`` (chip counts in big blinds run
  from 0 to a few hundred; flags and fractions stay nearly where they are);
* the pre-flop class of the hole cards looked up in the baseline's shipped table
  (`holdemjax.bots.baseline.load_preflop`): equity against 1..5 random hands and the strength
  percentile ``top``, as fractions;
* after the flop, the category of the best five of hole + visible board (one-hot over the nine
  categories of `holdemjax.poker.evaluator`), and the largest rank and suit counts of the board
  alone and of hole + board (pairs on board, flush draws).

`masked_logits` applies the legal mask: masked actions get a large negative logit, so their
probability is exactly 0 in float32 (``exp(-1e9 - max) == 0``) and they are never sampled, while
entropies and log-probabilities stay finite.
"""

from __future__ import annotations

from collections.abc import Sequence

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np

from holdemjax.bots import baseline
from holdemjax.envs import sng_obs
from holdemjax.poker import evaluator as ev

__all__ = ["MASKED_LOGIT", "ActorCritic", "features", "masked_logits", "num_features"]

#: Logit given to masked actions (finite, so that 0 * logit stays 0 in entropies).
MASKED_LOGIT = -1e9


def masked_logits(logits: jax.Array, mask: jax.Array) -> jax.Array:
    """``logits`` with the illegal actions (``mask`` False) set to `MASKED_LOGIT`."""
    return jnp.where(mask, logits, MASKED_LOGIT)


def _top_cards(hot: jax.Array, k: int) -> jax.Array:
    """The ids ``# [M, k]`` of the ``k`` largest entries of multi-hot card vectors ``# [M, 52]``
    (marked cards first, in decreasing id order; ties among unmarked ones in any order)."""
    return jax.lax.top_k(hot, k)[1].astype(jnp.int32)


def _count_features(cards: jax.Array, seen: jax.Array) -> tuple[jax.Array, jax.Array]:
    """(largest rank count, largest suit count) ``# [M]`` among the ``seen`` cards of
    ``cards # [M, k]``."""
    ranks = (((cards // 4)[..., None] == jnp.arange(13)) & seen[..., None]).sum(-2)
    suits = (((cards % 4)[..., None] == jnp.arange(4)) & seen[..., None]).sum(-2)
    return ranks.max(-1), suits.max(-1)


def _features_rows(obs: jax.Array, lay: sng_obs.Layout) -> jax.Array:
    """`features` of a batch of observations ``# [M, OBS]``."""
    equity_np, top_np = baseline.load_preflop()
    board_hot = obs[:, lay["BOARD"]]
    shown = board_hot.sum(-1).astype(jnp.int32)  # 0, 3, 4 or 5 visible board cards
    # The barrier keeps XLA from fusing the two sorts into every consumer of the card ids
    # (which recomputed them once per use: the same results, several times slower).
    hole, board = jax.lax.optimization_barrier(
        (_top_cards(obs[:, lay["HOLE"]], 2), _top_cards(board_hot, 5)))  # visible ones first
    cls = baseline.hand_class(hole)
    pre = jnp.concatenate([jnp.asarray(equity_np, jnp.float32)[cls] * 1e-4,
                           jnp.asarray(top_np, jnp.float32)[cls][:, None] * 1e-4], -1)
    # Best five of hole + visible board: 5, 6 or 7 cards (the evaluator takes a static count).
    seven = jnp.concatenate([hole, board], -1)
    strengths = jnp.stack([ev.evaluate(seven[:, :5]), ev.evaluate(seven[:, :6]),
                           ev.evaluate(seven)], -1)
    strength = jnp.take_along_axis(strengths, jnp.clip(shown - 3, 0, 2)[:, None], -1)[:, 0]
    postflop = shown >= 3
    cat = jnp.where(postflop, ev.category(strength), -1)
    cat_hot = (jnp.arange(ev.NUM_CATEGORIES) == cat[:, None]).astype(jnp.float32)
    visible = jnp.arange(5) < shown[:, None]
    b_rank, b_suit = _count_features(board, visible)
    a_rank, a_suit = _count_features(seven, jnp.concatenate(
        [jnp.ones(hole.shape, bool), visible], -1))
    counts = jnp.stack([b_rank, b_suit, a_rank, a_suit], -1).astype(jnp.float32) * 0.2
    squashed = jnp.sign(obs) * jnp.log1p(jnp.abs(obs))
    return jnp.concatenate([squashed, pre, cat_hot, counts * postflop[:, None]], -1)


def features(obs: jax.Array, num_seats: int = 6) -> jax.Array:
    """The network input ``# [..., num_features(num_seats)] float32`` of observations
    ``# [..., OBS]`` of a hold'em table env with ``num_seats`` seats (see the module doc)."""
    lay = sng_obs.layout(num_seats)
    if obs.shape[-1] != lay.size:
        raise ValueError(f"observation size {obs.shape[-1]} does not match {num_seats} seats "
                         f"(expected {lay.size})")
    out = _features_rows(obs.reshape(-1, lay.size), lay)
    return out.reshape(obs.shape[:-1] + (out.shape[-1],))


def num_features(num_seats: int = 6) -> int:
    """Width of `features` for a table of ``num_seats``."""
    return sng_obs.layout(num_seats).size + 6 + ev.NUM_CATEGORIES + 4


class ActorCritic(nn.Module):
    """Separate actor and critic MLPs over `features` of the observation.

    ``__call__(obs) -> (logits # [..., num_actions], value # [...])``; the logits are not
    masked (apply `masked_logits`). The value estimates the player's zero-sum tournament score.
    """

    num_actions: int
    hidden: Sequence[int] = (128, 128)
    num_seats: int = 6
    #: initial bias of the actor's logits, one per action (empty: zeros, a near-uniform start)
    prior_logits: Sequence[float] = ()

    def __call__(self, obs: jax.Array) -> tuple[jax.Array, jax.Array]:
        return self.heads(features(obs, self.num_seats))

    @nn.compact
    def heads(self, x: jax.Array) -> tuple[jax.Array, jax.Array]:
        """``(logits, value)`` of `features` ``x`` (what `__call__` computes from the
        observation; a trainer that keeps the features calls this, ``method="heads"``)."""

        def torso(name):
            h = x
            for i, width in enumerate(self.hidden):
                h = nn.Dense(width, kernel_init=nn.initializers.orthogonal(np.sqrt(2)),
                             name=f"{name}_{i}")(h)
                h = nn.tanh(h)
            return h

        # Small initial weights: the first policy is the softmax of the bias over the legal
        # actions (near uniform, or the prior's).
        bias = (nn.initializers.zeros if not self.prior_logits
                else lambda *_: jnp.asarray(self.prior_logits, jnp.float32))
        logits = nn.Dense(self.num_actions, kernel_init=nn.initializers.orthogonal(0.01),
                          bias_init=bias, name="actor_out")(torso("actor"))
        value = nn.Dense(1, kernel_init=nn.initializers.orthogonal(0.1),
                         name="critic_out")(torso("critic"))[..., 0]
        return logits, value
