"""Seat rotation (holdemjax/duplicate/rotation.py): exact neutrality of identical policies, a
strong policy's edge with its standard error, the variance reduction against plain play, the
JAX loop against the independent host hand loop, and misbehaving policies.

One compiled program (the pool BASELINE, RANDOM, STUBBORN; batch 128) serves every JAX test
here.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from holdemjax.duplicate import rotation
from holdemjax.poker import table


def stubborn(view, key):
    """A misbehaving policy: 'raises' to 0 chips (below every minimum), with the out-of-range
    kind 7 at every other decision."""
    del key
    return jnp.where(view.decision % 2 == 0, table.RAISE, 7), jnp.int32(0)


POOL = (rotation.BASELINE, rotation.RANDOM, stubborn)
BASE, RAND, STUBBORN = 0, 1, 2
SEATS = 6


def chips_of_tested(net: np.ndarray) -> np.ndarray:
    """``# [deals, rotation]``: chips of the tested seat (seat = rotation)."""
    r = np.arange(net.shape[1])
    return net[:, r, r]


@pytest.mark.parametrize("bot", [BASE, RAND])
def test_six_identical_policies_are_exactly_neutral(bot):
    """Six copies of one policy: every deal's rotation sum is exactly 0 chips, while single
    rotations win and lose; every hand conserves chips."""
    out = rotation.play_rotations(POOL, bot, bot, 96, 5)
    net = out["net"]
    assert net.shape == (96, SEATS, SEATS)
    assert (net.sum(axis=2) == 0).all()  # chips are conserved in every hand
    per_deal = chips_of_tested(net).sum(axis=1)
    assert (per_deal == 0).all()
    assert (chips_of_tested(net) != 0).any()
    assert out["unfinished"].sum() == 0 and out["illegal"][:2].tolist() == [0, 0]


def test_different_policies_are_not_neutral():
    """The neutrality above is not an artefact: the baseline tested against random bots
    leaves nonzero rotation sums."""
    out = rotation.play_rotations(POOL, BASE, RAND, 96, 5)
    assert (chips_of_tested(out["net"]).sum(axis=1) != 0).any()


def calling_station(view, key):
    """Checks or calls every decision: a cheap policy unlike the random bot."""
    del view, key
    return jnp.int32(table.CHECK_CALL), jnp.int32(0)


LUCK_POOL = (rotation.RANDOM, calling_station)  # small: one cheap program with luck


def test_luck_corrections_keep_the_mean_and_shrink_the_standard_error():
    """`evaluate(..., luck=True)` (holdemjax.luck: AIVAT's chance corrections, issue 38):
    six copies of one policy stay neutral after the correction (each deal's corrected rotation
    sum is zero up to float rounding: the six rotations play alike and the seats' corrections
    sum to zero); a calling station against random bots keeps its mean within the standard
    error of the difference, with a smaller standard error."""
    same = rotation.play_rotations(LUCK_POOL, 0, 0, 64, 7, batch=64, luck=True)
    rows = np.arange(SEATS)
    assert np.abs(same["luck"].sum(axis=2)).max() < 0.5  # chips only move between seats
    assert np.abs((chips_of_tested(same["net"]) - same["luck"][:, rows, rows]).sum(1)).max() < 0.5
    assert np.abs(same["luck"]).max() > 10  # the corrections themselves are not zero
    r = rotation.evaluate(calling_station, rotation.RANDOM, 192, 3, pool=LUCK_POOL, batch=64,
                          luck=True)
    diff = (r["chips"] - r["corrected_chips"]) / SEATS * 100 / 20  # bb/100 of luck per deal
    assert abs(diff.mean()) < 3.5 * diff.std(ddof=1) / np.sqrt(len(diff))
    assert r["corrected_stderr"] < r["stderr"] and r["luck_se_ratio"] > 1.2


@pytest.fixture(scope="module")
def base_vs_random():
    return rotation.evaluate(rotation.BASELINE, rotation.RANDOM, 1024, 3, pool=POOL)


def test_baseline_beats_random_bots_with_its_standard_error(base_vs_random):
    """bb/100 of the baseline against five random bots is positive beyond 3 standard errors
    (one-sided p < 0.0014); measured about +290 ± 50 bb/100 on these 1,024 deals."""
    r = base_vs_random
    assert r["hands"] == 1024 * SEATS and r["deals"] == 1024
    assert 0 < r["stderr"] < r["bb_per_100"] / 3
    assert r["illegal"] == {"tested": 0, "opponent": 0} and r["unfinished"] == 0


def test_rotation_reduces_the_variance_of_plain_play(base_vs_random):
    """On the same deals, the rotation's per-deal variance is well below plain play's (the
    policy always in seat 0): measured about 0.79 of it removed."""
    r = base_vs_random
    assert r["plain_stderr"] > r["stderr"]
    assert 0.5 < r["variance_reduction"] < 1
    # efficiency = var(plain) / (seats * var(rotation)), read back through the standard errors
    # (checked against the raw rotations in test_evaluate_reports_what_the_raw_rotations_say).
    assert r["efficiency"] == pytest.approx(r["plain_stderr"] ** 2 / (SEATS * r["stderr"] ** 2))


def test_evaluate_reports_what_the_raw_rotations_say():
    """bb/100, plain bb/100 and their standard errors recomputed from `play_rotations`."""
    r = rotation.evaluate(rotation.RANDOM, rotation.BASELINE, 200, 9, pool=POOL)
    net = rotation.play_rotations(POOL, RAND, BASE, 200, 9)["net"]
    rot = chips_of_tested(net).mean(axis=1) / 20 * 100
    plain = net[:, 0, 0] / 20 * 100
    assert r["bb_per_100"] == pytest.approx(rot.mean())
    assert r["stderr"] == pytest.approx(rot.std(ddof=1) / np.sqrt(200))
    assert r["plain_bb_per_100"] == pytest.approx(plain.mean())
    assert r["plain_stderr"] == pytest.approx(plain.std(ddof=1) / np.sqrt(200))
    assert (r["chips"] == chips_of_tested(net).sum(axis=1)).all()
    assert r["bb_per_100"] < 0  # the random bot loses to the baseline


def test_the_jax_rotation_equals_the_host_hand_loop():
    """Deals 0..1, every rotation, replayed by `play_host_hand` (protocol views, numpy tables,
    the policies jitted one decision at a time): the same chips for every seat."""
    key = jax.random.key(11)
    net = rotation.play_rotations(POOL, RAND, BASE, 2, key)["net"]
    bot_key = np.asarray(jax.random.key_data(jax.random.fold_in(key, rotation.BOT_KEY_DATUM)))
    base = rotation.host_player(rotation.BASELINE, bot_key)
    rand = rotation.host_player(rotation.RANDOM, bot_key)
    for deal in range(2):
        for r in range(SEATS):
            players = [rand if s == r else base for s in range(SEATS)]
            rec = rotation.play_host_hand(players, key, deal)
            assert rec.faults == []
            assert rec.net.tolist() == net[deal, r].tolist(), (deal, r)


def test_a_misbehaving_jax_policy_is_clamped_and_counted():
    """Every action of `stubborn` is clamped by the engine (and counted); every hand still
    ends and conserves chips, against itself and against the baseline."""
    for opponent in (STUBBORN, BASE):
        out = rotation.play_rotations(POOL, STUBBORN, opponent, 8, 0)
        assert out["unfinished"].sum() == 0
        assert out["illegal"][STUBBORN] > 0 and out["illegal"][BASE] == 0
        assert (out["net"].sum(axis=2) == 0).all()


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="tested must index"):
        rotation.play_rotations(POOL, 3, 0, 4, 0)
    with pytest.raises(ValueError, match="seats must be"):
        rotation.play_rotations(POOL, 0, 0, 4, 0, seats=10)
    with pytest.raises(ValueError, match="deals must be"):
        rotation.play_rotations(POOL, 0, 0, 0, 0)


def test_host_loop_survives_a_crashing_or_illegal_player():
    """A host player that raises an exception, or answers an illegal action, is replaced by
    check-or-fold and recorded; the hand completes and chips are conserved."""
    def boom(view, state):
        raise RuntimeError("policy bug")

    def bad(view, state):
        return table.RAISE, -5

    def caller(view, state):
        return table.CHECK_CALL, 0

    rec = rotation.play_host_hand([boom, bad, caller, caller, caller, caller],
                                  jax.random.key(0), 0)
    assert {s for s, _ in rec.faults} == {0, 1}
    assert rec.net.sum() == 0


@pytest.mark.slow
def test_bigger_run_baseline_vs_random():
    r = rotation.evaluate(rotation.BASELINE, rotation.RANDOM, 8192, 17, pool=POOL)
    assert r["bb_per_100"] > 5 * r["stderr"]
    assert r["variance_reduction"] > 0.5
