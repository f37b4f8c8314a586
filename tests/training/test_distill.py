"""Distillation (training/distill.py): the data are labelled with the teacher's actions, the
trained network plays the teacher's action on held-out decisions where an untrained one does
not, and the result is an ordinary PPO checkpoint."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from holdemjax.training import distill, panel, ppo, push_fold
from holdemjax.training import evaluate as ev

TEACHER = np.array([push_fold.ALWAYS] * 4 + [67] * 8, np.int32)  # heads-up: all; else KK+
SMALL = dict(env_id="certify", hidden=(64,), bots=("baseline", "passive"), tables=96,
             steps=96, test_tables=64, batch=512, learning_rate=3e-3, seed=1)
# The collector distill runs for SMALL (training and held-out tables in one batch): the tests'
# own collections use it too, one compiled program for all.
COLLECT = dict(bots=SMALL["bots"], tables=SMALL["tables"] + SMALL["test_tables"],
               steps=SMALL["steps"])
ROWS = COLLECT["tables"] * COLLECT["steps"]


@pytest.fixture(scope="module")
def trained():
    return distill.distill(TEACHER, config=distill.DistillConfig(updates=1500, **SMALL))


def test_the_labels_are_the_teachers_actions():
    env = ev.make_env("certify")
    obs, mask, label = distill.collect(TEACHER, env, jax.random.key(5), **COLLECT)
    assert obs.shape == (ROWS, env.observation_shape[0])
    assert mask.shape == (ROWS, env.num_actions)
    assert mask[np.arange(ROWS), label].all()  # always a legal action
    passive = np.asarray(panel.passive_move(mask))
    assert (label != passive).any() and (label == passive).any()
    # The same decisions from a passive teacher: every label is the passive move.
    _, mask0, label0 = distill.collect(push_fold.PASSIVE, env, jax.random.key(5), **COLLECT)
    np.testing.assert_array_equal(label0, np.asarray(panel.passive_move(mask0)))


def test_the_network_learns_the_teachers_play(trained):
    info = trained.info
    assert info["agreement"] >= 0.99, info
    assert info["test_not_passive"] >= 20 and info["agreement_not_passive"] >= 0.6, info
    # An untrained network (one update) does not: the measure can fail.
    untrained = distill.distill(TEACHER, config=distill.DistillConfig(updates=1, **SMALL))
    assert untrained.info["agreement_not_passive"] < 0.5, untrained.info
    assert untrained.info["test_decisions"] == info["test_decisions"]


def test_the_result_is_a_ppo_checkpoint_that_plays_greedily_as_taught(trained, tmp_path):
    path = distill.save(tmp_path / "c.msgpack", trained, note="test")
    params, config = ppo.load_checkpoint(path)
    assert config.env_id == "certify" and config.hidden == (64,)
    info = ppo.checkpoint_info(path)
    assert info["teacher"] == TEACHER.tolist() and info["note"] == "test"
    # New decisions (key 9) from the first test's collector (one compiled program for both;
    # the zero-sum option of the checkpoint's env changes rewards, not observations).
    obs, mask, label = distill.collect(TEACHER, ev.make_env(config.env_id), jax.random.key(9),
                                       **COLLECT)
    act = ppo.policy(config, greedy=True)

    class S:  # the fields ppo.policy reads
        def __init__(self, o, m):
            self.observation, self.legal_action_mask = o, m

    picks = np.asarray(jax.vmap(lambda o, m: act(params, S(o, m), None))(
        jnp.asarray(obs), jnp.asarray(mask)))
    assert (picks == label).mean() >= 0.99
