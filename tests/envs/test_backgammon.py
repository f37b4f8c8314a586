"""Backgammon: conformance, the rules on hand-built positions, golden games recorded from pgx,
the docs against the code, and step-by-step parity with pgx (the shared driver)."""

from __future__ import annotations

import json
import pathlib
import re

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import holdemjax
from holdemjax.envs import backgammon
from holdemjax.envs.backgammon import (
    BAR,
    BOARD_LEN,
    NUM_ACTIONS,
    OBS_BOARD,
    OBS_DICE,
    OFF,
    OPP_BAR,
    OPP_OFF,
    BackgammonState,
    action_name,
    legal_mask,
    parse_action,
    turn_round,
)
from tests.envs.parity import assert_speed_doc, markdown_table, parity_config

ENV = holdemjax.make("backgammon")
ROOT = pathlib.Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "envs" / "golden" / "backgammon.jsonl"
DOC = ROOT / "docs" / "backgammon.md"
step = jax.jit(ENV.step)
_mask = jax.jit(legal_mask)
_observe = jax.jit(ENV.observe)
KEY = jax.random.key(7)


def position(points=None, *, bar=0, opp_bar=0, off=0, opp_off=0, dice=(1, 2), player=0):
    """A state with the mover (`player`) to play `dice` (1..6). `points` maps the mover's point
    numbers (24 .. 1, home board 6 .. 1) to counts: + the mover's checkers, − the opponent's."""
    board = np.zeros(BOARD_LEN, np.int32)
    for point, n in (points or {}).items():
        board[24 - point] = n
    board[[BAR, OPP_BAR, OFF, OPP_OFF]] = [bar, -opp_bar, off, -opp_off]
    assert board[board > 0].sum() == 15 and -board[board < 0].sum() == 15, "15 checkers each"
    faces = jnp.asarray([d - 1 for d in dice], jnp.int32)
    playable = backgammon._playable(faces)
    b = jnp.asarray(board)
    state = BackgammonState(current_player=jnp.int32(player), _board=b, _dice=faces,
                            _playable=playable, legal_action_mask=_mask(b, playable))
    return state.replace(observation=_observe(state))


def legal(state) -> set[str]:
    return {action_name(a) for a in np.flatnonzero(np.asarray(state.legal_action_mask))}


def play(state, *moves, key=KEY):
    for t, m in enumerate(moves):
        state = step(state, jnp.int32(parse_action(m)), jax.random.fold_in(key, t))
    return state


def start(dice=(6, 5), player=0):
    return position({24: 2, 13: 5, 8: 3, 6: 5, 1: -2, 12: -5, 17: -3, 19: -5}, dice=dice,
                    player=player)


# ----------------------------------------------------------------------------- the API
def test_api():
    holdemjax.api_test(ENV, num_games=8, max_steps=256)


def test_encodings():
    assert isinstance(ENV, backgammon.Backgammon)
    assert (ENV.id, ENV.version, ENV.num_players) == ("backgammon", "v2", 2)
    assert ENV.num_actions == NUM_ACTIONS == 156 and ENV.observation_shape == (34,)
    assert ENV.illegal_action_penalty == -3.0 and ENV.requires_step_key
    s = jax.jit(ENV.init)(jax.random.key(0))
    assert s.observation.dtype == jnp.int32
    with pytest.raises(ValueError, match="key"):  # pgx's v2 API: step needs a key
        ENV.step(s, jnp.int32(0))


def test_init_draws_player_and_opening_roll():
    states = jax.jit(jax.vmap(ENV.init))(jax.random.split(jax.random.key(1), 3000))
    first = np.asarray(states.current_player)
    assert 0.45 < first.mean() < 0.55
    dice = np.asarray(states._dice)
    # Rule: the opening roll is two different dice, any of the 30 ordered pairs.
    assert (dice[:, 0] != dice[:, 1]).all()
    assert len({(a, b) for a, b in dice}) == 30
    # Every game starts from the standard position, seen by the player to move.
    np.testing.assert_array_equal(np.asarray(states.observation)[:, OBS_BOARD],
                                  np.broadcast_to(np.asarray(start()._board), (3000, 28)))
    counts = np.asarray(states.observation)[:, OBS_DICE]
    assert (counts.sum(axis=1) == 2).all() and counts.max() == 1


# --------------------------------------------------------------------------- the rules
def test_opening_moves_6_5():
    # Hand-derived from the starting position: a 6 plays 24/18, 13/7 or 8/2 (6/off is not
    # allowed before all checkers are home); a 5 plays 13/8 or 8/3 (24/19 lands on the
    # opponent's 5-point of five checkers, 6/1 on its two checkers).
    s = start((6, 5))
    assert legal(s) == {"24/18", "13/7", "8/2", "13/8", "8/3"}
    assert np.asarray(s.observation)[OBS_DICE].tolist() == [0, 0, 0, 0, 1, 1]


def test_one_die_per_step_then_the_turn_passes():
    s = play(start((6, 5), player=1), "24/18")
    # Same player, the 6 is used: only 5s remain (18/13 now also lands on its own checkers).
    assert int(s.current_player) == 1 and legal(s) == {"18/13", "13/8", "8/3"}
    assert np.asarray(s.observation)[OBS_DICE].tolist() == [0, 0, 0, 0, 1, 0]
    before = s
    key = jax.random.key(42)
    s = step(s, jnp.int32(parse_action("13/8")), key)
    assert int(s.current_player) == 0 and not bool(s.terminated)
    # The board is turned round for the new mover; the new roll is drawn from the step key.
    moved = backgammon.move(before._board, jnp.int32(parse_action("13/8")))
    np.testing.assert_array_equal(s._board, turn_round(moved))
    np.testing.assert_array_equal(s._dice, jax.random.randint(key, (1, 2), 0, 6)[0])
    # Its 24-point holds its own two checkers; our 6-point (five) is its 19-point, our blot
    # on the 18-point its 7-point.
    assert s._board[0] == 2 and s._board[5] == -5 and s._board[17] == -1


def test_turn_round():
    b = start()._board
    np.testing.assert_array_equal(turn_round(turn_round(b)), b)
    # The standard start is symmetric: both players see the same position.
    np.testing.assert_array_equal(turn_round(b), b)
    b2 = play(start(), "24/18")._board
    r = np.asarray(turn_round(b2))
    assert r[23] == -1 and r[17] == -1 and r[6] == 0  # index i is index 23 − i, negated


def test_doubles_give_four_moves():
    s = start((3, 3))
    assert np.asarray(s.observation)[OBS_DICE].tolist() == [0, 0, 4, 0, 0, 0]
    for left, m in zip((3, 2, 1), ("24/21", "24/21", "13/10")):
        s = play(s, m)
        assert int(s.current_player) == 0, m
        assert np.asarray(s.observation)[OBS_DICE].tolist() == [0, 0, left, 0, 0, 0]
    s = play(s, "13/10")
    assert int(s.current_player) == 1  # the fourth move ends the turn


def test_hit_and_enter_from_the_bar():
    # The mover hits the blot on its 10-point; the opponent then has to enter it first.
    s = position({13: 14, 6: 1, 10: -1, 19: -14}, dice=(3, 5))
    s = play(s, "13/10")
    assert s._board[24 - 10] == 1 and s._board[OPP_BAR] == -1
    s = play(s, "13/8")  # the turn passes
    assert int(s.current_player) == 1 and s._board[BAR] == 1 and s._board[OPP_BAR] == 0
    moves = legal(s)
    assert moves and all(m.startswith("bar/") or m == "pass" for m in moves)


def test_entering_blocked_points_and_the_bar_rule():
    # Opponent's checkers: 2 on the mover's 24-point, 2 on its 22-point, 1 on its 23-point.
    pts = {24: -2, 22: -2, 23: -1, 13: 13, 6: 1, 12: -10}
    # Rule: with a checker on the bar nothing else moves; entering needs an open point.
    s = position(pts, bar=1, dice=(2, 4), player=1)
    assert legal(s) == {"bar/23", "bar/21"}  # bar/23 hits the blot there
    # 1 and 3 are blocked (24- and 22-points): no move at all, only the no-op.
    s = position(pts, bar=1, dice=(1, 3), player=1)
    assert legal(s) == {"pass"}
    assert np.asarray(s.legal_action_mask)[:6].all() and s.legal_action_mask.sum() == 6
    for noop in range(6):  # every no-op id passes the turn, keeping the board
        out = step(s, jnp.int32(noop), KEY)
        assert int(out.current_player) == 0 and not bool(out.terminated)
        np.testing.assert_array_equal(out._board, turn_round(s._board))
        assert not out.rewards.any()


def test_either_die_may_be_played_first():
    # The mover's last checker in play is on its 24-point; 5 and 6 each can be played
    # (its 19- and 18-points are open) but not both (its 13-point is blocked). Standard rules
    # force the higher die; pgx (and we) allow either, then the other die is a forced no-op.
    s = position({24: 1, 13: -2, 1: -13}, off=14, dice=(5, 6))
    assert legal(s) == {"24/19", "24/18"}
    s = play(s, "24/19")
    assert legal(s) == {"pass"} and int(s.current_player) == 0
    assert np.asarray(s.observation)[OBS_DICE].tolist() == [0, 0, 0, 0, 0, 1]
    s = play(s, "pass")
    assert int(s.current_player) == 1


def test_bearing_off():
    # All home: 2 on the 5-point, 1 on the 3-point (12 already off). Roll 6-4.
    s = position({5: 2, 3: 1, 24: -15}, off=12, dice=(6, 4))
    # 6: nothing on the 6-point, so the rearmost checker (5-point) bears off with the higher
    # die; the 3-point checker may not. 4: nothing on the 4-point; 5/1 moves inside, and the
    # 3-point checker is not the rearmost.
    assert legal(s) == {"5/off(6)", "5/1"}
    s = play(s, "5/off(6)")
    assert int(s._board[OFF]) == 13 and legal(s) == {"5/1"}
    # Exact dice bear off from any point; the rearmost may use any higher die.
    s = position({5: 1, 3: 1, 2: 1, 24: -15}, off=12, dice=(3, 6))
    assert legal(s) == {"5/2", "3/off", "5/off(6)"}
    # A checker outside the home board: no bearing off at all.
    s = position({7: 1, 5: 1, 3: 1, 24: -15}, off=12, dice=(3, 5))
    assert legal(s) == {"7/4", "7/2", "5/2"}
    # A checker on the bar also forbids it (and every other move but entering).
    s = position({5: 2, 3: 1, 24: -15}, off=11, bar=1, dice=(5, 3))
    assert legal(s) == {"bar/20", "bar/22"}


@pytest.mark.parametrize("player", [0, 1])
@pytest.mark.parametrize("opp, score", [
    (dict(points={12: -14}, opp_off=1), 1),  # the opponent bore off: single
    (dict(points={12: -15}), 2),  # none off: gammon
    (dict(points={12: -14, 3: -1}), 3),  # and one in the winner's home board: backgammon
    (dict(points={12: -14}, opp_bar=1), 2),  # on the bar does not count (as in pgx)
])
def test_winning_scores(player, opp, score):
    s = position({1: 1, **opp.get("points", {})}, off=14, opp_off=opp.get("opp_off", 0),
                 opp_bar=opp.get("opp_bar", 0), dice=(2, 4), player=player)
    assert "1/off(2)" in legal(s)
    out = play(s, "1/off(2)")
    want = [score, -score] if player == 0 else [-score, score]
    assert bool(out.terminated) and out.rewards.tolist() == want
    assert int(out.current_player) == player and bool(out.legal_action_mask.all())
    again = step(out, jnp.int32(0), KEY)
    assert not again.rewards.any() and int(again._step_count) == int(out._step_count)


def test_illegal_moves():
    # A blocked target: −3 for the mover, +3 for the other; the move is still made (pgx): one
    # checker leaves the 24-point and the opponent's five on our 19-point become four.
    s = start((6, 5), player=1)
    out = play(s, "24/19")
    assert bool(out.terminated) and out.rewards.tolist() == [3.0, -3.0]
    board = np.asarray(out.observation)[OBS_BOARD]
    assert board[0] == 1 and board[5] == -4 and board[OPP_BAR] == 0
    assert int(out.current_player) == 1
    assert np.asarray(out.observation)[OBS_DICE].tolist() == [0, 0, 0, 0, 0, 1]
    # From an empty point the count goes to −1.
    out = play(s, "23/17")
    assert np.asarray(out.observation)[1] == -1 and np.asarray(out.observation)[7] == -2
    # An illegal no-op passes the turn and rolls for the other player, then ends the game.
    key = jax.random.key(9)
    out = step(s, jnp.int32(0), key)
    assert bool(out.terminated) and out.rewards.tolist() == [3.0, -3.0]
    assert int(out.current_player) == 0
    np.testing.assert_array_equal(out._board, turn_round(s._board))
    roll = np.asarray(jax.random.randint(key, (1, 2), 0, 6)[0])
    shown = np.asarray(out.observation)[OBS_DICE]
    assert shown.sum() == (4 if roll[0] == roll[1] else 2) and shown[roll].all()
    assert bool(out.legal_action_mask.all())


def test_observation_of_the_player_not_to_move():
    s = play(start((6, 5)), "24/18")
    mine, theirs = np.asarray(ENV.observe(s, 0)), np.asarray(ENV.observe(s, 1))
    np.testing.assert_array_equal(mine, np.asarray(s.observation))
    np.testing.assert_array_equal(theirs[OBS_BOARD], mine[OBS_BOARD])  # same board, pgx's way
    assert not theirs[OBS_DICE].any()


def test_notation_round_trip():
    names = [action_name(a) for a in range(6, NUM_ACTIONS)]
    assert len(set(names)) == NUM_ACTIONS - 6
    assert [parse_action(n) for n in names] == list(range(6, NUM_ACTIONS))
    assert action_name(2 * 6 + 5) == "24/18" and action_name(6 + 2) == "bar/22"
    assert action_name(25 * 6 + 0) == "1/off" and action_name(25 * 6 + 3) == "1/off(4)"


def test_svg():
    s = play(position({13: 14, 6: 1, 10: -1, 19: -14}, dice=(3, 3)), "13/10")
    svg = ENV.render_svg(s)
    assert svg.startswith("<svg") and svg.endswith("</svg>")
    # All 30 checkers (13 + 1 + 1 and 14 + 1 on the bar) and the 3 pips of each of 4 dice.
    assert svg.count("<circle") == 30 + 4 * 3
    assert "black (player 0) to move" in svg


# ------------------------------------------------------------------------ golden games
def _golden():
    return [json.loads(line) for line in GOLDEN.read_text().splitlines() if line.strip()]


def test_golden_games():
    """Replay games recorded from pgx 2.6.0 (benchmarks/parity_backgammon.py --write-golden).

    Keys: init `key(seed)`, step t `fold_in(key(seed), t + 1)`. Each step "P RR LL: MOVE |
    LEGAL" gives the player to move, the roll, the dice left, the move ("!" = illegal) and the
    legal micro-moves; the last state's rewards, board and shown dice are recorded too.
    """
    games = _golden()
    init = jax.jit(ENV.init)
    endings = set()
    seen = dict(mid_turn_pass=0, double=0, higher_die=0, enter=0)
    for game in games:
        base = jax.random.key(game["seed"])
        s = init(base)
        assert int(s.current_player) == game["first_player"], game["name"]
        for t, line in enumerate(game["steps"]):
            head, moves = line.split(" | ")
            who, move = head.split(": ")
            player, roll, left = who.split(" ")
            where = f"{game['name']} step {t}"
            assert int(s.current_player) == int(player), where
            assert "".join(str(int(d) + 1) for d in s._dice) == roll, where
            counts = np.asarray(s.observation)[OBS_DICE]
            assert "".join(str(f + 1) * int(n) for f, n in enumerate(counts)) == left, where
            assert " ".join(sorted(legal(s), key=parse_action)) == moves, where
            # Rule: the no-op is legal only when nothing else is, and then all six ids are.
            mask = np.asarray(s.legal_action_mask)
            assert mask[:6].all() == (moves == "pass") and mask[:6].any() == mask[:6].all()
            illegal = move.endswith("!")
            action = parse_action(move.rstrip("!"))
            assert bool(s.legal_action_mask[action]) != illegal, where
            seen["mid_turn_pass"] += move == "pass" and len(left) < len(roll) * (
                2 if roll[0] == roll[1] else 1)
            seen["double"] += roll[0] == roll[1]
            seen["higher_die"] += "off(" in move
            seen["enter"] += move.startswith("bar/")
            s = step(s, jnp.int32(action), jax.random.fold_in(base, t + 1))
            assert bool(s.terminated) == (t == len(game["steps"]) - 1), where
        assert s.rewards.tolist() == game["rewards"], game["name"]
        assert int(s.current_player) == game["current_player"], game["name"]
        assert np.asarray(s.observation)[OBS_BOARD].tolist() == game["board"], game["name"]
        assert np.asarray(s.observation)[OBS_DICE].tolist() == game["dice_shown"], game["name"]
        last = game["steps"][-1]
        endings.add("illegal" if last.split(" | ")[0].endswith("!")
                    else int(max(game["rewards"])))
    assert endings == {1, 2, 3, "illegal"}
    assert all(v > 0 for v in seen.values()), seen


# ------------------------------------------------------------------------------- parity
def test_parity_with_pgx():
    """1,000 random games step by step against pgx (benchmarks/parity_backgammon.py runs
    10,000): every public field equal at every step, the same keys for both envs; every kind
    of ending and the play events the rules are about must occur."""
    pgx = pytest.importorskip("pgx")
    from holdemjax.parity import run_parity

    report = run_parity(ENV, pgx.make("backgammon"), games=1000, batch=125,
                        **parity_config("backgammon"))
    print(report)
    assert report.ok, str(report)
    assert min(report.endings.values()) > 10, report.endings
    assert min(report.events.values()) > 10, report.events


# --------------------------------------------------------------------------------- docs
def test_docs_match_code():
    text = DOC.read_text()
    rows = markdown_table(text, "| index | name |")
    index = {name: idx for idx, name, _ in rows}
    assert list(index) == ["OBS_POINTS", "BAR", "OPP_BAR", "OFF", "OPP_OFF", "OBS_DICE"]
    assert index["OBS_POINTS"] == f"{backgammon.OBS_POINTS.start}–{backgammon.OBS_POINTS.stop - 1}"
    for name in ("BAR", "OPP_BAR", "OFF", "OPP_OFF"):
        assert index[name] == str(getattr(backgammon, name)), name
    assert index["OBS_DICE"] == f"{OBS_DICE.start}–{OBS_DICE.stop - 1}"
    assert f"`({backgammon.OBS_LEN},)` int32" in text
    actions = markdown_table(text, "| src | ids |")
    assert [r[0] for r in actions] == ["0", "1", "2–25"]
    assert actions[0][1] == "0–5" and actions[1][1] == "6–11"
    assert actions[2][1] == f"12–{NUM_ACTIONS - 1}"
    rewards = markdown_table(text, "| ending | reward |")
    pen = abs(ENV.illegal_action_penalty)
    assert [r[1] for r in rewards] == [f"±{backgammon.SINGLE}", f"±{backgammon.GAMMON}",
                                       f"±{backgammon.BACKGAMMON}", f"−{pen:.0f} / +{pen:.0f}"]
    assert re.search(r"version \| `v2`", text)


def test_docs_speed_figures_come_from_the_results_file():
    """The speed table of docs/backgammon.md is benchmarks/results/board_vs_pgx.json's (the date and
    the load too), written by benchmarks/bench_envs.py."""
    results = json.loads((ROOT / "benchmarks" / "results" / "board_vs_pgx.json").read_text())
    assert_speed_doc(DOC.read_text(), results, {"backgammon"})
