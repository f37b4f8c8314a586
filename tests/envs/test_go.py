"""Go (go_9x9, go_19x19): conformance (api_test, a batch sharded over faked devices), the rules
against hand-made positions and a plain-Python referee, golden SGF games recorded alongside pgx,
SGF round trips, SVG, docs against the code and the committed benchmark results, and
step-by-step parity with pgx through the shared driver (1,000 9x9 and 100 19x19 games)."""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import holdemjax
from holdemjax.envs import go
from holdemjax.envs.go import (
    HISTORY,
    KOMI,
    NUM_PLANES,
    OBS_COLOR,
    OBS_MINE,
    OBS_THEIRS,
    Go,
    board_array,
    from_sgf,
    to_sgf,
)
from tests.envs.parity import assert_speed_doc, markdown_table, parity_config, speed_rows

ROOT = pathlib.Path(__file__).resolve().parents[2]
GOLDEN = sorted((ROOT / "tests" / "envs" / "golden").glob("go_*.sgf"))
DOC = ROOT / "docs" / "go.md"
RESULTS = ROOT / "benchmarks" / "results" / "go_vs_pgx.json"  # benchmarks/bench_envs.py
ENV9 = holdemjax.make("go_9x9")
ENV19 = holdemjax.make("go_19x19")
STEP9 = jax.jit(ENV9.step)
LETTERS = "abcdefghijklmnopqrs"


def pt(name: str, n: int = 9) -> int:
    """SGF point -> action: column letter then row letter ('ce' = row 4, column 2); 'pass'."""
    if name == "pass":
        return n * n
    return LETTERS.index(name[1]) * n + LETTERS.index(name[0])


def start(env=ENV9, black: int = 0):
    s = env.init(jax.random.key(0))
    return s.replace(current_player=jnp.int32(black), _black=jnp.int32(black))


def play(moves: str, env=ENV9, black: int = 0, step=None) -> list:
    step = step or (STEP9 if env is ENV9 else jax.jit(env.step))
    states = [start(env, black)]
    for m in moves.split():
        states.append(step(states[-1], jnp.int32(pt(m, env.size))))
    return states


def picture(state) -> list[str]:
    return ["".join(".XO"[v] for v in row) for row in board_array(state)]


def legal_points(state) -> set[str]:
    n = int(round(state._lab.shape[-1] ** 0.5))
    return {LETTERS[a % n] + LETTERS[a // n] for a in np.flatnonzero(state.legal_action_mask[:-1])}


# ------------------------------------------------------------------ plain-Python referee
def _chain(board, r, c):
    n, color = board.shape[0], board[r, c]
    seen, todo, libs = {(r, c)}, [(r, c)], set()
    while todo:
        y, x = todo.pop()
        for yy, xx in ((y - 1, x), (y + 1, x), (y, x - 1), (y, x + 1)):
            if 0 <= yy < n and 0 <= xx < n:
                if board[yy, xx] == 0:
                    libs.add((yy, xx))
                elif board[yy, xx] == color and (yy, xx) not in seen:
                    seen.add((yy, xx))
                    todo.append((yy, xx))
    return seen, libs


def ref_play(board, color, r, c):
    """(new board, captured points) after `color` (+1/−1) plays (r, c) legally, or None when
    the move is suicide or the point is taken."""
    if board[r, c] != 0:
        return None
    b = board.copy()
    b[r, c] = color
    taken = []
    for y, x in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
        if 0 <= y < b.shape[0] and 0 <= x < b.shape[0] and b[y, x] == -color:
            stones, libs = _chain(b, y, x)
            if not libs:
                for s in stones:
                    b[s] = 0
                taken += stones
    if not _chain(b, r, c)[1]:
        return None
    return b, sorted(set(taken))


def ref_area(board):
    scores = []
    for me in (1, -1):
        territory = 0
        for r, c in zip(*np.nonzero(board == 0)):
            region, todo, colours = {(r, c)}, [(r, c)], set()
            while todo:
                y, x = todo.pop()
                for yy, xx in ((y - 1, x), (y + 1, x), (y, x - 1), (y, x + 1)):
                    if 0 <= yy < board.shape[0] and 0 <= xx < board.shape[0]:
                        if board[yy, xx] == 0 and (yy, xx) not in region:
                            region.add((yy, xx))
                            todo.append((yy, xx))
                        elif board[yy, xx] != 0:
                            colours.add(board[yy, xx])
            territory += -me not in colours
        scores.append(int((board == me).sum()) + territory)
    return scores


# ----------------------------------------------------------------------------- the API
def test_api_9x9():
    holdemjax.api_test(ENV9, num_games=6, max_steps=170)


def test_api_19x19():
    holdemjax.api_test(ENV19, num_games=2, max_steps=24)


def test_ids_shapes_and_options():
    for env, n in ((ENV9, 9), (ENV19, 19)):
        assert isinstance(env, Go) and (env.id, env.version, env.num_players) == (
            f"go_{n}x{n}", "v1", 2)
        assert env.num_actions == n * n + 1 and env.pass_action == n * n
        assert env.observation_shape == (n, n, NUM_PLANES) == (n, n, 17)
        assert env.max_termination_steps == 2 * n * n and env.komi == KOMI == 7.5
        assert not env.requires_step_key and env.illegal_action_penalty == -1.0
        s = env.init(jax.random.key(3))
        assert s.env_id == env.id and s.observation.dtype == jnp.bool_
    assert holdemjax.make("go_9x9", komi=6.5).komi == 6.5
    with pytest.raises(ValueError, match="size"):
        holdemjax.make("go_9x9", size=19)
    for bad in ("7.5", True, float("nan")):
        with pytest.raises(ValueError, match="komi"):
            holdemjax.make("go_9x9", komi=bad)


def test_init_draws_black_like_pgx():
    """pgx draws black's player as `jax.random.bernoulli(key)`; the initial observation is
    empty (black to move) and every action is legal."""
    keys = jax.random.split(jax.random.key(7), 4000)
    s = jax.jit(jax.vmap(ENV9.init))(keys)
    want = np.asarray(jax.vmap(jax.random.bernoulli)(keys)).astype(np.int32)
    np.testing.assert_array_equal(np.asarray(s.current_player), want)
    np.testing.assert_array_equal(np.asarray(s._black), want)
    assert 0.45 < want.mean() < 0.55
    assert not np.asarray(s.observation).any() and np.asarray(s.legal_action_mask).all()


SHARDED = """
import sys
import jax, numpy as np
from holdemjax.envs import go
assert go.zobrist.cache_info().currsize == 0
a = go.zobrist(9)
print(a.shape, a.dtype, int(a[0, 0, 0]), int(a[1, 80, 1]))
import holdemjax
from jax.sharding import Mesh, NamedSharding, PartitionSpec
env = holdemjax.make("go_9x9")
assert len(jax.devices()) == 2
rows = NamedSharding(Mesh(np.array(jax.devices()), ("b",)), PartitionSpec("b"))

@jax.jit
def run(keys):
    def body(s, k):
        action = holdemjax.act_randomly(k, s.legal_action_mask)
        return jax.vmap(env.step)(s, action), action
    s = jax.vmap(env.init)(keys)
    return jax.lax.scan(body, s, jax.random.split(jax.random.key(1), 12))

final, actions = run(jax.device_put(jax.random.split(jax.random.key(0), 4), rows))
assert len(final._lab.sharding.device_set) == 2
leaves = {str(i): np.asarray(x) for i, x in enumerate(jax.tree.leaves(final))}
np.savez(sys.argv[1], actions=np.asarray(actions), **leaves)
print("sharded ok")
"""


def test_zobrist_at_first_use_and_a_batch_sharded_over_two_devices(tmp_path):
    """In a fresh interpreter: no randomness or table building at import (the table comes from
    a fixed seed, so a fresh process builds the same one); and a batch of 4 games sharded over
    two faked CPU devices (scan of vmap(step)) ends in exactly the states that the same moves
    give here, game by game, with the unbatched compiled step."""
    path = tmp_path / "sharded.npz"
    out = subprocess.run([sys.executable, "-c", SHARDED, str(path)], capture_output=True,
                         text=True, cwd=ROOT,
                         env={"JAX_PLATFORMS": "cpu", "PATH": "",
                              "XLA_FLAGS": "--xla_force_host_platform_device_count=2"})
    assert out.returncode == 0, out.stderr[-3000:]
    lines = out.stdout.split("\n")
    table = go.zobrist(9)
    assert lines[0].split() == ["(2,", "81,", "2)", "uint32", str(table[0, 0, 0]),
                                str(table[1, 80, 1])]
    assert lines[1] == "sharded ok"
    got = np.load(path)
    keys = jax.random.split(jax.random.key(0), 4)
    for row in range(4):
        s = ENV9.init(keys[row])
        for a in got["actions"][:, row]:
            s = STEP9(s, jnp.int32(a))
        for i, leaf in enumerate(jax.tree.leaves(s)):
            np.testing.assert_array_equal(np.asarray(leaf), got[str(i)][row], err_msg=str(i))


# ----------------------------------------------------------------------------- the rules
def test_capture_removes_the_chain_and_frees_its_points():
    """Rule: a chain without liberties is captured; its points become empty and legal."""
    # White's pair ea-eb (column e, rows a-b) loses its last liberty ec to black.
    states = play("da ea fa eb db pass fb pass ec")
    assert picture(states[-2])[:2] == ["...XOX...", "...XOX..."]
    s = states[-1]
    assert picture(s)[:3] == ["...X.X...", "...X.X...", "....X...."]
    assert {"ea", "eb"} <= legal_points(s)  # white may play the freed points again
    assert int(s.current_player) == 1 and not bool(s.terminated)


def test_suicide_is_masked_unless_it_captures():
    # Black stones around aa (ba, ab): white at aa would be suicide; black fills nothing.
    s = play("ba pass ab")[-1]  # white to move
    assert "aa" not in legal_points(s)
    # Now white surrounds black's ba stone so that playing aa captures it: legal.
    s = play("ba ca ab bb ii")[-1]  # white to move; ba has one liberty: aa
    assert "aa" in legal_points(s)
    s2 = STEP9(s, jnp.int32(pt("aa")))
    assert picture(s2)[0][:3] == "O.O" and not bool(s2.terminated)


def test_simple_ko_is_masked_for_one_move_only():
    """Rule: after a single stone with only enemy neighbours takes exactly one stone, the
    opponent may not take back at once; after one other move the ban is gone."""
    # Black: cb, bc, cd; white: db, ec, dd, cc. Black takes cc at dc? Build the classic shape:
    #   . X O .      row b: cb X, db O
    #   X O . O      row c: bc X, cc O, ec O
    #   . X O .      row d: cd X, dd O
    s = play("cb db bc ec cd dd ii cc")[-1]  # black to move; white cc has one liberty: dc
    s = STEP9(s, jnp.int32(pt("dc")))  # black takes cc: a ko
    assert picture(s)[2][:5] == ".X.XO"
    assert "cc" not in legal_points(s) and int(s._ko) == pt("cc")
    out = STEP9(s, jnp.int32(pt("cc")))  # taking back at once is illegal: the mover loses
    assert bool(out.terminated) and out.rewards.tolist() == [1.0, -1.0]
    assert picture(out)[2][:5] == ".XO.O"  # as pgx: the move is played (and captures)
    s = STEP9(STEP9(s, jnp.int32(pt("hh"))), jnp.int32(pt("gg")))  # a threat and an answer
    assert "cc" in legal_points(s)
    s = STEP9(s, jnp.int32(pt("cc")))  # now white takes back, and black may not at once
    assert picture(s)[2][:5] == ".XO.O" and "dc" not in legal_points(s)
    assert not bool(s.terminated)


def test_a_pass_lifts_the_ko_ban():
    """Rule: the ban holds for the very next move only; a pass is that move."""
    s = play("cb db bc ec cd dd ii cc dc pass hh")[-1]  # white passed, black played hh
    assert int(s._ko) == -1 and "cc" in legal_points(s)
    s = STEP9(s, jnp.int32(pt("cc")))
    assert picture(s)[2][:5] == ".XO.O" and not bool(s.terminated)


def test_two_passes_end_the_game_scored_by_area():
    """Hand-scored: black column e (9), white column c (9); columns a-b are white's (18),
    column d touches both (no one's), f-i are black's (36): 45 − 7.5 > 27, black wins."""
    moves = " ".join(f"e{r} c{r}" for r in LETTERS[:9]) + " pass pass"
    states = play(moves, black=1)
    assert all(not bool(s.terminated) for s in states[:-1])
    assert bool(states[-1].terminated) and states[-1].rewards.tolist() == [-1.0, 1.0]
    assert not bool(states[-2].terminated)  # one pass does not end the game
    assert ref_area(board_array(states[-1])) == [45, 27]


SCORE = jax.jit(go._score, static_argnums=1)  # (lab, n, komi) -> rewards by colour


def test_komi_and_equal_scores():
    """One black stone on an empty board: black's area is 81, white's 0. Black wins iff
    81 − komi > 0, so an exact tie under integer komi is white's. The scorer is checked with
    komi as an argument (one compiled program); `make(komi=81)` is stepped once to show the
    option reaches the game."""
    lab = play("ee pass pass")[-1]._lab
    for komi, black_wins in ((80.5, True), (81.0, False), (81.5, False), (7.5, True)):
        assert SCORE(lab, 9, komi).tolist() == ([1.0, -1.0] if black_wins else [-1.0, 1.0])
    env = holdemjax.make("go_9x9", komi=81)
    s = play("ee pass pass", env=env, step=jax.jit(env.step))[-1]
    assert bool(s.terminated) and s.rewards.tolist() == [-1.0, 1.0]  # black is player 0


def test_points_reaching_both_colours_are_no_ones():
    # One stone each: every empty point reaches both, so areas are 1 and 1.
    s = play("cc gg pass pass")[-1]
    assert bool(s.terminated) and s.rewards.tolist() == [-1.0, 1.0]  # 1 − 7.5 < 1
    assert ref_area(board_array(s)) == [1, 1]
    assert SCORE(s._lab, 9, -0.5).tolist() == [1.0, -1.0]


def test_step_cap_ends_the_game_with_the_score():
    """A game of random non-pass moves reaches the step cap (2 N² = 162 steps): it ends there,
    scored like two passes (checked against a plain-Python area count)."""
    rng = np.random.default_rng(1)
    s = start()
    for t in range(ENV9.max_termination_steps):
        assert not bool(s.terminated), t
        legal = np.flatnonzero(np.asarray(s.legal_action_mask)[:-1])
        s = STEP9(s, jnp.int32(rng.choice(legal) if legal.size else 81))
    assert bool(s.terminated) and int(s._step_count) == 162 and not bool(s.truncated)
    b, w = ref_area(board_array(s))
    assert s.rewards.tolist() == ([1.0, -1.0] if b - KOMI > w else [-1.0, 1.0])


def test_illegal_moves_end_the_game_and_show_the_move():
    s = play("ee dd")[-1]
    out = STEP9(s, jnp.int32(pt("dd")))  # black on white's stone
    assert bool(out.terminated) and out.rewards.tolist() == [-1.0, 1.0]
    assert picture(out)[3][3:5] == "X." and picture(out)[4][4] == "X"
    assert bool(out.legal_action_mask.all()) and int(out.current_player) == 1
    again = STEP9(out, jnp.int32(0))
    assert again.rewards.tolist() == [0.0, 0.0] and int(again._step_count) == 3


def test_moves_match_a_plain_referee_in_random_games():
    """Four random 9x9 games: before every move our legal points equal the referee's (suicide
    and simple ko), and after it our board equals the referee's."""
    rng = np.random.default_rng(0)
    checked = 0
    for g in range(4):
        s = start(black=g % 2)
        board, ko = np.zeros((9, 9), int), None
        for t in range(162):
            color = 1 - 2 * (t % 2)
            want = set()
            for a in range(81):
                r, c = divmod(a, 9)
                if ref_play(board, color, r, c) is not None and (r, c) != ko:
                    want.add(LETTERS[c] + LETTERS[r])
            assert legal_points(s) == want, (g, t)
            legal = sorted(want)
            move = "pass" if not legal or rng.random() < 0.03 else legal[rng.integers(len(legal))]
            s = STEP9(s, jnp.int32(pt(move)))
            if move == "pass":
                ko = None
            else:
                r, c = LETTERS.index(move[1]), LETTERS.index(move[0])
                nxt, taken = ref_play(board, color, r, c)
                lone = all(not (0 <= y < 9 and 0 <= x < 9) or board[y, x] == -color
                           for y, x in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)))
                ko = taken[0] if lone and len(taken) == 1 else None
                board = nxt
            np.testing.assert_array_equal(board_array(s), board)
            checked += 1
            if bool(s.terminated):
                break
    assert checked > 300


def test_observation_holds_eight_boards_from_the_observers_view():
    moves = "ee dd ec cc pass ff gg hh ii"
    states = play(moves, black=1)
    last = states[-1]  # 9 steps: white (player 0) to move
    obs = np.asarray(last.observation)
    assert obs.shape == (9, 9, 17) and obs[..., OBS_COLOR].all()  # the observer plays white
    for i in range(HISTORY):
        board = board_array(states[-1 - i])
        np.testing.assert_array_equal(obs[..., 2 * i + OBS_MINE], board == -1)
        np.testing.assert_array_equal(obs[..., 2 * i + OBS_THEIRS], board == 1)
    other = np.asarray(ENV9.observe(last, 1))  # black's view
    assert not other[..., OBS_COLOR].any()
    np.testing.assert_array_equal(other[..., 0:16:2], obs[..., 1:16:2])
    # The first step: one board, empty history before it.
    first = np.asarray(states[1].observation)
    assert first[..., 1].sum() == 1 and not first[..., 2:16].any()


def test_superko_repeat_loses_for_the_mover():
    """The golden superko game (played in pgx): its last move is legal in the mask, recreates
    an earlier board, and ends the game with −1 for the player who made it."""
    record = from_sgf((ROOT / "tests/envs/golden/go_9x9_superko.sgf").read_text())
    s = start(black=record.black_player)
    boards = [board_array(s).tobytes()]
    for a in record.moves[:-1]:
        s = STEP9(s, jnp.int32(a))
        boards.append(board_array(s).tobytes())
    assert bool(s.legal_action_mask[record.moves[-1]]) and not bool(s.terminated)
    mover = int(s.current_player)
    out = STEP9(s, jnp.int32(record.moves[-1]))
    assert board_array(out).tobytes() in boards[1:]
    assert bool(out.terminated) and out.rewards[mover] == -1.0 and out.rewards[1 - mover] == 1.0


# --------------------------------------------------------------------- SGF and golden games
def replay(record, env):
    step = STEP9 if env is ENV9 else jax.jit(env.step)
    states = [start(env, record.black_player)]
    for a in record.moves:
        states.append(step(states[-1], jnp.int32(a)))
    return states


@pytest.mark.parametrize("path", GOLDEN, ids=lambda p: p.stem)
def test_golden_game(path):
    """Replay a golden SGF game (recorded by benchmarks/parity_go.py --write-golden, which
    stepped pgx alongside and checked every public field at every move and pgx's final board
    and result before writing; or scored by hand): it ends exactly at its last move with the
    recorded result and final board, and writing our replay as SGF gives the file back."""
    text = path.read_text()
    record = from_sgf(text)
    env = ENV9 if record.size == 9 else ENV19
    states = replay(record, env)
    assert not any(bool(s.terminated) for s in states[:-1])
    last = states[-1]
    assert bool(last.terminated)
    winner = "B" if last.rewards[record.black_player] > 0 else "W"
    assert record.result.startswith(winner + "+")
    assert picture(last) == record.final_board
    ending = {"superko": "superko", "ko-fight": "superko", "large-capture": "step cap",
              "two-passes": "two passes"}[path.stem.split("_")[-1]]
    assert record.comment.startswith(f"ended: {ending}\n")
    assert to_sgf(states) == text
    if "large-capture" in path.stem:
        stones = [int((board_array(s) != 0).sum()) for s in states]
        assert max(a + 1 - b for a, b in zip(stones, stones[1:])) >= 50
    if "ko-fight" in path.stem:  # a ko point banned, and later retaken by the other side
        kos = [(t, int(s._ko)) for t, s in enumerate(states) if int(s._ko) >= 0]
        assert any(record.moves[u] == k for t, k in kos for u in range(t + 1, len(record.moves)))
    if "two-passes" in path.stem:
        assert record.result == "B+10.5" and ref_area(board_array(last)) == [45, 27]


def test_sgf_round_trip_of_a_stacked_game_and_bad_input():
    """A game given as one state stacked on a time axis (what `lax.scan` returns; stacked here
    from the shared compiled step to save a compile) is written and read back."""
    rng = np.random.default_rng(11)
    states = [ENV9.init(jax.random.key(11))]
    for _ in range(30):
        legal = np.flatnonzero(np.asarray(states[-1].legal_action_mask))
        states.append(STEP9(states[-1], jnp.int32(rng.choice(legal))))
    s0 = states[0]
    traj = jax.tree.map(lambda *xs: jnp.stack(xs), *states[1:])
    stacked = jax.tree.map(lambda *xs: jnp.stack(xs), *states)
    text = to_sgf(stacked)
    record = from_sgf(text)
    assert record.size == 9 and record.komi == 7.5 and record.result is None
    assert record.black_player == int(s0._black) and len(record.moves) == 30
    again = replay(record, ENV9)
    np.testing.assert_array_equal(board_array(again[-1]),
                                  board_array(jax.tree.map(lambda x: x[-1], traj)))
    assert from_sgf("(;GM[1]SZ[9];B[tt];W[aa])").moves == (81, 0)
    for bad in ("", "(;GM[1]SZ[9];W[aa])", "(;GM[1]SZ[9];B[zz])", "(;GM[1]SZ[9]AB[aa])",
                "(;GM[1]SZ[9];B[aa](;W[bb]))"):
        with pytest.raises(ValueError):
            from_sgf(bad)


# ------------------------------------------------------------------------------- drawing
def test_svg():
    s = play("ee dd cc")[-1]
    svg = ENV9.render_svg(s)
    assert svg.startswith("<svg") and svg.count('fill="white" stroke') == 1
    assert svg.count('fill="black" stroke') == 2
    with pytest.raises(ValueError):
        ENV9.render_svg(jax.vmap(ENV9.init)(jax.random.split(jax.random.key(0), 2)))


# ---------------------------------------------------------------------------------- docs
def test_docs_match_code():
    text = DOC.read_text()
    props = {r[0]: r[1:] for r in markdown_table(text, "| property |")}
    for i, env in enumerate((ENV9, ENV19)):
        assert props["`id`"][i] == f'`"{env.id}"`' and props["`version`"][i] == f'`"{env.version}"`'
        assert props["`num_actions`"][i] == str(env.num_actions)
        assert props["`observation_shape`"][i] == f"`{env.observation_shape}` bool"
        assert props["`max_termination_steps`"][i] == str(env.max_termination_steps)
    consts = {r[0].strip("`"): r[1] for r in markdown_table(text, "| constant | value |")}
    assert set(consts) == {"HISTORY", "OBS_MINE", "OBS_THEIRS", "OBS_COLOR", "NUM_PLANES", "KOMI"}
    for name, value in consts.items():
        assert getattr(go, name) == float(value), name
    planes = markdown_table(text, "| plane | name |")
    assert [p[0] for p in planes] == ["`2 i`, i = 0 … 7", "`2 i + 1`, i = 0 … 7", str(OBS_COLOR)]
    actions = markdown_table(text, "| id | name |")
    assert [a[1] for a in actions] == ["point", "PASS"]
    assert "_ROWS" not in text and "SPEED_NOTE" not in text
    assert [r[0] for r in markdown_table(text, "| env | games |")] == ["`go_9x9`", "`go_19x19`"]


def test_docs_speed_figures_come_from_the_results_file():
    """Every speed figure in docs/go.md is the committed results file's (date and load too)."""
    results = json.loads(RESULTS.read_text())
    text = DOC.read_text()
    assert_speed_doc(text, results, None)  # the table, the date and the load
    assert {c["key"] for c in results["comparisons"]} == {"go_9x9 B=1024", "go_19x19 B=1024"}
    # how the ratio scales with the batch (issue 18): go 9x9 at three batch sizes
    batches = json.loads(RESULTS.with_name("go9_batches.json").read_text())
    assert markdown_table(text, "| env | batch size |") == speed_rows(batches)
    assert {c["batch"] for c in batches["cells"]} == {256, 1024, 4096}
    assert f"at load average {batches['machine']['load_average_before'][0]:.1f}" in text


# ----------------------------------------------------------------------------- pgx parity
@pytest.mark.parametrize("env_id,games,rate", [("go_9x9", 1000, 0.002), ("go_19x19", 100, 0.0005)])
def test_parity_with_pgx(env_id, games, rate):
    """Every public field at every step equals pgx's, over random games (benchmarks/
    parity_go.py's hooks); every kind of ending occurs: superko, two passes, step cap, illegal."""
    pgx = pytest.importorskip("pgx")
    from holdemjax.parity import run_parity

    config = parity_config("go")[env_id]
    report = run_parity(holdemjax.make(env_id), pgx.make(env_id), games=games, seed=1,
                        illegal_rate=rate, **config)
    print(report)
    assert report.ok, str(report)
    assert all(v > 0 for v in report.endings.values()), report.endings
    # docs/go.md shows these very counts.
    row = {r[0]: r for r in markdown_table(DOC.read_text(), "| env | games |")}[f"`{env_id}`"]
    assert row == [f"`{env_id}`", f"{games:,}", f"{report.game_steps:,}",
                   *(f"{report.endings[k]:,}" for k in config["ending_names"]), "0"], str(report)
