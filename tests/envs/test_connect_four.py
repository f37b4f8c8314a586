"""Connect four: conformance, rules, golden games, docs, and step-by-step parity with pgx."""

import ast
import itertools
import json
import pathlib
import re

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import holdemjax
from holdemjax.envs import connect_four
from holdemjax.envs.connect_four import (
    NUM_ACTIONS,
    NUM_COLUMNS,
    NUM_ROWS,
    OBS_MINE,
    OBS_THEIRS,
    bitboard,
    board_array,
    from_board,
    key_coin,
)

ENV = holdemjax.make("connect_four")
ROOT = pathlib.Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "envs" / "golden" / "connect_four.jsonl"
step = jax.jit(ENV.step)


def _start(first):
    s = ENV.init(jax.random.key(0))
    return s.replace(current_player=jnp.int32(first), _first_player=jnp.int32(first))


def _play(moves, first=0):
    """Moves as a string of column digits 1..7 (the usual connect-four move string)."""
    s = _start(first)
    for ch in moves:
        s = step(s, jnp.int32(int(ch) - 1))
    return s


def _picture(rows, x_player=0):
    """[6, 7] board from 6 strings, top row first: '.' empty, 'x' x_player, 'o' the other."""
    code = {".": -1, "x": x_player, "o": 1 - x_player}
    return np.array([[code[ch] for ch in row] for row in rows])


def test_api():
    holdemjax.api_test(ENV, num_games=16, max_steps=44)


def test_encodings():
    assert (ENV.id, ENV.version, ENV.num_players) == ("connect_four", "v0", 2)
    assert ENV.num_actions == NUM_ACTIONS == NUM_COLUMNS == 7
    assert ENV.observation_shape == (NUM_ROWS, NUM_COLUMNS, 2)
    s = ENV.init(jax.random.key(1))
    assert s.observation.dtype == jnp.bool_ and not s.observation.any()
    assert s.legal_action_mask.all() and s.rewards.tolist() == [0.0, 0.0]


def test_disc_falls_to_the_bottom_and_row_zero_is_the_top():
    """Rule: a disc falls to the lowest empty cell; the observation's row 0 is the top row."""
    s = _play("44", first=1)  # player 1 drops into column 4 (id 3), then player 0 on top
    obs = np.asarray(s.observation)  # player 1 to act again
    assert obs[5, 3, OBS_MINE] and obs[4, 3, OBS_THEIRS]
    assert obs.sum() == 2
    assert board_array(s)[5, 3] == 1 and board_array(s)[4, 3] == 0


def test_observation_is_from_the_observers_view():
    s = _play("1", first=0)  # player 0 played column 1; player 1 to act
    obs0, obs1 = np.asarray(ENV.observe(s, 0)), np.asarray(ENV.observe(s, 1))
    assert obs0[5, 0].tolist() == [True, False] and obs1[5, 0].tolist() == [False, True]
    assert np.array_equal(np.asarray(s.observation), obs1)


def test_full_column_is_masked_and_illegal():
    """Rule: a full column cannot be played; playing it ends the game with mover −1."""
    s = _play("111111", first=0)
    assert s.legal_action_mask.tolist() == [False] + [True] * 6
    out = step(s, jnp.int32(0))
    assert bool(out.terminated) and out.rewards.tolist() == [-1.0, 1.0]  # player 0 was to act


def _lines():
    """All 69 lines of four cells as ((r, c), ...)."""
    out = []
    for r, c in itertools.product(range(NUM_ROWS), range(NUM_COLUMNS)):
        for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
            cells = [(r + i * dr, c + i * dc) for i in range(4)]
            if all(0 <= rr < NUM_ROWS and 0 <= cc < NUM_COLUMNS for rr, cc in cells):
                out.append(cells)
    return out


def _words(cells):
    board = np.zeros((NUM_ROWS, NUM_COLUMNS), bool)
    for r, c in cells:
        board[r, c] = True
    return bitboard(board)


def test_every_line_of_four_wins_and_three_does_not():
    """Rule: four in a row in any direction wins — all 69 lines; any 3 of them do not."""
    lines = _lines()
    assert len(lines) == 69  # 24 horizontal, 21 vertical, 12 + 12 diagonal
    has_four = jax.jit(connect_four._has_four)
    for cells in lines:
        assert bool(has_four(_words(cells))), cells
        for drop in range(4):
            assert not bool(has_four(_words(cells[:drop] + cells[drop + 1:]))), cells


def test_lines_do_not_wrap_around_the_board_edge():
    """Four cells consecutive in reading order but split over two rows are not a line."""
    has_four = jax.jit(connect_four._has_four)
    for r in range(NUM_ROWS - 1):
        for k in range(1, 4):  # k cells at the end of row r, 4 - k at the start of row r + 1
            cells = ([(r, NUM_COLUMNS - i - 1) for i in range(k)]
                     + [(r + 1, i) for i in range(4 - k)])
            assert not bool(has_four(_words(cells))), cells
    # Diagonals that would wrap: (r, 5), (r+1, 6), (r+2, 0), (r+3, 1).
    assert not bool(has_four(_words([(0, 5), (1, 6), (2, 0), (3, 1)])))
    assert not bool(has_four(_words([(0, 1), (1, 0), (2, 6), (3, 5)])))


def test_win_check_matches_brute_force_on_random_boards():
    rng = np.random.default_rng(0)
    lines = _lines()
    has_four = jax.jit(jax.vmap(connect_four._has_four))
    boards = rng.random((2000, NUM_ROWS, NUM_COLUMNS)) < 0.35
    got = np.asarray(has_four(jnp.asarray(np.stack([bitboard(b) for b in boards]))))
    want = [any(all(b[r, c] for r, c in cells) for cells in lines) for b in boards]
    assert got.tolist() == want


def test_winning_move_and_draw_from_a_picture():
    """Rule: the move that makes four wins (+1/−1); the 42nd disc without four draws (0/0)."""
    board = _picture(["xoxoxo.",
                      "oxoxoxo",
                      "oxoxoxo",
                      "xoxoxox",
                      "xoxoxox",
                      "oxoxoxo"])
    s = from_board(board, current_player=0)
    assert s.legal_action_mask.tolist() == [False] * 6 + [True]
    out = step(s, jnp.int32(6))
    assert bool(out.terminated) and out.rewards.tolist() == [0.0, 0.0]
    board = _picture([".......", ".......", ".......", "x......", "x......", "xooo..."])
    s = from_board(board, current_player=0)  # x to move: column 1 makes four
    out = step(s, jnp.int32(0))
    assert bool(out.terminated) and out.rewards.tolist() == [1.0, -1.0]
    assert int(out.current_player) == 1  # the turn passes even after the last move (pgx)


def test_first_player_coin_is_fair():
    keys = jax.random.split(jax.random.key(7), 20000)
    first = np.asarray(jax.vmap(ENV.init)(keys).current_player)
    assert abs(first.mean() - 0.5) < 0.02  # ~5.7 sigma
    seq = np.asarray(jax.vmap(lambda i: key_coin(jax.random.key(i)))(jnp.arange(20000)))
    assert abs(seq.mean() - 0.5) < 0.02 and abs(np.corrcoef(seq[1:], seq[:-1])[0, 1]) < 0.03


def _golden():
    return [json.loads(line) for line in GOLDEN.read_text().splitlines() if line.strip()]


@pytest.mark.parametrize("game", _golden(), ids=lambda g: g["name"])
def test_golden_game(game):
    """Replay a recorded game: legal columns before every move, the end, rewards, final board."""
    s = _start(game["first_player"])
    for i, ch in enumerate(game["moves"]):
        assert not bool(s.terminated), f"ended before move {i}"
        legal = "".join(str(c + 1) for c in np.flatnonzero(s.legal_action_mask))
        assert legal == game["legal"][i], f"move {i}"
        s = step(s, jnp.int32(int(ch) - 1))
    assert bool(s.terminated)
    assert s.rewards.tolist() == game["rewards"]
    assert (board_array(s) == _picture(game["final_board"], game["first_player"])).all()


def _doc_table(path):
    """Rows `| `NAME` | value | ... |` of a markdown file as {NAME: value}."""
    rows = re.findall(r"^\| `([A-Z_]+)` \| ([^|]+) \|", path.read_text(), flags=re.M)
    return {name: ast.literal_eval(value.strip()) for name, value in rows}


def test_docs_match_the_code():
    doc = ROOT / "docs" / "connect_four.md"
    table = _doc_table(doc)
    assert set(table) == {"NUM_ROWS", "NUM_COLUMNS", "NUM_ACTIONS", "OBS_MINE", "OBS_THEIRS"}
    for name, value in table.items():
        assert getattr(connect_four, name) == value, name
    text = doc.read_text()
    assert f"`{ENV.observation_shape}`" in text and f"| `num_actions` | {ENV.num_actions} |" in text
    assert f'| `version` | `"{ENV.version}"` |' in text


def test_svg():
    s = _play("4453", first=1)
    svg = ENV.render_svg(s)
    assert svg.startswith("<svg") and svg.count("#d62728") == 2 and svg.count("#f2c500") == 2


def test_parity_with_pgx_random_games_with_illegal_moves():
    """1,024 random games stepped together with pgx by the shared driver
    (`holdemjax.parity.run_parity`, the config of benchmarks/parity_connect_four.py): every
    public field at every step; when a column is full, an illegal move into it at 30 % of the
    moves, so the illegal-action rule and the observation after it are compared too. Chance is
    only who moves first: pgx draws it, `prepare` copies it."""
    pgx = pytest.importorskip("pgx")
    from holdemjax.parity import run_parity
    from tests.envs.parity import parity_config

    report = run_parity(ENV, pgx.make("connect_four"), games=1024, seed=3, illegal_rate=0.3,
                        **parity_config("connect_four"))
    assert report.ok, str(report)
    assert report.endings["illegal move"] >= 100 and report.endings["ended"] >= 300, report


def test_full_column_move_replaces_the_bottom_disc_as_pgx_does():
    """pgx plays a full column at row -1, which wraps to the bottom row: the mover's disc
    replaces the bottom cell of that column (docs/connect_four.md); the game ends with the
    penalty."""
    s = _play("111111", first=0)  # column 1: bottom disc player 0's, alternating upwards
    s = step(s, jnp.int32(1))  # player 0 plays column 2, so player 1 is to act
    out = step(s, jnp.int32(0))  # player 1 into the full column 1
    assert bool(out.terminated) and out.rewards.tolist() == [1.0, -1.0]
    obs = np.asarray(out.observation)  # player 0's view
    assert obs[5, 0].tolist() == [False, True]  # bottom of column 1 now player 1's
    assert obs[4, 0].tolist() == [False, True] and obs[3, 0].tolist() == [True, False]


