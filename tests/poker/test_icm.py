"""Tests for holdemjax/poker/icm.py: exact Malmuth-Harville ICM.

Oracles: worked examples from shared/notes/poker-facts.md (computed there with exact fractions)
and an independent brute force over all finishing orders with Python fractions.
"""

import itertools
from fractions import Fraction

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from holdemjax.poker import icm as icm_module
from holdemjax.poker.icm import MAX_PLAYERS, finish_probabilities, icm

SNG_PAYOUTS = [0.333, 0.267, 0.200, 0.133, 0.067, 0.0]  # SPEC: six-max places
TOL = 1e-6


def brute_force_icm(stacks, payouts):
    """Sum over every finishing order of its Harville probability, in exact fractions.

    A player takes the next place with probability chips / chips of players not yet placed; once
    only zero stacks remain, each remaining player is equally likely (the documented rule).
    """
    stacks = [Fraction(s) for s in stacks]
    payouts = [Fraction(p) for p in payouts] + [Fraction(0)] * (len(stacks) - len(payouts))
    equity = [Fraction(0)] * len(stacks)
    for order in itertools.permutations(range(len(stacks))):
        prob, left = Fraction(1), sum(stacks)
        for place, player in enumerate(order):
            remaining = len(stacks) - place
            prob *= stacks[player] / left if left > 0 else Fraction(1, remaining)
            left -= stacks[player]
            if prob == 0:
                break
        for place, player in enumerate(order):
            equity[player] += prob * payouts[place]
    return [float(e) for e in equity]


def test_three_player_example():
    # poker-facts.md: Eq = [43/112, 131/400, 101/350] = [0.383929, 0.327500, 0.288571].
    values = icm(jnp.array([5000.0, 3000.0, 2000.0]), jnp.array([0.5, 0.3, 0.2]))
    np.testing.assert_allclose(values, [43 / 112, 131 / 400, 101 / 350], atol=TOL)
    np.testing.assert_allclose(values, [0.383929, 0.327500, 0.288571], atol=TOL)


def test_six_max_example():
    # poker-facts.md: SNG payouts, stacks [4000, 2500, 1500, 600, 300, 100].
    stacks = [4000, 2500, 1500, 600, 300, 100]
    values = icm(jnp.array(stacks, jnp.float32), jnp.array(SNG_PAYOUTS))
    expected = [0.274477, 0.244677, 0.208827, 0.142221, 0.095213, 0.034585]
    np.testing.assert_allclose(values, expected, atol=TOL)
    np.testing.assert_allclose(values, brute_force_icm(stacks, SNG_PAYOUTS), atol=TOL)


def test_integer_stacks_and_short_payouts():
    # Int stacks are accepted; missing payouts are zero-padded (place 3 pays nothing).
    values = icm(jnp.array([5000, 3000, 2000]), jnp.array([0.6, 0.4]))
    assert values.dtype == jnp.float32
    np.testing.assert_allclose(values, brute_force_icm([5000, 3000, 2000], [0.6, 0.4]), atol=TOL)


@pytest.mark.parametrize("n", [2, 3, 6, 9])
def test_equal_stacks_equal_shares(n):
    payouts = SNG_PAYOUTS[:n] if n <= 6 else [0.5, 0.3, 0.2] + [0.0] * (n - 3)
    values = icm(jnp.full(n, 1500.0), jnp.array(payouts, jnp.float32))
    np.testing.assert_allclose(values, np.full(n, sum(payouts) / n), atol=TOL)


def test_sums_to_payouts_and_is_monotone():
    rng = np.random.default_rng(3)
    for n in (1, 3, 6, MAX_PLAYERS):  # shapes shared with other tests: fewer compiles
        stacks = rng.integers(1, 10_000, n).astype(np.float32)
        payouts = np.sort(rng.random(n))[::-1] * (np.arange(n) < rng.integers(1, n + 1))
        values = np.asarray(icm(stacks, payouts))
        np.testing.assert_allclose(values.sum(), payouts.sum(), atol=TOL)
        # With decreasing payouts, more chips never means less equity.
        by_stack = values[np.argsort(stacks, kind="stable")]
        assert np.all(np.diff(by_stack) >= -TOL)


def test_zero_stacks_share_the_lowest_places():
    payouts = [0.5, 0.3, 0.2]
    np.testing.assert_allclose(icm(jnp.array([100.0, 0, 0]), jnp.array(payouts)), [0.5, 0.25, 0.25])
    # Two live players split places 1-2 by ICM (100 vs 50: 2/3 and 1/3 to win); the bust gets 3rd.
    values = icm(jnp.array([0.0, 100.0, 50.0]), jnp.array(payouts))
    expected = [0.2, 0.5 * 2 / 3 + 0.3 / 3, 0.5 / 3 + 0.3 * 2 / 3]
    np.testing.assert_allclose(values, expected, atol=TOL)
    six = icm(jnp.array([3000.0, 0, 2000, 0, 1000, 0]), jnp.array(SNG_PAYOUTS))
    np.testing.assert_allclose(np.asarray(six)[[1, 3, 5]], (0.133 + 0.067 + 0.0) / 3, atol=TOL)
    assert np.isfinite(np.asarray(six)).all()


def test_one_player():
    np.testing.assert_allclose(icm(jnp.array([10.0]), jnp.array([1.0])), [1.0])


def test_random_cases_match_brute_force():
    rng = np.random.default_rng(2024)
    for _ in range(25):
        n = int(rng.integers(2, 7))
        stacks = rng.integers(0, 5_000, n)
        stacks[rng.integers(n)] += 1  # at least one live stack
        if rng.random() < 0.3:
            stacks[rng.integers(n)] = 0  # sometimes a bust
        payouts = np.round(rng.random(int(rng.integers(1, n + 1))), 3)
        padded = np.pad(payouts, (0, n - payouts.size))  # one shape per n: fewer compiles
        values = icm(jnp.asarray(stacks, jnp.float32), jnp.asarray(padded, jnp.float32))
        expected = brute_force_icm(stacks.tolist(), [Fraction(str(p)) for p in payouts])
        np.testing.assert_allclose(values, expected, atol=TOL, err_msg=f"{stacks} {payouts}")


def test_finish_probabilities_rows_and_columns_sum_to_one():
    probs = np.asarray(finish_probabilities(jnp.array([4000.0, 2500, 1500, 600, 300, 100])))
    np.testing.assert_allclose(probs.sum(axis=0), 1, atol=TOL)
    np.testing.assert_allclose(probs.sum(axis=1), 1, atol=TOL)
    chip_share = np.array([4000, 2500, 1500, 600, 300, 100]) / 9000  # P(first) = chips / total
    np.testing.assert_allclose(probs[:, 0], chip_share, atol=TOL)


def test_float64_when_enabled():
    # With x64 on, float64 in gives float64 out, exact to ~1e-12 against the fraction brute force.
    stacks = [4000, 2500, 1500, 600, 300, 100, 7]
    payouts = [0.4, 0.25, 0.15, 0.1, 0.06, 0.04]
    expected = brute_force_icm(stacks, [Fraction(str(p)) for p in payouts])
    with jax.enable_x64(True):
        values = icm(jnp.array(stacks, jnp.float64), jnp.array(payouts, jnp.float64))
        assert values.dtype == jnp.float64
        np.testing.assert_allclose(values, expected, atol=1e-12)


def test_jit_vmap_and_batch_axes():
    rng = np.random.default_rng(5)
    stacks = rng.integers(1, 3_000, (4, 6)).astype(np.float32)
    payouts = np.tile(np.array(SNG_PAYOUTS, np.float32), (4, 1))
    one_by_one = np.stack([np.asarray(icm(s, p)) for s, p in zip(stacks, payouts)])
    np.testing.assert_allclose(jax.jit(jax.vmap(icm))(stacks, payouts), one_by_one, atol=1e-7)
    # Leading batch axes broadcast (payouts shared by every row).
    np.testing.assert_allclose(icm(stacks, np.array(SNG_PAYOUTS)), one_by_one, atol=1e-7)
    shared_payouts = jax.vmap(icm, in_axes=(0, None))(stacks, jnp.array(SNG_PAYOUTS))
    np.testing.assert_allclose(shared_payouts, one_by_one, atol=1e-7)


def test_rejects_bad_shapes():
    with pytest.raises(ValueError, match="10"):
        icm(jnp.ones(10), jnp.ones(3))
    with pytest.raises(ValueError, match="4 payouts for 3 players"):
        icm(jnp.ones(3), jnp.ones(4))
    assert set(icm_module.__all__) == {"MAX_PLAYERS", "PORTABLE_MATH", "icm",
                                      "finish_probabilities"}
