"""PPO with the luck taken out of its advantages (``Config.luck_out``, docs/luck.md; issue 38
point 5): each decision's rewards less the luck of the step (`holdemjax.luck.step_luck`, AIVAT's
chance corrections under the tournament's value, zero in expectation given what came before), so
the returns keep their expectation and lose the cards' noise."""

from __future__ import annotations

import jax
import numpy as np
import pytest

from holdemjax import luck as holdemjax_luck
from holdemjax.training import ppo
from holdemjax.training.ppo_trainer import luck_key

CONFIG = ppo.Config(num_tables=8, rollout_steps=48, iterations=1, epochs=1, minibatches=1,
                    hidden=(8,), opp_self=0.0, opp_pool=0.0, opp_baseline=1.0, luck_out=True,
                    seed=4)


def test_luck_out_takes_each_steps_luck_out_of_the_rewards_gae_sees():
    trainer = ppo.Trainer(CONFIG)
    ts = trainer.init(jax.random.key(0))
    _, traj = jax.jit(trainer._rollout)(ts)
    traj = jax.device_get(traj)
    # without shaping, GAE's rewards are the env's rewards less the step's luck
    np.testing.assert_allclose(traj.shaped + traj.luck, traj.rewards, atol=1e-6)
    # the luck moves value between players (the ICM values of the stacks sum to the payouts)
    np.testing.assert_allclose(traj.luck.sum(-1), 0.0, atol=1e-5)
    assert (np.abs(traj.luck).max(-1) > 1e-4).mean() > 0.05  # flops, turns, rivers, deals
    # the first step's luck is step_luck of each table's state and action under the
    # tournament's luck key, by player id
    keys = jax.vmap(luck_key)(ts.setup.bot_key)
    first = jax.vmap(holdemjax_luck.step_luck, in_axes=(None, 0, 0, 0))(trainer.env, ts.env_state,
                                                             traj.action[0], keys)
    np.testing.assert_array_equal(np.asarray(first), traj.luck[0])


def test_luck_out_is_a_boolean_and_off_by_default():
    assert ppo.Config().luck_out is False
    with pytest.raises(ValueError, match="luck_out must be True or False, got 1"):
        ppo.Config(luck_out=1)


def test_a_hand_objective_takes_out_its_hands_luck_but_not_the_next_deal():
    """With objective "hand"/"hand-td" a step's luck is its board cards' (every `EVENTS` row of
    `step_luck` but the deal): the next hand's deal, dealt in the step that ends a hand, is
    not the ending hand's luck."""
    hand = ppo.Trainer(ppo.Config.from_dict(dict(CONFIG.to_dict(), objective="hand-td",
                                                 shaping="icm")))
    env, B = hand.env, 8
    states = jax.vmap(env.init)(jax.random.split(jax.random.key(3), B))
    bot_keys = jax.random.key_data(jax.random.split(jax.random.key(4), B))

    @jax.jit
    def step(states):
        action = jax.numpy.where(states.legal_action_mask[:, 0], 0, 1)  # fold, else check
        events = jax.vmap(lambda s, a, k: holdemjax_luck.step_luck(env, s, a, luck_key(k), True))(
            states, action, bot_keys)
        return jax.vmap(hand._luck)(states, action, bot_keys), events, jax.vmap(env.step)(
            states, action, jax.random.split(jax.random.key(5), B))

    deals = 0
    for _ in range(6):
        luck, events, states = step(states)
        events = np.asarray(events)
        np.testing.assert_allclose(np.asarray(luck),
                                   events.sum(1) - events[:, holdemjax_luck.DEAL_EVENT], atol=1e-7)
        deals += int((np.abs(events[:, holdemjax_luck.DEAL_EVENT]).max(-1) > 1e-4).sum())
    assert deals > 0  # hands ended and new ones were dealt: the deal row was there to leave out
