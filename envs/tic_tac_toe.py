"""Tic-tac-toe, with pgx's encodings (pgx `tic_tac_toe` v0).

Actions 0..8 are the cells, row-major (action = 3 × row + column); a cell is legal when empty.
The first player (who plays X) is drawn at `init` from the key; players alternate, and
`current_player` passes to the other player after every move, the last one included.
Observation `(3, 3, 2)` bool from the observer's view: plane 0 = the observer's marks, plane 1 =
the opponent's. The game ends on three in a row (+1 to the winner, −1 to the loser) or a full
board (0, 0).

The game lives in one int32 per game (`_x`, layout at `_O_SHIFT`...): the marks of each colour
as a 9-bit set, the colour to move and who plays X. Under ``vmap`` every rule is then arithmetic
on a ``[batch]`` vector plus reads of small constant tables indexed by a 9-bit set (the cells of
a set, whether it holds a line), and a game reset by `holdemjax.auto_reset` writes one leaf
instead of three.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from flax import struct

from holdemjax import xla
from holdemjax.api import Array, Env, State
from holdemjax.render.svg import Svg, unbatched

__all__ = ["TicTacToe", "TicTacToeState", "cells"]

EMPTY = -1
_LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))
_LINE_MASKS = tuple(sum(1 << i for i in line) for line in _LINES)
# The bits of `_x`: X's marks (cell i = bit i), O's marks, the colour to move, who plays X.
_O_SHIFT = 9  # O's marks: bits 9..17
_FULL = (1 << 9) - 1  # all nine cells
_COLOR_BIT = 18  # the colour to move (0 = X, 1 = O)
_X_PLAYER_BIT = 19  # the player id playing X
# Tables read by the step, so that its kernels are table reads rather than per-cell arithmetic
# (XLA's CPU cost model then keeps each on one thread: a kernel this small split over threads
# waits longer for them than it computes).
#: [512, 9] bool: the cells of a 9-bit set.
_CELLS = (np.arange(512)[:, None] >> np.arange(9)) & 1 == 1
#: [512, 9] bool: the cells not in a 9-bit set.
_EMPTY_CELLS = ~_CELLS
#: [512] bool: a 9-bit set holds a line.
_WINS = np.array([any((m & s) == s for s in _LINE_MASKS) for m in range(512)])
#: [4, 2] float32: the rewards of a move, by 2 × won + mover.
_REWARDS = np.array([[0, 0], [0, 0], [1, -1], [-1, 1]], np.float32)


@struct.dataclass
class TicTacToeState(State):
    observation: Array = struct.field(default_factory=lambda: jnp.zeros((3, 3, 2), jnp.bool_))
    rewards: Array = struct.field(default_factory=lambda: jnp.zeros(2, jnp.float32))
    legal_action_mask: Array = struct.field(default_factory=lambda: jnp.ones(9, jnp.bool_))
    # [] int32: X's marks (bits 0-8), O's (9-17), colour to move (18), X's player id (19)
    _x: Array = struct.field(default_factory=lambda: jnp.int32(0))

    @property
    def env_id(self) -> str:
        return "tic_tac_toe"

    def to_svg(self) -> str:
        return render_svg(self)


def _unpack(x: Array) -> tuple[Array, Array, Array, Array]:
    """(X's marks, O's marks, colour to move, X's player id) of a packed game."""
    return (x & _FULL, (x >> _O_SHIFT) & _FULL, (x >> _COLOR_BIT) & 1, (x >> _X_PLAYER_BIT) & 1)


def cells(state: TicTacToeState) -> np.ndarray:
    """[..., 9] int32 owner colour of each cell (0 = X, 1 = O, -1 = empty), host side."""
    x = np.asarray(state._x)[..., None]
    i = np.arange(9)
    return np.where((x >> i) & 1, 0, np.where((x >> (_O_SHIFT + i)) & 1, 1, EMPTY))


class TicTacToe(Env):
    def __init__(self):
        super().__init__()

    id = property(lambda self: "tic_tac_toe")
    version = property(lambda self: "v0")
    num_players = property(lambda self: 2)

    def _init(self, key) -> TicTacToeState:
        # jax.random.bernoulli(key), bit for bit, with the hash unrolled (holdemjax.xla).
        first = xla.bernoulli(key).astype(jnp.int32)
        return TicTacToeState(current_player=first, _x=first << _X_PLAYER_BIT)

    def _step(self, state: TicTacToeState, action: Array, key) -> TicTacToeState:
        xs, os, color, x_player = _unpack(state._x)
        cell = jnp.left_shift(jnp.int32(1), action)
        # The mover's mark goes on the cell (over the other's, as pgx's board does when an
        # illegal move is applied before the penalty).
        xs, os = jnp.where(color == 0, xs | cell, xs & ~cell), jnp.where(color == 0, os & ~cell,
                                                                         os | cell)
        # The new game stored once (holdemjax.xla): every output below reads it.
        x = xla.compute_once(xs | (os << _O_SHIFT) | ((1 - color) << _COLOR_BIT)
                         | (x_player << _X_PLAYER_BIT))
        xs, os = x & _FULL, (x >> _O_SHIFT) & _FULL
        won = jnp.asarray(_WINS)[jnp.where(color == 0, xs, os)]  # one table read, not 8 lines
        taken = xs | os
        mover = state.current_player
        return state.replace(
            current_player=1 - mover,
            rewards=jnp.asarray(_REWARDS)[won.astype(jnp.int32) * 2 + mover],
            terminated=won | (taken == _FULL),
            legal_action_mask=jnp.asarray(_EMPTY_CELLS)[taken],
            _x=x,
        )

    def _observe(self, state: TicTacToeState, player_id: Array) -> Array:
        xs, os, _, x_player = _unpack(state._x)
        plays_x = player_id == x_player
        table = jnp.asarray(_CELLS)
        planes = jnp.stack([table[jnp.where(plays_x, xs, os)], table[jnp.where(plays_x, os, xs)]],
                           axis=-1)
        return planes.reshape(3, 3, 2)


def render_svg(state: TicTacToeState) -> str:
    unbatched(state)
    cell = 60
    svg = Svg(3 * cell + 20, 3 * cell + 50)
    for i in range(1, 3):
        svg.line(10 + i * cell, 10, 10 + i * cell, 10 + 3 * cell, stroke="black", stroke_width=3)
        svg.line(10, 10 + i * cell, 10 + 3 * cell, 10 + i * cell, stroke="black", stroke_width=3)
    for idx, owner in enumerate(cells(state).tolist()):
        if owner != EMPTY:
            r, c = divmod(idx, 3)
            svg.text(10 + c * cell + cell / 2, 10 + r * cell + cell / 2, "XO"[owner], size=40)
    x_player = int(_unpack(np.asarray(state._x))[3])
    status = (f"X = player {x_player}, O = player {1 - x_player}; "
              + ("game over" if bool(state.terminated)
                 else f"player {int(state.current_player)} to move"))
    svg.text((3 * cell + 20) / 2, 3 * cell + 32, status, size=11)
    return str(svg)
