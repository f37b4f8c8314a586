"""The observation of the hold'em table envs: a fixed-size float32 vector from one seat's view.

Seat-indexed blocks are rotated so that index 0 is the observer, 1 the next seat clockwise, and
so on. Chip amounts are in big blinds of the current level. `layout(num_seats)` names every slice;
docs/sng.md lists them (a test checks the doc against this module).
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp

from holdemjax.poker import table
from holdemjax.poker.structure import level_at
from holdemjax.poker.tournament import Tournament

__all__ = ["BLOCKS", "Layout", "layout", "encode"]

#: (name, width, description). Width "N" = one entry per seat (relative to the observer),
#: "4N" = per street (pre-flop, flop, turn, river) × per relative seat.
BLOCKS: tuple[tuple[str, object, str], ...] = (
    ("HOLE", 52, "own hole cards, multi-hot over card ids 0..51"),
    ("BOARD", 52, "visible board cards, multi-hot over card ids"),
    ("STACKS", "N", "chips behind, big blinds"),
    ("BETS", "N", "chips put in on this street, big blinds"),
    ("CONTRIB", "N", "chips put in this hand (this street included), big blinds"),
    ("FOLDED", "N", "1 if folded this hand"),
    ("ALLIN", "N", "1 if all-in"),
    ("OUT", "N", "1 if not dealt in (eliminated)"),
    ("TO_ACT", "N", "one-hot: the seat to act"),
    ("BUTTON", "N", "one-hot: the button (may be an empty seat: dead button)"),
    ("SMALL_BLIND", "N", "one-hot: the small-blind seat (may be empty: dead small blind)"),
    ("BIG_BLIND", "N", "one-hot: the big-blind seat"),
    ("STREET_CHIPS", "4N", "chips put in per street and seat this hand, big blinds"),
    ("STREET_RAISES", "4N", "bets and raises made per street and seat this hand"),
    ("STREET", 4, "one-hot street: pre-flop, flop, turn, river"),
    ("POT", 1, "chips in the middle (bets and ante included), big blinds"),
    ("TO_CALL", 1, "chips the observer needs to call, big blinds (capped at its stack)"),
    ("MIN_RAISE_TO", 1, "smallest raise-to, big blinds (0 unless the observer may raise)"),
    ("MAX_RAISE_TO", 1, "largest raise-to (all-in), big blinds (0 unless it may raise)"),
    ("LEVEL", 1, "blind level / number of levels"),
    ("BIG_BLIND_SIZE", 1, "big blind / starting stack"),
    ("ANTE", 1, "1 if a big-blind ante is posted this level"),
    ("HANDS_TO_LEVEL", 1, "hands until the blinds rise / hands per level"),
    ("HANDS_TO_CAP", 1, "hands until the hand cap / hand cap"),
    ("PLAYERS_LEFT", 1, "players still in / seats"),
)


@dataclasses.dataclass(frozen=True)
class Layout:
    num_seats: int
    slices: dict  # name -> slice
    size: int

    def __getitem__(self, name: str) -> slice:
        return self.slices[name]


def layout(num_seats: int) -> Layout:
    """Named slices of the observation for a table of `num_seats`."""
    slices, start = {}, 0
    for name, width, _ in BLOCKS:
        w = {"N": num_seats, "4N": 4 * num_seats}.get(width, width)
        slices[name] = slice(start, start + w)
        start += w
    return Layout(num_seats, slices, start)


def _inv(x) -> jax.Array:
    return 1.0 / jnp.asarray(x, jnp.float32)


def _rotated(rows: jax.Array, seat: jax.Array) -> jax.Array:
    """``# [..., N] -> [..., N]``: ``rows[..., (seat + i) % N]`` at index i (the observer first),
    as index arithmetic: no roll, concatenate or gather."""
    n = rows.shape[-1]
    src = (seat % n + jnp.arange(n)) % n
    out = jnp.zeros_like(rows)
    for j in range(n):
        out = jnp.where(src == j, rows[..., j:j + 1], out)
    return out


def encode(lay: Layout, tour: Tournament, seat: jax.Array) -> jax.Array:
    """`# [lay.size] float32`: the observation of the player at `seat` of the tournament."""
    fmt = tour.format
    t: table.Table = tour.table
    n = lay.num_seats
    seats = jnp.arange(n)
    # Divisions are written as products with one reciprocal, so that every compiled form
    # (batched or not) rounds the same way and observations stay bit-identical.
    per_bb = 1.0 / t.big_blind.astype(jnp.float32)
    chips = lambda x: x.astype(jnp.float32) * per_bb
    flag = lambda x: x.astype(jnp.float32)
    i32 = lambda x: x.astype(jnp.int32)
    # Every seat-indexed block (STACKS .. STREET_RAISES) by absolute seat, each rotated to the
    # observer's view on its own (a concatenate of the blocks before one rotation is evaluated
    # element by element by XLA's CPU emitter: 2.6x slower at batch 4,096, same bits).
    per_seat = (
        ("STACKS", t.stacks, True),
        ("BETS", t.bets, True),
        ("CONTRIB", t.contrib, True),
        ("FOLDED", t.folded, False),
        ("ALLIN", t.allin, False),
        ("OUT", ~t.in_hand, False),
        ("TO_ACT", seats == t.to_act, False),
        ("BUTTON", seats == t.button, False),
        ("SMALL_BLIND", seats == t.sb, False),
        ("BIG_BLIND", seats == t.bb, False),
        ("STREET_CHIPS", tour.street_chips, True),
        ("STREET_RAISES", tour.street_raises, False),
    )
    seat_parts = {name: (chips if in_chips else flag)(_rotated(i32(x), seat)).reshape(-1)
                  for name, x, in_chips in per_seat}
    # Multi-hots as ors of one-hots (no reduce: where ``revealed`` is a constant, as in a
    # first deal, XLA would fold a reduce over [batch, 52, 5] with its slow evaluator).
    cards = jnp.arange(52)
    mine_cards = t.hole[seat]
    hole = (cards == mine_cards[0]) | (cards == mine_cards[1])
    board = jnp.zeros(52, bool)
    for k in range(5):
        board = board | ((cards == t.board[k]) & (k < t.revealed))
    lg = table.legal(t)
    mine = t.to_act == seat
    to_call = jnp.minimum(jnp.maximum(t.current_bet - t.bets[seat], 0), t.stacks[seat])
    to_call = jnp.where(t.hand_over, 0, to_call)
    level = level_at(fmt, tour.hand)
    hands_in_level = tour.hand - level * fmt.hands_per_level
    last_level = level >= fmt.num_levels - 1
    to_level = jnp.where(last_level, 0, fmt.hands_per_level - hands_in_level)
    parts = {
        "HOLE": flag(hole),
        "BOARD": flag(board),
        "STREET": flag(jnp.arange(4) == t.street),
        "POT": chips(table.pot_total(t))[None],
        "TO_CALL": chips(to_call)[None],
        "MIN_RAISE_TO": chips(jnp.where(mine, lg.min_raise_to, 0))[None],
        "MAX_RAISE_TO": chips(jnp.where(mine, lg.max_raise_to, 0))[None],
        "LEVEL": flag(level)[None] * (1.0 / fmt.num_levels),
        "BIG_BLIND_SIZE": flag(t.big_blind)[None] * _inv(fmt.starting_stack),
        "ANTE": flag(t.ante > 0)[None],
        "HANDS_TO_LEVEL": flag(to_level)[None] * _inv(fmt.hands_per_level),
        "HANDS_TO_CAP": flag(fmt.hand_cap - tour.hand)[None] * _inv(fmt.hand_cap),
        "PLAYERS_LEFT": flag(tour.alive.sum())[None] * (1.0 / n),
    }
    parts.update(seat_parts)
    return jnp.concatenate([parts[name] for name, _, _ in BLOCKS]).astype(jnp.float32)
