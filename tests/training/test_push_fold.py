"""The push/fold family (training/push_fold.py): all zeros is the passive bot, each threshold
acts in its own spot only and exactly at its bound, all-in when offered else a call, passive
after the flop."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from holdemjax.bots import baseline
from holdemjax.poker.actions import CHECK_CALL, FOLD
from holdemjax.training import evaluate as ev
from holdemjax.training import panel, push_fold

ENV = ev.make_env("sng-6")
ACT = push_fold.policy(ENV)
PASSIVE_BOT = panel.opponent("passive", ENV)


@pytest.fixture(scope="module")
def states():
    """Decision states of six-baseline tournaments (every street, every player count: the
    tournaments run to their end), flattened to one batch of live decisions."""
    tables, steps = 48, 400
    act = jax.vmap(lambda s, k: baseline.act(ENV, s, k))

    @jax.jit
    def run(key):
        s0 = jax.vmap(ENV.init)(jax.random.split(key, tables))
        keys = jax.vmap(lambda k: jax.random.key_data(k))(jax.random.split(key, tables))

        def body(s, _):
            live = ~(s.terminated | s.truncated)
            nxt = jax.vmap(ENV.step)(s, act(s, keys))
            return nxt, (s, live)

        _, (hist, live) = jax.lax.scan(body, s0, None, length=steps)
        return hist, live

    hist, live = run(jax.random.key(3))
    flat = jax.tree.map(lambda x: x.reshape((-1,) + x.shape[2:]), hist)
    idx = np.flatnonzero(np.asarray(live).reshape(-1))
    return jax.tree.map(lambda x: x[idx], flat)


@jax.jit
def facts(states):
    """(spot, top, preflop, all-in legal) of each decision, from the baseline's features."""
    _, top_np = baseline.load_preflop()

    def one(s):
        f = baseline.features(ENV.decision(s))
        top = jnp.asarray(top_np)[baseline.hand_class(f["hole"])]
        return push_fold.spot(f), top, f["street"] == 0, s.legal_action_mask[ENV.menu.ALL_IN]

    return jax.vmap(one)(states)


_PLAY = jax.jit(jax.vmap(ACT, in_axes=(None, 0, 0)))  # one program per batch size


def play(params, states):
    key = jnp.zeros((len(states.current_player), 2), jnp.uint32)
    return np.asarray(_PLAY(jnp.asarray(params, jnp.int32), states, key))


def test_all_zero_thresholds_are_the_passive_bot(states):
    key = jnp.zeros((len(states.current_player), 2), jnp.uint32)
    passive = np.asarray(jax.jit(jax.vmap(PASSIVE_BOT))(states, key))
    np.testing.assert_array_equal(play(push_fold.PASSIVE, states), passive)


def test_every_hand_shoves_before_the_flop_and_nothing_after(states):
    spot, top, pre, allin_ok = map(np.asarray, facts(states))
    acts = play(np.full(push_fold.NUM_PARAMS, push_fold.ALWAYS), states)
    passive = np.where(np.asarray(states.legal_action_mask)[:, FOLD], FOLD, CHECK_CALL)
    assert pre.any() and (~pre).any()
    # Pre-flop: the all-in when the menu offers it, else the call (an all-in short of a raise).
    np.testing.assert_array_equal(acts[pre], np.where(allin_ok, ENV.menu.ALL_IN,
                                                      CHECK_CALL)[pre])
    assert (~allin_ok[pre]).any(), "no pre-flop decision without a legal all-in was sampled"
    np.testing.assert_array_equal(acts[~pre], passive[~pre])


def test_spots_cover_every_player_count_situation_and_depth(states):
    spot, _, pre, _ = map(np.asarray, facts(states))
    seen = set(spot[pre].tolist())
    assert seen == set(range(push_fold.NUM_PARAMS)), sorted(seen)
    assert len(push_fold.spot_names()) == push_fold.NUM_PARAMS


def test_each_threshold_acts_in_its_own_spot_exactly_at_its_bound(states):
    """Per spot s: threshold = the hand's own top shoves it, top - 1 does not; the same
    threshold in every other spot leaves the decision passive."""
    spot, top, pre, _ = map(np.asarray, facts(states))
    passive = play(push_fold.PASSIVE, states)
    for s in range(push_fold.NUM_PARAMS):
        for row in np.flatnonzero(pre & (spot == s))[:4]:
            one = jax.tree.map(lambda x, row=row: x[row:row + 1], states)
            at = np.array(push_fold.PASSIVE)
            at[s] = top[row]
            below = at.copy()
            below[s] = top[row] - 1
            others = np.full(push_fold.NUM_PARAMS, push_fold.ALWAYS)
            others[s] = push_fold.NEVER
            assert play(at, one)[0] != passive[row], (s, row)
            assert play(below, one)[0] == passive[row], (s, row)
            assert play(others, one)[0] == passive[row], (s, row)


def test_describe_names_the_range():
    params = np.array(push_fold.PASSIVE)
    params[0], params[1] = push_fold.ALWAYS, 67
    text = push_fold.describe(params)
    names = push_fold.spot_names()
    assert text[names[0]] == "every hand"
    assert text[names[1]] == "top 0.67 % (AA .. KK)"
    assert text[names[2]] == "never"
    assert push_fold.class_name(baseline.hand_class(jnp.array([51, 47]))) == "AKs"
    assert push_fold.class_name(baseline.hand_class(jnp.array([0, 5]))) == "32o"
