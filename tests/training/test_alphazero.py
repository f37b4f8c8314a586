"""AlphaZero on Connect Four (holdemjax.training.alphazero): the jitted iteration is
deterministic from its seed, self-play's targets are the games' results from the mover's side,
both searches take an immediate win (the signs of mctx's rewards and discounts), and the score
summary's figures are right. `evaluate` (both colours) runs in
notebooks/alphazero_connect_four.ipynb (CI) and the benchmark."""

from __future__ import annotations

import jax
import numpy as np
import pytest
from scipy import stats

from holdemjax.envs import connect_four as c4
from holdemjax.training import alphazero as az

CFG = az.Config(batch=6, simulations=8, considered=7, minibatches=2, channels=4, width=16)


@pytest.fixture(scope="module")
def trainer():
    return az.Trainer(CFG)


def _leaves(tree):
    return [np.asarray(x) for x in jax.tree.leaves(tree)]


@pytest.fixture(scope="module")
def runs(trainer):
    """Two iterations from seeds 0, 0 again, and 1: (initial params, params, losses, batches)."""

    def run(seed):
        ts = trainer.init(jax.random.key(seed))
        first = _leaves(ts.params)
        losses, batches = [], []
        for i in range(2):
            ts, metrics, batch = trainer.iteration(ts, jax.random.key(100 * seed + i))
            losses.append(float(metrics["loss"]))
            batches.append(jax.device_get(batch))
        assert int(ts.step) == 2
        return first, _leaves(ts.params), losses, batches

    return run(0), run(0), run(1)


def test_iterations_are_deterministic_from_the_seed_and_learn(runs):
    (start, a, losses, _), (_, b, losses_b, _), (_, c, _, _) = runs
    assert np.isfinite(losses).all() and losses == losses_b
    for x, y in zip(a, b, strict=True):
        np.testing.assert_array_equal(x, y)  # same seed: the same params, bit for bit
    assert any(not np.array_equal(x, y) for x, y in zip(a, c, strict=True))
    assert any(not np.array_equal(x, y) for x, y in zip(start, a, strict=True))  # it learned


@pytest.mark.parametrize("run, it", [(0, 0), (2, 1)])
def test_self_play_targets_are_the_result_for_the_mover(runs, run, it):
    batch = runs[run][3][it]
    live = batch.weight > 0
    for g in range(CFG.batch):
        n = int(live[:, g].sum())
        assert live[:n, g].all() and not live[n:, g].any()  # live positions come first
        v = batch.value[:n, g]
        # players alternate: the result flips sign from one position to the next; the last
        # mover won or drew (Connect Four cannot be lost by moving)
        np.testing.assert_array_equal(v[1:], -v[:-1])
        assert v[-1] == 1.0 or (v[-1] == 0.0 and n == az.MAX_MOVES)  # a draw fills the board
    pol = batch.policy[live]
    np.testing.assert_allclose(pol.sum(-1), 1.0, atol=1e-5)
    full = batch.obs[live][:, 0].any(-1)  # [N, 7]: a column whose top cell is taken
    assert (pol[full] == 0).all()


def _win_in_one():
    """Player 0 to move with three in the bottom row (columns 0-2): column 3 wins."""
    board = np.full((6, 7), -1)
    board[5, :3] = 0
    board[4, :2] = 1
    board[3, 0] = 1
    return jax.tree.map(lambda x: x[None], c4.from_board(board, current_player=0))


def test_both_searches_take_an_immediate_win(trainer):
    states = _win_in_one()
    params = trainer.init(jax.random.key(0)).params
    agent = jax.jit(az.az_policy(trainer.net, CFG, gumbel_scale=0.0))
    opponent = jax.jit(az.mcts_opponent(64))  # the benchmark's opponent
    for seed in range(3):
        assert int(agent(params, jax.random.key(seed), states).action[0]) == 3
        assert int(opponent(jax.random.key(seed), states)[0]) == 3


def test_score_summary():
    s = az.score_summary(wins=7, draws=2, losses=1)
    assert s["score"] == pytest.approx(0.8)
    assert s["p_value_sign_test"] == pytest.approx(9 / 256)  # P(X >= 7), X ~ B(8, 1/2)
    no_draws = az.score_summary(wins=30, draws=0, losses=10)
    ci = stats.binomtest(30, 40).proportion_ci(0.95, method="wilson")
    assert no_draws["wilson95"] == pytest.approx([ci.low, ci.high], abs=1e-6)
    assert no_draws["p_value_sign_test"] == pytest.approx(
        stats.binomtest(30, 40, alternative="greater").pvalue)
