"""Othello: conformance, rules against a plain-Python referee, golden games, docs, and
step-by-step parity with pgx."""

import ast
import json
import pathlib
import re

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import holdemjax
from holdemjax.envs import othello
from holdemjax.envs.othello import (
    NUM_ACTIONS,
    OBS_MINE,
    OBS_THEIRS,
    PASS,
    board_array,
    from_board,
    key_coin,
)

ENV = holdemjax.make("othello")
ROOT = pathlib.Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "envs" / "golden" / "othello.jsonl"
step = jax.jit(ENV.step)
DIRECTIONS = [(dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if (dr, dc) != (0, 0)]


def square(name):
    """'d3' -> action id; 'pass' -> PASS."""
    return PASS if name == "pass" else 8 * (int(name[1]) - 1) + "abcdefgh".index(name[0])


def square_name(action):
    return "pass" if action == PASS else "abcdefgh"[action % 8] + str(action // 8 + 1)


def _start(first):
    s = ENV.init(jax.random.key(0))
    return s.replace(current_player=jnp.int32(first), _first_player=jnp.int32(first))


def _picture(rows, x_player=0):
    """[8, 8] board from 8 strings, top row first: '.' empty, 'x' x_player, 'o' the other."""
    code = {".": -1, "x": x_player, "o": 1 - x_player}
    return np.array([[code[ch] for ch in row] for row in rows])


# ---------------------------------------------------------------- plain-Python referee
def ref_flips(board, player, r, c):
    """Squares flipped by `player` playing (r, c) on an [8, 8] board of ids (−1 empty)."""
    if board[r, c] != -1:
        return []
    out = []
    for dr, dc in DIRECTIONS:
        run, rr, cc = [], r + dr, c + dc
        while 0 <= rr < 8 and 0 <= cc < 8 and board[rr, cc] == 1 - player:
            run.append((rr, cc))
            rr, cc = rr + dr, cc + dc
        if run and 0 <= rr < 8 and 0 <= cc < 8 and board[rr, cc] == player:
            out += run
    return out


def ref_mask(board, player):
    mask = np.zeros(NUM_ACTIONS, bool)
    for a in range(64):
        mask[a] = bool(ref_flips(board, player, a // 8, a % 8))
    mask[PASS] = not mask.any()
    return mask


# ------------------------------------------------------------------------------ tests
def test_api():
    holdemjax.api_test(ENV, num_games=8, max_steps=70)


def test_encodings_and_start_position():
    assert (ENV.id, ENV.version, ENV.num_players) == ("othello", "v0", 2)
    assert ENV.num_actions == NUM_ACTIONS == 65 and ENV.observation_shape == (8, 8, 2)
    s = ENV.init(jax.random.key(1))
    obs = np.asarray(s.observation)
    # Black (the player to act) on e4 and d5, white on d4 and e5.
    assert sorted(map(tuple, np.argwhere(obs[..., OBS_MINE]))) == [(3, 4), (4, 3)]
    assert sorted(map(tuple, np.argwhere(obs[..., OBS_THEIRS]))) == [(3, 3), (4, 4)]
    legal = [square_name(a) for a in np.flatnonzero(s.legal_action_mask)]
    assert legal == ["d3", "c4", "f5", "e6"]
    assert s.rewards.tolist() == [0.0, 0.0] and not bool(s.terminated)


def test_observation_is_from_the_observers_view():
    s = step(_start(0), jnp.int32(square("d3")))  # black (player 0) plays d3, flips d4
    obs0, obs1 = np.asarray(ENV.observe(s, 0)), np.asarray(ENV.observe(s, 1))
    assert np.array_equal(obs0[..., 0], obs1[..., 1]) and np.array_equal(obs0[..., 1], obs1[..., 0])
    assert np.array_equal(np.asarray(s.observation), obs1)
    assert obs0[2, 3, OBS_MINE] and obs0[3, 3, OBS_MINE] and obs0[..., OBS_MINE].sum() == 4


def test_a_move_flips_in_all_eight_directions():
    """Rule: every direction with opponent discs closed by an own disc is flipped."""
    board = _picture(["........",
                      ".x.x.x..",
                      "..ooo...",
                      ".xo.ox..",
                      "..ooo...",
                      ".x.x.x..",
                      "........",
                      "........"])
    s = from_board(board, current_player=0)
    out = step(s, jnp.int32(square("d4")))
    after = board_array(out)
    assert (after[1:6, 1:6] >= 0).sum() == (board[1:6, 1:6] >= 0).sum() + 1
    assert (after[2:5, 2:5] == 0).all()  # the eight o's and the new disc are all x now


def test_lines_do_not_wrap_around_the_board_edge():
    """Squares consecutive in reading order across a row end are not a line."""
    # x on h3 and c4 ... with o on a4: a4 follows h3 in reading order, so playing b4 would
    # "flip" a4 if runs wrapped. b4 is legal through c4-d4 (o then x): only c4 flips.
    board = _picture(["........",
                      "........",
                      ".......x",
                      "o.ox....",
                      "........",
                      "........",
                      "........",
                      "........"])
    s = from_board(board, current_player=0)
    assert bool(s.legal_action_mask[square("b4")])
    after = board_array(step(s, jnp.int32(square("b4"))))
    assert after[3, 0] == 1 and after[3, 2] == 0  # a4 stays o, c4 flipped to x


def test_moves_and_flips_on_random_boards_match_a_plain_referee():
    """Random sparse and dense boards (edges and corners included, where a run could wrap):
    the legal squares and the flips of every legal move equal a plain-Python referee."""
    rng = np.random.default_rng(0)
    boards = []
    for density in (0.2, 0.45, 0.7, 0.9):
        for _ in range(60):
            filled = rng.random((8, 8)) < density
            boards.append(np.where(filled, rng.integers(0, 2, (8, 8)), -1))
    own = jnp.asarray(np.stack([othello.bitboard(b == 0) for b in boards]))
    opp = jnp.asarray(np.stack([othello.bitboard(b == 1) for b in boards]))
    moves = np.asarray(jax.jit(jax.vmap(othello._moves))(own, opp))
    pairs, placed = [], []
    for i, b in enumerate(boards):
        got = [a for a in range(64) if (moves[i, a // 32] >> (a % 32)) & 1]
        want = [a for a in range(64) if ref_flips(b, 0, a // 8, a % 8)]
        assert got == want, i
        for a in want:
            pairs.append((i, a))
            placed.append(othello.bitboard(np.arange(64).reshape(8, 8) == a))
    assert len(pairs) > 1000
    idx = np.array([i for i, _ in pairs])
    placed = jnp.asarray(np.stack(placed))
    flips = np.asarray(jax.jit(jax.vmap(othello._flips))(own[idx], opp[idx], placed))
    for (i, a), words in zip(pairs, flips):
        got = sorted(divmod(k, 8) for k in range(64) if (words[k // 32] >> (k % 32)) & 1)
        assert got == sorted(ref_flips(boards[i], 0, a // 8, a % 8)), (i, a)


def _pictures(batch):
    """[n, 8, 8] player-id boards of a batched state (numpy)."""
    words = np.asarray(batch._boards)  # [n, 2 (to act, other), 2 (lo, hi)]
    bits = (words[..., None] >> np.arange(32, dtype=np.uint32)) & 1  # [n, 2, 2, 32]
    bits = bits.reshape(-1, 2, 8, 8).astype(bool)
    p = np.asarray(batch.current_player)[:, None, None]
    return np.where(bits[:, 0], p, np.where(bits[:, 1], 1 - p, -1))


def test_moves_and_flips_match_a_plain_referee():
    """Positions from 128 random games: our legal mask and the board after a random legal
    move equal a plain-Python implementation of the rules."""
    n = 128
    init, vstep = jax.jit(jax.vmap(ENV.init)), jax.jit(jax.vmap(ENV.step))
    s = init(jax.random.split(jax.random.key(5), n))
    checked = 0
    for t in range(70):
        live = ~np.asarray(s.terminated)
        if not live.any():
            break
        action = holdemjax.experimental.act_randomly(jax.random.key(t), s.legal_action_mask)
        nxt = vstep(s, action)
        before, after = _pictures(s), _pictures(nxt)
        masks, players, actions = (np.asarray(s.legal_action_mask),
                                   np.asarray(s.current_player), np.asarray(action))
        for i in np.flatnonzero(live)[::2]:  # half of the games at each step, for time
            board, p, a = before[i], int(players[i]), int(actions[i])
            assert masks[i].tolist() == ref_mask(board, p).tolist()
            want = board.copy()
            if a != PASS:
                for r, c in ref_flips(board, p, a // 8, a % 8) + [(a // 8, a % 8)]:
                    want[r, c] = p
            assert (after[i] == want).all()
            checked += 1
        s = nxt
    assert checked > 3000


def test_pass_is_legal_only_without_a_move():
    """Rule: a player without a move must pass (the only legal action); with a move, passing
    is illegal and ends the game with the penalty."""
    board = _picture(["xoo.....", "........", "........", "........",
                      "........", "........", "........", "........"])
    s = from_board(board, current_player=1)  # o to move: no capture -> only pass
    assert np.flatnonzero(s.legal_action_mask).tolist() == [PASS]
    s = step(s, jnp.int32(PASS))
    assert not bool(s.terminated) and int(s.current_player) == 0
    assert np.flatnonzero(s.legal_action_mask).tolist() == [square("d1")]  # x captures b1-c1
    out = step(s, jnp.int32(PASS))  # passing with a move available
    assert bool(out.terminated) and out.rewards.tolist() == [-1.0, 1.0]


def test_pass_after_pass_ends_the_game_and_counts_discs():
    """Rule: when a pass follows a pass the game ends; more discs wins, equal counts draw."""
    board = _picture(["xx......", "........", "........", "........",
                      "........", "........", "........", ".......o"])
    s = from_board(board, current_player=1)
    s = step(s, jnp.int32(PASS))
    assert not bool(s.terminated)  # one pass does not end the game, even if no one can move
    s = step(s, jnp.int32(PASS))
    assert bool(s.terminated) and s.rewards.tolist() == [1.0, -1.0]  # x (player 0) has 2 vs 1
    board = _picture(["x.......", "........", "........", "........",
                      "........", "........", "........", ".......o"])
    s = from_board(board, current_player=0)
    s = step(step(s, jnp.int32(PASS)), jnp.int32(PASS))
    assert bool(s.terminated) and s.rewards.tolist() == [0.0, 0.0]


def test_taking_the_last_opponent_disc_ends_the_game():
    """Rule: the game ends as soon as one colour has no disc (before any pass)."""
    board = _picture(["xo......"] + ["........"] * 7)
    s = from_board(board, current_player=0)
    out = step(s, jnp.int32(square("c1")))
    assert bool(out.terminated) and out.rewards.tolist() == [1.0, -1.0]


def test_filling_the_board_ends_the_game():
    """Rule: the game ends when the board is full; more discs wins."""
    board = _picture(["xxxxxxxx"] * 4 + ["oooooooo"] * 3 + ["ooooooo."])
    s = from_board(board, current_player=0)
    # x on h8 captures h5-h7 (up column h) and e5-g7 (up the diagonal): 39 x to 25 o.
    assert np.flatnonzero(s.legal_action_mask).tolist() == [square("h8")]
    out = step(s, jnp.int32(square("h8")))
    assert bool(out.terminated) and (board_array(out) >= 0).all()
    assert (board_array(out) == 0).sum() == 39 and out.rewards.tolist() == [1.0, -1.0]


def test_first_player_coin_is_fair():
    keys = jax.random.split(jax.random.key(7), 20000)
    first = np.asarray(jax.vmap(ENV.init)(keys).current_player)
    assert abs(first.mean() - 0.5) < 0.02
    seq = np.asarray(jax.vmap(lambda i: key_coin(jax.random.key(i)))(jnp.arange(20000)))
    assert abs(seq.mean() - 0.5) < 0.02


def _golden():
    return [json.loads(line) for line in GOLDEN.read_text().splitlines() if line.strip()]


@pytest.mark.parametrize("game", _golden(), ids=lambda g: g["name"])
def test_golden_game(game):
    """Replay a recorded game (moves in a1..h8 / pass notation): the legal squares before
    every move, the end exactly at the last move, rewards and the final board."""
    s = _start(game["first_player"])
    moves = game["moves"].split()
    for i, move in enumerate(moves):
        assert not bool(s.terminated), f"ended before move {i}"
        legal = " ".join(square_name(int(a)) for a in np.flatnonzero(s.legal_action_mask))
        assert legal == game["legal"][i], f"move {i}"
        s = step(s, jnp.int32(square(move)))
    assert bool(s.terminated)
    assert s.rewards.tolist() == game["rewards"]
    assert (board_array(s) == _picture(game["final_board"], game["first_player"])).all()


def test_docs_match_the_code():
    doc = ROOT / "docs" / "othello.md"
    rows = re.findall(r"^\| `([A-Z_]+)` \| ([^|]+) \|", doc.read_text(), flags=re.M)
    table = {name: ast.literal_eval(value.strip()) for name, value in rows}
    assert set(table) == {"BOARD_SIZE", "NUM_SQUARES", "PASS", "NUM_ACTIONS", "OBS_MINE",
                          "OBS_THEIRS"}
    for name, value in table.items():
        assert getattr(othello, name) == value, name
    text = doc.read_text()
    assert f"`{ENV.observation_shape}`" in text and f"| `num_actions` | {ENV.num_actions} |" in text
    assert f'| `version` | `"{ENV.version}"` |' in text
    assert f"| {PASS} (`PASS`) |" in text


def test_svg():
    svg = ENV.render_svg(_start(1))
    assert svg.startswith("<svg") and svg.count('fill="black"') >= 2


def test_parity_with_pgx_random_games_with_illegal_moves():
    """1,024 random games stepped together with pgx by the shared driver
    (`holdemjax.parity.run_parity`, the config of benchmarks/parity_othello.py): every public
    field at every step, with an illegal move (an occupied or non-capturing square, a pass while
    a move exists) at 1 % of the moves, so the illegal-action rule and the observation after it
    are compared too (pgx's board after an illegal move: the disc is XORed in, a square keeps
    its opponent disc). Chance is only who moves first: pgx draws it, `prepare` copies it."""
    pgx = pytest.importorskip("pgx")
    from holdemjax.parity import run_parity
    from tests.envs.parity import parity_config

    report = run_parity(ENV, pgx.make("othello"), games=1024, seed=3, illegal_rate=0.01,
                        **parity_config("othello"))
    assert report.ok, str(report)
    assert report.endings["illegal move"] >= 300 and report.endings["ended"] >= 300, report


def test_illegal_move_on_an_occupied_square_shows_what_pgx_shows():
    """Difference from a "nothing happens" reading, kept for pgx parity (docs/othello.md): an
    illegal move on the mover's own disc removes it (pgx XORs the disc in), on an opponent's
    disc that square stays the opponent's (never both planes); flips still apply."""
    s = _start(0)  # player 0 = black: e4 and d5; white: d4 and e5
    own, theirs = square("e4"), square("d4")
    out = step(s, jnp.int32(own))
    assert bool(out.terminated) and out.rewards.tolist() == [-1.0, 1.0]
    obs = np.asarray(out.observation)  # player 1's view: plane 0 = white
    assert not obs[own // 8, own % 8].any()  # the black disc on e4 is gone
    out = step(s, jnp.int32(theirs))
    obs = np.asarray(out.observation)
    assert obs[theirs // 8, theirs % 8].tolist() == [True, False]  # still white's, not both
    assert not (obs[..., 0] & obs[..., 1]).any()


