"""Step-by-step parity of holdemjax's `2048` with pgx's, over random games.

    python benchmarks/parity_2048.py [--games 10000] [--seed 0]

Both envs are vmapped over a batch and stepped together with the same actions: a uniform random
legal action, or (with probability `ILLEGAL_RATE`, when there is one) a uniform random illegal
action, so that illegal moves and their penalty are compared too (about 1 game in 8 ends so).
After every step, every public field must be identical: `current_player`, `legal_action_mask`,
`observation`, `rewards`, `terminated`, `truncated`.
Finished games keep being stepped (both envs must return them unchanged with zero rewards).

Chance. The tiles pgx places come from pgx's own use of the key, so ours are made to match: the
test env `ReplayChance` replaces the two chance hooks of `Play2048` (`_initial_board`, `_spawn`)
by ones that read the tile from the key's data instead of drawing it, and the driver writes pgx's
tile into that key. For the initial board the key holds pgx's two tiles (cells and values). For a
step, the driver slides our board with our own `slide` and takes the one cell where pgx's board
after its step differs from it: that cell must be empty in our slid board and is pgx's new tile
(if more than one cell differs, the slides disagree and the game counts as a mismatch). An
illegal move is played too (it changes nothing) and places a tile, in both envs; on a full board
pgx puts it on cell 0 and so do we. All the rest of our step (the base rules, the legal mask,
termination, the observation) runs unchanged.

Exit status 0 when no game mismatches. `run_parity` is also called by tests/envs/test_play2048.py.
"""

from __future__ import annotations

import argparse
import sys
import time

import jax
import jax.numpy as jnp

from holdemjax.envs.play2048 import SIZE, Play2048, Play2048State, slide
from holdemjax.experimental import act_randomly

FIELDS = ("current_player", "legal_action_mask", "observation", "rewards", "terminated",
          "truncated")
ILLEGAL_RATE = 0.003  # chance per step of playing an illegal move (when there is one)
MAX_STEPS = 5000  # safety bound; random games end long before
_CELLS = SIZE * SIZE
_BOARD_DTYPE = Play2048State()._board.dtype


class ReplayChance(Play2048):
    """`Play2048` whose tiles are read from the key's data (see the module docstring)."""

    def _initial_board(self, key):
        code = jax.random.key_data(key)[1]
        cells = jnp.arange(_CELLS, dtype=jnp.uint32)
        first, second = code & 15, (code >> 4) & 15
        board = jnp.where(cells == first, (code >> 8) & 3, 0)
        board = jnp.where(cells == second, (code >> 10) & 3, board)
        return board.reshape(SIZE, SIZE).astype(_BOARD_DTYPE)

    def _spawn(self, board, key):
        code = jax.random.key_data(key)[1]
        cells = jnp.arange(_CELLS, dtype=jnp.uint32).reshape(SIZE, SIZE)
        return jnp.where(cells == (code & 15), (code >> 4).astype(board.dtype), board)


def _key_with(code):
    """A threefry key whose data is [0, code] (code: uint32 [B])."""
    return jax.random.wrap_key_data(jnp.stack([jnp.zeros_like(code), code], axis=-1),
                                    impl="threefry2x32")


def _init_code(board):
    """pgx's initial board [B, 16] -> the code of its two tiles."""
    full = board > 0
    first = jnp.argmax(full, axis=1)
    second = _CELLS - 1 - jnp.argmax(full[:, ::-1], axis=1)
    take = lambda i: jnp.take_along_axis(board, i[:, None], axis=1)[:, 0]
    return (first | (second << 4) | (take(first) << 8) | (take(second) << 10)).astype(jnp.uint32)


def run_parity(num_games: int = 1000, seed: int = 0) -> dict:
    """Play `num_games` random games in both envs; returns counts of mismatching games."""
    import pgx

    theirs_env = pgx.make("2048")
    ours_env = ReplayChance()
    B = num_games

    def mismatches(ours, theirs):
        return {f: (getattr(ours, f) != getattr(theirs, f)).reshape(B, -1).any(axis=1)
                for f in FIELDS}

    def start(key):
        theirs = jax.vmap(theirs_env.init)(jax.random.split(key, B))
        ours = jax.vmap(ours_env.init)(_key_with(_init_code(theirs._board)))
        bad = mismatches(ours, theirs)
        bad["slide"] = jnp.zeros(B, jnp.bool_)
        return ours, theirs, bad

    def body(carry):
        ours, theirs, bad, ended_illegal, key, t = carry
        k_act, k_any, k_pick, k_step = jax.random.split(jax.random.fold_in(key, t), 4)
        mask = theirs.legal_action_mask
        legal_pick = act_randomly(k_act, mask)
        illegal_pick = act_randomly(k_any, ~mask)  # 0 when every move is legal
        go_illegal = (jax.random.uniform(k_pick, (B,)) < ILLEGAL_RATE) & ~mask.all(axis=1)
        action = jnp.where(go_illegal, illegal_pick, legal_pick).astype(jnp.int32)
        live = ~(theirs.terminated | theirs.truncated)
        theirs = jax.vmap(theirs_env.step)(theirs, action, jax.random.split(k_step, B))
        slid, _ = jax.vmap(slide)(ours._board, action)
        slid = slid.reshape(B, _CELLS).astype(jnp.int32)
        new = theirs._board
        differ = slid != new
        count = differ.sum(axis=1)
        cell = jnp.argmax(differ, axis=1)  # 0 when nothing differs: then placing new[0] is a no-op
        tile = jnp.take_along_axis(new, cell[:, None], axis=1)[:, 0]
        was_empty = jnp.take_along_axis(slid, cell[:, None], axis=1)[:, 0] == 0
        full = (slid != 0).all(axis=1)
        # One new tile, on an empty cell (or on cell 0 of a full board, after an illegal move).
        slide_bad = live & ((count > 1) | ((count == 1) & ~was_empty & ~full)
                            | ((count == 1) & full & (cell != 0)))
        code = (cell | (tile << 4)).astype(jnp.uint32)
        ours = jax.vmap(ours_env.step)(ours, action, _key_with(code))
        step_bad = mismatches(ours, theirs)
        step_bad["slide"] = slide_bad
        bad = {f: bad[f] | step_bad[f] for f in bad}
        ended_illegal = ended_illegal | (live & go_illegal)
        return ours, theirs, bad, ended_illegal, key, t + 1

    def cond(carry):
        ours, theirs, _, _, _, t = carry
        return (t < MAX_STEPS) & ~(theirs.terminated | theirs.truncated).all()

    @jax.jit
    def play(key):
        k_init, k_play = jax.random.split(key)
        ours, theirs, bad = start(k_init)
        ours, theirs, bad, ended_illegal, _, t = jax.lax.while_loop(
            cond, body, (ours, theirs, bad, jnp.zeros(B, jnp.bool_), k_play, jnp.int32(0)))
        return bad, t, theirs.terminated.all(), theirs._step_count.sum(), ended_illegal.sum()

    bad, t, all_done, steps, illegal = play(jax.random.key(seed))
    per_field = {f: int(v.sum()) for f, v in bad.items()}
    any_bad = jnp.stack(list(bad.values())).any(axis=0)
    return {"games": B, "mismatched_games": int(any_bad.sum()), "per_field": per_field,
            "steps": int(steps), "rounds": int(t), "all_finished": bool(all_done),
            "ended_by_illegal_move": int(illegal)}


# ------------------------------------------------------------------- golden games from pgx
MOVE_LETTERS = "LURD"  # action ids 0..3


def board_text(board) -> str:
    """A board [16] of exponents as text: rows top to bottom, '.' = empty."""
    cells = [("." if int(e) == 0 else str(2 ** int(e))) for e in board]
    return " / ".join(" ".join(cells[r * SIZE:(r + 1) * SIZE]) for r in range(SIZE))


def record_golden(path: str, seed: int = 2048, games: int = 4) -> None:
    """Record `games` random games played by pgx as JSONL (see tests/envs/test_play2048.py).

    Each move is "<letter> <tile>@r<row>c<col>": the move and the tile pgx placed after it; `legal`
    lists the legal moves before each move; `rewards` the reward of each move. The last game ends
    with an illegal move on purpose (it is still played, and a tile is placed, as in pgx).
    """
    import json

    import numpy as np
    import pgx

    env = pgx.make("2048")
    init, step = jax.jit(env.init), jax.jit(env.step)
    rng = np.random.default_rng(seed)
    lines = []
    for g in range(games):
        state = init(jax.random.key(seed + g))
        record = {"name": f"pgx-random-{g}", "initial": board_text(state._board), "moves": [],
                  "legal": [], "rewards": []}
        t = 0
        while not bool(state.terminated):
            mask = np.asarray(state.legal_action_mask)
            legal = [a for a in range(4) if mask[a]]
            if g == games - 1 and t >= 40 and len(legal) < 4:
                action = next(a for a in range(4) if not mask[a])  # an illegal move
            else:
                action = int(rng.choice(legal))
            before = np.asarray(state._board)
            nxt = step(state, action, jax.random.key(1000 * g + t))
            after = np.asarray(nxt._board)
            move = MOVE_LETTERS[action]
            slid, _ = slide(jnp.asarray(before.reshape(SIZE, SIZE)), action)
            new = np.flatnonzero(np.asarray(slid).reshape(-1) != after)
            (cell,) = new if len(new) else (0,)  # an illegal move still places a tile
            move += f" {2 ** int(after[cell])}@r{cell // SIZE}c{cell % SIZE}"
            record["moves"].append(move)
            record["legal"].append("".join(MOVE_LETTERS[a] for a in legal))
            record["rewards"].append(float(nxt.rewards[0]))
            state, t = nxt, t + 1
        record["final"] = board_text(state._board)
        record["terminated"] = bool(state.terminated)
        record["score"] = sum(r for r in record["rewards"] if r > 0)
        lines.append(json.dumps(record))
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--write-golden", metavar="PATH",
                        help="record golden games from pgx into PATH and exit")
    args = parser.parse_args(argv)
    if args.write_golden:
        record_golden(args.write_golden)
        return 0
    t0 = time.perf_counter()
    out = run_parity(args.games, args.seed)
    print(f"2048 parity vs pgx: {out['games']} games, {out['steps']} steps, "
          f"{out['mismatched_games']} mismatched games, {out['ended_by_illegal_move']} ended by an "
          f"illegal move ({time.perf_counter() - t0:.1f} s)")
    for field, n in out["per_field"].items():
        print(f"  {field:18s} {n} games differ")
    if not out["all_finished"]:
        print(f"  warning: not every game finished within {MAX_STEPS} steps")
    return 0 if out["mismatched_games"] == 0 and out["all_finished"] else 1


if __name__ == "__main__":
    sys.exit(main())
