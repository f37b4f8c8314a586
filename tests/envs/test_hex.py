"""Tests of the hex env: API conformance, the rules, golden games and parity with pgx."""

from __future__ import annotations

import importlib.util
import json
import pathlib

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import holdemjax
from holdemjax.envs.hex import (
    NUM_ACTIONS,
    NUM_CELLS,
    OBS_CAN_SWAP,
    OBS_COLOR,
    OBS_MINE,
    OBS_THEIRS,
    SIZE,
    SWAP,
    Hex,
    HexState,
)
from tests.envs.parity import markdown_table

ROOT = pathlib.Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "envs" / "golden" / "hex.jsonl"
DOC = ROOT / "docs" / "hex.md"
COLUMNS = "abcdefghijk"


def _parity_module():
    path = ROOT / "benchmarks" / "parity_hex.py"
    spec = importlib.util.spec_from_file_location("parity_hex", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def cell(name: str) -> int:
    """Hex notation -> action: 'swap', or column a..k and row 1..11 ('a1' top left)."""
    if name == "swap":
        return SWAP
    return (int(name[1:]) - 1) * SIZE + COLUMNS.index(name[0])


@pytest.fixture(scope="module")
def env():
    return Hex()


@pytest.fixture(scope="module")
def step(env):
    return jax.jit(env.step)


def new_game(env, first: int = 0) -> HexState:
    """A game whose colour 0 is played by player `first`."""
    state = env.init(jax.random.key(0))
    state = state.replace(current_player=jnp.int32(first), _first=jnp.int32(first))
    return state.replace(observation=env.observe(state))


def play(env, step, moves, first: int = 0) -> list[HexState]:
    states = [new_game(env, first)]
    for m in moves.split():
        states.append(step(states[-1], jnp.int32(cell(m))))
    return states


def stones(state, color: int) -> set[str]:
    """Cells holding stones of `color`, in Hex notation (from the labels' signs)."""
    labels = np.asarray(state._labels)
    sign = 1 if color == 0 else -1
    return {f"{COLUMNS[i % SIZE]}{i // SIZE + 1}" for i in np.flatnonzero(labels * sign > 0)}


# ---------------------------------------------------------------------------- API
def test_api(env):
    holdemjax.api_test(env, num_games=8, max_steps=130)


def test_registry_and_properties(env):
    assert isinstance(holdemjax.make("hex"), Hex)
    assert (env.id, env.version, env.num_players, env.num_actions) == ("hex", "v0", 2, 122)
    assert env.observation_shape == (SIZE, SIZE, 4)
    assert not env.requires_step_key and env.illegal_action_penalty == -1.0


def test_init(env):
    states = jax.jit(jax.vmap(env.init))(jax.random.split(jax.random.key(0), 2000))
    first = np.asarray(states.current_player)
    assert 0.45 < first.mean() < 0.55  # the first player is drawn from the key
    np.testing.assert_array_equal(first, states._first)
    mask = np.asarray(states.legal_action_mask)
    assert mask[:, :NUM_CELLS].all() and not mask[:, SWAP].any()
    assert not np.asarray(states.observation).any()  # colour 0 to move, no stone, no swap


# ----------------------------------------------------------------------------- rules
def test_players_alternate_and_colour_plane(env, step):
    states = play(env, step, "f6 e5 d4", first=1)
    assert [int(s.current_player) for s in states] == [1, 0, 1, 0]
    # The observer's colour: plane OBS_COLOR is all true for colour 1 (player 0 here).
    assert [bool(s.observation[..., OBS_COLOR].all()) for s in states] == [False, True, False, True]
    assert [bool(s.observation[..., OBS_COLOR].any()) for s in states] == [False, True, False, True]


def test_observation_planes(env, step):
    s = play(env, step, "f6 e5 d4", first=0)[-1]  # player 1 (colour 1) to move
    obs = np.asarray(s.observation)
    assert obs.shape == (SIZE, SIZE, 4) and obs.dtype == bool
    assert set(zip(*np.nonzero(obs[..., OBS_MINE]))) == {(4, 4)}  # e5
    assert set(zip(*np.nonzero(obs[..., OBS_THEIRS]))) == {(5, 5), (3, 3)}  # f6, d4
    assert not obs[..., OBS_CAN_SWAP].any()
    mine_other = np.asarray(env.observe(s, 0))
    np.testing.assert_array_equal(mine_other[..., OBS_MINE], obs[..., OBS_THEIRS])
    assert not mine_other[..., OBS_COLOR].any()


def test_swap_is_legal_only_at_the_second_move(env, step):
    states = play(env, step, "b3 c4 d5")
    assert [bool(s.legal_action_mask[SWAP]) for s in states] == [False, True, False, False]
    assert [bool(s.observation[..., OBS_CAN_SWAP].all()) for s in states] == [
        False, True, False, False]


def test_swap_mirrors_the_stone_and_changes_its_colour(env, step):
    # Rule: after X at c1 (row 0, col 2), SWAP gives an O stone at (row 2, col 0) = a3, and
    # colour 0 (the same player as before) moves next.
    s0, s1, s2 = play(env, step, "c1 swap", first=0)
    assert stones(s2, 0) == set() and stones(s2, 1) == {"a3"}
    assert int(s2.current_player) == 0 and not bool(s2.terminated)
    assert bool(s2.legal_action_mask[cell("c1")]) and not bool(s2.legal_action_mask[cell("a3")])
    assert not bool(s2.legal_action_mask[SWAP])
    obs = np.asarray(s2.observation)  # player 0, colour 0, sees the swapped stone as the opponent's
    assert obs[2, 0, OBS_THEIRS] and obs[..., OBS_MINE].sum() == 0
    # The swapped stone is part of colour 1's chains: a row of O's through a3 wins.
    moves = "c1 swap " + " ".join(f"{c}9 {c}3" for c in COLUMNS[1:])
    last = play(env, step, moves, first=0)[-1]
    assert bool(last.terminated) and last.rewards.tolist() == [-1.0, 1.0]


def test_colour_0_joins_top_and_bottom(env, step):
    moves = " ".join(f"f{r} a{r}" for r in range(1, 11)) + " f11"
    states = play(env, step, moves, first=1)
    assert not any(bool(s.terminated) for s in states[:-1])
    last = states[-1]
    assert bool(last.terminated) and last.rewards.tolist() == [-1.0, 1.0]  # player 1 is colour 0
    assert int(last.current_player) == 0  # the turn passes even after the last move
    assert bool(last.legal_action_mask.all())


def test_colour_1_joins_left_and_right(env, step):
    # Colour 0 fills row 1 (top side only), colour 1 row 5: colour 1 wins at k5.
    moves = " ".join(f"{c}1 {c}5" for c in COLUMNS)
    states = play(env, step, moves, first=0)
    last = states[-1]
    assert bool(last.terminated) and last.rewards.tolist() == [-1.0, 1.0]
    assert all(not s.rewards.any() for s in states[:-1])


def test_neighbours(env, step):
    # Rule: (r, c) touches (r+1, c-1): the anti-diagonal staircase k1, j2, ..., a11 joins top
    # and bottom; the diagonal a1, b2, ..., k11 does not ((r, c) and (r+1, c+1) do not touch).
    stair = [f"{COLUMNS[10 - r]}{r + 1}" for r in range(11)]
    fill = [f"a{r + 1}" for r in range(10)]
    moves = " ".join(m for pair in zip(stair, fill + [""]) for m in pair if m)
    assert bool(play(env, step, moves)[-1].terminated)
    diag = [f"{COLUMNS[r]}{r + 1}" for r in range(11)]
    other = [f"{COLUMNS[r + 1]}{r + 1}" for r in range(10)]  # b1, c2, ..., k10
    moves = " ".join(m for pair in zip(diag, other + [""]) for m in pair if m)
    last = play(env, step, moves)[-1]
    assert not bool(last.terminated)


def test_chains_merge(env, step):
    # Two X chains, f1-f5 and f7-f11, joined by f6: the merged chain wins at once.
    moves = " ".join(f"f{r} a{r}" for r in (1, 2, 3, 4, 5, 7, 8, 9, 10, 11)) + " f6"
    states = play(env, step, moves)
    assert not bool(states[-2].terminated) and bool(states[-1].terminated)
    assert states[-1].rewards.tolist() == [1.0, -1.0]


def test_no_draws(env):
    # Rule: a full board always has a winner; random games always end with ±1.
    def run(key):
        def body(state, k):
            a = holdemjax.experimental.act_randomly(k, state.legal_action_mask)
            nxt = env.step(state, a)
            return nxt, nxt.rewards
        state = env.init(key)
        state, rewards = jax.lax.scan(body, state, jax.random.split(key, NUM_ACTIONS))
        return state.terminated, rewards.sum(axis=0)
    done, total = jax.jit(jax.vmap(run))(jax.random.split(jax.random.key(5), 64))
    assert np.asarray(done).all()
    assert (np.sort(np.asarray(total), axis=1) == [-1.0, 1.0]).all()


def test_illegal_moves(env, step):
    # An occupied cell: the mover loses; the board shows the stone replaced (as pgx does).
    s = play(env, step, "f6 e5 e5", first=0)[-1]
    assert bool(s.terminated) and s.rewards.tolist() == [-1.0, 1.0]
    assert stones(s, 0) == {"f6", "e5"} and stones(s, 1) == set()
    # SWAP after the second move: the lowest-numbered stone is moved to its mirror image.
    s = play(env, step, "d2 c5 swap", first=1)[-1]
    assert bool(s.terminated) and s.rewards.tolist() == [1.0, -1.0]
    assert stones(s, 0) == {"b4"} and stones(s, 1) == {"c5"}


def test_svg(env, step):
    s = play(env, step, "f6 swap e5")[-1]
    svg = env.render_svg(s)
    assert svg.startswith("<svg") and svg.count("<circle") == 2


# ----------------------------------------------------------------------- golden games
def test_golden_games(env, step):
    """Replay games recorded from pgx 2.6.0 (benchmarks/parity_hex.py --write-golden).

    Notation: moves in Hex notation (column a..k, row 1..11, 'swap'), colour 0 first; `board` is
    the final board, rows top to bottom, X = colour 0 (top-bottom), O = colour 1 (left-right).
    """
    games = [json.loads(line) for line in GOLDEN.read_text().splitlines() if line.strip()]
    assert len(games) >= 5
    for game in games:
        states = play(env, step, game["moves"], first=game["first_player"])
        for s in states[1:-1]:
            assert not bool(s.terminated) and not s.rewards.any(), game["name"]
        last = states[-1]
        assert last.rewards.tolist() == game["final_rewards"], game["name"]
        assert bool(last.terminated) == game["terminated"], game["name"]
        assert int(last.current_player) == game["current_player"], game["name"]
        rows = [["." for _ in range(SIZE)] for _ in range(SIZE)]
        for color, mark in ((0, "X"), (1, "O")):
            for name in stones(last, color):
                rows[int(name[1:]) - 1][COLUMNS.index(name[0])] = mark
        assert ["".join(r) for r in rows] == game["board"], game["name"]


# ---------------------------------------------------------------------- pgx parity
def test_parity_with_pgx():
    """1,000 random games (half with a swap, some ending in an illegal move), every public
    field identical at every step; see benchmarks/parity_hex.py."""
    pytest.importorskip("pgx")
    out = _parity_module().run_parity(num_games=1000, seed=0)
    assert out["all_finished"], out
    assert out["with_swap"] > 300 and out["ended_by_illegal_move"] > 50, out
    assert out["mismatched_games"] == 0, out


# ---------------------------------------------------------------------------- docs
def test_docs_match_code():
    import holdemjax.envs.hex as hex_module

    text = DOC.read_text()
    assert f"`({SIZE}, {SIZE}, 4)` bool" in text
    planes = markdown_table(text, "| plane | name |")
    assert [(int(p), getattr(hex_module, name)) for p, name, _ in planes] == [
        (i, i) for i in range(4)]
    assert [name for _, name, _ in planes] == ["OBS_MINE", "OBS_THEIRS", "OBS_COLOR",
                                               "OBS_CAN_SWAP"]
    actions = markdown_table(text, "| id | name |")
    assert actions[0][0] == f"0–{NUM_CELLS - 1}" and actions[1][:2] == [str(SWAP), "SWAP"]
    assert NUM_ACTIONS == NUM_CELLS + 1 == 122
