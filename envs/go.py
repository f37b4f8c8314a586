"""Go on a 9 × 9 or 19 × 19 board, Tromp-Taylor rules, with pgx's encodings (pgx `go_9x9` /
`go_19x19` v1).

Rules: black and white alternate; black moves first. A move puts a stone of the mover's colour
on an empty point, or passes. After a stone is placed, every opponent chain (a maximal
4-connected group of stones of one colour) left without a liberty (an empty point next to it) is
captured and taken off the board. Suicide (a stone whose own chain would be left without a
liberty, capturing nothing) is illegal, and so is retaking a ko at once (simple ko: a single
stone that has just captured exactly one stone, with every neighbour an opponent stone, may not
be captured back on the very next move). The legal mask knows only these two rules; a move that
repeats any earlier position of the game (positional superko) is legal but ends the game at once
with a loss for the player who made it. The game also ends after two consecutive passes and at
`max_termination_steps = 2 N²` steps (passes count). At the end the board is scored by area
(Tromp-Taylor): a colour's score is its stones plus the empty points from which no stone of
the other colour can be reached through empty points; black wins iff `black − komi > white`
(komi 7.5 by default, `holdemjax.make("go_9x9", komi=6.5)`), so equal scores under an integer
komi are a white win. Rewards are ±1 at the end only.

The player who plays black is drawn at `init` from the key (`jax.random.bernoulli`, as pgx
draws it); `current_player` passes to the other player after every step, the last one included.

Actions `0 … N² − 1` are points, `N · row + column` (row 0 the top row); action `N²` is PASS,
always legal. Observation `(N, N, 17)` bool from the observer's view: planes `2 i` and `2 i + 1`
are the observer's and the opponent's stones `i` steps ago (`i = 0 … 7`; before the first step
they are empty), plane 16 is all true when the observer plays white.

Illegal actions (an occupied point, suicide, retaking the ko) end the game with the penalty of
`holdemjax.api`; as in pgx the move is played first: opponent chains whose last liberty it was
are captured, and a stone of the mover's colour is put on the point (replacing what was there).

Implementation (incremental, no flood fill while playing). `_lab[p]` is 0 for an empty point and
`±(r + 1)` for a stone (+ black, − white), the same `r` for every stone of a chain, and `_libs[p]`
is the number of liberties of the chain of `p`. A move compares the board with the (at most
four) labels next to the new stone: adjacent opponent chains lose one liberty, the mover's
adjacent chains and the new stone are relabelled as one chain, and only that chain's liberties
are counted again (empty points next to it). Only when a move captures are the captured stones
removed and every chain's liberties recounted (one scatter over the board), and under `vmap` only
the rows that capture do it (`holdemjax.sparse`). Positions are told apart by a 64-bit Zobrist
hash (two uint32 words) updated stone by stone and kept for every step of the game. Territory is
flood-filled once, when the game ends (again only on the rows that end).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from holdemjax.api import Array, Env, State
from holdemjax.envs._go_board import KOMI, zobrist
from holdemjax.envs._go_record import GoRecord, area_scores, from_sgf, render_svg, to_sgf
from holdemjax.sparse import sparse_cond
from holdemjax.validate import is_real

__all__ = ["Go", "GoState", "SIZES", "KOMI", "HISTORY", "NUM_PLANES", "OBS_MINE", "OBS_THEIRS",
           "OBS_COLOR", "BLACK", "WHITE", "zobrist", "board_array", "to_sgf", "from_sgf",
           "GoRecord", "area_scores"]

SIZES = (9, 19)
HISTORY = 8  # boards in the observation, the current one first
OBS_MINE, OBS_THEIRS = 0, 1  # plane 2 i + OBS_MINE / OBS_THEIRS: stones i steps ago
OBS_COLOR = 2 * HISTORY  # plane 16: all true when the observer plays white
NUM_PLANES = 2 * HISTORY + 1
BLACK, WHITE = 0, 1  # colours (black moves at even steps)


@struct.dataclass
class GoState(State):
    observation: Array = struct.field(
        default_factory=lambda: jnp.zeros((19, 19, NUM_PLANES), jnp.bool_))
    rewards: Array = struct.field(default_factory=lambda: jnp.zeros(2, jnp.float32))
    legal_action_mask: Array = struct.field(
        default_factory=lambda: jnp.ones(19 * 19 + 1, jnp.bool_))
    # [N²] int16: 0 empty, ±(r + 1) a stone (+ black, − white) of the chain labelled r.
    _lab: Array = struct.field(default_factory=lambda: jnp.zeros(19 * 19, jnp.int16))
    # [N²] int16: liberties of the chain of each stone (0 on empty points).
    _libs: Array = struct.field(default_factory=lambda: jnp.zeros(19 * 19, jnp.int16))
    _ko: Array = struct.field(default_factory=lambda: jnp.int32(-1))  # [] point banned by ko
    _passes: Array = struct.field(default_factory=lambda: jnp.int32(0))  # [] passes in a row
    _hash: Array = struct.field(default_factory=lambda: jnp.zeros(2, jnp.uint32))  # [2] words
    # [2, 2 N²] uint32: the hash (two words) after each step (column t after step t + 1).
    _hashes: Array = struct.field(default_factory=lambda: jnp.zeros((2, 722), jnp.uint32))
    # [N², 8] int8: the board (+1 black, −1 white, 0 empty) after the last 8 steps, latest first.
    _hist: Array = struct.field(default_factory=lambda: jnp.zeros((361, HISTORY), jnp.int8))
    _black: Array = struct.field(default_factory=lambda: jnp.int32(0))  # [] player id of black

    @property
    def size(self) -> int:
        return int(round(self._lab.shape[-1] ** 0.5))

    @property
    def env_id(self) -> str:
        return f"go_{self.size}x{self.size}"

    def to_svg(self) -> str:
        return render_svg(self)


class Go(Env):
    """Go on an N × N board (`_size` 9 or 19, set by the registry id), komi `komi`."""

    def __init__(self, *, komi: float = KOMI, _size: int = 19):
        if _size not in SIZES:
            raise ValueError(f"go size must be one of {SIZES}, got {_size!r}")
        if not is_real(komi) or not np.isfinite(komi):
            raise ValueError(f"komi must be a finite number, got {komi!r}")
        self.size = _size
        self.komi = float(komi)
        self.max_termination_steps = 2 * _size * _size

    id = property(lambda self: f"go_{self.size}x{self.size}")
    version = property(lambda self: "v1")
    num_players = property(lambda self: 2)

    @property
    def pass_action(self) -> int:
        return self.size * self.size

    def _init(self, key) -> GoState:
        m = self.size * self.size
        black = jax.random.bernoulli(key).astype(jnp.int32)
        return GoState(
            current_player=black,
            observation=jnp.zeros((self.size, self.size, NUM_PLANES), jnp.bool_),
            legal_action_mask=jnp.ones(m + 1, jnp.bool_),
            _lab=jnp.zeros(m, jnp.int16), _libs=jnp.zeros(m, jnp.int16),
            _hashes=jnp.zeros((2, self.max_termination_steps), jnp.uint32),
            _hist=jnp.zeros((m, HISTORY), jnp.int8), _black=black)

    def _step(self, state: GoState, action: Array, key) -> GoState:
        n, m = self.size, self.size * self.size
        live = ~(state.terminated | state.truncated)  # (vmap runs finished rows too)
        t = state._step_count - 1  # this step's index: black moves at even t
        color = t % 2
        sign = (1 - 2 * color).astype(jnp.int16)
        is_pass = action == m
        p = jnp.minimum(action, m - 1)
        lab, libs = state._lab, state._libs
        empty_p = (lab[p] == 0) & ~is_pass
        # The four neighbours of p (up, down, left, right); off the board or a pass -> not ok.
        row, col = p // n, p % n
        ok = jnp.stack([row > 0, row < n - 1, col > 0, col < n - 1]) & ~is_pass
        nb = jnp.clip(p + jnp.array([-n, n, -1, 1]), 0, m - 1)
        nlab = jnp.where(ok, lab[nb], 0)  # [4] labels next to p, 0 for none
        own = nlab * sign > 0
        opp = nlab * sign < 0
        kill = opp & (libs[nb] == 1) & empty_p  # p was that chain's last liberty

        # Dense work in int8 (XLA's CPU code is faster on it than on bool).
        touched = jnp.zeros(m, jnp.int8)  # stones of adjacent opponent chains: they lose p
        merged = (jnp.arange(m) == action).astype(jnp.int8)  # the new stone and its friends
        for d in range(4):
            same = (lab == nlab[d]).astype(jnp.int8)
            touched = touched | (same & opp[d].astype(jnp.int8))
            merged = merged | (same & own[d].astype(jnp.int8))
        lab = jnp.where(merged != 0, sign * (p + 1).astype(jnp.int16), lab)
        empty = (lab == 0).astype(jnp.int8)
        count = (empty & _dilate(merged.reshape(n, n)).reshape(m)).sum(dtype=jnp.int32)
        libs = jnp.where(merged != 0, count.astype(jnp.int16), libs - touched)
        zob = jnp.asarray(zobrist(n))
        h = state._hash ^ jnp.where(is_pass, jnp.uint32(0), zob[color, p])

        def capture(x):
            lab, libs, h, _ = x
            gone = jnp.zeros(m, jnp.bool_)
            for d in range(4):  # the killed chains' labels are untouched by the merge
                gone = gone | ((lab == nlab[d]) & kill[d])
            lab = jnp.where(gone, jnp.int16(0), lab)
            h = h ^ jax.lax.reduce(jnp.where(gone[:, None], zob[1 - color], jnp.uint32(0)),
                                   jnp.uint32(0), jax.lax.bitwise_xor, (0,))
            # Simple ko: the new stone had only opponent neighbours and took exactly one stone.
            ko_shape = (~ok | opp).all() & (gone.sum() == 1)
            ko = jnp.where(ko_shape, jnp.argmax(gone).astype(jnp.int32), -1)
            return lab, _liberties(lab, n), h, ko

        lab, libs, h, ko = sparse_cond(kill.any() & live, capture, (lab, libs, h, jnp.int32(-1)))

        steps = jnp.arange(self.max_termination_steps)
        seen = (state._hashes[0] == h[0]) & (state._hashes[1] == h[1]) & (steps < t)
        superko = ~is_pass & seen.any()
        passes = jnp.where(is_pass, state._passes + 1, 0)
        terminated = superko | (passes >= 2) | (state._step_count >= self.max_termination_steps)
        # Rewards by colour (black, white): the mover loses a superko, else the score decides.
        by_color = jnp.where(jnp.arange(2) == color, -1.0, 1.0).astype(jnp.float32)
        by_color = jnp.where(superko, by_color, 0.0)
        by_color = sparse_cond(terminated & ~superko & live,
                               lambda r: _score(lab, n, self.komi), by_color)
        rewards = jnp.where(jnp.arange(2) == state._black, by_color[0], by_color[1])
        board = jnp.sign(lab).astype(jnp.int8)
        return state.replace(
            current_player=1 - state.current_player,
            rewards=rewards,
            terminated=terminated,
            legal_action_mask=_legal(lab, libs, ko, -sign, n),
            _lab=lab, _libs=libs, _ko=ko, _passes=passes, _hash=h,
            _hashes=state._hashes.at[:, t].set(h),
            _hist=jnp.concatenate([board[:, None], state._hist[:, :-1]], axis=1))

    def _observe(self, state: GoState, player_id: Array) -> Array:
        n = self.size
        to_move = state._step_count % 2
        color = jnp.where(player_id == state.current_player, to_move, 1 - to_move)
        # +1 the observer's stones. Bool throughout and the board's shape taken first: the
        # same planes from a uint8 [N², 17] reshaped and cast at the end compiled 7x slower.
        mine = (state._hist * (1 - 2 * color).astype(jnp.int8)).reshape(n, n, HISTORY)
        planes = jnp.stack([mine == 1, mine == -1], axis=-1).reshape(n, n, 2 * HISTORY)
        colour = jnp.broadcast_to(color == WHITE, (n, n, 1))
        return jnp.concatenate([planes, colour], axis=-1)


# ------------------------------------------------------------------------------ board ops
def _dilate(x: Array) -> Array:
    """[N, N] -> [N, N]: the OR of the 4 neighbours of each point (0 off the board), from
    `_shifted` slices rather than a padded copy (docs/go.md, Implementation)."""
    up, down, left, right = _shifted(x, 0)
    return up | down | left | right


def _legal(lab: Array, libs: Array, ko: Array, sign: Array, n: int) -> Array:
    """[N² + 1] bool: the legal actions of the colour `sign` (+1 black, −1 white) to move.

    An empty point is legal when a neighbour is empty, is a friendly stone whose chain keeps a
    liberty (has two or more), or is an enemy stone whose chain it captures (has one), and it is
    not the ko point; PASS is always legal."""
    m = n * n
    empty = (lab == 0).astype(jnp.int8)
    mine = (lab * sign > 0).astype(jnp.int8)
    theirs = (1 - mine) & (1 - empty)
    good = empty | (mine & (libs >= 2)) | (theirs & (libs == 1))
    near = _dilate(good.astype(jnp.int8).reshape(n, n)).reshape(m)
    legal = ((empty & near) != 0) & (jnp.arange(m) != ko)
    return jnp.concatenate([legal, jnp.ones(1, jnp.bool_)])


def _shifted(x: Array, fill) -> list[Array]:
    """[N, N] -> the values at the 4 neighbours (up, down, left, right), `fill` off the board."""
    row = jnp.full_like(x[:1], fill)
    col = jnp.full_like(x[:, :1], fill)
    return [jnp.concatenate([row, x[:-1]]), jnp.concatenate([x[1:], row]),
            jnp.concatenate([col, x[:, :-1]], axis=1), jnp.concatenate([x[:, 1:], col], axis=1)]


def _liberties(lab: Array, n: int) -> Array:
    """[N²] int16: every chain's liberties counted from scratch (0 on empty points): each empty
    point adds one to each distinct chain next to it (a scatter-add by label)."""
    m = n * n
    near = _shifted(lab.reshape(n, n), 0)
    empty = (lab == 0).reshape(n, n)
    idx, add = [], []
    for d in range(4):
        fresh = empty & (near[d] != 0)
        for e in range(d):
            fresh = fresh & (near[d] != near[e])
        idx.append((jnp.abs(near[d]).astype(jnp.int32) - 1).reshape(m))
        add.append(fresh.reshape(m).astype(jnp.int16))
    idx = jnp.where(jnp.concatenate(add) > 0, jnp.concatenate(idx), m)  # m: dropped
    count = jnp.zeros(m, jnp.int16).at[idx].add(jnp.concatenate(add), mode="drop")
    return jnp.where(lab != 0, count[jnp.abs(lab).astype(jnp.int32) - 1], 0).astype(jnp.int16)


def _score(lab: Array, n: int, komi: float) -> Array:
    """[2] float32 rewards by colour (black, white) of the final board (Tromp-Taylor area)."""
    board = lab.reshape(n, n)
    empty = board == 0
    stones = jnp.stack([board > 0, board < 0])  # [2, N, N]

    def grow(x):
        reach, _ = x
        more = reach | (jax.vmap(_dilate)(reach) & empty)
        return more, (more != reach).any()

    reach, _ = jax.lax.while_loop(lambda x: x[1], grow, (stones, jnp.bool_(True)))
    area = stones.sum(axis=(1, 2)) + (empty & ~reach[::-1]).sum(axis=(1, 2))
    black_wins = area[0] - komi > area[1]
    return jnp.where(black_wins, jnp.array([1.0, -1.0]), jnp.array([-1.0, 1.0])).astype(
        jnp.float32)


# ------------------------------------------------------------------------- host helpers
def board_array(state: GoState) -> np.ndarray:
    """[N, N] int array of an unbatched state: 0 empty, 1 black, −1 white."""
    lab = np.asarray(jax.device_get(state._lab))
    n = int(round(lab.shape[-1] ** 0.5))
    return np.sign(lab).astype(np.int64).reshape(n, n)
