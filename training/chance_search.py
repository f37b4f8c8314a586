"""Expectimax over 2048's chance nodes, through the env's chance API.

A move is searched as the env splits a step (`holdemjax.api`): `env.step_deterministic` gives
the afterstate of each legal slide and its merge reward, `env.chance_outcomes` the exact
probabilities of the 32 new tiles (a cell, a 2 or a 4), `env.chance_step` each completed
position. With ``depth`` d (moves looked ahead, the chance event after each one included):

    Q_d(s, a) = r(s, a) + Σ_o P(o | s, a) · V_{d-1}(s_{a,o})
    V_0(s)    = leaf(s);   V_d(s) = max over legal a of Q_d(s, a);   V(finished game) = 0

where ``leaf`` (`leaf_value`) scores a position by its empty cells and the equal neighbours that
can merge, from the observation alone (`exponents` reads the tiles off its planes). The rewards
are the env's (the values of the merged tiles), so Q is an expected score plus the leaf's bonus.
Everything is batched: the 4 actions and 32 outcomes of each level are one `vmap`, and
`expectimax_action` runs under `jit` and `vmap` over games.

Baselines: `greedy_action` (the legal slide with the largest immediate reward, ties broken at
random) and `random_action` (a uniform legal slide). `play` runs a policy over a batch of games
to their ends and returns each game's score (the sum of its rewards), moves and largest tile.
`benchmarks/bench_chance_search.py` writes the measured comparison.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp

import holdemjax

__all__ = ["EMPTY_WEIGHT", "MERGE_WEIGHT", "exponents", "leaf_value", "expectimax_q",
           "expectimax_action", "greedy_action", "random_action", "play", "POLICIES"]

ENV_ID = "2048"
NUM_ACTIONS = 4
EMPTY_WEIGHT = 16.0  # leaf bonus per empty cell (in score points)
MERGE_WEIGHT = 8.0  # leaf bonus per pair of equal neighbouring tiles (row or column)


@functools.cache
def _env():
    return holdemjax.make(ENV_ID)


def exponents(observation: jax.Array) -> jax.Array:
    """``# [4, 4] int32``: the tile exponents of an observation ``# [4, 4, 31]`` (0 empty)."""
    return jnp.argmax(observation, axis=-1).astype(jnp.int32)


def leaf_value(observation: jax.Array) -> jax.Array:
    """The leaf's score of a live position: `EMPTY_WEIGHT` per empty cell plus `MERGE_WEIGHT`
    per pair of equal tiles side by side in a row or a column."""
    e = exponents(observation)
    empty = (e == 0).sum()
    pairs = (((e[:, :-1] == e[:, 1:]) & (e[:, 1:] > 0)).sum()
             + ((e[:-1] == e[1:]) & (e[1:] > 0)).sum())
    return EMPTY_WEIGHT * empty + MERGE_WEIGHT * pairs


def _value(state, depth: int, leaf) -> jax.Array:
    """V_depth of an unbatched state (0 for a finished game)."""
    if depth == 0:
        v = leaf(state.observation)
    else:
        v = expectimax_q(state, depth, leaf).max()
    return jnp.where(state.terminated, 0.0, v)


def expectimax_q(state, depth: int = 1, leaf=leaf_value) -> jax.Array:
    """``# [4] float32``: Q_depth of each slide of an unbatched state (−inf where illegal)."""
    env = _env()
    outcomes = jnp.arange(env.num_chance_outcomes)

    def q(action):
        after = env.step_deterministic(state, action)
        probs = env.chance_outcomes(after)
        nexts = jax.vmap(env.chance_step, in_axes=(None, 0))(after, outcomes)
        values = jax.vmap(lambda s: _value(s, depth - 1, leaf))(nexts)
        expected = jnp.where(probs > 0, probs * values, 0.0).sum()
        return after.rewards[0] + expected

    qs = jax.vmap(q)(jnp.arange(NUM_ACTIONS, dtype=jnp.int32))
    return jnp.where(state.legal_action_mask, qs, -jnp.inf)


def expectimax_action(state, key=None, depth: int = 1, leaf=leaf_value) -> jax.Array:
    """The slide of largest Q_depth (the first of equals); ``key`` is unused."""
    del key
    return jnp.argmax(expectimax_q(state, depth, leaf)).astype(jnp.int32)


def greedy_action(state, key) -> jax.Array:
    """The legal slide with the largest merge reward, ties broken uniformly from ``key``."""
    env = _env()
    rewards = jax.vmap(lambda a: env.step_deterministic(state, a).rewards[0])(
        jnp.arange(NUM_ACTIONS, dtype=jnp.int32))
    # rewards are even integers: a tie-break below 1 never reorders different rewards
    noisy = rewards + 0.5 * jax.random.uniform(key, (NUM_ACTIONS,))
    return jnp.argmax(jnp.where(state.legal_action_mask, noisy, -jnp.inf)).astype(jnp.int32)


def random_action(state, key) -> jax.Array:
    """A uniformly drawn legal slide."""
    logits = jnp.where(state.legal_action_mask, 0.0, -jnp.inf)
    return jax.random.categorical(key, logits).astype(jnp.int32)


POLICIES = {"expectimax": expectimax_action, "greedy": greedy_action, "random": random_action}


@functools.partial(jax.jit, static_argnums=(0, 1, 3))
def play(policy, games: int, key, max_moves: int = 20000) -> dict:
    """``games`` games of ``policy(state, key) -> action`` to their ends (or ``max_moves``):
    ``{"score", "moves", "max_tile"}``, each ``# [games]``. Game i starts from the same key
    whatever the policy."""
    env = _env()
    init_key, key = jax.random.split(key)
    states = jax.vmap(env.init)(jax.random.split(init_key, games))

    def cond(carry):
        states, _, _, t = carry
        return (~states.terminated).any() & (t < max_moves)

    def body(carry):
        states, score, moves, t = carry
        step_key = jax.random.fold_in(key, t)
        policy_keys, tile_keys = jnp.split(jax.random.split(step_key, 2 * games), 2)
        actions = jax.vmap(policy)(states, policy_keys)
        live = ~states.terminated
        states = jax.vmap(env.step)(states, actions, tile_keys)
        return states, score + states.rewards[:, 0], moves + live, t + 1

    zeros = jnp.zeros(games, jnp.int32)
    states, score, moves, _ = jax.lax.while_loop(
        cond, body, (states, jnp.zeros(games), zeros, jnp.int32(0)))
    top = jax.vmap(exponents)(states.observation).reshape(games, -1).max(axis=1)
    return {"score": score, "moves": moves, "max_tile": jnp.left_shift(1, top)}
