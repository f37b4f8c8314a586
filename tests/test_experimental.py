"""holdemjax.experimental: act_randomly and auto_reset give what their definitions say."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import holdemjax
from holdemjax.experimental import act_randomly, auto_reset


def _reference_act(key, mask):
    """The definition: k = floor(u * count) with u = jax.random.uniform, the k-th legal action
    by argmax over the running count (0 for a row with no legal action)."""
    count = mask.sum(axis=-1, keepdims=True, dtype=jnp.int32)
    u = jax.random.uniform(key, count.shape)
    k = jnp.minimum(jnp.floor(u * count).astype(jnp.int32), count - 1)
    return jnp.argmax(jnp.cumsum(mask, axis=-1, dtype=jnp.int32) > k, axis=-1).astype(jnp.int32)


@pytest.mark.parametrize("shape", [(9,), (16, 122), (8, 600), (2, 3, 37)])
def test_act_randomly_is_the_kth_legal_action(shape):
    # 600 actions go through the block-by-block search (more than 512).
    ours, ref = jax.jit(act_randomly), jax.jit(_reference_act)
    for i, p in enumerate((0.0, 0.01, 0.3, 1.0)):
        k_mask, k_act = jax.random.split(jax.random.fold_in(jax.random.key(1), i))
        mask = jax.random.uniform(k_mask, shape) < p
        a = np.asarray(ours(k_act, mask))
        np.testing.assert_array_equal(a, np.asarray(ref(k_act, mask)))
        assert a.dtype == np.int32 and a.shape == shape[:-1]
        legal = np.take_along_axis(np.asarray(mask).reshape(-1, shape[-1]),
                                   a.reshape(-1, 1), axis=1)[:, 0]
        has_legal = np.asarray(mask).reshape(-1, shape[-1]).any(axis=1)
        assert (legal | ~has_legal).all() and (a.reshape(-1)[~has_legal] == 0).all()


def test_auto_reset_uses_the_two_halves_of_split():
    env = holdemjax.make("tic_tac_toe")
    wrapped = jax.jit(jax.vmap(auto_reset(env.step, env.init)))

    def reference(state, action, key):  # the definition, with jax.random.split
        k_step, k_init = jax.random.split(key)
        state = state.replace(terminated=jnp.bool_(False), truncated=jnp.bool_(False))
        state = env.step(state, action, k_step)
        new = env.init(k_init).replace(rewards=state.rewards, terminated=state.terminated,
                                       truncated=state.truncated)
        return jax.tree.map(lambda a, b: jnp.where(state.terminated, a, b), new, state)

    reference = jax.jit(jax.vmap(reference))
    batch = 64
    state = jax.vmap(env.init)(jax.random.split(jax.random.key(2), batch))
    other = state
    key = jax.random.key(3)
    ended = 0
    for _ in range(12):
        key, k_act, k_step = jax.random.split(key, 3)
        action = act_randomly(k_act, state.legal_action_mask)
        keys = jax.random.split(k_step, batch)
        state, other = wrapped(state, action, keys), reference(other, action, keys)
        for a, b in zip(jax.tree.leaves(state), jax.tree.leaves(other)):
            np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
        ended += int(state.terminated.sum())
    assert ended > 0  # some games ended and were reset
