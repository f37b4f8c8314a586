"""Gardner chess (5 × 5 minichess), with pgx's encodings (pgx `gardner_chess` v0).

Rules: chess on a 5 × 5 board. Each side starts with R N B Q K on its first rank (files a..e)
and five pawns in front of them. Pieces move as in chess; pawns move one square forward (no
double step), capture diagonally forward, and promote on the last rank (to a queen by the
queen-like action, or to a rook, bishop or knight by an underpromotion action). There is no
castling and no en passant. White moves first; the player who plays white is drawn at `init`
from the key, and `current_player` passes to the other player after every move.

The game ends on checkmate (+1 to the winner, −1 to the mated player), stalemate,
insufficient material (pgx's rule), the third occurrence of a position (same board and side to
move), 100 half-moves without a capture or a pawn move, or at step 256 (the cap: `terminated`,
never `truncated`); every ending but checkmate is a draw (0, 0). A mate on step 256 still pays.

Actions (1,225 = 25 squares × 49 planes): `action = 49 * from_square + plane`, squares
`5 * file + rank` in the mover's view (see `holdemjax.envs._gardner_rules`).

Observation `(5, 5, 115)` float32 from the observer's view, rank 5 (its far rank) at row 0 and
file a at column 0 (files mirrored for black, as in pgx): for each of the last 8 positions
(`t = 0` the current one; positions before the game started are empty boards) 14 planes:
the observer's P N B R Q K, the opponent's P N B R Q K, "position not seen before", "position
seen before" (elsewhere in the game); then the observer's colour (0 white, 1 black), the step
count / 256 and the no-progress half-move count / 100.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from holdemjax.api import Array, Env, State
from holdemjax.envs import _gardner_rules as rules
from holdemjax.render.svg import Svg, unbatched
from holdemjax.xla import key_coin

__all__ = ["GardnerChess", "GardnerChessState", "from_fen", "to_fen", "move_name", "action_of",
           "NUM_ACTIONS",
           "NUM_PLANES", "MAX_STEPS", "NO_PROGRESS_LIMIT", "HISTORY", "PLANES_PER_POSITION",
           "OBS_MY_PIECES", "OBS_OPP_PIECES", "OBS_NEW", "OBS_REPEATED", "OBS_COLOR",
           "OBS_STEP_COUNT", "OBS_NO_PROGRESS", "OBS_PLANES", "PIECES", "START_FEN"]

NUM_ACTIONS = rules.NUM_ACTIONS
NUM_PLANES = rules.NUM_PLANES
MAX_STEPS = rules.MAX_STEPS
NO_PROGRESS_LIMIT = rules.NO_PROGRESS_LIMIT
HISTORY = rules.HISTORY
PIECES = "PNBRQK"
# Observation planes: position t (0..7) occupies planes 14 t .. 14 t + 13.
PLANES_PER_POSITION = 14
OBS_MY_PIECES = slice(0, 6)  # + 14 t: the observer's P N B R Q K
OBS_OPP_PIECES = slice(6, 12)  # + 14 t: the opponent's P N B R Q K
OBS_NEW = 12  # + 14 t: all ones when position t occurs once in the game so far
OBS_REPEATED = 13  # + 14 t: all ones when position t occurred more than once
OBS_COLOR = HISTORY * PLANES_PER_POSITION  # 112: the observer's colour (0 white, 1 black)
OBS_STEP_COUNT = OBS_COLOR + 1  # 113: step count / 256
OBS_NO_PROGRESS = OBS_COLOR + 2  # 114: half-moves since a capture or pawn move / 100
OBS_PLANES = OBS_COLOR + 3  # 115
START_FEN = "rnbqk/ppppp/5/PPPPP/RNBQK w - - 0 1"

_PLANE_BITS = (1 << np.arange(PLANES_PER_POSITION)).astype(np.int32)
_STEP_SCALE = np.float32(1 / MAX_STEPS)
_NO_PROGRESS_SCALE = np.float32(1 / NO_PROGRESS_LIMIT)


def _start_history():
    h = np.zeros((HISTORY, 5, 5), np.int8)
    h[0] = rules.START_BOARD[rules.OBS_SQUARE]
    return jnp.asarray(h)


def _start_mask():
    m = np.zeros(NUM_ACTIONS, bool)
    m[list(rules.START_MOVES)] = True
    return jnp.asarray(m)


def _start_hash() -> np.ndarray:
    """The start position's hash: a constant of its own, as in pgx (see `rules.zobrist`)."""
    return rules.zobrist()[2]


def _start_hashes():
    return jnp.zeros((rules.HASH_SLOTS, 2), jnp.uint32).at[0].set(_start_hash())


def _start_recent():
    return jnp.zeros((HISTORY, 2), jnp.uint32).at[0].set(_start_hash())


@struct.dataclass
class GardnerChessState(State):
    observation: Array = struct.field(
        default_factory=lambda: jnp.zeros((5, 5, OBS_PLANES), jnp.float32))
    rewards: Array = struct.field(default_factory=lambda: jnp.zeros(2, jnp.float32))
    legal_action_mask: Array = struct.field(default_factory=_start_mask)
    # [25] int8: the board in the mover's view (square 5 * file + rank; own pieces > 0).
    _board: Array = struct.field(default_factory=lambda: jnp.asarray(rules.START_BOARD))
    _turn: Array = struct.field(default_factory=lambda: jnp.int32(0))  # [] colour to move, 0 white
    _halfmove: Array = struct.field(default_factory=lambda: jnp.int32(0))  # [] since capture/pawn
    _fullmove: Array = struct.field(default_factory=lambda: jnp.int32(1))  # [] FEN move number
    # [8, 5, 5] int8: the last 8 boards (0 = current), in observation cell order and the mover's
    # view; all zeros before the game started.
    _history: Array = struct.field(default_factory=_start_history)
    # [257, 2] uint32: the hash of every position of the game (slot = push count mod 257).
    _hashes: Array = struct.field(default_factory=_start_hashes)
    _pushes: Array = struct.field(default_factory=lambda: jnp.int32(1))  # [] hashes pushed
    _recent: Array = struct.field(default_factory=_start_recent)  # [8, 2] uint32: last 8 hashes
    # [8] int32: occurrences in `_hashes` of each of the last 8 hashes (0 = no position).
    _counts: Array = struct.field(
        default_factory=lambda: jnp.zeros(HISTORY, jnp.int32).at[0].set(1))

    @property
    def env_id(self) -> str:
        return "gardner_chess"

    def to_svg(self) -> str:
        return render_svg(self)


class GardnerChess(Env):
    def __init__(self):
        super().__init__()

    id = property(lambda self: "gardner_chess")
    version = property(lambda self: "v0")
    num_players = property(lambda self: 2)

    def _init(self, key) -> GardnerChessState:
        return GardnerChessState(current_player=key_coin(key))

    def _step(self, state: GardnerChessState, action: Array, key) -> GardnerChessState:
        from_sq, plane = action // NUM_PLANES, action % NUM_PLANES
        to_sq = jnp.asarray(rules.TO_FLAT)[action]
        under = jnp.where(plane < 9, plane // 3, -1)  # 0 rook, 1 bishop, 2 knight, -1 none
        board = state._board.astype(jnp.int32)
        h = rules.move_hash(state._recent[0], board, state._turn, from_sq, to_sq, under)
        to_n = jnp.where(to_sq < 0, rules.NUM_SQUARES - 1, to_sq)
        progress = (board[to_n] < 0) | (board[from_sq] == rules.PAWN)  # a capture or a pawn move
        halfmove = jnp.where(progress, 0, state._halfmove + 1)
        board = rules.apply_move(board, from_sq, to_sq, under)
        board = -board[rules.MIRROR]  # the next mover's view
        history = jnp.concatenate([board[rules.OBS_SQUARE][None].astype(jnp.int8),
                                   -state._history[:-1, ::-1, :]])
        hashes, pushes, recent, counts = _push_hash(state, h)
        mask, check = rules.legal_moves(board)
        no_move = ~mask.any()
        terminated = (no_move | (halfmove >= NO_PROGRESS_LIMIT) | rules.insufficient_material(board)
                      | (counts[0] >= 3) | (state._step_count >= MAX_STEPS))
        nxt = 1 - state.current_player  # the player to move next (the one mated, if mated)
        mate = no_move & check
        rewards = jnp.where(mate, jnp.where(jnp.arange(2) == nxt, -1.0, 1.0), 0.0)
        return state.replace(
            current_player=nxt,
            rewards=rewards.astype(jnp.float32),
            terminated=terminated,
            legal_action_mask=mask,
            _board=board.astype(jnp.int8),
            _turn=1 - state._turn,
            _halfmove=halfmove,
            _fullmove=state._fullmove + state._turn,
            _history=history,
            _hashes=hashes,
            _pushes=pushes,
            _recent=recent,
            _counts=counts,
        )

    def _observe(self, state: GardnerChessState, player_id: Array) -> Array:
        flip = player_id != state.current_player
        hist = state._history.astype(jnp.int32)
        hist = jnp.where(flip, -hist[:, ::-1, :], hist).transpose(1, 2, 0)  # [5, 5, 8]
        # Each (cell, position) as a 14-bit code of its planes, then one bit test per output
        # plane (far cheaper on CPU than comparing against every piece value).
        code = jnp.where(hist > 0, 1 << (hist - 1), jnp.where(hist < 0, 1 << (5 - hist), 0))
        code = code | jnp.where(state._counts >= 2, 1 << OBS_REPEATED, 1 << OBS_NEW)
        planes = (code[..., None] & _PLANE_BITS) != 0  # [5, 5, 8, 14]
        planes = planes.reshape(5, 5, HISTORY * PLANES_PER_POSITION)
        color = jnp.where(flip, 1 - state._turn, state._turn).astype(jnp.float32)
        # Counts times the reciprocal, the arithmetic jit gives pgx's divisions (XLA turns a
        # division by a constant into that product: 98 / 100 gives 0.97999996, not 0.98).
        scalars = jnp.stack([color, state._step_count.astype(jnp.float32) * _STEP_SCALE,
                             state._halfmove.astype(jnp.float32) * _NO_PROGRESS_SCALE])
        return jnp.concatenate([planes.astype(jnp.float32),
                                jnp.broadcast_to(scalars, (5, 5, 3))], axis=-1)


def _push_hash(state: GardnerChessState, h):
    """Add hash `h` to the game's hashes (the oldest drops when all 257 slots are used, as in
    pgx) and update the occurrence counts of the last 8 positions."""
    slot = state._pushes % rules.HASH_SLOTS
    full = state._pushes >= rules.HASH_SLOTS
    dropped = state._hashes[slot]
    older = state._recent[:-1]
    count = (state._hashes == h).all(axis=1).sum(dtype=jnp.int32) + 1
    count -= full & (dropped == h).all()
    older_counts = (state._counts[:-1] + (older == h).all(axis=1)
                    - (full & (older == dropped).all(axis=1)))
    return (state._hashes.at[slot].set(h), state._pushes + 1,
            jnp.concatenate([h[None], older]),
            jnp.concatenate([count[None], older_counts]).astype(jnp.int32))


# ----------------------------------------------------------------------------- FEN
def _white_board(state: GardnerChessState) -> np.ndarray:
    board = np.asarray(state._board, np.int32)
    return -board[rules.MIRROR] if int(state._turn) == 1 else board


def to_fen(state: GardnerChessState) -> str:
    """The position of an unbatched state in FEN (ranks 5 to 1, castling and en passant '-'),
    e.g. `START_FEN`."""
    unbatched(state)
    board = _white_board(state)
    rows = []
    for rank in range(4, -1, -1):
        row, gap = "", 0
        for file in range(5):
            p = board[5 * file + rank]
            if p == 0:
                gap += 1
                continue
            row += (str(gap) if gap else "") + (PIECES[p - 1] if p > 0 else PIECES[-p - 1].lower())
            gap = 0
        rows.append(row + (str(gap) if gap else ""))
    turn = "w" if int(state._turn) == 0 else "b"
    return f"{'/'.join(rows)} {turn} - - {int(state._halfmove)} {int(state._fullmove)}"


def from_fen(fen: str, current_player: int = 0) -> GardnerChessState:
    """An unbatched state from FEN, as pgx's `State._from_fen` makes it: step count 0, the
    position's legal moves, its termination and rewards (a mated side to move is terminated
    with −1); its history holds the FEN position and, one step back, the standard start
    position (pgx keeps the start state's history entry). `current_player` is the player to
    move (pgx: always 0)."""
    board_part, turn, _castling, _ep, halfmove, fullmove = fen.split()
    white = np.zeros(rules.NUM_SQUARES, np.int32)
    rows = board_part.split("/")
    assert len(rows) == 5 and turn in "wb", fen
    for i, row in enumerate(rows):
        file = 0
        for ch in row:
            if ch.isdigit():
                file += int(ch)
                continue
            p = PIECES.index(ch.upper()) + 1
            white[5 * file + 4 - i] = p if ch.isupper() else -p
            file += 1
        assert file == 5, fen
    black = turn == "b"
    board = -white[rules.MIRROR] if black else white
    h = rules.position_hash(white, black)
    hashes = np.zeros((rules.HASH_SLOTS, 2), np.uint32)
    hashes[0], hashes[1] = _start_hash(), h
    recent = np.zeros((HISTORY, 2), np.uint32)
    recent[0], recent[1] = h, _start_hash()
    same = int((h == _start_hash()).all())
    counts = np.zeros(HISTORY, np.int32)
    counts[:2] = 1 + same
    history = np.zeros((HISTORY, 5, 5), np.int8)
    history[0], history[1] = board[rules.OBS_SQUARE], rules.START_BOARD[rules.OBS_SQUARE]
    mask, check = jax.jit(rules.legal_moves)(jnp.asarray(board, jnp.int32))
    no_move = not bool(mask.any())
    terminated = (no_move or int(halfmove) >= NO_PROGRESS_LIMIT
                  or bool(rules.insufficient_material(jnp.asarray(board))) or counts[0] >= 3)
    rewards = np.zeros(2, np.float32)
    if no_move and bool(check):
        rewards[:] = 1.0
        rewards[current_player] = -1.0
    state = GardnerChessState(
        current_player=jnp.int32(current_player), rewards=jnp.asarray(rewards),
        terminated=jnp.bool_(terminated), legal_action_mask=mask,
        _board=jnp.asarray(board, jnp.int8), _turn=jnp.int32(int(black)),
        _halfmove=jnp.int32(int(halfmove)), _fullmove=jnp.int32(int(fullmove)),
        _history=jnp.asarray(history), _hashes=jnp.asarray(hashes), _pushes=jnp.int32(2),
        _recent=jnp.asarray(recent), _counts=jnp.asarray(counts))
    return state.replace(observation=GardnerChess()._observe(state, state.current_player))


def _square_name(q: int, black: bool) -> str:
    file, rank = divmod(q, 5)
    return "abcde"[file] + str((4 - rank if black else rank) + 1)


def move_name(action: int, black: bool) -> str:
    """Action id -> move in coordinates of the board ("b1c3"; "a4a5" promotes to a queen,
    "a4a5n" underpromotes), for a mover playing black or white. An action with no destination
    square (an illegal underpromotion plane) is named like "b1-p0" (its plane)."""
    from_sq, plane = divmod(int(action), NUM_PLANES)
    to = int(rules.TO[from_sq, plane])
    if to < 0:
        return f"{_square_name(from_sq, black)}-p{plane}"
    suffix = "rbn"[plane // 3] if plane < 9 else ""
    return _square_name(from_sq, black) + _square_name(to, black) + suffix


def action_of(name: str, black: bool) -> int:
    """Move in board coordinates -> action id (the inverse of `move_name`)."""
    try:
        return _actions_by_name(bool(black))[name]
    except KeyError:
        raise ValueError(f"no action is the move {name!r}") from None


@functools.cache
def _actions_by_name(black: bool) -> dict[str, int]:
    return {move_name(a, black): a for a in range(NUM_ACTIONS)}


# ------------------------------------------------------------------------------ drawing
_GLYPHS = {1: "♙", 2: "♘", 3: "♗", 4: "♖", 5: "♕", 6: "♔",
           -1: "♟", -2: "♞", -3: "♝", -4: "♜", -5: "♛", -6: "♚"}


def render_svg(state: GardnerChessState) -> str:
    """The board from white's side (rank 5 at the top), with the position's FEN."""
    unbatched(state)
    cell, pad = 56, 24
    side = 5 * cell
    svg = Svg(side + 2 * pad, side + 2 * pad + 24)
    board = _white_board(state)
    for file in range(5):
        for rank in range(5):
            x, y = pad + file * cell, pad + (4 - rank) * cell
            svg.rect(x, y, cell, cell, fill="#b58863" if (file + rank) % 2 == 0 else "#f0d9b5")
            p = int(board[5 * file + rank])
            if p:
                svg.text(x + cell / 2, y + cell / 2, _GLYPHS[p], size=cell * 0.75)
    for i in range(5):
        svg.text(pad + i * cell + cell / 2, pad + side + pad / 2, "abcde"[i], size=12)
        svg.text(pad / 2, pad + i * cell + cell / 2, str(5 - i), size=12)
    white = int(state.current_player) if int(state._turn) == 0 else 1 - int(state.current_player)
    status = (f"white = player {white}; "
              + ("game over" if bool(state.terminated | state.truncated)
                 else f"player {int(state.current_player)} to move"))
    svg.text(pad + side / 2, side + 2 * pad + 10, status, size=11)
    return str(svg)
