"""Othello (reversi), with pgx's encodings (pgx `othello` v0).

Rules: an 8 × 8 board starts with four discs in the centre: the first player (black) on d5
and e4, the second (white) on d4 and e5 (rows 1..8 top to bottom, columns a..h left to right).
Black moves first. A move puts a disc on an empty square so that, in at least one of the eight
directions, one or more opponent discs lie in an unbroken line between it and another disc of
the mover; every such line is flipped to the mover's colour. A player without such a move
must pass (action `PASS`, legal only then); a player with a move may not pass. The game ends
when the board is full, when one colour has no disc left, or when a pass follows a pass. The
player with more discs gets +1 and the other −1; equal counts give 0 to both. The first player
is drawn at `init` from the key; `current_player` passes to the other player after every
action, passes and the last move included.

Actions 0..63 are the squares, row-major (`action = 8 × row + column`, row 0 the top row);
action 64 (`PASS`) is the pass. Observation `(8, 8, 2)` bool from the observer's view:
plane 0 (`OBS_MINE`) the observer's discs, plane 1 (`OBS_THEIRS`) the opponent's.

Implementation: each player's discs are a 64-bit bitboard held as two uint32 words (`lo` =
rows 0..3, `hi` = rows 4..7; bit `8 r + c` of the 64). Moves and flips are found with
shift-and fills along each of the eight directions (E +1, SW +7, S +8, SE +9, W −1, NE −7,
N −8, NW −9 bits); a column mask after each shift stops runs from wrapping around a row end.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from holdemjax.api import Array, Env, State
from holdemjax.render.svg import Svg, unbatched
from holdemjax.xla import key_coin

__all__ = ["Othello", "OthelloState", "BOARD_SIZE", "NUM_SQUARES", "PASS", "NUM_ACTIONS",
           "OBS_MINE", "OBS_THEIRS", "bitboard", "board_array", "from_board", "key_coin"]

BOARD_SIZE = 8
NUM_SQUARES = BOARD_SIZE * BOARD_SIZE  # actions 0..63: square 8 × row + column
PASS = NUM_SQUARES  # action 64
NUM_ACTIONS = NUM_SQUARES + 1
OBS_MINE, OBS_THEIRS = 0, 1  # observation planes
_ALL = np.uint32(0xFFFFFFFF)
# Per word: every row without column 0 / without column 7.
_NOT_COL0, _NOT_COL7 = np.uint32(0xFEFEFEFE), np.uint32(0x7F7F7F7F)
# The eight directions as (bit shift, column mask): E +1, SW +7, S +8, SE +9, W −1, NE −7,
# N −8, NW −9. The mask clears the bits a shift wraps around a row end.
_DIRECTIONS = ((1, _NOT_COL0), (7, _NOT_COL7), (8, _ALL), (9, _NOT_COL0),
               (-1, _NOT_COL7), (-7, _NOT_COL0), (-8, _ALL), (-9, _NOT_COL7))
_FILL_STEPS = BOARD_SIZE - 2  # at most 6 opponent discs in a line between two squares
# The starting position relative to the first player (black): bits of (lo, hi).
_BLACK_START = ((1 << (3 * 8 + 4)), (1 << (0 * 8 + 3)))  # e4 = (3, 4), d5 = (4, 3)
_WHITE_START = ((1 << (3 * 8 + 3)), (1 << (0 * 8 + 4)))  # d4 = (3, 3), e5 = (4, 4)
# Unpacking: `_BIT[r, c, 0]` is square (r, c)'s bit in its word (lo for r < 4, hi otherwise).
_FROM_LO = (np.arange(BOARD_SIZE) < 4)[:, None, None]  # [8, 1, 1]
_BIT = np.array([[[1 << ((r % 4) * 8 + c)] for c in range(8)] for r in range(8)], np.uint32)
_MASK_BIT = _BIT.reshape(2, 32)  # [word, bit]: bit i of word w is square 32 w + i


def _start_boards():
    return jnp.asarray([_BLACK_START, _WHITE_START], jnp.uint32)


def _start_mask():
    m = np.zeros(NUM_ACTIONS, bool)
    m[[19, 26, 37, 44]] = True  # d3, c4, f5, e6 for black
    return jnp.asarray(m)


@struct.dataclass
class OthelloState(State):
    observation: Array = struct.field(
        default_factory=lambda: jnp.zeros((BOARD_SIZE, BOARD_SIZE, 2), jnp.bool_))
    rewards: Array = struct.field(default_factory=lambda: jnp.zeros(2, jnp.float32))
    legal_action_mask: Array = struct.field(default_factory=_start_mask)
    # [2, 2] uint32: bitboards (lo, hi); row 0 = discs of current_player, row 1 = the other's.
    _boards: Array = struct.field(default_factory=_start_boards)
    _passed: Array = struct.field(default_factory=lambda: jnp.bool_(False))  # [] last was PASS
    _first_player: Array = struct.field(default_factory=lambda: jnp.int32(0))  # [] black

    @property
    def env_id(self) -> str:
        return "othello"

    def to_svg(self) -> str:
        return render_svg(self)


class Othello(Env):
    def __init__(self):
        super().__init__()

    id = property(lambda self: "othello")
    version = property(lambda self: "v0")
    num_players = property(lambda self: 2)

    def _init(self, key) -> OthelloState:
        first = key_coin(key)
        return OthelloState(current_player=first, _first_player=first)

    def _step(self, state: OthelloState, action: Array, key) -> OthelloState:
        own, opp = state._boards[0], state._boards[1]  # [2] (lo, hi) each
        is_pass = action == PASS
        # The placed disc as (lo, hi); zero for PASS, so a pass changes no disc.
        sq = action.astype(jnp.uint32)
        placed = jnp.stack([jnp.where(sq < 32, jnp.uint32(1) << (sq & 31), 0),
                            jnp.where((sq >= 32) & ~is_pass, jnp.uint32(1) << (sq & 31), 0)])
        flips = _flips(own, opp, placed)
        # As pgx: the placed disc is XORed in (for a legal move, on an empty square, that is an
        # OR) and a square held by the opponent stays theirs. Only an illegal move on an occupied
        # square sees the difference: on an own disc it removes it, on an opponent's disc nothing
        # changes there; the game then ends with the penalty, and the observation is pgx's.
        opp = opp & ~flips
        own = ((own ^ placed) | flips) & ~opp
        full = ((own | opp) == _ALL).all()
        wiped = (opp == 0).all()
        done = jnp.where(is_pass, state._passed, full | wiped)
        margin = _count(own) - _count(opp)  # the mover's disc lead
        p = state.current_player
        won = jnp.sign(margin) * done  # int32: +1, 0 or −1 for the mover, 0 while playing
        rewards = jnp.where(jnp.arange(2) == p, won, -won)
        moves = _moves(opp, own)  # the next player's
        no_move = (moves == 0).all()
        mask = jnp.concatenate([(moves[:, None] & _MASK_BIT) != 0, no_move[None, None]],
                               axis=None)
        return state.replace(
            current_player=1 - p,
            rewards=rewards.astype(jnp.float32),
            terminated=done,
            legal_action_mask=mask,
            _boards=jnp.stack([opp, own]),
            _passed=is_pass,
        )

    def _observe(self, state: OthelloState, player_id: Array) -> Array:
        b = state._boards
        boards = jnp.where(player_id == state.current_player, b, b[::-1])  # [2 (me, them), 2]
        words = boards.T  # [2 (lo, hi), 2 (me, them)]
        rows = jnp.where(_FROM_LO, words[0], words[1])  # [8, 1, 2]
        return (rows & _BIT) != 0


# ----------------------------------------------------------------------------- bitboards
# The eight directions as vectors: every fill below runs all of them at once on [8] words (the
# directions unrolled in Python made a program 2.5x slower to compile, for the same bits).
_SHIFTS = np.array([s for s, _ in _DIRECTIONS], np.int32)
_UP = _SHIFTS > 0  # towards higher bits
_LEFT = np.where(_UP, _SHIFTS, 0).astype(np.uint32)
_RIGHT = np.where(_UP, 0, -_SHIFTS).astype(np.uint32)
_MASKS = np.array([m for _, m in _DIRECTIONS], np.uint32)


def _shift(lo, hi):
    """The 64-bit boards ``(lo, hi)`` (``[8]`` words, one per direction) each shifted by its
    direction's bit shift."""
    return (jnp.where(_UP, lo << _LEFT, (lo >> _RIGHT) | (hi << (32 - _RIGHT))),
            jnp.where(_UP, (hi << _LEFT) | (lo >> (32 - _LEFT)), hi >> _RIGHT))


def _run(src, opp):
    """Per direction (``[8]`` words each), the unbroken run of `opp` discs next to each `src`
    square and the squares just past the run: (run_lo, run_hi, end_lo, end_hi)."""
    p_lo, p_hi = opp[0] & _MASKS, opp[1] & _MASKS  # discs a run can go through (no wrap)
    t_lo, t_hi = _shift(jnp.broadcast_to(src[0], _MASKS.shape),
                        jnp.broadcast_to(src[1], _MASKS.shape))
    t_lo, t_hi = t_lo & p_lo, t_hi & p_hi
    for _ in range(_FILL_STEPS - 1):
        n_lo, n_hi = _shift(t_lo, t_hi)
        t_lo, t_hi = t_lo | (n_lo & p_lo), t_hi | (n_hi & p_hi)
    e_lo, e_hi = _shift(t_lo, t_hi)
    return t_lo, t_hi, e_lo & _MASKS, e_hi & _MASKS


def _any_direction(words):
    """The OR of the eight directions' words."""
    return jax.lax.reduce(words, jnp.uint32(0), jax.lax.bitwise_or, (0,))


def _moves(own, opp) -> Array:
    """[2] words (lo, hi) of the empty squares where the owner of `own` can move: a run of
    `opp` discs starting next to an own disc and ending on an empty square."""
    _, _, e_lo, e_hi = _run(own, opp)
    return jnp.stack([_any_direction(e_lo) & ~(own[0] | opp[0]),
                      _any_direction(e_hi) & ~(own[1] | opp[1])])


def _flips(own, opp, placed) -> Array:
    """[2] words of the opponent discs flipped by a disc `placed` of the owner of `own`."""
    t_lo, t_hi, e_lo, e_hi = _run(placed, opp)
    closed = ((e_lo & own[0]) | (e_hi & own[1])) != 0  # the run ends on an own disc
    return jnp.stack([_any_direction(jnp.where(closed, t_lo, 0)),
                      _any_direction(jnp.where(closed, t_hi, 0))])


def _count(words) -> Array:
    return jax.lax.population_count(words).astype(jnp.int32).sum()


# ------------------------------------------------------------------------- host helpers
def bitboard(cells) -> np.ndarray:
    """The [2] uint32 words (lo, hi) of an [8, 8] bool array of squares (numpy)."""
    flat = np.asarray(cells, bool).reshape(2, 32)
    return (flat * (np.uint64(1) << np.arange(32, dtype=np.uint64))).sum(axis=1).astype(np.uint32)


def board_array(state: OthelloState) -> np.ndarray:
    """[8, 8] int array of an unbatched state: −1 empty, else the id of the disc's owner."""
    b = np.asarray(state._boards)
    p = int(state.current_player)
    out = np.full((BOARD_SIZE, BOARD_SIZE), -1)
    for i, owner in ((0, p), (1, 1 - p)):
        bits = (b[i][:, None] >> np.arange(32, dtype=np.uint32)) & 1
        out[bits.reshape(BOARD_SIZE, BOARD_SIZE) == 1] = owner
    return out


def from_board(board, current_player: int, first_player: int = 0,
               passed: bool = False) -> OthelloState:
    """An unbatched live state from an [8, 8] array (row 0 the top): −1 empty, else player id.

    `first_player` is black (used for the colours of the picture); `passed` says the previous
    action was a pass.
    """
    board = np.asarray(board)
    assert board.shape == (BOARD_SIZE, BOARD_SIZE), board.shape
    p = int(current_player)
    boards = jnp.asarray(np.stack([bitboard(board == p), bitboard(board == 1 - p)]))
    moves = _moves(boards[0], boards[1])
    mask = jnp.concatenate([((moves[:, None] & _MASK_BIT) != 0).reshape(-1),
                            (moves == 0).all()[None]])
    state = OthelloState(current_player=jnp.int32(p), legal_action_mask=mask, _boards=boards,
                         _passed=jnp.bool_(passed), _first_player=jnp.int32(first_player))
    return state.replace(observation=Othello()._observe(state, state.current_player))


def render_svg(state: OthelloState) -> str:
    unbatched(state)
    cell, pad = 40, 24
    side = BOARD_SIZE * cell
    svg = Svg(side + 2 * pad, side + 2 * pad + 24)
    svg.rect(pad, pad, side, side, fill="#2e8b57", stroke="black")
    for i in range(1, BOARD_SIZE):
        svg.line(pad + i * cell, pad, pad + i * cell, pad + side, stroke="black")
        svg.line(pad, pad + i * cell, pad + side, pad + i * cell, stroke="black")
    for i in range(BOARD_SIZE):
        svg.text(pad + i * cell + cell / 2, pad / 2, "abcdefgh"[i], size=12)
        svg.text(pad / 2, pad + i * cell + cell / 2, str(i + 1), size=12)
    black = int(state._first_player)
    board = board_array(state)
    live = not bool(state.terminated)
    for r in range(BOARD_SIZE):
        for c in range(BOARD_SIZE):
            x, y = pad + c * cell + cell / 2, pad + r * cell + cell / 2
            if board[r, c] >= 0:
                svg.circle(x, y, cell * 0.42, fill="black" if board[r, c] == black else "white",
                           stroke="black")
            elif live and bool(state.legal_action_mask[8 * r + c]):
                svg.circle(x, y, cell * 0.08, fill="#1b5e20")
    counts = {who: int((board == who).sum()) for who in (0, 1)}
    status = (f"black = player {black} ({counts[black]}), white = player {1 - black} "
              f"({counts[1 - black]}); "
              + ("game over" if not live else f"player {int(state.current_player)} to move"))
    svg.text(pad + side / 2, side + 2 * pad + 8, status, size=11)
    return str(svg)
