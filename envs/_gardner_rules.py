"""Gardner chess rules on 25-bit bitboards: the action tables, legal moves, the move itself and
the position hash (private to `holdemjax.envs.gardner_chess`).

Squares. Square `q = 5 * file + rank` (file 0..4 = a..e, rank 0..4 = 1..5) from the view of the
player to move: the mover's pieces are positive and move towards rank 4; after every move the
board is turned to the other player's view (ranks mirrored, signs negated). This is pgx's board
layout, so its action ids carry over. A bitboard holds square `q` in bit `q` of a uint32.

Actions (AlphaZero-style, pgx's ids): `action = 49 * from_square + plane`. Planes 9..40 are
queen-like moves (8 directions × distance 1..4), 41..48 knight moves, 0..8 underpromotions
(`plane // 3`: rook, bishop, knight; `plane % 3`: forward, towards file + 1, towards file − 1).
A pawn reaching rank 4 by a queen-like plane promotes to a queen.

Legal moves are found without playing them: with the squares the opponent attacks (the
mover's king taken off the board, so it cannot hide behind itself on a line), the pieces giving
check, and the pieces pinned to the king with the line each may still move along. There is no
castling, no en passant and no double pawn step in Gardner chess.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np

EMPTY, PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING = range(7)
NUM_SQUARES = 25
NUM_PLANES = 49
NUM_ACTIONS = NUM_SQUARES * NUM_PLANES  # 1,225
MAX_STEPS = 256  # the game ends (a draw unless mated on it) at this step count
NO_PROGRESS_LIMIT = 100  # half-moves without a capture or a pawn move that end the game
HISTORY = 8  # positions in the observation
HASH_SLOTS = MAX_STEPS + 1  # hashes kept (pgx keeps 257: enough for every position of a game)

_FULL = np.uint32((1 << NUM_SQUARES) - 1)
_SQ = np.arange(NUM_SQUARES)
FILE, RANK = _SQ // 5, _SQ % 5
SQ_BIT = (np.uint32(1) << _SQ.astype(np.uint32)).astype(np.uint32)  # [25]
#: The same square seen by the other player (rank mirrored).
MIRROR = (5 * FILE + 4 - RANK).astype(np.int32)
#: Observation cell order: cell (row, col) of the (5, 5) planes shows square col * 5 + 4 - row
#: (row 0 is the far rank of the observer, col 0 is file a).
OBS_SQUARE = np.array([[5 * c + 4 - r for c in range(5)] for r in range(5)], np.int32)

# Queen-like directions (d_file, d_rank) per block of 8 planes, and the 8 knight jumps, in the
# plane order of the action ids (planes 9..48).
_DISTANCES = (-4, -3, -2, -1, 1, 2, 3, 4)
_QUEEN_PLANES = ([(0, d) for d in _DISTANCES] + [(d, 0) for d in _DISTANCES]
                 + [(d, d) for d in _DISTANCES] + [(d, -d) for d in _DISTANCES])
_KNIGHT_PLANES = [(-2, -1), (-2, 1), (-1, -2), (-1, 2), (2, -1), (2, 1), (1, -2), (1, 2)]
_UNDER_FILE = (0, 1, -1)  # plane % 3: forward, towards file + 1, towards file − 1
UNDERPROMOTION = np.array([ROOK, BISHOP, KNIGHT], np.int32)  # plane // 3
_ORTH = ((0, 1), (0, -1), (1, 0), (-1, 0))
_DIAG = ((1, 1), (-1, -1), (1, -1), (-1, 1))
_KNIGHT = tuple(_KNIGHT_PLANES)


def _tables():
    """Per (from square, plane): destination (−1 off the board), the pieces that can make the
    move by geometry (bit per piece type), the squares it passes over, and pawn flags."""
    to = -np.ones((NUM_SQUARES, NUM_PLANES), np.int32)
    geom = np.zeros((NUM_SQUARES, NUM_PLANES), np.uint32)
    between = np.zeros((NUM_SQUARES, NUM_PLANES), np.uint32)
    forward = np.zeros((NUM_SQUARES, NUM_PLANES), bool)
    for q in range(NUM_SQUARES):
        f, r = FILE[q], RANK[q]
        moves = [(p, df, 1, 1 << PAWN) for p, df in
                 ((p, _UNDER_FILE[p % 3]) for p in range(9)) if r == 3]
        for i, (df, dr) in enumerate(_QUEEN_PLANES):
            dist = max(abs(df), abs(dr))
            kinds = (1 << QUEEN) | ((1 << ROOK) if df == 0 or dr == 0 else (1 << BISHOP))
            if dist == 1:
                kinds |= 1 << KING
                if dr == 1:
                    kinds |= 1 << PAWN
            moves.append((9 + i, df, dr, kinds))
        for i, (df, dr) in enumerate(_KNIGHT_PLANES):
            moves.append((41 + i, df, dr, 1 << KNIGHT))
        for plane, df, dr, kinds in moves:
            f2, r2 = f + df, r + dr
            if not (0 <= f2 < 5 and 0 <= r2 < 5):
                continue
            to[q, plane] = 5 * f2 + r2
            geom[q, plane] = kinds
            forward[q, plane] = df == 0
            if plane < 41:  # a line: the squares strictly between
                dist = max(abs(df), abs(dr))
                sf, sr = np.sign(df), np.sign(dr)
                for k in range(1, dist):
                    between[q, plane] |= 1 << (5 * (f + k * sf) + r + k * sr)
    return to, geom, between, forward


TO, _GEOM, _BETWEEN, _FORWARD = _tables()
TO_BIT = np.where(TO >= 0, np.uint32(1) << np.maximum(TO, 0).astype(np.uint32),
                   0).astype(np.uint32)
TO_FLAT = TO.reshape(-1)

# pgx's starting position in the view of white (to move): files a..e of R N B Q K, pawns on
# rank 1 (index 1 of each file), black's pieces mirrored and negated.
START_BOARD = np.array([4, 1, 0, -1, -4, 2, 1, 0, -1, -2, 3, 1, 0, -1, -3,
                        5, 1, 0, -1, -5, 6, 1, 0, -1, -6], np.int8)
#: Legal actions at the start: the five pawn pushes and Nb1-a3, Nb1-c3.
START_MOVES = (62, 289, 293, 307, 552, 797, 1042)


# --------------------------------------------------------------------------- bitboards
def _shift(bb, df: int, dr: int):
    """Every piece of `bb` moved by (df, dr); pieces leaving the board drop off."""
    s = 5 * df + dr
    out = bb << s if s > 0 else bb >> -s
    keep = _FULL
    for r in range(5):  # the ranks a wrap around a file end would land on
        if not 0 <= r - dr < 5:
            keep &= ~np.uint32(sum(1 << (5 * f + r) for f in range(5)))
    return out & np.uint32(keep)


def _fill(src, empty, df: int, dr: int):
    """Squares reached from `src` along (df, dr) up to and including the first occupied one."""
    t = _shift(src, df, dr)
    out = t
    for _ in range(3):
        t = _shift(t & empty, df, dr)
        out = out | t
    return out


def pack(flags) -> jax.Array:
    """[..., 25] bool -> [...] uint32 bitboard."""
    return jnp.sum(jnp.where(flags, SQ_BIT, jnp.uint32(0)), axis=-1, dtype=jnp.uint32)


def legal_moves(board) -> tuple[jax.Array, jax.Array]:
    """The legal action mask `[1225]` bool of the mover of `board` ([25] int, mover's view) and
    whether the mover is in check."""
    board = board.astype(jnp.int32)
    own, opp = pack(board > 0), pack(board < 0)
    occ = own | opp
    bb = {p: pack(board == -p) for p in (PAWN, KNIGHT, KING)}
    lines = {_ORTH: pack((board == -ROOK) | (board == -QUEEN)),
             _DIAG: pack((board == -BISHOP) | (board == -QUEEN))}
    king = pack(board == KING)
    full = jnp.uint32(_FULL)

    # Squares the opponent attacks, with the mover's king off the board.
    empty = ~(occ & ~king) & full
    att = _shift(bb[PAWN], 1, -1) | _shift(bb[PAWN], -1, -1)
    for df, dr in _KNIGHT:
        att = att | _shift(bb[KNIGHT], df, dr)
    for dirs, sliders in lines.items():
        for df, dr in dirs:
            att = att | _shift(bb[KING], df, dr) | _fill(sliders, empty, df, dr)

    # Checkers and pins, looking out from the king along each line.
    checkers = _shift(king, 1, 1) & bb[PAWN] | _shift(king, -1, 1) & bb[PAWN]
    for df, dr in _KNIGHT:
        checkers = checkers | _shift(king, df, dr) & bb[KNIGHT]
    block = checkers  # squares a non-king move must land on to answer a single check
    n_checks = jax.lax.population_count(checkers).astype(jnp.int32)
    pin_lines = jnp.full(NUM_SQUARES, full)
    for dirs, sliders in lines.items():
        for df, dr in dirs:
            reach = _fill(king, ~occ & full, df, dr)  # up to the first piece
            first = reach & occ
            check = (first & sliders) != 0
            n_checks = n_checks + check.astype(jnp.int32)
            block = block | jnp.where(check, reach, 0)
            reach2 = _fill(king, ~(occ & ~first) & full, df, dr)  # up to the second piece
            pinned = jnp.where(((first & own) != 0) & ((reach2 & ~reach & sliders) != 0),
                               first, 0)
            pin_lines = jnp.where((SQ_BIT & pinned) != 0, reach2, pin_lines)
    block = jnp.where(n_checks == 0, full, jnp.where(n_checks == 1, block, 0))
    allowed = jnp.where(board == KING, ~att & full, block & pin_lines)  # [25]

    # Every (from, plane) at once.
    piece = jnp.clip(board, 0, KING)[:, None]
    tb = TO_BIT
    ok = ((_GEOM >> piece.astype(jnp.uint32)) & 1) != 0
    ok &= (tb & own) == 0
    ok &= (_BETWEEN & occ) == 0
    ok &= (tb & allowed[:, None]) != 0
    captures = (tb & opp) != 0
    ok &= (piece != PAWN) | jnp.where(_FORWARD, ~captures, captures)
    return ok.reshape(NUM_ACTIONS), n_checks > 0


def insufficient_material(board) -> jax.Array:
    """pgx's rule (OpenSpiel's): K v K; K + one knight or bishop v K; only kings and bishops,
    the bishops all on squares of one colour."""
    a = jnp.abs(board.astype(jnp.int32))
    pieces = (a != EMPTY).sum()
    heavy = ((a >= ROOK) | (a == PAWN)).sum() - 2  # pawns, rooks, queens (the kings excluded)
    bishops = (a == BISHOP).sum()
    dark = ((a == BISHOP) & (_SQ % 2 == 0)).sum()  # a1's colour
    return ((pieces <= 2) | ((pieces == 3) & (heavy == 0))
            | ((pieces == bishops + 2) & ((dark == bishops) | (dark == 0))))


# ------------------------------------------------------------------------------- hashes
@functools.cache
def zobrist() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Zobrist keys: `[25 * 13, 2]` uint32 for (square in white's view, piece + 6 with white
    positive), `[2]` for "black to move", and `[2]` for the start position. Drawn from a fixed
    integer hash (splitmix64), not from a random stream: only equality of hashes is ever used.

    The start position's hash is a constant of its own, not the XOR of its keys, as in pgx
    (whose `INIT_ZOBRIST_HASH` is not the hash its keys give the start): every position of a
    game from the start carries the same offset, so repetitions are found all the same, but a
    game set up by `from_fen` never matches the start position it keeps in its history.
    """
    x = np.arange(1, 2 * (NUM_SQUARES * 13 + 2) + 1, dtype=np.uint64)
    with np.errstate(over="ignore"):
        x = x * np.uint64(0x9E3779B97F4A7C15)
        x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        x = x ^ (x >> np.uint64(31))
    words = (x & np.uint64(0x7FFFFFFF)).astype(np.uint32).reshape(-1, 2)
    return words[:-2], words[-2], words[-1]


def position_hash(white_board, black_to_move: bool) -> np.ndarray:
    """[2] uint32 hash of a position (host side): board in white's view."""
    keys, side, _ = zobrist()
    h = side.copy() if black_to_move else np.zeros(2, np.uint32)
    for q in range(NUM_SQUARES):
        h ^= keys[13 * q + int(white_board[q]) + 6]
    return h


def move_hash(h, board, turn, from_sq, to_sq, under):
    """The hash after action (from_sq, to_sq, under) by the mover of `board` (mover's view),
    updated the way pgx updates it: the moved piece keeps its type (a queen promotion is hashed
    as a pawn, a constant offset for the rest of the game, so repetitions are still found
    exactly), and for illegal actions the indices fall where pgx's gathers put them
    (destination −1 is square 24, piece indices wrap once and are clipped)."""
    keys, side, _ = zobrist()
    keys = jnp.asarray(keys)
    white = turn == 0
    to_n = jnp.where(to_sq < 0, NUM_SQUARES - 1, to_sq)
    src = jnp.where(white, board[from_sq] + 6, 6 - board[from_sq])
    dst = jnp.where(white, board[to_n] + 6, 6 - board[to_n])
    mirror = jnp.asarray(MIRROR)
    hf = jnp.where(white, from_sq, mirror[from_sq])
    ht = jnp.where(to_sq < 0, NUM_SQUARES - 1, jnp.where(white, to_sq, mirror[to_n]))
    put = jnp.where(under < 0, src, jnp.where(white, src + 3 - under, src - 3 + under))
    put = jnp.clip(jnp.where(put < 0, put + 13, put), 0, 12)
    rows = jnp.stack([13 * hf + src, 13 * hf + 6, 13 * ht + dst, 13 * ht + put])
    k = keys[rows]
    return h ^ k[0] ^ k[1] ^ k[2] ^ k[3] ^ jnp.asarray(side)


def apply_move(board, from_sq, to_sq, under):
    """The board after the move (mover's view, not yet turned), with pgx's handling of
    promotions: a pawn moving from rank 3 without an underpromotion becomes a queen; an
    underpromotion puts its piece on the destination whatever moved. As in pgx, an action
    from an empty square puts a queen on its destination (except from rank 3), and a
    destination off the board (−1) is square 24."""
    piece = board[from_sq]
    to_n = jnp.where(to_sq < 0, NUM_SQUARES - 1, to_sq)
    queen = jnp.where((from_sq % 5 == 3) & (under < 0), piece == PAWN, piece == EMPTY)
    piece = jnp.where(queen, QUEEN, piece)
    piece = jnp.where(under < 0, piece, jnp.asarray(UNDERPROMOTION)[jnp.clip(under, 0, 2)])
    sq = jnp.arange(NUM_SQUARES)
    board = jnp.where(sq == from_sq, 0, board)
    return jnp.where(sq == to_n, piece, board).astype(board.dtype)
