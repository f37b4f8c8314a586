"""Malmuth-Harville ICM: the prize equity of each stack, exact, jit/vmap-able.

The Malmuth-Harville model finishes players one place at a time: among the players not yet placed,
each takes the next (highest remaining) place with probability proportional to their chips. A
player's equity is ``sum_k payouts[k] * P(player finishes k-th)``.

Exact computation by dynamic programming over the 2^N sets of players already placed (N <= 9, so at
most 512 sets): ``P(S + {i}) += P(S) * s_i / (chips outside S)``. No sampling.

Zero stacks: a player with no chips never takes a place while someone with chips remains, so the
zero-stack players take the lowest places; they are placed in uniformly random order among
themselves, which shares those places' payouts equally among them.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np

from holdemjax.poker.cards import MAX_SEATS

__all__ = ["MAX_PLAYERS", "PORTABLE_MATH", "icm", "finish_probabilities"]

MAX_PLAYERS = MAX_SEATS  # 9: 2^9 = 512 subsets

#: XLA:CPU compile options under which the ICM's float32 results are the same on every x86 CPU
#: (``jax.jit(..., compiler_options=PORTABLE_MATH)`` on the program that calls it). With the
#: default platform-dependent math, an Intel Xeon (AVX-512) and an AMD EPYC differ in the last
#: bits (tests/envs/test_sng_golden.py, recorded on the AMD machine, passes on both with it).
PORTABLE_MATH = {"xla_cpu_enable_platform_dependent_math": False}


@functools.cache
def _subset_tables(num_players: int):
    """Static tables over subsets S of range(num_players) (subset id = bitmask).

    Returns numpy arrays (built on first use per N, tiny):
      member:  # [2^N, N] bool, player i is in S
      size:    # [2^N] int32, |S|
      without: # [2^N, N] int32, the id of S minus {i} (S itself where i is not in S)
    """
    ids = np.arange(1 << num_players)
    bits = 1 << np.arange(num_players)
    member = (ids[:, None] & bits) != 0
    size = member.sum(axis=1).astype(np.int32)
    without = np.where(member, ids[:, None] ^ bits, ids[:, None]).astype(np.int32)
    return member, size, without


def _finish_probabilities_1d(stacks: jax.Array) -> jax.Array:
    """``# [N] float -> [N, N] float``: entry [i, k] = P(player i finishes in place k)."""
    n = stacks.shape[-1]
    member, size, without = _subset_tables(n)
    chips_left = jnp.sum(jnp.where(member, 0, stacks), axis=-1)  # [2^N] chips outside S
    players_left = jnp.maximum(n - size, 1)  # [2^N]
    # pick[S, i] = P(player i takes the next place | the players in S are placed above)
    by_chips = stacks / jnp.where(chips_left > 0, chips_left, 1)[:, None]  # [2^N, N]
    uniform = jnp.broadcast_to(1.0 / players_left[:, None], by_chips.shape).astype(stacks.dtype)
    pick = jnp.where(member, 0, jnp.where(chips_left[:, None] > 0, by_chips, uniform))

    # reach[S] = P(the first |S| places go to exactly the players in S). Each pass fixes one more
    # level of |S|, so N passes reach the fixpoint.
    empty = jnp.zeros(1 << n, stacks.dtype).at[0].set(1)
    gather_pick = jnp.take_along_axis(pick, without, axis=0)  # [2^N, N] pick[S - {i}, i]

    def one_pass(_, reach):
        arrive = jnp.where(member, reach[without] * gather_pick, 0)  # [2^N, N]
        return empty + jnp.sum(arrive, axis=-1)

    reach = jax.lax.fori_loop(0, n, one_pass, empty)
    place_of_set = jax.nn.one_hot(size, n, dtype=stacks.dtype)  # [2^N, N]: next place = |S|
    return jnp.einsum("s,si,sk->ik", reach, pick, place_of_set)


def _check_players(n: int) -> None:
    if not 1 <= n <= MAX_PLAYERS:
        raise ValueError(f"icm takes 1..{MAX_PLAYERS} players, got {n}")


def _float_dtype(*arrays) -> jnp.dtype:
    return jnp.result_type(*(a.dtype for a in arrays), jnp.float32)


@jax.jit
def finish_probabilities(stacks: jax.Array) -> jax.Array:
    """Malmuth-Harville place probabilities.

    Args:
      stacks: ``# [..., N] float or int`` chips, N <= 9, all >= 0.
    Returns:
      ``# [..., N, N] float``: ``[..., i, k]`` = P(player i finishes in place k) (k = 0 is first).
    """
    stacks = jnp.asarray(stacks)
    stacks = stacks.astype(_float_dtype(stacks))
    _check_players(stacks.shape[-1])
    return jnp.vectorize(_finish_probabilities_1d, signature="(n)->(n,n)")(stacks)


@jax.jit
def icm(stacks: jax.Array, payouts: jax.Array) -> jax.Array:
    """Malmuth-Harville ICM equity of each player (jitted; compiles once per shape and dtype).

    Args:
      stacks: ``# [..., N] float or int`` chips, N <= 9 (static), all >= 0 (all zero: equal shares).
      payouts: ``# [..., P] float`` prize of places 1..P, P <= N; missing places pay 0.
    Returns:
      ``# [..., N] float`` equities (float32, or float64 when enabled and given); they sum to
      ``sum(payouts)``. Zero-stack players share the payouts of the lowest places equally.
    """
    stacks, payouts = jnp.asarray(stacks), jnp.asarray(payouts)
    dtype = _float_dtype(stacks, payouts)
    n, p = stacks.shape[-1], payouts.shape[-1]
    _check_players(n)
    if p > n:
        raise ValueError(f"{p} payouts for {n} players: at most one payout per player")
    pad = [(0, 0)] * (payouts.ndim - 1) + [(0, n - p)]
    payouts = jnp.pad(payouts.astype(dtype), pad)
    places = finish_probabilities(stacks.astype(dtype))  # [..., N, N]
    return jnp.einsum("...ik,...k->...i", places, payouts)
