"""2048, with pgx's encodings (pgx `2048` v2).

Rules: a 4×4 board of tiles 2, 4, 8, …; one player. An action slides every tile as far as it goes
in one direction: 0 = LEFT, 1 = UP, 2 = RIGHT, 3 = DOWN. Two equal tiles that meet merge into one
tile of twice the value; a tile merges at most once per move, and the tiles nearest the wall the
tiles move toward merge first (`2 2 2 0` slid left gives `4 2 0 0`; `2 2 2 2` gives `4 4 0 0`). An
action is legal when it changes the board. After each move a new tile appears on an empty cell
drawn uniformly: a 2 with probability 0.9, a 4 with probability 0.1. The game starts with two such
tiles and ends when no action is legal.

Chance: `init` draws its two tiles from its key; `step` needs a key (`requires_step_key`) and draws
the new tile from it (one 32-bit draw: its high 16 bits pick the empty cell, its low 16 bits pick
2 or 4, so the probabilities are 0.9 and 0.1 to within 2^-16). The split of a step
(`holdemjax.api`: `step_deterministic`, `chance_outcomes`, `chance_step`) has 32 outcomes:
outcome `2 * cell + (0 for a 2, 1 for a 4)`, with exactly the probabilities of that draw
(`spawn_probabilities`).

Observation `(4, 4, 31)` bool: `obs[row, col, b]` is true when the tile at (row, col) is 2^b, and
`b = 0` marks an empty cell (exactly one plane is true per cell). Row 0 is the top, column 0 the
left. Rewards `(1,)` float32 at every step: the sum of the values of the tiles made by merges in
that move (0 when nothing merges). `current_player` is always 0. An illegal action ends the game
with reward −1 (the penalty of `holdemjax.api`, as in pgx); as in pgx, the move is still played
(it changes nothing) and a new tile is placed, on cell 0 if the board is full.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from holdemjax.api import Array, Env, State
from holdemjax.render.svg import Svg, unbatched

__all__ = ["Play2048", "Play2048State", "LEFT", "UP", "RIGHT", "DOWN", "NUM_ACTIONS",
           "OBS_PLANES", "OBS_EMPTY_PLANE", "SIZE", "place_tile", "spawn_probabilities"]

LEFT, UP, RIGHT, DOWN = 0, 1, 2, 3
NUM_ACTIONS = 4
SIZE = 4  # the board is SIZE × SIZE
OBS_PLANES = 31  # observation planes: plane b is "tile 2^b", b = 1..30
OBS_EMPTY_PLANE = 0  # plane 0 marks an empty cell
_SPAWN_FOUR_BELOW = 6554  # low 16 bits of the draw below this → a 4 (6554 / 65536 ≈ 0.1)
_BOARD_DTYPE = jnp.int32  # int8 runs no faster here and compiles ~10x slower on CPU
_CELL_IDS = np.arange(SIZE * SIZE, dtype=np.uint32)  # cell i = SIZE * row + col
_CELL_BITS = np.left_shift(np.uint32(1), _CELL_IDS)


@struct.dataclass
class Play2048State(State):
    observation: Array = struct.field(
        default_factory=lambda: jnp.zeros((SIZE, SIZE, OBS_PLANES), jnp.bool_))
    rewards: Array = struct.field(default_factory=lambda: jnp.zeros(1, jnp.float32))
    legal_action_mask: Array = struct.field(
        default_factory=lambda: jnp.ones(NUM_ACTIONS, jnp.bool_))
    # [4, 4] int32: exponent of the tile at (row, col), tile = 2^exponent; 0 = empty.
    _board: Array = struct.field(default_factory=lambda: jnp.zeros((SIZE, SIZE), _BOARD_DTYPE))
    # [] bool: an afterstate (`step_deterministic`) awaiting its new tile.
    _spawn_pending: Array = struct.field(default_factory=lambda: jnp.bool_(False))

    @property
    def env_id(self) -> str:
        return "2048"

    def to_svg(self) -> str:
        return render_svg(self)


class Play2048(Env):
    requires_step_key = True

    def __init__(self):
        super().__init__()

    id = property(lambda self: "2048")
    version = property(lambda self: "v2")
    num_players = property(lambda self: 1)

    def _init(self, key) -> Play2048State:
        board = self._initial_board(key)
        return Play2048State(legal_action_mask=legal_moves(board), _board=board)

    def _step(self, state: Play2048State, action: Array, key) -> Play2048State:
        board, reward = slide(state._board, action)
        board = self._spawn(board, key)
        legal = legal_moves(board)
        return state.replace(
            rewards=reward.astype(jnp.float32)[None],
            terminated=~legal.any(),
            legal_action_mask=legal,
            _board=board,
        )

    # ----------------------------------------------------- the step split at its chance event
    num_chance_outcomes = property(lambda self: 2 * SIZE * SIZE)  # a cell, a 2 or a 4

    def _step_deterministic(self, state: Play2048State, action: Array) -> Play2048State:
        board, reward = slide(state._board, action)
        return state.replace(rewards=reward.astype(jnp.float32)[None], _board=board,
                             _spawn_pending=jnp.bool_(True))

    def _chance_outcomes(self, state: Play2048State) -> Array:
        none = jnp.arange(2 * SIZE * SIZE) == 0
        return jnp.where(state._spawn_pending, spawn_probabilities(state._board), none)

    def _chance_step(self, state: Play2048State, outcome: Array) -> Play2048State:
        pending = state._spawn_pending
        exponent = (1 + outcome % 2).astype(_BOARD_DTYPE)
        spawned = jnp.where(_CELL_IDS == outcome // 2, exponent, state._board.reshape(-1))
        board = jnp.where(pending, spawned.reshape(SIZE, SIZE), state._board)
        legal = legal_moves(board)
        return state.replace(
            terminated=state.terminated | (pending & ~legal.any()),
            legal_action_mask=jnp.where(pending, legal, state.legal_action_mask),
            _board=board, _spawn_pending=jnp.bool_(False))

    # The two chance hooks (parity tests override them to replay pgx's tiles).
    def _initial_board(self, key) -> Array:
        """The starting board: two tiles drawn from `key`."""
        draws = jax.random.bits(key, (2,), jnp.uint32)
        empty = jnp.zeros((SIZE, SIZE), _BOARD_DTYPE)
        return place_tile(place_tile(empty, draws[0]), draws[1])

    def _spawn(self, board: Array, key) -> Array:
        """`board` with the new tile of a step drawn from `key`."""
        return place_tile(board, jax.random.bits(key, (), jnp.uint32))

    def _observe(self, state: Play2048State, player_id: Array) -> Array:
        return state._board[..., None] == jnp.arange(OBS_PLANES, dtype=state._board.dtype)


# ------------------------------------------------------------------------------ the rules
def _orient(board: Array, action: Array) -> Array:
    """The board turned so that tiles move toward index 0 of each row."""
    return _select(action, board, board.T, board[:, ::-1], board.T[:, ::-1])


def _unorient(rows: Array, action: Array) -> Array:
    return _select(action, rows, rows.T, rows[:, ::-1], rows[:, ::-1].T)


def _select(action: Array, left: Array, up: Array, right: Array, down: Array) -> Array:
    return jnp.where(action == LEFT, left, jnp.where(action == UP, up,
                     jnp.where(action == RIGHT, right, down)))


def _slide_rows(o: Array) -> tuple[Array, Array]:
    """Slide each row of `o` [4, 4] toward index 0; returns (rows, sum of merged tile values)."""
    o0, o1, o2, o3 = o[:, 0], o[:, 1], o[:, 2], o[:, 3]
    # Compress: c_k is the k-th tile of the row (0 past the last one); p_j counts the tiles
    # before position j, so tile o_j goes to position p_j.
    p1 = (o0 != 0).astype(o.dtype)
    p2 = p1 + (o1 != 0)
    p3 = p2 + (o2 != 0)

    def at(p, k, x):
        return jnp.where(p == k, x, 0)

    c0 = o0 + at(p1, 0, o1) + at(p2, 0, o2) + at(p3, 0, o3)
    c1 = at(p1, 1, o1) + at(p2, 1, o2) + at(p3, 1, o3)
    c2 = at(p2, 2, o2) + at(p3, 2, o3)
    c3 = at(p3, 3, o3)
    # Merge, nearest the wall first: pair (0,1), else (1,2); then (2,3) unless 2 is taken.
    m01 = (c0 == c1) & (c0 != 0)
    m12 = (c1 == c2) & (c1 != 0) & ~m01
    m23 = (c2 == c3) & (c2 != 0) & ~m12
    r0 = c0 + m01
    r1 = jnp.where(m01, c2 + m23, c1 + m12)
    r2 = jnp.where(m01, jnp.where(m23, 0, c3), jnp.where(m12, c3, c2 + m23))
    r3 = jnp.where(m01 | m12 | m23, 0, c3)
    gain = (jnp.where(m01, jnp.left_shift(1, c0 + 1), 0)
            + jnp.where(m12, jnp.left_shift(1, c1 + 1), 0)
            + jnp.where(m23, jnp.left_shift(1, c2 + 1), 0))
    return jnp.stack([r0, r1, r2, r3], axis=1).astype(o.dtype), gain.sum(dtype=jnp.int32)


def slide(board: Array, action: Array) -> tuple[Array, Array]:
    """`board` [4, 4] after sliding toward `action`, and the merge reward (int32 [])."""
    rows, gain = _slide_rows(_orient(board, action))
    return _unorient(rows, action), gain


def legal_moves(board: Array) -> Array:
    """bool [4]: which of LEFT, UP, RIGHT, DOWN change `board`."""
    full = board != 0
    # A row moves left iff an empty cell has a tile right after it, or two equal tiles touch.
    same_h = (board[:, :-1] == board[:, 1:]) & full[:, :-1]  # [4, 3]
    same_v = ((board[:-1] == board[1:]) & full[:-1]).T  # [4, 3], columns as rows
    full_v = full.T
    left = same_h | (~full[:, :-1] & full[:, 1:])
    right = same_h | (full[:, :-1] & ~full[:, 1:])
    up = same_v | (~full_v[:, :-1] & full_v[:, 1:])
    down = same_v | (full_v[:, :-1] & ~full_v[:, 1:])
    return jnp.stack([left, up, right, down]).reshape(NUM_ACTIONS, -1).any(axis=1)


def place_tile(board: Array, draw: Array) -> Array:
    """A new tile on an empty cell of `board`, chosen by the uint32 `draw` (see the docstring).

    The empty cells form a 16-bit mask (bit i = cell i, row-major); the k-th set bit is found by
    halving the mask four times with popcounts (no scatter, no cumsum). On a full board (only
    after an illegal move) the tile replaces cell 0, as in pgx.
    """
    flat = board.reshape(-1)
    empty = jnp.sum(jnp.where(flat == 0, _CELL_BITS, 0), dtype=jnp.uint32)
    k = ((draw >> 16) * jax.lax.population_count(empty)) >> 16  # uniform in 0..count-1
    pos = jnp.uint32(0)
    for width in (8, 4, 2, 1):
        below = jax.lax.population_count((empty >> pos) & ((1 << width) - 1))
        upper = k >= below
        k = jnp.where(upper, k - below, k)
        pos = jnp.where(upper, pos + width, pos)
    pos = jnp.where(empty == 0, 0, pos)
    exponent = jnp.where((draw & 0xFFFF) < _SPAWN_FOUR_BELOW, 2, 1).astype(board.dtype)
    return jnp.where(_CELL_IDS == pos, exponent, flat).reshape(board.shape)


def spawn_probabilities(board: Array) -> Array:
    """``# [32] float32``: the probability of each new tile `place_tile` puts on ``board`` from a
    uniform 32-bit draw, outcome ``2 * cell + (0 for a 2, 1 for a 4)``, exactly: the empty cell
    of rank r (in cell order) among c gets the 16-bit values u with ``(u * c) >> 16 == r``, the
    4 the low values below `_SPAWN_FOUR_BELOW`; a full board puts the tile on cell 0."""
    empty = board.reshape(-1) == 0
    count = empty.sum(dtype=jnp.int32)
    rank = jnp.cumsum(empty, dtype=jnp.int32) - empty
    c = jnp.maximum(count, 1)
    ceil = lambda a: (a + c - 1) // c  # noqa: E731
    hits = ceil((rank + 1) * 65536) - ceil(rank * 65536)  # values u landing on this cell
    cell = jnp.where(count == 0, jnp.arange(SIZE * SIZE) == 0,
                     jnp.where(empty, hits.astype(jnp.float32) / 65536, 0.0))
    four = _SPAWN_FOUR_BELOW / 65536
    return jnp.stack([cell * (1 - four), cell * four], axis=-1).reshape(-1).astype(jnp.float32)


# ------------------------------------------------------------------------------- drawing
_COLORS = {0: "#cdc1b4", 1: "#eee4da", 2: "#ede0c8", 3: "#f2b179", 4: "#f59563", 5: "#f67c5f",
           6: "#f65e3b", 7: "#edcf72", 8: "#edcc61", 9: "#edc850", 10: "#edc53f", 11: "#edc22e"}


def render_svg(state: Play2048State) -> str:
    unbatched(state)
    cell, pad = 70, 8
    side = SIZE * cell + 2 * pad
    svg = Svg(side, side + 30)
    svg.rect(0, 0, side, side, fill="#bbada0")
    board = jax.device_get(state._board)
    for r in range(SIZE):
        for c in range(SIZE):
            e = int(board[r, c])
            x, y = pad + c * cell + 4, pad + r * cell + 4
            svg.rect(x, y, cell - 8, cell - 8, fill=_COLORS.get(e, "#3c3a32"), rx=6)
            if e:
                svg.text(x + (cell - 8) / 2, y + (cell - 8) / 2, str(2 ** e),
                         size=26 if e < 10 else 18, fill="#776e65" if e < 3 else "#f9f6f2")
    status = "game over" if bool(state.terminated) else f"step {int(state._step_count)}"
    svg.text(side / 2, side + 15, status, size=12)
    return str(svg)
