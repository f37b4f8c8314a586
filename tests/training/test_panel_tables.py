"""Panel tables in PPO training (issue 20: opponents sampled from the panel): at a panel table the
ids the learner does not control play one bot of ``Config.panel_bots`` for the whole tournament
(docs/training.md, "Tables and opponents"), the bot drawn per tournament; the config names a
bad bot; a run without panel tables draws its tables as before (the tiny run's recorded
fingerprint in test_ppo.py covers that)."""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from holdemjax.poker.actions import CHECK_CALL, FOLD
from holdemjax.training import ppo

CONFIG = ppo.Config(num_tables=8, rollout_steps=12, iterations=1, epochs=1, minibatches=1,
                    hidden=(8,), opp_self=0.0, opp_pool=0.0, opp_baseline=0.0, opp_panel=1.0,
                    panel_bots=("passive", "allin"), seed=2)


def test_panel_tables_seat_the_drawn_bot_for_the_tournament():
    trainer = ppo.Trainer(CONFIG)
    ts = trainer.init(jax.random.key(4))
    setup = ts.setup
    assert (np.asarray(setup.kind) == ppo.TABLE_KINDS.index("panel")).all()
    # Force both bots into the batch: even tables passive (0), odd tables all-in (1).
    bot = jnp.arange(CONFIG.num_tables, dtype=jnp.int32) % 2
    ts = ts._replace(setup=setup._replace(bot_index=bot))
    _, traj = jax.jit(trainer._rollout)(ts)
    action, mask = np.asarray(traj.action), np.asarray(traj.mask)
    learn, done = np.asarray(traj.learn), np.asarray(traj.done)
    controller = np.asarray(traj.controller)
    all_in = trainer.env.menu.ALL_IN
    # Decisions before the table's first tournament ended belong to the forced setup.
    first = np.cumsum(done, axis=0) - done == 0
    checked = {0: 0, 1: 0}
    for t, b in zip(*np.nonzero(first & ~learn)):
        assert controller[t, b][np.asarray(traj.actor)[t, b]] == ppo.PANEL
        m = mask[t, b]
        if b % 2 == 0:  # passive: fold when facing a bet, else check
            want = FOLD if m[FOLD] else CHECK_CALL
        else:  # all-in whenever legal, else check/call
            want = all_in if m[all_in] else CHECK_CALL
        assert action[t, b] == want, (t, b, action[t, b], m)
        checked[b % 2] += 1
    assert min(checked.values()) >= 5, checked
    # A learner sits at every table; its decisions are the ones trained on.
    assert learn.any()


def test_new_panel_tournaments_draw_their_bot_from_the_list():
    trainer = ppo.Trainer(CONFIG)
    draws = jax.jit(jax.vmap(trainer._draw_setup, in_axes=(0, None)))(
        jax.random.split(jax.random.key(9), 400), jnp.int32(1))
    counts = np.bincount(np.asarray(draws.bot_index), minlength=2)
    assert counts.sum() == 400 and counts.min() > 150, counts  # about half each
    ctrl = np.asarray(draws.controller)
    assert ((ctrl == ppo.LEARNER).sum(1) == CONFIG.learners).all()
    assert ((ctrl == ppo.PANEL).sum(1) == 6 - CONFIG.learners).all()


def test_a_shipped_trained_policy_plays_its_panel_tables_by_name():
    """``panel_bots`` may name a shipped trained policy (``example``: `ppo.TRAINED_BOTS`); at
    its tables the ids the learner does not control play that checkpoint's sampled action, as
    the evaluation panel's opponent of the same name does (same state, same key)."""
    from holdemjax.training import panel

    config = dataclasses.replace(CONFIG, num_tables=16, rollout_steps=1, panel_bots=("example",))
    trainer = ppo.Trainer(config)
    ts = trainer.init(jax.random.key(5))
    _, traj = jax.jit(trainer._rollout)(ts)
    bot = panel.opponent("example", trainer.env)
    want = np.asarray(jax.jit(jax.vmap(bot))(ts.env_state, ts.setup.bot_key))
    others = ~np.asarray(traj.learn)[0]
    assert others.sum() >= 8  # the learner holds one id of six: most first decisions are bots'
    np.testing.assert_array_equal(np.asarray(traj.action)[0][others], want[others])


@pytest.mark.parametrize("bots", [(), ("passive", "nobody"), "passive"])
def test_bad_panel_bots_are_named(bots):
    with pytest.raises(ValueError, match="panel_bots"):
        ppo.Config(panel_bots=bots)


def test_the_cli_takes_panel_tables():
    args = ppo._parser().parse_args(["--opp-panel", "0.5", "--panel-bots", "beginner",
                                     "advanced"])
    assert (args.opp_panel, args.panel_bots) == (0.5, ["beginner", "advanced"])
    config = ppo.Config.from_dict(ppo.Config().to_dict() | {"panel_bots": ["allin"]})
    assert config.panel_bots == ("allin",)


def test_a_linear_learning_rate_falls_to_zero_at_the_last_update():
    """``lr_schedule="linear"`` (docs/training.md, options): adam's step size starts at
    ``learning_rate`` and falls linearly to 0 over the run's updates (iterations x epochs
    x minibatches); ``constant`` keeps it."""
    def updates(schedule):
        config = ppo.Config(num_tables=8, rollout_steps=4, iterations=3, epochs=2,
                            minibatches=2, lr_schedule=schedule, opp_baseline=1.0)
        tx = ppo.Trainer(config).tx
        params = {"w": jnp.ones(3)}
        state, out = tx.init(params), []
        for _ in range(config.iterations * config.epochs * config.minibatches + 1):
            u, state = tx.update({"w": jnp.full(3, 0.1)}, state, params)
            out.append(float(jnp.abs(u["w"]).max()))
        return out

    constant, linear = updates("constant"), updates("linear")
    assert linear[0] == pytest.approx(constant[0])  # the first step at learning_rate
    assert linear[-1] == 0.0 < constant[-1]  # the 13th update is past the run's 12
    assert all(a >= b for a, b in zip(linear, linear[1:]))  # falling all the way
    with pytest.raises(ValueError, match="lr_schedule"):
        ppo.Config(lr_schedule="cosine")


def test_the_passive_prior_starts_near_the_passive_bot():
    """``prior="passive"`` (docs/training.md, options): the first policy folds with
    probability ~0.9 when facing a bet and checks with ~0.9 when checking is free; the default
    ``uniform`` starts near uniform over the legal actions."""
    env = ppo.make_env(ppo.Config(hidden=(8,)))  # the prior does not change the env
    # the first decision of a hand faces the big blind ...
    facing = jax.jit(jax.vmap(env.init))(jax.random.split(jax.random.key(3), 64))
    assert bool(facing.legal_action_mask[:, FOLD].all())
    # ... and checking is free for the big blind after everyone calls (every id calls or checks)
    step = jax.jit(jax.vmap(env.step))  # one compile for the loop
    s = facing
    for _ in range(6):
        free = ~s.legal_action_mask[:, FOLD] & ~s.terminated
        if bool(free.any()):
            break
        s = step(s, jnp.full(64, CHECK_CALL, jnp.int32))
    assert bool(free.any())

    def first_probs(prior):
        config = ppo.Config(hidden=(8,), prior=prior)
        params = ppo.make_network(config, env).init(jax.random.key(0), jnp.zeros(226))
        probs = jax.jit(jax.vmap(ppo.action_probs(config), (None, 0)))
        return np.asarray(probs(params, facing)), np.asarray(probs(params, s))[np.asarray(free)]

    bet, check = first_probs("passive")  # facing a bet; checking free
    assert (bet[:, FOLD] > 0.85).all() and (check[:, CHECK_CALL] > 0.85).all()
    bet, check = first_probs("uniform")
    assert bet.max() < 0.2 and check.max() < 0.2
    assert ppo._parser().parse_args(["--prior", "passive"]).prior == "passive"
    with pytest.raises(ValueError, match="prior"):
        ppo.Config(prior="tight")
    old = ppo.Config().to_dict()
    del old["prior"]  # a checkpoint from before the option: the uniform start it had
    assert ppo.Config.from_dict(old).prior == "uniform"
