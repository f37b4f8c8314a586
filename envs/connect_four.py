"""Connect four, with pgx's encodings (pgx `connect_four` v0).

Rules: a vertical board of 6 rows × 7 columns. Players alternate dropping a disc into a column
that is not full; the disc falls to the lowest empty cell of that column. Four discs of one
player in a line (horizontal, vertical or either diagonal) win: +1 to the winner, −1 to the
loser. A full board without such a line is a draw (0, 0). The first player is drawn at `init`
from the key (`key_coin`); `current_player` passes to the other player after every move, the
last one too.

Actions 0..6 are the columns, left to right; a column is legal while its top cell is empty.
Observation `(6, 7, 2)` bool from the observer's view, row 0 the top row, row 5 the bottom:
plane 0 (`OBS_MINE`) the observer's discs, plane 1 (`OBS_THEIRS`) the opponent's.

Implementation: each player's discs are a bitboard held as three overlapping 32-bit words.
Word k holds rows k..k+3, 8 bits per row (7 columns and an always-empty guard bit), so bit
`8 (r − k) + c` of word k is cell (r, c). Every line of four spans at most four consecutive rows,
so it lies inside one word and a win is a few shifts and ands; the guard bit stops lines from
wrapping around a row end. Column heights are packed 3 bits per column in one int32.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from flax import struct

from holdemjax.api import Array, Env, State
from holdemjax.render.svg import Svg, unbatched
from holdemjax.xla import key_coin

__all__ = ["ConnectFour", "ConnectFourState", "NUM_ROWS", "NUM_COLUMNS", "NUM_ACTIONS",
           "OBS_MINE", "OBS_THEIRS", "bitboard", "board_array", "from_board", "key_coin"]

NUM_ROWS, NUM_COLUMNS = 6, 7
NUM_ACTIONS = NUM_COLUMNS  # action = column, 0 = leftmost
OBS_MINE, OBS_THEIRS = 0, 1  # observation planes
_ROW_BITS = 8  # 7 columns + 1 guard bit per row in a word
_WORDS = 3  # word k holds rows k..k+3
_HEIGHT_BITS = 3  # bits per column in the packed heights
_FULL_HEIGHTS = sum(NUM_ROWS << (_HEIGHT_BITS * c) for c in range(NUM_COLUMNS))
_LINE_SHIFTS = (1, _ROW_BITS - 1, _ROW_BITS, _ROW_BITS + 1)  # →, ↙, ↓, ↘ one step in bits
# Observation unpacking: rows 0..3 come from word 0 (rows 0..3), rows 4..5 from word 2 (rows
# 2..5); `_OBS_BIT[r, c, 0]` is cell (r, c)'s bit in its word.
_OBS_FROM_TOP = (np.arange(NUM_ROWS) < 4)[:, None, None]  # [6, 1, 1]
_OBS_BIT = np.array([[[1 << ((r if r < 4 else r - 2) * _ROW_BITS + c)]
                      for c in range(NUM_COLUMNS)] for r in range(NUM_ROWS)], np.uint32)


def _zero_boards():
    return jnp.zeros((2, _WORDS), jnp.uint32)


@struct.dataclass
class ConnectFourState(State):
    observation: Array = struct.field(
        default_factory=lambda: jnp.zeros((NUM_ROWS, NUM_COLUMNS, 2), jnp.bool_))
    rewards: Array = struct.field(default_factory=lambda: jnp.zeros(2, jnp.float32))
    legal_action_mask: Array = struct.field(
        default_factory=lambda: jnp.ones(NUM_ACTIONS, jnp.bool_))
    # [2, 3] uint32: bitboards; row 0 = discs of current_player, row 1 = the other player's.
    _boards: Array = struct.field(default_factory=_zero_boards)
    _heights: Array = struct.field(default_factory=lambda: jnp.int32(0))  # [] 3 bits/column
    _first_player: Array = struct.field(default_factory=lambda: jnp.int32(0))  # [] moved first

    @property
    def env_id(self) -> str:
        return "connect_four"

    def to_svg(self) -> str:
        return render_svg(self)


class ConnectFour(Env):
    def __init__(self):
        super().__init__()

    id = property(lambda self: "connect_four")
    version = property(lambda self: "v0")
    num_players = property(lambda self: 2)

    def _init(self, key) -> ConnectFourState:
        first = key_coin(key)
        return ConnectFourState(current_player=first, _first_player=first)

    def _step(self, state: ConnectFourState, action: Array, key) -> ConnectFourState:
        shift = _HEIGHT_BITS * action
        height = (state._heights >> shift) & 7
        heights = state._heights + (1 << shift)
        # A full column (an illegal move) indexes row -1, which wraps to the bottom row as in
        # pgx's `board.at[-1, column].set(...)`: the mover's disc replaces the bottom cell there.
        # The game then ends with the penalty, and the observation is pgx's.
        row = jnp.where(height >= NUM_ROWS, NUM_ROWS - 1, NUM_ROWS - 1 - height)
        # The new disc's bit in each of the three words (zero in words that miss its row).
        rel = row - jnp.arange(_WORDS, dtype=jnp.int32)  # row inside word k
        inside = (rel >= 0) & (rel < 4)
        pos = jnp.where(inside, rel * _ROW_BITS + action, 0).astype(jnp.uint32)
        bit = jnp.where(inside, jnp.uint32(1) << pos, jnp.uint32(0))
        mover = state._boards[0] | bit
        other = state._boards[1] & ~bit  # a no-op for a legal move (an empty cell)
        won = _has_four(mover)
        full = heights == _FULL_HEIGHTS
        col_heights = (heights >> (_HEIGHT_BITS * jnp.arange(NUM_COLUMNS, dtype=jnp.int32))) & 7
        p = state.current_player
        rewards = jnp.where(won, jnp.where(jnp.arange(2) == p, 1.0, -1.0), 0.0)
        return state.replace(
            current_player=1 - p,
            rewards=rewards.astype(jnp.float32),
            terminated=won | full,
            legal_action_mask=col_heights < NUM_ROWS,
            _boards=jnp.stack([other, mover]),
            _heights=heights,
        )

    def _observe(self, state: ConnectFourState, player_id: Array) -> Array:
        b = state._boards
        own = jnp.where(player_id == state.current_player, 0, 1)
        top = jnp.where(own == 0, b[:, 0], b[::-1, 0])  # [2] words of (observer, opponent)
        low = jnp.where(own == 0, b[:, 2], b[::-1, 2])
        rows = jnp.where(_OBS_FROM_TOP, top, low)  # [6, 1, 2]
        return (rows & _OBS_BIT) != 0


def _has_four(words: Array) -> Array:
    """Whether a [3] uint32 bitboard holds four in a row in any direction."""
    found = jnp.uint32(0)
    for d in _LINE_SHIFTS:
        pairs = words & (words >> d)
        found = found | (pairs & (pairs >> (2 * d)))
    return (found != 0).any()


def board_array(state: ConnectFourState) -> np.ndarray:
    """[6, 7] int array of an unbatched state: −1 empty, else the id of the disc's owner."""
    b = np.asarray(state._boards).astype(np.int64)
    p = int(state.current_player)
    out = np.full((NUM_ROWS, NUM_COLUMNS), -1)
    for r in range(NUM_ROWS):
        k = min(r, _WORDS - 1)
        for c in range(NUM_COLUMNS):
            shift = (r - k) * _ROW_BITS + c
            for i, owner in ((0, p), (1, 1 - p)):
                if (b[i, k] >> shift) & 1:
                    out[r, c] = owner
    return out


def bitboard(cells) -> np.ndarray:
    """The [3] uint32 words of a [6, 7] bool array of cells (numpy, no tracing)."""
    cells = np.asarray(cells, bool)
    words = np.zeros(_WORDS, np.uint32)
    for r, c in zip(*np.nonzero(cells)):
        for k in range(_WORDS):
            if 0 <= r - k < 4:
                words[k] |= np.uint32(1 << ((r - k) * _ROW_BITS + c))
    return words


def from_board(board, current_player: int, first_player: int | None = None) -> ConnectFourState:
    """An unbatched live state from a [6, 7] array (row 0 the top): −1 empty, else player id.

    Discs must rest on the bottom or on another disc. `first_player` (used only for the colours
    of the picture) defaults to the player who moved first given the disc counts.
    """
    board = np.asarray(board)
    assert board.shape == (NUM_ROWS, NUM_COLUMNS), board.shape
    filled = board >= 0
    assert not (filled[:-1] & ~filled[1:]).any(), "a disc floats above an empty cell"
    p = int(current_player)
    words = np.stack([bitboard(board == p), bitboard(board == 1 - p)])
    heights = filled.sum(axis=0)
    if first_player is None:
        first_player = p if (board == p).sum() == (board == 1 - p).sum() else 1 - p
    state = ConnectFourState(
        current_player=jnp.int32(p),
        legal_action_mask=jnp.asarray(heights < NUM_ROWS),
        _boards=jnp.asarray(words),
        _heights=jnp.int32(sum(int(h) << (_HEIGHT_BITS * c) for c, h in enumerate(heights))),
        _first_player=jnp.int32(first_player),
    )
    return state.replace(observation=ConnectFour()._observe(state, state.current_player))


def render_svg(state: ConnectFourState) -> str:
    unbatched(state)
    cell, pad = 50, 10
    width, height = NUM_COLUMNS * cell + 2 * pad, NUM_ROWS * cell + 2 * pad + 30
    svg = Svg(width, height)
    svg.rect(pad, pad, NUM_COLUMNS * cell, NUM_ROWS * cell, fill="#1f4fbf", rx=8)
    first = int(state._first_player)
    colours = {first: "#d62728", 1 - first: "#f2c500"}
    board = board_array(state)
    for r in range(NUM_ROWS):
        for c in range(NUM_COLUMNS):
            owner = int(board[r, c])
            svg.circle(pad + c * cell + cell / 2, pad + r * cell + cell / 2, cell * 0.4,
                       fill=colours.get(owner, "white"), stroke="black")
    status = (f"red = player {first}, yellow = player {1 - first}; "
              + ("game over" if bool(state.terminated)
                 else f"player {int(state.current_player)} to move"))
    svg.text(width / 2, NUM_ROWS * cell + 2 * pad + 12, status, size=11)
    return str(svg)
