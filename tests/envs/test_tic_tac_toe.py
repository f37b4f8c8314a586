"""Tic-tac-toe: conformance, rules, and step-by-step parity with pgx on random games."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import holdemjax

ENV = holdemjax.make("tic_tac_toe")


def _play(moves, first=0):
    s = ENV.init(jax.random.key(0))
    s = s.replace(current_player=jnp.int32(first), _x=jnp.int32(first << 19))  # X = first
    for m in moves:
        s = ENV.step(s, m)
    return s


def test_api():
    holdemjax.api_test(ENV, num_games=16, max_steps=12)


@pytest.mark.parametrize("moves", [(0, 3, 1, 4, 2), (2, 0, 4, 1, 6), (0, 1, 4, 2, 8),
                                   (1, 0, 4, 2, 7)])
def test_three_in_a_row_wins(moves):
    """Rule: three in a row (row, column or diagonal) wins; +1 to the mover, −1 to the other."""
    s = _play(moves, first=1)
    assert bool(s.terminated)
    assert s.rewards.tolist() == [-1.0, 1.0]  # player 1 moved first and made the line


def test_full_board_is_a_draw():
    """Rule: a full board without a line ends in a draw (0, 0)."""
    s = _play((0, 1, 2, 4, 3, 5, 7, 6, 8))
    assert bool(s.terminated) and s.rewards.tolist() == [0.0, 0.0]


def test_occupied_cell_is_illegal_and_penalized():
    """An occupied cell is masked; playing it ends the game: mover −1, other +1."""
    s = _play((4,), first=0)
    assert not bool(s.legal_action_mask[4])
    out = ENV.step(s, 4)
    assert bool(out.terminated) and out.rewards.tolist() == [1.0, -1.0]


def test_observation_is_from_the_observers_view():
    s = _play((4,), first=0)  # player 0 (X) took the centre; player 1 to move
    obs1 = np.asarray(ENV.observe(s, 1))
    obs0 = np.asarray(ENV.observe(s, 0))
    assert obs1[1, 1].tolist() == [False, True] and obs0[1, 1].tolist() == [True, False]
    assert np.array_equal(np.asarray(s.observation), obs1)


def test_parity_with_pgx_random_games():
    """1,024 random games stepped together with pgx: every public field at every step."""
    pgx = pytest.importorskip("pgx")
    from tests.envs.parity import play_random

    penv = pgx.make("tic_tac_toe")
    keys = jax.random.split(jax.random.key(3), 1024)
    ours = jax.vmap(ENV.init)(keys)
    theirs = jax.vmap(penv.init)(jax.random.split(jax.random.PRNGKey(3), 1024))
    # Chance is only who moves first: give pgx our draw.
    theirs = theirs.replace(current_player=ours.current_player)
    theirs = theirs.replace(observation=jax.vmap(penv.observe)(theirs, theirs.current_player))
    finished = play_random(ENV, penv, ours, theirs, jax.random.key(4), steps=10)
    assert finished == 1024
