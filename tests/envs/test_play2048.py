"""Tests of the 2048 env: API conformance, the rules, golden games and parity with pgx."""

from __future__ import annotations

import importlib.util
import json
import pathlib
import re

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import holdemjax
from holdemjax.envs.play2048 import (
    DOWN,
    LEFT,
    NUM_ACTIONS,
    OBS_EMPTY_PLANE,
    OBS_PLANES,
    RIGHT,
    SIZE,
    UP,
    Play2048,
    Play2048State,
    legal_moves,
    place_tile,
    slide,
)
from tests.envs.parity import markdown_table

ROOT = pathlib.Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "envs" / "golden" / "2048.jsonl"
DOC = ROOT / "docs" / "2048.md"


def _parity_module():
    path = ROOT / "benchmarks" / "parity_2048.py"
    spec = importlib.util.spec_from_file_location("parity_2048", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def board(text: str) -> jnp.ndarray:
    """'2 . . 4 / ...' (rows top to bottom, '.' empty) -> [4, 4] exponents."""
    rows = [r.split() for r in text.split("/")]
    assert len(rows) == SIZE and all(len(r) == SIZE for r in rows), text
    exps = [[0 if c == "." else int(c).bit_length() - 1 for c in r] for r in rows]
    return jnp.asarray(exps, jnp.int32)


def state_of(env: Play2048, text: str) -> Play2048State:
    b = board(text)
    state = env.init(jax.random.key(0)).replace(_board=b, legal_action_mask=legal_moves(b))
    return state.replace(observation=env.observe(state))


@pytest.fixture(scope="module")
def env():
    return Play2048()


# ---------------------------------------------------------------------------- API
def test_api(env):
    holdemjax.api_test(env, num_games=8, max_steps=160)


def test_registry_and_properties(env):
    made = holdemjax.make("2048")
    assert isinstance(made, Play2048)
    assert (env.id, env.version, env.num_players, env.num_actions) == ("2048", "v2", 1, 4)
    assert env.observation_shape == (SIZE, SIZE, OBS_PLANES)
    assert env.requires_step_key and env.illegal_action_penalty == -1.0


def test_step_needs_a_key(env):
    state = env.init(jax.random.key(0))
    with pytest.raises(ValueError, match="key"):
        env.step(state, 0)


# ----------------------------------------------------------------------------- rules
# Rule: tiles slide as far as they go; equal tiles that meet merge once per move, those nearest
# the side they move toward first; the reward is the sum of the merged tiles' values.
SLIDES = [
    ("2 2 2 . / . . . . / . . . . / . . . .", LEFT, "4 2 . . / . . . . / . . . . / . . . .", 4),
    ("2 2 2 2 / . . . . / . . . . / . . . .", LEFT, "4 4 . . / . . . . / . . . . / . . . .", 8),
    ("4 4 8 . / . . . . / . . . . / . . . .", LEFT, "8 8 . . / . . . . / . . . . / . . . .", 8),
    ("2 2 4 4 / . . . . / . . . . / . . . .", LEFT, "4 8 . . / . . . . / . . . . / . . . .", 12),
    (". 2 . 2 / . . . . / . . . . / . . . .", LEFT, "4 . . . / . . . . / . . . . / . . . .", 4),
    ("2 . 4 2 / . . . . / . . . . / . . . .", LEFT, "2 4 2 . / . . . . / . . . . / . . . .", 0),
    ("2 2 2 . / . . . . / . . . . / . . . .", RIGHT, ". . 2 4 / . . . . / . . . . / . . . .", 4),
    ("2 2 2 2 / 4 . 4 8 / . . . . / . . . .", RIGHT, ". . 4 4 / . . 8 8 / . . . . / . . . .", 16),
    ("2 . . . / 2 . . . / 2 . . . / . . . .", UP, "4 . . . / 2 . . . / . . . . / . . . .", 4),
    ("2 . . . / 2 . . . / 2 . . . / . . . .", DOWN, ". . . . / . . . . / 2 . . . / 4 . . .", 4),
    ("8 . . 2 / 8 . . 2 / 16 . . 4 / 16 . . 4", UP,
     "16 . . 4 / 32 . . 8 / . . . . / . . . .", 16 + 32 + 4 + 8),
]


@pytest.mark.parametrize("before, action, after, reward", SLIDES)
def test_slide(before, action, after, reward):
    got, gain = slide(board(before), jnp.int32(action))
    np.testing.assert_array_equal(got, board(after))
    assert int(gain) == reward


def test_legal_moves():
    # Rule: a move is legal when it changes the board.
    assert legal_moves(board("2 . . . / . . . . / . . . . / . . . .")).tolist() == [
        False, False, True, True]
    assert legal_moves(board("2 4 2 4 / 4 2 4 2 / 2 4 2 4 / 4 2 4 2")).tolist() == [False] * 4
    assert legal_moves(board("2 4 2 4 / 4 2 4 2 / 2 4 2 8 / 4 2 4 4")).tolist() == [
        True, False, True, False]
    # The mask agrees with "slide changes the board" on random boards.
    boards = jax.random.randint(jax.random.key(0), (500, SIZE, SIZE), 0, 4)
    slides = jax.vmap(lambda b: jax.vmap(lambda a: slide(b, a)[0])(jnp.arange(NUM_ACTIONS)))
    changed = (jax.jit(slides)(boards) != boards[:, None]).any(axis=(2, 3))
    np.testing.assert_array_equal(jax.jit(jax.vmap(legal_moves))(boards), changed)


def test_reward_and_spawn_after_a_move(env):
    state = state_of(env, "2 2 . . / . . . . / . . . . / . . 4 4")
    nxt = env.step(state, jnp.int32(LEFT), jax.random.key(3))
    assert nxt.rewards.shape == (1,) and float(nxt.rewards[0]) == 12.0
    slid = board("4 . . . / . . . . / . . . . / 8 . . .")
    added = np.asarray(nxt._board != slid)
    assert added.sum() == 1 and int(nxt._board[added][0]) in (1, 2)  # one new 2 or 4
    assert int(nxt.current_player) == 0 and not bool(nxt.terminated)


def test_spawn_distribution():
    # Rule: the new tile is a 2 with probability 0.9, a 4 with 0.1, on a uniform empty cell.
    b = board("2 . . . / . 2 . . / . . . . / . . . 2")
    draws = jax.random.bits(jax.random.key(7), (40_000,), jnp.uint32)
    out = np.asarray(jax.jit(jax.vmap(place_tile, (None, 0)))(b, draws)).reshape(-1, SIZE * SIZE)
    new = out - np.asarray(b).reshape(-1)
    assert ((new != 0).sum(axis=1) == 1).all()
    tiles = new.sum(axis=1)
    assert set(np.unique(tiles)) == {1, 2}
    assert abs((tiles == 2).mean() - 0.1) < 0.006
    cells = np.bincount(np.argmax(new != 0, axis=1), minlength=SIZE * SIZE)
    assert (cells[[0, 5, 15]] == 0).all()
    empty = np.delete(cells, [0, 5, 15])
    assert abs(empty / len(tiles) - 1 / 13).max() < 0.006


def test_init(env):
    states = jax.jit(jax.vmap(env.init))(jax.random.split(jax.random.key(1), 4000))
    b = np.asarray(states._board).reshape(-1, SIZE * SIZE)
    assert ((b != 0).sum(axis=1) == 2).all()  # two tiles, on distinct cells
    assert set(np.unique(b[b != 0])) == {1, 2}
    assert 0.07 < (b == 2).sum() / (b != 0).sum() < 0.13
    assert (np.asarray(states.current_player) == 0).all()
    np.testing.assert_array_equal(states.legal_action_mask, jax.vmap(legal_moves)(states._board))


def test_observation_planes(env):
    state = state_of(env, "2 . . 2048 / . 4 . . / . . . . / . . . 131072")
    obs = np.asarray(state.observation)
    assert obs.shape == (SIZE, SIZE, OBS_PLANES) and obs.dtype == bool
    assert (obs.sum(axis=-1) == 1).all()  # one plane per cell
    assert obs[0, 0, 1] and obs[0, 3, 11] and obs[1, 1, 2] and obs[3, 3, 17]
    assert obs[0, 1, OBS_EMPTY_PLANE] and obs[2, 2, OBS_EMPTY_PLANE]


def test_game_over_when_no_move_left(env):
    # Rule: the game ends when no move is legal; the last move still pays its merges.
    state = state_of(env, "4 2 4 2 / 2 4 2 4 / 8 2 4 2 / 16 32 8 8")
    nxt = env.step(state, jnp.int32(RIGHT), jax.random.key(0))
    # 16 32 8 8 -> . 16 32 16 and the new tile (2 or 4) lands on the only empty cell, (3, 0),
    # between an 8 above and a 16 to the right: no move is left whatever it is.
    assert float(nxt.rewards[0]) == 16.0 and int(nxt._board[3, 0]) in (1, 2)
    assert bool(nxt.terminated) and bool(nxt.legal_action_mask.all())
    again = env.step(nxt, jnp.int32(LEFT), jax.random.key(1))
    assert again.rewards.tolist() == [0.0] and int(again._step_count) == int(nxt._step_count)


def test_illegal_move_ends_the_game(env):
    state = state_of(env, "2 . . . / 4 . . . / . . . . / . . . .")
    assert not bool(state.legal_action_mask[LEFT])
    nxt = env.step(state, jnp.int32(LEFT), jax.random.key(0))
    assert bool(nxt.terminated) and nxt.rewards.tolist() == [-1.0]
    assert bool(nxt.legal_action_mask.all())
    # As in pgx, the move is still played (it changes nothing) and a tile is placed.
    added = np.asarray(nxt._board != state._board)
    assert added.sum() == 1 and int(nxt._board[added][0]) in (1, 2)


def test_tile_on_a_full_board_goes_to_cell_0():
    # Only after an illegal move on a full board; pgx then overwrites cell 0 (row 0, col 0).
    full = board("8 2 4 2 / 2 4 2 4 / 4 2 4 2 / 2 4 2 4")
    for draw, exponent in ((0x0000FFFF, 1), (0x00000000, 2)):
        out = np.asarray(place_tile(full, jnp.uint32(draw)))
        assert out[0, 0] == exponent
        np.testing.assert_array_equal(out.reshape(-1)[1:], np.asarray(full).reshape(-1)[1:])


def test_svg(env):
    state = state_of(env, "2 . . 2048 / . 4 . . / . . . . / . . . 131072")
    svg = env.render_svg(state)
    assert svg.startswith("<svg") and "2048" in svg and "131072" in svg


# ----------------------------------------------------------------------- golden games
def test_golden_games():
    """Replay games recorded from pgx 2.6.0 (benchmarks/parity_2048.py --write-golden).

    Notation: boards as rows top to bottom ('.' empty); a move is L/U/R/D, followed by the tile
    that appeared after it ("R 2@r3c0": a 2 at row 3, column 0); `legal` lists the legal moves
    before each move (the last game ends with an illegal one, which still places a tile).
    The recorded tiles are fed to the env through the test env of benchmarks/parity_2048.py.
    """
    parity = _parity_module()
    env = parity.ReplayChance()
    step = jax.jit(env.step)
    games = [json.loads(line) for line in GOLDEN.read_text().splitlines() if line.strip()]
    assert len(games) >= 3
    saw_illegal = False
    for game in games:
        first = np.flatnonzero(np.asarray(board(game["initial"])).reshape(-1))
        exps = np.asarray(board(game["initial"])).reshape(-1)[first]
        code = int(first[0] | (first[1] << 4) | (exps[0] << 8) | (exps[1] << 10))
        state = env.init(parity._key_with(jnp.asarray([code], jnp.uint32))[0])
        np.testing.assert_array_equal(state._board, board(game["initial"]))
        for move, legal, reward in zip(game["moves"], game["legal"], game["rewards"]):
            letter, spawn = move.split()
            action = parity.MOVE_LETTERS.index(letter)
            mask = "".join(c for c, m in zip(parity.MOVE_LETTERS, state.legal_action_mask) if m)
            assert mask == legal, (game["name"], move)
            saw_illegal |= letter not in legal
            tile, row, col = map(int, re.fullmatch(r"(\d+)@r(\d)c(\d)", spawn).groups())
            code = (row * SIZE + col) | ((tile.bit_length() - 1) << 4)
            key = parity._key_with(jnp.asarray([code], jnp.uint32))[0]
            state = step(state, jnp.int32(action), key)
            assert float(state.rewards[0]) == reward, (game["name"], move)
        np.testing.assert_array_equal(state._board, board(game["final"]), err_msg=game["name"])
        assert bool(state.terminated) == game["terminated"]
    assert saw_illegal


# ---------------------------------------------------------------------- pgx parity
def test_parity_with_pgx():
    """1,000 random games, every public field identical at every step (see the docstring of
    benchmarks/parity_2048.py for how pgx's tiles are replayed in our env)."""
    pytest.importorskip("pgx")
    out = _parity_module().run_parity(num_games=1000, seed=0)
    assert out["all_finished"], out
    assert out["mismatched_games"] == 0, out


# ---------------------------------------------------------------------------- docs
def test_docs_match_code():
    text = DOC.read_text()
    assert f"`({SIZE}, {SIZE}, {OBS_PLANES})` bool" in text
    actions = {row[1]: int(row[0]) for row in markdown_table(text, "| id | name |")}
    assert actions == {"LEFT": LEFT, "UP": UP, "RIGHT": RIGHT, "DOWN": DOWN}
    assert len(actions) == NUM_ACTIONS
    planes = []
    for row in markdown_table(text, "| plane | meaning |"):
        lo, _, hi = row[0].partition("–")
        planes += list(range(int(lo), int(hi or lo) + 1))
        if "empty" in row[1]:
            assert int(lo) == OBS_EMPTY_PLANE
    assert planes == list(range(OBS_PLANES))
