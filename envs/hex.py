"""Hex on an 11 × 11 board with the swap rule, with pgx's encodings (pgx `hex` v0).

Rules: two colours take turns placing one stone on an empty cell of a rhombus of hexagons. Cell
(row, col) (action `11 * row + col`) touches (row−1, col), (row−1, col+1), (row, col−1),
(row, col+1), (row+1, col−1) and (row+1, col). Colour 0 moves first and wins by joining the top
row to the bottom row with a chain of its stones; colour 1 wins by joining the left column to the
right column. A full board always has exactly one winner, so there are no draws.

Swap rule: as its first move (the second move of the game) colour 1 may play action 121 = SWAP:
colour 0's stone at (row, col) is replaced by a colour-1 stone at (col, row), its mirror image
across the long diagonal, and colour 0 moves next. The players keep their colours.

The player who plays colour 0 is drawn at `init` from the key. `current_player` passes to the
other player after every move, the last one included.

Observation `(11, 11, 4)` bool from the observer's view: plane 0 = the observer's stones, plane 1
= the opponent's, plane 2 = all true when the observer plays colour 1, plane 3 = all true when
SWAP is legal (after exactly one move). Actions: 0..120 the cells, 121 SWAP. Rewards: +1 to the
player who connects, −1 to the other, at the end only.

Illegal actions (an occupied cell, SWAP except at the second move) end the game with the penalty
of `holdemjax.api`; as in pgx the move is still played: a placed stone replaces what was there,
and SWAP removes the lowest-numbered stone and puts a stone of the mover's colour on its mirror
image.
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from holdemjax import xla
from holdemjax.api import Array, Env, State
from holdemjax.render.svg import Svg, unbatched

__all__ = ["Hex", "HexState", "SIZE", "NUM_CELLS", "SWAP", "NUM_ACTIONS", "OBS_MINE", "OBS_THEIRS",
           "OBS_COLOR", "OBS_CAN_SWAP"]

SIZE = 11
NUM_CELLS = SIZE * SIZE
SWAP = NUM_CELLS  # action 121
NUM_ACTIONS = NUM_CELLS + 1
# Observation planes.
OBS_MINE, OBS_THEIRS, OBS_COLOR, OBS_CAN_SWAP = 0, 1, 2, 3
NUM_PLANES = 4
_PLANE_BITS = np.left_shift(1, np.arange(NUM_PLANES, dtype=np.int32))
# Neighbour offsets (d_row, d_col) of a cell.
_NEIGHBOURS = ((-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0))
_CELL_IDS = np.arange(NUM_CELLS, dtype=np.int32)
_INIT_MASK = np.arange(NUM_ACTIONS) != SWAP


@struct.dataclass
class HexState(State):
    observation: Array = struct.field(
        default_factory=lambda: jnp.zeros((SIZE, SIZE, NUM_PLANES), jnp.bool_))
    rewards: Array = struct.field(default_factory=lambda: jnp.zeros(2, jnp.float32))
    legal_action_mask: Array = struct.field(default_factory=lambda: jnp.asarray(_INIT_MASK))
    # [121] int8, cell 11 * row + col: 0 empty; else ±(c + 1) with + for colour 0, − for colour 1
    # and c a cell of the stone's chain (every stone of a chain has the same label).
    _labels: Array = struct.field(default_factory=lambda: jnp.zeros(NUM_CELLS, jnp.int8))
    _turn: Array = struct.field(default_factory=lambda: jnp.int32(0))  # [] moves made, SWAP too
    _first: Array = struct.field(default_factory=lambda: jnp.int32(0))  # [] player id of colour 0

    @property
    def env_id(self) -> str:
        return "hex"

    def to_svg(self) -> str:
        return render_svg(self)


class Hex(Env):
    def __init__(self):
        super().__init__()

    id = property(lambda self: "hex")
    version = property(lambda self: "v0")
    num_players = property(lambda self: 2)

    def _init(self, key) -> HexState:
        # jax.random.bernoulli(key), bit for bit, with the hash unrolled (holdemjax.xla).
        first = xla.bernoulli(key).astype(jnp.int32)
        return HexState(current_player=first, _first=first)

    def _step(self, state: HexState, action: Array, key) -> HexState:
        color = state._turn % 2
        sign = 1 - 2 * color  # +1 colour 0, -1 colour 1
        labels = state._labels
        swap = action == SWAP
        # SWAP: take away the lowest-numbered stone (cell 0 on an empty board) and play its
        # mirror image instead.
        lowest = jnp.min(jnp.where(labels != 0, _CELL_IDS, NUM_CELLS)) % NUM_CELLS
        labels = jnp.where(swap & (_CELL_IDS == lowest), jnp.int8(0), labels)
        cell = jnp.where(swap, (lowest % SIZE) * SIZE + lowest // SIZE, action)
        labels, chain = _place(labels, cell, sign)
        # Does the new stone's chain join the two sides of its colour?
        board = labels.reshape(SIZE, SIZE)
        sides = jnp.stack([board[0], board[-1], board[:, 0], board[:, -1]]) == chain
        top, bottom, left, right = sides.any(axis=1)
        won = jnp.where(color == 0, top & bottom, left & right)
        turn = state._turn + 1
        mover = state.current_player
        rewards = jnp.where(jnp.arange(2) == mover, 1.0, -1.0) * won
        legal = jnp.concatenate([labels == 0, (turn == 1)[None]])
        return state.replace(
            current_player=1 - mover,
            rewards=rewards.astype(jnp.float32),
            terminated=won,
            legal_action_mask=legal,
            _labels=labels,
            _turn=turn,
        )

    def _observe(self, state: HexState, player_id: Array) -> Array:
        color = jnp.where(player_id == state._first, 0, 1)
        mine = state._labels * (1 - 2 * color)
        # One bit per plane in an int per cell, then one broadcast test (far faster on CPU than
        # stacking four boolean planes).
        bits = ((mine > 0).astype(jnp.int32) << OBS_MINE
                | (mine < 0).astype(jnp.int32) << OBS_THEIRS
                | color << OBS_COLOR
                | (state._turn == 1).astype(jnp.int32) << OBS_CAN_SWAP)
        obs = (bits[:, None] & _PLANE_BITS) != 0  # [121, 4]
        return obs.reshape(SIZE, SIZE, NUM_PLANES)


def _place(labels: Array, cell: Array, sign: Array) -> tuple[Array, Array]:
    """A stone of colour `sign` on `cell`, merged with the chains of its own colour it touches.

    Returns the new labels and the label of the new stone's chain.
    """
    chain = (sign * (cell + 1)).astype(labels.dtype)
    row, col = cell // SIZE, cell % SIZE
    idx, ok = [], []
    for dr, dc in _NEIGHBOURS:
        r, c = row + dr, col + dc
        ok.append((r >= 0) & (r < SIZE) & (c >= 0) & (c < SIZE))
        idx.append(jnp.clip(r, 0, SIZE - 1) * SIZE + jnp.clip(c, 0, SIZE - 1))
    near = labels[jnp.stack(idx)]  # [6]
    own = jnp.stack(ok) & (near * sign > 0)
    near = jnp.where(own, near, chain)  # a stranger's label matches nothing (chain is new)
    joined = _CELL_IDS == cell
    for k in range(len(_NEIGHBOURS)):
        joined = joined | (labels == near[k])
    return jnp.where(joined, chain, labels), chain


# ------------------------------------------------------------------------------- drawing
def render_svg(state: HexState) -> str:
    unbatched(state)
    r = 16.0  # hexagon radius
    w = math.sqrt(3) * r
    x0, y0 = 30.0, 40.0
    width = x0 * 2 + w * (SIZE + (SIZE - 1) / 2)
    height = y0 * 2 + 1.5 * r * (SIZE - 1) + 2 * r + 20
    svg = Svg(width, height)
    colors = ("#222222", "#f4f4f4")  # colour 0 (top-bottom), colour 1 (left-right)
    labels = np.asarray(jax.device_get(state._labels))

    def center(row, col):
        return x0 + w / 2 + col * w + row * w / 2, y0 + r + row * 1.5 * r

    # Side markers: colour 0 owns the top and bottom rows, colour 1 the left and right columns.
    (ax, ay), (bx, by) = center(0, 0), center(0, SIZE - 1)
    svg.line(ax - w / 2, ay - r - 6, bx + w / 2, by - r - 6, stroke=colors[0], stroke_width=5)
    (ax, ay), (bx, by) = center(SIZE - 1, 0), center(SIZE - 1, SIZE - 1)
    svg.line(ax - w / 2, ay + r + 6, bx + w / 2, by + r + 6, stroke=colors[0], stroke_width=5)
    (ax, ay), (bx, by) = center(0, 0), center(SIZE - 1, 0)
    svg.line(ax - w / 2 - 6, ay, bx - w / 2 - 6, by, stroke="#999999", stroke_width=5)
    (ax, ay), (bx, by) = center(0, SIZE - 1), center(SIZE - 1, SIZE - 1)
    svg.line(ax + w / 2 + 6, ay, bx + w / 2 + 6, by, stroke="#999999", stroke_width=5)
    for cell in range(NUM_CELLS):
        row, col = divmod(cell, SIZE)
        cx, cy = center(row, col)
        pts = [(cx + r * math.cos(math.radians(30 + 60 * k)),
                cy + r * math.sin(math.radians(30 + 60 * k))) for k in range(6)]
        svg.polygon(pts, fill="#e8c88a", stroke="#8a6d3b", stroke_width=1)
        if labels[cell] != 0:
            svg.circle(cx, cy, r * 0.7, fill=colors[0 if labels[cell] > 0 else 1], stroke="black",
                       stroke_width=1)
    first = int(state._first)
    status = (f"dark (top-bottom) = player {first}, light (left-right) = player {1 - first}; "
              + ("game over" if bool(state.terminated)
                 else f"player {int(state.current_player)} to move"))
    svg.text(width / 2, height - 14, status, size=11)
    return str(svg)
