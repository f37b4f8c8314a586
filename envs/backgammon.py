"""Backgammon with pgx's encodings (pgx `backgammon` v2): micro-moves, one die per step.

Board. 28 counts from the view of the player to move (`current_player`): points 0..23
(`OBS_POINTS`), the mover's bar (`BAR` = 24), the opponent's bar (`OPP_BAR` = 25), the mover's
borne-off checkers (`OFF` = 26) and the opponent's (`OPP_OFF` = 27). The mover's checkers count
positive, the opponent's negative. The mover moves from point 0 toward point 23 and bears off
from its home board, points 18..23; the opponent moves the other way. When the turn passes the
board is turned round for the new mover (points reversed, bars and offs swapped, signs negated).
Each player starts with 2 checkers on point 0, 5 on 11, 3 on 16 and 5 on 18.

A turn. The mover has two dice; a double (both dice equal) gives four moves of that number.
Each step plays one die: action `src * 6 + die` (`die` 0..5 for a roll of 1..6) moves one
checker from `src` (1 = the bar, 2..25 = points 0..23) by `die + 1` points. The same player keeps
the turn until every die of the roll is used; then the board is turned round, the next player's
dice are rolled from the step's key and that player moves. A micro-move is legal when:

* from the bar: the mover has a checker on the bar, and the entry point `die` (0..5) holds at
  most one opposing checker;
* from a point `p`, to the point `p + die + 1 <= 23`: the mover has a checker on `p`, none on
  the bar, and the target holds at most one opposing checker;
* bearing off from `p` (when `p + die + 1 >= 24`): the mover has a checker on `p` and every one
  of the mover's checkers still in play is on the home board (18..23); and either the die is
  exactly the distance `24 - p`, or the die is higher and `p` is the mover's rearmost checker
  (the higher-die rule).

Landing on a lone opposing checker hits it: it goes to the opponent's bar. Each die of the roll
may be played in any order, one legal micro-move at a time; as in pgx there is no rule forcing
both dice (or the higher one) to be played when only one can be, and legality looks one
micro-move ahead only. When no die left can be played the only legal actions are the six no-op
ids 0..5 (`src` 0); a no-op ends the turn and forfeits the dice left (this happens at the start
of a turn or in the middle of one).

The end. The game ends when the mover has borne off all 15 checkers: it gets +1 (single),
+2 (gammon: the opponent has borne off none) or +3 (backgammon: a gammon with an opposing
checker still in the winner's home board; as in pgx, a checker on the bar does not count),
and the opponent gets the opposite. An illegal action ends the game with −3 for the mover and
+3 for the other (`illegal_action_penalty`); as in pgx the move is played first (the counts
change as `move` says even when that makes no sense, and an illegal no-op passes the turn and
rolls new dice), so the last observation shows that board.

Chance (the same draws as pgx, so the same keys give the same games): `init` splits its key in
two, draws the first player with `jax.random.bernoulli` from the first half and the opening roll
(two different dice, one of the 30 ordered pairs) with `jax.random.choice` from the second; a
step that ends a turn rolls the next dice with `jax.random.randint(key, (1, 2), 0, 6)` from the
step's key. The draws are computed by `holdemjax.xla`, which gives jax.random's bits with
the hash unrolled (faster to run and to compile on the CPU).

Observation `(34,)` int32: the 28 board counts (mover's view) and, at `OBS_DICE`, the number of
dice of each value 1..6 the mover can still play (a double 3 gives `[0, 0, 4, 0, 0, 0]`). Seen by
the player not to move, it is the same board and zeros for the dice (as pgx).
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from flax import struct

from holdemjax import xla
from holdemjax.api import Array, Env, State
from holdemjax.envs._backgammon_svg import render_svg
from holdemjax.render.svg import unbatched

__all__ = [
    "Backgammon", "BackgammonState", "NUM_POINTS", "BAR", "OPP_BAR", "OFF", "OPP_OFF",
    "BOARD_LEN", "HOME", "NUM_CHECKERS", "NUM_SOURCES", "NUM_DIE_FACES", "NUM_ACTIONS",
    "SRC_NO_OP", "SRC_BAR", "SRC_FIRST_POINT", "OBS_BOARD", "OBS_POINTS", "OBS_DICE", "OBS_LEN",
    "SINGLE", "GAMMON", "BACKGAMMON", "ILLEGAL_PENALTY", "action_id", "decode_action",
    "initial_board", "legal_mask", "move", "turn_round", "win_score", "action_name",
    "parse_action",
]

# ----------------------------------------------------------------------------- the board
NUM_POINTS = 24
BAR, OPP_BAR, OFF, OPP_OFF = 24, 25, 26, 27  # board indices after the points
BOARD_LEN = 28
HOME = slice(18, 24)  # the mover's home board
NUM_CHECKERS = 15
# ---------------------------------------------------------------------------- the actions
NUM_DIE_FACES = 6
NUM_SOURCES = 26  # src 0 no-op, 1 bar, 2..25 points 0..23
SRC_NO_OP, SRC_BAR, SRC_FIRST_POINT = 0, 1, 2
NUM_ACTIONS = NUM_SOURCES * NUM_DIE_FACES  # 156: action = src * 6 + die
# ------------------------------------------------------------------------ the observation
OBS_BOARD = slice(0, BOARD_LEN)  # the 28 board counts
OBS_POINTS = slice(0, NUM_POINTS)  # of which the 24 points (then BAR, OPP_BAR, OFF, OPP_OFF)
OBS_DICE = slice(BOARD_LEN, BOARD_LEN + NUM_DIE_FACES)  # playable dice per value 1..6
OBS_LEN = BOARD_LEN + NUM_DIE_FACES  # 34
# --------------------------------------------------------------------------- the rewards
SINGLE, GAMMON, BACKGAMMON = 1, 2, 3
ILLEGAL_PENALTY = -3.0

_START = np.zeros(BOARD_LEN, np.int32)
_START[[0, 11, 16, 18]] = [2, 5, 3, 5]  # the mover's checkers
_START[[23, 12, 7, 5]] = [-2, -5, -3, -5]  # the opponent's, mirrored
# The 21 rolls of two dice as faces (low, high), and their probabilities (a double 1/36, any
# other 2/36): the chance outcomes of a step that passes the turn (`chance_outcomes`).
ROLLS = tuple((a, b) for a in range(NUM_DIE_FACES) for b in range(a, NUM_DIE_FACES))
ROLL_PROBABILITIES = np.array([(1 if a == b else 2) / 36 for a, b in ROLLS], np.float32)
# The 30 opening rolls: ordered pairs of different dice, in lexicographic order (pgx's table).
_OPENING_ROLLS = np.array([(a, b) for a in range(6) for b in range(6) if a != b], np.int32)
# Turning the board round: the new board is -board[_TURN_ROUND].
_TURN_ROUND = np.concatenate([np.arange(23, -1, -1), [OPP_BAR, BAR, OPP_OFF, OFF]])
_IDX = np.arange(BOARD_LEN, dtype=np.int32)
_POINT = np.arange(NUM_POINTS, dtype=np.int32)
_FACE = np.arange(NUM_DIE_FACES, dtype=np.int32)
# [24, 6] target of a move from point p with die face f (pips f + 1); 24..29 = past the end.
_TARGET = _POINT[:, None] + _FACE[None, :] + 1
_ON_BOARD = _TARGET < NUM_POINTS
_EXACT_OFF = _TARGET == NUM_POINTS  # the die is exactly the distance to off
_HOME_POINT = (_POINT >= HOME.start)[:, None]


@struct.dataclass
class BackgammonState(State):
    observation: Array = struct.field(default_factory=lambda: jnp.zeros(OBS_LEN, jnp.int32))
    rewards: Array = struct.field(default_factory=lambda: jnp.zeros(2, jnp.float32))
    legal_action_mask: Array = struct.field(
        default_factory=lambda: jnp.zeros(NUM_ACTIONS, jnp.bool_))
    # [28] int32: the board from current_player's view (see the module docstring).
    _board: Array = struct.field(default_factory=lambda: jnp.asarray(_START))
    # [2] int32: this turn's roll, faces 0..5 (1..6).
    _dice: Array = struct.field(default_factory=lambda: jnp.zeros(2, jnp.int32))
    # [6] int32: dice of each face the mover has still to play (0..4).
    _playable: Array = struct.field(
        default_factory=lambda: jnp.zeros(NUM_DIE_FACES, jnp.int32))
    # [] int32: colour of current_player, 0 = black, 1 = white (for drawing only): the player
    # who rolled the higher opening die is black, like pgx's `_turn`.
    _turn: Array = struct.field(default_factory=lambda: jnp.int32(0))
    # [] bool: an afterstate (`step_deterministic`) awaiting the next player's roll.
    _roll_pending: Array = struct.field(default_factory=lambda: jnp.bool_(False))

    @property
    def env_id(self) -> str:
        return "backgammon"

    def to_svg(self) -> str:
        unbatched(self)
        return render_svg(self, _black_view(self))


class Backgammon(Env):
    illegal_action_penalty = ILLEGAL_PENALTY
    requires_step_key = True

    def __init__(self):
        super().__init__()

    id = property(lambda self: "backgammon")
    version = property(lambda self: "v2")
    num_players = property(lambda self: 2)

    def _init(self, key) -> BackgammonState:
        # jax.random's draws (bit for bit, see the module docstring): split the key, a fair
        # bernoulli for the first player, choice among the 30 opening rolls.
        k_player, k_dice = xla.split_at(key, 0), xla.split_at(key, 1)
        player = xla.bernoulli(k_player).astype(jnp.int32)
        dice = jnp.asarray(_OPENING_ROLLS)[xla.randint(k_dice, (), 0, len(_OPENING_ROLLS))]
        board = jnp.asarray(_START)
        playable = _playable(dice)
        return BackgammonState(
            current_player=player,
            legal_action_mask=legal_mask(board, playable),
            _board=board, _dice=dice, _playable=playable,
            _turn=(dice[1] > dice[0]).astype(jnp.int32),
        )

    def _step(self, state: BackgammonState, action: Array, key) -> BackgammonState:
        board, playable, rewards, won, turn_over = self._micro_move(state, action)
        # The next roll (drawn whatever happens, used only when the turn passes).
        dice = xla.randint(key, (1, 2), 0, NUM_DIE_FACES)[0]
        playable = jnp.where(turn_over, _playable(dice), playable)
        return _after(state, board, playable, rewards, won, turn_over).replace(
            _dice=jnp.where(turn_over, dice, state._dice))

    def _micro_move(self, state: BackgammonState, action: Array):
        """The micro-move: (board, dice left to play, rewards, won, the turn passes)."""
        no_op = action < NUM_DIE_FACES
        face = action % NUM_DIE_FACES
        board = jnp.where(no_op, state._board, move(state._board, action))
        # One die of the roll is used: a double loses one of its four, else the played face.
        double = state._dice[0] == state._dice[1]
        used = jnp.where(double, _FACE == state._dice[0], _FACE == face)
        playable = jnp.where(no_op, state._playable,
                             jnp.where(double, state._playable - used,
                                       jnp.where(used, 0, state._playable)))
        won = board[OFF] == NUM_CHECKERS
        score = win_score(board).astype(jnp.float32)  # read on the board before any turning
        mover = state.current_player
        rewards = jnp.where(won, jnp.where(jnp.arange(2) == mover, score, -score), 0.0)
        # The turn passes after a no-op or the last die (not after the winning move).
        turn_over = ~won & (no_op | (playable.sum() == 0))
        return board, playable, rewards, won, turn_over

    # ----------------------------------------------------- the step split at its chance event
    num_chance_outcomes = property(lambda self: len(ROLLS))  # 21: the unordered rolls

    def _step_deterministic(self, state: BackgammonState, action: Array) -> BackgammonState:
        board, playable, rewards, won, turn_over = self._micro_move(state, action)
        playable = jnp.where(turn_over, 0, playable)  # the next roll is not made yet
        return _after(state, board, playable, rewards, won, turn_over).replace(
            _roll_pending=turn_over)

    def _chance_outcomes(self, state: BackgammonState) -> Array:
        none = jnp.arange(len(ROLLS)) == 0
        return jnp.where(state._roll_pending, jnp.asarray(ROLL_PROBABILITIES), none)

    def _chance_step(self, state: BackgammonState, outcome: Array) -> BackgammonState:
        pending = state._roll_pending
        dice = jnp.asarray(ROLLS)[outcome]
        playable = jnp.where(pending, _playable(dice), state._playable)
        return state.replace(
            legal_action_mask=jnp.where(pending, legal_mask(state._board, playable),
                                        state.legal_action_mask),
            _dice=jnp.where(pending, dice, state._dice),
            _playable=playable,
            _roll_pending=jnp.bool_(False),
        )

    def _observe(self, state: BackgammonState, player_id: Array) -> Array:
        dice = jnp.where(player_id == state.current_player, state._playable, 0)
        return jnp.concatenate([state._board, dice])


def _after(state: BackgammonState, board, playable, rewards, won, turn_over) -> BackgammonState:
    """The state after a micro-move (``board`` turned round to the next mover when the turn
    passes; ``playable``: the dice the mover has to play next)."""
    mover = state.current_player
    board = jnp.where(turn_over, turn_round(board), board)
    return state.replace(
        current_player=jnp.where(turn_over, 1 - mover, mover),
        rewards=rewards.astype(jnp.float32),
        terminated=won,
        legal_action_mask=legal_mask(board, playable),
        _board=board,
        _playable=playable,
        _turn=jnp.where(turn_over, 1 - state._turn, state._turn),
    )


# ------------------------------------------------------------------------------ the rules
def initial_board() -> Array:
    """int32 [28]: the starting position from the mover's view."""
    return jnp.asarray(_START)


def action_id(src: int, face: int) -> int:
    """The action moving from `src` (0 no-op, 1 bar, 2..25 points 0..23) with die face 0..5."""
    return src * NUM_DIE_FACES + face


def decode_action(action: Array) -> tuple[Array, Array]:
    """(board index of the source, board index of the target) of a micro-move (not a no-op).

    From the bar (src 1) the target is point `face`; from point p it is `p + face + 1`, or
    `OFF` past point 23.
    """
    src_id = action // NUM_DIE_FACES
    pips = action % NUM_DIE_FACES + 1
    src = jnp.where(src_id == SRC_BAR, BAR, src_id - SRC_FIRST_POINT)
    tgt = jnp.where(src == BAR, pips - 1, src + pips)
    return src, jnp.where(tgt < NUM_POINTS, tgt, OFF)


def move(board: Array, action: Array) -> Array:
    """`board` after the micro-move `action` (not a no-op), applied without checking it.

    One checker leaves the source and one arrives at the target; a lone opposing checker
    there (count −1) is hit and goes to the opponent's bar (so the target becomes +1). An
    illegal move is applied by the same arithmetic (pgx's), whatever the counts.
    """
    src, tgt = decode_action(action)
    hit = (board[tgt] == -1).astype(board.dtype)
    return (board - (_IDX == src) + (_IDX == tgt) * (1 + hit)
            - (_IDX == OPP_BAR) * hit).astype(board.dtype)


def turn_round(board: Array) -> Array:
    """`board` seen by the other player: points reversed, bars and offs swapped, signs flipped."""
    return -board[_TURN_ROUND]


def _black_view(state: BackgammonState) -> np.ndarray:
    """int [28]: an unbatched state's board from black's view (black positive), for drawing:
    its own board when black is to move, else the board turned round."""
    board = np.asarray(state._board)
    return board if int(state._turn) == 0 else np.asarray(turn_round(board))


def _playable(dice: Array) -> Array:
    """int32 [6]: dice of each face a roll gives to play (a double counts four)."""
    count = (_FACE == dice[0]).astype(jnp.int32) + (_FACE == dice[1])
    return count * jnp.where(dice[0] == dice[1], 2, 1)


def legal_mask(board: Array, playable: Array) -> Array:
    """bool [156]: the legal micro-moves of the mover with `playable` [6] dice left.

    Only the six no-op ids 0..5 are legal when no other move is.
    """
    points = board[:NUM_POINTS]
    mine = points > 0
    on_bar = board[BAR] > 0
    # A point the mover may land on (at most one opposing checker); past the end: no point.
    open_ = jnp.concatenate([points >= -1, jnp.zeros(NUM_DIE_FACES, jnp.bool_)])
    rear = jnp.min(jnp.where(mine, _POINT, NUM_POINTS))  # the mover's rearmost point
    all_home = ~on_bar & (rear >= HOME.start)
    to_point = _ON_BOARD & open_[_TARGET] & ~on_bar
    bear_off = ~_ON_BOARD & all_home & (_EXACT_OFF | (_POINT == rear)[:, None])
    from_points = mine[:, None] & (to_point | bear_off)  # [24, 6]
    from_bar = (on_bar & open_[:NUM_DIE_FACES])[None, :]  # [1, 6]
    can = playable > 0
    moves = jnp.concatenate([from_bar, from_points]) & can  # [25, 6]
    stuck = ~moves.any()
    return jnp.concatenate([jnp.broadcast_to(stuck, (NUM_DIE_FACES,)), moves.reshape(-1)])


def win_score(board: Array) -> Array:
    """int32 []: what the mover wins with all checkers off: 1, 2 (gammon: the opponent has
    none off) or 3 (backgammon: a gammon with an opposing checker in the mover's home board)."""
    gammon = board[OPP_OFF] == 0
    in_home = (board[HOME] < 0).any()
    return (SINGLE + gammon + (gammon & in_home)).astype(jnp.int32)


# ------------------------------------------------------------------------------ notation
def action_name(action: int) -> str:
    """The usual notation of a micro-move, points numbered from the mover's side (its point n
    is index 24 − n, its home board is 1..6): "24/18", "bar/22", "3/off"; a bear-off with a
    higher die than needed names the die: "3/off(5)"; the six no-op ids are "pass"."""
    src_id, face = divmod(int(action), NUM_DIE_FACES)
    if src_id == SRC_NO_OP:
        return "pass"
    pips = face + 1
    if src_id == SRC_BAR:
        return f"bar/{NUM_POINTS - face}"
    point = NUM_POINTS - (src_id - SRC_FIRST_POINT)
    if pips < point:
        return f"{point}/{point - pips}"
    return f"{point}/off" + ("" if pips == point else f"({pips})")


def parse_action(name: str) -> int:
    """The action id of `action_name`'s notation ("pass" is id 0)."""
    if name == "pass":
        return 0
    src, tgt = name.split("/")
    if src == "bar":
        return action_id(SRC_BAR, NUM_POINTS - int(tgt))
    point = int(src)
    if tgt.startswith("off"):
        pips = int(tgt[4:-1]) if "(" in tgt else point
    else:
        pips = point - int(tgt)
    return action_id(NUM_POINTS - point + SRC_FIRST_POINT, pips - 1)
