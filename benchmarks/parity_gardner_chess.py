"""Step-by-step parity of holdemjax's `gardner_chess` with pgx's over many random games.

    python benchmarks/parity_gardner_chess.py [--games 10000] [--batch 1000] [--seed 0]
                                              [--illegal-rate 0.003]
    python benchmarks/parity_gardner_chess.py --write-golden

The shared driver `holdemjax.parity.run_parity` steps both envs together and compares every
public field (observation, mask, rewards, terminated, truncated, current player) at every step.

Starts: three games in four from the standard position (pgx draws who plays white from its key;
`prepare` copies its draw into our states); the fourth from one of `FENS`, built by each engine's
own FEN reader (ours `from_fen`, pgx's `State._from_fen`, whose history keeps the standard start
behind the FEN position). Actions: in even-numbered games a uniform random legal action; in odd
ones a "quiet" player that, `QUIET_RATE` of the time, plays a random move that is neither a
capture nor a pawn move when it has one, so that games run into repetitions, the no-progress rule
and the 256-step cap (uniform play from the start reaches the last two in about 0.7 and 0.1
games in a hundred). At `--illegal-rate` per move an illegal action is played instead: the game
ends with the penalty, and the board pgx shows after it is compared too. Each game's ending is
counted by kind. Exit status 0 when no game mismatches. `--write-golden` records
tests/envs/golden/gardner_chess.jsonl from pgx instead.
"""

from __future__ import annotations

import concurrent.futures
import functools
import sys

import jax
import jax.numpy as jnp
import numpy as np

from holdemjax.envs import _gardner_rules as rules
from holdemjax.experimental import act_randomly
from holdemjax.parity import cli

ENDINGS = ("checkmate", "stalemate", "insufficient material", "threefold repetition",
           "no progress (100 half-moves)", "256-step cap", "illegal move")
QUIET_RATE = 0.97
FEN_EVERY = 4  # games 3, 7, 11, ... of a batch start from a FEN
#: Start positions for a quarter of the games (checked by tests/envs/test_gardner_chess.py).
FENS = (
    "rnbqk/ppppp/5/PPPPP/RNBQK w - - 0 1",  # the start, with the start behind it in history
    "rnbqk/ppppp/5/PPPPP/RNBQK b - - 0 1",  # black to move first
    "k4/5/5/1Q3/4K w - - 0 1",  # queen against king: mates, stalemates, no progress
    "4k/P4/5/5/K4 w - - 0 1",  # a pawn about to promote
    "k1b2/3n1/5/1B3/4K w - - 0 1",  # bishops of one colour once the knight goes
    "r3k/1p3/5/3P1/R3K w - - 90 30",  # ten half-moves before the no-progress rule
    "1nb1k/p1p1p/5/P1P1P/1NB1K b - - 0 8",  # no queens or rooks
    "rnbqk/p1p1p/1p1p1/1P1P1/RNBQK w - - 0 5",  # blocked pawns
)


@functools.cache
def _fen_states(n_fens: int):
    """Both engines' states of FENS, stacked (host side; built once)."""
    import pgx.gardner_chess

    from holdemjax.envs.gardner_chess import from_fen

    def build():
        stack = lambda states: jax.tree.map(lambda *x: np.stack(x), *states)
        return (stack([from_fen(f) for f in FENS[:n_fens]]),
                stack([pgx.gardner_chess.State._from_fen(f) for f in FENS[:n_fens]]))

    # `prepare` runs while the driver traces its loop; a worker thread is outside that trace
    # (JAX's trace state is per thread), so both FEN readers run as usual and reuse their
    # compiled functions.
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(build).result()


def prepare(ours, theirs):
    ours = ours.replace(current_player=theirs.current_player)
    n = ours.current_player.shape[0]
    rows = np.arange(n)
    fen_rows = rows % FEN_EVERY == FEN_EVERY - 1
    which = (rows // FEN_EVERY) % len(FENS)
    # The barrier keeps XLA from constant-folding the selected states (seconds of compile).
    fa, fb = jax.lax.optimization_barrier(_fen_states(len(FENS)))

    def put(fens, batch):
        return jax.tree.map(
            lambda f, x: jnp.where(fen_rows.reshape((-1,) + (1,) * (x.ndim - 1)), f[which], x),
            fens, batch)

    return put(fa, ours), put(fb, theirs)


def ending(before, action, after, illegal):
    """The kind of ending (index into ENDINGS) of each row of a batch, at the step it ends.
    Several can hold at once (a mate on step 256); the first in ENDINGS is counted."""
    no_move = ~jax.vmap(lambda b: rules.legal_moves(b)[0].any())(after._board)
    kinds = jnp.stack([
        after.rewards.any(axis=1),
        no_move,
        jax.vmap(rules.insufficient_material)(after._board),
        after._counts[:, 0] >= 3,
        after._halfmove >= rules.NO_PROGRESS_LIMIT,
        after._step_count >= rules.MAX_STEPS,
    ], axis=1)
    return jnp.where(illegal, len(ENDINGS) - 1, jnp.argmax(kinds, axis=1))


def pick(key, state):
    """Uniform legal moves in even rows; odd rows prefer quiet moves (no capture, no pawn)."""
    k_any, k_quiet, k_coin = jax.random.split(key, 3)
    mask = state.legal_action_mask
    board = state._board.astype(jnp.int32)  # [B, 25]
    opp = rules.pack(board < 0)  # [B]
    pawn = jnp.repeat(board == rules.PAWN, rules.NUM_PLANES, axis=1)  # [B, 1225] by from square
    capture = (jnp.asarray(rules.TO_BIT).reshape(-1) & opp[:, None]) != 0
    quiet = mask & ~pawn & ~capture
    rows = jnp.arange(mask.shape[0])
    use_quiet = ((rows % 2 == 1) & quiet.any(axis=1)
                 & (jax.random.uniform(k_coin, rows.shape) < QUIET_RATE))
    return jnp.where(use_quiet, act_randomly(k_quiet, quiet), act_randomly(k_any, mask))


#: A game has at most 256 steps.
CONFIG = dict(max_steps=rules.MAX_STEPS, prepare=prepare, ending=ending, ending_names=ENDINGS,
              pick=pick, illegal_rate=0.003)


# ------------------------------------------------------------------------- golden games
#: Hand-made games: (name, start FEN, moves in board coordinates; "#<id>" is a raw action id).
HAND_GAMES = (
    ("threefold by knights", None, "b1a3 b5c3 a3b1 c3b5 b1a3 b5c3 a3b1 c3b5"),
    ("stalemate by the queen", "k4/5/5/1Q3/4K w - - 0 1", "b2b3"),
    ("mate by the queen", "k4/2K2/5/1Q3/5 w - - 0 1", "b2b5"),
    ("underpromotion to a rook", "4k/P4/5/5/K4 w - - 0 1", "a4a5r e5d4 a5d5 d4c4"),
    ("underpromotion to a knight", "2k2/P4/5/5/K4 w - - 0 1", "a4a5n c5b5 a1b1 b5a5"),
    ("bishops of one colour", "k1b2/3n1/5/1B3/4K w - - 0 1", "b2d4"),
    ("no progress", "k4/5/5/5/3RK w - - 98 1", "d1d2 a5a4"),
    ("black moves first", "rnbqk/ppppp/5/PPPPP/RNBQK b - - 0 1", "b5c3 b2c3 b4c3"),
    ("the start as a FEN", "rnbqk/ppppp/5/PPPPP/RNBQK w - - 0 1",
     "b1a3 b5c3 a3b1 c3b5 b1a3 b5c3 a3b1 c3b5"),
    ("illegal: from an empty square", None, "#601"),
    ("illegal: from an empty square on rank 4", None, "b2b3 c4c3 #650"),
    ("illegal: plane with no destination", None, "#245"),
    ("illegal: onto an own piece", None, "a1a2"),
)


def _record(penv, state, step, moves):
    """Step pgx through `moves` (action ids) and record what it shows after each step."""
    import hashlib

    import pgx.gardner_chess as pg

    def snap(s):
        obs = np.asarray(s.observation, np.float32)
        return dict(fen=pg._to_fen(s), current_player=int(s.current_player),
                    rewards=[float(x) for x in s.rewards], terminated=bool(s.terminated),
                    legal=[int(a) for a in np.flatnonzero(s.legal_action_mask)]
                    if not bool(s.terminated) else "all",
                    obs_sha1=hashlib.sha1(obs.tobytes()).hexdigest())

    out = [snap(state)]
    for a in moves:
        state = step(state, jnp.int32(a))
        out.append(snap(state))
    return out


def write_golden(path) -> None:
    """Record golden games from pgx (the oracle): the hand-made games above, and the shortest
    random game of each kind of ending found with our env (its actions replayed in pgx)."""
    import json

    import pgx
    import pgx.gardner_chess as pg

    from holdemjax.envs.gardner_chess import GardnerChess, action_of, move_name

    penv = pgx.make("gardner_chess")
    step = jax.jit(penv.step)
    games = []
    for name, fen, text in HAND_GAMES:
        state = pg.State._from_fen(fen) if fen else penv.init(jax.random.PRNGKey(0))
        first = int(state.current_player)
        black = int(state._turn) == 1
        moves = []
        for m in text.split():
            moves.append(int(m[1:]) if m.startswith("#") else action_of(m, black))
            black = not black
        games.append(dict(name=name, fen=fen, first_player=first, moves=moves,
                          notation=text.split(), steps=_record(penv, state, step, moves)))
    for kind, (seed, moves) in _shortest_games(GardnerChess()).items():
        state = penv.init(jax.random.PRNGKey(seed))
        names = [move_name(a, i % 2 == 1) for i, a in enumerate(moves)]
        games.append(dict(name=f"random: {kind}", fen=None, first_player=int(state.current_player),
                          moves=moves, notation=names, steps=_record(penv, state, step, moves)))
    with open(path, "w", encoding="utf-8") as f:
        for g in games:
            f.write(json.dumps(g) + "\n")
    print(f"wrote {len(games)} games to {path}")


def _shortest_games(env, batch: int = 512, seed: int = 11):
    """{ending kind: (init seed, actions)}: the shortest game of each kind (illegal moves
    excepted) among `batch` random games from the standard start, half of them quiet (`pick`);
    the seed is the pgx init key to replay it with (who plays white does not change play)."""
    @jax.jit
    def play(key):
        state = jax.vmap(env.init)(jax.random.split(key, batch))

        def body(carry, t):
            s, kind, length = carry
            a = pick(jax.random.fold_in(key, t), s)
            s2 = jax.vmap(env.step)(s, a)
            ended = ~s.terminated & s2.terminated
            kind = jnp.where(ended, ending(s, a, s2, jnp.zeros_like(ended)), kind)
            return (s2, kind, jnp.where(ended, t + 1, length)), a

        init = (state, jnp.full(batch, -1), jnp.zeros(batch, jnp.int32))
        (_, kind, length), actions = jax.lax.scan(body, init, jnp.arange(rules.MAX_STEPS))
        return kind, length, actions.T

    kind, length, actions = map(np.asarray, play(jax.random.key(seed)))
    out = {}
    for k, name in enumerate(ENDINGS[:-1]):
        rows = np.flatnonzero(kind == k)
        if rows.size:
            r = rows[np.argmin(length[rows])]
            out[name] = (int(r), [int(a) for a in actions[r, :length[r]]])
    return out


if __name__ == "__main__":
    if "--write-golden" in sys.argv:
        import pathlib

        write_golden(pathlib.Path(__file__).resolve().parents[1]
                     / "tests" / "envs" / "golden" / "gardner_chess.jsonl")
        sys.exit(0)
    sys.exit(cli("gardner_chess", **CONFIG))
