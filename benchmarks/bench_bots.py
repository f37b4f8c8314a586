"""Baseline vs random bots, and six baselines, over many tournaments (jit(vmap), one while loop).

    python benchmarks/bench_bots.py                     # 1,000 sng-6 tournaments per line-up
    python benchmarks/bench_bots.py --games 200 --env certify

(a) player 0 is the baseline, players 1..5 random bots; (b) six baselines. Seating is random
per tournament (the env seats player ids from the key), so the baseline's seat rotates at
random. Prints mean score ± standard error per player id, z-scores against 1/6 (the fair share),
and checks (b) against theory: identical players score 1/6 each, with a standard error of
sd / sqrt(games), sd = the spread of the payouts (0.114 for sng-6: 0.011 over 100 games,
0.0036 over 1,000). Also times the runs (compile apart).
"""

from __future__ import annotations

import argparse
import math
import sys
import time

import jax
import jax.numpy as jnp
import numpy as np
from rich.console import Console
from rich.table import Table

import holdemjax
from holdemjax.bots import BOTS, play

MAX_STEPS = np.int32(1_000_000)  # a bound never reached: the loop ends when all games have
LINEUPS = {  # label -> bot index (holdemjax.bots.BOTS order) of each player id
    "(a)": [1, 0, 0, 0, 0, 0],  # player 0 the baseline, five random bots
    "(b)": [1, 1, 1, 1, 1, 1],  # six baselines
}


def summarize(scores: np.ndarray):
    mean = scores.mean(0)
    se = scores.std(0, ddof=1) / math.sqrt(scores.shape[0])
    return mean, se


def payout_sd(env) -> float:
    """Spread of one identical player's score: sd of the payouts over the places."""
    pay = np.asarray(env.format.payouts, np.float64)
    return float(np.sqrt(((pay - pay.mean()) ** 2).mean()))


def run(env_id: str, games: int, seed: int, console: Console) -> dict:
    env = holdemjax.make(env_id)
    key = jax.random.key(seed)
    names = list(BOTS)
    lineup0 = jnp.asarray(next(iter(LINEUPS.values())), jnp.int32)
    t0 = time.perf_counter()
    compiled = play.lower(env, key, games, lineup0, MAX_STEPS).compile()
    compile_s = time.perf_counter() - t0
    console.print(f"[dim]{env_id}: compiled in {compile_s:.1f} s ({jax.default_backend()})[/dim]")
    results = {}
    for i, (label, lineup) in enumerate(LINEUPS.items()):
        k = jax.random.fold_in(key, i)
        t0 = time.perf_counter()
        out = compiled(k, jnp.asarray(lineup, jnp.int32), MAX_STEPS)
        out.pop("states")
        out = jax.tree.map(np.asarray, out)
        seconds = time.perf_counter() - t0
        mean, se = summarize(out["scores"])
        results[label] = dict(lineup=lineup, mean=mean, se=se, seconds=seconds, **out)
        console.print(f"[dim]{label}: {games} tournaments in {seconds:.1f} s "
                      f"({games / seconds:.1f} tournaments/s, "
                      f"{out['decisions'] / seconds:,.0f} decisions/s, "
                      f"{out['steps'].mean():.0f} decisions per tournament)[/dim]")

    table = Table(title=f"{env_id}: {games} tournaments per line-up, mean score ± SE by player id",
                  caption="(a) baseline vs five random bots, (b) six baselines; z against 1/6")
    table.add_column("player", justify="right")
    for label in LINEUPS:
        table.add_column(f"{label} bot")
        table.add_column(f"{label} score ± SE", justify="right", no_wrap=True)
        table.add_column(f"{label} z", justify="right")
    for p in range(env.num_players):
        row = [str(p)]
        for r in results.values():
            z = (r["mean"][p] - 1 / 6) / r["se"][p]
            row += [names[r["lineup"][p]], f"{r['mean'][p]:.4f} ± {r['se'][p]:.4f}", f"{z:+.1f}"]
        table.add_row(*row)
    console.print(table)

    a, b = results["(a)"], results["(b)"]
    theory = payout_sd(env) / math.sqrt(games)
    z_a = (a["mean"][0] - 1 / 6) / a["se"][0]
    z_b = (b["mean"] - 1 / 6) / b["se"]
    ok_a = z_a > 3
    ok_b = bool((np.abs(z_b) < 3).all()) and bool((np.abs(b["se"] / theory - 1) < 0.2).all())
    console.print(f"(a) baseline {a['mean'][0]:.4f} ± {a['se'][0]:.4f}: z = {z_a:+.1f} vs 1/6 "
                  f"-> {'[green]beats random clearly[/green]' if ok_a else '[red]NOT clear[/red]'}")
    console.print(f"(b) theory: 1/6 = 0.1667 each, SE = {theory:.4f}; measured SE "
                  f"{b['se'].min():.4f}..{b['se'].max():.4f}, max |z| {np.abs(z_b).max():.1f} -> "
                  f"{'[green]consistent[/green]' if ok_b else '[red]INCONSISTENT[/red]'}")
    illegal = {names[i]: int(x) for r in results.values() for i, x in enumerate(r["illegal"]) if x}
    console.print(f"illegal picks: {illegal or 'none'} over "
                  f"{sum(int(r['decisions']) for r in results.values()):,} decisions (every bot "
                  "evaluated at every decision)")
    return dict(results=results, compile_s=compile_s, ok_a=ok_a, ok_b=ok_b, illegal=illegal)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", default="sng-6")
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    out = run(args.env, args.games, args.seed, Console())
    return 0 if (out["ok_a"] and out["ok_b"] and not out["illegal"]) else 1


if __name__ == "__main__":
    sys.exit(main())
