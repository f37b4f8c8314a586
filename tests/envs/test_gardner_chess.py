"""Gardner chess: conformance, rules derived by hand, golden games recorded from pgx, docs, and
step-by-step parity with pgx (the oracle) through the shared driver."""

from __future__ import annotations

import hashlib
import json
import pathlib

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import holdemjax
from holdemjax.envs import _gardner_rules as rules
from holdemjax.envs import gardner_chess
from holdemjax.envs.gardner_chess import (
    NUM_ACTIONS,
    OBS_COLOR,
    OBS_NEW,
    OBS_NO_PROGRESS,
    OBS_REPEATED,
    OBS_STEP_COUNT,
    START_FEN,
    GardnerChess,
    action_of,
    from_fen,
    move_name,
    to_fen,
)
from tests.envs.parity import assert_speed_doc, markdown_table, parity_config

ENV = holdemjax.make("gardner_chess")
ROOT = pathlib.Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "envs" / "golden" / "gardner_chess.jsonl"
DOC = ROOT / "docs" / "gardner_chess.md"
step = jax.jit(ENV.step)
legal = jax.jit(rules.legal_moves)


def moves_of(state) -> set[str]:
    """The legal moves of an unbatched live state, in board coordinates."""
    black = int(state._turn) == 1
    return {move_name(a, black) for a in np.flatnonzero(state.legal_action_mask)}


def play(state, text: str):
    """Play moves given in board coordinates; returns every state."""
    states = [state]
    for m in text.split():
        s = states[-1]
        states.append(step(s, jnp.int32(action_of(m, int(s._turn) == 1))))
    return states


@pytest.fixture(scope="module")
def pgx_step():
    """pgx's unbatched step, jitted once for the tests that compare single states."""
    pg = pytest.importorskip("pgx.gardner_chess")
    return jax.jit(pg.GardnerChess().step)


def obs_sha1(state) -> str:
    return hashlib.sha1(np.asarray(state.observation, np.float32).tobytes()).hexdigest()


# ------------------------------------------------------------------------------ API
def test_api():
    holdemjax.api_test(ENV, num_games=4, max_steps=80)


def test_registry_and_properties():
    assert isinstance(ENV, GardnerChess)
    assert (ENV.id, ENV.version, ENV.num_players, ENV.num_actions) == ("gardner_chess", "v0",
                                                                      2, 1225)
    assert ENV.observation_shape == (5, 5, 115) and NUM_ACTIONS == 25 * 49
    s = ENV.init(jax.random.key(0))
    assert s.observation.dtype == jnp.float32
    assert not ENV.requires_step_key and ENV.illegal_action_penalty == -1.0


def test_action_tables_match_pgx():
    """Action ids are pgx's: the destination of every (square, plane), the start's moves."""
    utils = pytest.importorskip("pgx._src.gardner_chess_utils")
    np.testing.assert_array_equal(rules.TO, np.asarray(utils.TO_MAP))
    assert np.flatnonzero(utils.INIT_LEGAL_ACTION_MASK).tolist() == list(rules.START_MOVES)


def test_move_names():
    # Hand derivation: b1 is square 5 (file b, rank 1); Nb1-c3 is a knight jump (+1 file,
    # +2 ranks) = plane 48; a pawn push is plane 13 (0 files, +1 rank); planes 0..8 are
    # underpromotions (rook, bishop, knight) x (forward, towards file + 1, towards file - 1).
    assert action_of("b1c3", False) == 5 * 49 + 48 == 293
    assert action_of("a2a3", False) == 1 * 49 + 13 == 62
    assert action_of("a4a5r", False) == 3 * 49 + 0
    assert action_of("a4b5n", False) == 3 * 49 + 7
    assert action_of("b4a5b", False) == 8 * 49 + 5
    # Black's squares are mirrored by rank: black's b5 knight is square 5 of its view.
    assert action_of("b5c3", True) == 293 and move_name(293, True) == "b5c3"
    for a in range(NUM_ACTIONS):
        for black in (False, True):
            assert action_of(move_name(a, black), black) == a


# ---------------------------------------------------------------------------- rules
def test_start_position_and_observation():
    s = ENV.init(jax.random.key(3))
    assert to_fen(s) == START_FEN
    assert moves_of(s) == {"a2a3", "b2b3", "c2c3", "d2d3", "e2e3", "b1a3", "b1c3"}
    obs = np.asarray(s.observation)
    # Row 0 is the observer's far rank (5 for white), column 0 file a; planes P N B R Q K.
    assert obs[3, :, 0].all() and obs[..., 0].sum() == 5  # my pawns on rank 2
    assert [int(np.argmax(obs[4, c, 0:6])) + 1 for c in range(5)] == [4, 2, 3, 5, 6]  # R N B Q K
    assert obs[1, :, 6].all() and obs[0, 4, 11] and obs[0, 0, 9]  # their pawns, king e5, rook a5
    # Positions before the game started are empty boards that count as "not seen before".
    assert obs[..., 14:112].reshape(5, 5, 7, 14)[..., :12].sum() == 0
    assert obs[..., OBS_NEW::14].all() and not obs[..., OBS_REPEATED::14].any()
    assert not obs[..., OBS_COLOR:].any()  # white; step 0; no-progress 0
    s1 = step(s, jnp.int32(action_of("b1c3", False)))
    obs = np.asarray(s1.observation)  # black's view: black's pieces at the bottom, files kept
    assert obs[4, 4, 5] and obs[3, :, 0].all() and obs[0, 4, 11]  # my king e5, their king e1
    assert obs[2, 2, 7] and not obs[0, 1, 7] and obs[0, 1, 14 + 7]  # their knight: c3, was b1
    assert obs[..., OBS_COLOR].all()
    np.testing.assert_allclose(obs[..., OBS_STEP_COUNT], 1 / 256)
    np.testing.assert_allclose(obs[..., OBS_NO_PROGRESS], np.float32(1) / np.float32(100))
    assert obs[4, :, 14 + 3].sum() == 1 and obs[4, 0, 14 + 3]  # my rook on a5 one step ago


def test_a_pinned_piece_moves_only_along_its_line():
    s = from_fen("k3r/5/5/4R/4K w - - 0 1")  # the rook on e2 is pinned by the rook on e5
    assert moves_of(s) == {"e2e3", "e2e4", "e2e5", "e1d1", "e1d2"}


def test_the_king_cannot_step_back_along_the_checking_line():
    s = from_fen("4k/5/5/5/r3K w - - 0 1")  # check from a1: d1 is attacked through e1
    assert moves_of(s) == {"e1d2", "e1e2"}


def test_a_single_check_is_answered_by_capture_block_or_king_move():
    # The bishop on b4 checks e1 over c3 and d2. The rook on b1 can take it (b1b4) but reach
    # neither c3 nor d2; the knight on a1 reaches b3 and c2, neither on the line; the king may
    # go to d1 or e2 but not d2 (on the bishop's diagonal).
    s = from_fen("k4/1b3/5/5/NR2K w - - 0 1")
    assert moves_of(s) == {"b1b4", "e1d1", "e1e2"}


def test_double_check_allows_king_moves_only():
    # Rook e5 and knight d3 both check e1; the rook on a4 could block on e4 but may not; e2 is
    # on the rook's file.
    s = from_fen("k3r/R4/3n1/5/4K w - - 0 1")
    assert moves_of(s) == {"e1d1", "e1d2"}


def test_pawns_push_capture_diagonally_and_promote():
    s = from_fen("2k2/P4/1p3/P4/4K w - - 0 1")
    pawn_moves = {m for m in moves_of(s) if m[:2] in ("a4", "a2")}
    # a4 promotes on a5 four ways (queen by the plain move, three underpromotions);
    # a2 pushes to a3 (empty) and takes on b3 diagonally; it cannot take straight ahead.
    assert pawn_moves == {"a4a5", "a4a5r", "a4a5b", "a4a5n", "a2a3", "a2b3"}
    for move, fen in (("a4a5", "Q1k2"), ("a4a5r", "R1k2"), ("a4a5b", "B1k2"), ("a4a5n", "N1k2")):
        assert to_fen(play(s, move)[-1]).startswith(fen + "/")
    blocked = from_fen("1k3/5/5/p4/P3K w - - 0 1")  # a1 is blocked by the pawn on a2
    assert not any(m.startswith("a1") for m in moves_of(blocked))


@pytest.mark.parametrize("fen, insufficient", [
    ("k4/5/5/5/4K w - - 0 1", True),  # K v K
    ("k4/5/5/5/3NK w - - 0 1", True),  # K + N v K
    ("k4/5/5/5/3BK w - - 0 1", True),  # K + B v K
    ("k4/5/5/5/3RK w - - 0 1", False),
    ("k4/5/5/5/3PK w - - 0 1", False),
    ("kb3/5/5/5/3BK w - - 0 1", True),  # bishops on b5 and d1: both light squares
    ("k1b2/5/5/5/3BK w - - 0 1", False),  # c5 is dark, d1 light
    ("k4/5/5/5/1B1BK w - - 0 1", True),  # two bishops of one colour
    ("k4/5/5/5/2NNK w - - 0 1", False),
    ("kn3/5/5/5/3BK w - - 0 1", False),
])
def test_insufficient_material(fen, insufficient):
    """pgx's rule (OpenSpiel's): at most one minor piece, or only bishops all of one colour."""
    s = from_fen(fen)
    assert bool(rules.insufficient_material(s._board)) is insufficient
    assert bool(s.terminated) is insufficient and not s.rewards.any()


def test_no_progress_ends_at_100_half_moves():
    states = play(from_fen("k4/5/5/5/3RK w - - 98 1"), "d1d2 a5a4")
    assert [int(s._halfmove) for s in states] == [98, 99, 100]
    assert [bool(s.terminated) for s in states] == [False, False, True]
    assert not states[-1].rewards.any() and not bool(states[-1].truncated)
    # A capture or a pawn move resets the count.
    s = play(from_fen("k4/p4/5/5/3RK b - - 98 1"), "a4a3")[-1]
    assert int(s._halfmove) == 0 and not bool(s.terminated)


def test_the_256_step_cap_is_a_terminated_draw_but_a_mate_on_it_pays(pgx_step):
    """pgx ends the game once the step count reaches 256 (terminated, not truncated), a draw
    unless the step mates. Checked by hand and against pgx."""
    pg = pytest.importorskip("pgx.gardner_chess")
    for fen, move, count, want in (("k4/5/5/5/3RK w - - 0 1", "d1d2", 255, (True, [0.0, 0.0])),
                                   ("k4/2K2/5/1Q3/5 w - - 0 1", "b2b5", 255, (True, [1.0, -1.0])),
                                   ("k4/5/5/5/3RK w - - 0 1", "d1d2", 254, (False, [0.0, 0.0]))):
        s = play(from_fen(fen).replace(_step_count=jnp.int32(count)), move)[-1]
        assert (bool(s.terminated), s.rewards.tolist()) == want and not bool(s.truncated)
        assert int(s._step_count) == count + 1
        theirs = pgx_step(pg.State._from_fen(fen).replace(_step_count=jnp.int32(count)),
                           jnp.int32(action_of(move, False)))
        for name in ("observation", "rewards", "terminated", "truncated", "legal_action_mask"):
            np.testing.assert_array_equal(getattr(s, name), getattr(theirs, name), err_msg=name)


def test_checkmate_and_stalemate():
    mate = play(from_fen("k4/2K2/5/1Q3/5 w - - 0 1", current_player=1), "b2b5")[-1]
    assert bool(mate.terminated) and mate.rewards.tolist() == [-1.0, 1.0]  # player 1 mated it
    stale = play(from_fen("k4/5/5/1Q3/4K w - - 0 1"), "b2b3")[-1]
    assert bool(stale.terminated) and not stale.rewards.any()
    mask, check = legal(stale._board)
    assert not mask.any() and not bool(check)


def test_threefold_repetition_counts_positions_with_the_side_to_move():
    states = play(ENV.init(jax.random.key(0)), "b1a3 b5c3 a3b1 c3b5 b1a3 b5c3 a3b1 c3b5")
    assert [bool(s.terminated) for s in states] == [False] * 8 + [True]
    assert [int(s._counts[0]) for s in states] == [1, 1, 1, 1, 2, 2, 2, 2, 3]
    obs = np.asarray(states[4].observation)  # the start again: t = 0 and t = 4 were seen twice
    assert [bool(obs[0, 0, 14 * t + OBS_REPEATED]) for t in range(8)] == [
        True, False, False, False, True, False, False, False]


# --------------------------------------------------------------------- FEN and pgx
def test_fen_states_match_pgx():
    """from_fen makes pgx's `State._from_fen` states (public fields), to_fen inverts it."""
    pg = pytest.importorskip("pgx.gardner_chess")
    fens = list(_fens()) + ["k4/5/1Q3/5/4K b - - 0 1", "kQ3/2K2/5/5/5 b - - 1 1"]
    for fen in fens:
        ours, theirs = from_fen(fen), pg.State._from_fen(fen)
        assert to_fen(ours) == fen == pg._to_fen(theirs)
        for name in ("current_player", "observation", "legal_action_mask", "rewards",
                     "terminated", "truncated"):
            np.testing.assert_array_equal(getattr(ours, name), getattr(theirs, name),
                                          err_msg=f"{fen}: {name}")


def test_observation_of_the_other_player_matches_pgx(pgx_step):
    pgx = pytest.importorskip("pgx")
    penv = pgx.make("gardner_chess")
    ours, theirs = ENV.init(jax.random.key(0)), penv.init(jax.random.PRNGKey(0))
    ours = ours.replace(current_player=theirs.current_player)
    for i, m in enumerate("b2b3 c4c3 b1c3 b5a3 c3b5".split()):
        a = jnp.int32(action_of(m, i % 2 == 1))
        ours, theirs = step(ours, a), pgx_step(theirs, a)
        for p in (0, 1):
            with pytest.warns(DeprecationWarning):
                want = penv.observe(theirs, p)
            np.testing.assert_array_equal(ENV.observe(ours, p), want)


def _fens():
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "parity_gardner_chess", ROOT / "benchmarks" / "parity_gardner_chess.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.FENS


def test_golden_games():
    """Replay games recorded from pgx 2.6.0 (benchmarks/parity_gardner_chess.py --write-golden):
    hand-made ones from FEN (stalemate, mate, underpromotions, bishops of one colour, the
    no-progress rule, black first, pgx's history after a FEN, illegal actions) and the shortest
    random game of each kind of ending. At every step: FEN, player, rewards, terminated, the
    legal actions and a digest of the observation."""
    games = [json.loads(line) for line in GOLDEN.read_text().splitlines() if line.strip()]
    names = {g["name"] for g in games}
    assert len(games) >= 15 and {"random: 256-step cap", "random: checkmate"} <= names
    for game in games:
        if game["fen"]:
            state = from_fen(game["fen"], current_player=game["first_player"])
        else:
            state = ENV.init(jax.random.key(0)).replace(
                current_player=jnp.int32(game["first_player"]))
            state = state.replace(observation=ENV.observe(state))
        states = [state]
        for a in game["moves"]:
            states.append(step(states[-1], jnp.int32(a)))
        for t, (s, want) in enumerate(zip(states, game["steps"], strict=True)):
            where = f"{game['name']}, step {t}"
            assert to_fen(s) == want["fen"], where
            assert int(s.current_player) == want["current_player"], where
            assert s.rewards.tolist() == want["rewards"], where
            assert bool(s.terminated) == want["terminated"], where
            got = ("all" if bool(s.terminated)
                   else [int(a) for a in np.flatnonzero(s.legal_action_mask)])
            assert got == want["legal"], where
            assert obs_sha1(s) == want["obs_sha1"], where


def test_parity_with_pgx():
    """1,000 random games stepped together with pgx (benchmarks/parity_gardner_chess.py: a
    quarter from FEN starts, half with a quiet player, 0.3% illegal moves), every public field
    at every step; every kind of ending occurs."""
    pgx = pytest.importorskip("pgx")
    from holdemjax.parity import run_parity

    cfg = parity_config("gardner_chess")
    report = run_parity(ENV, pgx.make("gardner_chess"), games=1000, batch=500, seed=0, **cfg)
    print(report)
    assert report.ok, str(report)
    assert all(v > 0 for v in report.endings.values()), report.endings


# ---------------------------------------------------------------------- docs, svg
def test_docs_match_code():
    text = DOC.read_text()
    assert "`(5, 5, 115)` float32" in text and "1,225" in text
    rows = markdown_table(text, "| planes | name |")
    names = [r[1] for r in rows]
    assert names == ["OBS_MY_PIECES", "OBS_OPP_PIECES", "OBS_NEW", "OBS_REPEATED", "OBS_COLOR",
                     "OBS_STEP_COUNT", "OBS_NO_PROGRESS"]
    want = []
    for name in names:
        v = getattr(gardner_chess, name)
        if isinstance(v, slice):
            want.append(f"14 t + {v.start}–{v.stop - 1}")
        elif v < gardner_chess.OBS_COLOR:
            want.append(f"14 t + {v}")
        else:
            want.append(str(v))
    assert [r[0] for r in rows] == want
    actions = markdown_table(text, "| planes | moves |")
    assert [r[0] for r in actions] == ["0–8", "9–40", "41–48"]
    assert f"`{gardner_chess.MAX_STEPS}`" in text and f"`{gardner_chess.NO_PROGRESS_LIMIT}`" in text


def test_svg():
    s = play(ENV.init(jax.random.key(1)), "b2b3 c4c3")[-1]
    svg = ENV.render_svg(s)
    assert svg.startswith("<svg") and svg.count("♙") == 5 and svg.count("♟") == 5


def test_docs_speed_figures_come_from_the_results_file():
    """The speed table of docs/gardner_chess.md is benchmarks/results/board_vs_pgx.json's (the
    date and the load too), written by benchmarks/bench_envs.py."""
    results = json.loads((ROOT / "benchmarks" / "results" / "board_vs_pgx.json").read_text())
    assert_speed_doc(DOC.read_text(), results, {"gardner_chess"})
