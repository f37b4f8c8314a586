"""`holdemjax.training.baselines`: every entry loads and plays legal actions under jit and vmap,
the shipped push/fold entry is its checkpoint's policy, sampling draws from the given key, unknown
names are refused by name, every results file is committed, and docs/training.md's code block
runs as written."""

from __future__ import annotations

import functools
import pathlib
import re

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import holdemjax
from holdemjax.training import baselines, ppo

ROOT = pathlib.Path(__file__).resolve().parents[2]
ENV = holdemjax.make("sng-6")
BATCH = 6
NETWORKS = tuple(n for n in baselines.names() if baselines.REGISTRY[n].checkpoint)


@functools.cache
def states():
    """A batch of sng-6 states at different decisions: fresh deals and a few random steps on."""
    fresh = jax.jit(jax.vmap(ENV.init))(jax.random.split(jax.random.key(0), BATCH))

    @jax.jit
    def random_step(state, key):
        keys = jax.random.split(key, BATCH)
        acts = jax.vmap(lambda k, m: jax.random.categorical(k, jnp.where(m, 0.0, -jnp.inf)))(
            keys, state.legal_action_mask)
        return jax.vmap(ENV.step)(state, acts.astype(jnp.int32))

    later = fresh
    for step in range(5):
        later = random_step(later, jax.random.key(step))
    both = jax.tree.map(lambda a, b: jnp.concatenate([a, b]), fresh, later)
    assert not bool(both.terminated.any())
    return both


def keys(seed=1):
    return jax.random.split(jax.random.key(seed), 2 * BATCH)


@functools.cache
def batched(name, greedy=None, form="act"):
    """One compiled ``jit(vmap(...))`` per (entry, mode, form: act, act_observation, probs),
    shared by the tests."""
    return jax.jit(jax.vmap(getattr(baselines.load(name, greedy=greedy), form)))


def assert_legal(actions, mask):
    actions = np.asarray(actions)
    assert actions.dtype == np.int32
    assert np.asarray(mask)[np.arange(len(actions)), actions].all(), actions


@pytest.mark.parametrize("name", baselines.names())
def test_every_entry_loads_and_acts_legally_under_jit_and_vmap(name):
    baseline = baselines.load(name)
    assert baseline.name == name and baseline.kind in ("network", "scripted")
    assert (baseline.kind == "network") == (name in NETWORKS)
    s = states()
    assert_legal(batched(name)(keys(), s), s.legal_action_mask)


@pytest.mark.parametrize("name", NETWORKS)
@pytest.mark.parametrize("greedy", [True, False])
def test_network_entries_act_on_observation_and_mask_alone(name, greedy):
    s = states()
    obs, mask = s.observation, s.legal_action_mask
    assert_legal(batched(name, greedy, "act_observation")(keys(), obs, mask), mask)
    probs = np.asarray(batched(name, greedy, "probs")(obs, mask))
    np.testing.assert_allclose(probs.sum(-1), 1.0, atol=1e-5)
    assert (probs[~np.asarray(mask)] == 0).all()


def test_pushfold_greedy_is_its_checkpoint_policy():
    params, config = ppo.load_checkpoint(baselines.CHECKPOINTS / "sng6_pushfold.msgpack")
    s = states()
    policy = jax.jit(jax.vmap(ppo.policy(config, greedy=True), in_axes=(None, 0, 0)))
    expected = policy(params, s, keys())
    assert baselines.load("pushfold").greedy is True  # how its panel figures were measured
    got = batched("pushfold", None, "act_observation")(keys(2), s.observation,
                                                       s.legal_action_mask)
    np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(batched("pushfold")(keys(3), s), expected)


def test_sampling_draws_from_the_given_key_and_only_legal_actions():
    s = states()
    obs, mask = s.observation, s.legal_action_mask
    for form, args in (("act_observation", (obs, mask)), ("act", (s,))):
        draw = batched("example", False, form)
        draws = np.stack([draw(keys(seed), *args) for seed in range(8)])
        for row in draws:
            assert_legal(row, mask)
        np.testing.assert_array_equal(draws[0], draw(keys(0), *args))  # pure: same key, same draw
        assert (draws != draws[0]).any(), form  # the draw follows the key


def test_unknown_names_and_options_are_refused():
    with pytest.raises(ValueError, match=r"'pushfold2'.*learned, pushfold, example, baseline"):
        baselines.load("pushfold2")
    with pytest.raises(ValueError, match="scripted"):
        baselines.load("random", greedy=True)
    with pytest.raises(ValueError, match="plays sng-6"):
        baselines.load("pushfold", holdemjax.make("sng-6-turbo"))
    assert baselines.available() == baselines.names()


def test_every_results_file_and_checkpoint_is_in_the_repo():
    for name, entry in baselines.REGISTRY.items():
        assert entry.results is not None, name
        for path in (entry.results, entry.results_other):
            assert path is None or (ROOT / path).is_file(), (name, path)
        assert entry.checkpoint is None or (baselines.CHECKPOINTS / entry.checkpoint).is_file()
    assert baselines.load("example", greedy=False).results.endswith("panel_sng6_example.json")
    assert baselines.load("pushfold", greedy=False).results is None  # no sampled panel yet


def test_the_docs_code_block_runs(capsys):
    text = (ROOT / "docs" / "training.md").read_text()
    section = text.split("## Baselines (`holdemjax.training.baselines`)")[1]
    block = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    exec(compile(block, "docs/training.md", "exec"), {})
    assert "legal: True" in capsys.readouterr().out
