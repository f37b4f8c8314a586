"""Matchmaking: balanced random line-ups and the seed of every series.

`series_seed` gives series ``index`` of a league its series seed from the league seed alone, so
each series can be re-run (and replayed by ``holdemjax replay``) on its own. `lineups` draws the
qualifying line-ups one series after another: the bots who have played the fewest series so far
are seated first (so every bot stays within one series of every other), the rest of the table
is drawn at random among those one series ahead, and a line-up (as a set of bots) already played
is drawn again while an unplayed one exists among the balanced choices. The slot order inside a
line-up is shuffled too (seats are shuffled every tournament by the series host itself).
"""

from __future__ import annotations

import itertools
import math

import numpy as np

__all__ = ["series_seed", "lineups", "series_count", "MAX_ENUMERATED"]

#: When random draws keep hitting played line-ups, the balanced choices are enumerated in full
#: up to this many (past it, a pool that large has unplayed line-ups the draws find).
MAX_ENUMERATED = 50_000
_DRAWS = 64


def series_seed(league_seed: int, index: int) -> int:
    """The series seed of series ``index`` (qualifying and final alike, numbered across the
    league) of the league ``league_seed``: a 31-bit integer."""
    words = np.random.SeedSequence([int(league_seed), int(index), 0x1EA6]).generate_state(1)
    return int(words[0] >> 1)


def series_count(bots: int, seats: int, games: int, per_series: int) -> int:
    """How many qualifying series give every one of ``bots`` at least ``games`` games at a table
    of ``seats`` when a series has ``per_series`` games."""
    each = math.ceil(games / per_series)
    return math.ceil(bots * each / seats)


def lineups(bots: int, seats: int, count: int, league_seed: int) -> list[list[int]]:
    """``count`` line-ups of ``seats`` bots out of ``bots`` (indices), slot order included."""
    if bots < seats:
        raise ValueError(f"a table of {seats} needs at least {seats} bots, got {bots}")
    rng = np.random.default_rng([int(league_seed), 0x5EA7])
    played: list[int] = [0] * bots
    seen: set[tuple[int, ...]] = set()
    out = []
    for _ in range(count):
        low = min(played)
        fewest = [b for b in range(bots) if played[b] == low]
        ahead = [b for b in range(bots) if played[b] == low + 1]
        if len(fewest) >= seats:
            must, pick_from, k = [], fewest, seats
        else:
            must, pick_from, k = fewest, ahead, seats - len(fewest)
        chosen = _draw(rng, must, pick_from, k, seen)
        seen.add(tuple(sorted(chosen)))
        for b in chosen:
            played[b] += 1
        out.append([int(b) for b in rng.permutation(chosen)])
    return out


def _draw(rng, must: list[int], pick_from: list[int], k: int, seen) -> list[int]:
    """``must`` plus ``k`` of ``pick_from``: at random, an unplayed set when one exists."""
    first = None
    for _ in range(_DRAWS):
        pick = must + [pick_from[i] for i in sorted(rng.choice(len(pick_from), k, replace=False))]
        first = first or pick
        if tuple(sorted(pick)) not in seen:
            return pick
    if math.comb(len(pick_from), k) <= MAX_ENUMERATED:
        unplayed = [must + list(c) for c in itertools.combinations(pick_from, k)
                    if tuple(sorted(must + list(c))) not in seen]
        if unplayed:
            return unplayed[int(rng.integers(len(unplayed)))]
    return first  # every balanced line-up was played: a repeat is allowed
