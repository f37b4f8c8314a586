"""Step-by-step parity of holdemjax's `leduc_holdem` with pgx's over random games.

    python benchmarks/parity_leduc_holdem.py [--games 10000] [--seed 0]

Both envs are initialised from the same keys; pgx's deal and first player (`_cards`,
`_first_player`, `current_player`) are then copied into our state, so the chance outcome is the
same. Both are stepped with the same random legal actions until every game has ended (at most 8
actions), comparing `current_player`, `legal_action_mask`, `observation`, `rewards`,
`terminated` and `truncated` at every step. Prints the number of games with a mismatch per field
(goal: 0) and exits with status 1 if there is any.
"""

from __future__ import annotations

import argparse
import sys
import time

import jax
import numpy as np

import holdemjax
from holdemjax.envs.leduc_holdem import LeducHoldem

FIELDS = ("current_player", "legal_action_mask", "observation", "rewards", "terminated",
          "truncated")
MAX_ACTIONS = 8  # the longest Leduc game: two raises and a call in each round, after a check


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    import pgx

    ours_env, ref_env = LeducHoldem(), pgx.make("leduc_holdem")
    n = args.games
    t0 = time.perf_counter()
    keys = jax.random.split(jax.random.key(args.seed), n)
    ref = jax.jit(jax.vmap(ref_env.init))(jax.random.key_data(keys))

    @jax.jit
    @jax.vmap
    def ours_init(key, cards, first):
        s = ours_env.init(key).replace(_cards=cards, _first_player=first, current_player=first)
        return s.replace(observation=ours_env.observe(s))

    ours = ours_init(keys, ref._cards, ref._first_player)
    ours_step, ref_step = jax.jit(jax.vmap(ours_env.step)), jax.jit(jax.vmap(ref_env.step))
    bad = {f: np.zeros(n, bool) for f in FIELDS}
    steps = 0

    def compare():
        for f in FIELDS:
            x, y = np.asarray(getattr(ours, f)), np.asarray(getattr(ref, f))
            bad[f] |= (x != y).reshape(n, -1).any(1)

    compare()
    key = jax.random.key(args.seed + 1)
    for _ in range(MAX_ACTIONS):
        key, k = jax.random.split(key)
        actions = holdemjax.act_randomly(k, ref.legal_action_mask)
        steps += int((~np.asarray(ref.terminated)).sum())
        ours, ref = ours_step(ours, actions), ref_step(ref, actions)
        compare()
    unfinished = int((~np.asarray(ref.terminated)).sum())
    any_bad = np.any([b for b in bad.values()], axis=0)
    print(f"leduc_holdem parity vs pgx: {n} games, {steps} steps, "
          f"{time.perf_counter() - t0:.1f}s")
    for f in FIELDS:
        print(f"  {f:18s} mismatching games: {int(bad[f].sum())}")
    print(f"  games with any mismatch: {int(any_bad.sum())}; unfinished games: {unfinished}")
    return int(bool(any_bad.any()) or unfinished > 0)


if __name__ == "__main__":
    sys.exit(main())
