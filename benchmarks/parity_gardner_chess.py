"""Step-by-step parity of holdemjax's `gardner_chess` with pgx's over many random games.

    python benchmarks/parity_gardner_chess.py [--games 10000] [--batch 1000] [--seed 0]
                                              [--illegal-rate 0.01]

The shared driver `holdemjax.parity.run_parity` steps both envs together and compares every
public field (observation, mask, rewards, terminated, truncated, current player) at every step.
Actions: in even-numbered games of a batch a uniform random legal action; in odd-numbered ones a
"quiet" player that, nine times in ten, plays a random move that is neither a capture nor a pawn
move when it has one (so that games run into the no-progress rule, repetitions and the 256-step
cap, which uniform play reaches in about 1 and 0.1 games in a hundred). At `--illegal-rate` per
move an illegal action is played instead (the game ends with the penalty; the board pgx shows
after it is compared too). The only chance is who plays white: pgx draws it from its key and
`prepare` copies its draw into our states. Each game's ending is counted by kind. Exit status 0
when no game mismatches.
"""

from __future__ import annotations

import sys

import jax
import jax.numpy as jnp

from holdemjax.envs import _gardner_rules as R
from holdemjax.experimental import act_randomly
from holdemjax.parity import cli

ENDINGS = ("checkmate", "stalemate", "insufficient material", "threefold repetition",
           "no progress (100 half-moves)", "256-step cap", "illegal move")
QUIET_RATE = 0.9


def prepare(ours, theirs):
    return ours.replace(current_player=theirs.current_player)


def ending(before, action, after, illegal):
    """The kind of ending (index into ENDINGS) of each row of a batch, at the step it ends.
    Several can hold at once (a mate on step 256); the first in ENDINGS is counted."""
    no_move = ~jax.vmap(lambda b: R.legal_moves(b)[0].any())(after._board)
    kinds = jnp.stack([
        after.rewards.any(axis=1),
        no_move,
        jax.vmap(R.insufficient_material)(after._board),
        after._counts[:, 0] >= 3,
        after._halfmove >= R.NO_PROGRESS_LIMIT,
        after._step_count >= R.MAX_STEPS,
    ], axis=1)
    return jnp.where(illegal, len(ENDINGS) - 1, jnp.argmax(kinds, axis=1))


def pick(key, state):
    """Uniform legal moves in even rows; odd rows prefer quiet moves (no capture, no pawn)."""
    k_any, k_quiet, k_coin = jax.random.split(key, 3)
    mask = state.legal_action_mask
    board = state._board.astype(jnp.int32)  # [B, 25]
    opp = R.pack(board < 0)  # [B]
    pawn = jnp.repeat(board == R.PAWN, R.NUM_PLANES, axis=1)  # [B, 1225] by from square
    capture = (jnp.asarray(R._TO_BIT).reshape(-1) & opp[:, None]) != 0
    quiet = mask & ~pawn & ~capture
    rows = jnp.arange(mask.shape[0])
    use_quiet = ((rows % 2 == 1) & quiet.any(axis=1)
                 & (jax.random.uniform(k_coin, rows.shape) < QUIET_RATE))
    return jnp.where(use_quiet, act_randomly(k_quiet, quiet), act_randomly(k_any, mask))


#: A game has at most 256 steps.
CONFIG = dict(max_steps=R.MAX_STEPS, prepare=prepare, ending=ending, ending_names=ENDINGS,
              pick=pick)

if __name__ == "__main__":
    sys.exit(cli("gardner_chess", **CONFIG))
