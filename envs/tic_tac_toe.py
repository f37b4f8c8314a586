"""Tic-tac-toe, with pgx's encodings (pgx `tic_tac_toe` v0).

Actions 0..8 are the cells, row-major (action = 3 × row + column); a cell is legal when empty.
The first player (who plays X) is drawn at `init` from the key; players alternate, and
`current_player` passes to the other player after every move, the last one included.
Observation `(3, 3, 2)` bool from the observer's view: plane 0 = the observer's marks, plane 1 =
the opponent's. The game ends on three in a row (+1 to the winner, −1 to the loser) or a full
board (0, 0).
"""

from __future__ import annotations

import jax.numpy as jnp
from flax import struct

from holdemjax import threefry
from holdemjax.api import Array, Env, State
from holdemjax.render.svg import Svg, unbatched

__all__ = ["TicTacToe", "TicTacToeState"]

EMPTY = -1
_LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))


@struct.dataclass
class TicTacToeState(State):
    observation: Array = struct.field(default_factory=lambda: jnp.zeros((3, 3, 2), jnp.bool_))
    rewards: Array = struct.field(default_factory=lambda: jnp.zeros(2, jnp.float32))
    legal_action_mask: Array = struct.field(default_factory=lambda: jnp.ones(9, jnp.bool_))
    # [9] owner colour
    _board: Array = struct.field(default_factory=lambda: jnp.full(9, EMPTY, jnp.int32))
    _color: Array = struct.field(default_factory=lambda: jnp.int32(0))  # [] colour to move, 0 = X
    _x_player: Array = struct.field(default_factory=lambda: jnp.int32(0))  # [] player id playing X

    @property
    def env_id(self) -> str:
        return "tic_tac_toe"

    def to_svg(self) -> str:
        return render_svg(self)


class TicTacToe(Env):
    def __init__(self):
        super().__init__()

    id = property(lambda self: "tic_tac_toe")
    version = property(lambda self: "v0")
    num_players = property(lambda self: 2)

    def _init(self, key) -> TicTacToeState:
        # jax.random.bernoulli(key), bit for bit, with the hash unrolled (holdemjax.threefry).
        first = threefry.bernoulli(key).astype(jnp.int32)
        return TicTacToeState(current_player=first, _x_player=first)

    def _step(self, state: TicTacToeState, action: Array, key) -> TicTacToeState:
        # Elementwise forms of a scatter and a gather of the lines: under vmap those become
        # slow batched scatter/gather kernels, these fuse into one.
        board = jnp.where(jnp.arange(9) == action, state._color, state._board)
        mine = board == state._color
        won = jnp.bool_(False)
        for a, b, c in _LINES:
            won = won | (mine[a] & mine[b] & mine[c])
        full = (board != EMPTY).all()
        mover = state.current_player
        rewards = jnp.where(jnp.arange(2) == mover, 1.0, -1.0) * won
        return state.replace(
            current_player=1 - mover,
            rewards=rewards.astype(jnp.float32),
            terminated=won | full,
            legal_action_mask=board == EMPTY,
            _board=board,
            _color=1 - state._color,
        )

    def _observe(self, state: TicTacToeState, player_id: Array) -> Array:
        color = jnp.where(player_id == state._x_player, 0, 1)
        planes = jnp.stack([state._board == color, state._board == 1 - color], axis=-1)
        return planes.reshape(3, 3, 2)


def render_svg(state: TicTacToeState) -> str:
    unbatched(state)
    cell = 60
    svg = Svg(3 * cell + 20, 3 * cell + 50)
    for i in range(1, 3):
        svg.line(10 + i * cell, 10, 10 + i * cell, 10 + 3 * cell, stroke="black", stroke_width=3)
        svg.line(10, 10 + i * cell, 10 + 3 * cell, 10 + i * cell, stroke="black", stroke_width=3)
    for idx, owner in enumerate(map(int, state._board)):
        if owner != EMPTY:
            r, c = divmod(idx, 3)
            svg.text(10 + c * cell + cell / 2, 10 + r * cell + cell / 2, "XO"[owner], size=40)
    x_player = int(state._x_player)
    status = (f"X = player {x_player}, O = player {1 - x_player}; "
              + ("game over" if bool(state.terminated)
                 else f"player {int(state.current_player)} to move"))
    svg.text((3 * cell + 20) / 2, 3 * cell + 32, status, size=11)
    return str(svg)
