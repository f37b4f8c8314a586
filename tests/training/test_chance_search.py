"""Expectimax over 2048's chance API (holdemjax.training.chance_search): its Q is the exact
expectation over `chance_outcomes` on a constructed position (computed here by hand from the
probabilities and an independent leaf score), one move deep and two (the slides, merges and
game ends written out here), and every policy picks legal slides. Whole games
of the three policies (`play`) run in notebooks/chance_search_2048.ipynb (CI) and the
benchmark."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import holdemjax
from holdemjax.envs import play2048 as p2048
from holdemjax.training import chance_search as cs

ENV = holdemjax.make("2048")
# 2 2 4 .        slid LEFT:  4 4 . .   (one merge: reward 4)
# . . . .                    . . . .
# . . 2 .                    2 . . .
# . . . 8                    8 . . .
BOARD = np.array([[1, 1, 2, 0], [0, 0, 0, 0], [0, 0, 1, 0], [0, 0, 0, 3]], np.int32)
LEFT_AFTER = np.array([[2, 2, 0, 0], [0, 0, 0, 0], [1, 0, 0, 0], [3, 0, 0, 0]], np.int32)
# Compiled once for the file (eager calls would run op by op): depth-1 Q and the action played.
SEARCH = jax.jit(lambda s: (cs.expectimax_q(s), cs.expectimax_action(s)))
# The baselines on one state for 16 keys.
BASELINES = {name: jax.jit(jax.vmap(cs.POLICIES[name], in_axes=(None, 0)))
             for name in ("greedy", "random")}
KEYS = jax.random.split(jax.random.key(0), 16)


@jax.jit
def _state(board):
    board = jnp.asarray(board, jnp.int32)
    state = p2048.Play2048State(legal_action_mask=p2048.legal_moves(board), _board=board)
    return state.replace(observation=ENV.observe(state, 0))


def _leaf(board: np.ndarray) -> float:
    """The leaf score written out: empty cells and equal neighbours, by loops."""
    empty = int((board == 0).sum())
    pairs = 0
    for r in range(4):
        for c in range(4):
            if board[r, c] and c < 3 and board[r, c + 1] == board[r, c]:
                pairs += 1
            if board[r, c] and r < 3 and board[r + 1, c] == board[r, c]:
                pairs += 1
    return cs.EMPTY_WEIGHT * empty + cs.MERGE_WEIGHT * pairs


def test_expectimax_q_is_the_exact_expectation_over_chance_outcomes():
    state = _state(BOARD)
    after = ENV.step_deterministic(state, p2048.LEFT)
    np.testing.assert_array_equal(np.asarray(after.observation).argmax(-1), LEFT_AFTER)
    assert float(after.rewards[0]) == 4.0
    probs = np.asarray(ENV.chance_outcomes(after), np.float64)
    empty = (LEFT_AFTER == 0).reshape(-1)
    assert set(np.flatnonzero(probs)) == {2 * c + k for c in np.flatnonzero(empty) for k in (0, 1)}
    expected = 4.0
    for outcome in np.flatnonzero(probs):
        board = LEFT_AFTER.reshape(-1).copy()
        board[outcome // 2] = 1 + outcome % 2  # a 2 or a 4 on that cell
        expected += probs[outcome] * _leaf(board.reshape(4, 4))
    q, action = SEARCH(state)
    q = np.asarray(q)
    assert q[p2048.LEFT] == pytest.approx(expected, rel=1e-6)
    # where the tile lands matters here: a new 2 beside the 2 makes a pair, elsewhere not
    values = {_leaf(np.where(np.arange(16) == c, 1, LEFT_AFTER.reshape(-1)).reshape(4, 4))
              for c in np.flatnonzero(empty)}
    assert len(values) == 2
    # every slide of this board is legal; the best one is what expectimax_action plays
    assert np.isfinite(q).all()
    assert int(action) == int(np.argmax(q))


def test_every_policy_picks_a_legal_slide():
    # a full board whose only merge is in its top row: LEFT and RIGHT are legal, UP and DOWN
    # are not
    board = np.array([[1, 1, 2, 3], [2, 3, 4, 5], [3, 4, 5, 6], [4, 5, 6, 7]], np.int32)
    state = _state(board)
    legal = set(np.flatnonzero(np.asarray(state.legal_action_mask)))
    assert legal == {p2048.LEFT, p2048.RIGHT}
    q, action = SEARCH(state)
    q = np.asarray(q)
    assert np.isneginf(q[[p2048.UP, p2048.DOWN]]).all() and np.isfinite(q[sorted(legal)]).all()
    assert int(action) in legal
    for name, policy in BASELINES.items():
        picks = set(np.asarray(policy(state, KEYS)).tolist())
        assert picks == legal, name  # both legal slides, and only they, over 16 keys


def test_greedy_takes_the_largest_merge_and_breaks_ties_at_random():
    state = _state(BOARD)  # LEFT and RIGHT merge (reward 4), UP and DOWN do not
    picks = set(np.asarray(BASELINES["greedy"](state, KEYS)).tolist())
    assert picks == {p2048.LEFT, p2048.RIGHT}


# ---------------------------------------------------------------- depth 2, derived by hand
def _slide_row_left(row):
    """One row slid left, written out: ``(row, merge reward)``."""
    tiles, out, reward = [e for e in row if e], [], 0
    i = 0
    while i < len(tiles):
        if i + 1 < len(tiles) and tiles[i] == tiles[i + 1]:
            out.append(tiles[i] + 1)
            reward += 2 ** (tiles[i] + 1)
            i += 2
        else:
            out.append(tiles[i])
            i += 1
    return out + [0] * (4 - len(out)), reward


def _slide(board, action):
    """``(board, reward)`` of a slide: each row (LEFT, RIGHT) or column (UP, DOWN) toward the
    wall it moves to."""
    b = np.asarray(board)
    lines = {p2048.LEFT: b, p2048.RIGHT: b[:, ::-1], p2048.UP: b.T, p2048.DOWN: b.T[:, ::-1]}
    slid = [_slide_row_left(list(line)) for line in lines[action].tolist()]
    out = np.array([row for row, _ in slid])
    back = {p2048.LEFT: out, p2048.RIGHT: out[:, ::-1], p2048.UP: out.T,
            p2048.DOWN: out[:, ::-1].T}
    return back[action], sum(r for _, r in slid)


def _legal(board):
    return [a for a in range(4) if not np.array_equal(_slide(board, a)[0], board)]


_SPAWN = jax.jit(p2048.spawn_probabilities)  # the draw's exact odds (tests/test_chance.py)


def _q_by_hand(board, depth):
    """Q_depth of each slide (−inf where illegal): the merge reward plus, over the new tile's
    outcomes, V_{depth-1} of the position (0 when no slide is left: the game is over)."""
    q = np.full(4, -np.inf)
    for a in _legal(board):
        after, reward = _slide(board, a)
        probs = np.asarray(_SPAWN(jnp.asarray(after, jnp.int32)), np.float64)
        value = 0.0
        for o in np.flatnonzero(probs):
            nxt = after.reshape(-1).copy()
            nxt[o // 2] = 1 + o % 2
            nxt = nxt.reshape(4, 4)
            if not _legal(nxt):
                v = 0.0
            elif depth == 1:
                v = _leaf(nxt)
            else:
                v = _q_by_hand(nxt, depth - 1).max()
            value += probs[o] * v
        q[a] = reward + value
    return q


def test_depth_two_is_the_exact_expectimax():
    """Two moves deep on a crowded board (some new tiles end the game, some second slides are
    illegal): expectimax_q equals the expectimax written out here."""
    # 64   4  16  32    LEFT is illegal; RIGHT fills the last row and either new tile ends
    # 32  64 256  64    the game (Q 0); UP and DOWN leave games that go on, or not, after
    # 256  2   4  32    the second slide
    # 64  16   4   .
    board = np.array([[6, 2, 4, 5], [5, 6, 8, 6], [8, 1, 2, 5], [6, 4, 2, 0]], np.int32)
    assert _slide(BOARD, p2048.LEFT)[0].tolist() == LEFT_AFTER.tolist()  # the hand rules
    want = _q_by_hand(board, 2)
    assert np.isneginf(want[p2048.LEFT]) and want[p2048.RIGHT] == 0
    assert want[p2048.UP] > 0 and want[p2048.DOWN] > 0
    q = np.asarray(jax.jit(lambda s: cs.expectimax_q(s, 2))(_state(board)))
    np.testing.assert_allclose(q, want, rtol=1e-5)
