"""Step-by-step parity of holdemjax's connect four with pgx's over many random games.

    python benchmarks/parity_connect_four.py [--games 10000] [--batch 2500] [--seed 0]

Both envs are vmapped over a batch and stepped together with the same random legal actions
(drawn from our mask) until every game has ended, plus one more step. At every step the public
fields are compared: current_player, legal_action_mask, observation, rewards, terminated,
truncated. The only chance is who moves first: pgx draws it from its key and we copy its draw
into our states. Prints the mismatching games per field (goal: 0) and exits 1 if there are any.

`run_parity` is shared with the other board-game parity scripts.
"""

from __future__ import annotations

import argparse
import sys
import time

import jax
import jax.numpy as jnp
import numpy as np

FIELDS = ("current_player", "legal_action_mask", "observation", "rewards", "terminated",
          "truncated")


def run_parity(env, penv, prepare, *, games: int, batch: int, max_steps: int, seed: int,
               label: str) -> int:
    """Play `games` random games in batches; print a report; return the mismatching games.

    `prepare(ours, theirs) -> ours` copies pgx's chance outcome (drawn at init) into our batch.
    """
    init_a, init_b = jax.jit(jax.vmap(env.init)), jax.jit(jax.vmap(penv.init))
    step_a, step_b = jax.jit(jax.vmap(env.step)), jax.jit(jax.vmap(penv.step))
    bad_games = 0
    per_field = dict.fromkeys(FIELDS, 0)
    steps = 0
    start = time.time()
    for first in range(0, games, batch):
        n = min(batch, games - first)
        key = jax.random.fold_in(jax.random.key(seed), first)
        theirs = init_b(jax.random.split(jax.random.PRNGKey(seed + first), n))
        ours = prepare(init_a(jax.random.split(key, n)), theirs)
        bad = np.zeros(n, bool)
        all_ended = False
        for t in range(max_steps + 2):  # every game ends within max_steps; then one step more
            for name in FIELDS:
                a = np.asarray(getattr(ours, name)).reshape(n, -1)
                b = np.asarray(getattr(theirs, name)).reshape(n, -1)
                differ = (a != b).any(axis=1)
                per_field[name] += int(differ.sum())
                bad |= differ
            if all_ended:
                break
            all_ended = bool(np.asarray(ours.terminated).all())
            k_act = jax.random.fold_in(jax.random.fold_in(key, 1), t)
            logits = jnp.where(ours.legal_action_mask, 0.0, -jnp.inf)
            action = jax.random.categorical(k_act, logits, axis=-1).astype(jnp.int32)
            ours, theirs = step_a(ours, action), step_b(theirs, action)
            steps += n
        unfinished = int((~np.asarray(ours.terminated)).sum())
        bad_games += int(bad.sum())
        if unfinished:
            print(f"  warning: {unfinished} games unfinished after {max_steps} steps")
    print(f"{label}: {games} games, {steps} game-steps compared in {time.time() - start:.1f}s")
    for name, count in per_field.items():
        print(f"  {name:18s} mismatching (game, step) pairs: {count}")
    print(f"  games with any mismatch: {bad_games}")
    return bad_games


def main(argv=None) -> int:
    import pgx

    import holdemjax

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--batch", type=int, default=2_500)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    def prepare(ours, theirs):
        ours = ours.replace(current_player=theirs.current_player,
                            _first_player=theirs.current_player)
        return ours.replace(observation=jax.vmap(env.observe)(ours))

    env = holdemjax.make("connect_four")
    bad = run_parity(env, pgx.make("connect_four"), prepare, games=args.games,
                     batch=args.batch, max_steps=42, seed=args.seed, label="connect_four")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
