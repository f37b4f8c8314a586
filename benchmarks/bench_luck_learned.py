"""Value functions for the luck (`holdemjax.luck`, docs/luck.md): how much of a sit & go
verdict's standard error AIVAT's chance terms take out under the check-down value, the shipped
network's critic, and rollouts of the rest of the hand by the known bots.

Two line-ups on ``sng-6``, the same games for every value:

* the shipped policy (``training/checkpoints/sng6_example.msgpack``, sampling) against five
  baselines, seat rotation (`training.evaluate(..., luck=True)`): the check-down corrections
  (the default) and the chance terms under the network's critic
  (``luck_value=ppo.state_value(config)``, `holdemjax.luck.chance_term` through the env's
  chance split);
* six baselines (`bots.play`-style loop): the check-down corrections, and the chance terms
  under a rollout value: the rest of the current hand played out by the baselines with a key of
  the luck's own, the stacks it ends with valued by ICM (places for busts), ``--samples``
  outcomes drawn per chance event (unbiased).

Writes ``benchmarks/results/luck_learned.json``.

    python benchmarks/bench_luck_learned.py [--deals 128] [--tournaments 256] [--samples 4]
                                            [--seed 3] [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import pathlib
import sys
import time

import numpy as np

SHIPPED = "training/checkpoints/sng6_example.msgpack"


def _mean_se(x: np.ndarray) -> tuple[float, float]:
    return float(x.mean()), float(x.std(ddof=1) / math.sqrt(len(x)))


def _critic_row(deals: int, seed: int, console) -> dict:
    from holdemjax.training import evaluate as ev
    from holdemjax.training import ppo

    params, config = ppo.load_checkpoint(pathlib.Path(__file__).resolve().parents[1] / SHIPPED)
    act = ppo.policy(config)
    row = {"setting": f"sng-6, the shipped policy ({SHIPPED}, sampling) vs five baselines, "
                      "seat rotation (training.evaluate)", "deals": deals,
           "tournaments": 6 * deals, "values": {}}
    for name, value in (("check-down", None), ("critic", ppo.state_value(config))):
        t0 = time.perf_counter()
        r = ev.evaluate(act, params, deals=deals, seed=seed, chunk=min(64, deals), luck=True,
                        luck_value=value)
        total = r.luck.sum(axis=2).mean(axis=1)
        lm, lse = _mean_se(total)
        row.update(score=r.mean, stderr=r.se)
        row["values"][name] = {"corrected_score": r.corrected_mean,
                               "corrected_stderr": r.corrected_se,
                               "se_ratio": r.se / r.corrected_se, "luck_mean": lm,
                               "luck_mean_stderr": lse, "seconds": time.perf_counter() - t0}
        console.print(f"shipped policy vs baselines, {name}: {r.mean:.4f} ± {r.se:.4f} raw, "
                      f"{r.corrected_mean:.4f} ± {r.corrected_se:.4f} corrected "
                      f"({r.se / r.corrected_se:.2f}x)")
    return row


def _rollout_program(env, games: int, samples: int):
    """Six baselines over ``games`` sit & gos: each player's score, its check-down luck by event
    and its rollout chance terms (jitted ``(key) -> three arrays``)."""
    import jax
    import jax.numpy as jnp

    from holdemjax import luck
    from holdemjax.bots import baseline
    from holdemjax.training.ppo_config import potential

    def rollout_value(bot_key):
        def value(state):  # the current hand played out by the baselines, its end by ICM
            hand = env.tournament(state).hand

            def going(c):
                s, i = c
                return (env.tournament(s).hand == hand) & ~s.terminated & (i < 64)

            def step(c):
                s, i = c
                return env.step(s, baseline.act(env, s, bot_key)), i + 1

            end, _ = jax.lax.while_loop(going, step, (state, jnp.int32(0)))
            return jnp.where(end.terminated, end.rewards, potential(env, end, "icm"))
        return value

    def run(key):
        g = jnp.arange(games)
        keys = [jax.vmap(lambda i, j=j: jax.random.fold_in(jax.random.fold_in(key, j), i))(g)
                for j in range(3)]  # the env's, the bots', the luck's
        states = jax.vmap(env.init)(keys[0])
        lk = luck.games_first_luck(env, states, keys[2])

        def body(c):
            s, scores, lk, ro, i = c
            a = jax.vmap(lambda st, k: baseline.act(env, st, k))(s, keys[1])
            lk = lk + luck.games_step_luck(env, s, a, keys[2])
            nxt = jax.vmap(env.step)(s, a)
            ks = jax.vmap(lambda k: jax.random.fold_in(jax.random.fold_in(k, 7), i))(keys[2])
            ro = ro + jax.vmap(lambda st, ac, nx, k: luck.chance_term(
                env, rollout_value(jax.random.key_data(jax.random.fold_in(k, 0))), st, ac, nx,
                jax.random.fold_in(k, 1), samples))(s, a, nxt, ks)
            return nxt, scores + nxt.rewards, lk, ro, i + 1

        zeros = jnp.zeros((games, env.num_players), jnp.float32)
        _, scores, lk, ro, _ = jax.lax.while_loop(
            lambda c: (~c[0].terminated).any() & (c[-1] < 5000), body,
            (states, zeros, lk, zeros, jnp.int32(0)))
        return scores, lk, ro

    return jax.jit(run)


def _rollout_row(tournaments: int, samples: int, seed: int, console) -> dict:
    import jax

    import holdemjax

    env = holdemjax.make("sng-6", zero_sum=True)
    t0 = time.perf_counter()
    scores, lk, ro = (np.asarray(x, np.float64) for x in jax.device_get(
        _rollout_program(env, tournaments, samples)(jax.random.key(seed))))
    seconds = time.perf_counter() - t0
    raw = scores.std(axis=0, ddof=1)
    ratios = {"check-down": raw / (scores - lk.sum(axis=1)).std(axis=0, ddof=1),
              "rollout": raw / (scores - ro).std(axis=0, ddof=1)}
    row = {"setting": "sng-6, six baselines (rollout chance terms beside the check-down)",
           "tournaments": tournaments, "samples": samples, "seconds": seconds,
           "values": {name: {"se_ratio_per_slot": r.tolist(), "se_ratio_mean": float(r.mean())}
                      for name, r in ratios.items()},
           "rollout_luck_mean": ro.mean(axis=0).tolist(),
           "rollout_luck_stderr": (ro.std(axis=0, ddof=1) / math.sqrt(tournaments)).tolist()}
    console.print("six baselines: SE ratio check-down "
                  f"{ratios['check-down'].mean():.2f}x, rollout chance terms "
                  f"{ratios['rollout'].mean():.2f}x ({seconds:.0f} s)")
    return row


def main(argv: list[str] | None = None) -> int:
    from rich.console import Console

    from holdemjax import bench

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=128, help="deals of the critic row (x6 games)")
    ap.add_argument("--tournaments", type=int, default=256, help="games of the rollout row")
    ap.add_argument("--samples", type=int, default=4,
                    help="chance outcomes drawn per event in the rollout row")
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--out", help="folder for the results file (default benchmarks/results)")
    args = ap.parse_args(argv)
    console = Console(highlight=False)
    load_before = os.getloadavg()
    with console.status("the critic as the value"):
        critic = _critic_row(args.deals, args.seed, console)
    with console.status("rollouts as the value"):
        rollout = _rollout_row(args.tournaments, args.samples, args.seed, console)
    doc = {**bench.header("luck_learned", "the luck's value functions: check-down, the "
                          "critic, rollouts", load_before=load_before),
           "kind": "luck_learned", "params": vars(args) | {"env": "sng-6"},
           "rows": [critic, rollout],
           "notes": ["se_ratio = raw SE / corrected SE on the same games; the critic and the "
                     "rollout terms are the chance terms of each step's first board card "
                     "(the env's chance event), no deal term; the check-down corrections take "
                     "out the deal and every board card a step shows"]}
    path = pathlib.Path(args.out or bench.results_dir()) / "luck_learned.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=1) + "\n")
    console.print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
