"""The review of two hand-made lines: where they part, what they share, what decided."""

from __future__ import annotations

import pytest

from holdemjax.duplicate import review
from holdemjax.duplicate.match import MatchError
from tests.duplicate.lines import SPEC, line, record

OPEN = [[0, 3, 3, 60, 60, None], [0, 4, 0, 0, 0, None]]  # S3 opens, S4 folds: shared


def _lines():
    # hand 0: A calls the open and wins a small pot; B folds to it
    a0 = record(0, 150, OPEN + [[0, 0, 2, 60, 60, None], [1, 3, 1, 0, 0, None],
                                [1, 0, 3, 80, 80, None], [1, 3, 0, 0, 0, None]])
    b0 = record(0, 0, OPEN + [[0, 0, 0, 0, 0, None]], folded_on=0)
    # hand 1: a huge pot both lose the same way (identical lines): never "deciding"
    big = [[0, 0, 3, 2000, 2000, None], [0, 3, 2, 2000, 2000, None]]
    a1 = record(1, -2000, big, allin=True, showdown=True, revealed=5)
    b1 = record(1, -2000, big, allin=True, showdown=True, revealed=5)
    # hand 2: A shoves alone and loses 600 more than B, who called down
    a2 = record(2, -900, [[0, 3, 3, 60, 60, None], [0, 0, 3, 2000, 2000, None],
                          [0, 3, 2, 900, 840, None]], allin=True, showdown=True, revealed=5)
    b2 = record(2, -300, [[0, 3, 3, 60, 60, None], [0, 0, 2, 60, 60, None],
                          [1, 3, 3, 240, 240, None], [1, 0, 2, 240, 240, None]],
                showdown=True, revealed=5)
    return {"A": line("A", [a0, a1, a2]), "B": line("B", [b0, b1, b2])}


def test_first_divergence_with_shared_history():
    r = review.review(SPEC, _lines(), "A", "B")
    assert r["divergent_hands"] == 2 and [d["hand"] for d in r["divergences"]] == [0, 2]
    d = r["divergences"][0]
    assert d["at"] == 2 and d["street"] == "preflop"
    assert [x["text"] for x in d["shared"]] == ["S3 intermediate raises to 60",
                                               "S4 intermediate folds"]
    assert [x["text"] for x in d["b_line"]] == ["hero folds"]
    # the first raise of a street after the flop is a bet (issue 51 point 5: it read "raises")
    assert [x["text"] for x in d["a_line"]] == ["hero calls 60", "S3 intermediate checks",
                                                "hero bets 80", "S3 intermediate folds"]
    assert (d["a_net"], d["b_net"]) == (150, 0) and d["hole"] == ["As", "Kd"]
    assert r["divergences"][1]["at"] == 1
    # a raise after a bet on the same street stays a raise; before the flop every raise is one
    assert review.action_texts(SPEC, [[0, 3, 3, 60, 60], [1, 3, 3, 80, 80], [1, 0, 3, 240, 240],
                                      [2, 3, 1, 0, 0]]) == [
        "S3 intermediate raises to 60", "S3 intermediate bets 80", "hero raises to 240",
        "S3 intermediate checks"]


def test_deciding_hands_are_furthest_from_the_field_not_the_biggest_pot():
    r = review.review(SPEC, _lines(), "A", "B")
    # field mean per hand: (150+0)/2, -2000, -600 -> A's relative: +75, 0, -300
    assert [(d["hand"], d["relative"]) for d in r["deciding"]["A"]] == [(2, -300), (0, 75), (1, 0)]
    assert r["deciding"]["B"][0]["hand"] == 2 and r["deciding"]["B"][0]["relative"] == 300


def test_lone_folds_and_all_ins():
    r = review.review(SPEC, _lines(), "A", "B")
    assert [(x["hand"], x["who"], x["street"]) for x in r["only_folder"]] == [(0, "B", "preflop")]
    assert [(x["hand"], x["who"]) for x in r["only_allin"]] == [(2, "A")]  # not hand 1: both


def test_streets_won_and_lost():
    s = review.review(SPEC, _lines(), "A", "B")["streets"]
    # A: hand 0 won when S3 folded on the flop; hands 1 and 2 lost at showdown
    assert s["A"]["flop"] == {"won": 150, "lost": 0, "net": 150, "hands": 1}
    assert s["A"]["showdown"] == {"won": 0, "lost": 2900, "net": -2900, "hands": 2}
    assert s["B"]["preflop"]["hands"] == 1 and s["B"]["showdown"]["lost"] == 2300


def test_refuses_unknown_or_equal_names():
    with pytest.raises(MatchError, match="no line 'Z'"):
        review.review(SPEC, _lines(), "A", "Z")
    with pytest.raises(MatchError, match="two different lines"):
        review.review(SPEC, _lines(), "A", "A")
