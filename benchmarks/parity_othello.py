"""Step-by-step parity of holdemjax's othello with pgx's over many random games.

    python benchmarks/parity_othello.py [--games 10000] [--batch 2500] [--seed 0]

Both envs are vmapped over a batch and stepped together with the same random legal actions
(drawn from our mask) until every game has ended, plus one more step; every public field is
compared at every step (see `parity_connect_four.run_parity`). The only chance is who moves
first (black): pgx draws it from its key and we copy its draw into our states. Prints the
mismatches per field (goal: 0) and exits 1 if there are any.
"""

from __future__ import annotations

import argparse
import sys

import jax

from parity_connect_four import run_parity

# A game has at most 60 moves, passes only when no move exists, and two final passes.
MAX_STEPS = 130


def main(argv=None) -> int:
    import pgx

    import holdemjax

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--batch", type=int, default=2_500)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    env = holdemjax.make("othello")

    def prepare(ours, theirs):
        ours = ours.replace(current_player=theirs.current_player,
                            _first_player=theirs.current_player)
        return ours.replace(observation=jax.vmap(env.observe)(ours))

    bad = run_parity(env, pgx.make("othello"), prepare, games=args.games, batch=args.batch,
                     max_steps=MAX_STEPS, seed=args.seed, label="othello")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
