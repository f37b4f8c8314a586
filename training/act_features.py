"""The policy network's observation computed from the player protocol's messages alone.

`holdemjax.training.networks.features` reads the env's observation (`holdemjax.envs.sng_obs`).
A policy exported to WebAssembly (`holdemjax.training.export_wasm`) never sees that observation:
it gets the ``start`` message (the format) and one ``act`` message per decision
(holdemjax/series/PROTOCOL.md §5). This module is the one specification of how the observation
is rebuilt from them; the exported C code (sdk/export/policy_net.c) implements the same steps,
and the tests check both sides: `observation` equals the env's ``state.observation`` bit for bit
at real tournament decisions, and the module's observation equals `observation`.

Every block of `sng_obs.BLOCKS`, from the message (``m``) and the start message's ``format``
(``f``); float32 throughout, products with one reciprocal as `sng_obs.encode` writes them:

* per seat, rotated so that index 0 is ``m["seat"]``: ``stacks``, ``bets``, ``contrib`` (× 1/bb),
  ``folded``, ``allin``, ``not in_hand``, one-hots of ``seat`` (to act), ``button``, ``sb``,
  ``bb``;
* STREET_CHIPS[street, seat]: chips the seat added by its own decisions on that street (blinds
  are not counted): the last ``to`` of its ``history`` entries on the street, minus the blind
  it posted (pre-flop only: ``blinds[0]`` at ``sb``, ``blinds[1]`` at ``bb``; a seat that acts
  after posting posted the whole blind, since a short blind is all-in and never acts);
* STREET_RAISES[street, seat]: its ``history`` entries with code 3 (bet/raise) on the street;
* STREET one-hot, POT ``pot`` / bb, TO_CALL ``legal.call`` / bb, MIN/MAX_RAISE_TO ``legal.raise``
  / bb (0 when ``legal.raise`` is null);
* LEVEL = min(hand // f.hands_per_level, L - 1) × (1/L as a double, rounded), L = len(f.levels);
  BIG_BLIND_SIZE = bb × (1 / f.starting_stack); ANTE = ``blinds[2] > 0``; HANDS_TO_LEVEL = (0 at
  the last level, else hands_per_level - hands played in the level) × (1 / hands_per_level);
  HANDS_TO_CAP = (hand_cap - hand) × (1 / hand_cap); PLAYERS_LEFT = sum(alive) × (1/N as a
  double, rounded).

In a duplicate match (format kind ``"duplicate"``) the same rules read the match's format: one
level, ``hands_per_level`` = ``hand_cap`` = the match's hands, every seat alive.
"""

from __future__ import annotations

import numpy as np

from holdemjax.envs import sng_obs

__all__ = ["RANKS", "SUITS", "card_id", "observation", "street_chips", "street_raises"]

RANKS = "23456789TJQKA"
SUITS = "cdhs"
F32 = np.float32


def card_id(text: str) -> int:
    """Card id 0..51 (4 × rank + suit) of a two-character card (``"As"``)."""
    return 4 * RANKS.index(text[0]) + SUITS.index(text[1])


def street_chips(m: dict) -> np.ndarray:
    """``# [4, N] int64`` chips each seat added by its decisions on each street (see above)."""
    n = len(m["stacks"])
    last = np.zeros((4, n), np.int64)
    acted = np.zeros((4, n), bool)
    for street, seat, _code, to in m["history"]:
        last[street, seat] = to
        acted[street, seat] = True
    posted = np.zeros(n, np.int64)
    sb, bb = m["sb"], m["bb"]
    if 0 <= sb < n:
        posted[sb] += m["blinds"][0]
    if 0 <= bb < n:
        posted[bb] += m["blinds"][1]
    out = last.copy()
    out[0] = np.where(acted[0], last[0] - posted, 0)
    return out


def street_raises(m: dict) -> np.ndarray:
    """``# [4, N] int64`` bets and raises (history code 3) by street and seat."""
    out = np.zeros((4, len(m["stacks"])), np.int64)
    for street, seat, code, _to in m["history"]:
        out[street, seat] += code == 3
    return out


def observation(m: dict, fmt: dict) -> np.ndarray:
    """``# [layout(N).size] float32``: `sng_obs.encode`'s observation of the seat to act, from an
    ``act`` message ``m`` and the start message's ``format`` block ``fmt``."""
    n = len(m["stacks"])
    lay = sng_obs.layout(n)
    seat = m["seat"]
    bb = m["blinds"][1]
    per_bb = F32(1.0) / F32(bb)
    order = [(seat + i) % n for i in range(n)]

    def chips(x):
        return np.asarray(x, np.int64).astype(F32) * per_bb

    def rot(x):
        return np.asarray(x)[..., order]

    def hot(s):
        return (np.arange(n) == s).astype(F32)

    legal = m["legal"]
    raise_to = legal["raise"] or [0, 0]
    levels = len(fmt["levels"])
    hpl, cap, hand = fmt["hands_per_level"], fmt["hand_cap"], m["hand"]
    level = min(hand // hpl, levels - 1)
    to_level = 0 if level >= levels - 1 else hpl - (hand - level * hpl)
    hole = np.zeros(52, F32)
    hole[[card_id(c) for c in m["hole"]]] = 1
    board = np.zeros(52, F32)
    board[[card_id(c) for c in m["board"]]] = 1
    parts = {
        "HOLE": hole,
        "BOARD": board,
        "STACKS": rot(chips(m["stacks"])),
        "BETS": rot(chips(m["bets"])),
        "CONTRIB": rot(chips(m["contrib"])),
        "FOLDED": rot(np.asarray(m["folded"], F32)),
        "ALLIN": rot(np.asarray(m["allin"], F32)),
        "OUT": rot(1 - np.asarray(m["in_hand"], F32)),
        "TO_ACT": rot(hot(seat)),
        "BUTTON": rot(hot(m["button"])),
        "SMALL_BLIND": rot(hot(m["sb"])),
        "BIG_BLIND": rot(hot(m["bb"])),
        "STREET_CHIPS": rot(chips(street_chips(m))).reshape(-1),
        "STREET_RAISES": rot(street_raises(m).astype(F32)).reshape(-1),
        "STREET": (np.arange(4) == m["street"]).astype(F32),
        "POT": chips([m["pot"]]),
        "TO_CALL": chips([legal["call"]]),
        "MIN_RAISE_TO": chips([raise_to[0]]),
        "MAX_RAISE_TO": chips([raise_to[1]]),
        "LEVEL": np.asarray([level], F32) * F32(1.0 / levels),
        "BIG_BLIND_SIZE": np.asarray([bb], F32) * (F32(1.0) / F32(fmt["starting_stack"])),
        "ANTE": np.asarray([m["blinds"][2] > 0], F32),
        "HANDS_TO_LEVEL": np.asarray([to_level], F32) * (F32(1.0) / F32(hpl)),
        "HANDS_TO_CAP": np.asarray([cap - hand], F32) * (F32(1.0) / F32(cap)),
        "PLAYERS_LEFT": np.asarray([sum(map(bool, m["alive"]))], F32) * F32(1.0 / n),
    }
    out = np.concatenate([np.asarray(parts[name], F32).reshape(-1)
                          for name, _, _ in sng_obs.BLOCKS])
    assert out.shape == (lay.size,)
    return out
