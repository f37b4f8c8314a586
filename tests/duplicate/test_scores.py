"""Leaderboard figures on hand-made lines whose numbers are worked out here by hand."""

from __future__ import annotations

import math
import statistics

import pytest

from holdemjax.duplicate import scores
from tests.duplicate.lines import SPEC, from_nets, line, record

A = [100, -20, 0, 50]
B = [100, -20, -40, 10]
C = [100, 60, 0, -300]


@pytest.fixture
def three():
    # hand 0: the same line for all; hand 1: A and B played alike, C not; hands 2-3 all differ
    a = from_nets("A", A, same=(0,))
    b = line("B", [record(0, 100, a.hands[0]["actions"]), record(1, -20),
                   record(2, -40), record(3, 10)])
    c = from_nets("C", C, same=(0,))
    return {"A": a, "B": b, "C": c}


def _row(board, name):
    return next(p for p in board["participants"] if p["name"] == name)


def test_relative_chips_and_their_error(three):
    board = scores.leaderboard(SPEC, three)
    means = [(a + b + c) / 3 for a, b, c in zip(A, B, C)]
    r = [x - m for x, m in zip(A, means)]  # 0, -26.67, +13.33, +130
    rel = _row(board, "A")["relative"]
    assert rel["chips"] == pytest.approx(116.6666667)
    assert rel["bb"] == pytest.approx(116.6666667 / 20)
    se = statistics.stdev(r) / 2
    assert rel["se"] == pytest.approx(se)
    assert rel["z"] == pytest.approx(statistics.mean(r) / se)
    need = math.ceil(4 * statistics.variance(r) / statistics.mean(r) ** 2)
    assert rel["hands_for_2sigma"] == need
    assert sum(_row(board, n)["relative"]["chips"] for n in "ABC") == pytest.approx(0)


def test_raw_z_uses_the_unpaired_error(three):
    raw = _row(scores.leaderboard(SPEC, three), "A")["raw"]
    assert raw["chips"] == sum(A) and raw["bb_per_100"] == pytest.approx(100 * sum(A) / 20 / 4)
    assert raw["se"] == pytest.approx(statistics.stdev(A) / 2)
    others = [(b + c) / 2 for b, c in zip(B, C)]
    gap = statistics.mean(a - o for a, o in zip(A, others))
    se_gap = math.sqrt((statistics.variance(A) + statistics.variance(others)) / 4)
    assert raw["gap"] == pytest.approx(gap) and raw["z"] == pytest.approx(gap / se_gap)


def test_matchpoints(three):
    board = scores.leaderboard(SPEC, three)
    # A: hand 0 two ties (1), hand 1 tie B + lose C (.5), hand 2 beat B + tie C (1.5), hand 3 (2)
    mp = _row(board, "A")["matchpoints"]
    assert mp["points"] == 5.0 and mp["max"] == 8 and mp["percent"] == 62.5
    centred = [0, -0.5, 0.5, 1]
    assert mp["per_hand"] == pytest.approx(statistics.mean(centred))
    assert mp["se"] == pytest.approx(statistics.stdev(centred) / 2)
    assert sum(_row(board, n)["matchpoints"]["points"] for n in "ABC") == 4 * 3


def test_divergent_hands_and_head_to_head(three):
    board = scores.leaderboard(SPEC, three)
    assert board["divergent_hands"] == 3  # hand 0 is the only one played alike by everyone
    ab = next(h for h in board["head_to_head"] if (h["a"], h["b"]) == ("A", "B"))
    # A and B played hands 0 and 1 alike: only hands 2 and 3 count, and the note says so
    assert (ab["divergent_hands"], ab["a_wins"], ab["b_wins"], ab["ties"]) == (2, 2, 0, 0)
    assert ab["chips_a_minus_b"] == 80 and "divergent hands only" in ab["note"]
    assert [p["name"] for p in board["participants"]] == ["A", "B", "C"]  # by relative chips


def test_one_participant_is_compared_with_the_intermediate_reference():
    lines = {"solo": from_nets("solo", [50, -10, 0, 5], kind="wasm"),
             "ref:beginner": from_nets("ref:beginner", [0, 0, 0, 0], kind="reference"),
             "ref:intermediate": from_nets("ref:intermediate", [10, -10, 20, 5],
                                           kind="reference")}
    board = scores.leaderboard(SPEC, lines)
    assert board["compared_with"] == "ref:intermediate"
    assert board["field"] == ["solo", "ref:intermediate"]
    assert _row(board, "solo")["relative"]["chips"] == pytest.approx((40 + 0 - 20 + 0) / 2)
    # the helper writes the net into the hero's action: equal nets (hands 1 and 3) are
    # identical lines, so hands 0 and 2 diverge
    assert board["divergent_hands"] == 2


def test_unfinished_lines_count_the_hands_they_played():
    lines = {"A": from_nets("A", [10, 20, 30, 40]), "D": from_nets("D", [0, 0])}
    board = scores.leaderboard(SPEC, lines)
    d = _row(board, "D")
    assert d["hands"] == 2 and d["hands_compared"] == 2
    assert board["hands_compared"] == 2
    assert _row(board, "A")["raw"]["chips"] == 100  # raw counts every hand A played


def test_verdict_edge_cases():
    assert scores.estimate([5.0]) == {"se": None, "z": None, "hands_for_2sigma": None}
    assert scores.estimate([3.0, 3.0, 3.0])["z"] is None  # no spread: no z
    flat = scores.estimate([1.0, -1.0])
    assert flat["hands_for_2sigma"] is None and flat["z"] == 0  # no gap: never decided
    v = scores.verdict(2.0, 16.0, 4)
    assert v == {"se": 2.0, "z": 1.0, "hands_for_2sigma": 16}


def test_head_to_head_matchpoints_count_divergent_hands_only(three):
    """The two-line headline. A and B part on hands 2 and 3 only (hands 0 and 1 are identical
    lines) and A wins both: 100 %, where counting the two identical ties gives 75 %."""
    board = scores.leaderboard(SPEC, {"A": three["A"], "B": three["B"]})
    head = board["headline"]
    assert head["kind"] == "head_to_head" and (head["a"], head["b"]) == ("A", "B")
    assert (head["divergent_hands"], head["identical_hands"]) == (2, 2)
    assert head["points"] == 2.0 and head["max"] == 2 and head["percent"] == 100.0
    assert _row(board, "A")["matchpoints"]["percent"] == 75.0  # every compared hand
    # A vs C part on hands 1 (C wins) and 3 (A wins): 50 %, SE of the centred points
    head = scores.leaderboard(SPEC, {"A": three["A"], "C": three["C"]})["headline"]
    assert head["percent"] == 50.0 and head["z"] == 0.0
    assert head["se"] == pytest.approx(statistics.stdev([-0.5, 0.5]) / math.sqrt(2))


def test_the_divergent_ranking_beyond_head_to_head(three):
    board = scores.leaderboard(SPEC, three)
    head = board["headline"]
    assert head["kind"] == "divergent_ranking" and "within this field" in head["note"]
    assert (head["divergent_hands"], head["identical_hands"]) == (3, 1)
    # A on hands 1-3: tie B + lose C (.5), beat B + tie C (1.5), beat both (2): 4 of 6
    mp = _row(board, "A")["divergent_matchpoints"]
    assert (mp["points"], mp["max"], mp["hands"]) == (4.0, 6, 3)
    assert mp["percent"] == pytest.approx(200 / 3)
    assert mp["se"] == pytest.approx(statistics.stdev([-0.5, 0.5, 1]) / math.sqrt(3))
    assert head["ranking"][0] == "A"


def test_thinking_time_per_decision():
    a = from_nets("A", [1, 2])
    a.think_ms = [30, None, 10, 20]  # None: not measured (a bot seat's action is never timed)
    t = scores.thinking(a)
    assert t == {"decisions": 3, "mean_ms": 20, "median_ms": 20, "max_ms": 30}
    assert scores.thinking(from_nets("B", [0]))["decisions"] == 0
