"""Matchmaking (holdemjax/league/matchmaking.py): balanced line-ups (every bot within one series
of every other after every series), no line-up repeated while a balanced unplayed one exists,
the same draws from the same seed, and each series' seed from (league seed, index) alone."""

from __future__ import annotations

import itertools

import pytest

from holdemjax.league import matchmaking


@pytest.mark.parametrize("bots,seats,count", [(7, 6, 30), (12, 6, 20), (9, 9, 3), (10, 9, 25),
                                              (40, 9, 50), (8, 6, 28)])
def test_every_bot_within_one_series_after_every_series(bots, seats, count):
    played = [0] * bots
    for lineup in matchmaking.lineups(bots, seats, count, league_seed=1):
        assert len(lineup) == seats == len(set(lineup))
        assert all(0 <= b < bots for b in lineup)
        for b in lineup:
            played[b] += 1
        assert max(played) - min(played) <= 1, played


def _balanced_choices(played, seats):
    low = min(played)
    fewest = [b for b, n in enumerate(played) if n == low]
    ahead = [b for b, n in enumerate(played) if n == low + 1]
    if len(fewest) >= seats:
        return {frozenset(c) for c in itertools.combinations(fewest, seats)}
    return {frozenset(fewest) | frozenset(c)
            for c in itertools.combinations(ahead, seats - len(fewest))}


@pytest.mark.parametrize("bots,seats,count,seed", [(8, 6, 40, 0), (8, 6, 40, 7), (7, 6, 21, 3),
                                                   (10, 9, 30, 2), (9, 6, 100, 4)])
def test_no_lineup_repeats_while_a_balanced_one_is_unplayed(bots, seats, count, seed):
    played, seen, repeats = [0] * bots, set(), 0
    for lineup in matchmaking.lineups(bots, seats, count, league_seed=seed):
        key = frozenset(lineup)
        if key in seen:
            repeats += 1
            assert _balanced_choices(played, seats) <= seen, "repeated with an unplayed choice"
        seen.add(key)
        for b in lineup:
            played[b] += 1
    assert len(seen) + repeats == count


def test_few_repeats_and_the_same_draws_from_the_same_seed():
    """8 bots at 6 seats, 28 series (as many as there are line-ups): balance comes first, so
    a few line-ups repeat, but at least 24 of the 28 are distinct; the same seed draws the same
    line-ups, slot order included, another seed others."""
    first = matchmaking.lineups(8, 6, 28, league_seed=11)
    assert first == matchmaking.lineups(8, 6, 28, league_seed=11)
    assert first != matchmaking.lineups(8, 6, 28, league_seed=12)
    assert len({frozenset(x) for x in first}) >= 24


def test_slot_order_is_shuffled():
    lineups = matchmaking.lineups(6, 6, 20, league_seed=0)
    assert len({tuple(x) for x in lineups}) > 1  # one set of bots, different slot orders
    assert {frozenset(x) for x in lineups} == {frozenset(range(6))}


def test_too_few_bots_is_an_error():
    with pytest.raises(ValueError, match="at least 6 bots, got 5"):
        matchmaking.lineups(5, 6, 1, league_seed=0)


def test_series_seed_depends_on_league_seed_and_index_only():
    seeds = [matchmaking.series_seed(3, i) for i in range(200)]
    assert seeds == [matchmaking.series_seed(3, i) for i in range(200)]
    assert len(set(seeds)) == 200
    assert all(0 <= s < 2**31 for s in seeds)
    assert seeds[:10] != [matchmaking.series_seed(4, i) for i in range(10)]


@pytest.mark.parametrize("bots,seats,games,per,expected", [
    (12, 6, 30, 10, 6),   # 3 series each, 36 seats
    (7, 6, 4, 2, 3),      # 2 each, 14 seats -> 3 tables
    (40, 9, 30, 10, 14),  # 3 each, 120 seats -> 14 tables
    (9, 9, 1, 10, 1),
])
def test_series_count(bots, seats, games, per, expected):
    count = matchmaking.series_count(bots, seats, games, per)
    assert count == expected
    # and every bot then plays at least `games` games
    played = [0] * bots
    for lineup in matchmaking.lineups(bots, seats, count, league_seed=0):
        for b in lineup:
            played[b] += per
    assert min(played) >= games
