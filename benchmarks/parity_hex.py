"""Step-by-step parity of holdemjax's `hex` with pgx's, over random games.

    python benchmarks/parity_hex.py [--games 10000] [--seed 0]

Both envs are vmapped over a batch and stepped together with the same actions: a uniform random
legal action, except that at the second move SWAP is played half of the time (a uniform pick
would play it once in 121 games), and that with probability `ILLEGAL_RATE` per move a uniform
random illegal action is played (an occupied cell, or SWAP after the second move), so that
illegal moves, their penalty and the board they leave are compared too. After every step, every
public field must be identical: `current_player`, `legal_action_mask`, `observation`, `rewards`,
`terminated`, `truncated`. Finished games keep being stepped (both envs must return them
unchanged with zero rewards).

Chance. The only chance in hex is who plays first, drawn at `init`. Our initial state is made
from pgx's: its `current_player` (the player of colour 0) is copied into our state
(`current_player` and `_first`) and our observation is recomputed. Every later step is computed
by each env on its own.

Exit status 0 when no game mismatches. `run_parity` is also called by tests/envs/test_hex.py.
"""

from __future__ import annotations

import argparse
import sys
import time

import jax
import jax.numpy as jnp

from holdemjax.envs.hex import SWAP, Hex
from holdemjax.experimental import act_randomly

FIELDS = ("current_player", "legal_action_mask", "observation", "rewards", "terminated",
          "truncated")
ILLEGAL_RATE = 0.003  # chance per move of playing an illegal action
SWAP_RATE = 0.5  # chance of playing SWAP when it is legal
MAX_STEPS = 200  # a hex game has at most 122 moves


def adopt_first_player(env: Hex, ours, theirs):
    """Our initial state with pgx's first player (the only chance outcome of hex)."""
    first = theirs.current_player
    ours = ours.replace(current_player=first, _first=first)
    return ours.replace(observation=env.observe(ours))


def run_parity(num_games: int = 1000, seed: int = 0) -> dict:
    """Play `num_games` random games in both envs; returns counts of mismatching games."""
    import pgx

    theirs_env = pgx.make("hex")
    ours_env = Hex()
    B = num_games

    def mismatches(ours, theirs):
        return {f: (getattr(ours, f) != getattr(theirs, f)).reshape(B, -1).any(axis=1)
                for f in FIELDS}

    def body(carry):
        ours, theirs, bad, counts, key, t = carry
        k_act, k_bad, k_pick, k_swap = jax.random.split(jax.random.fold_in(key, t), 4)
        mask = theirs.legal_action_mask
        action = act_randomly(k_act, mask)
        swap_ok = mask[:, SWAP]
        action = jnp.where(swap_ok & (jax.random.uniform(k_swap, (B,)) < SWAP_RATE), SWAP, action)
        go_illegal = (jax.random.uniform(k_pick, (B,)) < ILLEGAL_RATE) & ~mask.all(axis=1)
        action = jnp.where(go_illegal, act_randomly(k_bad, ~mask), action).astype(jnp.int32)
        live = ~(theirs.terminated | theirs.truncated)
        theirs = jax.vmap(theirs_env.step)(theirs, action)
        ours = jax.vmap(ours_env.step)(ours, action)
        step_bad = mismatches(ours, theirs)
        bad = {f: bad[f] | step_bad[f] for f in bad}
        counts = {"illegal": counts["illegal"] | (live & go_illegal),
                  "swap": counts["swap"] | (live & (action == SWAP) & ~go_illegal)}
        return ours, theirs, bad, counts, key, t + 1

    def cond(carry):
        theirs, t = carry[1], carry[-1]
        return (t < MAX_STEPS) & ~(theirs.terminated | theirs.truncated).all()

    @jax.jit
    def play(key):
        k_init, k_play = jax.random.split(key)
        keys = jax.random.split(k_init, B)
        theirs = jax.vmap(theirs_env.init)(keys)
        ours = jax.vmap(lambda o, t: adopt_first_player(ours_env, o, t))(
            jax.vmap(ours_env.init)(keys), theirs)
        ours, theirs = jax.lax.optimization_barrier((ours, theirs))  # no constant folding
        bad = mismatches(ours, theirs)
        counts = {"illegal": jnp.zeros(B, jnp.bool_), "swap": jnp.zeros(B, jnp.bool_)}
        ours, theirs, bad, counts, _, t = jax.lax.while_loop(
            cond, body, (ours, theirs, bad, counts, k_play, jnp.int32(0)))
        return bad, counts, t, theirs.terminated.all(), theirs._step_count.sum()

    bad, counts, t, all_done, steps = play(jax.random.key(seed))
    per_field = {f: int(v.sum()) for f, v in bad.items()}
    any_bad = jnp.stack(list(bad.values())).any(axis=0)
    return {"games": B, "mismatched_games": int(any_bad.sum()), "per_field": per_field,
            "steps": int(steps), "rounds": int(t), "all_finished": bool(all_done),
            "ended_by_illegal_move": int(counts["illegal"].sum()),
            "with_swap": int(counts["swap"].sum())}


# ------------------------------------------------------------------- golden games from pgx
COLUMNS = "abcdefghijk"


def cell_name(action: int) -> str:
    """Hex notation: column letter a..k (left to right), row number 1..11 (top to bottom)."""
    if action == SWAP:
        return "swap"
    row, col = divmod(action, 11)
    return f"{COLUMNS[col]}{row + 1}"


def cell_action(name: str) -> int:
    if name == "swap":
        return SWAP
    return (int(name[1:]) - 1) * 11 + COLUMNS.index(name[0])


def board_rows(observation, current_is_color1: bool) -> list[str]:
    """Rows top to bottom: X = colour 0 (joins top and bottom), O = colour 1, '.' empty."""
    import numpy as np

    obs = np.asarray(observation)
    x = obs[..., 1] if current_is_color1 else obs[..., 0]
    o = obs[..., 0] if current_is_color1 else obs[..., 1]
    return ["".join("X" if x[r, c] else "O" if o[r, c] else "." for c in range(11))
            for r in range(11)]


# Hand-made games (moves in order, colour 0 first) recorded with pgx's results.
_HAND_MADE = {
    "x-wins-down-column-f": [f"{c}{r}" for r in range(1, 12) for c in "fa"][:-1],
    "swap-then-o-wins-along-row-3": ["c1", "swap"] + [
        m for c in COLUMNS[1:] for m in (f"{c}9", f"{c}3")] + ["k11"],
    "illegal-move-on-an-occupied-cell": ["f6", "e5", "f6"],
    "illegal-swap-at-move-3": ["b2", "c5", "swap"],
}


def record_golden(path: str, seed: int = 11) -> None:
    """Record golden games played by pgx as JSONL (see tests/envs/test_hex.py): the hand-made
    games above and two random games (one with a swap)."""
    import json

    import numpy as np
    import pgx

    env = pgx.make("hex")
    init, step = jax.jit(env.init), jax.jit(env.step)
    rng = np.random.default_rng(seed)
    games = list(_HAND_MADE.items()) + [("pgx-random-0", None), ("pgx-random-swap-1", None)]
    lines = []
    for g, (name, moves) in enumerate(games):
        state = init(jax.random.key(seed + g))
        first = int(state.current_player)
        played, rewards = [], []
        t = 0
        while not bool(state.terminated) and (moves is None or t < len(moves)):
            if moves is not None:
                action = cell_action(moves[t])
            elif t == 1 and "swap" in name:
                action = SWAP
            else:
                action = int(rng.choice(np.flatnonzero(np.asarray(state.legal_action_mask))))
            state = step(state, action)
            played.append(cell_name(action))
            rewards.append([float(r) for r in state.rewards])
            t += 1
        color1 = int(state.current_player) != first
        lines.append(json.dumps({
            "name": name, "first_player": first, "moves": " ".join(played),
            "final_rewards": rewards[-1], "terminated": bool(state.terminated),
            "current_player": int(state.current_player),
            "board": board_rows(state.observation, color1)}))
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
    print(f"hex parity vs pgx: {out['games']} games, {out['steps']} steps, "
          f"{out['mismatched_games']} mismatched games; {out['with_swap']} games swapped, "
          f"{out['ended_by_illegal_move']} ended by an illegal move "
          f"({time.perf_counter() - t0:.1f} s)")
    for field, n in out["per_field"].items():
        print(f"  {field:18s} {n} games differ")
    if not out["all_finished"]:
        print(f"  warning: not every game finished within {MAX_STEPS} steps")
    return 0 if out["mismatched_games"] == 0 and out["all_finished"] else 1


if __name__ == "__main__":
    sys.exit(main())
